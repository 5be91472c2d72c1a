#ifndef FAK_RENDER_CHART_H
#define FAK_RENDER_CHART_H
/* Charts as SVG, drawn by fak itself (no plotting runtime): every text in
 * them is escaped data, and the same input gives the same bytes.
 * docs/reports.md shows both layouts. */
#include <jansson.h>
#include <stdbool.h>

#include "base/strbuf.h"
#include "graph/graph.h"
#include "serve/record.h"

/* The hill climb: one panel per envelope (climbs: g->nr_envelopes of them,
 * from graph_climbs), each with its own tok/s axis, never one axis for two
 * envelopes and never ranked. A panel draws its rungs in dependency order,
 * each expected range as a bar labelled hypothesis and each witnessed value
 * as a point labelled with its source, the criterion's floor and the
 * comparison point as lines; then its levers in dependency order with
 * their state, expected hypothesis and witness (the graph states a lever's
 * effect in words, not numbers, so levers are rows of text). */
void render_chart_climb(struct strbuf *out, const struct graph *g,
			const struct graph_climb *climbs);

/* The runs of a comparison (fak-native-performance-comparison/v2 or v3,
 * borrowed): every repetition's tok/s of both arms in the order they ran
 * (in repetition order per arm when the receipts record no order) on an
 * axis that starts at zero or above, each arm's median as a line (its value
 * in the panel's head), and beside it the Hodges-Lehmann shift with its
 * interval against the practical threshold, the comparison's decision with
 * its interval, and the gate's class: gate is the gate verdict of the same
 * receipts (borrowed), or NULL when no gate ran ("gate: not run"). aa: the
 * arms ran the same thing (receipt_same_arms): the chart is titled A/A, a
 * calibration, never A/B. No label overlaps a point or another label. */
void render_chart_runs(struct strbuf *out, const json_t *comparison, const json_t *gate,
		       bool aa);

/* The latency chart of a serving run (fak bench serve --chart): the
 * empirical CDFs of TTFT, ITL and E2EL in ms (l: the sorted latencies of
 * the completed requests, serve_latencies_of), on an x axis in decades when
 * they span more than a factor 20, with each one's p50, p95 and p99 (from
 * the summary) marked on its curve and listed beside the panel; the title
 * counts the failed requests, the panel names each failure and states the
 * schedule's verdict (kept, fell behind, or closed loop). */
void render_chart_serve(struct strbuf *out, const struct serve_summary *sum,
			const struct serve_latencies *l, const char *trace_sha256);

#endif
