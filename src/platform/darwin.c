/* The macOS backend of platform.h, written against Apple's documented
 * interfaces: kqueue (EVFILT_SIGNAL), process groups, libproc
 * (proc_listchildpids, proc_pidinfo, proc_pid_rusage), sysctl and mach
 * (host_processor_info, host_statistics64). The Makefile compiles it on
 * macOS only; `make cross-check` compiles it for aarch64-macos and
 * x86_64-macos on every check. It has not run on a Mac yet: docs/platforms.md
 * says what tests/device/macos.sh checks once it does. */
#if defined(__APPLE__)
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <limits.h>
#include <mach/mach.h>
#include <mach/mach_time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/proc_info.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <time.h>
#include <unistd.h>

const char platform_os[] = "darwin";

int platform_pipe_cloexec(int fd[2])
{
	if (pipe(fd) < 0)
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fd[1], F_SETFD, FD_CLOEXEC) < 0) {
		int saved = errno;

		close(fd[0]);
		close(fd[1]);
		errno = saved;
		return -1;
	}
	return 0;
}

/* A handler that does nothing: the signals stay blocked while the kqueue
 * reports them, and one still pending when the mask is restored lands
 * here instead of killing fak. (SIG_IGN would discard them as well, but
 * an ignored signal stays ignored across exec, in the command too.) */
static void ignore_signal(int signo)
{
	(void)signo;
}

int platform_signals_open(struct platform_signals *ps, const int *signo, size_t nr,
			  struct err *e)
{
	struct kevent ev[PLATFORM_SIGNALS_MAX];
	struct sigaction sa;
	sigset_t set;

	memset(ps, 0, sizeof(*ps));
	ps->fd = -1;
	if (nr > PLATFORM_SIGNALS_MAX)
		return err_set(e, "too many signals to wait for (%zu)", nr);
	sigemptyset(&set);
	for (size_t i = 0; i < nr; i++) {
		sigaddset(&set, signo[i]);
		ps->signo[i] = signo[i];
		EV_SET(&ev[i], (uintptr_t)signo[i], EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	}
	ps->nr = nr;
	ps->fd = kqueue();
	if (ps->fd < 0)
		return err_errno(e, errno, "cannot create a kqueue");
	fcntl(ps->fd, F_SETFD, FD_CLOEXEC);
	if (kevent(ps->fd, ev, (int)nr, NULL, 0, NULL) < 0) {
		int saved = errno;

		close(ps->fd);
		ps->fd = -1;
		return err_errno(e, saved, "cannot watch signals with kqueue");
	}
	if (sigprocmask(SIG_BLOCK, &set, &ps->old_mask) < 0) {
		int saved = errno;

		close(ps->fd);
		ps->fd = -1;
		return err_errno(e, saved, "cannot block signals");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ignore_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < nr; i++)	/* SIGCHLD's default already discards it */
		if (signo[i] != SIGCHLD)
			sigaction(signo[i], &sa, &ps->old_action[i]);
	return 0;
}

/* Moves what the kqueue reports into ps->pending; timeout NULL: blocks. */
static size_t collect(struct platform_signals *ps, const struct timespec *timeout)
{
	struct kevent ev[PLATFORM_SIGNALS_MAX];
	int n = kevent(ps->fd, NULL, 0, ev, PLATFORM_SIGNALS_MAX, timeout);

	for (int i = 0; i < n; i++) {
		/* data: how often it arrived since the last report */
		for (intptr_t k = 0; k < ev[i].data || k == 0; k++)
			if (ps->nr_pending < PLATFORM_SIGNALS_MAX)
				ps->pending[ps->nr_pending++] = (int)ev[i].ident;
	}
	return ps->nr_pending;
}

bool platform_signals_wait(struct platform_signals *ps, int64_t timeout_ns)
{
	struct timespec ts;

	if (ps->nr_pending)
		return true;
	if (timeout_ns < 0)
		return collect(ps, NULL) > 0;
	ts.tv_sec = (time_t)(timeout_ns / 1000000000);
	ts.tv_nsec = (long)(timeout_ns % 1000000000);
	return collect(ps, &ts) > 0;
}

int platform_open_watch(const char *path)
{
	/* kqueue's EVFILT_VNODE reports writes, renames and deletions of a
	 * file, not that a process opened it */
	(void)path;
	errno = ENOSYS;
	return -1;
}

bool platform_open_watch_take(int fd)
{
	(void)fd;
	return false;
}

bool platform_signals_wait_fd(struct platform_signals *ps, int fd, bool *fd_ready,
			      int64_t timeout_ns)
{
	(void)fd;	/* platform_open_watch gives none here */
	*fd_ready = false;
	return platform_signals_wait(ps, timeout_ns);
}

size_t platform_signals_take(struct platform_signals *ps, struct platform_signal *out,
			     size_t cap)
{
	static const struct timespec now = { 0, 0 };
	size_t n = 0;

	if (!ps->nr_pending)
		collect(ps, &now);
	while (n < cap && n < ps->nr_pending) {
		out[n].signo = ps->pending[n];
		out[n].sent_by_kernel = false;	/* kqueue does not say who sent it */
		n++;
	}
	memmove(ps->pending, ps->pending + n, (ps->nr_pending - n) * sizeof(ps->pending[0]));
	ps->nr_pending -= n;
	return n;
}

void platform_signals_close(struct platform_signals *ps)
{
	if (ps->fd >= 0)
		close(ps->fd);
	ps->fd = -1;
	sigprocmask(SIG_SETMASK, &ps->old_mask, NULL);
	for (size_t i = 0; i < ps->nr; i++)
		if (ps->signo[i] != SIGCHLD)
			sigaction(ps->signo[i], &ps->old_action[i], NULL);
	ps->nr = 0;
}

void platform_signals_discard(const sigset_t *set)
{
	sigset_t pending;

	/* no sigtimedwait on macOS: setting a pending signal's action to
	 * SIG_IGN discards it (POSIX), then the old action comes back */
	if (sigpending(&pending) < 0)
		return;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction ign, old;

		if (!sigismember(set, sig) || !sigismember(&pending, sig))
			continue;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigemptyset(&ign.sa_mask);
		if (sigaction(sig, &ign, &old) == 0)
			sigaction(sig, &old, NULL);
	}
}

