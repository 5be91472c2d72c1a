/* Receipt decode (strict, structural) and encode (documented key order). */
#include "receipt/receipt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "receipt/verified.h"

/* Receipts are small; a generous cap still bounds hostile input. */
#define RECEIPT_MAX_BYTES ((size_t)16 << 20)

const char *const receipt_canonical_controls[RECEIPT_NR_CONTROLS] = {
	"artifact_sha256", "machine", "prompt_tokens", "decode_tokens", "batch",
	"context_tokens", "temperature", "sampling", "cache_state", "warmups",
	"repetitions", "execution_identity",
};

static const char *const top_keys[] = {
	"schema", "role", "envelope_id", "changed_lever_id", "revision", "artifact_sha256",
	"machine", "controls", "unchanged_controls", "changed_axes", "repetitions",
	"ambient_evidence", "memory", "execution", "quality", "comparison", "module_versions",
	"commands", "profiler_artifacts", "system_baselines", "experiment", "envelope_state",
	"engine_identity", "serving", NULL,
};

/* ---- small decoders ------------------------------------------------------ */

static int dec_nonneg(const json_t *obj, const struct jpath *at, const char *key, long long *out,
		      struct err *e)
{
	if (jd_int(obj, at, key, JD_REQUIRED, out, e) < 0)
		return -1;
	if (*out < 0) {
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "expected a non-negative integer, found %lld", *out);
	}
	return 0;
}

/* Array of strings; null accepted only when allow_null. */
static int dec_strs(const json_t *obj, const struct jpath *at, const char *key, bool allow_null,
		    struct receipt_strs *out, struct err *e)
{
	const json_t *a;
	struct jpath kp = JP_KEY(at, key);

	if (jd_arr(obj, at, key, JD_REQUIRED, allow_null, &a, e) < 0)
		return -1;
	if (!a) {
		out->is_null = true;
		return 0;
	}
	out->n = json_array_size(a);
	out->v = xcalloc(out->n ? out->n : 1, sizeof(*out->v));
	for (size_t i = 0; i < out->n; i++)
		if (jd_str_at(a, &kp, i, &out->v[i], e) < 0)
			return -1;
	return 0;
}

static int dec_machine(struct receipt *r, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = { "scrubbed_id", "platform", "backend", NULL };

	if (jd_object(o, at, keys, e) < 0 ||
	    jd_str(o, at, "scrubbed_id", JD_REQUIRED, &r->machine.scrubbed_id, e) < 0 ||
	    jd_str(o, at, "platform", JD_REQUIRED, &r->machine.platform, e) < 0 ||
	    jd_str(o, at, "backend", JD_REQUIRED, &r->machine.backend, e) < 0)
		return -1;
	return 0;
}

/* The members of controls, in their documented order. */
static const char *const receipt_control_names[] = {
	"prompt_tokens", "decode_tokens", "batch", "context_tokens", "temperature",
	"sampling", "cache_state", "warmups", "repetitions", NULL,
};

static int dec_controls(struct receipt_controls *c, const json_t *o, const struct jpath *at,
			struct err *e)
{
	if (jd_object(o, at, receipt_control_names, e) < 0 ||
	    jd_int(o, at, "prompt_tokens", JD_REQUIRED, &c->prompt_tokens, e) < 0 ||
	    jd_int(o, at, "decode_tokens", JD_REQUIRED, &c->decode_tokens, e) < 0 ||
	    jd_int(o, at, "batch", JD_REQUIRED, &c->batch, e) < 0 ||
	    jd_int(o, at, "context_tokens", JD_REQUIRED, &c->context_tokens, e) < 0 ||
	    jd_num(o, at, "temperature", JD_REQUIRED, &c->temperature, e) < 0 ||
	    jd_str(o, at, "sampling", JD_REQUIRED, &c->sampling, e) < 0 ||
	    jd_str(o, at, "cache_state", JD_REQUIRED, &c->cache_state, e) < 0 ||
	    jd_int(o, at, "warmups", JD_REQUIRED, &c->warmups, e) < 0 ||
	    jd_int(o, at, "repetitions", JD_REQUIRED, &c->repetitions, e) < 0)
		return -1;
	return 0;
}

/* Optional number: 1 when present. */
static int opt_num(const json_t *o, const struct jpath *at, const char *key, bool *has, double *v,
		   struct err *e)
{
	int rc = jd_num(o, at, key, JD_OPTIONAL, v, e);

	if (rc < 0)
		return -1;
	*has = rc == 0;
	return 0;
}

