/* Strict decoders of MANIFEST.json and of the promotion journal. */
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"
#include "base/jfields.h"
#include "base/xalloc.h"
#include "witness/internal.h"
#include "witness/witness.h"

#define DOC_MAX ((size_t)1 << 20)

static json_t *parse(const char *buf, size_t len, const char *what, struct err *e)
{
	if (len > DOC_MAX) {
		err_set(e, "%s: larger than %zu bytes", what, DOC_MAX);
		return NULL;
	}
	return json_parse_strict(buf, len, what, e);
}

static int schema(const json_t *o, const char *want, struct err *e)
{
	const char *s;
	struct jpath kp = JP_KEY(NULL, "schema");

	TRY(jd_str(o, NULL, "schema", JD_REQUIRED, &s, e));
	if (strcmp(s, want))
		return jpath_err(e, &kp, "must be \"%s\"", want);
	return 0;
}

static int entry(const json_t *a, const struct jpath *at, size_t i, struct witness_entry *f,
		 struct err *e)
{
	static const char *const keys[] = { "path", "bytes", "sha256", NULL };
	struct jpath ip = JP_IDX(at, i);
	const json_t *o = json_array_get(a, i);

	TRY(jd_object(o, &ip, keys, e));
	TRY(jd_str(o, &ip, "path", JD_REQUIRED, &f->path, e));
	TRY(jd_int(o, &ip, "bytes", JD_REQUIRED, &f->bytes, e));
	TRY(jd_str(o, &ip, "sha256", JD_REQUIRED, &f->sha256, e));
	if (!*f->path || f->path[0] == '/' || strstr(f->path, "..") || f->bytes < 0 ||
	    !digest_is_hex(f->sha256))
		return jpath_err(e, &ip, "must name a relative path inside the folder, its size "
					 "and sha256");
	return 0;
}

#define ATT(key, kind, m) JF_KEY(key, kind, struct witness_attempt, m, JF_REQ)
const struct jfield witness_attempt_fields[] = {
	ATT("experiment_id", JF_TEXT, experiment_id),
	ATT("attempt", JF_LLONG, k),
	ATT("attempts", JF_LLONG, n),
	ATT("started_seq", JF_LLONG, started_seq),
	ATT("started_digest", JF_TEXT, started),
	ATT("ended_seq", JF_LLONG, ended_seq),
	ATT("ended_digest", JF_TEXT, ended),
	ATT("ledger_head_seq", JF_LLONG, head_seq),
	ATT("ledger_head_digest", JF_TEXT, head),
	JF_END,
};
#undef ATT

static bool is_digest(const char *s)
{
	return !strncmp(s, "sha256:", 7) && digest_is_hex(s + 7);
}

/* "attempt": null (a manual loop) or the experiment's lines in the ledger. */
static int attempt(const json_t *doc, struct witness_attempt *a, struct err *e)
{
	struct jpath ap = JP_KEY(NULL, "attempt");
	const json_t *o;

	TRY(jd_obj_or_null(doc, NULL, "attempt", JD_REQUIRED, &o, e));
	if (!o)
		return 0;
	TRY(jf_decode(witness_attempt_fields, o, &ap, a, e));
	if (!digest_is_hexn(a->experiment_id, 32))
		return jpath_err(e, &ap, "experiment_id must be 32 lowercase hex digits");
	if (!is_digest(a->started) || !is_digest(a->ended) || !is_digest(a->head))
		return jpath_err(e, &ap, "started_digest, ended_digest and ledger_head_digest "
					 "must each be \"sha256:\" and 64 lowercase hex digits");
	if (a->k < 1 || a->n < a->k || a->started_seq < 1 || a->ended_seq <= a->started_seq ||
	    a->head_seq < a->ended_seq)
		return jpath_err(e, &ap, "must hold 1 <= attempt <= attempts and 1 <= started_seq "
					 "< ended_seq <= ledger_head_seq");
	a->recorded = true;
	return 0;
}

bool witness_manifest_lists(const struct witness_manifest *m, const char *path)
{
	for (size_t i = 0; i < m->nr_files; i++)
		if (!strcmp(m->files[i].path, path))
			return true;
	return false;
}

int witness_manifest_parse(const char *buf, size_t len, struct witness_manifest *m, struct err *e)
{
	static const char *const keys[] = { "schema", "envelope_id", "lever_id", "observed_on",
					    "fak_version", "graph_sha256", "envelope_digest",
					    "envelope", "attempt", "files", NULL };
	static const char *const keys_v2[] = { "schema", "envelope_id", "lever_id",
					       "observed_on", "fak_version", "graph_sha256",
					       "attempt", "files", NULL };
	struct jpath fp = JP_KEY(NULL, "files");
	const json_t *files;
	const char *sv;
	bool v2;

	memset(m, 0, sizeof(*m));
	if (!(m->doc = parse(buf, len, "MANIFEST.json", e)))
		return -1;
	sv = json_string_value(json_object_get(m->doc, "schema"));
	v2 = sv && !strcmp(sv, WITNESS_MANIFEST_SCHEMA_V2);
	if (jd_object(m->doc, NULL, v2 ? keys_v2 : keys, e) < 0 ||
	    schema(m->doc, v2 ? WITNESS_MANIFEST_SCHEMA_V2 : WITNESS_MANIFEST_SCHEMA, e) < 0 ||
	    jd_str(m->doc, NULL, "schema", JD_REQUIRED, &m->schema, e) < 0 ||
	    (!v2 && (jd_str(m->doc, NULL, "envelope_digest", JD_REQUIRED, &m->envelope_digest,
			    e) < 0 ||
		     jd_obj(m->doc, NULL, "envelope", JD_REQUIRED, &m->envelope, e) < 0)) ||
	    jd_str(m->doc, NULL, "envelope_id", JD_REQUIRED, &m->envelope_id, e) < 0 ||
	    jd_str(m->doc, NULL, "lever_id", JD_REQUIRED, &m->lever_id, e) < 0 ||
	    jd_str(m->doc, NULL, "observed_on", JD_REQUIRED, &m->observed_on, e) < 0 ||
	    jd_str(m->doc, NULL, "fak_version", JD_REQUIRED, &m->fak_version, e) < 0 ||
	    jd_str(m->doc, NULL, "graph_sha256", JD_REQUIRED, &m->graph_sha256, e) < 0 ||
	    attempt(m->doc, &m->attempt, e) < 0 ||
	    jd_arr(m->doc, NULL, "files", JD_REQUIRED, false, &files, e) < 0)
		goto fail;
	m->nr_files = json_array_size(files);
	m->files = xcalloc(m->nr_files + 1, sizeof(*m->files));
	for (size_t i = 0; i < m->nr_files; i++)
		if (entry(files, &fp, i, &m->files[i], e) < 0)
			goto fail;
	return 0;
fail:
	witness_manifest_release(m);
	return -1;
}

