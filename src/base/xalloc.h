#ifndef FAK_BASE_XALLOC_H
#define FAK_BASE_XALLOC_H
/* Allocation that never returns NULL: out of memory aborts with a message. */
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Caller frees. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Caller frees; printf-style. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow array p (of nr used, alloc capacity) to hold at least n elements. */
#define ALLOC_GROW(p, n, alloc)                                                   \
	do {                                                                      \
		if ((n) > (alloc)) {                                              \
			size_t grow_ = (alloc) < 8 ? 8 : (alloc) * 2;              \
			if (grow_ < (n))                                          \
				grow_ = (n);                                      \
			(p) = xrealloc((p), xmul(grow_, sizeof(*(p))));           \
			(alloc) = grow_;                                          \
		}                                                                 \
	} while (0)

/* a*b, aborting on overflow. */
size_t xmul(size_t a, size_t b);

#endif
