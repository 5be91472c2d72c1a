/* platform/: the OS layer, through its interface, on the backend this build
 * has (Linux here; tests/device/macos.sh runs the same suite on a Mac). Each
 * Criterion test runs in a process of its own, so its children are the
 * test's alone. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "platform/platform.h"

Test(platform, names_the_os_it_was_built_for)
{
#if defined(__linux__)
	cr_assert_str_eq(platform_os, "linux");
#elif defined(__APPLE__)
	cr_assert_str_eq(platform_os, "darwin");
#endif
}

Test(platform, draws_random_bytes_past_getentropys_256_byte_limit)
{
	unsigned char a[1000], b[1000];
	size_t zero_tail = 0;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	cr_assert_eq(platform_random(a, sizeof(a)), 0, "%s", strerror(errno));
	cr_assert_eq(platform_random(b, sizeof(b)), 0, "%s", strerror(errno));
	cr_assert(memcmp(a, b, sizeof(a)), "two draws were equal");
	for (size_t i = 744; i < sizeof(a); i++)	/* the last, partial piece */
		zero_tail += a[i] == 0;
	cr_assert_lt(zero_tail, 64, "the last piece looks unfilled");
	cr_assert_eq(platform_random(a, 0), 0);
}

Test(platform, pipes_close_on_exec)
{
	int fd[2];

	cr_assert_eq(platform_pipe_cloexec(fd), 0);
	cr_assert(fcntl(fd[0], F_GETFD) & FD_CLOEXEC);
	cr_assert(fcntl(fd[1], F_GETFD) & FD_CLOEXEC);
	close(fd[0]);
	close(fd[1]);
}

