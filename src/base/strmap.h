#ifndef FAK_BASE_STRMAP_H
#define FAK_BASE_STRMAP_H
/* Open-addressing hash map from borrowed NUL-terminated keys to indices.
 * Keys are not copied: they must outlive the map. */
#include <stddef.h>

struct strmap {
	struct strmap_slot *slots;
	size_t cap, nr;
};
#define STRMAP_INIT { 0 }

/* Insert key -> val unless key is present. Returns 1 when inserted; 0 when
 * the key was already there (its value stored in *existing if non-NULL). */
int strmap_put(struct strmap *m, const char *key, size_t val, size_t *existing);
/* Size the table for n keys up front (saves rehashing a large map). */
void strmap_reserve(struct strmap *m, size_t n);
/* 1 and *val when found, else 0. */
int strmap_get(const struct strmap *m, const char *key, size_t *val);
void strmap_release(struct strmap *m);

#endif
