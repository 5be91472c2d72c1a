/* Human text of a comparison document: a header, one benchstat-style line
 * per metric and a legend. Every number comes from the document; this file
 * only formats and lays out. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "render/fmt.h"
#include "render/render.h"
#include "render/wrap.h"

#define LABEL_WIDTH 5

#define get fmt_get
#define num fmt_num
#define str fmt_str

void render_metric_line(struct strbuf *out, const json_t *metric)
{
	struct wrap l;
	char buf[FMT_MAX], tmp[FMT_PART];

	wrap_init(&l, out, LABEL_WIDTH + 2);
	snprintf(buf, sizeof(buf), "%-*s", LABEL_WIDTH, str(metric, "unit"));
	wrap_put(&l, "", buf);
	fmt_arm(buf, get(metric, "baseline"));
	wrap_put(&l, "  ", buf);
	wrap_put(&l, "  ", "\u2192");
	fmt_arm(buf, get(metric, "candidate"));
	wrap_put(&l, "  ", buf);
	fmt_percent(buf, num(metric, "shift_percent"));
	wrap_put(&l, "  ", buf);
	fmt_interval(buf, get(metric, "interval_percent"));
	wrap_put(&l, " ", buf);
	fmt_level(tmp, num(metric, "confidence_level"));
	snprintf(buf, sizeof(buf), "%s CI", tmp);
	wrap_put(&l, " ", buf);
	fmt_p(tmp, num(metric, "p_value"));
	snprintf(buf, sizeof(buf), "p=%s", tmp);
	wrap_put(&l, "  ", buf);
	snprintf(buf, sizeof(buf), "n=%.0f+%.0f", num(get(metric, "baseline"), "repetitions"),
		 num(get(metric, "candidate"), "repetitions"));
	wrap_put(&l, "  ", buf);
	wrap_put(&l, "  ", fmt_verdict(str(metric, "verdict")));
	wrap_end(&l);
}

/* The notes under the lines: method when it is not the plain exact one,
 * and the repetitions a shift of the observed size needs. */
static void metric_notes(struct strbuf *out, const json_t *metric)
{
	struct wrap l;
	const json_t *need = get(metric, "repetitions_needed");
	char buf[160];

	wrap_init(&l, out, 2);
	if (json_is_true(get(metric, "ties")) || json_is_false(get(metric, "exact"))) {
		snprintf(buf, sizeof(buf), "%s:", str(metric, "unit"));
		wrap_put(&l, "", buf);
		wrap_words(&l, str(metric, "method"));
		wrap_end(&l);
	}
	snprintf(buf, sizeof(buf), "%s:", str(metric, "unit"));
	wrap_put(&l, "", buf);
	if (json_is_integer(need)) {
		snprintf(buf, sizeof(buf), "about %lld repetitions per arm would decide a shift "
					   "of this size at this level",
			 (long long)json_integer_value(need));
		wrap_words(&l, buf);
	} else {
		wrap_words(&l, "no repetition count:");
		wrap_words(&l, str(metric, "repetitions_needed_reason"));
	}
	wrap_end(&l);
}

void render_decision_line(struct strbuf *out, const json_t *decision)
{
	wrap_line(out, "decision  ", 11, str(decision, "summary"));
}

void render_revisions(struct strbuf *out, const char *base, const char *base_label,
		      const char *cand)
{
	struct wrap l;

	wrap_init(&l, out, 11);
	wrap_put(&l, "", "revisions ");
	wrap_words(&l, base);
	wrap_put(&l, " ", base_label);
	wrap_put(&l, " ", "\u2192");
	wrap_words(&l, cand);
	wrap_put(&l, " ", "(candidate)");
	wrap_end(&l);
}

/* How the arms ran in time, each run with its start, and the warning of a
 * blocked arrangement. */
static void order_text(struct strbuf *out, const json_t *order)
{
	const json_t *runs = get(order, "runs");
	const char *req = str(order, "requested"), *arr = str(order, "arrangement");
	struct wrap l;
	size_t i;
	const json_t *u;

	if (!json_is_array(runs)) {
		sb_adds(out, "order      unknown: the receipts record no experiment schedule\n");
		return;
	}
	sb_addf(out, "order      %s%s%s\n", arr, strcmp(req, arr) ? ", requested " : "",
		strcmp(req, arr) ? req : "");
	json_array_foreach (runs, i, u) {
		const char *kind = str(u, "kind");

		sb_addf(out, "           %2zu  %-9s  %-10s %3lld  %s\n", i + 1, str(u, "arm"),
			!strcmp(kind, "warmup") ? "warm-up" : kind,
			(long long)json_integer_value(get(u, "index")) + 1,
			str(u, "started_at_utc"));
	}
	if (get(order, "warning")) {
		wrap_init(&l, out, 11);
		wrap_put(&l, "", "warning   ");
		wrap_words(&l, str(order, "warning"));
		wrap_end(&l);
	}
}

