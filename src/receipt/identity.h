#ifndef FAK_RECEIPT_IDENTITY_H
#define FAK_RECEIPT_IDENTITY_H
/* The engine a run showed against the envelope it claims (docs/receipts.md,
 * "What binds a witness to its engine and host"): the identity a run's
 * output stated, as its metrics parser sealed it (struct wl_identity), is
 * the engine's word; the envelope's engine is only the graph's. */
#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "graph/graph.h"
#include "attestation/workload.h"

/* Whether what a run stated about its engine agrees with envelope env: the
 * engine and the forward path it states are the envelope's, a build commit
 * it states is a word of the envelope's forward path, and the backends it
 * states include the envelope's backend (in any case). An identity that
 * states nothing agrees (it was not observed: receipt_identity_observed).
 * false with the reason appended to why, a clause that follows "the run". */
bool receipt_identity_agrees(const struct envelope *env, const struct wl_identity *id,
			     struct strbuf *why);

struct attestation;
struct receipt;

/* RECEIPT_IDENTITY_OBSERVED when every one of the n sealed runs stated
 * its engine (its metrics' identity), else RECEIPT_IDENTITY_DECLARED (none
 * for n = 0). Static strings. */
const char *receipt_identity_of_runs(const struct attestation *const *runs, size_t n);
/* The same for a receipt's embedded attestations (validated or not: only
 * workload.metrics.engine is read), one per repetition. */
const char *receipt_identity_of_receipt(const struct receipt *r);
/* The receipt's recorded identity: engine_identity, declared when absent. */
const char *receipt_identity_recorded(const struct receipt *r);

#endif
