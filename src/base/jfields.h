#ifndef FAK_BASE_JFIELDS_H
#define FAK_BASE_JFIELDS_H
/* Field tables for JSON records: each member is listed once (name, kind,
 * need, offset) and the decoders and one encoder walk the table, in its
 * order, which is the documented key order.
 *
 * Two decoders: jf_decode reads a jansson value, checks the keys like
 * jd_object and reads each member with the jd_* getters, so errors carry
 * the same JSON paths and wording; jf_pull reads the same table from the
 * pull reader (base/jsonpull.h), for the large documents (the graph).
 * Nested records are JF_OBJ members (one record, its own table) and JF_ARR
 * members (an array of records, each of the element table); a string list
 * is JF_STRLIST. A nested record may keep its JSON value (`keep`): it is
 * then written as a copy of that value, its table only read. Members that
 * none covers (values checked against others, maps) are JF_CODED (a codec
 * reads and writes them in their place) or JF_HAND entries: known keys that
 * the caller decodes and encodes itself, before or after the walk (for
 * jf_pull, in `pull`). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/json.h"

struct jpull;

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
	JF_STRLIST,	/* struct strlist: an array of strings; absent reads as null */
	JF_OBJ,		/* a record read with `sub`, at offset (0: the same record) */
	JF_ARR,		/* an array of records of `sub`, each `size` bytes: a malloc'd
			 * pointer at offset and its size_t count at `count` (the
			 * array is stored before its elements are read, so a failed
			 * read leaves it for the caller to free); JF_OMIT: not
			 * written when empty */
	JF_CODED,	/* read and written by `codec` with `arg` (jf_decode, jf_encode) */
	JF_HAND,	/* a known key the caller decodes and encodes */
};

/* How a JF_CODED member is read (member key of obj, at obj's path; it
 * reports a missing one: 1 when an optional one is absent) and written (a
 * new reference; NULL: not written); arg is the field's. */
struct jf_codec {
	int (*decode)(const json_t *obj, const struct jpath *at, const char *key, void *dst,
		      const void *arg, struct err *e);
	json_t *(*encode)(const void *src, const void *arg);
};

/* A list of borrowed strings; null when is_null (kept for byte-exact output). */
struct strlist {
	const char **v;	/* owned array of borrowed strings */
	size_t n;
	bool is_null;	/* JSON null rather than [] */
};

/* Flags of a member. */
/* null is read, as NULL (a JF_STR: jf_pull only), is_null or `has` false, and written so */
#define JF_NULLABLE 1u
#define JF_NULL_READ 2u	/* a JF_STRLIST's null is read as is_null, but written as [] */

enum jf_need {
	JF_REQ,		/* must be present; always written */
	JF_OPT,		/* may be absent (the value is left as it was); always written */
	JF_OMIT,	/* may be absent (left as it was); not written when empty:
			 * "" (a text kind), NULL (JF_STR; "" is written), 0, false,
			 * a null JF_STRLIST */
};

