/* workload/metrics: the json-line, quality-line and llama-bench parsers
 * of `fak bench experiment`. Every acceptance checks the values and that
 * they survive the sealed form (wl_metrics_to_json, wl_metrics_decode);
 * every refusal checks the exact message and that nothing is left in the
 * output. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "workload/metrics.h"

#define FIX "tests/fixtures/metrics/"
#define JSONL WL_PARSER_JSON
#define QUAL WL_PARSER_QUALITY
#define LB WL_PARSER_LLAMA_BENCH

/* A minimal valid metrics line and its parts. */
#define QUALITY "\"quality\": {\"name\": \"exact_match\", \"score\": 1, \"higher_is_better\": true}"
#define HEAD "{\"tokens_per_second\": 41.7, \"end_to_end_milliseconds\": 1534.9, "
#define LINE HEAD QUALITY "}"

static void round_trip(const struct wl_metrics *m)
{
	json_t *j = wl_metrics_to_json(m);
	struct wl_metrics back;
	struct err e;

	cr_assert_eq(wl_metrics_decode(j, NULL, &back, &e), 0, "%s", e.msg);
	cr_assert(wl_metrics_equal(m, &back), "sealed form differs");
	json_decref(j);
}

static struct wl_metrics accept_n(const char *id, const char *buf, size_t len, long long p,
				  long long t)
{
	struct wl_metrics m;
	struct err e;

	cr_assert_eq(metrics_parse(id, buf, len, p, t, &m, &e), 0, "%s", e.msg);
	round_trip(&m);
	return m;
}

static struct wl_metrics accept(const char *id, const char *s)
{
	return accept_n(id, s, strlen(s), 32, 64);
}

static void refuse_n(const char *id, const char *buf, size_t len, long long p, long long t,
		     const char *want)
{
	struct wl_metrics m, zero;
	struct err e;

	memset(&m, 0x5a, sizeof(m));
	memset(&zero, 0, sizeof(zero));
	cr_assert_eq(metrics_parse(id, buf, len, p, t, &m, &e), -1, "accepted: %.80s", buf);
	cr_assert_str_eq(e.msg, want);
	cr_assert(!memcmp(&m, &zero, sizeof(m)), "a refusal left values behind");
}

static void refuse(const char *id, const char *s, const char *want)
{
	refuse_n(id, s, strlen(s), 32, 64, want);
}

static char *fixture(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e;

	cr_assert_eq(file_read(path, METRICS_DOC_MAX_BYTES, &sb, &e), 0, "%s", e.msg);
	return sb_detach(&sb, len);
}

static struct wl_metrics accept_file(const char *id, const char *path, long long p, long long t)
{
	size_t len;
	char *buf = fixture(path, &len);
	struct wl_metrics m = accept_n(id, buf, len, p, t);

	free(buf);
	return m;
}

static void refuse_file(const char *id, const char *path, long long p, long long t,
			const char *want)
{
	size_t len;
	char *buf = fixture(path, &len);

	refuse_n(id, buf, len, p, t, want);
	free(buf);
}

/* n bytes of s repeated (caller frees), NUL-terminated. */
static char *fill(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	size_t k = strlen(s);

	cr_assert_not_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = s[i % k];
	p[n] = '\0';
	return p;
}

/* ---- the parser table ---------------------------------------------------- */

Test(metrics, parsers_are_found_by_id_and_option)
{
	const struct metrics_parser *p = metrics_parser_for_option("json");

	cr_assert_not_null(p);
	cr_assert_str_eq(p->id, "json-line/v1");
	cr_assert(!p->whole);
	cr_assert_eq(p->max_bytes, 65536);
	p = metrics_parser_for_option("llama-bench");
	cr_assert_not_null(p);
	cr_assert_str_eq(p->id, "llama-bench/v1");
	cr_assert(p->whole);
	cr_assert_eq(p->max_bytes, 4194304);
	p = metrics_parser_find("quality-line/v1");
	cr_assert_not_null(p);
	cr_assert_null(p->option);
	cr_assert(!p->whole);
	cr_assert_eq(metrics_parser_find("json-line/v1"), metrics_parser_for_option("json"));
	cr_assert_null(metrics_parser_find("json"));
	cr_assert_null(metrics_parser_find(NULL));
	cr_assert_null(metrics_parser_for_option("quality-line/v1"));
	cr_assert_null(metrics_parser_for_option("csv"));
	cr_assert_null(metrics_parser_for_option(NULL));
}

Test(metrics, unknown_parser_is_refused)
{
	refuse("json-line/v2", LINE, "unknown metrics parser 'json-line/v2'");
	refuse(NULL, LINE, "unknown metrics parser '(none)'");
}

/* ---- json-line/v1: accepted ---------------------------------------------- */

Test(metrics, json_line_minimal)
{
	struct wl_metrics m = accept(JSONL, LINE);

	cr_assert(m.has_throughput);
	cr_assert_eq(m.tokens_per_second, 41.7);
	cr_assert_eq(m.end_to_end_ms, 1534.9);
	cr_assert(!m.has_ttft && !m.has_prefill && !m.has_decode);
	cr_assert(m.has_quality);
	cr_assert_str_eq(m.quality.name, "exact_match");
	cr_assert_eq(m.quality.score, 1);
	cr_assert(m.quality.higher_is_better);
}

Test(metrics, json_line_after_progress_output)
{
	struct wl_metrics m = accept_file(JSONL, FIX "line/json-line-progress.txt", 32, 64);

	cr_assert_eq(m.tokens_per_second, 41.7);
	cr_assert_eq(m.end_to_end_ms, 1534.9);
}

