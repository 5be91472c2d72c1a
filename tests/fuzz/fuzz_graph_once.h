/* For fuzz targets that check documents against the committed graph: the
 * embedded default graph, loaded once per process (targets are one file
 * each, so a static function here is defined once per binary). */
#ifndef FAK_FUZZ_GRAPH_ONCE_H
#define FAK_FUZZ_GRAPH_ONCE_H
#include <stdlib.h>

#include "graph/graph.h"

static const struct graph *default_graph(void)
{
	static struct graph g;
	static int loaded;
	struct err e;

	if (!loaded) {
		if (graph_load_default(&g, &e) < 0)
			abort();
		loaded = 1;
	}
	return &g;
}

#endif
