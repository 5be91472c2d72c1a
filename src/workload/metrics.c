#include "workload/metrics.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "attestation/metric.h"

static const struct metrics_parser parsers[] = {
	{ WL_PARSER_JSON, "json", false, METRICS_TAIL_BYTES },
	{ WL_PARSER_LLAMA_BENCH, "llama-bench", true, METRICS_DOC_MAX_BYTES },
	{ WL_PARSER_QUALITY, NULL, false, METRICS_TAIL_BYTES },
};

const struct metrics_parser *metrics_parser_find(const char *id)
{
	for (size_t i = 0; id && i < sizeof(parsers) / sizeof(parsers[0]); i++)
		if (!strcmp(parsers[i].id, id))
			return &parsers[i];
	return NULL;
}

const struct metrics_parser *metrics_parser_for_option(const char *option)
{
	for (size_t i = 0; option && i < sizeof(parsers) / sizeof(parsers[0]); i++)
		if (parsers[i].option && !strcmp(parsers[i].option, option))
			return &parsers[i];
	return NULL;
}

/* ---- lines ------------------------------------------------------------ */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Length of the line starting at buf[at], its trailing blanks and LF excluded. */
static size_t line_len(const char *buf, size_t len, size_t at)
{
	const char *lf = memchr(buf + at, '\n', len - at);
	size_t end = lf ? (size_t)(lf - buf) : len;

	while (end > at && blank(buf[end - 1]))
		end--;
	return end - at;
}

/* The last non-empty line of the final METRICS_TAIL_BYTES of buf, named
 * `what` in messages. A line starting at the window's first byte of a full
 * window may have begun earlier, so it is refused as too long: the same
 * verdict as for the whole stdout (see METRICS_LINE_MAX). */
static int last_line(const char *buf, size_t len, const char *what, const char **line, size_t *n,
		     struct err *e)
{
	size_t window = len < METRICS_TAIL_BYTES ? len : METRICS_TAIL_BYTES;
	const char *w = buf + (len - window);
	size_t end = window;

	for (;;) {
		size_t start = end, stop = end;

		while (start > 0 && w[start - 1] != '\n')
			start--;
		while (stop > start && blank(w[stop - 1]))
			stop--;
		if (stop > start) {
			if (start == 0 && window == METRICS_TAIL_BYTES)
				return err_set(e,
					       "%s is longer than %zu bytes (counted from its "
					       "start to the end of stdout)",
					       what, METRICS_LINE_MAX);
			*line = w + start;
			*n = stop - start;
			return 0;
		}
		if (start == 0)
			break;
		end = start - 1;
	}
	if (!len)
		return err_set(e, "stdout is empty: expected a %s", what);
	if (window == METRICS_TAIL_BYTES)
		return err_set(e, "the last %zu bytes of stdout are blank lines: expected a %s",
			       window, what);
	return err_set(e, "stdout has only blank lines: expected a %s", what);
}

#define EXCERPT_MAX 40

/* The first bytes of s in double quotes, anything but printable ASCII (and
 * the quote and backslash) as \xNN: output may be any bytes at all. */
static void add_excerpt(struct strbuf *sb, const char *s, size_t n)
{
	sb_addch(sb, '"');
	for (size_t i = 0; i < n && i < EXCERPT_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			sb_addf(sb, "\\x%02x", c);
		else
			sb_addch(sb, (char)c);
	}
	sb_addch(sb, '"');
	if (n > EXCERPT_MAX)
		sb_adds(sb, "...");
}

