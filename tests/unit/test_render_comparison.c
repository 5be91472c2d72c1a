/* render/comparison: the benchstat-style metric line, its number formats,
 * and the 100-column bound, on hand-built documents. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/json.h"
#include "render/render.h"

static json_t *arm(double n, double median, double noise)
{
	json_t *o = jobj();

	jset_num(o, "repetitions", n);
	jset_num(o, "median", median);
	jset_num(o, "noise_percent", noise);
	return o;
}

/* A metric object as the comparison document carries it. */
static json_t *metric(const char *unit, json_t *base, json_t *cand, double shift, double lo,
		      double hi, double level, double p, const char *verdict)
{
	json_t *o = jobj(), *ip = jobj();

	jset_str(o, "unit", unit);
	jset_new(o, "baseline", base);
	jset_new(o, "candidate", cand);
	jset_num(o, "shift_percent", shift);
	jset_num(ip, "lower", lo);
	jset_num(ip, "upper", hi);
	jset_new(o, "interval_percent", ip);
	jset_num(o, "confidence_level", level);
	jset_num(o, "p_value", p);
	jset_bool(o, "ties", false);
	jset_bool(o, "exact", true);
	jset_str(o, "method", "exact Mann-Whitney distribution");
	jset_str(o, "verdict", verdict);
	jset_int(o, "repetitions_needed", 12);
	jset_str(o, "repetitions_needed_reason", NULL);
	return o;
}

/* Longest line in code points. */
static size_t widest(const char *s)
{
	size_t most = 0, w = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			most = w > most ? w : most;
			w = 0;
		} else {
			w += ((unsigned char)*s & 0xC0) != 0x80;
		}
	}
	return w > most ? w : most;
}

/* Renders m (stolen) and compares with want. */
static void expect_line(json_t *m, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	render_metric_line(&sb, m);
	cr_expect_str_eq(sb.buf, want);
	json_decref(m);
	sb_release(&sb);
}

Test(render_comparison, the_benchstat_line)
{
	expect_line(metric("tok/s", arm(3, 97, 1.2), arm(3, 251, 2.4), 158.7, 150.1, 166, 0.9, 0.1,
			   "faster"),
		    "tok/s  97.00 \u00b11%  \u2192  251.0 \u00b12%  +158.7% [+150.1%, +166.0%] 90% "
		    "CI  p=0.100  n=3+3  faster\n");
}

Test(render_comparison, formats_of_small_levels_p_and_no_change)
{
	expect_line(metric("ms", arm(5, 640, 0.47), arm(5, 609.5, 0.9), -4.8, -6.5, -0.04,
			   1 - 14.0 / 252, 0.0000123, "undecided"),
		    "ms     640.0 \u00b10.5%  \u2192  609.5 \u00b10.9%  -4.8% [-6.5%, -0.0%] 94.4% "
		    "CI  p=1.2e-05  n=5+5  undecided\n");
}

Test(render_comparison, extreme_numbers_wrap_within_one_hundred_columns)
{
	json_t *m = metric("tok/s", arm(100000, 1e-6, 99999), arm(100000, 1e12, 141.4), 1.5e17,
			   -1.23456e17, 9.87654e17, 0.94999, 1e-300, "slower");
	struct strbuf sb = STRBUF_INIT;

	render_metric_line(&sb, m);
	cr_expect_leq(widest(sb.buf), 100, "%s", sb.buf);
	cr_expect_not_null(strstr(sb.buf, "1.000e-06 \u00b199999%"), "%s", sb.buf);
	cr_expect_not_null(strstr(sb.buf, "1.000e+12 \u00b1141%"), "%s", sb.buf);
	cr_expect_not_null(strstr(sb.buf, "+1.50e+17% [-1.23e+17%, +9.88e+17%] 94.9% CI"), "%s",
			   sb.buf);
	cr_expect_not_null(strstr(sb.buf, "p=1.0e-300"), "%s", sb.buf);
	cr_expect_not_null(strstr(sb.buf, "n=100000+100000  slower\n"), "%s", sb.buf);
	json_decref(m);
	sb_release(&sb);
}

