/* Fuzz target: the strict decoder of a parity campaign's parity.json
 * (witness/parity.c), which promotion and verification read from a folder
 * anyone may have edited. Every input either decodes into the two arms in
 * order with engines, and a schedule of runs of those arms with digests, or
 * is refused with a message; nothing leaks (the sanitizers check). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/parity.h"
#include "witness/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct witness_parity wp;
	struct err e;

	e.msg[0] = '\0';
	if (witness_parity_parse((const char *)data, size, &wp, &e) == 0) {
		if (!wp.doc || !wp.engines[0] || !wp.engines[1] || !wp.lever_id ||
		    !wp.envelope_id || !wp.envelope_digest || !wp.experiment_id ||
		    wp.x.id != wp.experiment_id || (wp.x.nr_schedule && !wp.x.schedule))
			abort();
		for (size_t i = 0; i < wp.x.nr_schedule; i++) {
			const struct receipt_run *r = &wp.x.schedule[i];

			if ((strcmp(r->arm, "baseline") && strcmp(r->arm, "candidate")) ||
			    r->index < 0 || r->index > 1000000 || !r->kind ||
			    !r->attestation_digest)
				abort();
		}
		/* what the decoder took is what the bytes say */
		if (strcmp(json_string_value(json_object_get(wp.doc, "schema")),
			   PARITY_SCHEMA))
			abort();
	} else if (!e.msg[0] || strncmp(e.msg, PARITY_FILE ": ", strlen(PARITY_FILE) + 2)) {
		abort();
	}
	witness_parity_release(&wp);
	return 0;
}
