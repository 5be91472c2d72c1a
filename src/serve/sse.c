/* The event-stream parser and the completion chunk reader. */
#include "serve/sse.h"

#include <stdio.h>
#include <string.h>

#include "base/json.h"

static int field(struct sse *s, struct err *e)
{
	const char *l = s->line.buf ? s->line.buf : "";
	size_t n = s->line.len, name_len;
	const char *colon = memchr(l, ':', n), *v;

	if (!n || colon == l)	/* blank line or comment: handled by the caller */
		return 0;
	name_len = colon ? (size_t)(colon - l) : n;
	if (name_len != 4 || memcmp(l, "data", 4))
		return 0;	/* event, id, retry and unknown fields carry nothing we need */
	v = colon ? colon + 1 : l + n;
	if (v < l + n && *v == ' ')
		v++;
	if (s->has_data)
		sb_addch(&s->data, '\n');
	if (s->data.len + (size_t)(l + n - v) > SSE_EVENT_MAX) {
		s->failed = true;
		return err_set(e, "an event's data passes %zu bytes", SSE_EVENT_MAX);
	}
	sb_add(&s->data, v, (size_t)(l + n - v));
	s->has_data = true;
	return 0;
}

/* A line ended: a field, or at a blank line the event. */
static int end_line(struct sse *s, sse_event_fn fn, void *ctx, struct err *e)
{
	int rc = 0;

	if (s->line.len) {
		TRY(field(s, e));
	} else if (s->has_data) {
		s->events++;
		rc = fn(ctx, sb_str(&s->data), s->data.len);
		sb_reset(&s->data);
		s->has_data = false;
	}
	sb_reset(&s->line);
	return rc;
}

int sse_feed(struct sse *s, const char *buf, size_t len, sse_event_fn fn, void *ctx,
	     struct err *e)
{
	size_t i = 0;
	int rc;

	if (s->failed)
		return err_set(e, "the event stream failed earlier");
	while (i < len) {
		const char *nl;
		size_t run;

		if (s->after_cr) {
			s->after_cr = false;
			if (buf[i] == '\n') {
				i++;
				continue;
			}
		}
		/* the longest run without a line end */
		for (nl = buf + i; nl < buf + len && *nl != '\n' && *nl != '\r'; nl++)
			;
		run = (size_t)(nl - (buf + i));
		if (s->line.len + run > SSE_EVENT_MAX) {
			s->failed = true;
			return err_set(e, "a line of the event stream passes %zu bytes",
				       SSE_EVENT_MAX);
		}
		sb_add(&s->line, buf + i, run);
		i += run;
		if (i == len)
			break;
		s->after_cr = buf[i] == '\r';
		i++;
		if ((rc = end_line(s, fn, ctx, e)))
			return rc;
	}
	return 0;
}

bool sse_pending(const struct sse *s)
{
	return s->line.len || s->has_data;
}

void sse_reset(struct sse *s)
{
	sb_reset(&s->line);
	sb_reset(&s->data);
	s->has_data = s->after_cr = s->failed = false;
	s->events = 0;
}

void sse_release(struct sse *s)
{
	sb_release(&s->line);
	sb_release(&s->data);
	memset(s, 0, sizeof(*s));
}

static long long opt_count(const json_t *o, const char *key)
{
	const json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_integer(v) && json_integer_value(v) >= 0 ? (long long)json_integer_value(v)
								 : -1;
}

/* ---- the fast path: the chunk read in place ---------------------------
 *
 * One pass over the bytes that validates them as jansson would (the subset
 * below) and keeps the few members a chunk is read for, with no tree and no
 * allocation. Anything outside the subset, or any chunk the full read would
 * reject, gives up: the full read (jansson) then decides. The subset: objects
 * of at most FAST_KEYS members whose names have no escape (so that comparing
 * bytes is comparing names: duplicates are rejected like JSON_REJECT_DUPLICATES),
 * strings of well-formed UTF-8 with escapes but \u0000 and unpaired
 * surrogates, integers of at most 18 digits, reals with exponents of at most
 * two digits and at most 100 integer digits (no overflow), nesting to
 * FAST_DEPTH. */

#define FAST_KEYS 32
#define FAST_DEPTH 32

/* What a value is to the chunk: where it sits decides what is kept. */
enum fast_role {
	FR_NONE, FR_TOP, FR_CHOICES, FR_CHOICE0, FR_USAGE, FR_DETAILS, FR_TIMINGS,
	FR_FINISH, FR_COMPLETION, FR_PROMPT, FR_CACHED, FR_CACHE_N, FR_ERROR, FR_COUNT
};

