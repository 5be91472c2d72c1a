#ifndef FAK_SAMPLER_FOLD_H
#define FAK_SAMPLER_FOLD_H
/* Folding samples into an attestation. Samples are folded as they are taken
 * (nothing is stored per sample), then fold_attestation() turns the two
 * windows and the run's facts into a classified, sealed attestation. Pure:
 * unit tests feed it synthetic samples. */
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "sampler/census.h"
#include "attestation/attestation.h"

/* The adaptive census cadence: the next interval keeps the census at 80 %
 * of the duty ceiling (interval >= cost * 125 / max_duty), never below the
 * configured interval; above the maximum it clamps and flags overload. */
struct cadence {
	int64_t min_ns, max_ns;
	double max_duty_percent;
};
/* Returns the next interval; *overloaded when the clamp was needed. */
int64_t cadence_next(const struct cadence *c, int64_t cost_ns, bool *overloaded);

struct fold {
	int64_t n;
	struct sample first, last;
	int64_t last_cadence_ns;
	bool last_overloaded;
	/* contributions of every sample but the last */
	int64_t wall_ns, stage_host_ns, stage_tree_ns, hits, misses;
	int64_t effective_cadence_ns;
	bool coverage_limited;
	/* host */
	bool mem_seen;
	uint64_t mem_total, mem_min_available;
	bool count_seen;
	int64_t max_count;
	int64_t host_cpu_samples, host_memory_samples;
	/* the SUT tree (command window) */
	int64_t tree_censuses, snapshots, observed, reads, unreadable, vanished;
	int64_t rss_observed;	/* members with memory to read (not zombies) */
	bool census_limited;
	bool sut_rss_complete;
	uint64_t sut_rss_peak;
	int64_t non_sut_censuses;
	bool non_sut_complete;
	uint64_t non_sut_peak;
	int64_t process_cpu_ns;		/* fak's own CPU over the window */
};

void fold_init(struct fold *f);
/* Adds one sample; cadence_ns/overloaded are what the cadence controller
 * decided after that census. tree: the census included the SUT tree. */
void fold_add(struct fold *f, const struct sample *s, int64_t cadence_ns, bool overloaded,
	      bool tree);

/* Host CPU busy percent over the fold's endpoints; false when unknown. */
bool fold_host_cpu_percent(const struct fold *f, double *pct);
/* Host PSI total deltas (/proc/pressure) over the fold's endpoints, as the
 * attestation's host totals hold them. */
void fold_host_psi(const struct fold *f, struct psi *out);

/* PSI total deltas between two readings of one file: some and full each
 * available (source) or not (why, or a "line unavailable" reason). */
void psi_pair_delta(struct psi_pair *out, bool ok0, const struct pp_psi *a, bool ok1,
		    const struct pp_psi *b, const char *source, const char *why);

struct fold_input {
	const struct fold *baseline, *command;
	int64_t real0_ns, mono0_ns;	/* a CLOCK_REALTIME / CLOCK_MONOTONIC pair */
	int64_t interval_ns;
	struct policy policy;
	const char *coverage;		/* COVERAGE_* */
	const char *enumeration;	/* ENUM_* */
	const char *note;		/* "" for none */
	int64_t census_limit;
	int64_t clk_tck, page_size;
	bool sut_cpu_ok;
	uint64_t sut_cpu_ns;
	const char *sut_cpu_source;	/* when ok */
	const char *sut_cpu_reason;	/* when not */
	bool non_sut_rss_censused;	/* every census read every other process */
	int64_t root_pid;
	int64_t reaped, killed, unreaped;
	struct cgroup_section cgroup;
	struct consumer consumers[ATTESTATION_MAX_CONSUMERS];
	size_t nr_consumers;
	int64_t exit_code, signal;
	bool timed_out;
	const struct workload *workload;	/* NULL: a v1 attestation */
	const struct quiet_wait *quiet_wait;	/* NULL: no --wait-quiet */
	const char *cpus_list;			/* NULL: no --cpus */
	size_t cpus_count;
	const struct gpu_section *gpu;		/* NULL: no GPU section */
	const struct simulated *simulated;	/* NULL: nothing simulated */
};

/* Builds, classifies and seals *r. */
int fold_attestation(struct attestation *r, const struct fold_input *in, struct err *e);

#endif
