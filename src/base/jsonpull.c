#include "base/jsonpull.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/findings.h"
#include "base/text.h"

void jp_init(struct jpull *p, char *buf, size_t len, struct err *e)
{
	p->buf = buf;
	p->len = len;
	p->pos = 0;
	p->e = e;
	p->problems = NULL;
}

void jp_collect(struct jpull *p, struct findings *problems)
{
	p->problems = problems;
}

static void ws(struct jpull *p)
{
	while (p->pos < p->len) {
		char c = p->buf[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return;
		p->pos++;
	}
}

/* Syntax error at the current position: "line L, column C: what". */
static int syntax(struct jpull *p, const char *what)
{
	size_t line = 1, col = 1;

	for (size_t i = 0; i < p->pos && i < p->len; i++) {
		if (p->buf[i] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)p->buf[i] & 0xC0) != 0x80) {
			col++;
		}
	}
	return err_set(p->e, "line %zu, column %zu: %s", line, col, what);
}

static int peek(struct jpull *p)
{
	ws(p);
	return p->pos < p->len ? (unsigned char)p->buf[p->pos] : -1;
}

static const char *found(struct jpull *p)
{
	switch (peek(p)) {
	case '{': return "an object";
	case '[': return "an array";
	case '"': return "a string";
	case 't':
	case 'f': return "a boolean";
	case 'n': return "null";
	case -1: return "the end of the input";
	default: return "a number";
	}
}

static int expect(struct jpull *p, const struct jpath *at, char c, const char *what)
{
	if (peek(p) != c) {
		if (peek(p) == -1 || strchr("{[\"tfn-0123456789", p->buf[p->pos]))
			return jpath_err(p->e, at, "expected %s, found %s", what, found(p));
		return syntax(p, "invalid token");
	}
	p->pos++;
	return 0;
}

static int soft(struct jpull *p, bool skip_value);
static int wrong_type(struct jpull *p, const struct jpath *at, char c, const char *what);

int jp_finish(struct jpull *p)
{
	if (peek(p) != -1)
		return syntax(p, "end of input expected after the document");
	return 0;
}

/* 1 with c consumed; 0 when another value stood there and was skipped as
 * a problem (jp_collect); -1 */
static int open_container(struct jpull *p, const struct jpath *at, char c, const char *what)
{
	if (peek(p) == c) {
		p->pos++;
		return 1;
	}
	TRY(wrong_type(p, at, c, what));
	return 0;
}

int jp_object(struct jpull *p, const struct jpath *at)
{
	return open_container(p, at, '{', "an object");
}

int jp_array(struct jpull *p, const struct jpath *at)
{
	return open_container(p, at, '[', "an array");
}

int jp_next(struct jpull *p, size_t i)
{
	int c = peek(p);

	if (c == ']') {
		p->pos++;
		return 0;
	}
	if (i == 0)
		return c == -1 ? syntax(p, "value or ']' expected") : 1;
	if (c != ',')
		return syntax(p, "',' or ']' expected");
	p->pos++;
	if (peek(p) == ']')
		return syntax(p, "value expected after ','");
	return 1;
}

/* Decode the string at p->pos (which is '"') in place; *out points into buf. */
static int string_raw(struct jpull *p, const char **out)
{
	char *w, *start;

	p->pos++;
	start = w = p->buf + p->pos;
	for (;;) {
		unsigned char c;

		if (p->pos >= p->len)
			return syntax(p, "unterminated string");
		c = (unsigned char)p->buf[p->pos];
		if (c == '"') {
			p->pos++;
			*w = '\0';	/* overwrites at most the closing quote */
			*out = start;
			return 0;
		}
		if (c < 0x20)
			return syntax(p, "control character in string");
		if (c == '\\') {
			unsigned cp = 0;
			char e = p->pos + 1 < p->len ? p->buf[p->pos + 1] : '\0';

			p->pos += 2;
			switch (e) {
			case '"': *w++ = '"'; continue;
			case '\\': *w++ = '\\'; continue;
			case '/': *w++ = '/'; continue;
			case 'b': *w++ = '\b'; continue;
			case 'f': *w++ = '\f'; continue;
			case 'n': *w++ = '\n'; continue;
			case 'r': *w++ = '\r'; continue;
			case 't': *w++ = '\t'; continue;
			case 'u': break;
			default:
				p->pos -= 2;
				return syntax(p, "invalid escape in string");
			}
			for (int k = 0; k < 2; k++) {
				unsigned u = 0;

				for (int i = 0; i < 4; i++) {
					char h = p->pos < p->len ? p->buf[p->pos++] : '\0';

					u <<= 4;
					if (h >= '0' && h <= '9')
						u |= (unsigned)(h - '0');
					else if (h >= 'a' && h <= 'f')
						u |= (unsigned)(h - 'a' + 10);
					else if (h >= 'A' && h <= 'F')
						u |= (unsigned)(h - 'A' + 10);
					else
						return syntax(p, "invalid \\u escape in string");
				}
				if (k == 0) {
					cp = u;
					if (u < 0xD800 || u > 0xDFFF)
						break;
					if (u > 0xDBFF || p->pos + 1 >= p->len ||
					    p->buf[p->pos] != '\\' || p->buf[p->pos + 1] != 'u')
						return syntax(p,
							      "invalid surrogate pair in string");
					p->pos += 2;
				} else {
					if (u < 0xDC00 || u > 0xDFFF)
						return syntax(p,
							      "invalid surrogate pair in string");
					cp = 0x10000 + ((cp - 0xD800) << 10) + (u - 0xDC00);
				}
			}
			if (cp == 0)
				return syntax(p, "\\u0000 is not allowed in strings");
			/* UTF-8 output is never longer than the escape it replaces */
			if (cp < 0x80) {
				*w++ = (char)cp;
			} else if (cp < 0x800) {
				*w++ = (char)(0xC0 | (cp >> 6));
				*w++ = (char)(0x80 | (cp & 0x3F));
			} else if (cp < 0x10000) {
				*w++ = (char)(0xE0 | (cp >> 12));
				*w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
				*w++ = (char)(0x80 | (cp & 0x3F));
			} else {
				*w++ = (char)(0xF0 | (cp >> 18));
				*w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
				*w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
				*w++ = (char)(0x80 | (cp & 0x3F));
			}
			continue;
		}
		if (c < 0x80) {
			*w++ = (char)c;
			p->pos++;
		} else {
			size_t n = utf8_seq((const unsigned char *)p->buf + p->pos);

			if (!n || p->pos + n > p->len)
				return syntax(p, "invalid UTF-8 in string");
			memmove(w, p->buf + p->pos, n);
			w += n;
			p->pos += n;
		}
	}
}