/* One line holding one JSON object (new reference), named `what`. */
static json_t *line_object(const char *line, size_t n, const char *what, struct err *e)
{
	const char *nul = memchr(line, '\0', n);
	size_t lead = 0;
	json_t *v;

	if (nul) {
		err_set(e, "%s holds a NUL byte (byte %zu of the line)", what,
			(size_t)(nul - line) + 1);
		return NULL;
	}
	while (lead < n && blank(line[lead]))
		lead++;
	if (lead == n || line[lead] != '{') {
		struct strbuf sb = STRBUF_INIT;

		add_excerpt(&sb, line + lead, n - lead);
		err_set(e, "%s is not a JSON object: it starts with %s", what, sb.buf);
		sb_release(&sb);
		return NULL;
	}
	v = json_parse_strict(line, n, NULL, e);
	if (!v) {
		/* one line: "line 1, column C: ..." says no more than "column C: ..." */
		if (!strncmp(e->msg, "line 1, ", 8))
			memmove(e->msg, e->msg + 8, strlen(e->msg + 8) + 1);
		err_prefix(e, "%s is not valid JSON", what);
		return NULL;
	}
	return v;	/* an object: it starts with '{' and parsed */
}

/* ---- json-line/v1 and quality-line/v1 --------------------------------- */

static int json_line(const char *buf, size_t len, struct wl_metrics *out, struct err *e)
{
	static const char *const required[] = { "tokens_per_second", "end_to_end_milliseconds",
						"quality", NULL };
	const char *line = buf;	/* set by last_line; initialized for the analyzer */
	size_t n = 0;
	json_t *v;
	int rc = 0;

	TRY(last_line(buf, len, "metrics line", &line, &n, e));
	v = line_object(line, n, "metrics line", e);
	if (!v)
		return -1;
	for (const char *const *k = required; *k && !rc; k++) {
		struct jpath kp = JP_KEY(NULL, *k);

		if (!json_object_get(v, *k))
			rc = jpath_err(e, &kp, "missing required field");
	}
	if (!rc && json_object_get(v, "derivation")) {
		struct jpath kp = JP_KEY(NULL, "derivation");

		rc = jpath_err(e, &kp, "is fak's record of how llama-bench rows were read, not a "
				       "member of a metrics line");
	}
	for (size_t k = 2; !rc && wl_identity_keys[k]; k++)
		if (json_object_get(v, wl_identity_keys[k])) {
			struct jpath kp = JP_KEY(NULL, wl_identity_keys[k]);

			rc = jpath_err(e, &kp, "is what fak reads from llama-bench's output; a "
					       "metrics line states its engine and forward_path");
		}
	if (!rc)
		rc = wl_metrics_decode(v, NULL, out, e);
	json_decref(v);
	return rc < 0 ? err_prefix(e, "metrics line") : 0;
}

static int quality_line(const char *buf, size_t len, struct wl_metrics *out, struct err *e)
{
	const char *line = buf;	/* as in json_line */
	size_t n = 0;
	const json_t *num = NULL;
	json_t *v;
	int rc;

	TRY(last_line(buf, len, "quality line", &line, &n, e));
	v = line_object(line, n, "quality line", e);
	if (!v)
		return -1;
	/* the quality object, and beside it the optional named metrics */
	rc = jd_obj(v, NULL, "numerical", JD_OPTIONAL, &num, e);
	if (rc < 0) {
		json_decref(v);
		return err_prefix(e, "quality line");
	}
	num = json_incref((json_t *)(uintptr_t)num);	/* kept while v loses it */
	json_object_del(v, "numerical");
	rc = wl_quality_decode(v, NULL, &out->quality, e);
	if (rc == 0 && num) {
		struct jpath np = JP_KEY(NULL, "numerical");

		rc = wl_numerical_decode(num, &np, out->quality.name, out, e);
	}
	json_decref((json_t *)(uintptr_t)num);
	json_decref(v);
	if (rc < 0)
		return err_prefix(e, "quality line");
	out->has_quality = true;
	return 0;
}

/* ---- llama-bench/v1 --------------------------------------------------- */

/* One result of llama-bench: the fields that select it. */
struct lb_row {
	const json_t *obj;	/* borrowed from the parsed output */
	size_t line;		/* -o jsonl: its line; -o json: 0 */
	long long n_prompt, n_gen, n_depth;
};

struct lb_rows {
	struct lb_row *v;
	size_t nr, alloc;
};

/* The path of row i in messages: [i] of the JSON array (in *slot), or the
 * root (NULL) of its JSONL line, which lb_err_at names. */
