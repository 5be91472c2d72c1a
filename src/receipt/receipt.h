#ifndef FAK_RECEIPT_RECEIPT_H
#define FAK_RECEIPT_RECEIPT_H
/* Experiment receipts (fak-native-performance-receipt/v2; v1 is read): the
 * scrubbed evidence of one repetition set of a one-lever experiment on one
 * envelope. Decoding is strict and structural; receipt_validate applies every
 * rule (graph-independent and graph-bound) and collects findings.
 *
 * Strings in a decoded receipt are borrowed from r->doc, which the receipt
 * holds a reference to; nothing outlives receipt_release. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/jfields.h"
#include "base/json.h"
#include "graph/graph.h"
#include "attestation/attest.h"
#include "attestation/attestation.h"
#include "stats/stats.h"

#define RECEIPT_SCHEMA_V1 "fak-native-performance-receipt/v1"
#define RECEIPT_SCHEMA_V2 "fak-native-performance-receipt/v2"
#define AMBIENT_SCHEMA "fak-native-ambient-evidence/v1"
#define RECEIPT_QUALITY_METRIC "exact_match"
#define RECEIPT_FILL_PREFIX "FILL_"

/* Sane bounds of every repetition metric (validation refuses values outside
 * them, so derived statistics stay finite). */
#define RECEIPT_MIN_TPS 1e-6
#define RECEIPT_MAX_TPS 1e9
#define RECEIPT_MAX_MS 1e12

/* The canonical unchanged-control list, in canonical order. */
#define RECEIPT_NR_CONTROLS 12
extern const char *const receipt_canonical_controls[RECEIPT_NR_CONTROLS];

struct receipt_rep {
	double end_to_end_ms, tokens_per_second;
	bool has_ttft, has_prefill, has_decode;
	double ttft_ms, prefill_ms, decode_ms;
	const char *system_baseline_digest;	/* NULL when absent or "" */
	/* A serving receipt's repetition: its run's sealed serving facts and
	 * summary (attestation/workload.h), as the attestation seals them. */
	bool has_serving;
	struct wl_serving serving;
};

/* A serving receipt's `serving` member (docs/receipts.md, "Serving
 * receipts"): the trace every repetition replayed, and the primary metric
 * the decision reads (a serving_metrics name) with its direction. */
struct receipt_serving {
	const char *trace_sha256;	/* "sha256:<hex>" */
	const char *primary_metric;
	const char *direction;		/* "lower" | "higher" */
};

/* Legacy per-repetition ambient evidence (fak-native-ambient-evidence/v1). */
struct ambient_metric {
	const char *availability;	/* measured | unavailable | unknown */
	bool has_value;
	double value;
};

struct ambient {
	const json_t *json;	/* borrowed from the receipt document */
	const char *schema, *started_at, *ended_at;
	long long elapsed_ms, interval_ms;
	const char *source, *platform;
	double sampler_overhead_ms;
	struct ambient_metric host_cpu_percent, available_memory_bytes, process_churn,
		non_sut_cpu_percent;
	long long command_exit_code;
	const char *verdict, *digest;
};

/* One embedded attestation, verified once, when the receipt is decoded
 * (attestation_check_decode): validation, the comparison, the gate and promotion
 * read its verdict and facts here instead of verifying it again. */
struct receipt_attestation {
	const json_t *json;		/* borrowed from the receipt document */
	bool verified;			/* attestation_check passed: att and facts are set */
	char *why;			/* why it did not (owned; NULL when verified) */
	struct attestation *att;	/* the decoded attestation (owned; NULL unless
					   verified) */
	struct attestation_facts facts;	/* what attestation_check reports (verified) */
};

/* Verifies json (borrowed; NULL: nothing to verify, a is left unverified
 * with why NULL) into a, which it overwrites; receipt_attestation_release
 * frees what a owns. receipt_decode does this for every attestation it
 * holds. */
void receipt_attestation_verify(struct receipt_attestation *a, const json_t *json);
void receipt_attestation_release(struct receipt_attestation *a);

