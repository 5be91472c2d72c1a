/* Strict decoding of a graph document into struct graph. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "graph/graph.h"

extern const char embedded_native_performance_graph_json[];
extern const size_t embedded_native_performance_graph_json_len;

static const char *const envelope_keys[] = {
	"id", "model", "model_revision", "artifact_sha256", "quantization", "hardware", "memory_gib",
	"engine", "backend", "forward_path", "prompt_tokens", "decode_tokens", "repetitions",
	"temperature", "throughput_metric", "comparability_rule", NULL
};
static const char *const throughput_keys[] = {
	"tokens_per_second", "classification", "engine", "comparability", "observed_on",
	"provenance", "note", NULL
};

#define TRY(x)                  \
	do {                    \
		if ((x) < 0)    \
			return -1; \
	} while (0)
#define REQ JD_REQUIRED

static int decode_envelope(const json_t *v, const struct jpath *at, struct envelope *env, struct err *e)
{
	TRY(jd_object(v, at, envelope_keys, e));
	TRY(jd_str(v, at, "id", REQ, &env->id, e));
	TRY(jd_str(v, at, "model", REQ, &env->model, e));
	TRY(jd_str(v, at, "model_revision", REQ, &env->model_revision, e));
	TRY(jd_str(v, at, "artifact_sha256", REQ, &env->artifact_sha256, e));
	TRY(jd_str(v, at, "quantization", REQ, &env->quantization, e));
	TRY(jd_str(v, at, "hardware", REQ, &env->hardware, e));
	TRY(jd_int(v, at, "memory_gib", REQ, &env->memory_gib, e));
	TRY(jd_str(v, at, "engine", REQ, &env->engine, e));
	TRY(jd_str(v, at, "backend", REQ, &env->backend, e));
	TRY(jd_str(v, at, "forward_path", REQ, &env->forward_path, e));
	TRY(jd_int(v, at, "prompt_tokens", REQ, &env->prompt_tokens, e));
	TRY(jd_int(v, at, "decode_tokens", REQ, &env->decode_tokens, e));
	TRY(jd_int(v, at, "repetitions", REQ, &env->repetitions, e));
	TRY(jd_int(v, at, "temperature", REQ, &env->temperature, e));
	TRY(jd_str(v, at, "throughput_metric", REQ, &env->throughput_metric, e));
	TRY(jd_str(v, at, "comparability_rule", REQ, &env->comparability_rule, e));
	return 0;
}

static int decode_throughput(const json_t *v, const struct jpath *at, struct throughput *t, struct err *e)
{
	TRY(jd_object(v, at, throughput_keys, e));
	TRY(jd_num(v, at, "tokens_per_second", REQ, &t->tokens_per_second, e));
	TRY(jd_str(v, at, "classification", REQ, &t->classification, e));
	TRY(jd_str(v, at, "engine", REQ, &t->engine, e));
	TRY(jd_str(v, at, "comparability", REQ, &t->comparability, e));
	TRY(jd_str(v, at, "observed_on", REQ, &t->observed_on, e));
	TRY(jd_str(v, at, "provenance", REQ, &t->provenance, e));
	TRY(jd_str(v, at, "note", REQ, &t->note, e));
	return 0;
}

static int decode_strlist(const json_t *obj, const struct jpath *at, const char *key, struct strlist *l,
			  struct err *e)
{
	const json_t *arr;
	struct jpath kp = JP_KEY(at, key);

	TRY(jd_arr(obj, at, key, REQ, true, &arr, e));
	l->is_null = !arr;
	l->n = arr ? json_array_size(arr) : 0;
	l->v = l->n ? xmalloc(xmul(l->n, sizeof(*l->v))) : NULL;
	for (size_t i = 0; i < l->n; i++)
		TRY(jd_str_at(arr, &kp, i, &l->v[i], e));
	return 0;
}

static int decode_issue(const json_t *obj, const struct jpath *at, const char *key, struct issue_ref *r,
			struct err *e)
{
	static const char *const keys[] = { "number", "url", NULL };
	const json_t *v;
	struct jpath kp = JP_KEY(at, key);

	TRY(jd_obj(obj, at, key, REQ, &v, e));
	TRY(jd_object(v, &kp, keys, e));
	TRY(jd_int(v, &kp, "number", REQ, &r->number, e));
	TRY(jd_str(v, &kp, "url", REQ, &r->url, e));
	return 0;
}

static int decode_rung(const json_t *v, const struct jpath *at, struct rung *r, struct err *e)
{
	static const char *const keys[] = { "id", "name", "dependency_ids", "enabled", "status",
					    "expected", "witnessed", "gap", "next_issue", NULL };
	static const char *const exp_keys[] = { "floor_tokens_per_second", "roof_tokens_per_second",
						"classification", "provenance", NULL };
	const json_t *x, *w;
	struct jpath xp = JP_KEY(at, "expected"), wp = JP_KEY(at, "witnessed");

	TRY(jd_object(v, at, keys, e));
	TRY(jd_str(v, at, "id", REQ, &r->id, e));
	TRY(jd_str(v, at, "name", REQ, &r->name, e));
	TRY(decode_strlist(v, at, "dependency_ids", &r->deps, e));
	TRY(jd_bool(v, at, "enabled", REQ, &r->enabled, e));
	TRY(jd_str(v, at, "status", REQ, &r->status, e));
	TRY(jd_obj(v, at, "expected", REQ, &x, e));
	TRY(jd_object(x, &xp, exp_keys, e));
	TRY(jd_num(x, &xp, "floor_tokens_per_second", REQ, &r->expected.floor, e));
	TRY(jd_num(x, &xp, "roof_tokens_per_second", REQ, &r->expected.roof, e));
	TRY(jd_str(x, &xp, "classification", REQ, &r->expected.classification, e));
	TRY(jd_str(x, &xp, "provenance", REQ, &r->expected.provenance, e));
	TRY(jd_obj_or_null(v, at, "witnessed", REQ, &w, e));
	r->has_witnessed = w != NULL;
	if (w)
		TRY(decode_throughput(w, &wp, &r->witnessed, e));
	TRY(jd_str(v, at, "gap", REQ, &r->gap, e));
	TRY(decode_issue(v, at, "next_issue", &r->next_issue, e));
	return 0;
}

static int decode_feature(const json_t *v, const struct jpath *at, struct feature *f, struct err *e)
{
	static const char *const keys[] = { "id", "name", "rung_id", "enabled", "status", "observable", NULL };

	TRY(jd_object(v, at, keys, e));
	TRY(jd_str(v, at, "id", REQ, &f->id, e));
	TRY(jd_str(v, at, "name", REQ, &f->name, e));
	TRY(jd_str(v, at, "rung_id", REQ, &f->rung_id, e));
	TRY(jd_bool(v, at, "enabled", REQ, &f->enabled, e));
	TRY(jd_str(v, at, "status", REQ, &f->status, e));
	TRY(jd_str(v, at, "observable", REQ, &f->observable, e));
	return 0;
}

static int decode_lever(const json_t *v, const struct jpath *at, struct lever *l, struct err *e)
{
	static const char *const keys[] = { "id", "name", "applicability", "enabled", "status",
					    "dependency_ids", "conflict_ids", "expected", "witnessed",
					    "owning_issue", "next_witness", NULL };
	static const char *const app_keys[] = { "envelope_id", "platform", "backend", NULL };
	static const char *const exp_keys[] = { "summary", "classification", "provenance", NULL };
	static const char *const wit_keys[] = { "summary", "classification", "provenance", "receipt", NULL };
	const json_t *a, *x, *w;
	struct jpath ap = JP_KEY(at, "applicability"), xp = JP_KEY(at, "expected"),
		     wp = JP_KEY(at, "witnessed");

	TRY(jd_object(v, at, keys, e));
	TRY(jd_str(v, at, "id", REQ, &l->id, e));
	TRY(jd_str(v, at, "name", REQ, &l->name, e));
	TRY(jd_obj(v, at, "applicability", REQ, &a, e));
	TRY(jd_object(a, &ap, app_keys, e));
	TRY(jd_str(a, &ap, "envelope_id", REQ, &l->app.envelope_id, e));
	TRY(jd_str(a, &ap, "platform", REQ, &l->app.platform, e));
	TRY(jd_str(a, &ap, "backend", REQ, &l->app.backend, e));
	TRY(jd_bool(v, at, "enabled", REQ, &l->enabled, e));
	TRY(jd_str(v, at, "status", REQ, &l->status, e));
	TRY(decode_strlist(v, at, "dependency_ids", &l->deps, e));
	TRY(decode_strlist(v, at, "conflict_ids", &l->conflicts, e));
	TRY(jd_obj(v, at, "expected", REQ, &x, e));
	TRY(jd_object(x, &xp, exp_keys, e));
	TRY(jd_str(x, &xp, "summary", REQ, &l->expected.summary, e));
	TRY(jd_str(x, &xp, "classification", REQ, &l->expected.classification, e));
	TRY(jd_str(x, &xp, "provenance", REQ, &l->expected.provenance, e));
	TRY(jd_obj_or_null(v, at, "witnessed", REQ, &w, e));
	l->has_witnessed = w != NULL;
	if (w) {
		TRY(jd_object(w, &wp, wit_keys, e));
		TRY(jd_str(w, &wp, "summary", REQ, &l->witnessed.summary, e));
		TRY(jd_str(w, &wp, "classification", REQ, &l->witnessed.classification, e));
		TRY(jd_str(w, &wp, "provenance", REQ, &l->witnessed.provenance, e));
		TRY(jd_str(w, &wp, "receipt", REQ, &l->witnessed.receipt, e));
	}
	TRY(decode_issue(v, at, "owning_issue", &l->owner, e));
	TRY(jd_str(v, at, "next_witness", REQ, &l->next_witness, e));
	return 0;
}

static int decode_criterion(const json_t *v, const struct jpath *at, struct criterion *c, struct err *e)
{
	static const char *const keys[] = {
		"schema", "id", "version", "output_class", "minimum_repetitions",
		"maximum_noise_percent", "investigate_drop_percent", "regression_drop_percent",
		"minimum_throughput_tokens_per_second", "quality_metric", "minimum_quality_score",
		"quality_higher_is_better", NULL
	};

	c->json = v;
	TRY(jd_object(v, at, keys, e));
	TRY(jd_str(v, at, "schema", REQ, &c->schema, e));
	TRY(jd_str(v, at, "id", REQ, &c->id, e));
	TRY(jd_int(v, at, "version", REQ, &c->version, e));
	TRY(jd_str(v, at, "output_class", REQ, &c->output_class, e));
	TRY(jd_int(v, at, "minimum_repetitions", REQ, &c->minimum_repetitions, e));
	TRY(jd_num(v, at, "maximum_noise_percent", REQ, &c->maximum_noise_percent, e));
	TRY(jd_num(v, at, "investigate_drop_percent", REQ, &c->investigate_drop_percent, e));
	TRY(jd_num(v, at, "regression_drop_percent", REQ, &c->regression_drop_percent, e));
	TRY(jd_num(v, at, "minimum_throughput_tokens_per_second", REQ,
		   &c->minimum_throughput_tokens_per_second, e));
	TRY(jd_str(v, at, "quality_metric", REQ, &c->quality_metric, e));
	TRY(jd_num(v, at, "minimum_quality_score", REQ, &c->minimum_quality_score, e));
	TRY(jd_bool(v, at, "quality_higher_is_better", REQ, &c->quality_higher_is_better, e));
	return 0;
}

/* Decode array member `key` of n elements of size sz with fn. */
#define DECODE_ARRAY(root, key, arr_out, nr_out, fn)                                      \
	do {                                                                             \
		const json_t *a_;                                                        \
		struct jpath ap_ = JP_KEY(NULL, key);                                    \
		TRY(jd_arr(root, NULL, key, REQ, false, &a_, e));                        \
		(nr_out) = json_array_size(a_);                                          \
		(arr_out) = xcalloc((nr_out) ? (nr_out) : 1, sizeof(*(arr_out)));        \
		for (size_t i_ = 0; i_ < (nr_out); i_++) {                               \
			struct jpath ip_ = JP_IDX(&ap_, i_);                             \
			TRY(fn(json_array_get(a_, i_), &ip_, &(arr_out)[i_], e));        \
		}                                                                        \
	} while (0)

