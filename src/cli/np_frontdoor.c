/* fak native-performance --frontdoor-md [--as-of DATE] [--index FILE]
 *                         [--write-doc FILE | --check-doc FILE]
 *
 * Loads and validates the performance index against the graph in use,
 * builds the page for the as-of date (default: today, UTC) and prints it,
 * splices it into a document, or checks that a document carries it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/dates.h"
#include "base/file.h"
#include "base/text.h"
#include "cli/cli.h"
#include "cli/np.h"
#include "index/index.h"
#include "render/frontdoor_md.h"

/* Lines longer than this are shown as a window around the difference. */
#define SHOW_MAX 160
#define SHOW_BEFORE 40

static int write_doc(const char *path, const char *block, size_t len)
{
	struct strbuf doc = STRBUF_INIT, out = STRBUF_INIT;
	struct stat st;
	struct err e;
	int rc = EXIT_OK;

	if (!strcmp(path, "-")) {
		cli_errorf(NP_CMD, "--write-doc needs a file, not '-'");
		return EXIT_USAGE;
	}
	if (file_read(path, INDEX_DOC_MAX_BYTES, &doc, &e) < 0 ||
	    index_doc_splice(doc.buf, doc.len, path, block, len, &out, &e) < 0) {
		rc = cli_fail(NP_CMD, &e);
	} else if (out.len != doc.len || memcmp(out.buf, doc.buf, doc.len)) {
		if (stat(path, &st) < 0) {
			err_errno(&e, errno, "cannot stat '%s'", path);
			rc = cli_fail(NP_CMD, &e);
		} else if (file_write_atomic(path, out.buf, out.len, st.st_mode & 07777, &e) < 0) {
			rc = cli_fail(NP_CMD, &e);
		}
	}
	sb_release(&doc);
	sb_release(&out);
	return rc;
}

/* Appends the line of s around pos, quoted, shortened to a window when long. */
static void show_line(struct strbuf *out, const char *s, size_t len, size_t pos)
{
	size_t start = pos, end = pos;
	struct strbuf line = STRBUF_INIT;
	bool cut_left = false, cut_right = false;

	if (pos >= len) {
		sb_adds(out, "(end of block)");
		return;
	}
	while (start > 0 && s[start - 1] != '\n')
		start--;
	while (end < len && s[end] != '\n')
		end++;
	if (end - start > SHOW_MAX) {
		if (pos - start > SHOW_BEFORE) {
			start = pos - SHOW_BEFORE;
			cut_left = true;
		}
		if (end - start > SHOW_MAX) {
			end = start + SHOW_MAX;
			cut_right = true;
		}
		/* never split a UTF-8 sequence */
		while (cut_left && start < pos && ((unsigned char)s[start] & 0xc0) == 0x80)
			start++;
		while (cut_right && end > pos && ((unsigned char)s[end] & 0xc0) == 0x80)
			end--;
	}
	sb_add(&line, s + start, end - start);
	sb_adds(out, cut_left ? "..." : "");
	sb_add_quoted(out, line.buf);
	sb_adds(out, cut_right ? "..." : "");
	sb_release(&line);
}

static int check_doc(const char *path, const char *block, size_t len)
{
	struct strbuf doc = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
	struct err e;
	size_t off = 0, blen = 0, k = 0, line = 1, col = 1;
	int rc = EXIT_OK;

	if (file_read(path, INDEX_DOC_MAX_BYTES, &doc, &e) < 0 ||
	    index_doc_find(doc.buf, doc.len, path, &off, &blen, &e) < 0) {
		rc = cli_fail(NP_CMD, &e);
		goto out;
	}
	if (blen == len && !memcmp(doc.buf + off, block, len))
		goto out;
	while (k < blen && k < len && doc.buf[off + k] == block[k])
		k++;
	for (size_t i = 0; i < off + k; i++) {
		col = doc.buf[i] == '\n' ? 1 : col + 1;
		line += doc.buf[i] == '\n';
	}
	show_line(&a, doc.buf + off, blen, k);
	show_line(&b, block, len, k);
	cli_errorf(NP_CMD, "'%s' is stale: its generated block first differs "
		   "at line %zu, column %zu", path, line, col);
	fprintf(stderr, "  committed: %s\n  generated: %s\n", a.buf, b.buf);
	cli_errorf(NP_CMD, "regenerate it with the same options and --write-doc '%s'", path);
	rc = EXIT_FAIL;
out:
	sb_release(&doc);
	sb_release(&a);
	sb_release(&b);
	return rc;
}

int np_frontdoor(const struct np_ctx *c)
{
	const struct np_opts *o = c->o;
	struct index idx;
	struct index_page page;
	struct findings f = FINDINGS_INIT;
	struct strbuf md = STRBUF_INIT;
	struct err e;
	long as_of = date_today_utc();
	int rc;

	if (o->as_of && date_parse(o->as_of, &as_of, &e) < 0) {
		cli_errorf(NP_CMD, "invalid --as-of: %s", e.msg);
		return EXIT_USAGE;
	}
	if (evidence_index(c->ev, &idx, &e) < 0)
		return cli_fail(NP_CMD, &e);
	index_validate(&idx, c->g, &f);
	if (f.nr) {
		rc = cli_findings(NP_CMD, "invalid performance index", &f);
		findings_release(&f);
		index_release(&idx);
		return rc;
	}
	index_page_build(&page, &idx, as_of);
	frontdoor_md_render(&md, &page);
	if (o->write_doc)
		/* block without its last newline */
		rc = write_doc(o->write_doc, md.buf, md.len - 1);
	else if (o->check_doc)
		rc = check_doc(o->check_doc, md.buf, md.len - 1);
	else {
		cli_out(md.buf, md.len);
		rc = EXIT_OK;
	}
	sb_release(&md);
	index_page_release(&page);
	index_release(&idx);
	return rc;
}
