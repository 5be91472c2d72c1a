#include "base/jfields.h"

#include <string.h>

#include "base/err.h"
#include "base/jsonpull.h"
#include "base/xalloc.h"

static void *member_of(void *rec, const struct jfield *f)
{
	return (char *)rec + f->offset;
}

static const void *cmember_of(const void *rec, const struct jfield *f)
{
	return (const char *)rec + f->offset;
}

int jf_keys(const struct jfield *t, const json_t *v, const struct jpath *at, struct err *e)
{
	return jd_object_names(v, at, &t->name, sizeof(*t), e);
}

/* A string member copied into char[f->size]; `name` kinds hold at least one byte. */
static int read_text(const struct jfield *f, const json_t *obj, const struct jpath *at,
		     enum jd_need need, char *dst, struct err *e)
{
	const char *s;
	int rc = jd_str(obj, at, f->name, need, &s, e);
	size_t n;

	if (rc)
		return rc;
	n = strlen(s);
	if (n >= f->size || (f->kind == JF_NAME && !n)) {
		struct jpath kp = JP_KEY(at, f->name);

		if (f->kind == JF_NAME)
			return jpath_err(e, &kp, "must hold 1 to %zu bytes", f->size - 1);
		return jpath_err(e, &kp, "longer than %zu bytes", f->size - 1);
	}
	memcpy(dst, s, n + 1);
	return 0;
}

/* Integer kinds: 1 absent (optional), 0 read, -1 error. */
static int read_int(const struct jfield *f, const json_t *obj, const struct jpath *at,
		    enum jd_need need, void *dst, struct err *e)
{
	long long v = -1;
	int rc = jd_int(obj, at, f->name, f->kind == JF_OPT_COUNT ? JD_OPTIONAL : need, &v, e);

	if (rc < 0 || (rc && f->kind != JF_OPT_COUNT))
		return rc;
	if (rc == 0 && v < 0 && (f->kind == JF_COUNT || f->kind == JF_OPT_COUNT)) {
		struct jpath kp = JP_KEY(at, f->name);
		return jpath_err(e, &kp, "must be non-negative");
	}
	if (f->kind == JF_LLONG) {
		memcpy(dst, &v, sizeof(v));
	} else {
		int64_t w = v;

		memcpy(dst, &w, sizeof(w));
	}
	return rc;
}

static void set_has(const struct jfield *f, void *rec, bool v)
{
	if (f->has)
		memcpy((char *)rec + f->has - 1, &v, sizeof(v));
}

static bool get_has(const struct jfield *f, const void *rec)
{
	bool v = true;

	if (f->has)
		memcpy(&v, (const char *)rec + f->has - 1, sizeof(v));
	return v;
}

/* One record of f (a JF_OBJ member or a JF_ARR element) from v at at into
 * dst: its defaults, its JSON value when kept, its table (none: any object). */
static int read_record(const struct jfield *f, const json_t *v, const struct jpath *at, void *dst,
		       struct err *e)
{
	static const struct jfield none[] = { JF_END };

	if (f->init)
		f->init(dst);
	if (f->keep)
		*(const json_t **)(void *)((char *)dst + f->keep - 1) = v;
	if (!f->sub)
		return json_is_object(v) ? 0 : jf_keys(none, v, at, e);
	return jf_decode(f->sub, v, at, dst, e);
}

/* A record member: null when nullable (has false), absent when optional. */
static int read_obj(const struct jfield *f, const json_t *obj, const struct jpath *at,
		    enum jd_need need, void *rec, struct err *e)
{
	const json_t *m;
	int rc = (f->flags & JF_NULLABLE) ? jd_obj_or_null(obj, at, f->name, need, &m, e)
					  : jd_obj(obj, at, f->name, need, &m, e);
	struct jpath kp = JP_KEY(at, f->name);

	if (rc)
		return rc;
	set_has(f, rec, m != NULL);
	if (!m)
		return 0;
	return read_record(f, m, &kp, member_of(rec, f), e);
}

/* A string list; absent reads as null. */
static int read_strlist(const struct jfield *f, const json_t *obj, const struct jpath *at,
			enum jd_need need, struct strlist *l, struct err *e)
{
	const json_t *a = NULL;
	struct jpath kp = JP_KEY(at, f->name);
	int rc = jd_arr(obj, at, f->name, need, (f->flags & (JF_NULLABLE | JF_NULL_READ)) != 0,
			&a, e);

