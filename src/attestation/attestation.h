#ifndef FAK_ATTESTATION_ATTESTATION_H
#define FAK_ATTESTATION_ATTESTATION_H
/* The system-baseline attestation as plain C values. The sampler fills one,
 * attestation_classify() derives the findings and the verdict from its figures,
 * attestation_seal() computes the digest, attestation_to_json() renders it in the
 * documented key order; attestation_decode() is the strict inverse used by
 * attestation_check(). docs/sampler.md describes every field. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "base/json.h"
#include "attestation/gpu_section.h"
#include "attestation/metric.h"
#include "attestation/simulated.h"
#include "attestation/workload.h"

#define ATTESTATION_MAX_CONSUMERS 5
#define ATTESTATION_MAX_FINDINGS 28	/* the rules raise at most 24 at once */
#define ATTESTATION_IMAGE_MAX 64
#define ATTESTATION_TIME_MAX 40


struct window {
	char started_at_utc[ATTESTATION_TIME_MAX];	/* RFC 3339, "" when no samples */
	char ended_at_utc[ATTESTATION_TIME_MAX];
	int64_t duration_ns;	/* last sample - first sample */
	int64_t sample_interval_ns;
	int64_t samples;
};

struct psi_pair {
	struct metric some_total_us, full_total_us;	/* deltas over the window */
};

struct psi {
	struct psi_pair cpu, memory, io;
};

struct host_totals {
	struct metric cpu_percent;	/* of all logical CPUs */
	struct metric memory_total_bytes;
	struct metric memory_available_bytes;	/* minimum sampled */
	struct metric process_count;	/* maximum at the window endpoints */
	struct psi pressure;		/* /proc/pressure files */
};

struct overhead {
	int64_t counted_samples;	/* samples - 1: the final endpoint is not counted */
	int64_t wall_ns;		/* census wall time of the counted samples */
	struct metric duty_percent;	/* wall_ns / window duration * 100 */
	int64_t effective_cadence_ns;
	int64_t stage_host_counters_ns, stage_process_census_ns;
	int64_t stable_identity_cache_hits, stable_identity_cache_misses;
	bool coverage_limited;		/* the cadence controller hit its maximum */
	int64_t process_cpu_ns;		/* fak's own CPU time over the window */
};

#define COVERAGE_SUBREAPER "exact_subreaper_rusage"
#define COVERAGE_CGROUP "exact_cgroup_v2"
#define COVERAGE_SAMPLED "sampled_pid_ppid_tree"

#define ENUM_CHILDREN "task_children"
#define ENUM_CGROUP "cgroup_procs"
#define ENUM_SCAN "proc_scan"

struct coverage {
	int64_t process_snapshots;	/* censuses whose tree enumeration succeeded */
	int64_t processes_observed;	/* sum over censuses of SUT members seen */
	int64_t process_reads;		/* successful member reads */
	int64_t process_unreadable;	/* failed reads other than "process exited" */
	int64_t process_vanished;	/* members that exited between listing and read */
	int64_t host_cpu_samples, host_memory_samples;
	int64_t sut_root_pid;
	char descendant_attribution[32];	/* COVERAGE_*, "" without command samples */
	char process_enumeration[16];		/* ENUM_*, "" without command samples */
	int64_t census_process_limit;	/* member reads allowed per census */
	bool census_limited;		/* some census hit that limit */
	int64_t descendants_reaped;	/* processes fak reaped (root included) */
	int64_t descendants_killed_after_root_exit;
	int64_t descendants_unreaped;	/* still present after cleanup */
	int64_t clock_ticks_per_second;	/* sysconf(_SC_CLK_TCK) */
	int64_t page_size_bytes;	/* sysconf(_SC_PAGESIZE) */
	char process_enumeration_note[ATTESTATION_TEXT_MAX];	/* "" = omitted */
};

struct attribution {
	struct metric sut_cpu_percent_of_host;
	struct metric non_sut_cpu_percent_of_host;
	struct metric sut_rss_bytes;
	struct metric non_sut_rss_bytes;
	struct metric sut_cpu_seconds;
};

struct cgroup_cleanup {
	bool attempted, killed_remaining, empty, removed;
	char reason[ATTESTATION_TEXT_MAX];	/* "" = omitted */
};

