#ifndef FAK_BASE_FINDINGS_H
#define FAK_BASE_FINDINGS_H
/* A list of validation findings: validators collect every problem, then the
 * list is sorted byte-wise so the output does not depend on rule order. */
#include <stddef.h>

struct findings {
	char **items;	/* owned */
	size_t nr, alloc;
};
#define FINDINGS_INIT { 0 }

void findings_addf(struct findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes ownership of s (malloc'd). */
void findings_add_owned(struct findings *f, char *s);
void findings_sort(struct findings *f);
/* 1 if some finding contains needle. */
int findings_contain(const struct findings *f, const char *needle);
void findings_release(struct findings *f);

#endif
