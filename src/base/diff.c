#include "base/diff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define CONTEXT 3

struct line {
	const char *p;
	size_t len;	/* with the line break, when there is one */
};

static struct line *split(const char *s, size_t len, size_t *n)
{
	struct line *v = NULL;
	size_t alloc = 0, i = 0;

	*n = 0;
	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (s + i)) + 1 : len - i;

		ALLOC_GROW(v, *n + 1, alloc);
		v[(*n)++] = (struct line){ s + i, l };
		i += l;
	}
	return v;
}

static bool same(const struct line *x, const struct line *y)
{
	return x->len == y->len && !memcmp(x->p, y->p, x->len);
}

enum op { KEEP, DEL, ADD };

/* Myers' greedy forward search; the V row of every d is kept for the way
 * back (O(D^2) ints: a small change to a large file stays cheap). Fills
 * ops (at most n + m entries) and returns their count. */
static size_t script(const struct line *a, size_t n, const struct line *b, size_t m, enum op *ops)
{
	long max = (long)(n + m), d, k;
	long *v = xcalloc((size_t)(2 * max + 3), sizeof(*v));
	long **trace = NULL;
	size_t nr = 0, alloc = 0, count = 0;
	long x, y;

#define V(k) v[(k) + max + 1]
	for (d = 0; d <= max; d++) {
		long *row = xmalloc(sizeof(*row) * (size_t)(2 * d + 1));

		for (k = -d; k <= d; k++)
			row[k + d] = V(k);
		ALLOC_GROW(trace, nr + 1, alloc);
		trace[nr++] = row;
		for (k = -d; k <= d; k += 2) {
			x = (k == -d || (k != d && V(k - 1) < V(k + 1))) ? V(k + 1) : V(k - 1) + 1;
			y = x - k;
			while (x < (long)n && y < (long)m && same(&a[x], &b[y]))
				x++, y++;
			V(k) = x;
			if (x >= (long)n && y >= (long)m)
				goto found;
		}
	}
found:
	/* walk back from (n, m), writing the script from its end: at each d the
	 * saved row (the end of d - 1) tells which single edit led to this
	 * diagonal; the snake after it is kept lines */
	x = (long)n;
	y = (long)m;
	for (; d > 0; d--) {
		const long *row = trace[d];
		bool down;
		long pk, px, mx;

		k = x - y;
		down = k == -d || (k != d && row[k - 1 + d] < row[k + 1 + d]);
		pk = down ? k + 1 : k - 1;
		px = row[pk + d];
		mx = down ? px : px + 1;	/* where the snake starts */
		while (x > mx) {
			ops[count++] = KEEP;
			x--, y--;
		}
		ops[count++] = down ? ADD : DEL;
		x = px;
		y = px - pk;
	}
	while (x > 0) {
		ops[count++] = KEEP;
		x--, y--;
	}
#undef V
	for (size_t i = 0; i < nr; i++)
		free(trace[i]);
	free(trace);
	free(v);
	/* reverse into forward order */
	for (size_t i = 0; i < count / 2; i++) {
		enum op t = ops[i];

		ops[i] = ops[count - 1 - i];
		ops[count - 1 - i] = t;
	}
	return count;
}

static void emit(struct strbuf *out, char mark, const struct line *l)
{
	sb_addch(out, mark);
	sb_add(out, l->p, l->len);
	if (!l->len || l->p[l->len - 1] != '\n')
		sb_adds(out, "\n\\ No newline at end of file\n");
}

static void range(struct strbuf *out, size_t start, size_t count)
{
	/* GNU's unified format: ",count" only when count != 1; an empty
	 * range names the line before it */
	if (count == 1)
		sb_addf(out, "%zu", start + 1);
	else
		sb_addf(out, "%zu,%zu", count ? start + 1 : start, count);
}

size_t diff_unified(const char *a, size_t alen, const char *b, size_t blen, const char *name,
		    struct strbuf *out)
{
	size_t n, m, nops, hunks = 0, i = 0;
	struct line *la = split(a, alen, &n), *lb = split(b, blen, &m);
	enum op *ops = xmalloc(sizeof(*ops) * (n + m + 1));
	/* ai[i], bi[i]: line numbers of a and b before op i */
	size_t *ai = xmalloc(sizeof(*ai) * (n + m + 2)), *bi = xmalloc(sizeof(*bi) * (n + m + 2));

	nops = script(la, n, lb, m, ops);
	ai[0] = bi[0] = 0;
	for (size_t k = 0; k < nops; k++) {
		ai[k + 1] = ai[k] + (ops[k] != ADD);
		bi[k + 1] = bi[k] + (ops[k] != DEL);
	}
	while (i < nops) {
		size_t start, end, k;

		while (i < nops && ops[i] == KEEP)
			i++;
		if (i == nops)
			break;
		/* a hunk: changes closer than 2 * CONTEXT kept lines apart join */
		start = i > CONTEXT ? i - CONTEXT : 0;
		end = i;
		for (k = i; k < nops; k++) {
			if (ops[k] != KEEP) {
				end = k + 1;
			} else if (k - end >= 2 * CONTEXT) {
				break;
			}
		}
		end = end + CONTEXT < nops ? end + CONTEXT : nops;
		if (!hunks)
			sb_addf(out, "--- a/%s\n+++ b/%s\n", name, name);
		hunks++;
		sb_adds(out, "@@ -");
		range(out, ai[start], ai[end] - ai[start]);
		sb_adds(out, " +");
		range(out, bi[start], bi[end] - bi[start]);
		sb_adds(out, " @@\n");
		for (k = start; k < end; k++) {
			if (ops[k] == KEEP)
				emit(out, ' ', &la[ai[k]]);
			else if (ops[k] == DEL)
				emit(out, '-', &la[ai[k]]);
			else
				emit(out, '+', &lb[bi[k]]);
		}
		i = end;
	}
	free(la);
	free(lb);
	free(ops);
	free(ai);
	free(bi);
	return hunks;
}
