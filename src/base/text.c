#include "base/text.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static size_t space_len(const unsigned char *p)
{
	if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
		return 1;
	if (p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0))
		return 2;
	if (p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80)
		return 3;
	if (p[0] == 0xE2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 ||
					     p[2] == 0xA9 || p[2] == 0xAF))
		return 3;
	if (p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F)
		return 3;
	if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80)
		return 3;
	return 0;
}

/* Length of the valid UTF-8 sequence at p, 0 if invalid (RFC 3629). */
size_t utf8_seq(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		n = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		n = 3;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

bool str_blank(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!p)
		return true;
	while (*p) {
		size_t n = space_len(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

bool str_contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++) {
		size_t i = 0;

		while (i < n && hay[i] &&
		       (hay[i] >= 'A' && hay[i] <= 'Z' ? hay[i] + 32 : hay[i]) ==
			       (needle[i] >= 'A' && needle[i] <= 'Z' ? needle[i] + 32 : needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* ---- scrubbed text ------------------------------------------------------ */

/* Longest part of an offending word quoted in a message. */
#define SCRUB_SHOW_MAX 80

/* Width of the word separator at p (white space or punctuation), 0 if none. */
static size_t word_sep(const unsigned char *p)
{
	if (*p && (*p < 0x20 || *p == 0x7f || strchr("=\"'()[]{}<>,;|&`", *p)))
		return 1;
	return space_len(p);
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* needle occurs in w[0..n) (case-insensitively when ci) */
static bool word_has(const char *w, size_t n, const char *needle, bool ci)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;

		while (j < k && (ci ? lower(w[i + j]) == lower(needle[j]) : w[i + j] == needle[j]))
			j++;
		if (j == k)
			return true;
	}
	return false;
}

static bool word_starts(const char *w, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(w, prefix, k);
}

static bool word_ends(const char *w, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(w + n - k, suffix, k);
}

/* The project's own address or a page below it. */
static bool project_url(const char *w, size_t n)
{
	size_t k = strlen(TEXT_PROJECT_URL);

	return word_starts(w, n, TEXT_PROJECT_URL) && (n == k || w[k] == '/');
}

/* host:path or host:port */
static bool remote(const char *w, size_t n)
{
	const char *colon = memchr(w, ':', n);
	size_t h, r;
	bool digits = true;

	if (!colon || colon == w || !is_alpha((unsigned char)w[0]))
		return false;
	h = (size_t)(colon - w);
	for (size_t i = 0; i < h; i++)
		if (!is_alpha((unsigned char)w[i]) && !is_digit((unsigned char)w[i]) &&
		    !strchr(".-_", w[i]))
			return false;
	r = n - h - 1;
	if (!r)
		return false;
	for (size_t i = 0; i < r; i++)
		digits &= is_digit((unsigned char)colon[1 + i]);
	return colon[1] == '/' || colon[1] == '~' || memchr(colon + 1, '/', r) || digits;
}

/* A number 0..255 of 1-3 digits at w[*i]; advances *i. */
static bool octet(const char *w, size_t n, size_t *i)
{
	size_t start = *i;
	unsigned v = 0;

	while (*i < n && is_digit((unsigned char)w[*i]) && *i - start < 3)
		v = v * 10 + (unsigned)(w[(*i)++] - '0');
	return *i > start && v <= 255 && !(*i < n && is_digit((unsigned char)w[*i]));
}

/* A dotted quad somewhere in the word, not part of a longer dotted number
 * or word ("v1.2.3.4" and "1.2.3.4.5" are versions). */
static bool ipv4(const char *w, size_t n)
{
	for (size_t s = 0; s < n; s++) {
		size_t i = s;
		int k;

		if (s && (is_alpha((unsigned char)w[s - 1]) || is_digit((unsigned char)w[s - 1]) ||
			  w[s - 1] == '.' || w[s - 1] == '_'))
			continue;
		for (k = 0; k < 4; k++) {
			if (!octet(w, n, &i))
				break;
			if (k < 3 && (i >= n || w[i++] != '.'))
				break;
		}
		if (k < 4)
			continue;
		if (i < n && (is_alpha((unsigned char)w[i]) || w[i] == '_' ||
			      (w[i] == '.' && i + 1 < n && is_digit((unsigned char)w[i + 1]))))
			continue;
		return true;
	}
	return false;
}

/* Hex digits and ':' with "::" or seven ':' (before any %zone or /prefix). */
static bool ipv6(const char *w, size_t n)
{
	size_t colons = 0, hex = 0, i;

	for (i = 0; i < n && w[i] != '%' && w[i] != '/'; i++) {
		if (w[i] == ':')
			colons++;
		else if (is_hex((unsigned char)w[i]))
			hex++;
		else
			return false;
	}
	return hex && colons >= 2 && (colons == 7 || word_has(w, i, "::", false));
}

static bool remote_login(const char *w, size_t n)
{
	return (n == 3 && (word_has(w, n, "ssh", true) || word_has(w, n, "scp", true))) ||
	       (n == 4 && word_has(w, n, "sftp", true));
}

/* "~/x", "~alice" or "~alice/x" (not "~47%" or "~strike~") */
static bool home_relative(const char *w, size_t n)
{
	size_t i = 1;

	if (w[0] != '~' || n < 2)
		return false;
	if (w[1] == '/')
		return true;
	if (!is_alpha((unsigned char)w[1]) && w[1] != '_')
		return false;
	while (i < n && (is_alpha((unsigned char)w[i]) || is_digit((unsigned char)w[i]) ||
			 strchr("_-.", w[i])))
		i++;
	return i == n || w[i] == '/';
}

/* "</b>": the word "/b" between '<' and '>' closes an HTML tag. */
static bool closing_tag(const char *w, size_t n)
{
	if (w[-1] != '<' || w[n] != '>')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!is_alpha((unsigned char)w[i]) && !is_digit((unsigned char)w[i]))
			return false;
	return true;
}

/* A path of the operating system's own, the same on every machine and
 * naming no one: under /usr, /bin, /sbin, /lib, /lib64 or /opt, or
 * /dev/null. The other rules still apply to it ("/opt/home/x", "/usr/.."). */
static bool system_path(const char *w, size_t n)
{
	static const char *const roots[] = { "/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt" };

	if (n == 9 && !memcmp(w, "/dev/null", 9))
		return true;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t k = strlen(roots[i]);

		if (n >= k && !memcmp(w, roots[i], k) && (n == k || w[k] == '/'))
			return true;
	}
	return false;
}

/* The first rule word w[0..n) of s breaks, NULL when none. more: another
 * word follows. */
static const char *word_leak(const char *s, const char *w, size_t n, bool more)
{
	bool url = word_has(w, n, "://", false);

	if (url && !project_url(w, n))
		return "a URL other than the project's public links";
	if (memchr(w, '@', n))
		return "an account or e-mail address";
	if (w[0] == '/' && n > 1 && !(w > s && closing_tag(w, n)) && !system_path(w, n))
		return "an absolute path";
	if (home_relative(w, n) || word_has(w, n, "$HOME", false))
		return "a home-relative path";
	if ((n == 2 && !memcmp(w, "..", 2)) || word_starts(w, n, "../") || word_ends(w, n, "/..") ||
	    word_has(w, n, "/../", false))
		return "a '..' path escape";
	if (word_has(w, n, "/home/", true) || word_has(w, n, "/users/", true))
		return "a home folder";
	if (!url && remote(w, n))
		return "a remote host:path or host:port";
	if (ipv4(w, n) || ipv6(w, n))
		return "an IP address";
	if (more && remote_login(w, n))
		return "a remote login";
	return NULL;
}

static void show_word(struct strbuf *why, const char *rule, const char *w, size_t n)
{
	char *word;
	bool cut = n > SCRUB_SHOW_MAX;

	if (cut) {
		n = SCRUB_SHOW_MAX;
		while (n > 0 && ((unsigned char)w[n] & 0xc0) == 0x80)
			n--;	/* never split a UTF-8 sequence */
	}
	word = xstrndup(w, n);
	sb_addf(why, "%s ", rule);
	sb_add_quoted(why, word);
	sb_adds(why, cut ? "..." : "");
	free(word);
}

/* A Windows path in a shell command: a drive ("C:\\...", a letter at the
 * start of a word) or a UNC path ("\\\\host\\share"). */
static bool windows_path(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		bool start = p == (const unsigned char *)s || word_sep(p - 1);

		if (start && is_alpha(p[0]) && p[1] == ':' && p[2] == '\\')
			return true;
		if (p[0] == '\\' && p[1] == '\\' && (is_alpha(p[2]) || is_digit(p[2]))) {
			const unsigned char *q = p + 2;

			while (*q && !word_sep(q) && *q != '\\')
				q++;
			if (*q == '\\')
				return true;
		}
	}
	return false;
}

bool str_printable(const char *s, const char *keep, struct strbuf *why)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; u[i];) {
		size_t len = u[i] < 0x80 ? 1 : utf8_seq(u + i);
		unsigned cp = u[i];

		if (!len) {
			if (why)
				sb_addf(why, "invalid UTF-8 at byte %zu", i);
			return false;
		}
		if (len == 2)
			cp = (unsigned)(u[i] & 0x1f) << 6 | (u[i + 1] & 0x3f);
		if ((cp < 0x20 && !strchr(keep, (int)cp)) || cp == 0x7f ||
		    (len == 2 && cp < 0xa0)) {
			if (why)
				sb_addf(why, "a control character (U+%04X) at byte %zu", cp, i);
			return false;
		}
		i += len;
	}
	return true;
}

