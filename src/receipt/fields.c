/* A receipt's records, each member once: name, kind, need, where
 * (docs/receipts.md has what each means). */
#include "receipt/fields.h"

#include <string.h>

#include "receipt/receipt.h"

/* ---- codecs: members read a way of their own or checked against others */

/* A size: "expected a non-negative integer" below 0. */
static int nonneg_decode(const json_t *obj, const struct jpath *at, const char *key, void *dst,
			 const void *arg, struct err *e)
{
	long long v;

	(void)arg;
	if (jd_int(obj, at, key, JD_REQUIRED, &v, e) < 0)
		return -1;
	if (v < 0) {
		struct jpath kp = JP_KEY(at, key);

		return jpath_err(e, &kp, "expected a non-negative integer, found %lld", v);
	}
	memcpy(dst, &v, sizeof(v));
	return 0;
}

static json_t *nonneg_encode(const void *src, const void *arg)
{
	long long v;

	(void)arg;
	memcpy(&v, src, sizeof(v));
	return json_integer(v);
}

static const struct jf_codec nonneg_codec = { nonneg_decode, nonneg_encode };

/* An optional string; "" reads as absent (NULL), which is not written. */
static int blank_decode(const json_t *obj, const struct jpath *at, const char *key, void *dst,
			const void *arg, struct err *e)
{
	const char *s = NULL;
	int rc = jd_str(obj, at, key, JD_OPTIONAL, &s, e);

	(void)arg;
	if (rc < 0)
		return -1;
	s = s && *s ? s : NULL;
	memcpy(dst, &s, sizeof(s));
	return rc;
}

static json_t *blank_encode(const void *src, const void *arg)
{
	const char *s;

	(void)arg;
	memcpy(&s, src, sizeof(s));
	return s ? json_string(s) : NULL;
}

static const struct jf_codec blank_codec = { blank_decode, blank_encode };

/* A required string or null (NULL). */
static int str_or_null_decode(const json_t *obj, const struct jpath *at, const char *key,
			      void *dst, const void *arg, struct err *e)
{
	const json_t *v = json_object_get(obj, key);
	struct jpath kp = JP_KEY(at, key);
	const char *s = NULL;

	(void)arg;
	if (!v)
		return jpath_err(e, &kp, "missing required field");
	if (json_is_string(v))
		s = json_string_value(v);
	else if (!json_is_null(v))
		return jpath_err(e, &kp, "expected a string or null");
	memcpy(dst, &s, sizeof(s));
	return 0;
}

static json_t *str_or_null_encode(const void *src, const void *arg)
{
	const char *s;

	(void)arg;
	memcpy(&s, src, sizeof(s));
	return s ? json_string(s) : json_null();
}

static const struct jf_codec str_or_null_codec = { str_or_null_decode, str_or_null_encode };

/* An object kept as it is (a borrowed const json_t *; NULL when absent).
 * arg NULL: optional; else the key of a member of the same record that
 * requires it and that it requires. */
static int object_decode(const json_t *obj, const struct jpath *at, const char *key, void *dst,
			 const void *arg, struct err *e)
{
	const char *with = arg;
	bool paired = with && json_object_get(obj, with);
	const json_t *o = NULL;
	int rc = jd_obj(obj, at, key, paired ? JD_REQUIRED : JD_OPTIONAL, &o, e);

	if (rc < 0)
		return -1;
	*(const json_t **)dst = o;
	if (o && with && !paired) {
		struct jpath wp = JP_KEY(at, with);

		return jpath_err(e, &wp, "is required with %s", key);
	}
	return rc;
}

static json_t *object_encode(const void *src, const void *arg)
{
	const json_t *o = *(const json_t *const *)src;

	(void)arg;
	return o ? json_deep_copy(o) : NULL;
}

static const struct jf_codec object_codec = { object_decode, object_encode };

/* A repetition's serving facts (attestation/workload.h), optional. */
static int serving_decode(const json_t *obj, const struct jpath *at, const char *key, void *dst,
			  const void *arg, struct err *e)
{
	const json_t *o;
	struct jpath kp = JP_KEY(at, key);
	int rc = jd_obj(obj, at, key, JD_OPTIONAL, &o, e);

	(void)arg;
	return rc ? rc : wl_serving_decode(o, &kp, dst, e);
}

