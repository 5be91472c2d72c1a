/* Strict decoding of a graph document into struct graph with the pull
 * reader: no JSON tree is built, strings are decoded in place in the
 * graph's own copy of the input and borrowed from there. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/findings.h"
#include "base/jsonpull.h"
#include "base/xalloc.h"
#include "graph/graph.h"

extern const char embedded_native_performance_graph_json[];
extern const size_t embedded_native_performance_graph_json_len;

/* Object decoding: `keys` lists every member, all required except those
 * whose bit is set in `optional`; `fn` decodes member i of dst. */
typedef int (*member_fn)(struct jpull *p, const struct jpath *at, size_t i, void *dst);

static int object_opt(struct jpull *p, const struct jpath *at, const char *const *keys,
		      uint64_t optional, member_fn fn, void *dst)
{
	uint64_t seen = 0, all = 0;
	size_t idx, n = 0;
	const char *key;
	int rc;

	while (keys[n])
		all |= (uint64_t)1 << n++;
	if ((rc = jp_object(p, at)) <= 0)
		return rc;
	while ((rc = jp_member(p, at, keys, &seen, &idx, &key)) > 0) {
		struct jpath kp = JP_KEY(at, keys[idx]);

		TRY(fn(p, &kp, idx, dst));
	}
	TRY(rc);
	return jp_require(p, at, keys, seen, all & ~optional);
}

static int object(struct jpull *p, const struct jpath *at, const char *const *keys, member_fn fn,
		  void *dst)
{
	return object_opt(p, at, keys, 0, fn, dst);
}

/* Array of n elements of size sz, each decoded by fn(p, path, elem). */
typedef int (*elem_fn)(struct jpull *p, const struct jpath *at, void *elem);

static int array(struct jpull *p, const struct jpath *at, size_t sz, void **out, size_t *nr,
		 elem_fn fn)
{
	size_t alloc = 0, i;
	char *v = NULL;
	int rc;

	*out = NULL;
	*nr = 0;
	if ((rc = jp_array(p, at)) <= 0)
		return rc;
	for (i = 0; (rc = jp_next(p, i)) > 0; i++) {
		struct jpath ip = JP_IDX(at, i);

		if (i == alloc) {
			alloc = alloc ? alloc * 2 : 4;
			v = xrealloc(v, xmul(alloc, sz));
		}
		memset(v + i * sz, 0, sz);
		*out = v;
		*nr = i + 1;
		TRY(fn(p, &ip, v + i * sz));
	}
	TRY(rc);
	return 0;
}

static int str_elem(struct jpull *p, const struct jpath *at, void *elem)
{
	return jp_string(p, at, (const char **)elem);
}

static int strlist(struct jpull *p, const struct jpath *at, struct strlist *l)
{
	void *v;

	l->is_null = jp_null(p);
	if (l->is_null)
		return 0;
	v = NULL;
	{
		int rc = array(p, at, sizeof(*l->v), &v, &l->n, str_elem);
		l->v = v;
		return rc;
	}
}

/* ---- members -------------------------------------------------------- */

/* The members of the legacy top-level envelope; an element of envelopes[]
 * may add the last two (optional, for graphs written before them). */
#define ENVELOPE_PLATFORM 16
#define ENVELOPE_WARMUPS 17
#define ENVELOPE_REQUIRED_EVIDENCE 18
#define ENVELOPE_SERVING 19
static const char *const envelope_keys[] = {
	"id", "model", "model_revision", "artifact_sha256", "quantization", "hardware",
	"memory_gib", "engine", "backend", "forward_path", "prompt_tokens", "decode_tokens",
	"repetitions", "temperature", "throughput_metric", "comparability_rule", "platform",
	"warmups", "required_evidence", "serving", NULL
};
static const char *const serving_keys[] = { "trace_sha256", "primary_metric", "direction",
					    NULL };

