#include "base/jfields.h"

#include <string.h>

#include "base/err.h"

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

void jf_encode(const struct jfield *t, const void *rec, json_t *obj)
{
	for (const struct jfield *f = t; f->name; f++) {
		const void *src = cmember_of(rec, f);
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
		case JF_HAND:
			break;
		}
	}
}

json_t *jf_to_json(const struct jfield *t, const void *rec)
{
	json_t *o = jobj();

	jf_encode(t, rec, o);
	return o;
}
