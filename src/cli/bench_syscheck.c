/* fak bench system-check: option parsing, one call into sampler/syscheck. */
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "cli/cli.h"
#include "cli/command.h"
#include "cli/opts.h"
#include "cli/sampler_flags.h"
#include "render/syscheck.h"
#include "sampler/proc_read.h"
#include "sampler/syscheck.h"

#define CMD "bench system-check"

static const char sc_usage[] =
    "usage: fak bench system-check [--json] [--sample 1s] [--max-non-sut-cpu-percent 20]"
    " [--max-psi-stall-percent 5]";

static const char sc_about[] =
    "Reads this machine and prints what would disturb a benchmark, one finding per line\n"
    "with the command that fixes it: CPU governor, boost/turbo, SMT, isolated CPUs, load,\n"
    "pressure, host CPU and the top consumers over a short sample, transparent huge\n"
    "pages, swap and ASLR. It never changes the machine. Exit 0 when nothing disturbs,\n"
    "1 when something does (advice and unknown findings do not fail the check).\n"
    "--sample 0 judges host CPU since boot and each process since it started.";

struct sc_opts {
	const char *sample, *busy, *psi;
	bool json;
};

static const struct opt opts[] = {
	{ "json", NULL, "print a JSON document (" SYSCHECK_SCHEMA ")",
	  OPT_FLAG(struct sc_opts, json) },
	{ "sample", "DUR", "window for host CPU and consumers (0..60s, default 1s)",
	  OPT_VALUE(struct sc_opts, sample) },
	{ "max-non-sut-cpu-percent", "N", "host CPU ceiling, (0,100], default 20",
	  OPT_VALUE(struct sc_opts, busy) },
	{ "max-psi-stall-percent", "N", "PSI avg10 ceiling, [0,100], default 5",
	  OPT_VALUE(struct sc_opts, psi) },
	{ 0 },
};

static int bench_system_check(int argc, char **argv);

const struct cmd_spec bench_system_check_spec = { .usage = sc_usage, .about = sc_about,
						  .opts = opts, .run = bench_system_check };

static int bench_system_check(int argc, char **argv)
{
	struct syscheck_opts so;
	struct syscheck_result res;
	struct strbuf sb = STRBUF_INIT;
	struct sc_opts o = { 0 };
	const char *sample, *busy, *psi;
	struct err e;
	int rest, rc;

	if ((rc = cmd_parse(CMD, &bench_system_check_spec, &o, argc, argv, &rest)) >= 0)
		return rc;
	sample = o.sample;
	busy = o.busy;
	psi = o.psi;
	if (rest < argc) {
		cli_errorf(CMD, "unexpected argument '%s'", argv[rest]);
		opts_usage_print(stderr, sc_usage);
		return EXIT_USAGE;
	}
	syscheck_defaults(&so);
	so.proc_root = proc_root_default();
	so.sys_root = sys_root_default();
	if ((rc = duration_opt(CMD, sc_usage, "sample", sample, 0, SYSCHECK_SAMPLE_MAX_NS, "0..60s",
			       &so.sample_ns)) ||
	    (rc = percent_opt(CMD, sc_usage, "max-non-sut-cpu-percent", busy, false,
			      &so.max_busy_percent)) ||
	    (rc = percent_opt(CMD, sc_usage, "max-psi-stall-percent", psi, true,
			      &so.max_psi_percent)))
		return rc;
	if (syscheck_run(&so, &res, &e) < 0)
		return cli_fail(CMD, &e);
	if (o.json) {
		cli_out_json(syscheck_to_json(&res));
	} else {
		syscheck_render_text(&res, &sb);
		cli_out(sb.buf, sb.len);
		sb_release(&sb);
	}
	return res.counts[SYSCHECK_DISTURBS] ? EXIT_FAIL : EXIT_OK;
}
