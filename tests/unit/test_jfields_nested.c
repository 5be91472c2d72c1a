/* base/jfields: the nested kinds (records, arrays, string lists, presence,
 * codecs) under both decoders and the encoder. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/findings.h"
#include "base/jfields.h"
#include "base/json.h"
#include "base/jsonpull.h"
#include "base/strbuf.h"

struct point {
	long long x;
	double y;
};

struct shape {
	const char *name;
	const char *tag;		/* nullable */
	struct strlist labels;		/* nullable, required */
	struct strlist extra;		/* optional, omitted when null */
	struct strlist quiet;		/* null read, written [] */
	bool has_origin;
	struct point origin;		/* required, nullable */
	bool has_size;
	long long size;			/* optional, present when has_size */
	struct point *points;
	size_t nr_points;
	long long seen_map;		/* set by the hand member */
};

static void point_init(void *rec)
{
	((struct point *)rec)->y = -1;
}

static const struct jfield point_fields[] = {
	JF(JF_LLONG, struct point, x, JF_REQ),
	JF(JF_NUM, struct point, y, JF_OPT),
	JF_END,
};

static int pull_map(struct jpull *p, const struct jpath *at, void *rec)
{
	const char *key;
	long long v;
	int rc;

	if ((rc = jp_object(p, at)) <= 0)
		return rc;
	while ((rc = jp_any_member(p, 0, &key)) > 0)
		TRY(jp_int(p, at, &v));
	((struct shape *)rec)->seen_map = 1;
	return rc;
}

static const struct jfield shape_fields[] = {
	JF(JF_STR, struct shape, name, JF_REQ),
	JF_KEYF("tag", JF_STR, struct shape, tag, JF_REQ, JF_NULLABLE),
	JF_LIST("labels", struct shape, labels, JF_REQ, JF_NULLABLE),
	JF_LIST("extra", struct shape, extra, JF_OMIT, 0),
	JF_LIST("quiet", struct shape, quiet, JF_REQ, JF_NULL_READ),
	JF_SUB("origin", struct shape, origin, point_fields, JF_REQ, JF_NULLABLE,
	       JF_HAS(struct shape, has_origin)),
	JF_HASF(JF_LLONG, struct shape, size, has_size),
	JF_ARRAY_OF("points", struct shape, points, nr_points, point_fields, JF_REQ, point_init),
	JF_PULLED("map", JF_OPT, pull_map),
	JF_END,
};

struct pulled {
	char buf[512];
	struct jpull p;
	struct findings problems;
	struct err e;
	struct shape s;
};

/* jf_pull of text into d->s: its return; d->e.msg holds the error. */
static int pull(struct pulled *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	cr_assert_lt(strlen(text), sizeof(d->buf));
	strcpy(d->buf, text);
	jp_init(&d->p, d->buf, strlen(text), &d->e);
	return jf_pull(shape_fields, &d->p, NULL, &d->s, NULL) < 0 ? -1 : jp_finish(&d->p);
}

static void release(struct pulled *d)
{
	free(d->s.labels.v);
	free(d->s.extra.v);
	free(d->s.quiet.v);
	free(d->s.points);
}

static char *encode(const struct shape *s)
{
	json_t *o = jf_to_json(shape_fields, s);
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	json_write_compact(&sb, o);
	json_decref(o);
	return sb_detach(&sb, &n);
}

Test(jfields_nested, pull_reads_every_nested_kind_and_writes_it_back)
{
	struct pulled d;
	char *out;

	cr_assert_eq(pull(&d, "{\"name\":\"a\",\"tag\":\"t\",\"labels\":[\"l1\",\"l2\"],"
			      "\"extra\":[\"e\"],\"quiet\":[],\"origin\":{\"x\":1,\"y\":2.5},"
			      "\"size\":7,\"points\":[{\"x\":3},{\"x\":4,\"y\":0}],"
			      "\"map\":{\"k\":1}}"), 0, "%s", d.e.msg);
	cr_assert_str_eq(d.s.tag, "t");
	cr_assert_eq(d.s.labels.n, 2);
	cr_assert_str_eq(d.s.labels.v[1], "l2");
	cr_assert(d.s.has_origin && d.s.origin.x == 1 && d.s.origin.y == 2.5);
	cr_assert(d.s.has_size && d.s.size == 7);
	cr_assert_eq(d.s.nr_points, 2);
	cr_assert_eq(d.s.points[0].y, -1, "init ran before the element was read");
	cr_assert_eq(d.s.points[1].x, 4);
	cr_assert_eq(d.s.seen_map, 1);
	out = encode(&d.s);
	cr_assert_str_eq(out, "{\"name\":\"a\",\"tag\":\"t\",\"labels\":[\"l1\",\"l2\"],"
			      "\"extra\":[\"e\"],\"quiet\":[],\"origin\":{\"x\":1,\"y\":2.5},"
			      "\"size\":7,\"points\":[{\"x\":3,\"y\":-1},{\"x\":4,\"y\":0}]}");
	free(out);
	release(&d);
}

