/* The census on macOS, where there is no /proc: the same interface as
 * census.c (census.h), over platform.h alone. Host CPU time and memory come
 * from platform_host (mach), the SUT tree from platform_children
 * (proc_listchildpids) walked down from fak, each member's CPU time and
 * resident memory from platform_proc (proc_pid_rusage). What macOS does not
 * give is sealed as unavailable with its reason, never as zero: pressure
 * stall information, the host's process count, other processes' memory and
 * the top consumers. The Makefile builds it instead of census.c on macOS;
 * `make cross-check` compiles it and links it into the macOS fak. It has
 * not run on a Mac yet (docs/platforms.md). */
#include "sampler/census.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "platform/platform.h"

struct dent {
	pid_t pid;
	uint32_t epoch;		/* last census that listed it */
	bool sut;
	uint32_t cpu_reads;
	uint64_t first_cpu_ns, last_cpu_ns;
};

struct census {
	struct census_cfg cfg;
	char enumeration[16];
	struct dent *ents;
	size_t nr, cap;
	pid_t *queue, *kids;
	pid_t root;
	bool root_seen;
	uint32_t epoch;
	struct sut_cpu cpu;
};

static const char darwin_note[] =
	"macOS: the tree is listed with proc_listchildpids from fak down, each member read with "
	"proc_pid_rusage; orphans re-parented to launchd are not seen";

struct census *census_new(const struct census_cfg *cfg, struct err *e)
{
	struct census *c = xcalloc(1, sizeof(*c));

	(void)e;	/* nothing to open: every read is a call */
	c->cfg = *cfg;
	c->cap = cfg->table_cap;
	c->ents = xcalloc(c->cap, sizeof(*c->ents));
	c->queue = xmalloc(xmul(cfg->process_limit + 1, sizeof(*c->queue)));
	c->kids = xmalloc(xmul(cfg->process_limit + 1, sizeof(*c->kids)));
	attestation_copy(c->enumeration, sizeof(c->enumeration), ENUM_CHILDREN);
	c->epoch = 1;
	return c;
}

void census_free(struct census *c)
{
	if (!c)
		return;
	free(c->ents);
	free(c->queue);
	free(c->kids);
	free(c);
}

static struct dent *find(struct census *c, pid_t pid)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->ents[i].pid == pid)
			return &c->ents[i];
	return NULL;
}

/* Folds a SUT entry's sampled CPU before it leaves the table. */
static void fold_cpu(struct census *c, struct dent *en)
{
	if (c->cfg.track_cpu && en->sut)
		sut_cpu_fold(&c->cpu, &en->cpu_reads, &en->first_cpu_ns, en->last_cpu_ns);
}

void census_set_root(struct census *c, pid_t root)
{
	c->root = root;
}

bool census_is_sut(const struct census *c, pid_t pid)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->ents[i].pid == pid)
			return c->ents[i].sut;
	return false;
}

void census_use_enumeration(struct census *c, const char *enumeration, int cgroup_procs_fd)
{
	(void)c;	/* one way to list the tree on macOS */
	(void)enumeration;
	(void)cgroup_procs_fd;
}

const char *census_enumeration(const struct census *c)
{
	return c->enumeration;
}

const char *census_note(const struct census *c)
{
	(void)c;
	return darwin_note;
}

static void host(struct sample *s, bool endpoint)
{
	static const char no_psi[] = "macOS has no pressure stall information (PSI)";
	struct platform_host h;
	struct err e;

	for (int i = 0; i < PSI_AXES; i++)
		attestation_copy(s->psi_reason[i], ATTESTATION_TEXT_MAX, no_psi);
	if (platform_host(&h, &e) < 0) {
		attestation_copy(s->cpu_reason, ATTESTATION_TEXT_MAX, e.msg);
		attestation_copy(s->mem_reason, ATTESTATION_TEXT_MAX, e.msg);
		return;
	}
	if (endpoint && h.cpu_ok) {
		s->cpu_ok = true;
		s->cpu_total_ns = h.cpu_total_ns;
		s->cpu_busy_ns = h.cpu_busy_ns;
	} else if (endpoint) {
		attestation_copy(s->cpu_reason, ATTESTATION_TEXT_MAX,
				 "host_processor_info did not report the CPU load");
	}
	if (h.available_ok) {
		s->mem_ok = true;
		s->mem_total = h.memory_bytes;
		s->mem_available = h.memory_available_bytes;
	} else {
		attestation_copy(s->mem_reason, ATTESTATION_TEXT_MAX,
				 "host_statistics64 did not report the free pages");
	}
}

