/* The one decision of an A/B: the exact interval of the primary metric
 * against the criterion's practical threshold (docs/receipts.md, "The
 * decision"). The comparison, the gate, the experiment's summary, the
 * charts, promotion and the index all read what this computes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "stats/stats.h"

/* stats_compare over the first n repetitions of each arm. */
static int compare_first(const struct receipt *base, const struct receipt *cand, size_t n,
			 double threshold, double level, struct stats_comparison *out,
			 struct err *e)
{
	struct receipt b = *base, c = *cand;
	int m;

	if (receipt_primary_metric(base, cand, &m, e) < 0)
		return -1;
	b.nr_reps = n;
	c.nr_reps = n;
	return receipt_metric_compare(&b, &c, m, threshold, level, out, e);
}

/* The sequential record of the receipts against its rule; returns the
 * level of the last look, or NAN with findings in out. */
static double check_sequential(const struct receipt *base, const struct receipt *cand,
			       double threshold, struct findings *out)
{
	const struct receipt_sequential *s = &cand->experiment.sequential;
	struct stats_looks plan;
	struct err e;
	size_t before = out->nr;

	/* the candidate of a sequential experiment gated against another
	 * receipt than its own baseline: the looks must be the planned ones,
	 * but cannot be replayed */
	bool replay = base->has_experiment && base->experiment.has_sequential &&
		      !strcmp(base->experiment.id, cand->experiment.id) &&
		      json_equal(json_object_get(base->experiment.json, "sequential"),
				 json_object_get(cand->experiment.json, "sequential"));

	if (strcmp(s->rule, RECEIPT_SEQUENTIAL_RULE)) {
		findings_addf(out, "experiment.sequential.rule: \"%s\"; fak knows \"%s\"", s->rule,
			      RECEIPT_SEQUENTIAL_RULE);
		return NAN;
	}
	if (s->first_repetitions < 1 || s->max_repetitions < s->first_repetitions ||
	    s->level != STATS_DECISION_LEVEL ||
	    stats_plan_looks((size_t)s->first_repetitions, (size_t)s->max_repetitions, s->level,
			     &plan, &e) < 0) {
		findings_addf(out, "experiment.sequential: the level must be %g and 1 <= "
				   "first_repetitions <= max_repetitions",
			      STATS_DECISION_LEVEL);
		return NAN;
	}
	if (!s->nr_looks || s->nr_looks > plan.nr) {
		findings_addf(out, "experiment.sequential.looks: %zu looks; the rule plans 1 to "
				   "%zu", s->nr_looks, plan.nr);
		return NAN;
	}
	for (size_t i = 0; i < s->nr_looks; i++) {
		const struct receipt_look *l = &s->looks[i];
		struct stats_comparison c;
		const char *v;

		if (l->repetitions != (long long)plan.reps[i] || l->level != plan.level[i]) {
			findings_addf(out, "experiment.sequential.looks[%zu]: %lld repetitions at "
					   "level %.6g; the rule looks at %zu at %.6g",
				      i, l->repetitions, l->level, plan.reps[i], plan.level[i]);
			continue;
		}
		if (!replay)
			continue;
		if ((size_t)l->repetitions > base->nr_reps ||
		    (size_t)l->repetitions > cand->nr_reps) {
			findings_addf(out, "experiment.sequential.looks[%zu]: %lld repetitions, "
					   "more than the receipts hold", i, l->repetitions);
			continue;
		}
		if (compare_first(base, cand, (size_t)l->repetitions, threshold, l->level, &c,
				  &e) < 0) {
			findings_addf(out, "experiment.sequential.looks[%zu]: %s", i, e.msg);
			continue;
		}
		v = stats_verdict_name(c.verdict);
		if (strcmp(v, l->verdict))
			findings_addf(out, "experiment.sequential.looks[%zu]: records %s; the "
					   "first %lld repetitions give %s",
				      i, l->verdict, l->repetitions, v);
		else if (i + 1 < s->nr_looks && c.verdict != STATS_UNDECIDED)
			findings_addf(out, "experiment.sequential.looks[%zu]: %s, yet the "
					   "experiment went on: the rule stops at the first "
					   "decided look", i, v);
		else if (i + 1 == s->nr_looks && c.verdict == STATS_UNDECIDED &&
			 l->repetitions != s->max_repetitions)
			findings_addf(out, "experiment.sequential.looks[%zu]: undecided at %lld "
					   "repetitions, yet the experiment stopped before its "
					   "maximum %lld", i, l->repetitions, s->max_repetitions);
	}
	if (out->nr == before && (size_t)s->looks[s->nr_looks - 1].repetitions != cand->nr_reps)
		findings_addf(out, "experiment.sequential.looks: the last look is at %lld "
				   "repetitions; the receipts hold %zu",
			      s->looks[s->nr_looks - 1].repetitions, cand->nr_reps);
	return out->nr == before ? s->looks[s->nr_looks - 1].level : NAN;
}

/* A fixed design's decision before any value: threshold, level, attempts. */
static void decision_init(struct receipt_decision *d, const struct criterion *crit,
			  size_t attempts)
{
	memset(d, 0, sizeof(*d));
	d->crit = crit;
	d->threshold_percent = graph_criterion_threshold(crit);
	d->threshold_declared = crit->has_practical_threshold;
	d->attempts = attempts ? attempts : 1;
	d->design_level = STATS_DECISION_LEVEL;
	d->nr_looks = 1;
	d->level = stats_level_for_attempts(d->design_level, d->attempts);
}