int platform_become_subreaper(struct err *e)
{
	return err_set(e, "macOS has no child subreaper: orphans of the command re-parent to "
			  "launchd");
}

int platform_child_prepare(pid_t parent)
{
	/* No parent-death signal on macOS: a group of its own instead, so a
	 * terminal's ^C reaches the command only through fak, and the cleanup
	 * reaches orphans that stayed in the group. */
	if (setpgid(0, 0) < 0 || getppid() != parent)
		return -1;
	return 0;
}

void platform_kill_group(pid_t root)
{
	if (root > 0)
		killpg(root, SIGKILL);
}

size_t platform_children(pid_t parent, pid_t *out, size_t cap)
{
	static pid_t pids[4096];
	int n = proc_listchildpids(parent, pids, (int)sizeof(pids));
	size_t nr = 0;

	for (int i = 0; i < n && i < (int)(sizeof(pids) / sizeof(pids[0])) && nr < cap; i++) {
		struct proc_bsdinfo bi;

		if (pids[i] <= 0)
			continue;
		/* a zombie has no BSD info left to read */
		if (proc_pidinfo(pids[i], PROC_PIDTBSDINFO, 0, &bi, (int)sizeof(bi)) !=
		    (int)sizeof(bi))
			continue;
		out[nr++] = pids[i];
	}
	return nr;
}

ssize_t platform_dirents(int fd, void *buf, size_t cap)
{
	(void)fd;
	(void)buf;
	(void)cap;
	errno = ENOSYS;
	return -1;
}

const char *platform_dirent_name(const void *buf, ssize_t *off)
{
	(void)buf;
	*off = SSIZE_MAX;
	return "";
}

static bool sysctl_u64(const char *name, uint64_t *out)
{
	uint64_t v64 = 0;
	uint32_t v32 = 0;
	size_t len = sizeof(v64);

	if (sysctlbyname(name, &v64, &len, NULL, 0) == 0 && len == sizeof(v64)) {
		*out = v64;
		return true;
	}
	len = sizeof(v32);
	if (sysctlbyname(name, &v32, &len, NULL, 0) == 0 && len == sizeof(v32)) {
		*out = v32;
		return true;
	}
	return false;
}

int platform_host(struct platform_host *h, struct err *e)
{
	uint64_t cpus = 0, mem = 0;
	long tck = sysconf(_SC_CLK_TCK);
	natural_t nr_cpu = 0;
	processor_info_array_t info = NULL;
	mach_msg_type_number_t nr_info = 0;
	vm_statistics64_data_t vm;
	mach_msg_type_number_t nr_vm = HOST_VM_INFO64_COUNT;

	memset(h, 0, sizeof(*h));
	if (!sysctl_u64("hw.logicalcpu", &cpus) || !sysctl_u64("hw.memsize", &mem) || !cpus ||
	    !mem || tck <= 0)
		return err_set(e, "sysctl does not report hw.logicalcpu or hw.memsize");
	h->logical_cpus = (int64_t)cpus;
	h->memory_bytes = mem;
	if (host_processor_info(mach_host_self(), PROCESSOR_CPU_LOAD_INFO, &nr_cpu, &info,
				&nr_info) == KERN_SUCCESS) {
		const processor_cpu_load_info_data_t *load =
			(const processor_cpu_load_info_data_t *)(const void *)info;
		uint64_t total = 0, idle = 0;

		for (natural_t i = 0; i < nr_cpu; i++) {
			for (int s = 0; s < CPU_STATE_MAX; s++)
				total += load[i].cpu_ticks[s];
			idle += load[i].cpu_ticks[CPU_STATE_IDLE];
		}
		vm_deallocate(mach_task_self(), (vm_address_t)info,
			      (vm_size_t)nr_info * sizeof(integer_t));
		h->cpu_total_ns = total * (1000000000 / (uint64_t)tck);
		h->cpu_busy_ns = (total - idle) * (1000000000 / (uint64_t)tck);
		h->cpu_ok = true;
	}
	if (host_statistics64(mach_host_self(), HOST_VM_INFO64, (host_info64_t)&vm, &nr_vm) ==
	    KERN_SUCCESS) {
		/* no MemAvailable: free (speculative included) and inactive pages,
		 * which the kernel reclaims without swapping first */
		h->memory_available_bytes =
			((uint64_t)vm.free_count + vm.inactive_count) * (uint64_t)vm_page_size;
		h->available_ok = true;
	}
	return 0;
}

