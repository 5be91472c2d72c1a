/* Fail-closed validation of the evidence graph: every rule of docs/graph.md
 * "Validation" plus one criterion per envelope ("Comparison criterion").
 * All findings are collected, then sorted byte-wise. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"
#include "base/gpu_reasons.h"
#include "base/json.h"
#include "base/serving_metric.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "graph/graph.h"

/* Tiny formatter for findings: %Q quoted string, %s raw string, %z size_t,
 * %b bool, %g number (shortest form), %d long long. */
static void add(struct findings *f, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		char num[JSON_NUMBER_MAX];

		if (*p != '%') {
			sb_addch(&sb, *p);
			continue;
		}
		switch (*++p) {
		case 'Q':
			sb_add_quoted(&sb, va_arg(ap, const char *));
			break;
		case 's':
			sb_adds(&sb, va_arg(ap, const char *));
			break;
		case 'z':
			sb_addf(&sb, "%zu", va_arg(ap, size_t));
			break;
		case 'b':
			sb_adds(&sb, va_arg(ap, int) ? "true" : "false");
			break;
		case 'g':
			json_format_double(num, va_arg(ap, double));
			sb_adds(&sb, num);
			break;
		case 'd':
			sb_addf(&sb, "%lld", va_arg(ap, long long));
			break;
		default:
			BUG("bad finding format '%s'", fmt);
		}
	}
	va_end(ap);
	findings_add_owned(f, sb_detach(&sb, NULL));
}

static bool eq(const char *a, const char *b)
{
	return !strcmp(a, b);
}

static bool valid_status(const char *s)
{
	return eq(s, "present") || eq(s, "partial") || eq(s, "absent");
}

static bool finite_positive(double d)
{
	return d > 0 && d <= 1.7976931348623157e308;
}

static void check_throughput(struct findings *f, const struct throughput *t, const char *label)
{
	if (!finite_positive(t->tokens_per_second))
		add(f, "%s has invalid throughput %g", label, t->tokens_per_second);
	else if (str_blank(t->engine) || str_blank(t->provenance) || str_blank(t->observed_on))
		add(f, "%s must name engine, observation date, and provenance", label);
	else if (!eq(t->comparability, "exact") && !eq(t->comparability, "approximate"))
		add(f, "%s has invalid comparability %Q", label, t->comparability);
}

/* ---- cycle detection (docs/graph.md "Validation"), iterative so deep chains are safe -- */

struct cyc {
	size_t n;			/* nodes = registered ids, graph order */
	size_t *dep_start, *deps;	/* CSR adjacency over node indices */
};

/* Returns 1 and fills out with "a -> b -> a" when a cycle exists. */
static int find_cycle(const struct cyc *c, const char *const *names, struct strbuf *out)
{
	unsigned char *state = xcalloc(c->n ? c->n : 1, 1);	/* 0 new, 1 on stack, 2 done */
	size_t *stack = xmalloc(xmul(c->n ? c->n : 1, sizeof(*stack)));
	size_t *next = xmalloc(xmul(c->n ? c->n : 1, sizeof(*next)));
	size_t *pos = xmalloc(xmul(c->n ? c->n : 1, sizeof(*pos)));
	int found = 0;

	for (size_t root = 0; root < c->n && !found; root++) {
		size_t top = 0;

		if (state[root])
			continue;
		stack[top++] = root;
		state[root] = 1;
		next[root] = c->dep_start[root];
		pos[root] = 0;
		while (top && !found) {
			size_t u = stack[top - 1];

			if (next[u] == c->dep_start[u + 1]) {
				state[u] = 2;
				top--;
				continue;
			}
			{
				size_t v = c->deps[next[u]++];

				if (state[v] == 1) {
					for (size_t i = pos[v]; i < top; i++) {
						sb_adds(out, names[stack[i]]);
						sb_adds(out, " -> ");
					}
					sb_adds(out, names[v]);
					found = 1;
				} else if (state[v] == 0) {
					state[v] = 1;
					next[v] = c->dep_start[v];
					pos[v] = top;
					stack[top++] = v;
				}
			}
		}
	}
	free(state);
	free(stack);
	free(next);
	free(pos);
	return found;
}

/* Registry of first occurrences, on the id -> first index maps the loader
 * built (a second map of a million ids cost more than the rest of the
 * validation). Items with a blank id or a repeated id are not registered. */
struct reg {
	const struct strmap *map;
	const char **names;	/* id of each item */
	unsigned char *registered;
	size_t n;
};