/* a kept value's type: 0 absent, else one of these */
enum fast_type { FT_ABSENT, FT_OBJECT, FT_ARRAY, FT_STRING, FT_INT, FT_NULL, FT_OTHER };

struct fast {
	const char *p, *end;
	unsigned char type[FR_COUNT];
	long long num[FR_COUNT];
	size_t choices;		/* elements of the choices array */
};

/* The member names a parent role keeps, and the role each gets. */
static const struct fast_member {
	enum fast_role parent, role;
	const char *name;
} fast_members[] = {
	{ FR_TOP, FR_CHOICES, "choices" },
	{ FR_TOP, FR_USAGE, "usage" },
	{ FR_TOP, FR_TIMINGS, "timings" },
	{ FR_TOP, FR_ERROR, "error" },
	{ FR_CHOICE0, FR_FINISH, "finish_reason" },
	{ FR_USAGE, FR_COMPLETION, "completion_tokens" },
	{ FR_USAGE, FR_PROMPT, "prompt_tokens" },
	{ FR_USAGE, FR_DETAILS, "prompt_tokens_details" },
	{ FR_DETAILS, FR_CACHED, "cached_tokens" },
	{ FR_TIMINGS, FR_CACHE_N, "cache_n" },
};

static enum fast_role member_role(enum fast_role parent, const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(fast_members) / sizeof(fast_members[0]); i++)
		if (fast_members[i].parent == parent && strlen(fast_members[i].name) == len &&
		    !memcmp(fast_members[i].name, name, len))
			return fast_members[i].role;
	return FR_NONE;
}

static void fast_ws(struct fast *f)
{
	while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' ||
				 *f->p == '\r'))
		f->p++;
}

static int hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i], d = c >= '0' && c <= '9' ? c - '0'
					 : c >= 'a' && c <= 'f' ? c - 'a' + 10
					 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* An escape after its backslash: its length, 0 to give up. */
static size_t fast_escape(const char *p, const char *end)
{
	int u, lo;

	if (p >= end)
		return 0;
	if (*p && strchr("\"\\/bfnrt", *p))
		return 1;
	if (*p != 'u' || end - p < 5 || (u = hex4(p + 1)) <= 0)
		return 0;	/* \u0000 and bad escapes: the full read decides */
	if (u < 0xD800 || u > 0xDFFF)
		return 5;
	if (u > 0xDBFF || end - p < 11 || p[5] != '\\' || p[6] != 'u')
		return 0;
	lo = hex4(p + 7);
	return lo >= 0xDC00 && lo <= 0xDFFF ? 11 : 0;
}

/* A UTF-8 sequence of more than one byte: its length, 0 if not well formed
 * (overlong, a surrogate, past U+10FFFF, cut). */
static size_t fast_utf8(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], v;
	size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
		 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;

	if (!n || (size_t)(end - p) < n)
		return 0;
	v = c & (0x3F >> (n - 1));
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3Fu);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10FFFF ||
	    (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	return n;
}

/* A string from its opening quote; *name and *len its raw bytes; 0 or -1. */
static int fast_string(struct fast *f, const char **name, size_t *len, bool *escaped)
{
	const char *s = ++f->p;

	*escaped = false;
	while (f->p < f->end && *f->p != '"') {
		unsigned char c = (unsigned char)*f->p;
		size_t n = 1;

		if (c == '\\') {
			*escaped = true;
			n = fast_escape(f->p + 1, f->end);
			n = n ? n + 1 : 0;
		} else if (c >= 0x80) {
			n = fast_utf8((const unsigned char *)f->p, (const unsigned char *)f->end);
		} else if (c < 0x20) {
			n = 0;
		}
		if (!n)
			return -1;
		f->p += n;
	}
	if (f->p >= f->end)
		return -1;
	*name = s;
	*len = (size_t)(f->p++ - s);
	return 0;
}

static size_t fast_digits(struct fast *f)
{
	const char *s = f->p;

	while (f->p < f->end && *f->p >= '0' && *f->p <= '9')
		f->p++;
	return (size_t)(f->p - s);
}

/* A number: an integer kept in *v (FT_INT) or a real (FT_OTHER); -1 to give
 * up. */
