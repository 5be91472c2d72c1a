#ifndef FAK_WITNESS_INTERNAL_H
#define FAK_WITNESS_INTERNAL_H
/* Inside witness/: what promotion writes and verification re-derives. */
#include <jansson.h>

#include "base/jfields.h"

/* The claim a promotion quotes, from a comparison document:
 * "median 7.942 -> 18.18 tok/s (+128.9%, 90% interval +122.6%..+134.4%,
 * n=3+3)". Caller frees. */
char *witness_shift_text(const json_t *cmp);

/* The manifest's "attempt" object: struct witness_attempt's members in
 * this order (recorded is not among them: the object is null without). */
extern const struct jfield witness_attempt_fields[];

#endif