static int serving_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct envelope_serving *v = dst;
	const char **s[] = { &v->trace_sha256, &v->primary_metric, &v->direction };

	return jp_string(p, at, s[i]);
}
static const char *const legacy_envelope_keys[] = {
	"id", "model", "model_revision", "artifact_sha256", "quantization", "hardware",
	"memory_gib", "engine", "backend", "forward_path", "prompt_tokens", "decode_tokens",
	"repetitions", "temperature", "throughput_metric", "comparability_rule", NULL
};

static int envelope_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct envelope *v = dst;
	const char **s[] = { &v->id, &v->model, &v->model_revision, &v->artifact_sha256,
			     &v->quantization, &v->hardware, NULL, &v->engine, &v->backend,
			     &v->forward_path, NULL, NULL, NULL, NULL, &v->throughput_metric,
			     &v->comparability_rule, &v->platform, NULL, NULL };
	long long *n[] = { [6] = &v->memory_gib, [10] = &v->prompt_tokens, [11] = &v->decode_tokens,
			   [12] = &v->repetitions, [ENVELOPE_WARMUPS] = &v->warmups };

	if (i == ENVELOPE_SERVING) {
		v->has_serving = true;
		return object(p, at, serving_keys, serving_member, &v->serving);
	}
	if (i == ENVELOPE_REQUIRED_EVIDENCE) {
		struct strlist *l = &v->required_evidence;
		void *a = NULL;
		int rc = array(p, at, sizeof(*l->v), &a, &l->n, str_elem);

		l->v = a;
		l->is_null = false;
		return rc;
	}
	if (i == 3 && jp_null(p)) {	/* no artifact pinned yet */
		v->artifact_sha256 = NULL;
		return 0;
	}
	if (i == 13)
		return jp_num(p, at, &v->temperature);
	return s[i] ? jp_string(p, at, s[i]) : jp_int(p, at, n[i]);
}

static int envelope(struct jpull *p, const struct jpath *at, void *dst)
{
	struct envelope *v = dst;

	v->warmups = GRAPH_DEFAULT_WARMUPS;
	v->required_evidence.is_null = true;
	return object_opt(p, at, envelope_keys,
			  (uint64_t)1 << ENVELOPE_PLATFORM | (uint64_t)1 << ENVELOPE_WARMUPS |
				  (uint64_t)1 << ENVELOPE_REQUIRED_EVIDENCE |
				  (uint64_t)1 << ENVELOPE_SERVING,
			  envelope_member, dst);
}

static int legacy_envelope(struct jpull *p, const struct jpath *at, struct envelope *v)
{
	v->required_evidence.is_null = true;	/* it cannot say: both, the default */
	return object(p, at, legacy_envelope_keys, envelope_member, v);
}

static const char *const throughput_keys[] = {
	"tokens_per_second", "classification", "engine", "comparability", "observed_on",
	"provenance", "note", NULL
};

static int throughput_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct throughput *t = dst;
	const char **s[] = { NULL, &t->classification, &t->engine, &t->comparability,
			     &t->observed_on, &t->provenance, &t->note };

	return i ? jp_string(p, at, s[i]) : jp_num(p, at, &t->tokens_per_second);
}

static int throughput(struct jpull *p, const struct jpath *at, void *dst)
{
	return object(p, at, throughput_keys, throughput_member, dst);
}

static const char *const issue_keys[] = { "number", "url", NULL };

static int issue_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct issue_ref *r = dst;

	return i ? jp_string(p, at, &r->url) : jp_int(p, at, &r->number);
}

static const char *const range_keys[] = { "floor_tokens_per_second", "roof_tokens_per_second",
					  "classification", "provenance", NULL };

static int range_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct rung *r = dst;

	switch (i) {
	case 0: return jp_num(p, at, &r->expected.floor);
	case 1: return jp_num(p, at, &r->expected.roof);
	case 2: return jp_string(p, at, &r->expected.classification);
	default: return jp_string(p, at, &r->expected.provenance);
	}
}

static const char *const rung_keys[] = { "id", "name", "dependency_ids", "enabled", "status",
					 "expected", "witnessed", "gap", "next_issue", NULL };

