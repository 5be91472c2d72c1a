#include "base/json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"
#include "base/text.h"
#include "base/xalloc.h"

bool json_same(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_is_object(a) && json_is_object(b)) {
		const char *k;
		json_t *v;

		if (json_object_size(a) != json_object_size(b))
			return false;
		/* jansson iterates only non-const objects; nothing is modified */
		json_object_foreach ((json_t *)(uintptr_t)a, k, v)
			if (!json_same(v, json_object_get(b, k)))
				return false;
		return true;
	}
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!json_same(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	return json_equal(a, b);
}

/* ---- parsing -------------------------------------------------------- */

json_t *json_parse_strict(const char *buf, size_t len, const char *what, struct err *e)
{
	json_error_t je;
	json_t *v = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);

	if (!v) {
		if (what)
			err_set(e, "%s: line %d, column %d: %s", what, je.line, je.column, je.text);
		else
			err_set(e, "line %d, column %d: %s", je.line, je.column, je.text);
		return NULL;
	}
	return v;
}

/* ---- numbers -------------------------------------------------------- */

void json_format_double(char *buf, double d)
{
	char tmp[40], digits[24];
	int prec, k = 0, n, e10;
	const char *p;
	char *q = buf;

	if (!isfinite(d))
		BUG("non-finite number reached the JSON writer");
	if (d == 0) {
		strcpy(buf, "0");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	p = tmp;
	if (*p == '-')
		*q++ = *p++;
	for (; *p != 'e'; p++)
		if (*p != '.')
			digits[k++] = *p;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	e10 = atoi(p + 1);
	n = e10 + 1;	/* value = 0.digits * 10^n */
	if (k <= n && n <= 21) {
		q += sprintf(q, "%s", digits);
		for (int i = 0; i < n - k; i++)
			*q++ = '0';
		*q = '\0';
	} else if (0 < n && n <= 21) {
		sprintf(q, "%.*s.%s", n, digits, digits + n);
	} else if (-6 < n && n <= 0) {
		q += sprintf(q, "0.");
		for (int i = 0; i < -n; i++)
			*q++ = '0';
		sprintf(q, "%s", digits);
	} else {
		if (k == 1)
			sprintf(q, "%ce%c%d", digits[0], n - 1 < 0 ? '-' : '+', abs(n - 1));
		else
			sprintf(q, "%c.%se%c%d", digits[0], digits + 1, n - 1 < 0 ? '-' : '+',
				abs(n - 1));
	}
}

/* ---- strings -------------------------------------------------------- */

/* A JSON string. RFC 8785 (canonical) escapes only C0; the documents fak
 * shows (all) escape DEL and C1 too, which the canonical form must keep
 * raw. */
static void write_string(struct strbuf *out, const char *s, size_t len, bool all)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;

	sb_addch(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];

		if (c == '"')
			esc = "\\\"";
		else if (c == '\\')
			esc = "\\\\";
		else if (c == '\n')
			esc = "\\n";
		else if (c == '\r')
			esc = "\\r";
		else if (c == '\t')
			esc = "\\t";
		else if (c == '\b')
			esc = "\\b";
		else if (c == '\f')
			esc = "\\f";
		else if (c < 0x20 || (all && c == 0x7f) ||
			 (all && c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
			  (unsigned char)s[i + 1] < 0xa0)) {
			/* C0, DEL and C1 (U+0080..U+009F, two bytes in UTF-8)
			 * escaped: none reaches a terminal that shows the file */
			unsigned cp = c == 0xc2 ? (unsigned char)s[i + 1] : c;

			memcpy(u, "\\u00", 4);
			u[4] = hex[cp >> 4];
			u[5] = hex[cp & 15];
			u[6] = '\0';
			esc = u;
		}
		if (!esc)
			continue;
		sb_add(out, s + run, i - run);
		sb_adds(out, esc);
		i += c == 0xc2;
		run = i + 1;
	}
	sb_add(out, s + run, len - run);
	sb_addch(out, '"');
}

/* ---- writer --------------------------------------------------------- */

static void indent(struct strbuf *out, int depth)
{
	sb_addch(out, '\n');
	for (int i = 0; i < depth; i++)
		sb_add(out, "  ", 2);
}

void json_write_int(struct strbuf *out, long long v)
{
	char digits[24], *p = digits + sizeof(digits);
	/* the magnitude as unsigned: -LLONG_MIN does not fit a long long */
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	sb_add(out, p, (size_t)(digits + sizeof(digits) - p));
}

void json_write_str(struct strbuf *out, const char *s)
{
	write_string(out, s, strlen(s), true);
}

