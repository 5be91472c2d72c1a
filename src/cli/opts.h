#ifndef FAK_CLI_OPTS_H
#define FAK_CLI_OPTS_H
/* Table-driven option parsing shared by every command: `--name`, `-name`,
 * `--name=value`, `--name value`; parsing stops at `--` or the first word
 * that is not an option. A single-valued option or a flag given twice is a
 * usage error; an option with a list collects every occurrence in order. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Values of a repeatable option, in command-line order. The array is owned
 * (free it with optlist_release); the strings are borrowed from argv. */
struct optlist {
	const char **v;
	size_t n, alloc;
};

struct opt {
	const char *name;	/* without dashes */
	const char *arg;	/* value name for help; NULL for a boolean flag */
	const char *help;
	bool *flag;		/* boolean flags */
	const char **value;	/* string options: NULL until given ("" when given empty) */
	struct optlist *list;	/* repeatable string options (value is then NULL) */
};

enum opts_result { OPTS_OK, OPTS_HELP, OPTS_ERROR };

/* Parses argv[1..argc-1]. *rest = index of the first unparsed word (argc
 * when none); a `--` is consumed. Errors are printed as "fak <cmd>: ..."
 * followed by the usage line. At most 64 options per table. */
enum opts_result opts_parse(const char *cmd, const char *usage, const struct opt *opts, int argc,
			    char **argv, int *rest);
/* usage line, blank line, then one line per option. */
void opts_help(FILE *f, const char *usage, const char *about, const struct opt *opts);
void optlist_release(struct optlist *l);

#endif