static int fast_number(struct fast *f, long long *v, enum fast_type *t)
{
	const char *s = f->p;
	bool neg = f->p < f->end && *f->p == '-';
	size_t n;

	f->p += neg;
	n = fast_digits(f);
	if (!n || (n > 1 && s[neg] == '0'))
		return -1;
	*t = FT_INT;
	if (f->p < f->end && *f->p == '.') {
		f->p++;
		if (!fast_digits(f) || n > 100)
			return -1;
		*t = FT_OTHER;
	}
	if (f->p < f->end && (*f->p == 'e' || *f->p == 'E')) {
		size_t exp;

		f->p++;
		f->p += f->p < f->end && (*f->p == '+' || *f->p == '-');
		exp = fast_digits(f);
		if (!exp || exp > 2 || n > 100)
			return -1;
		*t = FT_OTHER;
	}
	if (*t == FT_INT) {
		if (n > 18)
			return -1;
		*v = 0;
		for (size_t i = 0; i < n; i++)
			*v = *v * 10 + (s[neg + i] - '0');
		*v = neg ? -*v : *v;
	}
	return 0;
}

static int fast_value(struct fast *f, enum fast_role role, int depth);

/* Past the punctuation at the end of a member or an element: 1 for ',' (one
 * more), 0 for close, -1 for anything else. */
static int fast_next(struct fast *f, char close)
{
	fast_ws(f);
	if (f->p < f->end && (*f->p == ',' || *f->p == close)) {
		bool more = *f->p++ == ',';

		fast_ws(f);
		return more;
	}
	return -1;
}

/* Past an opening bracket: true when close follows at once (empty). */
static bool fast_open(struct fast *f, char close)
{
	f->p++;
	fast_ws(f);
	if (f->p < f->end && *f->p == close) {
		f->p++;
		return true;
	}
	return false;
}

/* An object from its '{': its members, their names all different. */
static int fast_object(struct fast *f, enum fast_role role, int depth)
{
	const char *key[FAST_KEYS];
	size_t klen[FAST_KEYS], nr = 0;
	int more = 1;

	if (fast_open(f, '}'))
		return 0;
	while (more > 0) {
		const char *k;
		size_t kl;
		bool esc;

		if (f->p >= f->end || *f->p != '"' || nr == FAST_KEYS ||
		    fast_string(f, &k, &kl, &esc) < 0 || esc)
			return -1;
		for (size_t i = 0; i < nr; i++)
			if (klen[i] == kl && !memcmp(key[i], k, kl))
				return -1;	/* a duplicate: jansson refuses it */
		key[nr] = k;
		klen[nr++] = kl;
		fast_ws(f);
		if (f->p >= f->end || *f->p++ != ':')
			return -1;
		fast_ws(f);
		if (fast_value(f, member_role(role, k, kl), depth + 1) < 0)
			return -1;
		more = fast_next(f, '}');
	}
	return more;
}

/* An array from its '[': of choices, the first element is the choice. */
static int fast_array(struct fast *f, enum fast_role role, int depth)
{
	size_t n = 0;
	int more = 1;

	if (fast_open(f, ']'))
		return 0;
	while (more > 0) {
		if (fast_value(f, role == FR_CHOICES && !n ? FR_CHOICE0 : FR_NONE, depth + 1) < 0)
			return -1;
		n++;
		more = fast_next(f, ']');
	}
	if (role == FR_CHOICES)
		f->choices = n;
	return more;
}

static int fast_word(struct fast *f, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(f->end - f->p) < n || memcmp(f->p, w, n))
		return -1;
	f->p += n;
	return 0;
}

static int fast_value(struct fast *f, enum fast_role role, int depth)
{
	enum fast_type t = FT_OTHER;
	long long v = -1;
	const char *s;
	size_t n;
	bool esc;
	int rc;

	if (depth > FAST_DEPTH || f->p >= f->end)
		return -1;
	switch (*f->p) {
	case '{':
		t = FT_OBJECT;
		rc = fast_object(f, role, depth);
		break;
	case '[':
		t = FT_ARRAY;
		rc = fast_array(f, role, depth);
		break;
	case '"':
		t = FT_STRING;
		rc = fast_string(f, &s, &n, &esc);
		break;
	case 't':
		rc = fast_word(f, "true");
		break;
	case 'f':
		rc = fast_word(f, "false");
		break;
	case 'n':
		t = FT_NULL;
		rc = fast_word(f, "null");
		break;
	default:
		rc = fast_number(f, &v, &t);
		break;
	}
	f->type[role] = (unsigned char)t;
	f->num[role] = v;
	return rc;
}

static void chunk_init(struct sse_chunk *c)
{
	memset(c, 0, sizeof(*c));
	c->completion_tokens = c->prompt_tokens = c->cached_tokens = -1;
}

/* A kept count: a non-negative integer, else -1 (opt_count's rule). */
static long long fast_count(const struct fast *f, enum fast_role role)
{
	return f->type[role] == FT_INT && f->num[role] >= 0 ? f->num[role] : -1;
}

