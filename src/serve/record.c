/* Records, their log and the run's summary. */
#include "serve/record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xalloc.h"

const char *const serve_fail_names[SERVE_NR_FAILS] = {
	"ok", "connection-refused", "connection-failed", "http-status", "timeout", "stalled",
	"connection-lost", "truncated-stream", "malformed-stream", "not-openai-compatible",
	"server-error", "not-sent",
};

void serve_record_release(struct serve_record *r)
{
	free(r->chunks_ns);
	r->chunks_ns = NULL;
	r->nr_chunks = r->alloc_chunks = 0;
}

void serve_records_release(struct serve_record *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		serve_record_release(&r[i]);
	free(r);
}

/* ---- the log -------------------------------------------------------- */

void serve_log_head_line(struct strbuf *out, const struct serve_log_head *h)
{
	json_t *o = jobj();

	jset_str(o, "schema", SERVE_LOG_SCHEMA);
	jset_str(o, "trace_sha256", h->trace_sha256);
	jset_int(o, "requests", (long long)h->requests);
	jset_bool(o, "open_loop", h->open_loop);
	jset_num(o, "max_lag_ms", h->max_lag_ms);
	json_write_compact(out, o);
	sb_addch(out, '\n');
	json_decref(o);
}

static void set_ns(json_t *o, const char *key, int64_t v)
{
	if (v < 0)
		jset_new(o, key, json_null());
	else
		jset_int(o, key, v);
}

void serve_log_line(struct strbuf *out, const struct serve_record *r)
{
	json_t *o = jobj(), *ch = jarr();

	jset_int(o, "index", (long long)r->index);
	jset_str(o, "result", serve_fail_names[r->fail]);
	jset_int(o, "http_status", r->http_status);
	jset_str(o, "error", r->error[0] ? r->error : NULL);
	jset_int(o, "scheduled_ns", r->scheduled_ns);
	set_ns(o, "sent_ns", r->sent_ns);
	set_ns(o, "first_chunk_ns", r->first_ns);
	set_ns(o, "end_ns", r->end_ns);
	jset_int(o, "prompt_tokens", r->prompt_tokens);
	jset_str(o, "prompt_tokens_from", r->prompt_from_usage ? "usage" : "trace");
	jset_int(o, "output_tokens", r->output_tokens);
	jset_str(o, "output_tokens_from", r->output_from_usage ? "usage" : "chunks");
	if (r->cached_tokens < 0)
		jset_new(o, "cached_tokens", json_null());
	else
		jset_int(o, "cached_tokens", r->cached_tokens);
	for (size_t i = 0; i < r->nr_chunks; i++)
		jpush_new(ch, json_integer(r->chunks_ns[i]));
	jset_new(o, "chunks_ns", ch);
	json_write_compact(out, o);
	sb_addch(out, '\n');
	json_decref(o);
}

static const char *const head_keys[] = { "schema", "trace_sha256", "requests", "open_loop",
					 "max_lag_ms", NULL };
static const char *const line_keys[] = { "index", "result", "http_status", "error",
					 "scheduled_ns", "sent_ns", "first_chunk_ns", "end_ns",
					 "prompt_tokens", "prompt_tokens_from", "output_tokens",
					 "output_tokens_from", "cached_tokens", "chunks_ns", NULL };

static int head_decode(const json_t *o, struct serve_log_head *h, struct err *e)
{
	const struct jpath *root = NULL;
	const char *schema, *digest;
	long long n;

	TRY(jd_object(o, root, head_keys, e));
	TRY(jd_str(o, root, "schema", REQ, &schema, e));
	if (strcmp(schema, SERVE_LOG_SCHEMA))
		return err_set(e, "schema: expected \"" SERVE_LOG_SCHEMA "\", found \"%.64s\"",
			       schema);
	TRY(jd_str(o, root, "trace_sha256", REQ, &digest, e));
	if (strlen(digest) != 71 || strncmp(digest, "sha256:", 7))
		return err_set(e, "trace_sha256: expected \"sha256:\" and 64 hex digits");
	memcpy(h->trace_sha256, digest, 72);
	TRY(jd_int(o, root, "requests", REQ, &n, e));
	if (n < 1 || n > 100000)
		return err_set(e, "requests: %lld is outside 1..100000", n);
	h->requests = (size_t)n;
	TRY(jd_bool(o, root, "open_loop", REQ, &h->open_loop, e));
	TRY(jd_num(o, root, "max_lag_ms", REQ, &h->max_lag_ms, e));
	if (!(h->max_lag_ms >= 0 && h->max_lag_ms <= 3.6e6))
		return err_set(e, "max_lag_ms: outside 0..3600000");
	return 0;
}

