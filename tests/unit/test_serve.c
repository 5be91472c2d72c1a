/* serve/: the trace generator and reader, the SSE parser, completion
 * chunks, the per-request log and the summary (vLLM's definitions). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/json.h"
#include "attestation/workload.h"
#include "serve/record.h"
#include "serve/sse.h"
#include "serve/trace.h"

static struct trace_gen gen(void)
{
	return (struct trace_gen){ .seed = 7, .process = TRACE_POISSON, .rate = 100,
				   .burstiness = 1, .requests = 200, .prompt_min = 4,
				   .prompt_max = 9, .output_min = 2, .output_max = 5,
				   .vocab = 1000 };
}

static char *render(const struct trace_gen *g, char digest[72])
{
	struct strbuf sb = STRBUF_INIT;
	struct trace t;
	struct err e;

	cr_assert_eq(trace_generate(g, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_render(&t, &sb, digest, &e), 0, "%s", e.msg);
	trace_release(&t);
	return sb_detach(&sb, NULL);
}

Test(serve_trace, same_seed_same_bytes_other_seed_other_bytes)
{
	struct trace_gen g = gen();
	char d1[72], d2[72], d3[72];
	char *a = render(&g, d1), *b = render(&g, d2), *c;

	g.seed = 8;
	c = render(&g, d3);
	cr_assert_str_eq(a, b);
	cr_assert_str_eq(d1, d2);
	cr_assert_str_neq(d1, d3);
	free(a);
	free(b);
	free(c);
}

/* the mean interval is 1/rate; gamma's coefficient of variation is
 * 1/sqrt(B) (Poisson: 1) */
static void interval_moments(double burstiness, double *mean, double *cv)
{
	struct trace_gen g = gen();
	double sum = 0, sq = 0, n;
	struct trace t;
	struct err e;

	g.requests = 20001;
	g.rate = 100;
	g.process = burstiness == 1 ? TRACE_POISSON : TRACE_GAMMA;
	g.burstiness = burstiness;
	cr_assert_eq(trace_generate(&g, &t, &e), 0, "%s", e.msg);
	n = (double)(t.nr - 1);
	for (size_t i = 1; i < t.nr; i++) {
		double d = (double)(t.req[i].arrival_us - t.req[i - 1].arrival_us) / 1e6;

		sum += d;
		sq += d * d;
	}
	*mean = sum / n;
	*cv = sqrt(sq / n - *mean * *mean) / *mean;
	trace_release(&t);
}

Test(serve_trace, poisson_and_gamma_keep_the_rate_and_shape)
{
	double mean, cv;

	interval_moments(1, &mean, &cv);
	cr_assert(fabs(mean - 0.01) < 0.0003, "poisson mean %g", mean);
	cr_assert(fabs(cv - 1) < 0.05, "poisson cv %g", cv);
	interval_moments(0.25, &mean, &cv);
	cr_assert(fabs(mean - 0.01) < 0.0006, "gamma mean %g", mean);
	cr_assert(fabs(cv - 2) < 0.15, "gamma(0.25) cv %g (want 2)", cv);
	interval_moments(4, &mean, &cv);
	cr_assert(fabs(mean - 0.01) < 0.0003, "gamma mean %g", mean);
	cr_assert(fabs(cv - 0.5) < 0.05, "gamma(4) cv %g (want 0.5)", cv);
}