static const struct jpath *lb_path(const struct lb_row *r, size_t i, struct jpath *slot)
{
	*slot = JP_IDX(NULL, i);
	return r->line ? NULL : slot;
}

static int lb_err_at(const struct lb_row *r, struct err *e)
{
	if (r->line)
		err_prefix(e, "line %zu", r->line);
	return err_prefix(e, "llama-bench output");
}

/* A token count; absent counts as 0 where allowed (n_depth came with
 * llama-bench's -d option in 2025: older results have none, at depth 0). */
static int lb_count(const json_t *o, const struct jpath *at, const char *key, enum jd_need need,
		    long long *v, struct err *e)
{
	int rc = jd_int(o, at, key, need, v, e);

	if (rc < 0)
		return -1;
	if (rc == 1)
		*v = 0;
	if (*v < 0) {
		struct jpath kp = JP_KEY(at, key);

		return jpath_err(e, &kp, "must not be negative");
	}
	return 0;
}

static int lb_add(struct lb_rows *rows, const json_t *o, size_t line, struct err *e)
{
	struct lb_row *r;
	const struct jpath *at;
	struct jpath slot;

	ALLOC_GROW(rows->v, rows->nr + 1, rows->alloc);
	r = &rows->v[rows->nr];
	memset(r, 0, sizeof(*r));
	r->obj = o;
	r->line = line;
	at = lb_path(r, rows->nr, &slot);
	if (!json_is_object(o)) {
		jpath_err(e, at, "expected an object (one llama-bench result)");
		return lb_err_at(r, e);
	}
	if (lb_count(o, at, "n_prompt", JD_REQUIRED, &r->n_prompt, e) < 0 ||
	    lb_count(o, at, "n_gen", JD_REQUIRED, &r->n_gen, e) < 0 ||
	    lb_count(o, at, "n_depth", JD_OPTIONAL, &r->n_depth, e) < 0)
		return lb_err_at(r, e);
	rows->nr++;
	return 0;
}

/* -o json: one array (its first byte is '['), printed as a whole. */
static int lb_json(const char *buf, size_t len, json_t **hold, struct lb_rows *rows, struct err *e)
{
	*hold = json_parse_strict(buf, len, NULL, e);
	if (!*hold)
		return err_prefix(e, "llama-bench output (-o json) is not valid JSON");
	for (size_t i = 0; i < json_array_size(*hold); i++)
		TRY(lb_add(rows, json_array_get(*hold, i), 0, e));
	return 0;
}

/* -o jsonl: one object per line. */
static int lb_jsonl(const char *buf, size_t len, json_t **hold, struct lb_rows *rows, struct err *e)
{
	size_t at = 0, line = 1;

	*hold = jarr();
	while (at < len) {
		size_t n = line_len(buf, len, at);
		const char *lf = memchr(buf + at, '\n', len - at);

		if (n) {
			char what[64];
			json_t *o;

			snprintf(what, sizeof(what),
				 "line %zu of the llama-bench output (-o jsonl)", line);
			o = line_object(buf + at, n, what, e);
			if (!o)
				return -1;
			jpush_new(*hold, o);
			TRY(lb_add(rows, o, line, e));
		}
		if (!lf)
			break;
		at = (size_t)(lf - buf) + 1;
		line++;
	}
	return 0;
}

/* llama-bench's own name of a test: pp512, tg128, pp32+tg64 @ d512. */
static void lb_name(struct strbuf *sb, const struct lb_row *r)
{
	if (!r->n_gen)
		sb_addf(sb, "pp%lld", r->n_prompt);
	else if (!r->n_prompt)
		sb_addf(sb, "tg%lld", r->n_gen);
	else
		sb_addf(sb, "pp%lld+tg%lld", r->n_prompt, r->n_gen);
	if (r->n_depth)
		sb_addf(sb, " @ d%lld", r->n_depth);
}

/* The list of results in a message: as many names as fit in `room` bytes,
 * then how many more there are, so the message is never cut short. */
