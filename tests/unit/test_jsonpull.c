/* base/jsonpull: the strict in-place pull reader behind the graph loader. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonpull.h"

struct doc {
	char *buf;
	struct jpull p;
	struct err e;
};

static void open_doc(struct doc *d, const char *text)
{
	d->buf = strdup(text);
	jp_init(&d->p, d->buf, strlen(text), &d->e);
}

/* Reads one string value; returns it (borrowed) or NULL with d->e set. */
static const char *one_string(struct doc *d, const char *text)
{
	const char *s;

	open_doc(d, text);
	if (jp_string(&d->p, NULL, &s) < 0 || jp_finish(&d->p) < 0)
		return NULL;
	return s;
}

Test(jsonpull, strings_decode_in_place)
{
	struct doc d;
	const char *s;

	s = one_string(&d, "\"a\\\"b\\\\c\\/\\n\\u00e9\\u20ac\\ud83d\\ude00\"");
	cr_assert_not_null(s, "%s", d.e.msg);
	cr_expect_str_eq(s, "a\"b\\c/\n\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
	cr_expect(s >= d.buf && s < d.buf + strlen("\"a"),
		  "string is not borrowed from the buffer");
	free(d.buf);
	s = one_string(&d, "  \"\xC3\xA9t\xC3\xA9\"  \n");
	cr_expect_str_eq(s, "\xC3\xA9t\xC3\xA9");
	free(d.buf);
}

Test(jsonpull, string_rejections)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "\"abc", "line 1, column 5: unterminated string" },
		{ "\"a\tb\"", "control character in string" },
		{ "\"\\x\"", "invalid escape in string" },
		{ "\"\\u12g4\"", "invalid \\u escape in string" },
		{ "\"\\ud83d\"", "invalid surrogate pair in string" },
		{ "\"\\ude00\"", "invalid surrogate pair in string" },
		{ "\"\\ud83d\\u0041\"", "invalid surrogate pair in string" },
		{ "\"\\u0000\"", "\\u0000 is not allowed in strings" },
		{ "\"\xff\"", "invalid UTF-8 in string" },
		{ "\"\xC0\xAF\"", "invalid UTF-8 in string" },
		{ "\"\xED\xA0\x80\"", "invalid UTF-8 in string" },
		{ "\"a\" x", "end of input expected after the document" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct doc d;

		cr_expect_null(one_string(&d, cases[i].text), "accepted %s", cases[i].text);
		cr_expect(strstr(d.e.msg, cases[i].want) != NULL, "%s: %s", cases[i].text, d.e.msg);
		free(d.buf);
	}
}

Test(jsonpull, numbers_follow_the_json_grammar)
{
	static const struct {
		const char *text;
		int ok;
		double v;
	} nums[] = {
		{ "0", 1, 0 },
		{ "-0", 1, 0 },
		{ "12.5", 1, 12.5 },
		{ "1e2", 1, 100 },
		{ "-2.5E-3", 1, -0.0025 },
		{ "4.9e-324", 1, 4.9e-324 },
		{ "01", 0, 0 },
		{ "-", 0, 0 },
		{ "1.", 0, 0 },
		{ ".5", 0, 0 },
		{ "1e", 0, 0 },
		{ "+1", 0, 0 },
		{ "1e400", 0, 0 },
		{ "NaN", 0, 0 },
		{ "Infinity", 0, 0 },
	};

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		struct doc d;
		double v = -1;
		int rc;

		open_doc(&d, nums[i].text);
		rc = jp_num(&d.p, NULL, &v);
		if (rc == 0)
			rc = jp_finish(&d.p);
		cr_expect_eq(rc == 0, nums[i].ok, "%s: %s", nums[i].text,
			     rc ? d.e.msg : "accepted");
		if (nums[i].ok)
			cr_expect_eq(v, nums[i].v, "%s read as %g", nums[i].text, v);
		free(d.buf);
	}
}

