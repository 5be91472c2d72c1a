#ifndef FAK_RECEIPT_VERIFIED_H
#define FAK_RECEIPT_VERIFIED_H
/* Inside receipt/: the one verification of a decoded receipt's attestations
 * (receipt_decode) and its release (receipt_release). */
#include "receipt/receipt.h"

/* Verifies every attestation r holds, once each: system_baselines[] and the
 * experiment's quality attestation. */
void receipt_verify_attestations(struct receipt *r);
/* Frees what those verifications own. */
void receipt_release_attestations(struct receipt *r);

#endif