static int rung_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct rung *r = dst;

	switch (i) {
	case 0: return jp_string(p, at, &r->id);
	case 1: return jp_string(p, at, &r->name);
	case 2: return strlist(p, at, &r->deps);
	case 3: return jp_bool(p, at, &r->enabled);
	case 4: return jp_string(p, at, &r->status);
	case 5: return object(p, at, range_keys, range_member, r);
	case 6:
		r->has_witnessed = !jp_null(p);
		return r->has_witnessed ? throughput(p, at, &r->witnessed) : 0;
	case 7: return jp_string(p, at, &r->gap);
	default: return object(p, at, issue_keys, issue_member, &r->next_issue);
	}
}

static int rung(struct jpull *p, const struct jpath *at, void *dst)
{
	return object(p, at, rung_keys, rung_member, dst);
}

static const char *const feature_keys[] = { "id", "name", "rung_id", "enabled", "status",
					    "observable", NULL };

static int feature_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct feature *f = dst;
	const char **s[] = { &f->id, &f->name, &f->rung_id, NULL, &f->status, &f->observable };

	return s[i] ? jp_string(p, at, s[i]) : jp_bool(p, at, &f->enabled);
}

static int feature(struct jpull *p, const struct jpath *at, void *dst)
{
	return object(p, at, feature_keys, feature_member, dst);
}

static const char *const app_keys[] = { "envelope_id", "platform", "backend", NULL };
static const char *const effect_keys[] = {
	"summary", "classification", "provenance", "receipt", "envelope_digest", NULL
};
/* envelope_digest: absent from a witness recorded before fak kept it */
#define EFFECT_OPTIONAL ((uint64_t)1 << 4)

static int app_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct lever *l = dst;
	const char **s[] = { &l->app.envelope_id, &l->app.platform, &l->app.backend };

	return jp_string(p, at, s[i]);
}

static int expected_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct lever *l = dst;
	const char **s[] = { &l->expected.summary, &l->expected.classification,
			     &l->expected.provenance };

	return jp_string(p, at, s[i]);
}

static int witnessed_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct lever *l = dst;
	const char **s[] = { &l->witnessed.summary, &l->witnessed.classification,
			     &l->witnessed.provenance, &l->witnessed.receipt,
			     &l->witnessed.envelope_digest };

	return jp_string(p, at, s[i]);
}

static const char *const lever_keys[] = { "id", "name", "applicability", "enabled", "status",
					  "dependency_ids", "conflict_ids", "expected", "witnessed",
					  "owning_issue", "next_witness",
					  "next_witness_requirement", NULL };
#define LEVER_REQUIREMENT 11

static const char *const threshold_keys[] = { "metric", "op", "value", NULL };

static int threshold_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct witness_threshold *t = dst;

	if (i == 2)
		return jp_num(p, at, &t->value);
	return jp_string(p, at, i ? &t->op : &t->metric);
}

static int threshold(struct jpull *p, const struct jpath *at, void *dst)
{
	return object(p, at, threshold_keys, threshold_member, dst);
}

/* engines is optional: only a parity witness names them; serving too: a
 * serving witness of a lever whose envelope pins no trace */
static const char *const requirement_keys[] = { "kind", "metrics", "engines", "serving",
						NULL };

static int requirement_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct witness_requirement *r = dst;
	void *v = NULL;
	int rc;

	if (i == 0)
		return jp_string(p, at, &r->kind);
	if (i == 2)
		return strlist(p, at, &r->engines);
	if (i == 3) {
		r->has_serving = true;
		return object(p, at, serving_keys, serving_member, &r->serving);
	}
	rc = array(p, at, sizeof(*r->metrics), &v, &r->nr_metrics, threshold);
	r->metrics = v;
	return rc;
}