int receipt_decide_values(const double *base, size_t nb, const double *cand, size_t nc,
			  const struct criterion *crit, size_t attempts,
			  struct receipt_decision *d, struct err *e)
{
	decision_init(d, crit, attempts);
	return stats_compare(base, nb, cand, nc, d->threshold_percent, STATS_HIGHER_IS_BETTER,
			     d->level, &d->tps, e);
}

int receipt_decide(const struct receipt *base, const struct receipt *cand,
		   const struct criterion *crit, size_t attempts, struct receipt_decision *d,
		   struct findings *out, struct err *e)
{
	decision_init(d, crit, attempts);
	if (cand->has_experiment && cand->experiment.has_sequential) {
		d->sequential = true;
		d->nr_looks = cand->experiment.sequential.nr_looks;
		d->design_level = check_sequential(base, cand, d->threshold_percent, out);
		if (isnan(d->design_level))
			return err_set(e, "the sequential record does not follow its rule");
	}
	d->level = stats_level_for_attempts(d->design_level, d->attempts);
	if (receipt_primary_metric(base, cand, &d->primary, e) < 0 ||
	    receipt_metric_compare(base, cand, d->primary, d->threshold_percent,
				   d->level, &d->tps, e) < 0 ||
	    receipt_metric_compare(base, cand, RECEIPT_END_TO_END_MS, d->threshold_percent,
				   d->level, &d->ms, e) < 0)
		return -1;
	return 0;
}

json_t *receipt_decision_json(const struct receipt_decision *d)
{
	const struct stats_comparison *c = &d->tps;
	json_t *o = jobj(), *iv = jobj();

	jset_str(o, "metric", receipt_metric_name(d->primary));
	jset_str(o, "verdict", stats_verdict_name(c->verdict));
	jset_num(o, "shift_percent", c->shift_percent);
	jset_num(iv, "lower", c->lower_percent);
	jset_num(iv, "upper", c->upper_percent);
	jset_new(o, "interval_percent", iv);
	jset_num(o, "level", c->shift.level);
	jset_num(o, "requested_level", d->level);
	jset_bool(o, "level_attained", c->shift.attained);
	jset_num(o, "practical_threshold_percent", d->threshold_percent);
	jset_str(o, "threshold_source", d->threshold_declared ? "practical_threshold_percent"
							      : "maximum_noise_percent");
	jset_str(o, "rule", d->sequential ? RECEIPT_SEQUENTIAL_RULE : "fixed");
	jset_num(o, "design_level", d->design_level);
	jset_int(o, "looks", (long long)d->nr_looks);
	jset_int(o, "attempts", (long long)d->attempts);
	jset_new(o, "host_policy", d->crit && d->crit->has_host_policy
					   ? graph_host_policy_json(&d->crit->host_policy)
					   : json_null());
	if (c->repetitions_needed > 0)
		jset_int(o, "repetitions_needed", c->repetitions_needed);
	else
		jset_new(o, "repetitions_needed", json_null());
	jset_str(o, "repetitions_needed_reason", c->repetitions_reason);
	{
		char *t = receipt_decision_text(d);

		jset_str(o, "summary", t);
		free(t);
	}
	return o;
}

char *receipt_decision_text(const struct receipt_decision *d)
{
	const struct stats_comparison *c = &d->tps;
	char *head, *host = NULL, *att = NULL, *s;
	const char *why = "the interval straddles";

	if (c->verdict == STATS_FASTER)
		why = "the whole interval is a gain beyond";
	else if (c->verdict == STATS_SLOWER)
		why = "the whole interval is a loss beyond";
	else if (c->verdict == STATS_EQUIVALENT)
		why = "the whole interval lies within";
	if (c->shift.attained)
		head = xasprintf("%s: %+.1f%% [%+.1f%%, %+.1f%%] at %.4g%%; %s the %g%% threshold",
				 stats_verdict_name(c->verdict), c->shift_percent,
				 c->lower_percent, c->upper_percent, c->shift.level * 100, why,
				 d->threshold_percent);
	else	/* what the level would have had to be, not a threshold */
		head = xasprintf("undecided: %+.1f%% [%+.1f%%, %+.1f%%] at %.4g%%; %zu+%zu "
				 "repetitions cannot reach the %.4g%% interval this decision needs",
				 c->shift_percent, c->lower_percent, c->upper_percent,
				 c->shift.level * 100, c->baseline.n, c->candidate.n,
				 c->shift.requested_level * 100);
	if (d->attempts > 1)
		att = xasprintf("; the level widened for %zu attempts of the lever", d->attempts);
	if (d->crit && d->crit->has_host_policy)
		host = xasprintf("; host judged by the criterion's host policy (non-SUT CPU <= "
				 "%g%%, sampler duty <= %g%%, PSI stall <= %g%%)",
				 d->crit->host_policy.maximum_non_sut_cpu_percent,
				 d->crit->host_policy.maximum_sampler_duty_percent,
				 d->crit->host_policy.maximum_psi_stall_percent);
	s = xasprintf("%s%s%s", head, att ? att : "", host ? host : "");
	free(head);
	free(host);
	free(att);
	return s;
}