static int dec_rep(struct receipt_rep *rep, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = {
		"end_to_end_milliseconds", "tokens_per_second", "ttft_milliseconds",
		"prefill_milliseconds", "decode_milliseconds", "system_baseline_digest",
		"serving", NULL,
	};
	const char *d = NULL;
	const json_t *sv;
	int rc;

	if (jd_object(o, at, keys, e) < 0 ||
	    jd_num(o, at, "end_to_end_milliseconds", JD_REQUIRED, &rep->end_to_end_ms, e) < 0 ||
	    jd_num(o, at, "tokens_per_second", JD_REQUIRED, &rep->tokens_per_second, e) < 0 ||
	    opt_num(o, at, "ttft_milliseconds", &rep->has_ttft, &rep->ttft_ms, e) < 0 ||
	    opt_num(o, at, "prefill_milliseconds", &rep->has_prefill, &rep->prefill_ms, e) < 0 ||
	    opt_num(o, at, "decode_milliseconds", &rep->has_decode, &rep->decode_ms, e) < 0 ||
	    jd_str(o, at, "system_baseline_digest", JD_OPTIONAL, &d, e) < 0)
		return -1;
	rep->system_baseline_digest = d && *d ? d : NULL;
	rc = jd_obj(o, at, "serving", JD_OPTIONAL, &sv, e);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		struct jpath sp = JP_KEY(at, "serving");

		if (wl_serving_decode(sv, &sp, &rep->serving, e) < 0)
			return -1;
		rep->has_serving = true;
	}
	return 0;
}

static int dec_serving(struct receipt_serving *s, const json_t *o, const struct jpath *at,
		       struct err *e)
{
	static const char *const keys[] = { "trace_sha256", "primary_metric", "direction", NULL };

	if (jd_object(o, at, keys, e) < 0 ||
	    jd_str(o, at, "trace_sha256", JD_REQUIRED, &s->trace_sha256, e) < 0 ||
	    jd_str(o, at, "primary_metric", JD_REQUIRED, &s->primary_metric, e) < 0 ||
	    jd_str(o, at, "direction", JD_REQUIRED, &s->direction, e) < 0)
		return -1;
	return 0;
}

static int dec_metric(struct ambient_metric *m, const json_t *o, const struct jpath *at,
		      const char *key, struct err *e)
{
	static const char *const keys[] = { "availability", "value", NULL };
	const json_t *v;
	struct jpath kp = JP_KEY(at, key);
	int rc;

	if (jd_obj(o, at, key, JD_REQUIRED, &v, e) < 0 || jd_object(v, &kp, keys, e) < 0 ||
	    jd_str(v, &kp, "availability", JD_REQUIRED, &m->availability, e) < 0)
		return -1;
	rc = jd_num(v, &kp, "value", JD_OPTIONAL, &m->value, e);
	if (rc < 0)
		return -1;
	m->has_value = rc == 0;
	return 0;
}

static int dec_ambient(struct ambient *a, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = {
		"schema", "started_at", "ended_at", "elapsed_milliseconds",
		"sample_interval_milliseconds", "source", "platform",
		"sampler_overhead_milliseconds", "host_cpu_percent", "available_memory_bytes",
		"process_churn", "non_sut_cpu_percent", "command_exit_code", "verdict", "digest",
		NULL,
	};

	a->json = o;
	if (jd_object(o, at, keys, e) < 0 ||
	    jd_str(o, at, "schema", JD_REQUIRED, &a->schema, e) < 0 ||
	    jd_str(o, at, "started_at", JD_REQUIRED, &a->started_at, e) < 0 ||
	    jd_str(o, at, "ended_at", JD_REQUIRED, &a->ended_at, e) < 0 ||
	    jd_int(o, at, "elapsed_milliseconds", JD_REQUIRED, &a->elapsed_ms, e) < 0 ||
	    jd_int(o, at, "sample_interval_milliseconds", JD_REQUIRED, &a->interval_ms, e) < 0 ||
	    jd_str(o, at, "source", JD_REQUIRED, &a->source, e) < 0 ||
	    jd_str(o, at, "platform", JD_REQUIRED, &a->platform, e) < 0 ||
	    jd_num(o, at, "sampler_overhead_milliseconds", JD_REQUIRED, &a->sampler_overhead_ms,
		   e) < 0 ||
	    dec_metric(&a->host_cpu_percent, o, at, "host_cpu_percent", e) < 0 ||
	    dec_metric(&a->available_memory_bytes, o, at, "available_memory_bytes", e) < 0 ||
	    dec_metric(&a->process_churn, o, at, "process_churn", e) < 0 ||
	    dec_metric(&a->non_sut_cpu_percent, o, at, "non_sut_cpu_percent", e) < 0 ||
	    jd_int(o, at, "command_exit_code", JD_REQUIRED, &a->command_exit_code, e) < 0 ||
	    jd_str(o, at, "verdict", JD_REQUIRED, &a->verdict, e) < 0 ||
	    jd_str(o, at, "digest", JD_REQUIRED, &a->digest, e) < 0)
		return -1;
	return 0;
}

