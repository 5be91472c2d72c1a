/* libFuzzer target: the event-stream parser and the completion chunk
 * reader (src/serve/sse.c), on bytes a server sent. The first byte picks
 * where the stream is cut in two; the events must not depend on the cut,
 * every event's data must stay within its bound, every chunk the reader
 * accepts must say something consistent, and the reader's fast path (no
 * tree) must read every chunk it takes exactly as the full read does. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "serve/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fast path agrees with the full read wherever it answers. */
static void same_as_full(const char *d, size_t len)
{
	struct sse_chunk fast, full;
	struct err e;

	if (!sse_chunk_fast(d, len, &fast))
		return;
	if (sse_chunk_parse_full(d, len, &full, &e) < 0 || fast.kind != full.kind ||
	    fast.finished != full.finished || fast.completion_tokens != full.completion_tokens ||
	    fast.prompt_tokens != full.prompt_tokens || fast.cached_tokens != full.cached_tokens)
		abort();
}

static int collect(void *ctx, const char *d, size_t len)
{
	struct strbuf *sb = ctx;
	struct sse_chunk c;
	struct err e;

	if (len > SSE_EVENT_MAX)
		abort();
	same_as_full(d, len);
	sb_addf(sb, "%zu:", len);
	sb_add(sb, d, len);
	e.msg[0] = '\0';
	if (sse_chunk_parse(d, len, &c, &e) < 0) {
		if (!e.msg[0])
			abort();
		return 0;
	}
	if (c.kind == SSE_CHUNK_ERROR ? !memchr(c.error, '\0', sizeof(c.error)) : !!c.error[0])
		abort();
	if (c.completion_tokens < -1 || c.prompt_tokens < -1 || c.cached_tokens < -1)
		abort();
	return 0;
}

static void run(const char *buf, size_t size, size_t cut, struct strbuf *out, int *rc)
{
	struct sse s = SSE_INIT;
	struct err e;

	*rc = sse_feed(&s, buf, cut, collect, out, &e);
	if (*rc == 0)
		*rc = sse_feed(&s, buf + cut, size - cut, collect, out, &e);
	sse_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	const char *buf = (const char *)data + 1;
	size_t cut;
	int ra, rb;

	if (!size)
		return 0;
	size--;
	cut = size ? data[0] % (size + 1) : 0;
	run(buf, size, 0, &a, &ra);
	run(buf, size, cut, &b, &rb);
	if (ra != rb || (ra == 0 && (a.len != b.len || memcmp(sb_str(&a), sb_str(&b), a.len))))
		abort();
	sb_release(&a);
	sb_release(&b);
	return 0;
}
