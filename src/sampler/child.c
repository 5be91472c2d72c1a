#include "sampler/child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#ifdef __linux__	/* clone3 into a cgroup */
#include <linux/sched.h>
#include <sys/syscall.h>
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform/platform.h"

static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

int child_resolve(const char *name, char *out, size_t cap, struct err *e)
{
	const char *path, *p;
	int denied = 0;

	if (!*name)
		return err_set(e, "cannot run '': command not found");
	if (strchr(name, '/')) {
		int rc = executable(name);

		if (rc < 0)
			return err_errno(e, -rc, "cannot run '%s'", name);
		if (strlen(name) >= cap)
			return err_set(e, "cannot run '%s': path too long", name);
		memcpy(out, name, strlen(name) + 1);
		return 0;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p++) {
		const char *colon = strchr(p, ':');
		size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
		int n = snprintf(out, cap, "%.*s%s%s", (int)dlen, p, dlen ? "/" : "", name);

		if (n > 0 && (size_t)n < cap) {
			int rc = executable(out);

			if (rc == 0)
				return 0;
			if (rc == -EACCES)
				denied = 1;
		}
		if (!colon)
			break;
		p = colon;
	}
	if (denied)
		return err_errno(e, EACCES, "cannot run '%s'", name);
	return err_set(e, "cannot run '%s': command not found", name);
}

int child_become_subreaper(struct err *e)
{
	return platform_become_subreaper(e);
}

/* Status messages from the child before exec. */
struct child_msg {
	int stage;	/* 1: cgroup placement failed (not fatal), 2: exec failed */
	int err;
};

static void send_msg(int fd, int stage, int err)
{
	struct child_msg m = { stage, err };
	ssize_t n = write(fd, &m, sizeof(m));

	(void)n;
}

/* In the child: fd becomes target (a descriptor of fak's, or by default
 * fallback). Returns -1 with errno set. */
static int redirect(int fd, int target, int fallback)
{
	if (fd < 0)
		fd = fallback;
	if (fd < 0 || fd == target)
		return fd == target ? fcntl(fd, F_SETFD, 0) : 0;
	return dup2(fd, target) < 0 ? -1 : 0;
}

/* fork(), but born in the cgroup at dir_fd when dir_fd >= 0 and the kernel
 * can (clone3 with CLONE_INTO_CGROUP, Linux 5.7): joining by a write to
 * cgroup.procs after fork migrates a running process, which waits for an
 * RCU grace period, 10 to 20 ms of every run on the development VM. When
 * clone3 is refused (an older kernel, a seccomp filter, a cgroup the
 * kernel will not place into) this is plain fork() and the child joins by
 * the write as before: the command runs inside the cgroup either way.
 * The raw clone3 child skips glibc's fork handlers; it only calls
 * async-signal-safe functions until it execs, as after fork(). */
static pid_t spawn_into(int dir_fd, bool *born_in)
{
	*born_in = false;
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	if (dir_fd >= 0) {
		struct clone_args ca = { .exit_signal = SIGCHLD, .cgroup = (uint64_t)dir_fd,
					 .flags = CLONE_INTO_CGROUP };
		long r = syscall(SYS_clone3, &ca, sizeof(ca));

		if (r >= 0) {
			*born_in = true;
			return (pid_t)r;
		}
	}
#else
	(void)dir_fd;
#endif
	return fork();
}