static int dec_execution(struct receipt_execution *x, const json_t *o, const struct jpath *at,
			 struct err *e)
{
	static const char *const keys[] = { "engine", "forward_path", "fallback_count", NULL };

	if (jd_object(o, at, keys, e) < 0 ||
	    jd_str(o, at, "engine", JD_REQUIRED, &x->engine, e) < 0 ||
	    jd_str(o, at, "forward_path", JD_REQUIRED, &x->forward_path, e) < 0 ||
	    jd_int(o, at, "fallback_count", JD_REQUIRED, &x->fallback_count, e) < 0)
		return -1;
	return 0;
}

static int dec_quality(struct receipt_quality *q, const json_t *o, const struct jpath *at,
		       struct err *e)
{
	static const char *const keys[] = { "name", "score", "higher_is_better", NULL };

	if (jd_object(o, at, keys, e) < 0 || jd_str(o, at, "name", JD_REQUIRED, &q->name, e) < 0 ||
	    jd_num(o, at, "score", JD_REQUIRED, &q->score, e) < 0 ||
	    jd_bool(o, at, "higher_is_better", JD_REQUIRED, &q->higher_is_better, e) < 0)
		return -1;
	return 0;
}

static int dec_comparison(struct receipt_comparison *c, const json_t *o, const struct jpath *at,
			  struct err *e)
{
	static const char *const keys[] = {
		"output_class", "criterion_id", "criterion_version", "criterion_digest", NULL,
	};

	if (jd_object(o, at, keys, e) < 0 ||
	    jd_str(o, at, "output_class", JD_REQUIRED, &c->output_class, e) < 0 ||
	    jd_str(o, at, "criterion_id", JD_REQUIRED, &c->criterion_id, e) < 0 ||
	    jd_int(o, at, "criterion_version", JD_REQUIRED, &c->criterion_version, e) < 0 ||
	    jd_str(o, at, "criterion_digest", JD_REQUIRED, &c->criterion_digest, e) < 0)
		return -1;
	return 0;
}

/* Array member whose elements are objects, each decoded by fn into
 * (char *)base + i * size. */
typedef int (*dec_elem_fn)(void *elem, const json_t *o, const struct jpath *at, struct err *e);

static int dec_array(const json_t *obj, const struct jpath *at, const char *key, enum jd_need need,
		     bool allow_null, void **base, size_t *nr, size_t size, dec_elem_fn fn,
		     struct err *e)
{
	const json_t *a;
	struct jpath kp = JP_KEY(at, key);
	int rc = jd_arr(obj, at, key, need, allow_null, &a, e);

	if (rc)
		return rc;
	if (!a)
		return 0;
	*nr = json_array_size(a);
	*base = xcalloc(*nr ? *nr : 1, size);
	for (size_t i = 0; i < *nr; i++) {
		struct jpath ip = JP_IDX(&kp, i);

		if (fn((char *)*base + i * size, json_array_get(a, i), &ip, e) < 0)
			return -1;
	}
	return 0;
}

static int dec_rep_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	return dec_rep(p, o, at, e);
}

static int dec_ambient_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	return dec_ambient(p, o, at, e);
}

static int dec_module_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = { "module", "revision", NULL };
	struct receipt_module *m = p;

	if (jd_object(o, at, keys, e) < 0 ||
	    jd_str(o, at, "module", JD_REQUIRED, &m->module, e) < 0 ||
	    jd_str(o, at, "revision", JD_REQUIRED, &m->revision, e) < 0)
		return -1;
	return 0;
}

static int dec_artifact_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = { "path", "sha256", NULL };
	struct receipt_artifact *a = p;

	if (jd_object(o, at, keys, e) < 0 || jd_str(o, at, "path", JD_REQUIRED, &a->path, e) < 0 ||
	    jd_str(o, at, "sha256", JD_REQUIRED, &a->sha256, e) < 0)
		return -1;
	return 0;
}

/* Attestations are only required to be objects here; receipt_decode then
 * verifies each once, and validation reports one that fails. */
