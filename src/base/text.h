#ifndef FAK_BASE_TEXT_H
#define FAK_BASE_TEXT_H
/* Small text predicates and quoting shared by validators. */
#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* NULL, empty, or only Unicode white space (ASCII blanks, U+0085, U+00A0,
 * U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). */
bool str_blank(const char *s);

/* Length of the valid UTF-8 sequence (RFC 3629: no overlongs, no
 * surrogates) starting at p, 0 if invalid. Reads no further than a NUL. */
size_t utf8_seq(const unsigned char *p);

/* ASCII case-insensitive substring test, independent of the locale. */
bool str_contains_ci(const char *hay, const char *needle);

/* Looks like it carries a private path, account or host: a backslash, an
 * absolute path, a home folder (/home/, /Users/), user@host or "ssh ".
 * Public documents (receipts, profiles) must not contain such text. */
bool str_private(const char *s);

/* Appends s in double quotes with `"`, `\` and control characters escaped
 * (\n, \t, \xNN), as used for ids in findings. */
void sb_add_quoted(struct strbuf *sb, const char *s);

#endif