static void write_number(struct strbuf *out, const json_t *v)
{
	char num[JSON_NUMBER_MAX];

	if (json_is_integer(v)) {
		json_write_int(out, (long long)json_integer_value(v));
		return;
	}
	json_format_double(num, json_real_value(v));
	sb_adds(out, num);
}

/* pretty: depth >= 0 indents; compact: depth < 0 */
static void write_value(struct strbuf *out, const json_t *v, int depth)
{
	int pretty = depth >= 0;

	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *m;
		int first = 1;

		if (json_object_size(v) == 0) {
			sb_add(out, "{}", 2);
			return;
		}
		sb_addch(out, '{');
		/* jansson keeps insertion order */
		json_object_foreach((json_t *)(uintptr_t)v, key, m) {
			if (!first)
				sb_addch(out, ',');
			first = 0;
			if (pretty)
				indent(out, depth + 1);
			write_string(out, key, strlen(key), true);
			sb_adds(out, pretty ? ": " : ":");
			write_value(out, m, pretty ? depth + 1 : -1);
		}
		if (pretty)
			indent(out, depth);
		sb_addch(out, '}');
		return;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);

		if (n == 0) {
			sb_add(out, "[]", 2);
			return;
		}
		sb_addch(out, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				sb_addch(out, ',');
			if (pretty)
				indent(out, depth + 1);
			write_value(out, json_array_get(v, i), pretty ? depth + 1 : -1);
		}
		if (pretty)
			indent(out, depth);
		sb_addch(out, ']');
		return;
	}
	case JSON_STRING:
		write_string(out, json_string_value(v), json_string_length(v), true);
		return;
	case JSON_INTEGER:
	case JSON_REAL:
		write_number(out, v);
		return;
	case JSON_TRUE:
		sb_add(out, "true", 4);
		return;
	case JSON_FALSE:
		sb_add(out, "false", 5);
		return;
	case JSON_NULL:
		sb_add(out, "null", 4);
		return;
	}
	BUG("unknown JSON type");
}

void json_write_pretty(struct strbuf *out, const json_t *v)
{
	write_value(out, v, 0);
	sb_addch(out, '\n');
}

void json_write_compact(struct strbuf *out, const json_t *v)
{
	write_value(out, v, -1);
}

/* ---- RFC 8785 ------------------------------------------------------- */

/* Next UTF-16 code unit of a valid UTF-8 string; *pend holds a pending low
 * surrogate. Returns 0 at the end. */
static unsigned next_unit(const unsigned char **s, unsigned *pend)
{
	unsigned cp;
	const unsigned char *p = *s;

	if (*pend) {
		unsigned u = *pend;
		*pend = 0;
		return u;
	}
	if (!*p)
		return 0;
	if (p[0] < 0x80) {
		cp = p[0];
		p += 1;
	} else if (p[0] < 0xE0) {
		cp = ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
		p += 2;
	} else if (p[0] < 0xF0) {
		cp = ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
		p += 3;
	} else {
		cp = ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) |
		     (p[3] & 0x3Fu);
		p += 4;
	}
	*s = p;
	if (cp < 0x10000)
		return cp;
	cp -= 0x10000;
	*pend = 0xDC00 + (cp & 0x3FF);
	return 0xD800 + (cp >> 10);
}

static int utf16_cmp(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;
	unsigned px = 0, py = 0;

	for (;;) {
		unsigned ux = next_unit(&x, &px), uy = next_unit(&y, &py);

		if (ux != uy)
			return ux < uy ? -1 : 1;
		if (!ux)
			return 0;
	}
}

static int write_canonical(struct strbuf *out, const json_t *v, struct err *e)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		size_t n = json_object_size(v), i = 0;
		const char **keys = xmalloc(xmul(n, sizeof(*keys)));
		const char *key;
		json_t *m;
		int rc = 0;

		json_object_foreach((json_t *)(uintptr_t)v, key, m)
			keys[i++] = key;
		qsort(keys, n, sizeof(*keys), utf16_cmp);
		sb_addch(out, '{');
		for (i = 0; i < n && rc == 0; i++) {
			if (i)
				sb_addch(out, ',');
			write_string(out, keys[i], strlen(keys[i]), false);
			sb_addch(out, ':');
			rc = write_canonical(out, json_object_get(v, keys[i]), e);
		}
		sb_addch(out, '}');
		free(keys);
		return rc;
	}
	case JSON_ARRAY:
		sb_addch(out, '[');
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (i)
				sb_addch(out, ',');
			if (write_canonical(out, json_array_get(v, i), e) < 0)
				return -1;
		}
		sb_addch(out, ']');
		return 0;
	case JSON_INTEGER: {
		json_int_t x = json_integer_value(v);

		if (x > (1LL << 53) || x < -(1LL << 53))
			return err_set(e, "integer %lld has no exact canonical form", (long long)x);
		/* What json_format_double gives (double)x, without its trials:
		 * within 2^53 every integer is exact and its neighbours are at
		 * most 1 away, so no decimal of fewer significant digits reads
		 * back as x, and below 10^21 the form is the plain integer. */
		json_write_int(out, (long long)x);
		return 0;
	}
	case JSON_STRING:
		write_string(out, json_string_value(v), json_string_length(v), false);
		return 0;
	default:
		write_value(out, v, -1);
		return 0;
	}
}

