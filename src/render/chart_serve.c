/* The latency chart of a serving run (fak bench serve --chart): the
 * empirical CDFs of TTFT, ITL and E2EL with their p50, p95 and p99 marked,
 * the failed requests in the title and the schedule's verdict. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "render/chart.h"
#include "render/fmt.h"
#include "render/serving.h"
#include "render/svg.h"

#define WIDTH 1000.0
#define HEIGHT 440.0
/* the CDF panel */
#define PX0 84.0
#define PX1 666.0
#define PY0 120.0
#define PY1 360.0
#define LOG_SPAN 20.0	/* a wider max/min ratio draws the x axis in decades */
#define MAX_STEPS 2000	/* a CDF of more values is drawn through this many of them */

struct series {
	const char *name, *stroke, *mark;
	const double *v;	/* sorted */
	size_t n;
	const struct serve_dist *d;
};

struct xscale {
	bool log;
	double lo, hi;		/* in ms (log: the decades' bounds) */
	struct svg_axis a;	/* linear only */
};

static double xpos(const struct xscale *x, double v)
{
	if (x->log) {
		double span = log10(x->hi) - log10(x->lo);

		v = fmax(v, x->lo);
		return PX0 + (log10(v) - log10(x->lo)) / span * (PX1 - PX0);
	}
	return PX0 + (v - x->a.first) / (x->a.last - x->a.first) * (PX1 - PX0);
}

static double ypos(double p)
{
	return PY1 - p * (PY1 - PY0);
}

/* The x scale of every plotted value: decades when they span more than
 * LOG_SPAN, else linear from zero. */
static void scale(const struct series *s, size_t ns, struct xscale *x)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			if (s[i].v[k] > 0)
				lo = fmin(lo, s[i].v[k]);
			hi = fmax(hi, s[i].v[k]);
		}
	memset(x, 0, sizeof(*x));
	if (hi > 0 && isfinite(lo) && hi / lo > LOG_SPAN) {
		x->log = true;
		x->lo = pow(10, floor(log10(lo)));
		x->hi = pow(10, ceil(log10(hi)));
		return;
	}
	svg_axis(0, hi > 0 ? hi : 1, 5, &x->a);
	x->a.first = 0;
}

static void axes(struct strbuf *out, const struct xscale *x)
{
	char buf[FMT_MAX];

	for (int k = 0; k <= 4; k++) {
		double p = k / 4.0;

		svg_line(out, PX0, ypos(p), PX1, ypos(p), "grid");
		snprintf(buf, sizeof(buf), "%d%%", k * 25);
		svg_text(out, PX0 - 6, ypos(p) + 4, "small", "end", buf, 0);
	}
	if (x->log) {
		/* lo and hi are powers of ten: a line at each decade */
		int decades = (int)lround(log10(x->hi / x->lo));

		for (int k = 0; k <= decades; k++) {
			double t = x->lo * pow(10, k);

			svg_line(out, xpos(x, t), PY0, xpos(x, t), PY1, "grid");
			snprintf(buf, sizeof(buf), "%g", t);
			svg_text(out, xpos(x, t), PY1 + 15, "small", "middle", buf, 0);
		}
	} else {
		const struct svg_axis *a = &x->a;
		double end = a->last + a->step * 1e-6;

		for (int k = 0; a->first + k * a->step <= end; k++) {
			double t = a->first + k * a->step;

			svg_line(out, xpos(x, t), PY0, xpos(x, t), PY1, "grid");
			svg_tick_label(buf, sizeof(buf), a, t);
			svg_text(out, xpos(x, t), PY1 + 15, "small", "middle", buf, 0);
		}
	}
	svg_line(out, PX0, PY0, PX0, PY1, "axis");
	svg_line(out, PX0, PY1, PX1, PY1, "axis");
	svg_text(out, (PX0 + PX1) / 2, PY1 + 34, "small", "middle",
		 x->log ? "latency, ms (log scale): the share of values at or below it"
			: "latency, ms: the share of values at or below it",
		 0);
}

static void mark(struct strbuf *out, const char *cls, double cx, double cy)
{
	if (!strcmp(cls, "cand"))
		svg_square(out, cx, cy, 4, cls);
	else if (!strcmp(cls, "witness"))
		svg_diamond(out, cx, cy, 5, cls);
	else
		svg_circle(out, cx, cy, 4, cls);
}

/* One series: its CDF as a staircase (through at most MAX_STEPS of its
 * values) and its p50, p95 and p99 as marks on the curve. */
