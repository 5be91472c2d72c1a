#ifndef FAK_GRAPH_GRAPH_H
#define FAK_GRAPH_GRAPH_H
/* The evidence graph (schema fak-native-performance-graph/v2): envelopes,
 * legacy comparison/rungs/features, levers and one comparison criterion per
 * envelope. Every string is borrowed from the graph's own copy of the input
 * (g->buf), where the pull reader decoded it in place: loading builds no
 * JSON tree. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/jfields.h"	/* struct strlist */
#include "base/strmap.h"

#define GRAPH_SCHEMA "fak-native-performance-graph/v2"
#define CRITERION_SCHEMA "fak-native-performance-comparison-criterion/v1"
/* Largest graph file --graph reads (a 1,000,000-lever graph fits). */
#define GRAPH_MAX_BYTES ((size_t)512 << 20)

/* Default review period of a criterion without review_period_days. */
#define GRAPH_DEFAULT_REVIEW_PERIOD_DAYS 30
/* Warm-up runs of an envelope without warmups. */
#define GRAPH_DEFAULT_WARMUPS 1

struct envelope {
	/* artifact_sha256: 64 lowercase hex digits, or NULL (JSON null) when
	 * the envelope pins no artifact yet and its receipts carry it */
	const char *id, *model, *model_revision, *artifact_sha256, *quantization, *hardware;
	/* "os/arch" or "os/arch+accelerator"; NULL when the input does not
	 * declare it (read it through graph_envelope_platform) */
	const char *platform;
	long long memory_gib;
	const char *engine, *backend, *forward_path;
	long long prompt_tokens, decode_tokens, warmups, repetitions;
	double temperature;	/* >= 0, any number: 0.7 as well as 0 */
	const char *throughput_metric, *comparability_rule;
	/* Evidence every receipt of the envelope must carry beyond its runs:
	 * "profiler_artifacts", "module_versions". Absent from the input
	 * (is_null): both, as fak-native envelopes want; an engine without a
	 * profiler or modules says [] or names the one it has. */
	struct strlist required_evidence;
	/* serving (optional, docs/graph.md "Serving envelopes"): its levers
	 * are witnessed by serving runs of this trace (a server replaying it,
	 * docs/serving.md), decided on the primary metric (a serving_metrics
	 * name, base/serving_metric.h) in its direction ("lower" or
	 * "higher", the metric's own) */
	bool has_serving;
	struct envelope_serving {
		const char *trace_sha256;	/* "sha256:" and 64 lowercase hex */
		const char *primary_metric, *direction;
	} serving;
};

struct throughput {
	double tokens_per_second;
	const char *classification, *engine, *comparability, *observed_on, *provenance, *note;
};

struct issue_ref {
	long long number;
	const char *url;
};

struct rung {
	const char *id, *name;
	struct strlist deps;
	bool enabled;
	const char *status;
	struct {
		double floor, roof;
		const char *classification, *provenance;
	} expected;
	bool has_witnessed;
	struct throughput witnessed;
	const char *gap;
	struct issue_ref next_issue;
};

struct feature {
	const char *id, *name, *rung_id;
	bool enabled;
	const char *status, *observable;
};

struct lever {
	const char *id, *name;
	struct {
		const char *envelope_id, *platform, *backend;
	} app;
	bool enabled;
	const char *status;
	struct strlist deps, conflicts;
	struct {
		const char *summary, *classification, *provenance;
	} expected;
	bool has_witnessed;
	struct {
		const char *summary, *classification, *provenance, *receipt;
		/* graph_envelope_digest of the envelope the effect was witnessed
		 * in; NULL for a witness recorded before fak kept it */
		const char *envelope_digest;
	} witnessed;
	struct issue_ref owner;
	const char *next_witness;
	/* next_witness_requirement (optional): the structured form of what
	 * next_witness says, which --promote checks (docs/graph.md, "Typed next
	 * witnesses") */
	bool has_requirement;
	struct witness_requirement {
		const char *kind;	/* decode | numerical | serving | parity */
		struct witness_threshold {
			const char *metric, *op;	/* op: ">=", "<=", "==" */
			double value;
		} *metrics;		/* owned array */
		size_t nr_metrics;
		struct strlist engines;	/* parity: the two engines matched */
		/* serving (optional, kind serving only): the trace, primary metric
		 * and direction its serving receipt must carry, pinned by the
		 * lever where its envelope pins none (an envelope that keeps
		 * decode receipts: docs/graph.md, "Serving envelopes") */
		bool has_serving;
		struct envelope_serving serving;
	} requirement;
};