struct jfield {
	const char *name;	/* NULL ends a table */
	enum jf_kind kind;
	enum jf_need need;
	size_t offset, size;	/* of the member in the record */
	/* Runs right after the member was read from the document (not when it
	 * was absent); at is the member's path (at->up the record's). */
	int (*check)(const void *rec, const struct jpath *at, struct err *e);
	unsigned flags;			/* JF_NULLABLE, JF_NULL_READ */
	/* 0, or 1 + the offset of a bool that says the member is present: set
	 * when it is read; when false the member is written as null (JF_REQ
	 * with JF_NULLABLE) or not at all */
	size_t has;
	/* JF_OBJ, JF_ARR: the fields of the record; a JF_ARR with none (and
	 * `keep`) holds objects of any members */
	const struct jfield *sub;
	/* JF_OBJ, JF_ARR (jf_decode): 0, or 1 + the offset in the record (of
	 * each element) of a const json_t * that gets its JSON value, borrowed;
	 * the record is then written as a copy of that value */
	size_t keep;
	size_t count;			/* JF_ARR: the offset of the element count */
	void (*init)(void *rec);	/* JF_OBJ, JF_ARR: defaults before a record is read */
	const struct jf_codec *codec;	/* JF_CODED */
	const void *arg;
	/* JF_HAND under jf_pull: reads the member's value into rec */
	int (*pull)(struct jpull *p, const struct jpath *at, void *rec);
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
#define JF_OFF_JF_STRLIST(T, m) JF_SCALAR(struct strlist, T, m)
/* 1 + the offset of bool member b of T (a `has`) */
#define JF_HAS(T, b) (1 + JF_SCALAR(bool, T, b))

/* Member m of record type T stored under key. */
#define JF_KEYC(key, kind_, T, m, need_, check_fn) \
	{ .name = (key), .kind = kind_, .need = (need_), .offset = JF_OFF_##kind_(T, m), \
	  .size = sizeof(((T *)0)->m), .check = (check_fn) }
#define JF_KEY(key, kind, T, m, need_) JF_KEYC(key, kind, T, m, need_, NULL)
/* The key is the member's name. */
#define JF(kind, T, m, need_) JF_KEYC(#m, kind, T, m, need_, NULL)
#define JF_HANDS(key) { .name = (key), .kind = JF_HAND, .need = JF_REQ }
#define JF_END { .name = NULL }
/* With flags (JF_NULLABLE). */
#define JF_KEYF(key, kind_, T, m, need_, fl) \
	{ .name = (key), .kind = kind_, .need = (need_), .offset = JF_OFF_##kind_(T, m), \
	  .size = sizeof(((T *)0)->m), .flags = (fl) }
/* An optional member m stored under key, present when bool member b is true. */
#define JF_KEYH(key, kind_, T, m, b) \
	{ .name = (key), .kind = kind_, .need = JF_OPT, .offset = JF_OFF_##kind_(T, m), \
	  .size = sizeof(((T *)0)->m), .has = JF_HAS(T, b) }
/* The same, the key the member's name. */
#define JF_HASF(kind_, T, m, b) JF_KEYH(#m, kind_, T, m, b)
/* A string list (flags: JF_NULLABLE, JF_NULL_READ or 0). */
#define JF_LIST(key, T, m, need_, fl) \
	{ .name = (key), .kind = JF_STRLIST, .need = (need_), \
	  .offset = JF_OFF_JF_STRLIST(T, m), .size = sizeof(struct strlist), .flags = (fl) }
/* Record member m of T, read with table sub; present when has (0: always). */
#define JF_SUB(key, T, m, tab, need_, fl, has_) \
	{ .name = (key), .kind = JF_OBJ, .need = (need_), .offset = offsetof(T, m), \
	  .size = sizeof(((T *)0)->m), .flags = (fl), .has = (has_), .sub = (tab) }
/* Members of the same record grouped under key (table sub, offsets of the record). */
#define JF_GROUP(key, tab, need_, fl, has_) \
	{ .name = (key), .kind = JF_OBJ, .need = (need_), .flags = (fl), .has = (has_), \
	  .sub = (tab) }
/* A `keep`: 1 + the offset of member j of record type S, a const json_t *. */
#define JF_KEEP(S, j) (1 + JF_SCALAR(const json_t *, S, j))
/* Array member: pointer m and count n of T, elements read with table sub. */
#define JF_ARRAY_OF(key, T, m, n, tab, need_, init_) \
	{ .name = (key), .kind = JF_ARR, .need = (need_), .offset = offsetof(T, m), \
	  .size = sizeof(*((T *)0)->m), .sub = (tab), \
	  .count = JF_SCALAR(size_t, T, n), .init = (init_) }
/* The same, present when has (0: always), each element kept when keep_
 * (JF_KEEP; 0: not kept), with no defaults. */
#define JF_ARRAY_KEPT(key, T, m, n, tab, need_, has_, keep_) \
	{ .name = (key), .kind = JF_ARR, .need = (need_), .offset = offsetof(T, m), \
	  .size = sizeof(*((T *)0)->m), .sub = (tab), .has = (has_), \
	  .count = JF_SCALAR(size_t, T, n), .keep = (keep_) }
/* Optional record member m of T, present when bool b, kept (JF_KEEP). */
#define JF_SUB_KEPT(key, T, m, tab, b, keep_) \
	{ .name = (key), .kind = JF_OBJ, .need = JF_OPT, .offset = offsetof(T, m), \
	  .size = sizeof(((T *)0)->m), .has = JF_HAS(T, b), .sub = (tab), .keep = (keep_) }
/* Member m of T of C type type, read and written by codec with arg. */
#define JF_CODEC(key, type, T, m, codec_, arg_) \
	{ .name = (key), .kind = JF_CODED, .need = JF_REQ, .offset = JF_SCALAR(type, T, m), \
	  .size = sizeof(((T *)0)->m), .codec = (codec_), .arg = (arg_) }
/* The same, optional: present when bool b (the codec returns 1 when absent). */
#define JF_CODEC_HAS(key, type, T, m, codec_, arg_, b) \
	{ .name = (key), .kind = JF_CODED, .need = JF_OPT, .offset = JF_SCALAR(type, T, m), \
	  .size = sizeof(((T *)0)->m), .codec = (codec_), .arg = (arg_), .has = JF_HAS(T, b) }
/* A member read by hand under jf_pull (fn) and written by the caller. */
#define JF_PULLED(key, need_, fn) { .name = (key), .kind = JF_HAND, .need = (need_), .pull = (fn) }

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

/* The pull reader's next value, an object, into rec with table t: unknown,
 * duplicate and missing members are the reader's problems (jp_member,
 * jp_require); a JF_STRLIST that is absent reads as null. *seen (NULL: not
 * wanted) gets bit i for member t[i] read. 0 (also when the reader skipped
 * a value it collected as a problem), -1 on error. */
int jf_pull(const struct jfield *t, struct jpull *p, const struct jpath *at, void *rec,
	    uint64_t *seen);

/* Appends every member but the JF_HAND ones to obj, in table order. */
void jf_encode(const struct jfield *t, const void *rec, json_t *obj);
/* A new object holding jf_encode's members (new reference). */
json_t *jf_to_json(const struct jfield *t, const void *rec);

#endif
