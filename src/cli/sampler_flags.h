#ifndef FAK_CLI_SAMPLER_FLAGS_H
#define FAK_CLI_SAMPLER_FLAGS_H
/* The sampler's flags, shared by `fak bench system-baseline` and `fak bench
 * experiment`: one table, one parser, one set of messages. */
#include <stdbool.h>

#include "cli/opts.h"
#include "sampler/run.h"

struct sampler_flags {
	const char *baseline, *interval, *timeout, *max_non_sut, *max_duty, *max_psi, *attribution;
	bool top_consumers, require_memory;
};

/* Option table entries for *sf, to put inside a command's table. */
#define SAMPLER_FLAG_OPTS(sf)                                                                         \
	{ "baseline-duration", "DUR", "quiet window before each run (10ms..60s, default 2s)", NULL,       \
	  &(sf)->baseline, NULL },                                                                    \
	{ "interval", "DUR", "census interval (10ms..10s, default 250ms)", NULL, &(sf)->interval, NULL }, \
	{ "max-sampler-duty-percent", "N", "sampler duty ceiling, (0,100], default 10", NULL,         \
	  &(sf)->max_duty, NULL },                                                                    \
	{ "max-non-sut-cpu-percent", "N",                                                             \
	  "non-SUT and quiet-baseline host CPU ceiling, (0,100], default 20", NULL,                  \
	  &(sf)->max_non_sut, NULL },                                                                 \
	{ "max-psi-stall-percent", "N", "cgroup PSI stall ceiling, [0,100], default 5", NULL,         \
	  &(sf)->max_psi, NULL },                                                                     \
	{ "require-process-memory", NULL, "census every process's RSS; unknown RSS investigates",     \
	  &(sf)->require_memory, NULL, NULL },                                                        \
	{ "attribution", "MODE", "auto (cgroup v2, else subreaper), cgroup, subreaper or sampled",    \
	  NULL, &(sf)->attribution, NULL },                                                           \
	{ "timeout", "DUR", "kill the command after DUR (exit 124; 0 = none, at most 24h)", NULL,     \
	  &(sf)->timeout, NULL }

/* Fills the sampler's settings in *ro from the flags (defaults where a flag
 * is absent), the census limit from $FAK_CENSUS_PROCESS_LIMIT, proc_root.
 * A bad value is a usage error: printed under cmd with the usage line;
 * returns EXIT_USAGE, else 0. */
int sampler_flags_apply(const char *cmd, const char *usage, const struct sampler_flags *sf,
			struct run_opts *ro);

#endif
