/* The generated block inside a Markdown document: exactly one begin and one
 * end marker line, begin first. A marker counts only as a line of its own.
 * Everything outside the two markers belongs to the document's author and is
 * kept byte for byte. */
#include <string.h>

#include "index/index.h"

static size_t line_of(const char *doc, size_t pos)
{
	size_t line = 1;

	for (size_t i = 0; i < pos; i++)
		line += doc[i] == '\n';
	return line;
}

/* The marker at off fills its line: line start before, line end or end of
 * document after ("\n" or "\r\n"). */
static bool own_line(const char *doc, size_t len, size_t off, size_t mlen)
{
	size_t end = off + mlen;

	if (off > 0 && doc[off - 1] != '\n')
		return false;
	return end == len || doc[end] == '\n' ||
	       (doc[end] == '\r' && end + 1 < len && doc[end + 1] == '\n');
}

/* Marker lines of mark: only an occurrence that is a line of its own
 * counts, so text that quotes a marker (in a sentence, a code span or a
 * table cell) never moves the block. *first = offset of the first marker
 * line, *inline_at = offset of the first other occurrence (len if none). */
static size_t count(const char *doc, size_t len, const char *mark, size_t *first,
		    size_t *inline_at)
{
	size_t n = 0, mlen = strlen(mark), pos = 0;

	*inline_at = len;
	while (pos + mlen <= len) {
		const char *hit = memmem(doc + pos, len - pos, mark, mlen);
		size_t off;

		if (!hit)
			break;
		off = (size_t)(hit - doc);
		if (own_line(doc, len, off, mlen)) {
			if (!n)
				*first = off;
			n++;
		} else if (*inline_at == len) {
			*inline_at = off;
		}
		pos = off + mlen;
	}
	return n;
}

static int find_one(const char *doc, size_t len, const char *name, const char *what,
		    const char *mark, size_t *off, struct err *e)
{
	size_t inline_at, n = count(doc, len, mark, off, &inline_at);

	if (n == 0 && inline_at < len)
		return err_set(e, "'%s' line %zu: the %s marker must be a line of its own", name,
			       line_of(doc, inline_at), what);
	if (n == 0)
		return err_set(e, "'%s' has no %s marker line '%s'", name, what, mark);
	if (n > 1)
		return err_set(e, "'%s' has %zu %s markers; exactly one begin and one end marker "
				  "line are allowed", name, n, what);
	return 0;
}

int index_doc_find(const char *doc, size_t len, const char *name, size_t *off, size_t *blen,
		   struct err *e)
{
	size_t begin = 0, end = 0;

	if (find_one(doc, len, name, "begin", INDEX_MARK_BEGIN, &begin, e) < 0 ||
	    find_one(doc, len, name, "end", INDEX_MARK_END, &end, e) < 0)
		return -1;
	if (end < begin)
		return err_set(e, "'%s' line %zu: the end marker comes before the begin marker on "
				  "line %zu", name, line_of(doc, end), line_of(doc, begin));
	*off = begin;
	*blen = end + strlen(INDEX_MARK_END) - begin;
	return 0;
}

int index_doc_splice(const char *doc, size_t len, const char *name, const char *block,
		     size_t block_len, struct strbuf *out, struct err *e)
{
	size_t off = 0, blen = 0;

	if (index_doc_find(doc, len, name, &off, &blen, e) < 0)
		return -1;
	sb_reset(out);
	sb_add(out, doc, off);
	sb_add(out, block, block_len);
	sb_add(out, doc + off + blen, len - off - blen);
	return 0;
}
