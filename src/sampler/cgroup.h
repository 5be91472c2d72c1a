#ifndef FAK_SAMPLER_CGROUP_H
#define FAK_SAMPLER_CGROUP_H
/* A cgroup v2 of its own for the command, below fak's current cgroup, when
 * that hierarchy is writable (delegated). The child joins it before exec,
 * so every descendant starts inside; cpu.stat usage_usec then counts all of
 * their CPU, memory.peak their peak (when the memory controller is on),
 * *.pressure their stalls. The cgroup's path is private: it never appears
 * in the attestation. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/proc_parse.h"
#include "attestation/attestation.h"

struct cgroup {
	bool active;
	int dir_fd;		/* the new cgroup */
	int procs_rfd;		/* cgroup.procs, read by the census */
	int procs_wfd;		/* cgroup.procs, written by the child */
	int parent_fd;		/* for rmdir */
	char name[64];
	uint64_t usage_start_us;
	bool psi_start_ok[3];
	struct pp_psi psi_start[3];
};

/* Creates the cgroup under the one of the calling process as listed in
 * proc_root/self/{mountinfo,cgroup}. On failure fills rep (state
 * "unavailable" with the reason) and returns -1; nothing is left behind. */
int cgroup_create(struct cgroup *g, const char *proc_root, struct cgroup_section *rep);

/* --cpus: confines the new cgroup to the CPUs of set (count of them,
 * written as list) through its cpuset.cpus, and checks that
 * cpuset.cpus.effective is exactly those. On failure, why (cap bytes)
 * says what is missing; nothing else changes. */
int cgroup_set_cpus(struct cgroup *g, const char *list, const unsigned char *set, size_t count,
		    char *why, size_t cap);

/* The child failed to join: record why and remove the cgroup. */
void cgroup_placement_failed(struct cgroup *g, struct cgroup_section *rep, const char *why);

/* The pids of the cgroup's members now (at most cap); 0 when unreadable. */
size_t cgroup_members(const struct cgroup *g, pid_t *out, size_t cap);

/* Right after the root exited: count the members left, then kill them
 * all (cgroup.kill, or SIGKILL to each). */
void cgroup_root_exited(struct cgroup *g, struct cgroup_section *rep);

/* After every descendant was reaped: final counters, removal, cleanup
 * record. Leaves rep measured, or unavailable with a reason. */
void cgroup_finish(struct cgroup *g, struct cgroup_section *rep);

/* The reason a cgroup was not used when the user chose another method. */
void cgroup_not_requested(struct cgroup_section *rep, const char *why);

#endif