/* A time: an integer >= 0 up to a day, or null where allowed (-1). */
static int ns_member(const json_t *o, const char *key, bool null_ok, int64_t *out,
		     struct err *e)
{
	const json_t *v = json_object_get(o, key);

	if (!v)
		return err_set(e, "%s: missing", key);
	if (json_is_null(v) && null_ok) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > (json_int_t)86400 * 1000000000)
		return err_set(e, "%s: expected nanoseconds within a day%s", key,
			       null_ok ? " or null" : "");
	*out = (int64_t)json_integer_value(v);
	return 0;
}

static int count_member(const json_t *o, const char *key, bool null_ok, long long *out,
			struct err *e)
{
	int64_t v = 0;

	TRY(ns_member(o, key, null_ok, &v, e));
	if (v > 1LL << 40)
		return err_set(e, "%s: too large", key);
	*out = v;
	return 0;
}

static int from_member(const json_t *o, const char *key, const char *yes, const char *no,
		       bool *out, struct err *e)
{
	const json_t *v = json_object_get(o, key);
	const char *s = json_is_string(v) ? json_string_value(v) : "";

	if (strcmp(s, yes) && strcmp(s, no))
		return err_set(e, "%s: expected \"%s\" or \"%s\"", key, yes, no);
	*out = !strcmp(s, yes);
	return 0;
}

static int line_decode(const json_t *o, struct serve_record *r, struct err *e)
{
	const struct jpath *root = NULL;
	const char *result, *error = NULL;
	const json_t *ch;
	long long v;
	size_t k;

	TRY(jd_object(o, root, line_keys, e));
	TRY(jd_int(o, root, "index", REQ, &v, e));
	if (v < 0 || v >= 100000)
		return err_set(e, "index: %lld is outside 0..99999", v);
	r->index = (size_t)v;
	TRY(jd_str(o, root, "result", REQ, &result, e));
	for (k = 0; k < SERVE_NR_FAILS && strcmp(serve_fail_names[k], result); k++)
		;
	if (k == SERVE_NR_FAILS)
		return err_set(e, "result: \"%.40s\" is no result fak writes", result);
	r->fail = (enum serve_fail)k;
	TRY(jd_int(o, root, "http_status", REQ, &v, e));
	if (v < 0 || v > 999)
		return err_set(e, "http_status: %lld is outside 0..999", v);
	r->http_status = (long)v;
	if (!json_is_null(json_object_get(o, "error")))
		TRY(jd_str(o, root, "error", REQ, &error, e));
	else if (!json_object_get(o, "error"))
		return err_set(e, "error: missing");
	snprintf(r->error, sizeof(r->error), "%s", error ? error : "");
	TRY(ns_member(o, "scheduled_ns", false, &r->scheduled_ns, e));
	TRY(ns_member(o, "sent_ns", true, &r->sent_ns, e));
	TRY(ns_member(o, "first_chunk_ns", true, &r->first_ns, e));
	TRY(ns_member(o, "end_ns", true, &r->end_ns, e));
	TRY(count_member(o, "prompt_tokens", false, &r->prompt_tokens, e));
	TRY(count_member(o, "output_tokens", false, &r->output_tokens, e));
	TRY(count_member(o, "cached_tokens", true, &r->cached_tokens, e));
	TRY(from_member(o, "prompt_tokens_from", "usage", "trace", &r->prompt_from_usage, e));
	TRY(from_member(o, "output_tokens_from", "usage", "chunks", &r->output_from_usage, e));
	TRY(jd_arr(o, root, "chunks_ns", REQ, false, &ch, e));
	if (json_array_size(ch) > SERVE_MAX_CHUNKS)
		return err_set(e, "chunks_ns: more than %d chunks", SERVE_MAX_CHUNKS);
	r->nr_chunks = r->alloc_chunks = json_array_size(ch);
	r->chunks_ns = xcalloc(r->nr_chunks ? r->nr_chunks : 1, sizeof(*r->chunks_ns));
	for (size_t i = 0; i < r->nr_chunks; i++) {
		const json_t *x = json_array_get(ch, i);

		if (!json_is_integer(x) || json_integer_value(x) < 0 ||
		    (i && json_integer_value(x) < r->chunks_ns[i - 1]))
			return err_set(e, "chunks_ns[%zu]: expected nanoseconds, not before the "
				       "previous chunk", i);
		r->chunks_ns[i] = (int64_t)json_integer_value(x);
	}
	/* what a run writes holds together; an edited log must too */
	if (r->fail == SERVE_OK &&
	    (r->sent_ns < 0 || r->end_ns < r->sent_ns || r->first_ns < r->sent_ns ||
	     !r->nr_chunks || r->chunks_ns[0] != r->first_ns ||
	     r->chunks_ns[r->nr_chunks - 1] > r->end_ns || r->http_status != 200))
		return err_set(e, "an ok request needs sent <= first chunk = chunks_ns[0] <= "
			       "last chunk <= end, and status 200");
	if (r->fail != SERVE_OK && !r->error[0])
		return err_set(e, "error: a failed request says why");
	if (r->sent_ns >= 0 && r->sent_ns < r->scheduled_ns)
		return err_set(e, "sent_ns: before scheduled_ns");
	return 0;
}

