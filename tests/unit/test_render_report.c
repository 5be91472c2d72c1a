/* render/: escaping in every format, text wrapping at 100 columns, SVG
 * axes, and the format names. The reports themselves are golden CLI cases
 * read back by real consumers (tests/cli/scripts/report-consumers.sh). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "render/escape.h"
#include "render/frontdoor_md.h"
#include "render/report.h"
#include "render/svg.h"
#include "render/wrap.h"

#define FFFD "\xef\xbf\xbd"

typedef void (*esc_fn)(struct strbuf *, const char *);

static void expect_esc(esc_fn f, const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	f(&sb, in);
	cr_expect_str_eq(sb_str(&sb), want, "escaping %s", in);
	sb_release(&sb);
}

Test(render_escape, csv_quotes_only_what_needs_it)
{
	expect_esc(esc_csv, "plain text; with <tags> | pipes", "plain text; with <tags> | pipes");
	expect_esc(esc_csv, "a,b", "\"a,b\"");
	expect_esc(esc_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
	expect_esc(esc_csv, "two\nlines", "\"two\nlines\"");
	expect_esc(esc_csv, "cr\r", "\"cr\r\"");
	expect_esc(esc_csv, "", "");
	/* printable text comes back exactly: nothing is defused or dropped */
	expect_esc(esc_csv, "=1+1", "=1+1");
	/* a control character never reaches a terminal that prints the file */
	expect_esc(esc_csv, "\x1b[31m", FFFD "[31m");
	expect_esc(esc_csv, "a\xc2\x9b" "2J,\x7f\xff", "\"a" FFFD "2J," FFFD FFFD "\"");
	expect_esc(esc_csv, "tab\there", "tab\there");
}

Test(render_escape, xml_entities_controls_and_breaks)
{
	expect_esc(esc_xml, "<a href=\"x\">Tom & Jerry's</a>",
		   "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;");
	expect_esc(esc_xml, "one\ntwo\tthree\r\nfour\rfive", "one two three four five");
	expect_esc(esc_xml, "bell\a esc\x1b del\x7f", "bell" FFFD " esc" FFFD " del" FFFD);
	/* C1 controls and invalid UTF-8 bytes are not characters XML can hold */
	expect_esc(esc_xml, "c1\xc2\x9b bad\xff", "c1" FFFD " bad" FFFD);
	expect_esc(esc_xml, "\xc2\xb1 \xe2\x86\x92 \xf0\x9f\x98\x80", "\xc2\xb1 \xe2\x86\x92 "
								      "\xf0\x9f\x98\x80");
}

Test(render_escape, clean_keeps_breaks_and_replaces_controls)
{
	struct strbuf sb = STRBUF_INIT;
	const char in[] = "a\tb\nc\x01\xc2\x85\xc2\xb1";

	esc_clean(&sb, in, sizeof(in) - 1);
	cr_expect_str_eq(sb.buf, "a\tb\nc" FFFD FFFD "\xc2\xb1");
	sb_release(&sb);
}

static void md_cell(struct strbuf *sb, const char *s)
{
	frontdoor_md_cell(sb, s);
}

static void md_code_cell(struct strbuf *sb, const char *s)
{
	frontdoor_md_data_code(sb, s, true);
}

Test(render_escape, markdown_cells_cannot_break_the_table)
{
	expect_esc(md_cell, "a | b", "a \\| b");
	expect_esc(md_cell, "<b>x</b>", "\\<b>x\\</b>");
	expect_esc(md_cell, "one\ntwo\r\nthree\rfour", "one<br>two<br>three<br>four");
	expect_esc(md_cell, "*not* [a](link) `code`", "\\*not\\* \\[a\\](link) \\`code\\`");
	expect_esc(md_cell, "esc\x1b", "esc" FFFD);
	expect_esc(md_code_cell, "id|with`tick\nand break", "``id\\|with`tick and break``");
	expect_esc(md_code_cell, "", "");
}

/* Lines of s: none wider than WRAP_COLUMNS code points, none ending in a
 * space, no control character but the newlines. */
