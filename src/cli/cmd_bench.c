/* fak bench system-baseline: option parsing, then one call into sampler/. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/dates.h"
#include "base/file.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "sampler/attest.h"
#include "sampler/proc_read.h"
#include "sampler/report.h"
#include "sampler/run.h"

#define CMD "bench system-baseline"

static const char bench_usage[] = "usage: fak bench system-baseline [options] -- COMMAND [ARGS...]\n"
				  "       fak bench system-baseline --verify FILE";

static const char bench_about[] =
	"Benchmarks around a command. One subcommand:\n"
	"\n"
	"  system-baseline   sample a quiet baseline window, then run COMMAND while sampling\n"
	"                    host CPU/memory and the command's whole process tree; print a\n"
	"                    sealed attestation (fak.system-baseline/v1) on stdout\n"
	"\n"
	"Run 'fak bench system-baseline --help' for its options.";

static const char sb_usage[] =
	"usage: fak bench system-baseline [--baseline-duration 2s] [--interval 250ms]"
	" [--max-sampler-duty-percent 10] [--max-non-sut-cpu-percent 20] [--max-psi-stall-percent 5]"
	" [--require-process-memory] [--top-consumers] [--attribution auto|cgroup|subreaper|sampled]"
	" [--timeout DUR] [--out FILE] -- COMMAND [ARGS...]\n"
	"       fak bench system-baseline --verify FILE";

static const char sb_about[] =
	"Samples a quiet baseline window, then runs COMMAND as a child while sampling host\n"
	"CPU and memory and the command's whole process tree, and prints a sealed attestation\n"
	"on stdout. COMMAND's own stdout and stderr go to stderr. fak exits with COMMAND's\n"
	"status (124 after --timeout, 128+N when it died of signal N); the attestation is\n"
	"written even when COMMAND fails. Durations take ms, s or m. --verify re-derives the\n"
	"verdict and the digest of a written attestation; any edited byte fails.";

struct sb_opts {
	const char *baseline, *interval, *timeout, *max_non_sut, *max_duty, *max_psi;
	const char *attribution, *out, *verify;
	bool top_consumers, require_memory;
};

static int usage_error(const char *msg)
{
	cli_errorf(CMD, "%s", msg);
	fprintf(stderr, "%s\n", sb_usage);
	return EXIT_USAGE;
}

/* A duration option within [lo, hi]; "0s" allowed when lo is 0. */
static int duration_opt(const char *name, const char *val, int64_t lo, int64_t hi, const char *range,
			int64_t *out)
{
	struct err e;
	char msg[sizeof(e.msg) + 64];

	if (!val)
		return 0;
	if (duration_parse(val, out, &e) < 0) {
		snprintf(msg, sizeof(msg), "--%s: %s", name, e.msg);
		return usage_error(msg);
	}
	if (*out < lo || *out > hi) {
		snprintf(msg, sizeof(msg), "--%s must be %s (got \"%s\")", name, range, val);
		return usage_error(msg);
	}
	return 0;
}

/* A percentage in (0,100], or [0,100] when zero_ok. */
static int percent_opt(const char *name, const char *val, bool zero_ok, double *out)
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
		return usage_error(msg);
	}
	*out = v;
	return 0;
}

static int verify(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct attest_facts facts;
	struct err e;
	int rc;

	if (file_read(path, ATTEST_MAX_BYTES, &sb, &e) < 0) {
		sb_release(&sb);
		return cli_fail(CMD, &e);
	}
	rc = attest_verify_bytes(sb.buf, sb.len, &facts, &e);
	sb_release(&sb);
	if (rc < 0) {
		cli_errorf(CMD, "verify '%s': %s", path, e.msg);
		return EXIT_FAIL;
	}
	printf("VALID %s\n", facts.digest);
	return EXIT_OK;
}

/* Testing knob: $FAK_CENSUS_PROCESS_LIMIT lowers the per-census bound so
 * a modest fork storm can show the limit at work. 0 = the default. */
static size_t census_limit_default(void)
{
	const char *v = getenv("FAK_CENSUS_PROCESS_LIMIT");
	char *end;
	unsigned long n;

	if (!v || !*v)
		return 0;
	n = strtoul(v, &end, 10);
	return *end || n == 0 || n > RUN_PROCESS_LIMIT ? 0 : (size_t)n;
}

static void progress(void *ctx, int64_t done, int64_t total)
{
	(void)ctx;
	if (done >= total)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "\rfak " CMD ": quiet baseline window %.1fs of %.1fs", (double)done / 1e9,
			(double)total / 1e9);
	fflush(stderr);
}

