#ifndef FAK_PLATFORM_PLATFORM_H
#define FAK_PLATFORM_PLATFORM_H
/* What fak asks of the operating system that POSIX does not give it: random
 * bytes, signals as a descriptor to wait on, child supervision (who the
 * children are, what becomes of orphans), directory batches of a /proc
 * tree, and the host's CPU and memory totals. One backend per OS, each
 * compiled only on its own: platform/linux.c (the calls fak has always
 * made) and platform/darwin.c (macOS: libproc, mach, kqueue; written
 * against Apple's documentation, see docs/platforms.md for what has run).
 * Everything above this floor is portable C plus POSIX. */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

/* "linux" or "darwin": the backend compiled in. */
extern const char platform_os[];

/* CLOCK_MONOTONIC in nanoseconds: every timing of fak (censuses, runs,
 * sends) reads this one clock. */
int64_t platform_mono_ns(void);

/* Fills buf with len bytes from the kernel's random source (getentropy, in
 * pieces of at most 256 bytes). 0, or -1 with errno set. */
int platform_random(void *buf, size_t len);

/* pipe(2) with both ends close-on-exec. 0, or -1 with errno set. */
int platform_pipe_cloexec(int fd[2]);

/* ---- signals, as something to wait on ---- */

#define PLATFORM_SIGNALS_MAX 8

struct platform_signal {
	int signo;
	/* Linux: the kernel sent it (a terminal's ^C, which the command's
	 * process group got too). darwin cannot tell: always false. */
	bool sent_by_kernel;
};

struct platform_signals {
	int fd;				/* signalfd (Linux) or kqueue (darwin); -1: closed */
	sigset_t old_mask;		/* the mask before platform_signals_open */
	int signo[PLATFORM_SIGNALS_MAX];
	size_t nr;
	struct sigaction old_action[PLATFORM_SIGNALS_MAX];	/* darwin */
	int pending[PLATFORM_SIGNALS_MAX];	/* darwin: received, not yet taken */
	size_t nr_pending;
};

/* Blocks the nr (<= PLATFORM_SIGNALS_MAX) signals and opens a descriptor
 * that reports them. -1 with e set; nothing is changed then. */
int platform_signals_open(struct platform_signals *ps, const int *signo, size_t nr,
			  struct err *e);
/* Sleeps until a signal is pending or timeout_ns has passed (< 0: no
 * limit). Returns whether one is pending. */
bool platform_signals_wait(struct platform_signals *ps, int64_t timeout_ns);
/* Takes at most cap pending signals without blocking; 0 when none. */
size_t platform_signals_take(struct platform_signals *ps, struct platform_signal *out,
			     size_t cap);
/* Closes the descriptor and restores the old mask (and darwin's actions). */
void platform_signals_close(struct platform_signals *ps);

/* Discards the signals of set that are pending (blocked, not delivered)
 * without running their actions, so that unblocking them later does
 * nothing. */
void platform_signals_discard(const sigset_t *set);

/* ---- opens of one file, as something to wait on ---- */

/* A descriptor that becomes readable whenever a process opens the file at
 * path (Linux: inotify IN_OPEN, nonblocking, close-on-exec), so a reader
 * that holds the file only briefly can be looked for at once. -1 with
 * errno where the OS has none (darwin: ENOSYS). Close it with close(2). */
int platform_open_watch(const char *path);
/* Reads what the watch reported, without blocking; whether it was an open. */
bool platform_open_watch_take(int fd);
/* platform_signals_wait that also returns when fd (>= 0; -1: none) is
 * readable: *fd_ready says so. */
bool platform_signals_wait_fd(struct platform_signals *ps, int fd, bool *fd_ready,
			      int64_t timeout_ns);

/* ---- child supervision ---- */

/* Makes the calling process the reaper of its descendants' orphans (Linux:
 * PR_SET_CHILD_SUBREAPER). darwin has none: -1 with the reason in e, and
 * the caller falls back to the sampled tree. */
int platform_become_subreaper(struct err *e);

/* In a child after fork(), before exec: ties its life to parent where the
 * OS can (Linux: SIGKILL when parent dies; darwin: a process group of its
 * own, which platform_kill_group reaches). -1 when the child must not run
 * (its parent is gone already, or the call failed). */