Test(metrics, json_line_stages_crlf_and_utf8_name)
{
	struct wl_metrics m = accept_file(JSONL, FIX "line/json-line-stages-crlf-utf8.txt", 32, 64);

	cr_assert_eq(m.tokens_per_second, 38.25);
	cr_assert_eq(m.end_to_end_ms, 1673.2);
	cr_assert(m.has_ttft && m.has_prefill && m.has_decode);
	cr_assert_eq(m.ttft_ms, 51.5);
	cr_assert_eq(m.prefill_ms, 48.75);
	cr_assert_eq(m.decode_ms, 1621.7);
	cr_assert_str_eq(m.quality.name, "pr\xc3\xa9" "cision@1 \xe2\x9c\x93");
	cr_assert_eq(m.quality.score, 0.984375);
}

Test(metrics, json_line_final_line_without_lf_and_trailing_blanks)
{
	accept(JSONL, "warm-up\n" LINE);
	accept(JSONL, LINE " \t\r\n\n \n\t\r\n   ");
	accept(JSONL, "\n\n  " LINE "\r");
}

Test(metrics, json_line_integers_zero_stage_times_and_lower_is_better)
{
	struct wl_metrics m =
		accept(JSONL, "{\"tokens_per_second\": 12, \"end_to_end_milliseconds\": 5000, "
			      "\"ttft_milliseconds\": 0, \"prefill_milliseconds\": 0, "
			      "\"decode_milliseconds\": 0, \"quality\": {\"name\": \"perplexity\", "
			      "\"score\": -3.5, \"higher_is_better\": false}}");

	cr_assert_eq(m.tokens_per_second, 12);
	cr_assert(m.has_ttft && m.has_prefill && m.has_decode);
	cr_assert_eq(m.ttft_ms, 0);
	cr_assert_eq(m.quality.score, -3.5);
	cr_assert(!m.quality.higher_is_better);
}

Test(metrics, json_line_bounds_are_inclusive_where_documented)
{
	struct wl_metrics m =
		accept(JSONL, "{\"tokens_per_second\": 1e9, \"end_to_end_milliseconds\": 1e12, "
			      "\"decode_milliseconds\": 1e12, " QUALITY "}");

	cr_assert_eq(m.tokens_per_second, 1e9);
	cr_assert_eq(m.end_to_end_ms, 1e12);
	m = accept(JSONL,
		   "{\"tokens_per_second\": 1e-6, \"end_to_end_milliseconds\": 1e-9, " QUALITY "}");
	cr_assert_eq(m.tokens_per_second, 1e-6);
}

Test(metrics, json_line_stage_times_are_judged_by_the_attestation)
{
	/* the parser reads them; the attestation's classification judges them
	 * against each other and the rate (WORKLOAD_STAGES_EXCEED_END_TO_END,
	 * WORKLOAD_RATE_DISAGREES_WITH_STAGES: test_sampler.c), so that the
	 * verifier re-derives the finding from the sealed metrics */
	struct wl_metrics m = accept(JSONL, "{\"tokens_per_second\": 1e6, "
					    "\"end_to_end_milliseconds\": 80, "
					    "\"decode_milliseconds\": 800, " QUALITY "}");

	cr_assert_eq(m.decode_ms, 800);
	cr_assert_eq(m.end_to_end_ms, 80);
}

Test(metrics, json_line_only_the_last_line_counts)
{
	struct wl_metrics m =
		accept(JSONL,
		       "{\"tokens_per_second\": 1, \"end_to_end_milliseconds\": 1, " QUALITY "}\n"
		       "not json at all\n\x01\xfe\xff\n" LINE "\n");

	cr_assert_eq(m.tokens_per_second, 41.7);
}

Test(metrics, json_line_after_a_large_output_whole_or_tail)
{
	size_t junk = 300000, len;
	char *buf = fill("progress 0123456789 \xff\x01 line\n", junk + strlen(LINE));
	struct wl_metrics whole, tail;

	buf[junk - 1] = '\n';
	memcpy(buf + junk, LINE, strlen(LINE));
	len = junk + strlen(LINE);
	whole = accept_n(JSONL, buf, len, 32, 64);
	tail = accept_n(JSONL, buf + len - METRICS_TAIL_BYTES, METRICS_TAIL_BYTES, 32, 64);
	cr_assert(wl_metrics_equal(&whole, &tail));
	free(buf);
}

/* The line, from its first byte to the end of stdout, may take 65535 bytes:
 * with the LF before it, exactly the runner's 64 KiB tail. */
Test(metrics, json_line_of_the_largest_size)
{
	size_t pad = METRICS_LINE_MAX - strlen(LINE), len = 1 + METRICS_LINE_MAX;
	char *buf = fill(" ", len);

	buf[0] = '\n';
	buf[1] = '{';
	memcpy(buf + 1 + pad, LINE, strlen(LINE));	/* "{" + spaces + "{..." would not parse */
	buf[1 + pad] = ' ';
	cr_assert_eq(accept_n(JSONL, buf, len, 32, 64).tokens_per_second, 41.7);
	cr_assert_eq(len, METRICS_TAIL_BYTES);
	free(buf);
}

Test(metrics, json_line_longer_than_the_tail_is_refused)
{
	size_t len = 2 + METRICS_TAIL_BYTES;
	char *buf = fill(" ", len);
	const char *want = "metrics line is longer than 65535 bytes (counted from its start to the "
			   "end of stdout)";
	const char *line = LINE;

	/* "x\n" then a line of 65536 bytes: refused whole and as its tail */
	buf[0] = 'x';
	buf[1] = '\n';
	buf[2] = '{';
	memcpy(buf + len - strlen(line) + 1, line + 1, strlen(line) - 1);
	refuse_n(JSONL, buf, len, 32, 64, want);
	refuse_n(JSONL, buf + 2, METRICS_TAIL_BYTES, 32, 64, want);
	refuse_n(JSONL, buf + 3, METRICS_TAIL_BYTES - 1, 32, 64,
		 "metrics line is not a JSON object: it starts with \"\\x22tokens_per_second\\x22: "
		 "41.7, \\x22end_to_end_m\"...");
	free(buf);
}

