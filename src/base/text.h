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

/* The project's public address: URLs under it are scrubbed text. */
#define TEXT_PROJECT_URL "https://github.com/anthony-chaudhary/fak"

/* Scrubbed text: free text of public evidence (receipts, profiles, index
 * rows, top-consumer records) names no private path, account or host. The
 * text is split into words at white space (ASCII and Unicode) and at
 * = " ' ( ) [ ] { } < > , ; | & `. It is refused when it contains a
 * backslash, or a word that is
 *   - an absolute path: starts with '/' and is longer than "/" (an HTML
 *     closing tag such as "</b>" is not a path);
 *   - home-relative: "~/...", "~name" or "~name/...", or contains $HOME or
 *     ${HOME};
 *   - a '..' escape: "..", "../...", ".../..", or contains "/../";
 *   - a home folder: contains "/home/" or "/users/" (any case);
 *   - an account or e-mail address: contains '@';
 *   - a URL: contains "://", unless it is TEXT_PROJECT_URL or below it
 *     ("https://github.com/anthony-chaudhary/fak/issues/8635");
 *   - a remote: host:path or host:port, host a letter then letters, digits,
 *     '.', '-', '_', and the rest starting with '/' or '~', containing '/',
 *     or all digits ("vm:/data/x", "gpu-node:8080"; not "sha256:ab12");
 *   - an IPv4 address (four dotted numbers 0..255 not inside a longer
 *     dotted number or word) or an IPv6 address (hex digits and ':' with
 *     "::" or seven ':');
 *   - ssh, scp or sftp (any case) followed by another word.
 * Returns true when s is scrubbed. Otherwise, when why is non-NULL, appends
 * the first rule broken and the word: `an absolute path "/srv/x"`. */
bool str_scrubbed(const char *s, struct strbuf *why);

/* The same rules for a shell command: a backslash is a shell escape, not a
 * Windows path, so the rules judge the command as the shell reads it (each
 * backslash dropped, the character it escapes kept: "\\/home/x" is still a
 * home folder); a drive ("C:\\x" at the start of a word) or a UNC path
 * ("\\\\host\\share") is refused as "a Windows path". */
bool str_scrubbed_command(const char *s, struct strbuf *why);

/* Text a person reads as it is: valid UTF-8 (utf8_seq) without control
 * characters: no C0 (except those in keep, e.g. "\t\n"; keep may be ""),
 * no DEL, no C1 (U+0080..U+009F). Otherwise false, and when why is non-NULL
 * the reason appended: `a control character (U+001B) at byte 4`,
 * `invalid UTF-8 at byte 2`. */
bool str_printable(const char *s, const char *keep, struct strbuf *why);

/* The id form of graphs, index keys and named metrics: lowercase letters and
 * digits joined by single '.', '_' or '-', at most STR_ID_MAX bytes. NULL
 * when s has it, else what is wrong ("is empty", "holds two of '.', '_'
 * and '-' in a row", ...; static storage). */
#define STR_ID_MAX 128
const char *str_id_problem(const char *s);

/* Appends s in double quotes with `"`, `\` and control characters escaped
 * (\n, \t, \xNN), as used for ids in findings. */
void sb_add_quoted(struct strbuf *sb, const char *s);

/* The words of a shell command as the shell reads them before expansion:
 * split at unquoted blanks and line feeds, each operator character
 * (; & | < > ( )) outside quotes a word of its own (runs of them one word:
 * "&&", ">>"), with the shell's quote removal done ('...' literal, "..."
 * with \\ before $ ` " \\ and a line feed, \\ outside quotes escaping the next
 * character, backslash-line feed joining lines). Each word is appended to
 * out with its NUL; *n counts them. expands (may be NULL; at least as many
 * slots as words, e.g. strlen(cmd) + 1) says per word whether it holds an
 * unquoted or double-quoted $ or `, or an unquoted * ? [ or leading ~: what
 * it names is known only after expansion. -1 when a quote is not closed. */
int sh_words(const char *cmd, struct strbuf *out, size_t *n, bool *expands);

#endif
