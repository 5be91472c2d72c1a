/* libFuzzer target: the quality prompts file (src/serve/quality.c), read
 * from a file anyone can edit. What the reader accepts must render to
 * canonical bytes that read back to the same set, and its log must be
 * JSON lines. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "serve/quality.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT, log = STRBUF_INIT;
	struct quality_set s, s2;
	char d[72], d2[72];
	struct err e;
	json_t *doc = json_parse_strict((const char *)data, size, NULL, &e), *doc2;
	char **out;

	if (!doc)
		return 0;
	if (quality_decode(doc, &s, &e) < 0) {
		json_decref(doc);
		if (!e.msg[0])
			abort();
		return 0;
	}
	json_decref(doc);
	if (quality_render(&s, NULL, &sb, d, &e) < 0)
		abort();
	doc2 = json_parse_strict(sb.buf, sb.len, NULL, &e);
	if (!doc2 || quality_decode(doc2, &s2, &e) < 0 || s2.nr != s.nr ||
	    quality_render(&s2, NULL, &sb2, d2, &e) < 0 || strcmp(d, d2) ||
	    strcmp(sb.buf, sb2.buf))
		abort();
	json_decref(doc2);
	/* the references as outputs: every prompt that has one matches */
	out = calloc(s.nr, sizeof(*out));
	for (size_t i = 0; i < s.nr; i++)
		out[i] = s.p[i].reference;
	if (quality_missing_reference(&s) < 0 && quality_matched(&s, out) != s.nr)
		abort();
	quality_log(&s, d, out, &log);
	if (!log.len || log.buf[log.len - 1] != '\n')
		abort();
	free(out);
	quality_release(&s);
	quality_release(&s2);
	sb_release(&sb);
	sb_release(&sb2);
	sb_release(&log);
	return 0;
}
