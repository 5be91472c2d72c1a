/* `--until-decisive`: the looks of a sequential experiment. The looks and
 * their levels are fixed before the first run (stats_plan_looks); after the
 * run that completes a look's repetitions in both arms, the decision is
 * taken on what has run; a decided look, or the last, ends the
 * repetitions. Every look is recorded in the receipts (experiment.
 * sequential), where the comparison replays it (receipt_decide). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "experiment/internal.h"

int xp_sequential_plan(struct xp *x, struct findings *out, struct err *e)
{
	const struct xp_opts *o = x->o;

	x->reps = (size_t)x->env->repetitions;
	if (!o->until_decisive)
		return 0;
	if (o->max_repetitions < x->reps) {
		findings_addf(out, "--max-repetitions %zu: below the %zu repetitions envelope "
				   "\"%s\" pins; give at least %zu",
			      o->max_repetitions, x->reps, x->env->id, x->reps);
		return 1;
	}
	x->sequential = true;
	if (stats_plan_looks((size_t)x->env->repetitions, o->max_repetitions, STATS_DECISION_LEVEL,
			     &x->looks, e) < 0)
		return -1;
	x->reps = o->max_repetitions;
	return 0;
}

/* The repetitions of each arm finished by step k, in order of index. */
static size_t finished(const struct xp *x, size_t k, int arm, double *v)
{
	size_t n = 0;

	for (size_t i = 0; i <= k; i++) {
		const struct receipt_step *s = &x->steps[i];

		if (s->arm != arm || strcmp(s->kind, WL_KIND_REPETITION))
			continue;
		/* the decision's primary metric: tok/s, or the serving one */
		if (v && x->has_trace)
			v[s->index] = x->done[i].rep->workload.serving.values[x->primary];
		else if (v)
			v[s->index] = x->done[i].rep->workload.metrics.tokens_per_second;
		n++;
	}
	return n;
}

bool xp_sequential_after(struct xp *x, size_t k, struct err *e, int *rc)
{
	size_t j = x->nr_taken, n;
	double *b, *c;
	struct stats_comparison s;
	struct xp_look *l;

	*rc = 0;
	x->look_text[0] = 0;
	if (!x->sequential || j >= x->looks.nr || strcmp(x->steps[k].kind, WL_KIND_REPETITION))
		return false;
	n = x->looks.reps[j];
	if (finished(x, k, RECEIPT_ARM_BASELINE, NULL) != n ||
	    finished(x, k, RECEIPT_ARM_CANDIDATE, NULL) != n)
		return false;
	b = xcalloc(x->reps, sizeof(*b));
	c = xcalloc(x->reps, sizeof(*c));
	finished(x, k, RECEIPT_ARM_BASELINE, b);
	finished(x, k, RECEIPT_ARM_CANDIDATE, c);
	if (stats_compare(b, n, c, n, graph_criterion_threshold(x->crit),
			  !x->has_trace || serving_metrics[x->primary].higher_is_better
				  ? STATS_HIGHER_IS_BETTER : STATS_LOWER_IS_BETTER,
			  x->looks.level[j], &s, e) < 0) {
		free(b);
		free(c);
		*rc = -1;
		return true;
	}
	free(b);
	free(c);
	l = &x->taken[x->nr_taken++];
	l->reps = n;
	l->level = x->looks.level[j];
	l->verdict = s.verdict;
	{
		int len = snprintf(
			x->look_text, sizeof(x->look_text),
			"look %zu of %zu at %zu+%zu: %+.1f%% [%+.1f%%, %+.1f%%] at %.4g%%: %s",
			x->nr_taken, x->looks.nr, n, n, s.shift_percent, s.lower_percent,
			s.upper_percent, s.shift.level * 100, stats_verdict_name(s.verdict));

		if (s.verdict == STATS_UNDECIDED && x->nr_taken < x->looks.nr && len > 0 &&
		    (size_t)len < sizeof(x->look_text)) {
			if (s.repetitions_needed > 0)
				snprintf(x->look_text + len, sizeof(x->look_text) - (size_t)len,
					 "; about %lld repetitions per arm would decide it; next "
					 "look at %zu",
					 s.repetitions_needed, x->looks.reps[x->nr_taken]);
			else
				snprintf(x->look_text + len, sizeof(x->look_text) - (size_t)len,
					 "; next look at %zu", x->looks.reps[x->nr_taken]);
		}
	}
	return s.verdict != STATS_UNDECIDED || x->nr_taken == x->looks.nr;
}

int xp_sequential_finish(struct xp *x, struct err *e)
{
	struct receipt_step *steps;
	size_t nr;

	if (!x->sequential)
		return 0;
	x->reps = x->taken[x->nr_taken - 1].reps;
	if (receipt_plan(x->o->order, x->o->seed, (size_t)x->env->warmups, x->reps,
			 x->o->quality_cmd != NULL, &steps, &nr, e) < 0)
		return -1;
	/* the plan of fewer repetitions is a prefix of the longer one (ABBA
	 * and random pairs are drawn pair by pair; blocked is refused), and
	 * only the quality runs follow the last repetition */
	for (size_t k = 0; k < x->nr_done; k++)
		if (steps[k].arm != x->steps[k].arm || strcmp(steps[k].kind, x->steps[k].kind) ||
		    steps[k].index != x->steps[k].index)
			BUG("the sequential plan is not a prefix at run %zu", k);
	free(x->steps);
	x->steps = steps;
	x->nr_steps = nr;
	return 0;
}

json_t *xp_sequential_json(const struct xp *x)
{
	json_t *o = jobj(), *looks = jarr();

	jset_str(o, "rule", RECEIPT_SEQUENTIAL_RULE);
	jset_num(o, "level", STATS_DECISION_LEVEL);
	jset_int(o, "first_repetitions", x->env->repetitions);
	jset_int(o, "max_repetitions", (long long)x->o->max_repetitions);
	for (size_t i = 0; i < x->nr_taken; i++) {
		json_t *l = jobj();

		jset_int(l, "repetitions", (long long)x->taken[i].reps);
		jset_num(l, "level", x->taken[i].level);
		jset_str(l, "verdict", stats_verdict_name(x->taken[i].verdict));
		jpush_new(looks, l);
	}
	jset_new(o, "looks", looks);
	return o;
}
