/* Lookups, next selection and JSON serialisation of the graph. */
#include <string.h>

#include "base/json.h"
#include "graph/graph.h"

const struct lever *graph_lever(const struct graph *g, const char *id)
{
	size_t i;

	return strmap_get(&g->lever_ids, id, &i) ? &g->levers[i] : NULL;
}

const struct envelope *graph_envelope(const struct graph *g, const char *id)
{
	size_t i;

	return strmap_get(&g->envelope_ids, id, &i) ? &g->envelopes[i] : NULL;
}

const struct criterion *graph_criterion(const struct graph *g, const char *envelope_id)
{
	for (size_t i = 0; i < g->nr_criteria; i++)
		if (!strcmp(g->criteria[i].envelope_id, envelope_id))
			return &g->criteria[i];
	return NULL;
}

const char *graph_envelope_platform(const struct envelope *v)
{
	/* graphs older than the platform member pin these two pairs
	 * (docs/graph.md, "Envelope") */
	if (v->platform)
		return v->platform;
	if (!strcmp(v->backend, "metal"))
		return "darwin/arm64";
	if (!strcmp(v->backend, "cuda"))
		return "linux/amd64+nvidia-a100";
	return NULL;
}

static bool lower_or_digit(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Length of the part of a platform at s: a lowercase letter (or, with
 * digit_first, a digit), then lowercase letters, digits and bytes of
 * extra. 0 when s does not start one. */
static size_t platform_part(const char *s, bool digit_first, const char *extra)
{
	size_t n;

	if (!(s[0] >= 'a' && s[0] <= 'z') && !(digit_first && s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (n = 1; s[n] && (lower_or_digit(s[n]) || strchr(extra, s[n])); n++)
		;
	return n;
}

bool graph_platform_valid(const char *s)
{
	size_t n;

	if (strlen(s) > GRAPH_PLATFORM_MAX)
		return false;
	n = platform_part(s, false, "");		/* os */
	if (!n || s[n] != '/')
		return false;
	s += n + 1;
	n = platform_part(s, true, "_");		/* arch */
	if (!n)
		return false;
	s += n;
	if (!*s)
		return true;
	if (*s != '+')
		return false;
	s++;
	n = platform_part(s, true, "._-");		/* accelerator */
	return n && !s[n];
}

bool graph_envelope_requires(const struct envelope *v, const char *what)
{
	if (v->required_evidence.is_null)
		return true;
	for (size_t i = 0; i < v->required_evidence.n; i++)
		if (!strcmp(v->required_evidence.v[i], what))
			return true;
	return false;
}

bool graph_engine_valid(const char *s)
{
	size_t n = platform_part(s, true, "._+-");

	return n && !s[n] && n <= GRAPH_ENGINE_MAX;
}

long long graph_criterion_review_period_days(const struct criterion *c)
{
	return c->has_review_period ? c->review_period_days : GRAPH_DEFAULT_REVIEW_PERIOD_DAYS;
}

const char *graph_unmet_dependency(const struct graph *g, const struct lever *l)
{
	for (size_t i = 0; i < l->deps.n; i++) {
		const struct lever *d = graph_lever(g, l->deps.v[i]);

		if (!d || !d->enabled)
			return l->deps.v[i];
	}
	return NULL;
}

bool graph_lever_ready(const struct graph *g, const struct lever *l)
{
	return !l->enabled && !l->has_witnessed && !graph_unmet_dependency(g, l);
}

const struct lever *graph_next(const struct graph *g, const char *envelope_id)
{
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];

		if (envelope_id && strcmp(l->app.envelope_id, envelope_id))
			continue;
		if (graph_lever_ready(g, l))
			return l;
	}
	return NULL;
}

/* ---- JSON ----------------------------------------------------------- */

static json_t *strlist_json(const struct strlist *l)
{
	json_t *a;

	if (l->is_null)
		return json_null();
	a = jarr();
	for (size_t i = 0; i < l->n; i++)
		jpush_new(a, json_string(l->v[i]));
	return a;
}

/* pinned: an element of envelopes[], with platform and warmups; the
 * legacy top-level envelope keeps the original members only */
static json_t *envelope_json_as(const struct envelope *v, bool pinned)
{
	json_t *o = jobj();

	jset_str(o, "id", v->id);
	jset_str(o, "model", v->model);
	jset_str(o, "model_revision", v->model_revision);
	jset_str(o, "artifact_sha256", v->artifact_sha256);
	jset_str(o, "quantization", v->quantization);
	jset_str(o, "hardware", v->hardware);
	if (pinned)
		jset_str(o, "platform", graph_envelope_platform(v));
	jset_int(o, "memory_gib", v->memory_gib);
	jset_str(o, "engine", v->engine);
	jset_str(o, "backend", v->backend);
	jset_str(o, "forward_path", v->forward_path);
	jset_int(o, "prompt_tokens", v->prompt_tokens);
	jset_int(o, "decode_tokens", v->decode_tokens);
	if (pinned)
		jset_int(o, "warmups", v->warmups);
	jset_int(o, "repetitions", v->repetitions);
	jset_int(o, "temperature", v->temperature);
	jset_str(o, "throughput_metric", v->throughput_metric);
	jset_str(o, "comparability_rule", v->comparability_rule);
	if (pinned && !v->required_evidence.is_null)
		jset_new(o, "required_evidence", strlist_json(&v->required_evidence));
	return o;
}

static json_t *envelope_json(const struct envelope *v)
{
	return envelope_json_as(v, true);
}

static json_t *throughput_json(const struct throughput *t)
{
	json_t *o = jobj();

	jset_num(o, "tokens_per_second", t->tokens_per_second);
	jset_str(o, "classification", t->classification);
	jset_str(o, "engine", t->engine);
	jset_str(o, "comparability", t->comparability);
	jset_str(o, "observed_on", t->observed_on);
	jset_str(o, "provenance", t->provenance);
	jset_str(o, "note", t->note);
	return o;
}

static json_t *issue_json(const struct issue_ref *r)
{
	json_t *o = jobj();

	jset_int(o, "number", r->number);
	jset_str(o, "url", r->url);
	return o;
}

static json_t *rung_json(const struct rung *r)
{
	json_t *o = jobj(), *x = jobj();

	jset_str(o, "id", r->id);
	jset_str(o, "name", r->name);
	jset_new(o, "dependency_ids", strlist_json(&r->deps));
	jset_bool(o, "enabled", r->enabled);
	jset_str(o, "status", r->status);
	jset_num(x, "floor_tokens_per_second", r->expected.floor);
	jset_num(x, "roof_tokens_per_second", r->expected.roof);
	jset_str(x, "classification", r->expected.classification);
	jset_str(x, "provenance", r->expected.provenance);
	jset_new(o, "expected", x);
	jset_new(o, "witnessed", r->has_witnessed ? throughput_json(&r->witnessed) : json_null());
	jset_str(o, "gap", r->gap);
	jset_new(o, "next_issue", issue_json(&r->next_issue));
	return o;
}

static json_t *feature_json(const struct feature *x)
{
	json_t *o = jobj();

	jset_str(o, "id", x->id);
	jset_str(o, "name", x->name);
	jset_str(o, "rung_id", x->rung_id);
	jset_bool(o, "enabled", x->enabled);
	jset_str(o, "status", x->status);
	jset_str(o, "observable", x->observable);
	return o;
}

json_t *graph_lever_json(const struct lever *l)
{
	json_t *o = jobj(), *a = jobj(), *x = jobj();

	jset_str(o, "id", l->id);
	jset_str(o, "name", l->name);
	jset_str(a, "envelope_id", l->app.envelope_id);
	jset_str(a, "platform", l->app.platform);
	jset_str(a, "backend", l->app.backend);
	jset_new(o, "applicability", a);
	jset_bool(o, "enabled", l->enabled);
	jset_str(o, "status", l->status);
	jset_new(o, "dependency_ids", strlist_json(&l->deps));
	jset_new(o, "conflict_ids", strlist_json(&l->conflicts));
	jset_str(x, "summary", l->expected.summary);
	jset_str(x, "classification", l->expected.classification);
	jset_str(x, "provenance", l->expected.provenance);
	jset_new(o, "expected", x);
	if (l->has_witnessed) {
		json_t *w = jobj();

		jset_str(w, "summary", l->witnessed.summary);
		jset_str(w, "classification", l->witnessed.classification);
		jset_str(w, "provenance", l->witnessed.provenance);
		jset_str(w, "receipt", l->witnessed.receipt);
		jset_new(o, "witnessed", w);
	} else {
		jset_new(o, "witnessed", json_null());
	}
	jset_new(o, "owning_issue", issue_json(&l->owner));
	jset_str(o, "next_witness", l->next_witness);
	return o;
}

static json_t *host_policy_json(const struct host_policy *h)
{
	json_t *x = jobj();

	jset_num(x, "maximum_non_sut_cpu_percent", h->maximum_non_sut_cpu_percent);
	jset_num(x, "maximum_sampler_duty_percent", h->maximum_sampler_duty_percent);
	jset_num(x, "maximum_psi_stall_percent", h->maximum_psi_stall_percent);
	return x;
}

json_t *graph_criterion_json(const struct criterion *c)
{
	json_t *o = jobj();

	jset_str(o, "schema", c->schema);
	jset_str(o, "id", c->id);
	jset_int(o, "version", c->version);
	jset_str(o, "output_class", c->output_class);
	jset_int(o, "minimum_repetitions", c->minimum_repetitions);
	jset_num(o, "maximum_noise_percent", c->maximum_noise_percent);
	jset_num(o, "investigate_drop_percent", c->investigate_drop_percent);
	jset_num(o, "regression_drop_percent", c->regression_drop_percent);
	jset_num(o, "minimum_throughput_tokens_per_second", c->minimum_throughput_tokens_per_second);
	jset_str(o, "quality_metric", c->quality_metric);
	jset_num(o, "minimum_quality_score", c->minimum_quality_score);
	jset_bool(o, "quality_higher_is_better", c->quality_higher_is_better);
	if (c->has_review_period)
		jset_int(o, "review_period_days", c->review_period_days);
	if (c->has_gpu_policy) {
		const struct gpu_policy *gp = &c->gpu_policy;
		json_t *x = jobj(), *r = jarr();

		jset_num(x, "minimum_coverage_ratio", gp->minimum_coverage_ratio);
		jset_bool(x, "allow_unreadable", gp->allow_unreadable);
		jset_num(x, "maximum_sm_clock_drift_percent", gp->maximum_sm_clock_drift_percent);
		jset_num(x, "maximum_memory_clock_drift_percent",
			 gp->maximum_memory_clock_drift_percent);
		if (gp->target_sm_clock_mhz)
			jset_int(x, "target_sm_clock_mhz", gp->target_sm_clock_mhz);
		if (gp->target_memory_clock_mhz)
			jset_int(x, "target_memory_clock_mhz", gp->target_memory_clock_mhz);
		for (size_t i = 0; i < gp->disqualifying_reasons.n; i++)
			jpush_new(r, json_string(gp->disqualifying_reasons.v[i]));
		jset_new(x, "disqualifying_clocks_event_reasons", r);
		jset_new(o, "gpu_policy", x);
	}
	if (c->has_host_policy)
		jset_new(o, "host_policy", host_policy_json(&c->host_policy));
	return o;
}

int graph_criterion_digest(const struct criterion *c, char out[72], struct err *e)
{
	json_t *o = graph_criterion_json(c);
	int rc = json_digest(o, NULL, out, e);

	json_decref(o);
	return rc;
}

#define ARRAY_JSON(key, arr, nr, fn)                          \
	do {                                                  \
		json_t *a_ = jarr();                          \
		for (size_t i_ = 0; i_ < (nr); i_++)          \
			jpush_new(a_, fn(&(arr)[i_]));        \
		jset_new(doc, key, a_);                       \
	} while (0)

json_t *graph_to_json(const struct graph *g)
{
	json_t *doc = jobj(), *crit = jobj();

	jset_str(doc, "schema", g->schema);
	jset_new(doc, "envelope", envelope_json_as(&g->envelope, false));
	jset_new(doc, "comparison", throughput_json(&g->comparison));
	ARRAY_JSON("rungs", g->rungs, g->nr_rungs, rung_json);
	ARRAY_JSON("features", g->features, g->nr_features, feature_json);
	ARRAY_JSON("envelopes", g->envelopes, g->nr_envelopes, envelope_json);
	ARRAY_JSON("levers", g->levers, g->nr_levers, graph_lever_json);
	/* envelope order, so the output does not depend on the input's key
	 * order; a criterion of no envelope (an invalid graph) comes last */
	for (size_t i = 0; i < g->nr_envelopes; i++) {
		const struct criterion *c = graph_criterion(g, g->envelopes[i].id);

		if (c && !json_object_get(crit, c->envelope_id))
			jset_new(crit, c->envelope_id, graph_criterion_json(c));
	}
	for (size_t i = 0; i < g->nr_criteria; i++)
		if (!json_object_get(crit, g->criteria[i].envelope_id))
			jset_new(crit, g->criteria[i].envelope_id, graph_criterion_json(&g->criteria[i]));
	jset_new(doc, "criteria", crit);
	return doc;
}
