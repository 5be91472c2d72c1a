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

#endif
