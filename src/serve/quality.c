/* Quality prompts: the file (fak-quality-prompts/v1) and its requests, one
 * at a time through libcurl's easy interface. */
#include "serve/quality.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "serve/curl.h"

/* ---- the file ------------------------------------------------------- */

static const char *const top_keys[] = { "schema", "max_tokens", "prompts", NULL };
static const char *const prompt_keys[] = { "prompt", "prompt_token_ids", "reference", NULL };

static int text_member(const json_t *o, const struct jpath *at, const char *key, size_t cap,
		       char **out, struct err *e)
{
	struct jpath p = JP_KEY(at, key);
	const char *s;
	int rc = jd_str(o, at, key, JD_OPTIONAL, &s, e);

	if (rc != 0)
		return rc;
	if (strlen(s) > cap)
		return jpath_err(e, &p, "longer than %zu bytes", cap);
	*out = xstrdup(s);
	return 0;
}

static int token_ids(const json_t *ids, const struct jpath *p, struct trace_request *q,
		     struct err *e)
{
	size_t n = json_array_size(ids);

	if (!n)
		return jpath_err(e, p, "an empty prompt");
	if (n > QUALITY_MAX_PROMPT_TOKENS)
		return jpath_err(e, p, "more than %d tokens", QUALITY_MAX_PROMPT_TOKENS);
	q->tokens = xcalloc(n, sizeof(*q->tokens));
	q->nr_tokens = n;
	for (size_t k = 0; k < n; k++) {
		const json_t *x = json_array_get(ids, k);
		struct jpath pk = JP_IDX(p, k);

		if (!json_is_integer(x) || json_integer_value(x) < 0 ||
		    json_integer_value(x) >= TRACE_MAX_VOCAB)
			return jpath_err(e, &pk, "expected a token id (an integer in 0..%d)",
					 TRACE_MAX_VOCAB - 1);
		q->tokens[k] = (int32_t)json_integer_value(x);
	}
	return 0;
}

static int decode_prompt(const json_t *o, const struct jpath *at, struct quality_prompt *p,
			 struct err *e)
{
	const json_t *ids;
	int has_ids, has_text;

	p->q.prefix_group = -1;
	if (!json_is_object(o))
		return jpath_err(e, at, "expected an object (a prompt)");
	TRY(jd_object(o, at, prompt_keys, e));
	TRY(has_ids = jd_arr(o, at, "prompt_token_ids", JD_OPTIONAL, false, &ids, e));
	TRY(has_text = text_member(o, at, "prompt", QUALITY_MAX_TEXT_BYTES, &p->q.text, e));
	if (has_ids == has_text)
		return jpath_err(e, at, "give exactly one of prompt_token_ids and prompt");
	if (has_text == 0 && !p->q.text[0]) {
		struct jpath tp = JP_KEY(at, "prompt");

		return jpath_err(e, &tp, "an empty prompt");
	}
	if (has_ids == 0) {
		struct jpath ip = JP_KEY(at, "prompt_token_ids");

		TRY(token_ids(ids, &ip, &p->q, e));
	}
	TRY(text_member(o, at, "reference", QUALITY_MAX_REFERENCE_BYTES, &p->reference, e));
	return 0;
}

