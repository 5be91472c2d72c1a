#ifndef FAK_EXPERIMENT_INTERNAL_H
#define FAK_EXPERIMENT_INTERNAL_H
/* Inside experiment/: the state one experiment carries from the checks of
 * its inputs through its runs to its documents. */
#include <signal.h>

#include "experiment/experiment.h"
#include "receipt/receipt.h"
#include "attestation/attestation.h"
#include "attestation/workload.h"
#include "serve/quality.h"
#include "serve/record.h"
#include "serve/trace.h"
#include "stats/stats.h"

/* The disk space the preflight counts beside the logs: each run's
 * attestation (a few KiB; a generous bound), and the documents written at
 * the end (receipts, comparison, gate, chart). */
#define XP_RUN_FILES_BYTES ((int64_t)256 << 10)
#define XP_DOCUMENTS_BYTES ((int64_t)4 << 20)

/* A profiler artifact as the receipt names it. */
struct xp_artifact {
	const char *path;	/* borrowed from the options: relative, scrubbed */
	char sha256[65];
};

/* What identifies the pinned artifact between two digests of it. */
struct xp_artifact_id {
	uint64_t dev, ino;
	int64_t size, mtime_ns, ctime_ns;
};

/* One look taken by a sequential experiment. */
struct xp_look {
	size_t reps;
	double level;
	enum stats_verdict verdict;
};

/* One finished run. */
struct xp_done {
	struct attestation *rep;	/* sealed; owned */
	json_t *doc;		/* the attestation as written; owned */
	struct run_leftovers leftovers;	/* by name, unsealed */
};

struct xp {
	const struct xp_opts *o;
	const struct lever *lever;
	const struct envelope *env;
	const struct criterion *crit;
	char machine_id[40];
	char experiment_id[33];		/* random, sealed into every run */
	char state_digest[JSON_DIGEST_LEN + 1];	/* of the envelope state, sealed too */
	char envelope_digest[JSON_DIGEST_LEN + 1];	/* graph_envelope_digest */
	char criterion_digest[JSON_DIGEST_LEN + 1];
	char artifact_sha256[65];
	struct xp_artifact_id artifact_id;	/* as of the last check */
	char program_sha256[2][65];	/* per arm: xp_program; "" unknown */
	struct xp_artifact *artifacts;	/* nr_profile_artifacts */
	struct receipt last_accepted;	/* when o->last_accepted */
	bool has_last_accepted;
	struct receipt_step *steps;
	size_t nr_steps;
	struct xp_done *done;		/* per step, in schedule order */
	size_t nr_done;
	int64_t t0_ns;			/* CLOCK_MONOTONIC at the first run */
	sigset_t caller_mask;		/* the mask every command starts with */
	char *dir_logs, *dir_attestations;	/* owned paths */
	size_t reps;			/* repetitions per arm: the envelope's, or the
					 * sequential plan's (its maximum, then the
					 * last look's) */
	bool sequential;		/* --until-decisive */
	struct stats_looks looks;	/* planned */
	struct xp_look taken[STATS_MAX_LOOKS];
	size_t nr_taken;
	char look_text[320];		/* the last look, for progress; "" none */
	/* --serve-trace: the pinned trace, loaded once */
	bool has_trace;
	struct trace trace;
	char trace_sha256[JSON_DIGEST_LEN + 1];
	int primary;			/* the envelope's primary serving metric */
	/* --quality-prompts: loaded once, every prompt with its reference */
	bool has_quality;
	struct quality_set quality;
	char quality_sha256[JSON_DIGEST_LEN + 1];
};

/* The parser of arm's runs (not its quality runs): the candidate's own with
 * --candidate-metrics, else the experiment's. Static storage. */
const char *xp_arm_parser(const struct xp_opts *o, int arm);

/* serving.c: the serving mode (docs/serving.md, "The serving mode"). */
#define XP_SERVING_WARMUP_REQUESTS 2	/* sent one at a time before the trace */
#define XP_SERVING_TIMEOUT_NS ((int64_t)600 * 1000000000)	/* one response */
#define XP_SERVING_STALL_NS ((int64_t)60 * 1000000000)	/* no byte for this long */

/* One serving run: what the driver found, for the workload hook. */
struct xp_serving_run {
	const struct xp *x;
	int port;
	char endpoint[64];
	char *log_path;			/* owned: logs/NAME.requests.jsonl */
	double startup_ms, client_cpu_ms;
	int64_t warmup_requests;
	bool has_sum;			/* the trace ran and its log is written */
	struct serve_summary sum;
	char log_sha256[65];
	char health[1024];		/* the body of GET /health's 200 */
	char health_after[1024];	/* and after the trace */
	char build_info[64];		/* llama-server's GET /props build_info, or "" */
	int64_t fallback_count;		/* its fallback_count after the trace; -1: none */
	/* --quality-prompts: what they measured on this server */
	char *quality_log_path;		/* owned: logs/NAME.quality.jsonl */
	bool has_quality;
	int64_t quality_matched;
	char quality_log_sha256[65];
	char error[ATTESTATION_DETAIL_MAX - 400];	/* why not, when !has_sum */
};

/* Loads --serve-trace and checks it against the envelope's serving pin
 * (findings in out). */