struct receipt_module {
	const char *module, *revision;
};

struct receipt_artifact {
	const char *path, *sha256;
};

struct receipt_controls {
	long long prompt_tokens, decode_tokens, batch, context_tokens;
	double temperature;
	const char *sampling, *cache_state;
	long long warmups, repetitions;
};

struct receipt_execution {
	const char *engine, *forward_path;
	long long fallback_count;
};

struct receipt_quality {
	const char *name;
	double score;
	bool higher_is_better;
};

/* All-zero ("", "", 0, "") when absent from a v1 receipt. */
struct receipt_comparison {
	const char *output_class, *criterion_id;
	long long criterion_version;
	const char *criterion_digest;
};

/* The state of the envelope an experiment ran against (optional; receipts
 * written before fak recorded it have none): every lever of the envelope
 * in graph order with its enabled flag and witness, and the criterion
 * digest. --promote recomputes it from the current graph and refuses a
 * receipt whose state differs or is missing. */
struct receipt_lever_state {
	const char *id;
	bool enabled;
	const char *witness;	/* the lever's witnessed.receipt; NULL: none */
};

struct receipt_state {
	const json_t *json;	/* borrowed from the receipt document */
	const char *criterion_digest;
	/* The envelope the experiment ran in, as the graph had it, and its
	 * graph_envelope_digest; both NULL in a state written before fak
	 * recorded them (it compares and gates, never promotes). Borrowed. */
	const char *envelope_digest;
	const json_t *envelope;
	struct receipt_lever_state *levers;	/* owned array */
	size_t nr_levers;
};

/* One run of an experiment's schedule (written by `fak bench experiment`). */
struct receipt_run {
	const char *arm, *kind;		/* baseline|candidate, warmup|repetition|quality */
	long long index;
	const char *started_at_utc, *attestation_digest;
};

/* One look of a sequential experiment (--until-decisive). */
struct receipt_look {
	long long repetitions;		/* per arm */
	double level;			/* its interval's planned level */
	const char *verdict;		/* what the first `repetitions` gave */
};

/* The optional `sequential` member of `experiment`: the stopping rule and
 * every look taken (docs/receipts.md, "Running until decisive"). */
struct receipt_sequential {
	const char *rule;		/* RECEIPT_SEQUENTIAL_RULE */
	double level;			/* of the whole design */
	long long first_repetitions, max_repetitions;
	struct receipt_look *looks;	/* owned array */
	size_t nr_looks;
};

/* The optional `experiment` member: how the runs were ordered and which ran
 * when (the same schedule in both receipts of an experiment), the metrics
 * parser, and for llama-bench the arm's sealed quality run. */
struct receipt_experiment {
	const json_t *json;		/* borrowed from the receipt document */
	const char *id;			/* 32 hex digits: the experiment */
	const char *order;		/* interleaved | random | blocked */
	bool has_seed;
	long long seed;
	const char *metrics_parser;
	struct receipt_run *schedule;	/* owned array */
	size_t nr_schedule;
	const json_t *quality_attestation;	/* borrowed; NULL when absent */
	struct receipt_attestation quality_sealed;	/* quality_attestation, verified */
	bool has_sequential;
	struct receipt_sequential sequential;
	/* What fak observed of the host the runs ran on (NULL: not recorded,
	 * a receipt from before fak recorded it) and of the engine, where
	 * every repetition's metrics line stated it (NULL: not stated). */
	const char *cpu_model, *kernel_release;
	const char *engine_build_commit, *engine_backends;
	/* The controls the receipt states as the criterion requires them but
	 * that fak neither observed nor found pinned by the envelope; absent
	 * (n 0, is_null): a receipt from before fak said so. */
	struct strlist controls_not_observed;
};