int serve_log_parse(const char *buf, size_t len, struct serve_log_head *h,
		    struct serve_record **recs, size_t *n, struct err *e)
{
	struct serve_record *r = NULL;
	unsigned char *seen = NULL;
	size_t line = 0, at = 0, got = 0;

	*recs = NULL;
	*n = 0;
	memset(h, 0, sizeof(*h));
	if (len > SERVE_LOG_CAP)
		return err_set(e, "the log passes %zu bytes", SERVE_LOG_CAP);
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (buf + at)) : len - at;
		json_t *o;
		int rc;

		line++;
		if (!nl) {
			err_set(e, "line %zu: the log does not end with a newline", line);
			goto fail;
		}
		if (l > SERVE_LOG_MAX_LINE) {
			err_set(e, "line %zu: longer than %zu bytes", line, SERVE_LOG_MAX_LINE);
			goto fail;
		}
		o = json_parse_strict(buf + at, l, NULL, e);
		at += l + 1;
		if (!o || !json_is_object(o)) {
			if (o) {
				json_decref(o);
				err_set(e, "expected an object");
			}
			err_prefix(e, "line %zu", line);
			goto fail;
		}
		if (line == 1) {
			rc = head_decode(o, h, e);
			json_decref(o);
			if (rc < 0) {
				err_prefix(e, "line 1 (the head)");
				goto fail;
			}
			r = xcalloc(h->requests, sizeof(*r));
			seen = xcalloc(h->requests, 1);
			continue;
		}
		if (got == h->requests) {
			json_decref(o);
			err_set(e, "line %zu: more lines than the head's %zu requests", line,
				h->requests);
			goto fail;
		}
		rc = line_decode(o, &r[got], e);
		json_decref(o);
		got++;
		if (rc == 0 && (r[got - 1].index >= h->requests || seen[r[got - 1].index]++))
			rc = err_set(e, "index: %zu is outside the trace or given twice",
				     r[got - 1].index);
		if (rc < 0) {
			err_prefix(e, "line %zu", line);
			goto fail;
		}
	}
	if (line == 0) {
		err_set(e, "the log is empty");
		goto fail;
	}
	if (got != h->requests) {
		err_set(e, "the log holds %zu of the head's %zu requests", got, h->requests);
		goto fail;
	}
	free(seen);
	*recs = r;
	*n = got;
	return 0;
