/* Graphviz DOT: one cluster per envelope, dependency edges, conflict edges
 * drawn once (dashed, red, both directions). Escaping for DOT lives here. */
#include <string.h>

#include "render/render.h"

/* DOT double-quoted string: `"` and `\` escaped, newlines as \n. */
static void q(struct strbuf *out, const char *s)
{
	sb_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addch(out, '\\');
		if (*s == '\n') {
			sb_adds(out, "\\n");
			continue;
		}
		if (*s == '\r')
			continue;
		sb_addch(out, *s);
	}
	sb_addch(out, '"');
}

/* Cluster names must be DOT identifiers: anything but [A-Za-z0-9_] -> _. */
static void cluster_id(struct strbuf *out, const char *s)
{
	sb_adds(out, "cluster_");
	for (; *s; s++) {
		char c = *s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_';

		sb_addch(out, ok ? c : '_');
	}
}

void render_graph_dot(struct strbuf *out, const struct graph *g)
{
	struct strbuf tmp = STRBUF_INIT;

	sb_adds(out, "digraph native_performance {\n  rankdir=LR;\n");
	for (size_t e = 0; e < g->nr_envelopes; e++) {
		const struct envelope *v = &g->envelopes[e];

		sb_adds(out, "  subgraph ");
		cluster_id(out, v->id);
		sb_adds(out, " {\n    label=");
		sb_reset(&tmp);
		sb_addf(&tmp, "%s | %s | fak-native", v->id, v->backend);
		q(out, tmp.buf);
		sb_adds(out, ";\n");
		for (size_t i = 0; i < g->nr_levers; i++) {
			const struct lever *l = &g->levers[i];

			if (strcmp(l->app.envelope_id, v->id))
				continue;
			sb_adds(out, "    ");
			q(out, l->id);
			sb_adds(out, " [label=");
			sb_reset(&tmp);
			/* a real line break; q() writes it as DOT's \n escape, so Graphviz
			 * breaks the label (README, "--dot"), not a literal "\n" */
			sb_addf(&tmp, "%s\n%s%s", l->id, l->status, l->enabled ? " / enabled" : "");
			q(out, tmp.buf);
			sb_adds(out, "];\n");
		}
		sb_adds(out, "  }\n");
	}
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];

		for (size_t j = 0; j < l->deps.n; j++) {
			sb_adds(out, "  ");
			q(out, l->deps.v[j]);
			sb_adds(out, " -> ");
			q(out, l->id);
			sb_adds(out, " [label=\"depends\"];\n");
		}
		for (size_t j = 0; j < l->conflicts.n; j++) {
			if (strcmp(l->id, l->conflicts.v[j]) >= 0)
				continue;
			sb_adds(out, "  ");
			q(out, l->id);
			sb_adds(out, " -> ");
			q(out, l->conflicts.v[j]);
			sb_adds(out, " [dir=both,style=dashed,color=red,label=\"conflicts\"];\n");
		}
	}
	sb_adds(out, "}\n");
	sb_release(&tmp);
}
