/* The generated block inside a Markdown document: exactly one begin and one
 * end marker line, begin first. Everything outside the two markers belongs
 * to the document's author and is kept byte for byte. */
#include <string.h>

#include "index/index.h"

static size_t line_of(const char *doc, size_t pos)
{
	size_t line = 1;

	for (size_t i = 0; i < pos; i++)
		line += doc[i] == '\n';
	return line;
}

/* Occurrences of mark (non-overlapping); *first = offset of the first. */
static size_t count(const char *doc, size_t len, const char *mark, size_t *first)
{
	size_t n = 0, mlen = strlen(mark), pos = 0;

	while (pos + mlen <= len) {
		const char *hit = memmem(doc + pos, len - pos, mark, mlen);

		if (!hit)
			break;
		if (!n)
			*first = (size_t)(hit - doc);
		n++;
		pos = (size_t)(hit - doc) + mlen;
	}
	return n;
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

static int find_one(const char *doc, size_t len, const char *name, const char *what,
		    const char *mark, size_t *off, struct err *e)
{
	size_t n = count(doc, len, mark, off);

	if (n == 0)
		return err_set(e, "'%s' has no %s marker line '%s'", name, what, mark);
	if (n > 1)
		return err_set(e, "'%s' has %zu %s markers; exactly one begin and one end marker line are allowed",
			       name, n, what);
	if (!own_line(doc, len, *off, strlen(mark)))
		return err_set(e, "'%s' line %zu: the %s marker must be a line of its own", name,
			       line_of(doc, *off), what);
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
		return err_set(e, "'%s' line %zu: the end marker comes before the begin marker on line %zu",
			       name, line_of(doc, end), line_of(doc, begin));
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