int quality_decode(const json_t *doc, struct quality_set *s, struct err *e)
{
	const struct jpath *root = NULL;
	struct jpath pp = JP_KEY(root, "prompts"), mp = JP_KEY(root, "max_tokens");
	const json_t *arr;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(doc))
		return jpath_err(e, root, "expected an object (" QUALITY_SCHEMA ")");
	TRY(jd_schema(doc, top_keys, QUALITY_SCHEMA, e));
	TRY(jd_int(doc, root, "max_tokens", JD_REQUIRED, &s->max_tokens, e));
	if (s->max_tokens < 1 || s->max_tokens > QUALITY_MAX_TOKENS)
		return jpath_err(e, &mp, "%lld is outside 1..%d", s->max_tokens,
				 QUALITY_MAX_TOKENS);
	TRY(jd_arr(doc, root, "prompts", JD_REQUIRED, false, &arr, e));
	if (!json_array_size(arr) || json_array_size(arr) > QUALITY_MAX_PROMPTS)
		return jpath_err(e, &pp, "must hold 1 to %d prompts", QUALITY_MAX_PROMPTS);
	s->nr = json_array_size(arr);
	s->p = xcalloc(s->nr, sizeof(*s->p));
	for (size_t i = 0; i < s->nr; i++) {
		struct jpath at = JP_IDX(&pp, i);

		s->p[i].q.max_tokens = s->max_tokens;
		if (decode_prompt(json_array_get(arr, i), &at, &s->p[i], e) < 0) {
			quality_release(s);
			return -1;
		}
	}
	return 0;
}

int quality_load(const char *path, struct quality_set *s, char digest[72], struct err *e)
{
	struct strbuf buf = STRBUF_INIT;
	json_t *doc = NULL;
	int rc = file_read(path, QUALITY_FILE_CAP, &buf, e);

	memset(s, 0, sizeof(*s));
	if (rc == 0 && !(doc = json_parse_strict(buf.buf, buf.len, NULL, e)))
		rc = -1;
	sb_release(&buf);
	if (rc == 0 && (rc = quality_decode(doc, s, e)) == 0 &&
	    (rc = json_digest(doc, NULL, digest, e)) < 0)
		quality_release(s);
	json_decref(doc);
	if (rc < 0)
		err_prefix(e, "'%s'", path);
	return rc;
}

long quality_missing_reference(const struct quality_set *s)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!s->p[i].reference)
			return (long)i;
	return -1;
}

json_t *quality_to_json(const struct quality_set *s, char *const *refs)
{
	json_t *doc = jobj(), *arr = jarr();

	jset_str(doc, "schema", QUALITY_SCHEMA);
	jset_int(doc, "max_tokens", s->max_tokens);
	for (size_t i = 0; i < s->nr; i++) {
		const struct quality_prompt *p = &s->p[i];
		const char *ref = refs ? refs[i] : p->reference;
		json_t *o = jobj();

		jset_new(o, p->q.text ? "prompt" : "prompt_token_ids", trace_prompt_to_json(&p->q));
		if (ref)
			jset_str(o, "reference", ref);
		jpush_new(arr, o);
	}
	jset_new(doc, "prompts", arr);
	return doc;
}

int quality_render(const struct quality_set *s, char *const *refs, struct strbuf *out,
		   char digest[72], struct err *e)
{
	json_t *doc = quality_to_json(s, refs);
	int rc = json_digest(doc, NULL, digest, e);

	if (rc == 0 && (rc = json_write_canonical(out, doc, e)) == 0)
		sb_addch(out, '\n');
	json_decref(doc);
	return rc;
}

void quality_release(struct quality_set *s)
{
	for (size_t i = 0; s->p && i < s->nr; i++) {
		free(s->p[i].q.tokens);
		free(s->p[i].q.text);
		free(s->p[i].reference);
	}
	free(s->p);
	memset(s, 0, sizeof(*s));
}

/* Whether prompt i's output is its reference. */
static bool is_match(const struct quality_set *s, char *const *out, size_t i)
{
	return out[i] && s->p[i].reference && !strcmp(out[i], s->p[i].reference);
}

size_t quality_matched(const struct quality_set *s, char *const *out)
{
	size_t m = 0;

	for (size_t i = 0; i < s->nr; i++)
		m += is_match(s, out, i);
	return m;
}

void quality_log(const struct quality_set *s, const char *digest, char *const *out,
		 struct strbuf *sb)
{
	json_t *h = jobj();