static void cdf(struct strbuf *out, const struct xscale *x, const struct series *s)
{
	size_t stride = s->n > MAX_STEPS ? (s->n + MAX_STEPS - 1) / MAX_STEPS : 1, m = 0;
	double *xy = xcalloc(4 * (s->n / stride + 2), sizeof(double));
	const double ps[] = { 0.5, 0.95, 0.99 }, vs[] = { s->d->p50, s->d->p95, s->d->p99 };

	if (!s->n) {
		free(xy);
		return;
	}
	xy[m++] = xpos(x, s->v[0]);
	xy[m++] = ypos(0);
	for (size_t k = 0; k < s->n; k += stride) {
		size_t j = k + stride - 1 < s->n ? k + stride - 1 : s->n - 1;

		xy[m++] = xpos(x, s->v[j]);
		xy[m++] = ypos((double)k / (double)s->n);
		xy[m++] = xpos(x, s->v[j]);
		xy[m++] = ypos((double)(j + 1) / (double)s->n);
	}
	svg_polyline(out, xy, m / 2, s->stroke);
	free(xy);
	for (int i = 0; i < 3; i++)
		mark(out, s->mark, xpos(x, vs[i]), ypos(ps[i]));
}

/* The side panel: each series' percentiles, the failures, the schedule. */
static void side(struct strbuf *out, const struct series *s, size_t ns,
		 const struct serve_summary *sum)
{
	char line[FMT_MAX * 3], a[FMT_PART], b[FMT_PART], c[FMT_PART];
	double y = 134;

	svg_rect(out, 698, 86, 286, 338, "frame");
	svg_text(out, 714, 106, "head", "start", "percentiles, ms", 0);
	for (size_t i = 0; i < ns; i++, y += 40) {
		mark(out, s[i].mark, 720, y - 4);
		snprintf(line, sizeof(line), "%s (n=%zu)", s[i].name, s[i].n);
		svg_text(out, 732, y, "", "start", line, 0);
		if (!s[i].n) {
			svg_text(out, 732, y + 16, "small", "start", "no values", 0);
			continue;
		}
		fmt_value(a, s[i].d->p50);
		fmt_value(b, s[i].d->p95);
		fmt_value(c, s[i].d->p99);
		snprintf(line, sizeof(line), "p50 %s \u00b7 p95 %s \u00b7 p99 %s", a, b, c);
		svg_text(out, 732, y + 16, "small", "start", line, 38);
	}
	snprintf(line, sizeof(line), "completed: %zu of %zu requests", sum->completed,
		 sum->requests);
	svg_text(out, 714, 268, "", "start", line, 40);
	if (sum->failed) {
		struct strbuf f = STRBUF_INIT;

		render_serving_failures(&f, sum);
		snprintf(line, sizeof(line), "failed: %s", f.buf);
		sb_release(&f);
		svg_text(out, 714, 286, "small", "start", line, 42);
	}
	if (!sum->open_loop) {
		svg_text(out, 714, 330, "verdict", "start", "schedule: closed loop", 0);
		svg_text(out, 714, 348, "small", "start", "no schedule: no lag to keep", 0);
	} else if (sum->fell_behind) {
		svg_text(out, 714, 330, "verdict gate-regression", "start", "schedule: FELL BEHIND",
			 0);
		snprintf(line, sizeof(line), "%zu of %zu sends later than %g ms", sum->late,
			 sum->lag.n, sum->max_lag_ms);
		svg_text(out, 714, 348, "small", "start", line, 42);
		fmt_value(a, sum->lag.max);
		snprintf(line, sizeof(line), "(max %s ms): not the trace's load", a);
		svg_text(out, 714, 364, "small", "start", line, 42);
	} else {
		svg_text(out, 714, 330, "verdict gate-pass", "start", "schedule: kept", 0);
		fmt_value(a, sum->lag.max);
		snprintf(line, sizeof(line), "every send within %g ms (max %s ms)", sum->max_lag_ms,
			 a);
		svg_text(out, 714, 348, "small", "start", line, 42);
	}
	svg_text(out, 714, 404, "small", "start", "vllm bench serve's definitions", 0);
}

void render_chart_serve(struct strbuf *out, const struct serve_summary *sum,
			const struct serve_latencies *l, const char *trace_sha256)
{
	const struct series s[] = {
		{ "TTFT", "#3c78d8", "base", l->ttft, l->nr_ttft, &sum->ttft },
		{ "ITL", "#e69138", "cand", l->itl, l->nr_itl, &sum->itl },
		{ "E2EL", "#1c3f7a", "witness", l->e2el, l->nr_e2el, &sum->e2el },
	};
	size_t ns = sizeof(s) / sizeof(s[0]);
	struct strbuf t = STRBUF_INIT;
	struct xscale x;

	sb_addf(&t, "Serving latency: %zu requests, %zu failed", sum->requests, sum->failed);
	svg_begin(out, WIDTH, HEIGHT, t.buf);
	svg_text(out, 32, 30, "title", "start", t.buf, 80);
	sb_reset(&t);
	sb_addf(&t, "trace %s", trace_sha256);
	svg_text(out, 32, 50, "note id", "start", t.buf, 130);
	svg_rect(out, 16, 86, 666, 338, "frame");
	svg_text(out, 32, 106, "head", "start", "empirical CDF of each latency", 0);
	svg_text(out, PX1, 106, "small", "end", "marks: p50, p95, p99", 0);
	scale(s, ns, &x);
	axes(out, &x);
	for (size_t i = 0; i < ns; i++)
		cdf(out, &x, &s[i]);
	side(out, s, ns, sum);
	svg_end(out);
	sb_release(&t);
}