Test(metrics, json_line_blank_lines_after_it_count_toward_the_limit)
{
	size_t len = 1 + strlen(LINE) + METRICS_TAIL_BYTES;
	char *buf = fill(" \n", len);

	/* "\n" LINE, then blank lines: the line starts at byte 1 */
	buf[0] = '\n';
	memcpy(buf + 1, LINE, strlen(LINE));
	cr_assert_eq(accept_n(JSONL, buf, 1 + METRICS_LINE_MAX, 32, 64).tokens_per_second, 41.7);
	refuse_n(JSONL, buf, 2 + METRICS_LINE_MAX, 32, 64,
		 "metrics line is longer than 65535 bytes (counted from its start to the end of "
		 "stdout)");
	refuse_n(JSONL, buf, len, 32, 64, "the last 65536 bytes of stdout are blank lines: "
					  "expected a metrics line");
	free(buf);
}

/* ---- json-line/v1: refused ----------------------------------------------- */

Test(metrics, json_line_no_line)
{
	refuse_n(JSONL, NULL, 0, 32, 64, "stdout is empty: expected a metrics line");
	refuse(JSONL, "", "stdout is empty: expected a metrics line");
	refuse(JSONL, "\n\n \t\r\n  \n", "stdout has only blank lines: expected a metrics line");
}

Test(metrics, json_line_garbage_last_after_a_valid_line)
{
	refuse_file(JSONL, FIX "line/json-line-garbage-last.txt", 32, 64,
		    "metrics line is not a JSON object: it starts with \"benchmark done.\"");
	refuse(JSONL, LINE "\n\x01\xfe\xff garbage", "metrics line is not a JSON object: it starts "
						     "with \"\\x01\\xfe\\xff garbage\"");
	refuse(JSONL, LINE "\n  {\xff\xfe}", "metrics line is not valid JSON: column 3: unable to "
					     "decode byte 0xff");
}

Test(metrics, json_line_nul_byte)
{
	static const char buf[] =
		"{\"tokens_per_second\": 41.7\0, \"end_to_end_milliseconds\": 1534.9}\n";

	refuse_n(JSONL, buf, sizeof(buf) - 1, 32, 64, "metrics line holds a NUL byte (byte 27 of "
						      "the line)");
	refuse_n(JSONL, "\0\n", 2, 32, 64, "metrics line holds a NUL byte (byte 1 of the line)");
}

Test(metrics, json_line_not_one_object)
{
	refuse(JSONL, "[41.7, 1534.9]", "metrics line is not a JSON object: it starts with "
					"\"[41.7, 1534.9]\"");
	refuse(JSONL, "41.7", "metrics line is not a JSON object: it starts with \"41.7\"");
	refuse(JSONL, LINE " " LINE, "metrics line is not valid JSON: column 138: end of file "
				     "expected near '{'");
	refuse(JSONL, "{\"tokens_per_second\": 41.7,", "metrics line is not valid JSON: column 27: "
						       "string or '}' expected near end of file");
}

Test(metrics, json_line_required_members)
{
	refuse(JSONL, "{\"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line: tokens_per_second: missing required field");
	refuse(JSONL, "{\"tokens_per_second\": 41.7, " QUALITY "}",
	       "metrics line: end_to_end_milliseconds: missing required field");
	refuse(JSONL, "{\"tokens_per_second\": 41.7, \"end_to_end_milliseconds\": 1534.9}",
	       "metrics line: quality: missing required field");
	refuse(JSONL, "{}", "metrics line: tokens_per_second: missing required field");
	refuse(JSONL, HEAD "\"quality\": "
	       "{\"name\": \"exact_match\", \"higher_is_better\": true}}",
	       "metrics line: quality.score: missing required field");
}

Test(metrics, json_line_unknown_members)
{
	refuse(JSONL, HEAD "\"tokens\": 64, " QUALITY "}",
	       "metrics line: tokens: unknown field");
	refuse(JSONL,
	       HEAD "\"quality\": {\"name\": \"exact_match\", \"score\": 1, \"higher_is_better\": "
		    "true, \"unit\": \"%\"}}", "metrics line: quality.unit: unknown field");
}

Test(metrics, json_line_wrong_types)
{
	refuse(JSONL,
	       "{\"tokens_per_second\": \"41.7\", \"end_to_end_milliseconds\": 1534.9, " QUALITY
	       "}", "metrics line: tokens_per_second: expected a number, found a string");
	refuse(JSONL,
	       "{\"tokens_per_second\": null, \"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line: tokens_per_second: expected a number, found null");
	refuse(JSONL, HEAD "\"ttft_milliseconds\": true, "
	       QUALITY "}", "metrics line: ttft_milliseconds: expected a number, found a boolean");
	refuse(JSONL, HEAD "\"quality\": [1]}",
	       "metrics line: quality: expected an object, found an array");
	refuse(JSONL, HEAD "\"quality\": "
	       "{\"name\": \"exact_match\", \"score\": 1, \"higher_is_better\": \"yes\"}}",
	       "metrics line: quality.higher_is_better: expected a boolean, found a string");
	refuse(JSONL, HEAD "\"quality\": "
	       "{\"name\": 7, \"score\": 1, \"higher_is_better\": true}}",
	       "metrics line: quality.name: expected a string, found an integer");
	refuse(JSONL,
	       HEAD "\"quality\": {\"name\": \"exact_match\", \"score\": \"1\", "
		    "\"higher_is_better\": true}}", "metrics line: quality.score: expected a "
						    "number, found a string");
}

Test(metrics, json_line_duplicates_and_non_finite_numbers)
{
	refuse(JSONL, "{\"tokens_per_second\": 41.7, \"tokens_per_second\": 99, "
	       "\"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line is not valid JSON: column 47: duplicate object key near "
	       "'\"tokens_per_second\"'");
	refuse(JSONL,
	       "{\"tokens_per_second\": NaN, \"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line is not valid JSON: column 25: invalid token near 'NaN'");
	refuse(JSONL,
	       "{\"tokens_per_second\": Infinity, \"end_to_end_milliseconds\": 1534.9, " QUALITY
	       "}", "metrics line is not valid JSON: column 30: invalid token near 'Infinity'");
	refuse(JSONL,
	       "{\"tokens_per_second\": 1e999, \"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line is not valid JSON: column 27: real number overflow near '1e999'");
}

