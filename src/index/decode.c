/* Strict decoding of fak-performance-index/v1 documents. Every object is
 * checked for unknown keys first; the first problem stops decoding with its
 * JSON path. Text fields are single-line, trimmed, non-blank and bounded,
 * so the renderer never has to fold or guess; they are scrubbed text
 * (base/text.h) and hold no marker of the generated block. Presence rules
 * that the validator reports as findings (dates, retention, identity) are
 * optional here. */
#include <stdlib.h>
#include <string.h>

#include "base/dates.h"
#include "base/file.h"
#include "base/json.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "index/index.h"

/* data/performance-index.json, embedded at build time (tools/embed.c) */
extern const char embedded_performance_index_json[];
extern const size_t embedded_performance_index_json_len;

static const char *const top_keys[] = { "schema", "page", "readout", "results", "awaiting", NULL };
static const char *const page_keys[] = { "title", "intro", "subject", "notes", NULL };
static const char *const readout_keys[] = {
	"class", "graph_rung", "envelope_id", "native_tokens_per_second",
	"native_floor_tokens_per_second", "quality", "observed_on", "review_by", "provenance",
	"caveat", NULL,
};
/* Keys shared by both tables, after the table's own text columns. */
#define ROW_COMMON_KEYS                                                                     \
	"lifecycle", "envelope_key", "observed", "review_by", "retention", "at_review",      \
		"retain_reason", "model", "artifact", "engine", "hardware", "metric", "quality", \
		"quotes_gain"
static const char *const result_keys[] = { "highlight", "status", "evidence", ROW_COMMON_KEYS,
					   NULL };
static const char *const awaiting_keys[] = { "candidate", "why", "reap_condition", ROW_COMMON_KEYS,
					     NULL };

static const char *const lifecycle_names[] = { "CURRENT", "DIAGNOSTIC", "HISTORICAL",
					       "AWAITING REMEASURE", NULL };
static const char *const quality_names[] = { "pass", "fail", "unmeasured", NULL };
static const char *const class_names[] = { "accepted", "approximate", "diagnostic", NULL };
static const char *const at_review_names[] = { "", "remove", "retain", NULL };

const char *index_lifecycle_name(enum index_lifecycle l)
{
	return lifecycle_names[l];
}

const char *index_quality_name(enum index_quality q)
{
	return quality_names[q];
}

const char *index_class_name(enum index_class c)
{
	return class_names[c];
}

/* Single-line, trimmed, non-blank, bounded, scrubbed text at path kp that
 * does not contain a marker of the generated block. */
static int check_text(const char *s, const struct jpath *kp, struct err *e)
{
	size_t n = strlen(s);

	if (n > INDEX_TEXT_MAX)
		return jpath_err(e, kp, "text is longer than %d bytes", INDEX_TEXT_MAX);
	if (str_blank(s))
		return jpath_err(e, kp, "text is blank");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return jpath_err(e, kp, "text contains a control character");
	if (s[0] == ' ' || s[n - 1] == ' ')
		return jpath_err(e, kp, "text starts or ends with a space");
	if (strstr(s, INDEX_MARK_BEGIN) || strstr(s, INDEX_MARK_END))
		return jpath_err(e, kp, "text contains a front-door marker ('%s' or '%s'); the "
					"generated block's boundaries cannot come from a row",
				 INDEX_MARK_BEGIN, INDEX_MARK_END);
	{
		struct strbuf why = STRBUF_INIT;

		if (!str_scrubbed(s, &why)) {
			jpath_err(e, kp, "text contains a private detail: %s", why.buf);
			sb_release(&why);
			return -1;
		}
	}
	return 0;
}

/* Optional or required text member; *out stays NULL when absent. */
static int get_text(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
		    const char **out, struct err *e)
{
	struct jpath kp = JP_KEY(at, key);
	const char *s;
	int rc = jd_str(obj, at, key, need, &s, e);

	if (rc)
		return rc < 0 ? -1 : 0;
	TRY(check_text(s, &kp, e));
	*out = s;
	return 0;
}

/* A member from a closed set of names ("" entries are placeholders that
 * never match); *out = its position in names. */
