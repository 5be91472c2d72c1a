/* `--compare BASE --candidate CAND`: fail-closed comparison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "receipt/gpu_check.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"
#include "stats/stats.h"

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

static const char **sorted_copy(const struct strlist *s)
{
	const char **v = xcalloc(s->n ? s->n : 1, sizeof(*v));

	if (s->n)
		memcpy(v, s->v, sizeof(*v) * s->n);
	qsort(v, s->n, sizeof(*v), cmp_str);
	return v;
}

static bool same_multiset(const struct strlist *a, const struct strlist *b)
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

/* The members a shift carries wherever it is reported. */
void receipt_shift_json(json_t *o, const struct stats_comparison *c)
{
	json_t *iv = jobj(), *ip = jobj();

	jset_num(o, "shift", c->shift_units);
	jset_num(o, "shift_percent", c->shift_percent);
	jset_num(iv, "lower", c->lower_units);
	jset_num(iv, "upper", c->upper_units);
	jset_new(o, "interval", iv);
	jset_num(ip, "lower", c->lower_percent);
	jset_num(ip, "upper", c->upper_percent);
	jset_new(o, "interval_percent", ip);
	jset_num(o, "confidence_level", c->shift.level);
	jset_num(o, "p_value", c->test.p);
	jset_num(o, "mann_whitney_u", c->test.u);
	jset_bool(o, "ties", c->test.ties);
	jset_bool(o, "exact", c->test.exact);
	jset_str(o, "method", stats_method(c));
}

static json_t *arm_json(const struct stats *s)
{
	json_t *o = jobj();

	jset_int(o, "repetitions", (long long)s->n);
	jset_num(o, "median", s->median);
	jset_num(o, "noise_percent", s->noise_percent);
	return o;
}

static json_t *metric_json(const struct stats_comparison *c, const char *unit)
{
	json_t *o = jobj();

	jset_str(o, "unit", unit);
	jset_bool(o, "higher_is_better", c->better == STATS_HIGHER_IS_BETTER);
	jset_new(o, "baseline", arm_json(&c->baseline));
	jset_new(o, "candidate", arm_json(&c->candidate));
	receipt_shift_json(o, c);
	jset_str(o, "verdict", stats_verdict_name(c->verdict));
	if (c->repetitions_needed > 0)
		jset_int(o, "repetitions_needed", c->repetitions_needed);
	else
		jset_new(o, "repetitions_needed", json_null());
	jset_str(o, "repetitions_needed_reason", c->repetitions_reason);
	return o;
}

const char *receipt_metric_name(int m)
{
	if (m == RECEIPT_TOKENS_PER_SECOND)
		return "tokens_per_second";
	if (m == RECEIPT_END_TO_END_MS)
		return "end_to_end_milliseconds";
	if (m < RECEIPT_SERVING_FIRST || m >= RECEIPT_SERVING_FIRST + SERVING_NR_METRICS)
		BUG("metric %d", m);
	return serving_metrics[m - RECEIPT_SERVING_FIRST].name;
}

int receipt_primary_metric(const struct receipt *base, const struct receipt *cand, int *m,
			   struct err *e)
{
	int k;

	*m = RECEIPT_TOKENS_PER_SECOND;
	if (!base->has_serving && !cand->has_serving)
		return 0;
	if (!base->has_serving || !cand->has_serving)
		return err_set(e, "only the %s receipt is a serving receipt",
			       base->has_serving ? "baseline" : "candidate");
	if (strcmp(base->serving.primary_metric, cand->serving.primary_metric))
		return err_set(e, "serving.primary_metric: %s in the baseline, %s in the "
			       "candidate", base->serving.primary_metric,
			       cand->serving.primary_metric);
	k = serving_metric_find(cand->serving.primary_metric);
	if (k < 0)
		return err_set(e, "serving.primary_metric: \"%s\" is no serving metric",
			       cand->serving.primary_metric);
	for (size_t i = 0; i < base->nr_reps || i < cand->nr_reps; i++)
		if ((i < base->nr_reps && !base->reps[i].has_serving) ||
		    (i < cand->nr_reps && !cand->reps[i].has_serving))
			return err_set(e, "repetitions[%zu]: a serving receipt's repetition "
				       "carries its serving summary", i);
	*m = RECEIPT_SERVING_FIRST + k;
	return 0;
}

