/* The Linux backend of platform.h: the calls fak made directly before the
 * layer existed (signalfd, PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG,
 * getdents64, /proc), with the same behaviour. The Makefile compiles it
 * on Linux only. */
#if defined(__linux__)
#include "platform/platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

const char platform_os[] = "linux";

int platform_pipe_cloexec(int fd[2])
{
	return pipe2(fd, O_CLOEXEC);
}

int platform_signals_open(struct platform_signals *ps, const int *signo, size_t nr,
			  struct err *e)
{
	sigset_t set;

	memset(ps, 0, sizeof(*ps));
	ps->fd = -1;
	if (nr > PLATFORM_SIGNALS_MAX)
		return err_set(e, "too many signals to wait for (%zu)", nr);
	sigemptyset(&set);
	for (size_t i = 0; i < nr; i++) {
		sigaddset(&set, signo[i]);
		ps->signo[i] = signo[i];
	}
	ps->nr = nr;
	if (sigprocmask(SIG_BLOCK, &set, &ps->old_mask) < 0)
		return err_errno(e, errno, "cannot block signals");
	ps->fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ps->fd < 0) {
		int saved = errno;

		sigprocmask(SIG_SETMASK, &ps->old_mask, NULL);
		return err_errno(e, saved, "cannot create a signalfd");
	}
	return 0;
}

bool platform_signals_wait(struct platform_signals *ps, int64_t timeout_ns)
{
	struct pollfd p = { .fd = ps->fd, .events = POLLIN };
	struct timespec ts;

	if (timeout_ns < 0)
		return ppoll(&p, 1, NULL, NULL) > 0;
	ts.tv_sec = (time_t)(timeout_ns / 1000000000);
	ts.tv_nsec = (long)(timeout_ns % 1000000000);
	return ppoll(&p, 1, &ts, NULL) > 0;
}