static int decode_graph(struct graph *g, struct err *e)
{
	static const char *const keys[] = { "schema", "envelope", "comparison", "rungs", "features",
					    "envelopes", "levers", "criteria", NULL };
	const json_t *root = g->doc, *env, *cmp, *crit;
	struct jpath ep = JP_KEY(NULL, "envelope"), cp = JP_KEY(NULL, "comparison"),
		     kp = JP_KEY(NULL, "criteria");
	const char *key;
	json_t *val;
	size_t i = 0;

	TRY(jd_object(root, NULL, keys, e));
	TRY(jd_str(root, NULL, "schema", REQ, &g->schema, e));
	TRY(jd_obj(root, NULL, "envelope", REQ, &env, e));
	TRY(decode_envelope(env, &ep, &g->envelope, e));
	TRY(jd_obj(root, NULL, "comparison", REQ, &cmp, e));
	TRY(decode_throughput(cmp, &cp, &g->comparison, e));
	DECODE_ARRAY(root, "rungs", g->rungs, g->nr_rungs, decode_rung);
	DECODE_ARRAY(root, "features", g->features, g->nr_features, decode_feature);
	DECODE_ARRAY(root, "envelopes", g->envelopes, g->nr_envelopes, decode_envelope);
	DECODE_ARRAY(root, "levers", g->levers, g->nr_levers, decode_lever);
	TRY(jd_obj(root, NULL, "criteria", REQ, &crit, e));
	g->nr_criteria = json_object_size(crit);
	g->criteria = xcalloc(g->nr_criteria ? g->nr_criteria : 1, sizeof(*g->criteria));
	json_object_foreach((json_t *)(uintptr_t)crit, key, val) {
		struct jpath ip = JP_KEY(&kp, key);

		g->criteria[i].envelope_id = key;
		TRY(decode_criterion(val, &ip, &g->criteria[i], e));
		i++;
	}

	/* first occurrence wins; duplicates are reported by graph_validate */
	for (i = 0; i < g->nr_levers; i++)
		strmap_put(&g->lever_ids, g->levers[i].id, i, NULL);
	for (i = 0; i < g->nr_envelopes; i++)
		strmap_put(&g->envelope_ids, g->envelopes[i].id, i, NULL);
	for (i = 0; i < g->nr_rungs; i++)
		strmap_put(&g->rung_ids, g->rungs[i].id, i, NULL);
	return 0;
}