Test(jsonpull, integers_are_exact_and_bounded)
{
	struct doc d;
	long long v;
	struct jpath at = JP_KEY(NULL, "n");

	open_doc(&d, "9223372036854775807");
	cr_expect_eq(jp_int(&d.p, &at, &v), 0);
	cr_expect_eq(v, 9223372036854775807LL);
	free(d.buf);
	open_doc(&d, "9223372036854775808");
	cr_expect_eq(jp_int(&d.p, &at, &v), -1);
	cr_expect(strstr(d.e.msg, "integer out of range") != NULL, "%s", d.e.msg);
	free(d.buf);
	open_doc(&d, "3.0");
	cr_expect_eq(jp_int(&d.p, &at, &v), -1);
	cr_expect_str_eq(d.e.msg, "n: expected an integer, found a fractional number");
	free(d.buf);
	open_doc(&d, "\"3\"");
	cr_expect_eq(jp_int(&d.p, &at, &v), -1);
	cr_expect_str_eq(d.e.msg, "n: expected an integer, found a string");
	free(d.buf);
}

/* {"a":[...],"b":bool} with the member API */
static int read_doc(struct doc *d, const char *text, size_t *count)
{
	static const char *const keys[] = { "a", "b", NULL };
	uint64_t seen = 0;
	size_t idx;
	const char *key;
	int rc;

	open_doc(d, text);
	*count = 0;
	if (jp_object(&d->p, NULL) < 0)
		return -1;
	while ((rc = jp_member(&d->p, NULL, keys, &seen, &idx, &key)) > 0) {
		struct jpath kp = JP_KEY(NULL, keys[idx]);

		if (idx == 0) {
			size_t i;

			if (jp_array(&d->p, &kp) < 0)
				return -1;
			for (i = 0; (rc = jp_next(&d->p, i)) > 0; i++) {
				struct jpath ip = JP_IDX(&kp, i);

				if (jp_null(&d->p))
					continue;
				if (jp_array(&d->p, &ip) < 0 || jp_next(&d->p, 0) != 0)
					return -1;	/* elements are [] or null */
				(*count)++;
			}
			if (rc < 0)
				return -1;
		} else {
			bool b;
			if (jp_bool(&d->p, &kp, &b) < 0)
				return -1;
		}
	}
	if (rc < 0 || jp_require(&d->p, NULL, keys, seen, 3) < 0)
		return -1;
	return jp_finish(&d->p);
}

Test(jsonpull, structure_and_members)
{
	static const struct {
		const char *text, *want;	/* want NULL: accepted */
	} cases[] = {
		{ "{\"a\":[[],null,[ ]],\"b\":true}", NULL },
		{ " { \"b\" : false , \"a\" : [ ] } ", NULL },
		{ "{\"a\":[],\"b\":true,\"a\":[]}", "a: duplicate field" },
		{ "{\"a\":[],\"c\":1}", "c: unknown field" },
		{ "{\"a\":[]}", "b: missing required field" },
		{ "{\"a\":[[],],\"b\":true}", "value expected after ','" },
		{ "{\"a\":[],\"b\":true,}", "member name expected after ','" },
		{ "{\"a\" [],\"b\":true}", "':' expected" },
		{ "{\"a\":[] \"b\":true}", "',' or '}' expected" },
		{ "{\"a\":[[] []],\"b\":true}", "',' or ']' expected" },
		{ "{\"a\":[],\"b\":tru}", "invalid token" },
		{ "{\"a\":{},\"b\":true}", "a: expected an array, found an object" },
		{ "{\"a\":[],\"b\":1}", "b: expected a boolean, found a number" },
		{ "[]", "$: expected an object, found an array" },
		{ "{\"a\":[],\"b\":true}{}", "end of input expected" },
		{ "{\"a\":[", "value or ']' expected" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct doc d;
		size_t n;
		int rc = read_doc(&d, cases[i].text, &n);

		if (!cases[i].want)
			cr_expect_eq(rc, 0, "%s: %s", cases[i].text, d.e.msg);
		else
			cr_expect(rc < 0 && strstr(d.e.msg, cases[i].want), "%s: %s", cases[i].text,
				  rc < 0 ? d.e.msg : "accepted");
		free(d.buf);
	}
}
