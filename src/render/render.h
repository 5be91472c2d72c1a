#ifndef FAK_RENDER_RENDER_H
#define FAK_RENDER_RENDER_H
/* Renderers turn computed values into bytes. They compute nothing and
 * never fail; escaping for each format lives here only. */
#include "base/strbuf.h"
#include "graph/graph.h"

/* Human readout of the graph (reference graph-cli-frontdoor §5.4). */
void render_graph_text(struct strbuf *out, const struct graph *g);
/* --next text; l NULL prints the "none" line. */
void render_next_text(struct strbuf *out, const struct lever *l);
/* Graphviz DOT, one cluster per envelope (§4). */
void render_graph_dot(struct strbuf *out, const struct graph *g);

#endif