int graph_load_buf(struct graph *g, const char *buf, size_t len, const char *name, struct err *e)
{
	memset(g, 0, sizeof(*g));
	g->doc = json_parse_strict(buf, len, NULL, e);
	if (!g->doc)
		return err_prefix(e, "cannot load graph '%s'", name);
	if (decode_graph(g, e) < 0) {
		graph_release(g);
		return err_prefix(e, "cannot load graph '%s'", name);
	}
	return 0;
}

int graph_load_default(struct graph *g, struct err *e)
{
	return graph_load_buf(g, embedded_native_performance_graph_json,
			      embedded_native_performance_graph_json_len, "embedded default graph", e);
}

int graph_load_file(struct graph *g, const char *path, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	memset(g, 0, sizeof(*g));
	if (file_read(path, GRAPH_MAX_BYTES, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	rc = graph_load_buf(g, sb.buf, sb.len, path, e);
	sb_release(&sb);
	return rc;
}

static void strlist_release(struct strlist *l)
{
	free(l->v);
}

void graph_release(struct graph *g)
{
	for (size_t i = 0; g->rungs && i < g->nr_rungs; i++)
		strlist_release(&g->rungs[i].deps);
	for (size_t i = 0; g->levers && i < g->nr_levers; i++) {
		strlist_release(&g->levers[i].deps);
		strlist_release(&g->levers[i].conflicts);
	}
	free(g->rungs);
	free(g->features);
	free(g->envelopes);
	free(g->levers);
	free(g->criteria);
	strmap_release(&g->lever_ids);
	strmap_release(&g->envelope_ids);
	strmap_release(&g->rung_ids);
	json_decref(g->doc);
	memset(g, 0, sizeof(*g));
}
