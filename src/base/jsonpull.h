#ifndef FAK_BASE_JSONPULL_H
#define FAK_BASE_JSONPULL_H
/* A strict, allocation-free pull reader for large JSON documents whose
 * schema the caller knows (the evidence graph). It decodes strings in place
 * in the caller's buffer, so every string it returns is borrowed from that
 * buffer. Syntax errors carry line and column; schema errors carry the JSON
 * path (struct jpath). Same rules as json_parse_strict: one value, no
 * trailing data, no duplicate keys, valid UTF-8, no \u0000, finite numbers.
 *
 * jansson builds a tree of ~10x the input size; this reads a 1,000,000-lever
 * graph without building one. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/json.h"

struct findings;

struct jpull {
	char *buf;	/* borrowed, mutable, NUL-terminated at buf[len] */
	size_t len, pos;
	struct err *e;
	struct findings *problems;	/* borrowed; NULL: the first problem fails */
};

/* buf[len] must be '\0'. */
void jp_init(struct jpull *p, char *buf, size_t len, struct err *e);
/* From now on, a schema problem that leaves the reader in step (an unknown,
 * duplicate or missing member, a value of another type, a fractional
 * integer) is added to problems ("path: what", in document order), its value
 * skipped, and the call succeeds with nothing stored: the caller reads on
 * and fails at the end when problems holds any. Syntax errors and the end
 * of the input still fail at once. */
void jp_collect(struct jpull *p, struct findings *problems);
/* After this many problems the next one fails (bounded work and memory). */
#define JP_MAX_PROBLEMS 100
/* Only white space may remain. */
int jp_finish(struct jpull *p);

/* The next value must be an object: consumes '{' and returns 1. Another
 * value is -1, or with jp_collect a problem: skipped, 0. */
int jp_object(struct jpull *p, const struct jpath *at);
/* Next member of the current object. keys is the NULL-terminated list of
 * allowed keys (at most 64); *seen tracks which were read. Returns 1 with
 * *idx set and the ':' consumed, 0 at the closing '}', -1 on error
 * (unknown or duplicate key, syntax). *key gets the member name. */
int jp_member(struct jpull *p, const struct jpath *at, const char *const *keys, uint64_t *seen,
	      size_t *idx, const char **key);
/* Member i (0 for the first) of an object used as a map; duplicates must
 * be checked by the caller. Returns 1 with ':' consumed, 0 at '}', -1. */
int jp_any_member(struct jpull *p, size_t i, const char **key);
/* Every key of `keys` whose bit is set in `required` must be in seen. */
int jp_require(struct jpull *p, const struct jpath *at, const char *const *keys, uint64_t seen,
	       uint64_t required);

/* The next value must be an array: the same with '['. */
int jp_array(struct jpull *p, const struct jpath *at);
/* Before element i (0 for the first): 1 when it follows, 0 at ']'
 * (consumed), -1 on error. */
int jp_next(struct jpull *p, size_t i);

/* Scalars; the error names the path and the type found. */
int jp_string(struct jpull *p, const struct jpath *at, const char **out);
int jp_int(struct jpull *p, const struct jpath *at, long long *out);
int jp_num(struct jpull *p, const struct jpath *at, double *out);
int jp_bool(struct jpull *p, const struct jpath *at, bool *out);
/* 1 and consumed when the next value is null, else 0 (nothing consumed). */
int jp_null(struct jpull *p);

#endif
