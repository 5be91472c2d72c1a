#ifndef FAK_RENDER_WRAP_H
#define FAK_RENDER_WRAP_H
/* Human text that fits 100 columns. A line is filled token by token; a
 * token that would pass the limit starts a continuation line indented by
 * the line's indent, and a token wider than a whole continuation line is
 * cut at the limit, so no line of text output is wider than WRAP_COLUMNS
 * (counted in code points). Data text goes through wrap_words, which keeps
 * its line breaks as continuation lines and shows control characters as
 * U+FFFD: nothing in a graph or receipt can break the layout or reach the
 * terminal as a control sequence. */
#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

#define WRAP_COLUMNS 100

struct wrap {
	struct strbuf *out;	/* borrowed */
	size_t col, indent;
	bool fresh;		/* no token on this line yet: no separator */
	bool pending;		/* a continuation line began: its indent is not written yet */
};

/* A line starting at column 0 whose continuations are indented by indent
 * (less than WRAP_COLUMNS / 2). */
void wrap_init(struct wrap *w, struct strbuf *out, size_t indent);
/* Display width of s: UTF-8 code points. */
size_t wrap_width(const char *s);
/* Bytes of the first `cols` code points of s (all of s when shorter). */
size_t wrap_prefix(const char *s, size_t cols);
/* Appends token (program text, printed as it is), preceded by sep unless
 * the line has no token yet. */
void wrap_put(struct wrap *w, const char *sep, const char *token);
/* Appends data text word by word, words separated by one space: runs of
 * spaces and tabs separate words, a line break (LF, CR or CRLF) starts a
 * continuation line, unprintable characters show as U+FFFD. */
void wrap_words(struct wrap *w, const char *text);
/* Ends the line (one newline; no trailing spaces). */
void wrap_end(struct wrap *w);
/* A whole line: label (program text) then data text, continuations
 * indented by indent. */
void wrap_line(struct strbuf *out, const char *label, size_t indent, const char *text);

#endif
