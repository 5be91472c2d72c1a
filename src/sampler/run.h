#ifndef FAK_SAMPLER_RUN_H
#define FAK_SAMPLER_RUN_H
/* One `fak bench system-baseline` measurement: the quiet baseline window,
 * then the command as a child while the sampler runs, then the sealed
 * report. Prints nothing: progress goes through the callback. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "sampler/report.h"

#define ATTRIBUTION_AUTO "auto"
#define ATTRIBUTION_CGROUP "cgroup"
#define ATTRIBUTION_SUBREAPER "subreaper"
#define ATTRIBUTION_SAMPLED "sampled"

#define RUN_PROCESS_LIMIT 4096	/* process reads per census */
#define RUN_TABLE_CAP 16384	/* processes tracked at once */
#define RUN_CLEANUP_NS ((int64_t)2000000000)

struct run_opts {
	char *const *argv;	/* the command, NULL-terminated */
	int64_t baseline_ns, interval_ns, timeout_ns;	/* timeout 0: none */
	struct policy policy;	/* thresholds and flags; census bounds are set here */
	const char *attribution;	/* ATTRIBUTION_* */
	const char *proc_root;
	size_t process_limit, table_cap;
	/* Called after each baseline census (may be NULL). */
	void (*progress)(void *ctx, int64_t done_ns, int64_t total_ns);
	void *progress_ctx;
};

struct run_result {
	int exit_code;		/* what fak exits with: the command's status */
	int interrupted;	/* SIGINT/SIGTERM/SIGHUP number that stopped the run, else 0 */
};

/* Resolves and runs the command. Returns -1 with e set when it could not
 * be started (nothing ran, no report). Returns 0 otherwise: *r is sealed
 * unless res->interrupted, in which case *r must not be used. */
int sampler_run(const struct run_opts *o, struct report *r, struct run_result *res, struct err *e);

#endif
