#ifndef FAK_SAMPLER_CHILD_H
#define FAK_SAMPLER_CHILD_H
/* Child supervision: resolve the command before anything starts, spawn it
 * with a CLOEXEC status pipe, reap every descendant as a child subreaper
 * (summing the kernel's rusage of each), and after the root exits kill
 * and reap whatever is left. */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "platform/platform.h"

#define CHILD_KILLED_MAX 4096

struct child {
	pid_t pid;			/* the SUT root */
	bool exited;
	int status;			/* wait status of the root */
	uint64_t reaped_cpu_us;		/* user + system time of every reaped process */
	uint64_t max_rss_kib;		/* largest ru_maxrss of a reaped process */
	int64_t reaped;			/* processes reaped (the root included) */
	int64_t killed;			/* descendants killed after the root exited */
	int64_t unreaped;		/* children still present when cleanup gave up */
	pid_t killed_pids[CHILD_KILLED_MAX];	/* killed, not yet reaped */
	size_t nr_killed;
};

/* Finds the executable like execvp (PATH search unless name has a '/').
 * Errors: "cannot run 'name': command not found" or the errno text. */
int child_resolve(const char *name, char *out, size_t cap, struct err *e);

/* Makes fak a child subreaper: orphans of the tree re-parent to it. */
int child_become_subreaper(struct err *e);

/* Where the child's standard streams go: a descriptor of fak's, or -1 for
 * the default (stdin inherited, stdout and stderr to fak's stderr). */
struct child_stdio {
	int in, out, err;
};
#define CHILD_STDIO_DEFAULT ((struct child_stdio){ -1, -1, -1 })

/* Forks and execs path with argv. The child restores *child_mask, sets up
 * its streams from *io, asks to be killed when fak dies (so the command
 * cannot outlive an interrupted measurement unnoticed), and runs in the
 * cgroup whose folder is cgroup_dir_fd when that is >= 0: born there when
 * the kernel can, else joined through cgroup_procs_fd before the exec (a
 * failure there is reported in placement_err, not fatal). An exec failure
 * is returned as an error after the child has been reaped. */
int child_spawn(struct child *ch, const char *path, char *const argv[], const sigset_t *child_mask,
		const struct child_stdio *io, int cgroup_dir_fd, int cgroup_procs_fd,
		char *placement_err, size_t placement_cap, struct err *e);

/* Reaps every exited child without blocking. Returns true while children
 * (exited or not) remain. */
bool child_reap(struct child *ch);

/* Kills every remaining descendant generation by generation (SIGKILL to
 * each direct child; grandchildren re-parent to fak and follow) and reaps
 * them, waiting on sig (SIGCHLD) until none remain or deadline_ns
 * (CLOCK_MONOTONIC) passes. On darwin, whose orphans re-parent to launchd,
 * the command's process group is killed first (platform_kill_group). */
void child_cleanup(struct child *ch, struct platform_signals *sig, int64_t deadline_ns);

#endif
