#ifndef FAK_BASE_JSON_H
#define FAK_BASE_JSON_H
/* JSON on jansson: strict decoding with JSON paths in errors, deterministic
 * output (insertion key order, two-space indent, shortest round-trip
 * numbers, no HTML escaping), RFC 8785 canonical form and SHA-256 digests.
 *
 * Reference counts: functions taking `const json_t *` borrow; json_parse_strict
 * returns a new reference the caller must json_decref. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/strbuf.h"

/* ---- parsing -------------------------------------------------------- */

/* Exactly one JSON value (object or array at top level), duplicate keys,
 * trailing data, NaN/Infinity and numbers out of range rejected.
 * Errors read "<what>: line L, column C: <reason>" ("line L, ..." when
 * what is NULL). */
json_t *json_parse_strict(const char *buf, size_t len, const char *what, struct err *e);

/* Deep equality where numbers compare by value (2 and 2.0 are equal: a
 * document built in memory and the same document read back from its text
 * differ only in that). Object member order does not matter. */
bool json_same(const json_t *a, const json_t *b);

/* ---- output ---------------------------------------------------------- */

/* Two-space indented document followed by one newline. Strings escape
 * every control character, C0, DEL and C1 (U+0080..U+009F) as \u00XX. */
void json_write_pretty(struct strbuf *out, const json_t *v);
/* Compact form, insertion order, no spaces. */
void json_write_compact(struct strbuf *out, const json_t *v);
/* An integer in decimal and a string escaped as the writers above do, for
 * a caller that writes a document of a known shape itself (no printf). */
void json_write_int(struct strbuf *out, long long v);
void json_write_str(struct strbuf *out, const char *s);
/* RFC 8785 (JCS) canonical form: keys sorted by UTF-16 code units, ES6
 * number form. Fails only for integers beyond 2^53 (not representable). */
int json_write_canonical(struct strbuf *out, const json_t *v, struct err *e);

/* Shortest decimal that reads back as d: "6.966061", "5", "1e-7", "1e+21".
 * Same thresholds as ECMAScript Number.prototype.toString; -0 prints "0".
 * buf must hold JSON_NUMBER_MAX bytes. Non-finite values BUG(). */
#define JSON_NUMBER_MAX 32
void json_format_double(char *buf, double d);

/* "sha256:" + 64 lowercase hex digits + NUL */
#define JSON_DIGEST_LEN (7 + 64)
/* Digest of the canonical form of v with its top-level member `omit`
 * removed (omit may be NULL). */
int json_digest(const json_t *v, const char *omit, char out[JSON_DIGEST_LEN + 1], struct err *e);
/* Lowercase hex SHA-256 of bytes; out gets 64 chars + NUL. */
void sha256_hex(const void *data, size_t len, char out[65]);

/* ---- strict typed decoding ------------------------------------------ */

/* A JSON path built on the stack as the decoder descends; formatted only
 * when an error needs it: levers[3].conflict_ids[0]. */
struct jpath {
	const struct jpath *up;
	const char *key;	/* NULL: array element `idx` */
	size_t idx;
};
#define JP_KEY(parent, k) ((struct jpath){ .up = (parent), .key = (k) })
#define JP_IDX(parent, i) ((struct jpath){ .up = (parent), .key = NULL, .idx = (i) })
/* Appends the path ("$" for the root). */
void jpath_format(const struct jpath *p, struct strbuf *out);
/* err_set with "<path>: " in front. Returns -1. */
int jpath_err(struct err *e, const struct jpath *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* v must be an object whose keys are all in `known` (NULL-terminated). */
int jd_object(const json_t *v, const struct jpath *at, const char *const *known, struct err *e);
/* The head of a document of ours: v is an object whose keys are all in
 * `known` and whose "schema" member is schema (`schema: expected "S", found
 * "T"`). */
int jd_schema(const json_t *v, const char *const *known, const char *schema, struct err *e);
/* The same with the names `stride` bytes apart (a name member of a table of
 * records), ending at a NULL name. */
int jd_object_names(const json_t *v, const struct jpath *at, const char *const *names,
		    size_t stride, struct err *e);

enum jd_need { JD_REQUIRED, JD_OPTIONAL };
#define REQ JD_REQUIRED
#define OPT JD_OPTIONAL

/* Member getters on object `obj` at path `at`. Return 0 when set, 1 when an
 * optional member is absent (out untouched), -1 on error (missing required
 * member, wrong type, null). */
int jd_str(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   const char **out, struct err *e);
int jd_int(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   long long *out, struct err *e);
/* Any JSON number (integer or real); always finite. */
int jd_num(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   double *out, struct err *e);
int jd_bool(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	    bool *out, struct err *e);
/* Object member; *out borrowed. */
int jd_obj(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   const json_t **out, struct err *e);
/* Array member; with allow_null a JSON null is accepted and *out = NULL. */
int jd_arr(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
	   bool allow_null, const json_t **out, struct err *e);
/* Object-or-null member (*out = NULL for null). */
int jd_obj_or_null(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
		   const json_t **out, struct err *e);

/* Element i of an array of strings. */
int jd_str_at(const json_t *arr, const struct jpath *at, size_t i, const char **out, struct err *e);

/* ---- building output documents -------------------------------------- */

/* Small wrappers that abort on allocation failure and keep call sites short.
 * They steal nothing: values are copied. */
void jset_str(json_t *obj, const char *key, const char *s);	/* s NULL -> null */
void jset_int(json_t *obj, const char *key, long long v);
void jset_num(json_t *obj, const char *key, double v);
void jset_bool(json_t *obj, const char *key, bool v);
/* Steals v. */
void jset_new(json_t *obj, const char *key, json_t *v);
/* Steals v. */
void jpush_new(json_t *arr, json_t *v);
json_t *jobj(void);
json_t *jarr(void);

#endif