static double rep_value(const struct receipt_rep *r, int m)
{
	if (m == RECEIPT_TOKENS_PER_SECOND)
		return r->tokens_per_second;
	if (m == RECEIPT_END_TO_END_MS)
		return r->end_to_end_ms;
	return r->serving.values[m - RECEIPT_SERVING_FIRST];
}

/* Metric m of every repetition, in repetition order. */
static json_t *primary_values(const struct receipt *r, int m)
{
	json_t *a = jarr();

	for (size_t i = 0; i < r->nr_reps; i++)
		jpush_new(a, json_real(rep_value(&r->reps[i], m)));
	return a;
}

int receipt_metric_compare(const struct receipt *base, const struct receipt *cand,
			   int m, double threshold_percent, double level,
			   struct stats_comparison *out, struct err *e)
{
	double *b = xcalloc(base->nr_reps ? base->nr_reps : 1, sizeof(*b));
	double *c = xcalloc(cand->nr_reps ? cand->nr_reps : 1, sizeof(*c));
	bool higher = m == RECEIPT_TOKENS_PER_SECOND ||
		      (m >= RECEIPT_SERVING_FIRST &&
		       serving_metrics[m - RECEIPT_SERVING_FIRST].higher_is_better);
	int rc;

	for (size_t i = 0; i < base->nr_reps; i++)
		b[i] = rep_value(&base->reps[i], m);
	for (size_t i = 0; i < cand->nr_reps; i++)
		c[i] = rep_value(&cand->reps[i], m);
	rc = stats_compare(b, base->nr_reps, c, cand->nr_reps, threshold_percent,
			   higher ? STATS_HIGHER_IS_BETTER : STATS_LOWER_IS_BETTER, level, out, e);
	free(b);
	free(c);
	if (rc < 0)
		err_prefix(e, "%s", receipt_metric_name(m));
	return rc;
}

/* Every serving metric of serving receipts at the decision's level: the
 * primary one (which decided) and the others, secondary. NULL for other
 * receipts. */
static json_t *serving_json(const struct receipt *base, const struct receipt *cand,
			    const struct receipt_decision *d)
{
	json_t *o;

	if (d->primary < RECEIPT_SERVING_FIRST)
		return NULL;
	o = jobj();
	jset_str(o, "trace_sha256", cand->serving.trace_sha256);
	jset_str(o, "primary_metric", receipt_metric_name(d->primary));
	jset_str(o, "direction", cand->serving.direction);
	for (int i = 0; i < SERVING_NR_METRICS; i++) {
		int m = RECEIPT_SERVING_FIRST + i;
		struct stats_comparison c;
		json_t *x = jobj();
		struct err e;

		jset_str(x, "role", m == d->primary ? "primary" : "secondary");
		jset_str(x, "direction",
			 serving_direction_name(serving_metrics[i].higher_is_better));
		if (receipt_metric_compare(base, cand, m, d->threshold_percent, d->level, &c,
					   &e) < 0) {
			jset_str(x, "error", e.msg);
		} else {
			jset_str(x, "verdict", stats_verdict_name(c.verdict));
			receipt_shift_json(x, &c);
		}
		jset_new(o, serving_metrics[i].name, x);
	}
	return o;
}

/* Both metrics at the decision's level against its threshold (the primary
 * decides; docs/receipts.md). */
static json_t *statistics_json(const struct receipt *base, const struct receipt *cand,
			       const struct receipt_decision *d)
{
	json_t *o = jobj(), *band = jobj();
	struct stats_comparison tps = d->tps;
	struct err e;

	jset_num(o, "practical_threshold_percent", d->threshold_percent);
	jset_num(band, "lower", d->tps.threshold_down_percent);
	jset_num(band, "upper", d->tps.threshold_percent);
	jset_new(o, "threshold_band_percent", band);
	/* a serving receipt's primary metric decides; its tok/s (the output
	 * throughput) is then secondary, like its end to end */
	if (d->primary != RECEIPT_TOKENS_PER_SECOND) {
		jset_new(o, "primary", metric_json(&d->tps, receipt_metric_name(d->primary)));
		if (receipt_metric_compare(base, cand, RECEIPT_TOKENS_PER_SECOND,
					   d->threshold_percent, d->level, &tps, &e) < 0)
			BUG("tok/s of valid receipts: %s", e.msg);
	}
	jset_new(o, "tokens_per_second", metric_json(&tps, "tok/s"));
	jset_new(o, "end_to_end_milliseconds", metric_json(&d->ms, "ms"));
	return o;
}

