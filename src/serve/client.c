/* The open-loop client: libcurl's multi interface driven by its events
 * (curl_multi_socket_action on the platform's poller: epoll and a timerfd on
 * Linux), our SSE parser on the bytes. */
#include "serve/client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/json.h"
#include "base/xalloc.h"
#include "platform/platform.h"
#include "serve/curl.h"
#include "serve/sse.h"

static bool loopback(const char *host)
{
	struct in_addr a;

	if (!strcasecmp(host, "localhost") || !strcmp(host, "[::1]"))
		return true;
	return inet_pton(AF_INET, host, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* The URL with its path replaced by path (NULL: kept, or /v1/completions
 * when it has none). */
static int endpoint_url(const char *endpoint, const char *path, char *out, size_t cap,
			struct err *e)
{
	CURLU *u = CURL_FN.curl_url();
	char *scheme = NULL, *host = NULL, *p = NULL, *url = NULL;
	int rc = -1;

	if (!u)
		return err_set(e, "libcurl cannot parse URLs (out of memory)");
	if (CURL_FN.curl_url_set(u, CURLUPART_URL, endpoint, 0) != CURLUE_OK ||
	    CURL_FN.curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    CURL_FN.curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		err_set(e, "'%.200s' is not a URL (http://127.0.0.1:PORT)", endpoint);
		goto out;
	}
	if (strcmp(scheme, "http")) {
		err_set(e, "'%.200s': only http:// is supported (a server on this machine)",
			endpoint);
		goto out;
	}
	if (!loopback(host)) {
		err_set(e, "'%.200s' is not on this machine: fak bench serve sends only to "
			"loopback addresses (127.0.0.0/8, ::1, localhost)", endpoint);
		goto out;
	}
	if (CURL_FN.curl_url_get(u, CURLUPART_PATH, &p, 0) != CURLUE_OK)
		p = NULL;
	if (path || !p || !strcmp(p, "/"))
		CURL_FN.curl_url_set(u, CURLUPART_PATH, path ? path : "/v1/completions", 0);
	CURL_FN.curl_url_set(u, CURLUPART_QUERY, NULL, 0);
	CURL_FN.curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0);
	if (CURL_FN.curl_url_get(u, CURLUPART_URL, &url, 0) != CURLUE_OK ||
	    strlen(url) >= cap) {
		err_set(e, "'%.200s': the URL is too long", endpoint);
		goto out;
	}
	strcpy(out, url);
	rc = 0;
out:
	CURL_FN.curl_free(scheme);
	CURL_FN.curl_free(host);
	CURL_FN.curl_free(p);
	CURL_FN.curl_free(url);
	CURL_FN.curl_url_cleanup(u);
	return rc;
}

int serve_endpoint(const char *endpoint, char *out, size_t cap, struct err *e)
{
	TRY(serve_curl_load(e));
	return endpoint_url(endpoint, NULL, out, cap, e);
}

/* ---- one transfer --------------------------------------------------- */

struct xfer {
	CURL *h;
	struct serve_record *r;
	struct xfer *next_spare;	/* in the loop's spare transfers */
	struct strbuf body, errbody;
	struct sse sse;
	int64_t t0, last_byte_ns;
	size_t slot;	/* in the loop's live transfers */
	bool started, done_seen, usage_out, usage_prompt;
	char curl_err[CURL_ERROR_SIZE];
};

static void fail_with(struct xfer *x, enum serve_fail f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail_with(struct xfer *x, enum serve_fail f, const char *fmt, ...)
{
	va_list ap;

	if (x->r->fail != SERVE_OK)
		return;	/* the first cause stands */
	x->r->fail = f;
	va_start(ap, fmt);
	vsnprintf(x->r->error, sizeof(x->r->error), fmt, ap);
	va_end(ap);
}

static int on_event(void *ctx, const char *data, size_t len)
{
	struct xfer *x = ctx;
	struct serve_record *r = x->r;
	struct sse_chunk c;
	struct err e;

	if (x->done_seen)
		return 0;	/* nothing after [DONE] counts */
	if (sse_chunk_parse(data, len, &c, &e) < 0) {
		fail_with(x, SERVE_MALFORMED, "event %zu: %s", x->sse.events, e.msg);
		return 1;
	}
	switch (c.kind) {
	case SSE_CHUNK_DONE:
		x->done_seen = true;
		return 0;
	case SSE_CHUNK_ERROR:
		fail_with(x, SERVE_SERVER_ERROR, "the server sent an error: %s", c.error);
		return 1;
	case SSE_CHUNK_TEXT:
		if (r->nr_chunks >= SERVE_MAX_CHUNKS) {
			fail_with(x, SERVE_MALFORMED, "more than %d chunks", SERVE_MAX_CHUNKS);
			return 1;
		}
		ALLOC_GROW(r->chunks_ns, r->nr_chunks + 1, r->alloc_chunks);
		r->chunks_ns[r->nr_chunks++] = x->last_byte_ns;
		if (r->first_ns < 0)
			r->first_ns = x->last_byte_ns;
		break;
	case SSE_CHUNK_USAGE:
		break;
	}
	if (c.completion_tokens >= 0) {
		r->output_tokens = c.completion_tokens;
		x->usage_out = true;
	}
	if (c.prompt_tokens >= 0) {
		r->prompt_tokens = c.prompt_tokens;
		x->usage_prompt = true;
	}
	if (c.cached_tokens >= 0)
		r->cached_tokens = c.cached_tokens;
	return 0;
}

static size_t on_write(char *buf, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n;
	struct err e;

	x->last_byte_ns = platform_mono_ns() - x->t0;
	if (!x->started) {
		char *type = NULL;

		x->started = true;
		CURL_FN.curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->r->http_status);
		CURL_FN.curl_easy_getinfo(x->h, CURLINFO_CONTENT_TYPE, &type);
		if (x->r->http_status == 200 && (!type || !strstr(type, "text/event-stream"))) {
			fail_with(x, SERVE_NOT_OPENAI, "a 200 response of type '%.60s', not an "
				  "event stream (is this an OpenAI-compatible /v1/completions?)",
				  type ? type : "(none)");
			return 0;
		}
	}
	if (x->r->http_status != 200) {
		if (x->errbody.len < 512)
			sb_add(&x->errbody, buf, len < 512 ? len : 512);
		return len;
	}
	if (sse_feed(&x->sse, buf, len, on_event, x, &e) < 0) {
		fail_with(x, SERVE_MALFORMED, "%s", e.msg);
		return 0;
	}
	return x->r->fail == SERVE_OK ? len : 0;
}

/* The request's JSON, written directly (it was a jansson document, dumped:
 * allocations and a printf a token id): the same bytes. */
void serve_request_body(struct strbuf *sb, const struct trace_request *q, const char *model,
			bool stream)
{
	sb_addch(sb, '{');
	if (model) {
		sb_adds(sb, "\"model\":");
		json_write_str(sb, model);
		sb_addch(sb, ',');
	}
	sb_adds(sb, "\"prompt\":");
	if (q->text) {
		json_write_str(sb, q->text);
	} else {
		sb_addch(sb, '[');
		for (size_t k = 0; k < q->nr_tokens; k++) {
			if (k)
				sb_addch(sb, ',');
			json_write_int(sb, q->tokens[k]);
		}
		sb_addch(sb, ']');
	}
	sb_adds(sb, ",\"max_tokens\":");
	json_write_int(sb, q->max_tokens);
	sb_adds(sb, stream ? ",\"temperature\":0,\"ignore_eos\":true,\"stream\":true,"
			     "\"stream_options\":{\"include_usage\":true}}"
			   : ",\"temperature\":0,\"stream\":false}");
}

/* The headers every request sends (one list for all handles). */
static struct curl_slist *request_headers(void)
{
	struct curl_slist *h = CURL_FN.curl_slist_append(NULL, "Content-Type: application/json");

	h = CURL_FN.curl_slist_append(h, "Accept: text/event-stream");
	return CURL_FN.curl_slist_append(h, "Expect:");
}

/* ---- the loop ------------------------------------------------------- */

/* How many requests the loop keeps ready (body built, handle set up) ahead
 * of the next send. */
#define SERVE_READY_AHEAD 64

/* A descriptor as libcurl wants it watched and as the poller watches it
 * (PLATFORM_POLL_* bits). A socket libcurl lets go of (a kept-alive
 * connection between two requests) stays in the poller until it says
 * something or is closed: a request on a kept connection costs no
 * epoll_ctl. */
struct fd_watch {
	unsigned char want, has;
};

/* The loop's state that libcurl's callbacks reach: which sockets to watch
 * (the poller) and when libcurl wants to be called for its own timeouts. */
struct loop {
	CURLM *m;
	struct platform_poller *poller;
	const struct serve_opts *o;
	const char *url;
	CURLU *cu;		/* url, parsed once for every request; NULL: not */
	struct curl_slist *hdr;
	struct xfer *spare;	/* ended transfers, their handles kept for the next */
	struct fd_watch *fds;	/* by descriptor */
	size_t nr_fds;
	int64_t curl_at;	/* monotonic ns; -1: libcurl has no timeout */
	bool watch_failed;
};

/* fd's watch, the table grown to hold it. */
static struct fd_watch *fd_watch(struct loop *l, curl_socket_t fd)
{
	size_t at = (size_t)fd;

	if (at >= l->nr_fds) {
		size_t nr = at + 64;

		l->fds = xrealloc(l->fds, xmul(nr, sizeof(*l->fds)));
		memset(l->fds + l->nr_fds, 0, (nr - l->nr_fds) * sizeof(*l->fds));
		l->nr_fds = nr;
	}
	return &l->fds[at];
}

/* The poller made to watch fd for what libcurl wants of it now. */
static void fd_sync(struct loop *l, curl_socket_t fd, struct fd_watch *w)
{
	if (w->want == w->has)
		return;
	if (platform_poller_watch(l->poller, (int)fd, w->want) < 0)
		l->watch_failed = true;
	w->has = w->want;
}

/* libcurl closes a socket: out of the poller first (the descriptor's number
 * comes back for the next socket). */
static int on_close(void *userp, curl_socket_t fd)
{
	struct loop *l = userp;
	struct fd_watch *w = fd_watch(l, fd);

	w->want = 0;
	fd_sync(l, fd, w);
	return close(fd);
}

/* A transfer with its handle set up for the loop's url (what every request
 * shares). */
static struct xfer *xfer_alloc(struct loop *l)
{
	struct xfer *x = xcalloc(1, sizeof(*x));

	x->sse = (struct sse)SSE_INIT;
	x->h = CURL_FN.curl_easy_init();
	if (!x->h)
		BUG("curl_easy_init failed");
	serve_curl_setup(x->h, l->url, x->curl_err);
	if (l->cu)
		CURL_FN.curl_easy_setopt(x->h, CURLOPT_CURLU, l->cu);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, l->hdr);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_write);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_CLOSESOCKETFUNCTION, on_close);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_CLOSESOCKETDATA, l);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_CONNECTTIMEOUT_MS,
				 (long)(l->o->connect_ns / 1000000));
	return x;
}