int json_write_canonical(struct strbuf *out, const json_t *v, struct err *e)
{
	return write_canonical(out, v, e);
}

int json_digest(const json_t *v, const char *omit, char out[JSON_DIGEST_LEN + 1], struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *copy = NULL;
	int rc;

	if (omit && json_is_object(v) && json_object_get(v, omit)) {
		copy = json_copy((json_t *)(uintptr_t)v);	/* shallow: members shared */
		if (!copy)
			BUG("out of memory copying JSON");
		json_object_del(copy, omit);
		v = copy;
	}
	rc = json_write_canonical(&sb, v, e);
	if (rc == 0) {
		strcpy(out, "sha256:");
		sha256_hex(sb.buf, sb.len, out + 7);
	}
	json_decref(copy);
	sb_release(&sb);
	return rc;
}

/* ---- paths and typed decoding --------------------------------------- */

static void jpath_rec(const struct jpath *p, struct strbuf *out)
{
	if (!p)
		return;
	jpath_rec(p->up, out);
	if (p->key) {
		if (out->len)
			sb_addch(out, '.');
		sb_adds(out, p->key);
	} else {
		sb_addf(out, "[%zu]", p->idx);
	}
}

void jpath_format(const struct jpath *p, struct strbuf *out)
{
	size_t start = out->len;

	jpath_rec(p, out);
	if (out->len == start)
		sb_addch(out, '$');
}

int jpath_err(struct err *e, const struct jpath *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	jpath_format(p, &sb);
	err_set(e, "%s: %s", sb.buf, what);
	sb_release(&sb);
	return -1;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a fractional number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* The i-th name of a list whose entries are `stride` bytes apart. */
static const char *name_at(const char *const *names, size_t stride, size_t i)
{
	return *(const char *const *)(const void *)((const char *)names + i * stride);
}

int jd_object_names(const json_t *v, const struct jpath *at, const char *const *names,
		    size_t stride, struct err *e)
{
	const char *key;
	json_t *m;
	size_t pos = 0, nknown = 0;

	while (name_at(names, stride, nknown))
		nknown++;

	if (!json_is_object(v))
		return jpath_err(e, at, "expected an object, found %s", type_name(v));
	json_object_foreach((json_t *)(uintptr_t)v, key, m) {
		size_t k = 0;

		(void)m;
		/* documents usually list keys in the documented order: try the
		 * expected position first, then scan */
		if (pos < nknown && !strcmp(name_at(names, stride, pos), key))
			k = pos;
		else
			while (k < nknown && strcmp(name_at(names, stride, k), key))
				k++;
		if (k == nknown) {
			struct jpath kp = JP_KEY(at, key);
			return jpath_err(e, &kp, "unknown field");
		}
		pos = k + 1;
	}
	return 0;
}

int jd_object(const json_t *v, const struct jpath *at, const char *const *known, struct err *e)
{
	return jd_object_names(v, at, known, sizeof(*known), e);
}

int jd_schema(const json_t *v, const char *const *known, const char *schema, struct err *e)
{
	struct jpath p = JP_KEY(NULL, "schema");
	const char *got = "";

	TRY(jd_object(v, NULL, known, e));
	TRY(jd_str(v, NULL, "schema", JD_REQUIRED, &got, e));
	if (strcmp(got, schema))
		return jpath_err(e, &p, "expected \"%s\", found \"%.64s\"", schema, got);
	return 0;
}

/* Shared prologue: 1 absent-optional, -1 error, 0 found in *m. */
static int member(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
		  const json_t **m, struct err *e)
{
	*m = json_object_get(obj, key);
	if (*m)
		return 0;
	if (need == JD_OPTIONAL)
		return 1;
	{
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "missing required field");
	}
}

static int wrong(const json_t *m, const struct jpath *at, const char *key, const char *want,
		 struct err *e)
{
	struct jpath kp = JP_KEY(at, key);

	return jpath_err(e, &kp, "expected %s, found %s", want, type_name(m));
}

