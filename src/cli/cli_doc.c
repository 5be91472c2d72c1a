/* The man page and the bash completion, written from the command tables
 * (`fak --man`, `fak --completion bash`; `make` keeps build/fak.1 and
 * build/fak.bash, `make install` installs them). */
#include <string.h>

#include "base/strbuf.h"
#include "cli/cli.h"
#include "cli/command.h"

/* ---- man page ------------------------------------------------------------ */

/* Text for roff: backslash and hyphen escaped, a line never starting with a
 * control character, leading blanks dropped (fill mode joins the lines),
 * with wrap a new line at a blank rather than a line of over 78 bytes. */
/* The escaped width of the word at s. */
static size_t roff_width(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n && s[i] != ' ' && s[i] != '\n'; i++)
		w += s[i] == '\\' || s[i] == '-' ? 2 : 1;
	return w;
}

static void roff_wrap(FILE *f, const char *s, size_t n, bool wrap)
{
	bool bol = true;
	size_t col = 0;

	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (bol && (ch == ' ' || ch == '\t'))
			continue;
		if (wrap && ch == ' ' && col + 1 + roff_width(s + i + 1, n - i - 1) > 78)
			ch = '\n';
		if (bol && (ch == '.' || ch == '\''))
			fputs("\\&", f);
		bol = ch == '\n';
		col = bol ? 0 : col + (ch == '\\' || ch == '-' ? 2 : 1);
		if (ch == '\\')
			fputs("\\e", f);
		else if (ch == '-')
			fputs("\\-", f);
		else
			fputc(ch, f);
	}
}

static void roff_text(FILE *f, const char *s, size_t n)
{
	roff_wrap(f, s, n, true);
}

static void roff_line(FILE *f, const char *s)
{
	roff_text(f, s, strlen(s));
	fputc('\n', f);
}

/* Paragraphs separated by blank lines, each but the first after a .PP. */
static void roff_paragraphs(FILE *f, const char *s)
{
	for (const char *p = s; *s;) {
		const char *end = strstr(s, "\n\n");
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (s != p)
			fputs(".PP\n", f);
		roff_text(f, s, n);
		fputc('\n', f);
		s += n;
		while (*s == '\n')
			s++;
	}
}

/* A usage text: "usage: " dropped; a line that starts a new form ("fak ...")
 * begins a line of its own, a continuation line is filled in. */
static void roff_usage(FILE *f, const char *usage)
{
	const char *s = usage;
	bool first = true;

	if (!strncmp(s, "usage: ", 7))
		s += 7;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s), lead = strspn(s, " ");

		if (!first && !strncmp(s + lead, "fak ", 4))
			fputs(".br\n", f);
		first = false;
		roff_text(f, s, n);
		fputc('\n', f);
		s += nl ? n + 1 : n;
	}
}

static void roff_opts(FILE *f, const struct opt *opts)
{
	fputs(".PP\nOptions:\n", f);
	for (const struct opt *o = opts; o->name; o++) {
		fputs(".TP\n\\fB", f);
		roff_wrap(f, "--", 2, false);
		roff_wrap(f, o->name, strlen(o->name), false);
		fputs("\\fR", f);
		if (o->arg) {
			fputs(" \\fI", f);
			roff_wrap(f, o->arg, strlen(o->arg), false);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		roff_text(f, o->help, strlen(o->help));
		fputs(o->kind == OPT_KIND_LIST ? " (repeatable)\n" : "\n", f);
	}
	fputs(".TP\n\\fB\\-\\-help\\fR\nshow this help and exit\n", f);
}

static void roff_modes(FILE *f, const struct cmd_mode *modes)
{
	fputs(".PP\nModes (one at a time):\n", f);
	for (const struct cmd_mode *m = modes; m->name; m++) {
		fputs(".TP\n", f);
		if (m->synopsis) {
			fputs("\\fB", f);
			roff_text(f, m->synopsis, strlen(m->synopsis));
			fputs("\\fR\n", f);
		} else {
			fputs("(no mode)\n", f);
		}
		roff_line(f, m->help);
	}
}

static void man_commands(FILE *f, const char *prefix, const struct command *tab)
{
	for (const struct command *c = tab; c->name; c++) {
		char name[128];

		if (!c->help)
			continue;
		snprintf(name, sizeof(name), "%s %s", prefix, c->name);
		if (c->subs) {
			man_commands(f, name, c->subs);
			continue;
		}
		fputs(".SS \"", f);
		roff_text(f, name, strlen(name));
		fputs("\"\n", f);
		roff_usage(f, cmd_usage(c->spec));
		fputs(".PP\n", f);
		roff_paragraphs(f, c->spec->about);
		if (c->spec->modes)
			roff_modes(f, c->spec->modes);
		roff_opts(f, c->spec->opts);
	}
}

/* The list of commands: one tagged paragraph each, subcommands in place of
 * their parent. */
static void man_list(FILE *f, const char *prefix, const struct command *tab)
{
	for (const struct command *c = tab; c->name; c++) {
		char name[128];

		if (!c->help)
			continue;
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? " " : "", c->name);
		if (c->subs) {
			man_list(f, name, c->subs);
			continue;
		}
		fputs(".TP\n\\fB", f);
		roff_text(f, name, strlen(name));
		fputs("\\fR\n", f);
		roff_line(f, c->help);
	}
}

