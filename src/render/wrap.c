#include "render/wrap.h"

#include <string.h>

#include "base/err.h"
#include "render/escape.h"

void wrap_init(struct wrap *w, struct strbuf *out, size_t indent)
{
	if (indent >= WRAP_COLUMNS / 2)
		BUG("continuation indent %zu is too wide", indent);
	*w = (struct wrap){ .out = out, .indent = indent, .fresh = true };
}

size_t wrap_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

size_t wrap_prefix(const char *s, size_t cols)
{
	size_t i = 0;

	while (s[i] && cols) {
		cols--;
		do
			i++;
		while (((unsigned char)s[i] & 0xC0) == 0x80);
	}
	return i;
}

static void line_break(struct wrap *w)
{
	sb_addch(w->out, '\n');
	w->col = 0;
	w->fresh = true;
	w->pending = true;
}

static void indent(struct wrap *w)
{
	if (!w->pending)
		return;
	for (; w->col < w->indent; w->col++)
		sb_addch(w->out, ' ');
	w->pending = false;
}

void wrap_put(struct wrap *w, const char *sep, const char *token)
{
	size_t tw = wrap_width(token), sw = wrap_width(sep);

	indent(w);
	if (!w->fresh && w->col > w->indent && w->col + sw + tw > WRAP_COLUMNS) {
		line_break(w);
		indent(w);
	}
	if (!w->fresh) {
		sb_adds(w->out, sep);
		w->col += sw;
	}
	w->fresh = false;
	while (w->col + tw > WRAP_COLUMNS) {
		size_t room = w->col < WRAP_COLUMNS ? WRAP_COLUMNS - w->col : 0,
		       n = wrap_prefix(token, room);

		sb_add(w->out, token, n);
		token += n;
		tw -= room;
		line_break(w);
		indent(w);
		w->fresh = false;
	}
	sb_adds(w->out, token);
	w->col += tw;
}

void wrap_words(struct wrap *w, const char *text)
{
	struct strbuf word = STRBUF_INIT;

	while (*text) {
		size_t n = strcspn(text, " \t\r\n");

		if (n) {
			sb_reset(&word);
			esc_clean(&word, text, n);
			wrap_put(w, " ", word.buf);
			text += n;
			continue;
		}
		if (*text == '\r' || *text == '\n') {
			text += text[0] == '\r' && text[1] == '\n';
			line_break(w);
		}
		text++;
	}
	sb_release(&word);
}

void wrap_end(struct wrap *w)
{
	sb_addch(w->out, '\n');
	w->col = 0;
	w->fresh = true;
	w->pending = false;
}

void wrap_line(struct strbuf *out, const char *label, size_t indent, const char *text)
{
	struct wrap w;

	wrap_init(&w, out, indent);
	if (*label)
		wrap_put(&w, "", label);
	wrap_words(&w, text);
	wrap_end(&w);
}