static int dec_baseline_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const none[] = { NULL };
	struct receipt_attestation *slot = p;

	if (!json_is_object(o))
		return jd_object(o, at, none, e);
	slot->json = o;
	return 0;
}

static int dec_run_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = { "arm", "kind", "index", "started_at_utc",
					    "attestation_digest", NULL };
	struct receipt_run *r = p;

	if (jd_object(o, at, keys, e) < 0 || jd_str(o, at, "arm", JD_REQUIRED, &r->arm, e) < 0 ||
	    jd_str(o, at, "kind", JD_REQUIRED, &r->kind, e) < 0 ||
	    jd_int(o, at, "index", JD_REQUIRED, &r->index, e) < 0 ||
	    jd_str(o, at, "started_at_utc", JD_REQUIRED, &r->started_at_utc, e) < 0 ||
	    jd_str(o, at, "attestation_digest", JD_REQUIRED, &r->attestation_digest, e) < 0)
		return -1;
	return 0;
}

static int dec_look_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = { "repetitions", "level", "verdict", NULL };
	struct receipt_look *l = p;

	return jd_object(o, at, keys, e) < 0 ||
			       jd_int(o, at, "repetitions", JD_REQUIRED, &l->repetitions, e) < 0 ||
			       jd_num(o, at, "level", JD_REQUIRED, &l->level, e) < 0 ||
			       jd_str(o, at, "verdict", JD_REQUIRED, &l->verdict, e) < 0
		       ? -1
		       : 0;
}

static int dec_sequential(struct receipt_sequential *s, const json_t *o, const struct jpath *at,
			  struct err *e)
{
	static const char *const keys[] = { "rule", "level", "first_repetitions",
					    "max_repetitions", "looks", NULL };

	if (jd_object(o, at, keys, e) < 0 || jd_str(o, at, "rule", JD_REQUIRED, &s->rule, e) < 0 ||
	    jd_num(o, at, "level", JD_REQUIRED, &s->level, e) < 0 ||
	    jd_int(o, at, "first_repetitions", JD_REQUIRED, &s->first_repetitions, e) < 0 ||
	    jd_int(o, at, "max_repetitions", JD_REQUIRED, &s->max_repetitions, e) < 0)
		return -1;
	return dec_array(o, at, "looks", JD_REQUIRED, false, (void **)&s->looks, &s->nr_looks,
			 sizeof(*s->looks), dec_look_elem, e);
}

/* An optional member key of o: an object of the strings keys names, each
 * into *out[i], required in it or not. */
static int dec_texts(const json_t *o, const struct jpath *at, const char *key,
		     const char *const *keys, enum jd_need need, const char **const *out,
		     struct err *e)
{
	const json_t *h = NULL;
	struct jpath kp = JP_KEY(at, key);

	if (jd_obj(o, at, key, JD_OPTIONAL, &h, e) < 0)
		return -1;
	if (h && jd_object(h, &kp, keys, e) < 0)
		return -1;
	for (size_t i = 0; h && keys[i]; i++)
		if (jd_str(h, &kp, keys[i], need, out[i], e) < 0)
			return -1;
	return 0;
}

/* The experiment's host, engine runtime and unobserved controls (each
 * optional: receipts written before fak recorded them have none). */
static int dec_observed(struct receipt_experiment *x, const json_t *o, const struct jpath *at,
			struct err *e)
{
	static const char *const host_keys[] = { "cpu_model", "kernel_release", NULL };
	static const char *const engine_keys[] = { "build_commit", "backends", NULL };
	const char **const host[] = { &x->cpu_model, &x->kernel_release };
	const char **const engine[] = { &x->engine_build_commit, &x->engine_backends };
	struct jpath kp = JP_KEY(at, "controls_not_observed");

	if (dec_texts(o, at, "host", host_keys, JD_REQUIRED, host, e) < 0 ||
	    dec_texts(o, at, "engine_runtime", engine_keys, JD_OPTIONAL, engine, e) < 0)
		return -1;
	if (!json_object_get(o, "controls_not_observed")) {
		x->controls_not_observed.is_null = true;
		return 0;
	}
	if (dec_strs(o, at, "controls_not_observed", false, &x->controls_not_observed, e) < 0)
		return -1;
	for (size_t i = 0; i < x->controls_not_observed.n; i++) {
		const char *c = x->controls_not_observed.v[i];
		size_t k = 0;

		while (receipt_control_names[k] && strcmp(receipt_control_names[k], c))
			k++;
		if (!receipt_control_names[k])
			return jpath_err(e, &kp, "\"%s\" is not a member of controls", c);
	}
	return 0;
}

