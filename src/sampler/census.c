/* The per-tick census. Memory is allocated once in census_new; the tick
 * path only reads into preallocated buffers and updates a fixed table. */
#include "sampler/census.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "platform/platform.h"
#include "sampler/proc_read.h"

#define BUF_CAP ((size_t)1 << 16)	/* one kernel file or getdents batch */
#define PROC_NAME_MAX 64

struct ent {
	int32_t pid, ppid;
	uint64_t start;		/* starttime ticks; 0 until read */
	int fd;			/* PID/stat, -1 when not kept open */
	int statm_fd;		/* PID/statm, -1 when not kept open */
	int children_fd;	/* PID/task/PID/children, -1 when not kept open */
	uint32_t epoch;		/* last census that listed it */
	bool used, sut, identified;
	uint32_t cpu_reads;
	uint64_t first_cpu_ns, last_cpu_ns;
	int32_t next_free;
};

struct cons_rec {
	int32_t pid;
	uint64_t start, cpu_ns, rss;
	char comm[PP_COMM_MAX];
};

struct census {
	struct census_cfg cfg;
	int root_fd, dir_fd;		/* proc root: for openat, and for getdents */
	int stat_fd, meminfo_fd, psi_fd[PSI_AXES];
	int stat_err, meminfo_err, psi_err[PSI_AXES];
	int self_children_fd;
	int loadavg_fd;
	int32_t last_pid;		/* /proc/loadavg at the last full enumeration */
	bool last_tree_complete;	/* ... and that enumeration was complete */

	struct ent *ents;
	size_t cap, high, used;		/* high: one past the largest index ever used */
	int32_t free_head;
	int32_t *index;			/* open addressing: entry index + 1, 0 = empty */
	size_t index_mask;
	size_t fds_open, fd_budget;

	char *buf, *dents;
	int32_t *queue;			/* BFS queue / listed PIDs, process_limit + 1 */
	int32_t *pending;		/* scan: new PIDs waiting for their parent */
	struct pp_pid *pending_st;	/* ... and what their first read said */
	int32_t *all;			/* scan: every PID listed, table_cap */

	uint32_t epoch;
	int32_t root;
	char enumeration[16];
	char note[ATTESTATION_TEXT_MAX];
	bool children_probed;

	struct sut_cpu cpu;
	bool root_seen;

	struct cons_rec *cons_first, *cons_last;
	size_t nr_first, nr_last;

	bool self_exe_known;		/* census_file_look: fak's own executable */
	uint64_t self_exe_dev, self_exe_ino;
};

static int open_keep(int dirfd, const char *rel, int *err)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);

	*err = fd < 0 ? errno : 0;
	return fd;
}

/* ---- the process table -------------------------------------------------- */

static size_t hash_slot(const struct census *c, int32_t pid)
{
	return ((uint32_t)pid * 2654435761u) & c->index_mask;
}

static int32_t ent_find(const struct census *c, int32_t pid)
{
	for (size_t i = hash_slot(c, pid);; i = (i + 1) & c->index_mask) {
		int32_t x = c->index[i] - 1;

		if (x < 0)
			return -1;
		if (c->ents[x].pid == pid)
			return x;
	}
}

static int32_t ent_add(struct census *c, int32_t pid)
{
	int32_t x = c->free_head;
	struct ent *en;
	size_t i;

	/* freed entries first, then fresh ones: memory is touched as used */
	if (x >= 0)
		c->free_head = c->ents[x].next_free;
	else if (c->high < c->cap)
		x = (int32_t)c->high++;
	else
		return -1;
	en = &c->ents[x];
	memset(en, 0, sizeof(*en));
	en->used = true;
	en->pid = pid;
	en->fd = en->statm_fd = en->children_fd = -1;
	c->used++;
	for (i = hash_slot(c, pid); c->index[i]; i = (i + 1) & c->index_mask)
		;
	c->index[i] = x + 1;
	return x;
}

static void close_fd(struct census *c, int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
		c->fds_open--;
	}
}