static void reg_init(struct reg *r, const struct strmap *map, size_t n)
{
	r->map = map;
	r->n = n;
	r->names = xcalloc(n ? n : 1, sizeof(*r->names));
	r->registered = xcalloc(n ? n : 1, 1);
}

/* Registers item (whose id is not blank); 0 when an earlier item has it. */
static int reg_add(struct reg *r, const char *id, size_t item)
{
	size_t first;

	if (!strmap_get(r->map, id, &first) || first != item)
		return 0;
	r->registered[item] = 1;
	return 1;
}

static int reg_item(const struct reg *r, const char *id, size_t *item)
{
	return strmap_get(r->map, id, item) && r->registered[*item];
}

static void reg_release(struct reg *r)
{
	free(r->names);
	free(r->registered);
}

/* Dependency edges between registered items, resolved through the map. */
static void cycle_check(struct findings *f, const char *prefix, const struct reg *r,
			const struct strlist *(*deps_of)(const void *, size_t), const void *items)
{
	struct cyc c = { .n = r->n };
	size_t total = 0, k = 0;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < r->n; i++)
		total += r->registered[i] ? deps_of(items, i)->n : 0;
	c.dep_start = xmalloc(xmul(r->n + 1, sizeof(size_t)));
	c.deps = xmalloc(xmul(total ? total : 1, sizeof(size_t)));
	for (size_t i = 0; i < r->n; i++) {
		const struct strlist *d = deps_of(items, i);

		c.dep_start[i] = k;
		for (size_t j = 0; r->registered[i] && j < d->n; j++) {
			size_t node;

			if (reg_item(r, d->v[j], &node))
				c.deps[k++] = node;
		}
	}
	c.dep_start[r->n] = k;
	if (find_cycle(&c, r->names, &sb))
		add(f, "%s%s", prefix, sb.buf);
	sb_release(&sb);
	free(c.dep_start);
	free(c.deps);
}

static const struct strlist *rung_deps(const void *items, size_t i)
{
	return &((const struct rung *)items)[i].deps;
}

/* ---- sections ------------------------------------------------------- */

static void validate_rungs(const struct graph *g, struct findings *f, struct reg *rungs)
{
	for (size_t i = 0; i < g->nr_rungs; i++) {
		const struct rung *r = &g->rungs[i];
		char label[600];

		if (str_blank(r->id)) {
			add(f, "rung[%z] has empty id", i);
			continue;
		}
		if (!reg_add(rungs, r->id, i)) {
			add(f, "duplicate rung id %Q", r->id);
			continue;
		}
		if (!valid_status(r->status))
			add(f, "rung %Q has invalid status %Q", r->id, r->status);
		if (!eq(r->expected.classification, "hypothesis"))
			add(f, "rung %Q expected range classification must be hypothesis; "
			    "measurements belong in witnessed",
			    r->id);
		if (!finite_positive(r->expected.floor) || !finite_positive(r->expected.roof) ||
		    r->expected.floor > r->expected.roof)
			add(f, "rung %Q has invalid expected range %g..%g", r->id,
			    r->expected.floor, r->expected.roof);
		else if (str_blank(r->expected.provenance))
			add(f, "rung %Q expected range has no provenance", r->id);
		if (r->has_witnessed) {
			if (!eq(r->witnessed.classification, "witnessed"))
				add(f, "rung %Q witnessed classification must be witnessed; "
				    "projections belong in expected",
				    r->id);
			snprintf(label, sizeof(label), "rung %s witnessed", r->id);
			check_throughput(f, &r->witnessed, label);
			/* only the envelope's own engine can witness; another engine's
			 * figure is a comparison, never a witness */
			if (!str_blank(r->witnessed.engine) &&
			    !eq(r->witnessed.engine, g->envelope.engine))
				add(f, "rung %Q witness engine %Q is not the envelope engine %Q; "
				    "another engine's figure is a comparison",
				    r->id, r->witnessed.engine, g->envelope.engine);
		}
	}
	for (size_t i = 0; i < g->nr_rungs; i++) {
		const struct rung *r = &g->rungs[i];
		size_t item;

		for (size_t j = 0; j < r->deps.n; j++)
			if (!reg_item(rungs, r->deps.v[j], &item))
				add(f, "rung %Q depends on unknown rung %Q", r->id, r->deps.v[j]);
	}
}