int jd_str(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   const char **out, struct err *e)
{
	const json_t *m;
	int rc = member(obj, at, key, need, &m, e);

	if (rc)
		return rc;
	if (!json_is_string(m))
		return wrong(m, at, key, "a string", e);
	*out = json_string_value(m);
	return 0;
}

int jd_int(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   long long *out, struct err *e)
{
	const json_t *m;
	int rc = member(obj, at, key, need, &m, e);

	if (rc)
		return rc;
	if (!json_is_integer(m))
		return wrong(m, at, key, "an integer", e);
	*out = (long long)json_integer_value(m);
	return 0;
}

int jd_num(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   double *out, struct err *e)
{
	const json_t *m;
	int rc = member(obj, at, key, need, &m, e);

	if (rc)
		return rc;
	if (!json_is_number(m))
		return wrong(m, at, key, "a number", e);
	*out = json_number_value(m);
	if (!isfinite(*out))
		return wrong(m, at, key, "a finite number", e);
	return 0;
}

int jd_bool(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	    bool *out, struct err *e)
{
	const json_t *m;
	int rc = member(obj, at, key, need, &m, e);

	if (rc)
		return rc;
	if (!json_is_boolean(m))
		return wrong(m, at, key, "a boolean", e);
	*out = json_is_true(m);
	return 0;
}

int jd_obj(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   const json_t **out, struct err *e)
{
	const json_t *m;
	int rc = member(obj, at, key, need, &m, e);

	if (rc)
		return rc;
	if (!json_is_object(m))
		return wrong(m, at, key, "an object", e);
	*out = m;
	return 0;
}

int jd_obj_or_null(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
		   const json_t **out, struct err *e)
{
	const json_t *m;
	int rc = member(obj, at, key, need, &m, e);

	if (rc)
		return rc;
	if (json_is_null(m)) {
		*out = NULL;
		return 0;
	}
	if (!json_is_object(m))
		return wrong(m, at, key, "an object or null", e);
	*out = m;
	return 0;
}

int jd_arr(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   bool allow_null, const json_t **out, struct err *e)
{
	const json_t *m;
	int rc = member(obj, at, key, need, &m, e);

	if (rc)
		return rc;
	if (allow_null && json_is_null(m)) {
		*out = NULL;
		return 0;
	}
	if (!json_is_array(m))
		return wrong(m, at, key, allow_null ? "an array or null" : "an array", e);
	*out = m;
	return 0;
}

int jd_str_at(const json_t *arr, const struct jpath *at, size_t i, const char **out, struct err *e)
{
	const json_t *m = json_array_get(arr, i);

	if (!json_is_string(m)) {
		struct jpath ip = JP_IDX(at, i);
		return jpath_err(e, &ip, "expected a string, found %s",
				 m ? type_name(m) : "nothing");
	}
	*out = json_string_value(m);
	return 0;
}

/* ---- building ------------------------------------------------------- */

static void must(int rc)
{
	if (rc)
		BUG("JSON construction failed");
}

/* Invalid UTF-8 (only possible from outside text such as /proc) becomes
 * U+FFFD so output is always valid JSON. */
static json_t *string_value(const char *s)
{
	json_t *v = json_string(s);
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;

	if (v)
		return v;
	while (*p) {
		size_t n = utf8_seq(p);

		if (n) {
			sb_add(&sb, p, n);
			p += n;
		} else {
			sb_adds(&sb, "\xEF\xBF\xBD");
			p++;
		}
	}
	v = json_string(sb_str(&sb));
	sb_release(&sb);
	if (!v)
		BUG("cannot build a JSON string");
	return v;
}

json_t *jobj(void)
{
	json_t *v = json_object();

	if (!v)
		BUG("out of memory");
	return v;
}

json_t *jarr(void)
{
	json_t *v = json_array();

	if (!v)
		BUG("out of memory");
	return v;
}

void jset_new(json_t *obj, const char *key, json_t *v)
{
	if (!v)
		BUG("NULL JSON value for '%s'", key);
	must(json_object_set_new(obj, key, v));
}

void jpush_new(json_t *arr, json_t *v)
{
	if (!v)
		BUG("NULL JSON array element");
	must(json_array_append_new(arr, v));
}

void jset_str(json_t *obj, const char *key, const char *s)
{
	jset_new(obj, key, s ? string_value(s) : json_null());
}

void jset_int(json_t *obj, const char *key, long long v)
{
	jset_new(obj, key, json_integer(v));
}

void jset_num(json_t *obj, const char *key, double v)
{
	if (!isfinite(v))
		BUG("non-finite value for '%s'", key);
	jset_new(obj, key, json_real(v));
}

void jset_bool(json_t *obj, const char *key, bool v)
{
	jset_new(obj, key, json_boolean(v));
}
