/* Markdown of the front-door page: escaping of data text, code spans, and
 * the page layout for the states a row can be in. A real Markdown parser
 * checks the same pages in tests/cli/scripts/frontdoor-cmark.sh. */
#include "test_index.h"

#include "render/frontdoor_md.h"

static struct graph g;

static void setup(void)
{
	ti_graph(&g);
}

static void teardown(void)
{
	graph_release(&g);
}

TestSuite(frontdoor_md, .init = setup, .fini = teardown);

static void expect_text(const char *in, bool block_start, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	frontdoor_md_text(&sb, in, block_start);
	cr_assert_str_eq(sb_str(&sb), want, "escaping %s", in);
	sb_release(&sb);
}

Test(frontdoor_md, text_escapes_only_what_markdown_would_read)
{
	expect_text("plain 11.8-12.1 tok/s, 5/5 exact", false, "plain 11.8-12.1 tok/s, 5/5 exact");
	expect_text("a | b", false, "a \\| b");
	expect_text("*x* `y` [z](u) <b>", false, "\\*x\\* \\`y\\` \\[z\\](u) \\<b>");
	expect_text("~47% ~~s~~", false, "\\~47% \\~\\~s\\~\\~");
	expect_text("back\\slash", false, "back\\\\slash");
	/* intraword underscores stay; flanking ones are escaped */
	expect_text("HOLD_BELOW_PARITY _x_ docs/_w", false, "HOLD_BELOW_PARITY \\_x\\_ docs/\\_w");
	/* only a would-be entity needs its ampersand escaped */
	expect_text("a & b &amp; &#38;", false, "a & b \\&amp; \\&#38;");
	/* block starts */
	expect_text("# h", true, "\\# h");
	expect_text("# h", false, "# h");
	expect_text("12. item", true, "12\\. item");
	expect_text("3) item", true, "3\\) item");
	expect_text("12 items.", true, "12 items.");
	expect_text("- x", true, "\\- x");
	expect_text("> q", true, "\\> q");
	expect_text("+ p", true, "\\+ p");
	expect_text("= s", true, "\\= s");
	expect_text("", true, "");
}

static void expect_code(const char *in, bool in_table, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	frontdoor_md_code(&sb, in, in_table);
	cr_assert_str_eq(sb_str(&sb), want, "code span of %s", in);
	sb_release(&sb);
}

Test(frontdoor_md, code_spans_fence_around_backticks)
{
	expect_code("q38-key", true, "`q38-key`");
	expect_code("a`b", false, "``a`b``");
	expect_code("a``b", false, "```a``b```");
	expect_code("`edge`", false, "`` `edge` ``");
	expect_code("a|b", true, "`a\\|b`");
	expect_code("a|b", false, "`a|b`");
}

static char *render(const struct index *idx, const char *as_of)
{
	struct index_page p;
	struct strbuf sb = STRBUF_INIT;

	index_page_build(&p, idx, ti_day(as_of));
	frontdoor_md_render(&sb, &p);
	index_page_release(&p);
	return sb_detach(&sb, NULL);
}

