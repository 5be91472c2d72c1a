/* Fuzz target: the escaping and wrapping of data text (render/escape.c,
 * render/wrap.c, the Markdown cell of render/frontdoor_md.c). For any text:
 * wrapped lines fit 100 columns with no trailing space and no control
 * character; a CSV field reads back as the text with its unprintable
 * characters shown as U+FFFD (esc_clean), and holds no control character
 * other than tab and line breaks; XML text holds no markup
 * character and no control character; a Markdown cell holds no unescaped
 * pipe and no line break. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "render/escape.h"
#include "render/frontdoor_md.h"
#include "render/wrap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void wrapped_lines_fit(const char *s)
{
	const char *line = s;

	for (const char *p = s;; p++) {
		if (*p == '\n' || !*p) {
			char *l = xstrndup(line, (size_t)(p - line));

			if (wrap_width(l) > WRAP_COLUMNS || (p > line && p[-1] == ' '))
				abort();
			free(l);
			if (!*p)
				return;
			line = p + 1;
		} else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			abort();
		}
	}
}

/* The CSV field read back by the RFC 4180 rules. */
static void csv_reads_back(const char *s, const char *field)
{
	struct strbuf back = STRBUF_INIT;

	if (field[0] != '"') {
		if (strcmp(field, s) || strpbrk(field, ",\"\r\n"))
			abort();
		return;
	}
	for (const char *p = field + 1; *p; p++) {
		if (*p == '"') {
			if (p[1] == '"') {
				sb_addch(&back, '"');
				p++;
				continue;
			}
			if (p[1])
				abort();	/* a quote closes only at the end */
			break;
		}
		sb_addch(&back, *p);
	}
	if (strcmp(sb_str(&back), s))
		abort();
	sb_release(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);	/* up to the first NUL */
	struct strbuf out = STRBUF_INIT;

	wrap_line(&out, "label:", size % 40, s);
	wrapped_lines_fit(out.buf);
	sb_reset(&out);
	esc_csv(&out, s);
	{
		struct strbuf shown = STRBUF_INIT;

		esc_clean(&shown, s, strlen(s));
		csv_reads_back(sb_str(&shown), sb_str(&out));
		sb_release(&shown);
	}
	for (size_t i = 0; i < out.len; i++) {
		size_t len;

		if (esc_unprintable(out.buf + i, &len))
			abort();
		i += len - 1;
	}
	sb_reset(&out);
	esc_xml(&out, s);
	for (size_t i = 0; i < out.len; i++)
		if (strchr("<>\"'\t\r\n", out.buf[i]) || (unsigned char)out.buf[i] < 0x20 ||
		    out.buf[i] == 0x7f)
			abort();
	sb_reset(&out);
	frontdoor_md_cell(&out, s);
	for (size_t i = 0; i < out.len; i++)
		if (out.buf[i] == '\n' || out.buf[i] == '\r' ||
		    (out.buf[i] == '|' && (i == 0 || out.buf[i - 1] != '\\')))
			abort();
	sb_release(&out);
	free(s);
	return 0;
}
