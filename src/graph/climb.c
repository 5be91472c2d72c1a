/* The hill climb of each envelope in dependency order: what the climb
 * chart draws. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "graph/graph.h"

/* Items i < n with keep[i], each after every item it depends on, otherwise
 * in graph order: a depth-first walk in graph order that emits an item once
 * its dependencies are out (post-order). Iterative, so a long chain needs no
 * deep stack. The graph is valid, so there is no cycle. Returns the count
 * written to out. */
static size_t dependency_order(size_t n, const bool *keep,
			       const struct strlist *(*deps_of)(const void *, size_t),
			       const void *items, const struct strmap *ids, size_t *out)
{
	unsigned char *state = xcalloc(n + 1, 1);	/* 0 new, 1 on the stack, 2 emitted */
	size_t *stack = xmalloc(xmul(n + 1, sizeof(size_t))),
	       *next = xcalloc(n + 1, sizeof(size_t));
	size_t nr = 0;

	for (size_t root = 0; root < n; root++) {
		size_t top = 0;

		if (!keep[root] || state[root])
			continue;
		stack[top++] = root;
		state[root] = 1;
		while (top) {
			size_t i = stack[top - 1], d;
			const struct strlist *deps = deps_of(items, i);

			if (next[i] < deps->n) {
				if (strmap_get(ids, deps->v[next[i]++], &d) && d < n && keep[d] &&
				    !state[d]) {
					state[d] = 1;
					stack[top++] = d;
				}
				continue;
			}
			state[i] = 2;
			out[nr++] = i;
			top--;
		}
	}
	free(state);
	free(stack);
	free(next);
	return nr;
}

static const struct strlist *lever_deps(const void *items, size_t i)
{
	return &((const struct lever *)items)[i].deps;
}

static const struct strlist *rung_deps(const void *items, size_t i)
{
	return &((const struct rung *)items)[i].deps;
}

struct graph_climb *graph_climbs(const struct graph *g)
{
	struct graph_climb *c = xcalloc(g->nr_envelopes + 1, sizeof(*c));
	size_t most = g->nr_levers > g->nr_rungs ? g->nr_levers : g->nr_rungs;
	size_t *order = xmalloc(xmul(most + 1, sizeof(size_t)));
	bool *keep = xcalloc(most + 1, sizeof(bool));

	for (size_t k = 0; k < g->nr_envelopes; k++) {
		const struct envelope *v = &g->envelopes[k];
		size_t n;

		c[k].env = v;
		c[k].crit = graph_criterion(g, v->id);
		for (size_t i = 0; i < g->nr_levers; i++)
			keep[i] = !strcmp(g->levers[i].app.envelope_id, v->id);
		n = dependency_order(g->nr_levers, keep, lever_deps, g->levers, &g->lever_ids,
				     order);
		c[k].levers = xcalloc(n + 1, sizeof(const struct lever *));
		for (size_t i = 0; i < n; i++)
			c[k].levers[i] = &g->levers[order[i]];
		c[k].nr_levers = n;
		if (!g->has_legacy || strcmp(v->id, g->envelope.id))
			continue;
		/* the legacy rungs and comparison belong to the legacy envelope */
		c[k].comparison = &g->comparison;
		for (size_t i = 0; i < g->nr_rungs; i++)
			keep[i] = true;
		n = dependency_order(g->nr_rungs, keep, rung_deps, g->rungs, &g->rung_ids, order);
		c[k].rungs = xcalloc(n + 1, sizeof(const struct rung *));
		for (size_t i = 0; i < n; i++)
			c[k].rungs[i] = &g->rungs[order[i]];
		c[k].nr_rungs = n;
	}
	free(order);
	free(keep);
	return c;
}

void graph_climbs_release(struct graph_climb *c, size_t n)
{
	for (size_t k = 0; c && k < n; k++) {
		free((void *)(uintptr_t)c[k].levers);
		free((void *)(uintptr_t)c[k].rungs);
	}
	free(c);
}

bool graph_lever_witnessed_medians(const struct lever *l, double *base, double *cand)
{
	const char *s = l->has_witnessed ? l->witnessed.summary : NULL;
	const char *colon = s ? strchr(s, ':') : NULL;
	const char *m = colon ? strstr(colon, ": median ") : NULL;
	double b, c;
	int end = 0;

	/* "VERDICT: median" or "VERDICT: no effect beyond ±T%: median" */
	if (!m || sscanf(m, ": median %lf -> %lf tok/s%n", &b, &c, &end) != 2 || !end)
		return false;
	if (!isfinite(b) || !isfinite(c) || b < 0 || c < 0)
		return false;
	*base = b;
	*cand = c;
	return true;
}