static json_t *serving_encode(const void *src, const void *arg)
{
	(void)arg;
	return wl_serving_to_json(src);
}

static const struct jf_codec serving_codec = { serving_decode, serving_encode };

static const struct jfield comparison_fields[] = {
	JF(JF_STR, struct receipt_comparison, output_class, JF_REQ),
	JF(JF_STR, struct receipt_comparison, criterion_id, JF_REQ),
	JF(JF_LLONG, struct receipt_comparison, criterion_version, JF_REQ),
	JF(JF_STR, struct receipt_comparison, criterion_digest, JF_REQ),
	JF_END,
};

/* The comparison identity: required from v2 on (the schema, a string, is
 * read before it); a v1 receipt may omit it (all zero). */
static int comparison_decode(const json_t *obj, const struct jpath *at, const char *key,
			     void *dst, const void *arg, struct err *e)
{
	const char *schema = json_string_value(json_object_get(obj, "schema"));
	bool v1 = schema && !strcmp(schema, RECEIPT_SCHEMA_V1);
	struct receipt_comparison *c = dst;
	const json_t *o;
	struct jpath kp = JP_KEY(at, key);
	int rc;

	(void)arg;
	*c = (struct receipt_comparison){ "", "", 0, "" };
	rc = jd_obj(obj, at, key, v1 ? JD_OPTIONAL : JD_REQUIRED, &o, e);
	return rc ? rc : jf_decode(comparison_fields, o, &kp, c, e);
}

static json_t *comparison_encode(const void *src, const void *arg)
{
	(void)arg;
	return jf_to_json(comparison_fields, src);
}

static const struct jf_codec comparison_codec = { comparison_decode, comparison_encode };

/* ---- the run's own facts -------------------------------------------------- */

static const struct jfield machine_fields[] = {
	JF(JF_STR, struct receipt_machine, scrubbed_id, JF_REQ),
	JF(JF_STR, struct receipt_machine, platform, JF_REQ),
	JF(JF_STR, struct receipt_machine, backend, JF_REQ),
	JF_END,
};

/* The members of controls, in their documented order. */
static const struct jfield controls_fields[] = {
	JF(JF_LLONG, struct receipt_controls, prompt_tokens, JF_REQ),
	JF(JF_LLONG, struct receipt_controls, decode_tokens, JF_REQ),
	JF(JF_LLONG, struct receipt_controls, batch, JF_REQ),
	JF(JF_LLONG, struct receipt_controls, context_tokens, JF_REQ),
	JF(JF_NUM, struct receipt_controls, temperature, JF_REQ),
	JF(JF_STR, struct receipt_controls, sampling, JF_REQ),
	JF(JF_STR, struct receipt_controls, cache_state, JF_REQ),
	JF(JF_LLONG, struct receipt_controls, warmups, JF_REQ),
	JF(JF_LLONG, struct receipt_controls, repetitions, JF_REQ),
	JF_END,
};

static const struct jfield rep_fields[] = {
	JF_KEY("end_to_end_milliseconds", JF_NUM, struct receipt_rep, end_to_end_ms, JF_REQ),
	JF(JF_NUM, struct receipt_rep, tokens_per_second, JF_REQ),
	JF_KEYH("ttft_milliseconds", JF_NUM, struct receipt_rep, ttft_ms, has_ttft),
	JF_KEYH("prefill_milliseconds", JF_NUM, struct receipt_rep, prefill_ms, has_prefill),
	JF_KEYH("decode_milliseconds", JF_NUM, struct receipt_rep, decode_ms, has_decode),
	JF_CODEC("system_baseline_digest", const char *, struct receipt_rep,
		 system_baseline_digest, &blank_codec, NULL),
	JF_CODEC_HAS("serving", struct wl_serving, struct receipt_rep, serving, &serving_codec,
		     NULL, has_serving),
	JF_END,
};