	if (rc < 0)
		return rc;
	l->is_null = !a;
	if (!a)
		return rc;
	l->n = json_array_size(a);
	l->v = xcalloc(l->n ? l->n : 1, sizeof(*l->v));
	for (size_t i = 0; i < l->n; i++)
		TRY(jd_str_at(a, &kp, i, &l->v[i], e));
	return 0;
}

/* An array of records, stored (pointer and count) before they are read. */
static int read_array(const struct jfield *f, const json_t *obj, const struct jpath *at,
		      enum jd_need need, void *rec, struct err *e)
{
	const json_t *a;
	struct jpath kp = JP_KEY(at, f->name);
	int rc = jd_arr(obj, at, f->name, need, false, &a, e);
	size_t n;
	char *v;

	if (rc)
		return rc;
	n = json_array_size(a);
	v = xcalloc(n ? n : 1, f->size);
	memcpy(member_of(rec, f), &v, sizeof(v));
	memcpy((char *)rec + f->count, &n, sizeof(n));
	for (size_t i = 0; i < n; i++) {
		struct jpath ip = JP_IDX(&kp, i);

		TRY(read_record(f, json_array_get(a, i), &ip, v + i * f->size, e));
	}
	return 0;
}

static int read_field(const struct jfield *f, const json_t *obj, const struct jpath *at, void *rec,
		      struct err *e)
{
	enum jd_need need = f->need == JF_REQ ? JD_REQUIRED : JD_OPTIONAL;
	void *dst = member_of(rec, f);

	switch (f->kind) {
	case JF_STR: {
		const char *s;
		int rc = jd_str(obj, at, f->name, need, &s, e);

		if (rc == 0)
			memcpy(dst, &s, sizeof(s));
		return rc;
	}
	case JF_TEXT:
	case JF_NAME:
		return read_text(f, obj, at, need, dst, e);
	case JF_INT:
	case JF_LLONG:
	case JF_COUNT:
	case JF_OPT_COUNT:
		return read_int(f, obj, at, need, dst, e);
	case JF_NUM: {
		double d;
		int rc = jd_num(obj, at, f->name, need, &d, e);

		if (rc == 0)
			memcpy(dst, &d, sizeof(d));
		return rc;
	}
	case JF_BOOL: {
		bool b;
		int rc = jd_bool(obj, at, f->name, need, &b, e);

		if (rc == 0)
			memcpy(dst, &b, sizeof(b));
		return rc;
	}
	case JF_OBJ:
		return read_obj(f, obj, at, need, rec, e);
	case JF_CODED:
		return f->codec->decode(obj, at, f->name, dst, f->arg, e);
	case JF_STRLIST:
		return read_strlist(f, obj, at, need, dst, e);
	case JF_ARR:
		return read_array(f, obj, at, need, rec, e);
	case JF_HAND:
		break;
	}
	return 1;
}

int jf_fields(const struct jfield *t, const json_t *obj, const struct jpath *at, void *rec,
	      struct err *e)
{
	for (const struct jfield *f = t; f->name; f++) {
		int rc = read_field(f, obj, at, rec, e);

		if (rc < 0)
			return -1;
		if (rc == 0 && f->kind != JF_OBJ)
			set_has(f, rec, true);
		if (rc == 0 && f->check) {
			struct jpath kp = JP_KEY(at, f->name);

			TRY(f->check(rec, &kp, e));
		}
	}
	return 0;
}

int jf_decode(const struct jfield *t, const json_t *v, const struct jpath *at, void *rec,
	      struct err *e)
{
	TRY(jf_keys(t, v, at, e));
	return jf_fields(t, v, at, rec, e);
}

int jf_member(const struct jfield *t, const json_t *obj, const struct jpath *at, const char *key,
	      void *rec, struct err *e)
{
	struct jpath kp = JP_KEY(at, key);
	const json_t *m;

	TRY(jd_obj(obj, at, key, JD_REQUIRED, &m, e));
	return jf_decode(t, m, &kp, rec, e);
}

static int64_t int_of(const struct jfield *f, const void *src)
{
	if (f->kind == JF_LLONG) {
		long long v;

		memcpy(&v, src, sizeof(v));
		return v;
	} else {
		int64_t v;

		memcpy(&v, src, sizeof(v));
		return v;
	}
}