int jp_string(struct jpull *p, const struct jpath *at, const char **out)
{
	if (peek(p) != '"')
		return wrong_type(p, at, '"', "a string");
	return string_raw(p, out);
}

static int key_of(struct jpull *p, size_t i, const char **key)
{
	int c = peek(p);

	if (c == '}') {
		p->pos++;
		return 0;
	}
	if (i > 0) {
		if (c != ',')
			return syntax(p, "',' or '}' expected");
		p->pos++;
		c = peek(p);
	}
	if (c != '"')
		return syntax(p, i > 0 ? "member name expected after ','"
				       : "member name or '}' expected");
	if (string_raw(p, key) < 0)
		return -1;
	if (peek(p) != ':')
		return syntax(p, "':' expected");
	p->pos++;
	return 1;
}

int jp_any_member(struct jpull *p, size_t i, const char **key)
{
	return key_of(p, i, key);
}

/* keys has an entry at index i (it is NULL-terminated) */
static bool keys_has(const char *const *keys, size_t i)
{
	for (size_t k = 0; k <= i; k++)
		if (!keys[k])
			return false;
	return true;
}

int jp_member(struct jpull *p, const struct jpath *at, const char *const *keys, uint64_t *seen,
	      size_t *idx, const char **key)
{
	/* a member skipped as a problem counts for the ',' that follows */
	for (bool skipped = false;; skipped = true) {
		int rc = key_of(p, *seen != 0 || skipped, key);
		size_t i = 0;

		if (rc <= 0)
			return rc;
		/* documents list members in the documented order: try the first
		 * key not yet seen before scanning them all */
		while (i < 64 && (*seen >> i & 1))
			i++;
		if (i >= 64 || !keys_has(keys, i) || strcmp(keys[i], *key))
			for (i = 0; keys[i]; i++)
				if (!strcmp(keys[i], *key))
					break;
		if (keys[i] && !(*seen & ((uint64_t)1 << i))) {
			*seen |= (uint64_t)1 << i;
			*idx = i;
			return 1;
		}
		{
			struct jpath kp = JP_KEY(at, *key);

			jpath_err(p->e, &kp, keys[i] ? "duplicate field" : "unknown field");
		}
		TRY(soft(p, true));
	}
}

int jp_require(struct jpull *p, const struct jpath *at, const char *const *keys, uint64_t seen,
	       uint64_t required)
{
	for (size_t i = 0; keys[i]; i++)
		if ((required & ((uint64_t)1 << i)) && !(seen & ((uint64_t)1 << i))) {
			struct jpath kp = JP_KEY(at, keys[i]);

			jpath_err(p->e, &kp, "missing required field");
			TRY(soft(p, false));
		}
	return 0;
}

/* Whether the byte at i is a decimal digit (false past the end). */
static bool digit_at(const struct jpull *p, size_t i)
{
	return i < p->len && p->buf[i] >= '0' && p->buf[i] <= '9';
}

/* The first position from i that holds no digit. */
static size_t skip_digits(const struct jpull *p, size_t i)
{
	while (digit_at(p, i))
		i++;
	return i;
}

