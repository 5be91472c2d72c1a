#ifndef FAK_EXPERIMENT_EXPERIMENT_H
#define FAK_EXPERIMENT_EXPERIMENT_H
/* `fak bench experiment`: the interleaved one-lever A/B. Every input is
 * checked before the first run; every warm-up, repetition and quality run
 * goes through the sampler (sampler_run, one code path with `fak bench
 * system-baseline`) with the command's output captured to log files and
 * its metrics parsed and sealed into the attestation; then the receipts
 * are assembled from the receipt template, the attestations attached with
 * receipt_attach, compared and gated. Prints nothing: progress and the
 * workload's output reach the CLI through callbacks. Each run's command
 * sees FAK_ARM (baseline or candidate) and FAK_RUN (its name, as
 * receipt_step_name) in its environment, set in fak's own before the run. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/strbuf.h"
#include "graph/graph.h"
#include "receipt/receipt.h"
#include "sampler/run.h"

/* The platform fak runs on, "os/arch" as envelopes name it (linux/amd64,
 * linux/arm64, darwin/arm64, ...). */
int xp_host_platform(char *out, size_t cap, struct err *e);
/* Whether an envelope platform ("os/arch" or "os/arch+accelerator") can be
 * witnessed here; why not in e, with what was found. An NVIDIA accelerator
 * ("+nvidia-a100") needs a device whose NVML name holds the model ("A100"). */
int xp_platform_check(const char *want, struct err *e);
/* What the receipts record of the host: its CPU model (platform_cpu_model)
 * and kernel release (uname), each as xp_host_text makes it. */
void xp_host_observed(char *cpu, size_t cpu_cap, char *kernel, size_t kernel_cap);
/* in as public text: each '@' written "at" ("CPU @ 2.20GHz" is a clock, not
 * an account), "unknown" when empty, "scrubbed" when it still is not
 * printable scrubbed text (base/text.h). */
void xp_host_text(const char *in, char *out, size_t cap);
/* The scrubbed machine id: a keyed hash (HMAC-SHA-256) of the machine id in
 * file (NULL: /etc/machine-id, then /var/lib/dbus/machine-id), so the raw
 * id never leaves the machine and cannot be matched against other uses of
 * it. out gets "m-" + 32 hex digits. */
int xp_machine_id(const char *file, char out[40], struct err *e);

struct xp_module {
	const char *name, *revision;	/* borrowed */
};

/* What the progress callback is told after each run (and, with the
 * sampler's own callback, during each quiet window). */
struct xp_progress {
	const struct receipt_step *step;
	size_t done, total;		/* runs finished, runs planned */
	int64_t elapsed_ns, left_ns;	/* left_ns < 0: not known yet */
	bool has_tps;
	double tps;			/* the run's tokens per second */
	const char *verdict;		/* the run's attestation verdict */
	const char *look;		/* --until-decisive: the look just taken, or NULL */
	int64_t quiet_done_ns, quiet_total_ns;	/* during a quiet window, else 0 */
	/* after --wait-quiet rejected a window: why it was not quiet, else NULL */
	const char *waiting_for;
};

/* --max-repetitions: its default and its largest value. */
#define XP_DEFAULT_MAX_REPETITIONS 60
#define XP_MAX_REPETITIONS 10000