static bool has(const pid_t *pids, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

Test(platform, lists_live_children_and_not_reaped_or_zombie_ones)
{
	pid_t kids[2], got[64];
	size_t n;
	int status;

	for (int i = 0; i < 2; i++) {
		kids[i] = fork();
		cr_assert(kids[i] >= 0);
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
	}
	n = platform_children(getpid(), got, 64);
	cr_assert_eq(n, 2, "%zu children listed", n);
	cr_assert(has(got, n, kids[0]) && has(got, n, kids[1]));
	/* a zombie is no live child */
	kill(kids[0], SIGKILL);
	for (int tries = 0; tries < 200; tries++) {
		n = platform_children(getpid(), got, 64);
		if (!has(got, n, kids[0]))
			break;
		usleep(5000);
	}
	cr_assert(!has(got, n, kids[0]), "the killed child is still listed");
	cr_assert(has(got, n, kids[1]));
	cr_assert_eq(platform_children(getpid(), got, 0), 0, "cap 0 lists nothing");
	kill(kids[1], SIGKILL);
	cr_assert_eq(waitpid(kids[0], &status, 0), kids[0]);
	cr_assert_eq(waitpid(kids[1], &status, 0), kids[1]);
	cr_assert_eq(platform_children(getpid(), got, 64), 0);
}

Test(platform, child_prepare_refuses_a_parent_that_is_not_the_parent)
{
	pid_t parent = getpid(), pid = fork();
	int status;

	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(platform_child_prepare(parent) == 0 && platform_child_prepare(1) < 0 ? 0 : 1);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

Test(platform, reads_the_hosts_cpus_memory_and_cpu_time)
{
	struct platform_host h, later;
	struct err e;
	volatile unsigned long spin = 0;

	cr_assert_eq(platform_host(&h, &e), 0, "%s", e.msg);
	cr_assert_gt(h.logical_cpus, 0);
	cr_assert_gt(h.memory_bytes, (uint64_t)1 << 24);
	cr_assert(h.cpu_ok);
	cr_assert_gt(h.cpu_total_ns, 0);
	cr_assert_leq(h.cpu_busy_ns, h.cpu_total_ns);
	cr_assert(h.available_ok);
	cr_assert_leq(h.memory_available_bytes, h.memory_bytes);
	for (unsigned long i = 0; i < 50000000; i++)
		spin += i;
	cr_assert_neq(spin, 0);
	cr_assert_eq(platform_host(&later, &e), 0, "%s", e.msg);
	cr_assert_geq(later.cpu_total_ns, h.cpu_total_ns, "CPU time since boot went back");
	cr_assert_geq(later.cpu_busy_ns, h.cpu_busy_ns);
}

Test(platform, reads_a_processs_cpu_time_and_memory)
{
	struct platform_proc p;
	volatile unsigned long spin = 0;

	for (unsigned long i = 0; i < 100000000; i++)
		spin += i;
	cr_assert_neq(spin, 0);
	cr_assert_eq(platform_proc(getpid(), &p), 0, "%s", strerror(errno));
	cr_assert_gt(p.cpu_ns, 0, "a spinning process used no CPU");
	cr_assert_gt(p.resident_bytes, 0);
#if defined(__APPLE__)
	cr_assert(p.footprint_ok && p.footprint_bytes > 0);
#endif
}

Test(platform, delivers_signals_through_the_descriptor_and_restores_the_mask)
{
	static const int sigs[] = { SIGCHLD, SIGUSR1 };
	struct platform_signals ps;
	struct platform_signal got[8];
	struct err e;
	sigset_t now;
	pid_t pid;
	bool chld = false;
	size_t n;

	cr_assert_eq(platform_signals_open(&ps, sigs, 2, &e), 0, "%s", e.msg);
	cr_assert(!platform_signals_wait(&ps, 0), "a signal before any was sent");
	cr_assert_eq(platform_signals_take(&ps, got, 8), 0);
	kill(getpid(), SIGUSR1);
	cr_assert(platform_signals_wait(&ps, 2000000000));
	n = platform_signals_take(&ps, got, 8);
	cr_assert_eq(n, 1);
	cr_assert_eq(got[0].signo, SIGUSR1);
	cr_assert(!got[0].sent_by_kernel, "kill(2) is a process, not the kernel");
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(0);
	for (int tries = 0; tries < 4 && !chld; tries++) {
		if (!platform_signals_wait(&ps, 2000000000))
			continue;
		n = platform_signals_take(&ps, got, 8);
		for (size_t i = 0; i < n; i++)
			chld |= got[i].signo == SIGCHLD;
	}
	cr_assert(chld, "no SIGCHLD for an exited child");
	waitpid(pid, NULL, 0);
	sigprocmask(SIG_BLOCK, NULL, &now);
	cr_assert(sigismember(&now, SIGUSR1), "open blocks the signals it reports");
	platform_signals_close(&ps);
	cr_assert_eq(ps.fd, -1);
	sigprocmask(SIG_BLOCK, NULL, &now);
	cr_assert(!sigismember(&now, SIGUSR1) && !sigismember(&now, SIGCHLD));
}

Test(platform, discards_pending_signals_without_running_them)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR2);	/* its default action would end the test */
	sigpending(&pending);
	cr_assert(sigismember(&pending, SIGUSR2));
	platform_signals_discard(&set);
	sigpending(&pending);
	cr_assert(!sigismember(&pending, SIGUSR2));
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

#if defined(__linux__)
Test(platform, lists_proc_in_directory_batches)
{
	static char buf[1 << 16];
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char self[32];
	bool found = false;
	ssize_t n;

	cr_assert(fd >= 0);
	snprintf(self, sizeof(self), "%d", (int)getpid());
	while ((n = platform_dirents(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;)
			found |= !strcmp(platform_dirent_name(buf, &off), self);
	cr_assert_eq(n, 0);
	cr_assert(found, "/proc/%s was not listed", self);
	close(fd);
}

Test(platform, becomes_a_subreaper)
{
	struct err e;

	cr_assert_eq(platform_become_subreaper(&e), 0, "%s", e.msg);
}
#else
Test(platform, has_no_subreaper_and_no_proc_to_list)
{
	struct err e;
	char buf[64];

	cr_assert_eq(platform_become_subreaper(&e), -1);
	cr_assert(strstr(e.msg, "launchd"), "%s", e.msg);
	cr_assert_eq(platform_dirents(0, buf, sizeof(buf)), -1);
	cr_assert_eq(errno, ENOSYS);
}
#endif

static int64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void poller_contract(struct platform_poller *(*open_fn)(struct err *))
{
	struct platform_poll_event ev[8];
	struct err e = { 0 };
	struct platform_poller *p = open_fn(&e);
	int fd[2];
	int64_t t;

	cr_assert_not_null(p, "%s", e.msg);
	cr_assert_eq(pipe(fd), 0);
	cr_assert_eq(platform_poller_watch(p, fd[0], PLATFORM_POLL_IN), 0);
	/* nothing to read: the deadline, 20 ms on, is kept and not early */
	t = mono_now();
	cr_assert_eq(platform_poller_wait(p, t + 20000000, ev, 8), 0);
	cr_assert_geq(mono_now() - t, 20000000);
	/* a byte: the read end is reported, and only it */
	cr_assert_eq(write(fd[1], "x", 1), 1);
	cr_assert_eq(platform_poller_wait(p, mono_now() + 1000000000, ev, 8), 1);
	cr_assert_eq(ev[0].fd, fd[0]);
	cr_assert(ev[0].events & PLATFORM_POLL_IN);
	/* the write end, watched for output, is ready too; watching the read
	 * end for nothing removes it */
	cr_assert_eq(platform_poller_watch(p, fd[1], PLATFORM_POLL_OUT), 0);
	cr_assert_eq(platform_poller_watch(p, fd[0], 0), 0);
	cr_assert_eq(platform_poller_wait(p, mono_now() + 1000000000, ev, 8), 1);
	cr_assert_eq(ev[0].fd, fd[1]);
	cr_assert(ev[0].events & PLATFORM_POLL_OUT);
	/* a deadline already past returns at once */
	cr_assert_eq(platform_poller_watch(p, fd[1], 0), 0);
	t = mono_now();
	cr_assert_eq(platform_poller_wait(p, t - 1000, ev, 8), 0);
	cr_assert_lt(mono_now() - t, 1000000000);
	/* the peer gone: reported as an error (hang-up) with the read */
	cr_assert_eq(platform_poller_watch(p, fd[0], PLATFORM_POLL_IN), 0);
	close(fd[1]);
	cr_assert_eq(platform_poller_wait(p, mono_now() + 1000000000, ev, 8), 1);
	cr_assert(ev[0].events & PLATFORM_POLL_ERR);
	close(fd[0]);
	/* a descriptor closed while watched leaves the set; a new one with
	 * its number is watched afresh */
	cr_assert_eq(pipe(fd), 0);
	cr_assert_eq(platform_poller_watch(p, fd[0], PLATFORM_POLL_IN), 0);
	cr_assert_eq(write(fd[1], "x", 1), 1);
	cr_assert_eq(platform_poller_wait(p, mono_now() + 1000000000, ev, 8), 1);
	cr_assert_eq(ev[0].fd, fd[0]);
	close(fd[0]);
	close(fd[1]);
	/* the same deadline twice (armed once): kept both times */
	t = mono_now() + 10000000;
	cr_assert_eq(platform_poller_wait(p, t, ev, 8), 0);
	cr_assert_geq(mono_now(), t);
	cr_assert_eq(platform_poller_wait(p, t, ev, 8), 0);
	platform_poller_close(p);
}

Test(platform, poller_reports_ready_descriptors_and_keeps_its_deadline)
{
	poller_contract(platform_poller_open);
}

#if defined(__linux__)
Test(platform, poller_fallback_timerfd_keeps_the_same_contract)
{
	poller_contract(platform_poller_open_timerfd);
}
#endif

