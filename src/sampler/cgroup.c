#include "sampler/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "sampler/fold.h"
#include "sampler/proc_read.h"

#define CG_BUF ((size_t)1 << 16)
#define MOUNTINFO_CAP ((size_t)1 << 20)

static const char *const psi_files[3] = { "cpu.pressure", "memory.pressure", "io.pressure" };

static void psi_unavailable(struct psi *p, const char *why)
{
	struct psi_pair *pp[3] = { &p->cpu, &p->memory, &p->io };

	for (int i = 0; i < 3; i++) {
		metric_unavailable(&pp[i]->some_total_us, "%s", why);
		metric_unavailable(&pp[i]->full_total_us, "%s", why);
	}
}

static void all_unavailable(struct cgroup_section *rep, const char *why)
{
	memset(rep, 0, sizeof(*rep));
	attestation_copy(rep->state, sizeof(rep->state), CGROUP_UNAVAILABLE);
	attestation_copy(rep->reason, sizeof(rep->reason), why);
	metric_unavailable(&rep->members_at_root_exit, "%s", why);
	metric_unavailable(&rep->cpu_usage_us, "%s", why);
	metric_unavailable(&rep->memory_peak_bytes, "%s", why);
	psi_unavailable(&rep->pressure, why);
}

void cgroup_not_requested(struct cgroup_section *rep, const char *why)
{
	all_unavailable(rep, why);
}