static json_t *strlist_json(const struct jfield *f, const struct strlist *l)
{
	json_t *a;

	if (l->is_null && (f->flags & JF_NULLABLE))
		return json_null();
	a = jarr();
	for (size_t i = 0; i < l->n; i++)
		jpush_new(a, json_string(l->v[i]));
	return a;
}

/* A record of f: a copy of its JSON value when kept, else its table's. */
static json_t *record_json(const struct jfield *f, const void *src)
{
	if (!f->keep)
		return jf_to_json(f->sub, src);
	return json_deep_copy(*(const json_t *const *)(const void *)((const char *)src +
								       f->keep - 1));
}

/* NULL when JF_OMIT and empty. */
static json_t *array_json(const struct jfield *f, const void *src, const void *rec)
{
	const char *v;
	size_t n;
	json_t *a;

	memcpy(&v, src, sizeof(v));
	memcpy(&n, (const char *)rec + f->count, sizeof(n));
	if (!n && f->need == JF_OMIT)
		return NULL;
	a = jarr();
	for (size_t i = 0; i < n; i++)
		jpush_new(a, record_json(f, v + i * f->size));
	return a;
}

static void set_some(json_t *obj, const char *key, json_t *v)
{
	if (v)
		jset_new(obj, key, v);
}

/* The nested kinds; false when f is a flat one. */
static bool encode_nested(const struct jfield *f, const void *src, const void *rec, json_t *obj)
{
	switch (f->kind) {
	case JF_STRLIST: {
		const struct strlist *l = src;

		if (f->need != JF_OMIT || !l->is_null)
			jset_new(obj, f->name, strlist_json(f, l));
		return true;
	}
	case JF_OBJ:
		jset_new(obj, f->name, record_json(f, src));
		return true;
	case JF_ARR:
		set_some(obj, f->name, array_json(f, src, rec));
		return true;
	case JF_CODED:
		set_some(obj, f->name, f->codec->encode(src, f->arg));
		return true;
	default:
		return false;
	}
}

static void encode_flat(const struct jfield *f, const void *src, json_t *obj)
{
	bool omit = f->need == JF_OMIT;

	switch (f->kind) {
	case JF_STR: {
		const char *s;

		memcpy(&s, src, sizeof(s));
		if (!omit || s)
			jset_str(obj, f->name, s);
		break;
	}
	case JF_TEXT:
	case JF_NAME:
		if (!omit || *(const char *)src)
			jset_str(obj, f->name, src);
		break;
	case JF_INT:
	case JF_LLONG:
	case JF_COUNT:
	case JF_OPT_COUNT: {
		int64_t v = int_of(f, src);

		if (f->kind == JF_OPT_COUNT ? v >= 0 : !omit || v)
			jset_int(obj, f->name, v);
		break;
	}
	case JF_NUM: {
		double d;

		memcpy(&d, src, sizeof(d));
		if (!omit || d != 0)
			jset_num(obj, f->name, d);
		break;
	}
	case JF_BOOL: {
		bool b;

		memcpy(&b, src, sizeof(b));
		if (!omit || b)
			jset_bool(obj, f->name, b);
		break;
	}
	default:
		break;
	}
}

void jf_encode(const struct jfield *t, const void *rec, json_t *obj)
{
	for (const struct jfield *f = t; f->name; f++) {
		const void *src = cmember_of(rec, f);

		if (!get_has(f, rec)) {
			if (f->need == JF_REQ && (f->flags & JF_NULLABLE))
				jset_new(obj, f->name, json_null());
			continue;
		}
		if (!encode_nested(f, src, rec, obj))
			encode_flat(f, src, obj);
	}
}

json_t *jf_to_json(const struct jfield *t, const void *rec)
{
	json_t *o = jobj();

	jf_encode(t, rec, o);
	return o;
}

/* ---- the pull reader ------------------------------------------------ */

static int pull_str_elem(struct jpull *p, const struct jpath *at, void *elem)
{
	return jp_string(p, at, (const char **)elem);
}

static int pull_obj_elem(struct jpull *p, const struct jpath *at, void *elem,
			 const struct jfield *f)
{
	if (f->init)
		f->init(elem);
	return jf_pull(f->sub, p, at, elem, NULL);
}

/* An array of elements of sz bytes into *out and *nr, stored as it grows
 * (so that a failure leaves what was read for the caller to free): each
 * read by str (strings) or as a record of f. */
