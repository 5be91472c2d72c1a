#ifndef FAK_SAMPLER_RUN_H
#define FAK_SAMPLER_RUN_H
/* One `fak bench system-baseline` measurement: the quiet baseline window,
 * then the command as a child while the sampler runs, then the sealed
 * attestation. Prints nothing: progress goes through the callback. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "sampler/child.h"
#include "attestation/attestation.h"

#define ATTRIBUTION_AUTO "auto"
#define ATTRIBUTION_CGROUP "cgroup"
#define ATTRIBUTION_SUBREAPER "subreaper"
#define ATTRIBUTION_SAMPLED "sampled"

#define RUN_PROCESS_LIMIT 4096	/* process reads per census */
#define RUN_TABLE_CAP 16384	/* processes tracked at once */
#define RUN_CLEANUP_NS ((int64_t)2000000000)

/* The processes still running when the command's root exited, which the
 * sampler then killed, by name (scrubbed: attestation_scrub_image), for
 * people: the attestation seals how many (coverage), not these. At most
 * RUN_LEFTOVER_SCAN are looked at, RUN_LEFTOVER_NAMES names kept. */
#define RUN_LEFTOVER_SCAN 256
#define RUN_LEFTOVER_NAMES 8
struct run_leftovers {
	size_t seen;		/* processes looked at */
	size_t nr;		/* names below */
	struct {
		char name[ATTESTATION_IMAGE_MAX];
		size_t count;
	} names[RUN_LEFTOVER_NAMES];
	size_t unnamed;		/* seen, past the names kept */
};

/* "sleep (2), python3" and ", ..." for the unnamed; "" for none. */
void run_leftovers_text(const struct run_leftovers *l, struct strbuf *out);

struct run_result {
	int exit_code;		/* what fak exits with: the command's status */
	int interrupted;	/* SIGINT/SIGTERM/SIGHUP number that stopped the run, else 0 */
	struct run_leftovers leftovers;
	/* With a driver: the driver returned and the sampler stopped the
	 * command (SIGTERM to its tree, SIGKILL after the grace period).
	 * killed: the grace period ran out. A command the sampler stopped and
	 * that ended by that SIGTERM (or exited 0 or 143 after it) counts as
	 * succeeded (exit_code 0); stop_status says how it really ended
	 * ("signal 15", "exit 0", "killed after the grace period"). */
	bool stopped, killed;
	char stop_status[48];
};

struct run_opts {
	char *const *argv;	/* the command, NULL-terminated */
	int64_t baseline_ns, interval_ns, timeout_ns;	/* timeout 0: none */
	/* --wait-quiet: while a quiet window's host CPU exceeds the non-SUT
	 * ceiling, or the host's PSI stall the PSI ceiling, sample another, for
	 * at most this long; every rejected window is sealed in the
	 * attestation's quiet_wait. 0: one window, no quiet_wait. */
	int64_t wait_quiet_ns;
	/* --cpus: a CPU list (pp_cpulist) the command's cgroup is confined to;
	 * host CPU is then judged on those CPUs. Needs a cgroup v2 with the
	 * cpuset controller, else the run is refused. NULL: all CPUs. */
	const char *cpus;
	struct policy policy;	/* thresholds and flags; census bounds are set here */
	const char *attribution;	/* ATTRIBUTION_* */
	const char *proc_root;
	/* The test seams in effect (sampler_flags_apply reads them from the
	 * environment), sealed as the attestation's `simulated`. */
	struct simulated simulated;
	size_t process_limit, table_cap;
	/* Called after each baseline census (may be NULL). */
	void (*progress)(void *ctx, int64_t done_ns, int64_t total_ns);
	/* Called with progress_ctx after each window --wait-quiet rejected, with
	 * why it was not quiet (attestation_window_why; may be NULL). */
	void (*waiting)(void *ctx, const char *why);
	void *progress_ctx;
	/* The command's standard streams; NULL: CHILD_STDIO_DEFAULT. */
	const struct child_stdio *stdio;
	/* The signal mask the command starts with; NULL: the caller's mask
	 * (a caller that keeps SIGINT blocked between runs passes its own). */
	const sigset_t *child_mask;
	/* With a workload hook the attestation is schema v2: after the command's
	 * whole tree was reaped (its output is complete) and before the attestation
	 * is classified and sealed, the hook fills everything in *w but
	 * peak_rss_bytes, which the sampler measures. An error from the hook
	 * fails the run (no attestation). */
	int (*workload)(void *ctx, const struct run_result *res, struct workload *w, struct err *e);
	void *workload_ctx;
	/* With a workload: the pinned artifact, as the runner identified it
	 * (st_dev, st_ino). Every census of the command's tree then looks
	 * whether one of its processes has it open or mapped, until one has;
	 * the workload's artifact member seals what was seen. */
	bool watch_artifact;
	uint64_t artifact_dev, artifact_ino;
	/* Its path, watched for opens (platform_open_watch) while it is not
	 * seen yet: an open takes a census of the tree at once, so a reader
	 * that holds it for less than an interval is seen too. NULL: none. */
	const char *artifact_path;
	/* A driver (may be NULL): run on a thread of its own once the command
	 * started, with the command's pid and a flag that turns non-zero when
	 * the command exited or the run was interrupted (the driver should
	 * then end soon). The census loop goes on as without one; when the
	 * driver returns, the sampler stops the command: SIGTERM to every
	 * process of its tree, SIGKILL after stop_grace_ns. The driver's CPU
	 * is fak's own: the sampler's cost is then its own thread's. */
	void (*driver)(void *ctx, pid_t pid, const volatile int *gone);
	void *driver_ctx;
	int64_t stop_grace_ns;
};

/* What sampler_run would refuse about where the command runs, checked
 * without running anything: --attribution cgroup without a cgroup v2 of
 * fak's own, --cpus without a writable cpuset (a cgroup is made and removed
 * again). 0, or -1 with e set to sampler_run's own message. */
int sampler_placement_check(const struct run_opts *o, struct err *e);

/* Resolves and runs the command. Returns -1 with e set when it could not
 * be started (nothing ran, no attestation). Returns 0 otherwise: *r is sealed
 * unless res->interrupted, in which case *r must not be used. */
int sampler_run(const struct run_opts *o, struct attestation *r, struct run_result *res,
		struct err *e);

#endif
