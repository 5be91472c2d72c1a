/* libFuzzer target: every metrics parser of `fak bench experiment` on the
 * same bytes (no selector byte, so the corpus is the fixtures as they are):
 * json-line, quality-line (each with its optional named numerical metrics), and
 * llama-bench for the envelope shapes P32/T64, P1/T64, P4/T8 (the real llama-bench
 * fixtures) and P0/T64 (decode only). What a parser accepts must hold the members its
 * parser promises, stay within the receipts' bounds, and survive the sealed form
 * unchanged; a refusal leaves nothing behind and says why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/text.h"
#include "workload/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *id, const uint8_t *data, size_t size, long long p, long long t)
{
	static const struct wl_metrics zero;
	struct wl_metrics m, back;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	json_t *j;

	e.msg[0] = '\0';
	if (metrics_parse(id, (const char *)data, size, p, t, &m, &e) < 0) {
		if (!e.msg[0] || memcmp(&m, &zero, sizeof(m)))
			abort();
		return;
	}
	/* llama-bench says how it read the rows; a metrics line cannot */
	if (!strcmp(id, WL_PARSER_LLAMA_BENCH) != !!m.derivation[0])
		abort();
	if (!strcmp(id, WL_PARSER_QUALITY)
		    ? m.has_throughput || !m.has_quality
		    : !m.has_throughput || m.has_quality != !strcmp(id, WL_PARSER_JSON))
		abort();
	if (m.has_throughput &&
	    (!(m.tokens_per_second >= WL_MIN_TPS) || m.tokens_per_second > WL_MAX_TPS ||
	     !(m.end_to_end_ms > 0) || m.end_to_end_ms > WL_MAX_MS))
		abort();
	if (m.has_quality && (!m.quality.name[0] || strlen(m.quality.name) >= WL_QUALITY_NAME_MAX))
		abort();
	/* named metrics: only beside a quality, id-form names in order, none the quality's */
	if (m.nr_numerical > WL_NUMERICAL_MAX || (m.nr_numerical && !m.has_quality))
		abort();
	for (size_t i = 0; i < m.nr_numerical; i++)
		if (str_id_problem(m.numerical[i].name) ||
		    !strcmp(m.numerical[i].name, m.quality.name) ||
		    (i && strcmp(m.numerical[i - 1].name, m.numerical[i].name) >= 0))
			abort();
	/* sealed form: render, parse back, decode, compare */
	j = wl_metrics_to_json(&m);
	json_write_compact(&sb, j);
	json_decref(j);
	j = json_parse_strict(sb.buf, sb.len, NULL, &e);
	if (!j || wl_metrics_decode(j, NULL, &back, &e) < 0 || !wl_metrics_equal(&m, &back))
		abort();
	json_decref(j);
	sb_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(WL_PARSER_JSON, data, size, 32, 64);
	check(WL_PARSER_QUALITY, data, size, 32, 64);
	check(WL_PARSER_LLAMA_BENCH, data, size, 32, 64);
	check(WL_PARSER_LLAMA_BENCH, data, size, 1, 64);
	check(WL_PARSER_LLAMA_BENCH, data, size, 4, 8);
	check(WL_PARSER_LLAMA_BENCH, data, size, 0, 64);
	return 0;
}
