/* Lookups, next selection and JSON serialisation of the graph. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/jfields.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "graph/graph.h"

const struct lever *graph_lever(const struct graph *g, const char *id)
{
	size_t i;

	return strmap_get(&g->lever_ids, id, &i) ? &g->levers[i] : NULL;
}

const struct envelope_serving *graph_serving_pin(const struct envelope *env,
						 const struct lever *l)
{
	if (l && l->has_requirement && l->requirement.has_serving)
		return &l->requirement.serving;
	return env && env->has_serving ? &env->serving : NULL;
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

_Static_assert(GRAPH_ID_MAX == STR_ID_MAX, "an id is str_id_problem's form");

const char *graph_id_problem(const char *s)
{
	return str_id_problem(s);
}

double graph_criterion_threshold(const struct criterion *c)
{
	return c->has_practical_threshold ? c->practical_threshold_percent
					  : c->maximum_noise_percent;
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

/* The flat records and flat heads of records, in the documented order. */
static const struct jfield throughput_fields[] = {
	JF(JF_NUM, struct throughput, tokens_per_second, JF_REQ),
	JF(JF_STR, struct throughput, classification, JF_REQ),
	JF(JF_STR, struct throughput, engine, JF_REQ),
	JF(JF_STR, struct throughput, comparability, JF_REQ),
	JF(JF_STR, struct throughput, observed_on, JF_REQ),
	JF(JF_STR, struct throughput, provenance, JF_REQ),
	JF(JF_STR, struct throughput, note, JF_REQ),
	JF_END,
};

static const struct jfield issue_fields[] = {
	JF(JF_LLONG, struct issue_ref, number, JF_REQ),
	JF(JF_STR, struct issue_ref, url, JF_REQ),
	JF_END,
};

static const struct jfield rung_expected_fields[] = {
	JF_KEY("floor_tokens_per_second", JF_NUM, struct rung, expected.floor, JF_REQ),
	JF_KEY("roof_tokens_per_second", JF_NUM, struct rung, expected.roof, JF_REQ),
	JF_KEY("classification", JF_STR, struct rung, expected.classification, JF_REQ),
	JF_KEY("provenance", JF_STR, struct rung, expected.provenance, JF_REQ),
	JF_END,
};

static const struct jfield feature_fields[] = {
	JF(JF_STR, struct feature, id, JF_REQ),
	JF(JF_STR, struct feature, name, JF_REQ),
	JF(JF_STR, struct feature, rung_id, JF_REQ),
	JF(JF_BOOL, struct feature, enabled, JF_REQ),
	JF(JF_STR, struct feature, status, JF_REQ),
	JF(JF_STR, struct feature, observable, JF_REQ),
	JF_END,
};

static const struct jfield lever_app_fields[] = {
	JF_KEY("envelope_id", JF_STR, struct lever, app.envelope_id, JF_REQ),
	JF_KEY("platform", JF_STR, struct lever, app.platform, JF_REQ),
	JF_KEY("backend", JF_STR, struct lever, app.backend, JF_REQ),
	JF_END,
};

static const struct jfield lever_expected_fields[] = {
	JF_KEY("summary", JF_STR, struct lever, expected.summary, JF_REQ),
	JF_KEY("classification", JF_STR, struct lever, expected.classification, JF_REQ),
	JF_KEY("provenance", JF_STR, struct lever, expected.provenance, JF_REQ),
	JF_END,
};

static const struct jfield lever_witnessed_fields[] = {
	JF_KEY("summary", JF_STR, struct lever, witnessed.summary, JF_REQ),
	JF_KEY("classification", JF_STR, struct lever, witnessed.classification, JF_REQ),
	JF_KEY("provenance", JF_STR, struct lever, witnessed.provenance, JF_REQ),
	JF_KEY("receipt", JF_STR, struct lever, witnessed.receipt, JF_REQ),
	JF_KEY("envelope_digest", JF_STR, struct lever, witnessed.envelope_digest, JF_OMIT),
	JF_END,
};

static const struct jfield criterion_fields[] = {
	JF(JF_STR, struct criterion, schema, JF_REQ),
	JF(JF_STR, struct criterion, id, JF_REQ),
	JF(JF_LLONG, struct criterion, version, JF_REQ),
	JF(JF_STR, struct criterion, output_class, JF_REQ),
	JF(JF_LLONG, struct criterion, minimum_repetitions, JF_REQ),
	JF(JF_NUM, struct criterion, maximum_noise_percent, JF_REQ),
	JF(JF_NUM, struct criterion, investigate_drop_percent, JF_REQ),
	JF(JF_NUM, struct criterion, regression_drop_percent, JF_REQ),
	JF(JF_NUM, struct criterion, minimum_throughput_tokens_per_second, JF_REQ),
	JF(JF_STR, struct criterion, quality_metric, JF_REQ),
	JF(JF_NUM, struct criterion, minimum_quality_score, JF_REQ),
	JF(JF_BOOL, struct criterion, quality_higher_is_better, JF_REQ),
	JF_END,
};

