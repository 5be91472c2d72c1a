/* Where the evidence lives: each flag, else the checkout fak runs in (found
 * from the current folder up), else the compiled-in default; resolved once
 * per command from what the command table declares (evidence.h). */
#include "cli/evidence.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "witness/witness.h"

const char *evidence_checkout(struct evidence *ev)
{
	char dir[PATH_MAX];

	if (ev->looked)
		return ev->checkout;
	ev->looked = true;
	if (!getcwd(dir, sizeof(dir)))
		return NULL;
	for (;;) {
		char *g = xasprintf("%s/" CHECKOUT_GRAPH, dir),
		     *i = xasprintf("%s/" CHECKOUT_INDEX, dir);
		bool found = access(g, F_OK) == 0 && access(i, F_OK) == 0;

		free(g);
		free(i);
		if (found)
			return ev->checkout = xstrdup(dir);
		if (!strcmp(dir, "/"))
			return NULL;
		{
			/* dirname works in place: its result may overlap dir */
			const char *up = dirname(dir);

			memmove(dir, up, strlen(up) + 1);
		}
	}
}

/* flag when given, else the checkout's rel when in one (and checkout),
 * else NULL. Caller frees. */
static char *in_checkout(struct evidence *ev, const char *flag, const char *rel, bool checkout)
{
	if (flag)
		return xstrdup(flag);
	if (!checkout || !evidence_checkout(ev))
		return NULL;
	return xasprintf("%s/%s", ev->checkout, rel);
}

/* A promotion journal beside the graph file in use (--graph, or the
 * checkout's data file) is completed or rolled back, and the temporary
 * files an interrupted fak left there are removed; both said on stderr. */
static int recover(struct evidence *ev, const char *cmd)
{
	const char *graph = ev->flags.graph, *what;
	char *dir, *copy = NULL;
	struct err e;
	int rc = 0;

	/* A graph on standard input has no folder of its own; outside a
	 * checkout without --graph there is no evidence folder at all. */
	if (graph && !strcmp(graph, "-"))
		return 0;
	if (graph) {
		copy = xstrdup(graph);
		dir = xstrdup(dirname(copy));
	} else if (!(dir = in_checkout(ev, NULL, CHECKOUT_DATA, true))) {
		return 0;
	}
	if (witness_recover(dir, &what, &e) < 0)
		rc = cli_fail(cmd, &e);
	else if (*what)
		cli_errorf(cmd, "an interrupted promotion was found in '%s' and %s", dir, what);
	if (!rc) {
		size_t n;

		file_sweep_temps(dir, &n);
		if (n)
			cli_errorf(cmd, "removed %zu temporary file%s that an interrupted fak left "
					"in '%s'", n, n == 1 ? "" : "s", dir);
	}
	free(copy);
	free(dir);
	return rc;
}

/* The graph, once: the --graph file or the compiled-in one, validated. */
static int load_graph(struct evidence *ev, const char *cmd, unsigned needs)
{
	const char *file = ev->flags.graph;
	struct err e;

	if ((file ? graph_load_file(&ev->g, file, &e) : graph_load_default(&ev->g, &e)) < 0)
		return cli_fail(cmd, &e);
	ev->have_g = true;
	graph_validate(&ev->g, &ev->findings);
	if (ev->findings.nr && (needs & EV_GRAPH_CHANGED_ENVELOPES)) {
		/* an envelope edited under its witness: the witnesses name what
		 * changed; any other finding stops here as for every mode */
		struct findings w = FINDINGS_INIT;

		graph_validate_witness_envelopes(&ev->g, &w);
		if (w.nr == ev->findings.nr)
			ev->graph_findings = &ev->findings;
		findings_release(&w);
	}
	if (ev->findings.nr && !ev->graph_findings)
		return cli_findings(cmd, "invalid native performance graph", &ev->findings);
	return 0;
}

/* The files a change rewrites: each flag, else the checkout's. */
static int change_files(struct evidence *ev, const char *cmd, const char *what)
{
	const struct ev_flags *fl = &ev->flags;

	if (fl->graph && !strcmp(fl->graph, "-")) {
		cli_errorf(cmd, "%s writes the graph: give it as a file, not standard input",
			   what);
		return EXIT_FAIL;
	}
	ev->graph_file = in_checkout(ev, fl->graph, CHECKOUT_GRAPH, true);
	ev->index_file = in_checkout(ev, fl->index, CHECKOUT_INDEX, true);
	ev->witness_root = in_checkout(ev, fl->witness_root, CHECKOUT_WITNESSES, true);
	if (!ev->graph_file || !ev->index_file || !ev->witness_root) {
		cli_errorf(cmd, "outside a checkout of fak, give --graph FILE, --index FILE and "
				"--witness-root DIR (the compiled-in data cannot be rewritten)");
		return EXIT_FAIL;
	}
	return 0;
}

int evidence_resolve(struct evidence *ev, const char *cmd, const char *what, unsigned needs,
		     const struct ev_flags *flags)
{
	int rc;

	ev->flags = *flags;
	if (!needs)
		return 0;
	if ((rc = recover(ev, cmd)))
		return rc;
	if ((needs & EV_GRAPH) && (rc = load_graph(ev, cmd, needs)))
		return rc;
	if (needs & EV_CHANGE)
		return change_files(ev, cmd, what);
	if (needs & (EV_WITNESS_ROOT | EV_LEDGER_ROOT))
		ev->witness_root = in_checkout(ev, flags->witness_root, CHECKOUT_WITNESSES,
					       (needs & EV_WITNESS_ROOT) || !flags->graph);
	return 0;
}

int evidence_index(const struct evidence *ev, struct index *idx, struct err *e)
{
	const char *file = ev->flags.index;

	return file ? index_load_file(idx, file, e) : index_load_default(idx, e);
}

void evidence_release(struct evidence *ev)
{
	if (ev->have_g)
		graph_release(&ev->g);
	findings_release(&ev->findings);
	free(ev->graph_file);
	free(ev->index_file);
	free(ev->witness_root);
	free(ev->checkout);
	*ev = (struct evidence)EVIDENCE_INIT;
}