Test(serve_trace, shared_prefix_is_exact_and_shared)
{
	struct trace_gen g = gen();
	size_t shared = 0;
	const struct trace_request *first = NULL;
	struct trace t;
	struct err e;

	g.prefix_fraction = 0.25;
	g.prefix_tokens = 16;
	cr_assert_eq(trace_generate(&g, &t, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < t.nr; i++) {
		const struct trace_request *q = &t.req[i];

		cr_assert(q->max_tokens >= 2 && q->max_tokens <= 5);
		if (q->prefix_group < 0) {
			cr_assert(q->nr_tokens >= 4 && q->nr_tokens <= 9);
			continue;
		}
		shared++;
		cr_assert(q->nr_tokens >= 20 && q->nr_tokens <= 25);
		if (!first)
			first = q;
		cr_assert_eq(memcmp(first->tokens, q->tokens, 16 * sizeof(int32_t)), 0);
	}
	cr_assert_eq(shared, 50);
	trace_release(&t);
}

static void decode_text(const char *text, struct trace *t, struct findings *f)
{
	struct err e;
	json_t *doc = json_parse_strict(text, strlen(text), NULL, &e);

	cr_assert(doc, "%s", e.msg);
	cr_assert_eq(trace_decode(doc, t, f, &e), 0, "%s", e.msg);
	json_decref(doc);
}

Test(serve_trace, what_is_written_reads_back_the_same)
{
	struct trace_gen g = gen();
	struct findings f = FINDINGS_INIT;
	struct strbuf again = STRBUF_INIT;
	char d1[72], d2[72];
	char *text;
	struct trace t;
	struct err e;

	g.prefix_fraction = 0.5;
	g.prefix_tokens = 3;
	text = render(&g, d1);
	decode_text(text, &t, &f);
	cr_assert_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	cr_assert_eq(trace_render(&t, &again, d2, &e), 0);
	cr_assert_str_eq(again.buf, text);
	cr_assert_str_eq(d1, d2);
	trace_release(&t);
	sb_release(&again);
	free(text);
}

/* text decodes with exactly the findings in want (NULL-terminated), in order */
static void findings_are(const char *text, const char *const *want)
{
	struct findings f = FINDINGS_INIT;
	struct trace t;
	size_t n = 0;

	while (want[n])
		n++;
	decode_text(text, &t, &f);
	cr_assert_eq(f.nr, n, "%zu findings, %zu wanted", f.nr, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(f.items[i], want[i]);
	findings_release(&f);
	trace_release(&t);
}

#define TRACE_HEAD "{\"schema\":\"fak-serving-trace/v1\",\"arrival\":{\"process\":\"poisson\"," \
		  "\"rate\":2},"

Test(serve_trace, the_rules_are_findings_with_paths)
{
	findings_are("{\"schema\":\"fak-serving-trace/v1\",\"arrival\":{\"process\":\"poisson\","
		     "\"rate\":2,\"burstiness\":1},\"vocab\":10,\"prefix_tokens\":2,\"requests\":["
		     "{\"arrival_us\":5,\"prompt_token_ids\":[1,2,3],\"max_tokens\":4,"
		     "\"prefix_group\":0},"
		     "{\"arrival_us\":4,\"prompt_token_ids\":[1,3,12],\"max_tokens\":0,"
		     "\"prefix_group\":0},"
		     "{\"arrival_us\":9,\"prompt_token_ids\":[],\"max_tokens\":1}]}",
		     (const char *const[]){
			     ("requests[1].arrival_us: 4 comes before the previous request's 5 "
			      "(arrivals must not decrease)"),
			     "requests[1].max_tokens: 0 is outside 1..131072",
			     ("requests[1].prompt_token_ids: does not start with the prefix of "
			      "group 0 (the first 2 tokens of its first request)"),
			     "requests[1].prompt_token_ids[2]: 12 is outside the vocabulary (0..9)",
			     "requests[2].prompt_token_ids: the prompt is empty", NULL });
}

Test(serve_trace, a_traces_prompts_are_of_one_kind)
{
	/* text first, a vocabulary declared, then token ids */
	findings_are(TRACE_HEAD "\"vocab\":10,\"requests\":["
		     "{\"arrival_us\":0,\"prompt\":\"hi\",\"max_tokens\":1},"
		     "{\"arrival_us\":1,\"prompt_token_ids\":[1,2],\"max_tokens\":1}]}",
		     (const char *const[]){
			     ("requests[1].prompt_token_ids: token ids where request 0's prompt "
			      "is text: a trace's prompts are all text or all token ids"),
			     "vocab: set, but the prompts are text: vocab goes with token prompts",
			     NULL });
	/* token ids first, no vocabulary, then text */
	findings_are(TRACE_HEAD "\"requests\":["
		     "{\"arrival_us\":0,\"prompt_token_ids\":[1,2],\"max_tokens\":1},"
		     "{\"arrival_us\":1,\"prompt\":\"hi\",\"max_tokens\":1}]}",
		     (const char *const[]){
			     ("requests[1].prompt: a text prompt where request 0's prompt is "
			      "token ids: a trace's prompts are all text or all token ids"),
			     "vocab: required with token prompts", NULL });
}

Test(serve_trace, a_vocab_of_zero_is_out_of_bounds_and_an_empty_text_prompt_is_empty)
{
	/* a vocab of 0 is there, not absent: a text trace does not hide it */
	findings_are(TRACE_HEAD "\"vocab\":0,\"requests\":["
		     "{\"arrival_us\":0,\"prompt\":\"hi\",\"max_tokens\":1}]}",
		     (const char *const[]){ "vocab: 0 is outside 2..16777216", NULL });
	findings_are(TRACE_HEAD "\"requests\":["
		     "{\"arrival_us\":0,\"prompt\":\"\",\"max_tokens\":1}]}",
		     (const char *const[]){ "requests[0].prompt: the prompt is empty", NULL });
}

Test(serve_trace, strict_decode_names_the_path)
{
	struct findings f = FINDINGS_INIT;
	const char *text = "{\"schema\":\"fak-serving-trace/v1\",\"arrival\":{\"process\":"
			   "\"closed\",\"concurrency\":2},\"requests\":[{\"arrival_us\":0,"
			   "\"prompt\":\"hi\",\"max_tokens\":1,\"temperature\":0}]}";
	json_t *doc = json_parse_strict(text, strlen(text), NULL, NULL);
	struct trace t;
	struct err e;

	cr_assert(doc);
	cr_assert_eq(trace_decode(doc, &t, &f, &e), -1);
	cr_assert(strstr(e.msg, "requests[0]") && strstr(e.msg, "temperature"), "%s", e.msg);
	json_decref(doc);
	findings_release(&f);
}

/* text is taken by the fast read, as the full read reads it: its number
 * of findings. */
static size_t fast_as_full(const char *text)
{
	struct findings f1 = FINDINGS_INIT, f2 = FINDINGS_INIT;
	struct trace t1, t2;
	char d1[72], d2[72];
	struct err e;
	size_t n;

	cr_assert_eq(trace_read_fast(text, strlen(text), &t1, &f1, d1), 1, "%.200s", text);
	cr_assert_eq(trace_read_full(text, strlen(text), NULL, &t2, &f2, d2, &e), 0, "%s", e.msg);
	cr_assert(trace_equal(&t1, &t2));
	cr_assert_str_eq(d1, d2);
	cr_assert_eq(f1.nr, f2.nr);
	for (size_t i = 0; i < f1.nr; i++)
		cr_assert_str_eq(f1.items[i], f2.items[i]);
	n = f1.nr;
	trace_release(&t1);
	trace_release(&t2);
	findings_release(&f1);
	findings_release(&f2);
	return n;
}

Test(serve_trace, the_fast_read_takes_every_trace_fak_writes)
{
	struct trace_gen g[6];
	char d[72];

	for (size_t i = 0; i < 6; i++)
		g[i] = gen();
	g[1].process = TRACE_GAMMA;
	g[1].burstiness = 2.5;
	g[1].rate = 0.375;
	g[2].process = TRACE_CLOSED;
	g[2].concurrency = 8;
	g[3].text = true;
	g[4].prefix_fraction = 0.5;
	g[4].prefix_tokens = 3;
	g[5].requests = 1;
	g[5].seed = ((uint64_t)1 << 53) - 1;
	for (size_t i = 0; i < 6; i++) {
		char *text = render(&g[i], d);

		cr_assert_eq(fast_as_full(text), 0);
		free(text);
	}
}

Test(serve_trace, the_fast_read_gives_the_full_reads_findings)
{
	/* canonical bytes breaking the rules: the same findings, paths and all */
	size_t rules = fast_as_full(
		"{\"arrival\":{\"burstiness\":1,\"process\":\"poisson\",\"rate\":2},"
		"\"prefix_tokens\":2,\"requests\":[{\"arrival_us\":5,\"max_tokens\":4,"
		"\"prefix_group\":0,\"prompt_token_ids\":[1,2,3]},{\"arrival_us\":4,"
		"\"max_tokens\":0,\"prefix_group\":0,\"prompt_token_ids\":[1,3,12]},"
		"{\"arrival_us\":9,\"max_tokens\":1,\"prompt_token_ids\":[]}],"
		"\"schema\":\"fak-serving-trace/v1\",\"seed\":-3,\"vocab\":10}\n");
	size_t gamma = fast_as_full(
		"{\"arrival\":{\"burstiness\":0.5,\"concurrency\":3,\"process\":\"gamma\"},"
		"\"requests\":[],\"schema\":\"fak-serving-trace/v1\",\"vocab\":1}");
	size_t closed = fast_as_full(
		"{\"arrival\":{\"process\":\"closed\",\"rate\":1e-7},\"requests\":"
		"[{\"arrival_us\":0,\"max_tokens\":1,\"prompt\":\"\"}],"
		"\"schema\":\"fak-serving-trace/v1\"}");

	/* a text prompt after token ids; a vocab of 0 with a text prompt */
	size_t kinds = fast_as_full(
		"{\"arrival\":{\"process\":\"poisson\",\"rate\":2},\"requests\":["
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt_token_ids\":[1,2]},"
		"{\"arrival_us\":1,\"max_tokens\":1,\"prompt\":\"hi\"}],"
		"\"schema\":\"fak-serving-trace/v1\",\"vocab\":10}");
	size_t vocab0 = fast_as_full(
		"{\"arrival\":{\"process\":\"poisson\",\"rate\":2},\"requests\":["
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt\":\"hi\"}],"
		"\"schema\":\"fak-serving-trace/v1\",\"vocab\":0}");

	cr_assert(rules > 0 && gamma > 0 && closed > 0, "%zu %zu %zu", rules, gamma, closed);
	cr_assert(kinds == 1 && vocab0 == 1, "%zu %zu", kinds, vocab0);
}

Test(serve_trace, the_fast_read_gives_way_on_anything_else)
{
	static const char *const head = "{\"arrival\":{\"burstiness\":1,\"process\":\"poisson\","
					"\"rate\":2},\"requests\":[";
	static const char *const tail = "],\"schema\":\"fak-serving-trace/v1\"}";
	static const char *const body[] = {
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt\":\"a\\nb\"}",	/* escape */
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt\":\"\xc3\xa9\"}",	/* not ASCII */
		"{\"arrival_us\":0,\"max_tokens\":1.5,\"prompt\":\"a\"}",	/* a real */
		"{\"arrival_us\":0,\"max_tokens\":1e2,\"prompt\":\"a\"}",
		"{\"arrival_us\":-0,\"max_tokens\":1,\"prompt\":\"a\"}",	/* not canonical */
		"{\"arrival_us\":0100,\"max_tokens\":1,\"prompt\":\"a\"}",
		"{\"arrival_us\":9007199254740993,\"max_tokens\":1,\"prompt\":\"a\"}",
		"{\"max_tokens\":1,\"arrival_us\":0,\"prompt\":\"a\"}",	/* key order */
		"{\"arrival_us\":0, \"max_tokens\":1,\"prompt\":\"a\"}",	/* white space */
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt\":\"a\",\"prompt_token_ids\":[1]}",
		"{\"arrival_us\":0,\"max_tokens\":1}",				/* no prompt */
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt_token_ids\":[16777216]}",
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt_token_ids\":[-1]}",
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt_token_ids\":[1,]}",
		"{\"arrival_us\":0,\"max_tokens\":1,\"prompt\":\"a\",\"temperature\":0}",
	};
	struct strbuf sb = STRBUF_INIT;
	struct findings f = FINDINGS_INIT;
	struct trace t;
	char d[72];

	for (size_t i = 0; i < sizeof(body) / sizeof(body[0]); i++) {
		sb_reset(&sb);
		sb_addf(&sb, "%s%s%s", head, body[i], tail);
		cr_assert_eq(trace_read_fast(sb.buf, sb.len, &t, &f, d), 0, "%s", body[i]);
		cr_assert_eq(f.nr, 0);
	}
	/* the document around them */
#define ARR "{\"arrival\":{\"burstiness\":1,\"process\":\"poisson\",\"rate\":"
	static const char *const doc[] = {
		ARR "2},\"requests\":[],\"schema\":\"fak-serving-trace/v1\"}\n\n",
		ARR "2.50},\"requests\":[],\"schema\":\"fak-serving-trace/v1\"}",
		ARR "2},\"requests\":[],\"schema\":\"fak-serving-trace/v2\"}",
		ARR "2},\"requests\":[],\"schema\":\"fak-serving-trace/v1\"}x",
		/* whole numbers beyond 2^53 as plain digits: jansson's integers,
		 * with no canonical form (or too big for jansson) */
		ARR "10000000000000000},\"requests\":[],\"schema\":\"fak-serving-trace/v1\"}",
		ARR "9007199254740994},\"requests\":[],\"schema\":\"fak-serving-trace/v1\"}",
		ARR "100000000000000000000},\"requests\":[],\"schema\":\"fak-serving-trace/v1\"}",
		("{\"requests\":[],\"arrival\":{\"burstiness\":1,\"process\":\"poisson\","
		 "\"rate\":2},\"schema\":\"fak-serving-trace/v1\"}"),
		"",
	};
#undef ARR
	for (size_t i = 0; i < sizeof(doc) / sizeof(doc[0]); i++)
		cr_assert_eq(trace_read_fast(doc[i], strlen(doc[i]), &t, &f, d), 0, "%s", doc[i]);
	sb_release(&sb);
}

Test(serve_trace, a_trace_in_another_form_loads_with_the_same_digest)
{
	struct trace_gen g = gen();
	char d1[72], d2[72], path[] = "/tmp/fak-trace-XXXXXX";
	struct findings f = FINDINGS_INIT;
	struct strbuf pretty = STRBUF_INIT;
	char *text;
	struct trace t, t2;
	struct err e;
	json_t *doc;
	int fd;

	g.requests = 20;
	text = render(&g, d1);
	doc = json_parse_strict(text, strlen(text), NULL, &e);
	cr_assert(doc);
	json_write_pretty(&pretty, doc);
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, pretty.buf, pretty.len), (ssize_t)pretty.len);
	close(fd);
	cr_assert_eq(trace_read_fast(pretty.buf, pretty.len, &t, &f, d2), 0);
	cr_assert_eq(trace_load(path, &t, &f, d2, &e), 0, "%s", e.msg);
	cr_assert_str_eq(d1, d2);
	cr_assert_eq(trace_read_fast(text, strlen(text), &t2, &f, d2), 1);
	cr_assert(trace_equal(&t, &t2));
	unlink(path);
	trace_release(&t);
	trace_release(&t2);
	json_decref(doc);
	sb_release(&pretty);
	free(text);
}

