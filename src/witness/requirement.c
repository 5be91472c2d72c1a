/* --promote: a numerical next witness checked against every candidate run
 * (docs/graph.md, "Typed next witnesses"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attestation/layout.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"
#include "attestation/attestation.h"
#include "witness/internal.h"

/* One run that states the candidate's quality: its sealed metrics and its
 * name ("candidate-2"), or for a receipt without sealed runs (a manual
 * loop) the receipt's own quality and no name. */
struct qrun {
	struct wl_metrics m;
	char name[48];
};

static void add_run(struct qrun **v, size_t *n, const struct receipt_attestation *ra)
{
	const struct attestation *a = ra->att;

	if (a && a->has_workload && a->workload.has_metrics && a->workload.metrics.has_quality) {
		const struct wl_label *lb = &a->workload.label;
		struct receipt_step step = { !strcmp(lb->arm, "candidate"), lb->kind, lb->index };

		*v = xrealloc(*v, xmul(*n + 1, sizeof(**v)));
		(*v)[*n].m = a->workload.metrics;
		receipt_step_name(&step, (*v)[*n].name, sizeof((*v)[*n].name));
		(*n)++;
	}
}

/* The candidate's quality runs: a llama-bench arm's quality run, else every
 * repetition; a receipt that seals none gives its stated quality. */
static struct qrun *quality_runs(const struct receipt *c, size_t *n)
{
	struct qrun *v = NULL;

	*n = 0;
	if (c->has_experiment && c->experiment.quality_attestation)
		add_run(&v, n, &c->experiment.quality_sealed);
	else
		for (size_t i = 0; i < c->nr_system_baselines; i++)
			add_run(&v, n, &c->system_baselines[i]);
	if (!*n) {
		v = xcalloc(1, sizeof(*v));
		snprintf(v->m.quality.name, sizeof(v->m.quality.name), "%s", c->quality.name);
		v->m.quality.score = c->quality.score;
		v->m.has_quality = true;
		*n = 1;
	}
	return v;
}

/* How far v misses threshold t (> 0: it misses; the larger, the worse). */
static double shortfall(const struct witness_threshold *t, double v)
{
	if (!strcmp(t->op, ">="))
		return t->value - v;
	if (!strcmp(t->op, "<="))
		return v - t->value;
	return fabs(v - t->value);
}

/* `"exact_match", "cosine"`: what a run states. */
static void stated(const struct wl_metrics *m, struct strbuf *sb)
{
	sb_addf(sb, "\"%s\"", m->quality.name);
	for (size_t i = 0; i < m->nr_numerical; i++)
		sb_addf(sb, ", \"%s\"", m->numerical[i].name);
}

void witness_check_numerical(const struct lever *l, const struct receipt *cand,
			     const char *cand_name, struct findings *out)
{
	const struct witness_requirement *r = &l->requirement;
	size_t n;
	struct qrun *runs = quality_runs(cand, &n);

	for (size_t i = 0; i < r->nr_metrics; i++) {
		const struct witness_threshold *t = &r->metrics[i];
		const struct qrun *worst = NULL, *lacks = NULL;
		double wv = 0;

		for (size_t k = 0; k < n && !lacks; k++) {
			const double *v = wl_metric_value(&runs[k].m, t->metric);

			if (!v)
				lacks = &runs[k];
			else if (!worst || shortfall(t, *v) > shortfall(t, wv))
				worst = &runs[k], wv = *v;
		}
		if (lacks) {
			struct strbuf sb = STRBUF_INIT;

			stated(&lacks->m, &sb);
			if (lacks->name[0])
				findings_addf(out, "lever \"%s\" needs a numerical witness: metric "
						   "\"%s\" %s %g is missing: %s's run %s states "
						   "only %s",
					      l->id, t->metric, t->op, t->value, cand_name,
					      lacks->name, sb.buf);
			else
				findings_addf(out, "lever \"%s\" needs a numerical witness: metric "
						   "\"%s\" %s %g is missing: %s states only %s",
					      l->id, t->metric, t->op, t->value, cand_name, sb.buf);
			sb_release(&sb);
		} else if (worst && !graph_threshold_met(t, wv)) {
			if (worst->name[0])
				findings_addf(out, "lever \"%s\" needs a numerical witness: metric "
						   "\"%s\" is %g in %s's run %s (the worst of "
						   "%zu), not %s %g",
					      l->id, t->metric, wv, cand_name, worst->name, n,
					      t->op, t->value);
			else
				findings_addf(out, "lever \"%s\" needs a numerical witness: metric "
						   "\"%s\" is %g in %s, not %s %g",
					      l->id, t->metric, wv, cand_name, t->op, t->value);
		}
	}
	free(runs);
}

/* "witness it again under it (a new experiment, --promote), or restore the
 * requirement it was promoted under" */
#define AGAIN "the requirement changed since the promotion: the graph would claim the " \
	      "lever witnessed under a requirement its evidence does not meet; witness it " \
	      "again under it (a new experiment, --promote) or restore the requirement"

void witness_recheck_requirement(const struct lever *l, const struct receipt *cand,
				 const char *const engines[2], struct findings *out)
{
	const struct witness_requirement *r = &l->requirement;
	const char *kind = l->has_requirement ? r->kind : "decode";
	struct findings f = FINDINGS_INIT;

	if (engines) {
		if (strcmp(kind, "parity"))
			findings_addf(out, "lever \"%s\" needs %s now (its "
					   "next_witness_requirement), and this witness is a "
					   "parity campaign: %s", l->id,
				      !strcmp(kind, "decode") ? "a decode A/B" : kind, AGAIN);
		else if (strcmp(r->engines.v[0], engines[0]) || strcmp(r->engines.v[1], engines[1]))
			findings_addf(out, "lever \"%s\" needs a parity campaign of %s against "
					   "%s now (its next_witness_requirement); this witness "
					   "ran %s against %s: %s", l->id, r->engines.v[0],
				      r->engines.v[1], engines[0], engines[1], AGAIN);
		return;
	}
	if (!strcmp(kind, "parity") || (!strcmp(kind, "serving") && !cand->has_serving))
		findings_addf(out, "lever \"%s\" needs a %s now (its next_witness_requirement), "
				   "and this witness is a %s A/B: %s", l->id,
			      !strcmp(kind, "parity") ? "parity campaign" : "serving receipt",
			      cand->has_serving ? "serving" : "decode", AGAIN);
	if (strcmp(kind, "numerical"))
		return;
	witness_check_numerical(l, cand, LAYOUT_CANDIDATE, &f);
	for (size_t i = 0; i < f.nr; i++)
		findings_addf(out, "%s now (its next_witness_requirement): %s", f.items[i], AGAIN);
	findings_release(&f);
}