static void lb_list(struct strbuf *sb, const struct lb_rows *rows, size_t room)
{
	size_t i;

	sb_adds(sb, "results found: ");
	if (!rows->nr)
		sb_adds(sb, "none");
	for (i = 0; i < rows->nr; i++) {
		struct strbuf one = STRBUF_INIT;

		sb_addf(&one, "%s#%zu ", i ? ", " : "", i + 1);
		lb_name(&one, &rows->v[i]);
		/* while more follow, leave room for ", and 99999 more" */
		if (sb->len + one.len + (i + 1 < rows->nr ? 20 : 0) > room) {
			sb_release(&one);
			break;
		}
		sb_add(sb, one.buf, one.len);
		sb_release(&one);
	}
	if (i < rows->nr)
		sb_addf(sb, i ? ", and %zu more" : "%zu results", rows->nr - i);
}

/* The rows that measure the envelope's shape (P prompt and T decode tokens,
 * depth 0): one pP+tgT row, or a pP row and a tgT row, or, for P = 0, one
 * tgT row. Each must be unique. */
struct lb_pick {
	const struct lb_row *pg, *pp, *tg;
};

/* The one row of n_prompt p and n_gen g at depth 0: 1 found, 0 none, -1
 * more than one (*count says how many). */
static int lb_find(const struct lb_rows *rows, long long p, long long g, const struct lb_row **out,
		   size_t *count)
{
	*out = NULL;
	*count = 0;
	for (size_t i = 0; i < rows->nr; i++) {
		const struct lb_row *r = &rows->v[i];

		if (r->n_prompt == p && r->n_gen == g && !r->n_depth && !(*count)++)
			*out = r;
	}
	return *count > 1 ? -1 : *count == 1;
}

/* What to pick, or -1 with a message listing what there is (at most the
 * size of a sealed metrics error, ATTESTATION_TEXT_MAX, so it is never cut). */
static int lb_pick(const struct lb_rows *rows, long long prompt_tokens, long long decode_tokens,
		   struct lb_pick *pick, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n_pg = 0, n_pp = 0, n_tg = 0;
	int pg = 0, pp = 0, tg;

	memset(pick, 0, sizeof(*pick));
	tg = lb_find(rows, 0, decode_tokens, &pick->tg, &n_tg);
	if (prompt_tokens) {
		pg = lb_find(rows, prompt_tokens, decode_tokens, &pick->pg, &n_pg);
		pp = lb_find(rows, prompt_tokens, 0, &pick->pp, &n_pp);
	}
	if (pg == 1)
		return 0;	/* the exact shape, whatever else ran */
	if (pg == 0 && (!prompt_tokens || pp == 1) && tg == 1) {
		if (!prompt_tokens)
			pick->pp = NULL;
		return 0;
	}
	if (pg < 0 || pp < 0 || tg < 0) {
		const char *which = pg < 0 ? "pp+tg" : pp < 0 ? "pp" : "tg";
		size_t n = pg < 0 ? n_pg : pp < 0 ? n_pp : n_tg;

		sb_addf(&sb, "%zu llama-bench %s results of the envelope's shape at depth 0, "
			"expected one (one test of each shape per run); ", n, which);
	} else if (prompt_tokens) {
		sb_addf(&sb, "no llama-bench pp%lld+tg%lld result (-pg %lld,%lld), nor both "
			"pp%lld and tg%lld (-p %lld -n %lld), at depth 0; ", prompt_tokens,
			decode_tokens, prompt_tokens, decode_tokens, prompt_tokens, decode_tokens,
			prompt_tokens, decode_tokens);
	} else {
		sb_addf(&sb, "no llama-bench tg%lld result (-p 0 -n %lld) at depth 0; ",
			decode_tokens, decode_tokens);
	}
	lb_list(&sb, rows, ATTESTATION_TEXT_MAX - 1);
	err_set(e, "%s", sb.buf);
	sb_release(&sb);
	return -1;
}