/* x (new or spare) made ready for request q: its body, its record. */
static void xfer_prepare(struct xfer *x, const struct serve_opts *o,
			 const struct trace_request *q, struct serve_record *r, int64_t t0)
{
	x->r = r;
	x->t0 = t0;
	x->last_byte_ns = 0;
	x->started = x->done_seen = x->usage_out = x->usage_prompt = false;
	x->curl_err[0] = '\0';
	sb_reset(&x->body);
	sb_reset(&x->errbody);
	sse_reset(&x->sse);
	serve_request_body(&x->body, q, o->model, true);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, x->body.buf);
	CURL_FN.curl_easy_setopt(x->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body.len);
}

static void xfer_free(struct xfer *x)
{
	CURL_FN.curl_easy_cleanup(x->h);
	sb_release(&x->body);
	sb_release(&x->errbody);
	sse_release(&x->sse);
	free(x);
}

/* The record's result from how the transfer ended. */
static void finish(struct xfer *x, CURLcode rc, const struct trace_request *q)
{
	struct serve_record *r = x->r;
	long os_errno = 0;

	r->end_ns = platform_mono_ns() - x->t0;
	if (!r->http_status)
		CURL_FN.curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &r->http_status);
	if (rc == CURLE_COULDNT_CONNECT) {
		CURL_FN.curl_easy_getinfo(x->h, CURLINFO_OS_ERRNO, &os_errno);
		if (os_errno == ECONNREFUSED)
			fail_with(x, SERVE_REFUSED, "connection refused (nothing listens there)");
		else
			fail_with(x, SERVE_CONNECT, "cannot connect: %s", x->curl_err);
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		fail_with(x, SERVE_CONNECT, "%s", x->curl_err);
	} else if (rc != CURLE_OK) {
		fail_with(x, SERVE_LOST, "the connection broke after %zu chunks: %s",
			  r->nr_chunks,
			  x->curl_err[0] ? x->curl_err : CURL_FN.curl_easy_strerror(rc));
	} else if (r->http_status != 200) {
		size_t n = x->errbody.len;

		while (n && (x->errbody.buf[n - 1] == '\n' || x->errbody.buf[n - 1] == '\r'))
			n--;
		fail_with(x, SERVE_HTTP, "HTTP %ld: %.*s", r->http_status, (int)(n > 120 ? 120 : n),
			  n ? x->errbody.buf : "");
	} else if (!x->done_seen) {
		fail_with(x, SERVE_TRUNCATED, "the stream ended without data: [DONE] after %zu "
			  "chunks%s", r->nr_chunks, sse_pending(&x->sse) ? " (an event was cut)"
									 : "");
	} else if (!r->nr_chunks) {
		fail_with(x, SERVE_MALFORMED, "the stream held no completion chunk");
	}
	r->output_from_usage = x->usage_out;
	if (!x->usage_out)
		r->output_tokens = (long long)r->nr_chunks;
	r->prompt_from_usage = x->usage_prompt;
	if (!x->usage_prompt)
		r->prompt_tokens = (long long)trace_prompt_tokens(q);
	if (r->fail != SERVE_OK)
		r->first_ns = r->first_ns < 0 ? -1 : r->first_ns;
}