int platform_child_prepare(pid_t parent);

/* Kills what is left of the process group that root's child_prepare made
 * (darwin: killpg, which reaches descendants that launchd adopted unless
 * they left the group). Linux: nothing, its subreaper brings every orphan
 * back to be killed one by one. */
void platform_kill_group(pid_t root);

/* The live (not zombie) children of parent, at most cap of them. */
size_t platform_children(pid_t parent, pid_t *out, size_t cap);

/* ---- directory batches (the Linux census reads /proc with them) ---- */

/* Reads the next batch of fd's entries into buf: bytes read, 0 at the
 * end, -1 with errno (darwin: ENOSYS, it has no /proc to list). */
ssize_t platform_dirents(int fd, void *buf, size_t cap);
/* The name of the entry at *off of a batch; moves *off to the next. */
const char *platform_dirent_name(const void *buf, ssize_t *off);

/* ---- the host ---- */

struct platform_host {
	int64_t logical_cpus;		/* online */
	uint64_t memory_bytes;		/* physical memory */
	bool cpu_ok;			/* CPU time since boot, all logical CPUs */
	uint64_t cpu_total_ns, cpu_busy_ns;
	bool available_ok;
	uint64_t memory_available_bytes;	/* Linux MemAvailable; darwin free +
						 * inactive + purgeable + speculative */
};

/* The host's CPU count, memory and CPU time now. -1 with e set when the
 * counts cannot be read; cpu_ok and available_ok say whether the rest
 * could. */
int platform_host(struct platform_host *h, struct err *e);

/* The CPU's model as the OS names it (Linux: the first "model name" of
 * /proc/cpuinfo, else its "Hardware" or "CPU part" line; darwin:
 * machdep.cpu.brand_string), blanks collapsed; "" when it says none. */
void platform_cpu_model(char *out, size_t cap);
/* in's words in out (cap bytes), separated by one space: blanks collapsed,
 * none at either end; cut short at cap. */
void platform_words(const char *in, char *out, size_t cap);

/* One process's CPU time and memory (Linux: /proc/PID/stat and statm;
 * darwin: proc_pid_rusage). -1 with errno (ESRCH: it is gone). */
struct platform_proc {
	uint64_t cpu_ns;		/* user + system */
	uint64_t resident_bytes;
	bool footprint_ok;		/* darwin only: ri_phys_footprint */
	uint64_t footprint_bytes;
};
int platform_proc(pid_t pid, struct platform_proc *p);

/* ---- many descriptors and a deadline (the serving client's loop) ---- */

#define PLATFORM_POLL_IN 1u
#define PLATFORM_POLL_OUT 2u
#define PLATFORM_POLL_ERR 4u	/* reported only: error or hang-up */

struct platform_poll_event {
	int fd;
	unsigned events;	/* PLATFORM_POLL_* */
};

/* A set of watched descriptors with a deadline on the monotonic clock
 * (Linux: epoll_pwait2, whose timeout is in nanoseconds, or on a kernel
 * before 5.11 epoll and a timerfd armed when the deadline changes; darwin:
 * kqueue, whose timeout is a timespec). It sets the calling thread's timer
 * slack to 1 ns while it is open (Linux). */
struct platform_poller;

/* NULL with e set when the kernel refuses. */
struct platform_poller *platform_poller_open(struct err *e);
#if defined(__linux__)
/* The same with the timerfd, whatever the kernel (the fallback, for tests). */
struct platform_poller *platform_poller_open_timerfd(struct err *e);
#endif
/* Watches fd for events (IN and/or OUT), replacing what was watched; 0
 * stops watching it. -1 with errno. */
int platform_poller_watch(struct platform_poller *p, int fd, unsigned events);
/* Waits until a watched descriptor is ready or CLOCK_MONOTONIC reaches
 * deadline_ns (absolute; < 0: no deadline); at most cap events in out.
 * Returns their number, 0 at the deadline or on EINTR. */
size_t platform_poller_wait(struct platform_poller *p, int64_t deadline_ns,
			    struct platform_poll_event *out, size_t cap);
void platform_poller_close(struct platform_poller *p);

#endif