static void validate_features(const struct graph *g, struct findings *f, const struct reg *rungs)
{
	struct strmap seen = STRMAP_INIT;

	for (size_t i = 0; i < g->nr_features; i++) {
		const struct feature *x = &g->features[i];
		size_t item;

		if (str_blank(x->id))
			add(f, "feature[%z] has empty id", i);
		else if (!strmap_put(&seen, x->id, i, NULL))
			add(f, "duplicate feature id %Q", x->id);
		if (!reg_item(rungs, x->rung_id, &item))
			add(f, "feature %Q owns unknown rung %Q", x->id, x->rung_id);
		if (!valid_status(x->status))
			add(f, "feature %Q has invalid status %Q", x->id, x->status);
		if (x->enabled && eq(x->status, "absent"))
			add(f, "feature %Q is enabled but absent", x->id);
		if (!x->enabled && eq(x->status, "present"))
			add(f, "feature %Q is present but disabled", x->id);
		if (str_blank(x->observable))
			add(f, "feature %Q has empty observable", x->id);
	}
	strmap_release(&seen);
}

static void validate_envelopes(const struct graph *g, struct findings *f, struct reg *envs)
{
	for (size_t i = 0; i < g->nr_envelopes; i++) {
		const struct envelope *v = &g->envelopes[i];

		if (str_blank(v->id))
			add(f, "envelope[%z] has empty id", i);
		else if (!reg_add(envs, v->id, i))
			add(f, "duplicate envelope id %Q", v->id);
		if (str_blank(v->backend) || str_blank(v->hardware) || str_blank(v->model) ||
		    str_blank(v->quantization) ||
		    v->memory_gib < 0 || v->decode_tokens <= 0 || v->repetitions <= 0)
			add(f, "envelope %Q has invalid pinned applicability", v->id);
		if (!graph_engine_valid(v->engine))
			add(f, "envelope %Q has invalid engine %Q; want a lowercase name such as "
			       "fak-native, llama.cpp or vllm", v->id, v->engine);
		for (size_t k = 0; k < v->required_evidence.n; k++) {
			const char *w = v->required_evidence.v[k];

			if (!eq(w, "profiler_artifacts") && !eq(w, "module_versions"))
				add(f, "envelope %Q requires unknown evidence %Q; want "
				       "profiler_artifacts or module_versions", v->id, w);
			for (size_t j = 0; j < k; j++)
				if (eq(v->required_evidence.v[j], w))
					add(f, "envelope %Q requires evidence %Q twice", v->id, w);
		}
		if (v->prompt_tokens < 0)
			add(f, "envelope %Q has invalid prompt_tokens %d; want an integer >= 0",
			    v->id, v->prompt_tokens);
		if (v->platform && !graph_platform_valid(v->platform))
			add(f, "envelope %Q has invalid platform %Q; want os/arch or "
			    "os/arch+accelerator in lowercase",
			    v->id, v->platform);
		else if (!graph_envelope_platform(v))
			add(f, "envelope %Q must declare its platform: backend %Q implies none "
			    "(only metal and cuda do)",
			    v->id, v->backend);
		if (v->warmups < 0)
			add(f, "envelope %Q has invalid warmups %d; want an integer >= 0", v->id,
			    v->warmups);
	}
}

/* ---- ids, pins and the legacy copy (docs/graph.md, "Ids") ------------ */

static void check_id(struct findings *f, const char *what, const char *id)
{
	const char *why;

	if (str_blank(id) || !(why = graph_id_problem(id)))
		return;
	add(f, "%s id %Q %s; an id is lowercase letters and digits joined by single '.', "
	       "'_' or '-', at most %d bytes",
	    what, id, why, (long long)GRAPH_ID_MAX);
}

/* Every id that names something (references resolve to these or have
 * their own finding), one finding per bad id. */
static void validate_ids(const struct graph *g, struct findings *f)
{
	for (size_t i = 0; i < g->nr_rungs; i++)
		check_id(f, "rung", g->rungs[i].id);
	for (size_t i = 0; i < g->nr_features; i++)
		check_id(f, "feature", g->features[i].id);
	for (size_t i = 0; i < g->nr_envelopes; i++)
		check_id(f, "envelope", g->envelopes[i].id);
	for (size_t i = 0; i < g->nr_levers; i++)
		check_id(f, "lever", g->levers[i].id);
	for (size_t i = 0; i < g->nr_criteria; i++)
		check_id(f, "criterion", g->criteria[i].id);
}

/* A serving pin's trace digest, primary metric and its direction: an
 * envelope's serving (what = "envelope", at = "serving") or a lever's
 * next_witness_requirement.serving. */