Test(metrics, json_line_out_of_range)
{
	refuse(JSONL,
	       "{\"tokens_per_second\": 0, \"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line: tokens_per_second: must be in [0.000001, 1000000000]");
	refuse(JSONL,
	       "{\"tokens_per_second\": 2e9, \"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line: tokens_per_second: must be in [0.000001, 1000000000]");
	refuse(JSONL,
	       "{\"tokens_per_second\": 1e-7, \"end_to_end_milliseconds\": 1534.9, " QUALITY "}",
	       "metrics line: tokens_per_second: must be in [0.000001, 1000000000]");
	refuse(JSONL, "{\"tokens_per_second\": 41.7, \"end_to_end_milliseconds\": -1, " QUALITY "}",
	       "metrics line: end_to_end_milliseconds: must be in (0, 1000000000000]");
	refuse(JSONL, "{\"tokens_per_second\": 41.7, \"end_to_end_milliseconds\": 0, " QUALITY "}",
	       "metrics line: end_to_end_milliseconds: must be in (0, 1000000000000]");
	refuse(JSONL, HEAD "\"ttft_milliseconds\": -0.5, "
	       QUALITY "}", "metrics line: ttft_milliseconds: must be in [0, 1000000000000]");
	refuse(JSONL,
	       HEAD "\"prefill_milliseconds\": "
		    "-1e-9, " QUALITY "}", "metrics line: prefill_milliseconds: must be in [0, "
					   "1000000000000]");
	refuse(JSONL,
	       HEAD "\"decode_milliseconds\": "
		    "2e12, " QUALITY "}", "metrics line: decode_milliseconds: must be in [0, "
					  "1000000000000]");
}

Test(metrics, json_line_quality_name)
{
	char line[512];
	char *name = fill("n", 128);

	refuse(JSONL, HEAD "\"quality\": "
	       "{\"name\": \" \\t\", \"score\": 1, \"higher_is_better\": true}}",
	       "metrics line: quality.name: must be a non-blank name of at most 127 bytes");
	refuse(JSONL, HEAD "\"quality\": "
	       "{\"name\": \"\\u00a0\", \"score\": 1, \"higher_is_better\": true}}",
	       "metrics line: quality.name: must be a non-blank name of at most 127 bytes");
	snprintf(line, sizeof(line), HEAD "\"quality\": "
		 "{\"name\": \"%s\", \"score\": 1, \"higher_is_better\": true}}", name);
	refuse(JSONL, line, "metrics line: quality.name: must be a non-blank name of at most 127 "
			    "bytes");
	name[127] = '\0';
	snprintf(line, sizeof(line), HEAD "\"quality\": "
		 "{\"name\": \"%s\", \"score\": 1, \"higher_is_better\": true}}", name);
	cr_assert_str_eq(accept(JSONL, line).quality.name, name);
	refuse(JSONL,
	       HEAD "\"quality\": {\"name\": \"a\\u0000b\", \"score\": 1, \"higher_is_better\": "
		    "true}}", "metrics line is not valid JSON: column 93: \\u0000 is not allowed "
			      "without JSON_ALLOW_NUL near '\"a\\u0000b\"'");
	refuse(JSONL, HEAD "\"quality\": "
	       "{\"name\": \"pr\xe9\", \"score\": 1, \"higher_is_better\": true}}",
	       "metrics line is not valid JSON: column 86: unable to decode byte 0xe9 near '\"pr'");
	free(name);
}

/* ---- quality-line/v1 ------------------------------------------------------ */

Test(metrics, quality_line_fills_only_the_quality)
{
	struct wl_metrics m = accept_file(QUAL, FIX "line/quality-line.txt", 32, 64);

	cr_assert(!m.has_throughput && !m.has_ttft && !m.has_prefill && !m.has_decode);
	cr_assert(m.has_quality);
	cr_assert_str_eq(m.quality.name, "exact_match");
	cr_assert_eq(m.quality.score, 1);
	cr_assert(m.quality.higher_is_better);
	m = accept(QUAL, "{\"name\": \"rouge-l\", \"score\": 0.4375, \"higher_is_better\": "
			 "true}\r\n\r\n");
	cr_assert_eq(m.quality.score, 0.4375);
}

Test(metrics, quality_line_refusals)
{
	refuse(QUAL, "", "stdout is empty: expected a quality line");
	refuse(QUAL, " \n", "stdout has only blank lines: expected a quality line");
	refuse(QUAL, "{\"name\": \"exact_match\", \"higher_is_better\": true}",
	       "quality line: score: missing required field");
	refuse(QUAL, "{\"name\": \"exact_match\", \"score\": 1}", "quality line: higher_is_better: "
								  "missing required field");
	refuse(QUAL, LINE, "quality line: tokens_per_second: unknown field");
	refuse(QUAL, "{\"name\": \"exact_match\", \"score\": \"1\", \"higher_is_better\": true}",
	       "quality line: score: expected a number, found a string");
	refuse(QUAL, "{\"name\": \"\", \"score\": 1, \"higher_is_better\": true}",
	       "quality line: name: must be a non-blank name of at most 127 bytes");
	refuse(QUAL, "{\"name\": \"exact_match\", \"score\": 1, \"higher_is_better\": true}\n"
		     "PASS\n",
	       "quality line is not a JSON object: it starts with \"PASS\"");
	refuse(QUAL, "[\"exact_match\", 1, true]",
	       "quality line is not a JSON object: it starts with \"[\\x22exact_match\\x22, 1, "
	       "true]\"");
}

/* ---- named numerical metrics ----------------------------------------------- */