/* avg_ns of row r (the mean time of its -r timed samples), in ns. */
static int lb_avg_ns(const struct lb_row *r, const struct lb_rows *rows, double *ns, struct err *e)
{
	struct jpath slot;
	const struct jpath *at = lb_path(r, (size_t)(r - rows->v), &slot);
	struct jpath kp = JP_KEY(at, "avg_ns");

	if (jd_num(r->obj, at, "avg_ns", JD_REQUIRED, ns, e) < 0)
		return lb_err_at(r, e);
	if (!(*ns > 0) || *ns / 1e6 > WL_MAX_MS) {
		char max_ms[JSON_NUMBER_MAX];

		json_format_double(max_ms, WL_MAX_MS);
		if (*ns > 0)
			jpath_err(e, &kp, "is more than %s ms", max_ms);
		else
			jpath_err(e, &kp, "must be positive");
		return lb_err_at(r, e);
	}
	return 0;
}

/* The measurement of the picked rows (docs/experiments.md, "llama-bench"):
 * pg: end to end is the row's avg_ns, tok/s the decode tokens over it;
 * pp+tg: decode tok/s from the tg row alone, prefill from the pp row, end
 * to end their sum; tg: the tg row is both. */
static int lb_measure(const struct lb_pick *pick, const struct lb_rows *rows,
		      long long decode_tokens, struct wl_metrics *out, struct err *e)
{
	char tps[JSON_NUMBER_MAX], lo[JSON_NUMBER_MAX], hi[JSON_NUMBER_MAX];
	double pp_ns = 0, tg_ns = 0, ns;

	if (pick->pg) {
		TRY(lb_avg_ns(pick->pg, rows, &ns, e));
		out->tokens_per_second = (double)decode_tokens * 1e9 / ns;
		snprintf(out->derivation, sizeof(out->derivation), "%s", WL_DERIVATION_PG);
	} else {
		TRY(lb_avg_ns(pick->tg, rows, &tg_ns, e));
		if (pick->pp)
			TRY(lb_avg_ns(pick->pp, rows, &pp_ns, e));
		ns = pp_ns + tg_ns;
		out->tokens_per_second = (double)decode_tokens * 1e9 / tg_ns;
		out->has_decode = true;
		out->decode_ms = tg_ns / 1e6;
		out->has_prefill = pick->pp != NULL;
		out->prefill_ms = pp_ns / 1e6;
		snprintf(out->derivation, sizeof(out->derivation), "%s",
			 pick->pp ? WL_DERIVATION_PP_TG : WL_DERIVATION_TG);
	}
	out->end_to_end_ms = ns / 1e6;
	if (out->end_to_end_ms > WL_MAX_MS || out->tokens_per_second > WL_MAX_TPS ||
	    out->tokens_per_second < WL_MIN_TPS) {
		json_format_double(tps, out->tokens_per_second);
		json_format_double(lo, WL_MIN_TPS);
		json_format_double(hi, WL_MAX_TPS);
		return err_set(e, "llama-bench output: %s tokens per second is outside [%s, %s]",
			       tps, lo, hi);
	}
	out->has_throughput = true;
	return 0;
}

/* What the run said about itself (struct wl_identity): llama-bench is
 * llama.cpp's; the measured row (the pP+tgT row, else the tgT row) names
 * its build, backends, model file and type. A model file is kept as its
 * last path element, and a value that is not scrubbed text (an account, an
 * address...), too long or not text is sealed as "scrubbed". */
static int lb_identity(const struct lb_pick *pick, const struct lb_rows *rows,
		       struct wl_identity *id, struct err *e)
{
	static const char *const from[] = { "build_commit", "backends", "model_filename",
					    "model_type" };
	char *const to[] = { id->build_commit, id->backends, id->model_file, id->model_type };
	const struct lb_row *r = pick->pg ? pick->pg : pick->tg;
	struct jpath slot;
	const struct jpath *at = lb_path(r, (size_t)(r - rows->v), &slot);