struct xp_opts {
	const struct graph *g;		/* loaded and valid */
	const char *lever_id;
	const char *cmd[2];		/* shell command strings, /bin/sh -c */
	const char *revision[2];
	const struct xp_module *modules;
	size_t nr_modules;
	const char *artifact;		/* model file whose sha256 the envelope pins */
	const char *const *profile_artifacts;
	size_t nr_profile_artifacts;
	const char *out_dir;
	/* The attempt ledger (receipt/ledger.h) this experiment is recorded
	 * in, or NULL: not recorded (it cannot be promoted). */
	const char *ledger;
	const char *last_accepted;	/* receipt file, or NULL: this run's baseline */
	const char *parser;		/* WL_PARSER_JSON | WL_PARSER_LLAMA_BENCH */
	/* --candidate-metrics, with parity only: the candidate arm's parser
	 * (the other engine's benchmark, e.g. llama-bench), else NULL */
	const char *candidate_parser;
	const char *quality_cmd;	/* required with llama-bench, else NULL */
	/* --serve-trace: the serving mode (docs/serving.md): the commands are
	 * servers, this trace (the envelope's serving.trace_sha256) is
	 * replayed against each run's fresh server; parser WL_PARSER_SERVING */
	const char *serve_trace;
	/* --quality-prompts, with serve_trace instead of quality_cmd: the
	 * prompts (serve/quality.h) every serving run sends alone to its own
	 * server before the trace; its exact match is the run's quality */
	const char *quality_prompts;
	int64_t serve_ready_ns;		/* readiness timeout */
	int64_t serve_max_lag_ns;	/* a send later than this fell behind */
	int64_t serve_grace_ns;		/* SIGTERM, then SIGKILL this much later */
	/* Bound of each captured log (0: WL_LOG_BOUND_DEFAULT): a longer
	 * stream keeps its head and tail (xp_bound_log). */
	int64_t max_log_bytes;
	enum receipt_order order;
	uint64_t seed;			/* RECEIPT_ORDER_RANDOM only */
	/* --until-decisive: after the envelope's repetitions, more pairs
	 * until the decision is decided or max_repetitions per arm ran
	 * (docs/receipts.md, "Running until decisive"); not with blocked */
	bool until_decisive;
	size_t max_repetitions;		/* 1..XP_MAX_REPETITIONS */
	/* --allow-declared-identity: the gate request's policy passes a
	 * declared engine identity (receipt/identity.h); promotion still
	 * refuses it (its strict policy does not allow it) */
	bool allow_declared_identity;
	/* --parity: the arms are the lever's parity requirement's two
	 * engines, and the result is parity.json, not receipts */
	bool parity;
	const char *machine_id_file;	/* NULL: the system's */
	const char *proc_root;
	/* Sampler flags: windows, timeout, policy, attribution, limits. argv,
	 * stdio, progress and workload are the runner's own. */
	struct run_opts sampler;
	void (*progress)(void *ctx, const struct xp_progress *p);
	/* After each run, with the paths of its captured stdout and stderr. */
	void (*show_output)(void *ctx, const struct receipt_step *s, const char *out_log,
			    const char *err_log);
	/* Draws the runs chart of a comparison (chart.svg) with the gate
	 * verdict of the same receipts and whether the arms ran the same thing
	 * (an A/A): the caller's renderer, so experiment/ does not include
	 * render/. Required. */
	void (*chart_runs)(struct strbuf *out, const json_t *comparison, const json_t *gate,
			   bool aa);
	void *ctx;
};

enum xp_status {
	XP_DONE,		/* receipts, comparison and gate request written */
	XP_REFUSED,		/* an input is missing or wrong: nothing ran */
	XP_RUN_FAILED,		/* a run failed: no receipt; its evidence stays */
	XP_INTERRUPTED,		/* SIGINT/SIGTERM/SIGHUP: no receipt */
};

/* The files an experiment writes into its folder when it is done, in
 * this order: baseline.json, candidate.json, comparison.json,
 * gate-request.json, gate.json and chart.svg (the runs chart of the
 * comparison). */
#define XP_NR_FILES 6
extern const char *const xp_file_names[XP_NR_FILES];

/* The experiment's attempt as the ledger recorded it (and attempt.json in
 * its folder says: receipt/ledger.h, struct ledger_record). */
struct xp_attempt {
	bool recorded;			/* a started line was appended */
	bool ended;			/* and its ended line */
	char experiment_id[33];
	char envelope_digest[JSON_DIGEST_LEN + 1];
	size_t k, n;			/* attempt k of n of the lever in this envelope */
	long long started_seq, ended_seq;
	char started[JSON_DIGEST_LEN + 1], ended_digest[JSON_DIGEST_LEN + 1];
};

/* A run whose command left processes running when it exited, which the
 * sampler killed: how many (sealed in its attestation's coverage) and
 * their names. */
struct xp_leftover {
	struct receipt_step step;
	int64_t killed;
	struct run_leftovers names;
};

struct xp_result {
	enum xp_status status;
	struct xp_attempt attempt;	/* any status but XP_REFUSED */
	int signal;		/* XP_INTERRUPTED */
	/* XP_DONE: the documents as written (new references); with parity,
	 * comparison is parity.json (sha256[0] its digest) and nothing else */
	json_t *comparison, *gate;
	json_t *receipts[2];	/* baseline, candidate */
	/* XP_DONE without parity: receipts[] decoded, their attestations
	 * verified (once: the comparison, the gate and the summary read these) */
	struct receipt arms[2];
	bool has_arms;
	int gate_class;		/* enum gate_class */
	bool aa;		/* the arms ran the same thing (receipt_same_arms) */
	char sha256[XP_NR_FILES][65];	/* XP_DONE: of each file's bytes, as xp_file_names */
	/* XP_DONE: the runs that left processes behind, in the order run */
	struct xp_leftover *leftovers;
	size_t nr_leftovers;
};

/* Runs the experiment. Returns -1 with e set on an internal error (I/O);
 * 0 otherwise, with the status in *res and, for XP_REFUSED and
 * XP_RUN_FAILED, the reasons in out (sorted; each names the flag that
 * supplies a missing input, or the failed run and its log). */
int xp_run(const struct xp_opts *o, struct xp_result *res, struct findings *out, struct err *e);
void xp_result_release(struct xp_result *res);

/* When res's gate investigates because the runs' evidence is not clean
 * (busy host, PSI stall, sampler duty, ...), one sentence a user can act
 * on, with the figures and what to do; "" otherwise. */
void xp_explain(const struct xp_result *res, char *out, size_t cap);

#endif