#define CGROUP_MEASURED "measured"
#define CGROUP_UNAVAILABLE "unavailable"

struct cgroup_section {
	char state[16];			/* CGROUP_MEASURED | CGROUP_UNAVAILABLE */
	char reason[ATTESTATION_TEXT_MAX];	/* set iff unavailable */
	bool atomic_placement;
	struct metric members_at_root_exit;	/* processes */
	struct metric cpu_usage_us;		/* cpu.stat usage_usec delta */
	struct metric memory_peak_bytes;	/* memory.peak */
	struct psi pressure;			/* cgroup *.pressure deltas */
	struct cgroup_cleanup cleanup;
};

struct consumer {
	char image[ATTESTATION_IMAGE_MAX];
	int64_t pid;
	double cpu_seconds;
	double rss_bytes;
	bool cpu_available, rss_available;
};

struct policy {
	int64_t minimum_baseline_samples;
	int64_t minimum_samples;
	double maximum_non_sut_cpu_percent;
	double maximum_sampler_duty_percent;
	double maximum_psi_stall_percent;
	int64_t minimum_census_interval_ns;
	int64_t maximum_census_interval_ns;
	bool require_host_cpu, require_sut_cpu, require_process_memory;
	bool include_top_consumers;
};

/* --wait-quiet: the quiet windows rejected before the one the command ran
 * after (docs/sampler.md). A window is rejected when its host CPU exceeds
 * the non-SUT ceiling, as BASELINE_HOST_CPU_HIGH would say, or (when
 * psi_stall_judged) its host's PSI stall, the largest of cpu, memory and io,
 * exceeds the PSI ceiling that CPU_/MEMORY_/IO_PSI_STALL_HIGH judge the
 * command's cgroup by. */
#define ATTESTATION_MAX_REJECTED 64
#define ATTESTATION_WAIT_MAX_NS ((int64_t)86400 * 1000000000)

struct rejected_window {
	char started_at_utc[ATTESTATION_TIME_MAX];
	int64_t duration_ns;
	double host_cpu_percent;
	/* The host's largest PSI stall over the window and its axis ("cpu",
	 * "memory", "io"); 0 and "" when it was 0, unknown or not judged. */
	double psi_stall_percent;
	char psi_stall_axis[8];
};

struct quiet_wait {
	int64_t limit_ns;	/* the --wait-quiet DUR */
	int64_t waited_ns;	/* first window's start to the accepted window's start */
	bool quiet_found;	/* the accepted window is quiet (else the wait ran out) */
	/* windows were judged on their host PSI stall too (false in waits
	 * sealed before fak judged it: host CPU alone) */
	bool psi_stall_judged;
	struct rejected_window rejected[ATTESTATION_MAX_REJECTED];
	size_t nr_rejected;
};

/* --cpus: the command's cgroup is confined to these CPUs, and host CPU
 * (quiet window, non-SUT) is judged on them; the whole host is information. */
#define ATTESTATION_CPUS_MAX 64

struct cpus_report {
	char list[ATTESTATION_CPUS_MAX];	/* as given: "2-3" */
	int64_t count;
	struct metric baseline_all_cpus_percent, command_all_cpus_percent;
};

struct finding {
	char code[40];
	char detail[ATTESTATION_DETAIL_MAX];
};

struct attestation {
	char verdict[16];
	struct window baseline_window;
	struct host_totals baseline_host_totals;
	struct overhead baseline_sampler;
	struct window command_window;
	struct overhead command_sampler;
	struct coverage coverage;
	struct host_totals host_totals;
	struct attribution attribution;
	struct cgroup_section cgroup_v2;
	struct consumer consumers[ATTESTATION_MAX_CONSUMERS];
	size_t nr_consumers;
	struct policy policy;
	struct finding findings[ATTESTATION_MAX_FINDINGS];
	size_t nr_findings;
	int64_t command_exit_code;	/* 124 after a timeout, 128+N after signal N */
	int64_t command_signal;		/* N, or 0 */
	bool timed_out;
	/* Schema v2 only: what `fak bench experiment` measured from the run's
	 * own output (attestation/workload.h). */
	bool has_workload;
	struct workload workload;
	/* With --wait-quiet only: the key is absent otherwise. */
	bool has_quiet_wait;
	struct quiet_wait quiet_wait;
	/* With --cpus only: the key is absent otherwise. */
	bool has_cpus;
	struct cpus_report cpus;
	/* The test seams set when it was sealed (attestation/simulated.h); the key
	 * is absent when none was. */
	struct simulated simulated;
	char digest[JSON_DIGEST_LEN + 1];
	/* The GPU section (attestation/gpu_section.h); absent from documents sealed before
	 * fak read GPUs, present (if only as "unreadable") in every new one.
	 * Last, so that an attestation without GPU devices never touches the device
	 * array (about 100 KB): the sampler's RSS is a headline figure. */
	bool has_gpu;
	struct gpu_section gpu;
};

