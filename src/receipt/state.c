/* The envelope state an experiment ran against: recorded in its receipts
 * (and, as a digest, in every sealed run's label), recomputed by --promote. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/text.h"
#include "receipt/receipt.h"

/* The name of a lever's witness in a state: its witnessed.receipt (the
 * witness folder, or the external evidence it names), NULL when none. */
static const char *lever_witness(const struct lever *l)
{
	if (!l->has_witnessed)
		return NULL;
	if (l->witnessed.receipt)
		return l->witnessed.receipt;
	return l->witnessed.provenance ? l->witnessed.provenance : "";
}

json_t *receipt_state_json(const struct graph *g, const struct envelope *env, struct err *e)
{
	const struct criterion *c = graph_criterion(g, env->id);
	char digest[JSON_DIGEST_LEN + 1], edigest[JSON_DIGEST_LEN + 1];
	json_t *o, *levers;

	if (!c) {
		err_set(e, "envelope \"%s\" has no comparison criterion", env->id);
		return NULL;
	}
	if (graph_criterion_digest(c, digest, e) < 0 || graph_envelope_digest(env, edigest, e) < 0)
		return NULL;
	o = jobj();
	jset_str(o, "criterion_digest", digest);
	jset_str(o, "envelope_digest", edigest);
	jset_new(o, "envelope", graph_envelope_json(env));
	levers = jarr();
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];
		const char *w = lever_witness(l);
		json_t *x;

		if (!l->app.envelope_id || strcmp(l->app.envelope_id, env->id))
			continue;
		x = jobj();
		jset_str(x, "id", l->id);
		jset_bool(x, "enabled", l->enabled);
		jset_new(x, "witness", w ? json_string(w) : json_null());
		jpush_new(levers, x);
	}
	jset_new(o, "levers", levers);
	return o;
}

int receipt_state_digest(const json_t *state, char out[JSON_DIGEST_LEN + 1], struct err *e)
{
	return json_digest(state, NULL, out, e);
}

/* "enabled and witnessed by \"w\"", "disabled and unwitnessed" */
static void describe(struct strbuf *sb, bool enabled, const char *witness)
{
	sb_addf(sb, "%s and ", enabled ? "enabled" : "disabled");
	if (witness)
		sb_addf(sb, "witnessed by \"%s\"", witness);
	else
		sb_addf(sb, "unwitnessed");
}

static const struct receipt_lever_state *find(const struct receipt_state *s, const char *id)
{
	for (size_t i = 0; i < s->nr_levers; i++)
		if (!strcmp(s->levers[i].id, id))
			return &s->levers[i];
	return NULL;
}

static bool same_witness(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

void receipt_state_check(const struct receipt *r, const struct graph *g, const char *who,
			 struct findings *out)
{
	const struct receipt_state *s = &r->envelope_state;
	const struct envelope *env = graph_envelope(g, r->envelope_id);
	const struct criterion *c;
	char digest[JSON_DIGEST_LEN + 1];
	struct err e;

	if (!r->has_envelope_state) {
		findings_addf(out, "%s: records no envelope_state (written before fak recorded the "
				   "levers an experiment ran against): it can be read and "
				   "compared, never promoted; run the experiment again", who);
		return;
	}
	if (!s->envelope_digest)
		findings_addf(out, "%s: envelope_state records no envelope_digest (written before "
				   "fak bound receipts to their envelope): it can be read and "
				   "compared, never promoted; run the experiment again", who);
	if (!env)
		return;	/* receipt validation names the unknown envelope */
	c = graph_criterion(g, env->id);
	if (c && graph_criterion_digest(c, digest, &e) == 0 && strcmp(digest, s->criterion_digest))
		findings_addf(out, "%s: envelope_state.criterion_digest: the experiment was made "
				   "against another criterion of envelope \"%s\" (%s; the graph "
				   "has %s now): run the experiment again",
			      who, env->id, s->criterion_digest, digest);
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];
		const struct receipt_lever_state *was;
		const char *w = lever_witness(l);
		struct strbuf sb = STRBUF_INIT;

		if (!l->app.envelope_id || strcmp(l->app.envelope_id, env->id))
			continue;
		was = find(s, l->id);
		if (was && was->enabled == l->enabled && same_witness(was->witness, w))
			continue;
		if (was) {
			sb_addf(&sb, "lever \"%s\" changed since the experiment: it was ", l->id);
			describe(&sb, was->enabled, was->witness);
			sb_addf(&sb, " when the experiment ran, it is ");
		} else {
			sb_addf(&sb, "lever \"%s\" joined envelope \"%s\" since the experiment: "
				     "it is ", l->id, env->id);
		}
		describe(&sb, l->enabled, w);
		sb_addf(&sb, " now");
		findings_addf(out, "%s: envelope_state: %s: run the experiment again", who, sb.buf);
		sb_release(&sb);
	}
	for (size_t i = 0; i < s->nr_levers; i++) {
		const struct lever *l = graph_lever(g, s->levers[i].id);

		if (!l || !l->app.envelope_id || strcmp(l->app.envelope_id, env->id))
			findings_addf(out, "%s: envelope_state: lever \"%s\" left envelope \"%s\" "
					   "since the experiment: run the experiment again",
				      who, s->levers[i].id, env->id);
	}
}

