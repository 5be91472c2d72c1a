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
#include "cli/sampler_flags.h"
#include "sampler/attest.h"
#include "sampler/metrics.h"
#include "sampler/report.h"
#include "sampler/run.h"

#define CMD "bench system-baseline"

static const char bench_usage[] = "usage: fak bench system-baseline [options] -- COMMAND [ARGS...]\n"
				  "       fak bench system-baseline --verify FILE [--log FILE]\n"
				  "       fak bench system-check [--json] [--sample DUR]\n"
				  "       fak bench experiment LEVER --baseline CMD --candidate CMD --out-dir DIR [options]";

static const char bench_about[] =
	"Benchmarks around a command. Three subcommands:\n"
	"\n"
	"  system-baseline   sample a quiet baseline window, then run COMMAND while sampling\n"
	"                    host CPU/memory and the command's whole process tree; print a\n"
	"                    sealed attestation (fak.system-baseline/v1) on stdout\n"
	"  system-check      print what on this machine would disturb a benchmark, each\n"
	"                    with the command that fixes it; exit 1 when something does\n"
	"  experiment        run a lever's interleaved A/B through the sampler, seal what each\n"
	"                    run measured, and write attested receipts, comparison and gate\n"
	"\n"
	"Run 'fak bench <subcommand> --help' for its options.";

static const char sb_usage[] =
	"usage: fak bench system-baseline [--baseline-duration 2s] [--interval 250ms]"
	" [--max-sampler-duty-percent 10] [--max-non-sut-cpu-percent 20] [--max-psi-stall-percent 5]"
	" [--require-process-memory] [--top-consumers] [--attribution auto|cgroup|subreaper|sampled]"
	" [--timeout DUR] [--out FILE] -- COMMAND [ARGS...]\n"
	"       fak bench system-baseline --verify FILE [--log FILE]";

static const char sb_about[] =
	"Samples a quiet baseline window, then runs COMMAND as a child while sampling host\n"
	"CPU and memory and the command's whole process tree, and prints a sealed attestation\n"
	"on stdout. COMMAND's own stdout and stderr go to stderr. fak exits with COMMAND's\n"
	"status (124 after --timeout, 128+N when it died of signal N); the attestation is\n"
	"written even when COMMAND fails. Durations take ms, s or m. --verify re-derives the\n"
	"verdict and the digest of a written attestation; any edited byte fails.";

struct sb_opts {
	struct sampler_flags sf;
	const char *out, *verify, *log;
};

static int usage_error(const char *msg)
{
	cli_errorf(CMD, "%s", msg);
	fprintf(stderr, "%s\n", sb_usage);
	return EXIT_USAGE;
}

/* The attestation's own checks, then with log the captured stdout. */
static int verify(const char *path, const char *log)
{
	struct attest_loaded a = ATTEST_LOADED_INIT;
	char summary[256] = "";
	struct err e;
	int rc = attest_load(path, ATTEST_VERIFIED, &a, &e);

	if (rc == 0 && log)
		rc = metrics_verify_log(a.report, log, summary, sizeof(summary), &e);
	if (rc < 0) {
		if (a.unread)
			cli_fail(CMD, &e);
		else
			cli_errorf(CMD, "verify '%s': %s", path, e.msg);
		attest_loaded_release(&a);
		return EXIT_FAIL;
	}
	printf("VALID %s%s%s\n", a.facts.digest, summary[0] ? " " : "", summary);
	attest_loaded_release(&a);
	return EXIT_OK;
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

	if ((rc = sampler_flags_apply(CMD, sb_usage, &so->sf, &ro)))
		return rc;
	if (so->out && !*so->out)
		return usage_error("--out needs a file name");
	/* before the quiet window: a run is never spent on an unusable --out */
	if (so->out && file_check_output(so->out, &e) < 0) {
		cli_errorf(CMD, "--out: %s", e.msg);
		return EXIT_FAIL;
	}
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
		SAMPLER_FLAG_OPTS(&so.sf),
		{ "top-consumers", NULL, "add up to 5 scrubbed non-SUT image+PID records", &so.sf.top_consumers,
		  NULL, NULL },
		{ "out", "FILE", "also write the attestation to FILE (atomically, mode 0600)", NULL, &so.out, NULL },
		{ "verify", "FILE", "verify a written attestation and print VALID <digest>", NULL, &so.verify, NULL },
		{ "log", "FILE", "with --verify: the run's captured stdout; its digest and metrics must match",
		  NULL, &so.log, NULL },
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
	if (so.log && !so.verify)
		return usage_error("--log goes with --verify");
	if (so.verify) {
		if (rest < argc) {
			char why[sizeof(((struct err *)0)->msg)];

			snprintf(why, sizeof(why), "--verify does not accept a command (got '%s')",
				 argv[rest]);
			return usage_error(why);
		}
		if (!*so.verify || (so.log && !*so.log))
			return usage_error("--verify and --log need a file name");
		return verify(so.verify, so.log);
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
	if (!strcmp(argv[1], "experiment"))
		return bench_experiment(argc - 1, argv + 1);
	if (!strcmp(argv[1], "system-check"))
		return bench_system_check(argc - 1, argv + 1);
	cli_errorf("bench", "unknown subcommand '%s'", argv[1]);
	fprintf(stderr, "%s\n", bench_usage);
	return EXIT_USAGE;
}
