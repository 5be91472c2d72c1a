/* The runs chart of a comparison: every repetition's value of the metric
 * that decided (tok/s, or a serving comparison's primary metric) in the
 * order the runs ran, each arm's median, and the shift with its interval. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "render/chart.h"
#include "render/fmt.h"
#include "render/svg.h"

#define get fmt_get
#define num fmt_num
#define str fmt_str

#define WIDTH 1000.0
#define HEIGHT 440.0
/* the runs panel */
#define RX0 84.0
#define RX1 666.0
#define RY0 120.0
#define RY1 360.0
/* the shift panel */
#define SX0 730.0
#define SX1 960.0
#define SMALL_PX 6.4	/* advance of a small (11px) character, generous */

/* One plotted repetition. */
struct point {
	int arm;	/* 0 baseline, 1 candidate */
	double tps;
	char label[24];	/* the run's number, or B1/C1 without an order */
};

/* The points in the order the runs ran (warm-ups have no value), or per
 * arm in repetition order when the receipts record no order. *n gets the
 * count; the caller frees the array. */
static struct point *points(const json_t *doc, const char *key, size_t *n, bool *ordered)
{
	const json_t *v[2] = { get(get(doc, "baseline_samples"), key),
			       get(get(doc, "candidate_samples"), key) };
	const json_t *runs = get(get(doc, "order"), "runs"), *u;
	size_t cap = json_array_size(v[0]) + json_array_size(v[1]), i;
	struct point *p = xcalloc(cap + 1, sizeof(*p));

	*n = 0;
	*ordered = json_is_array(runs);
	if (*ordered) {
		json_array_foreach (runs, i, u) {
			int arm = !strcmp(str(u, "arm"), "candidate");
			const json_t *x =
				json_array_get(v[arm], (size_t)json_integer_value(get(u, "index")));

			if (strcmp(str(u, "kind"), "repetition") || !x || *n == cap)
				continue;
			p[*n].arm = arm;
			p[*n].tps = json_number_value(x);
			snprintf(p[*n].label, sizeof(p[*n].label), "%zu", i + 1);
			(*n)++;
		}
		return p;
	}
	for (int arm = 0; arm < 2; arm++)
		json_array_foreach (v[arm], i, u) {
			p[*n].arm = arm;
			p[*n].tps = json_number_value(u);
			snprintf(p[*n].label, sizeof(p[*n].label), "%c%zu", arm ? 'C' : 'B', i + 1);
			(*n)++;
		}
	return p;
}

static double ypos(const struct svg_axis *a, double v)
{
	return RY1 - (v - a->first) / (a->last - a->first) * (RY1 - RY0);
}

/* The label of every k-th run, k the smallest that keeps labels apart. */
static size_t label_every(const struct point *p, size_t n, double step)
{
	size_t w = 1;

	for (size_t i = 0; i < n; i++)
		w = w > strlen(p[i].label) ? w : strlen(p[i].label);
	/* a label is w small characters wide; 4px apart at least */
	for (size_t k = 1; k < n; k++)
		if ((double)k * step >= (double)w * SMALL_PX + 4)
			return k;
	return n ? n : 1;
}

/* m: the statistics of the plotted metric; key: its member in the samples;
 * head: the panel's head */
