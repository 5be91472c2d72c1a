#ifndef FAK_ATTESTATION_WORKLOAD_H
#define FAK_ATTESTATION_WORKLOAD_H
/* The workload section of a sealed attestation (fak.system-baseline/v2):
 * what `fak bench experiment` measured from the command's own output. The
 * sampler seals it with the rest of the attestation; the parsers that turn raw
 * output into these values are workload/metrics.h's. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "base/json.h"
#include "attestation/metric.h"
#include "base/serving_metric.h"

/* Bounds of every metric, the same as the receipts' (receipt.h). */
#define WL_MIN_TPS 1e-6
#define WL_MAX_TPS 1e9
#define WL_MAX_MS 1e12
#define WL_QUALITY_NAME_MAX 128	/* bytes, NUL included */
#define WL_QUALITY_EXACT_MATCH "exact_match"	/* the quality of quality prompts */

/* Parser ids, recorded in the attestation so --verify --log can re-parse. */
#define WL_PARSER_JSON "json-line/v1"
#define WL_PARSER_LLAMA_BENCH "llama-bench/v1"
#define WL_PARSER_QUALITY "quality-line/v1"
/* A serving run (docs/serving.md, "The serving mode"): the command is a
 * server, fak's client replayed the pinned trace against it; the metrics
 * are the summary's output throughput and duration, the rest is sealed in
 * the workload's serving member. */
#define WL_PARSER_SERVING "serving/v1"

struct wl_quality {
	char name[WL_QUALITY_NAME_MAX];
	double score;		/* finite */
	bool higher_is_better;
};

/* Named numerical metrics beside the one quality the criterion judges
 * (docs/experiments.md, "Numerical metrics"): a metrics or quality line's
 * optional `numerical` object, e.g. {"cosine": 0.9991, "argmax_match": 1,
 * "max_abs": 0.004}. Names have the id form (str_id_problem), values are
 * finite numbers; at most WL_NUMERICAL_MAX, kept sorted by name. A lever's
 * numerical next witness names them (docs/graph.md). */
#define WL_NUMERICAL_MAX 16
#define WL_NUMERICAL_NAME_MAX 129	/* bytes, NUL included: STR_ID_MAX + 1 */

struct wl_numerical {
	char name[WL_NUMERICAL_NAME_MAX];
	double value;		/* finite */
};

/* What the engine that ran said about itself (docs/receipts.md, "What binds
 * a witness to its engine"): a metrics line may state `engine` and
 * `forward_path`; llama-bench/v1 runs are llama.cpp's (WL_ENGINE_LLAMA_CPP)
 * and state their build commit, backends, model file (its last path
 * element) and model type. "" = not stated. Every value is scrubbed text
 * without control characters, shorter than WL_IDENTITY_MAX bytes. */
#define WL_IDENTITY_MAX 128
#define WL_ENGINE_LLAMA_CPP "llama.cpp"

struct wl_identity {
	char engine[WL_IDENTITY_MAX], forward_path[WL_IDENTITY_MAX];
	char build_commit[WL_IDENTITY_MAX], backends[WL_IDENTITY_MAX];
	char model_file[WL_IDENTITY_MAX], model_type[WL_IDENTITY_MAX];
};

/* What one run measured. tokens_per_second and end_to_end_ms are always
 * set by the json-line and llama-bench parsers; the quality-line parser
 * sets only the quality (has_throughput false). */
struct wl_metrics {
	bool has_throughput;
	double tokens_per_second;	/* (0, 1e9] */
	double end_to_end_ms;		/* (0, 1e12] */
	bool has_ttft, has_prefill, has_decode;
	double ttft_ms, prefill_ms, decode_ms;	/* [0, 1e12] */
	bool has_quality;
	struct wl_quality quality;
	size_t nr_numerical;	/* 0: no numerical member */
	struct wl_numerical numerical[WL_NUMERICAL_MAX];
	/* How llama-bench rows became these numbers (WL_DERIVATION_*); "" for
	 * a metrics line, which states its numbers itself. */
	char derivation[8];
	struct wl_identity identity;
};

/* llama-bench/v1 derivations (docs/experiments.md): one pP+tgT row (-pg
 * P,T); a pP row and a tgT row (-p P -n T: separate contexts, end to end
 * is their sum); a tgT row alone (an envelope with P = 0). */
#define WL_DERIVATION_PG "pg"
#define WL_DERIVATION_PP_TG "pp+tg"
#define WL_DERIVATION_TG "tg"

/* The whole workload section. Text members are bounded: the runner refuses
 * longer values before anything runs. */
