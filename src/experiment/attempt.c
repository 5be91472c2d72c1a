/* Every attempt counts: the experiment's lines in the attempt ledger and
 * its attempt.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/xalloc.h"
#include "experiment/internal.h"
#include "receipt/ledger.h"

static struct ledger_entry entry_of(const struct xp *x, enum ledger_event ev)
{
	return (struct ledger_entry){
		.event = ev, .experiment_id = x->experiment_id, .lever_id = x->lever->id,
		.envelope_id = x->env->id, .envelope_digest = x->envelope_digest,
		.criterion_digest = x->criterion_digest, .out_dir = x->o->out_dir,
	};
}

int xp_attempt_start(struct xp *x, struct xp_result *res, struct err *e)
{
	struct xp_attempt *a = &res->attempt;

	if (!x->o->ledger)
		return 0;
	{
		struct ledger_entry in = entry_of(x, LEDGER_STARTED);

		if (ledger_append(x->o->ledger, &in, &a->started_seq, a->started, e) < 0)
			return err_prefix(e, "the attempt could not be recorded, nothing ran");
	}
	a->recorded = true;
	memcpy(a->experiment_id, x->experiment_id, sizeof(a->experiment_id));
	memcpy(a->envelope_digest, x->envelope_digest, sizeof(a->envelope_digest));
	return 0;
}

/* The verdict an ended line records: the primary metric's comparison
 * verdict, or what stopped the experiment. */
static const char *verdict_of(const struct xp_result *res, bool failed)
{
	const json_t *v;

	if (failed || res->status == XP_RUN_FAILED)
		return "failed";
	if (res->status == XP_INTERRUPTED)
		return "interrupted";
	if (json_is_string(json_object_get(res->comparison, "result")))
		return json_string_value(json_object_get(res->comparison, "result"));
	v = json_object_get(json_object_get(json_object_get(res->comparison, "statistics"),
					    "tokens_per_second"), "verdict");
	return json_is_string(v) && *json_string_value(v) ? json_string_value(v) : "failed";
}

static const char *gate_of(const struct xp_result *res, bool failed)
{
	const json_t *c = json_object_get(res->gate, "classification");

	if (failed || res->status != XP_DONE || !json_is_string(c))
		return "none";
	return json_string_value(c);
}

static json_t *record_json(const struct xp *x, const struct xp_attempt *a, const char *ledger)
{
	char *shown = ledger_scrub_dir(ledger);
	struct ledger_record r = {
		.experiment_id = a->experiment_id, .lever_id = x->lever->id,
		.envelope_id = x->env->id, .envelope_digest = a->envelope_digest, .ledger = shown,
		.attempt = (int64_t)a->k, .attempts = (int64_t)a->n, .started_seq = a->started_seq,
		.started_digest = a->started, .ended_seq = a->ended_seq,
		.ended_digest = a->ended_digest,
	};
	json_t *o = ledger_record_json(&r);

	free(shown);
	return o;
}

int xp_attempt_end(struct xp *x, struct xp_result *res, struct err *e)
{
	struct xp_attempt *a = &res->attempt;
	bool failed = res->status == XP_DONE && !res->comparison;
	struct ledger_entry in = entry_of(x, LEDGER_ENDED);
	struct strbuf sb = STRBUF_INIT;
	struct ledger l;
	char *path;
	json_t *doc;
	int rc;

	if (!a->recorded)
		return 0;
	in.verdict = verdict_of(res, failed);
	in.gate = gate_of(res, failed);
	if (ledger_append(x->o->ledger, &in, &a->ended_seq, a->ended_digest, e) < 0)
		return err_prefix(e, "the end of attempt %s could not be recorded",
				  a->experiment_id);
	a->ended = true;
	if (ledger_load(x->o->ledger, &l, e) < 0)
		return -1;
	a->k = ledger_attempt_number(&l, a->experiment_id);
	a->n = ledger_attempts(&l, x->lever->id, a->envelope_digest);
	ledger_release(&l);
	doc = record_json(x, a, x->o->ledger);
	json_write_pretty(&sb, doc);
	json_decref(doc);
	path = xasprintf("%s/" LEDGER_RECORD_FILE, x->o->out_dir);
	rc = file_write_atomic(path, sb.buf, sb.len, 0600, e);
	free(path);
	sb_release(&sb);
	return rc;
}
