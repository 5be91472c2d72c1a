/* --parity: the matched campaign of a parity lever's two engines
 * (docs/experiments.md, "A parity campaign"). The runs are the A/B's (one
 * schedule, the sampler, the artifact checked before every run and seen in
 * use, logs and attestations); each arm is one engine, observed in every
 * run; the result is parity.json, the ratio of their throughput labelled
 * parity, and no receipt, comparison or gate: it is never a throughput
 * witness of either engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/xalloc.h"
#include "experiment/internal.h"
#include "receipt/identity.h"
#include "receipt/parity.h"

static bool is_parity(const struct lever *l)
{
	return l->has_requirement && !strcmp(l->requirement.kind, "parity");
}

void xp_parity_preflight(struct xp *x, struct findings *out)
{
	const struct xp_opts *o = x->o;
	const struct lever *l = x->lever;

	if (!o->parity) {
		if (is_parity(l))
			findings_addf(out, "lever \"%s\" needs a parity campaign of %s against %s "
					   "(its next_witness_requirement), not an A/B: run it "
					   "with --parity, the baseline arm %s's command and the "
					   "candidate arm %s's", l->id, l->requirement.engines.v[0],
				      l->requirement.engines.v[1], l->requirement.engines.v[0],
				      l->requirement.engines.v[1]);
		return;
	}
	if (!is_parity(l)) {
		findings_addf(out, "--parity: lever \"%s\" needs no parity campaign (its "
				   "next_witness_requirement is %s); run its A/B without --parity",
			      l->id, l->has_requirement ? l->requirement.kind : "absent: decode");
		return;
	}
	if (o->order != RECEIPT_ORDER_INTERLEAVED)
		findings_addf(out, "--parity runs the two engines interleaved (ABBA), not --order "
				   "%s: a matched campaign sees both engines alike",
			      receipt_order_names[o->order]);
	if (o->until_decisive)
		findings_addf(out, "--parity takes the envelope's repetitions, not "
				   "--until-decisive: a parity ratio has no decision to reach");
	if (o->last_accepted)
		findings_addf(out, "--parity compares the two engines of one campaign, not a "
				   "--last-accepted receipt");
}

const char *xp_arm_parser(const struct xp_opts *o, int arm)
{
	return arm && o->candidate_parser ? o->candidate_parser : o->parser;
}

bool xp_parity_identity(const struct xp *x, const struct receipt_step *s,
			const struct attestation *r, struct strbuf *why)
{
	const struct wl_identity *id = &r->workload.metrics.identity;
	const char *want = x->lever->requirement.engines.v[s->arm];

	if (!strcmp(s->kind, WL_KIND_QUALITY))
		return true;	/* it checks the arm's output; its engine is the arm's runs' */
	if (!r->workload.has_metrics || !id->engine[0]) {
		sb_addf(why, "states no engine: a parity campaign observes each arm's engine, so "
			"the %s arm's metrics line must state \"engine\": \"%s\"",
			receipt_arm_names[s->arm], want);
		return false;
	}
	if (strcmp(id->engine, want)) {
		sb_addf(why, "shows engine \"%s\", but the %s arm of lever \"%s\"'s parity "
			"campaign is %s's (its requirement's engines, in order)", id->engine,
			receipt_arm_names[s->arm], x->lever->id, want);
		return false;
	}
	/* the envelope's own engine is held to the envelope, as in an A/B */
	return strcmp(want, x->env->engine) || receipt_identity_agrees(x->env, id, why);
}

/* Every run with a quality meets the criterion: a ratio of engines whose
 * outputs are wrong compares nothing. */
static void check_quality(const struct xp *x, struct findings *out)
{
	const struct criterion *c = x->crit;

	for (size_t k = 0; k < x->nr_done; k++) {
		const struct wl_metrics *m = &x->done[k].rep->workload.metrics;
		char title[64];

		if (!m->has_quality)
			continue;
		if (c->quality_higher_is_better ? m->quality.score >= c->minimum_quality_score
						: m->quality.score <= c->minimum_quality_score)
			continue;
		receipt_step_title(&x->steps[k], title, sizeof(title));
		findings_addf(out, "%s: quality \"%s\" %g misses the criterion's %s %g: a parity "
				   "ratio of engines whose outputs fail compares nothing", title,
			      m->quality.name, m->quality.score,
			      c->quality_higher_is_better ? "minimum" : "maximum",
			      c->minimum_quality_score);
	}
}

