#ifndef FAK_RECEIPT_FIELDS_H
#define FAK_RECEIPT_FIELDS_H
/* The field tables of a receipt's records (base/jfields.h), in the
 * documented key order: receipt.c decodes a receipt with them (jf_decode)
 * and writes it (jf_to_json). Internal to receipt/. */
#include "base/jfields.h"

/* struct receipt. The experiment, the envelope state, ambient evidence and
 * embedded attestations keep their JSON value and are written as copies of
 * it (their tables are only read). */
extern const struct jfield receipt_fields[];

#endif