static void validate_serving(struct findings *f, const char *what, const char *id,
			     const char *at, const struct envelope_serving *s)
{
	int m = serving_metric_find(s->primary_metric);

	if (strncmp(s->trace_sha256, "sha256:", 7) || !digest_is_hex(s->trace_sha256 + 7))
		add(f, "%s %Q has %s.trace_sha256 %Q; want \"sha256:\" and the 64 "
		       "lowercase hex digits `fak bench trace --check` prints", what, id, at,
		    s->trace_sha256);
	if (m < 0)
		add(f, "%s %Q has %s.primary_metric %Q; want a serving metric "
		       "(docs/serving.md: ttft_p95_ms, itl_p50_ms, output_tokens_per_second, ...)",
		    what, id, at, s->primary_metric);
	else if (strcmp(s->direction, serving_direction_name(serving_metrics[m].higher_is_better)))
		add(f, "%s %Q has %s.direction %Q; %Q is better %s", what, id, at, s->direction,
		    s->primary_metric, serving_direction_name(serving_metrics[m].higher_is_better));
}

/* An envelope's artifact is a sha256 or, not pinned yet, null; its
 * temperature any number >= 0. */
static void validate_pins(const struct graph *g, struct findings *f)
{
	for (size_t i = 0; i < g->nr_envelopes; i++) {
		const struct envelope *v = &g->envelopes[i];

		if (!(v->temperature >= 0))
			add(f, "envelope %Q has invalid temperature %g; want a number >= 0 (0 is "
			       "greedy decoding)", v->id, v->temperature);
		if (v->artifact_sha256 && !digest_is_hex(v->artifact_sha256))
			add(f, "envelope %Q has artifact_sha256 %Q; want the artifact's sha256 "
			       "(64 lowercase hex digits), or null while no artifact is pinned",
			    v->id, v->artifact_sha256);
		if (v->has_serving)
			validate_serving(f, "envelope", v->id, "serving", &v->serving);
	}
}

static bool eq_or_null(const char *a, const char *b)
{
	return a && b ? eq(a, b) : a == b;
}

/* The legacy top-level envelope is a copy of envelopes[0] for old readers:
 * each member that differs is named. */
static void validate_legacy(const struct graph *g, struct findings *f)
{
	const struct envelope *l = &g->envelope, *v = g->envelopes;
	struct strbuf names = STRBUF_INIT;

	if (!g->has_legacy)	/* a graph written by fak has none */
		return;
	if (!g->nr_envelopes) {
		add(f, "legacy envelope must equal the first pinned envelope");
		return;
	}
	if (!l->id)	/* no legacy block: nothing to contradict */
		return;
	{
		const struct {
			const char *name;
			bool same;
		} m[] = {
			{ "id", eq_or_null(l->id, v->id) },
			{ "model", eq_or_null(l->model, v->model) },
			{ "model_revision", eq_or_null(l->model_revision, v->model_revision) },
			{ "artifact_sha256", eq_or_null(l->artifact_sha256, v->artifact_sha256) },
			{ "quantization", eq_or_null(l->quantization, v->quantization) },
			{ "hardware", eq_or_null(l->hardware, v->hardware) },
			{ "memory_gib", l->memory_gib == v->memory_gib },
			{ "engine", eq_or_null(l->engine, v->engine) },
			{ "backend", eq_or_null(l->backend, v->backend) },
			{ "forward_path", eq_or_null(l->forward_path, v->forward_path) },
			{ "prompt_tokens", l->prompt_tokens == v->prompt_tokens },
			{ "decode_tokens", l->decode_tokens == v->decode_tokens },
			{ "repetitions", l->repetitions == v->repetitions },
			{ "temperature", l->temperature == v->temperature },
			{ "throughput_metric",
			  eq_or_null(l->throughput_metric, v->throughput_metric) },
			{ "comparability_rule",
			  eq_or_null(l->comparability_rule, v->comparability_rule) },
		};

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (!m[i].same) {
				if (names.len)
					sb_adds(&names, ", ");
				sb_adds(&names, m[i].name);
			}
	}
	if (names.len)
		add(f, "legacy envelope contradicts envelopes[0] (%Q) in %s; the top-level "
		       "envelope must be a copy of the first pinned envelope",
		    v->id, names.buf);
	sb_release(&names);
}

static bool strlist_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (eq(l->v[i], s))
			return true;
	return false;
}

/* Is ref (the j-th of the lever's combined references) a repeat of an
 * earlier one? Short lists are scanned; long ones go through a map. */
static bool repeats(const struct lever *l, size_t j, const char *ref, struct strmap *seen)
{
	if (seen)
		return !strmap_put(seen, ref, j, NULL);
	for (size_t k = 0; k < j; k++)
		if (eq(k < l->deps.n ? l->deps.v[k] : l->conflicts.v[k - l->deps.n], ref))
			return true;
	return false;
}

