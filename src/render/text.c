/* Human readout of the evidence graph and of the --next selection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xalloc.h"
#include "render/render.h"
#include "render/table.h"

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

/* Metal and CUDA side by side, one column per envelope; nothing is
 * combined or ranked across columns. */
static void envelope_table(struct strbuf *out, const struct graph *g)
{
	static const char *const fields[] = {
		"ID", "MODEL", "REVISION", "ARTIFACT", "QUANT", "HARDWARE", "MEMORY", "APPLICABILITY",
		"EXECUTION", "WORKLOAD", "METRIC", "COMPARABILITY",
	};
	size_t nf = sizeof(fields) / sizeof(fields[0]), cols = g->nr_envelopes + 1;
	struct table t;
	const char **cells = xcalloc(cols, sizeof(*cells));
	struct strbuf *sb = xcalloc(cols, sizeof(*sb));

	table_init(&t, cols);
	sb_adds(out, "Pinned envelopes (separate curves: never combined, ranked, or drawn as one):\n");
	for (size_t f = 0; f < nf; f++) {
		cells[0] = fields[f];
		for (size_t i = 0; i < g->nr_envelopes; i++) {
			const struct envelope *v = &g->envelopes[i];
			const char *plat = graph_envelope_platform(v);
			struct strbuf *c = &sb[i + 1];

			sb_reset(c);
			switch (f) {
			case 0: sb_adds(c, v->id); break;
			case 1: sb_adds(c, v->model); break;
			case 2: sb_adds(c, v->model_revision); break;
			case 3: sb_adds(c, v->artifact_sha256); break;
			case 4: sb_adds(c, v->quantization); break;
			case 5: sb_adds(c, v->hardware); break;
			case 6:
				if (v->memory_gib)
					sb_addf(c, "%lld GiB", v->memory_gib);
				else
					sb_adds(c, "not pinned; the receipt carries it");
				break;
			case 7: sb_addf(c, "%s, %s", plat ? plat : "?", v->backend); break;
			case 8: sb_addf(c, "engine=%s, backend=%s, forward_path=%s", v->engine, v->backend, v->forward_path); break;
			case 9:
				sb_addf(c, "temperature %lld, P=%lld/T=%lld, %lld warm-up%s, %lld repetitions",
					v->temperature, v->prompt_tokens, v->decode_tokens, v->warmups,
					v->warmups == 1 ? "" : "s", v->repetitions);
				break;
			case 10: sb_adds(c, v->throughput_metric); break;
			default: sb_adds(c, v->comparability_rule); break;
			}
			cells[i + 1] = sb_str(c);
		}
		table_row(&t, cells);
	}
	table_render(&t, out);
	table_release(&t);
	for (size_t i = 0; i < cols; i++)
		sb_release(&sb[i]);
	free(sb);
	free(cells);
}

static void rung_table(struct strbuf *out, const struct graph *g)
{
	static const char *const head[] = { "ON", "STATUS", "RUNG", "DEPENDENCIES", "EXPECTED TOK/S",
					    "WITNESSED TOK/S", "NEXT" };
	struct table t;
	struct strbuf deps = STRBUF_INIT, exp = STRBUF_INIT, wit = STRBUF_INIT, next = STRBUF_INIT;

	table_init(&t, 7);
	table_row(&t, head);
	for (size_t i = 0; i < g->nr_rungs; i++) {
		const struct rung *r = &g->rungs[i];
		const char *cells[7];

		sb_reset(&deps);
		join(&deps, &r->deps);
		sb_reset(&exp);
		num(&exp, r->expected.floor);
		sb_adds(&exp, "..");
		num(&exp, r->expected.roof);
		sb_addf(&exp, " [%s]", r->expected.classification);
		sb_reset(&wit);
		if (r->has_witnessed) {
			num(&wit, r->witnessed.tokens_per_second);
			sb_addf(&wit, " [%s/%s]", r->witnessed.classification, r->witnessed.comparability);
		} else {
			sb_adds(&wit, "pending");
		}
		sb_reset(&next);
		sb_addf(&next, "#%lld", r->next_issue.number);
		cells[0] = mark(r->enabled);
		cells[1] = r->status;
		cells[2] = r->id;
		cells[3] = deps.buf;
		cells[4] = exp.buf;
		cells[5] = wit.buf;
		cells[6] = next.buf;
		table_row(&t, cells);
	}
	table_render(&t, out);
	table_release(&t);
	sb_release(&deps);
	sb_release(&exp);
	sb_release(&wit);
	sb_release(&next);
}

