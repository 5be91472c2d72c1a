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

static void shape_release(struct shape *s)
{
	free(s->labels.v);
	free(s->extra.v);
	free(s->quiet.v);
	free(s->points);
}

static void release(struct pulled *d)
{
	shape_release(&d->s);
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

/* jf_decode of text into *s: its return; *doc holds the document the
 * strings borrow (the caller frees it). */
static int decode(struct shape *s, const char *text, json_t **doc, struct err *e)
{
	*doc = json_loads(text, 0, NULL);
	cr_assert_not_null(*doc, "%s", text);
	memset(s, 0, sizeof(*s));
	return jf_decode(shape_fields, *doc, NULL, s, e);
}

Test(jfields_nested, errors_carry_the_path_under_both_decoders)
{
	/* pulled: jf_pull's message, decoded: jf_decode's where it differs */
	static const struct {
		const char *doc, *pulled, *decoded;
	} cases[] = {
		{ "{\"name\":\"a\",\"tag\":\"t\",\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":[{\"x\":1},{\"y\":2}]}",
		  "points[1].x: missing required field", NULL },
		{ "{\"name\":\"a\",\"tag\":\"t\",\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":[],\"extra\":null}",
		  "extra: expected an array, found null", NULL },
		{ "{\"name\":\"a\",\"tag\":\"t\",\"labels\":[\"x\",1],\"quiet\":[],"
		  "\"origin\":null,\"points\":[]}",
		  "labels[1]: expected a string, found a number",
		  "labels[1]: expected a string, found an integer" },
		{ "{\"name\":\"a\",\"tag\":\"t\",\"labels\":null,\"quiet\":[],"
		  "\"origin\":{\"x\":1,\"z\":0},\"points\":[]}",
		  "origin.z: unknown field", NULL },
		{ "{\"name\":\"a\",\"tag\":\"t\",\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":[{\"x\":1,\"z\":0}]}",
		  "points[0].z: unknown field", NULL },
		{ "{\"name\":\"a\",\"tag\":\"t\",\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":{}}",
		  "points: expected an array", "points: expected an array, found an object" },
		{ "{\"name\":null,\"tag\":null,\"labels\":null,\"quiet\":[],\"origin\":null,"
		  "\"points\":[]}",
		  "name: expected a string, found null", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *want = cases[i].decoded ? cases[i].decoded : cases[i].pulled;
		struct pulled d;
		struct shape s;
		json_t *doc;
		struct err e;

		cr_assert_eq(pull(&d, cases[i].doc), -1, "%s", cases[i].doc);
		cr_assert(strstr(d.e.msg, cases[i].pulled), "got '%s', want '%s'", d.e.msg,
			  cases[i].pulled);
		release(&d);
		cr_assert_eq(decode(&s, cases[i].doc, &doc, &e), -1, "%s", cases[i].doc);
		cr_assert_str_eq(e.msg, want);
		shape_release(&s);
		json_decref(doc);
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

Test(jfields_nested, decode_reads_lists_and_arrays_as_pull_does)
{
	static const char *const docs[] = {
		"{\"name\":\"a\",\"tag\":\"t\",\"labels\":[\"l1\",\"l2\"],\"extra\":[\"e\"],"
		"\"quiet\":[],\"origin\":{\"x\":1,\"y\":2.5},\"size\":7,"
		"\"points\":[{\"x\":3},{\"x\":4,\"y\":0}],\"map\":{\"k\":1}}",
		"{\"name\":\"a\",\"tag\":\"t\",\"labels\":null,\"quiet\":null,\"origin\":null,"
		"\"points\":[]}",
	};

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct pulled d;
		struct shape s;
		json_t *doc;
		struct err e;
		char *want, *got;

		cr_assert_eq(pull(&d, docs[i]), 0, "%s", d.e.msg);
		cr_assert_eq(decode(&s, docs[i], &doc, &e), 0, "%s", e.msg);
		cr_assert_eq(s.extra.is_null, d.s.extra.is_null, "an absent list is null");
		cr_assert_eq(s.quiet.is_null, d.s.quiet.is_null);
		cr_assert_eq(s.seen_map, 0, "a hand member is the caller's");
		want = encode(&d.s);
		got = encode(&s);
		cr_assert_str_eq(got, want);
		free(want);
		free(got);
		release(&d);
		shape_release(&s);
		json_decref(doc);
	}
}

/* Records that keep their JSON value. */
struct box {
	const json_t *json;
	long long x;
};

struct crate {
	bool has_box;
	struct box box;
	struct box *boxes, *anys;
	size_t nr_boxes, nr_anys;
};

static const struct jfield box_fields[] = {
	JF(JF_LLONG, struct box, x, JF_REQ),
	JF_END,
};

static const struct jfield crate_fields[] = {
	JF_SUB_KEPT("box", struct crate, box, box_fields, has_box, JF_KEEP(struct box, json)),
	JF_ARRAY_KEPT("boxes", struct crate, boxes, nr_boxes, box_fields, JF_REQ, 0,
		      JF_KEEP(struct box, json)),
	JF_ARRAY_KEPT("anys", struct crate, anys, nr_anys, NULL, JF_OMIT, 0,
		      JF_KEEP(struct box, json)),
	JF_END,
};

/* jf_decode of text into a crate, then its encoding (or the error). */
static char *crate_round(const char *text, long long set_x)
{
	json_t *doc = json_loads(text, 0, NULL), *o;
	struct crate c = { 0 };
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	size_t n;

	cr_assert_not_null(doc, "%s", text);
	if (jf_decode(crate_fields, doc, NULL, &c, &e) < 0) {
		sb_adds(&sb, e.msg);
	} else {
		c.box.x = set_x;
		for (size_t i = 0; i < c.nr_boxes; i++)
			c.boxes[i].x = set_x;
		o = jf_to_json(crate_fields, &c);
		json_write_compact(&sb, o);
		json_decref(o);
	}
	free(c.boxes);
	free(c.anys);
	json_decref(doc);
	return sb_detach(&sb, &n);
}

Test(jfields_nested, kept_records_are_read_by_their_table_and_written_as_copies)
{
	static const struct {
		const char *doc, *want;
	} cases[] = {
		/* the values read are not what is written: the JSON is */
		{ "{\"box\":{\"x\":1},\"boxes\":[{\"x\":2}],\"anys\":[{\"b\":[1,{\"c\":null}],"
		  "\"a\":2.5}]}",
		  "{\"box\":{\"x\":1},\"boxes\":[{\"x\":2}],\"anys\":[{\"b\":[1,{\"c\":null}],"
		  "\"a\":2.5}]}" },
		/* absent or empty: not written (an OMIT array), the box absent */
		{ "{\"boxes\":[],\"anys\":[]}", "{\"boxes\":[]}" },
		{ "{\"boxes\":[{\"x\":\"1\"}]}",
		  "boxes[0].x: expected an integer, found a string" },
		{ "{\"box\":{\"y\":1},\"boxes\":[]}", "box.y: unknown field" },
		{ "{\"boxes\":[],\"anys\":[{},3]}",
		  "anys[1]: expected an object, found an integer" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = crate_round(cases[i].doc, 99);

		cr_assert_str_eq(got, cases[i].want);
		free(got);
	}
}
