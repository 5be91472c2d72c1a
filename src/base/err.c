#include "base/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char ctx[512], old[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx, sizeof(ctx), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	{
		size_t c = strlen(ctx), o = strnlen(old, sizeof(old) - 1), cap = sizeof(e->msg) - 1;
		size_t n = 0;

		memcpy(e->msg, ctx, c);	/* ctx < 512 < cap */
		n = c;
		memcpy(e->msg + n, ": ", 2);
		n += 2;
		if (o > cap - n)
			o = cap - n;
		memcpy(e->msg + n, old, o);
		e->msg[n + o] = '\0';
	}
	return -1;
}

int err_errno(struct err *e, int errnum, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(e, "%s: %s", what, strerror(errnum));
}

void bug_report(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fak: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