/* ---- readiness ------------------------------------------------------ */

/* The body of a readiness answer, cut to its capacity. */
struct body {
	char *buf;
	size_t len, cap;
};

static size_t keep(char *buf, size_t size, size_t n, void *ctx)
{
	struct body *b = ctx;
	size_t len = size * n, room = b->cap > b->len + 1 ? b->cap - b->len - 1 : 0;

	if (b->buf && room) {
		memcpy(b->buf + b->len, buf, len < room ? len : room);
		b->len += len < room ? len : room;
		b->buf[b->len] = '\0';
	}
	return len;
}

int serve_wait_ready(const struct serve_opts *o, char *body, size_t cap, struct err *e)
{
	return serve_get(o, "/health", body, cap, e);
}

int serve_get(const struct serve_opts *o, const char *path, char *body, size_t cap,
	      struct err *e)
{
	char url[2048], why[CURL_ERROR_SIZE + 64] = "no answer";
	int64_t until = platform_mono_ns() + o->ready_ns;
	CURL *h;

	TRY(serve_curl_load(e));
	TRY(endpoint_url(o->endpoint, path, url, sizeof(url), e));
	if (CURL_FN.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return err_set(e, "libcurl failed to start");
	h = CURL_FN.curl_easy_init();
	if (!h) {
		CURL_FN.curl_global_cleanup();
		return err_set(e, "libcurl failed to start");
	}
	for (;;) {
		char cerr[CURL_ERROR_SIZE] = "";
		struct body b = { body, 0, cap };
		long status = 0;
		CURLcode rc;

		CURL_FN.curl_easy_reset(h);
		serve_curl_setup(h, url, cerr);
		if (body && cap)
			body[0] = '\0';
		CURL_FN.curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, keep);
		CURL_FN.curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
		CURL_FN.curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 1000L);
		rc = CURL_FN.curl_easy_perform(h);
		CURL_FN.curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		if (rc == CURLE_OK && status == 200)
			break;
		if (rc == CURLE_OK)
			snprintf(why, sizeof(why), "HTTP %ld", status);
		else
			snprintf(why, sizeof(why), "%s",
				 cerr[0] ? cerr : CURL_FN.curl_easy_strerror(rc));
		if (platform_mono_ns() >= until || (o->stop && *o->stop)) {
			CURL_FN.curl_easy_cleanup(h);
			CURL_FN.curl_global_cleanup();
			return err_set(e, "server not ready: GET %s did not answer 200 within "
				       "%.3gs (last: %s)", url, (double)o->ready_ns / 1e9, why);
		}
		usleep(50000);
	}
	CURL_FN.curl_easy_cleanup(h);
	CURL_FN.curl_global_cleanup();
	return 0;
}

