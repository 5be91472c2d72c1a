/* Performance index: the committed rows (docs/frontdoor.md), strict decoding, every
 * validation rule with its exact findings, and the presentation window
 * (observed through review-by, then reaped or retained). */
#include "test_index.h"

#include "base/xalloc.h"

static struct graph g;

static void setup(void)
{
	ti_graph(&g);
}

static void teardown(void)
{
	graph_release(&g);
}

TestSuite(index, .init = setup, .fini = teardown);

/* ---- the committed data ----------------------------------------------- */

static const char *const result_keys[] = {
	"q38-bf16-tp2-arithmetic-ttfc",
	"q38-q4km-native-cuda-a100-cold-decode",
	"q38-q4km-cuda-a100-cache-parity",
	"q38-a100-p2060-prompt-attention",
	"q38-q4km-native-metal-m3pro-sequence-prefill",
	"q38-q4km-native-metal-m3pro-fullrun",
	"q36-q4km-metal-m3pro-parity-bar",
};

Test(index, committed_rows_are_the_source_page)
{
	struct index idx;

	ti_valid(&idx, NULL, &g);
	cr_assert_str_eq(idx.schema, INDEX_SCHEMA);
	cr_assert_eq(idx.nr_rows, 11);
	cr_assert_eq(idx.nr_readout, 3);
	for (size_t i = 0; i < 7; i++) {
		cr_assert_eq(idx.rows[i].table, INDEX_RESULTS);
		cr_assert_str_eq(idx.rows[i].envelope_key, result_keys[i]);
	}
	for (size_t i = 7; i < 11; i++)
		cr_assert_eq(idx.rows[i].table, INDEX_AWAITING);
	cr_assert_eq(idx.rows[2].lifecycle, INDEX_DIAGNOSTIC);
	cr_assert_eq(idx.rows[2].quality, INDEX_QUALITY_FAIL);
	cr_assert_not(idx.rows[2].quotes_gain);
	/* the two quoted gains pass quality; the awaiting microbenchmark gain is
	 * unmeasured, which awaiting rows may be */
	cr_assert(idx.rows[3].quotes_gain && idx.rows[3].quality == INDEX_QUALITY_PASS);
	cr_assert(idx.rows[4].quotes_gain && idx.rows[4].quality == INDEX_QUALITY_PASS);
	cr_assert(idx.rows[9].quotes_gain && idx.rows[9].quality == INDEX_QUALITY_UNMEASURED);
	cr_assert_eq(idx.rows[6].lifecycle, INDEX_HISTORICAL);
	cr_assert_eq(idx.rows[6].review_by, INDEX_NO_DATE);
	cr_assert_str_eq(idx.rows[6].retention, "retained as predecessor context");
	cr_assert_eq(idx.rows[5].at_review, INDEX_AT_REVIEW_RETAIN);
	cr_assert_eq(idx.rows[4].observed, ti_day("2026-09-03"));
	cr_assert_eq(idx.rows[9].observed, ti_day("2026-09-03"));
	cr_assert_str_eq(idx.page.title, "Qwen performance index");
	index_release(&idx);
}

Test(index, approximate_readout_comes_from_the_graph)
{
	struct index idx;
	const struct index_readout *r;

	ti_valid(&idx, NULL, &g);
	r = &idx.readout[1];
	cr_assert_eq(r->cls, INDEX_CLASS_APPROXIMATE);
	cr_assert_str_eq(r->graph_rung, "resident-q4k-baseline");
	cr_assert_str_eq(r->envelope_id, "qwen38-27b-q4km-m3pro-p32-t64");
	cr_assert_float_eq(r->native_tps, 3.3, 1e-12);
	cr_assert_float_eq(r->baseline_tps, 6.966061, 1e-12);
	cr_assert(r->native_tps / r->baseline_tps > 0.4736 &&
		  r->native_tps / r->baseline_tps < 0.4738);
	cr_assert_eq(r->observed, ti_day("2026-08-23"));
	cr_assert_eq(r->review_by, ti_day("2026-08-27"));
	cr_assert_str_eq(r->provenance, "https://github.com/anthony-chaudhary/fak/issues/8697");
	cr_assert_eq(idx.readout[2].cls, INDEX_CLASS_DIAGNOSTIC);
	cr_assert_str_eq(idx.readout[2].quality, "0/5 exact");
	index_release(&idx);
}