static int dec_experiment(struct receipt_experiment *x, const json_t *o, const struct jpath *at,
			  struct err *e)
{
	static const char *const keys[] = { "id", "order", "seed", "metrics_parser", "schedule",
					    "quality_attestation", "sequential", "host",
					    "engine_runtime", "controls_not_observed", NULL };
	const json_t *seq = NULL;
	int rc;

	x->json = o;
	if (jd_object(o, at, keys, e) < 0 || jd_str(o, at, "id", JD_REQUIRED, &x->id, e) < 0 ||
	    jd_str(o, at, "order", JD_REQUIRED, &x->order, e) < 0)
		return -1;
	rc = jd_int(o, at, "seed", JD_OPTIONAL, &x->seed, e);
	if (rc < 0)
		return -1;
	x->has_seed = rc == 0;
	if (jd_str(o, at, "metrics_parser", JD_REQUIRED, &x->metrics_parser, e) < 0 ||
	    dec_array(o, at, "schedule", JD_REQUIRED, false, (void **)&x->schedule, &x->nr_schedule,
		      sizeof(*x->schedule), dec_run_elem, e) < 0)
		return -1;
	x->quality_attestation = NULL;
	if (jd_obj(o, at, "quality_attestation", JD_OPTIONAL, &x->quality_attestation, e) < 0 ||
	    jd_obj(o, at, "sequential", JD_OPTIONAL, &seq, e) < 0)
		return -1;
	x->has_sequential = seq != NULL;
	if (seq) {
		struct jpath sp = JP_KEY(at, "sequential");

		if (dec_sequential(&x->sequential, seq, &sp, e) < 0)
			return -1;
	}
	return dec_observed(x, o, at, e);
}

static int dec_lever_state_elem(void *p, const json_t *o, const struct jpath *at, struct err *e)
{
	static const char *const keys[] = { "id", "enabled", "witness", NULL };
	struct receipt_lever_state *l = p;
	const json_t *w;
	struct jpath wp = JP_KEY(at, "witness");

	if (jd_object(o, at, keys, e) < 0 || jd_str(o, at, "id", JD_REQUIRED, &l->id, e) < 0 ||
	    jd_bool(o, at, "enabled", JD_REQUIRED, &l->enabled, e) < 0)
		return -1;
	w = json_object_get(o, "witness");
	if (!w)
		return jpath_err(e, &wp, "missing required field");
	if (json_is_null(w))
		l->witness = NULL;
	else if (json_is_string(w))
		l->witness = json_string_value(w);
	else
		return jpath_err(e, &wp, "expected a string or null");
	return 0;
}

static int dec_state(struct receipt_state *s, const json_t *o, const struct jpath *at,
		     struct err *e)
{
	static const char *const keys[] = { "criterion_digest", "envelope_digest", "envelope",
					    "levers", NULL };
	struct jpath lp = JP_KEY(at, "levers");
	int rc;

	s->json = o;
	if (jd_object(o, at, keys, e) < 0 ||
	    jd_str(o, at, "criterion_digest", JD_REQUIRED, &s->criterion_digest, e) < 0 ||
	    (rc = jd_str(o, at, "envelope_digest", JD_OPTIONAL, &s->envelope_digest, e)) < 0 ||
	    jd_obj(o, at, "envelope", rc == 0 ? JD_REQUIRED : JD_OPTIONAL, &s->envelope, e) < 0)
		return -1;
	if (s->envelope && !s->envelope_digest) {
		struct jpath dp = JP_KEY(at, "envelope_digest");

		return jpath_err(e, &dp, "is required with envelope");
	}
	if (dec_array(o, at, "levers", JD_REQUIRED, false, (void **)&s->levers, &s->nr_levers,
		      sizeof(*s->levers), dec_lever_state_elem, e) < 0)
		return -1;
	for (size_t i = 0; i < s->nr_levers; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->levers[i].id, s->levers[j].id)) {
				struct jpath ip = JP_IDX(&lp, i);

				return jpath_err(e, &ip, "lever \"%s\" is listed twice",
						 s->levers[i].id);
			}
	return 0;
}

/* ---- decode -------------------------------------------------------------- */

/* The run's own facts: the machine, the controls and axes, the
 * repetitions and their ambient evidence, memory, execution and quality. */