static int lever_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct lever *l = dst;

	switch (i) {
	case 0: return jp_string(p, at, &l->id);
	case 1: return jp_string(p, at, &l->name);
	case 2: return object(p, at, app_keys, app_member, l);
	case 3: return jp_bool(p, at, &l->enabled);
	case 4: return jp_string(p, at, &l->status);
	case 5: return strlist(p, at, &l->deps);
	case 6: return strlist(p, at, &l->conflicts);
	case 7: {
		/* the expected effect has no receipt member */
		static const char *const keys[] = {
			"summary", "classification", "provenance", NULL
		};
		return object(p, at, keys, expected_member, l);
	}
	case 8:
		l->has_witnessed = !jp_null(p);
		return l->has_witnessed ? object_opt(p, at, effect_keys, EFFECT_OPTIONAL,
						     witnessed_member, l) : 0;
	case 9: return object(p, at, issue_keys, issue_member, &l->owner);
	case 10: return jp_string(p, at, &l->next_witness);
	default:
		l->has_requirement = true;
		l->requirement.engines.is_null = true;
		return object_opt(p, at, requirement_keys, (uint64_t)3 << 2, requirement_member,
				  &l->requirement);
	}
}

static int lever(struct jpull *p, const struct jpath *at, void *dst)
{
	return object_opt(p, at, lever_keys, (uint64_t)1 << LEVER_REQUIREMENT, lever_member, dst);
}

static const char *const criterion_keys[] = {
	"schema", "id", "version", "output_class", "minimum_repetitions", "maximum_noise_percent",
	"investigate_drop_percent", "regression_drop_percent",
	"minimum_throughput_tokens_per_second", "quality_metric", "minimum_quality_score",
	"quality_higher_is_better", "review_period_days", "gpu_policy", "host_policy",
	"practical_threshold_percent", NULL
};
#define CRITERION_REVIEW_PERIOD 12
#define CRITERION_GPU_POLICY 13
#define CRITERION_HOST_POLICY 14
#define CRITERION_PRACTICAL_THRESHOLD 15

static const char *const gpu_policy_keys[] = {
	"minimum_coverage_ratio", "allow_unreadable", "maximum_sm_clock_drift_percent",
	"maximum_memory_clock_drift_percent", "target_sm_clock_mhz", "target_memory_clock_mhz",
	"disqualifying_clocks_event_reasons", NULL
};

static int gpu_policy_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct gpu_policy *g = dst;

	switch (i) {
	case 0: return jp_num(p, at, &g->minimum_coverage_ratio);
	case 1: return jp_bool(p, at, &g->allow_unreadable);
	case 2: return jp_num(p, at, &g->maximum_sm_clock_drift_percent);
	case 3: return jp_num(p, at, &g->maximum_memory_clock_drift_percent);
	case 4: return jp_int(p, at, &g->target_sm_clock_mhz);
	case 5: return jp_int(p, at, &g->target_memory_clock_mhz);
	default: return strlist(p, at, &g->disqualifying_reasons);
	}
}

static const char *const host_policy_keys[] = {
	"maximum_non_sut_cpu_percent", "maximum_sampler_duty_percent", "maximum_psi_stall_percent",
	NULL
};

static int host_policy_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct host_policy *h = dst;
	double *const v[] = { &h->maximum_non_sut_cpu_percent, &h->maximum_sampler_duty_percent,
			      &h->maximum_psi_stall_percent };

	return jp_num(p, at, v[i]);
}

