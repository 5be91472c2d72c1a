/* A parity campaign's folder (parity.json and its sealed runs), as
 * promotion and verification read it: the ratio is derived again from the
 * runs, never taken from the document (docs/receipts.md, "Parity
 * witnesses"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attestation/layout.h"
#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "receipt/parity.h"
#include "attestation/attest.h"
#include "attestation/attestation.h"
#include "witness/internal.h"

#define PARITY_CAP ((size_t)16 << 20)

void witness_parity_release(struct witness_parity *wp)
{
	json_decref(wp->doc);
	json_decref(wp->recomputed);
	sb_release(&wp->bytes);
	free(wp->x.schedule);
	memset(wp, 0, sizeof(*wp));
}

static int read_arms(struct witness_parity *wp, struct err *e)
{
	const json_t *arms;
	struct jpath ap = JP_KEY(NULL, "arms");

	TRY(jd_arr(wp->doc, NULL, "arms", JD_REQUIRED, false, &arms, e));
	if (json_array_size(arms) != 2)
		return jpath_err(e, &ap, "must hold the two arms");
	for (size_t i = 0; i < 2; i++) {
		struct jpath ip = JP_IDX(&ap, i);
		const char *arm;

		TRY(jd_str(json_array_get(arms, i), &ip, "arm", JD_REQUIRED, &arm, e));
		TRY(jd_str(json_array_get(arms, i), &ip, "engine", JD_REQUIRED, &wp->engines[i],
			   e));
		if (strcmp(arm, receipt_arm_names[i]))
			return jpath_err(e, &ip, "must be the %s arm", receipt_arm_names[i]);
	}
	return 0;
}

static int read_schedule(struct witness_parity *wp, struct err *e)
{
	const json_t *xo, *sched;
	struct jpath xp = JP_KEY(NULL, "experiment"), sp = JP_KEY(&xp, "schedule");

	TRY(jd_obj(wp->doc, NULL, "experiment", JD_REQUIRED, &xo, e));
	TRY(jd_str(xo, &xp, "id", JD_REQUIRED, &wp->experiment_id, e));
	TRY(jd_arr(xo, &xp, "schedule", JD_REQUIRED, false, &sched, e));
	wp->x.nr_schedule = json_array_size(sched);
	wp->x.schedule = xcalloc(wp->x.nr_schedule + 1, sizeof(*wp->x.schedule));
	wp->x.id = wp->experiment_id;
	for (size_t i = 0; i < wp->x.nr_schedule; i++) {
		const json_t *u = json_array_get(sched, i);
		struct jpath ip = JP_IDX(&sp, i);
		struct receipt_run *r = &wp->x.schedule[i];

		TRY(jd_str(u, &ip, "arm", JD_REQUIRED, &r->arm, e));
		TRY(jd_str(u, &ip, "kind", JD_REQUIRED, &r->kind, e));
		TRY(jd_int(u, &ip, "index", JD_REQUIRED, &r->index, e));
		TRY(jd_str(u, &ip, "attestation_digest", JD_REQUIRED, &r->attestation_digest, e));
		if ((strcmp(r->arm, "baseline") && strcmp(r->arm, "candidate")) || r->index < 0 ||
		    r->index > 1000000)
			return jpath_err(e, &ip, "is no run of a campaign's two arms");
	}
	return 0;
}

/* parity.json's members, from wp->bytes. */
static int parse(struct witness_parity *wp, struct err *e)
{
	const char *schema, *result;

	wp->doc = json_parse_strict(wp->bytes.buf, wp->bytes.len, PARITY_FILE, e);
	if (!wp->doc)
		return -1;
	TRY(jd_str(wp->doc, NULL, "schema", JD_REQUIRED, &schema, e));
	TRY(jd_str(wp->doc, NULL, "result", JD_REQUIRED, &result, e));
	TRY(jd_str(wp->doc, NULL, "lever_id", JD_REQUIRED, &wp->lever_id, e));
	TRY(jd_str(wp->doc, NULL, "envelope_id", JD_REQUIRED, &wp->envelope_id, e));
	TRY(jd_str(wp->doc, NULL, "envelope_digest", JD_REQUIRED, &wp->envelope_digest, e));
	TRY(jd_str(wp->doc, NULL, "envelope_state", JD_REQUIRED, &wp->envelope_state, e));
	TRY(jd_str(wp->doc, NULL, "machine_id", JD_REQUIRED, &wp->machine_id, e));
	TRY(read_arms(wp, e));
	TRY(read_schedule(wp, e));
	if (strcmp(schema, PARITY_SCHEMA) || strcmp(result, "parity"))
		return err_set(e, "not a parity campaign (schema %s, result \"parity\")",
			       PARITY_SCHEMA);
	return 0;
}

int witness_parity_parse(const char *buf, size_t len, struct witness_parity *wp, struct err *e)
{
	memset(wp, 0, sizeof(*wp));
	if (len > PARITY_CAP)
		return err_set(e, "%s: larger than %zu bytes", PARITY_FILE, PARITY_CAP);
	sb_add(&wp->bytes, buf, len);
	if (parse(wp, e) == 0)
		return 0;
	err_prefix(e, "%s", PARITY_FILE);
	return -1;
}