/* A lever's applicability: its envelope is registered, and the lever names
 * that envelope's backend and platform. */
static void check_applicability(const struct graph *g, struct findings *f,
				const struct reg *envs, const struct lever *l)
{
	const struct envelope *v;
	const char *plat;
	size_t ei;

	if (!reg_item(envs, l->app.envelope_id, &ei)) {
		add(f, "lever %Q has invalid applicability envelope %Q", l->id,
		    l->app.envelope_id);
		return;
	}
	v = &g->envelopes[ei];
	plat = graph_envelope_platform(v);
	/* an envelope without a valid platform has its own finding */
	if (plat && !graph_platform_valid(plat))
		plat = NULL;
	if (!eq(l->app.backend, v->backend) || (plat && !eq(l->app.platform, plat)))
		add(f, "lever %Q has invalid applicability %Q/%Q for envelope %Q "
		    "(%Q/%Q)", l->id, l->app.platform, l->app.backend, v->id,
		    plat ? plat : "?", v->backend);
}

/* One registered lever's own fields: its enablement and status agree, it
 * applies to its envelope, its effects are labeled as what they are, and it
 * names its owner and next witness. */
static void check_lever(const struct graph *g, struct findings *f, const struct reg *envs,
			const struct lever *l)
{
	if (!valid_status(l->status) || (l->enabled && eq(l->status, "absent")) ||
	    (!l->enabled && eq(l->status, "present")))
		add(f, "lever %Q has invalid enablement/status %b/%Q", l->id, l->enabled,
		    l->status);
	check_applicability(g, f, envs, l);
	if (!eq(l->expected.classification, "hypothesis") ||
	    str_blank(l->expected.summary) || str_blank(l->expected.provenance))
		add(f, "lever %Q expected effect must be a provenance-labeled hypothesis; "
		    "witnessed evidence belongs in witnessed",
		    l->id);
	if (l->has_witnessed &&
	    (!eq(l->witnessed.classification, "witnessed") ||
	     str_blank(l->witnessed.summary) || str_blank(l->witnessed.provenance) ||
	     str_blank(l->witnessed.receipt)))
		add(f, "lever %Q witnessed effect must be receipt-backed witnessed "
		    "evidence; projections belong in expected",
		    l->id);
	if (l->owner.number <= 0 || str_blank(l->owner.url) || str_blank(l->next_witness))
		add(f, "lever %Q must name owning issue and exact next witness requirement",
		    l->id);
}

/* Lever i's dependency and conflict references: each names a registered
 * lever of the same envelope, once; its dependency edges go to deps from
 * *k on (a registered lever's only). */
static void check_references(const struct graph *g, struct findings *f,
			     const struct reg *levers, size_t i, struct cyc *deps, size_t *k)
{
	const struct lever *l = &g->levers[i];
	size_t nrefs = l->deps.n + l->conflicts.n;
	struct strmap refs = STRMAP_INIT;	/* only for long lists */

	for (size_t j = 0; j < nrefs; j++) {
		const char *ref = j < l->deps.n ? l->deps.v[j] : l->conflicts.v[j - l->deps.n];
		size_t ti;

		if (!reg_item(levers, ref, &ti)) {
			add(f, "lever %Q references unknown lever %Q", l->id, ref);
			continue;
		}
		if (j < l->deps.n && levers->registered[i])
			deps->deps[(*k)++] = ti;
		if (!eq(g->levers[ti].app.envelope_id, l->app.envelope_id))
			add(f, "cross-envelope edge %Q -> %Q", l->id, ref);
		if (repeats(l, j, ref, nrefs > 8 ? &refs : NULL))
			add(f, "lever %Q repeats dependency/conflict reference %Q", l->id, ref);
	}
	strmap_release(&refs);
}

/* A lever's conflicts with registered levers: named back, and never both
 * enabled. */
static void check_conflicts(const struct graph *g, struct findings *f,
			    const struct reg *levers, const struct lever *l)
{
	for (size_t j = 0; j < l->conflicts.n; j++) {
		const char *ref = l->conflicts.v[j];
		size_t ti;

		if (!reg_item(levers, ref, &ti))
			continue;
		if (!strlist_has(&g->levers[ti].conflicts, l->id))
			add(f, "conflict edge %Q <-> %Q is not symmetric", l->id, ref);
		if (l->enabled && g->levers[ti].enabled)
			add(f, "conflicting levers %Q and %Q are both enabled", l->id, ref);
	}
}