int platform_open_watch(const char *path)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		return -1;
	if (inotify_add_watch(fd, path, IN_OPEN) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

bool platform_open_watch_take(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool opened = false;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
			const struct inotify_event *ev = (const void *)(buf + off);

			opened |= (ev->mask & IN_OPEN) != 0;
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
	return opened;
}

bool platform_signals_wait_fd(struct platform_signals *ps, int fd, bool *fd_ready,
			      int64_t timeout_ns)
{
	struct pollfd p[2] = { { .fd = ps->fd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
	struct timespec ts;
	int n;

	*fd_ready = false;
	if (fd < 0)
		return platform_signals_wait(ps, timeout_ns);
	ts.tv_sec = (time_t)(timeout_ns < 0 ? 0 : timeout_ns / 1000000000);
	ts.tv_nsec = (long)(timeout_ns < 0 ? 0 : timeout_ns % 1000000000);
	n = ppoll(p, 2, timeout_ns < 0 ? NULL : &ts, NULL);
	if (n <= 0)
		return false;
	*fd_ready = (p[1].revents & POLLIN) != 0;
	return (p[0].revents & POLLIN) != 0;
}

size_t platform_signals_take(struct platform_signals *ps, struct platform_signal *out,
			     size_t cap)
{
	struct signalfd_siginfo si[16];
	ssize_t n;
	size_t nr;

	if (cap > sizeof(si) / sizeof(si[0]))
		cap = sizeof(si) / sizeof(si[0]);
	n = read(ps->fd, si, cap * sizeof(si[0]));
	if (n <= 0)
		return 0;
	nr = (size_t)n / sizeof(si[0]);
	for (size_t i = 0; i < nr; i++) {
		out[i].signo = (int)si[i].ssi_signo;
		out[i].sent_by_kernel = si[i].ssi_code == SI_KERNEL;
	}
	return nr;
}

void platform_signals_close(struct platform_signals *ps)
{
	if (ps->fd >= 0)
		close(ps->fd);
	ps->fd = -1;
	sigprocmask(SIG_SETMASK, &ps->old_mask, NULL);
}

void platform_signals_discard(const sigset_t *set)
{
	struct timespec zero = { 0, 0 };

	while (sigtimedwait(set, NULL, &zero) > 0)
		;
}

int platform_become_subreaper(struct err *e)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return err_errno(e, errno, "cannot become a child subreaper");
	return 0;
}

int platform_child_prepare(pid_t parent)
{
	/* Dies with fak; getppid() closes the race with fak dying first. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		return -1;
	return 0;
}

void platform_kill_group(pid_t root)
{
	(void)root;
}

/* The state and parent of /proc/PID/stat: the fields after the comm's last
 * ')'. -1 when buf is no stat line. */
static int stat_state_ppid(const char *buf, char *state, long *ppid)
{
	const char *close = strrchr(buf, ')');

	if (!close || sscanf(close + 1, " %c %ld", state, ppid) != 2)
		return -1;
	return 0;
}

/* Reads the whole small file rel (bounded by cap - 1) as a string. */
static ssize_t read_text(const char *rel, char *buf, size_t cap)
{
	int fd = open(rel, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

size_t platform_children(pid_t parent, pid_t *out, size_t cap)
{
	char buf[4096], rel[64];
	size_t n = 0;
	DIR *d;
	struct dirent *de;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < cap) {
		char state;
		long ppid;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(rel, sizeof(rel), "/proc/%.20s/stat", de->d_name);
		if (read_text(rel, buf, sizeof(buf)) <= 0 ||
		    stat_state_ppid(buf, &state, &ppid) < 0)
			continue;
		if (ppid == (long)parent && state != 'Z')
			out[n++] = (pid_t)atol(de->d_name);
	}
	closedir(d);
	return n;
}

ssize_t platform_dirents(int fd, void *buf, size_t cap)
{
	return getdents64(fd, buf, cap);
}

const char *platform_dirent_name(const void *buf, ssize_t *off)
{
	const char *at = (const char *)buf + *off;
	const struct dirent64 *d = (const struct dirent64 *)(const void *)at;

	*off += d->d_reclen;
	return d->d_name;
}

/* The value of "Key:" in /proc/meminfo, in bytes. */
static bool meminfo(const char *buf, const char *key, uint64_t *bytes)
{
	const char *p = strstr(buf, key);
	unsigned long long kib;

	if (!p || sscanf(p + strlen(key), " %llu kB", &kib) != 1)
		return false;
	*bytes = (uint64_t)kib * 1024;
	return true;
}

int platform_host(struct platform_host *h, struct err *e)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES);
	long page = sysconf(_SC_PAGESIZE), tck = sysconf(_SC_CLK_TCK);
	unsigned long long t[8];
	char buf[8192];

	memset(h, 0, sizeof(*h));
	if (cpus <= 0 || pages <= 0 || page <= 0 || tck <= 0)
		return err_set(e, "sysconf does not report the CPUs, the memory or the clock tick");
	h->logical_cpus = cpus;
	h->memory_bytes = (uint64_t)pages * (uint64_t)page;
	if (read_text("/proc/stat", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1], &t[2], &t[3],
		   &t[4], &t[5], &t[6], &t[7]) == 8) {
		uint64_t total = 0;

		for (int i = 0; i < 8; i++)
			total += t[i];
		h->cpu_total_ns = total * (1000000000 / (uint64_t)tck);
		h->cpu_busy_ns = (total - t[3] - t[4]) * (1000000000 / (uint64_t)tck);
		h->cpu_ok = true;
	}
	if (read_text("/proc/meminfo", buf, sizeof(buf)) > 0)
		h->available_ok = meminfo(buf, "MemAvailable:", &h->memory_available_bytes);
	return 0;
}

int platform_proc(pid_t pid, struct platform_proc *p)
{
	char rel[64], buf[4096];
	const char *close;
	unsigned long long utime, stime, size, resident;
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);

	memset(p, 0, sizeof(*p));
	snprintf(rel, sizeof(rel), "/proc/%d/stat", (int)pid);
	if (read_text(rel, buf, sizeof(buf)) <= 0)
		return -1;
	close = strrchr(buf, ')');
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!close || sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			     &utime, &stime) != 2 || tck <= 0) {
		errno = EINVAL;
		return -1;
	}
	p->cpu_ns = (uint64_t)(utime + stime) * (1000000000 / (uint64_t)tck);
	snprintf(rel, sizeof(rel), "/proc/%d/statm", (int)pid);
	if (read_text(rel, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &size, &resident) != 2 || page <= 0)
		return -1;
	p->resident_bytes = (uint64_t)resident * (uint64_t)page;
	return 0;
}