void receipt_envelope_check(const struct receipt *r, const struct graph *g,
			    struct findings *out)
{
	const struct receipt_state *s = &r->envelope_state;
	const struct envelope *env = graph_envelope(g, r->envelope_id);
	char now[JSON_DIGEST_LEN + 1];
	char *changes;

	if (!r->has_envelope_state || !s->envelope_digest || !env)
		return;	/* an unknown envelope is check_graph's finding */
	switch (graph_envelope_match(s->envelope, s->envelope_digest, env, now, &changes)) {
	case GRAPH_ENVELOPE_SAME:
		return;
	case GRAPH_ENVELOPE_FORGED:
		findings_addf(out, "envelope_state.envelope_digest: %s is not the digest of "
				   "envelope_state.envelope: the receipt was edited",
			      s->envelope_digest);
		return;
	case GRAPH_ENVELOPE_CHANGED:
		break;
	}
	findings_addf(out, "envelope_state.envelope_digest: the receipt was made in envelope "
			   "\"%s\" as %s, the graph has %s now (%s): changing any envelope field "
			   "creates a new envelope, and a receipt applies only to the envelope it "
			   "was made in: restore the envelope, or measure again in a new envelope "
			   "(a new id)", env->id, s->envelope_digest, now,
		      changes);
	free(changes);
}

static bool same_modules(const struct receipt *a, const struct receipt *b)
{
	if (a->nr_modules != b->nr_modules)
		return false;
	for (size_t i = 0; i < a->nr_modules; i++) {
		bool found = false;

		for (size_t j = 0; j < b->nr_modules && !found; j++)
			found = !strcmp(a->modules[i].module, b->modules[j].module) &&
				!strcmp(a->modules[i].revision, b->modules[j].revision);
		if (!found)
			return false;
	}
	return true;
}

/* Equal as the shell reads them: the same words after quote removal, in the
 * same order (./bench ok and ./bench 'ok' are one command, "X" and "X "
 * too). A command whose quotes do not close is compared as it is written. */
static bool same_words(const char *a, const char *b)
{
	struct strbuf wa = STRBUF_INIT, wb = STRBUF_INIT;
	size_t na, nb;
	bool same;

	if (sh_words(a, &wa, &na, NULL) < 0 || sh_words(b, &wb, &nb, NULL) < 0)
		same = !strcmp(a, b);
	else
		same = na == nb && wa.len == wb.len && !memcmp(wa.buf, wb.buf, wa.len);
	sb_release(&wa);
	sb_release(&wb);
	return same;
}

/* The executable an arm's repetitions sealed (workload.program_sha256), when
 * every one of them sealed the same; NULL otherwise. */
static const char *arm_program(const struct receipt *r)
{
	const char *sha = NULL;

	for (size_t i = 0; i < r->nr_system_baselines; i++) {
		const json_t *w = json_object_get(r->system_baselines[i].json, "workload");
		const char *v = json_string_value(json_object_get(w, "program_sha256"));

		if (!v || (sha && strcmp(sha, v)))
			return NULL;
		sha = v;
	}
	return sha;
}

void receipt_arms_compare(const struct receipt *a, const struct receipt *b, struct receipt_aa *out)
{
	const char *pa = arm_program(a), *pb = arm_program(b);
	bool words = a->commands.n && a->commands.n == b->commands.n;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; words && i < a->commands.n; i++)
		words = same_words(a->commands.v[i], b->commands.v[i]);
	out->labels_differ = strcmp(a->revision, b->revision) || !same_modules(a, b);
	out->by_program = pa && pb;
	if (!words)
		return;
	if (out->by_program) {
		/* the labels say what someone typed; the executables what ran */
		out->same = !strcmp(pa, pb);
		snprintf(out->sha256, sizeof(out->sha256), "%s", pa);
	} else {
		out->same = !out->labels_differ;
	}
}

bool receipt_same_arms(const struct receipt *a, const struct receipt *b)
{
	struct receipt_aa aa;

	receipt_arms_compare(a, b, &aa);
	return aa.same;
}

void receipt_aa_why(const struct receipt_aa *aa, const struct receipt *a, const struct receipt *b,
		    struct strbuf *out)
{
	if (!aa->by_program) {
		sb_adds(out, "both arms ran the same command, revision and module versions");
		return;
	}
	sb_addf(out, "both arms ran the same command and the same executable (sha256 %.12s)",
		aa->sha256);
	if (strcmp(a->revision, b->revision))
		sb_addf(out, "; the revision labels differ (%s, %s) but the executables do not: "
			     "was the candidate rebuilt?", a->revision, b->revision);
	else if (aa->labels_differ)
		sb_adds(out, "; the module versions differ but the executables do not: was the "
			     "candidate rebuilt?");
}
