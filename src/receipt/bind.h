#ifndef FAK_RECEIPT_BIND_H
#define FAK_RECEIPT_BIND_H
/* Inside receipt/: the sealed-metrics rules of receipt_validate. */
#include <stdbool.h>
#include <stddef.h>

#include "base/findings.h"
#include "receipt/receipt.h"
#include "attestation/attestation.h"

/* atts[i] is the decoded attestation r->system_baselines[i] (n of them),
 * NULL where attestation_check failed (that has its own finding). Appends one
 * finding per mismatch between a repetition and its sealed run, per
 * schedule problem of the experiment member, and for memory or quality
 * that differ from what a fully bound receipt's runs measured. partial:
 * fewer attestations than repetitions are allowed (while --attach-receipt
 * builds the receipt up); otherwise sealed runs bind every repetition. */
void receipt_check_bindings(const struct receipt *r, const struct attestation *const *atts,
			    size_t n, bool partial, struct findings *out);

#endif