/* Comparison criterion of one envelope (docs/graph.md, "Comparison criterion"). */
struct criterion {
	const char *envelope_id;	/* the key under "criteria" */
	const char *schema, *id;
	long long version;
	const char *output_class;
	long long minimum_repetitions;
	double maximum_noise_percent, investigate_drop_percent, regression_drop_percent;
	double minimum_throughput_tokens_per_second;
	const char *quality_metric;
	double minimum_quality_score;
	bool quality_higher_is_better;
	/* optional members: emitted (and digested) only when the input has them */
	bool has_practical_threshold;
	double practical_threshold_percent;	/* the decision's threshold */
	bool has_review_period;
	long long review_period_days;
	/* optional GPU policy (clock-observation tolerance, docs/graph.md
	 * "GPU policy"): emitted and digested only when present */
	bool has_gpu_policy;
	struct gpu_policy {
		double minimum_coverage_ratio;		/* [0, 1] */
		bool allow_unreadable;
		double maximum_sm_clock_drift_percent, maximum_memory_clock_drift_percent;
		long long target_sm_clock_mhz, target_memory_clock_mhz;	/* 0: none */
		struct strlist disqualifying_reasons;	/* clock-event reason names */
	} gpu_policy;
	/* optional host policy: the sampler's ceilings for this envelope's runs,
	 * in place of its defaults (a shared CI machine); emitted and digested
	 * only when present; docs/graph.md */
	bool has_host_policy;
	struct host_policy {
		double maximum_non_sut_cpu_percent;	/* (0, 100] */
		double maximum_sampler_duty_percent;	/* (0, 100] */
		double maximum_psi_stall_percent;	/* [0, 100] */
	} host_policy;
};

struct graph {
	char *buf;	/* owned: every string below points into it */
	const char *schema;
	/* The legacy view (envelope, comparison, rungs, features) is in the
	 * input: all four members or none (a graph written by fak for a new
	 * engine). Without it they are zero and written out by no one. */
	bool has_legacy;
	struct envelope envelope;	/* legacy primary-envelope view */
	struct throughput comparison;
	struct rung *rungs;
	size_t nr_rungs;
	struct feature *features;
	size_t nr_features;
	struct envelope *envelopes;
	size_t nr_envelopes;
	struct lever *levers;
	size_t nr_levers;
	struct criterion *criteria;
	size_t nr_criteria;
	/* id -> index of the first element with that id */
	struct strmap lever_ids, envelope_ids, rung_ids;
};

/* Loading decodes strictly (unknown keys, wrong types, missing fields are
 * errors with a JSON path). It does not validate: call graph_validate. */
int graph_load_default(struct graph *g, struct err *e);
int graph_load_file(struct graph *g, const char *path, struct err *e);
/* name is used in error messages. */
int graph_load_buf(struct graph *g, const char *buf, size_t len, const char *name, struct err *e);
void graph_release(struct graph *g);

/* Every rule of docs/graph.md "Validation" plus criteria; findings are appended and
 * sorted. No findings = valid. */
void graph_validate(const struct graph *g, struct findings *out);

/* Lookups by id (first occurrence); NULL when absent. Borrowed. */
const struct lever *graph_lever(const struct graph *g, const char *id);
/* The serving pin a serving receipt of lever l (NULL: none named) in env
 * must carry: the lever's next_witness_requirement.serving, else the
 * envelope's serving; NULL where neither pins one. */
const struct envelope_serving *graph_serving_pin(const struct envelope *env,
						 const struct lever *l);
const struct envelope *graph_envelope(const struct graph *g, const char *id);
const struct criterion *graph_criterion(const struct graph *g, const char *envelope_id);

/* The envelope's platform: the declared one, else the one its backend
 * implies (metal -> darwin/arm64, cuda -> linux/amd64+nvidia-a100), else
 * NULL (another backend must declare it; graph_validate reports that).
 * Borrowed. */
const char *graph_envelope_platform(const struct envelope *v);
/* "os/arch" with an optional "+accelerator": os is [a-z][a-z0-9]*, arch
 * [a-z0-9][a-z0-9_]*, accelerator [a-z0-9][a-z0-9._-]*, at most
 * GRAPH_PLATFORM_MAX bytes in all. */
#define GRAPH_PLATFORM_MAX 64

bool graph_platform_valid(const char *s);

/* Whether receipts of v must carry the evidence named what
 * ("profiler_artifacts" or "module_versions"); see required_evidence. */
bool graph_envelope_requires(const struct envelope *v, const char *what);
/* Is s an engine name an envelope may pin ("fak-native", "llama.cpp",
 * "vllm")? A lowercase letter or digit, then lowercase letters, digits and
 * ". _ + -", GRAPH_ENGINE_MAX bytes at most. */
bool graph_engine_valid(const char *s);
#define GRAPH_ENGINE_MAX 64
/* Ids of envelopes, levers, rungs, features and criteria become file and
 * folder names, sealed labels, Markdown and DOT text, and the front-door
 * index's envelope keys: runs of lowercase letters and digits joined by
 * single '.', '_' or '-' (so no ".."), GRAPH_ID_MAX bytes at most
 * (docs/graph.md, "Ids"). NULL when s is such an id, else what is wrong
 * with it (static text). */