static void expect_fits(const char *s)
{
	const char *line = s;

	for (const char *p = s;; p++) {
		if (*p == '\n' || !*p) {
			struct strbuf l = STRBUF_INIT;

			sb_add(&l, line, (size_t)(p - line));
			cr_expect_leq(wrap_width(l.buf), WRAP_COLUMNS, "line too wide: %s", l.buf);
			cr_expect(!l.len || l.buf[l.len - 1] != ' ', "trailing space: [%s]", l.buf);
			sb_release(&l);
			if (!*p)
				break;
			line = p + 1;
		} else {
			cr_expect((unsigned char)*p >= 0x20 && *p != 0x7f, "control character %#x",
				  *p);
		}
	}
}

Test(render_wrap, words_wrap_with_a_hanging_indent)
{
	struct strbuf sb = STRBUF_INIT;

	wrap_line(&sb, "label:", 4,
		  "the quick brown fox jumps over the lazy dog and keeps running far beyond the "
		  "hundredth column of the terminal");
	cr_expect_str_eq(sb.buf, "label: the quick brown fox jumps over the lazy dog and keeps "
				 "running far beyond the hundredth column\n"
				 "    of the terminal\n");
	sb_release(&sb);
}

Test(render_wrap, line_breaks_in_data_continue_the_item)
{
	struct strbuf sb = STRBUF_INIT;

	wrap_line(&sb, "  expected:", 4, "first\nsecond\r\n\nafter a blank line\x1b[2J");
	cr_expect_str_eq(sb.buf,
			 "  expected: first\n    second\n\n    after a blank line" FFFD "[2J\n");
	sb_release(&sb);
}

Test(render_wrap, a_word_wider_than_the_line_is_cut_at_the_limit)
{
	struct strbuf sb = STRBUF_INIT;
	char word[251];

	memset(word, 'x', 250);
	word[250] = '\0';
	wrap_line(&sb, "id:", 4, word);
	expect_fits(sb.buf);
	cr_expect(!strncmp(sb.buf, "id: xxx", 7));
	cr_expect_eq(strlen(sb.buf), strlen("id: ") + 250 + 2 * strlen("\n    ") + 1);
	sb_release(&sb);
}

Test(render_wrap, generated_text_always_fits)
{
	static const char *const pieces[] = {
		"a", "word", "\xc2\xb1", "\xe2\x86\x92", " ", "  ", "\t", "\n", "\r\n", "\x1b", "|",
		"<", "\"",
		"a-very-long-identifier-without-any-space-at-all-that-goes-on-and-on-and-on-and-on",
	};
	unsigned seed = 12345;

	for (int round = 0; round < 300; round++) {
		struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
		int n = 1 + round % 80;

		for (int i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			sb_adds(&text, pieces[(seed >> 16) % (sizeof(pieces) / sizeof(pieces[0]))]);
		}
		wrap_line(&out, round % 2 ? "label:" : "", (size_t)(round % 40), text.buf);
		expect_fits(out.buf);
		sb_release(&text);
		sb_release(&out);
	}
}

Test(render_svg, axes_have_readable_steps)
{
	struct svg_axis a;
	char buf[32];

	svg_axis(0, 8.64, 6, &a);
	cr_expect_eq(a.step, 2);
	cr_expect_eq(a.first, 0);
	cr_expect_eq(a.last, 10);
	cr_expect_eq(a.decimals, 0);
	/* 0.14 / 5 = 0.028: the next readable step is 0.05 */
	svg_axis(2.59, 2.73, 5, &a);
	cr_expect_float_eq(a.step, 0.05, 1e-12);
	cr_expect_float_eq(a.first, 2.55, 1e-9);
	cr_expect_float_eq(a.last, 2.75, 1e-9);
	cr_expect_eq(a.decimals, 2);
	svg_tick_label(buf, sizeof(buf), &a, 2.6);
	cr_expect_str_eq(buf, "2.60");
	/* 2.5 x 10^k needs a decimal more than its power of ten */
	svg_axis(0, 10, 4, &a);
	cr_expect_eq(a.step, 2.5);
	cr_expect_eq(a.decimals, 1);
	/* one value: a range around it */
	svg_axis(100, 100, 5, &a);
	cr_expect_lt(a.first, 100);
	cr_expect_gt(a.last, 100);
	/* no "-0" at zero */
	svg_axis(-7.5, 3, 4, &a);
	cr_expect_eq(a.first, -10);
	svg_tick_label(buf, sizeof(buf), &a, a.first + 2 * a.step - 1e-15);
	cr_expect_str_eq(buf, "0");
}