/* ---- presentation window ---------------------------------------------- */

Test(index, presence_window_is_inclusive)
{
	long obs = ti_day("2026-08-24"), rev = ti_day("2026-09-07");

	cr_assert_eq(index_presence_at(obs, rev, INDEX_AT_REVIEW_REMOVE, obs - 1), INDEX_PENDING);
	cr_assert_eq(index_presence_at(obs, rev, INDEX_AT_REVIEW_REMOVE, obs), INDEX_SHOWN);
	cr_assert_eq(index_presence_at(obs, rev, INDEX_AT_REVIEW_REMOVE, rev), INDEX_SHOWN);
	cr_assert_eq(index_presence_at(obs, rev, INDEX_AT_REVIEW_REMOVE, rev + 1), INDEX_REAPED);
	cr_assert_eq(index_presence_at(obs, rev, INDEX_AT_REVIEW_RETAIN, rev + 1), INDEX_RETAINED);
	cr_assert_eq(index_presence_at(obs, INDEX_NO_DATE, INDEX_AT_REVIEW_UNSET, obs + 10000),
		     INDEX_SHOWN);
	cr_assert_eq(index_presence_at(obs, INDEX_NO_DATE, INDEX_AT_REVIEW_UNSET, obs - 1),
		     INDEX_PENDING);
}

static void expect_rows(const struct index_page_row *rows, size_t nr, const char *const *want,
			const enum index_lifecycle *lc, size_t nr_want)
{
	cr_assert_eq(nr, nr_want, "rows shown: %zu, want %zu", nr, nr_want);
	for (size_t i = 0; i < nr; i++) {
		const char *got = rows[i].row->table == INDEX_RESULTS ? rows[i].row->envelope_key
								      : rows[i].row->candidate;

		cr_assert(!strncmp(got, want[i], strlen(want[i])), "row %zu: %s, want %s", i, got,
			  want[i]);
		cr_assert_eq(rows[i].shown_as, lc[i], "row %zu (%s): lifecycle %d, want %d", i, got,
			     rows[i].shown_as, lc[i]);
	}
}

#define C INDEX_CURRENT
#define D INDEX_DIAGNOSTIC
#define H INDEX_HISTORICAL
#define A INDEX_AWAITING_REMEASURE

/* The page as of 2026-09-01 (docs/frontdoor.md, "Presentation and reaping"):
 * every row except those first observed on 2026-09-03. */
Test(index, page_2026_09_01_is_the_source_page_before_september_3)
{
	const char *const res[] = { result_keys[0], result_keys[1], result_keys[2],
					   result_keys[3], result_keys[5], result_keys[6] };
	static const enum index_lifecycle res_lc[] = { C, C, D, C, H, H };
	static const char *const aw[] = { "Metal Q4_K/GDN", "M3 Pro near-match", "Vulkan Qwen" };
	static const enum index_lifecycle aw_lc[] = { H, H, A };
	struct index idx;
	struct index_page p;

	ti_valid(&idx, NULL, &g);
	index_page_build(&p, &idx, ti_day("2026-09-01"));
	expect_rows(p.results, p.nr_results, res, res_lc, 6);
	expect_rows(p.awaiting, p.nr_awaiting, aw, aw_lc, 3);
	cr_assert_eq(p.nr_readout, 1);
	cr_assert_eq(p.readout[0].cls, INDEX_CLASS_DIAGNOSTIC);
	/* accepted + approximate readout, full run, two awaiting rows */
	cr_assert_eq(p.nr_reaped, 5);
	cr_assert_eq(p.nr_current, 3);
	index_page_release(&p);
	index_release(&idx);
}