#define WL_ID_MAX 256		/* envelope and lever ids */
#define WL_COMMAND_MAX 4096	/* the shell command string */

#define WL_KIND_WARMUP "warmup"
#define WL_KIND_REPETITION "repetition"
#define WL_KIND_QUALITY "quality"

/* Which run of which experiment this is: an attestation cannot be moved to
 * another arm, repetition, experiment, machine or revision without breaking
 * its binding. */
struct wl_label {
	char experiment_id[33];	/* 32 lowercase hex digits, random per experiment */
	int64_t sequence;	/* 0-based position in the experiment's schedule */
	char envelope_id[WL_ID_MAX], lever_id[WL_ID_MAX];
	char arm[16];		/* "baseline" | "candidate" */
	char kind[16];		/* WL_KIND_* */
	int64_t index;		/* 0-based within arm and kind */
	char machine_id[64];	/* the scrubbed machine id of the receipts */
	char revision[WL_ID_MAX];	/* the arm's revision */
	/* receipt_state_digest of the envelope state the experiment ran
	 * against; "" in runs sealed before fak recorded it */
	char envelope_state[JSON_DIGEST_LEN + 1];
};

/* One captured output stream: its size and digest (64 lowercase hex). A
 * stream longer than the runner's log bound is kept as its head, a marker
 * line and its tail: the log file is then `kept` (its own size and digest),
 * while bytes and sha256 stay those of the whole stream. */
struct wl_stream {
	int64_t bytes;
	char sha256[65];
	bool has_kept;
	struct {
		int64_t head_bytes, tail_bytes, bytes;
		char sha256[65];
	} kept;
};

/* Whether a process of the command's tree had the pinned artifact open or
 * mapped while the command ran (docs/experiments.md). */
struct wl_artifact_use {
	bool looked;		/* the runner watched it: the members are sealed */
	bool observable;	/* the OS shows another process's files */
	bool observed;		/* when observable */
	char observation[ATTESTATION_DETAIL_MAX];	/* how it was seen, or why not */
};

/* The log bound of the runner (--max-log-bytes): default and least, in
 * MiB, and as the help and the messages write them ("16M"): defined here
 * only. */
#define WL_LOG_BOUND_DEFAULT_MIB 16
#define WL_LOG_BOUND_MIN_MIB 1
#define WL_LOG_BOUND_DEFAULT ((int64_t)WL_LOG_BOUND_DEFAULT_MIB << 20)
#define WL_LOG_BOUND_MIN ((int64_t)WL_LOG_BOUND_MIN_MIB << 20)
#define WL_MIB_TEXT_(n) #n "M"
#define WL_MIB_TEXT(n) WL_MIB_TEXT_(n)
#define WL_LOG_BOUND_DEFAULT_TEXT WL_MIB_TEXT(WL_LOG_BOUND_DEFAULT_MIB)
#define WL_LOG_BOUND_MIN_TEXT WL_MIB_TEXT(WL_LOG_BOUND_MIN_MIB)
/* Room the marker line between head and tail takes at most. */
#define WL_LOG_MARKER_MAX 256

/* What a serving run sealed: the trace it replayed, the digest of its
 * per-request log, the server's start-up (spawn to the first 200 of GET
 * /health), the warm-up requests sent before the trace, the client's lag
 * facts and CPU (fak's own, not the server's), how the server was stopped,
 * the fallbacks the engine reported, and the summary's metrics in the order
 * of serving_metrics. */
#define WL_STOP_STATUS_MAX 48
struct wl_serving {
	bool present;
	char trace_sha256[JSON_DIGEST_LEN + 1];	/* "sha256:<hex>" */
	char log_sha256[65];
	int64_t requests, completed, failed, warmup_requests;
	double startup_ms;
	double max_lag_ms;	/* the bound a send may lag its schedule */
	int64_t late;		/* sends beyond it */
	bool fell_behind;
	double lag_p99_ms, lag_max_ms;
	double client_cpu_ms;	/* -1: the OS does not tell a thread's CPU */
	char stop_status[WL_STOP_STATUS_MAX];
	bool killed;		/* SIGKILL after the grace period */
	/* the fallbacks the engine reported after the trace (fallback_count
	 * in its /health body); -1: it reported none */
	int64_t fallback_count;
	double values[SERVING_NR_METRICS];
	/* --quality-prompts: the prompts sent alone to this run's server
	 * before the trace (docs/serving.md, "Quality"); the run's quality is
	 * metrics.quality, exact_match = matched / prompts */
	bool has_quality;
	struct wl_serving_quality {
		char prompts_sha256[JSON_DIGEST_LEN + 1];	/* the file's canonical form */
		char log_sha256[65];	/* logs/NAME.quality.jsonl */
		int64_t prompts, matched;
	} quality;
};