/* ---- SSE ---------------------------------------------------------------- */

struct events {
	char got[4096];
	size_t n;
};

static int collect(void *ctx, const char *data, size_t len)
{
	struct events *ev = ctx;
	size_t at = strlen(ev->got);

	snprintf(ev->got + at, sizeof(ev->got) - at, "[%.*s]", (int)len, data);
	ev->n++;
	return 0;
}

Test(serve_sse, any_split_gives_the_same_events)
{
	static const char stream[] = ": a comment\r\ndata: one\r\n\r\ndata:two\ndata: 2b\n\n"
				     "event: x\nid: 3\n\ndata\n\ndata: cr\r\rdata: tail";
	const char *want = "[one][two\n2b][][cr]";

	for (size_t cut = 0; cut <= sizeof(stream) - 1; cut++) {
		struct sse s = SSE_INIT;
		struct events ev = { "", 0 };
		struct err e;

		cr_assert_eq(sse_feed(&s, stream, cut, collect, &ev, &e), 0);
		cr_assert_eq(sse_feed(&s, stream + cut, sizeof(stream) - 1 - cut, collect, &ev, &e),
			     0);
		cr_assert_str_eq(ev.got, want, "cut at %zu: %s", cut, ev.got);
		cr_assert(sse_pending(&s), "the unfinished event at the end is pending");
		sse_release(&s);
	}
}

