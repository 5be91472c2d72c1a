/* Human readout of the evidence graph and of the --next selection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xalloc.h"
#include "render/render.h"
#include "render/wrap.h"

static void join(struct strbuf *sb, const struct strlist *l)
{
	if (!l->n) {
		sb_addch(sb, '-');
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			sb_addch(sb, ',');
		sb_adds(sb, l->v[i]);
	}
}

static void num(struct strbuf *sb, double d)
{
	char buf[JSON_NUMBER_MAX];

	json_format_double(buf, d);
	sb_adds(sb, buf);
}

static const char *mark(bool on)
{
	return on ? "[x]" : "[ ]";
}

/* Continuation indent of list items and of their field lines. */
#define ITEM_INDENT 4

/* One "label: text" line of data, wrapped. */
static void field(struct strbuf *out, const char *label, size_t indent, const struct strbuf *text)
{
	wrap_line(out, label, indent, sb_str(text));
}

/* Each envelope as a block of fields; nothing is combined or ranked across
 * envelopes. */
static void envelope_blocks(struct strbuf *out, const struct graph *g)
{
	static const char *const fields[] = {
		"MODEL", "REVISION", "ARTIFACT", "QUANT", "HARDWARE", "MEMORY", "APPLICABILITY",
		"EXECUTION", "WORKLOAD", "METRIC", "COMPARABILITY",
	};
	struct strbuf c = STRBUF_INIT;
	char label[32], temp[JSON_NUMBER_MAX];

	sb_adds(out, "Pinned envelopes (separate curves: never combined, ranked, or drawn as "
		     "one):\n");
	for (size_t i = 0; i < g->nr_envelopes; i++) {
		const struct envelope *v = &g->envelopes[i];
		const char *plat = graph_envelope_platform(v);

		wrap_line(out, "", ITEM_INDENT, v->id);
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			sb_reset(&c);
			switch (f) {
			case 0: sb_adds(&c, v->model); break;
			case 1: sb_adds(&c, v->model_revision); break;
			case 2:
				sb_adds(&c, v->artifact_sha256 ? v->artifact_sha256
							 : "not pinned; the receipt carries it");
				break;
			case 3: sb_adds(&c, v->quantization); break;
			case 4: sb_adds(&c, v->hardware); break;
			case 5:
				if (v->memory_gib)
					sb_addf(&c, "%lld GiB", v->memory_gib);
				else
					sb_adds(&c, "not pinned; the receipt carries it");
				break;
			case 6: sb_addf(&c, "%s, %s", plat ? plat : "?", v->backend); break;
			case 7:
				sb_addf(&c, "engine=%s, backend=%s, forward_path=%s", v->engine,
					v->backend, v->forward_path);
				break;
			case 8:
				json_format_double(temp, v->temperature);
				sb_addf(&c, "temperature %s, P=%lld/T=%lld, %lld warm-up%s, %lld "
					    "repetitions",
					temp, v->prompt_tokens, v->decode_tokens, v->warmups,
					v->warmups == 1 ? "" : "s", v->repetitions);
				break;
			case 9: sb_adds(&c, v->throughput_metric); break;
			default: sb_adds(&c, v->comparability_rule); break;
			}
			snprintf(label, sizeof(label), "  %-14s", fields[f]);
			field(out, label, 17, &c);
		}
	}
	sb_release(&c);
}

/* The legacy rungs, one item each: state and dependencies, then the
 * expected range (a hypothesis) and the witnessed figure. */