/* Also fills *deps with the dependency edges between registered levers,
 * resolved once here, for the cycle check. */
static void validate_levers(const struct graph *g, struct findings *f, const struct reg *envs,
			    struct reg *levers, struct cyc *deps)
{
	size_t k = 0, total = 0;

	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];

		if (str_blank(l->id)) {
			add(f, "lever[%z] has empty id", i);
			continue;
		}
		if (!reg_add(levers, l->id, i)) {
			add(f, "duplicate lever id %Q", l->id);
			continue;
		}
		check_lever(g, f, envs, l);
	}

	for (size_t i = 0; i < g->nr_levers; i++)
		total += g->levers[i].deps.n;
	deps->n = g->nr_levers;
	deps->dep_start = xmalloc(xmul(g->nr_levers + 1, sizeof(size_t)));
	deps->deps = xmalloc(xmul(total ? total : 1, sizeof(size_t)));
	for (size_t i = 0; i < g->nr_levers; i++) {
		deps->dep_start[i] = k;
		check_references(g, f, levers, i, deps, &k);
		check_conflicts(g, f, levers, &g->levers[i]);
	}
	deps->dep_start[g->nr_levers] = k;
}

static bool percent_ok(double x)
{
	return isfinite(x) && x >= 0 && x <= 100;
}

/* The GPU policy: ranges, known clock-event reasons, and an envelope that
 * runs on an NVIDIA accelerator (nothing else is read through NVML). */
/* A serving pin in a lever's next witness: for a serving witness, in an
 * envelope that pins none (docs/graph.md, "Serving envelopes"). */
static void validate_requirement_serving(struct findings *f, const struct lever *l,
					 const struct envelope *env)
{
	const struct witness_requirement *r = &l->requirement;

	if (!eq(r->kind, "serving"))
		add(f, "lever %Q: next_witness_requirement.serving pins a trace for a serving "
		    "witness only (kind %Q)", l->id, r->kind);
	else if (env && env->has_serving)
		add(f, "lever %Q: next_witness_requirement.serving and its envelope %Q both pin a "
		    "serving trace; keep the envelope's and remove the lever's", l->id, env->id);
	else
		validate_serving(f, "lever", l->id, "next_witness_requirement.serving",
				 &r->serving);
}

/* A lever's next_witness_requirement (docs/graph.md, "Typed next witnesses"). */
static void validate_requirement(const struct graph *g, struct findings *f, const struct lever *l)
{
	const struct witness_requirement *r = &l->requirement;
	const struct envelope *env = graph_envelope(g, l->app.envelope_id);
	bool parity = eq(r->kind, "parity");

	if (!graph_requirement_kind_valid(r->kind))
		add(f, "lever %Q next_witness_requirement.kind %Q is none of decode, numerical, "
		    "serving, parity", l->id, r->kind);
	for (size_t i = 0; i < r->nr_metrics; i++) {
		const struct witness_threshold *t = &r->metrics[i];

		if (str_blank(t->metric))
			add(f, "lever %Q next_witness_requirement.metrics[%z] names no metric",
			    l->id, i);
		if (!graph_threshold_op_valid(t->op))
			add(f, "lever %Q next_witness_requirement.metrics[%z].op %Q is none of >=, "
			    "<=, ==", l->id, i, t->op);
		for (size_t k = 0; k < i; k++)
			if (eq(t->metric, r->metrics[k].metric))
				add(f, "lever %Q next_witness_requirement names metric %Q twice",
				    l->id, t->metric);
	}
	if (r->has_serving)
		validate_requirement_serving(f, l, env);
	if (eq(r->kind, "numerical") && !r->nr_metrics)
		add(f, "lever %Q: a numerical next witness names every metric it needs with its "
		    "threshold", l->id);
	if (eq(r->kind, "decode") && r->nr_metrics)
		add(f, "lever %Q: a decode next witness is the envelope's A/B, judged by its "
		    "criterion: it names no metrics", l->id);
	if (parity && (r->engines.n != 2 || !graph_engine_valid(r->engines.v[0]) ||
		       !graph_engine_valid(r->engines.v[1]) ||
		       eq(r->engines.v[0], r->engines.v[1])))
		add(f, "lever %Q: a parity next witness names the two engines it matches", l->id);
	else if (parity && env && graph_engine_valid(env->engine) &&
		 !eq(r->engines.v[0], env->engine) &&
		 !eq(r->engines.v[1], env->engine))
		add(f, "lever %Q: a parity next witness matches its envelope's engine %Q against "
		    "another; it names %Q and %Q", l->id, env->engine, r->engines.v[0],
		    r->engines.v[1]);
	if (!parity && !r->engines.is_null)
		add(f, "lever %Q: only a parity next witness names engines", l->id);
}