/* Strict JSON number grammar; *is_int when no fraction or exponent. */
static int number_span(struct jpull *p, size_t *end, bool *is_int)
{
	size_t i = p->pos;
	const char *b = p->buf;

	*is_int = true;
	if (i < p->len && b[i] == '-')
		i++;
	if (i < p->len && b[i] == '0')
		i++;
	else if (digit_at(p, i))	/* 1 to 9: the 0 is above */
		i = skip_digits(p, i);
	else
		return -1;
	if (i < p->len && b[i] == '.') {
		*is_int = false;
		if (!digit_at(p, ++i))
			return -1;
		i = skip_digits(p, i);
	}
	if (i < p->len && (b[i] == 'e' || b[i] == 'E')) {
		*is_int = false;
		i++;
		if (i < p->len && (b[i] == '+' || b[i] == '-'))
			i++;
		if (!digit_at(p, i))
			return -1;
		i = skip_digits(p, i);
	}
	*end = i;
	return 0;
}

static int number(struct jpull *p, const struct jpath *at, bool want_int, long long *iv, double *dv)
{
	size_t end;
	bool is_int;
	int c = peek(p);
	char save;

	if (c != '-' && !(c >= '0' && c <= '9'))
		return wrong_type(p, at, '0', want_int ? "an integer" : "a number");
	if (number_span(p, &end, &is_int) < 0)
		return syntax(p, "invalid number");
	if (want_int && !is_int) {
		jpath_err(p->e, at, "expected an integer, found a fractional number");
		return soft(p, true);
	}
	save = p->buf[end];
	p->buf[end] = '\0';
	errno = 0;
	if (want_int)
		*iv = strtoll(p->buf + p->pos, NULL, 10);
	else
		*dv = strtod(p->buf + p->pos, NULL);
	p->buf[end] = save;
	/* subnormals and underflow to zero are representable; overflow is not */
	if (want_int ? errno == ERANGE : !isfinite(*dv))
		return syntax(p, want_int ? "integer out of range" : "number out of range");
	p->pos = end;
	return 0;
}

int jp_int(struct jpull *p, const struct jpath *at, long long *out)
{
	return number(p, at, true, out, NULL);
}

int jp_num(struct jpull *p, const struct jpath *at, double *out)
{
	return number(p, at, false, NULL, out);
}

static int word(struct jpull *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->pos >= n && !memcmp(p->buf + p->pos, w, n)) {
		p->pos += n;
		return 1;
	}
	return 0;
}

int jp_bool(struct jpull *p, const struct jpath *at, bool *out)
{
	int c = peek(p);

	if (c == 't' && word(p, "true")) {
		*out = true;
		return 0;
	}
	if (c == 'f' && word(p, "false")) {
		*out = false;
		return 0;
	}
	if (c == 't' || c == 'f')
		return syntax(p, "invalid token");
	return wrong_type(p, at, 't', "a boolean");
}

int jp_null(struct jpull *p)
{
	return peek(p) == 'n' && word(p, "null");
}

/* Skips the next value, checking its syntax only. */
static int skip(struct jpull *p, int depth)
{
	const char *s;
	size_t end;
	bool is_int;
	int rc;

	if (depth > 512)
		return syntax(p, "values nested more than 512 deep");
	switch (peek(p)) {
	case '{':
		p->pos++;
		for (size_t i = 0; (rc = key_of(p, i, &s)) > 0; i++)
			TRY(skip(p, depth + 1));
		return rc;
	case '[':
		p->pos++;
		for (size_t i = 0; (rc = jp_next(p, i)) > 0; i++)
			TRY(skip(p, depth + 1));
		return rc;
	case '"':
		return string_raw(p, &s);
	case 't':
		return word(p, "true") ? 0 : syntax(p, "invalid token");
	case 'f':
		return word(p, "false") ? 0 : syntax(p, "invalid token");
	case 'n':
		return word(p, "null") ? 0 : syntax(p, "invalid token");
	default:
		if (number_span(p, &end, &is_int) < 0)
			return syntax(p, "invalid number");
		p->pos = end;
		return 0;
	}
}

/* The problem in p->e: fails without jp_collect, else goes to the list,
 * and the value it is about is skipped when skip_value says so. */
static int soft(struct jpull *p, bool skip_value)
{
	if (!p->problems || p->problems->nr >= JP_MAX_PROBLEMS)
		return -1;	/* the one (or the last) problem, in p->e */
	findings_addf(p->problems, "%s", p->e->msg);
	p->e->msg[0] = '\0';
	return skip_value ? skip(p, 0) : 0;
}

/* The next value is not of the type wanted: a problem of the schema when a
 * value starts there, else a syntax error. */
static int wrong_type(struct jpull *p, const struct jpath *at, char c, const char *what)
{
	int n = peek(p);

	if (n == -1 || !strchr("{[\"tfn-0123456789", n))
		return expect(p, at, c, what);
	jpath_err(p->e, at, "expected %s, found %s", what, found(p));
	return soft(p, true);
}
