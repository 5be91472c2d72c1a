/* base/jfields: the field-table walker (decode errors, defaults, encode order). */
#include <criterion/criterion.h>
#include <string.h>

#include "base/jfields.h"
#include "base/json.h"
#include "base/strbuf.h"

struct rec {
	const char *s;
	char text[8];
	char name[8];
	int64_t i;
	long long ll;
	int64_t count;
	int64_t opt_count;
	double num;
	bool flag;
	bool opt_flag;
	long long opt_ll;
	char note[8];
};

static int check_note(const void *rec, const struct jpath *at, struct err *e)
{
	const struct rec *r = rec;

	return strcmp(r->note, "bad") ? 0 : jpath_err(e, at, "is not \"bad\"");
}

static const struct jfield fields[] = {
	JF(JF_STR, struct rec, s, JF_REQ),
	JF(JF_TEXT, struct rec, text, JF_REQ),
	JF(JF_NAME, struct rec, name, JF_REQ),
	JF(JF_INT, struct rec, i, JF_REQ),
	JF(JF_LLONG, struct rec, ll, JF_REQ),
	JF(JF_COUNT, struct rec, count, JF_REQ),
	JF_HANDS("nested"),
	JF(JF_OPT_COUNT, struct rec, opt_count, JF_OPT),
	JF(JF_NUM, struct rec, num, JF_REQ),
	JF(JF_BOOL, struct rec, flag, JF_REQ),
	JF(JF_BOOL, struct rec, opt_flag, JF_OMIT),
	JF(JF_LLONG, struct rec, opt_ll, JF_OPT),
	JF_KEYC("note", JF_TEXT, struct rec, note, JF_OMIT, check_note),
	JF_END,
};

#define FULL "{\"s\":\"str\",\"text\":\"abc\",\"name\":\"n\",\"i\":-3,\"ll\":-4,\"count\":5," \
	     "\"nested\":[1],\"opt_count\":6,\"num\":1.5,\"flag\":true,\"opt_flag\":true," \
	     "\"opt_ll\":7,\"note\":\"x\"}"

static json_t *parse(const char *text)
{
	json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);

	cr_assert_not_null(v, "%s", text);
	return v;
}

/* FULL with member key set to the JSON text value (NULL: removed). */
static json_t *with(const char *key, const char *value)
{
	json_t *v = parse(FULL);

	if (value)
		json_object_set_new(v, key, parse(value));
	else
		json_object_del(v, key);
	return v;
}

/* jf_decode of doc at path rec[2]: "" when it decodes, else the message. */
static const char *decode_at(const json_t *doc, struct rec *r, struct err *e)
{
	struct jpath rp = JP_KEY(NULL, "rec"), ip = JP_IDX(&rp, 2);
	int rc = jf_decode(fields, doc, &ip, r, e);

	if (rc == 0)
		e->msg[0] = 0;
	else
		cr_expect_eq(rc, -1);
	return e->msg;
}

/* The message for FULL with key set to value (NULL: removed). */
static void expect_msg(const char *key, const char *value, const char *want)
{
	json_t *v = with(key, value);
	struct rec r;
	struct err e;

	memset(&r, 0, sizeof(r));
	cr_expect_str_eq(decode_at(v, &r, &e), want, "%s = %s", key, value ? value : "(absent)");
	json_decref(v);
}

Test(jfields, every_kind_decodes)
{
	json_t *v = parse(FULL);
	struct rec r;
	struct err e;

	memset(&r, 0, sizeof(r));
	cr_assert_str_eq(decode_at(v, &r, &e), "");
	cr_expect_str_eq(r.s, "str");
	cr_expect_str_eq(r.text, "abc");
	cr_expect_str_eq(r.name, "n");
	cr_expect_eq(r.i, -3);
	cr_expect_eq(r.ll, -4);
	cr_expect_eq(r.count, 5);
	cr_expect_eq(r.opt_count, 6);
	cr_expect_eq(r.num, 1.5);
	cr_expect(r.flag);
	cr_expect(r.opt_flag);
	cr_expect_eq(r.opt_ll, 7);
	cr_expect_str_eq(r.note, "x");
	json_decref(v);
}

Test(jfields, required_member_missing_names_its_path)
{
	static const char *const required[] = { "s", "text", "name", "i", "ll", "count", "num",
						"flag" };

	for (size_t k = 0; k < sizeof(required) / sizeof(required[0]); k++) {
		char want[64];

		snprintf(want, sizeof(want), "rec[2].%s: missing required field", required[k]);
		expect_msg(required[k], NULL, want);
	}
}

Test(jfields, wrong_types_read_like_the_jd_getters)
{
	expect_msg("s", "1", "rec[2].s: expected a string, found an integer");
	expect_msg("text", "null", "rec[2].text: expected a string, found null");
	expect_msg("name", "[]", "rec[2].name: expected a string, found an array");
	expect_msg("i", "1.5", "rec[2].i: expected an integer, found a fractional number");
	expect_msg("ll", "\"4\"", "rec[2].ll: expected an integer, found a string");
	expect_msg("count", "true", "rec[2].count: expected an integer, found a boolean");
	expect_msg("opt_count", "{}", "rec[2].opt_count: expected an integer, found an object");
	expect_msg("num", "\"1\"", "rec[2].num: expected a number, found a string");
	expect_msg("flag", "0", "rec[2].flag: expected a boolean, found an integer");
	expect_msg("opt_flag", "null", "rec[2].opt_flag: expected a boolean, found null");
	expect_msg("note", "7", "rec[2].note: expected a string, found an integer");
}