const char *graph_id_problem(const char *s);
#define GRAPH_ID_MAX 128
/* The practical threshold of the decision in percent (docs/receipts.md, "The
 * decision"): practical_threshold_percent, or for a criterion written before
 * it, maximum_noise_percent. */
/* A criterion's host policy as the graph writes it (new object). */
json_t *graph_host_policy_json(const struct host_policy *h);
double graph_criterion_threshold(const struct criterion *c);
/* review_period_days, or GRAPH_DEFAULT_REVIEW_PERIOD_DAYS when absent. */
long long graph_criterion_review_period_days(const struct criterion *c);

/* The kinds of a next witness's requirement and what a value v meets
 * against threshold t ("v >= 0.995"). */
bool graph_requirement_kind_valid(const char *kind);
bool graph_threshold_op_valid(const char *op);
bool graph_threshold_met(const struct witness_threshold *t, double v);
/* The lever's next_witness_requirement as the graph writes it (new
 * reference; null without one). */
json_t *graph_requirement_json(const struct lever *l);

/* The first dependency of l that is unknown or not enabled, NULL when every
 * dependency is enabled. Borrowed. */
const char *graph_unmet_dependency(const struct graph *g, const struct lever *l);
/* Disabled, unwitnessed, and every dependency enabled. */
bool graph_lever_ready(const struct graph *g, const struct lever *l);
/* First ready lever in graph order, restricted to envelope_id unless NULL.
 * NULL when none. The graph must be valid. */
const struct lever *graph_next(const struct graph *g, const char *envelope_id);

/* The hill climb of one envelope, as the climb chart draws it. */
struct graph_climb {
	const struct envelope *env;
	const struct criterion *crit;		/* its criterion (the floor), NULL if none */
	const struct throughput *comparison;	/* the legacy comparison point: only in the
						 * legacy envelope's climb, else NULL */
	const struct rung **rungs;		/* the legacy rungs (legacy envelope only) */
	size_t nr_rungs;
	const struct lever **levers;		/* the envelope's levers */
	size_t nr_levers;
};
/* One climb per envelope, in graph order (g->nr_envelopes of them; free
 * with graph_climbs_release). Rungs and levers keep graph order, except
 * that each comes after everything it depends on. Everything is borrowed
 * from g, which must be valid. */
struct graph_climb *graph_climbs(const struct graph *g);
void graph_climbs_release(struct graph_climb *c, size_t n);
/* The medians of tok/s a lever's witness states, in the form fak's
 * promotion writes its summary ("VERDICT: median A -> B tok/s (...)", the
 * verdict's "no effect beyond" clause allowed): true with *base and *cand
 * (finite, >= 0); false when the lever has no witness or its summary states
 * no such pair (a witness written by hand), so nothing is made up. */
bool graph_lever_witnessed_medians(const struct lever *l, double *base, double *cand);

/* JSON values in documented key order (new references; caller decrefs).
 * Envelopes carry platform and warmups explicitly (the legacy top-level
 * envelope keeps its original members); criteria follow envelope order,
 * whatever the order of the input. */
json_t *graph_to_json(const struct graph *g);
json_t *graph_lever_json(const struct lever *l);
/* The criterion object without the envelope key, in documented order. */
json_t *graph_criterion_json(const struct criterion *c);
/* "sha256:<hex>" of the RFC 8785 form of the criterion object. */
int graph_criterion_digest(const struct criterion *c, char out[72], struct err *e);
/* "sha256:<hex>" of the RFC 8785 form of the envelope object exactly as
 * graph_to_json writes it in envelopes[] (`fak native-performance --json`):
 * the same envelope gives the same digest, any change of a member another. */
int graph_envelope_digest(const struct envelope *v, char out[72], struct err *e);
/* The envelope object graph_envelope_digest digests (new reference). */
json_t *graph_envelope_json(const struct envelope *v);
/* The members in which envelope object `was` (borrowed: as a receipt or a
 * witness manifest recorded it) differs from `now`, one "name: X then, Y
 * now" each (values in JSON), joined by "; ". NULL when no member differs.
 * Caller frees. */
char *graph_envelope_changes(const json_t *was, const struct envelope *now);
/* How an envelope a receipt or a witness manifest recorded (its object
 * `was` and `was_digest`, borrowed) stands against the graph's `now`:
 * the same envelope; changed (now_digest gets now's digest, *changes
 * graph_envelope_changes, or "no member differs"; caller frees); or a
 * record whose digest is not its object's (edited after it was written). */
enum graph_envelope_match { GRAPH_ENVELOPE_SAME, GRAPH_ENVELOPE_CHANGED, GRAPH_ENVELOPE_FORGED };
enum graph_envelope_match graph_envelope_match(const json_t *was, const char *was_digest,
					       const struct envelope *now,
					       char now_digest[72], char **changes);
/* The rule of graph_validate that binds each witnessed effect to its
 * envelope: a witnessed effect that records an envelope digest other than
 * its envelope's digest now (the envelope was edited under its witness). */
void graph_validate_witness_envelopes(const struct graph *g, struct findings *out);

#endif
