#include "base/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct strmap_slot {
	const char *key;	/* NULL: empty */
	uint64_t hash;
	size_t val;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static struct strmap_slot *find(const struct strmap *m, const char *key, uint64_t h)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask;

	for (;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && !strcmp(s->key, key)))
			return s;
	}
}

static void rehash_to(struct strmap *m, size_t cap)
{
	struct strmap old = *m;

	m->cap = cap;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
	free(old.slots);
}

static void rehash(struct strmap *m)
{
	rehash_to(m, m->cap ? m->cap * 2 : 16);
}

void strmap_reserve(struct strmap *m, size_t n)
{
	size_t cap = 16;

	while (cap * 3 < n * 4 + 4)
		cap *= 2;
	if (cap > m->cap)
		rehash_to(m, cap);
}

int strmap_put(struct strmap *m, const char *key, size_t val, size_t *existing)
{
	uint64_t h = hash_str(key);
	struct strmap_slot *s;

	if ((m->nr + 1) * 4 > m->cap * 3)
		rehash(m);
	s = find(m, key, h);
	if (s->key) {
		if (existing)
			*existing = s->val;
		return 0;
	}
	s->key = key;
	s->hash = h;
	s->val = val;
	m->nr++;
	return 1;
}

int strmap_get(const struct strmap *m, const char *key, size_t *val)
{
	struct strmap_slot *s;

	if (!m->cap)
		return 0;
	s = find(m, key, hash_str(key));
	if (!s->key)
		return 0;
	*val = s->val;
	return 1;
}

void strmap_release(struct strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->nr = 0;
}