bool str_scrubbed_command(const char *s, struct strbuf *why)
{
	char *plain = xmalloc(strlen(s) + 1), *o = plain;
	bool ok;

	if (windows_path(s)) {
		if (why)
			sb_adds(why, "a Windows path");
		free(plain);
		return false;
	}
	/* the shell drops a backslash and keeps what it escapes: judge that */
	for (const char *p = s; *p; p++) {
		if (*p != '\\')
			*o++ = *p;
		else if (p[1] && p[1] != '\\')
			*o++ = *++p;
		else if (p[1])
			p++;	/* an escaped backslash: windows_path judged it */
	}
	*o = '\0';
	ok = str_scrubbed(plain, why);
	free(plain);
	return ok;
}

bool str_scrubbed(const char *s, struct strbuf *why)
{
	const unsigned char *p = (const unsigned char *)s;

	if (strchr(s, '\\')) {
		if (why)
			sb_adds(why, "a backslash (a Windows path or an escape)");
		return false;
	}
	if (strstr(s, "${HOME}")) {	/* braces split words: look before splitting */
		if (why)
			show_word(why, "a home-relative path", "${HOME}", 7);
		return false;
	}
	while (*p) {
		const unsigned char *w, *next;
		const char *rule;
		size_t sep;

		while (*p && (sep = word_sep(p)))
			p += sep;
		if (!*p)
			break;
		w = p;
		while (*p && !word_sep(p))
			p++;
		next = p;
		while (*next && (sep = word_sep(next)))
			next += sep;
		rule = word_leak(s, (const char *)w, (size_t)(p - w), *next != '\0');
		if (rule) {
			if (why)
				show_word(why, rule, (const char *)w, (size_t)(p - w));
			return false;
		}
	}
	return true;
}

