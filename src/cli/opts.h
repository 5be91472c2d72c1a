#ifndef FAK_CLI_OPTS_H
#define FAK_CLI_OPTS_H
/* Table-driven option parsing shared by every command: `--name`, `-name`,
 * `--name=value`, `--name value`; parsing stops at `--` or the first word
 * that is not an option. */
#include <stdbool.h>
#include <stdio.h>

struct opt {
	const char *name;	/* without dashes */
	const char *arg;	/* value name for help; NULL for a boolean flag */
	const char *help;
	bool *flag;		/* boolean flags */
	const char **value;	/* string options: NULL until given ("" when given empty) */
};

enum opts_result { OPTS_OK, OPTS_HELP, OPTS_ERROR };

/* Parses argv[1..argc-1]. *rest = index of the first unparsed word (argc
 * when none); a `--` is consumed. Errors are printed as "fak <cmd>: ..."
 * followed by the usage line. */
enum opts_result opts_parse(const char *cmd, const char *usage, const struct opt *opts, int argc,
			    char **argv, int *rest);
/* usage line, blank line, then one line per option. */
void opts_help(FILE *f, const char *usage, const char *about, const struct opt *opts);

#endif