/* A repetition whose attestation says the run itself was unusable (the
 * command failed or timed out, or the window had no samples) has no
 * throughput to compare. Its verification (receipt_decode) passed, as
 * validation requires. */
static void invalid_runs(const struct receipt *r, struct findings *out)
{
	for (size_t i = 0; i < r->nr_system_baselines; i++) {
		const struct receipt_attestation *a = &r->system_baselines[i];

		if (a->verified && !strcmp(a->facts.verdict, "invalid"))
			findings_addf(out, "system_baselines[%zu]: verdict invalid: repetition %zu "
					   "did not run cleanly (command failed or timed out, or "
					   "no usable window)", i, i);
	}
}

/* The experiment member, when either receipt has one: the same order,
 * seed, parser and schedule in both (one experiment), and no attestation
 * in both receipts. */
static void same_experiment(const struct receipt *b, const struct receipt *c, struct findings *out)
{
	static const char *const keys[] = { "order", "seed", "metrics_parser", "schedule",
					    "sequential" };

	if (b->has_experiment != c->has_experiment) {
		findings_addf(out, "experiment: only the %s receipt records an experiment; compare "
				   "the two receipts of one experiment",
			      b->has_experiment ? "baseline" : "candidate");
		return;
	}
	for (size_t i = 0; b->has_experiment && i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *x = json_object_get(b->experiment.json, keys[i]),
			     *y = json_object_get(c->experiment.json, keys[i]);

		if ((x || y) && !(x && y && json_equal(x, y)))
			findings_addf(out, "experiment.%s: the receipts record different %s; they "
					   "come from different experiments", keys[i], keys[i]);
	}
	for (size_t i = 0; i < b->nr_reps && i < b->nr_system_baselines; i++)
		for (size_t j = 0; j < c->nr_reps && j < c->nr_system_baselines; j++)
			if (b->reps[i].system_baseline_digest &&
			    c->reps[j].system_baseline_digest &&
			    !strcmp(b->reps[i].system_baseline_digest,
				    c->reps[j].system_baseline_digest))
				findings_addf(out, "system_baselines: baseline repetition %zu and "
						   "candidate repetition %zu bind the same "
						   "attestation", i, j);
}

/* How the arms' repetitions were arranged in time: interleaved, blocked
 * (every repetition of one arm before the other's), or unknown without an
 * experiment member. */
static json_t *order_json(const struct receipt *r)
{
	json_t *o = jobj(), *runs;
	const struct receipt_experiment *x = &r->experiment;
	long last_base = -1, first_base = -1, last_cand = -1, first_cand = -1;
	const char *arrangement = "unknown";

	if (!r->has_experiment) {
		jset_str(o, "requested", NULL);
		jset_str(o, "arrangement", arrangement);
		jset_new(o, "runs", json_null());
		return o;
	}
	runs = jarr();
	for (size_t i = 0; i < x->nr_schedule; i++) {
		const struct receipt_run *u = &x->schedule[i];
		json_t *e = jobj();
		bool base = !strcmp(u->arm, "baseline");

		jset_str(e, "arm", u->arm);
		jset_str(e, "kind", u->kind);
		jset_int(e, "index", u->index);
		jset_str(e, "started_at_utc", u->started_at_utc);
		jpush_new(runs, e);
		if (strcmp(u->kind, "repetition"))
			continue;
		if (base) {
			first_base = first_base < 0 ? (long)i : first_base;
			last_base = (long)i;
		} else {
			first_cand = first_cand < 0 ? (long)i : first_cand;
			last_cand = (long)i;
		}
	}
	if (first_base >= 0 && first_cand >= 0)
		arrangement = last_base < first_cand || last_cand < first_base ? "blocked"
									       : "interleaved";
	jset_str(o, "requested", x->order);
	jset_str(o, "arrangement", arrangement);
	if (!strcmp(arrangement, "blocked"))
		jset_str(o, "warning", "every repetition of one arm ran before the other's, so a "
				       "drift of the machine over time can pass for an effect of "
				       "the lever; run with --order interleaved");
	jset_new(o, "runs", runs);
	return o;
}

