#include "base/findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

void findings_add_owned(struct findings *f, char *s)
{
	ALLOC_GROW(f->items, f->nr + 1, f->alloc);
	f->items[f->nr++] = s;
}

void findings_addf(struct findings *f, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	findings_add_owned(f, sb_detach(&sb, NULL));
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void findings_sort(struct findings *f)
{
	if (f->nr > 1)
		qsort(f->items, f->nr, sizeof(*f->items), cmp);
}

int findings_contain(const struct findings *f, const char *needle)
{
	for (size_t i = 0; i < f->nr; i++)
		if (strstr(f->items[i], needle))
			return 1;
	return 0;
}

void findings_release(struct findings *f)
{
	for (size_t i = 0; i < f->nr; i++)
		free(f->items[i]);
	free(f->items);
	f->items = NULL;
	f->nr = f->alloc = 0;
}