void witness_manifest_release(struct witness_manifest *m)
{
	free(m->files);
	json_decref(m->doc);
	memset(m, 0, sizeof(*m));
}

/* An absolute path whose last element is one of fak's staging names. */
static bool staging_path(const char *p)
{
	const char *base = strrchr(p, '/');

	return p[0] == '/' && base && !strncmp(base + 1, ".fak-promote-", 13) &&
	       !strstr(p, "/../") && !strstr(p, "/./");
}

/* to lies below from's own folder. */
static bool below_folder_of(const char *from, const char *to)
{
	size_t d = (size_t)(strrchr(from, '/') - from);

	return to[0] == '/' && !strncmp(to, from, d) && to[d] == '/' && to[d + 1] &&
	       !strstr(to, "/../");
}

int witness_journal_parse(const char *buf, size_t len, struct witness_journal *j, struct err *e)
{
	static const char *const keys[] = { "schema", "state", "staged", "steps", NULL };
	static const char *const skeys[] = { "kind", "from", "to", "sha256", NULL };
	struct jpath sp = JP_KEY(NULL, "staged"), tp = JP_KEY(NULL, "steps");
	const json_t *staged, *steps;
	const char *state;

	memset(j, 0, sizeof(*j));
	if (!(j->doc = parse(buf, len, "promotion journal", e)))
		return -1;
	if (jd_object(j->doc, NULL, keys, e) < 0 || schema(j->doc, WITNESS_JOURNAL_SCHEMA, e) < 0 ||
	    jd_str(j->doc, NULL, "state", JD_REQUIRED, &state, e) < 0 ||
	    jd_arr(j->doc, NULL, "staged", JD_REQUIRED, false, &staged, e) < 0 ||
	    jd_arr(j->doc, NULL, "steps", JD_REQUIRED, false, &steps, e) < 0)
		goto fail;
	if (strcmp(state, "staging") && strcmp(state, "committing")) {
		struct jpath kp = JP_KEY(NULL, "state");

		jpath_err(e, &kp, "must be \"staging\" or \"committing\"");
		goto fail;
	}
	j->committing = !strcmp(state, "committing");
	j->nr_staged = json_array_size(staged);
	j->staged = xcalloc(j->nr_staged + 1, sizeof(*j->staged));
	for (size_t i = 0; i < j->nr_staged; i++) {
		struct jpath ip = JP_IDX(&sp, i);

		if (jd_str_at(staged, &sp, i, &j->staged[i], e) < 0)
			goto fail;
		if (!staging_path(j->staged[i])) {
			jpath_err(e, &ip, "is not a staging path of fak");
			goto fail;
		}
	}
	j->nr_steps = json_array_size(steps);
	j->steps = xcalloc(j->nr_steps + 1, sizeof(*j->steps));
	for (size_t i = 0; i < j->nr_steps; i++) {
		struct jpath ip = JP_IDX(&tp, i);
		const json_t *o = json_array_get(steps, i);
		struct witness_step *s = &j->steps[i];
		const char *kind;
		int rc;

		if (jd_object(o, &ip, skeys, e) < 0 ||
		    jd_str(o, &ip, "kind", JD_REQUIRED, &kind, e) < 0 ||
		    jd_str(o, &ip, "from", JD_REQUIRED, &s->from, e) < 0 ||
		    jd_str(o, &ip, "to", JD_REQUIRED, &s->to, e) < 0 ||
		    (rc = jd_str(o, &ip, "sha256", JD_OPTIONAL, &s->sha256, e)) < 0)
			goto fail;
		s->dir = !strcmp(kind, "dir");
		if ((!s->dir && strcmp(kind, "file")) || s->dir != (rc == 1) ||
		    (s->sha256 && !digest_is_hex(s->sha256)) || !staging_path(s->from) ||
		    !below_folder_of(s->from, s->to)) {
			jpath_err(e, &ip, "is not a step fak would have written (a staged file or "
					  "folder moved below its own folder, a file with its "
					  "sha256)");
			goto fail;
		}
	}
	return 0;
fail:
	witness_journal_release(j);
	return -1;
}

void witness_journal_release(struct witness_journal *j)
{
	free(j->staged);
	free(j->steps);
	json_decref(j->doc);
	memset(j, 0, sizeof(*j));
}
