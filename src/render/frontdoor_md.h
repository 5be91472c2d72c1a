#ifndef FAK_RENDER_FRONTDOOR_MD_H
#define FAK_RENDER_FRONTDOOR_MD_H
/* The front-door performance index page (docs/frontdoor.md) as GitHub-flavoured
 * Markdown. All Markdown escaping of the project lives in this file: data
 * text is always escaped, so a row can never open a link, emphasis, HTML,
 * a code span or a new table cell. */
#include <stdbool.h>

#include "base/strbuf.h"
#include "index/index.h"

/* The whole generated block: INDEX_MARK_BEGIN line, the page, INDEX_MARK_END
 * line, then one newline. Appends to out. */
void frontdoor_md_render(struct strbuf *out, const struct index_page *p);

/* Plain text as Markdown inline content. block_start: s begins a block
 * (paragraph or heading), so a leading '#', '>', '-', '+', '=' or "1." is
 * escaped too. '|' is always escaped (safe inside and outside tables). */
void frontdoor_md_text(struct strbuf *out, const char *s, bool block_start);
/* s as one code span, fenced with more backticks than it contains. In a
 * table cell (in_table) '|' is escaped, as GFM splits cells before it
 * parses code spans; elsewhere a backslash would show. */
void frontdoor_md_code(struct strbuf *out, const char *s, bool in_table);

/* Data text as the content of one GFM table cell: unprintable characters
 * show as U+FFFD, each line break (LF, CR or CRLF) as <br> (the only HTML
 * fak writes into a cell), and the text between them as frontdoor_md_text. */
void frontdoor_md_cell(struct strbuf *out, const char *s);
/* Data text as one code span (in a table cell when in_table): line breaks
 * become spaces (as CommonMark reads them in a code span) and unprintable
 * characters U+FFFD. Nothing for "". */
void frontdoor_md_data_code(struct strbuf *out, const char *s, bool in_table);

#endif
