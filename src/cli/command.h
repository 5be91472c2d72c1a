#ifndef FAK_CLI_COMMAND_H
#define FAK_CLI_COMMAND_H
/* The command tables: every command, subcommand and mode of the CLI is one
 * entry, in the spirit of git's commands[] and tmux's cmd_entry. Dispatch,
 * the usage checks, every --help, the man page and the bash completion are
 * derived from them (command.c, cli_doc.c).
 *
 * Adding a command touches two places: its entry in the table (cli.c: name,
 * help line, synopsis, and the extern declaration of its spec just above
 * the table) and its one file, which defines the spec (struct cmd_spec:
 * usage, help, options, rules, and its handler in .run, a static function
 * of that file). No header declares a command's handler or spec; a header
 * of the command's own (np.h) is for the files that implement it. */
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "cli/opts.h"

struct np_ctx;

/* A mode of a command whose modes are chosen by options (native-performance).
 * Option sets are bit sets over the command's option table (OPT_BIT). */
struct cmd_mode {
	const char *name;	/* "--next", "--chart climb"; NULL ends the table */
	const char *synopsis;	/* its part of the usage line; NULL for the default mode */
	const char *help;
	int (*run)(const struct np_ctx *c);
	uint64_t select;	/* the options that choose the mode */
	uint64_t together;	/* options that go together: all given or none */
	uint64_t accepts;	/* the options it takes besides select and the common ones */
	uint64_t one_of;	/* of accepts: at most one */
	unsigned needs;		/* the evidence it needs (EV_*, cli/evidence.h) */
};

/* A flag rule of a command, checked in table order by cmd_rules_check.
 * A rule applies when one of `when` is given (always when 0) and none of
 * `unless`; it is broken when, of the given options: */
enum cmd_rule_kind {
	CMD_RULE_ONLY,	/* one is outside `when | opts` (a mode that takes only opts) */
	CMD_RULE_ALL,	/* one of `opts` is missing (a requirement) */
	CMD_RULE_ONE,	/* not exactly one of `opts` is given */
	CMD_RULE_NONE,	/* one of `opts` is given (a conflict with `when`) */
};

struct cmd_rule {
	enum cmd_rule_kind kind;
	uint64_t when, unless, opts;
	const char *msg;	/* the usage error when it is broken; NULL ends a table */
};

/* What a command takes. */
struct cmd_spec {
	const char *usage;	/* "usage: fak ..." (lines) */
	const char *about;	/* paragraphs for --help and the man page */
	const struct opt *opts;
	/* NULL, or the modes: the default mode (synopsis NULL) comes last */
	const struct cmd_mode *modes;
	uint64_t common;	/* options every mode takes */
	unsigned needs;		/* without modes: the evidence it needs (EV_*, evidence.h) */
	/* NULL, or the flag rules of a command without modes, ended by a NULL msg */
	const struct cmd_rule *rules;
	int (*run)(int argc, char **argv);	/* the handler; argv[0] is the name */
};

struct command {
	const char *name;	/* NULL ends the table */
	/* the handler of a command without a spec (those of cli.c); NULL:
	 * spec->run. argv[0] is the name */
	int (*run)(int argc, char **argv);
	const char *help;	/* its line in the list of commands; NULL: hidden */
	/* its short usage in its parent's usage ("\n" between forms), or NULL */
	const char *synopsis;
	const struct cmd_spec *spec;	/* NULL for a command with subcommands */
	const struct command *subs;	/* NULL, or the subcommands */
};

/* The top-level table and that of `fak bench`, both in cli.c. */
extern const struct command cli_commands[];
extern const struct command bench_commands[];

const struct command *cmd_find(const struct command *tab, const char *name);
/* Runs c's handler (its own, or its spec's) with argv[0] its name. */
int cmd_run(const struct command *c, int argc, char **argv);
/* The commands of tab with their synopses: "usage: PREFIX NAME SYNOPSIS",
 * one line per form. */
void cmd_synopses(struct strbuf *sb, const char *prefix, const struct command *tab);
/* "  PREFIX NAME  help" for every visible command, subcommands in place of
 * their parent, names padded to width. */
void cmd_list(struct strbuf *sb, const char *prefix, const struct command *tab, int width);
/* `fak CMD SUB ...`: runs SUB of tab; `fak CMD --help` prints the synopses
 * and the list; a missing or unknown SUB is a usage error. */
int cmd_dispatch(const char *cmd, const struct command *tab, int argc, char **argv);

/* The usage line: spec->usage, then for a command with modes every mode's
 * synopsis in table order: " [A | B | ...]". */
const char *cmd_usage(const struct cmd_spec *spec);
/* opts_parse with the spec: OPTS_HELP prints the command's --help. Returns
 * an exit status to return (help, a usage error), or -1 to go on. */
int cmd_parse(const char *cmd, const struct cmd_spec *spec, void *dst, int argc, char **argv,
	      int *rest);
/* "fak <cmd>: <why>" and the usage line on stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *cmd, const struct cmd_spec *spec, const char *why);

/* The mode that the given options choose, checked against the table: more
 * than one mode ("choose one mode"), a lone member of a together set, an
 * option the mode does not accept ("--out goes with --attach-receipt and
 * --chart climb"), two of a one_of set. NULL after printing the usage error. */
const struct cmd_mode *cmd_mode_of(const char *cmd, const struct cmd_spec *spec, uint64_t given);

/* The first rule of spec->rules that the given options break, printed as
 * a usage error (its msg): returns EXIT_USAGE; -1 when every rule holds. */
int cmd_rules_check(const char *cmd, const struct cmd_spec *spec, uint64_t given);

/* The index of option name in spec's table (a BUG when there is none). */
int cmd_opt_index(const struct cmd_spec *spec, const char *name);
/* The names of the modes that take option i (their accepts), sorted:
 * "--a", "--a and --b", "--a, --b and --c". */
void cmd_takers(struct strbuf *sb, const struct cmd_spec *spec, size_t i);

/* The man page (roff) and the bash completion script, from the tables. */
void cli_doc_man(FILE *f);
void cli_doc_bash(FILE *f);

#endif