Test(serve_sse, an_oversized_event_fails_and_stays_failed)
{
	struct sse s = SSE_INIT;
	struct events ev = { "", 0 };
	char *big = malloc(SSE_EVENT_MAX + 16);
	struct err e;

	memcpy(big, "data: ", 6);
	memset(big + 6, 'x', SSE_EVENT_MAX + 8);
	cr_assert_eq(sse_feed(&s, big, SSE_EVENT_MAX + 14, collect, &ev, &e), -1);
	cr_assert(strstr(e.msg, "passes"), "%s", e.msg);
	cr_assert_eq(sse_feed(&s, "\n\n", 2, collect, &ev, &e), -1);
	cr_assert_eq(ev.n, 0);
	free(big);
	sse_release(&s);
}

static struct sse_chunk chunk(const char *data, int want_rc)
{
	struct sse_chunk c;
	struct err e;

	cr_assert_eq(sse_chunk_parse(data, strlen(data), &c, &e), want_rc, "%s", data);
	return c;
}

Test(serve_sse, chunks_of_vllm_and_llama_server)
{
	struct sse_chunk c;

	c = chunk("[DONE]", 0);
	cr_assert_eq(c.kind, SSE_CHUNK_DONE);
	c = chunk("{\"choices\":[{\"text\":\"a\",\"finish_reason\":null}]}", 0);
	cr_assert_eq(c.kind, SSE_CHUNK_TEXT);
	cr_assert(!c.finished);
	cr_assert_eq(c.completion_tokens, -1);
	c = chunk("{\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3,"
		  "\"prompt_tokens_details\":{\"cached_tokens\":4}}}", 0);
	cr_assert_eq(c.kind, SSE_CHUNK_USAGE);
	cr_assert_eq(c.completion_tokens, 3);
	cr_assert_eq(c.prompt_tokens, 7);
	cr_assert_eq(c.cached_tokens, 4);
	/* llama-server: timings.cache_n */
	c = chunk("{\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}],"
		  "\"timings\":{\"cache_n\":12,\"prompt_n\":3}}", 0);
	cr_assert_eq(c.kind, SSE_CHUNK_TEXT);
	cr_assert(c.finished);
	cr_assert_eq(c.cached_tokens, 12);
	c = chunk("{\"error\":{\"message\":\"out of slots\"}}", 0);
	cr_assert_eq(c.kind, SSE_CHUNK_ERROR);
	cr_assert_str_eq(c.error, "out of slots");
	chunk("{not json", -1);
	chunk("[1,2]", -1);
	chunk("{\"object\":\"text_completion\"}", -1);
	chunk("{\"choices\":{}}", -1);
}