static void validate_gpu_policy(struct findings *f, const char *k, const struct gpu_policy *gp,
				const struct envelope *v)
{
	const char *platform = graph_envelope_platform(v), *acc;

	acc = platform ? strchr(platform, '+') : NULL;
	if (!acc || strncmp(acc + 1, "nvidia", 6))
		add(f, "gpu policy of envelope %Q needs a platform with an NVIDIA accelerator, "
		       "has %Q", k, platform ? platform : "none");
	if (!(isfinite(gp->minimum_coverage_ratio) && gp->minimum_coverage_ratio >= 0 &&
	      gp->minimum_coverage_ratio <= 1))
		add(f, "gpu policy of envelope %Q has minimum coverage ratio %g; want 0..1", k,
		    gp->minimum_coverage_ratio);
	if (!percent_ok(gp->maximum_sm_clock_drift_percent) ||
	    !percent_ok(gp->maximum_memory_clock_drift_percent))
		add(f, "gpu policy of envelope %Q needs clock drifts of 0..100 percent", k);
	if (gp->target_sm_clock_mhz < 0 || gp->target_memory_clock_mhz < 0)
		add(f, "gpu policy of envelope %Q has a negative target clock", k);
	for (size_t i = 0; i < gp->disqualifying_reasons.n; i++)
		if (!gpu_reason_bit(gp->disqualifying_reasons.v[i]))
			add(f, "gpu policy of envelope %Q names unknown clock-event reason %Q", k,
			    gp->disqualifying_reasons.v[i]);
}

/* The host policy: each ceiling in the range the sampler accepts for it
 * (policy_check), one finding per bad value. */
static void validate_host_policy(struct findings *f, const char *k, const struct host_policy *h)
{
	const struct {
		const char *name;
		double v;
		bool zero_ok;
	} ceilings[] = {
		{ "maximum_non_sut_cpu_percent", h->maximum_non_sut_cpu_percent, false },
		{ "maximum_sampler_duty_percent", h->maximum_sampler_duty_percent, false },
		{ "maximum_psi_stall_percent", h->maximum_psi_stall_percent, true },
	};

	for (size_t i = 0; i < sizeof(ceilings) / sizeof(ceilings[0]); i++)
		if (!percent_ok(ceilings[i].v) || (!ceilings[i].zero_ok && ceilings[i].v == 0))
			add(f, "host policy of envelope %Q has %s %g; want %s", k, ceilings[i].name,
			    ceilings[i].v, ceilings[i].zero_ok ? "[0,100]" : "(0,100]");
}

static void validate_criteria(const struct graph *g, struct findings *f, const struct reg *envs)
{
	for (size_t i = 0; i < g->nr_criteria; i++) {
		const struct criterion *c = &g->criteria[i];
		const char *k = c->envelope_id;
		size_t ei;

		if (!reg_item(envs, k, &ei)) {
			add(f, "comparison criterion for unknown envelope %Q", k);
			continue;
		}
		if (!eq(c->schema, CRITERION_SCHEMA))
			add(f, "comparison criterion of envelope %Q has schema %Q, want %Q", k,
			    c->schema, CRITERION_SCHEMA);
		if (str_blank(c->id) || c->version <= 0 || str_blank(c->output_class) ||
		    str_blank(c->quality_metric))
			add(f, "comparison criterion of envelope %Q must name id, positive "
			    "version, output class and quality metric",
			    k);
		if (c->minimum_repetitions < 2)
			add(f, "comparison criterion of envelope %Q needs at least 2 repetitions, "
			    "has %d", k, c->minimum_repetitions);
		else if (c->minimum_repetitions > g->envelopes[ei].repetitions)
			add(f, "comparison criterion of envelope %Q requires %d repetitions but "
			    "the envelope pins %d",
			    k, c->minimum_repetitions, g->envelopes[ei].repetitions);
		if (c->maximum_noise_percent < 0 || c->investigate_drop_percent < 0 ||
		    c->regression_drop_percent <= c->investigate_drop_percent)
			add(f, "comparison criterion of envelope %Q needs noise >= 0, investigate "
			    "drop >= 0 and regression drop > investigate drop",
			    k);
		if (!finite_positive(c->minimum_throughput_tokens_per_second))
			add(f, "comparison criterion of envelope %Q has invalid minimum "
			    "throughput %g", k, c->minimum_throughput_tokens_per_second);
		if (c->has_practical_threshold &&
		    !(c->practical_threshold_percent >= 0 && c->practical_threshold_percent < 100))
			add(f, "comparison criterion of envelope %Q has practical threshold %g "
			    "percent; want 0 <= threshold < 100",
			    k, c->practical_threshold_percent);
		if (c->has_review_period &&
		    (c->review_period_days < 1 || c->review_period_days > 366))
			add(f, "comparison criterion of envelope %Q has review period %d days; "
			    "want 1..366", k, c->review_period_days);
		if (c->has_gpu_policy)
			validate_gpu_policy(f, k, &c->gpu_policy, &g->envelopes[ei]);
		if (c->has_host_policy)
			validate_host_policy(f, k, &c->host_policy);
	}
	for (size_t i = 0; i < envs->n; i++)
		if (envs->registered[i] && !graph_criterion(g, envs->names[i]))
			add(f, "envelope %Q has no comparison criterion", envs->names[i]);
}

