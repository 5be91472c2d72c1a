#ifndef FAK_RENDER_ESCAPE_H
#define FAK_RENDER_ESCAPE_H
/* Escaping of data text for the formats fak writes, except Markdown (see
 * frontdoor_md.h). Data text is anything that comes from a graph, receipt,
 * profile or request: it may hold quotes, commas, pipes, '<', line breaks
 * and control characters, and none of them may change the structure of the
 * output or reach a terminal as a control sequence. */
#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* The replacement character, U+FFFD, in UTF-8: what a control character
 * (C0 other than tab and line breaks, DEL, C1) or an invalid UTF-8 byte
 * shows as in text, Markdown and SVG. */
#define ESC_REPLACEMENT "\xef\xbf\xbd"

/* The character at p (not NUL): its length in bytes in *len, and whether
 * it shows as ESC_REPLACEMENT (false for printable characters, tab, CR and
 * LF). An invalid UTF-8 byte is one unprintable byte. */
bool esc_unprintable(const char *p, size_t *len);

/* n bytes of s with every unprintable character (esc_unprintable) replaced
 * by ESC_REPLACEMENT; tabs, CR and LF are kept. */
void esc_clean(struct strbuf *out, const char *s, size_t n);

/* One CSV field (RFC 4180): as it is, or in double quotes with each quote
 * doubled when it holds a comma, a quote, CR or LF; an unprintable
 * character (esc_unprintable) shows as ESC_REPLACEMENT, as in text, so a
 * CSV file printed on a terminal sends it no control sequence. Nothing else
 * changes; fak does not alter text that a spreadsheet could take for a
 * formula (import the file as text). */
void esc_csv(struct strbuf *out, const char *s);

/* Text for XML content or an attribute value in double quotes: & < > " '
 * as entities, unprintable characters as U+FFFD (XML 1.0 cannot carry
 * them), tabs and line breaks as one space each (SVG text is one line). */
void esc_xml(struct strbuf *out, const char *s);

#endif