/* How the sealed runs of r read their metrics: the derivation of the first
 * bound repetition ("" for a metrics line; binding holds every repetition of
 * a receipt to the same one), or NULL when none is bound. Borrowed. */
static const char *sealed_derivation(const struct receipt *r)
{
	for (size_t i = 0; i < r->nr_reps; i++) {
		const json_t *m;
		const char *d;

		if (!receipt_rep_bound(r, i))
			continue;
		m = json_object_get(json_object_get(r->system_baselines[i].json, "workload"),
				    "metrics");
		d = json_string_value(json_object_get(m, "derivation"));
		return d ? d : "";
	}
	return NULL;
}

bool receipt_rep_bound(const struct receipt *r, size_t i)
{
	const struct receipt_attestation *a =
		i < r->nr_system_baselines ? &r->system_baselines[i] : NULL;
	const json_t *sch = a ? json_object_get(a->json, "schema") : NULL;

	/* only a verified v2 attestation seals (the gate keeps a failed one as
	 * evidence to judge, not as a binding) */
	return json_is_string(sch) && !strcmp(json_string_value(sch), ATTESTATION_SCHEMA_V2) &&
	       a->verified;
}

struct receipt_row *receipt_rows(const struct receipt *r)
{
	struct receipt_row *rows = xcalloc(r->nr_reps + 1, sizeof(*rows));

	for (size_t i = 0; i < r->nr_reps; i++) {
		rows[i] = (struct receipt_row){ .rep = &r->reps[i],
						.metrics_bound = receipt_rep_bound(r, i),
						.run = -1 };
		for (size_t k = 0; r->has_experiment && k < r->experiment.nr_schedule; k++) {
			const struct receipt_run *u = &r->experiment.schedule[k];

			if (!strcmp(u->arm, r->role) && !strcmp(u->kind, "repetition") &&
			    u->index == (long long)i) {
				rows[i].run = (long long)k;
				rows[i].started_at_utc = u->started_at_utc;
				break;
			}
		}
	}
	return rows;
}

json_t *receipt_metrics_bound_json(const struct receipt *r)
{
	json_t *a = jarr();

	for (size_t i = 0; i < r->nr_reps; i++)
		jpush_new(a, json_boolean(receipt_rep_bound(r, i)));
	return a;
}

json_t *receipt_compare(const struct receipt *base, const struct receipt *cand,
			const struct graph *g, const char **what, struct findings *out)
{
	return receipt_compare_attempts(base, cand, g, 1, what, out);
}

/* Whether base and cand are the two arms of one comparison: valid, their
 * runs verified, baseline then candidate, one envelope and lever, no
 * drifted axis, one measurement, one experiment; what refuses them (the
 * findings in out), or NULL. */
