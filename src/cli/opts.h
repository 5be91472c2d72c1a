#ifndef FAK_CLI_OPTS_H
#define FAK_CLI_OPTS_H
/* Table-driven option parsing shared by every command: `--name`, `-name`,
 * `--name=value`, `--name value`; parsing stops at `--` or the first word
 * that is not an option. A single-valued option or a flag given twice is a
 * usage error; an option with a list collects every occurrence in order.
 *
 * A table is static: each entry names a field of the command's options
 * struct by its offset (OPT_FLAG, OPT_VALUE, OPT_LIST), so the same table
 * serves the parser, --help, the man page and the shell completion. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Values of a repeatable option, in command-line order. The array is owned
 * (free it with optlist_release); the strings are borrowed from argv. */
struct optlist {
	const char **v;
	size_t n, alloc;
};

enum opt_kind {
	OPT_KIND_FLAG,	/* bool */
	OPT_KIND_VALUE,	/* const char *: NULL until given ("" when given empty) */
	OPT_KIND_LIST,	/* struct optlist: repeatable */
};

struct opt {
	const char *name;	/* without dashes */
	const char *arg;	/* value name for help; NULL for a boolean flag */
	const char *help;
	enum opt_kind kind;
	size_t off;		/* of the field in the options struct */
};

/* The offset of field m of T, which must have type type (a compile error
 * otherwise: comparison of distinct pointer types). */
#define OPT_OFF(T, m, type) (offsetof(T, m) + 0 * sizeof(&((T *)0)->m == (type *)0))
/* The last two members of an entry: { "name", ARG, "help", OPT_VALUE(T, m) }.
 * (Variadic so that T, m may come from one macro of the caller's.) */
#define OPT_FLAG(...) OPT_FLAG_(__VA_ARGS__)
#define OPT_VALUE(...) OPT_VALUE_(__VA_ARGS__)
#define OPT_LIST(...) OPT_LIST_(__VA_ARGS__)
#define OPT_FLAG_(T, m) OPT_KIND_FLAG, OPT_OFF(T, m, bool)
#define OPT_VALUE_(T, m) OPT_KIND_VALUE, OPT_OFF(T, m, const char *)
#define OPT_LIST_(T, m) OPT_KIND_LIST, OPT_OFF(T, m, struct optlist)

/* 1 << the option's index in its table. */
#define OPT_BIT(i) ((uint64_t)1 << (i))

enum opts_result { OPTS_OK, OPTS_HELP, OPTS_ERROR };

/* Parses argv[1..argc-1] into the options struct dst. *rest = index of the
 * first unparsed word (argc when none); a `--` is consumed. Errors are
 * printed as "fak <cmd>: ..." followed by the usage line. At most 64
 * options per table. */
enum opts_result opts_parse(const char *cmd, const char *usage, const struct opt *opts, void *dst,
			    int argc, char **argv, int *rest);
/* The options of the table that dst holds as given: bit i for opts[i]. */
uint64_t opts_given(const struct opt *opts, const void *dst);
/* The index of the first single-valued option that dst holds as given
 * empty (""), or -1. */
int opts_empty(const struct opt *opts, const void *dst);
/* The options of bits as "--a", "--a and --b", "--a, --b and --c". */
void opts_names(char *out, size_t cap, const struct opt *opts, uint64_t bits);
/* A usage text and a newline on f, every line wrapped at 100 columns (a
 * continuation line indented under the command name). */
void opts_usage_print(FILE *f, const char *usage);
/* usage line, blank line, then one line per option. */
void opts_help(FILE *f, const char *usage, const char *about, const struct opt *opts);
void optlist_release(struct optlist *l);

#endif