/* Folds a SUT entry's sampled CPU before it leaves the table. */
static void fold_cpu(struct census *c, struct ent *en)
{
	if (c->cfg.track_cpu && en->sut)
		sut_cpu_fold(&c->cpu, &en->cpu_reads, &en->first_cpu_ns, en->last_cpu_ns);
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void ent_remove(struct census *c, int32_t x)
{
	struct ent *en = &c->ents[x];
	size_t i = hash_slot(c, en->pid), j;

	fold_cpu(c, en);
	close_fd(c, &en->fd);
	close_fd(c, &en->statm_fd);
	close_fd(c, &en->children_fd);
	while (c->index[i] != x + 1)
		i = (i + 1) & c->index_mask;
	c->index[i] = 0;
	for (j = (i + 1) & c->index_mask; c->index[j]; j = (j + 1) & c->index_mask) {
		size_t home = hash_slot(c, c->ents[c->index[j] - 1].pid);

		/* move j back to i unless its home lies cyclically in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			c->index[i] = c->index[j];
			c->index[j] = 0;
			i = j;
		}
	}
	en->used = false;
	en->next_free = c->free_head;
	c->free_head = x;
	c->used--;
}

/* ---- set-up ------------------------------------------------------------- */

struct census *census_new(const struct census_cfg *cfg, struct err *e)
{
	static const char *const psi_files[PSI_AXES] = { "pressure/cpu", "pressure/memory",
							 "pressure/io" };
	struct census *c = xcalloc(1, sizeof(*c));
	struct rlimit rl;
	size_t icap = 16;

	c->cfg = *cfg;
	c->root_fd = open(cfg->proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->dir_fd =
		c->root_fd < 0 ? -1 : openat(c->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->root_fd < 0 || c->dir_fd < 0) {
		err_errno(e, errno, "cannot open the proc file system");
		census_free(c);
		return NULL;
	}
	c->stat_fd = open_keep(c->root_fd, "stat", &c->stat_err);
	c->meminfo_fd = open_keep(c->root_fd, "meminfo", &c->meminfo_err);
	for (int i = 0; i < PSI_AXES; i++)
		c->psi_fd[i] = open_keep(c->root_fd, psi_files[i], &c->psi_err[i]);
	c->self_children_fd = -1;
	c->loadavg_fd = openat(c->root_fd, "loadavg", O_RDONLY | O_CLOEXEC);

	c->cap = cfg->table_cap;
	while (icap < 2 * c->cap)
		icap *= 2;
	/* calloc'd: pages stay untouched (not resident) until entries use them */
	c->ents = xcalloc(c->cap, sizeof(*c->ents));
	c->index = xcalloc(icap, sizeof(*c->index));
	c->index_mask = icap - 1;
	c->free_head = -1;
	c->buf = xmalloc(BUF_CAP);
	c->dents = xmalloc(BUF_CAP);
	c->queue = xmalloc(xmul(cfg->process_limit + 1, sizeof(*c->queue)));
	c->pending = xmalloc(xmul(cfg->process_limit + 1, sizeof(*c->pending)));
	c->pending_st = xmalloc(xmul(cfg->process_limit + 1, sizeof(*c->pending_st)));
	c->all = xmalloc(xmul(c->cap + 1, sizeof(*c->all)));
	if (cfg->top_consumers) {
		c->cons_first = xcalloc(c->cap, sizeof(*c->cons_first));
		c->cons_last = xcalloc(c->cap, sizeof(*c->cons_last));
	}
	c->fd_budget = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 96 ?
		       (size_t)(rl.rlim_cur - 96) : 0;
	attestation_copy(c->enumeration, sizeof(c->enumeration), cfg->enumeration);
	c->epoch = 1;
	return c;
}

void census_free(struct census *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->high; i++)
		if (c->ents[i].used) {
			close_fd(c, &c->ents[i].fd);
			close_fd(c, &c->ents[i].statm_fd);
			close_fd(c, &c->ents[i].children_fd);
		}
	if (c->self_children_fd >= 0)
		close(c->self_children_fd);
	if (c->loadavg_fd >= 0)
		close(c->loadavg_fd);
	if (c->stat_fd >= 0)
		close(c->stat_fd);
	if (c->meminfo_fd >= 0)
		close(c->meminfo_fd);
	for (int i = 0; i < PSI_AXES; i++)
		if (c->psi_fd[i] >= 0)
			close(c->psi_fd[i]);
	if (c->dir_fd >= 0)
		close(c->dir_fd);
	if (c->root_fd >= 0)
		close(c->root_fd);
	free(c->ents);
	free(c->index);
	free(c->buf);
	free(c->dents);
	free(c->queue);
	free(c->pending);
	free(c->pending_st);
	free(c->all);
	free(c->cons_first);
	free(c->cons_last);
	free(c);
}

void census_set_root(struct census *c, pid_t root)
{
	int32_t x;

	c->root = (int32_t)root;
	x = ent_find(c, c->root);
	if (x >= 0)
		ent_remove(c, x);	/* a stale non-SUT entry under a reused PID */
	x = ent_add(c, c->root);
	if (x >= 0)
		c->ents[x].sut = true;
}

bool census_is_sut(const struct census *c, pid_t pid)
{
	int32_t x = pid > 0 ? ent_find(c, (int32_t)pid) : -1;

	return x >= 0 && c->ents[x].used && c->ents[x].sut;
}

void census_use_enumeration(struct census *c, const char *enumeration, int cgroup_procs_fd)
{
	attestation_copy(c->enumeration, sizeof(c->enumeration), enumeration);
	c->cfg.enumeration = enumeration;
	c->cfg.cgroup_procs_fd = cgroup_procs_fd;
	c->children_probed = false;
}

const char *census_enumeration(const struct census *c)
{
	return c->enumeration;
}

const char *census_note(const struct census *c)
{
	return c->note;
}

/* ---- host counters ------------------------------------------------------ */

static void host_cpu(struct census *c, struct sample *s)
{
	struct pp_cpu cpu;
	ssize_t n;

	if (c->stat_fd < 0) {
		snprintf(s->cpu_reason, sizeof(s->cpu_reason), "cannot open /proc/stat: %s",
			 strerror(c->stat_err));
		return;
	}
	n = proc_pread_all(c->stat_fd, c->buf, BUF_CAP);
	if (n < 0) {
		snprintf(s->cpu_reason, sizeof(s->cpu_reason), "cannot read /proc/stat: %s",
			 strerror(errno));
		return;
	}
	if (c->cfg.cpu_set) {
		struct pp_cpu all;

		s->cpu_all_ok = pp_stat_cpu(c->buf, (size_t)n, &all) == 0 &&
				pp_ticks_to_ns(all.total_ticks, (uint64_t)c->cfg.clk_tck,
					       &s->cpu_all_total_ns) &&
				pp_ticks_to_ns(all.total_ticks - all.idle_ticks,
					       (uint64_t)c->cfg.clk_tck, &s->cpu_all_busy_ns);
		if (pp_stat_cpus(c->buf, (size_t)n, c->cfg.cpu_set, PP_MAX_CPUS, c->cfg.cpu_count,
				 &cpu) < 0) {
			snprintf(s->cpu_reason, sizeof(s->cpu_reason),
				 "/proc/stat lacks a valid line for a CPU of --cpus");
			return;
		}
	} else if (pp_stat_cpu(c->buf, (size_t)n, &cpu) < 0) {
		snprintf(s->cpu_reason, sizeof(s->cpu_reason), "/proc/stat has no valid cpu line");
		return;
	}
	if (!pp_ticks_to_ns(cpu.total_ticks, (uint64_t)c->cfg.clk_tck, &s->cpu_total_ns) ||
	    !pp_ticks_to_ns(cpu.total_ticks - cpu.idle_ticks, (uint64_t)c->cfg.clk_tck,
			    &s->cpu_busy_ns)) {
		snprintf(s->cpu_reason, sizeof(s->cpu_reason), "/proc/stat has no valid cpu line");
		return;
	}
	s->cpu_ok = true;
}

static void host_memory(struct census *c, struct sample *s)
{
	ssize_t n;

	if (c->meminfo_fd < 0) {
		snprintf(s->mem_reason, sizeof(s->mem_reason), "cannot open /proc/meminfo: %s",
			 strerror(c->meminfo_err));
		return;
	}
	n = proc_pread_all(c->meminfo_fd, c->buf, BUF_CAP);
	if (n < 0) {
		snprintf(s->mem_reason, sizeof(s->mem_reason), "cannot read /proc/meminfo: %s",
			 strerror(errno));
		return;
	}
	if (pp_meminfo(c->buf, (size_t)n, &s->mem_total, &s->mem_available) < 0) {
		snprintf(s->mem_reason, sizeof(s->mem_reason),
			 "/proc/meminfo lacks MemTotal or MemAvailable");
		return;
	}
	s->mem_ok = true;
}

static void host_psi(struct census *c, struct sample *s)
{
	static const char *const names[PSI_AXES] = { "cpu", "memory", "io" };

	for (int i = 0; i < PSI_AXES; i++) {
		ssize_t n;

		if (c->psi_fd[i] < 0) {
			snprintf(s->psi_reason[i], sizeof(s->psi_reason[i]),
				 "cannot open /proc/pressure/%s: %s", names[i],
				 strerror(c->psi_err[i]));
			continue;
		}
		n = proc_pread_all(c->psi_fd[i], c->buf, BUF_CAP);
		if (n < 0) {
			snprintf(s->psi_reason[i], sizeof(s->psi_reason[i]),
				 "cannot read /proc/pressure/%s: %s", names[i], strerror(errno));
			continue;
		}
		if (pp_psi(c->buf, (size_t)n, &s->psi[i]) < 0) {
			snprintf(s->psi_reason[i], sizeof(s->psi_reason[i]),
				 "/proc/pressure/%s is malformed", names[i]);
			continue;
		}
		s->psi_ok[i] = true;
	}
}

/* ---- process reads ------------------------------------------------------ */

static bool budget_ok(const struct census *c)
{
	return c->fds_open < c->fd_budget;
}

/* Reads PID/stat of entry x, or only its RSS from PID/statm when rss_only
 * and the identity is pinned by kept descriptors (statm is several times
 * cheaper for the kernel to produce). 0 read, 1 gone, -1 unreadable. */
static int read_member(struct census *c, int32_t x, struct pp_pid *st, struct sample *s,
		       bool rss_only)
{
	struct ent *en = &c->ents[x];
	char rel[PROC_NAME_MAX];
	ssize_t n;

	if (s->reads + s->unreadable + s->vanished >= (int64_t)c->cfg.process_limit) {
		s->limited = true;
		return -2;
	}
	if (rss_only && en->statm_fd >= 0 && !c->cfg.track_cpu) {
		n = proc_pread_all(en->statm_fd, c->buf, BUF_CAP);
		if (n <= 0) {
			if (n == 0)
				errno = ESRCH;
			goto failed;
		}
		if (pp_statm_resident(c->buf, (size_t)n, &st->rss_pages) < 0) {
			s->unreadable++;
			return -1;
		}
		s->hits++;
		s->reads++;
		return 0;
	}
	snprintf(rel, sizeof(rel), "%d/stat", en->pid);
	if (en->fd < 0 && budget_ok(c)) {
		en->fd = openat(c->root_fd, rel, O_RDONLY | O_CLOEXEC);
		if (en->fd < 0)
			goto failed;
		c->fds_open++;
	}
	if (en->fd >= 0 && en->statm_fd < 0 && budget_ok(c)) {
		/* opened after stat and before reading it: if the read below
		 * succeeds, the process lived when statm was opened, so both
		 * descriptors name it */
		snprintf(rel, sizeof(rel), "%d/statm", en->pid);
		en->statm_fd = openat(c->root_fd, rel, O_RDONLY | O_CLOEXEC);
		if (en->statm_fd >= 0)
			c->fds_open++;
		snprintf(rel, sizeof(rel), "%d/stat", en->pid);
	}
	n = en->fd >= 0 ? proc_pread_all(en->fd, c->buf, BUF_CAP)
			: proc_read_at(c->root_fd, rel, c->buf, BUF_CAP);
	if (n < 0)
		goto failed;
	if (n == 0) {
		errno = ESRCH;
		goto failed;
	}
	if (pp_pid_stat(c->buf, (size_t)n, st) < 0 || st->pid != en->pid) {
		s->unreadable++;
		return -1;
	}
	if (en->identified && st->starttime_ticks != en->start) {
		s->vanished++;	/* the PID now names another process */
		return 1;
	}
	if (!en->identified) {
		en->identified = true;
		en->start = st->starttime_ticks;
		s->misses++;
	} else {
		s->hits++;
	}
	en->ppid = st->ppid;
	s->reads++;
	if (c->cfg.track_cpu && en->sut) {
		uint64_t ns;

		if (pp_ticks_to_ns(st->utime_ticks + st->stime_ticks, (uint64_t)c->cfg.clk_tck,
				   &ns)) {
			if (!en->cpu_reads)
				en->first_cpu_ns = ns;
			en->last_cpu_ns = ns;
			en->cpu_reads++;
		}
	}
	return 0;
failed:
	if (proc_gone(errno)) {
		s->vanished++;
		return 1;
	}
	s->unreadable++;
	return -1;
}

/* A SUT member listed by the enumeration: track it and add its RSS.
 * *num_threads is set only when need_threads (the children walk). */
static void visit_member(struct census *c, int32_t pid, struct sample *s, bool need_threads,
			 int64_t *num_threads)
{
	int32_t x = ent_find(c, pid);
	struct pp_pid st;
	int rc;

	*num_threads = 0;
	if (x >= 0 && c->ents[x].epoch == c->epoch)
		return;		/* listed twice */
	if (x >= 0 && !c->ents[x].sut) {
		ent_remove(c, x);	/* a non-SUT PID reused by the tree */
		x = -1;
	}
	if (x < 0) {
		x = ent_add(c, pid);
		if (x < 0) {
			s->limited = true;
			return;
		}
		c->ents[x].sut = true;
	}
	c->ents[x].epoch = c->epoch;
	rc = read_member(c, x, &st, s, !need_threads);
	if (rc == 1) {
		ent_remove(c, x);
		return;
	}
	if (rc < 0)
		return;
	s->members++;
	s->rss_members += st.rss_pages > 0;
	s->sut_rss_bytes += st.rss_pages * (uint64_t)c->cfg.page_size;
	if (pid == c->root)
		c->root_seen = true;
	*num_threads = st.num_threads;
}

/* Appends the PIDs of a children (or cgroup.procs) file to the queue. */
static int list_into_queue(struct census *c, int fd, const char *rel, size_t *qlen,
			   struct sample *s)
{
	size_t room = c->cfg.process_limit - *qlen, nr;
	ssize_t n;
	bool more;

	n = fd >= 0 ? proc_pread_all(fd, c->buf, BUF_CAP)
		    : proc_read_at(c->root_fd, rel, c->buf, BUF_CAP);
	if (n < 0)
		return proc_gone(errno) ? 1 : -1;
	if (pp_pid_list(c->buf, (size_t)n, c->queue + *qlen, room, &nr, &more) < 0)
		return -1;
	*qlen += nr;
	if (more)
		s->limited = true;
	return 0;
}

static int open_children(struct census *c, int32_t pid, int *fd)
{
	char rel[PROC_NAME_MAX];

	snprintf(rel, sizeof(rel), "%d/task/%d/children", pid, pid);
	if (*fd < 0 && budget_ok(c)) {
		*fd = openat(c->root_fd, rel, O_RDONLY | O_CLOEXEC);
		if (*fd >= 0)
			c->fds_open++;
		else
			return -1;
	}
	return 0;
}

/* Children of every thread of a multi-threaded member. */
static void thread_children(struct census *c, int32_t pid, size_t *qlen, struct sample *s)
{
	char rel[PROC_NAME_MAX];
	int dfd;
	ssize_t n;

	snprintf(rel, sizeof(rel), "%d/task", pid);
	dfd = openat(c->root_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (!proc_gone(errno))
			s->unreadable++;
		return;
	}
	while ((n = platform_dirents(dfd, c->dents, BUF_CAP)) > 0) {
		for (ssize_t off = 0; off < n;) {
			const char *name = platform_dirent_name(c->dents, &off);
			char crel[PROC_NAME_MAX];

			if (name[0] < '1' || name[0] > '9')
				continue;
			snprintf(crel, sizeof(crel), "%.20s/children", name);
			{
				int cfd = openat(dfd, crel, O_RDONLY | O_CLOEXEC);
				int rc;

				if (cfd < 0) {
					if (!proc_gone(errno))
						s->unreadable++;
					continue;
				}
				rc = list_into_queue(c, cfd, NULL, qlen, s);
				close(cfd);
				if (rc < 0)
					s->unreadable++;
			}
		}
	}
	close(dfd);
}

/* Breadth-first walk from fak's own children (the root and every orphan
 * it inherited as subreaper) through PID/task/TID/children. */
static void walk_children(struct census *c, struct sample *s)
{
	char rel[PROC_NAME_MAX];
	size_t qlen = 0, head = 0;
	int rc;

	snprintf(rel, sizeof(rel), "%d/task/%d/children", (int)c->cfg.self_pid,
		 (int)c->cfg.self_pid);
	if (c->self_children_fd < 0)
		c->self_children_fd = openat(c->root_fd, rel, O_RDONLY | O_CLOEXEC);
	rc = c->self_children_fd < 0 ? -1 : list_into_queue(c, c->self_children_fd, NULL, &qlen, s);
	if (rc != 0) {
		s->tree_ok = false;
		return;
	}
	if (c->root > 0 && ent_find(c, c->root) >= 0 && qlen < c->cfg.process_limit)
		c->queue[qlen++] = c->root;	/* listed twice is harmless */
	while (head < qlen) {
		int32_t pid = c->queue[head++], x;
		int64_t threads;

		visit_member(c, pid, s, true, &threads);
		x = ent_find(c, pid);
		if (x < 0 || c->ents[x].epoch != c->epoch || threads <= 0)
			continue;
		if (threads == 1) {
			snprintf(rel, sizeof(rel), "%d/task/%d/children", pid, pid);
			open_children(c, pid, &c->ents[x].children_fd);
			rc = list_into_queue(c, c->ents[x].children_fd, rel, &qlen, s);
			if (rc < 0)
				s->unreadable++;
		} else {
			thread_children(c, pid, &qlen, s);
		}
		if (qlen >= c->cfg.process_limit)
			s->limited = true;
	}
}

static void walk_cgroup(struct census *c, struct sample *s)
{
	size_t qlen = 0;

	if (list_into_queue(c, c->cfg.cgroup_procs_fd, NULL, &qlen, s) != 0) {
		s->tree_ok = false;
		return;
	}
	for (size_t i = 0; i < qlen; i++) {
		int64_t threads;

		visit_member(c, c->queue[i], s, false, &threads);
	}
}

/* ---- whole-/proc scans -------------------------------------------------- */

static void consumer_record(struct census *c, struct cons_rec *arr, size_t *nr,
			    const struct pp_pid *st)
{
	struct cons_rec *r;
	uint64_t ns = 0;

	if (*nr >= c->cap)
		return;
	r = &arr[(*nr)++];
	r->pid = st->pid;
	r->start = st->starttime_ticks;
	r->rss = st->rss_pages * (uint64_t)c->cfg.page_size;
	if (!pp_ticks_to_ns(st->utime_ticks + st->stime_ticks, (uint64_t)c->cfg.clk_tck, &ns))
		ns = 0;
	r->cpu_ns = ns;
	memcpy(r->comm, st->comm, sizeof(r->comm));
}

/* Lists every PID under the proc root into c->all (at most cap); *count
 * counts them all. -1 when the directory cannot be read. */
static int list_all(struct census *c, size_t *nr, int64_t *count)
{
	ssize_t n;

	*nr = 0;
	*count = 0;
	if (lseek(c->dir_fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = platform_dirents(c->dir_fd, c->dents, BUF_CAP)) > 0) {
		for (ssize_t off = 0; off < n;) {
			const char *name = platform_dirent_name(c->dents, &off);
			char *end;
			long v;

			if (name[0] < '1' || name[0] > '9')
				continue;
			v = strtol(name, &end, 10);
			if (*end || v <= 0 || v > INT32_MAX)
				continue;
			(*count)++;
			if (*nr < c->cap)
				c->all[(*nr)++] = (int32_t)v;
		}
	}
	return n < 0 ? -1 : 0;
}

/* Classifies PIDs that appeared since the last census: SUT when the parent
 * is SUT, or is fak itself (orphans re-parented to the subreaper). */
static void resolve_pending(struct census *c, size_t npending, struct sample *s)
{
	size_t n = 0;
	bool progress = true;

	for (size_t i = 0; i < npending; i++) {
		int32_t x = ent_add(c, c->pending[i]);
		struct pp_pid st;

		if (x < 0) {
			s->limited = true;
			continue;
		}
		c->ents[x].epoch = c->epoch;
		if (read_member(c, x, &st, s, false) != 0) {
			ent_remove(c, x);
			continue;
		}
		close_fd(c, &c->ents[x].fd);	/* kept only for SUT members */
		close_fd(c, &c->ents[x].statm_fd);
		c->pending[n] = c->pending[i];
		c->pending_st[n++] = st;
	}
	while (progress) {
		progress = false;
		for (size_t i = 0; i < n; i++) {
			int32_t x = ent_find(c, c->pending[i]), px;

			if (x < 0 || c->ents[x].sut)
				continue;
			px = ent_find(c, c->ents[x].ppid);
			if (c->ents[x].ppid == (int32_t)c->cfg.self_pid ||
			    (px >= 0 && c->ents[px].sut && c->ents[px].epoch == c->epoch)) {
				c->ents[x].sut = true;
				progress = true;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		int32_t x = ent_find(c, c->pending[i]);
		const struct pp_pid *st = &c->pending_st[i];
		struct ent *en;
		uint64_t ns;

		if (x < 0 || !c->ents[x].sut)
			continue;
		en = &c->ents[x];
		s->members++;
		s->rss_members += st->rss_pages > 0;
		s->sut_rss_bytes += st->rss_pages * (uint64_t)c->cfg.page_size;
		if (c->cfg.track_cpu &&
		    pp_ticks_to_ns(st->utime_ticks + st->stime_ticks, (uint64_t)c->cfg.clk_tck,
				   &ns)) {
			en->first_cpu_ns = en->last_cpu_ns = ns;
			en->cpu_reads = 1;
		}
	}
}

/* The scan's listed processes: a known SUT member visited (classify), a
 * known one kept, a new one registered unread before the command starts,
 * else left pending for resolve_pending (up to the process limit); returns
 * how many are pending. */
static size_t sort_listed(struct census *c, size_t nr, struct sample *s, bool classify)
{
	size_t npending = 0;

	for (size_t i = 0; i < nr; i++) {
		int32_t pid = c->all[i], x = ent_find(c, pid);
		int64_t threads;

		if (x >= 0 && classify && c->ents[x].sut) {
			visit_member(c, pid, s, false, &threads);
		} else if (x >= 0) {
			c->ents[x].epoch = c->epoch;
		} else if (!classify) {
			/* before the command starts nothing is SUT: register unread */
			x = ent_add(c, pid);
			if (x >= 0)
				c->ents[x].epoch = c->epoch;
		} else if (npending < c->cfg.process_limit) {
			c->pending[npending++] = pid;
		} else {
			s->limited = true;
		}
	}
	return npending;
}

static int scan_all(struct census *c, unsigned flags, struct sample *s, bool tree)
{
	bool scan_mode = !strcmp(c->enumeration, ENUM_SCAN);
	bool classify = tree && scan_mode;
	bool need_stat =
		c->cfg.non_sut_rss || (flags & (CENSUS_CONSUMERS_FIRST | CENSUS_CONSUMERS_LAST));
	size_t nr, npending = 0;
	int64_t count, others = 0;
	uint64_t other_rss = 0;
	bool other_ok = true;

	if (list_all(c, &nr, &count) < 0) {
		if (classify)
			s->tree_ok = false;
		return -1;
	}
	s->count_ok = true;
	s->process_count = count;
	if ((size_t)count > nr)
		s->limited = true;
	if (scan_mode)
		npending = sort_listed(c, nr, s, classify);
	if (classify)
		resolve_pending(c, npending, s);
	if (flags & CENSUS_CONSUMERS_FIRST)
		c->nr_first = 0;
	if (flags & CENSUS_CONSUMERS_LAST)
		c->nr_last = 0;
	for (size_t i = 0; need_stat && i < nr; i++) {
		int32_t pid = c->all[i], x = ent_find(c, pid);
		char rel[PROC_NAME_MAX];
		struct pp_pid st;
		ssize_t m;

		if (x >= 0 && c->ents[x].sut)
			continue;
		if (others++ >= (int64_t)c->cfg.process_limit) {
			other_ok = false;
			break;
		}
		snprintf(rel, sizeof(rel), "%d/stat", pid);
		m = proc_read_at(c->root_fd, rel, c->buf, BUF_CAP);
		if (m < 0 || pp_pid_stat(c->buf, (size_t)m, &st) < 0) {
			if (m >= 0 || !proc_gone(errno))
				other_ok = false;
			continue;
		}
		other_rss += st.rss_pages * (uint64_t)c->cfg.page_size;
		if (flags & CENSUS_CONSUMERS_FIRST)
			consumer_record(c, c->cons_first, &c->nr_first, &st);
		if (flags & CENSUS_CONSUMERS_LAST)
			consumer_record(c, c->cons_last, &c->nr_last, &st);
	}
	if (c->cfg.non_sut_rss) {
		s->non_sut_rss_ok = other_ok && (size_t)count == nr;
		s->non_sut_rss_bytes = other_rss;
	}
	return 0;
}

/* Drops entries the enumeration no longer lists. */
static void sweep(struct census *c, bool scan_mode)
{
	for (size_t i = 0; i < c->high; i++) {
		struct ent *en = &c->ents[i];

		if (en->used && en->epoch != c->epoch && (en->sut || scan_mode))
			ent_remove(c, (int32_t)i);
	}
}

static void probe_children(struct census *c)
{
	char rel[PROC_NAME_MAX];
	int fd;

	c->children_probed = true;
	snprintf(rel, sizeof(rel), "%d/task/%d/children", (int)c->cfg.self_pid,
		 (int)c->cfg.self_pid);
	fd = openat(c->root_fd, rel, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return;
	}
	attestation_copy(c->enumeration, sizeof(c->enumeration), ENUM_SCAN);
	snprintf(c->note, sizeof(c->note),
		 "task children files are unavailable (%s); the tree is found by "
		 "scanning every process",
		 strerror(errno));
}

/* The last PID the kernel allocated (last field of /proc/loadavg). While
 * it does not move, no process or thread was created anywhere, so the SUT
 * tree can only have lost members. */
static bool last_pid(const struct census *c, int32_t *out)
{
	char buf[128];
	ssize_t n;
	long v;
	char *end;
	const char *p;

	if (c->loadavg_fd < 0)
		return false;
	n = proc_pread_all(c->loadavg_fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	p = strrchr(buf, ' ');
	if (!p)
		return false;
	v = strtol(p + 1, &end, 10);
	if (*end || v <= 0 || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

/* Re-reads the RSS of every known SUT member without enumerating. */
static void revisit(struct census *c, struct sample *s)
{
	for (size_t i = 0; i < c->high; i++) {
		struct ent *en = &c->ents[i];
		struct pp_pid st;
		int rc;

		if (!en->used || !en->sut)
			continue;
		en->epoch = c->epoch;
		rc = read_member(c, (int32_t)i, &st, s, true);
		if (rc == 1) {
			ent_remove(c, (int32_t)i);
			continue;
		}
		if (rc < 0)
			continue;
		s->members++;
		s->rss_members += st.rss_pages > 0;
		s->sut_rss_bytes += st.rss_pages * (uint64_t)c->cfg.page_size;
		if (en->pid == c->root)
			c->root_seen = true;
	}
}

void census_take(struct census *c, unsigned flags, struct sample *s)
{
	int64_t t0, t1, t2;
	bool tree = flags & CENSUS_TREE;
	bool scan_mode, scanned = false, have_pid = false;
	int32_t pid = 0;

	memset(s, 0, sizeof(*s));
	t0 = platform_mono_ns();
	s->mono_ns = t0;
	if (flags & CENSUS_ENDPOINT) {
		host_cpu(c, s);
		host_psi(c, s);
	}
	host_memory(c, s);
	t1 = platform_mono_ns();

	if (!c->children_probed && !strcmp(c->enumeration, ENUM_CHILDREN))
		probe_children(c);
	scan_mode = !strcmp(c->enumeration, ENUM_SCAN);
	c->epoch++;
	s->tree_ok = true;
	if (tree)
		have_pid = last_pid(c, &pid);
	s->quick = have_pid && pid == c->last_pid && c->last_tree_complete;
	if (tree && s->quick)
		revisit(c, s);
	else if (tree && !strcmp(c->enumeration, ENUM_CHILDREN))
		walk_children(c, s);
	else if (tree && !strcmp(c->enumeration, ENUM_CGROUP))
		walk_cgroup(c, s);
	if ((tree && scan_mode && !s->quick) || (flags & CENSUS_ENDPOINT) || c->cfg.non_sut_rss)
		scanned = scan_all(c, flags, s, tree) == 0;
	if (s->tree_ok && (tree || (scan_mode && scanned)))
		sweep(c, scan_mode && scanned);
	s->sut_rss_ok = tree && s->tree_ok && !s->limited && s->unreadable == 0;
	if (tree) {
		if (!s->quick)
			c->last_pid = pid;
		c->last_tree_complete = have_pid && s->sut_rss_ok;
	}
	t2 = platform_mono_ns();
	s->stage_host_ns = t1 - t0;
	s->stage_tree_ns = t2 - t1;
	s->wall_ns = t2 - t0;
}

bool census_sampled_sut_cpu(struct census *c, uint64_t *ns, char reason[ATTESTATION_TEXT_MAX])
{
	for (size_t i = 0; i < c->high; i++)
		if (c->ents[i].used && c->ents[i].sut)
			fold_cpu(c, &c->ents[i]);
	return sut_cpu_total(&c->cpu, c->root_seen, ns, reason);
}

static int cons_cmp(const void *a, const void *b)
{
	const struct consumer *x = a, *y = b;

	if (x->cpu_seconds != y->cpu_seconds)
		return x->cpu_seconds > y->cpu_seconds ? -1 : 1;
	if (x->rss_bytes != y->rss_bytes)
		return x->rss_bytes > y->rss_bytes ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static const struct cons_rec *cons_find(const struct cons_rec *arr, size_t n, int32_t pid,
					uint64_t start)
{
	for (size_t i = 0; i < n; i++)
		if (arr[i].pid == pid && arr[i].start == start)
			return &arr[i];
	return NULL;
}

static void cons_put(struct consumer *all, size_t *n, const struct cons_rec *r,
		     const struct cons_rec *first)
{
	struct consumer *k = &all[(*n)++];

	memset(k, 0, sizeof(*k));
	attestation_scrub_image(r->comm, k->image);
	k->pid = r->pid;
	k->rss_available = true;
	k->rss_bytes = (double)(first && first->rss > r->rss ? first->rss : r->rss);
	if (first && r != first && r->cpu_ns >= first->cpu_ns) {
		k->cpu_available = true;
		k->cpu_seconds = (double)(r->cpu_ns - first->cpu_ns) / 1e9;
	}
}

size_t census_consumers(struct census *c, struct consumer *out, size_t cap)
{
	struct consumer *all;
	size_t n = 0;

	if (!c->cons_first)
		return 0;
	all = xcalloc(c->nr_first + c->nr_last + 1, sizeof(*all));
	for (size_t i = 0; i < c->nr_last; i++) {
		const struct cons_rec *r = &c->cons_last[i];
		int32_t x = ent_find(c, r->pid);

		if (x >= 0 && c->ents[x].sut)
			continue;
		cons_put(all, &n, r, cons_find(c->cons_first, c->nr_first, r->pid, r->start));
	}
	for (size_t i = 0; i < c->nr_first; i++) {
		const struct cons_rec *r = &c->cons_first[i];

		if (r->pid == c->root || cons_find(c->cons_last, c->nr_last, r->pid, r->start))
			continue;
		cons_put(all, &n, r, NULL);
	}
	qsort(all, n, sizeof(*all), cons_cmp);
	if (n > cap)
		n = cap;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

/* ---- the artifact in use ------------------------------------------------ */

static bool fd_names(struct census *c, int32_t pid, uint64_t dev, uint64_t ino)
{
	char rel[PROC_NAME_MAX];
	int fd;
	bool found = false;
	ssize_t n;

	snprintf(rel, sizeof(rel), "%d/fd", pid);
	fd = openat(c->root_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (!found && (n = platform_dirents(fd, c->dents, BUF_CAP)) > 0) {
		for (ssize_t off = 0; off < n && !found;) {
			const char *name = platform_dirent_name(c->dents, &off);
			struct stat st;

			if (name[0] == '.')
				continue;
			/* follows the link: the file the descriptor names */
			found = fstatat(fd, name, &st, 0) == 0 && (uint64_t)st.st_dev == dev &&
				(uint64_t)st.st_ino == ino;
		}
	}
	close(fd);
	return found;
}

static bool maps_name(struct census *c, int32_t pid, uint64_t dev, uint64_t ino)
{
	char rel[PROC_NAME_MAX];
	size_t have = 0, total = 0;
	int fd;
	bool found = false;

	snprintf(rel, sizeof(rel), "%d/maps", pid);
	fd = openat(c->root_fd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (!found && total < CENSUS_MAPS_MAX) {
		ssize_t n = read(fd, c->buf + have, BUF_CAP - have);
		char *p = c->buf, *end, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		end = c->buf + have + n;
		while (!found && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			struct pp_map m;

			found = pp_maps_line(p, (size_t)(nl - p), &m) == 0 && m.inode == ino &&
				m.dev_major == major((dev_t)dev) &&
				m.dev_minor == minor((dev_t)dev);
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have == BUF_CAP)
			have = 0;	/* a line longer than the buffer: skip it */
		memmove(c->buf, p, have);
	}
	close(fd);
	return found;
}

/* A fork of fak that has not exec'd yet: its descriptors are fak's own (the
 * census keeps thousands open), nothing of the command's. */
static bool is_fak(struct census *c, int32_t pid)
{
	char rel[PROC_NAME_MAX];
	struct stat st;

	if (!c->self_exe_known) {
		c->self_exe_known = true;
		if (fstatat(c->root_fd, "self/exe", &st, 0) == 0) {
			c->self_exe_dev = (uint64_t)st.st_dev;
			c->self_exe_ino = (uint64_t)st.st_ino;
		}
	}
	snprintf(rel, sizeof(rel), "%d/exe", pid);
	return c->self_exe_ino && fstatat(c->root_fd, rel, &st, 0) == 0 &&
	       (uint64_t)st.st_dev == c->self_exe_dev && (uint64_t)st.st_ino == c->self_exe_ino;
}

int census_file_look(struct census *c, uint64_t dev, uint64_t ino, pid_t *pid, const char **how,
		     char why[ATTESTATION_TEXT_MAX])
{
	(void)why;
	for (size_t x = 0; x < c->high; x++) {
		const struct ent *en = &c->ents[x];

		if (!en->used || !en->sut || is_fak(c, en->pid))
			continue;
		if (fd_names(c, en->pid, dev, ino)) {
			*pid = en->pid;
			*how = "open";
			return 1;
		}
		if (maps_name(c, en->pid, dev, ino)) {
			*pid = en->pid;
			*how = "mapped";
			return 1;
		}
	}
	return 0;
}