int child_spawn(struct child *ch, const char *path, char *const argv[], const sigset_t *child_mask,
		const struct child_stdio *io, int cgroup_dir_fd, int cgroup_procs_fd,
		char *placement_err, size_t placement_cap, struct err *e)
{
	pid_t parent = getpid();
	int pfd[2];
	pid_t pid;
	struct child_msg m;
	ssize_t n;
	int exec_err = 0;
	bool born_in;

	memset(ch, 0, sizeof(*ch));
	if (placement_cap)
		placement_err[0] = '\0';
	if (platform_pipe_cloexec(pfd) < 0)
		return err_errno(e, errno, "cannot create a pipe");
	pid = spawn_into(cgroup_dir_fd, &born_in);
	if (born_in)
		cgroup_procs_fd = -1;	/* nothing to join */
	if (pid < 0) {
		int saved = errno;

		close(pfd[0]);
		close(pfd[1]);
		return err_errno(e, saved, "cannot fork");
	}
	if (pid == 0) {
		close(pfd[0]);
		sigprocmask(SIG_SETMASK, child_mask, NULL);
		/* Dies with fak where the OS can (platform_child_prepare). */
		if (platform_child_prepare(parent) < 0)
			_exit(127);
		/* stderr first: the default stdout is a copy of fak's stderr */
		if (redirect(io->err, STDERR_FILENO, -1) < 0 ||
		    redirect(io->out, STDOUT_FILENO, STDERR_FILENO) < 0 ||
		    redirect(io->in, STDIN_FILENO, -1) < 0) {
			/* never run the command with the wrong streams */
			send_msg(pfd[1], 2, errno);
			_exit(127);
		}
		if (cgroup_procs_fd >= 0 && write(cgroup_procs_fd, "0", 1) != 1)
			send_msg(pfd[1], 1, errno);
		execv(path, argv);
		send_msg(pfd[1], 2, errno);
		_exit(127);
	}
	close(pfd[1]);
	ch->pid = pid;
	while ((n = read(pfd[0], &m, sizeof(m))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(m))
			break;
		if (m.stage == 1 && placement_cap)
			snprintf(placement_err, placement_cap, "%s", strerror(m.err));
		if (m.stage == 2)
			exec_err = m.err;
	}
	close(pfd[0]);
	if (exec_err) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		ch->pid = 0;
		return err_errno(e, exec_err, "cannot run '%s'", argv[0]);
	}
	return 0;
}

static void forget_killed(struct child *ch, pid_t pid)
{
	for (size_t i = 0; i < ch->nr_killed; i++)
		if (ch->killed_pids[i] == pid) {
			ch->killed_pids[i] = ch->killed_pids[--ch->nr_killed];
			return;
		}
}

bool child_reap(struct child *ch)
{
	for (;;) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, WNOHANG, &ru);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return false;	/* ECHILD: nothing left */
		if (pid == 0)
			return true;
		ch->reaped++;
		ch->reaped_cpu_us +=
			(uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec +
			(uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
		if (ru.ru_maxrss > 0 && (uint64_t)ru.ru_maxrss > ch->max_rss_kib)
			ch->max_rss_kib = (uint64_t)ru.ru_maxrss;
		forget_killed(ch, pid);
		if (pid == ch->pid) {
			ch->exited = true;
			ch->status = status;
		}
	}
}

static void wait_sigchld(struct platform_signals *sig, int64_t timeout_ns)
{
	if (platform_signals_wait(sig, timeout_ns)) {
		struct platform_signal got[8];

		/* SIGCHLD only: the reap loop does the work */
		(void)platform_signals_take(sig, got, 8);
	}
}

void child_cleanup(struct child *ch, struct platform_signals *sig, int64_t deadline_ns)
{
	static pid_t live[CHILD_KILLED_MAX];

	platform_kill_group(ch->pid);
	while (child_reap(ch)) {
		size_t n = platform_children(getpid(), live, CHILD_KILLED_MAX);

		if (platform_mono_ns() > deadline_ns) {
			ch->unreaped = (int64_t)(n ? n : 1);
			return;
		}
		for (size_t i = 0; i < n; i++) {
			bool known = false;

			for (size_t k = 0; k < ch->nr_killed; k++)
				known |= ch->killed_pids[k] == live[i];
			if (kill(live[i], SIGKILL) == 0 && !known) {
				ch->killed++;
				if (ch->nr_killed < CHILD_KILLED_MAX)
					ch->killed_pids[ch->nr_killed++] = live[i];
			}
		}
		wait_sigchld(sig, 10000000);
	}
}
