#ifndef FAK_CLI_CLI_H
#define FAK_CLI_CLI_H
/* The only layer that prints diagnostics or chooses exit codes.
 * Data goes to stdout, diagnostics to stderr, never mixed. */
#include <stdbool.h>

#include <jansson.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/strbuf.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* invalid input, failed validation, refusal, internal error */
	EXIT_USAGE = 2,
	EXIT_REGRESSION = 3,	/* --gate classified a regression */
	EXIT_INVESTIGATE = 4,	/* --gate --fail-on-investigate classified investigate */
};

int cli_main(int argc, char **argv);
/* The paragraph on exit codes of `fak --help` and the man page. */
extern const char cli_exit_status[];

/* "fak <cmd>: <message>\n" on stderr. */
void cli_errorf(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints e (with optional context) and returns EXIT_FAIL. */
int cli_fail(const char *cmd, const struct err *e);
/* Header "fak <cmd>: <what> (N finding[s]):" then one "  <finding>" line
 * each, in the (already sorted) order. Returns EXIT_FAIL. */
int cli_findings(const char *cmd, const char *what, const struct findings *f);
/* Append bytes to stdout. Errors are caught at exit (see cli_main). */
void cli_out(const char *data, size_t len);
/* Pretty-prints doc to stdout and releases it (steals the reference). */
void cli_out_json(json_t *doc);

/* Subcommands. argv[0] is the subcommand name. */
int cmd_native_performance(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* `fak bench experiment` (bench_experiment.c). */
struct cmd_spec;
int bench_experiment(int argc, char **argv);
extern const struct cmd_spec bench_experiment_spec;
/* `fak bench system-baseline` (bench_baseline.c). */
int bench_system_baseline(int argc, char **argv);
extern const struct cmd_spec bench_system_baseline_spec;
/* `fak bench system-check` (bench_syscheck.c). */
int bench_system_check(int argc, char **argv);
extern const struct cmd_spec bench_system_check_spec;

/* `fak bench trace` and `fak bench serve` (bench_serve.c). */
int bench_trace(int argc, char **argv);
extern const struct cmd_spec bench_trace_spec;
int bench_serve(int argc, char **argv);
extern const struct cmd_spec bench_serve_spec;

#endif
