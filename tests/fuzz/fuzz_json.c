/* Fuzz target: strict JSON parsing (jansson) and our writers. Whatever
 * parses must print, re-parse to an equal value, and canonicalize. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e;
	struct strbuf a = STRBUF_INIT, c = STRBUF_INIT;
	json_t *v = json_parse_strict((const char *)data, size, NULL, &e), *w;

	if (!v)
		return 0;
	json_write_pretty(&a, v);
	w = json_parse_strict(a.buf, a.len, NULL, &e);
	if (!w)
		abort();	/* our own output must parse */
	(void)json_write_canonical(&c, v, &e);
	json_decref(w);
	json_decref(v);
	sb_release(&a);
	sb_release(&c);
	return 0;
}