static int measure(const struct sb_opts *so, char **argv)
{
	struct run_opts ro = { .argv = argv };
	struct run_result res;
	struct report *r;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	int rc;

	ro.baseline_ns = 2000000000;
	ro.interval_ns = 250000000;
	policy_default(&ro.policy);
	if ((rc = duration_opt("baseline-duration", so->baseline, 10000000, 60000000000, "10ms..60s",
			       &ro.baseline_ns)) ||
	    (rc = duration_opt("interval", so->interval, 10000000, 10000000000, "10ms..10s", &ro.interval_ns)) ||
	    (rc = duration_opt("timeout", so->timeout, 0, 86400000000000, "0..24h", &ro.timeout_ns)) ||
	    (rc = percent_opt("max-non-sut-cpu-percent", so->max_non_sut, false,
			      &ro.policy.maximum_non_sut_cpu_percent)) ||
	    (rc = percent_opt("max-sampler-duty-percent", so->max_duty, false,
			      &ro.policy.maximum_sampler_duty_percent)) ||
	    (rc = percent_opt("max-psi-stall-percent", so->max_psi, true, &ro.policy.maximum_psi_stall_percent)))
		return rc;
	ro.attribution = so->attribution ? so->attribution : ATTRIBUTION_AUTO;
	if (strcmp(ro.attribution, ATTRIBUTION_AUTO) && strcmp(ro.attribution, ATTRIBUTION_CGROUP) &&
	    strcmp(ro.attribution, ATTRIBUTION_SUBREAPER) && strcmp(ro.attribution, ATTRIBUTION_SAMPLED))
		return usage_error("--attribution must be auto, cgroup, subreaper or sampled");
	if (so->out && !*so->out)
		return usage_error("--out needs a file name");
	/* before the quiet window: a run is never spent on an unusable --out */
	if (so->out && file_check_output(so->out, &e) < 0) {
		cli_errorf(CMD, "--out: %s", e.msg);
		return EXIT_FAIL;
	}
	ro.policy.require_process_memory = so->require_memory;
	ro.policy.include_top_consumers = so->top_consumers;
	ro.proc_root = proc_root_default();
	ro.process_limit = census_limit_default();
	if (isatty(STDERR_FILENO))
		ro.progress = progress;

	r = xmalloc(sizeof(*r));
	fflush(stdout);
	fflush(stderr);
	if (sampler_run(&ro, r, &res, &e) < 0) {
		free(r);
		return cli_fail(CMD, &e);
	}
	if (res.interrupted) {
		free(r);
		cli_errorf(CMD, "interrupted by %s; no attestation written", strsignal(res.interrupted));
		return res.exit_code;
	}
	attest_render(r, &sb);
	free(r);
	/* stdout first: if --out became unwritable during the run, the sealed
	 * attestation is still not lost */
	cli_out(sb.buf, sb.len);
	if (so->out && file_write_atomic(so->out, sb.buf, sb.len, 0600, &e) < 0) {
		sb_release(&sb);
		cli_errorf(CMD, "%s; the attestation is on standard output", e.msg);
		return EXIT_FAIL;
	}
	sb_release(&sb);
	return res.exit_code;
}

static int system_baseline(int argc, char **argv)
{
	struct sb_opts so = { 0 };
	const struct opt opts[] = {
		{ "baseline-duration", "DUR", "quiet window before the command (10ms..60s, default 2s)", NULL,
		  &so.baseline, NULL },
		{ "interval", "DUR", "census interval (10ms..10s, default 250ms)", NULL, &so.interval, NULL },
		{ "max-sampler-duty-percent", "N", "sampler duty ceiling, (0,100], default 10", NULL, &so.max_duty, NULL },
		{ "max-non-sut-cpu-percent", "N", "non-SUT and quiet-baseline host CPU ceiling, (0,100], default 20",
		  NULL, &so.max_non_sut, NULL },
		{ "max-psi-stall-percent", "N", "cgroup PSI stall ceiling, [0,100], default 5", NULL, &so.max_psi, NULL },
		{ "require-process-memory", NULL, "census every process's RSS; unknown RSS investigates",
		  &so.require_memory, NULL, NULL },
		{ "top-consumers", NULL, "add up to 5 scrubbed non-SUT image+PID records", &so.top_consumers, NULL, NULL },
		{ "attribution", "MODE", "auto (cgroup v2, else subreaper), cgroup, subreaper or sampled", NULL,
		  &so.attribution, NULL },
		{ "timeout", "DUR", "kill the command after DUR (exit 124; 0 = none, at most 24h)", NULL, &so.timeout, NULL },
		{ "out", "FILE", "also write the attestation to FILE (atomically, mode 0600)", NULL, &so.out, NULL },
		{ "verify", "FILE", "verify a written attestation and print VALID <digest>", NULL, &so.verify, NULL },
		{ 0 },
	};
	int rest;

	switch (opts_parse(CMD, sb_usage, opts, argc, argv, &rest)) {
	case OPTS_HELP:
		opts_help(stdout, sb_usage, sb_about, opts);
		return EXIT_OK;
	case OPTS_ERROR:
		return EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	if (so.verify) {
		if (rest < argc) {
			char why[sizeof(((struct err *)0)->msg)];

			snprintf(why, sizeof(why), "--verify does not accept a command (got '%s')",
				 argv[rest]);
			return usage_error(why);
		}
		if (!*so.verify)
			return usage_error("--verify needs a file name");
		return verify(so.verify);
	}
	if (rest >= argc)
		return usage_error("a command to run is required after --");
	return measure(&so, argv + rest);
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2) {
		cli_errorf("bench", "a subcommand is required");
		fprintf(stderr, "%s\n", bench_usage);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		printf("%s\n\n%s\n", bench_usage, bench_about);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "system-baseline"))
		return system_baseline(argc - 1, argv + 1);
	cli_errorf("bench", "unknown subcommand '%s'", argv[1]);
	fprintf(stderr, "%s\n", bench_usage);
	return EXIT_USAGE;
}