/* What libcurl wants watched; a removal waits (struct fd_watch). */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct loop *l = userp;
	struct fd_watch *w = fd_watch(l, s);
	unsigned ev = 0;

	(void)easy;
	(void)socketp;
	if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
		ev |= PLATFORM_POLL_IN;
	if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
		ev |= PLATFORM_POLL_OUT;
	w->want = (unsigned char)ev;
	if (ev)
		fd_sync(l, s, w);
	return 0;
}

static int on_timer(CURLM *m, long timeout_ms, void *userp)
{
	struct loop *l = userp;

	(void)m;
	/* 0 (run now, each new transfer) is any time past: no clock read */
	l->curl_at = timeout_ms < 0 ? -1 : !timeout_ms ? 0
		   : platform_mono_ns() + (int64_t)timeout_ms * 1000000;
	return 0;
}

/* The transfers in flight, dense, for the loop's own timeout checks. */
struct live {
	struct xfer **x;
	size_t nr;
};

static void live_add(struct live *lv, struct xfer *x)
{
	x->slot = lv->nr;
	lv->x[lv->nr++] = x;
}

/* A transfer ready for request q: a spare one (its handle, buffers and
 * connection cache kept) or a new one. */
static struct xfer *xfer_new(struct loop *l, const struct trace_request *q,
			     struct serve_record *r, int64_t t0)
{
	struct xfer *x = l->spare;