int witness_parity_read(const char *dir, struct witness_parity *wp, struct err *e)
{
	char *path = xasprintf("%s/" PARITY_FILE, dir);
	int rc = -1;

	memset(wp, 0, sizeof(*wp));
	if (file_read(path, PARITY_CAP, &wp->bytes, e) == 0 && parse(wp, e) == 0)
		rc = 0;
	else
		err_prefix(e, "%s", PARITY_FILE);
	free(path);
	return rc;
}

/* Run u of the schedule, from attestations/: verified, its digest the
 * schedule's, its label the campaign's. */
static void read_run(const char *dir, struct witness_parity *wp, const struct criterion *c,
		     const struct receipt_run *u, struct parity_run *pr, char *engine,
		     struct findings *out)
{
	struct receipt_step step = { !strcmp(u->arm, "candidate"), u->kind, u->index };
	struct attestation_loaded a = ATTESTATION_LOADED_INIT;
	char name[64], *path;
	struct err e;

	receipt_step_name(&step, name, sizeof(name));
	path = xasprintf("%s/" LAYOUT_ATTESTATIONS "/%s.json", dir, name);
	*pr = (struct parity_run){ .arm = u->arm, .kind = u->kind, .index = u->index,
				   .digest = u->attestation_digest, .engine = engine,
				   .verdict = "unread" };
	if (attestation_load(path, ATTESTATION_VERIFIED, &a, &e) < 0) {
		findings_addf(out, LAYOUT_ATTESTATIONS "/%s.json: %s", name, e.msg);
	} else {
		const struct workload *w = &a.att->workload;
		const struct wl_label *lb = &w->label;

		if (strcmp(a.facts.digest, u->attestation_digest))
			findings_addf(out, LAYOUT_ATTESTATIONS "/%s.json: is %s, the schedule "
				      "names %s", name, a.facts.digest, u->attestation_digest);
		else if (!a.att->has_workload || strcmp(lb->experiment_id, wp->experiment_id) ||
			 strcmp(lb->envelope_id, wp->envelope_id) ||
			 strcmp(lb->lever_id, wp->lever_id) || strcmp(lb->arm, u->arm) ||
			 strcmp(lb->kind, u->kind) || lb->index != u->index ||
			 strcmp(lb->machine_id, wp->machine_id) ||
			 strcmp(lb->envelope_state, wp->envelope_state))
			findings_addf(out, LAYOUT_ATTESTATIONS "/%s.json: sealed as another run "
					   "than " LAYOUT_PARITY "'s %s (experiment, envelope, "
					   "lever, arm, machine or envelope state)", name, name);
		else if (!strcmp(a.att->verdict, "invalid"))
			findings_addf(out, LAYOUT_ATTESTATIONS "/%s.json: verdict invalid", name);
		else if (c && w->metrics.has_quality &&
			 (c->quality_higher_is_better
				  ? w->metrics.quality.score < c->minimum_quality_score
				  : w->metrics.quality.score > c->minimum_quality_score))
			findings_addf(out, LAYOUT_ATTESTATIONS "/%s.json: quality \"%s\" %g misses "
					   "the criterion's %g: a parity ratio of engines whose "
					   "outputs fail compares nothing", name,
				      w->metrics.quality.name, w->metrics.quality.score,
				      c->minimum_quality_score);
		else {
			snprintf(engine, WL_IDENTITY_MAX, "%s", w->metrics.identity.engine);
			pr->verdict = strcmp(a.att->verdict, "clean") ? "investigate" : "clean";
			pr->tokens_per_second = w->metrics.tokens_per_second;
			pr->has_throughput = w->has_metrics && w->metrics.has_throughput;
			pr->artifact_unseen = w->artifact.looked && w->artifact.observable &&
					      !w->artifact.observed;
			if (strcmp(a.att->command_window.started_at_utc, wp->last_started) > 0)
				snprintf(wp->last_started, sizeof(wp->last_started), "%s",
					 a.att->command_window.started_at_utc);
		}
	}
	attestation_loaded_release(&a);
	free(path);
}

void witness_parity_runs(const char *dir, struct witness_parity *wp, const struct criterion *crit,
			 struct findings *out)
{
	size_t n = wp->x.nr_schedule, before = out->nr;
	struct parity_run *runs = xcalloc(n + 1, sizeof(*runs));
	char (*engines)[WL_IDENTITY_MAX] = xcalloc(n + 1, sizeof(*engines));

	for (size_t k = 0; k < n; k++)
		read_run(dir, wp, crit, &wp->x.schedule[k], &runs[k], engines[k], out);
	if (out->nr == before)
		wp->recomputed = receipt_parity_of_runs(wp->engines, runs, n, out);
	if (wp->recomputed && !json_same(wp->recomputed, json_object_get(wp->doc, "parity")))
		findings_addf(out, LAYOUT_PARITY ": its parity member is not what its sealed runs "
				   "give (the ratio, its interval or the repetitions differ)");
	free(runs);
	free(engines);
}