/* What a stream's events say, summed as the client sums them. */
struct stream_tally {
	int text, done, other;
	long long completion, prompt, cached;
	bool finished;
};

static int tally(void *ctx, const char *data, size_t len)
{
	struct stream_tally *t = ctx;
	struct sse_chunk c;
	struct err e;

	cr_assert_eq(sse_chunk_parse(data, len, &c, &e), 0, "%s", e.msg);
	t->text += c.kind == SSE_CHUNK_TEXT;
	t->done += c.kind == SSE_CHUNK_DONE;
	t->other += c.kind == SSE_CHUNK_USAGE || c.kind == SSE_CHUNK_ERROR;
	if (c.completion_tokens >= 0)
		t->completion = c.completion_tokens;
	if (c.prompt_tokens >= 0)
		t->prompt = c.prompt_tokens;
	if (c.cached_tokens >= 0)
		t->cached = c.cached_tokens;
	t->finished |= c.finished;
	return 0;
}

static struct stream_tally tally_file(const char *path)
{
	struct stream_tally t = { .completion = -1, .prompt = -1, .cached = -1 };
	struct strbuf b = STRBUF_INIT;
	struct sse s = SSE_INIT;
	struct err e;

	cr_assert_eq(file_read(path, 1 << 20, &b, &e), 0, "%s", e.msg);
	cr_assert_eq(sse_feed(&s, b.buf, b.len, tally, &t, &e), 0, "%s", e.msg);
	cr_assert(!sse_pending(&s), "%s: the stream ends with a whole event", path);
	sse_release(&s);
	sb_release(&b);
	return t;
}

/* Streams of the real llama-server (llama.cpp de3ff81, examples/llama-server, captured
 * with curl): it holds back a token whose text ends in an incomplete UTF-8 sequence and
 * sends it with the next, and ends with a chunk of empty text that carries
 * finish_reason, usage and timings. So 8 tokens came in 6 chunks (5 with text, the
 * empty last): the tokens are usage's, never the chunks counted. */