static void rung_items(struct strbuf *out, const struct graph *g)
{
	struct strbuf t = STRBUF_INIT;

	for (size_t i = 0; i < g->nr_rungs; i++) {
		const struct rung *r = &g->rungs[i];

		sb_reset(&t);
		sb_addf(&t, "%s %s (%s; deps=", mark(r->enabled), r->id, r->status);
		join(&t, &r->deps);
		sb_addf(&t, "; next #%lld)", r->next_issue.number);
		field(out, "-", ITEM_INDENT, &t);
		sb_reset(&t);
		num(&t, r->expected.floor);
		sb_adds(&t, "..");
		num(&t, r->expected.roof);
		sb_addf(&t, " tok/s [%s]", r->expected.classification);
		field(out, "  expected:", ITEM_INDENT, &t);
		sb_reset(&t);
		if (r->has_witnessed) {
			num(&t, r->witnessed.tokens_per_second);
			sb_addf(&t, " tok/s [%s/%s]", r->witnessed.classification,
				r->witnessed.comparability);
		} else {
			sb_adds(&t, "pending");
		}
		field(out, "  witnessed:", ITEM_INDENT, &t);
	}
	sb_release(&t);
}

static void levers_of(struct strbuf *out, const struct graph *g, const struct envelope *v)
{
	struct strbuf t = STRBUF_INIT;

	sb_addf(&t, "%s: %s | %s %s | P%lld/T%lld | %s/%s", v->id, v->model, v->quantization,
		v->hardware, v->prompt_tokens, v->decode_tokens, v->engine, v->backend);
	field(out, "Envelope", ITEM_INDENT, &t);
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];

		if (strcmp(l->app.envelope_id, v->id))
			continue;
		sb_reset(&t);
		sb_addf(&t, "%s %s (%s; deps=", mark(l->enabled), l->id, l->status);
		join(&t, &l->deps);
		sb_adds(&t, "; conflicts=");
		join(&t, &l->conflicts);
		sb_addf(&t, "; issue=#%lld)", l->owner.number);
		field(out, "-", ITEM_INDENT, &t);
		sb_reset(&t);
		sb_addf(&t, "[%s]: %s (source: %s)", l->expected.classification,
			l->expected.summary, l->expected.provenance);
		field(out, "  expected", ITEM_INDENT, &t);
		sb_reset(&t);
		sb_adds(&t, l->has_witnessed ? l->witnessed.summary : "pending");
		field(out, "  witnessed:", ITEM_INDENT, &t);
		sb_reset(&t);
		sb_adds(&t, l->next_witness);
		field(out, "  next witness:", ITEM_INDENT, &t);
	}
	sb_release(&t);
}

/* The legacy view's header lines: the primary envelope and the comparison point. */
static void legacy_header(struct strbuf *out, const struct graph *g)
{
	const struct envelope *v = &g->envelope;
	struct strbuf t = STRBUF_INIT;

	sb_addf(&t, "%s | %s %s | %s, %lld GiB | P%lld/T%lld | %s/%s", v->model, v->quantization,
		v->backend, v->hardware, v->memory_gib, v->prompt_tokens, v->decode_tokens,
		v->engine, v->forward_path);
	field(out, "Envelope:", ITEM_INDENT, &t);
	sb_reset(&t);
	num(&t, g->comparison.tokens_per_second);
	sb_addf(&t, " tok/s | %s | %s/%s", g->comparison.engine, g->comparison.classification,
		g->comparison.comparability);
	field(out, "Comparison:", ITEM_INDENT, &t);
	sb_release(&t);
}

/* The legacy view's rungs, features and gaps. */
static void legacy_stack(struct strbuf *out, const struct graph *g)
{
	struct strbuf t = STRBUF_INIT;

	sb_adds(out, "Rungs:\n");
	rung_items(out, g);
	sb_adds(out, "Feature stack:\n");
	for (size_t i = 0; i < g->nr_features; i++) {
		const struct feature *f = &g->features[i];

		sb_reset(&t);
		sb_addf(&t, "%s %s (%s; rung=%s): %s", mark(f->enabled), f->id, f->status,
			f->rung_id, f->observable);
		field(out, "-", ITEM_INDENT, &t);
	}
	sb_adds(out, "Gaps:\n");
	for (size_t i = 0; i < g->nr_rungs; i++) {
		sb_reset(&t);
		sb_addf(&t, "%s: %s (next #%lld)", g->rungs[i].id, g->rungs[i].gap,
			g->rungs[i].next_issue.number);
		field(out, "-", ITEM_INDENT, &t);
	}
	sb_release(&t);
}