int xp_serving_preflight(struct xp *x, struct findings *out);
/* Picks the run's port and sets $FAK_PORT. -1 with e. */
int xp_serving_prepare(struct xp *x, const char *name, struct xp_serving_run *s,
		       struct err *e);
/* The sampler's driver (run_opts.driver); ctx a struct xp_serving_run. */
void xp_serving_driver(void *ctx, pid_t pid, const volatile int *gone);
/* The run's metrics (or metrics_error, with the last lines of the
 * server's stderr in err_fd) and its serving member. */
void xp_serving_fill(const struct xp_serving_run *s, const struct run_result *res, int err_fd,
		     struct workload *w);
void xp_serving_release(struct xp_serving_run *s);

/* preflight.c: every input, before anything runs, and every check that can
 * fail before the first run (where the command runs, the disk space its
 * logs may take): a refused experiment leaves no folder behind. Findings
 * name the flag that supplies what is missing. On success the output
 * folder exists with its logs/ and attestations/ folders. */
void xp_preflight(struct xp *x, struct findings *out);

/* artifact.c: pin identifies the --artifact file and digests it (its
 * identity must not move while it is read: -1 with e). recheck, before
 * every run and after the last (when: "before candidate repetition 2"),
 * identifies it again and digests it again when its identity moved (or
 * always, with digest): a digest that differs from the pinned one is a
 * finding; an equal one becomes the identity the next check compares. */
int xp_artifact_pin(struct xp *x, char sha256[65], struct err *e);
/* artifact.c: the sha256 of the executable cmd names: its first word after
 * the shell's quote removal, past NAME=value assignments and `exec`,
 * found like the shell finds it (PATH unless it holds a '/'); "" when that
 * word is an operator, needs expanding, or names no file. */
void xp_program(const char *cmd, char sha256[65]);
void xp_artifact_recheck(struct xp *x, const char *when, bool digest, struct findings *out);

/* attempt.c: the ledger's started line (before the first run) and ended
 * line (after the gate, a failed run or an interruption), and the folder's
 * attempt.json. -1 with e set when the ledger refuses the line. */
int xp_attempt_start(struct xp *x, struct xp_result *res, struct err *e);
int xp_attempt_end(struct xp *x, struct xp_result *res, struct err *e);

/* run.c: one step through the sampler. 0 with *done filled (the run's
 * attestation written) or a failure finding in out; 1 when a signal
 * stopped it (*sig set, nothing sealed); -1 on an internal error. */
int xp_run_step(struct xp *x, size_t k, struct xp_done *done, int *sig, struct findings *out,
		struct err *e);

/* run.c: what each captured log of a run with parser keeps at most: its
 * stdout's bound (a parser that reads all of stdout keeps all it can read)
 * and its stderr's (--max-log-bytes, else WL_LOG_BOUND_DEFAULT). */
void xp_log_bounds(const struct xp_opts *o, const char *parser, int64_t *out_bound,
		   int64_t *err_bound);

/* run.c: a captured log longer than bound (plus room for the marker line)
 * becomes its first bound/2 bytes, a marker line (how much was left out,
 * the whole stream's size and sha256) and its last bound/2 bytes; st (the
 * whole stream's size and digest) gets `kept`. Nothing happens to a log
 * within the bound. */
int xp_bound_log(int fd, int64_t bound, struct wl_stream *st, struct err *e);

/* experiment.c: a SIGINT, SIGTERM or SIGHUP that arrived while blocked;
 * 0 for none. */
int xp_pending_stop(void);

/* sequential.c: the looks of --until-decisive. plan (in the preflight,
 * x->env known) sets x->reps and the looks, or refuses a maximum below the
 * envelope's repetitions (a finding, 1); after step k, whether the
 * repetitions end here (a look decided, or the last was taken; *rc -1 with
 * e on an internal error); finish re-plans the schedule for the
 * repetitions taken, with the quality runs; the json is the receipts'
 * experiment.sequential (new object). */
int xp_sequential_plan(struct xp *x, struct findings *out, struct err *e);
bool xp_sequential_after(struct xp *x, size_t k, struct err *e, int *rc);
int xp_sequential_finish(struct xp *x, struct err *e);
json_t *xp_sequential_json(const struct xp *x);

/* assemble.c: receipts, comparison, gate request and verdict, written into
 * the output folder, all or none. 0, or findings in out (nothing written),
 * or res->status XP_INTERRUPTED (a stop arrived first: nothing written), or
 * -1. */
int xp_assemble(struct xp *x, struct xp_result *res, struct findings *out, struct err *e);

/* parity.c: --parity (docs/experiments.md, "A parity campaign"). The
 * preflight refuses --parity for a lever that needs no parity campaign, an
 * A/B of one that does, and the options a campaign does not take; identity
 * says whether run r of step s shows its arm's engine (the lever's
 * requirement's engines, in order; the envelope's engine is also held to
 * the envelope), why not in why; assemble writes parity.json (the ratio of
 * the arms' throughput) into the output folder instead of receipts, and
 * res->comparison gets it, as xp_assemble's contract says. */
void xp_parity_preflight(struct xp *x, struct findings *out);
bool xp_parity_identity(const struct xp *x, const struct receipt_step *s,
			const struct attestation *r, struct strbuf *why);
int xp_parity_assemble(struct xp *x, struct xp_result *res, struct findings *out,
		       struct err *e);

#endif