fail:
	free(seen);
	serve_records_release(r, got);
	return -1;
}

/* ---- the summary ---------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* numpy.percentile's default (linear) on sorted v */
static double pct(const double *v, size_t n, double p)
{
	double rank = p / 100.0 * (double)(n - 1), lo = floor(rank);
	size_t i = (size_t)lo;

	return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (rank - lo) : v[n - 1];
}

void serve_dist_of(double *v, size_t n, struct serve_dist *d)
{
	double sum = 0;

	memset(d, 0, sizeof(*d));
	d->n = n;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	d->mean = sum / (double)n;
	d->p50 = pct(v, n, 50);
	d->p90 = pct(v, n, 90);
	d->p95 = pct(v, n, 95);
	d->p99 = pct(v, n, 99);
	d->min = v[0];
	d->max = v[n - 1];
}

/* TTFT and E2EL of a completed request, in ms (vllm bench serve's). */
static double ttft_ms(const struct serve_record *q)
{
	return (double)(q->first_ns - q->sent_ns) / 1e6;
}

static double e2el_ms(const struct serve_record *q)
{
	return (double)(q->end_ns - q->sent_ns) / 1e6;
}

/* The ITLs of a completed request, appended at itl[*n]. */
static void itl_append(const struct serve_record *q, double *itl, size_t *n)
{
	for (size_t k = 1; k < q->nr_chunks; k++)
		itl[(*n)++] = (double)(q->chunks_ns[k] - q->chunks_ns[k - 1]) / 1e6;
}

static size_t itl_count(const struct serve_record *r, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += r[i].fail == SERVE_OK && r[i].nr_chunks ? r[i].nr_chunks - 1 : 0;
	return c;
}

void serve_latencies_of(const struct serve_record *r, size_t n, struct serve_latencies *l)
{
	memset(l, 0, sizeof(*l));
	l->ttft = xcalloc(n + 1, sizeof(double));
	l->e2el = xcalloc(n + 1, sizeof(double));
	l->itl = xcalloc(itl_count(r, n) + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		if (r[i].fail != SERVE_OK)
			continue;
		l->ttft[l->nr_ttft++] = ttft_ms(&r[i]);
		l->e2el[l->nr_e2el++] = e2el_ms(&r[i]);
		itl_append(&r[i], l->itl, &l->nr_itl);
	}
	qsort(l->ttft, l->nr_ttft, sizeof(double), cmp_double);
	qsort(l->e2el, l->nr_e2el, sizeof(double), cmp_double);
	qsort(l->itl, l->nr_itl, sizeof(double), cmp_double);
}

void serve_latencies_release(struct serve_latencies *l)
{
	free(l->ttft);
	free(l->itl);
	free(l->e2el);
	memset(l, 0, sizeof(*l));
}

