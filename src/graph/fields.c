/* The graph's records, each member once: name, kind, need, where. */
#include "graph/fields.h"

#include "graph/graph.h"

const struct jfield graph_throughput_fields[] = {
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

static const struct jfield serving_fields[] = {
	JF(JF_STR, struct envelope_serving, trace_sha256, JF_REQ),
	JF(JF_STR, struct envelope_serving, primary_metric, JF_REQ),
	JF(JF_STR, struct envelope_serving, direction, JF_REQ),
	JF_END,
};

/* platform, warmups, required_evidence and serving are optional: graphs
 * written before them still load (docs/graph.md, "Envelope") */
#define ENVELOPE_IDS                                                                         \
	JF(JF_STR, struct envelope, id, JF_REQ),                                             \
	JF(JF_STR, struct envelope, model, JF_REQ),                                          \
	JF(JF_STR, struct envelope, model_revision, JF_REQ),                                 \
	/* null: no artifact pinned yet */                                                   \
	JF_KEYF("artifact_sha256", JF_STR, struct envelope, artifact_sha256, JF_REQ,        \
		JF_NULLABLE),                                                                \
	JF(JF_STR, struct envelope, quantization, JF_REQ),                                   \
	JF(JF_STR, struct envelope, hardware, JF_REQ)
#define ENVELOPE_SIZES                                                                       \
	JF(JF_LLONG, struct envelope, memory_gib, JF_REQ),                                   \
	JF(JF_STR, struct envelope, engine, JF_REQ),                                         \
	JF(JF_STR, struct envelope, backend, JF_REQ),                                        \
	JF(JF_STR, struct envelope, forward_path, JF_REQ),                                   \
	JF(JF_LLONG, struct envelope, prompt_tokens, JF_REQ),                                \
	JF(JF_LLONG, struct envelope, decode_tokens, JF_REQ)
#define ENVELOPE_TAIL                                                                        \
	JF(JF_LLONG, struct envelope, repetitions, JF_REQ),                                  \
	JF(JF_NUM, struct envelope, temperature, JF_REQ),                                    \
	JF(JF_STR, struct envelope, throughput_metric, JF_REQ),                              \
	JF(JF_STR, struct envelope, comparability_rule, JF_REQ)

const struct jfield graph_envelope_fields[] = {
	ENVELOPE_IDS,
	JF(JF_STR, struct envelope, platform, JF_OPT),
	ENVELOPE_SIZES,
	JF(JF_LLONG, struct envelope, warmups, JF_OPT),
	ENVELOPE_TAIL,
	JF_LIST("required_evidence", struct envelope, required_evidence, JF_OMIT, 0),
	JF_SUB("serving", struct envelope, serving, serving_fields, JF_OPT, 0,
	       JF_HAS(struct envelope, has_serving)),
	JF_END,
};

const struct jfield graph_legacy_envelope_fields[] = {
	ENVELOPE_IDS,
	ENVELOPE_SIZES,
	ENVELOPE_TAIL,
	JF_END,
};

void graph_envelope_init(void *rec)
{
	struct envelope *v = rec;

	v->warmups = GRAPH_DEFAULT_WARMUPS;
}

void graph_legacy_envelope_init(void *rec)
{
	struct envelope *v = rec;

	v->required_evidence.is_null = true;
}

static const struct jfield rung_expected_fields[] = {
	JF_KEY("floor_tokens_per_second", JF_NUM, struct rung, expected.floor, JF_REQ),
	JF_KEY("roof_tokens_per_second", JF_NUM, struct rung, expected.roof, JF_REQ),
	JF_KEY("classification", JF_STR, struct rung, expected.classification, JF_REQ),
	JF_KEY("provenance", JF_STR, struct rung, expected.provenance, JF_REQ),
	JF_END,
};

const struct jfield graph_rung_fields[] = {
	JF(JF_STR, struct rung, id, JF_REQ),
	JF(JF_STR, struct rung, name, JF_REQ),
	JF_LIST("dependency_ids", struct rung, deps, JF_REQ, JF_NULLABLE),
	JF(JF_BOOL, struct rung, enabled, JF_REQ),
	JF(JF_STR, struct rung, status, JF_REQ),
	JF_GROUP("expected", rung_expected_fields, JF_REQ, 0, 0),
	JF_SUB("witnessed", struct rung, witnessed, graph_throughput_fields, JF_REQ, JF_NULLABLE,
	       JF_HAS(struct rung, has_witnessed)),
	JF(JF_STR, struct rung, gap, JF_REQ),
	JF_SUB("next_issue", struct rung, next_issue, issue_fields, JF_REQ, 0, 0),
	JF_END,
};

const struct jfield graph_feature_fields[] = {
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

/* the expected effect has no receipt member */
static const struct jfield lever_expected_fields[] = {
	JF_KEY("summary", JF_STR, struct lever, expected.summary, JF_REQ),
	JF_KEY("classification", JF_STR, struct lever, expected.classification, JF_REQ),
	JF_KEY("provenance", JF_STR, struct lever, expected.provenance, JF_REQ),
	JF_END,
};

/* envelope_digest: absent from a witness recorded before fak kept it */
static const struct jfield lever_witnessed_fields[] = {
	JF_KEY("summary", JF_STR, struct lever, witnessed.summary, JF_REQ),
	JF_KEY("classification", JF_STR, struct lever, witnessed.classification, JF_REQ),
	JF_KEY("provenance", JF_STR, struct lever, witnessed.provenance, JF_REQ),
	JF_KEY("receipt", JF_STR, struct lever, witnessed.receipt, JF_REQ),
	JF_KEY("envelope_digest", JF_STR, struct lever, witnessed.envelope_digest, JF_OMIT),
	JF_END,
};

static const struct jfield threshold_fields[] = {
	JF(JF_STR, struct witness_threshold, metric, JF_REQ),
	JF(JF_STR, struct witness_threshold, op, JF_REQ),
	JF(JF_NUM, struct witness_threshold, value, JF_REQ),
	JF_END,
};

/* engines: only a parity witness names them; serving: a serving witness of
 * a lever whose envelope pins no trace */
const struct jfield graph_requirement_fields[] = {
	JF(JF_STR, struct witness_requirement, kind, JF_REQ),
	JF_ARRAY_OF("metrics", struct witness_requirement, metrics, nr_metrics, threshold_fields,
		    JF_REQ, NULL),
	JF_LIST("engines", struct witness_requirement, engines, JF_OMIT, JF_NULLABLE),
	JF_SUB("serving", struct witness_requirement, serving, serving_fields, JF_OPT, 0,
	       JF_HAS(struct witness_requirement, has_serving)),
	JF_END,
};

const struct jfield graph_lever_fields[] = {
	JF(JF_STR, struct lever, id, JF_REQ),
	JF(JF_STR, struct lever, name, JF_REQ),
	JF_GROUP("applicability", lever_app_fields, JF_REQ, 0, 0),
	JF(JF_BOOL, struct lever, enabled, JF_REQ),
	JF(JF_STR, struct lever, status, JF_REQ),
	JF_LIST("dependency_ids", struct lever, deps, JF_REQ, JF_NULLABLE),
	JF_LIST("conflict_ids", struct lever, conflicts, JF_REQ, JF_NULLABLE),
	JF_GROUP("expected", lever_expected_fields, JF_REQ, 0, 0),
	JF_GROUP("witnessed", lever_witnessed_fields, JF_REQ, JF_NULLABLE,
		 JF_HAS(struct lever, has_witnessed)),
	JF_SUB("owning_issue", struct lever, owner, issue_fields, JF_REQ, 0, 0),
	JF(JF_STR, struct lever, next_witness, JF_REQ),
	JF_SUB("next_witness_requirement", struct lever, requirement, graph_requirement_fields,
	       JF_OPT, 0, JF_HAS(struct lever, has_requirement)),
	JF_END,
};

/* The targets are optional (0: none, not written); the reasons may be
 * null, read as none and written as []. */
static const struct jfield gpu_policy_fields[] = {
	JF(JF_NUM, struct gpu_policy, minimum_coverage_ratio, JF_REQ),
	JF(JF_BOOL, struct gpu_policy, allow_unreadable, JF_REQ),
	JF(JF_NUM, struct gpu_policy, maximum_sm_clock_drift_percent, JF_REQ),
	JF(JF_NUM, struct gpu_policy, maximum_memory_clock_drift_percent, JF_REQ),
	JF(JF_LLONG, struct gpu_policy, target_sm_clock_mhz, JF_OMIT),
	JF(JF_LLONG, struct gpu_policy, target_memory_clock_mhz, JF_OMIT),
	JF_LIST("disqualifying_clocks_event_reasons", struct gpu_policy, disqualifying_reasons,
		JF_REQ, JF_NULL_READ),
	JF_END,
};

const struct jfield graph_host_policy_fields[] = {
	JF(JF_NUM, struct host_policy, maximum_non_sut_cpu_percent, JF_REQ),
	JF(JF_NUM, struct host_policy, maximum_sampler_duty_percent, JF_REQ),
	JF(JF_NUM, struct host_policy, maximum_psi_stall_percent, JF_REQ),
	JF_END,
};

const struct jfield graph_criterion_fields[] = {
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
	JF_HASF(JF_NUM, struct criterion, practical_threshold_percent, has_practical_threshold),
	JF_HASF(JF_LLONG, struct criterion, review_period_days, has_review_period),
	JF_SUB("gpu_policy", struct criterion, gpu_policy, gpu_policy_fields, JF_OPT, 0,
	       JF_HAS(struct criterion, has_gpu_policy)),
	JF_SUB("host_policy", struct criterion, host_policy, graph_host_policy_fields, JF_OPT, 0,
	       JF_HAS(struct criterion, has_host_policy)),
	JF_END,
};