static int get_enum(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
		    const char *const *names, int *out, struct err *e)
{
	struct jpath kp = JP_KEY(at, key);
	struct strbuf sb = STRBUF_INIT;
	const char *s;
	int rc = jd_str(obj, at, key, need, &s, e);

	if (rc)
		return rc < 0 ? -1 : 0;
	for (int i = 0; names[i]; i++) {
		if (*names[i] && !strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	sb_adds(&sb, "expected one of ");
	for (int i = 0, first = 1; names[i]; i++) {
		if (!*names[i])
			continue;
		sb_adds(&sb, first ? "" : ", ");
		sb_add_quoted(&sb, names[i]);
		first = 0;
	}
	sb_adds(&sb, ", found ");
	sb_add_quoted(&sb, s);
	jpath_err(e, &kp, "%s", sb.buf);
	sb_release(&sb);
	return -1;
}

/* Optional date member; INDEX_NO_DATE stays when absent. */
static int get_date(const json_t *obj, const struct jpath *at, const char *key, long *out,
		    struct err *e)
{
	struct jpath kp = JP_KEY(at, key);
	const char *s;
	int rc = jd_str(obj, at, key, OPT, &s, e);

	if (rc)
		return rc < 0 ? -1 : 0;
	if (date_parse(s, out, e) < 0) {
		char why[sizeof(e->msg)];

		memcpy(why, e->msg, sizeof(why));
		return jpath_err(e, &kp, "%s", why);
	}
	return 0;
}

static int decode_page(const json_t *v, const struct jpath *at, struct index *idx, struct err *e)
{
	const json_t *notes = NULL;

	TRY(jd_object(v, at, page_keys, e));
	TRY(get_text(v, at, "title", REQ, &idx->page.title, e));
	TRY(get_text(v, at, "intro", REQ, &idx->page.intro, e));
	TRY(get_text(v, at, "subject", REQ, &idx->page.subject, e));
	TRY(jd_arr(v, at, "notes", OPT, false, &notes, e));
	if (!notes)
		return 0;
	{
		struct jpath np = JP_KEY(at, "notes");

		idx->page.nr_notes = json_array_size(notes);
		idx->page.notes = xcalloc(idx->page.nr_notes + 1, sizeof(*idx->page.notes));
		for (size_t i = 0; i < idx->page.nr_notes; i++) {
			struct jpath ip = JP_IDX(&np, i);

			TRY(jd_str_at(notes, &np, i, &idx->page.notes[i], e));
			TRY(check_text(idx->page.notes[i], &ip, e));
		}
	}
	return 0;
}

static int decode_readout(const json_t *v, const struct jpath *at, struct index_readout *r,
			  struct err *e)
{
	int cls = 0;
	int rc;

	r->observed = r->review_by = INDEX_NO_DATE;
	TRY(jd_object(v, at, readout_keys, e));
	TRY(get_enum(v, at, "class", REQ, class_names, &cls, e));
	r->cls = (enum index_class)cls;
	TRY(get_text(v, at, "graph_rung", OPT, &r->graph_rung, e));
	TRY(get_text(v, at, "envelope_id", OPT, &r->envelope_id, e));
	TRY(rc = jd_num(v, at, "native_tokens_per_second", OPT, &r->native_tps, e));
	r->has_native = rc == 0;
	TRY(rc = jd_num(v, at, "native_floor_tokens_per_second", OPT, &r->floor_tps, e));
	r->has_floor = rc == 0;
	TRY(get_text(v, at, "quality", REQ, &r->quality, e));
	TRY(get_date(v, at, "observed_on", &r->observed, e));
	TRY(get_date(v, at, "review_by", &r->review_by, e));
	if (r->review_by == INDEX_NO_DATE) {
		struct jpath kp = JP_KEY(at, "review_by");
		return jpath_err(e, &kp, "missing required field");
	}
	TRY(get_text(v, at, "provenance", OPT, &r->provenance, e));
	return get_text(v, at, "caveat", REQ, &r->caveat, e);
}

static int decode_row(const json_t *v, const struct jpath *at, enum index_table table,
		      struct index_row *r, struct err *e)
{
	bool results = table == INDEX_RESULTS;
	int lc = 0, q = 0, ar = 0;

	r->table = table;
	r->observed = r->review_by = INDEX_NO_DATE;
	TRY(jd_object(v, at, results ? result_keys : awaiting_keys, e));
	TRY(get_enum(v, at, "lifecycle", REQ, lifecycle_names, &lc, e));
	r->lifecycle = (enum index_lifecycle)lc;
	TRY(get_text(v, at, "envelope_key", REQ, &r->envelope_key, e));
	if (results) {
		TRY(get_text(v, at, "highlight", REQ, &r->highlight, e));
		TRY(get_text(v, at, "status", REQ, &r->status, e));
		TRY(get_text(v, at, "evidence", REQ, &r->evidence, e));
	} else {
		TRY(get_text(v, at, "candidate", REQ, &r->candidate, e));
		TRY(get_text(v, at, "why", REQ, &r->why, e));
		TRY(get_text(v, at, "reap_condition", REQ, &r->reap_condition, e));
	}
	TRY(get_date(v, at, "observed", &r->observed, e));
	TRY(get_date(v, at, "review_by", &r->review_by, e));
	TRY(get_text(v, at, "retention", OPT, &r->retention, e));
	TRY(get_enum(v, at, "at_review", OPT, at_review_names, &ar, e));
	r->at_review = (enum index_at_review)ar;
	TRY(get_text(v, at, "retain_reason", OPT, &r->retain_reason, e));
	TRY(get_text(v, at, "model", OPT, &r->model, e));
	TRY(get_text(v, at, "artifact", OPT, &r->artifact, e));
	TRY(get_text(v, at, "engine", OPT, &r->engine, e));
	TRY(get_text(v, at, "hardware", OPT, &r->hardware, e));
	TRY(get_text(v, at, "metric", OPT, &r->metric, e));
	TRY(get_enum(v, at, "quality", REQ, quality_names, &q, e));
	r->quality = (enum index_quality)q;
	return jd_bool(v, at, "quotes_gain", REQ, &r->quotes_gain, e) < 0 ? -1 : 0;
}

static int decode_rows(const json_t *doc, const struct jpath *root, const char *key,
		       enum index_table table, struct index *idx, struct err *e)
{
	struct jpath ap = JP_KEY(root, key);
	const json_t *arr;

	TRY(jd_arr(doc, root, key, REQ, false, &arr, e));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		struct jpath ip = JP_IDX(&ap, i);
		struct index_row *r = &idx->rows[idx->nr_rows];

		memset(r, 0, sizeof(*r));
		r->pos = i;
		TRY(decode_row(json_array_get(arr, i), &ip, table, r, e));
		idx->nr_rows++;
	}
	return 0;
}

static int decode(struct index *idx, struct err *e)
{
	const struct jpath *root = NULL;
	const json_t *doc = idx->doc, *page, *readout, *results, *awaiting;
	struct jpath rp = JP_KEY(root, "readout");

	TRY(jd_object(doc, root, top_keys, e));
	TRY(jd_str(doc, root, "schema", REQ, &idx->schema, e));
	if (strcmp(idx->schema, INDEX_SCHEMA)) {
		struct jpath kp = JP_KEY(root, "schema");
		struct strbuf sb = STRBUF_INIT;

		sb_add_quoted(&sb, idx->schema);
		jpath_err(e, &kp, "expected \"%s\", found %s", INDEX_SCHEMA, sb.buf);
		sb_release(&sb);
		return -1;
	}
	TRY(jd_obj(doc, root, "page", REQ, &page, e));
	{
		struct jpath pp = JP_KEY(root, "page");
		TRY(decode_page(page, &pp, idx, e));
	}
	TRY(jd_arr(doc, root, "readout", REQ, false, &readout, e));
	idx->readout = xcalloc(json_array_size(readout) + 1, sizeof(*idx->readout));
	for (size_t i = 0; i < json_array_size(readout); i++) {
		struct jpath ip = JP_IDX(&rp, i);

		idx->readout[i].pos = i;
		TRY(decode_readout(json_array_get(readout, i), &ip, &idx->readout[i], e));
		idx->nr_readout++;
	}
	TRY(jd_arr(doc, root, "results", REQ, false, &results, e));
	TRY(jd_arr(doc, root, "awaiting", REQ, false, &awaiting, e));
	idx->rows = xcalloc(json_array_size(results) + json_array_size(awaiting) + 1,
			    sizeof(*idx->rows));
	TRY(decode_rows(doc, root, "results", INDEX_RESULTS, idx, e));
	return decode_rows(doc, root, "awaiting", INDEX_AWAITING, idx, e);
}

int index_load_buf(struct index *idx, const char *buf, size_t len, const char *name,
		   struct err *e)
{
	memset(idx, 0, sizeof(*idx));
	if (len > INDEX_MAX_BYTES)
		return err_set(e, "index '%s' exceeds %zu bytes", name, INDEX_MAX_BYTES);
	idx->doc = json_parse_strict(buf, len, name, e);
	if (!idx->doc)
		return -1;
	if (decode(idx, e) < 0) {
		err_prefix(e, "invalid performance index '%s'", name);
		index_release(idx);
		return -1;
	}
	return 0;
}

int index_load_default(struct index *idx, struct err *e)
{
	return index_load_buf(idx, embedded_performance_index_json,
			      embedded_performance_index_json_len, "data/performance-index.json",
			      e);
}

int index_load_file(struct index *idx, const char *path, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	if (file_read(path, INDEX_MAX_BYTES, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	rc = index_load_buf(idx, sb_str(&sb), sb.len, path, e);
	sb_release(&sb);
	return rc;
}

void index_release(struct index *idx)
{
	free(idx->page.notes);
	free(idx->readout);
	free(idx->rows);
	json_decref(idx->doc);
	memset(idx, 0, sizeof(*idx));
}