Test(index, page_2026_09_03_has_sequence_prefill_and_reaps_september_1_rows)
{
	const char *const res[] = { result_keys[0], result_keys[3], result_keys[4],
					   result_keys[5], result_keys[6] };
	static const enum index_lifecycle res_lc[] = { C, C, C, H, H };
	static const char *const aw[] = { "Metal Q4_K/GDN", "M3 Pro near-match",
					  "M3 Pro Metal sequence prefill", "Vulkan Qwen" };
	static const enum index_lifecycle aw_lc[] = { H, H, A, A };
	struct index idx;
	struct index_page p;

	ti_valid(&idx, NULL, &g);
	index_page_build(&p, &idx, ti_day("2026-09-03"));
	expect_rows(p.results, p.nr_results, res, res_lc, 5);
	expect_rows(p.awaiting, p.nr_awaiting, aw, aw_lc, 4);
	cr_assert_eq(p.nr_readout, 0);
	/* 3 readout, full run, 2 awaiting, cold decode, cache parity */
	cr_assert_eq(p.nr_reaped, 8);
	index_page_release(&p);
	index_release(&idx);
}

Test(index, page_2026_08_26_shows_everything_before_first_review)
{
	const char *const res[] = { result_keys[0], result_keys[1], result_keys[2],
					   result_keys[3], result_keys[5], result_keys[6] };
	static const enum index_lifecycle res_lc[] = { C, C, D, C, C, H };
	static const char *const aw[] = { "Metal Q4_K/GDN", "M3 Pro near-match" };
	static const enum index_lifecycle aw_lc[] = { A, A };
	struct index idx;
	struct index_page p;

	ti_valid(&idx, NULL, &g);
	index_page_build(&p, &idx, ti_day("2026-08-26"));
	expect_rows(p.results, p.nr_results, res, res_lc, 6);
	expect_rows(p.awaiting, p.nr_awaiting, aw, aw_lc, 2);
	cr_assert_eq(p.nr_readout, 3);
	cr_assert_eq(p.nr_reaped, 0);
	cr_assert_eq(p.nr_current, 4);
	index_page_release(&p);
	index_release(&idx);
}

Test(index, page_today_has_every_review_window_passed)
{
	const char *const res[] = { result_keys[5], result_keys[6] };
	static const enum index_lifecycle res_lc[] = { H, H };
	static const char *const aw[] = { "Metal Q4_K/GDN", "M3 Pro near-match" };
	static const enum index_lifecycle aw_lc[] = { H, H };
	struct index idx;
	struct index_page p;
	long today = date_today_utc();

	/* the last review date of the committed rows */
	cr_assert_gt(today, ti_day("2026-09-17"), "the clock reads before 2026-09-18");
	ti_valid(&idx, NULL, &g);
	index_page_build(&p, &idx, today);
	expect_rows(p.results, p.nr_results, res, res_lc, 2);
	expect_rows(p.awaiting, p.nr_awaiting, aw, aw_lc, 2);
	cr_assert_eq(p.nr_readout, 0);
	cr_assert_eq(p.nr_current, 0);
	cr_assert_eq(p.nr_current_reviewed, 5);
	cr_assert_eq(p.nr_awaiting_live, 0);
	cr_assert_eq(p.nr_awaiting_reviewed, 4);
	cr_assert_eq(p.nr_reaped, 3 + 10);
	index_page_release(&p);
	index_release(&idx);
}

Test(index, page_before_any_observation_is_empty)
{
	struct index idx;
	struct index_page p;

	ti_valid(&idx, NULL, &g);
	index_page_build(&p, &idx, ti_day("2026-06-25"));
	cr_assert_eq(p.nr_results + p.nr_awaiting + p.nr_readout + p.nr_reaped, 0);
	index_page_release(&p);
	index_page_build(&p, &idx, ti_day("2026-06-26"));
	cr_assert_eq(p.nr_results, 1);
	cr_assert_str_eq(p.results[0].row->envelope_key, result_keys[6]);
	index_page_release(&p);
	index_release(&idx);
}

/* ---- every rejection with its exact findings -------------------------- */

struct reject {
	const char *fixture;
	const char *findings[10];
};

