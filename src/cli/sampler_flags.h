#ifndef FAK_CLI_SAMPLER_FLAGS_H
#define FAK_CLI_SAMPLER_FLAGS_H
/* The sampler's flags, shared by `fak bench system-baseline` and `fak bench
 * experiment`: one table, one parser, one set of messages. */
#include <stdbool.h>
#include <stdint.h>

#include "cli/opts.h"
#include "sampler/run.h"

/* --timeout when none is given: a hung command fails its run after an
 * hour instead of waiting for ever. Far above any one run we know (the
 * llama.cpp example's llama-bench run takes seconds on a laptop and under
 * two minutes on a slow shared CI host; docs/sampler.md). */
#define SAMPLER_TIMEOUT_DEFAULT_NS ((int64_t)3600 * 1000000000)

struct sampler_flags {
	const char *baseline, *interval, *timeout, *max_non_sut, *max_duty, *max_psi, *attribution;
	const char *wait_quiet, *cpus;
	bool top_consumers, require_memory;
};

/* Option table entries for the struct sampler_flags member m of the options
 * struct T, to put inside a command's table. */
#define SAMPLER_FLAG_OPTS(T, m)                                                                 \
	{ "baseline-duration", "DUR", "quiet window before each run (10ms..60s, default 2s)",      \
	  OPT_VALUE(T, m.baseline) },                                                              \
	{ "interval", "DUR", "census interval (10ms..10s, default 250ms)",                         \
	  OPT_VALUE(T, m.interval) },                                                              \
	{ "max-sampler-duty-percent", "N", "sampler duty ceiling, (0,100], default 10",           \
	  OPT_VALUE(T, m.max_duty) },                                                              \
	{ "max-non-sut-cpu-percent", "N",                                                          \
	  "non-SUT and quiet-baseline host CPU ceiling, (0,100], default 20",                      \
	  OPT_VALUE(T, m.max_non_sut) },                                                           \
	{ "max-psi-stall-percent", "N", "cgroup PSI stall ceiling, [0,100], default 5",            \
	  OPT_VALUE(T, m.max_psi) },                                                               \
	{ "require-process-memory", NULL, "census every process's RSS; unknown RSS investigates",  \
	  OPT_FLAG(T, m.require_memory) },                                                         \
	{ "attribution", "MODE", "auto (cgroup v2, else subreaper), cgroup, subreaper or sampled", \
	  OPT_VALUE(T, m.attribution) },                                                           \
	{ "timeout", "DUR", "kill the command after DUR (exit 124), default 1h, 0 none",           \
	  OPT_VALUE(T, m.timeout) },                                                               \
	{ "wait-quiet", "DUR", "while a quiet window is busy, take another, at most DUR (..24h)",  \
	  OPT_VALUE(T, m.wait_quiet) },                                                            \
	{ "cpus", "LIST", "run the command on these CPUs (cpuset), judge host CPU there",         \
	  OPT_VALUE(T, m.cpus) }
/* How many entries SAMPLER_FLAG_OPTS holds. */
#define SAMPLER_FLAG_NR 10

/* Fills the sampler's settings in *ro from the flags (defaults where a flag
 * is absent), the census limit from $FAK_CENSUS_PROCESS_LIMIT, proc_root.
 * A bad value is a usage error: printed under cmd with the usage line;
 * returns EXIT_USAGE, else 0. */
int sampler_flags_apply(const char *cmd, const char *usage, const struct sampler_flags *sf,
			struct run_opts *ro);

/* One option's value (NULL: absent, *out untouched), printed as a usage
 * error under cmd with the usage line when bad; returns EXIT_USAGE, else 0.
 * A duration within [lo, hi] (range spells it for the message); the bare
 * word "0" too when lo is 0. */
int duration_opt(const char *cmd, const char *usage, const char *name, const char *val, int64_t lo,
		 int64_t hi, const char *range, int64_t *out);
/* A percentage in (0,100], or [0,100] when zero_ok. */
int percent_opt(const char *cmd, const char *usage, const char *name, const char *val, bool zero_ok,
		double *out);

#endif