Test(render_comparison, the_whole_text_with_notes)
{
	json_t *doc = jobj(), *st = jobj(), *ms;
	struct strbuf sb = STRBUF_INIT;

	jset_str(doc, "envelope_id", "env");
	jset_str(doc, "changed_lever_id", "lever.x");
	jset_str(doc, "baseline_revision", "r1");
	jset_str(doc, "candidate_revision", "r2");
	jset_num(st, "practical_threshold_percent", 2);
	{
		json_t *band = jobj(), *d = jobj();

		jset_num(band, "lower", 100 / 1.02 - 100);
		jset_num(band, "upper", 2);
		jset_new(st, "threshold_band_percent", band);
		jset_str(d, "summary", "faster: +10.0% [+5.0%, +15.0%] at 90%; the whole interval "
				       "is a gain beyond the 2% threshold");
		jset_new(doc, "decision", d);
	}
	jset_new(st, "tokens_per_second",
		 metric("tok/s", arm(3, 10, 1), arm(3, 11, 1), 10, 5, 15, 0.9, 0.1, "faster"));
	ms = metric("ms", arm(3, 10, 1), arm(3, 10, 1), 0, -1, 1, 0.9, 1, "equivalent");
	jset_bool(ms, "ties", true);
	jset_str(ms, "method", "exact permutation distribution of the mid-rank statistic");
	jset_new(ms, "repetitions_needed", json_null());
	jset_str(ms, "repetitions_needed_reason",
		 "the verdict is decided");
	jset_new(st, "end_to_end_milliseconds", ms);
	jset_new(doc, "statistics", st);
	{
		json_t *order = jobj(), *runs = jarr(), *bound = jobj(), *b = jarr(), *c = jarr();
		const char *arms[2] = { "baseline", "candidate" };

		for (int i = 0; i < 2; i++) {
			json_t *u = jobj();

			jset_str(u, "arm", arms[i]);
			jset_str(u, "kind", "repetition");
			jset_int(u, "index", 0);
			jset_str(u, "started_at_utc",
				 i ? "2026-12-01T00:00:02Z" : "2026-12-01T00:00:01Z");
			jpush_new(runs, u);
		}
		jset_str(order, "requested", "blocked");
		jset_str(order, "arrangement", "blocked");
		jset_str(order, "warning", "every repetition of one arm ran before the other's");
		jset_new(order, "runs", runs);
		jset_new(doc, "order", order);
		jpush_new(b, json_true());
		jpush_new(c, json_false());
		jset_new(bound, "baseline", b);
		jset_new(bound, "candidate", c);
		jset_new(doc, "metrics_bound", bound);
	}
	render_comparison_text(&sb, doc);
	cr_expect_str_eq(sb.buf,
			 "envelope   env\n"
			 "lever      lever.x\n"
			 "revisions  r1 (baseline) \u2192 r2 (candidate)\n"
			 "metrics    1 of 2 repetitions sealed; the others were typed in\n"
			 "order      blocked\n"
			 "            1  baseline   repetition   1  2026-12-01T00:00:01Z\n"
			 "            2  candidate  repetition   1  2026-12-01T00:00:02Z\n"
			 "warning    every repetition of one arm ran before the other's\n"
			 "\n"
			 "tok/s  10.00 \u00b11%  \u2192  11.00 \u00b11%  +10.0% [+5.0%, +15.0%] "
			 "90% CI  p=0.100  n=3+3  faster\n"
			 "ms     10.00 \u00b11%  \u2192  10.00 \u00b11%  +0.0% [-1.0%, +1.0%] 90% "
			 "CI  p=1.000  n=3+3  equivalent\n"
			 "\n"
			 "decision   faster: +10.0% [+5.0%, +15.0%] at 90%; the whole interval "
			 "is a gain beyond the 2%\n"
			 "           threshold\n"
			 "\n"
			 "Median \u00b1noise, Hodges-Lehmann shift of the candidate as a ratio to "
			 "the baseline, in percent, with\n"
			 "its distribution-free interval, two-sided Mann-Whitney p. tok/s decides: "
			 "faster or slower when the\n"
			 "whole interval lies beyond the 2% practical threshold (the same ratio "
			 "either way: +2% or -1.96%),\n"
			 "equivalent when it lies within it, otherwise undecided; ms is "
			 "secondary.\n"
			 "tok/s: about 12 repetitions per arm would decide a shift of this size at "
			 "this level\n"
			 "ms: exact permutation distribution of the mid-rank statistic\n"
			 "ms: no repetition count: the verdict is decided\n");
	cr_expect_leq(widest(sb.buf), 100);
	json_decref(doc);
	sb_release(&sb);
}
