#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "cli/command.h"
#include "render/escape.h"

static int version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("fak " FAK_VERSION "\n", stdout);
	return EXIT_OK;
}

static int man(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_doc_man(stdout);
	return EXIT_OK;
}

static int completion(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "bash")) {
		cli_errorf(NULL, "--completion takes one shell: bash");
		return EXIT_USAGE;
	}
	cli_doc_bash(stdout);
	return EXIT_OK;
}

/* The commands' specs, each defined (with its handler) in its command's one
 * file: the only declarations of them (command.h says how to add one). */
extern const struct cmd_spec np_spec;			/* np.c */
extern const struct cmd_spec bench_system_baseline_spec;	/* bench_baseline.c */
extern const struct cmd_spec bench_system_check_spec;	/* bench_syscheck.c */
extern const struct cmd_spec bench_experiment_spec;	/* bench_experiment.c */
extern const struct cmd_spec bench_trace_spec;		/* bench_serve.c */
extern const struct cmd_spec bench_serve_spec;		/* bench_serve.c */

/* The subcommands of `fak bench`, each once: dispatch, `fak bench --help`,
 * the list in `fak --help`, the man page and the completion. */
const struct command bench_commands[] = {
	{ "system-baseline", NULL, "sample system load around a benchmark command",
	  "[options] -- COMMAND [ARGS...]\n--verify FILE [--log FILE]", &bench_system_baseline_spec,
	  NULL },
	{ "system-check", NULL, "what on this machine would disturb a benchmark",
	  "[--json] [--sample DUR]", &bench_system_check_spec, NULL },
	{ "experiment", NULL, "one lever's A/B: sealed runs, receipts, comparison, gate",
	  "LEVER --baseline CMD --candidate CMD --out-dir DIR [options]", &bench_experiment_spec,
	  NULL },
	{ "trace", NULL, "write or check a serving arrival trace (seeded, canonical)",
	  "(--rate R [--burstiness B] | --concurrency C) [options]\n--check FILE",
	  &bench_trace_spec, NULL },
	{ "serve", NULL, "replay a trace against a local OpenAI-compatible server",
	  "--endpoint URL --trace FILE [options]\n--from-log FILE [options]", &bench_serve_spec,
	  NULL },
	{ 0 },
};

static int bench(int argc, char **argv)
{
	return cmd_dispatch("bench", bench_commands, argc, argv);
}

/* Every command once. Entries without a help line are not listed in the
 * usage: --version, and the generators of the man page and the bash
 * completion that `make` installs. */
const struct command cli_commands[] = {
	{ "native-performance", NULL, "evidence graph, receipts, gate, profiles, front door", NULL,
	  &np_spec, NULL },
	{ "bench", bench, "benchmarks around a command", NULL, NULL, bench_commands },
	{ "--version", version, NULL, NULL, NULL, NULL },
	{ "--man", man, NULL, NULL, NULL, NULL },
	{ "--completion", completion, NULL, NULL, NULL, NULL },
	{ 0 },
};

static void usage(FILE *f)
{
	struct strbuf sb = STRBUF_INIT;

	cmd_list(&sb, "", cli_commands, 22);
	fprintf(f, "usage: fak <command> [options]\n"
		"\n"
		"commands:\n"
		"%s"
		"\n"
		"Run 'fak <command> --help' for the options of a command.\n"
		"\n"
		"%s", sb.buf, cli_exit_status);
	sb_release(&sb);
}

const char cli_exit_status[] =
	"exit status: 0 success, 1 invalid input, failed validation or refusal, 2 usage error,\n"
	"3 gate regression, 4 gate investigate (with --fail-on-investigate); bench\n"
	"system-baseline exits with its command's status, bench system-check 1 when something\n"
	"disturbs a benchmark, bench experiment 128+N when signal N stopped it.\n";

/* Diagnostics quote outside input: a control character in it shows as
 * U+FFFD, never reaching the terminal as a control sequence. */
static void put_clean(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	esc_clean(&sb, s, n);
	fwrite(sb.buf ? sb.buf : "", 1, sb.len, stderr);
	sb_release(&sb);
}

void cli_errorf(const char *cmd, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	sb_addf(&sb, "fak%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	sb_addch(&sb, '\n');
	put_clean(sb.buf, sb.len);
	sb_release(&sb);
}

int cli_fail(const char *cmd, const struct err *e)
{
	cli_errorf(cmd, "%s", e->msg);
	return EXIT_FAIL;
}

int cli_findings(const char *cmd, const char *what, const struct findings *f)
{
	cli_errorf(cmd, "%s (%zu finding%s):", what, f->nr, f->nr == 1 ? "" : "s");
	for (size_t i = 0; i < f->nr; i++) {
		fputs("  ", stderr);
		put_clean(f->items[i], strlen(f->items[i]));
		fputc('\n', stderr);
	}
	return EXIT_FAIL;
}

void cli_out(const char *data, size_t len)
{
	fwrite(data, 1, len, stdout);
}

void cli_out_json(json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;

	json_write_pretty(&sb, doc);
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
	json_decref(doc);
}

/* stdout is fallible: `fak ... > /dev/full` must not exit 0. */
static int finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_errorf(NULL, "cannot write standard output: %s", strerror(errno ? errno : EIO));
		return rc == EXIT_OK ? EXIT_FAIL : rc;
	}
	return rc;
}

/* Descriptors 0, 1 and 2 are open from here on: each closed one is opened
 * on /dev/null, as git and OpenSSH do. Otherwise the first file fak opens
 * (a cgroup folder, an output file) would become the command's standard
 * output or error. Fails only when /dev/null cannot be opened. */
static int open_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", O_RDWR);	/* the lowest free descriptor: fd */
		if (n < 0)
			return -1;
		if (n != fd) {
			if (dup2(n, fd) < 0)
				return -1;
			close(n);
		}
	}
	return 0;
}

int cli_main(int argc, char **argv)
{
	const struct command *c;

	if (open_std_fds() < 0) {
		cli_errorf(NULL, "cannot open '/dev/null' for a closed standard descriptor: %s",
			   strerror(errno));
		return EXIT_FAIL;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish(EXIT_OK);
	}
	c = cmd_find(cli_commands, argv[1]);
	if (c)
		return finish(cmd_run(c, argc - 1, argv + 1));
	cli_errorf(NULL, "unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