void sb_add_quoted(struct strbuf *sb, const char *s)
{
	sb_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			sb_addch(sb, '\\');
			sb_addch(sb, *p);
		} else if (*p == '\n') {
			sb_adds(sb, "\\n");
		} else if (*p == '\t') {
			sb_adds(sb, "\\t");
		} else if (*p < 0x20 || *p == 0x7f) {
			sb_addf(sb, "\\x%02x", *p);
		} else {
			sb_addch(sb, *p);
		}
	}
	sb_addch(sb, '"');
}

static bool sh_op(char c)
{
	return c && strchr(";&|<>()", c);
}

static bool sh_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* One character (or quoted part) of a word at p, appended to out; returns
 * what follows, or NULL at a quote that is not closed. */
static const char *sh_part(const char *cmd, const char *p, struct strbuf *out, bool *exp)
{
	if (*p == '\\') {
		if (p[1] == '\n')
			return p + 2;
		if (!p[1])
			return p + 1;	/* a trailing backslash: the shell drops it */
		sb_addch(out, p[1]);
		return p + 2;
	}
	if (*p == '\'') {
		const char *q = strchr(p + 1, '\'');

		if (!q)
			return NULL;
		sb_add(out, p + 1, (size_t)(q - p - 1));
		return q + 1;
	}
	if (*p == '"') {
		for (p++; *p != '"'; p++) {
			if (!*p)
				return NULL;
			if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
				if (p[1] != '\n')
					sb_addch(out, p[1]);
				p++;
				continue;
			}
			*exp |= *p == '$' || *p == '`';
			sb_addch(out, *p);
		}
		return p + 1;
	}
	*exp |= *p == '$' || *p == '`' || *p == '*' || *p == '?' || *p == '[' ||
		(*p == '~' && (p == cmd || sh_blank(p[-1])));
	sb_addch(out, *p);
	return p + 1;
}

int sh_words(const char *cmd, struct strbuf *out, size_t *n, bool *expands)
{
	const char *p = cmd;

	*n = 0;
	for (;;) {
		bool exp = false;

		while (sh_blank(*p) || (p[0] == '\\' && p[1] == '\n'))
			p += *p == '\\' ? 2 : 1;
		if (!*p)
			return 0;
		if (sh_op(*p)) {
			while (sh_op(*p))
				sb_addch(out, *p++);
		} else {
			while (*p && !sh_blank(*p) && !sh_op(*p))
				if (!(p = sh_part(cmd, p, out, &exp)))
					return -1;
		}
		sb_addch(out, '\0');
		if (expands)
			expands[*n] = exp;
		(*n)++;
	}
}

_Static_assert(STR_ID_MAX == 128, "str_id_problem's text says 128");

const char *str_id_problem(const char *s)
{
	size_t n;

	for (n = 0; s[n]; n++) {
		bool sep = s[n] == '.' || s[n] == '_' || s[n] == '-';
		bool lower_or_digit = (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9');

		if (!sep && !lower_or_digit)
			return "holds a byte other than a lowercase letter, a digit, '.', '_' "
			       "and '-'";
		if (sep && (!n || !s[n + 1]))
			return "starts or ends with '.', '_' or '-'";
		if (sep && (s[n - 1] == '.' || s[n - 1] == '_' || s[n - 1] == '-'))
			return "holds two of '.', '_' and '-' in a row";
	}
	if (!n)
		return "is empty";
	if (n > STR_ID_MAX)
		return "is longer than 128 bytes";
	return NULL;
}