void serve_summarize(const struct serve_record *r, size_t n, bool open_loop, double max_lag_ms,
		     const struct serve_slo *slo, struct serve_summary *s)
{
	double *ttft = xcalloc(n + 1, sizeof(double)), *tpot = xcalloc(n + 1, sizeof(double));
	double *e2el = xcalloc(n + 1, sizeof(double)), *lag = xcalloc(n + 1, sizeof(double));
	size_t nr_itl = 0, nr_tpot = 0, nr_lag = 0;
	int64_t start = -1, end = -1;
	long long cached_prompt = 0;
	double *itl;

	memset(s, 0, sizeof(*s));
	s->requests = n;
	s->open_loop = open_loop;
	s->max_lag_ms = max_lag_ms;
	itl = xcalloc(itl_count(r, n) + 1, sizeof(double));
	if (slo && (slo->ttft_ms > 0 || slo->tpot_ms > 0 || slo->e2el_ms > 0)) {
		s->has_slo = true;
		s->slo = *slo;
	}
	for (size_t i = 0; i < n; i++) {
		const struct serve_record *q = &r[i];
		double t, p = 0, l;
		bool good = true;

		s->fails[q->fail]++;
		if (q->sent_ns >= 0) {
			if (start < 0 || q->sent_ns < start)
				start = q->sent_ns;
			if (open_loop) {
				l = (double)(q->sent_ns - q->scheduled_ns) / 1e6;
				lag[nr_lag++] = l;
				s->late += l > max_lag_ms;
			}
		}
		if (q->fail != SERVE_OK)
			continue;
		s->completed++;
		if (q->end_ns > end)
			end = q->end_ns;
		s->prompt_tokens += q->prompt_tokens;
		s->output_tokens += q->output_tokens;
		s->output_from_usage += q->output_from_usage;
		if (q->cached_tokens >= 0) {
			s->cached_tokens += q->cached_tokens;
			s->cached_reported++;
			cached_prompt += q->prompt_tokens;
		}
		t = ttft_ms(q);
		ttft[s->completed - 1] = t;
		l = e2el_ms(q);
		e2el[s->completed - 1] = l;
		if (q->output_tokens > 1) {
			p = (l - t) / (double)(q->output_tokens - 1);
			tpot[nr_tpot++] = p;
		}
		itl_append(q, itl, &nr_itl);
		if (s->has_slo) {
			good = !(s->slo.ttft_ms > 0 && t > s->slo.ttft_ms) &&
			       !(s->slo.tpot_ms > 0 && p > s->slo.tpot_ms) &&
			       !(s->slo.e2el_ms > 0 && l > s->slo.e2el_ms);
			s->good += good;
		}
	}
	s->failed = n - s->completed;
	if (cached_prompt > 0)
		s->prefix_hit_rate = (double)s->cached_tokens / (double)cached_prompt;
	s->duration_s = start >= 0 && end > start ? (double)(end - start) / 1e9 : 0;
	if (s->duration_s > 0) {
		s->request_throughput = (double)s->completed / s->duration_s;
		s->output_throughput = (double)s->output_tokens / s->duration_s;
		s->total_throughput = (double)(s->prompt_tokens + s->output_tokens) / s->duration_s;
		s->goodput = (double)s->good / s->duration_s;
	}
	serve_dist_of(ttft, s->completed, &s->ttft);
	serve_dist_of(e2el, s->completed, &s->e2el);
	serve_dist_of(tpot, nr_tpot, &s->tpot);
	serve_dist_of(itl, nr_itl, &s->itl);
	serve_dist_of(lag, nr_lag, &s->lag);
	s->fell_behind = s->late > 0;
	free(ttft);
	free(tpot);
	free(e2el);
	free(lag);
	free(itl);
}

int serve_slo_parse(const char *spec, struct serve_slo *slo, struct err *e)
{
	const char *p = spec;

	memset(slo, 0, sizeof(*slo));
	while (*p) {
		const char *eq = strchr(p, '='), *comma;
		char *end;
		double v, *dst;
		size_t klen;

		if (!eq)
			return err_set(e, "expected NAME=MS pairs separated by commas "
				       "(got \"%.64s\")", spec);
		klen = (size_t)(eq - p);
		dst = klen == 7 && !strncmp(p, "ttft_ms", 7)   ? &slo->ttft_ms
		    : klen == 7 && !strncmp(p, "tpot_ms", 7)   ? &slo->tpot_ms
		    : klen == 7 && !strncmp(p, "e2el_ms", 7)   ? &slo->e2el_ms
		    : NULL;
		if (!dst)
			return err_set(e, "\"%.*s\" is not ttft_ms, tpot_ms or e2el_ms", (int)klen,
				       p);
		v = strtod(eq + 1, &end);
		comma = end;
		if (end == eq + 1 || (*comma && *comma != ',') || !(v > 0 && v < 1e9))
			return err_set(e, "%.*s: expected milliseconds > 0", (int)klen, p);
		*dst = v;
		p = *comma ? comma + 1 : comma;
	}
	if (!slo->ttft_ms && !slo->tpot_ms && !slo->e2el_ms)
		return err_set(e, "name at least one of ttft_ms, tpot_ms and e2el_ms");
	return 0;
}