/* The chunk from what the pass kept; 0 where the full read would fail or
 * has more to say (an error member). */
static int fast_chunk(const struct fast *f, struct sse_chunk *c)
{
	unsigned ch = f->type[FR_CHOICES], us = f->type[FR_USAGE], ti = f->type[FR_TIMINGS];

	if (f->type[FR_ERROR] || (ch && ch != FT_ARRAY) ||
	    (us && us != FT_OBJECT && us != FT_NULL) || (ti && ti != FT_OBJECT))
		return 0;
	if (f->choices) {
		if (f->type[FR_CHOICE0] != FT_OBJECT)
			return 0;
		c->finished = f->type[FR_FINISH] == FT_STRING;
		c->kind = SSE_CHUNK_TEXT;
	} else if (us == FT_OBJECT || ti) {
		c->kind = SSE_CHUNK_USAGE;
	} else {
		return 0;
	}
	if (us == FT_OBJECT) {
		c->completion_tokens = fast_count(f, FR_COMPLETION);
		c->prompt_tokens = fast_count(f, FR_PROMPT);
		if (f->type[FR_DETAILS] == FT_OBJECT)
			c->cached_tokens = fast_count(f, FR_CACHED);
	}
	if (ti && c->cached_tokens < 0)
		c->cached_tokens = fast_count(f, FR_CACHE_N);
	return 1;
}

int sse_chunk_fast(const char *data, size_t len, struct sse_chunk *c)
{
	struct fast f = { .p = data, .end = data + len };

	chunk_init(c);
	fast_ws(&f);
	if (f.p >= f.end || *f.p != '{' || fast_value(&f, FR_TOP, 0) < 0)
		return 0;
	fast_ws(&f);
	return f.p == f.end && fast_chunk(&f, c);
}

int sse_chunk_parse(const char *data, size_t len, struct sse_chunk *c, struct err *e)
{
	return sse_chunk_fast(data, len, c) ? 0 : sse_chunk_parse_full(data, len, c, e);
}

int sse_chunk_parse_full(const char *data, size_t len, struct sse_chunk *c, struct err *e)
{
	const json_t *choices, *usage, *timings, *error, *details;
	json_t *doc;

	chunk_init(c);
	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		c->kind = SSE_CHUNK_DONE;
		return 0;
	}
	doc = json_parse_strict(data, len, "chunk", e);
	if (!doc)
		return -1;
	if (!json_is_object(doc)) {
		json_decref(doc);
		return err_set(e, "chunk: expected a JSON object");
	}
	choices = json_object_get(doc, "choices");
	usage = json_object_get(doc, "usage");
	timings = json_object_get(doc, "timings");
	error = json_object_get(doc, "error");
	if (error) {
		const json_t *msg = json_is_object(error) ? json_object_get(error, "message")
							  : error;

		c->kind = SSE_CHUNK_ERROR;
		snprintf(c->error, sizeof(c->error), "%s",
			 json_is_string(msg) ? json_string_value(msg) : "(no message)");
		json_decref(doc);
		return 0;
	}
	if ((choices && !json_is_array(choices)) || (usage && !json_is_object(usage) &&
						      !json_is_null(usage)) ||
	    (timings && !json_is_object(timings))) {
		json_decref(doc);
		return err_set(e, "chunk: choices must be an array, usage and timings objects");
	}
	if (json_is_array(choices) && json_array_size(choices)) {
		const json_t *ch = json_array_get(choices, 0), *fr;

		if (!json_is_object(ch)) {
			json_decref(doc);
			return err_set(e, "chunk: choices[0] must be an object");
		}
		fr = json_object_get(ch, "finish_reason");
		c->finished = json_is_string(fr);
		c->kind = SSE_CHUNK_TEXT;
	} else if (json_is_object(usage) || timings) {
		c->kind = SSE_CHUNK_USAGE;
	} else {
		json_decref(doc);
		return err_set(e, "chunk: neither choices nor usage (not an OpenAI completion "
			       "chunk)");
	}
	if (json_is_object(usage)) {
		c->completion_tokens = opt_count(usage, "completion_tokens");
		c->prompt_tokens = opt_count(usage, "prompt_tokens");
		details = json_object_get(usage, "prompt_tokens_details");
		if (json_is_object(details))
			c->cached_tokens = opt_count(details, "cached_tokens");
	}
	if (timings && c->cached_tokens < 0)
		c->cached_tokens = opt_count(timings, "cache_n");
	json_decref(doc);
	return 0;
}