/* Reads one SUT member; false when it is gone or unreadable. */
static bool read_member(struct census *c, pid_t pid, struct sample *s)
{
	struct platform_proc p;
	struct dent *en = find(c, pid);

	if (platform_proc(pid, &p) < 0) {
		if (errno == ESRCH)
			s->vanished++;
		else
			s->unreadable++;
		return false;
	}
	s->reads++;
	s->members++;
	if (p.resident_bytes) {
		s->rss_members++;
		s->sut_rss_bytes += p.resident_bytes;
	}
	if (pid == c->root)
		c->root_seen = true;
	if (!en && c->nr < c->cap) {
		en = &c->ents[c->nr++];
		memset(en, 0, sizeof(*en));
		en->pid = pid;
		en->sut = true;
		en->first_cpu_ns = p.cpu_ns;
	}
	if (!en) {
		s->limited = true;
		return true;
	}
	en->epoch = c->epoch;
	en->last_cpu_ns = p.cpu_ns;
	en->cpu_reads++;
	return true;
}

/* Breadth first from fak: its children are the SUT (the root), theirs too. */
static void walk(struct census *c, struct sample *s)
{
	size_t head = 0, tail = 0, limit = c->cfg.process_limit;
	size_t n = platform_children(c->cfg.self_pid, c->queue, limit);

	tail = n;
	while (head < tail) {
		pid_t pid = c->queue[head++];

		if (!read_member(c, pid, s))
			continue;
		n = platform_children(pid, c->kids, limit);
		for (size_t i = 0; i < n; i++) {
			if (tail == limit) {
				s->limited = true;
				break;
			}
			c->queue[tail++] = c->kids[i];
		}
	}
	/* members not listed this time have exited: fold them and forget them */
	for (size_t i = 0; i < c->nr;) {
		if (c->ents[i].epoch == c->epoch) {
			i++;
			continue;
		}
		fold_cpu(c, &c->ents[i]);
		c->ents[i] = c->ents[--c->nr];
	}
}

void census_take(struct census *c, unsigned flags, struct sample *s)
{
	int64_t t0, t1, t2;
	bool tree = flags & CENSUS_TREE;

	memset(s, 0, sizeof(*s));
	t0 = platform_mono_ns();
	s->mono_ns = t0;
	host(s, flags & CENSUS_ENDPOINT);
	t1 = platform_mono_ns();
	c->epoch++;
	s->tree_ok = true;
	if (tree)
		walk(c, s);
	s->sut_rss_ok = tree && !s->limited && s->unreadable == 0;
	t2 = platform_mono_ns();
	s->stage_host_ns = t1 - t0;
	s->stage_tree_ns = t2 - t1;
	s->wall_ns = t2 - t0;
}

bool census_sampled_sut_cpu(struct census *c, uint64_t *ns, char reason[ATTESTATION_TEXT_MAX])
{
	for (size_t i = 0; i < c->nr; i++)
		fold_cpu(c, &c->ents[i]);
	return sut_cpu_total(&c->cpu, c->root_seen, ns, reason);
}

size_t census_consumers(struct census *c, struct consumer *out, size_t cap)
{
	(void)c;	/* no scan of every process on macOS yet */
	(void)out;
	(void)cap;
	return 0;
}

int census_file_look(struct census *c, uint64_t dev, uint64_t ino, pid_t *pid, const char **how,
		     char why[ATTESTATION_TEXT_MAX])
{
	(void)c;
	(void)dev;
	(void)ino;
	(void)pid;
	(void)how;
	/* proc_pidinfo(PROC_PIDLISTFDS) lists another process's descriptors
	 * only to root, and no public call lists its mapped files: an
	 * unprivileged fak cannot see the model in use (docs/platforms.md) */
	attestation_copy(why, ATTESTATION_TEXT_MAX,
			 "macOS shows an unprivileged process no other process's open or mapped "
			 "files");
	return -1;
}
