#include "cli/sampler_flags.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dates.h"
#include "cli/cli.h"
#include "base/proc_parse.h"
#include "sampler/proc_read.h"
#include "attestation/simulated.h"

static int usage_error(const char *cmd, const char *usage, const char *msg)
{
	cli_errorf(cmd, "%s", msg);
	opts_usage_print(stderr, usage);
	return EXIT_USAGE;
}

int duration_opt(const char *cmd, const char *usage, const char *name, const char *val, int64_t lo,
		 int64_t hi, const char *range, int64_t *out)
{
	struct err e;
	char msg[sizeof(e.msg) + 64];

	if (!val)
		return 0;
	if (!lo && !strcmp(val, "0")) {
		*out = 0;
		return 0;
	}
	if (duration_parse(val, out, &e) < 0) {
		snprintf(msg, sizeof(msg), "--%s: %s", name, e.msg);
		return usage_error(cmd, usage, msg);
	}
	if (*out < lo || *out > hi) {
		snprintf(msg, sizeof(msg), "--%s must be %s (got \"%s\")", name, range, val);
		return usage_error(cmd, usage, msg);
	}
	return 0;
}

int percent_opt(const char *cmd, const char *usage, const char *name, const char *val, bool zero_ok,
		double *out)
{
	char *end;
	double v;
	char msg[256];

	if (!val)
		return 0;
	errno = 0;
	v = strtod(val, &end);
	if (!*val || *end || errno || !isfinite(v) || v > 100 || (zero_ok ? v < 0 : v <= 0)) {
		snprintf(msg, sizeof(msg), "--%s must be a number in %s (got \"%s\")", name,
			 zero_ok ? "[0,100]" : "(0,100]", val);
		return usage_error(cmd, usage, msg);
	}
	*out = v;
	return 0;
}

/* Testing knob: $FAK_CENSUS_PROCESS_LIMIT lowers the per-census bound so a
 * modest fork storm can show the limit at work. Unset: the default. */
static int census_limit(const char *cmd, const char *usage, size_t *out)
{
	const char *v = getenv("FAK_CENSUS_PROCESS_LIMIT");
	char *end, msg[256];
	long n;

	*out = 0;
	if (!v)
		return 0;
	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < 1 || n > RUN_PROCESS_LIMIT) {
		snprintf(msg, sizeof(msg),
			 "FAK_CENSUS_PROCESS_LIMIT must be an integer in 1..%d (got \"%.64s\"); "
			 "unset it for the default",
			 RUN_PROCESS_LIMIT, v);
		return usage_error(cmd, usage, msg);
	}
	*out = (size_t)n;
	return 0;
}

int sampler_flags_apply(const char *cmd, const char *usage, const struct sampler_flags *sf,
			struct run_opts *ro)
{
	int rc;

	ro->baseline_ns = 2000000000;
	ro->interval_ns = 250000000;
	ro->timeout_ns = SAMPLER_TIMEOUT_DEFAULT_NS;
	ro->wait_quiet_ns = 0;
	policy_default(&ro->policy);
	if ((rc = duration_opt(cmd, usage, "baseline-duration", sf->baseline, 10000000, 60000000000,
			       "10ms..60s", &ro->baseline_ns)) ||
	    (rc = duration_opt(cmd, usage, "interval", sf->interval, 10000000, 10000000000,
			       "10ms..10s", &ro->interval_ns)) ||
	    (rc = duration_opt(cmd, usage, "timeout", sf->timeout, 0, 86400000000000, "0..24h",
			       &ro->timeout_ns)) ||
	    (rc = duration_opt(cmd, usage, "wait-quiet", sf->wait_quiet, 10000000,
			       ATTESTATION_WAIT_MAX_NS, "10ms..24h", &ro->wait_quiet_ns)) ||
	    (rc = percent_opt(cmd, usage, "max-non-sut-cpu-percent", sf->max_non_sut, false,
			      &ro->policy.maximum_non_sut_cpu_percent)) ||
	    (rc = percent_opt(cmd, usage, "max-sampler-duty-percent", sf->max_duty, false,
			      &ro->policy.maximum_sampler_duty_percent)) ||
	    (rc = percent_opt(cmd, usage, "max-psi-stall-percent", sf->max_psi, true,
			      &ro->policy.maximum_psi_stall_percent)) ||
	    (rc = census_limit(cmd, usage, &ro->process_limit)))
		return rc;
	ro->attribution = sf->attribution ? sf->attribution : ATTRIBUTION_AUTO;
	if (strcmp(ro->attribution, ATTRIBUTION_AUTO) &&
	    strcmp(ro->attribution, ATTRIBUTION_CGROUP) &&
	    strcmp(ro->attribution, ATTRIBUTION_SUBREAPER) &&
	    strcmp(ro->attribution, ATTRIBUTION_SAMPLED))
		return usage_error(cmd, usage,
				   "--attribution must be auto, cgroup, subreaper or sampled");
	ro->cpus = sf->cpus;
	if (sf->cpus) {
		unsigned char set[PP_MAX_CPUS / 8];
		size_t n;

		if (strlen(sf->cpus) >= ATTESTATION_CPUS_MAX ||
		    pp_cpulist(sf->cpus, strlen(sf->cpus), set, PP_MAX_CPUS, &n) < 0 || !n) {
			char msg[256];

			snprintf(msg, sizeof(msg), "--cpus takes a CPU list such as 2-3 or 0,2 "
				 "(got \"%.64s\")", sf->cpus);
			return usage_error(cmd, usage, msg);
		}
		if (!strcmp(ro->attribution, ATTRIBUTION_SUBREAPER) ||
		    !strcmp(ro->attribution, ATTRIBUTION_SAMPLED))
			return usage_error(cmd, usage, "--cpus places the command's cgroup: "
				"it needs --attribution auto or cgroup");
	}
	ro->policy.require_process_memory = sf->require_memory;
	ro->policy.include_top_consumers = sf->top_consumers;
	ro->proc_root = proc_root_default();
	simulated_from_env(&ro->simulated);
	return 0;
}