static void runs_panel(struct strbuf *out, const json_t *doc, const json_t *m, const char *key,
		       const char *head)
{
	static const char *const marks[] = { "base", "cand" },
				 *const lines[] = { "base-line", "cand-line" };
	size_t n, every;
	bool ordered;
	struct point *p = points(doc, key, &n, &ordered);
	double lo = INFINITY, hi = -INFINITY, med[2], step, pad;
	struct svg_axis a;
	char buf[FMT_MAX * 2], v[2][FMT_PART];

	svg_rect(out, 16, 86, 666, 338, "frame");
	svg_text(out, 32, 106, "head", "start", head, 60);
	med[0] = num(get(m, "baseline"), "median");
	med[1] = num(get(m, "candidate"), "median");
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, p[i].tps);
		hi = fmax(hi, p[i].tps);
	}
	for (int k = 0; k < 2; k++) {
		lo = fmin(lo, med[k]);
		hi = fmax(hi, med[k]);
	}
	/* a rate or a latency is never below zero: neither is its axis */
	pad = (hi - lo) * 0.08;
	lo = fmax(0, lo - pad);
	hi += pad;
	/* equal values: svg_axis pads them 5% either way (0 to 1 for zero) */
	svg_axis(lo, hi > lo ? hi : lo > 0 ? lo : 1, 5, &a);
	if (a.first < 0)
		a.first = 0;
	for (double k = 0, t; (t = a.first + k * a.step) <= a.last + a.step * 1e-6; k++) {
		svg_line(out, RX0, ypos(&a, t), RX1, ypos(&a, t), "grid");
		svg_tick_label(buf, sizeof(buf), &a, t);
		svg_text(out, RX0 - 6, ypos(&a, t) + 4, "small", "end", buf, 0);
	}
	svg_line(out, RX0, RY0, RX0, RY1, "axis");
	svg_line(out, RX0, RY1, RX1, RY1, "axis");
	/* the medians: lines under the points, their values in the panel's
	 * head, where no point can be */
	for (int k = 0; k < 2; k++) {
		svg_line(out, RX0, ypos(&a, med[k]), RX1, ypos(&a, med[k]), lines[k]);
		fmt_value(v[k], med[k]);
	}
	snprintf(buf, sizeof(buf), "median: baseline %s, candidate %s", v[0], v[1]);
	svg_text(out, RX1, 106, "small", "end", buf, 0);
	step = n ? (RX1 - RX0) / (double)n : 0;
	every = label_every(p, n, step);
	for (size_t i = 0; i < n; i++) {
		double x = RX0 + step * ((double)i + 0.5), y = ypos(&a, p[i].tps);

		if (p[i].arm)
			svg_square(out, x, y, 4.5, marks[1]);
		else
			svg_circle(out, x, y, 5, marks[0]);
		if (i % every == 0)
			svg_text(out, x, RY1 + 15, "small", "middle", p[i].label, 0);
	}
	svg_text(out, (RX0 + RX1) / 2, RY1 + 34, "small", "middle",
		 ordered ? "run, in the order the runs ran (warm-ups ran too and are not measured)"
			 : "repetition of each arm: the receipts record no order, "
			   "so drift cannot be seen",
		 0);
	free(p);
}

/* The decision of the comparison and, for an experiment, its gate's class:
 * what the chart was drawn to show. */
static void decision_lines(struct strbuf *out, const json_t *m, const json_t *d,
			   const json_t *gate)
{
	const json_t *ip = get(d, "interval_percent");
	char line[FMT_MAX * 2], x[FMT_PART], y[FMT_PART], iv[FMT_MAX];
	const char *cls = str(gate, "classification");
	double cx = (SX0 + SX1) / 2;

	if (!json_is_object(d)) {	/* a comparison without a decision: its statistics */
		d = m;
		ip = get(m, "interval_percent");
	}
	snprintf(line, sizeof(line), "decision: %s", str(d, "verdict"));
	svg_text(out, cx, 336, "verdict", "middle", line, 0);
	fmt_percent(x, num(d, "shift_percent"));
	fmt_interval(iv, ip);
	fmt_level(y, json_is_number(get(d, "level")) ? num(d, "level")
						     : num(m, "confidence_level"));
	snprintf(line, sizeof(line), "%s %s at %s", x, iv, y);
	svg_text(out, cx, 354, "", "middle", line, 0);
	fmt_p(x, num(m, "p_value"));
	snprintf(line, sizeof(line), "p=%s \u00b7 n=%.0f+%.0f", x,
		 num(get(m, "baseline"), "repetitions"), num(get(m, "candidate"), "repetitions"));
	svg_text(out, cx, 370, "small", "middle", line, 0);
	/* the gate: its class when the chart is an experiment's, else said not run */
	if (*cls) {
		/* the class colours the text only when it is one the gate gives */
		static const char *const known[][2] = {
			{ "pass", "verdict gate-pass" },
			{ "investigate", "verdict gate-investigate" },
			{ "regression", "verdict gate-regression" },
		};
		const char *c = "verdict";

		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strcmp(cls, known[i][0]))
				c = known[i][1];
		snprintf(line, sizeof(line), "gate: %s", cls);
		svg_text(out, cx, 394, c, "middle", line, 30);
	} else {
		svg_text(out, cx, 394, "verdict", "middle", "gate: not run", 0);
	}
	if (json_is_object(get(d, "host_policy"))) {
		const json_t *h = get(d, "host_policy");

		snprintf(line, sizeof(line),
			 "host: other \u2264%g%% \u00b7 duty \u2264%g%% \u00b7 PSI \u2264%g%%",
			 num(h, "maximum_non_sut_cpu_percent"),
			 num(h, "maximum_sampler_duty_percent"),
			 num(h, "maximum_psi_stall_percent"));
		svg_text(out, cx, 412, "small", "middle", line, 0);
	}
}