Test(serve_sse, streams_of_llama_server)
{
	struct stream_tally t = tally_file("tests/fixtures/serve/sse/llama-server-de3ff81.txt");

	cr_assert_eq(t.text, 6);
	cr_assert_eq(t.done, 1);
	cr_assert_eq(t.other, 0);
	cr_assert(t.finished);
	cr_assert_eq(t.completion, 8, "usage.completion_tokens, not the 6 chunks");
	cr_assert_eq(t.prompt, 4);
	cr_assert_eq(t.cached, 0);
	/* the same 12-token prompt a second time on one slot: 11 tokens from the cache
	 * (usage.prompt_tokens_details.cached_tokens, equal to timings.cache_n) */
	t = tally_file("tests/fixtures/serve/sse/llama-server-de3ff81-cached.txt");
	cr_assert_eq(t.text, 9);
	cr_assert_eq(t.completion, 8);
	cr_assert_eq(t.prompt, 12);
	cr_assert_eq(t.cached, 11);
}

/* The fast path (no tree) against the full read, event by event: where it
 * answers, the same chunk; which events it answers. */
struct fast_tally {
	char answered[64];
	size_t n;
};

static int fast_vs_full(void *ctx, const char *data, size_t len)
{
	struct fast_tally *t = ctx;
	struct sse_chunk fast, full;
	struct err e;
	int full_rc = sse_chunk_parse_full(data, len, &full, &e);
	bool answered = sse_chunk_fast(data, len, &fast);

	cr_assert_lt(t->n, sizeof(t->answered) - 1);
	t->answered[t->n++] = answered ? '1' : '0';
	if (!answered)
		return 0;
	cr_assert_eq(full_rc, 0, "the fast path took what the full read refuses: %.*s",
		     (int)len, data);
	cr_assert_eq(fast.kind, full.kind, "%.*s", (int)len, data);
	cr_assert_eq(fast.finished, full.finished, "%.*s", (int)len, data);
	cr_assert_eq(fast.completion_tokens, full.completion_tokens, "%.*s", (int)len, data);
	cr_assert_eq(fast.prompt_tokens, full.prompt_tokens, "%.*s", (int)len, data);
	cr_assert_eq(fast.cached_tokens, full.cached_tokens, "%.*s", (int)len, data);
	return 0;
}

static const char *fast_answers(const char *path, struct fast_tally *t)
{
	struct strbuf b = STRBUF_INIT;
	struct sse s = SSE_INIT;
	struct err e;

	memset(t, 0, sizeof(*t));
	cr_assert_eq(file_read(path, 1 << 20, &b, &e), 0, "%s", e.msg);
	cr_assert_eq(sse_feed(&s, b.buf, b.len, fast_vs_full, t, &e), 0, "%s", e.msg);
	sse_release(&s);
	sb_release(&b);
	return t->answered;
}

Test(serve_sse, fast_path_reads_as_the_full_read_or_gives_way)
{
	struct fast_tally t;

	/* the fixture's events in order: seven it reads (escapes, surrogate pairs,
	 * raw UTF-8, reals, negative and 18-digit counts, usage null), then what
	 * it leaves to jansson: duplicate names, an escaped name, a lone surrogate,
	 * \u0000, choices[0] not an object, choices an object, 20 digits, 1e999,
	 * deep nesting; white space everywhere (read); an error member, a trailing
	 * comma, trailing bytes, a leading zero, [DONE] */
	cr_assert_str_eq(fast_answers("tests/fixtures/serve/sse/fast-path.txt", &t),
			 "1111111" "0000000000" "1" "00000");
	/* every chunk of the real servers but [DONE] */
	cr_assert_str_eq(fast_answers("tests/fixtures/serve/sse/llama-server-de3ff81.txt", &t),
			 "1111110");
	cr_assert_str_eq(fast_answers("tests/fixtures/serve/sse/vllm.txt", &t), "110");
}

/* ---- the summary and the log -------------------------------------------- */

Test(serve_summary, percentiles_are_numpys_linear_ones)
{
	double v[] = { 4, 1, 3, 2 };
	struct serve_dist d;

	serve_dist_of(v, 4, &d);
	cr_assert_float_eq(d.mean, 2.5, 1e-12);
	cr_assert_float_eq(d.p50, 2.5, 1e-12);
	cr_assert_float_eq(d.p90, 3.7, 1e-12);
	cr_assert_float_eq(d.p99, 3.97, 1e-12);
	cr_assert_float_eq(d.max, 4, 1e-12);
}

static int64_t ch0[] = { 30000000, 40000000, 60000000 };
static int64_t ch1[] = { 120000000 };

static void two_requests(struct serve_record r[3])
{
	memset(r, 0, 3 * sizeof(*r));
	/* sent 1 ms late; first chunk 30 ms after send... */
	r[0] = (struct serve_record){ .index = 0, .scheduled_ns = 0, .sent_ns = 1000000,
				      .first_ns = 30000000, .end_ns = 61000000,
				      .chunks_ns = ch0, .nr_chunks = 3, .prompt_tokens = 10,
				      .output_tokens = 3, .output_from_usage = true,
				      .cached_tokens = -1, .http_status = 200 };
	r[1] = (struct serve_record){ .index = 1, .scheduled_ns = 100000000,
				      .sent_ns = 100000000, .first_ns = 120000000,
				      .end_ns = 121000000, .chunks_ns = ch1, .nr_chunks = 1,
				      .prompt_tokens = 5, .output_tokens = 1, .cached_tokens = 2,
				      .http_status = 200 };
	r[2] = (struct serve_record){ .index = 2, .scheduled_ns = 110000000,
				      .sent_ns = 110000000, .first_ns = -1, .end_ns = 111000000,
				      .cached_tokens = -1, .http_status = 429,
				      .fail = SERVE_HTTP };
	strcpy(r[2].error, "HTTP 429: busy");
}