/* ---- the poller: epoll, its deadline in epoll_pwait2 or a timerfd ---- */

/* epoll_pwait2 (Linux 5.11) takes its timeout in nanoseconds: one call a
 * wait. An older kernel (ENOSYS when the poller opens) or headers without
 * the call get the timerfd in the epoll set, armed only when the deadline
 * changes and read only when it fired. */
#if defined(SYS_epoll_pwait2)
#define POLLER_PWAIT2 1
#else
#define POLLER_PWAIT2 0
#endif

struct platform_poller {
	int ep, tfd;		/* tfd: -1 while epoll_pwait2 serves */
	int64_t armed;		/* the timerfd's deadline; -1: disarmed */
	unsigned char *added;	/* per descriptor: in the epoll set */
	size_t nr_added;
	int old_slack;		/* the thread's timer slack, restored at close */
};

static int poller_timerfd(struct platform_poller *p)
{
	struct epoll_event ev = { .events = EPOLLIN };

	p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ev.data.fd = p->tfd;
	return p->tfd < 0 ? -1 : epoll_ctl(p->ep, EPOLL_CTL_ADD, p->tfd, &ev);
}

/* Whether the kernel has epoll_pwait2 (an empty wait that does not wait). */
static bool pwait2_works(int ep)
{
#if POLLER_PWAIT2
	struct epoll_event ev;
	struct timespec zero = { 0 };

	return syscall(SYS_epoll_pwait2, ep, &ev, 1, &zero, NULL, (size_t)0) >= 0 ||
	       errno != ENOSYS;
#else
	(void)ep;
	return false;
#endif
}

static struct platform_poller *poller_open(bool timerfd, struct err *e)
{
	struct platform_poller *p = calloc(1, sizeof(*p));

	if (!p) {
		err_errno(e, errno, "cannot start the poller");
		return NULL;
	}
	p->tfd = -1;
	p->armed = -1;
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!timerfd && p->ep >= 0)
		timerfd = !pwait2_works(p->ep);
	if (p->ep < 0 || (timerfd && poller_timerfd(p) < 0)) {
		err_errno(e, errno, "cannot start the poller (epoll, timerfd)");
		platform_poller_close(p);
		return NULL;
	}
	/* a wait's timeout is slack by 50 us (the default timer slack) on top
	 * of 0.1% of it: 1 ns of slack keeps a send at its time */
	p->old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	return p;
}

struct platform_poller *platform_poller_open(struct err *e)
{
	return poller_open(false, e);
}

struct platform_poller *platform_poller_open_timerfd(struct err *e)
{
	return poller_open(true, e);
}

/* Whether fd is (as far as this poller knows) in the epoll set; sets it. */
static bool poller_mark(struct platform_poller *p, int fd, bool in)
{
	bool was;

	if ((size_t)fd >= p->nr_added) {
		size_t nr = (size_t)fd + 64;
		unsigned char *a = realloc(p->added, nr);

		if (!a)
			return in;	/* unknown: the caller's first guess may fail */
		memset(a + p->nr_added, 0, nr - p->nr_added);
		p->added = a;
		p->nr_added = nr;
	}
	was = p->added[fd];
	p->added[fd] = in;
	return was;
}

