/* Fuzz target: the scrubbed-text rules (base/text.c), for free text and for
 * commands, and the printable-text rule. Any text is judged without reading
 * outside it; the reason is given exactly when the text is refused, and
 * judging is the same with and without a reason buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "base/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);	/* up to the first NUL */
	struct strbuf why = STRBUF_INIT;
	bool ok = str_scrubbed(s, &why);

	if (ok != str_scrubbed(s, NULL) || ok != (why.len == 0))
		abort();
	sb_reset(&why);
	ok = str_scrubbed_command(s, &why);
	if (ok != str_scrubbed_command(s, NULL) || ok != (why.len == 0))
		abort();
	sb_reset(&why);
	ok = str_printable(s, "\t\n", &why);
	if (ok != str_printable(s, "\t\n", NULL) || ok != (why.len == 0))
		abort();
	sb_release(&why);
	free(s);
	return 0;
}