static const struct reject rejects[] = {
	{ "reject-duplicate-current.json",
	  { "envelope key \"ex-metal-decode\" has 2 CURRENT rows (results[0], results[3]); at most "
	    "one is allowed" } },
	{ "reject-no-observed.json",
	  { "awaiting[0] \"ex-metal-decode\": AWAITING REMEASURE row has no observed date",
	    "results[0] \"ex-metal-decode\": CURRENT row has no observed date",
	    "results[1] \"ex-cuda-cache\": DIAGNOSTIC row has no observed date" } },
	{ "reject-no-review.json",
	  { "awaiting[0] \"ex-metal-decode\": AWAITING REMEASURE row has neither a review-by date "
	    "nor a durable retention reason",
	    "results[0] \"ex-metal-decode\": CURRENT row has neither a review-by date nor a "
	    "durable retention reason",
	    "results[1] \"ex-cuda-cache\": DIAGNOSTIC row has neither a review-by date nor a "
	    "durable retention reason" } },
	{ "reject-review-and-retention.json",
	  { "results[1] \"ex-cuda-cache\": has both a review-by date and a durable retention "
	    "reason; keep one" } },
	{ "reject-review-before-observed.json",
	  { "results[0] \"ex-metal-decode\": review-by date 2026-02-28 is before observed date "
	    "2026-03-01" } },
	{ "reject-current-identity.json",
	  { "results[0] \"ex-metal-decode\": CURRENT row does not name its artifact/precision",
	    "results[0] \"ex-metal-decode\": CURRENT row does not name its engine",
	    "results[0] \"ex-metal-decode\": CURRENT row does not name its hardware",
	    "results[0] \"ex-metal-decode\": CURRENT row does not name its metric",
	    "results[0] \"ex-metal-decode\": CURRENT row does not name its model" } },
	{ "reject-merged-key.json",
	  { "results[1]: envelope key \"ex-cuda-cache + ex-metal-decode\" is not a single key "
	    "(lowercase letters and digits joined by '.', '_' or '-'); different envelopes need "
	    "different rows" } },
	{ "reject-merged-envelopes.json",
	  { "envelope key \"ex-metal-decode\" merges different envelopes: results[0] and "
	    "awaiting[0] differ in engine (\"fak-native metal/example-v1\" vs \"fak-native "
	    "cuda/example-v1\")",
	    "envelope key \"ex-metal-decode\" merges different envelopes: results[0] and "
	    "awaiting[0] differ in hardware (\"Apple M3 Pro\" vs \"NVIDIA A100\")" } },
	{ "reject-gain-failed-quality.json",
	  { "results[1] \"ex-cuda-cache\": quotes a gain although its quality failed" } },
	{ "reject-gain-unmeasured-quality.json",
	  { "results[2] \"ex-old-bar\": quotes a gain although its quality is unmeasured; only a "
	    "quality-passing result may quote a gain" } },
	{ "reject-readout-accepted-quality.json",
	  { "readout[0] (accepted): an accepted record needs a passing quality (starting with "
	    "\"PASS\"), found \"FAIL (0/3)\"" } },
	{ "reject-current-quality.json",
	  { "results[0] \"ex-metal-decode\": CURRENT row must be quality-passing, found quality "
	    "\"unmeasured\"" } },
	{ "reject-lifecycle-table.json",
	  { "awaiting[0] \"ex-metal-decode\": lifecycle DIAGNOSTIC belongs in the results table",
	    "results[1] \"ex-cuda-cache\": lifecycle AWAITING REMEASURE belongs in the awaiting "
	    "table" } },
	{ "reject-at-review.json",
	  { "awaiting[0] \"ex-metal-decode\": retain_reason goes with at_review \"retain\"",
	    "results[0] \"ex-metal-decode\": at_review \"retain\" needs a retain_reason",
	    "results[1] \"ex-cuda-cache\": has a review-by date but no at_review (\"remove\" or "
	    "\"retain\")",
	    "results[2] \"ex-old-bar\": at_review needs a review-by date" } },
	{ "reject-readout-duplicate-class.json",
	  { "readout has 2 accepted records; at most one is allowed" } },
	{ "reject-readout-derived-fields.json",
	  { "readout[1] (approximate): envelope_id comes from graph rung "
	    "\"resident-q4k-baseline\"; remove it",
	    "readout[1] (approximate): provenance comes from graph rung "
	    "\"resident-q4k-baseline\"; remove it" } },
	{ "reject-readout-missing.json",
	  { "readout[0] (accepted): has no envelope_id (or graph_rung)",
	    "readout[0] (accepted): has no native_tokens_per_second (or graph_rung)",
	    "readout[0] (accepted): has no observed_on (or graph_rung)",
	    "readout[0] (accepted): has no provenance (or graph_rung)" } },
	{ "reject-readout-throughput.json",
	  { "readout[0] (accepted): native_floor_tokens_per_second 4 must be positive and not "
	    "above native_tokens_per_second 0",
	    "readout[0] (accepted): native_tokens_per_second must be positive, found 0" } },
	{ "reject-readout-review-before-observed.json",
	  { "readout[0] (accepted): review-by date 2026-02-01 is before observed date "
	    "2026-03-01" } },
	{ "reject-readout-graph-pair.json",
	  { "readout[1] (approximate): graph lacks the witnessed baseline/comparison pair; restore "
	    "rung \"coarse-resident-hybrid-graph\" with a witnessed throughput and the comparison "
	    "classification \"comparison\"" } },
	{ "reject-readout-key.json",
	  { "readout[0] (accepted): envelope key \"Metal and CUDA\" is not a single key (lowercase "
	    "letters and digits joined by '.', '_' or '-'); different envelopes need different "
	    "rows" } },
};