static const struct jfield metric_fields[] = {
	JF(JF_STR, struct ambient_metric, availability, JF_REQ),
	JF_KEYH("value", JF_NUM, struct ambient_metric, value, has_value),
	JF_END,
};

#define AMBIENT_METRIC(m) JF_SUB(#m, struct ambient, m, metric_fields, JF_REQ, 0, 0)

static const struct jfield ambient_fields[] = {
	JF(JF_STR, struct ambient, schema, JF_REQ),
	JF(JF_STR, struct ambient, started_at, JF_REQ),
	JF(JF_STR, struct ambient, ended_at, JF_REQ),
	JF_KEY("elapsed_milliseconds", JF_LLONG, struct ambient, elapsed_ms, JF_REQ),
	JF_KEY("sample_interval_milliseconds", JF_LLONG, struct ambient, interval_ms, JF_REQ),
	JF(JF_STR, struct ambient, source, JF_REQ),
	JF(JF_STR, struct ambient, platform, JF_REQ),
	JF_KEY("sampler_overhead_milliseconds", JF_NUM, struct ambient, sampler_overhead_ms,
	       JF_REQ),
	AMBIENT_METRIC(host_cpu_percent),
	AMBIENT_METRIC(available_memory_bytes),
	AMBIENT_METRIC(process_churn),
	AMBIENT_METRIC(non_sut_cpu_percent),
	JF(JF_LLONG, struct ambient, command_exit_code, JF_REQ),
	JF(JF_STR, struct ambient, verdict, JF_REQ),
	JF(JF_STR, struct ambient, digest, JF_REQ),
	JF_END,
};

static const struct jfield memory_fields[] = {
	JF_CODEC("peak_bytes", long long, struct receipt_memory, peak_bytes, &nonneg_codec, NULL),
	JF_CODEC("resident_bytes", long long, struct receipt_memory, resident_bytes,
		 &nonneg_codec, NULL),
	JF_END,
};

static const struct jfield execution_fields[] = {
	JF(JF_STR, struct receipt_execution, engine, JF_REQ),
	JF(JF_STR, struct receipt_execution, forward_path, JF_REQ),
	JF(JF_LLONG, struct receipt_execution, fallback_count, JF_REQ),
	JF_END,
};

static const struct jfield quality_fields[] = {
	JF(JF_STR, struct receipt_quality, name, JF_REQ),
	JF(JF_NUM, struct receipt_quality, score, JF_REQ),
	JF(JF_BOOL, struct receipt_quality, higher_is_better, JF_REQ),
	JF_END,
};

static const struct jfield module_fields[] = {
	JF(JF_STR, struct receipt_module, module, JF_REQ),
	JF(JF_STR, struct receipt_module, revision, JF_REQ),
	JF_END,
};

static const struct jfield artifact_fields[] = {
	JF(JF_STR, struct receipt_artifact, path, JF_REQ),
	JF(JF_STR, struct receipt_artifact, sha256, JF_REQ),
	JF_END,
};

/* ---- the experiment ------------------------------------------------------- */

static const struct jfield run_fields[] = {
	JF(JF_STR, struct receipt_run, arm, JF_REQ),
	JF(JF_STR, struct receipt_run, kind, JF_REQ),
	JF(JF_LLONG, struct receipt_run, index, JF_REQ),
	JF(JF_STR, struct receipt_run, started_at_utc, JF_REQ),
	JF(JF_STR, struct receipt_run, attestation_digest, JF_REQ),
	JF_END,
};

static const struct jfield look_fields[] = {
	JF(JF_LLONG, struct receipt_look, repetitions, JF_REQ),
	JF(JF_NUM, struct receipt_look, level, JF_REQ),
	JF(JF_STR, struct receipt_look, verdict, JF_REQ),
	JF_END,
};

static const struct jfield sequential_fields[] = {
	JF(JF_STR, struct receipt_sequential, rule, JF_REQ),
	JF(JF_NUM, struct receipt_sequential, level, JF_REQ),
	JF(JF_LLONG, struct receipt_sequential, first_repetitions, JF_REQ),
	JF(JF_LLONG, struct receipt_sequential, max_repetitions, JF_REQ),
	JF_ARRAY_OF("looks", struct receipt_sequential, looks, nr_looks, look_fields, JF_REQ,
		    NULL),
	JF_END,
};

