#include "receipt/identity.h"

#include <jansson.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "receipt/receipt.h"
#include "attestation/attestation.h"

/* Whether word is one of the words of text, split at the characters seps. */
static bool has_word(const char *text, const char *word, const char *seps)
{
	size_t n = strlen(word);

	for (const char *p = text; n && (p = strstr(p, word)); p++) {
		bool start = p == text || strchr(seps, p[-1]);
		bool end = !p[n] || strchr(seps, p[n]);

		if (start && end)
			return true;
	}
	return false;
}

bool receipt_identity_agrees(const struct envelope *env, const struct wl_identity *id,
			     struct strbuf *why)
{
	char said[6 * (WL_IDENTITY_MAX + 16)];

	wl_identity_describe(id, said, sizeof(said));
	if (id->engine[0] && strcmp(id->engine, env->engine)) {
		sb_addf(why, "shows engine \"%s\"%s%s%s, but envelope \"%s\" names engine \"%s\": "
			"a run of one engine cannot witness another's envelope",
			id->engine, said[0] ? " (" : "", said, said[0] ? ")" : "", env->id,
			env->engine);
		return false;
	}
	if (id->forward_path[0] && strcmp(id->forward_path, env->forward_path)) {
		sb_addf(why, "states forward path \"%s\", but envelope \"%s\" pins \"%s\"",
			id->forward_path, env->id, env->forward_path);
		return false;
	}
	if (id->build_commit[0] && !has_word(env->forward_path, id->build_commit, " \t/,;:()@")) {
		sb_addf(why, "shows build \"%s\", which envelope \"%s\"'s forward path \"%s\" does "
			"not name: pin the build in the forward path (a new envelope)",
			id->build_commit, env->id, env->forward_path);
		return false;
	}
	if (id->backends[0]) {
		char list[WL_IDENTITY_MAX];
		bool found = false;

		snprintf(list, sizeof(list), "%s", id->backends);
		for (char *save = NULL, *b = strtok_r(list, ", ", &save); b && !found;
		     b = strtok_r(NULL, ", ", &save))
			found = !strcasecmp(b, env->backend);
		if (!found) {
			sb_addf(why, "shows backends \"%s\", but envelope \"%s\" runs on backend "
				"\"%s\"", id->backends, env->id, env->backend);
			return false;
		}
	}
	return true;
}

const char *receipt_identity_of_runs(const struct attestation *const *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!runs[i]->has_workload || !runs[i]->workload.has_metrics ||
		    !runs[i]->workload.metrics.identity.engine[0])
			return RECEIPT_IDENTITY_DECLARED;
	return n ? RECEIPT_IDENTITY_OBSERVED : RECEIPT_IDENTITY_DECLARED;
}

const char *receipt_identity_of_receipt(const struct receipt *r)
{
	if (!r->nr_reps || r->nr_system_baselines < r->nr_reps)
		return RECEIPT_IDENTITY_DECLARED;
	for (size_t i = 0; i < r->nr_reps; i++) {
		const json_t *w = json_object_get(r->system_baselines[i].json, "workload");
		const json_t *v = json_object_get(json_object_get(w, "metrics"), "engine");

		if (!json_is_string(v) || !json_string_length(v))
			return RECEIPT_IDENTITY_DECLARED;
	}
	return RECEIPT_IDENTITY_OBSERVED;
}

const char *receipt_identity_recorded(const struct receipt *r)
{
	return r->engine_identity ? r->engine_identity : RECEIPT_IDENTITY_DECLARED;
}
