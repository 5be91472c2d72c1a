/* Dispatch, usage lines and the mode rules, from the command tables. */
#include "cli/command.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "cli/cli.h"

const struct command *cmd_find(const struct command *tab, const char *name)
{
	for (const struct command *c = tab; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cmd_run(const struct command *c, int argc, char **argv)
{
	int (*run)(int, char **) = c->run ? c->run : c->spec ? c->spec->run : NULL;

	if (!run)
		BUG("command %s has no handler", c->name);
	return run(argc, argv);
}

const char *cmd_usage(const struct cmd_spec *spec)
{
	static struct {
		const struct cmd_spec *spec;
		struct strbuf sb;
	} cache[4];
	size_t i;

	if (!spec->modes)
		return spec->usage;
	for (i = 0; i < sizeof(cache) / sizeof(cache[0]) && cache[i].spec; i++)
		if (cache[i].spec == spec)
			return cache[i].sb.buf;
	if (i == sizeof(cache) / sizeof(cache[0]))
		BUG("more than %zu commands with modes", i);
	cache[i].spec = spec;
	sb_adds(&cache[i].sb, spec->usage);
	for (const struct cmd_mode *m = spec->modes; m->name; m++)
		if (m->synopsis)
			sb_addf(&cache[i].sb, "%s%s", m == spec->modes ? " [" : " | ", m->synopsis);
	sb_adds(&cache[i].sb, "]");
	return cache[i].sb.buf;
}

int cmd_usage_error(const char *cmd, const struct cmd_spec *spec, const char *why)
{
	cli_errorf(cmd, "%s", why);
	opts_usage_print(stderr, cmd_usage(spec));
	return EXIT_USAGE;
}

int cmd_parse(const char *cmd, const struct cmd_spec *spec, void *dst, int argc, char **argv,
	      int *rest)
{
	switch (opts_parse(cmd, cmd_usage(spec), spec->opts, dst, argc, argv, rest)) {
	case OPTS_HELP:
		opts_help(stdout, cmd_usage(spec), spec->about, spec->opts);
		return EXIT_OK;
	case OPTS_ERROR:
		return EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	return -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void cmd_takers(struct strbuf *sb, const struct cmd_spec *spec, size_t i)
{
	const char *names[64] = { 0 };
	size_t n = 0;

	for (const struct cmd_mode *m = spec->modes; m->name && n < 64; m++)
		if (m->accepts & OPT_BIT(i))
			names[n++] = m->name;
	qsort(names, n, sizeof(names[0]), by_name);
	for (size_t k = 0; k < n; k++)
		sb_addf(sb, "%s%s", names[k], k + 1 == n ? "" : k + 2 == n ? " and " : ", ");
}

int cmd_opt_index(const struct cmd_spec *spec, const char *name)
{
	for (size_t i = 0; spec->opts[i].name; i++)
		if (!strcmp(spec->opts[i].name, name))
			return (int)i;
	BUG("no option --%s in the table", name);
}

/* "--o goes with M1, M2 and M3": the modes that take option i, by name. */
static int goes_with(const char *cmd, const struct cmd_spec *spec, size_t i)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	sb_addf(&sb, "--%s goes with ", spec->opts[i].name);
	cmd_takers(&sb, spec, i);
	rc = cmd_usage_error(cmd, spec, sb.buf);
	sb_release(&sb);
	return rc;
}

const struct cmd_mode *cmd_mode_of(const char *cmd, const struct cmd_spec *spec, uint64_t given)
{
	const struct cmd_mode *m, *mode = NULL;
	uint64_t shared = 0, taken = 0, extra;
	char names[256], why[300];
	size_t chosen = 0;

	/* An option that some mode accepts (--json, --chart) chooses its own
	 * mode only when no mode chosen by an option of its own takes it. */
	for (m = spec->modes; m->name; m++)
		shared |= m->accepts;
	for (m = spec->modes; m->name; m++)
		if (given & m->select & ~shared)
			taken |= m->accepts;
	for (m = spec->modes; m->name; m++)
		if (given & m->select & ~taken) {
			mode = m;
			chosen++;
		}
	if (chosen > 1) {
		cmd_usage_error(cmd, spec, "choose one mode");
		return NULL;
	}
	if (!mode) {	/* the default: the last entry */
		for (m = spec->modes; m[1].name; m++)
			;
		mode = m;
	}
	if ((given & mode->together) && (given & mode->together) != mode->together) {
		opts_names(names, sizeof(names), spec->opts, mode->together);
		snprintf(why, sizeof(why), "%s go together", names);
		cmd_usage_error(cmd, spec, why);
		return NULL;
	}
	extra = given & ~(mode->select | mode->accepts | spec->common);
	for (size_t i = 0; spec->opts[i].name; i++)
		if (extra & OPT_BIT(i)) {
			goes_with(cmd, spec, i);
			return NULL;
		}
	if (__builtin_popcountll(given & mode->one_of) > 1) {
		opts_names(names, sizeof(names), spec->opts, mode->one_of);
		snprintf(why, sizeof(why), "choose one of %s", names);
		cmd_usage_error(cmd, spec, why);
		return NULL;
	}
	return mode;
}

static bool rule_broken(const struct cmd_rule *r, uint64_t given)
{
	if ((r->when && !(given & r->when)) || (given & r->unless))
		return false;
	switch (r->kind) {
	case CMD_RULE_ONLY: return given & ~(r->when | r->opts);
	case CMD_RULE_ALL: return (given & r->opts) != r->opts;
	case CMD_RULE_ONE: return __builtin_popcountll(given & r->opts) != 1;
	case CMD_RULE_NONE: return given & r->opts;
	}
	BUG("rule kind %d", (int)r->kind);
}

int cmd_rules_check(const char *cmd, const struct cmd_spec *spec, uint64_t given)
{
	for (const struct cmd_rule *r = spec->rules; r && r->msg; r++)
		if (rule_broken(r, given))
			return cmd_usage_error(cmd, spec, r->msg);
	return -1;
}

void cmd_synopses(struct strbuf *sb, const char *prefix, const struct command *tab)
{
	const char *lead = "usage: ";

	for (const struct command *c = tab; c->name; c++) {
		const char *s = c->synopsis;

		while (s) {
			const char *nl = strchr(s, '\n');
			int len = nl ? (int)(nl - s) : (int)strlen(s);

			sb_addf(sb, "%s%s %s %.*s", lead, prefix, c->name, len, s);
			lead = "\n       ";
			s = nl ? nl + 1 : NULL;
		}
	}
}

void cmd_list(struct strbuf *sb, const char *prefix, const struct command *tab, int width)
{
	for (const struct command *c = tab; c->name; c++) {
		char name[128];

		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? " " : "", c->name);
		if (c->subs)
			cmd_list(sb, name, c->subs, width);
		else if (c->help)
			sb_addf(sb, "  %-*s %s\n", width, name, c->help);
	}
}

int cmd_dispatch(const char *cmd, const struct command *tab, int argc, char **argv)
{
	struct strbuf usage = STRBUF_INIT;
	const struct command *c = argc < 2 ? NULL : cmd_find(tab, argv[1]);
	char prefix[64];
	int rc;

	if (c)
		return cmd_run(c, argc - 1, argv + 1);
	snprintf(prefix, sizeof(prefix), "fak %s", cmd);
	cmd_synopses(&usage, prefix, tab);
	if (argc < 2) {
		cli_errorf(cmd, "a subcommand is required");
		rc = EXIT_USAGE;
	} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
		   !strcmp(argv[1], "help")) {
		struct strbuf list = STRBUF_INIT;

		cmd_list(&list, "", tab, 17);
		printf("%s\n\nsubcommands:\n%s\nRun '%s <subcommand> --help' for its options.\n",
		       usage.buf, list.buf, prefix);
		sb_release(&list);
		rc = EXIT_OK;
	} else {
		cli_errorf(cmd, "unknown subcommand '%s'", argv[1]);
		rc = EXIT_USAGE;
	}
	if (rc == EXIT_USAGE)
		fprintf(stderr, "%s\n", usage.buf);
	sb_release(&usage);
	return rc;
}