static void q8_metrics(const struct wl_metrics *m)
{
	cr_assert_eq(m->nr_numerical, 3);
	cr_assert_str_eq(m->numerical[0].name, "argmax_match");
	cr_assert_eq(m->numerical[0].value, 1);
	cr_assert_str_eq(m->numerical[1].name, "cosine");
	cr_assert_eq(m->numerical[1].value, 0.99912);
	cr_assert_str_eq(m->numerical[2].name, "max_abs");
	cr_assert_eq(m->numerical[2].value, 0.0041);
	cr_assert_eq(*wl_metric_value(m, "max_abs"), 0.0041);
	cr_assert_eq(*wl_metric_value(m, "exact_match"), 1);
	cr_assert_null(wl_metric_value(m, "rouge"));
}

Test(metrics, numerical_members_accepted_and_sealed_sorted)
{
	struct wl_metrics m = accept_file(JSONL, FIX "line/json-line-numerical.txt", 32, 64);
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	q8_metrics(&m);
	cr_assert_str_eq(m.identity.engine, "fak-native");
	j = wl_metrics_to_json(&m);
	json_write_compact(&sb, json_object_get(j, "numerical"));
	cr_assert_str_eq(sb.buf, "{\"argmax_match\":1,\"cosine\":0.99912,\"max_abs\":0.0041}");
	json_decref(j);
	sb_release(&sb);
	m = accept_file(QUAL, FIX "line/quality-line-numerical.txt", 32, 64);
	q8_metrics(&m);
	cr_assert(m.has_quality && !m.has_throughput);
	cr_assert_str_eq(m.quality.name, "exact_match");
	/* sixteen members, names of 128 bytes */
	{
		struct strbuf l = STRBUF_INIT;
		char name[130];

		memset(name, 'a', 128);
		name[128] = '\0';
		sb_adds(&l, HEAD QUALITY ", \"numerical\": {");
		for (int i = 0; i < 15; i++)
			sb_addf(&l, "\"m%d\": %d, ", i, -i);
		sb_addf(&l, "\"%s\": 0.5}}", name);
		m = accept(JSONL, l.buf);
		cr_assert_eq(m.nr_numerical, 16);
		cr_assert_eq(*wl_metric_value(&m, name), 0.5);
		cr_assert_eq(*wl_metric_value(&m, "m14"), -14);
		sb_release(&l);
	}
}

#define NUM(body) HEAD QUALITY ", \"numerical\": " body "}"
#define QNUM(body) "{\"name\": \"exact_match\", \"score\": 1, \"higher_is_better\": true, " \
		   "\"numerical\": " body "}"

Test(metrics, numerical_refusals)
{
	struct strbuf l = STRBUF_INIT, w = STRBUF_INIT;
	char name[130];

	refuse(JSONL, NUM("[0.999]"),
	       "metrics line: numerical: expected an object, found an array");
	refuse(JSONL, NUM("{}"), "metrics line: numerical: holds no metric; leave it out instead");
	refuse(JSONL, NUM("{\"Cosine\": 0.999}"),
	       "metrics line: numerical.Cosine: a metric name holds a byte other than a lowercase "
	       "letter, a digit, '.', '_' and '-'; a name is lowercase letters and digits joined "
	       "by single '.', '_' or '-', at most 128 bytes");
	refuse(JSONL, NUM("{\"max__abs\": 0.1}"),
	       "metrics line: numerical.max__abs: a metric name holds two of '.', '_' and '-' in "
	       "a row; a name is lowercase letters and digits joined by single '.', '_' or '-', "
	       "at most 128 bytes");
	refuse(JSONL, NUM("{\"cosine\": \"0.999\"}"),
	       "metrics line: numerical.cosine: expected a number, found a string");
	refuse(JSONL, NUM("{\"cosine\": null}"),
	       "metrics line: numerical.cosine: expected a number, found null");
	refuse(JSONL, NUM("{\"exact_match\": 1}"),
	       "metrics line: numerical.exact_match: is the quality's metric; state it once, in "
	       "the quality object");
	refuse(QUAL, QNUM("{\"exact_match\": 0.5}"),
	       "quality line: numerical.exact_match: is the quality's metric; state it once, in "
	       "the quality object");
	refuse(QUAL, QNUM("{\"cosine\": true}"),
	       "quality line: numerical.cosine: expected a number, found a boolean");
	refuse(QUAL, QNUM("7"), "quality line: numerical: expected an object, found an integer");
	memset(name, 'a', 129);
	name[129] = '\0';
	sb_addf(&l, NUM("{\"%s\": 1}"), name);
	sb_addf(&w, "metrics line: numerical.%s: a metric name is longer than 128 bytes; a name "
		"is lowercase letters and digits joined by single '.', '_' or '-', at most 128 "
		"bytes", name);
	refuse(JSONL, l.buf, w.buf);
	sb_release(&w);
	sb_reset(&l);
	sb_adds(&l, HEAD QUALITY ", \"numerical\": {");
	for (int i = 0; i < 17; i++)
		sb_addf(&l, "%s\"m%d\": 1", i ? ", " : "", i);
	sb_adds(&l, "}}");
	refuse(JSONL, l.buf, "metrics line: numerical: holds 17 metrics, at most 16");
	sb_release(&l);
}

Test(metrics, numerical_sealed_form_refusals)
{
	struct wl_metrics m;
	struct err e;
	json_t *j = json_loads("{\"tokens_per_second\": 1, \"end_to_end_milliseconds\": 1, "
			       "\"numerical\": {\"cosine\": 1}}", 0, NULL);

	cr_assert_eq(wl_metrics_decode(j, NULL, &m, &e), -1);
	cr_assert_str_eq(e.msg, "numerical: goes with a quality object");
	json_decref(j);
}

/* ---- llama-bench/v1: the shapes real versions print ------------------------ */

/* The start of the refusal when no result has the envelope's shape. */
#define NO_ROW(p, t)                                                                         \
	"no llama-bench pp" #p "+tg" #t " result (-pg " #p "," #t "), nor both pp" #p " and tg" #t \
	" (-p " #p " -n " #t "), at depth 0; results found: "

#define ROW(p, g, rest) "{\"n_prompt\": " #p ", \"n_gen\": " #g rest "}"