static void levers_of(struct strbuf *out, const struct graph *g, const struct envelope *v)
{
	sb_addf(out, "Envelope %s: %s | %s %s | P%lld/T%lld | %s/%s\n", v->id, v->model, v->quantization,
		v->hardware, v->prompt_tokens, v->decode_tokens, v->engine, v->backend);
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];

		if (strcmp(l->app.envelope_id, v->id))
			continue;
		sb_addf(out, "- %s %s (%s; deps=", mark(l->enabled), l->id, l->status);
		join(out, &l->deps);
		sb_adds(out, "; conflicts=");
		join(out, &l->conflicts);
		sb_addf(out, "; issue=#%lld)\n", l->owner.number);
		sb_addf(out, "  expected [%s]: %s (source: %s)\n", l->expected.classification,
			l->expected.summary, l->expected.provenance);
		sb_addf(out, "  witnessed: %s\n", l->has_witnessed ? l->witnessed.summary : "pending");
		sb_addf(out, "  next witness: %s\n", l->next_witness);
	}
}

void render_graph_text(struct strbuf *out, const struct graph *g)
{
	const struct envelope *v = &g->envelope;

	sb_adds(out, "NATIVE RAW-MODEL HILL CLIMB\n");
	sb_addf(out, "Envelope: %s | %s %s | %s, %lld GiB | P%lld/T%lld | %s/%s\n", v->model,
		v->quantization, v->backend, v->hardware, v->memory_gib, v->prompt_tokens,
		v->decode_tokens, v->engine, v->forward_path);
	sb_adds(out, "Comparison: ");
	num(out, g->comparison.tokens_per_second);
	sb_addf(out, " tok/s | %s | %s/%s\n", g->comparison.engine, g->comparison.classification,
		g->comparison.comparability);
	envelope_table(out, g);
	sb_adds(out, "Checklist: [x] enabled in this envelope; expected values are hypotheses, never measurements.\n");
	rung_table(out, g);
	sb_adds(out, "Feature stack:\n");
	for (size_t i = 0; i < g->nr_features; i++) {
		const struct feature *f = &g->features[i];

		sb_addf(out, "- %s %s (%s; rung=%s): %s\n", mark(f->enabled), f->id, f->status, f->rung_id,
			f->observable);
	}
	sb_adds(out, "Gaps:\n");
	for (size_t i = 0; i < g->nr_rungs; i++)
		sb_addf(out, "- %s: %s (next #%lld)\n", g->rungs[i].id, g->rungs[i].gap,
			g->rungs[i].next_issue.number);
	sb_adds(out, "Independent levers (envelopes remain separate):\n");
	for (size_t i = 0; i < g->nr_envelopes; i++)
		levers_of(out, g, &g->envelopes[i]);
}

void render_next_text(struct strbuf *out, const struct lever *l)
{
	if (!l) {
		sb_adds(out, "NEXT NATIVE-PERFORMANCE ARM: none\n");
		return;
	}
	sb_adds(out, "NEXT NATIVE-PERFORMANCE ARM\n");
	sb_addf(out, "Lever: %s\n", l->id);
	sb_addf(out, "Envelope: %s | %s | %s\n", l->app.envelope_id, l->app.platform, l->app.backend);
	sb_addf(out, "State: enabled=%s status=%s\n", l->enabled ? "true" : "false", l->status);
	sb_adds(out, "Dependencies: ");
	join(out, &l->deps);
	sb_adds(out, "\nConflicts: ");
	join(out, &l->conflicts);
	sb_addf(out, "\nExpected [%s]: %s\n", l->expected.classification, l->expected.summary);
	sb_addf(out, "Expected provenance: %s\n", l->expected.provenance);
	sb_addf(out, "Owning issue: #%lld %s\n", l->owner.number, l->owner.url);
	sb_addf(out, "Required witness: %s\n", l->next_witness);
	if (l->conflicts.n)
		sb_adds(out, "Experiment: toggle this lever ON with its conflicting levers OFF; keep dependencies fixed ON.\n");
	else
		sb_adds(out, "Experiment: toggle exactly this lever OFF/ON; keep dependencies fixed ON.\n");
}
