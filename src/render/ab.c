/* A/B results in Markdown, CSV and (for the gate and the runner) text: the
 * comparison and gate documents as they are, with the receipts they judged
 * for the per-repetition values. Formatting and layout only. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "attestation/layout.h"
#include "base/json.h"
#include "render/escape.h"
#include "render/fmt.h"
#include "render/frontdoor_md.h"
#include "render/render.h"
#include "render/report.h"
#include "render/wrap.h"

#define get fmt_get
#define num fmt_num
#define str fmt_str

/* A serving comparison's primary metric first (statistics.primary), then
 * tok/s and ms; a decode comparison has only the two. */
static const char *const metrics[] = { "primary", "tokens_per_second",
				       "end_to_end_milliseconds" };
#define NR_METRICS (sizeof(metrics) / sizeof(metrics[0]))

/* The envelope and lever of the result. */
static const char *envelope_of(const struct render_ab *ab)
{
	return ab->arms[0].r->envelope_id;
}

static const char *lever_of(const struct render_ab *ab)
{
	return ab->arms[0].r->changed_lever_id;
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_num(struct strbuf *out, bool has, double v)
{
	char buf[JSON_NUMBER_MAX];

	sb_addch(out, ',');
	if (!has)
		return;
	json_format_double(buf, v);
	sb_adds(out, buf);
}

static void csv_str(struct strbuf *out, const char *s)
{
	sb_addch(out, ',');
	esc_csv(out, s ? s : "");
}

void render_ab_csv(struct strbuf *out, const struct render_ab *ab)
{
	sb_adds(out, RENDER_AB_CSV_HEADER "\n");
	for (int a = 0; a < 2; a++) {
		const struct render_arm *arm = &ab->arms[a];

		for (size_t i = 0; i < arm->r->nr_reps; i++) {
			const struct receipt_row *w = &arm->rows[i];
			const struct receipt_rep *p = w->rep;

			esc_csv(out, arm->r->envelope_id);
			csv_str(out, arm->r->changed_lever_id);
			csv_str(out, arm->name);
			csv_str(out, arm->r->revision);
			sb_addf(out, ",%zu,", i + 1);
			if (w->run >= 0)
				sb_addf(out, "%lld", w->run + 1);
			csv_str(out, w->started_at_utc);
			csv_num(out, true, p->tokens_per_second);
			csv_num(out, true, p->end_to_end_ms);
			csv_num(out, p->has_ttft, p->ttft_ms);
			csv_num(out, p->has_prefill, p->prefill_ms);
			csv_num(out, p->has_decode, p->decode_ms);
			sb_adds(out, w->metrics_bound ? ",true" : ",false");
			csv_str(out, p->system_baseline_digest);
			sb_addch(out, '\n');
		}
	}
}

/* ---- Markdown ---------------------------------------------------------- */

static void md_code(struct strbuf *out, const char *s)
{
	frontdoor_md_data_code(out, s, true);
}

/* "| key | value |" with value as escaped text, or as a code span. */
static void md_row(struct strbuf *out, const char *key, const char *value, bool code)
{
	sb_adds(out, "| ");
	sb_adds(out, key);
	sb_adds(out, " | ");
	if (code)
		md_code(out, value);
	else
		frontdoor_md_cell(out, value);
	sb_adds(out, " |\n");
}

static void md_title(struct strbuf *out, const char *what, const struct render_ab *ab)
{
	sb_addf(out, "#### %s \u00b7 lever ", what);
	frontdoor_md_data_code(out, lever_of(ab), false);
	sb_adds(out, " on ");
	frontdoor_md_data_code(out, envelope_of(ab), false);
	sb_adds(out, "\n\n");
}

/* The arms' GPU clocks as rows of the metrics table, when either arm read
 * a GPU (the comparison's gpu_clocks). */
static void md_gpu_rows(struct strbuf *out, const json_t *gpu)
{
	static const char *const names[3] = { "GPU SM clock", "GPU memory clock", "clock events" };
	struct strbuf t = STRBUF_INIT;

	for (int k = 0; gpu && k < 3; k++) {
		sb_addf(out, "| %s |", names[k]);
		for (int a = 0; a < 2; a++) {
			sb_reset(&t);
			render_gpu_arm(&t, get(gpu, a ? "candidate" : "baseline"),
				       render_gpu_keys[k]);
			sb_addch(out, ' ');
			frontdoor_md_cell(out, t.buf);
			sb_adds(out, " |");
		}
		sb_adds(out, " | | | | |\n");
	}
	sb_release(&t);
}

static void md_metrics(struct strbuf *out, const json_t *cmp)
{
	const json_t *st = get(cmp, "statistics");
	char buf[FMT_MAX];

	sb_adds(out, "| metric | baseline ");
	md_code(out, str(cmp, "baseline_revision"));
	sb_adds(out, " | candidate ");
	md_code(out, str(cmp, "candidate_revision"));
	sb_adds(out, " | shift [interval] | level | p | n | verdict |\n"
		     "|:--|--:|--:|--:|--:|--:|:-:|:--|\n");
	for (size_t i = 0; i < NR_METRICS; i++) {
		const json_t *m = get(st, metrics[i]);

		if (!m)
			continue;
		sb_addf(out, "| %s | ", str(m, "unit"));
		fmt_arm(buf, get(m, "baseline"));
		sb_addf(out, "%s | ", buf);
		fmt_arm(buf, get(m, "candidate"));
		sb_addf(out, "%s | ", buf);
		fmt_percent(buf, num(m, "shift_percent"));
		sb_addf(out, "%s ", buf);
		fmt_interval(buf, get(m, "interval_percent"));
		sb_addf(out, "%s | ", buf);
		fmt_level(buf, num(m, "confidence_level"));
		sb_addf(out, "%s | ", buf);
		fmt_p(buf, num(m, "p_value"));
		sb_addf(out, "%s | %.0f+%.0f | **%s** |\n", buf,
			num(get(m, "baseline"), "repetitions"),
			num(get(m, "candidate"), "repetitions"), fmt_verdict(str(m, "verdict")));
	}
	md_gpu_rows(out, get(cmp, "gpu_clocks"));
	if (get(st, "primary"))
		sb_addf(out, "\n**Decision** (%s decides, tok/s and ms are secondary): ",
			str(get(st, "primary"), "unit"));
	else
		sb_adds(out, "\n**Decision** (tok/s decides, ms is secondary): ");
	frontdoor_md_text(out, str(get(cmp, "decision"), "summary"), false);
	sb_adds(out, ".\n");
	fmt_band(buf, get(st, "threshold_band_percent"));
	sb_addf(out, "\nMedian \u00b1noise per arm. Shift: the Hodges-Lehmann estimate of the "
		     "candidate as a ratio to the baseline, in percent, with its distribution-free "
		     "interval at the level shown; p: two-sided Mann-Whitney. **faster** or "
		     "**slower**: the whole interval lies beyond the %g%% practical threshold, the "
		     "same ratio either way (%s); **equivalent**: the whole interval lies within "
		     "it; **undecided**: neither.\n\n",
		num(st, "practical_threshold_percent"), buf);
}

/* How many repetitions the document's metrics_bound (comparison or
 * verdict: one array per arm) says are sealed, of how many. */
static void bound_count(const json_t *doc, size_t *n, size_t *total)
{
	const char *arm;
	const json_t *a, *v;
	size_t i;

	*n = *total = 0;
	json_object_foreach ((json_t *)(uintptr_t)get(doc, "metrics_bound"), arm, a) {
		json_array_foreach (a, i, v) {
			(*total)++;
			*n += json_is_true(v);
		}
	}
}

static void md_gate_decision(struct strbuf *out, const json_t *gate)
{
	const json_t *d = get(gate, "decision");
	const char *pop = str(d, "population");
	char a[FMT_MAX], b[FMT_MAX];

	sb_adds(out, "| measure | last accepted ");
	md_code(out, str(gate, "accepted_revision"));
	sb_adds(out, " | candidate ");
	md_code(out, str(gate, "candidate_revision"));
	sb_adds(out, " | decision |\n|:--|--:|--:|:--|\n| tok/s, median | ");
	json_format_double(a, num(get(get(gate, "accepted_samples"), pop),
				   "median_tokens_per_second"));
	json_format_double(b, num(get(get(gate, "candidate_samples"), pop),
				   "median_tokens_per_second"));
	sb_addf(out, "%s | %s | ", a, b);
	frontdoor_md_cell(out, str(d, "summary"));
	sb_adds(out, " |\n\n");
}

/* One table row per element of the array doc.key: the members named in
 * cols, each as escaped text or as a code span. */
static void md_rows3(struct strbuf *out, const json_t *doc, const char *key,
		     const char *const cols[3], bool code)
{
	const json_t *x;
	size_t i;

	json_array_foreach (get(doc, key), i, x) {
		for (size_t k = 0; k < 3; k++) {
			sb_adds(out, k ? " | " : "| ");
			if (code)
				md_code(out, str(x, cols[k]));
			else
				frontdoor_md_cell(out, str(x, cols[k]));
		}
		sb_adds(out, " |\n");
	}
	sb_addch(out, '\n');
}

static void md_checks(struct strbuf *out, const json_t *gate)
{
	static const char *const checks[3] = { "name", "status", "detail" };
	static const char *const suspects[3] = { "module", "accepted_revision",
						 "candidate_revision" };

	sb_adds(out, "| check | status | detail |\n|:--|:--|:--|\n");
	md_rows3(out, gate, "checks", checks, false);
	if (!json_array_size(get(gate, "suspect_modules")))
		return;
	sb_adds(out, "| suspect module | last accepted | candidate |\n|:--|:--|:--|\n");
	md_rows3(out, gate, "suspect_modules", suspects, true);
}

static void md_evidence(struct strbuf *out, const struct render_ab *ab)
{
	const json_t *doc = ab->comparison ? ab->comparison : ab->gate;
	struct strbuf t = STRBUF_INIT;

	sb_adds(out, "| evidence | value |\n|:--|:--|\n");
	md_row(out, "envelope", envelope_of(ab), true);
	md_row(out, "lever", lever_of(ab), true);
	if (ab->comparison) {
		const json_t *order = get(ab->comparison, "order");

		if (json_is_array(get(order, "runs"))) {
			sb_adds(&t, str(order, "arrangement"));
			if (strcmp(str(order, "arrangement"), str(order, "requested")))
				sb_addf(&t, " (requested %s)", str(order, "requested"));
		} else
			sb_adds(&t, "unknown: the receipts record no experiment schedule");
		md_row(out, "order", t.buf, false);
	}
	if (get(doc, "metrics_bound")) {
		size_t n, total;

		bound_count(doc, &n, &total);
		sb_reset(&t);
		sb_addf(&t, "%zu of %zu repetitions sealed by their attestation", n, total);
		md_row(out, "metrics", t.buf, false);
	}
	md_row(out, "criterion", str(doc, "criterion_digest"), true);
	for (size_t i = 0; i < ab->nr_files; i++) {
		sb_reset(&t);
		sb_addf(&t, "sha256:%s", ab->files[i].sha256);
		md_row(out, ab->files[i].what, t.buf, true);
	}
	sb_release(&t);
}

void render_ab_md(struct strbuf *out, const struct render_ab *ab)
{
	if (ab->comparison && ab->gate) {
		md_title(out, "fak experiment", ab);
		md_metrics(out, ab->comparison);
		sb_addf(out, "Gate: **%s**, ", str(ab->gate, "classification"));
		frontdoor_md_text(out, str(ab->gate, "reason"), false);
		sb_adds(out, ".\n\n");
		if (ab->attempt) {
			sb_adds(out, "**Attempt:** ");
			frontdoor_md_text(out, ab->attempt, false);
			sb_adds(out, ".\n\n");
		}
		if (ab->note) {
			sb_adds(out, "**Note:** ");
			frontdoor_md_text(out, ab->note, false);
			sb_adds(out, ".\n\n");
		}
		if (ab->leftovers) {
			sb_adds(out, "**Leftovers:** ");
			frontdoor_md_text(out, ab->leftovers, false);
			sb_adds(out, ".\n\n");
		}
	} else if (ab->comparison) {
		md_title(out, "fak comparison", ab);
		md_metrics(out, ab->comparison);
	} else {
		char what[64];

		snprintf(what, sizeof(what), "fak gate: **%s**", str(ab->gate, "classification"));
		md_title(out, what, ab);
		frontdoor_md_text(out, str(ab->gate, "reason"), true);
		sb_adds(out, ".\n\n");
		md_gate_decision(out, ab->gate);
		md_checks(out, ab->gate);
	}
	md_evidence(out, ab);
}

/* ---- gate text --------------------------------------------------------- */

#define COL 11	/* where the values of the labelled lines start */

static void label_line(struct strbuf *out, const char *label, const char *text)
{
	char l[COL + 1];

	snprintf(l, sizeof(l), "%-*s", COL - 1, label);
	wrap_line(out, l, COL, text);
}

static void gate_decision(struct strbuf *out, const json_t *gate, const struct gate_policy *p)
{
	const json_t *d = get(gate, "decision");
	const char *pop = str(d, "population");
	const json_t *as = get(get(gate, "accepted_samples"), pop),
		     *cs = get(get(gate, "candidate_samples"), pop);
	char a[FMT_MAX], b[FMT_MAX], buf[256];

	json_format_double(a, num(as, "median_tokens_per_second"));
	json_format_double(b, num(cs, "median_tokens_per_second"));
	snprintf(buf, sizeof(buf), "%s \u2192 %s tok/s (medians of %s, n=%.0f+%.0f)", a, b, pop,
		 num(as, "included"), num(cs, "included"));
	label_line(out, "tok/s", buf);
	render_decision_line(out, d);
	if (p) {
		snprintf(buf, sizeof(buf), "floor %g tok/s; the decision's threshold comes from "
					   "the criterion",
			 p->minimum_throughput_tokens_per_second);
		label_line(out, "policy", buf);
	}
}

static void gate_checks(struct strbuf *out, const json_t *gate)
{
	const json_t *c;
	size_t i, wide = 0;
	char label[64];

	json_array_foreach (get(gate, "checks"), i, c) {
		if (wrap_width(str(c, "name")) > wide)
			wide = wrap_width(str(c, "name"));
	}
	wide = wide > 20 ? 20 : wide;
	json_array_foreach (get(gate, "checks"), i, c) {
		/* status and name in columns, two spaces, the detail */
		snprintf(label, sizeof(label), "%-*s%-11s %-*s ", COL, i ? "" : "checks",
			 str(c, "status"), (int)wide, str(c, "name"));
		wrap_line(out, label, COL + 12 + wide + 2, str(c, "detail"));
	}
}

static void gate_tail(struct strbuf *out, const json_t *gate)
{
	static const char *const sides[] = { "accepted_samples", "candidate_samples" };
	static const char *const names[] = { "last_accepted", "candidate" };
	const json_t *x, *s, *b = get(gate, "bisect");
	size_t i;
	struct strbuf t = STRBUF_INIT;
	bool first = true;

	/* the repetitions left out matter only when the decision uses the
	 * clean ones */
	for (int k = 0;
	     k < 2 && !strcmp(str(get(gate, "decision"), "population"), "clean_only"); k++)
		json_array_foreach (get(get(gate, sides[k]), "exclusions"), i, x) {
			sb_reset(&t);
			/* 0-based, as the gate's own details count */
			sb_addf(&t, "%s.repetitions[%lld]: %s", names[k],
				(long long)json_integer_value(get(x, "repetition")),
				str(x, "reason"));
			if (*str(x, "attestation_digest"))
				sb_addf(&t, " (%s)", str(x, "attestation_digest"));
			label_line(out, first ? "not clean" : "", t.buf);
			first = false;
		}
	first = true;
	json_array_foreach (get(gate, "suspect_modules"), i, s) {
		sb_reset(&t);
		sb_addf(&t, "%s %s \u2192 %s", str(s, "module"), str(s, "accepted_revision"),
			str(s, "candidate_revision"));
		label_line(out, first ? "suspects" : "", t.buf);
		first = false;
	}
	if (b) {
		json_array_foreach (get(b, "guarded_commands"), i, s) {
			label_line(out, i ? "" : "bisect", json_string_value(s));
		}
		sb_reset(&t);
		sb_addf(&t, "stop at the %s", str(b, "stop_condition"));
		label_line(out, "", t.buf);
	}
	sb_release(&t);
}

void render_gate_text(struct strbuf *out, const struct render_ab *ab)
{
	const json_t *g = ab->gate;
	struct strbuf t = STRBUF_INIT;

	sb_addf(&t, "%s: %s", str(g, "classification"), str(g, "reason"));
	label_line(out, "gate", t.buf);
	label_line(out, "envelope", envelope_of(ab));
	label_line(out, "lever", lever_of(ab));
	render_revisions(out, str(g, "accepted_revision"), "(last accepted)",
			 str(g, "candidate_revision"));
	label_line(out, "criterion", str(g, "criterion_digest"));
	sb_addch(out, '\n');
	gate_decision(out, g, ab->policy);
	sb_addch(out, '\n');
	gate_checks(out, g);
	gate_tail(out, g);
	sb_release(&t);
}

/* ---- the runner's summary ------------------------------------------------ */

void render_experiment_text(struct strbuf *out, const struct render_ab *ab)
{
	struct strbuf t = STRBUF_INIT;

	render_comparison_text(out, ab->comparison);
	sb_addch(out, '\n');
	sb_addf(&t, "%s: %s", str(ab->gate, "classification"), str(ab->gate, "reason"));
	label_line(out, "gate", t.buf);
	if (ab->note)
		label_line(out, "note", ab->note);
	sb_reset(&t);
	sb_addf(&t, "(fak native-performance --gate %s/" LAYOUT_GATE_REQUEST ")", ab->out_dir);
	label_line(out, "", t.buf);
	if (ab->why && *ab->why)
		label_line(out, "why", ab->why);
	if (ab->attempt)
		label_line(out, "attempt", ab->attempt);
	if (ab->leftovers)
		label_line(out, "leftovers", ab->leftovers);
	sb_reset(&t);
	sb_addf(&t, "%s/:", ab->out_dir);
	for (size_t i = 0; i < ab->nr_files; i++)
		sb_addf(&t, " %s", ab->files[i].what);
	sb_adds(&t, " " LAYOUT_ATTESTATIONS "/ " LAYOUT_LOGS "/");
	label_line(out, "written", t.buf);
	sb_release(&t);
}
