/* Lookups, next selection and JSON serialisation of the graph. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/jfields.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "graph/fields.h"
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

/* pinned: an element of envelopes[], with platform and warmups; the
 * legacy top-level envelope keeps the original members only */
static json_t *envelope_json_as(const struct envelope *v, bool pinned)
{
	struct envelope w = *v;

	if (!pinned)
		return jf_to_json(graph_legacy_envelope_fields, v);
	w.platform = graph_envelope_platform(v);
	return jf_to_json(graph_envelope_fields, &w);
}

static json_t *envelope_json(const struct envelope *v)
{
	return envelope_json_as(v, true);
}

static json_t *throughput_json(const struct throughput *t)
{
	return jf_to_json(graph_throughput_fields, t);
}

static json_t *rung_json(const struct rung *r)
{
	return jf_to_json(graph_rung_fields, r);
}

static json_t *feature_json(const struct feature *x)
{
	return jf_to_json(graph_feature_fields, x);
}

json_t *graph_lever_json(const struct lever *l)
{
	return jf_to_json(graph_lever_fields, l);
}

json_t *graph_requirement_json(const struct lever *l)
{
	return l->has_requirement ? jf_to_json(graph_requirement_fields, &l->requirement)
				  : json_null();
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

json_t *graph_criterion_json(const struct criterion *c)
{
	return jf_to_json(graph_criterion_fields, c);
}

json_t *graph_host_policy_json(const struct host_policy *h)
{
	return jf_to_json(graph_host_policy_fields, h);
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