/* "Changing any envelope field creates a new envelope": a witnessed effect
 * that records the digest of the envelope it was witnessed in must find
 * that envelope unchanged. The witness stays valid for the envelope it was
 * made in; the change belongs under a new envelope id. */
void graph_validate_witness_envelopes(const struct graph *g, struct findings *f)
{
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];
		const char *was = l->has_witnessed ? l->witnessed.envelope_digest : NULL;
		const struct envelope *env;
		char now[JSON_DIGEST_LEN + 1];
		struct err e;

		if (!was)
			continue;
		if (strncmp(was, "sha256:", 7) || !digest_is_hex(was + 7)) {
			add(f, "lever %Q witnessed.envelope_digest: must be \"sha256:\" and 64 "
			       "lowercase hex digits, got %Q", l->id, was);
			continue;
		}
		env = l->app.envelope_id ? graph_envelope(g, l->app.envelope_id) : NULL;
		if (!env || graph_envelope_digest(env, now, &e) < 0 || eq(now, was))
			continue;	/* an unknown envelope is validate_levers' finding */
		add(f, "lever %Q was witnessed in envelope %Q as %s; the envelope is %s now: "
		       "an envelope changed under its witness; changing any envelope field "
		       "creates a new envelope: restore envelope %Q as it was and put the change "
		       "in a new envelope (a new id), where the lever is measured again "
		       "(fak native-performance --verify-witnesses names the fields)",
		    l->id, env->id, was, now, env->id);
	}
}

void graph_validate(const struct graph *g, struct findings *f)
{
	struct reg rungs, envs, levers;
	struct cyc lever_edges;
	struct strbuf cycle = STRBUF_INIT;

	reg_init(&rungs, &g->rung_ids, g->nr_rungs);
	reg_init(&envs, &g->envelope_ids, g->nr_envelopes);
	reg_init(&levers, &g->lever_ids, g->nr_levers);
	for (size_t i = 0; i < g->nr_rungs; i++)
		rungs.names[i] = g->rungs[i].id;
	for (size_t i = 0; i < g->nr_envelopes; i++)
		envs.names[i] = g->envelopes[i].id;
	for (size_t i = 0; i < g->nr_levers; i++)
		levers.names[i] = g->levers[i].id;

	if (!eq(g->schema, GRAPH_SCHEMA))
		add(f, "schema %Q must be %Q", g->schema, GRAPH_SCHEMA);
	if (g->has_legacy && !eq(g->comparison.classification, "comparison"))
		add(f, "comparison classification must be comparison");
	if (g->has_legacy)
		check_throughput(f, &g->comparison, "comparison");

	validate_rungs(g, f, &rungs);
	validate_features(g, f, &rungs);
	cycle_check(f, "dependency cycle: ", &rungs, rung_deps, g->rungs);
	validate_envelopes(g, f, &envs);
	validate_ids(g, f);
	validate_pins(g, f);
	validate_legacy(g, f);
	validate_levers(g, f, &envs, &levers, &lever_edges);
	for (size_t i = 0; i < g->nr_levers; i++)
		if (g->levers[i].has_requirement)
			validate_requirement(g, f, &g->levers[i]);
	if (find_cycle(&lever_edges, levers.names, &cycle))
		add(f, "lever dependency cycle: %s", cycle.buf);
	validate_criteria(g, f, &envs);
	graph_validate_witness_envelopes(g, f);

	reg_release(&rungs);
	reg_release(&envs);
	reg_release(&levers);
	free(lever_edges.dep_start);
	free(lever_edges.deps);
	sb_release(&cycle);
	findings_sort(f);
}
