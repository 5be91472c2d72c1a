#ifndef FAK_BASE_JFIELDS_H
#define FAK_BASE_JFIELDS_H
/* Field tables for flat JSON records: each member is listed once (name,
 * kind, need, offset) and one decoder and one encoder walk the table, in
 * its order, which is the documented key order.
 *
 * The decoder checks the keys like jd_object and reads each member with the
 * jd_* getters, so errors carry the same JSON paths and wording. Members
 * that are not flat (objects, arrays, values checked against others) are
 * JF_HAND entries: known keys that the caller decodes and encodes itself,
 * before or after the walk. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/json.h"

enum jf_kind {
	JF_STR,		/* const char *, borrowed from the document; NULL encodes as null */
	JF_TEXT,	/* char[size]: "longer than N bytes" past size - 1 */
	JF_NAME,	/* char[size], 1 to size - 1 bytes: "must hold 1 to N bytes" */
	JF_INT,		/* int64_t */
	JF_LLONG,	/* long long */
	JF_COUNT,	/* int64_t, "must be non-negative" */
	JF_OPT_COUNT,	/* int64_t, non-negative when present; -1 when absent, and
			 * omitted on output when negative (need is ignored) */
	JF_NUM,		/* double, finite */
	JF_BOOL,	/* bool */
	JF_HAND,	/* a known key the caller decodes and encodes */
};

enum jf_need {
	JF_REQ,		/* must be present; always written */
	JF_OPT,		/* may be absent (the value is left as it was); always written */
	JF_OMIT,	/* may be absent (left as it was); not written when empty:
			 * "" (a text kind), NULL (JF_STR; "" is written), 0, false */
};

struct jfield {
	const char *name;	/* NULL ends a table */
	enum jf_kind kind;
	enum jf_need need;
	size_t offset, size;	/* of the member in the record */
	/* Runs right after the member was read from the document (not when it
	 * was absent); at is the member's path (at->up the record's). */
	int (*check)(const void *rec, const struct jpath *at, struct err *e);
};

/* The offset of member m of T, which must have the C type kind stores: any
 * other type does not compile. A scalar is matched by its type; a text kind
 * by its address, a pointer to a char array (a char pointer does not match,
 * while as a value an array would decay to one). */
#define JF_SCALAR(type, T, m) _Generic(((T *)0)->m, type: offsetof(T, m))
#define JF_ARRAY(T, m) _Generic(&((T *)0)->m, char(*)[sizeof(((T *)0)->m)]: offsetof(T, m))
#define JF_OFF_JF_STR(T, m) JF_SCALAR(const char *, T, m)
#define JF_OFF_JF_TEXT(T, m) JF_ARRAY(T, m)
#define JF_OFF_JF_NAME(T, m) JF_ARRAY(T, m)
#define JF_OFF_JF_INT(T, m) JF_SCALAR(int64_t, T, m)
#define JF_OFF_JF_LLONG(T, m) JF_SCALAR(long long, T, m)
#define JF_OFF_JF_COUNT(T, m) JF_SCALAR(int64_t, T, m)
#define JF_OFF_JF_OPT_COUNT(T, m) JF_SCALAR(int64_t, T, m)
#define JF_OFF_JF_NUM(T, m) JF_SCALAR(double, T, m)
#define JF_OFF_JF_BOOL(T, m) JF_SCALAR(bool, T, m)

/* Member m of record type T stored under key. */
#define JF_KEYC(key, kind, T, m, need, check_fn) \
	{ (key), kind, (need), JF_OFF_##kind(T, m), sizeof(((T *)0)->m), (check_fn) }
#define JF_KEY(key, kind, T, m, need) JF_KEYC(key, kind, T, m, need, NULL)
/* The key is the member's name. */
#define JF(kind, T, m, need) JF_KEYC(#m, kind, T, m, need, NULL)
#define JF_HANDS(key) { (key), JF_HAND, JF_REQ, 0, 0, NULL }
#define JF_END { NULL, JF_HAND, JF_REQ, 0, 0, NULL }

/* v must be an object whose keys are all in the table (jd_object). */
int jf_keys(const struct jfield *t, const json_t *v, const struct jpath *at, struct err *e);
/* Reads every member but the JF_HAND ones into rec, in table order. */
int jf_fields(const struct jfield *t, const json_t *obj, const struct jpath *at, void *rec,
	      struct err *e);
/* jf_keys, then jf_fields. */
int jf_decode(const struct jfield *t, const json_t *v, const struct jpath *at, void *rec,
	      struct err *e);
/* Object member key of obj (required), decoded with jf_decode at at.key. */
int jf_member(const struct jfield *t, const json_t *obj, const struct jpath *at, const char *key,
	      void *rec, struct err *e);

/* Appends every member but the JF_HAND ones to obj, in table order. */
void jf_encode(const struct jfield *t, const void *rec, json_t *obj);
/* A new object holding jf_encode's members (new reference). */
json_t *jf_to_json(const struct jfield *t, const void *rec);

#endif