static size_t occurrences(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void expect_contains(const char *page, const char *needle)
{
	cr_assert(strstr(page, needle), "page lacks: %s\n---\n%s", needle, page);
}

static void expect_lacks(const char *page, const char *needle)
{
	cr_assert(!strstr(page, needle), "page has: %s", needle);
}

Test(frontdoor_md, block_has_one_marker_pair_and_ends_with_newline)
{
	struct index idx;
	const char *dates[] = { "2026-01-01", "2026-03-05", "2026-03-11", "2027-01-01" };

	ti_valid(&idx, "valid-small.json", &g);
	for (size_t i = 0; i < 4; i++) {
		char *page = render(&idx, dates[i]);
		size_t n = strlen(page);

		static const char head[] = INDEX_MARK_BEGIN "\n# Example performance index\n\n";

		cr_assert(!strncmp(page, head, strlen(head)));
		cr_assert_eq(occurrences(page, INDEX_MARK_BEGIN), 1);
		cr_assert_eq(occurrences(page, INDEX_MARK_END), 1);
		cr_assert(n > strlen(INDEX_MARK_END) + 1);
		cr_assert_str_eq(page + n - strlen(INDEX_MARK_END) - 1, INDEX_MARK_END "\n");
		free(page);
	}
	index_release(&idx);
}

Test(frontdoor_md, rows_inside_their_window)
{
	struct index idx;
	char *page;

	ti_valid(&idx, "valid-small.json", &g);
	page = render(&idx, "2026-03-05");
	expect_contains(page, "- **ACCEPTED** in `ex-metal-decode`: **3.5 tok/s**, quality PASS "
			      "(3/3 probes) \xe2\x80\x94 synthetic accepted record. Observed "
			      "**2026-03-01**, review by **2026-03-10**; evidence: "
			      "`docs/_witnesses/ex-metal/summary.json`.\n");
	expect_lacks(page, "- **APPROXIMATE**");	/* observed on 2026-08-23 */
	expect_contains(page, "| **CURRENT** | `ex-metal-decode` | Decode 3.5 tok/s, 3/3 exact. | "
			      "PASS for the synthetic envelope. | #1 receipt; observed "
			      "**2026-03-01**; review by **2026-03-10**. |\n");
	expect_contains(page, "| **DIAGNOSTIC** | `ex-cuda-cache` | Cache hits 0.2 tok/s, 0/5 "
			      "exact. | Held; diagnosis only. | #2 attribution; observed "
			      "**2026-03-02**; review by **2026-03-05**. |\n");
	expect_contains(page, "| **HISTORICAL** | `ex-old-bar` | Old bar 7.3 tok/s. | Predecessor "
			      "only. | old results; observed **2026-01-15**; retained as "
			      "predecessor context. |\n");
	expect_contains(page, "| **AWAITING REMEASURE** | Kernel work (#3) | No comparable "
			      "full-run receipt yet. | Promote only after a comparable receipt; "
			      "review by **2026-03-20**. |\n");
	expect_contains(page, "\nNo accepted current row is indexed for CPU-only hardware.\n");
	expect_contains(page, "this page owns example result discovery.");
	expect_lacks(page, "reviewed row(s)");
	expect_lacks(page, "No CURRENT row");
	free(page);

	page = render(&idx, "2026-09-01");
	expect_contains(page, "\n\n- **APPROXIMATE** in `qwen38-27b-q4km-m3pro-p32-t64`: **3.3 vs "
			      "6.966061 tok/s (\\~47%)**, quality not jointly quality-complete "
			      "\xe2\x80\x94 synthetic approximate record. Observed **2026-08-23**, "
			      "review by **2026-09-01**; evidence: "
			      "`https://github.com/anthony-chaudhary/fak/issues/8697`.\n");
	free(page);
	index_release(&idx);
}

Test(frontdoor_md, reviewed_rows_are_retained_or_reaped_and_counted)
{
	struct index idx;
	char *page;

	ti_valid(&idx, "valid-small.json", &g);
	page = render(&idx, "2026-03-11");
	expect_contains(page,
			"| **HISTORICAL** | `ex-metal-decode` | Decode 3.5 tok/s, 3/3 exact. | "
			"PASS for the synthetic envelope. Kept as dated evidence. | #1 receipt; "
			"observed **2026-03-01**; reviewed through **2026-03-10**. |\n");
	expect_lacks(page, "ex-cuda-cache");
	expect_lacks(page, "- **ACCEPTED**");
	/* accepted readout, the current row and the diagnostic row */
	expect_contains(page, "\n_3 reviewed row(s) are reaped from active presentation; immutable "
			      "witnesses remain._\n");
	expect_contains(page,
			"\n**No CURRENT row remains in active presentation:** every CURRENT row "
			"passed its review date without a promoted or renewed receipt.\n");
	expect_lacks(page, "No candidate remains");
	free(page);

	page = render(&idx, "2026-03-21");
	expect_contains(page, "No candidate is listed for this date.\n");
	expect_contains(page, "\n**No candidate remains awaiting remeasurement:** every AWAITING "
			      "REMEASURE entry passed its review date without a renewed reason to "
			      "retain it.\n");
	expect_contains(page, "\n_4 reviewed row(s) are reaped");
	free(page);
	index_release(&idx);
}

Test(frontdoor_md, empty_tables_say_so)
{
	struct index idx;
	char *page;

	ti_valid(&idx, "valid-small.json", &g);
	page = render(&idx, "2026-01-01");
	expect_contains(page, "No result row is presented for this date.\n\nNo CURRENT row is "
			      "indexed for this date.\n");
	expect_contains(page, "No candidate is listed for this date.\n");
	expect_lacks(page, "| Lifecycle |");
	expect_lacks(page, "- **ACCEPTED**");
	expect_lacks(page, "- **APPROXIMATE**");
	expect_lacks(page, "reviewed row(s)");
	free(page);
	index_release(&idx);
}

Test(frontdoor_md, hostile_text_stays_text)
{
	struct index idx;
	char *page;

	ti_valid(&idx, "valid-hostile-markdown.json", &g);
	page = render(&idx, "2026-03-05");
	expect_contains(page, "| Pipe \\| in cell, \\*star\\*, \\_under\\_ and snake_case, "
			      "\\`tick\\`, \\[link\\](#x), \\<b>html\\</b>, \\&amp; entity, "
			      "\\~strike\\~ & more | # not a heading \\| 1. not a list | "
			      "!\\[img\\](x.png) \\*\\*bold\\*\\*; observed");
	expect_contains(page, "\n\\# Intro that looks like a heading\n");
	expect_contains(page, "\n1\\. Not a list item\n");
	expect_contains(page, "\n\\- not a bullet\n");
	expect_contains(page, "\n\\> not a quote\n");
	expect_contains(page, "\n\\+ plus\n");
	expect_contains(page, "| Work \\| with \\| pipes |");
	expect_contains(page, "\xe2\x80\x94 a \\| b \\`c\\` \\*d\\*. Observed");
	expect_contains(page, "evidence: ``docs/a|b`c.json``.");
	free(page);
	index_release(&idx);
}