static void llama_values(const struct wl_metrics *m, double avg_ns, double tokens)
{
	cr_assert(m->has_throughput);
	cr_assert_eq(m->end_to_end_ms, avg_ns / 1e6);
	cr_assert_eq(m->tokens_per_second, tokens * 1e9 / avg_ns);
	cr_assert(!m->has_ttft && !m->has_prefill && !m->has_decode && !m->has_quality);
	cr_assert_str_eq(m->derivation, "pg");
}

/* A pP row and a tgT row: decode tok/s from the tg row alone, end to end
 * the sum of the two rows' means. */
static void llama_pair(const struct wl_metrics *m, double pp_ns, double tg_ns, double tokens)
{
	cr_assert(m->has_throughput && m->has_prefill && m->has_decode);
	cr_assert_eq(m->tokens_per_second, tokens * 1e9 / tg_ns);
	cr_assert_eq(m->prefill_ms, pp_ns / 1e6);
	cr_assert_eq(m->decode_ms, tg_ns / 1e6);
	cr_assert_eq(m->end_to_end_ms, (pp_ns + tg_ns) / 1e6);
	cr_assert(!m->has_ttft && !m->has_quality);
	cr_assert_str_eq(m->derivation, "pp+tg");
}

/* One accepted output per llama-bench generation (tests/fixtures/metrics/README.md). */
Test(metrics, llama_bench_accepted_generations)
{
	static const struct {
		const char *file;
		long long p, t;
		double avg_ns;	/* of the chosen result */
	} cases[] = {
		{ "mid-2024-json-pg.json", 32, 64, 1484049118 }, /* no n_depth */
		{ "late-2024-jsonl-pp-tg-pg.jsonl", 32, 64, 1493739898 }, /* third result */
		{ "2025-json-depth.json", 32, 64, 1495551522 }, /* depth 0, not 512 */
		{ "newest-jsonl-pg.jsonl", 32, 64, 1505389552 },
		{ "newest-json-p1.json", 1, 64, 1367705835 }, /* the CUDA shape */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[256];
		struct wl_metrics m;

		snprintf(path, sizeof(path), FIX "llama-bench/%s", cases[i].file);
		m = accept_file(LB, path, cases[i].p, cases[i].t);
		llama_values(&m, cases[i].avg_ns, (double)cases[i].t);
	}
}

Test(metrics, llama_bench_tokens_per_second_is_decode_over_end_to_end)
{
	struct wl_metrics m = accept_file(LB, FIX "llama-bench/mid-2024-json-pg.json", 32, 64);

	/* 64 decode tokens over 1484.049118 ms, not llama-bench's avg_ts
	 * (64.689768, which counts the 32 prompt tokens too) */
	cr_assert_float_eq(m.tokens_per_second, 43.1252, 1e-4);
	cr_assert_float_eq(m.end_to_end_ms, 1484.049118, 1e-9);
}

Test(metrics, llama_bench_pp_tg_pair)
{
	struct wl_metrics m = accept_file(LB, FIX "llama-bench/early-2024-json-pp-tg.json", 32, 64);

	llama_pair(&m, 114836275, 1376627118, 64);
	/* the pair without its pp row is not the envelope's shape */
	refuse(LB, ROW(0, 64, ", \"avg_ns\": 1e9"), NO_ROW(32, 64) "#1 tg64");
	/* nor without its tg row */
	refuse(LB, ROW(32, 0, ", \"avg_ns\": 1e9"), NO_ROW(32, 64) "#1 pp32");
	/* a tg row at another length does not pair */
	refuse(LB, ROW(32, 0, ", \"avg_ns\": 1e9") "\n" ROW(0, 63, ", \"avg_ns\": 1e9"),
	       NO_ROW(32, 64) "#1 pp32, #2 tg63");
}

Test(metrics, llama_bench_pg_row_wins_over_the_pair)
{
	/* -p 32 -n 64 -pg 32,64: the end-to-end row is the envelope's shape */
	struct wl_metrics m =
		accept_file(LB, FIX "llama-bench/late-2024-jsonl-pp-tg-pg.jsonl", 32, 64);

	llama_values(&m, 1493739898, 64);
}

Test(metrics, llama_bench_prompt_zero_reads_the_tg_row)
{
	static const char rows[] =
		ROW(32, 0, ", \"avg_ns\": 5e8") "\n" ROW(0, 64, ", \"avg_ns\": 2e9");
	struct wl_metrics m = accept_n(LB, rows, sizeof(rows) - 1, 0, 64);

	/* P = 0: the tg row alone; a pp row is not used */
	cr_assert_eq(m.tokens_per_second, 32);
	cr_assert_eq(m.end_to_end_ms, 2000);
	cr_assert(m.has_decode && m.decode_ms == 2000 && !m.has_prefill);
	cr_assert_str_eq(m.derivation, "tg");
	m = accept_n(LB, "[" ROW(0, 64, ", \"avg_ns\": 2e9") "]", 45, 0, 64);
	cr_assert_str_eq(m.derivation, "tg");
	refuse_file(LB, FIX "llama-bench/2025-jsonl-tg-at-depth.jsonl", 0, 64,
		    "no llama-bench tg64 result (-p 0 -n 64) at depth 0; results found: "
		    "#1 tg64 @ d32");
}

Test(metrics, llama_bench_tg_at_depth_is_not_end_to_end)
{
	refuse_file(LB, FIX "llama-bench/2025-jsonl-tg-at-depth.jsonl", 32, 64,
		    NO_ROW(32, 64) "#1 tg64 @ d32");
	refuse_file(LB, FIX "llama-bench/2025-json-depth.json", 32, 128,
		    NO_ROW(32, 128) "#1 pp32+tg64, #2 pp32+tg64 @ d512");
}