int platform_proc(pid_t pid, struct platform_proc *p)
{
	static mach_timebase_info_data_t tb;
	struct rusage_info_v4 ri;

	memset(p, 0, sizeof(*p));
	if (!tb.denom && mach_timebase_info(&tb) != KERN_SUCCESS)
		return -1;
	if (proc_pid_rusage(pid, RUSAGE_INFO_V4, (rusage_info_t *)(void *)&ri) < 0)
		return -1;
	/* ri_*_time are mach absolute time units (1 ns on Intel, 125/3 ns on
	 * Apple silicon) */
	p->cpu_ns = (ri.ri_user_time + ri.ri_system_time) * tb.numer / tb.denom;
	p->resident_bytes = ri.ri_resident_size;
	p->footprint_bytes = ri.ri_phys_footprint;
	p->footprint_ok = true;
	return 0;
}

/* ---- the poller: a kqueue, the deadline as kevent's timeout ---- */

struct platform_poller {
	int kq;
};

struct platform_poller *platform_poller_open(struct err *e)
{
	struct platform_poller *p = malloc(sizeof(*p));

	if (!p) {
		err_errno(e, errno, "cannot start the poller");
		return NULL;
	}
	p->kq = kqueue();
	if (p->kq < 0) {
		err_errno(e, errno, "cannot start the poller (kqueue)");
		free(p);
		return NULL;
	}
	return p;
}

/* One filter on or off; deleting one that was never added is no error. */
static int kq_filter(int kq, int fd, short filter, bool on)
{
	struct kevent ev;

	EV_SET(&ev, (uintptr_t)fd, filter, on ? EV_ADD : EV_DELETE, 0, 0, NULL);
	if (kevent(kq, &ev, 1, NULL, 0, NULL) < 0 && (on || (errno != ENOENT && errno != EBADF)))
		return -1;
	return 0;
}

int platform_poller_watch(struct platform_poller *p, int fd, unsigned events)
{
	if (kq_filter(p->kq, fd, EVFILT_READ, events & PLATFORM_POLL_IN) < 0)
		return -1;
	return kq_filter(p->kq, fd, EVFILT_WRITE, events & PLATFORM_POLL_OUT);
}

size_t platform_poller_wait(struct platform_poller *p, int64_t deadline_ns,
			    struct platform_poll_event *out, size_t cap)
{
	struct kevent ev[64];
	struct timespec now, left, *timeout = NULL;
	size_t n = 0;
	int got;

	if (deadline_ns >= 0) {
		int64_t d;

		clock_gettime(CLOCK_MONOTONIC, &now);
		d = deadline_ns - ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
		if (d < 0)
			d = 0;
		left.tv_sec = d / 1000000000;
		left.tv_nsec = d % 1000000000;
		timeout = &left;
	}
	got = kevent(p->kq, NULL, 0, ev, (int)(cap < 64 ? cap : 64), timeout);
	for (int i = 0; i < got; i++) {
		unsigned flags = ev[i].filter == EVFILT_READ ? PLATFORM_POLL_IN
							      : PLATFORM_POLL_OUT;

		if (ev[i].flags & (EV_EOF | EV_ERROR))
			flags |= PLATFORM_POLL_ERR;
		out[n].fd = (int)ev[i].ident;
		out[n++].events = flags;
	}
	return n;
}

void platform_poller_close(struct platform_poller *p)
{
	if (!p)
		return;
	close(p->kq);
	free(p);
}

#endif /* __APPLE__ */

void platform_cpu_model(char *out, size_t cap)
{
	char brand[512] = "";
	size_t len = sizeof(brand) - 1;

	if (sysctlbyname("machdep.cpu.brand_string", brand, &len, NULL, 0) < 0)
		brand[0] = '\0';
	platform_words(brand, out, cap);
}
