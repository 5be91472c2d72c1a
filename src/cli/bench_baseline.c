/* fak bench system-baseline: option parsing, then one call into sampler/ (the
 * subcommands of `fak bench` are a table in cli.c). */
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
#include "cli/command.h"
#include "cli/opts.h"
#include "cli/sampler_flags.h"
#include "attestation/attest.h"
#include "workload/metrics.h"
#include "attestation/attestation.h"
#include "sampler/run.h"

#define CMD "bench system-baseline"

static const char sb_usage[] =
	"usage: fak bench system-baseline [--baseline-duration 2s] [--interval 250ms]"
	" [--max-sampler-duty-percent 10] [--max-non-sut-cpu-percent 20]"
	" [--max-psi-stall-percent 5]"
	" [--require-process-memory] [--top-consumers]"
	" [--attribution auto|cgroup|subreaper|sampled]"
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

enum { SB_TOP = SAMPLER_FLAG_NR, SB_OUT, SB_VERIFY, SB_LOG };

#define SB(m) struct sb_opts, m
static const struct opt sb_opts[] = {
	SAMPLER_FLAG_OPTS(struct sb_opts, sf),
	[SB_TOP] = { "top-consumers", NULL, "add up to 5 scrubbed non-SUT image+PID records",
		     OPT_FLAG(SB(sf.top_consumers)) },
	[SB_OUT] = { "out", "FILE", "also write the attestation to FILE (atomically, mode 0600)",
		     OPT_VALUE(SB(out)) },
	[SB_VERIFY] = { "verify", "FILE", "verify a written attestation and print VALID <digest>",
			OPT_VALUE(SB(verify)) },
	[SB_LOG] = { "log", "FILE",
		     "with --verify: the run's captured stdout; its digest and metrics must match",
		     OPT_VALUE(SB(log)) },
	{ 0 },
};
_Static_assert(sizeof(sb_opts) / sizeof(sb_opts[0]) == SB_LOG + 2, "SAMPLER_FLAG_NR is right");
#undef SB

/* --log is --verify's */
static const struct cmd_rule sb_rules[] = {
	{ CMD_RULE_ALL, OPT_BIT(SB_LOG), 0, OPT_BIT(SB_VERIFY), "--log goes with --verify" },
	{ 0 },
};

static int bench_system_baseline(int argc, char **argv);

const struct cmd_spec bench_system_baseline_spec = { .usage = sb_usage, .about = sb_about,
						     .opts = sb_opts, .rules = sb_rules,
						     .run = bench_system_baseline };

static int usage_error(const char *msg)
{
	return cmd_usage_error(CMD, &bench_system_baseline_spec, msg);
}

/* The attestation's own checks, then with log the captured stdout. */
static int verify(const char *path, const char *log)
{
	struct attestation_loaded a = ATTESTATION_LOADED_INIT;
	char summary[256] = "";
	struct err e;
	int rc = attestation_load(path, ATTESTATION_VERIFIED, &a, &e);

	if (rc == 0 && log)
		rc = metrics_verify_log(a.att, log, summary, sizeof(summary), &e);
	if (rc < 0) {
		if (a.unread)
			cli_fail(CMD, &e);
		else
			cli_errorf(CMD, "verify '%s': %s", path, e.msg);
		attestation_loaded_release(&a);
		return EXIT_FAIL;
	}
	printf("VALID %s%s%s\n", a.facts.digest, summary[0] ? " " : "", summary);
	if (a.facts.simulated[0])
		printf("SIMULATED %s: sealed while a test variable pointed the sampler at fake "
		       "files; not evidence of a host (attach, compare, gate and promotion "
		       "refuse it)\n", a.facts.simulated);
	attestation_loaded_release(&a);
	return EXIT_OK;
}

/* Why --wait-quiet rejected the last window ("" before the first). */
struct sb_progress {
	char waiting[160];
};

static void progress(void *ctx, int64_t done, int64_t total)
{
	const struct sb_progress *p = ctx;

	if (done >= total)
		fputs("\r\033[K", stderr);
	else if (p->waiting[0])
		fprintf(stderr, "\r\033[Kfak " CMD ": waiting for a quiet window (%s): %.1fs of "
			"%.1fs", p->waiting, (double)done / 1e9, (double)total / 1e9);
	else
		fprintf(stderr, "\rfak " CMD ": quiet baseline window %.1fs of %.1fs",
			(double)done / 1e9, (double)total / 1e9);
	fflush(stderr);
}

static void waiting(void *ctx, const char *why)
{
	struct sb_progress *p = ctx;

	snprintf(p->waiting, sizeof(p->waiting), "%s", why);
}

/* A wait that ran out is said, with what kept the host from being quiet. */
static void wait_ran_out(const struct attestation *r)
{
	char why[256];

	if (!r->has_quiet_wait || r->quiet_wait.quiet_found)
		return;
	attestation_quiet_wait_why(r, why, sizeof(why));
	cli_errorf(CMD, "--wait-quiet %gs ran out: the command ran after a window that was not "
		   "quiet (%s)", (double)r->quiet_wait.limit_ns / 1e9, why);
}

/* Processes the command left running, which the sampler killed: the
 * attestation counts them; say so, with their names. */
static void leftovers_said(const struct attestation *r, const struct run_leftovers *l)
{
	int64_t n = r->coverage.descendants_killed_after_root_exit;
	struct strbuf names = STRBUF_INIT;

	if (n <= 0)
		return;
	run_leftovers_text(l, &names);
	cli_errorf(CMD, "%lld process%s still running when the command exited, killed%s%s "
		   "(the attestation's coverage.descendants_killed_after_root_exit); a benchmark "
		   "should wait for what it starts", (long long)n, n == 1 ? " was" : "es were",
		   names.len ? ": " : "", names.buf);
	sb_release(&names);
}

static int measure(const struct sb_opts *so, char **argv)
{
	struct run_opts ro = { .argv = argv };
	struct sb_progress sp = { .waiting = "" };
	struct run_result res;
	struct attestation *r;
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
	if (isatty(STDERR_FILENO)) {
		ro.progress = progress;
		ro.waiting = waiting;
		ro.progress_ctx = &sp;
	}

	r = xmalloc(sizeof(*r));
	fflush(stdout);
	fflush(stderr);
	if (sampler_run(&ro, r, &res, &e) < 0) {
		free(r);
		return cli_fail(CMD, &e);
	}
	if (res.interrupted) {
		free(r);
		cli_errorf(CMD, "interrupted by %s; no attestation written",
			   strsignal(res.interrupted));
		return res.exit_code;
	}
	wait_ran_out(r);
	leftovers_said(r, &res.leftovers);
	attestation_render(r, &sb);
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

static int bench_system_baseline(int argc, char **argv)
{
	struct sb_opts so = { 0 };
	int rest, rc;

	if ((rc = cmd_parse(CMD, &bench_system_baseline_spec, &so, argc, argv, &rest)) >= 0)
		return rc;
	if ((rc = cmd_rules_check(CMD, &bench_system_baseline_spec,
				  opts_given(sb_opts, &so))) >= 0)
		return rc;
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
