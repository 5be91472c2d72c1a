/* libFuzzer target: the per-request log of fak bench serve and the arrival
 * trace (src/serve/record.c, trace.c), both read from files anyone can
 * edit. What the log reader accepts must write back to the same bytes it
 * reads as, and summarize without surprises; what the trace reader accepts
 * must render to canonical bytes that read back to the same trace, and what
 * its fast read takes must be what the full read gives: the same trace,
 * findings and digest. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "serve/record.h"
#include "serve/trace.h"

static void fast_check(const char *buf, size_t size)
{
	struct findings f = FINDINGS_INIT, f2 = FINDINGS_INIT;
	struct trace t, t2;
	char d[72], d2[72];
	struct err e;

	if (!trace_read_fast(buf, size, &t, &f, d)) {
		if (f.nr || t.req)
			abort();
		return;
	}
	if (trace_read_full(buf, size, NULL, &t2, &f2, d2, &e) < 0 || strcmp(d, d2) ||
	    !trace_equal(&t, &t2) || f.nr != f2.nr)
		abort();
	for (size_t i = 0; i < f.nr; i++)
		if (strcmp(f.items[i], f2.items[i]))
			abort();
	trace_release(&t);
	trace_release(&t2);
	findings_release(&f);
	findings_release(&f2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void log_check(const char *buf, size_t size)
{
	struct serve_record *r = NULL, *r2 = NULL;
	struct serve_log_head h, h2;
	struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
	struct serve_summary s;
	size_t n, n2;
	struct err e;

	e.msg[0] = '\0';
	if (serve_log_parse(buf, size, &h, &r, &n, &e) < 0) {
		if (!e.msg[0] || r)
			abort();
		return;
	}
	serve_log_head_line(&sb, &h);
	for (size_t i = 0; i < n; i++)
		serve_log_line(&sb, &r[i]);
	if (serve_log_parse(sb.buf, sb.len, &h2, &r2, &n2, &e) < 0 || n2 != n)
		abort();
	serve_log_head_line(&sb2, &h2);
	for (size_t i = 0; i < n2; i++)
		serve_log_line(&sb2, &r2[i]);
	if (sb.len != sb2.len || memcmp(sb.buf, sb2.buf, sb.len))
		abort();
	serve_summarize(r, n, h.open_loop, h.max_lag_ms, NULL, &s);
	if (s.completed + s.failed != n || !isfinite(s.ttft.mean) || !isfinite(s.itl.p99) ||
	    s.ttft.mean < 0 || s.e2el.p50 < 0)
		abort();
	serve_records_release(r, n);
	serve_records_release(r2, n2);
	sb_release(&sb);
	sb_release(&sb2);
}

static void trace_check(const char *buf, size_t size)
{
	struct findings f = FINDINGS_INIT, f2 = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
	struct trace t, t2;
	char d[72], d2[72];
	struct err e;
	json_t *doc = json_parse_strict(buf, size, NULL, &e), *doc2;

	if (!doc)
		return;
	if (trace_decode(doc, &t, &f, &e) < 0) {
		json_decref(doc);
		findings_release(&f);
		return;
	}
	json_decref(doc);
	if (!f.nr && trace_render(&t, &sb, d, &e) == 0) {
		doc2 = json_parse_strict(sb.buf, sb.len, NULL, &e);
		if (!doc2 || trace_decode(doc2, &t2, &f2, &e) < 0 || f2.nr ||
		    trace_render(&t2, &sb2, d2, &e) < 0 || strcmp(d, d2) ||
		    strcmp(sb.buf, sb2.buf))
			abort();
		json_decref(doc2);
		trace_release(&t2);
	}
	trace_release(&t);
	findings_release(&f);
	findings_release(&f2);
	sb_release(&sb);
	sb_release(&sb2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_check((const char *)data, size);
	trace_check((const char *)data, size);
	fast_check((const char *)data, size);
	return 0;
}
