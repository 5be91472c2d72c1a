#include "cli/opts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "cli/cli.h"

static const struct opt *lookup(const struct opt *opts, const char *name, size_t len)
{
	for (const struct opt *o = opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static bool *flag_at(const struct opt *o, void *dst)
{
	return (bool *)((char *)dst + o->off);
}

static const char **value_at(const struct opt *o, void *dst)
{
	return (const char **)(void *)((char *)dst + o->off);
}

static struct optlist *list_at(const struct opt *o, void *dst)
{
	return (struct optlist *)(void *)((char *)dst + o->off);
}

/* Usage lines are printed wrapped at fak's output width; a continuation
 * line starts under the command name ("usage: fak " is 11 columns). The man
 * page fills the same text itself (cli_doc.c). */
#define USAGE_WIDTH 100
#define USAGE_INDENT "           "

/* Appends one usage line of n bytes to sb, wrapped: it breaks only between
 * two bracket groups that no other encloses ("[--seed N] [--out FILE]"), so
 * that "-- COMMAND [ARGS...]" stays together, or before an alternative of
 * such a group ("| --dot ..."). A part longer than the width stays whole. */
static void usage_wrap(struct strbuf *sb, const char *line, size_t n)
{
	size_t from = 0, brk = 0, col0 = 0;
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		if (line[i] == '[' || line[i] == '(')
			depth++;
		else if ((line[i] == ']' || line[i] == ')') && depth > 0)
			depth--;
		else if (line[i] == ' ' && i > 0 && i + 1 < n &&
			 ((depth == 0 && strchr("])", line[i - 1]) && strchr("[(", line[i + 1])) ||
			  (depth == 1 && line[i + 1] == '|')))
			brk = i;
		if (col0 + (i - from) + 1 > USAGE_WIDTH && brk > from) {
			sb_add(sb, line + from, brk - from);
			sb_adds(sb, "\n" USAGE_INDENT);
			col0 = strlen(USAGE_INDENT);
			from = brk + 1;
		}
	}
	sb_add(sb, line + from, n - from);
}

void opts_usage_print(FILE *f, const char *usage)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *s = usage, *nl; *s; s = nl ? nl + 1 : s + strlen(s)) {
		nl = strchr(s, '\n');
		usage_wrap(&sb, s, nl ? (size_t)(nl - s) : strlen(s));
		sb_addch(&sb, '\n');
	}
	fputs(sb.buf ? sb.buf : "\n", f);
	sb_release(&sb);
}

enum opts_result opts_parse(const char *cmd, const char *usage, const struct opt *opts, void *dst,
			    int argc, char **argv, int *rest)
{
	uint64_t seen = 0;
	size_t nr_opts = 0;
	int i;

	while (opts[nr_opts].name)
		nr_opts++;
	if (nr_opts > 64)
		BUG("option table of '%s' has %zu entries; at most 64", cmd, nr_opts);

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *eq;
		const struct opt *o;
		size_t len;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		name = a + (a[1] == '-' ? 2 : 1);
		if (!strcmp(name, "help") || !strcmp(name, "h"))
			return OPTS_HELP;
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		o = lookup(opts, name, len);
		if (!o) {
			cli_errorf(cmd, "unknown option '%s'", a);
			opts_usage_print(stderr, usage);
			return OPTS_ERROR;
		}
		if (o->kind != OPT_KIND_LIST && (seen >> (o - opts) & 1)) {
			cli_errorf(cmd, "option '--%s' is given twice; give it once", o->name);
			opts_usage_print(stderr, usage);
			return OPTS_ERROR;
		}
		seen |= (uint64_t)1 << (o - opts);
		if (o->kind == OPT_KIND_FLAG) {
			if (eq && strcmp(eq + 1, "true") && strcmp(eq + 1, "false")) {
				cli_errorf(cmd, "option '--%s' takes no value", o->name);
				opts_usage_print(stderr, usage);
				return OPTS_ERROR;
			}
			*flag_at(o, dst) = !eq || !strcmp(eq + 1, "true");
			continue;
		}
		if (eq || i + 1 < argc) {
			const char *v = eq ? eq + 1 : argv[++i];

			if (o->kind == OPT_KIND_LIST) {
				struct optlist *l = list_at(o, dst);

				ALLOC_GROW(l->v, l->n + 1, l->alloc);
				l->v[l->n++] = v;
			} else {
				*value_at(o, dst) = v;
			}
		} else {
			cli_errorf(cmd, "option '--%s' needs a value (%s)", o->name, o->arg);
			opts_usage_print(stderr, usage);
			return OPTS_ERROR;
		}
	}
	*rest = i;
	return OPTS_OK;
}

uint64_t opts_given(const struct opt *opts, const void *dst)
{
	uint64_t given = 0;
	void *d = (void *)(uintptr_t)dst;	/* read only */

	for (size_t i = 0; opts[i].name; i++) {
		const struct opt *o = &opts[i];
		bool on = o->kind == OPT_KIND_FLAG ? *flag_at(o, d)
			: o->kind == OPT_KIND_VALUE ? *value_at(o, d) != NULL
			: list_at(o, d)->n > 0;

		given |= on ? OPT_BIT(i) : 0;
	}
	return given;
}

int opts_empty(const struct opt *opts, const void *dst)
{
	void *d = (void *)(uintptr_t)dst;	/* read only */

	for (size_t i = 0; opts[i].name; i++) {
		const char *v = opts[i].kind == OPT_KIND_VALUE ? *value_at(&opts[i], d) : NULL;

		if (v && !*v)
			return (int)i;
	}
	return -1;
}

void opts_names(char *out, size_t cap, const struct opt *opts, uint64_t bits)
{
	size_t len = 0, left = (size_t)__builtin_popcountll(bits);

	out[0] = '\0';
	for (size_t i = 0; opts[i].name && len < cap; i++) {
		if (!(bits & OPT_BIT(i)))
			continue;
		left--;
		len += (size_t)snprintf(out + len, cap - len, "--%s%s", opts[i].name,
					!left ? "" : left == 1 ? " and " : ", ");
	}
}

/* "  --name ARG   help", the help wrapped at USAGE_WIDTH under its column
 * (31): it breaks at a blank, and a word longer than the room stays whole. */
static void help_line(FILE *f, const char *left, const char *help, const char *more)
{
	struct strbuf sb = STRBUF_INIT;
	const size_t col = 31;
	size_t from = 0, brk = 0;

	sb_addf(&sb, "%s%s", help, more);
	fprintf(f, "  %-28s ", left);
	for (size_t i = 0; i < sb.len; i++) {
		if (sb.buf[i] == ' ')
			brk = i;
		if (col + (i - from) + 1 > USAGE_WIDTH && brk > from) {
			fprintf(f, "%.*s\n%*s", (int)(brk - from), sb.buf + from, (int)col, "");
			from = brk + 1;
		}
	}
	fprintf(f, "%s\n", sb.buf + from);
	sb_release(&sb);
}

void opts_help(FILE *f, const char *usage, const char *about, const struct opt *opts)
{
	opts_usage_print(f, usage);
	fprintf(f, "\n%s\n\noptions:\n", about);
	for (const struct opt *o = opts; o->name; o++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		help_line(f, left, o->help, o->kind == OPT_KIND_LIST ? " (repeatable)" : "");
	}
	help_line(f, "--help", "show this help and exit", "");
}

void optlist_release(struct optlist *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