/* The GPU policy but its disqualifying_clocks_event_reasons; targets of 0 are omitted. */
static const struct jfield gpu_policy_fields[] = {
	JF(JF_NUM, struct gpu_policy, minimum_coverage_ratio, JF_REQ),
	JF(JF_BOOL, struct gpu_policy, allow_unreadable, JF_REQ),
	JF(JF_NUM, struct gpu_policy, maximum_sm_clock_drift_percent, JF_REQ),
	JF(JF_NUM, struct gpu_policy, maximum_memory_clock_drift_percent, JF_REQ),
	JF(JF_LLONG, struct gpu_policy, target_sm_clock_mhz, JF_OMIT),
	JF(JF_LLONG, struct gpu_policy, target_memory_clock_mhz, JF_OMIT),
	JF_END,
};

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
static json_t *serving_json(const struct envelope_serving *s)
{
	json_t *o = jobj();

	jset_str(o, "trace_sha256", s->trace_sha256);
	jset_str(o, "primary_metric", s->primary_metric);
	jset_str(o, "direction", s->direction);
	return o;
}

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
	jset_num(o, "temperature", v->temperature);
	jset_str(o, "throughput_metric", v->throughput_metric);
	jset_str(o, "comparability_rule", v->comparability_rule);
	if (pinned && !v->required_evidence.is_null)
		jset_new(o, "required_evidence", strlist_json(&v->required_evidence));
	if (pinned && v->has_serving)
		jset_new(o, "serving", serving_json(&v->serving));
	return o;
}

static json_t *envelope_json(const struct envelope *v)
{
	return envelope_json_as(v, true);
}

static json_t *throughput_json(const struct throughput *t)
{
	return jf_to_json(throughput_fields, t);
}

static json_t *issue_json(const struct issue_ref *r)
{
	return jf_to_json(issue_fields, r);
}

static json_t *rung_json(const struct rung *r)
{
	json_t *o = jobj();

	jset_str(o, "id", r->id);
	jset_str(o, "name", r->name);
	jset_new(o, "dependency_ids", strlist_json(&r->deps));
	jset_bool(o, "enabled", r->enabled);
	jset_str(o, "status", r->status);
	jset_new(o, "expected", jf_to_json(rung_expected_fields, r));
	jset_new(o, "witnessed", r->has_witnessed ? throughput_json(&r->witnessed) : json_null());
	jset_str(o, "gap", r->gap);
	jset_new(o, "next_issue", issue_json(&r->next_issue));
	return o;
}

static json_t *feature_json(const struct feature *x)
{
	return jf_to_json(feature_fields, x);
}

json_t *graph_lever_json(const struct lever *l)
{
	json_t *o = jobj();

	jset_str(o, "id", l->id);
	jset_str(o, "name", l->name);
	jset_new(o, "applicability", jf_to_json(lever_app_fields, l));
	jset_bool(o, "enabled", l->enabled);
	jset_str(o, "status", l->status);
	jset_new(o, "dependency_ids", strlist_json(&l->deps));
	jset_new(o, "conflict_ids", strlist_json(&l->conflicts));
	jset_new(o, "expected", jf_to_json(lever_expected_fields, l));
	jset_new(o, "witnessed", l->has_witnessed ? jf_to_json(lever_witnessed_fields, l)
						   : json_null());
	jset_new(o, "owning_issue", issue_json(&l->owner));
	jset_str(o, "next_witness", l->next_witness);
	if (l->has_requirement)
		jset_new(o, "next_witness_requirement", graph_requirement_json(l));
	return o;
}

json_t *graph_requirement_json(const struct lever *l)
{
	const struct witness_requirement *r = &l->requirement;
	json_t *o, *m;

	if (!l->has_requirement)
		return json_null();
	o = jobj();
	m = jarr();
	jset_str(o, "kind", r->kind);
	for (size_t i = 0; i < r->nr_metrics; i++) {
		json_t *t = jobj();

		jset_str(t, "metric", r->metrics[i].metric);
		jset_str(t, "op", r->metrics[i].op);
		jset_num(t, "value", r->metrics[i].value);
		jpush_new(m, t);
	}
	jset_new(o, "metrics", m);
	if (!r->engines.is_null)
		jset_new(o, "engines", strlist_json(&r->engines));
	if (r->has_serving)
		jset_new(o, "serving", serving_json(&r->serving));
	return o;
}

static const char *const requirement_kinds[] = { "decode", "numerical", "serving", "parity" };
static const char *const threshold_ops[] = { ">=", "<=", "==" };

static bool one_of(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(s, v[i]))
			return true;
	return false;
}

bool graph_requirement_kind_valid(const char *kind)
{
	return one_of(kind, requirement_kinds, 4);
}