Test(serve_summary, vllm_definitions_on_known_records)
{
	struct serve_record r[3];
	struct serve_slo slo = { .ttft_ms = 25 };
	struct serve_summary s;

	two_requests(r);
	serve_summarize(r, 3, true, 0.5, &slo, &s);
	cr_assert_eq(s.completed, 2);
	cr_assert_eq(s.failed, 1);
	cr_assert_eq(s.fails[SERVE_HTTP], 1);
	/* from the first send (1 ms) to the last end (121 ms) */
	cr_assert_float_eq(s.duration_s, 0.12, 1e-12);
	cr_assert_float_eq(s.request_throughput, 2 / 0.12, 1e-9);
	cr_assert_float_eq(s.output_throughput, 4 / 0.12, 1e-9);
	cr_assert_float_eq(s.total_throughput, 19 / 0.12, 1e-9);
	/* TTFT 29 and 20 ms; E2EL 60 and 21 ms */
	cr_assert_float_eq(s.ttft.mean, 24.5, 1e-9);
	cr_assert_float_eq(s.e2el.max, 60, 1e-9);
	/* TPOT (60 - 29) / (3 - 1) for the first only (one token: none) */
	cr_assert_eq(s.tpot.n, 1);
	cr_assert_float_eq(s.tpot.mean, 15.5, 1e-9);
	/* ITL: 10 and 20 ms */
	cr_assert_eq(s.itl.n, 2);
	cr_assert_float_eq(s.itl.mean, 15, 1e-9);
	cr_assert_eq(s.output_from_usage, 1);
	cr_assert_eq(s.cached_tokens, 2);
	cr_assert_eq(s.cached_reported, 1);
	cr_assert_float_eq(s.prefix_hit_rate, 0.4, 1e-12);	/* 2 of its 5 prompt tokens */
	/* goodput: TTFT 20 <= 25 only */
	cr_assert_eq(s.good, 1);
	/* the 1 ms late send passes the 0.5 ms bound */
	cr_assert_eq(s.lag.n, 3);
	cr_assert_eq(s.late, 1);
	cr_assert(s.fell_behind);
}

Test(serve_summary, the_latencies_a_chart_plots_are_the_summarys_sorted)
{
	struct serve_record r[3];
	struct serve_latencies l;

	two_requests(r);
	serve_latencies_of(r, 3, &l);
	/* the failed request has none; each array ascending */
	cr_assert_eq(l.nr_ttft, 2);
	cr_assert_float_eq(l.ttft[0], 20, 1e-9);
	cr_assert_float_eq(l.ttft[1], 29, 1e-9);
	cr_assert_eq(l.nr_e2el, 2);
	cr_assert_float_eq(l.e2el[0], 21, 1e-9);
	cr_assert_float_eq(l.e2el[1], 60, 1e-9);
	cr_assert_eq(l.nr_itl, 2);
	cr_assert_float_eq(l.itl[0], 10, 1e-9);
	cr_assert_float_eq(l.itl[1], 20, 1e-9);
	serve_latencies_release(&l);
	cr_assert_null(l.ttft);
}

