#ifndef FAK_SERVE_CLIENT_H
#define FAK_SERVE_CLIENT_H
/* The load generator: replays a trace against an OpenAI-compatible
 * /v1/completions endpoint on this machine, streaming (SSE), through
 * libcurl's multi interface, driven by its socket events. Open loop: each
 * request leaves at its scheduled time whether or not earlier ones
 * finished; the poller's deadline (a timerfd on Linux) wakes the loop at
 * the next send, and the lag between schedule and send is kept.
 * A closed-loop trace keeps its concurrency in flight instead. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "serve/record.h"
#include "serve/trace.h"

struct serve_opts {
	const char *endpoint;	/* http://127.0.0.1:PORT[/path]; loopback only */
	const char *model;	/* NULL: no "model" member */
	int64_t timeout_ns;	/* whole response; 0: none */
	int64_t stall_ns;	/* no byte for this long fails the request; 0: none */
	int64_t connect_ns;
	int64_t ready_ns;	/* wait this long for GET /health to answer 200; 0: don't */
	/* called from the loop, at most every 100 ms: done of total */
	void (*progress)(void *ctx, size_t done, size_t sent, size_t total);
	void *progress_ctx;
	/* set asynchronously (a signal) to stop: what was not sent is "not-sent" */
	const volatile int *stop;
};

/* The URL that requests go to ("…/v1/completions" when endpoint has no
 * path) in out; -1 with e for a URL that is not http:// to a loopback
 * address (127.0.0.0/8, ::1, localhost): fak sends no traffic off this
 * machine. */
int serve_endpoint(const char *endpoint, char *out, size_t cap, struct err *e);
/* The JSON of request q to /v1/completions, greedy: streamed (with usage,
 * to max_tokens past any end of text: a trace's request) or not (a
 * quality prompt, its answer whole and ending where the model ends it). */
void serve_request_body(struct strbuf *sb, const struct trace_request *q, const char *model,
			bool stream);

/* Waits up to o->ready_ns for GET /health on o->endpoint's host to answer
 * 200 (o->stop ends the wait early); -1 with e saying what the last try
 * got. body (may be NULL) gets the 200's body, cut to cap - 1 bytes. */
int serve_wait_ready(const struct serve_opts *o, char *body, size_t cap, struct err *e);
/* The same for GET PATH ("/props") on that host: retried until it answers 200
 * or o->ready_ns has passed. */
int serve_get(const struct serve_opts *o, const char *path, char *body, size_t cap,
	      struct err *e);

/* Runs the trace: every request gets a record (*recs, t->nr of them,
 * owned by the caller), failed or not. -1 with e only when the run could
 * not start (libcurl, the endpoint, readiness). */
int serve_run(const struct serve_opts *o, const struct trace *t, struct serve_record **recs,
	      struct err *e);

#endif