	if (x)
		l->spare = x->next_spare;
	else
		x = xfer_alloc(l);
	xfer_prepare(x, l->o, q, r, t0);
	return x;
}

/* Ends x: its record, its handle, its place among the live. */
static void retire(struct loop *l, struct live *lv, struct xfer *x, CURLcode rc,
		   const struct trace_request *q)
{
	finish(x, rc, q);
	CURL_FN.curl_multi_remove_handle(l->m, x->h);
	lv->x[x->slot] = lv->x[--lv->nr];
	lv->x[x->slot]->slot = x->slot;
	x->next_spare = l->spare;
	l->spare = x;
}

/* Our own timeouts, named, to the millisecond: fails what is over its
 * limit; returns when the next check is due (a stall's deadline only moves
 * later, so the earliest one seen is never late). */
static int64_t check_limits(const struct serve_opts *o, struct loop *l, struct live *lv,
			    const struct trace *t, int64_t now, size_t *done)
{
	int64_t next = INT64_MAX;

	for (size_t i = 0; i < lv->nr;) {
		struct xfer *x = lv->x[i];
		struct serve_record *r = x->r;
		int64_t end = o->timeout_ns ? r->sent_ns + o->timeout_ns : INT64_MAX;
		int64_t stall = o->stall_ns ? x->last_byte_ns + o->stall_ns : INT64_MAX;

		if (now >= end)
			fail_with(x, SERVE_TIMEOUT, "the response did not end within %.3gs "
				  "(%zu chunks by then)", (double)o->timeout_ns / 1e9,
				  r->nr_chunks);
		else if (now >= stall)
			fail_with(x, SERVE_STALLED, "no byte for %.3gs (stalled after %zu chunks)",
				  (double)o->stall_ns / 1e9, r->nr_chunks);
		if (r->fail == SERVE_OK) {
			next = end < next ? end : next;
			next = stall < next ? stall : next;
			i++;
			continue;
		}
		retire(l, lv, x, CURLE_OK, &t->req[r->index]);
		++*done;	/* the last live one moved into i */
	}
	return next;
}