Test(serve_log, a_log_reads_back_as_written)
{
	struct serve_record r[3], *back;
	struct serve_log_head h = { .requests = 3, .open_loop = true, .max_lag_ms = 1 }, h2;
	struct strbuf sb = STRBUF_INIT, again = STRBUF_INIT;
	size_t n;
	struct err e;

	memcpy(h.trace_sha256, "sha256:", 7);
	memset(h.trace_sha256 + 7, 'a', 64);
	h.trace_sha256[71] = '\0';
	two_requests(r);
	serve_log_head_line(&sb, &h);
	for (int i = 0; i < 3; i++)
		serve_log_line(&sb, &r[i]);
	cr_assert_eq(serve_log_parse(sb.buf, sb.len, &h2, &back, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 3);
	serve_log_head_line(&again, &h2);
	for (size_t i = 0; i < n; i++)
		serve_log_line(&again, &back[i]);
	cr_assert_str_eq(again.buf, sb.buf);
	serve_records_release(back, n);
	/* a lost line is refused */
	cr_assert_eq(serve_log_parse(sb.buf, strrchr(sb.buf, '{') - sb.buf, &h2, &back, &n, &e),
		     -1);
	cr_assert(strstr(e.msg, "2 of the head's 3"), "%s", e.msg);
	sb_release(&sb);
	sb_release(&again);
}

Test(serve_slo, parse)
{
	struct serve_slo slo;
	struct err e;

	cr_assert_eq(serve_slo_parse("ttft_ms=200,tpot_ms=50", &slo, &e), 0, "%s", e.msg);
	cr_assert_float_eq(slo.ttft_ms, 200, 1e-12);
	cr_assert_float_eq(slo.tpot_ms, 50, 1e-12);
	cr_assert_eq(serve_slo_parse("ttft=200", &slo, &e), -1);
	cr_assert_eq(serve_slo_parse("ttft_ms=-1", &slo, &e), -1);
	cr_assert_eq(serve_slo_parse("ttft_ms=1x", &slo, &e), -1);
}

/* The serving metrics receipts and attestations name (base/serving_metric.h)
 * are the summary's, in the table's order and directions; the sealed
 * serving member reads back the same and refuses what cannot be. */
Test(serve_sealed, the_metric_table_is_the_summarys)
{
	struct serve_summary s = { 0 };
	double v[SERVING_NR_METRICS];
	struct serve_dist *d[] = { &s.ttft, &s.tpot, &s.itl, &s.e2el };

	for (size_t i = 0; i < 4; i++)
		*d[i] = (struct serve_dist){ .mean = 10 * i + 1, .p50 = 10 * i + 2,
					     .p90 = 10 * i + 3, .p95 = 10 * i + 4,
					     .p99 = 10 * i + 5 };
	s.request_throughput = 41;
	s.output_throughput = 42;
	s.total_throughput = 43;
	s.prefix_hit_rate = 0.5;
	serve_summary_values(&s, v);
	cr_assert_eq(v[serving_metric_find("ttft_p95_ms")], 4);
	cr_assert_eq(v[serving_metric_find("tpot_mean_ms")], 11);
	cr_assert_eq(v[serving_metric_find("itl_p50_ms")], 22);
	cr_assert_eq(v[serving_metric_find("e2el_p99_ms")], 35);
	cr_assert_eq(v[serving_metric_find("output_tokens_per_second")], 42);
	cr_assert_eq(v[serving_metric_find("prefix_hit_rate")], 0.5);
	cr_assert_eq(serving_metric_find("ttft_p97_ms"), -1);
	cr_assert(!serving_metrics[serving_metric_find("e2el_mean_ms")].higher_is_better);
	cr_assert(serving_metrics[serving_metric_find("total_tokens_per_second")].higher_is_better);
	cr_assert_str_eq(serving_direction_name(false), "lower");
}

static struct wl_serving sealed(void)
{
	struct wl_serving w = { .present = true, .requests = 8, .completed = 6, .failed = 2,
				.warmup_requests = 2, .startup_ms = 250.5, .max_lag_ms = 1,
				.late = 1, .fell_behind = true, .lag_p99_ms = 1.5,
				.lag_max_ms = 2, .client_cpu_ms = 3, .killed = false };

	snprintf(w.trace_sha256, sizeof(w.trace_sha256), "sha256:%064d", 7);
	snprintf(w.log_sha256, sizeof(w.log_sha256), "%064d", 9);
	snprintf(w.stop_status, sizeof(w.stop_status), "signal 15");
	for (size_t i = 0; i < SERVING_NR_METRICS; i++)
		w.values[i] = (double)i / 4;
	return w;
}

static void refused(json_t *o, const char *want)
{
	struct wl_serving back;
	struct err e;

	cr_assert_eq(wl_serving_decode(o, NULL, &back, &e), -1);
	cr_assert_str_eq(e.msg, want);
	json_decref(o);
}

Test(serve_sealed, the_serving_member_reads_back_and_refuses)
{
	struct wl_serving w = sealed(), back;
	json_t *o = wl_serving_to_json(&w);
	struct err e;

	cr_assert_eq(wl_serving_decode(o, NULL, &back, &e), 0, "%s", e.msg);
	cr_assert_eq(memcmp(&w, &back, sizeof(w)), 0);
	json_decref(o);
	/* a CPU the OS does not tell is absent, not 0 */
	w.client_cpu_ms = -1;
	o = wl_serving_to_json(&w);
	cr_assert_null(json_object_get(o, "client_cpu_ms"));
	cr_assert_eq(wl_serving_decode(o, NULL, &back, &e), 0, "%s", e.msg);
	cr_assert_eq(back.client_cpu_ms, -1);
	json_decref(o);
	w.client_cpu_ms = 3;
	o = wl_serving_to_json(&w);
	json_object_set_new(o, "failed", json_integer(3));
	refused(o, "$: completed and failed must add up to requests");
	o = wl_serving_to_json(&w);
	json_object_set_new(json_object_get(o, "metrics"), "ttft_p95_ms", json_real(-1));
	refused(o, "metrics.ttft_p95_ms: must be in [0, 1e12]");
	o = wl_serving_to_json(&w);
	json_object_del(json_object_get(o, "metrics"), "itl_p99_ms");
	refused(o, "metrics.itl_p99_ms: missing required field");
	o = wl_serving_to_json(&w);
	json_object_set_new(o, "trace_sha256", json_string("9985"));
	refused(o, "$: trace_sha256 must be \"sha256:\" and 64 lowercase hex digits, log_sha256 64 "
		   "lowercase hex digits");
}