static const char *incomparable(const struct receipt *base, const struct receipt *cand,
				const struct graph *g, struct findings *out)
{
	receipt_validate(base, g, 0, out);
	if (out->nr)
		return "compare: baseline: invalid native-performance receipt";
	receipt_validate(cand, g, 0, out);
	if (out->nr)
		return "compare: candidate: invalid native-performance receipt";
	invalid_runs(base, out);
	if (out->nr)
		return "compare: baseline: a repetition's system baseline is invalid";
	invalid_runs(cand, out);
	if (out->nr)
		return "compare: candidate: a repetition's system baseline is invalid";
	if (strcmp(base->role, "baseline") || strcmp(cand->role, "candidate")) {
		findings_addf(out, "role: baseline file has role \"%s\", candidate file has role "
				   "\"%s\"", base->role, cand->role);
		return "compare: comparison requires baseline then candidate roles";
	}
	drift_str("envelope_id", base->envelope_id, cand->envelope_id, out);
	drift_str("changed_lever_id", base->changed_lever_id, cand->changed_lever_id, out);
	if (out->nr) {
		findings_sort(out);
		return "compare: receipts target different envelope or lever";
	}
	receipt_drift(base, cand, RECEIPT_DRIFT_EXECUTION, out);
	if (out->nr) {
		findings_sort(out);
		return "compare: receipts are incomparable: an undeclared control axis drifted";
	}
	{
		/* llama-bench's pP+tgT row and its pP/tgT pair measure different
		 * things (docs/experiments.md): tok/s of one is not the other's */
		const char *db = sealed_derivation(base), *dc = sealed_derivation(cand);

		if (db && dc && strcmp(db, dc)) {
			findings_addf(out, "metrics.derivation: baseline \"%s\", candidate \"%s\"",
				      db, dc);
			return "compare: the arms' metrics are not the same measurement";
		}
	}
	same_experiment(base, cand, out);
	if (out->nr) {
		findings_sort(out);
		return "compare: the receipts are not the two arms of one experiment";
	}
	return NULL;
}

json_t *receipt_compare_attempts(const struct receipt *base, const struct receipt *cand,
				 const struct graph *g, size_t attempts, const char **what,
				 struct findings *out)
{
	const struct criterion *crit;
	const char *refused;
	struct receipt_decision d;
	struct stats sb, sc;
	struct err e;
	json_t *vb, *vc, *doc, *gpu;

	refused = incomparable(base, cand, g, out);
	if (refused) {
		*what = refused;
		return NULL;
	}

	/* the noise threshold is the criterion's; validation resolved it */
	crit = receipt_criterion(base, g, NULL);
	if (!crit)
		BUG("a valid receipt without a comparison criterion");

	side_stats(base, &sb, &vb);
	side_stats(cand, &sc, &vc);
	if (!stats_finite(&sb) || !stats_finite(&sc)) {
		json_decref(vb);
		json_decref(vc);
		*what = "compare: derived statistics are not finite";
		findings_addf(out, "repetitions: tokens_per_second values give a non-finite mean "
				   "or deviation");
		return NULL;
	}
	if (receipt_decide(base, cand, crit, attempts, &d, out, &e) < 0) {
		json_decref(vb);
		json_decref(vc);
		if (out->nr) {
			*what = "compare: the sequential record does not follow its rule";
			findings_sort(out);
		} else {
			*what = "compare: derived statistics are not finite";
			findings_addf(out, "repetitions: %s", e.msg);
		}
		return NULL;
	}
	doc = jobj();
	jset_str(doc, "schema", COMPARISON_SCHEMA);
	jset_str(doc, "envelope_id", base->envelope_id);
	jset_str(doc, "changed_lever_id", base->changed_lever_id);
	jset_str(doc, "criterion_digest", base->comparison.criterion_digest);
	jset_str(doc, "baseline_revision", base->revision);
	jset_str(doc, "candidate_revision", cand->revision);
	jset_new(doc, "decision", receipt_decision_json(&d));
	jset_new(doc, "baseline_samples", samples_json(&sb, vb));
	jset_new(doc, "candidate_samples", samples_json(&sc, vc));
	if (d.primary != RECEIPT_TOKENS_PER_SECOND) {
		/* what decided, run by run: the runs chart plots it */
		jset_new(json_object_get(doc, "baseline_samples"), "primary",
			 primary_values(base, d.primary));
		jset_new(json_object_get(doc, "candidate_samples"), "primary",
			 primary_values(cand, d.primary));
	}
	jset_new(doc, "statistics", statistics_json(base, cand, &d));
	{
		json_t *sv = serving_json(base, cand, &d);

		if (sv)
			jset_new(doc, "serving", sv);
	}
	jset_new(doc, "order", order_json(base));
	gpu = gpu_clocks_json(base, cand);
	if (gpu)
		jset_new(doc, "gpu_clocks", gpu);
	{
		json_t *b = jobj();

		jset_new(b, "baseline", receipt_metrics_bound_json(base));
		jset_new(b, "candidate", receipt_metrics_bound_json(cand));
		jset_new(doc, "metrics_bound", b);
	}
	return doc;
}