void cli_doc_man(FILE *f)
{
	fputs(".\\\" The manual page of fak, written by `fak --man` from its command tables.\n"
	      ".TH FAK 1 " FAK_DATE " \"fak " FAK_VERSION "\" \"User Commands\"\n"
	      ".nh\n"
	      ".ad l\n"
	      ".SH NAME\n"
	      "fak \\- native-performance evidence: graph, receipts, gate, benchmarks\n"
	      ".SH SYNOPSIS\n"
	      ".B fak\n"
	      ".I command\n"
	      ".RI [ options ]\n"
	      ".br\n"
	      ".B fak\n"
	      ".I command\n"
	      ".B \\-\\-help\n"
	      ".SH DESCRIPTION\n", f);
	roff_line(f, "fak keeps the evidence of a native-performance climb: the lever graph, "
		     "sealed receipts, the gate, profiles and the front door, and benchmarks "
		     "around a command. Its commands:");
	man_list(f, "", cli_commands);
	fputs(".SH COMMANDS\n", f);
	man_commands(f, "fak", cli_commands);
	fputs(".SH \"EXIT STATUS\"\n", f);
	roff_paragraphs(f, cli_exit_status + strlen("exit status: "));
	fputs(".SH \"SEE ALSO\"\n"
	      "The README.md and docs/ of the fak source tree.\n", f);
}

/* ---- bash completion ----------------------------------------------------- */

/* The words after PATH ("/bench/experiment"): one case arm for each
 * command, its subcommands or its options, and the options taking a value
 * (whose value bash completes as a file name: -o default). */
static void bash_cases(FILE *f, const char *path, const struct command *tab)
{
	for (const struct command *c = tab; c->name; c++) {
		char sub[128];

		if (!c->help)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, c->name);
		fprintf(f, "\t%s)\n\t\twords=\"", sub);
		if (c->subs) {
			for (const struct command *s = c->subs; s->name; s++)
				if (s->help)
					fprintf(f, "%s ", s->name);
		} else {
			for (const struct opt *o = c->spec->opts; o->name; o++)
				fprintf(f, "--%s ", o->name);
		}
		fputs("--help\"\n\t\tvalued=\"", f);
		for (const struct opt *o = c->spec ? c->spec->opts : NULL; o && o->name; o++)
			if (o->kind != OPT_KIND_FLAG)
				fprintf(f, " --%s", o->name);
		fputs(" \"\n\t\t;;\n", f);
		if (c->subs)
			bash_cases(f, sub, c->subs);
	}
}

static void bash_paths(FILE *f, const char *path, const struct command *tab, bool *first)
{
	for (const struct command *c = tab; c->name; c++) {
		char sub[128];

		if (!c->help)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, c->name);
		fprintf(f, "%s%s", *first ? "" : "|", sub);
		*first = false;
		if (c->subs)
			bash_paths(f, sub, c->subs, first);
	}
}

void cli_doc_bash(FILE *f)
{
	bool first = true;

	fputs("# bash completion for fak, written by `fak --completion bash` from its command\n"
	      "# tables: commands, subcommands and options; the value of an option completes\n"
	      "# as a file name.\n"
	      "_fak()\n"
	      "{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	      "\tlocal path= words= valued= w i\n"
	      "\tCOMPREPLY=()\n"
	      "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	      "\t\tw=${COMP_WORDS[i]}\n"
	      "\t\t[[ $w == -- ]] && return\n"
	      "\t\tcase $path/$w in\n"
	      "\t\t", f);
	bash_paths(f, "", cli_commands, &first);
	fputs(") path=$path/$w ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tcase $path in\n"
	      "\t\"\")\n"
	      "\t\twords=\"", f);
	for (const struct command *c = cli_commands; c->name; c++)
		if (c->help)
			fprintf(f, "%s ", c->name);
	fputs("--help --version\"\n\t\t;;\n", f);
	bash_cases(f, "", cli_commands);
	fputs("\tesac\n"
	      "\t[[ \" $valued \" == *\" $prev \"* ]] && return\n"
	      "\tmapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
	      "}\n"
	      "complete -o default -F _fak fak\n", f);
}