/* ---- building ------------------------------------------------------- */

/* Default policy: 2 samples, 20 % non-SUT, 10 % duty, 5 % PSI,
 * 10 ms .. 1 s census, host and SUT CPU required. */
void policy_default(struct policy *p);
/* 0 when every threshold is in its range (see docs/sampler.md). */
int policy_check(const struct policy *p, struct err *e);

void metric_set(struct metric *m, double value, const char *source);
void metric_unavailable(struct metric *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Copies at most cap-1 bytes and NUL-terminates. A longer src is never cut
 * silently: the copy ends with "..." (on a UTF-8 character boundary). */
void attestation_copy(char *dst, size_t cap, const char *src);

/* Executable image reduced to its last path element; "unknown" for "",
 * "." or "/", "scrubbed" when the element is not scrubbed text (base/text.h:
 * an account, an address...). Backslashes count as separators. */
void attestation_scrub_image(const char *image, char out[ATTESTATION_IMAGE_MAX]);

/* PSI stall percent of a pair over a window: the larger of some and full;
 * -1 when neither is available or the window has no duration. */
double attestation_psi_stall_percent(const struct psi_pair *p, int64_t duration_ns);
/* The largest stall of the three axes (attestation_psi_stall_percent) in
 * *pct and its axis name ("cpu", "memory", "io"); NULL and -1 when no axis
 * is available. */
const char *attestation_psi_worst(const struct psi *p, int64_t duration_ns, double *pct);
/* --wait-quiet's rule for one quiet window: quiet unless its host CPU is
 * known and above the non-SUT ceiling, or its PSI stall (psi_pct, -1 when
 * unknown or not judged) is above the PSI ceiling; a window whose host CPU
 * is unknown is quiet. */
bool attestation_window_quiet(const struct policy *p, bool cpu_known, double cpu_pct,
			      double psi_pct);
/* Why a window is not quiet by that rule (cpu_pct and psi_pct -1 when
 * unknown; axis names the PSI stall's): "host CPU 100.00% is above the
 * 20.00% ceiling", "io PSI stall 80.00% is above the 5.00% ceiling", or
 * both joined by " and "; "" when it is quiet. */
void attestation_window_why(const struct policy *p, double cpu_pct, double psi_pct,
			    const char *axis, char *out, size_t cap);
/* Why the window the command ran after was not quiet (r has a quiet_wait
 * whose quiet_found is false): "host CPU 100.00% is above the 20.00%
 * ceiling", "io PSI stall 80.00% is above the 5.00% ceiling", or both. */
void attestation_quiet_wait_why(const struct attestation *r, char *out, size_t cap);

/* Whether a finding code makes the verdict invalid (else investigate). */
bool attestation_code_invalidates(const char *code);

/* Recomputes r->findings and r->verdict from the recorded figures and the
 * policy. The same function serves building and verification. */
void attestation_classify(struct attestation *r);
/* Rules every sealed attestation must satisfy besides its findings: counts,
 * window arithmetic, duty recomputation, coverage consistency, consumers. */
int attestation_validate(const struct attestation *r, struct err *e);
/* Fills r->digest. */
int attestation_seal(struct attestation *r, struct err *e);

/* New reference; keys in the documented order. with_digest false leaves the
 * digest member out (the form that is hashed). */
json_t *attestation_to_json(const struct attestation *r, bool with_digest);
/* Strict decode of a document (borrowed) into r: every key known, every
 * type right, metric shape consistent. Errors carry the JSON path. */
int attestation_decode(const json_t *doc, struct attestation *r, struct err *e);

#endif