struct receipt {
	json_t *doc;	/* owned reference; every string points into it */
	const char *schema, *role, *envelope_id, *changed_lever_id, *revision, *artifact_sha256;
	struct receipt_machine {
		const char *scrubbed_id, *platform, *backend;
	} machine;
	struct receipt_controls controls;
	struct strlist unchanged_controls, changed_axes;
	struct receipt_rep *reps;
	size_t nr_reps;
	bool has_ambient;	/* the ambient_evidence key is present */
	struct ambient *ambient;
	size_t nr_ambient;
	struct receipt_memory {
		long long peak_bytes, resident_bytes;	/* >= 0 */
	} memory;
	struct receipt_execution execution;
	struct receipt_quality quality;
	struct receipt_comparison comparison;
	struct receipt_module *modules;
	size_t nr_modules;
	struct strlist commands;
	struct receipt_artifact *artifacts;
	size_t nr_artifacts;
	struct receipt_attestation *system_baselines;	/* owned array */
	size_t nr_system_baselines;
	bool has_experiment;
	struct receipt_experiment experiment;
	bool has_envelope_state;
	struct receipt_state envelope_state;
	/* RECEIPT_IDENTITY_OBSERVED or _DECLARED; NULL when absent (written
	 * before fak recorded it: declared). */
	const char *engine_identity;
	bool has_serving;
	struct receipt_serving serving;
};

/* Where a receipt's engine identity comes from (receipt/identity.h):
 * observed when every repetition's sealed run stated its engine, declared
 * when the engine is only the graph's word. */
#define RECEIPT_IDENTITY_OBSERVED "observed"
#define RECEIPT_IDENTITY_DECLARED "declared"

/* Why an attestation sealed under a test seam (its `simulated` names,
 * attestation/simulated.h) is refused wherever a receipt is read; the names
 * follow. */
#define RECEIPT_SIMULATED_WHY                                                            \
	"is simulated, not evidence of a host: it was sealed while a test variable "   \
	"pointed the sampler at fake files (unset it and run again):"

/* Strict decode of v (borrowed; the receipt takes its own reference): every
 * key known, every type right, required members present. `at` is the JSON
 * path of v inside its document (NULL at the root). On error *r is empty.
 * Every embedded attestation (system_baselines[], the experiment's quality
 * attestation) is then verified once (receipt_attestation_verify); one
 * that fails does not fail the decode: validation reports it. */
int receipt_decode(struct receipt *r, const json_t *v, const struct jpath *at, struct err *e);
/* Parse and decode one receipt document; name appears in errors. */
int receipt_parse(struct receipt *r, const char *buf, size_t len, const char *name, struct err *e);
/* Read a receipt file (bounded) and decode it. */
int receipt_load(struct receipt *r, const char *path, struct err *e);
/* The same, and the sha256 of the file's bytes (hex) in sha256. */
int receipt_load_sha256(struct receipt *r, const char *path, char sha256[65], struct err *e);
void receipt_release(struct receipt *r);

/* The receipt in documented key order (new reference). Embedded attestations
 * and ambient evidence are copied as they are. */
json_t *receipt_to_json(const struct receipt *r);

/* ---- validation ---------------------------------------------------------- */

enum {
	/* Skip every system-baseline rule (attestations and bindings); the gate
	 * judges that evidence itself. */
	RECEIPT_SKIP_SYSTEM_BASELINES = 1 << 0,
	/* Fewer attestations than repetitions, while --attach-receipt builds
	 * a receipt up (a finished receipt of sealed runs binds them all). */
	RECEIPT_PARTIAL = 1 << 1,
};

/* Every rule of the receipt contract, graph-independent first, then the
 * graph-bound ones (lever, envelope, platform, artifact, comparison
 * identity). Findings are appended to out (then sorted); none = valid.
 * Each finding starts with the JSON path it is about. */
void receipt_validate(const struct receipt *r, const struct graph *g, unsigned flags,
		      struct findings *out);

/* Scrubbed machine id: not blank, scrubbed text (str_scrubbed of
 * base/text.h), no ':'. */
