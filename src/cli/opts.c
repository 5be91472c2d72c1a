#include "cli/opts.h"

#include <string.h>

#include "cli/cli.h"

static const struct opt *lookup(const struct opt *opts, const char *name, size_t len)
{
	for (const struct opt *o = opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

enum opts_result opts_parse(const char *cmd, const char *usage, const struct opt *opts, int argc,
			    char **argv, int *rest)
{
	int i;

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
			fprintf(stderr, "%s\n", usage);
			return OPTS_ERROR;
		}
		if (!o->arg) {
			if (eq && strcmp(eq + 1, "true") && strcmp(eq + 1, "false")) {
				cli_errorf(cmd, "option '--%s' takes no value", o->name);
				fprintf(stderr, "%s\n", usage);
				return OPTS_ERROR;
			}
			*o->flag = !eq || !strcmp(eq + 1, "true");
			continue;
		}
		if (eq) {
			*o->value = eq + 1;
		} else if (i + 1 < argc) {
			*o->value = argv[++i];
		} else {
			cli_errorf(cmd, "option '--%s' needs a value (%s)", o->name, o->arg);
			fprintf(stderr, "%s\n", usage);
			return OPTS_ERROR;
		}
	}
	*rest = i;
	return OPTS_OK;
}

void opts_help(FILE *f, const char *usage, const char *about, const struct opt *opts)
{
	fprintf(f, "%s\n\n%s\n\noptions:\n", usage, about);
	for (const struct opt *o = opts; o->name; o++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-28s %s\n", left, o->help);
	}
	fprintf(f, "  %-28s %s\n", "--help", "show this help and exit");
}