static int pull_array(struct jpull *p, const struct jpath *at, size_t sz, void **out, size_t *nr,
		      const struct jfield *f)
{
	size_t alloc = 0, i;
	char *v = NULL;
	int rc;

	*out = NULL;
	*nr = 0;
	if ((rc = jp_array(p, at)) <= 0)
		return rc;
	for (i = 0; (rc = jp_next(p, i)) > 0; i++) {
		struct jpath ip = JP_IDX(at, i);

		if (i == alloc) {
			alloc = alloc ? alloc * 2 : 4;
			v = xrealloc(v, xmul(alloc, sz));
		}
		memset(v + i * sz, 0, sz);
		*out = v;
		*nr = i + 1;
		TRY(f ? pull_obj_elem(p, &ip, v + i * sz, f) : pull_str_elem(p, &ip, v + i * sz));
	}
	return rc;
}

static int pull_strlist(const struct jfield *f, struct jpull *p, const struct jpath *at,
			struct strlist *l)
{
	void *v = NULL;
	int rc;

	l->is_null = (f->flags & (JF_NULLABLE | JF_NULL_READ)) && jp_null(p);
	if (l->is_null)
		return 0;
	rc = pull_array(p, at, sizeof(*l->v), &v, &l->n, NULL);
	l->v = v;
	return rc;
}

static int pull_nested(const struct jfield *f, struct jpull *p, const struct jpath *at, void *rec)
{
	void *dst = member_of(rec, f);

	switch (f->kind) {
	case JF_STRLIST:
		return pull_strlist(f, p, at, dst);
	case JF_OBJ:
		if ((f->flags & JF_NULLABLE) && jp_null(p)) {
			set_has(f, rec, false);
			return 0;
		}
		set_has(f, rec, true);
		return pull_obj_elem(p, at, dst, f);
	case JF_ARR: {
		void *v = NULL;
		size_t *nr = (size_t *)((char *)rec + f->count);
		int rc = pull_array(p, at, f->size, &v, nr, f);

		memcpy(dst, &v, sizeof(v));
		return rc;
	}
	case JF_HAND:
		if (!f->pull)
			BUG("member '%s': no pull", f->name);
		return f->pull(p, at, rec);
	default:
		BUG("member '%s': kind %d under jf_pull", f->name, (int)f->kind);
	}
}

static int pull_field(const struct jfield *f, struct jpull *p, const struct jpath *at, void *rec)
{
	void *dst = member_of(rec, f);

	set_has(f, rec, true);
	switch (f->kind) {
	case JF_STR:
		if ((f->flags & JF_NULLABLE) && jp_null(p)) {
			memset(dst, 0, sizeof(const char *));
			return 0;
		}
		return jp_string(p, at, dst);
	case JF_LLONG:
		return jp_int(p, at, dst);
	case JF_INT: {
		long long v = 0;
		int64_t w;
		int rc = jp_int(p, at, &v);

		w = v;
		memcpy(dst, &w, sizeof(w));
		return rc;
	}
	case JF_NUM:
		return jp_num(p, at, dst);
	case JF_BOOL:
		return jp_bool(p, at, dst);
	default:
		return pull_nested(f, p, at, rec);
	}
}

int jf_pull(const struct jfield *t, struct jpull *p, const struct jpath *at, void *rec,
	    uint64_t *seen_out)
{
	const char *keys[65], *key;
	uint64_t seen = 0, required = 0;
	size_t n = 0, idx;
	int rc;

	for (; t[n].name; n++) {
		if (n == 64)
			BUG("a table of more than 64 members");
		keys[n] = t[n].name;
		required |= t[n].need == JF_REQ ? (uint64_t)1 << n : 0;
	}
	keys[n] = NULL;
	if ((rc = jp_object(p, at)) <= 0)
		return rc;
	while ((rc = jp_member(p, at, keys, &seen, &idx, &key)) > 0) {
		struct jpath kp = JP_KEY(at, keys[idx]);

		TRY(pull_field(&t[idx], p, &kp, rec));
	}
	TRY(rc);
	for (size_t i = 0; i < n; i++)
		if (t[i].kind == JF_STRLIST && !(seen & (uint64_t)1 << i))
			((struct strlist *)member_of(rec, &t[i]))->is_null = true;
	if (seen_out)
		*seen_out = seen;
	return jp_require(p, at, keys, seen, required);
}