static json_t *dist_json(const struct serve_dist *d)
{
	json_t *o = jobj();

	jset_int(o, "n", (long long)d->n);
	jset_num(o, "mean", d->mean);
	jset_num(o, "p50", d->p50);
	jset_num(o, "p90", d->p90);
	jset_num(o, "p95", d->p95);
	jset_num(o, "p99", d->p99);
	jset_num(o, "max", d->max);
	return o;
}

json_t *serve_summary_to_json(const struct serve_summary *s)
{
	json_t *o = jobj(), *f = jobj(), *l = jobj();

	jset_str(o, "schema", SERVE_SUMMARY_SCHEMA);
	jset_str(o, "definitions", "vllm bench serve");
	jset_int(o, "requests", (long long)s->requests);
	jset_int(o, "completed", (long long)s->completed);
	jset_int(o, "failed", (long long)s->failed);
	for (int k = 1; k < SERVE_NR_FAILS; k++)
		if (s->fails[k])
			jset_int(f, serve_fail_names[k], (long long)s->fails[k]);
	jset_new(o, "failures", f);
	jset_num(o, "duration_s", s->duration_s);
	jset_num(o, "request_throughput", s->request_throughput);
	jset_num(o, "output_token_throughput", s->output_throughput);
	jset_num(o, "total_token_throughput", s->total_throughput);
	jset_int(o, "prompt_tokens", s->prompt_tokens);
	jset_int(o, "output_tokens", s->output_tokens);
	jset_str(o, "output_tokens_from", !s->completed ? "none"
		 : s->output_from_usage == s->completed ? "usage"
		 : s->output_from_usage ? "usage and chunks" : "chunks");
	if (s->cached_reported) {
		jset_int(o, "cached_prompt_tokens", s->cached_tokens);
		jset_num(o, "prefix_hit_rate", s->prefix_hit_rate);
	} else {
		jset_new(o, "cached_prompt_tokens", json_null());
		jset_new(o, "prefix_hit_rate", json_null());
	}
	jset_new(o, "ttft_ms", dist_json(&s->ttft));
	jset_new(o, "tpot_ms", dist_json(&s->tpot));
	jset_new(o, "itl_ms", dist_json(&s->itl));
	jset_new(o, "e2el_ms", dist_json(&s->e2el));
	if (s->has_slo) {
		json_t *slo = jobj();

		if (s->slo.ttft_ms > 0)
			jset_num(slo, "ttft_ms", s->slo.ttft_ms);
		if (s->slo.tpot_ms > 0)
			jset_num(slo, "tpot_ms", s->slo.tpot_ms);
		if (s->slo.e2el_ms > 0)
			jset_num(slo, "e2el_ms", s->slo.e2el_ms);
		jset_new(o, "slo", slo);
		jset_int(o, "good_requests", (long long)s->good);
		jset_num(o, "goodput", s->goodput);
	}
	jset_bool(l, "open_loop", s->open_loop);
	jset_num(l, "max_lag_ms", s->max_lag_ms);
	jset_int(l, "late", (long long)s->late);
	jset_bool(l, "fell_behind", s->fell_behind);
	jset_new(l, "lag_ms", dist_json(&s->lag));
	jset_new(o, "schedule", l);
	return o;
}

static void dist_values(const struct serve_dist *d, double *out)
{
	out[0] = d->mean;
	out[1] = d->p50;
	out[2] = d->p90;
	out[3] = d->p95;
	out[4] = d->p99;
}

void serve_summary_values(const struct serve_summary *s, double out[SERVING_NR_METRICS])
{
	dist_values(&s->ttft, out);
	dist_values(&s->tpot, out + 5);
	dist_values(&s->itl, out + 10);
	dist_values(&s->e2el, out + 15);
	out[20] = s->request_throughput;
	out[21] = s->output_throughput;
	out[22] = s->total_throughput;
	out[23] = s->prefix_hit_rate;
}