Test(metrics, llama_bench_two_matching_rows)
{
	refuse_file(LB, FIX "llama-bench/newest-json-threads.json", 32, 64,
		    "2 llama-bench pp+tg results of the envelope's shape at depth 0, expected "
		    "one (one test of each shape per run); results found: #1 pp32+tg64, "
		    "#2 pp32+tg64");
	refuse(LB, ROW(32, 0, ", \"avg_ns\": 1e9") "\n" ROW(0, 64, ", \"avg_ns\": 1e9") "\n"
		   ROW(0, 64, ", \"avg_ns\": 1e9"),
	       "2 llama-bench tg results of the envelope's shape at depth 0, expected one "
	       "(one test of each shape per run); results found: #1 pp32, #2 tg64, #3 tg64");
	refuse_file(LB, FIX "llama-bench/newest-json-threads.json", 1, 64,
		    NO_ROW(1, 64) "#1 pp32+tg64, #2 pp32+tg64");
}

Test(metrics, llama_bench_truncated_json)
{
	refuse_file(LB, FIX "llama-bench/late-2024-json-truncated.json", 32, 64,
		    "llama-bench output (-o json) is not valid JSON: line 37, column 3: ']' "
		    "expected near end of file");
}

Test(metrics, llama_bench_markdown_and_other_text)
{
	refuse_file(LB, FIX "llama-bench/late-2024-md.txt", 32, 64,
		    "stdout is not llama-bench -o json or -o jsonl output: line 1 starts with "
		    "\"| model                          |      \"...");
	refuse(LB, "\n\nggml_vulkan: Found 1 Vulkan devices:\n[\n]\n",
	       "stdout is not llama-bench -o json or -o jsonl output: line 3 starts with "
	       "\"ggml_vulkan: Found 1 Vulkan devices:\"");
	refuse(LB, " \xff\x01\"\\ ok",
	       "stdout is not llama-bench -o json or -o jsonl output: line 1 starts with "
	       "\"\\xff\\x01\\x22\\x5c ok\"");
	refuse(LB, "[]\ndone\n", "llama-bench output (-o json) is not valid JSON: line 2, column "
				 "4: end of file expected near 'done'");
	refuse(LB, "{\"n_prompt\": 32, \"n_gen\": 64, \"avg_ns\": 1}\ndone\n",
	       "line 2 of the llama-bench output (-o jsonl) is not a JSON object: it starts with "
	       "\"done\"");
}

Test(metrics, llama_bench_empty_output)
{
	refuse_n(LB, NULL, 0, 32, 64, "stdout is empty: expected llama-bench -o json or -o jsonl "
				      "output");
	refuse(LB, " \r\n\t\n", "stdout has only blank lines: expected llama-bench -o json or -o "
				"jsonl output");
	refuse(LB, "[\n]\n", NO_ROW(32, 64) "none");
}

Test(metrics, llama_bench_minimal_rows_and_crlf)
{
	struct wl_metrics m =
		accept(LB, ROW(32, 0,
			       ", \"avg_ns\": 1000") "\r\n" ROW(32, 64,
								", \"avg_ns\": 2000000000") "\r\n");

	llama_values(&m, 2e9, 64);
	cr_assert_eq(m.tokens_per_second, 32);
	m = accept(LB, "[" ROW(32, 64, ", \"n_depth\": 0, \"avg_ns\": 1.6e9") "]");
	cr_assert_eq(m.tokens_per_second, 40);
	cr_assert_eq(m.end_to_end_ms, 1600);
}

Test(metrics, llama_bench_row_fields)
{
	refuse(LB, "[" ROW(32, 64, ", \"avg_ns\": 1") ", {\"n_prompt\": 32}]",
	       "llama-bench output: [1].n_gen: missing required field");
	refuse(LB, "[{\"n_gen\": 64}]", "llama-bench output: [0].n_prompt: missing required field");
	refuse(LB, "[{\"n_prompt\": \"32\", \"n_gen\": 64}]",
	       "llama-bench output: [0].n_prompt: expected an integer, found a string");
	refuse(LB, "[{\"n_prompt\": 32.0, \"n_gen\": 64}]",
	       "llama-bench output: [0].n_prompt: expected an integer, found a fractional number");
	refuse(LB, "[" ROW(32, 64, ", \"n_depth\": -1") "]", "llama-bench output: [0].n_depth: "
							     "must not be negative");
	refuse(LB, "[" ROW(32, 64, ", \"n_depth\": null") "]",
	       "llama-bench output: [0].n_depth: expected an integer, found null");
	refuse(LB, "[" ROW(32, -64, "") "]", "llama-bench output: [0].n_gen: must not be negative");
	refuse(LB, "[1, 2]",
	       "llama-bench output: [0]: expected an object (one llama-bench result)");
	refuse(LB, ROW(32, 0, "") "\n" ROW(32, 64, ""), "llama-bench output: line 2: avg_ns: "
							"missing required field");
	refuse(LB, "[" ROW(32, 64, ", \"avg_ns\": \"1\"") "]",
	       "llama-bench output: [0].avg_ns: expected a number, found a string");
	refuse(LB, ROW(32, 64, ", \"avg_ns\": 0"), "llama-bench output: line 1: avg_ns: must be "
						   "positive");
	refuse(LB, ROW(32, 64, ", \"avg_ns\": -5"), "llama-bench output: line 1: avg_ns: must be "
						    "positive");
	refuse(LB, ROW(32, 64, ", \"avg_ns\": 9223372036854775807"),
	       "llama-bench output: line 1: avg_ns: is more than 1000000000000 ms");
	refuse(LB, ROW(32, 64, ", \"avg_ns\": 32"),
	       "llama-bench output: 2000000000 tokens per second is outside "
	       "[0.000001, 1000000000]");
	/* fields that select nothing are read only where they are used */
	accept(LB,
	       ROW(32, 0, ", \"avg_ns\": \"n/a\"") "\n" ROW(32, 64, ", \"avg_ns\": 1e9, "
								    "\"avg_ts\": null"));
}

