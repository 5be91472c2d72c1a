#ifndef FAK_SAMPLER_CENSUS_H
#define FAK_SAMPLER_CENSUS_H
/* One census = one sample: host counters plus the system-under-test (SUT)
 * process tree. Everything is allocated by census_new; census_take never
 * allocates, keeps /proc descriptors open and re-reads them with pread,
 * and does a bounded amount of work (cfg.process_limit process reads). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/proc_parse.h"
#include "attestation/attestation.h"

struct census_cfg {
	const char *proc_root;		/* "/proc" or a fixture tree */
	pid_t self_pid;			/* fak: its children are SUT (root and orphans) */
	int64_t clk_tck, page_size;	/* from sysconf */
	size_t process_limit;		/* process reads per census */
	size_t table_cap;		/* processes tracked at once */
	const char *enumeration;	/* ENUM_CHILDREN (falls back to ENUM_SCAN) |
					 * ENUM_SCAN | ENUM_CGROUP */
	int cgroup_procs_fd;		/* ENUM_CGROUP: open cgroup.procs (borrowed) */
	bool track_cpu;			/* fold per-process CPU deltas (sampled coverage) */
	bool non_sut_rss;		/* read every other process's RSS each census */
	bool top_consumers;		/* keep per-process CPU at the endpoint scans */
	/* --cpus: host CPU is summed over these CPUs' lines of /proc/stat
	 * (NULL: the all-CPU line); the all-CPU line is then kept apart. */
	const unsigned char *cpu_set;	/* PP_MAX_CPUS bits, borrowed */
	size_t cpu_count;
};

/* Where the host counters come from, as the attestation names them. */
#if defined(__APPLE__)
#define CENSUS_HOST_CPU "host_processor_info busy/total delta"
#define CENSUS_MEM_TOTAL "sysctl hw.memsize"
#define CENSUS_MEM_AVAILABLE "host_statistics64 free + inactive pages"
#else
#define CENSUS_HOST_CPU "/proc/stat busy/total delta"
#define CENSUS_MEM_TOTAL "/proc/meminfo MemTotal"
#define CENSUS_MEM_AVAILABLE "/proc/meminfo MemAvailable"
#endif

enum {
	CENSUS_ENDPOINT = 1,	/* first/last census of a window: /proc/stat, PSI, process count */
	CENSUS_TREE = 2,	/* the SUT tree (command window) */
	CENSUS_CONSUMERS_FIRST = 4,
	CENSUS_CONSUMERS_LAST = 8,
};

enum { PSI_CPU, PSI_MEMORY, PSI_IO, PSI_AXES };

struct sample {
	int64_t mono_ns;		/* census start, CLOCK_MONOTONIC */
	int64_t wall_ns;		/* census duration */
	int64_t stage_host_ns, stage_tree_ns;

	bool cpu_ok;
	uint64_t cpu_total_ns, cpu_busy_ns;	/* all logical CPUs (or --cpus), since boot */
	bool cpu_all_ok;			/* with --cpus: the all-CPU line */
	uint64_t cpu_all_total_ns, cpu_all_busy_ns;
	char cpu_reason[ATTESTATION_TEXT_MAX];
	bool mem_ok;
	uint64_t mem_total, mem_available;
	char mem_reason[ATTESTATION_TEXT_MAX];
	bool count_ok;
	int64_t process_count;
	bool psi_ok[PSI_AXES];
	struct pp_psi psi[PSI_AXES];
	char psi_reason[PSI_AXES][ATTESTATION_TEXT_MAX];

	bool tree_ok;			/* the enumeration itself worked */
	bool quick;			/* no PID was allocated since the last full
					   enumeration: its members were re-read */
	int64_t members, reads, unreadable, vanished, hits, misses;
	/* members with resident memory: a zombie (exited, not reaped yet) reads
	 * 0 pages, so a tree seen only as zombies has no sampled RSS */
	int64_t rss_members;
	bool limited;			/* process_limit or table_cap reached */
	bool sut_rss_ok, non_sut_rss_ok;
	uint64_t sut_rss_bytes, non_sut_rss_bytes;
};

struct census;

/* The SUT's sampled CPU, folded member by member (cfg.track_cpu); both
 * censuses (census.c, census_darwin.c) keep one. */
struct sut_cpu {
	uint64_t ns;
	bool incomplete;
	char reason[ATTESTATION_TEXT_MAX];
};
/* Adds a member's CPU between its first and last read (reads of them) to t,
 * and starts its next span at last_ns; a member read fewer than twice makes
 * t incomplete. */
void sut_cpu_fold(struct sut_cpu *t, uint32_t *reads, uint64_t *first_ns, uint64_t last_ns);
/* t's total in *ns, or false with the reason (also when the root was never
 * seen). */
bool sut_cpu_total(struct sut_cpu *t, bool root_seen, uint64_t *ns,
		   char reason[ATTESTATION_TEXT_MAX]);

/* NULL with e set when the proc root cannot be opened. Caller frees with
 * census_free. */
struct census *census_new(const struct census_cfg *cfg, struct err *e);
void census_free(struct census *c);

/* The SUT root after fork. */
void census_set_root(struct census *c, pid_t root);

/* Whether pid is a tracked member of the SUT tree (as of the last census). */
bool census_is_sut(const struct census *c, pid_t pid);

/* Takes one census (flags: CENSUS_*) into *s. */
void census_take(struct census *c, unsigned flags, struct sample *s);

/* Switches the tree enumeration (e.g. when the child could not join its
 * cgroup). cgroup_procs_fd is used with ENUM_CGROUP only. */
void census_use_enumeration(struct census *c, const char *enumeration, int cgroup_procs_fd);

/* The enumeration actually used (ENUM_*), and why it differs from the
 * requested one ("" when it does not). Borrowed. */
const char *census_enumeration(const struct census *c);
const char *census_note(const struct census *c);

/* Sampled-tree CPU fold (cfg.track_cpu): folds every tracked SUT process,
 * then reports the SUT CPU in ns, or false with a reason. */
bool census_sampled_sut_cpu(struct census *c, uint64_t *ns, char reason[ATTESTATION_TEXT_MAX]);

/* Non-SUT consumers from the two endpoint scans, sorted by CPU, RSS, PID;
 * at most cap (<= ATTESTATION_MAX_CONSUMERS) stored. */
size_t census_consumers(struct census *c, struct consumer *out, size_t cap);

/* ---- the artifact in use ---- */

/* Bound of the maps read per process: a process with a longer map is
 * looked at up to here. */
#define CENSUS_MAPS_MAX ((size_t)4 << 20)

/* Whether a process of the SUT tree (the members of the last census) has
 * the file (dev, ino) open (/proc/PID/fd) or mapped (/proc/PID/maps): 1
 * with *pid and *how ("open" or "mapped"), 0 when none has. -1 where the OS
 * shows fak no other process's files (macOS), with why. Reads only, no
 * allocation. */
int census_file_look(struct census *c, uint64_t dev, uint64_t ino, pid_t *pid, const char **how,
		     char why[ATTESTATION_TEXT_MAX]);

#endif