/* Lets libcurl act on what the poller saw on one socket; a socket libcurl
 * let go of leaves the poller now. */
static void act(struct loop *l, const struct platform_poll_event *ev)
{
	struct fd_watch *w = fd_watch(l, ev->fd);
	int flags = 0, still;

	if (!w->want) {
		fd_sync(l, ev->fd, w);
		return;
	}
	if (ev->events & PLATFORM_POLL_IN)
		flags |= CURL_CSELECT_IN;
	if (ev->events & PLATFORM_POLL_OUT)
		flags |= CURL_CSELECT_OUT;
	if (ev->events & PLATFORM_POLL_ERR)
		flags |= CURL_CSELECT_ERR;
	CURL_FN.curl_multi_socket_action(l->m, ev->fd, flags, &still);
}

/* Lets libcurl act on its own timeout when it is due (a new transfer's is
 * at once: that is its send). */
static void run_timers(struct loop *l)
{
	int still;

	if (l->curl_at >= 0 && (l->curl_at == 0 || platform_mono_ns() >= l->curl_at)) {
		l->curl_at = -1;
		CURL_FN.curl_multi_socket_action(l->m, CURL_SOCKET_TIMEOUT, 0, &still);
	}
}

/* Lets libcurl act on its timeout, then ends the transfers it finished. */
static void drive(struct loop *l, struct live *lv, const struct trace *t, size_t *done)
{
	CURLMsg *msg;
	int left;

	run_timers(l);
	while ((msg = CURL_FN.curl_multi_info_read(l->m, &left))) {
		struct xfer *x;

		if (msg->msg != CURLMSG_DONE)
			continue;
		CURL_FN.curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		retire(l, lv, x, msg->data.result, &t->req[x->r->index]);
		++*done;
	}
}

static void interrupt(struct loop *l, struct live *lv, const struct trace *t,
		      struct serve_record *r, size_t *next, size_t *done)
{
	for (; *next < t->nr; ++*next, ++*done) {
		r[*next].fail = SERVE_NOT_SENT;
		snprintf(r[*next].error, sizeof(r[*next].error),
			 "the run was interrupted before it was sent");
	}
	while (lv->nr) {
		struct xfer *x = lv->x[0];

		fail_with(x, SERVE_LOST, "the run was interrupted");
		retire(l, lv, x, CURLE_OK, &t->req[x->r->index]);
		++*done;
	}
}

/* The first limit of a request sent at sent_ns, if before at. */
static int64_t earliest_limit(const struct serve_opts *o, int64_t sent_ns, int64_t at)
{
	if (o->timeout_ns && sent_ns + o->timeout_ns < at)
		at = sent_ns + o->timeout_ns;
	if (o->stall_ns && sent_ns + o->stall_ns < at)
		at = sent_ns + o->stall_ns;
	return at;
}