/* The experiment's host and engine runtime (each optional: receipts
 * written before fak recorded them have none). */
static const struct jfield host_fields[] = {
	JF(JF_STR, struct receipt_experiment, cpu_model, JF_REQ),
	JF(JF_STR, struct receipt_experiment, kernel_release, JF_REQ),
	JF_END,
};

static const struct jfield runtime_fields[] = {
	JF_KEY("build_commit", JF_STR, struct receipt_experiment, engine_build_commit, JF_OMIT),
	JF_KEY("backends", JF_STR, struct receipt_experiment, engine_backends, JF_OMIT),
	JF_END,
};

/* Every control fak did not observe is a member of controls. */
static int controls_named(const void *rec, const struct jpath *at, struct err *e)
{
	const struct strlist *l = &((const struct receipt_experiment *)rec)->controls_not_observed;

	for (size_t i = 0; i < l->n; i++) {
		size_t k = 0;

		while (controls_fields[k].name && strcmp(controls_fields[k].name, l->v[i]))
			k++;
		if (!controls_fields[k].name)
			return jpath_err(e, at, "\"%s\" is not a member of controls", l->v[i]);
	}
	return 0;
}

static const struct jfield experiment_fields[] = {
	JF(JF_STR, struct receipt_experiment, id, JF_REQ),
	JF(JF_STR, struct receipt_experiment, order, JF_REQ),
	JF_HASF(JF_LLONG, struct receipt_experiment, seed, has_seed),
	JF(JF_STR, struct receipt_experiment, metrics_parser, JF_REQ),
	JF_ARRAY_OF("schedule", struct receipt_experiment, schedule, nr_schedule, run_fields,
		    JF_REQ, NULL),
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): a borrowed pointer */
	JF_CODEC("quality_attestation", const json_t *, struct receipt_experiment,
		 quality_attestation, &object_codec, NULL),
	JF_SUB("sequential", struct receipt_experiment, sequential, sequential_fields, JF_OPT, 0,
	       JF_HAS(struct receipt_experiment, has_sequential)),
	JF_GROUP("host", host_fields, JF_OPT, 0, 0),
	JF_GROUP("engine_runtime", runtime_fields, JF_OPT, 0, 0),
	{ .name = "controls_not_observed", .kind = JF_STRLIST, .need = JF_OMIT,
	  .offset = JF_OFF_JF_STRLIST(struct receipt_experiment, controls_not_observed),
	  .size = sizeof(struct strlist), .check = controls_named },
	JF_END,
};

/* ---- the envelope's state ------------------------------------------------- */

static const struct jfield lever_state_fields[] = {
	JF(JF_STR, struct receipt_lever_state, id, JF_REQ),
	JF(JF_BOOL, struct receipt_lever_state, enabled, JF_REQ),
	JF_CODEC("witness", const char *, struct receipt_lever_state, witness, &str_or_null_codec,
		 NULL),
	JF_END,
};

/* No lever is listed twice. */
static int levers_once(const void *rec, const struct jpath *at, struct err *e)
{
	const struct receipt_state *s = rec;

	for (size_t i = 0; i < s->nr_levers; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->levers[i].id, s->levers[j].id)) {
				struct jpath ip = JP_IDX(at, i);

				return jpath_err(e, &ip, "lever \"%s\" is listed twice",
						 s->levers[i].id);
			}
	return 0;
}

/* The envelope and its digest come together; a state written before fak
 * recorded them has neither. */
static const struct jfield state_fields[] = {
	JF(JF_STR, struct receipt_state, criterion_digest, JF_REQ),
	JF(JF_STR, struct receipt_state, envelope_digest, JF_OMIT),
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): a borrowed pointer */
	JF_CODEC("envelope", const json_t *, struct receipt_state, envelope, &object_codec,
		 "envelope_digest"),
	{ .name = "levers", .kind = JF_ARR, .need = JF_REQ,
	  .offset = offsetof(struct receipt_state, levers),
	  .size = sizeof(struct receipt_lever_state), .sub = lever_state_fields,
	  .count = JF_SCALAR(size_t, struct receipt_state, nr_levers), .check = levers_once },
	JF_END,
};

