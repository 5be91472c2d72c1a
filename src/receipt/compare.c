/* `--compare BASE --candidate CAND`: fail-closed comparison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "sampler/attest.h"
#include "receipt/stats.h"

/* ---- drift ---------------------------------------------------------------- */

static void drift_str(const char *path, const char *a, const char *b, struct findings *out)
{
	if (strcmp(a, b))
		findings_addf(out, "%s: baseline \"%s\", candidate \"%s\"", path, a, b);
}

static void drift_int(const char *path, long long a, long long b, struct findings *out)
{
	if (a != b)
		findings_addf(out, "%s: baseline %lld, candidate %lld", path, a, b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **sorted_copy(const struct receipt_strs *s)
{
	const char **v = xcalloc(s->n ? s->n : 1, sizeof(*v));

	if (s->n)
		memcpy(v, s->v, sizeof(*v) * s->n);
	qsort(v, s->n, sizeof(*v), cmp_str);
	return v;
}

static bool same_multiset(const struct receipt_strs *a, const struct receipt_strs *b)
{
	const char **x, **y;
	bool same = a->n == b->n;

	if (!same)
		return false;
	x = sorted_copy(a);
	y = sorted_copy(b);
	for (size_t i = 0; i < a->n && same; i++)
		same = !strcmp(x[i], y[i]);
	free(x);
	free(y);
	return same;
}

void receipt_drift(const struct receipt *a, const struct receipt *b, unsigned flags,
		   struct findings *out)
{
	const struct receipt_controls *p = &a->controls, *q = &b->controls;

	drift_str("artifact_sha256", a->artifact_sha256, b->artifact_sha256, out);
	drift_str("machine.scrubbed_id", a->machine.scrubbed_id, b->machine.scrubbed_id, out);
	drift_str("machine.platform", a->machine.platform, b->machine.platform, out);
	drift_str("machine.backend", a->machine.backend, b->machine.backend, out);
	drift_int("controls.prompt_tokens", p->prompt_tokens, q->prompt_tokens, out);
	drift_int("controls.decode_tokens", p->decode_tokens, q->decode_tokens, out);
	drift_int("controls.batch", p->batch, q->batch, out);
	drift_int("controls.context_tokens", p->context_tokens, q->context_tokens, out);
	if (p->temperature != q->temperature) {
		char x[JSON_NUMBER_MAX], y[JSON_NUMBER_MAX];

		json_format_double(x, p->temperature);
		json_format_double(y, q->temperature);
		findings_addf(out, "controls.temperature: baseline %s, candidate %s", x, y);
	}
	drift_str("controls.sampling", p->sampling, q->sampling, out);
	drift_str("controls.cache_state", p->cache_state, q->cache_state, out);
	drift_int("controls.warmups", p->warmups, q->warmups, out);
	drift_int("controls.repetitions", p->repetitions, q->repetitions, out);
	if (flags & RECEIPT_DRIFT_EXECUTION) {
		drift_str("execution.engine", a->execution.engine, b->execution.engine, out);
		drift_str("execution.forward_path", a->execution.forward_path,
			  b->execution.forward_path, out);
		drift_int("execution.fallback_count", a->execution.fallback_count,
			  b->execution.fallback_count, out);
	}
	drift_str("comparison.output_class", a->comparison.output_class,
		  b->comparison.output_class, out);
	drift_str("comparison.criterion_id", a->comparison.criterion_id,
		  b->comparison.criterion_id, out);
	drift_int("comparison.criterion_version", a->comparison.criterion_version,
		  b->comparison.criterion_version, out);
	drift_str("comparison.criterion_digest", a->comparison.criterion_digest,
		  b->comparison.criterion_digest, out);
	if (!same_multiset(&a->unchanged_controls, &b->unchanged_controls))
		findings_addf(out, "unchanged_controls: baseline and candidate lists differ");
}

/* ---- document ------------------------------------------------------------- */

static void side_stats(const struct receipt *r, struct stats *s, json_t **values)
{
	double *v = xcalloc(r->nr_reps ? r->nr_reps : 1, sizeof(*v));

	*values = jarr();
	for (size_t i = 0; i < r->nr_reps; i++) {
		v[i] = r->reps[i].tokens_per_second;
		jpush_new(*values, json_real(v[i]));
	}
	stats_compute(v, r->nr_reps, s);
	free(v);
}

static json_t *samples_json(const struct stats *s, json_t *values)
{
	json_t *o = jobj();

	jset_int(o, "repetitions", (long long)s->n);
	jset_new(o, "tokens_per_second", values);
	jset_num(o, "mean", s->mean);
	jset_num(o, "median", s->median);
	jset_num(o, "min", s->min);
	jset_num(o, "max", s->max);
	jset_num(o, "stddev", s->stddev);
	jset_num(o, "noise_percent", s->noise_percent);
	return o;
}

static json_t *significance_json(size_t nb, size_t nc)
{
	json_t *o = jobj();
	double p = stats_min_rank_p(nb, nc);
	bool can = p < COMPARISON_ALPHA;
	char ps[JSON_NUMBER_MAX], as[JSON_NUMBER_MAX];
	char *text;

	json_format_double(ps, p);
	json_format_double(as, COMPARISON_ALPHA);
	if (can)
		text = xasprintf("%zu baseline and %zu candidate repetitions could support a "
				 "significance claim at alpha %s (an exact two-sided rank test can "
				 "reach p = %s); this comparison reports descriptive statistics "
				 "only and makes no such claim",
				 nb, nc, as, ps);
	else
		text = xasprintf("%zu baseline and %zu candidate repetitions cannot support a "
				 "significance claim: even with every candidate repetition beyond "
				 "every baseline repetition an exact two-sided rank test cannot go "
				 "below p = %s, above alpha %s; treat the delta as an observation, "
				 "not a significant difference",
				 nb, nc, ps, as);
	jset_int(o, "baseline_repetitions", (long long)nb);
	jset_int(o, "candidate_repetitions", (long long)nc);
	jset_num(o, "alpha", COMPARISON_ALPHA);
	jset_num(o, "minimum_attainable_p", p);
	jset_bool(o, "can_support_claim", can);
	jset_str(o, "statement", text);
	free(text);
	return o;
}

/* A repetition whose attestation says the run itself was unusable (the
 * command failed or timed out, or the window had no samples) has no
 * throughput to compare. attest_check already passed in validation. */
static void invalid_runs(const struct receipt *r, struct findings *out)
{
	for (size_t i = 0; i < r->nr_system_baselines; i++) {
		struct attest_facts facts;
		struct err e;

		if (attest_check(r->system_baselines[i].json, &facts, &e) == 0 &&
		    !strcmp(facts.verdict, "invalid"))
			findings_addf(out, "system_baselines[%zu]: verdict invalid: repetition %zu did not run "
					   "cleanly (command failed or timed out, or no usable window)",
				      i, i);
	}
}

json_t *receipt_compare(const struct receipt *base, const struct receipt *cand,
			const struct graph *g, const char **what, struct findings *out)
{
	struct stats sb, sc;
	json_t *vb, *vc, *doc;
	double delta;

	receipt_validate(base, g, 0, out);
	if (out->nr) {
		*what = "compare: baseline: invalid native-performance receipt";
		return NULL;
	}
	receipt_validate(cand, g, 0, out);
	if (out->nr) {
		*what = "compare: candidate: invalid native-performance receipt";
		return NULL;
	}
	invalid_runs(base, out);
	if (out->nr) {
		*what = "compare: baseline: a repetition's system baseline is invalid";
		return NULL;
	}
	invalid_runs(cand, out);
	if (out->nr) {
		*what = "compare: candidate: a repetition's system baseline is invalid";
		return NULL;
	}
	if (strcmp(base->role, "baseline") || strcmp(cand->role, "candidate")) {
		*what = "compare: comparison requires baseline then candidate roles";
		findings_addf(out, "role: baseline file has role \"%s\", candidate file has role \"%s\"",
			      base->role, cand->role);
		return NULL;
	}
	drift_str("envelope_id", base->envelope_id, cand->envelope_id, out);
	drift_str("changed_lever_id", base->changed_lever_id, cand->changed_lever_id, out);
	if (out->nr) {
		*what = "compare: receipts target different envelope or lever";
		findings_sort(out);
		return NULL;
	}
	receipt_drift(base, cand, RECEIPT_DRIFT_EXECUTION, out);
	if (out->nr) {
		*what = "compare: receipts are incomparable: an undeclared control axis drifted";
		findings_sort(out);
		return NULL;
	}

	side_stats(base, &sb, &vb);
	side_stats(cand, &sc, &vc);
	delta = sc.mean - sb.mean;
	if (!stats_finite(&sb) || !stats_finite(&sc) || !isfinite(delta) ||
	    !isfinite(delta / sb.mean * 100)) {
		json_decref(vb);
		json_decref(vc);
		*what = "compare: derived statistics are not finite";
		findings_addf(out, "repetitions: tokens_per_second values give a non-finite mean, "
				   "deviation or delta");
		return NULL;
	}
	doc = jobj();
	jset_str(doc, "schema", COMPARISON_SCHEMA);
	jset_str(doc, "envelope_id", base->envelope_id);
	jset_str(doc, "changed_lever_id", base->changed_lever_id);
	jset_str(doc, "criterion_digest", base->comparison.criterion_digest);
	jset_str(doc, "baseline_revision", base->revision);
	jset_str(doc, "candidate_revision", cand->revision);
	jset_num(doc, "baseline_mean_tokens_per_second", sb.mean);
	jset_num(doc, "candidate_mean_tokens_per_second", sc.mean);
	jset_num(doc, "delta_tokens_per_second", delta);
	jset_num(doc, "delta_percent", delta / sb.mean * 100);
	jset_new(doc, "baseline_samples", samples_json(&sb, vb));
	jset_new(doc, "candidate_samples", samples_json(&sc, vc));
	jset_new(doc, "significance", significance_json(sb.n, sc.n));
	return doc;
}
