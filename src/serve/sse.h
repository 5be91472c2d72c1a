#ifndef FAK_SERVE_SSE_H
#define FAK_SERVE_SSE_H
/* Server-sent events (the WHATWG event-stream format) and the chunks of an
 * OpenAI-compatible streaming completion. Pure functions over buffers: the
 * parser holds its own bounded state and never sees a socket, so it is
 * unit-tested and fuzzed (tests/fuzz/fuzz_sse.c). */
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/strbuf.h"

/* An event's data may not grow past this; a line neither. */
#define SSE_EVENT_MAX ((size_t)1 << 20)

struct sse {
	struct strbuf line;	/* the line being read */
	struct strbuf data;	/* the event's data lines, joined by '\n' */
	bool has_data;		/* a data field was seen since the last dispatch */
	bool after_cr;		/* the last byte was CR: a following LF ends nothing */
	bool failed;
	size_t events;
};
#define SSE_INIT { .line = STRBUF_INIT, .data = STRBUF_INIT }

/* Called for each complete event that has data (data borrowed until the
 * callback returns); a non-zero return stops sse_feed, which then returns
 * it. Events with no data field (comments, bare "event:" lines) are not
 * dispatched, as the specification says. */
typedef int (*sse_event_fn)(void *ctx, const char *data, size_t len);

/* Feeds len bytes. Lines end at LF, CR or CRLF; a field is "name: value"
 * (one space after the colon is dropped); ':' starts a comment; a blank
 * line dispatches. Returns 0, the callback's non-zero value, or -1 with e
 * when an event or line passes SSE_EVENT_MAX (the parser stays failed). */
int sse_feed(struct sse *s, const char *buf, size_t len, sse_event_fn fn, void *ctx,
	     struct err *e);
/* True when bytes of an unfinished event are pending (a stream that ends
 * here was cut). */
bool sse_pending(const struct sse *s);
/* Back to the start of a stream, its buffers kept for the next. */
void sse_reset(struct sse *s);
void sse_release(struct sse *s);

/* What one chunk of a streaming completion says. */
enum sse_chunk_kind {
	SSE_CHUNK_DONE,		/* data: [DONE] */
	SSE_CHUNK_TEXT,		/* choices present: a token-bearing chunk */
	SSE_CHUNK_USAGE,	/* no choices (or empty), usage only */
	SSE_CHUNK_ERROR,	/* {"error": ...} in the stream */
};

struct sse_chunk {
	enum sse_chunk_kind kind;
	long long completion_tokens;	/* usage.completion_tokens, -1 absent */
	long long prompt_tokens;	/* usage.prompt_tokens, -1 absent */
	long long cached_tokens;	/* usage.prompt_tokens_details.cached_tokens or
					 * timings.cache_n (llama-server), -1 absent */
	bool finished;			/* choices[0].finish_reason is a string */
	char error[160];		/* for SSE_CHUNK_ERROR: the server's message */
};

/* Reads one event's data. -1 with e for what no OpenAI-compatible server
 * sends: data that is not one JSON object, an object with neither choices
 * nor usage nor error, members of the wrong type. */
int sse_chunk_parse(const char *data, size_t len, struct sse_chunk *c, struct err *e);
/* sse_chunk_parse is these two: the fast path, a pass over the bytes with no
 * tree (1 with c filled when data is in the subset of JSON it reads exactly
 * as the full read does, 0 otherwise: c is then to be ignored), else the full
 * read through jansson. Both public so the tests and the fuzzer hold the
 * first against the second. */
int sse_chunk_fast(const char *data, size_t len, struct sse_chunk *c);
int sse_chunk_parse_full(const char *data, size_t len, struct sse_chunk *c, struct err *e);

#endif