/* How many repetitions of each arm are sealed by their attestation. */
static void bound_text(struct strbuf *out, const json_t *bound)
{
	static const char *const arms[] = { "baseline", "candidate" };
	size_t n = 0, total = 0, i;
	const json_t *v;

	for (int a = 0; a < 2; a++)
		json_array_foreach (get(bound, arms[a]), i, v) {
			total++;
			n += json_is_true(v);
		}
	if (n == total)
		sb_addf(out, "metrics    sealed: every repetition (%zu) equals its attestation's "
			     "measurement\n", n);
	else if (!n)
		sb_addf(out, "metrics    not sealed: no repetition (of %zu) was measured by fak; "
			     "the values were typed in\n", total);
	else
		sb_addf(out, "metrics    %zu of %zu repetitions sealed; the others were typed in\n",
			n, total);
}

void render_gpu_arm(struct strbuf *out, const json_t *arm, const char *key)
{
	const json_t *c = get(arm, key);

	if (!strcmp(key, "clocks_event_reasons")) {
		if (!json_array_size(c))
			sb_adds(out, "none");
		for (size_t i = 0; i < json_array_size(c); i++)
			sb_addf(out, "%s%s", i ? " " : "", json_string_value(json_array_get(c, i)));
	} else if (!c) {
		sb_adds(out, str(arm, "status"));
	} else {
		sb_addf(out, "%.0f MHz [%.0f, %.0f]", num(c, "mean"), num(c, "min"), num(c, "max"));
	}
}

/* The arms' GPU clocks under the throughput, when either arm read a GPU:
 * a clock difference shows next to a throughput difference. */
static void gpu_text(struct strbuf *out, const json_t *gpu)
{
	const json_t *arm[2] = { get(gpu, "baseline"), get(gpu, "candidate") };
	static const char *const what[3] = { "SM ", "; memory ", "; clock events " };
	struct strbuf t = STRBUF_INIT;

	for (int k = 0; k < 3; k++) {
		sb_adds(&t, what[k]);
		for (int a = 0; a < 2; a++) {
			if (a)
				sb_adds(&t, " \u2192 ");
			render_gpu_arm(&t, arm[a], render_gpu_keys[k]);
		}
	}
	wrap_line(out, "gpu   ", 7, t.buf);
	sb_release(&t);
}

const char *const render_gpu_keys[3] = { "sm_clock_mhz", "memory_clock_mhz",
					 "clocks_event_reasons" };

void render_comparison_text(struct strbuf *out, const json_t *doc)
{
	static const char *const metrics[] = { "tokens_per_second", "end_to_end_milliseconds" };
	const json_t *st = get(doc, "statistics");
	struct wrap l;
	char buf[480], band[FMT_MAX];

	wrap_line(out, "envelope  ", 11, str(doc, "envelope_id"));
	wrap_line(out, "lever     ", 11, str(doc, "changed_lever_id"));
	render_revisions(out, str(doc, "baseline_revision"), "(baseline)",
			 str(doc, "candidate_revision"));
	bound_text(out, get(doc, "metrics_bound"));
	order_text(out, get(doc, "order"));
	sb_addch(out, '\n');
	if (get(st, "primary"))
		render_metric_line(out, get(st, "primary"));
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		render_metric_line(out, get(st, metrics[i]));
	if (get(doc, "gpu_clocks"))
		gpu_text(out, get(doc, "gpu_clocks"));
	sb_addch(out, '\n');
	render_decision_line(out, get(doc, "decision"));
	sb_addch(out, '\n');
	fmt_band(band, get(st, "threshold_band_percent"));
	snprintf(buf, sizeof(buf), "Median \u00b1noise, Hodges-Lehmann shift of the candidate as a "
				   "ratio to the baseline, in percent, with its distribution-free "
				   "interval, two-sided Mann-Whitney p. %s decides: faster or "
				   "slower when the whole interval lies beyond the %g%% practical "
				   "threshold (the same ratio either way: %s), equivalent when it "
				   "lies within it, otherwise undecided; %s secondary.",
		 get(st, "primary") ? str(get(st, "primary"), "unit") : "tok/s",
		 num(st, "practical_threshold_percent"), band,
		 get(st, "primary") ? "tok/s and ms are" : "ms is");
	wrap_init(&l, out, 0);
	wrap_words(&l, buf);
	wrap_end(&l);
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		metric_notes(out, get(st, metrics[i]));
}
