/* Strict decoding of a graph document into struct graph with the pull
 * reader: no JSON tree is built, strings are decoded in place in the
 * graph's own copy of the input and borrowed from there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/findings.h"
#include "base/jfields.h"
#include "base/jsonpull.h"
#include "base/xalloc.h"
#include "graph/fields.h"
#include "graph/graph.h"

extern const char embedded_native_performance_graph_json[];
extern const size_t embedded_native_performance_graph_json_len;

/* The criteria, a map from envelope id to criterion. */
static int criteria(struct jpull *p, const struct jpath *at, void *rec)
{
	struct graph *g = rec;
	size_t alloc = 0;
	const char *key;
	int rc;

	if ((rc = jp_object(p, at)) <= 0)
		return rc;
	while ((rc = jp_any_member(p, g->nr_criteria, &key)) > 0) {
		struct jpath kp = JP_KEY(at, key);

		for (size_t i = 0; i < g->nr_criteria; i++)
			if (!strcmp(g->criteria[i].envelope_id, key))
				return jpath_err(p->e, &kp, "duplicate field");
		ALLOC_GROW(g->criteria, g->nr_criteria + 1, alloc);
		memset(&g->criteria[g->nr_criteria], 0, sizeof(*g->criteria));
		g->criteria[g->nr_criteria].envelope_id = key;
		g->nr_criteria++;
		TRY(jf_pull(graph_criterion_fields, p, &kp, &g->criteria[g->nr_criteria - 1],
			    NULL));
	}
	return rc;
}

/* The document; members 1..4 are the legacy view. Arrays are stored even
 * when decoding fails half way, so that graph_release frees what was built. */
static const struct jfield graph_fields[] = {
	JF(JF_STR, struct graph, schema, JF_REQ),
	{ .name = "envelope", .kind = JF_OBJ, .need = JF_OPT,
	  .offset = offsetof(struct graph, envelope), .sub = graph_legacy_envelope_fields,
	  .init = graph_legacy_envelope_init },
	JF_SUB("comparison", struct graph, comparison, graph_throughput_fields, JF_OPT, 0, 0),
	JF_ARRAY_OF("rungs", struct graph, rungs, nr_rungs, graph_rung_fields, JF_OPT, NULL),
	JF_ARRAY_OF("features", struct graph, features, nr_features, graph_feature_fields, JF_OPT,
		    NULL),
	JF_ARRAY_OF("envelopes", struct graph, envelopes, nr_envelopes, graph_envelope_fields,
		    JF_REQ, graph_envelope_init),
	JF_ARRAY_OF("levers", struct graph, levers, nr_levers, graph_lever_fields, JF_REQ, NULL),
	JF_PULLED("criteria", JF_REQ, criteria),
	JF_END,
};

/* The legacy view (members 1..4 of graph_keys: envelope, comparison,
 * rungs, features) is all there or absent: a graph written by fak for a new
 * engine has none of it (docs/graph.md, "Top level"). */
#define LEGACY_MEMBERS (0xfu << 1)

static int legacy_view(struct graph *g, uint64_t seen, struct err *e)
{
	uint64_t legacy = seen & LEGACY_MEMBERS;

	if (legacy == LEGACY_MEMBERS) {
		g->has_legacy = true;
		return 0;
	}
	if (!legacy)
		return 0;
	for (size_t i = 1; i <= 4; i++)
		if (!(legacy & ((uint64_t)1 << i)))
			return err_set(e, "%s: missing required field: the legacy members "
				       "envelope, comparison, rungs and features go together; "
				       "give all four or none", graph_fields[i].name);
	BUG("legacy members %#llx", (unsigned long long)legacy);
}

/* Every problem of the decoding in e: the one as it is, several one a line
 * under their count (as many as the message holds). */
static void problems_message(struct findings *problems, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (e->msg[0])	/* the problem that stopped the reading */
		findings_addf(problems, "%s", e->msg);
	if (problems->nr == 1) {
		err_set(e, "%s", problems->items[0]);
		return;
	}
	sb_addf(&sb, "%zu problems:", problems->nr);
	for (i = 0; i < problems->nr; i++) {
		if (sb.len + strlen(problems->items[i]) + 64 > sizeof(e->msg))
			break;
		sb_addf(&sb, "\n  %s", problems->items[i]);
	}
	if (i < problems->nr)
		sb_addf(&sb, "\n  and %zu more", problems->nr - i);
	err_set(e, "%s", sb.buf);
	sb_release(&sb);
}

/* Takes ownership of buf (malloc'd, NUL at buf[len]). */
static int load_owned(struct graph *g, char *buf, size_t len, const char *name, struct err *e)
{
	struct jpull p;
	struct findings problems = FINDINGS_INIT;
	uint64_t seen = 0;

	memset(g, 0, sizeof(*g));
	g->buf = buf;
	e->msg[0] = '\0';
	jp_init(&p, buf, len, e);
	/* every problem of the schema in one run, not one per run */
	jp_collect(&p, &problems);
	if (jf_pull(graph_fields, &p, NULL, g, &seen) < 0 || jp_finish(&p) < 0 || problems.nr ||
	    legacy_view(g, seen, e) < 0) {
		problems_message(&problems, e);
		findings_release(&problems);
		/* arrays may be partly filled: release what was built */
		graph_release(g);
		return err_prefix(e, "cannot load graph '%s'", name);
	}
	/* first occurrence wins; duplicates are reported by graph_validate */
	strmap_reserve(&g->lever_ids, g->nr_levers);
	for (size_t i = 0; i < g->nr_levers; i++)
		strmap_put(&g->lever_ids, g->levers[i].id, i, NULL);
	for (size_t i = 0; i < g->nr_envelopes; i++)
		strmap_put(&g->envelope_ids, g->envelopes[i].id, i, NULL);
	for (size_t i = 0; i < g->nr_rungs; i++)
		strmap_put(&g->rung_ids, g->rungs[i].id, i, NULL);
	return 0;
}

int graph_load_buf(struct graph *g, const char *buf, size_t len, const char *name, struct err *e)
{
	return load_owned(g, xstrndup(buf, len), len, name, e);
}

int graph_load_default(struct graph *g, struct err *e)
{
	return graph_load_buf(g, embedded_native_performance_graph_json,
			      embedded_native_performance_graph_json_len,
			      "embedded default graph", e);
}

int graph_load_file(struct graph *g, const char *path, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *buf;

	memset(g, 0, sizeof(*g));
	if (file_read(path, GRAPH_MAX_BYTES, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	buf = sb_detach(&sb, &len);
	return load_owned(g, buf, len, path, e);
}

void graph_release(struct graph *g)
{
	for (size_t i = 0; i < g->nr_rungs; i++)
		free(g->rungs[i].deps.v);
	for (size_t i = 0; i < g->nr_levers; i++) {
		free(g->levers[i].deps.v);
		free(g->levers[i].conflicts.v);
		free(g->levers[i].requirement.metrics);
		free(g->levers[i].requirement.engines.v);
	}
	for (size_t i = 0; i < g->nr_envelopes; i++)
		free(g->envelopes[i].required_evidence.v);
	free(g->rungs);
	free(g->features);
	free(g->envelopes);
	free(g->levers);
	for (size_t i = 0; i < g->nr_criteria; i++)
		free(g->criteria[i].gpu_policy.disqualifying_reasons.v);
	free(g->criteria);
	strmap_release(&g->lever_ids);
	strmap_release(&g->envelope_ids);
	strmap_release(&g->rung_ids);
	free(g->buf);
	memset(g, 0, sizeof(*g));
}
