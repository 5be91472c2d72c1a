/* Fuzz target: the graph loader (pull reader + strict decode), then every
 * view of whatever loads: validation, next selection, JSON, text, DOT. */
#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "graph/graph.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct graph g;
	struct err e;
	struct findings f = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	json_t *doc;

	if (graph_load_buf(&g, (const char *)data, size, "fuzz", &e) < 0)
		return 0;
	graph_validate(&g, &f);
	if (!f.nr) {
		(void)graph_next(&g, NULL);
		doc = graph_to_json(&g);
		json_write_pretty(&sb, doc);
		json_decref(doc);
		render_graph_text(&sb, &g);
		render_graph_dot(&sb, &g);
	}
	findings_release(&f);
	sb_release(&sb);
	graph_release(&g);
	return 0;
}