bool receipt_is_scrubbed_id(const char *s);
/* A template placeholder: contains FILL_, or is an all-zero SHA-256 (64
 * zeros, with or without "sha256:"). Validation refuses every string of the
 * receipt document that is one, at its JSON path. */
bool receipt_is_placeholder(const char *s);
/* Text a public receipt may carry as a captured value (a command, a
 * revision, a path): not blank, no placeholder, scrubbed (str_scrubbed).
 * False with the reason appended to why. */
bool receipt_text_captured(const char *s, struct strbuf *why);
/* The same for a shell command (str_scrubbed_command: shell escapes are
 * not Windows paths). */
bool receipt_command_captured(const char *s, struct strbuf *why);

/* ---- experiment schedules (plan.c) --------------------------------------- */

enum receipt_order { RECEIPT_ORDER_INTERLEAVED, RECEIPT_ORDER_RANDOM, RECEIPT_ORDER_BLOCKED };
extern const char *const receipt_order_names[3];	/* "interleaved", "random", "blocked" */

/* Largest seed: every value stays an exact JSON number. */
#define RECEIPT_SEED_MAX ((uint64_t)1 << 53)
/* Largest number of runs an experiment plans (warm-ups, repetitions and
 * quality runs of both arms). */
#define RECEIPT_MAX_STEPS 100000

enum { RECEIPT_ARM_BASELINE, RECEIPT_ARM_CANDIDATE };
extern const char *const receipt_arm_names[2];	/* "baseline", "candidate" */

/* One run of an experiment's schedule. */
struct receipt_step {
	int arm;		/* RECEIPT_ARM_* */
	const char *kind;	/* "warmup" | "repetition" | "quality" (WL_KIND_*) */
	int64_t index;		/* 0-based within arm and kind */
};

/* The order of every run of an experiment. Warm-ups first (both arms,
 * alternating), then the repetitions: interleaved in ABBA blocks (A B, B A,
 * A B, ...), random with each pair's order drawn from seed, or blocked
 * (every baseline repetition, then every candidate one; each arm's warm-ups
 * open its block). Quality runs, when asked for, follow each arm's last
 * repetition. The runner runs this plan and validation checks that a
 * receipt's schedule is exactly it. *steps is allocated (caller frees). */
int receipt_plan(enum receipt_order order, uint64_t seed, size_t warmups, size_t reps, bool quality,
		 struct receipt_step **steps, size_t *nr, struct err *e);
/* "baseline-2", "candidate-warmup-1", "baseline-quality" (1-based): the
 * file names of a run's logs and attestation. */
void receipt_step_name(const struct receipt_step *s, char *out, size_t cap);
/* "baseline repetition 2", "candidate warm-up 1", "baseline quality run"
 * (1-based): how messages name a run. */
void receipt_step_title(const struct receipt_step *s, char *out, size_t cap);

/* ---- sealed metrics (bind.c) --------------------------------------------- */

/* The memory a receipt states for its runs' sealed attestations (v2), the
 * largest over the runs of: resident = the sampled SUT RSS
 * (attribution.sut_rss_bytes), else the workload's peak; peak = the largest
 * of the cgroup v2 memory.peak, the workload's peak (peak_rss_bytes: the
 * sampler's peak, docs/sampler.md) and that resident set, so the peak is
 * never below the resident set (attestations sealed before the workload's
 * peak counted the sampled tree get the same rule). -1 with e naming the
 * run that measured no peak or no resident set. */
int receipt_memory_from_reports(const struct attestation *const *reps, size_t n, long long *peak,
				long long *resident, struct err *e);
/* The quality a json-line arm states: the worst score its runs sealed (the
 * lowest when higher is better). Every run must name the same metric and
 * direction. */
int receipt_quality_from_runs(const struct attestation *const *reps, size_t n,
			      struct wl_quality *q, struct err *e);

/* Per repetition of a valid receipt: whether its values are sealed by a
 * fak.system-baseline/v2 attestation (validation checked that they equal
 * it). A new JSON array of booleans. */
