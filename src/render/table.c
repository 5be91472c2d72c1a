#include "render/table.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void table_init(struct table *t, size_t cols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
}

void table_row(struct table *t, const char *const *cells)
{
	ALLOC_GROW(t->cells, t->nr + t->cols, t->alloc);
	for (size_t i = 0; i < t->cols; i++)
		t->cells[t->nr++] = xstrdup(cells[i]);
}

/* Display width: UTF-8 code points (continuation bytes do not count). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

void table_render(const struct table *t, struct strbuf *out)
{
	size_t *w, rows;

	if (!t->cols)
		return;
	w = xcalloc(t->cols, sizeof(*w));
	rows = t->nr / t->cols;

	for (size_t i = 0; i < t->nr; i++) {
		size_t cw = width(t->cells[i]);

		if (cw > w[i % t->cols])
			w[i % t->cols] = cw;
	}
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < t->cols; c++) {
			const char *cell = t->cells[r * t->cols + c];

			sb_adds(out, cell);
			if (c + 1 < t->cols)
				for (size_t pad = width(cell); pad < w[c] + 2; pad++)
					sb_addch(out, ' ');
		}
		sb_addch(out, '\n');
	}
	free(w);
}

void table_release(struct table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
