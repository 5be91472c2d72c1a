/* Fuzz target: the attempt ledger's loader (receipt/ledger.c). Every input
 * either verifies as a hash chain (seq consecutive from 1, each prev the
 * digest before it) or is refused with a message that names its line;
 * nothing leaks (the sanitizers check). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/ledger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ledger l;
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
	return 0;
}