/* ---- the receipt ---------------------------------------------------------- */

static const struct jfield serving_fields[] = {
	JF(JF_STR, struct receipt_serving, trace_sha256, JF_REQ),
	JF(JF_STR, struct receipt_serving, primary_metric, JF_REQ),
	JF(JF_STR, struct receipt_serving, direction, JF_REQ),
	JF_END,
};

/* observed or declared; absent in a receipt written before fak recorded it */
static int identity_known(const void *rec, const struct jpath *at, struct err *e)
{
	const char *s = ((const struct receipt *)rec)->engine_identity;

	if (!strcmp(s, RECEIPT_IDENTITY_OBSERVED) || !strcmp(s, RECEIPT_IDENTITY_DECLARED))
		return 0;
	return jpath_err(e, at, "must be \"%s\" or \"%s\"", RECEIPT_IDENTITY_OBSERVED,
			 RECEIPT_IDENTITY_DECLARED);
}

#define RECEIPT_SUB(key, m, tab) JF_SUB(key, struct receipt, m, tab, JF_REQ, 0, 0)

const struct jfield receipt_fields[] = {
	JF(JF_STR, struct receipt, schema, JF_REQ),
	JF(JF_STR, struct receipt, role, JF_REQ),
	JF(JF_STR, struct receipt, envelope_id, JF_REQ),
	JF(JF_STR, struct receipt, changed_lever_id, JF_REQ),
	JF(JF_STR, struct receipt, revision, JF_REQ),
	JF(JF_STR, struct receipt, artifact_sha256, JF_REQ),
	RECEIPT_SUB("machine", machine, machine_fields),
	RECEIPT_SUB("controls", controls, controls_fields),
	JF_LIST("unchanged_controls", struct receipt, unchanged_controls, JF_REQ, 0),
	JF_LIST("changed_axes", struct receipt, changed_axes, JF_REQ, JF_NULLABLE),
	JF_ARRAY_OF("repetitions", struct receipt, reps, nr_reps, rep_fields, JF_REQ, NULL),
	JF_ARRAY_KEPT("ambient_evidence", struct receipt, ambient, nr_ambient, ambient_fields,
		      JF_OPT, JF_HAS(struct receipt, has_ambient), JF_KEEP(struct ambient, json)),
	RECEIPT_SUB("memory", memory, memory_fields),
	RECEIPT_SUB("execution", execution, execution_fields),
	RECEIPT_SUB("quality", quality, quality_fields),
	JF_CODEC("comparison", struct receipt_comparison, struct receipt, comparison,
		 &comparison_codec, NULL),
	JF_ARRAY_OF("module_versions", struct receipt, modules, nr_modules, module_fields, JF_REQ,
		    NULL),
	JF_LIST("commands", struct receipt, commands, JF_REQ, 0),
	JF_ARRAY_OF("profiler_artifacts", struct receipt, artifacts, nr_artifacts, artifact_fields,
		    JF_REQ, NULL),
	/* attestations: any object here; receipt_decode verifies each */
	JF_ARRAY_KEPT("system_baselines", struct receipt, system_baselines, nr_system_baselines,
		      NULL, JF_OMIT, 0, JF_KEEP(struct receipt_attestation, json)),
	JF_SUB_KEPT("experiment", struct receipt, experiment, experiment_fields, has_experiment,
		    JF_KEEP(struct receipt_experiment, json)),
	JF_SUB_KEPT("envelope_state", struct receipt, envelope_state, state_fields,
		    has_envelope_state, JF_KEEP(struct receipt_state, json)),
	JF_KEYC("engine_identity", JF_STR, struct receipt, engine_identity, JF_OMIT,
		identity_known),
	JF_SUB("serving", struct receipt, serving, serving_fields, JF_OPT, 0,
	       JF_HAS(struct receipt, has_serving)),
	JF_END,
};