json_t *receipt_metrics_bound_json(const struct receipt *r);

/* ---- comparison criterion ------------------------------------------------ */

/* Resolve the comparison criterion from the run identity of r: the lever's
 * envelope must be r's envelope and every immutable control, the execution
 * identity and the quality metric must equal the envelope's. On failure
 * returns NULL and appends one finding per reason to why (if non-NULL). */
const struct criterion *receipt_criterion(const struct receipt *r, const struct graph *g,
					  struct findings *why);

/* The comparison identity a receipt must carry for criterion c. Strings
 * point into c or into digest (caller's buffer of JSON_DIGEST_LEN + 1). */
int receipt_identity(const struct criterion *c, char digest[JSON_DIGEST_LEN + 1],
		     struct receipt_comparison *out, struct err *e);

/* True when every member of the identity is zero (legacy v1 receipts). */
bool receipt_comparison_is_zero(const struct receipt_comparison *c);
bool receipt_comparison_equal(const struct receipt_comparison *a,
			      const struct receipt_comparison *b);

/* ---- comparison ---------------------------------------------------------- */

#define COMPARISON_SCHEMA "fak-native-performance-comparison/v3"

enum { RECEIPT_DRIFT_EXECUTION = 1 << 0 };

/* One finding per control axis that differs between a and b: artifact,
 * machine, controls, comparison identity, unchanged_controls (as multisets)
 * and, with RECEIPT_DRIFT_EXECUTION, the execution identity. */
void receipt_drift(const struct receipt *a, const struct receipt *b, unsigned flags,
		   struct findings *out);

/* Fail-closed comparison of a baseline and a candidate receipt, in order:
 * baseline valid, candidate valid, roles, same envelope and lever, no control
 * drift. Returns the comparison document (new reference), or NULL with
 * *what set to a static description of the failed step and the reasons in
 * out (sorted). */
json_t *receipt_compare(const struct receipt *base, const struct receipt *cand,
			const struct graph *g, const char **what, struct findings *out);
/* The same, the decision's interval widened for `attempts` attempts of the
 * lever (stats_level_for_attempts; promotion passes the ledger's count). */
json_t *receipt_compare_attempts(const struct receipt *base, const struct receipt *cand,
				 const struct graph *g, size_t attempts, const char **what,
				 struct findings *out);

/* The compared metrics of a repetition: tokens per second, end to end,
 * and of a serving receipt RECEIPT_SERVING_FIRST + i, serving_metrics[i]
 * (base/serving_metric.h) of its repetitions' serving summaries. */
enum receipt_metric { RECEIPT_TOKENS_PER_SECOND, RECEIPT_END_TO_END_MS, RECEIPT_SERVING_FIRST };

/* "tokens_per_second", "end_to_end_milliseconds", "ttft_p95_ms", ... */
const char *receipt_metric_name(int m);
/* The primary metric of a pair of receipts: the serving primary metric of
 * serving receipts (both must name the same known one: -1 with e), else
 * tokens per second. */
int receipt_primary_metric(const struct receipt *base, const struct receipt *cand, int *m,
			   struct err *e);

/* stats_compare over metric m of every repetition of base and cand
 * (tokens per second: higher is better; milliseconds: lower is better; a
 * serving metric: its own direction). The error names the metric. */
int receipt_metric_compare(const struct receipt *base, const struct receipt *cand,
			   int m, double threshold_percent, double level,
			   struct stats_comparison *out, struct err *e);

/* ---- the decision (decide.c) ---------------------------------------------- */

/* The one verdict of an A/B (docs/receipts.md, "The decision"): the exact
 * interval of the primary metric (tokens per second) against the
 * criterion's practical threshold, at the decision's level: 90%, or for a
 * sequential experiment the level of its last look, widened for the
 * lever's attempts. Every reader (comparison, gate, experiment summary,
 * charts, promotion, index) shows this verdict and this effect size. */
#define RECEIPT_SEQUENTIAL_RULE "bonferroni-repeated-intervals/v1"