Test(render_format, names_round_trip)
{
	enum render_format f;

	for (int i = 0; i < RENDER_NR_FORMATS; i++) {
		cr_expect_eq(render_format_parse(render_format_names[i], &f), 0);
		cr_expect_eq((int)f, i);
	}
	cr_expect_eq(render_format_parse("markdown", &f), -1);
	cr_expect_eq(render_format_parse("JSON", &f), -1);
}

/* A verdict as the gate writes it, with the members the text reads. */
static json_t *verdict(const char *population)
{
	char text[2048];
	struct err e;
	json_t *v;

	snprintf(text, sizeof(text),
		 "{\"envelope_id\":\"env\",\"criterion_digest\":\"sha256:ab\",\"classification\":"
		 "\"pass\","
		 "\"reason\":\"every check "
		 "passed\",\"accepted_revision\":\"r1\",\"candidate_revision\":\"r2\","
		 "\"decision\":{\"population\":\"%s\",\"verdict\":\"undecided\","
		 "\"summary\":\"undecided: +1.0%% [+1.0%%, +1.0%%] at 66.67%%; too few repetitions "
		 "for the 2%% threshold\"},"
		 "\"accepted_samples\":{\"all_sample\":{\"included\":3,"
		 "\"median_tokens_per_second\":100},\"clean_only\":{"
		 "\"included\":2,\"median_tokens_per_second\":100},"
		 "\"exclusions\":[{\"repetition\":1,\"attestation_digest\":\"\",\"reason\":"
		 "\"investigate\"}]},"
		 "\"candidate_samples\":{\"all_sample\":{\"included\":3,"
		 "\"median_tokens_per_second\":101},\"clean_only\":{"
		 "\"included\":2,\"median_tokens_per_second\":101},"
		 "\"exclusions\":[{\"repetition\":1,\"attestation_digest\":\"sha256:cd\","
		 "\"reason\":\"investigate\"}]},"
		 "\"checks\":[{\"name\":\"engine\",\"status\":\"pass\",\"detail\":\"got "
		 "fak-native\"}]}",
		 population);
	v = json_parse_strict(text, strlen(text), "verdict", &e);
	cr_assert(v, "%s", e.msg);
	return v;
}

Test(render_gate, repetitions_left_out_show_when_the_decision_uses_the_clean_ones)
{
	struct receipt r = { .envelope_id = "env", .changed_lever_id = "lever" };
	struct render_ab ab = { .arms = { { "last_accepted", &r, NULL },
					  { "candidate", &r, NULL } } };
	struct strbuf sb = STRBUF_INIT;

	ab.gate = verdict("clean_only");
	render_gate_text(&sb, &ab);
	cr_expect_str_eq(sb.buf, "gate       pass: every check passed\n"
				 "envelope   env\n"
				 "lever      lever\n"
				 "revisions  r1 (last accepted) \u2192 r2 (candidate)\n"
				 "criterion  sha256:ab\n"
				 "\n"
				 "tok/s      100 \u2192 101 tok/s (medians of clean_only, n=2+2)\n"
				 "decision   undecided: +1.0% [+1.0%, +1.0%] at 66.67%; too few "
				 "repetitions for the 2% threshold\n"
				 "\n"
				 "checks     pass        engine  got fak-native\n"
				 "not clean  last_accepted.repetitions[1]: investigate\n"
				 "           candidate.repetitions[1]: investigate (sha256:cd)\n");
	json_decref((json_t *)(uintptr_t)ab.gate);
	sb_reset(&sb);
	ab.gate = verdict("all_sample");
	render_gate_text(&sb, &ab);
	cr_expect(strstr(sb.buf, "medians of all_sample, n=3+3"), "%s", sb.buf);
	cr_expect(!strstr(sb.buf, "not clean"), "%s", sb.buf);
	json_decref((json_t *)(uintptr_t)ab.gate);
	sb_release(&sb);
}
