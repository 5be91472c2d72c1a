/* Fuzz target: the strict decoders of a witness's MANIFEST.json and of the
 * promotion journal (witness/decode.c). Every input either decodes into
 * paths that stay where fak writes, or is refused with a message; nothing
 * leaks (the sanitizers check). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "witness/witness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct witness_manifest m;
	struct witness_journal j;
	struct err e;

	if (witness_manifest_parse((const char *)data, size, &m, &e) == 0) {
		for (size_t i = 0; i < m.nr_files; i++)
			if (m.files[i].path[0] == '/' || strstr(m.files[i].path, ".."))
				abort();
		witness_manifest_release(&m);
	} else if (!e.msg[0]) {
		abort();
	}
	if (witness_journal_parse((const char *)data, size, &j, &e) == 0) {
		for (size_t i = 0; i < j.nr_steps; i++)
			if (!strstr(j.steps[i].from, "/.fak-promote-") || j.steps[i].to[0] != '/')
				abort();
		witness_journal_release(&j);
	} else if (!e.msg[0]) {
		abort();
	}
	return 0;
}