struct receipt_decision {
	/* tps: the primary metric, which decides (tokens per second, or a
	 * serving receipt's primary serving metric); ms is secondary */
	struct stats_comparison tps, ms;
	int primary;			/* enum receipt_metric */
	double threshold_percent;
	bool threshold_declared;	/* the criterion's practical_threshold_percent */
	double design_level;		/* of the design: fixed, or the last look's */
	double level;			/* asked for: design_level widened for attempts */
	size_t attempts;		/* >= 1 */
	bool sequential;		/* the receipts record --until-decisive looks */
	size_t nr_looks;		/* looks taken (1 for a fixed design) */
	const struct criterion *crit;	/* borrowed */
};

/* Decides base against cand (valid receipts of one envelope, crit their
 * criterion). A sequential record (experiment.sequential, both receipts of
 * one experiment) is checked against the rule: its looks are the planned
 * ones, every look's verdict is what the first n repetitions give, every
 * look but the last was undecided, and the last is decided or at the
 * maximum; a violation is a finding in out and the decision fails. */
int receipt_decide(const struct receipt *base, const struct receipt *cand,
		   const struct criterion *crit, size_t attempts, struct receipt_decision *d,
		   struct findings *out, struct err *e);

/* The same decision of a fixed design over given tok/s values (the gate's
 * clean repetitions under a legacy policy): tps only, ms left zero. */
int receipt_decide_values(const double *base, size_t nb, const double *cand, size_t nc,
			  const struct criterion *crit, size_t attempts,
			  struct receipt_decision *d, struct err *e);

/* The `decision` member of the comparison and the gate verdict (new
 * object): metric, verdict, shift and interval in percent, levels,
 * threshold and its source, rule and looks, attempts, the host policy
 * (null without one), repetitions needed. */
json_t *receipt_decision_json(const struct receipt_decision *d);

/* One line of the decision: "faster: +12.3% [+8.1%, +16.9%] at 90%, beyond
 * the 2% threshold" plus the host policy when there is one. Caller frees. */
char *receipt_decision_text(const struct receipt_decision *d);

/* Sets on o the members every report of a shift carries, in order: shift,
 * shift_percent, interval {lower, upper}, interval_percent, confidence_level,
 * p_value, mann_whitney_u, ties, exact, method. */
void receipt_shift_json(json_t *o, const struct stats_comparison *c);

/* ---- repetitions as reports list them ------------------------------------ */

/* Whether repetition i's values are sealed: its attestation is a verified
 * fak.system-baseline/v2 one (validation checks that they equal its sealed
 * metrics). receipt_metrics_bound_json is this for every repetition. */
bool receipt_rep_bound(const struct receipt *r, size_t i);

/* One repetition of a receipt. */
struct receipt_row {
	const struct receipt_rep *rep;	/* borrowed from the receipt */
	bool metrics_bound;		/* receipt_rep_bound */
	long long run;			/* 0-based position in the receipt's experiment
					 * schedule; -1 when it records none */
	const char *started_at_utc;	/* from that schedule; NULL when none */
};

/* One row per repetition of r, in repetition order (r->nr_reps of them;
 * caller frees the array). */
struct receipt_row *receipt_rows(const struct receipt *r);

/* ---- attachment ---------------------------------------------------------- */

/* Append one verified attestation (borrowed) to receipt r for the next
 * unbound repetition: refuse legacy ambient evidence, upgrade v1 to v2,
 * validate the receipt as v2, verify the attestation, refuse top-consumer
 * records and overfill, bind repetitions[k].system_baseline_digest, then
 * validate the result (digest reuse, binding mismatch, holes). r is not
 * modified. Returns the new receipt document (new reference), or NULL with
 * either findings in out (*what describes them) or, when out stays empty,
 * the error in e. */
json_t *receipt_attach(const struct receipt *r, const json_t *attestation, const struct graph *g,
		       const char **what, struct findings *out, struct err *e);