Test(index, every_rejection_has_its_exact_findings)
{
	for (size_t i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
		const struct reject *r = &rejects[i];
		struct findings f = FINDINGS_INIT;
		struct index idx;
		size_t n = 0;

		while (n < 10 && r->findings[n])
			n++;
		ti_load(&idx, r->fixture, &g, &f);
		cr_assert_eq(f.nr, n, "%s: %zu findings, want %zu; first: %s", r->fixture, f.nr, n,
			     f.nr ? f.items[0] : "");
		for (size_t k = 0; k < n; k++)
			cr_assert_str_eq(f.items[k], r->findings[k], "%s finding %zu", r->fixture,
					 k);
		findings_release(&f);
		index_release(&idx);
	}
}

Test(index, valid_fixtures_have_no_findings)
{
	struct index idx;

	ti_valid(&idx, "valid-small.json", &g);
	index_release(&idx);
	ti_valid(&idx, "valid-hostile-markdown.json", &g);
	index_release(&idx);
}

Test(index, graph_provenance_on_the_page_is_scrubbed)
{
	struct graph other;
	struct findings f = FINDINGS_INIT;
	struct index idx;
	struct err e;

	cr_assert_eq(graph_load_file(&other, TI_DIR "graph-private-provenance.json", &e), 0, "%s",
		     e.msg);
	ti_load(&idx, "valid-small.json", &other, &f);
	cr_assert_eq(f.nr, 1);
	cr_assert_str_eq(f.items[0], "readout[1] (approximate): rung \"resident-q4k-baseline\" "
				     "witness provenance contains a private detail: an absolute "
				     "path \"/home/alice/notes/8697.md\"");
	findings_release(&f);
	index_release(&idx);
	graph_release(&other);
}

Test(index, approximate_pair_must_share_provenance_and_date)
{
	struct graph other;
	struct findings f = FINDINGS_INIT;
	struct index idx;
	struct err e;

	cr_assert_eq(graph_load_file(&other, TI_DIR "graph-comparison-differs.json", &e), 0, "%s",
		     e.msg);
	ti_load(&idx, "valid-small.json", &other, &f);
	cr_assert_eq(f.nr, 1);
	cr_assert_str_eq(f.items[0], "readout[1] (approximate): rung \"resident-q4k-baseline\" "
				     "witness and the graph comparison differ in provenance or "
				     "observed_on; use one shared value for both");
	findings_release(&f);
	index_release(&idx);
	graph_release(&other);
}

/* ---- strict decoding --------------------------------------------------- */

struct bad {
	const char *fixture, *error;
};

