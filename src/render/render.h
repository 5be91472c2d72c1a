#ifndef FAK_RENDER_RENDER_H
#define FAK_RENDER_RENDER_H
/* Renderers turn computed values into bytes. They compute nothing and
 * never fail; escaping for each format lives here only. */
#include <jansson.h>

#include "base/strbuf.h"
#include "graph/graph.h"

/* Human readout of the graph (README, fak native-performance: envelopes,
 * rungs, features, gaps, levers; laid out in blocks so that no line passes
 * 100 columns). */
void render_graph_text(struct strbuf *out, const struct graph *g);
/* --next text; l NULL prints the "none" line. */
void render_next_text(struct strbuf *out, const struct lever *l);
/* The experiment sentence of a selected lever (static text). */
const char *render_next_experiment(const struct lever *l);
/* Graphviz DOT, one cluster per envelope (README, --dot). */
void render_graph_dot(struct strbuf *out, const struct graph *g);

/* Human text of a comparison document (fak-native-performance-comparison/v2,
 * borrowed): envelope, lever and revisions, one line per metric, a legend,
 * then per metric the method when it is not the plain exact one and the
 * repetitions a shift of the observed size needs. No line passes 100
 * columns unless a single id is longer. */
void render_comparison_text(struct strbuf *out, const json_t *doc);
/* One benchstat-style line for a metric object of that document
 * (statistics.tokens_per_second, statistics.end_to_end_milliseconds):
 *   tok/s  97.00 ±1%  →  251.0 ±2%  +158.7% [+150.1%, +166.0%] 90% CI  p=0.100  n=3+3  faster
 * medians with noise, shift and interval in percent of the baseline median,
 * level, p, repetitions, and the verdict (`~`: no detectable change). */
void render_metric_line(struct strbuf *out, const json_t *metric);
/* The comparison's gpu_clocks: one arm's figure for a key of
 * render_gpu_keys (SM clock, memory clock, clock-event reasons) as text:
 * "1410 MHz [1005, 1410]" (mean [min, max]), the arm's status when nothing
 * was observed, or the reasons ("none"). */
extern const char *const render_gpu_keys[3];
void render_gpu_arm(struct strbuf *out, const json_t *arm, const char *key);
/* "revisions  BASE (baseline) → CAND (candidate)", wrapped; base_label
 * names the first arm ("(baseline)", "(last accepted)"). */
/* "decision  faster: +12.3% [...] ..." from a decision member (its
 * summary), wrapped under the label. */
void render_decision_line(struct strbuf *out, const json_t *decision);
void render_revisions(struct strbuf *out, const char *base, const char *base_label,
		      const char *cand);

#endif