static json_t *arm_json(const struct xp *x, int arm)
{
	json_t *o = jobj(), *v = jarr();

	jset_str(o, "arm", receipt_arm_names[arm]);
	jset_str(o, "engine", x->lever->requirement.engines.v[arm]);
	jset_str(o, "command", x->o->cmd[arm]);
	jset_str(o, "revision", x->o->revision[arm]);
	jset_str(o, "program_sha256", x->program_sha256[arm]);
	for (size_t k = 0; k < x->nr_done; k++)
		if (x->steps[k].arm == arm && !strcmp(x->steps[k].kind, WL_KIND_REPETITION))
			jpush_new(v, json_real(x->done[k].rep->workload.metrics.tokens_per_second));
	jset_new(o, "tokens_per_second", v);
	return o;
}

static json_t *campaign_json(const struct xp *x, json_t *parity)
{
	json_t *o = jobj(), *xo = jobj(), *sched = jarr(), *arms = jarr();

	jset_str(o, "schema", PARITY_SCHEMA);
	jset_str(o, "result", "parity");
	jset_str(o, "note", PARITY_NOTE);
	jset_str(o, "lever_id", x->lever->id);
	jset_str(o, "envelope_id", x->env->id);
	jset_str(o, "envelope_digest", x->envelope_digest);
	jset_str(o, "envelope_state", x->state_digest);
	jset_str(o, "artifact_sha256", x->artifact_sha256);
	jset_str(o, "machine_id", x->machine_id);
	jset_str(xo, "id", x->experiment_id);
	jset_str(xo, "order", receipt_order_names[x->o->order]);
	jset_str(xo, "metrics_parser", x->o->parser);
	if (x->o->candidate_parser)
		jset_str(xo, "candidate_metrics_parser", x->o->candidate_parser);
	for (size_t k = 0; k < x->nr_done; k++) {
		const struct receipt_step *s = &x->steps[k];
		json_t *u = jobj();

		jset_str(u, "arm", receipt_arm_names[s->arm]);
		jset_str(u, "kind", s->kind);
		jset_int(u, "index", s->index);
		jset_str(u, "attestation_digest", x->done[k].rep->digest);
		jpush_new(sched, u);
	}
	jset_new(xo, "schedule", sched);
	jset_new(o, "experiment", xo);
	jpush_new(arms, arm_json(x, 0));
	jpush_new(arms, arm_json(x, 1));
	jset_new(o, "arms", arms);
	jset_new(o, "parity", parity);
	return o;
}

int xp_parity_assemble(struct xp *x, struct xp_result *res, struct findings *out,
		       struct err *e)
{
	const struct lever *l = x->lever;
	const char *const engines[2] = { l->requirement.engines.v[0],
					 l->requirement.engines.v[1] };
	struct parity_run *runs = xcalloc(x->nr_done + 1, sizeof(*runs));
	struct strbuf sb = STRBUF_INIT;
	json_t *parity, *doc;
	char *path;
	int rc;

	for (size_t k = 0; k < x->nr_done; k++) {
		const struct attestation *r = x->done[k].rep;

		runs[k] = (struct parity_run){
			.arm = receipt_arm_names[x->steps[k].arm], .kind = x->steps[k].kind,
			.index = x->steps[k].index, .digest = r->digest,
			.engine = r->workload.metrics.identity.engine,
			.tokens_per_second = r->workload.metrics.tokens_per_second,
			.has_throughput = r->workload.metrics.has_throughput,
			.verdict = r->verdict,
			.artifact_unseen = r->workload.artifact.looked &&
					   r->workload.artifact.observable &&
					   !r->workload.artifact.observed,
		};
	}
	parity = receipt_parity_of_runs(engines, runs, x->nr_done, out);
	free(runs);
	check_quality(x, out);
	if (!parity || out->nr) {
		json_decref(parity);
		return 0;
	}
	doc = campaign_json(x, parity);
	if ((res->signal = xp_pending_stop())) {
		res->status = XP_INTERRUPTED;
		json_decref(doc);
		return 0;
	}
	json_write_pretty(&sb, doc);
	path = xasprintf("%s/" PARITY_FILE, x->o->out_dir);
	rc = file_write_atomic(path, sb.buf, sb.len, 0600, e);
	sha256_hex(sb.buf, sb.len, res->sha256[0]);
	free(path);
	sb_release(&sb);
	if (rc < 0) {
		json_decref(doc);
		return -1;
	}
	res->comparison = doc;
	return 0;
}
