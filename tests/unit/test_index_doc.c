/* The generated block inside a Markdown document: marker edge cases and
 * splicing that keeps everything outside the markers byte for byte. */
#include "test_index.h"

#include "base/xalloc.h"

#define B INDEX_MARK_BEGIN
#define E INDEX_MARK_END

static int find(const char *doc, size_t *off, size_t *len, struct err *e)
{
	return index_doc_find(doc, strlen(doc), "doc.md", off, len, e);
}

static void expect_refused(const char *doc, const char *msg)
{
	size_t off, len;
	struct err e;

	cr_assert_eq(find(doc, &off, &len, &e), -1, "accepted: %s", doc);
	cr_assert_str_eq(e.msg, msg);
}

Test(index_doc, markers_must_be_one_pair_of_own_lines)
{
	expect_refused("", "'doc.md' has no begin marker line '" B "'");
	expect_refused("text\n" B "\n", "'doc.md' has no end marker line '" E "'");
	expect_refused(E "\n", "'doc.md' has no begin marker line '" B "'");
	expect_refused(E "\n" B "\n",
		       "'doc.md' line 1: the end marker comes before the begin marker on line 2");
	expect_refused(B "\n" B "\n" E "\n", "'doc.md' has 2 begin markers; exactly one begin and "
					     "one end marker line are allowed");
	expect_refused(B "\n" E "\nx\n" E "\n", "'doc.md' has 2 end markers; exactly one begin and "
						"one end marker line are allowed");
	expect_refused("see " B "\n" E "\n", "'doc.md' line 1: the begin marker must be a line of "
					     "its own");
	expect_refused(B "\nx\n" E " trailing\n",
		       "'doc.md' line 3: the end marker must be a line of its own");
}

Test(index_doc, a_marker_inside_a_line_is_text)
{
	/* a generated page that quotes a marker (prose, code span, table cell)
	 * stays findable by every later --write-doc and --check-doc */
	static const char doc[] =
		"see `" E "` and " B "\n" B "\n| " E " |\n`" B "`\n" E "\nafter " E "\n";
	size_t off, len;
	struct err e;

	cr_assert_eq(find(doc, &off, &len, &e), 0, "%s", e.msg);
	cr_expect_eq(off, strlen("see `" E "` and " B "\n"));
	cr_expect_eq(len, strlen(B "\n| " E " |\n`" B "`\n" E));
}

Test(index_doc, block_is_found_with_any_line_ending)
{
	static const char doc[] = "intro\r\n" B "\r\nold\r\n" E "\r\nafter";
	static const char eof[] = "x\n" B "\n" E;
	size_t off, len;
	struct err e;

	cr_assert_eq(find(doc, &off, &len, &e), 0, "%s", e.msg);
	cr_assert_eq(off, 7);
	cr_assert_eq(len, strlen(B "\r\nold\r\n" E));
	cr_assert_eq(find(eof, &off, &len, &e), 0, "%s", e.msg);
	cr_assert_eq(off, 2);
	cr_assert_eq(len, strlen(B "\n" E));
}

Test(index_doc, splice_round_trips_and_keeps_the_outside)
{
	static const char doc[] = "before\n" B "\nstale\n" E "\nafter\n";
	static const char block[] = B "\n# fresh\n" E;
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	size_t off, len;
	struct err e;

	cr_assert_eq(index_doc_splice(doc, strlen(doc), "doc.md", block, strlen(block), &out, &e),
		     0, "%s", e.msg);
	cr_assert_str_eq(out.buf, "before\n" B "\n# fresh\n" E "\nafter\n");
	cr_assert_eq(index_doc_find(out.buf, out.len, "doc.md", &off, &len, &e), 0);
	cr_assert_eq(len, strlen(block));
	cr_assert(!memcmp(out.buf + off, block, len));
	/* splicing again changes nothing */
	cr_assert_eq(index_doc_splice(out.buf, out.len, "doc.md", block, strlen(block), &again, &e),
		     0);
	cr_assert_str_eq(again.buf, out.buf);
	cr_assert_eq(index_doc_splice("no markers\n", 11, "doc.md", block, strlen(block), &again,
				      &e),
		     -1);
	cr_assert_str_eq(e.msg, "'doc.md' has no begin marker line '" B "'");
	sb_release(&out);
	sb_release(&again);
}

Test(index_doc, block_inside_large_text_and_nul_bytes)
{
	const size_t pad = (size_t)1 << 20;
	struct strbuf doc = STRBUF_INIT;
	size_t off, len;
	struct err e;

	for (size_t i = 0; i < pad; i++)
		sb_addch(&doc, i % 64 == 63 ? '\n' : (i % 97 ? 'a' : '\0'));
	sb_adds(&doc, "\n" B "\nbody\n" E "\n");
	for (size_t i = 0; i < pad; i++)
		sb_addch(&doc, i % 64 == 63 ? '\n' : 'z');
	cr_assert_eq(index_doc_find(doc.buf, doc.len, "big.md", &off, &len, &e), 0, "%s", e.msg);
	cr_assert_eq(off, pad + 1);
	cr_assert_eq(len, strlen(B "\nbody\n" E));
	sb_release(&doc);
}