bool graph_threshold_op_valid(const char *op)
{
	return one_of(op, threshold_ops, 3);
}

bool graph_threshold_met(const struct witness_threshold *t, double v)
{
	if (!strcmp(t->op, ">="))
		return v >= t->value;
	if (!strcmp(t->op, "<="))
		return v <= t->value;
	return v == t->value;
}

static const struct jfield host_policy_fields[] = {
	JF(JF_NUM, struct host_policy, maximum_non_sut_cpu_percent, JF_REQ),
	JF(JF_NUM, struct host_policy, maximum_sampler_duty_percent, JF_REQ),
	JF(JF_NUM, struct host_policy, maximum_psi_stall_percent, JF_REQ),
	JF_END,
};

json_t *graph_criterion_json(const struct criterion *c)
{
	json_t *o = jf_to_json(criterion_fields, c);

	if (c->has_practical_threshold)
		jset_num(o, "practical_threshold_percent", c->practical_threshold_percent);
	if (c->has_review_period)
		jset_int(o, "review_period_days", c->review_period_days);
	if (c->has_gpu_policy) {
		const struct gpu_policy *gp = &c->gpu_policy;
		json_t *x = jf_to_json(gpu_policy_fields, gp), *r = jarr();

		for (size_t i = 0; i < gp->disqualifying_reasons.n; i++)
			jpush_new(r, json_string(gp->disqualifying_reasons.v[i]));
		jset_new(x, "disqualifying_clocks_event_reasons", r);
		jset_new(o, "gpu_policy", x);
	}
	if (c->has_host_policy)
		jset_new(o, "host_policy", graph_host_policy_json(&c->host_policy));
	return o;
}

json_t *graph_host_policy_json(const struct host_policy *h)
{
	return jf_to_json(host_policy_fields, h);
}

int graph_criterion_digest(const struct criterion *c, char out[72], struct err *e)
{
	json_t *o = graph_criterion_json(c);
	int rc = json_digest(o, NULL, out, e);

	json_decref(o);
	return rc;
}

int graph_envelope_digest(const struct envelope *v, char out[72], struct err *e)
{
	json_t *o = envelope_json(v);
	int rc = json_digest(o, NULL, out, e);

	json_decref(o);
	return rc;
}

json_t *graph_envelope_json(const struct envelope *v)
{
	return envelope_json(v);
}

char *graph_envelope_changes(const json_t *was, const struct envelope *now)
{
	json_t *o = envelope_json(now), *v;
	struct strbuf sb = STRBUF_INIT;
	const char *k;

	json_object_foreach (o, k, v) {
		const json_t *w = json_object_get(was, k);
		char *a, *b;

		/* numbers by value: 0 read back from a receipt is the graph's
		 * 0.0 (fak writes numbers as JCS does) */
		if (w && (json_equal(w, v) || (json_is_number(w) && json_is_number(v) &&
						json_number_value(w) == json_number_value(v))))
			continue;
		a = w ? json_dumps(w, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
		b = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		sb_addf(&sb, "%s%s: %s then, %s now", sb.len ? "; " : "", k, a ? a : "(absent)",
			b);
		free(a);
		free(b);
	}
	json_object_foreach ((json_t *)(uintptr_t)was, k, v)
		if (!json_object_get(o, k))
			sb_addf(&sb, "%s%s: absent now", sb.len ? "; " : "", k);
	json_decref(o);
	if (!sb.len) {
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb, NULL);
}

enum graph_envelope_match graph_envelope_match(const json_t *was, const char *was_digest,
					       const struct envelope *now,
					       char now_digest[72], char **changes)
{
	char rec[JSON_DIGEST_LEN + 1];
	struct err e;

	*changes = NULL;
	if (json_digest(was, NULL, rec, &e) < 0 || strcmp(rec, was_digest))
		return GRAPH_ENVELOPE_FORGED;
	if (graph_envelope_digest(now, now_digest, &e) < 0)
		BUG("envelope digest: %s", e.msg);
	if (!strcmp(now_digest, was_digest))
		return GRAPH_ENVELOPE_SAME;
	*changes = graph_envelope_changes(was, now);
	if (!*changes)
		*changes = xstrdup("no member differs");
	return GRAPH_ENVELOPE_CHANGED;
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
	if (g->has_legacy) {	/* a graph written by fak for a new engine has none */
		jset_new(doc, "envelope", envelope_json_as(&g->envelope, false));
		jset_new(doc, "comparison", throughput_json(&g->comparison));
		ARRAY_JSON("rungs", g->rungs, g->nr_rungs, rung_json);
		ARRAY_JSON("features", g->features, g->nr_features, feature_json);
	}
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
			jset_new(crit, g->criteria[i].envelope_id,
				 graph_criterion_json(&g->criteria[i]));
	jset_new(doc, "criteria", crit);
	return doc;
}