static const struct bad bads[] = {
	{ "bad-unknown-field.json", "results[0].speedup: unknown field" },
	{ "bad-wrong-type.json", "results[0].quotes_gain: expected a boolean, found a string" },
	{ "bad-missing-quotes-gain.json", "results[1].quotes_gain: missing required field" },
	{ "bad-date.json", "results[0].observed: date \"2026-02-30\" is not a calendar day" },
	{ "bad-lifecycle.json",
	  "results[0].lifecycle: expected one of \"CURRENT\", \"DIAGNOSTIC\", \"HISTORICAL\", "
	  "\"AWAITING REMEASURE\", found \"current\"" },
	{ "bad-blank-text.json", "results[0].highlight: text is blank" },
	{ "bad-control-char.json", "results[0].status: text contains a control character" },
	{ "bad-marker-text.json",
	  "readout[0].provenance: text contains a front-door marker ('" INDEX_MARK_BEGIN
	  "' or '" INDEX_MARK_END "'); the generated block's boundaries cannot come from a row" },
	{ "bad-private-text.json",
	  "results[1].evidence: text contains a private detail: a home-relative path "
	  "\"~/runs/cache-2026-03-02\"" },
	{ "bad-schema.json",
	  "schema: expected \"fak-performance-index/v1\", found \"fak-performance-index/v0\"" },
	{ "bad-missing-highlight.json", "results[0].highlight: missing required field" },
	{ "bad-null.json", "results[0].evidence: expected a string, found null" },
};

Test(index, strict_decode_names_the_json_path)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		char path[256], want[512];
		struct index idx;
		struct err e;

		snprintf(path, sizeof(path), TI_DIR "%s", bads[i].fixture);
		snprintf(want, sizeof(want), "invalid performance index '%s': %s", path,
			 bads[i].error);
		cr_assert_eq(index_load_file(&idx, path, &e), -1, "%s decoded", bads[i].fixture);
		cr_assert_str_eq(e.msg, want);
	}
}

Test(index, duplicate_keys_and_oversize_input_are_refused)
{
	struct index idx;
	struct err e;
	char *big;

	cr_assert_eq(index_load_file(&idx, TI_DIR "bad-duplicate-key.json", &e), -1);
	cr_assert(strstr(e.msg, "duplicate object key"), "%s", e.msg);
	big = xcalloc(INDEX_MAX_BYTES + 2, 1);
	memset(big, ' ', INDEX_MAX_BYTES + 1);
	cr_assert_eq(index_load_buf(&idx, big, INDEX_MAX_BYTES + 1, "big.json", &e), -1);
	cr_assert_str_eq(e.msg, "index 'big.json' exceeds 4194304 bytes");
	free(big);
	cr_assert_eq(index_load_file(&idx, TI_DIR "missing.json", &e), -1);
	cr_assert(strstr(e.msg, "missing.json"), "%s", e.msg);
}

Test(index, overlong_text_is_refused)
{
	struct strbuf doc = STRBUF_INIT;
	struct index idx;
	struct err e;

	sb_adds(&doc, "{\"schema\": \"fak-performance-index/v1\", \"page\": {\"title\": \"");
	for (int i = 0; i <= INDEX_TEXT_MAX; i++)
		sb_addch(&doc, 'x');
	sb_adds(&doc, "\", \"intro\": \"i\", \"subject\": \"s\"}, \"readout\": [], \"results\": "
		      "[], \"awaiting\": []}");
	cr_assert_eq(index_load_buf(&idx, doc.buf, doc.len, "long.json", &e), -1);
	cr_assert_str_eq(e.msg, "invalid performance index 'long.json': page.title: text is longer "
				"than 4096 bytes");
	sb_release(&doc);
}

Test(index, row_paths_name_the_table)
{
	struct index_row r = { .table = INDEX_AWAITING, .pos = 3 };
	struct strbuf sb = STRBUF_INIT;

	index_row_path(&r, &sb);
	cr_assert_str_eq(sb.buf, "awaiting[3]");
	sb_release(&sb);
	cr_assert_str_eq(index_lifecycle_name(INDEX_AWAITING_REMEASURE), "AWAITING REMEASURE");
	cr_assert_str_eq(index_quality_name(INDEX_QUALITY_UNMEASURED), "unmeasured");
	cr_assert_str_eq(index_class_name(INDEX_CLASS_APPROXIMATE), "approximate");
}