static int decode_run(struct receipt *r, const json_t *v, const struct jpath *at, struct err *e)
{
	const json_t *o;
	struct jpath kp;
	int rc;

	kp = JP_KEY(at, "machine");
	if (jd_obj(v, at, "machine", JD_REQUIRED, &o, e) < 0 || dec_machine(r, o, &kp, e) < 0)
		return -1;
	kp = JP_KEY(at, "controls");
	if (jd_obj(v, at, "controls", JD_REQUIRED, &o, e) < 0 ||
	    dec_controls(&r->controls, o, &kp, e) < 0)
		return -1;
	if (dec_strs(v, at, "unchanged_controls", false, &r->unchanged_controls, e) < 0 ||
	    dec_strs(v, at, "changed_axes", true, &r->changed_axes, e) < 0)
		return -1;
	if (dec_array(v, at, "repetitions", JD_REQUIRED, false, (void **)&r->reps, &r->nr_reps,
		      sizeof(*r->reps), dec_rep_elem, e) < 0)
		return -1;
	rc = dec_array(v, at, "ambient_evidence", JD_OPTIONAL, false, (void **)&r->ambient,
		       &r->nr_ambient, sizeof(*r->ambient), dec_ambient_elem, e);
	if (rc < 0)
		return -1;
	r->has_ambient = rc == 0;

	kp = JP_KEY(at, "memory");
	{
		static const char *const keys[] = { "peak_bytes", "resident_bytes", NULL };

		if (jd_obj(v, at, "memory", JD_REQUIRED, &o, e) < 0 ||
		    jd_object(o, &kp, keys, e) < 0 ||
		    dec_nonneg(o, &kp, "peak_bytes", &r->memory.peak_bytes, e) < 0 ||
		    dec_nonneg(o, &kp, "resident_bytes", &r->memory.resident_bytes, e) < 0)
			return -1;
	}
	kp = JP_KEY(at, "execution");
	if (jd_obj(v, at, "execution", JD_REQUIRED, &o, e) < 0 ||
	    dec_execution(&r->execution, o, &kp, e) < 0)
		return -1;
	kp = JP_KEY(at, "quality");
	if (jd_obj(v, at, "quality", JD_REQUIRED, &o, e) < 0 ||
	    dec_quality(&r->quality, o, &kp, e) < 0)
		return -1;
	return 0;
}

/* The parts a receipt may carry: the experiment, the envelope's state, how
 * the engine identity was known, and a serving run's figures. */
static int decode_optional(struct receipt *r, const json_t *v, const struct jpath *at,
			   struct err *e)
{
	const json_t *o;
	struct jpath kp;
	int rc;

	kp = JP_KEY(at, "experiment");
	rc = jd_obj(v, at, "experiment", JD_OPTIONAL, &o, e);
	if (rc < 0 || (rc == 0 && dec_experiment(&r->experiment, o, &kp, e) < 0))
		return -1;
	r->has_experiment = rc == 0;
	kp = JP_KEY(at, "envelope_state");
	rc = jd_obj(v, at, "envelope_state", JD_OPTIONAL, &o, e);
	if (rc < 0 || (rc == 0 && dec_state(&r->envelope_state, o, &kp, e) < 0))
		return -1;
	r->has_envelope_state = rc == 0;
	rc = jd_str(v, at, "engine_identity", JD_OPTIONAL, &r->engine_identity, e);
	if (rc < 0)
		return -1;
	if (rc == 0 && strcmp(r->engine_identity, RECEIPT_IDENTITY_OBSERVED) &&
	    strcmp(r->engine_identity, RECEIPT_IDENTITY_DECLARED)) {
		kp = JP_KEY(at, "engine_identity");
		return jpath_err(e, &kp, "must be \"%s\" or \"%s\"", RECEIPT_IDENTITY_OBSERVED,
				 RECEIPT_IDENTITY_DECLARED);
	}
	if (rc)
		r->engine_identity = NULL;
	kp = JP_KEY(at, "serving");
	rc = jd_obj(v, at, "serving", JD_OPTIONAL, &o, e);
	if (rc < 0 || (rc == 0 && dec_serving(&r->serving, o, &kp, e) < 0))
		return -1;
	r->has_serving = rc == 0;
	return 0;
}