Test(jfields, kinds_check_their_values)
{
	expect_msg("text", "\"12345678\"", "rec[2].text: longer than 7 bytes");
	expect_msg("text", "\"1234567\"", "");
	expect_msg("text", "\"\"", "");
	expect_msg("name", "\"\"", "rec[2].name: must hold 1 to 7 bytes");
	expect_msg("name", "\"12345678\"", "rec[2].name: must hold 1 to 7 bytes");
	expect_msg("count", "-1", "rec[2].count: must be non-negative");
	expect_msg("count", "0", "");
	expect_msg("opt_count", "-1", "rec[2].opt_count: must be non-negative");
	expect_msg("i", "-9223372036854775808", "");
}

Test(jfields, unknown_key_and_non_object_rejected_like_jd_object)
{
	static const char *const known[] = {
		"s", "text", "name", "i", "ll", "count", "nested", "opt_count", "num", "flag",
		"opt_flag", "opt_ll", "note", NULL,
	};
	json_t *v = with("extra", "1"), *a = parse("[]");
	struct jpath rp = JP_KEY(NULL, "rec");
	struct rec r;
	struct err e, e2;

	expect_msg("extra", "1", "rec[2].extra: unknown field");
	/* the same keys as a jd_object list: the same verdict and message */
	cr_expect_eq(jd_object(v, &rp, known, &e2), -1);
	cr_expect_eq(jf_keys(fields, v, &rp, &e), -1);
	cr_expect_str_eq(e.msg, e2.msg);
	cr_expect_str_eq(decode_at(a, &r, &e), "rec[2]: expected an object, found an array");
	json_decref(v);
	json_decref(a);
}

Test(jfields, optional_members_absent_keep_their_default)
{
	json_t *v = with("opt_flag", NULL);
	struct rec r;
	struct err e;

	json_object_del(v, "opt_ll");
	json_object_del(v, "note");
	json_object_del(v, "opt_count");
	json_object_del(v, "nested");
	memset(&r, 0, sizeof(r));
	r.opt_flag = true;
	r.opt_ll = 42;
	strcpy(r.note, "dflt");
	r.opt_count = 9;
	cr_assert_str_eq(decode_at(v, &r, &e), "");
	cr_expect(r.opt_flag);
	cr_expect_eq(r.opt_ll, 42);
	cr_expect_str_eq(r.note, "dflt");
	/* an optional count reads -1 when absent */
	cr_expect_eq(r.opt_count, -1);
	json_decref(v);
}

Test(jfields, check_runs_after_a_present_member_with_its_path)
{
	expect_msg("note", "\"bad\"", "rec[2].note: is not \"bad\"");
	expect_msg("note", NULL, "");
}

Test(jfields, encode_follows_the_table_order_and_omits_empty_optionals)
{
	struct rec r = {
		.s = NULL, .text = "t", .name = "nm", .i = -1, .ll = 1LL << 40, .count = 0,
		.opt_count = -1, .num = 0.25, .flag = false, .opt_flag = false, .opt_ll = 0,
		.note = "",
	};
	struct strbuf sb = STRBUF_INIT;
	json_t *o = jf_to_json(fields, &r);

	json_write_compact(&sb, o);
	cr_expect_str_eq(sb.buf, "{\"s\":null,\"text\":\"t\",\"name\":\"nm\",\"i\":-1,"
			 "\"ll\":1099511627776,\"count\":0,\"num\":0.25,\"flag\":false,"
			 "\"opt_ll\":0}");
	json_decref(o);
	sb_release(&sb);
}

Test(jfields, encode_then_decode_round_trips)
{
	json_t *v = parse(FULL), *o;
	struct rec r, back;
	struct err e;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	memset(&r, 0, sizeof(r));
	cr_assert_str_eq(decode_at(v, &r, &e), "");
	o = jf_to_json(fields, &r);
	/* the hand-written member is the caller's: appended where the table has it */
	json_object_del(v, "nested");
	json_write_compact(&a, v);
	json_write_compact(&b, o);
	cr_expect_str_eq(b.buf, a.buf);
	memset(&back, 0, sizeof(back));
	cr_expect_str_eq(decode_at(o, &back, &e), "");
	cr_expect_eq(back.count, r.count);
	cr_expect_str_eq(back.note, r.note);
	json_decref(v);
	json_decref(o);
	sb_release(&a);
	sb_release(&b);
}

Test(jfields, member_requires_an_object)
{
	json_t *v = parse("{\"r\":1}");
	struct jpath rp = JP_KEY(NULL, "top");
	struct rec r;
	struct err e;

	cr_expect_eq(jf_member(fields, v, &rp, "r", &r, &e), -1);
	cr_expect_str_eq(e.msg, "top.r: expected an object, found an integer");
	cr_expect_eq(jf_member(fields, v, &rp, "q", &r, &e), -1);
	cr_expect_str_eq(e.msg, "top.q: missing required field");
	json_decref(v);
}
