/* fak bench system-check: option parsing, one call into sampler/syscheck. */
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/sampler_flags.h"
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

int bench_system_check(int argc, char **argv)
{
	struct syscheck_opts so;
	struct syscheck_result res;
	struct strbuf sb = STRBUF_INIT;
	const char *sample = NULL, *busy = NULL, *psi = NULL;
	bool json = false;
	const struct opt opts[] = {
	    {"json", NULL, "print a JSON document (" SYSCHECK_SCHEMA ")", &json, NULL, NULL},
	    {"sample", "DUR", "window for host CPU and consumers (0..60s, default 1s)", NULL,
	     &sample, NULL},
	    {"max-non-sut-cpu-percent", "N", "host CPU ceiling, (0,100], default 20", NULL, &busy,
	     NULL},
	    {"max-psi-stall-percent", "N", "PSI avg10 ceiling, [0,100], default 5", NULL, &psi,
	     NULL},
	    {0},
	};
	struct err e;
	int rest, rc;

	switch (opts_parse(CMD, sc_usage, opts, argc, argv, &rest)) {
	case OPTS_HELP:
		opts_help(stdout, sc_usage, sc_about, opts);
		return EXIT_OK;
	case OPTS_ERROR:
		return EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	if (rest < argc) {
		cli_errorf(CMD, "unexpected argument '%s'", argv[rest]);
		fprintf(stderr, "%s\n", sc_usage);
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
	if (json) {
		cli_out_json(syscheck_to_json(&res));
	} else {
		syscheck_render_text(&res, &sb);
		cli_out(sb.buf, sb.len);
		sb_release(&sb);
	}
	return res.counts[SYSCHECK_DISTURBS] ? EXIT_FAIL : EXIT_OK;
}