	snprintf(id->engine, sizeof(id->engine), "%s", WL_ENGINE_LLAMA_CPP);
	for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++) {
		struct strbuf why = STRBUF_INIT;
		const char *v, *slash;
		int rc = jd_str(r->obj, at, from[k], JD_OPTIONAL, &v, e);

		if (rc < 0)
			return lb_err_at(r, e);
		if (rc || str_blank(v))
			continue;
		slash = strrchr(v, '/');
		if (k == 2 && slash)
			v = slash + 1;
		if (strlen(v) >= WL_IDENTITY_MAX || !str_printable(v, "", &why) ||
		    !str_scrubbed(v, &why) || str_blank(v))
			v = "scrubbed";
		sb_release(&why);
		snprintf(to[k], WL_IDENTITY_MAX, "%s", v);
	}
	return 0;
}

/* Where stdout stops being blank; *line gets the line of that byte. */
static size_t lb_skip_blank(const char *buf, size_t len, size_t *line)
{
	size_t at = 0;

	*line = 1;
	for (; at < len && (blank(buf[at]) || buf[at] == '\n'); at++)
		*line += buf[at] == '\n';
	return at;
}

static int llama_bench(const char *buf, size_t len, long long prompt_tokens,
		       long long decode_tokens, struct wl_metrics *out, struct err *e)
{
	struct lb_rows rows = { 0 };
	struct lb_pick pick;
	json_t *hold = NULL;
	const char *nul;
	size_t at, line;
	int rc = -1;

	if (prompt_tokens < 0 || decode_tokens <= 0)
		return err_set(e, "llama-bench results are matched on a positive decode and a "
			       "non-negative prompt token count, not prompt %lld and decode %lld",
			       prompt_tokens, decode_tokens);
	if (len > METRICS_DOC_MAX_BYTES)
		return err_set(e, "llama-bench output is larger than %zu bytes",
			       METRICS_DOC_MAX_BYTES);
	nul = memchr(buf, '\0', len);
	if (nul) {
		size_t l = 1;

		for (const char *p = buf; p < nul; p++)
			l += *p == '\n';
		return err_set(e, "llama-bench output holds a NUL byte on line %zu", l);
	}
	at = lb_skip_blank(buf, len, &line);
	if (at == len)
		return err_set(e, "stdout %s: expected llama-bench -o json or -o jsonl output",
			       len ? "has only blank lines" : "is empty");
	if (buf[at] != '[' && buf[at] != '{') {
		struct strbuf sb = STRBUF_INIT;

		add_excerpt(&sb, buf + at, line_len(buf, len, at));
		err_set(e,
			"stdout is not llama-bench -o json or -o jsonl output: "
			"line %zu starts with %s",
			line, sb.buf);
		sb_release(&sb);
		return -1;
	}
	if ((buf[at] == '[' ? lb_json(buf, len, &hold, &rows, e)
			    : lb_jsonl(buf, len, &hold, &rows, e)) == 0 &&
	    lb_pick(&rows, prompt_tokens, decode_tokens, &pick, e) == 0 &&
	    lb_measure(&pick, &rows, decode_tokens, out, e) == 0)
		rc = lb_identity(&pick, &rows, &out->identity, e);
	free(rows.v);
	json_decref(hold);
	return rc;
}

/* ---- dispatch --------------------------------------------------------- */

int metrics_parse(const char *parser_id, const char *buf, size_t len, long long prompt_tokens,
		  long long decode_tokens, struct wl_metrics *out, struct err *e)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (!len)
		buf = "";	/* no arithmetic on a NULL buffer */
	if (!parser_id || !metrics_parser_find(parser_id))
		return err_set(e, "unknown metrics parser '%s'", parser_id ? parser_id : "(none)");
	if (!strcmp(parser_id, WL_PARSER_JSON))
		rc = json_line(buf, len, out, e);
	else if (!strcmp(parser_id, WL_PARSER_QUALITY))
		rc = quality_line(buf, len, out, e);
	else
		rc = llama_bench(buf, len, prompt_tokens, decode_tokens, out, e);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}