static int decode(struct receipt *r, const json_t *v, const struct jpath *at, struct err *e)
{
	const json_t *o;
	struct jpath kp;
	int rc;

	if (jd_object(v, at, top_keys, e) < 0 ||
	    jd_str(v, at, "schema", JD_REQUIRED, &r->schema, e) < 0 ||
	    jd_str(v, at, "role", JD_REQUIRED, &r->role, e) < 0 ||
	    jd_str(v, at, "envelope_id", JD_REQUIRED, &r->envelope_id, e) < 0 ||
	    jd_str(v, at, "changed_lever_id", JD_REQUIRED, &r->changed_lever_id, e) < 0 ||
	    jd_str(v, at, "revision", JD_REQUIRED, &r->revision, e) < 0 ||
	    jd_str(v, at, "artifact_sha256", JD_REQUIRED, &r->artifact_sha256, e) < 0)
		return -1;
	if (decode_run(r, v, at, e) < 0)
		return -1;

	/* The comparison identity is required from v2 on; a v1 receipt may
	 * omit it (all zero). */
	r->comparison = (struct receipt_comparison){ "", "", 0, "" };
	kp = JP_KEY(at, "comparison");
	rc = jd_obj(v, at, "comparison",
		    strcmp(r->schema, RECEIPT_SCHEMA_V1) ? JD_REQUIRED : JD_OPTIONAL, &o, e);
	if (rc < 0 || (rc == 0 && dec_comparison(&r->comparison, o, &kp, e) < 0))
		return -1;

	if (dec_array(v, at, "module_versions", JD_REQUIRED, false, (void **)&r->modules,
		      &r->nr_modules, sizeof(*r->modules), dec_module_elem, e) < 0 ||
	    dec_strs(v, at, "commands", false, &r->commands, e) < 0 ||
	    dec_array(v, at, "profiler_artifacts", JD_REQUIRED, false, (void **)&r->artifacts,
		      &r->nr_artifacts, sizeof(*r->artifacts), dec_artifact_elem, e) < 0)
		return -1;
	if (dec_array(v, at, "system_baselines", JD_OPTIONAL, false, (void **)&r->system_baselines,
		      &r->nr_system_baselines, sizeof(*r->system_baselines), dec_baseline_elem,
		      e) < 0)
		return -1;
	return decode_optional(r, v, at, e);
}

int receipt_decode(struct receipt *r, const json_t *v, const struct jpath *at, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->doc = json_incref((json_t *)(uintptr_t)v);
	if (decode(r, v, at, e) < 0) {
		receipt_release(r);
		return -1;
	}
	receipt_verify_attestations(r);
	return 0;
}

int receipt_parse(struct receipt *r, const char *buf, size_t len, const char *name, struct err *e)
{
	json_t *v = json_parse_strict(buf, len, name, e);
	int rc;

	memset(r, 0, sizeof(*r));
	if (!v)
		return -1;
	rc = receipt_decode(r, v, NULL, e);
	json_decref(v);
	if (rc < 0 && name)
		err_prefix(e, "%s", name);
	return rc;
}

int receipt_load(struct receipt *r, const char *path, struct err *e)
{
	return receipt_load_sha256(r, path, NULL, e);
}

