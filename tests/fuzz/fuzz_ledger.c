/* Fuzz target: the attempt ledger's loader and the attempt.json decoder
 * (receipt/ledger.c). Every input either verifies as a hash chain (seq
 * consecutive from 1, each prev the digest before it) or is refused with a
 * message that names its line; attempt.json decodes within its bounds or
 * is refused; nothing leaks (the sanitizers check). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/ledger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ledger l;
	struct ledger_record r;
	struct err e;

	if (ledger_parse((const char *)data, size, "attempts.jsonl", &l, &e) == 0) {
		const char *prev = LEDGER_ZERO;

		for (size_t i = 0; i < l.nr; i++) {
			if (l.lines[i].seq != (long long)i + 1 || strcmp(l.lines[i].prev, prev))
				abort();
			prev = l.lines[i].digest;
		}
		if (l.nr && ledger_attempt_number(&l, l.lines[0].experiment_id) == 0 &&
		    l.lines[0].event == LEDGER_STARTED)
			abort();
		ledger_release(&l);
	} else if (!e.msg[0] || strncmp(e.msg, "attempts.jsonl: ", 16)) {
		abort();
	}
	if (ledger_record_parse((const char *)data, size, "attempt.json", &r, &e) == 0) {
		if (r.attempt < 1 || r.attempts < r.attempt || r.ended_seq <= r.started_seq)
			abort();
		ledger_record_release(&r);
	} else if (!e.msg[0]) {
		abort();
	}
	return 0;
}