/* A graph written by fak for a new engine has no legacy view: its readout
 * is the envelopes and their levers. */
void render_graph_text(struct strbuf *out, const struct graph *g)
{
	sb_adds(out, "NATIVE RAW-MODEL HILL CLIMB\n");
	if (g->has_legacy)
		legacy_header(out, g);
	envelope_blocks(out, g);
	sb_adds(out, "Checklist: [x] enabled in this envelope; expected values are hypotheses, "
		     "never measurements.\n");
	if (g->has_legacy)
		legacy_stack(out, g);
	sb_adds(out, "Independent levers (envelopes remain separate):\n");
	for (size_t i = 0; i < g->nr_envelopes; i++)
		levers_of(out, g, &g->envelopes[i]);
}

/* "numerical: cosine >= 0.995, argmax_match == 1", "parity: fak-native against
 * llama.cpp", "decode", "serving (...)": what --promote checks. */
static void requirement_text(struct strbuf *t, const struct witness_requirement *r)
{
	sb_adds(t, r->kind);
	if (!strcmp(r->kind, "parity") && r->engines.n == 2)
		sb_addf(t, ": %s against %s on one artifact, a ratio labelled parity",
			r->engines.v[0], r->engines.v[1]);
	else if (!strcmp(r->kind, "serving"))
		sb_adds(t, " (serving receipts are not yet supported by --promote)");
	for (size_t i = 0; i < r->nr_metrics; i++)
		sb_addf(t, "%s%s %s %g", i ? ", " : ": ", r->metrics[i].metric, r->metrics[i].op,
			r->metrics[i].value);
}

void render_next_text(struct strbuf *out, const struct lever *l)
{
	struct strbuf t = STRBUF_INIT;

	if (!l) {
		sb_adds(out, "NEXT NATIVE-PERFORMANCE ARM: none\n");
		return;
	}
	sb_adds(out, "NEXT NATIVE-PERFORMANCE ARM\n");
	wrap_line(out, "Lever:", ITEM_INDENT, l->id);
	sb_addf(&t, "%s | %s | %s", l->app.envelope_id, l->app.platform, l->app.backend);
	field(out, "Envelope:", ITEM_INDENT, &t);
	sb_reset(&t);
	sb_addf(&t, "enabled=%s status=%s", l->enabled ? "true" : "false", l->status);
	field(out, "State:", ITEM_INDENT, &t);
	sb_reset(&t);
	join(&t, &l->deps);
	field(out, "Dependencies:", ITEM_INDENT, &t);
	sb_reset(&t);
	join(&t, &l->conflicts);
	field(out, "Conflicts:", ITEM_INDENT, &t);
	sb_reset(&t);
	sb_addf(&t, "[%s]: %s", l->expected.classification, l->expected.summary);
	field(out, "Expected", ITEM_INDENT, &t);
	wrap_line(out, "Expected provenance:", ITEM_INDENT, l->expected.provenance);
	sb_reset(&t);
	sb_addf(&t, "#%lld %s", l->owner.number, l->owner.url);
	field(out, "Owning issue:", ITEM_INDENT, &t);
	wrap_line(out, "Required witness:", ITEM_INDENT, l->next_witness);
	if (l->has_requirement) {
		sb_reset(&t);
		requirement_text(&t, &l->requirement);
		field(out, "Witness kind:", ITEM_INDENT, &t);
	}
	wrap_line(out, "Experiment:", ITEM_INDENT, render_next_experiment(l));
	sb_release(&t);
}

const char *render_next_experiment(const struct lever *l)
{
	return l->conflicts.n ? "toggle this lever ON with its conflicting levers OFF; keep "
				"dependencies fixed ON."
			      : "toggle exactly this lever OFF/ON; keep dependencies fixed ON.";
}
