#ifndef FAK_WITNESS_INTERNAL_H
#define FAK_WITNESS_INTERNAL_H
/* Inside witness/: what promotion writes and verification re-derives. */
#include <jansson.h>

#include "base/jfields.h"
#include "base/findings.h"
#include "graph/graph.h"
#include "index/index.h"
#include "witness/witness.h"

/* The claim a promotion quotes, from a comparison document:
 * "median 7.942 -> 18.18 tok/s (+128.9%, 90% interval +122.6%..+134.4%,
 * n=3+3)". Caller frees. */
char *witness_shift_text(const json_t *cmp);

/* The manifest's "attempt" object: struct witness_attempt's members in
 * this order (recorded is not among them: the object is null without). */
extern const struct jfield witness_attempt_fields[];

/* The object in tree's array `array` whose "id" is id, or NULL. Borrowed. */
json_t *witness_member(json_t *tree, const char *array, const char *id);

/* In tree (a graph's JSON), lever l enabled and present, and every enabled
 * lever that conflicts with it turned off (present ones become partial;
 * their ids appended to p->disabled). */
void witness_turn_on(json_t *tree, const struct lever *l, struct promotion *p);

/* The graph and the index as they stand (p->old_*), loaded (*have_g,
 * *have_idx) and validated: refusals in out, -1 with e for I/O. */
int witness_load_state(const struct witness_paths *paths, struct promotion *p, struct graph *g,
		       bool *have_g, struct index *idx, bool *have_idx, struct findings *out,
		       struct err *e);

/* The new graph and index (p->new_*) load and validate together, as any
 * later command will read them; p->next_lever gets the graph's next lever. */
int witness_check_new(struct promotion *p, struct findings *out, struct err *e);

#endif
