#include "render/escape.h"

#include <string.h>

#include "base/text.h"

bool esc_unprintable(const char *p, size_t *len)
{
	const unsigned char *u = (const unsigned char *)p;

	*len = 1;
	if (*u == '\t' || *u == '\r' || *u == '\n')
		return false;
	if (*u < 0x20 || *u == 0x7f)
		return true;
	if (*u < 0x80)
		return false;
	*len = utf8_seq(u);
	if (!*len) {
		*len = 1;
		return true;
	}
	/* C1 controls, U+0080..U+009F: some terminals act on them */
	return *len == 2 && u[0] == 0xC2 && u[1] < 0xA0;
}

void esc_clean(struct strbuf *out, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t len;

		if (esc_unprintable(s + i, &len))
			sb_adds(out, ESC_REPLACEMENT);
		else
			sb_add(out, s + i, len);
		i += len;
	}
}

void esc_csv(struct strbuf *out, const char *s)
{
	bool quote = strpbrk(s, ",\"\r\n") != NULL;

	if (quote)
		sb_addch(out, '"');
	while (*s) {
		size_t len;

		if (esc_unprintable(s, &len))
			sb_adds(out, ESC_REPLACEMENT);
		else if (*s == '"')
			sb_adds(out, "\"\"");
		else
			sb_add(out, s, len);
		s += len;
	}
	if (quote)
		sb_addch(out, '"');
}

void esc_xml(struct strbuf *out, const char *s)
{
	while (*s) {
		size_t len;

		if (esc_unprintable(s, &len)) {
			sb_adds(out, ESC_REPLACEMENT);
			s += len;
			continue;
		}
		if (len > 1) {
			sb_add(out, s, len);
			s += len;
			continue;
		}
		switch (*s) {
		case '&': sb_adds(out, "&amp;"); break;
		case '<': sb_adds(out, "&lt;"); break;
		case '>': sb_adds(out, "&gt;"); break;
		case '"': sb_adds(out, "&quot;"); break;
		case '\'': sb_adds(out, "&apos;"); break;
		case '\t': case '\n': sb_addch(out, ' '); break;
		case '\r':
			sb_addch(out, ' ');
			s += s[1] == '\n';	/* CRLF is one break */
			break;
		default: sb_addch(out, *s);
		}
		s++;
	}
}
