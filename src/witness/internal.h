#ifndef FAK_WITNESS_INTERNAL_H
#define FAK_WITNESS_INTERNAL_H
/* Inside witness/: what promotion writes and verification re-derives. */
#include <jansson.h>

#include "base/jfields.h"
#include "base/findings.h"
#include "graph/graph.h"
#include "index/index.h"
#include "receipt/receipt.h"
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
 * *have_idx) and validated: refusals in out (the graph's own findings set
 * p->invalid_graph), -1 with e for I/O. The one load of the files a change
 * rewrites: the CLI does not load them before (cli/evidence.h, EV_CHANGE). */
int witness_load_state(const struct witness_paths *paths, struct promotion *p, struct graph *g,
		       bool *have_g, struct index *idx, bool *have_idx, struct findings *out,
		       struct err *e);

/* The new graph and index (p->new_*) load and validate together, as any
 * later command will read them; p->next_lever gets the graph's next lever. */
int witness_check_new(struct promotion *p, struct findings *out, struct err *e);

/* A numerical next witness (requirement.c): every threshold of l's
 * requirement met by every run of cand that states its quality (the metric a
 * numerical member or the quality itself; a llama-bench arm's quality run,
 * else every repetition; a receipt sealing none, its stated quality). One
 * finding per threshold missing or missed, naming the worst run. */
struct receipt;
void witness_check_numerical(const struct lever *l, const struct receipt *cand,
			     const char *cand_name, struct findings *out);

/* The lever's next_witness_requirement as the graph states it now, against
 * the evidence of its witness folder (requirement.c): the A/B's candidate
 * receipt (engines NULL) or a parity campaign's two engines (cand NULL). A
 * requirement changed since the promotion (tightened, another kind, other
 * engines) that the evidence does not meet is a finding naming what misses
 * and saying to witness the lever again. */
void witness_recheck_requirement(const struct lever *l, const struct receipt *cand,
				 const char *const engines[2], struct findings *out);

/* A parity campaign's folder (parity.c): parity.json read (the members
 * below point into doc; x holds its schedule, for the runs' check), then
 * its runs: every attestation of the schedule verified and sealed as that
 * run of this campaign, and the parity member derived again from them
 * (recomputed), which parity.json must hold. */
struct witness_parity {
	struct strbuf bytes;
	json_t *doc;
	const char *lever_id, *envelope_id, *envelope_digest, *envelope_state, *machine_id;
	const char *experiment_id;
	const char *engines[2];		/* the arms' engines, in order */
	struct receipt_experiment x;	/* id and schedule only; owned array */
	json_t *recomputed;
	char last_started[40];		/* the latest start of a run */
};
int witness_parity_read(const char *dir, struct witness_parity *wp, struct err *e);
/* The same from len bytes at buf (copied; the fuzz target's entry): on -1,
 * e says why and wp still needs witness_parity_release. */
int witness_parity_parse(const char *buf, size_t len, struct witness_parity *wp, struct err *e);
/* crit (NULL: not judged): every run's quality must meet it. */
void witness_parity_runs(const char *dir, struct witness_parity *wp, const struct criterion *crit,
			 struct findings *out);
void witness_parity_release(struct witness_parity *wp);

#endif