/* The serving member in documented order (new object), and its strict
 * inverse (o borrowed). */
json_t *wl_serving_to_json(const struct wl_serving *s);
int wl_serving_decode(const json_t *o, const struct jpath *at, struct wl_serving *s,
		      struct err *e);

struct workload {
	struct wl_label label;
	char command[WL_COMMAND_MAX];	/* run as /bin/sh -c COMMAND */
	struct wl_stream out, err;
	char parser[32];		/* WL_PARSER_* */
	int64_t prompt_tokens, decode_tokens;	/* the envelope's, for the parser */
	bool has_metrics;
	struct wl_metrics metrics;	/* when has_metrics */
	char metrics_error[ATTESTATION_DETAIL_MAX];	/* why not, otherwise "" */
	/* The SUT's peak memory. The runner sets the largest ru_maxrss of any
	 * reaped SUT process (wait4: an upper bound for that process, since the
	 * kernel charges a forked child with the resident memory of the process
	 * that forked it, fak's own (fak_rss_at_fork_bytes), until exec);
	 * fold_attestation then makes it never below the sampled SUT tree's largest
	 * RSS: the cgroup's memory.peak when there is one, else an estimate
	 * whose source begins "estimate:" (docs/sampler.md). */
	struct metric peak_rss_bytes;
	struct metric fak_rss_at_fork_bytes;
	/* The pinned artifact seen in use (run_opts.artifact): sealed as
	 * artifact_observed (absent where the OS shows fak no other process's
	 * files) and artifact_observation, the text saying how. */
	struct wl_artifact_use artifact;
	/* The sha256 of the executable the command names (its first word after
	 * assignments, found like the shell finds it), digested once per arm
	 * before the first run; "" when the command does not name one a file
	 * can be found for (a builtin, an expansion). Sealed as program_sha256. */
	char program_sha256[65];
	/* A serving run's facts (parser WL_PARSER_SERVING); present: sealed. */
	struct wl_serving serving;
};

/* The JSON form in documented key order (new reference): tokens_per_second,
 * end_to_end_milliseconds, ttft_milliseconds, prefill_milliseconds,
 * decode_milliseconds, quality {name, score, higher_is_better}, numerical
 * {NAME: value...} (sorted by name); members that are not set are omitted. */
json_t *wl_metrics_to_json(const struct wl_metrics *m);
/* Strict inverse of wl_metrics_to_json for a sealed document (borrowed):
 * unknown keys, wrong types and out-of-range values are errors with the
 * JSON path. */
int wl_metrics_decode(const json_t *o, const struct jpath *at, struct wl_metrics *m, struct err *e);
/* A quality object {name, score, higher_is_better} (borrowed), as strict:
 * the name non-blank and shorter than WL_QUALITY_NAME_MAX bytes, the score
 * finite. The quality member of wl_metrics_decode and the quality line of
 * the experiment's metrics parsers. */
int wl_quality_decode(const json_t *q, const struct jpath *at, struct wl_quality *out,
		      struct err *e);
/* The `numerical` member at `at` (borrowed: the object itself): 1 to
 * WL_NUMERICAL_MAX members, each an id-form name (not quality_name, the
 * metric the quality object states; NULL: none) and a finite number,
 * sorted by name into m->numerical. */
int wl_numerical_decode(const json_t *o, const struct jpath *at, const char *quality_name,
			struct wl_metrics *m, struct err *e);
/* The value of metric `name` in m: a numerical member, or the quality's
 * score when name is the quality's name. NULL when m states no such. */
const double *wl_metric_value(const struct wl_metrics *m, const char *name);

/* The identity members of a sealed metrics object or a metrics line, in
 * documented order: engine, forward_path, build_commit, backends,
 * model_file, model_type. NULL-terminated. */
extern const char *const wl_identity_keys[];
/* The members of *id that are stated, set on o (borrowed). */
void wl_identity_to_json(const struct wl_identity *id, json_t *o);
/* Decodes the identity members of o (borrowed; optional, each a non-blank
 * scrubbed string without control characters shorter than
 * WL_IDENTITY_MAX). */
int wl_identity_decode(const json_t *o, const struct jpath *at, struct wl_identity *id,
		       struct err *e);
/* `build "de3ff81", backends "CPU"` for messages: the stated members but
 * the engine; "" when none is. */
void wl_identity_describe(const struct wl_identity *id, char *out, size_t cap);

/* Equal values and the same members set. */
bool wl_metrics_equal(const struct wl_metrics *a, const struct wl_metrics *b);

#endif