Test(jfields_nested, nulls_and_absent_members_read_and_write_as_their_flags_say)
{
	struct pulled d;
	char *out;

	cr_assert_eq(pull(&d, "{\"name\":\"a\",\"tag\":null,\"labels\":null,\"quiet\":null,"
			      "\"origin\":null,\"points\":[]}"), 0, "%s", d.e.msg);
	cr_assert_null(d.s.tag);
	cr_assert(d.s.labels.is_null && d.s.quiet.is_null);
	cr_assert(d.s.extra.is_null, "an absent list is null");
	cr_assert(!d.s.has_origin && !d.s.has_size);
	out = encode(&d.s);
	cr_assert_str_eq(out, "{\"name\":\"a\",\"tag\":null,\"labels\":null,\"quiet\":[],"
			      "\"origin\":null,\"points\":[]}");
	free(out);
	release(&d);
}

Test(jfields_nested, pull_errors_carry_the_path)
{
	static const struct {
		const char *doc, *msg;
	} cases[] = {
		{ "{\"name\":\"a\",\"tag\":null,\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":[{\"x\":1},{\"y\":2}]}",
		  "points[1].x: missing required field" },
		{ "{\"name\":\"a\",\"tag\":null,\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":[],\"extra\":null}",
		  "extra: expected an array, found null" },
		{ "{\"name\":\"a\",\"tag\":null,\"labels\":[1],\"quiet\":[],\"origin\":null,"
		  "\"points\":[]}",
		  "labels[0]: expected a string, found a number" },
		{ "{\"name\":\"a\",\"tag\":null,\"labels\":null,\"quiet\":[],\"origin\":{\"x\":1,"
		  "\"z\":0},\"points\":[]}",
		  "origin.z: unknown field" },
		{ "{\"name\":null,\"tag\":null,\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":[]}",
		  "name: expected a string, found null" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pulled d;

		cr_assert_eq(pull(&d, cases[i].doc), -1, "%s", cases[i].doc);
		cr_assert(strstr(d.e.msg, cases[i].msg), "got '%s', want '%s'", d.e.msg,
			  cases[i].msg);
		release(&d);
	}
}

/* A codec: a number written as a string with the unit arg after it. */
struct len {
	double v;
	bool has_opt;
	struct point opt;
};

static int unit_decode(const json_t *o, const struct jpath *at, const char *key, void *dst,
		       const void *unit, struct err *e)
{
	const char *s;
	char *end;
	double v;

	TRY(jd_str(o, at, key, JD_REQUIRED, &s, e));
	v = strtod(s, &end);
	if (strcmp(end, unit)) {
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "must end in \"%s\"", (const char *)unit);
	}
	memcpy(dst, &v, sizeof(v));
	return 0;
}

static json_t *unit_encode(const void *src, const void *unit)
{
	char buf[64];
	double v;

	memcpy(&v, src, sizeof(v));
	snprintf(buf, sizeof(buf), "%g%s", v, (const char *)unit);
	return json_string(buf);
}

static const struct jf_codec unit_codec = { unit_decode, unit_encode };

static const struct jfield len_fields[] = {
	JF_CODEC("v", double, struct len, v, &unit_codec, "cm"),
	JF_SUB("opt", struct len, opt, point_fields, JF_OPT, 0, JF_HAS(struct len, has_opt)),
	JF_END,
};

Test(jfields_nested, codecs_and_records_under_jf_decode)
{
	json_t *doc = json_loads("{\"v\":\"2.5cm\",\"opt\":{\"x\":3}}", 0, NULL), *o;
	struct strbuf sb = STRBUF_INIT;
	struct len l = { 0 };
	struct err e;

	cr_assert_eq(jf_decode(len_fields, doc, NULL, &l, &e), 0, "%s", e.msg);
	cr_assert(l.v == 2.5 && l.has_opt && l.opt.x == 3);
	o = jf_to_json(len_fields, &l);
	json_write_compact(&sb, o);
	cr_assert_str_eq(sb.buf, "{\"v\":\"2.5cm\",\"opt\":{\"x\":3,\"y\":0}}");
	json_decref(o);
	json_decref(doc);
	sb_release(&sb);

	doc = json_loads("{\"v\":\"2in\"}", 0, NULL);
	memset(&l, 0, sizeof(l));
	cr_assert_eq(jf_decode(len_fields, doc, NULL, &l, &e), -1);
	cr_assert_str_eq(e.msg, "v: must end in \"cm\"");
	json_decref(doc);

	doc = json_loads("{\"v\":\"2cm\",\"opt\":{\"x\":\"1\"}}", 0, NULL);
	cr_assert_eq(jf_decode(len_fields, doc, NULL, &l, &e), -1);
	cr_assert_str_eq(e.msg, "opt.x: expected an integer, found a string");
	json_decref(doc);
	o = jf_to_json(len_fields, &(struct len){ .v = 1 });
	sb = (struct strbuf)STRBUF_INIT;
	json_write_compact(&sb, o);
	cr_assert_str_eq(sb.buf, "{\"v\":\"1cm\"}", "an absent optional record is not written");
	json_decref(o);
	sb_release(&sb);
}
