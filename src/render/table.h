#ifndef FAK_RENDER_TABLE_H
#define FAK_RENDER_TABLE_H
/* Column-aligned plain-text tables: each column but the last is padded to
 * its widest cell plus two spaces; the last is not padded, so no line has
 * trailing spaces. Cells are copied. */
#include <stddef.h>

#include "base/strbuf.h"

struct table {
	size_t cols;
	char **cells;	/* row-major, owned */
	size_t nr, alloc;
};

void table_init(struct table *t, size_t cols);
/* Appends one row of t->cols cells. */
void table_row(struct table *t, const char *const *cells);
void table_render(const struct table *t, struct strbuf *out);
void table_release(struct table *t);

#endif