/* The check of an attached receipt, receipt_attach's last step: doc
 * (borrowed) is a receipt whose attestations from system_baselines[*k] on
 * were just attached in order, each bound to its repetition by its digest.
 * Decodes doc once into *r (every attestation verified once), refuses the
 * first new attestation that does not verify, records top consumers, is
 * simulated or has no repetition left (-1 with e, *k its index), then
 * validates *r as receipt_attach does (-1 with findings in out, *what
 * describes them). 0 with *r decoded (caller releases); on -1, *r is
 * released. */
int receipt_attached_check(const json_t *doc, size_t *k, const struct graph *g, struct receipt *r,
			   const char **what, struct findings *out, struct err *e);

/* ---- template ------------------------------------------------------------ */

/* The baseline receipt template for lever_id (new reference): everything
 * the graph determines filled in, the comparison identity included; every
 * capture-only value a FILL_* placeholder or zero, so it cannot validate.
 * NULL with e set for an unknown lever, a lever without an envelope or
 * criterion, or a lever whose dependencies are not all enabled. */
json_t *receipt_template(const struct graph *g, const char *lever_id, struct err *e);

/* ---- envelope state (state.c) ------------------------------------------- */

/* The state of envelope env in g (new reference): {"criterion_digest",
 * "levers": [{"id", "enabled", "witness"}]}, the levers of the envelope in
 * graph order, witness null when the lever has none. NULL with e set when
 * the envelope has no criterion. */
json_t *receipt_state_json(const struct graph *g, const struct envelope *env, struct err *e);
/* The digest a sealed run's label records: "sha256:<hex>" of the RFC 8785
 * form of a state object. */
int receipt_state_digest(const json_t *state, char out[JSON_DIGEST_LEN + 1], struct err *e);
/* Whether r may still witness its lever in g: r records an envelope state
 * and it equals the one g has now. One finding per difference, each
 * starting with who (a file name), naming the lever that changed and the
 * witness that changed it, and saying to run the experiment again. */
void receipt_state_check(const struct receipt *r, const struct graph *g, const char *who,
			 struct findings *out);
/* Whether the envelope r's state records is the one g has now: one
 * finding, naming the members that changed, when its digest differs (or
 * does not digest the envelope it records). Nothing for a state that
 * records no envelope. receipt_validate applies it. */
void receipt_envelope_check(const struct receipt *r, const struct graph *g,
			    struct findings *out);

/* Whether two arms ran the same thing: the same commands (every one, the
 * quality command included) as the shell reads them (sh_words: the same
 * words after quote removal), and the same executable where both arms'
 * sealed repetitions record the one they ran (workload.program_sha256),
 * whatever their revision labels say; where they do not, the same revision
 * and module versions (as a set). Such an A/A pair calibrates the noise; it
 * witnesses nothing. */
struct receipt_aa {
	bool same;		/* an A/A */
	bool by_program;	/* both arms sealed their executable's digest */
	bool labels_differ;	/* the revisions or the module versions differ */
	char sha256[65];	/* the executable both ran, when same and by_program */
};
void receipt_arms_compare(const struct receipt *a, const struct receipt *b, struct receipt_aa *out);
bool receipt_same_arms(const struct receipt *a, const struct receipt *b);
/* Why an A/A pair is one, for the summary and --promote's refusal: "both
 * arms ran the same command and the same executable (sha256 ...); the
 * revision labels differ (r1, r2) but the executables do not: ...". */
void receipt_aa_why(const struct receipt_aa *aa, const struct receipt *a, const struct receipt *b,
		    struct strbuf *out);
/* What the runner and --promote say of such a pair. */
#define RECEIPT_AA_NOTE "A/A: calibration, not a witness"

/* ---- legacy ambient evidence -------------------------------------------- */

/* Semantic rules and the digest ("sha256:" + hex of the RFC 8785 form
 * without "digest"). First problem in e. */
int ambient_validate(const struct ambient *a, struct err *e);

#endif