Test(metrics, llama_bench_jsonl_lines)
{
	refuse(LB, ROW(32, 64, ", \"avg_ns\": 1") "\n[1]\n",
	       "line 2 of the llama-bench output (-o jsonl) is not a JSON object: it starts with "
	       "\"[1]\"");
	refuse(LB,
	       ROW(32, 64, ", \"avg_ns\": 1") "\n\n" ROW(32, 64, ", \"avg_ns\": 1") " " ROW(1, 1,
											    ""),
	       "line 3 of the llama-bench output (-o jsonl) is not valid JSON: column 44: end of "
	       "file expected near '{'");
	refuse(LB, ROW(32, 64, ", \"avg_ns\": 1, \"n_gen\": 1"),
	       "line 1 of the llama-bench output (-o jsonl) is not valid JSON: column 50: "
	       "duplicate object key near '\"n_gen\"'");
}

Test(metrics, llama_bench_nul_byte_and_size)
{
	static const char nul[] = "[\n" ROW(32, 64, ", \"avg_ns\": 1") "\n\0]";
	size_t big = METRICS_DOC_MAX_BYTES + 1;
	char *buf = fill(" ", big);

	refuse_n(LB, nul, sizeof(nul) - 1, 32, 64, "llama-bench output holds a NUL byte on line 3");
	refuse_n(LB, buf, big, 32, 64, "llama-bench output is larger than 4194304 bytes");
	free(buf);
}

Test(metrics, llama_bench_envelope_token_counts)
{
	refuse_n(LB, "[]", 2, -1, 64, "llama-bench results are matched on a positive decode and a "
	       "non-negative prompt token count, not prompt -1 and decode 64");
	refuse_n(LB, "[]", 2, 32, 0, "llama-bench results are matched on a positive decode and a "
	       "non-negative prompt token count, not prompt 32 and decode 0");
}

Test(metrics, llama_bench_long_listing_is_cut)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "[");
	for (int i = 1; i <= 20; i++)
		sb_addf(&sb, "%s{\"n_prompt\": %d, \"n_gen\": 0}", i > 1 ? "," : "", i);
	sb_adds(&sb, "]");
	/* as many names as fit in a sealed metrics error, then how many more:
	 * never cut in the middle */
	refuse(LB, sb.buf, NO_ROW(32, 64) "#1 pp1, #2 pp2, #3 pp3, #4 pp4, #5 pp5, "
	       "#6 pp6, #7 pp7, and 13 more");
	cr_assert_lt(strlen(NO_ROW(32, 64) "#1 pp1, #2 pp2, #3 pp3, #4 pp4, #5 pp5, "
			    "#6 pp6, #7 pp7, and 13 more"), ATTESTATION_TEXT_MAX);
	sb_release(&sb);
}

/* The real llama-bench of the llama.cpp example (tests/fixtures/metrics/llama-bench-real/). */
Test(metrics, llama_bench_real_binary_output)
{
	static const struct {
		const char *file;
		double pp_ns, tg_ns;	/* pp_ns 0: a pg row of tg_ns */
	} cases[] = {
		{ "p4-n8.json", 3363291, 8275006 },
		{ "p4-n8.jsonl", 3093385, 7640842 },
		{ "pg4-8.json", 0, 11715221 },
		{ "pg4-8.jsonl", 0, 11162231 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[256];
		struct wl_metrics m;

		snprintf(path, sizeof(path), FIX "llama-bench-real/%s", cases[i].file);
		m = accept_file(LB, path, 4, 8);
		if (cases[i].pp_ns)
			llama_pair(&m, cases[i].pp_ns, cases[i].tg_ns, 8);
		else
			llama_values(&m, cases[i].tg_ns, 8);
	}
	/* the pair's rows are at another P for a P = 5 envelope: refused, listed */
	refuse_file(LB, FIX "llama-bench-real/p4-n8.jsonl", 5, 8,
		    NO_ROW(5, 8) "#1 pp4, #2 tg8");
}

/* The engine's word: a metrics line may state its engine and forward path
 * (sealed, and round-tripped), not what fak reads from llama-bench. */
Test(metrics, json_line_states_its_identity)
{
	struct wl_metrics m = accept(JSONL, HEAD QUALITY ", \"engine\": \"fak-native\", "
				    "\"forward_path\": \"cpu/q8-matvec-v1\"}");

	cr_expect_str_eq(m.identity.engine, "fak-native");
	cr_expect_str_eq(m.identity.forward_path, "cpu/q8-matvec-v1");
	cr_expect_str_eq(accept(JSONL, LINE).identity.engine, "", "a line that says nothing");
	refuse(JSONL, HEAD QUALITY ", \"backends\": \"CPU\"}",
	       "metrics line: backends: is what fak reads from llama-bench's output; a metrics "
	       "line states its engine and forward_path");
	refuse(JSONL, HEAD QUALITY ", \"engine\": \"/home/alice/engine\"}",
	       "metrics line: engine: contains a private detail or a control character: an "
	       "absolute path \"/home/alice/engine\"");
	refuse(JSONL, HEAD QUALITY ", \"engine\": \" \"}",
	       "metrics line: engine: must be a non-blank name of at most 127 bytes");
}

/* llama-bench runs are llama.cpp's: the measured row's build, backends,
 * model file (its last path element) and type; a private value is sealed
 * as "scrubbed". */
Test(metrics, llama_bench_identity)
{
	static const char row[] =
		"{\"build_commit\": \"de3ff81\", \"backends\": \"CPU\", "
		"\"model_filename\": \"/home/alice/models/m.gguf\", "
		"\"model_type\": \"alice@host\", "
		"\"n_prompt\": 0, \"n_gen\": 64, \"avg_ns\": 1000000000}\n";
	struct wl_metrics m = accept_n(LB, row, strlen(row), 0, 64);

	cr_expect_str_eq(m.identity.engine, WL_ENGINE_LLAMA_CPP);
	cr_expect_str_eq(m.identity.build_commit, "de3ff81");
	cr_expect_str_eq(m.identity.backends, "CPU");
	cr_expect_str_eq(m.identity.model_file, "m.gguf");
	cr_expect_str_eq(m.identity.model_type, "scrubbed");
	cr_expect_str_eq(m.identity.forward_path, "");
}
