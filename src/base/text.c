#include "base/text.h"

#include <string.h>

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

bool str_private(const char *s)
{
	return strchr(s, '\\') || s[0] == '/' || str_contains_ci(s, "/users/") ||
	       str_contains_ci(s, "/home/") || strchr(s, '@') || str_contains_ci(s, "ssh ");
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