static void shift_panel(struct strbuf *out, const json_t *st, const json_t *m, const json_t *d,
			const json_t *gate)
{
	const json_t *ip = get(m, "interval_percent"), *band = get(st, "threshold_band_percent");
	double down = num(band, "lower"), up = num(band, "upper"), lo = num(ip, "lower"),
	       hi = num(ip, "upper"), s = num(m, "shift_percent"), a0, a1;
	struct svg_axis a;
	char buf[FMT_MAX], x[FMT_PART], b[FMT_MAX];

#define XS(v) (SX0 + ((v) - a.first) / (a.last - a.first) * (SX1 - SX0))
	svg_rect(out, 698, 86, 286, 338, "frame");
	svg_text(out, 714, 106, "head", "start", "shift, candidate vs baseline", 0);
	a0 = fmin(fmin(lo, down), 0);
	a1 = fmax(fmax(hi, up), 0);
	svg_axis(a0 - (a1 - a0) * 0.1, a1 + (a1 - a0) * 0.1, 4, &a);
	if (a.first < -100)	/* a ratio: never below -100% */
		a.first = -100;
	svg_rect(out, XS(down), 140, XS(up) - XS(down), 140, "noise");
	fmt_band(b, band);
	{
		char label[FMT_MAX + 24];

		/* above the band, in the middle of the panel: inside it wherever the band is */
		snprintf(label, sizeof(label), "practical threshold %s", b);
		svg_text(out, (SX0 + SX1) / 2, 128, "small", "middle", label, 0);
	}
	svg_line(out, XS(0), 140, XS(0), 290, "zero");
	svg_line(out, XS(lo), 215, XS(hi), 215, "ci");
	svg_line(out, XS(lo), 207, XS(lo), 223, "ci");
	svg_line(out, XS(hi), 207, XS(hi), 223, "ci");
	svg_circle(out, XS(s), 215, 5, "witness");
	for (double k = 0, t; (t = a.first + k * a.step) <= a.last + a.step * 1e-6; k++) {
		svg_line(out, XS(t), 290, XS(t), 295, "axis");
		svg_tick_label(x, sizeof(x), &a, t);
		snprintf(buf, sizeof(buf), "%s%%", x);
		svg_text(out, XS(t), 308, "small", "middle", buf, 0);
	}
	svg_line(out, SX0, 290, SX1, 290, "axis");
	decision_lines(out, m, d, gate);
#undef XS
}

void render_chart_runs(struct strbuf *out, const json_t *doc, const json_t *gate, bool aa)
{
	const json_t *st = get(doc, "statistics"), *m = get(st, "tokens_per_second"),
		     *order = get(doc, "order");
	const char *kind = aa ? "A/A" : "A/B", *key = "tokens_per_second";
	struct strbuf t = STRBUF_INIT, head = STRBUF_INIT;

	/* a serving comparison is decided on its primary metric: plot that,
	 * in its units and direction */
	if (json_is_object(get(st, "primary"))) {
		m = get(st, "primary");
		key = "primary";
		sb_addf(&head, "%s per run, %s is better", str(m, "unit"),
			json_is_true(get(m, "higher_is_better")) ? "higher" : "lower");
	} else {
		sb_adds(&head, "tok/s of every repetition");
	}

	sb_addf(&t, "%s of %s on %s", kind, str(doc, "changed_lever_id"), str(doc, "envelope_id"));
	if (aa)
		sb_adds(&t, " (" RECEIPT_AA_NOTE ")");
	svg_begin(out, WIDTH, HEIGHT, t.buf);
	sb_reset(&t);
	sb_addf(&t, "%s \u00b7 %s", kind, str(doc, "changed_lever_id"));
	if (aa)
		sb_adds(&t, " \u00b7 calibration, not a witness");
	svg_text(out, 32, 30, "title", "start", t.buf, 80);
	sb_reset(&t);
	sb_addf(&t, "%s \u00b7 %s (baseline) \u2192 %s (candidate) \u00b7 order: %s",
		str(doc, "envelope_id"), str(doc, "baseline_revision"),
		str(doc, "candidate_revision"), str(order, "arrangement"));
	svg_text(out, 32, 50, "note", "start", t.buf, 130);
	svg_circle(out, 37, 68, 5, "base");
	svg_text(out, 48, 72, "small", "start", "baseline", 0);
	svg_square(out, 117, 68, 4.5, "cand");
	svg_text(out, 128, 72, "small", "start", "candidate", 0);
	svg_line(out, 200, 68, 226, 68, "base-line");
	svg_line(out, 230, 68, 256, 68, "cand-line");
	svg_text(out, 262, 72, "small", "start", "median of each arm", 0);
	svg_rect(out, 400, 63, 22, 10, "noise");
	svg_text(out, 428, 72, "small", "start",
		 "within the practical threshold: equivalent when the whole interval is", 0);
	runs_panel(out, doc, m, key, head.buf);
	shift_panel(out, st, m, get(doc, "decision"), gate);
	svg_end(out);
	sb_release(&t);
	sb_release(&head);
}