static int64_t earliest(int64_t a, int64_t b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* libcurl started and its multi handle on the platform's poller, after
 * the engine answers where the options wait for it; -1 with nothing left
 * open otherwise. */
static int client_open(const struct serve_opts *o, struct loop *l, struct err *e)
{
	if (CURL_FN.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return err_set(e, "libcurl failed to start");
	if (o->ready_ns > 0 && serve_wait_ready(o, NULL, 0, e) < 0) {
		CURL_FN.curl_global_cleanup();
		return -1;
	}
	l->poller = platform_poller_open(e);
	l->m = l->poller ? CURL_FN.curl_multi_init() : NULL;
	if (!l->m) {
		platform_poller_close(l->poller);
		CURL_FN.curl_global_cleanup();
		return l->poller ? err_set(e, "cannot start the client's loop (libcurl)") : -1;
	}
	CURL_FN.curl_multi_setopt(l->m, CURLMOPT_SOCKETFUNCTION, on_socket);
	CURL_FN.curl_multi_setopt(l->m, CURLMOPT_SOCKETDATA, l);
	CURL_FN.curl_multi_setopt(l->m, CURLMOPT_TIMERFUNCTION, on_timer);
	CURL_FN.curl_multi_setopt(l->m, CURLMOPT_TIMERDATA, l);
	return 0;
}

/* The schedule's side of a run: the records, the transfers made ready
 * before their send, and how far the sends are. */
struct sends {
	const struct serve_opts *o;
	const struct trace *t;
	struct loop *l;
	struct serve_record *r;
	struct xfer **ready;
	size_t next, prepared;
	bool open_loop;
	int64_t t0, limits_at;
};

/* One record a request, nothing measured yet: an open loop's scheduled
 * at its arrival, a closed loop's when it is sent. */
static struct serve_record *records_new(const struct trace *t, bool open_loop)
{
	struct serve_record *r = xcalloc(t->nr, sizeof(*r));

	for (size_t i = 0; i < t->nr; i++) {
		r[i].index = i;
		r[i].sent_ns = r[i].first_ns = r[i].end_ns = -1;
		r[i].cached_tokens = -1;
		r[i].scheduled_ns = open_loop ? t->req[i].arrival_us * 1000 : 0;
		r[i].prompt_tokens = (long long)trace_prompt_tokens(&t->req[i]);
	}
	return r;
}

/* Sends every request that is due at now: an open loop's whose arrival
 * has come, a closed loop's while fewer than its concurrency are live. */
static void send_due(struct sends *s, struct loop *l, struct live *lv, int64_t now)
{
	const struct serve_opts *o = s->o;
	struct serve_record *r = s->r;

	while (s->next < s->t->nr &&
	       (s->open_loop ? r[s->next].scheduled_ns <= now
			     : lv->nr < (size_t)s->t->concurrency)) {
		size_t n = s->next;
		struct xfer *x = s->ready[n] ? s->ready[n]
				: xfer_new(l, &s->t->req[n], &r[n], s->t0);

		s->ready[n] = NULL;
		x->t0 = s->t0;
		r[n].sent_ns = platform_mono_ns() - s->t0;
		if (!s->open_loop)
			r[n].scheduled_ns = r[n].sent_ns;
		x->last_byte_ns = r[n].sent_ns;
		CURL_FN.curl_multi_add_handle(l->m, x->h);
		live_add(lv, x);
		if (o->timeout_ns || o->stall_ns)
			s->limits_at = earliest_limit(o, r[n].sent_ns, s->limits_at);
		s->next++;
	}
}

/* Between two sockets' events of one wake: the sends that came due while
 * the others were read, out at once (what is read can wait, a send cannot). */
static void send_between(struct sends *s, struct live *lv)
{
	int64_t now;

	if (!s->open_loop || s->next >= s->t->nr)
		return;
	now = platform_mono_ns() - s->t0;
	if (s->r[s->next].scheduled_ns > now)
		return;
	send_due(s, s->l, lv, now);
	run_timers(s->l);
}

/* Keeps the next requests ready while there is time before a send. */
static void prepare_ahead(struct sends *s)
{
	const struct trace *t = s->t;

	while (s->prepared < t->nr && s->prepared < s->next + SERVE_READY_AHEAD &&
	       (!s->open_loop || s->r[s->next < t->nr ? s->next : t->nr - 1].scheduled_ns -
					 (platform_mono_ns() - s->t0) > 1000000)) {
		if (s->prepared >= s->next)
			s->ready[s->prepared] = xfer_new(s->l, &t->req[s->prepared],
							 &s->r[s->prepared], s->t0);
		s->prepared++;
	}
}

int serve_run(const struct serve_opts *o, const struct trace *t, struct serve_record **recs,
	      struct err *e)
{
	struct loop l = { .curl_at = -1 };
	struct live lv = { 0 };
	char url[2048];
	struct sends s = { .o = o, .t = t, .l = &l, .open_loop = t->process != TRACE_CLOSED,
			   .limits_at = INT64_MAX };
	size_t done = 0;
	int64_t last_progress = 0;

	*recs = NULL;
	TRY(serve_endpoint(o->endpoint, url, sizeof(url), e));
	TRY(client_open(o, &l, e));
	l.o = o;
	l.url = url;
	l.cu = CURL_FN.curl_url();
	if (l.cu && CURL_FN.curl_url_set(l.cu, CURLUPART_URL, url, 0) != CURLUE_OK) {
		CURL_FN.curl_url_cleanup(l.cu);
		l.cu = NULL;
	}
	l.hdr = request_headers();
	s.r = records_new(t, s.open_loop);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	lv.x = xcalloc(t->nr, sizeof(*lv.x));
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	s.ready = xcalloc(t->nr, sizeof(*s.ready));
	/* the first requests ready before the clock starts: a send is then
	 * only curl_multi_add_handle */
	for (; s.prepared < t->nr && s.prepared < SERVE_READY_AHEAD; s.prepared++)
		s.ready[s.prepared] = xfer_new(&l, &t->req[s.prepared], &s.r[s.prepared], 0);
	s.t0 = platform_mono_ns();
	while (done < t->nr) {
		struct platform_poll_event ev[64];
		int64_t now = platform_mono_ns() - s.t0, wake;
		size_t nr_ev;

		if (o->stop && *o->stop) {
			interrupt(&l, &lv, t, s.r, &s.next, &done);
			break;
		}
		/* sends first: they are what the schedule is about */
		send_due(&s, &l, &lv, now);
		drive(&l, &lv, t, &done);
		now = platform_mono_ns() - s.t0;
		if (now >= s.limits_at)
			s.limits_at = check_limits(o, &l, &lv, t, now, &done);
		if (l.watch_failed) {	/* a socket the kernel would not watch */
			interrupt(&l, &lv, t, s.r, &s.next, &done);
			err_set(e, "the client's poller refused a socket");
			break;
		}
		if (o->progress && now - last_progress >= 100000000) {
			last_progress = now;
			o->progress(o->progress_ctx, done, s.next, t->nr);
		}
		if (done >= t->nr)
			break;
		prepare_ahead(&s);
		/* wake at the next send, libcurl's timeout, our limits, or in
		 * 100 ms for the stop flag and the progress line */
		wake = s.t0 + now + 100000000;
		if (s.open_loop && s.next < t->nr) {
			if (s.r[s.next].scheduled_ns <= platform_mono_ns() - s.t0)
				continue;
			wake = earliest(wake, s.t0 + s.r[s.next].scheduled_ns);
		}
		if (s.limits_at != INT64_MAX)
			wake = earliest(wake, s.t0 + s.limits_at);
		wake = earliest(wake, l.curl_at);
		nr_ev = platform_poller_wait(l.poller, wake, ev, sizeof(ev) / sizeof(ev[0]));
		for (size_t i = 0; i < nr_ev; i++) {
			act(&l, &ev[i]);
			send_between(&s, &lv);
		}
		drive(&l, &lv, t, &done);
	}
	if (o->progress)
		o->progress(o->progress_ctx, done, s.next, t->nr);
	for (size_t i = 0; i < t->nr; i++)
		if (s.ready[i])
			xfer_free(s.ready[i]);
	while (l.spare) {
		struct xfer *x = l.spare;

		l.spare = x->next_spare;
		xfer_free(x);
	}
	free(s.ready);
	free(lv.x);
	CURL_FN.curl_multi_cleanup(l.m);	/* closes the kept connections: on_close */
	CURL_FN.curl_slist_free_all(l.hdr);
	platform_poller_close(l.poller);
	free(l.fds);
	CURL_FN.curl_url_cleanup(l.cu);
	CURL_FN.curl_global_cleanup();
	if (l.watch_failed) {
		free(s.r);
		return -1;
	}
	*recs = s.r;
	return 0;
}