static int criterion_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct criterion *c = dst;

	switch (i) {
	case 0: return jp_string(p, at, &c->schema);
	case 1: return jp_string(p, at, &c->id);
	case 2: return jp_int(p, at, &c->version);
	case 3: return jp_string(p, at, &c->output_class);
	case 4: return jp_int(p, at, &c->minimum_repetitions);
	case 5: return jp_num(p, at, &c->maximum_noise_percent);
	case 6: return jp_num(p, at, &c->investigate_drop_percent);
	case 7: return jp_num(p, at, &c->regression_drop_percent);
	case 8: return jp_num(p, at, &c->minimum_throughput_tokens_per_second);
	case 9: return jp_string(p, at, &c->quality_metric);
	case 10: return jp_num(p, at, &c->minimum_quality_score);
	case 11: return jp_bool(p, at, &c->quality_higher_is_better);
	case CRITERION_REVIEW_PERIOD:
		c->has_review_period = true;
		return jp_int(p, at, &c->review_period_days);
	case CRITERION_PRACTICAL_THRESHOLD:
		c->has_practical_threshold = true;
		return jp_num(p, at, &c->practical_threshold_percent);
	case CRITERION_HOST_POLICY:
		c->has_host_policy = true;
		return object(p, at, host_policy_keys, host_policy_member, &c->host_policy);
	default:
		/* the targets are optional: 0 means none */
		c->has_gpu_policy = true;
		return object_opt(p, at, gpu_policy_keys, (uint64_t)3 << 4, gpu_policy_member,
				  &c->gpu_policy);
	}
}

static int criteria(struct jpull *p, const struct jpath *at, struct graph *g)
{
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
		TRY(object_opt(p, &kp, criterion_keys,
			       (uint64_t)1 << CRITERION_REVIEW_PERIOD |
				       (uint64_t)1 << CRITERION_GPU_POLICY |
				       (uint64_t)1 << CRITERION_HOST_POLICY |
				       (uint64_t)1 << CRITERION_PRACTICAL_THRESHOLD,
			       criterion_member, &g->criteria[g->nr_criteria - 1]));
	}
	return rc;
}

static const char *const graph_keys[] = { "schema", "envelope", "comparison", "rungs", "features",
					  "envelopes", "levers", "criteria", NULL };

static int graph_member(struct jpull *p, const struct jpath *at, size_t i, void *dst)
{
	struct graph *g = dst;
	void *v = NULL;
	int rc;

	/* arrays are stored even when decoding fails half way, so that
	 * graph_release frees what was built */
	switch (i) {
	case 0: return jp_string(p, at, &g->schema);
	default: break;
	}
	if (i >= 1 && i <= 4)
		g->legacy_members |= 1u << i;
	switch (i) {
	case 1: return legacy_envelope(p, at, &g->envelope);
	case 2: return throughput(p, at, &g->comparison);
	case 3:
		rc = array(p, at, sizeof(*g->rungs), &v, &g->nr_rungs, rung);
		g->rungs = v;
		return rc;
	case 4:
		rc = array(p, at, sizeof(*g->features), &v, &g->nr_features, feature);
		g->features = v;
		return rc;
	case 5:
		rc = array(p, at, sizeof(*g->envelopes), &v, &g->nr_envelopes, envelope);
		g->envelopes = v;
		return rc;
	case 6:
		rc = array(p, at, sizeof(*g->levers), &v, &g->nr_levers, lever);
		g->levers = v;
		return rc;
	default: return criteria(p, at, g);
	}
}

/* The legacy view (members 1..4 of graph_keys: envelope, comparison,
 * rungs, features) is all there or absent: a graph written by fak for a new
 * engine has none of it (docs/graph.md, "Top level"). */
#define LEGACY_MEMBERS (0xfu << 1)

static int legacy_view(struct graph *g, struct err *e)
{
	if (g->legacy_members == LEGACY_MEMBERS) {
		g->has_legacy = true;
		return 0;
	}
	if (!g->legacy_members)
		return 0;
	for (size_t i = 1; i <= 4; i++)
		if (!(g->legacy_members & (1u << i)))
			return err_set(e, "%s: missing required field: the legacy members "
				       "envelope, comparison, rungs and features go together; "
				       "give all four or none", graph_keys[i]);
	BUG("legacy members %#x", g->legacy_members);
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

	memset(g, 0, sizeof(*g));
	g->buf = buf;
	e->msg[0] = '\0';
	jp_init(&p, buf, len, e);
	/* every problem of the schema in one run, not one per run */
	jp_collect(&p, &problems);
	if (object_opt(&p, NULL, graph_keys, LEGACY_MEMBERS, graph_member, g) < 0 ||
	    jp_finish(&p) < 0 || problems.nr || legacy_view(g, e) < 0) {
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