static void cg_close(struct cgroup *g)
{
	int *fds[4] = { &g->dir_fd, &g->procs_rfd, &g->procs_wfd, &g->parent_fd };

	for (int i = 0; i < 4; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	g->active = false;
}

static int read_cg(const struct cgroup *g, const char *name, char *buf, size_t cap)
{
	ssize_t n = proc_read_at(g->dir_fd, name, buf, cap);

	return n < 0 ? -1 : (int)n;
}

static int read_usage(const struct cgroup *g, char *buf, uint64_t *usage)
{
	int n = read_cg(g, "cpu.stat", buf, CG_BUF);

	return n < 0 || pp_keyed_u64(buf, (size_t)n, "usage_usec", usage) != 0 ? -1 : 0;
}

static void read_psi(const struct cgroup *g, char *buf, bool ok[3], struct pp_psi psi[3])
{
	for (int i = 0; i < 3; i++) {
		int n = read_cg(g, psi_files[i], buf, CG_BUF);

		ok[i] = n >= 0 && pp_psi(buf, (size_t)n, &psi[i]) == 0;
	}
}

/* "<what>: <strerror>" as the reason; returns -1. */
static int fail(struct cgroup *g, struct cgroup_section *rep, char *buf, const char *what,
		int errnum)
{
	char why[ATTESTATION_TEXT_MAX];

	snprintf(why, sizeof(why), "%s: %s", what, strerror(errnum));
	all_unavailable(rep, why);
	cg_close(g);
	free(buf);
	return -1;
}

/* Every process of the cgroup at dir_fd: cgroup.kill, else SIGKILL to each
 * of pids (its members as last read). */
static void kill_members(int dir_fd, const int32_t *pids, size_t nr)
{
	int kfd = openat(dir_fd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	bool done = kfd >= 0 && write(kfd, "1", 1) == 1;

	if (kfd >= 0)
		close(kfd);
	for (size_t i = 0; !done && i < nr; i++)
		kill(pids[i], SIGKILL);
}

#define CG_MEMBERS_MAX 8192

#define CG_PREFIX "fak-system-baseline-"

/* A cgroup of ours whose owner is gone (fak was killed with SIGKILL): kill
 * what still runs in it, which measures nothing any more, and remove it.
 * Best effort; what cannot be removed stays for the next run. */
static void reap_stale(int parent_fd)
{
	int fd = dup(parent_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	static char buf[CG_BUF];
	static int32_t pids[CG_MEMBERS_MAX];

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid;
		int dir;

		if (strncmp(de->d_name, CG_PREFIX, strlen(CG_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(CG_PREFIX), &end, 10);
		if (*end || pid <= 0 ||
		    (pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)))
			continue;
		/* only our own: another user's (or another pid namespace's) fak
		 * is not ours to judge */
		{
			struct stat st;

			if (fstatat(parent_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
				continue;
		}
		dir = openat(parent_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			continue;
		for (int tries = 0; tries < 100; tries++) {
			ssize_t n = proc_read_at(dir, "cgroup.procs", buf, sizeof(buf));
			size_t nr = 0;
			bool more = false;

			if (n < 0 ||
			    pp_pid_list(buf, (size_t)n, pids, sizeof(pids) / sizeof(pids[0]), &nr,
					&more) < 0 ||
			    (!nr && !more))
				break;
			kill_members(dir, pids, nr);
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		}
		close(dir);
		unlinkat(parent_fd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

int cgroup_create(struct cgroup *g, const char *proc_root, struct cgroup_section *rep)
{
	char *buf = xmalloc(MOUNTINFO_CAP), rel[1024], *path;
	int rootfd, n;

	memset(g, 0, sizeof(*g));
	g->dir_fd = g->procs_rfd = g->procs_wfd = g->parent_fd = -1;
	rootfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return fail(g, rep, buf, "cgroup v2 unavailable: cannot open the proc file system",
			    errno);
	n = (int)proc_read_at(rootfd, "self/mountinfo", buf, MOUNTINFO_CAP);
	if (n < 0) {
		int saved = errno;

		close(rootfd);
		return fail(g, rep, buf, "cgroup v2 unavailable: cannot read /proc/self/mountinfo",
			    saved);
	}
	{
		char mnt[512];

		if (pp_mountinfo_cgroup2(buf, (size_t)n, mnt, sizeof(mnt)) < 0) {
			close(rootfd);
			all_unavailable(rep,
					"cgroup v2 unavailable: no cgroup2 file system is mounted");
			free(buf);
			return -1;
		}
		n = (int)proc_read_at(rootfd, "self/cgroup", buf, CG_BUF);
		close(rootfd);
		if (n < 0 || pp_cgroup_v2_path(buf, (size_t)n, rel, sizeof(rel)) < 0) {
			all_unavailable(rep, "cgroup v2 unavailable: /proc/self/cgroup has no "
					     "cgroup v2 membership");
			free(buf);
			return -1;
		}
		if (strstr(rel, "/../") ||
		    (strlen(rel) >= 3 && !strcmp(rel + strlen(rel) - 3, "/.."))) {
			all_unavailable(rep, "cgroup v2 unavailable: the current cgroup path "
					     "escapes the cgroup v2 mount");
			free(buf);
			return -1;
		}
		path = xasprintf("%s%s", mnt, rel);
	}
	g->parent_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(path);
	if (g->parent_fd < 0)
		return fail(g, rep, buf, "cgroup v2 unavailable: cannot open the current cgroup",
			    errno);
	reap_stale(g->parent_fd);
	snprintf(g->name, sizeof(g->name), CG_PREFIX "%ld", (long)getpid());
	if (mkdirat(g->parent_fd, g->name, 0755) < 0)
		return fail(g, rep, buf,
			    "cgroup v2 delegation unavailable: "
			    "cannot create a cgroup below the current one",
			    errno);
	g->active = true;
	g->dir_fd = openat(g->parent_fd, g->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dir_fd >= 0) {
		g->procs_rfd = openat(g->dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
		g->procs_wfd = openat(g->dir_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	}
	if (g->dir_fd < 0 || g->procs_rfd < 0 || g->procs_wfd < 0 ||
	    read_usage(g, buf, &g->usage_start_us) < 0) {
		int saved = errno;

		unlinkat(g->parent_fd, g->name, AT_REMOVEDIR);
		return fail(g, rep, buf,
			    "cgroup v2 unavailable: "
			    "the new cgroup lacks cgroup.procs or cpu.stat usage_usec",
			    saved);
	}
	read_psi(g, buf, g->psi_start_ok, g->psi_start);
	memset(rep, 0, sizeof(*rep));
	attestation_copy(rep->state, sizeof(rep->state), CGROUP_MEASURED);
	rep->atomic_placement = true;
	metric_unavailable(&rep->members_at_root_exit, "the command has not exited yet");
	free(buf);
	return 0;
}

static bool has_word(const char *buf, size_t n, const char *word)
{
	size_t wl = strlen(word);

	for (size_t i = 0; i + wl <= n; i++)
		if ((i == 0 || buf[i - 1] == ' ') && !memcmp(buf + i, word, wl) &&
		    (i + wl == n || buf[i + wl] == ' ' || buf[i + wl] == '\n'))
			return true;
	return false;
}

int cgroup_set_cpus(struct cgroup *g, const char *list, const unsigned char *set, size_t count,
		    char *why, size_t cap)
{
	unsigned char eff[PP_MAX_CPUS / 8];
	char buf[4096];
	size_t n_eff;
	ssize_t n = proc_read_at(g->dir_fd, "cgroup.controllers", buf, sizeof(buf) - 1);
	int fd;

	if (n < 0 || !has_word(buf, (size_t)n, "cpuset")) {
		snprintf(why, cap, "no writable cpuset controller: cgroup v2 \"cpuset\" is not "
			 "enabled below the cgroup fak runs in; add it to that cgroup's "
			 "cgroup.subtree_control (+cpuset), or drop --cpus");
		return -1;
	}
	fd = openat(g->dir_fd, "cpuset.cpus", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, list, strlen(list)) != (ssize_t)strlen(list)) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		snprintf(why, cap, "cannot write the cgroup's cpuset.cpus: %s", strerror(saved));
		return -1;
	}
	close(fd);
	n = proc_read_at(g->dir_fd, "cpuset.cpus.effective", buf, sizeof(buf) - 1);
	if (n < 0 || pp_cpulist(buf, (size_t)n, eff, PP_MAX_CPUS, &n_eff) < 0 || n_eff != count ||
	    memcmp(eff, set, sizeof(eff))) {
		snprintf(why, cap, "the cgroup's effective CPUs are not \"%s\": are they all "
			 "online and allowed to fak's cgroup?", list);
		return -1;
	}
	return 0;
}

static void remove_dir(struct cgroup *g, struct cgroup_section *rep)
{
	char buf[4096];
	int tries = 0;

	rep->cleanup.attempted = true;
	for (;;) {
		int n = read_cg(g, "cgroup.procs", buf, sizeof(buf));
		size_t nr = 0;
		bool more = false;
		int32_t pids[1];

		if (n >= 0 && pp_pid_list(buf, (size_t)n, pids, 0, &nr, &more) == 0 && !more) {
			rep->cleanup.empty = true;
			break;
		}
		if (++tries > 100) {
			snprintf(rep->cleanup.reason, sizeof(rep->cleanup.reason),
				 "the cgroup still holds processes after cleanup");
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	if (unlinkat(g->parent_fd, g->name, AT_REMOVEDIR) == 0)
		rep->cleanup.removed = true;
	else if (!rep->cleanup.reason[0])
		snprintf(rep->cleanup.reason, sizeof(rep->cleanup.reason),
			 "cannot remove the cgroup: %s", strerror(errno));
}

void cgroup_placement_failed(struct cgroup *g, struct cgroup_section *rep, const char *why)
{
	char reason[ATTESTATION_TEXT_MAX];
	struct cgroup_cleanup cl;

	snprintf(reason, sizeof(reason), "the command could not join its cgroup: %s", why);
	remove_dir(g, rep);
	cl = rep->cleanup;
	all_unavailable(rep, reason);
	rep->cleanup = cl;
	cg_close(g);
}

size_t cgroup_members(const struct cgroup *g, pid_t *out, size_t cap)
{
	static char buf[CG_BUF];
	static int32_t pids[CG_MEMBERS_MAX];
	size_t nr = 0;
	bool more = false;
	int n = read_cg(g, "cgroup.procs", buf, sizeof(buf));

	if (n < 0 || pp_pid_list(buf, (size_t)n, pids, CG_MEMBERS_MAX, &nr, &more) < 0)
		return 0;
	for (size_t i = 0; i < nr && i < cap; i++)
		out[i] = (pid_t)pids[i];
	return nr < cap ? nr : cap;
}

void cgroup_root_exited(struct cgroup *g, struct cgroup_section *rep)
{
	static char buf[CG_BUF];
	static int32_t pids[CG_MEMBERS_MAX];
	size_t nr = 0;
	bool more = false;
	int n;

	if (!g->active)
		return;
	n = read_cg(g, "cgroup.procs", buf, sizeof(buf));
	if (n < 0 ||
	    pp_pid_list(buf, (size_t)n, pids, sizeof(pids) / sizeof(pids[0]), &nr, &more) < 0) {
		metric_unavailable(&rep->members_at_root_exit, "cannot read cgroup.procs: %s",
				   n < 0 ? strerror(errno) : "malformed");
		return;
	}
	if (more) {
		metric_unavailable(&rep->members_at_root_exit, "more than %zu processes remained",
				   nr);
	} else {
		metric_set(&rep->members_at_root_exit, (double)nr,
			   "cgroup.procs after the root exited");
	}
	if (!nr)
		return;
	rep->cleanup.killed_remaining = true;
	kill_members(g->dir_fd, pids, nr);
}

void cgroup_finish(struct cgroup *g, struct cgroup_section *rep)
{
	char *buf;
	uint64_t usage = 0, peak = 0;
	bool ok[3];
	struct pp_psi psi[3];
	struct psi_pair *pp[3] = { &rep->pressure.cpu, &rep->pressure.memory, &rep->pressure.io };
	int n;

	if (!g->active)
		return;
	buf = xmalloc(CG_BUF);
	if (read_usage(g, buf, &usage) == 0 && usage >= g->usage_start_us)
		metric_set(&rep->cpu_usage_us, (double)(usage - g->usage_start_us),
			   "cgroup v2 cpu.stat usage_usec");
	else
		metric_unavailable(&rep->cpu_usage_us,
				   "cpu.stat usage_usec unreadable or regressed");
	n = read_cg(g, "memory.peak", buf, CG_BUF);
	if (n >= 0 && pp_u64_file(buf, (size_t)n, &peak) == 0)
		metric_set(&rep->memory_peak_bytes, (double)peak, "cgroup v2 memory.peak");
	else
		metric_unavailable(&rep->memory_peak_bytes,
				   "memory.peak unavailable "
				   "(the memory controller is not enabled for the cgroup)");
	read_psi(g, buf, ok, psi);
	for (int i = 0; i < 3; i++) {
		char why[ATTESTATION_TEXT_MAX], src[ATTESTATION_SOURCE_MAX];

		snprintf(why, sizeof(why), "cgroup %s unavailable", psi_files[i]);
		snprintf(src, sizeof(src), "cgroup v2 %s total delta", psi_files[i]);
		psi_pair_delta(pp[i], g->psi_start_ok[i], &g->psi_start[i], ok[i], &psi[i], src,
			       why);
	}
	free(buf);
	remove_dir(g, rep);
	if (!rep->cpu_usage_us.available) {
		attestation_copy(rep->state, sizeof(rep->state), CGROUP_UNAVAILABLE);
		attestation_copy(rep->reason, sizeof(rep->reason), rep->cpu_usage_us.reason);
	}
	cg_close(g);
}