int receipt_load_sha256(struct receipt *r, const char *path, char sha256[65], struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	memset(r, 0, sizeof(*r));
	if (file_read(path, RECEIPT_MAX_BYTES, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	if (sha256)
		sha256_hex(sb.buf, sb.len, sha256);
	rc = receipt_parse(r, sb_str(&sb), sb.len, path, e);
	sb_release(&sb);
	return rc;
}

void receipt_release(struct receipt *r)
{
	receipt_release_attestations(r);
	free(r->unchanged_controls.v);
	free(r->changed_axes.v);
	free(r->reps);
	free(r->ambient);
	free(r->modules);
	free(r->commands.v);
	free(r->artifacts);
	free(r->system_baselines);
	free(r->experiment.schedule);
	free(r->experiment.sequential.looks);
	free(r->experiment.controls_not_observed.v);
	free(r->envelope_state.levers);
	json_decref(r->doc);
	memset(r, 0, sizeof(*r));
}

/* ---- encode -------------------------------------------------------------- */

static json_t *strs_json(const struct receipt_strs *s)
{
	json_t *a;

	if (s->is_null)
		return json_null();
	a = jarr();
	for (size_t i = 0; i < s->n; i++)
		jpush_new(a, json_string(s->v[i]));
	return a;
}

static json_t *rep_json(const struct receipt_rep *rep)
{
	json_t *o = jobj();

	jset_num(o, "end_to_end_milliseconds", rep->end_to_end_ms);
	jset_num(o, "tokens_per_second", rep->tokens_per_second);
	if (rep->has_ttft)
		jset_num(o, "ttft_milliseconds", rep->ttft_ms);
	if (rep->has_prefill)
		jset_num(o, "prefill_milliseconds", rep->prefill_ms);
	if (rep->has_decode)
		jset_num(o, "decode_milliseconds", rep->decode_ms);
	if (rep->system_baseline_digest)
		jset_str(o, "system_baseline_digest", rep->system_baseline_digest);
	if (rep->has_serving)
		jset_new(o, "serving", wl_serving_to_json(&rep->serving));
	return o;
}

json_t *receipt_to_json(const struct receipt *r)
{
	json_t *o = jobj(), *x, *a;

	jset_str(o, "schema", r->schema);
	jset_str(o, "role", r->role);
	jset_str(o, "envelope_id", r->envelope_id);
	jset_str(o, "changed_lever_id", r->changed_lever_id);
	jset_str(o, "revision", r->revision);
	jset_str(o, "artifact_sha256", r->artifact_sha256);

	x = jobj();
	jset_str(x, "scrubbed_id", r->machine.scrubbed_id);
	jset_str(x, "platform", r->machine.platform);
	jset_str(x, "backend", r->machine.backend);
	jset_new(o, "machine", x);

	x = jobj();
	jset_int(x, "prompt_tokens", r->controls.prompt_tokens);
	jset_int(x, "decode_tokens", r->controls.decode_tokens);
	jset_int(x, "batch", r->controls.batch);
	jset_int(x, "context_tokens", r->controls.context_tokens);
	jset_num(x, "temperature", r->controls.temperature);
	jset_str(x, "sampling", r->controls.sampling);
	jset_str(x, "cache_state", r->controls.cache_state);
	jset_int(x, "warmups", r->controls.warmups);
	jset_int(x, "repetitions", r->controls.repetitions);
	jset_new(o, "controls", x);

	jset_new(o, "unchanged_controls", strs_json(&r->unchanged_controls));
	jset_new(o, "changed_axes", strs_json(&r->changed_axes));
	a = jarr();
	for (size_t i = 0; i < r->nr_reps; i++)
		jpush_new(a, rep_json(&r->reps[i]));
	jset_new(o, "repetitions", a);
	if (r->has_ambient) {
		a = jarr();
		for (size_t i = 0; i < r->nr_ambient; i++)
			jpush_new(a, json_deep_copy(r->ambient[i].json));
		jset_new(o, "ambient_evidence", a);
	}

	x = jobj();
	jset_int(x, "peak_bytes", r->memory.peak_bytes);
	jset_int(x, "resident_bytes", r->memory.resident_bytes);
	jset_new(o, "memory", x);

	x = jobj();
	jset_str(x, "engine", r->execution.engine);
	jset_str(x, "forward_path", r->execution.forward_path);
	jset_int(x, "fallback_count", r->execution.fallback_count);
	jset_new(o, "execution", x);

	x = jobj();
	jset_str(x, "name", r->quality.name);
	jset_num(x, "score", r->quality.score);
	jset_bool(x, "higher_is_better", r->quality.higher_is_better);
	jset_new(o, "quality", x);

	x = jobj();
	jset_str(x, "output_class", r->comparison.output_class);
	jset_str(x, "criterion_id", r->comparison.criterion_id);
	jset_int(x, "criterion_version", r->comparison.criterion_version);
	jset_str(x, "criterion_digest", r->comparison.criterion_digest);
	jset_new(o, "comparison", x);

	a = jarr();
	for (size_t i = 0; i < r->nr_modules; i++) {
		x = jobj();
		jset_str(x, "module", r->modules[i].module);
		jset_str(x, "revision", r->modules[i].revision);
		jpush_new(a, x);
	}
	jset_new(o, "module_versions", a);
	jset_new(o, "commands", strs_json(&r->commands));
	a = jarr();
	for (size_t i = 0; i < r->nr_artifacts; i++) {
		x = jobj();
		jset_str(x, "path", r->artifacts[i].path);
		jset_str(x, "sha256", r->artifacts[i].sha256);
		jpush_new(a, x);
	}
	jset_new(o, "profiler_artifacts", a);
	if (r->nr_system_baselines) {
		a = jarr();
		for (size_t i = 0; i < r->nr_system_baselines; i++)
			jpush_new(a, json_deep_copy(r->system_baselines[i].json));
		jset_new(o, "system_baselines", a);
	}
	if (r->has_experiment)
		jset_new(o, "experiment", json_deep_copy(r->experiment.json));
	if (r->has_envelope_state)
		jset_new(o, "envelope_state", json_deep_copy(r->envelope_state.json));
	if (r->engine_identity)
		jset_str(o, "engine_identity", r->engine_identity);
	if (r->has_serving) {
		x = jobj();
		jset_str(x, "trace_sha256", r->serving.trace_sha256);
		jset_str(x, "primary_metric", r->serving.primary_metric);
		jset_str(x, "direction", r->serving.direction);
		jset_new(o, "serving", x);
	}
	return o;
}