	jset_str(h, "prompts_sha256", digest);
	jset_int(h, "prompts", (long long)s->nr);
	jset_int(h, "matched", (long long)quality_matched(s, out));
	json_write_compact(sb, h);
	sb_addch(sb, '\n');
	json_decref(h);
	for (size_t i = 0; i < s->nr; i++) {
		json_t *o = jobj();

		jset_int(o, "index", (long long)i);
		jset_bool(o, "match", is_match(s, out, i));
		jset_str(o, "output", out[i]);
		json_write_compact(sb, o);
		sb_addch(sb, '\n');
		json_decref(o);
	}
}

/* ---- the requests --------------------------------------------------- */

struct answer {
	struct strbuf body;
	bool too_long;
};

static size_t keep(char *buf, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;

	if (a->body.len + size * n > QUALITY_MAX_REFERENCE_BYTES * 4) {
		a->too_long = true;
		return 0;
	}
	sb_add(&a->body, buf, size * n);
	return size * n;
}

/* choices[0].text of a completion, or NULL. */
static char *answer_text(const struct answer *a)
{
	json_t *o = json_loadb(a->body.buf ? a->body.buf : "", a->body.len,
			       JSON_REJECT_DUPLICATES, NULL);
	json_t *c = json_is_object(o) ? json_array_get(json_object_get(o, "choices"), 0) : NULL;
	json_t *t = json_is_object(c) ? json_object_get(c, "text") : NULL;
	char *s = json_is_string(t) && json_string_length(t) <= QUALITY_MAX_REFERENCE_BYTES
			  ? xstrdup(json_string_value(t)) : NULL;

	json_decref(o);
	return s;
}

/* One prompt alone on h (set up by quality_ask): its answer's text. */
static int ask_one(CURL *h, const struct serve_opts *o, const struct quality_prompt *p,
		   char **out, const char *cerr, struct err *e)
{
	struct strbuf req = STRBUF_INIT;
	struct answer a = { STRBUF_INIT, false };
	long status = 0;
	CURLcode rc;

	serve_request_body(&req, &p->q, o->model, false);
	CURL_FN.curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.buf);
	CURL_FN.curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req.len);
	CURL_FN.curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
	rc = CURL_FN.curl_easy_perform(h);
	CURL_FN.curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK)
		err_set(e, "%s", a.too_long ? "the answer is longer than 1 MiB"
			: cerr[0] ? cerr : CURL_FN.curl_easy_strerror(rc));
	else if (status != 200)
		err_set(e, "HTTP %ld: %.120s", status, a.body.buf ? a.body.buf : "");
	else if (!(*out = answer_text(&a)))
		err_set(e, "the answer is not a completion (no choices[0].text): %.120s",
			a.body.buf ? a.body.buf : "");
	sb_release(&req);
	sb_release(&a.body);
	return *out ? 0 : -1;
}

int quality_ask(const struct serve_opts *o, const struct quality_set *s, char **out,
		struct err *e)
{
	char url[2048], cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr;
	CURL *h;
	int rc = 0;

	memset(out, 0, s->nr * sizeof(*out));
	TRY(serve_endpoint(o->endpoint, url, sizeof(url), e));
	TRY(serve_curl_load(e));
	if (!(h = CURL_FN.curl_easy_init()))
		return err_set(e, "libcurl failed to start");
	hdr = CURL_FN.curl_slist_append(NULL, "Content-Type: application/json");
	serve_curl_setup(h, url, cerr);
	CURL_FN.curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	CURL_FN.curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep);
	CURL_FN.curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_ns / 1000000));
	CURL_FN.curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(o->timeout_ns / 1000000));
	for (size_t i = 0; i < s->nr && rc == 0; i++) {
		cerr[0] = '\0';
		if ((rc = ask_one(h, o, &s->p[i], &out[i], cerr, e)) < 0)
			err_prefix(e, "quality prompt %zu of %zu: POST %s", i + 1, s->nr, url);
	}
	CURL_FN.curl_easy_cleanup(h);
	CURL_FN.curl_slist_free_all(hdr);
	return rc;
}