int platform_poller_watch(struct platform_poller *p, int fd, unsigned events)
{
	struct epoll_event ev = { .data.fd = fd };
	int op;

	if (fd < 0)
		return errno = EBADF, -1;
	if (!events) {
		poller_mark(p, fd, false);
		return epoll_ctl(p->ep, EPOLL_CTL_DEL, fd, NULL) < 0 && errno != ENOENT &&
		       errno != EBADF ? -1 : 0;
	}
	if (events & PLATFORM_POLL_IN)
		ev.events |= EPOLLIN;
	if (events & PLATFORM_POLL_OUT)
		ev.events |= EPOLLOUT;
	/* a descriptor closed without a removal left the set by itself, and
	 * its number may come back: the other call when the first is refused */
	op = poller_mark(p, fd, true) ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (!epoll_ctl(p->ep, op, fd, &ev))
		return 0;
	if (errno != (op == EPOLL_CTL_MOD ? ENOENT : EEXIST))
		return -1;
	return epoll_ctl(p->ep, op == EPOLL_CTL_MOD ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

/* epoll_wait with the timerfd armed at deadline_ns (if it is not already). */
static int poller_wait_timerfd(struct platform_poller *p, int64_t deadline_ns,
			       struct epoll_event *ev, int cap)
{
	if (deadline_ns >= 0 && deadline_ns < 1)
		deadline_ns = 1;	/* 0 would disarm: the earliest time, past */
	if (deadline_ns != p->armed) {
		struct itimerspec its = { 0 };

		if (deadline_ns >= 0) {
			its.it_value.tv_sec = deadline_ns / 1000000000;
			its.it_value.tv_nsec = deadline_ns % 1000000000;
		}
		timerfd_settime(p->tfd, TFD_TIMER_ABSTIME, &its, NULL);
		p->armed = deadline_ns;
	}
	return epoll_wait(p->ep, ev, cap, -1);
}

static int poller_epoll_wait(struct platform_poller *p, int64_t deadline_ns,
			     struct epoll_event *ev, int cap)
{
#if POLLER_PWAIT2
	if (p->tfd < 0) {
		struct timespec ts, *tp = NULL;

		if (deadline_ns >= 0) {
			int64_t left = deadline_ns - platform_mono_ns();

			left = left < 0 ? 0 : left;
			ts.tv_sec = (time_t)(left / 1000000000);
			ts.tv_nsec = (long)(left % 1000000000);
			tp = &ts;
		}
		return (int)syscall(SYS_epoll_pwait2, p->ep, ev, cap, tp, NULL, (size_t)0);
	}
#endif
	return poller_wait_timerfd(p, deadline_ns, ev, cap);
}

size_t platform_poller_wait(struct platform_poller *p, int64_t deadline_ns,
			    struct platform_poll_event *out, size_t cap)
{
	struct epoll_event ev[64];
	size_t n = 0;
	int got = poller_epoll_wait(p, deadline_ns, ev, (int)(cap < 64 ? cap : 64));

	for (int i = 0; i < got; i++) {
		unsigned flags = 0;

		if (ev[i].data.fd == p->tfd) {
			uint64_t ticks;

			/* fired: one read takes every expiry, and it is disarmed */
			if (read(p->tfd, &ticks, sizeof(ticks)) > 0)
				p->armed = -1;
			continue;
		}
		if (ev[i].events & EPOLLIN)
			flags |= PLATFORM_POLL_IN;
		if (ev[i].events & EPOLLOUT)
			flags |= PLATFORM_POLL_OUT;
		if (ev[i].events & (EPOLLERR | EPOLLHUP))
			flags |= PLATFORM_POLL_ERR;
		out[n].fd = ev[i].data.fd;
		out[n++].events = flags;
	}
	return n;
}

void platform_poller_close(struct platform_poller *p)
{
	if (!p)
		return;
	if (p->old_slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)p->old_slack, 0, 0, 0);
	if (p->ep >= 0)
		close(p->ep);
	if (p->tfd >= 0)
		close(p->tfd);
	free(p->added);
	free(p);
}

#endif /* __linux__ */

void platform_cpu_model(char *out, size_t cap)
{
	static const char *const keys[] = { "model name", "Hardware", "CPU part" };
	char line[512], best[512] = "";
	int rank = 3;
	FILE *f = fopen("/proc/cpuinfo", "re");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		for (int k = 0; k < rank; k++) {
			size_t n = strlen(keys[k]);

			/* "model name\t: Intel(R) ...": the key, blanks, the colon */
			if (!strncmp(line, keys[k], n) &&
			    strspn(line + n, " \t") == (size_t)(colon - line) - n) {
				snprintf(best, sizeof(best), "%s", colon + 1);
				rank = k;
				break;
			}
		}
		if (rank == 0)
			break;
	}
	fclose(f);
	platform_words(best, out, cap);
}
