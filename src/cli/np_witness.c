/* --promote, --enable and --verify-witnesses. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diff.h"
#include "base/file.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/np.h"
#include "index/index.h"
#include "receipt/ledger.h"
#include "witness/witness.h"

/* SIGINT, SIGTERM or SIGHUP while a promotion is written: say what the
 * next fak command will do with what is on disk, then die of the signal.
 * Only async-signal-safe calls. */
static void stop_during_commit(int sig)
{
#define STOPPED "fak native-performance: promote: interrupted "
	static const char *const msg[] = {
		[WITNESS_PHASE_NONE] = STOPPED "before anything was written; nothing changed\n",
		[WITNESS_PHASE_STAGING] = STOPPED "while staging; nothing visible changed: "
					  "the next fak command rolls the promotion back "
					  "(removes the staged files)\n",
		[WITNESS_PHASE_COMMITTED] = STOPPED "after the commit point; the promotion "
					    "happens: the next fak command completes it\n",
	};
#undef STOPPED
	int ph = witness_commit_phase();
	const char *m = msg[ph >= 0 && ph <= WITNESS_PHASE_COMMITTED ? ph : WITNESS_PHASE_NONE];
	ssize_t ignored = write(STDERR_FILENO, m, strlen(m));

	(void)ignored;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_stop(void (*fn)(int))
{
	signal(SIGINT, fn);
	signal(SIGTERM, fn);
	signal(SIGHUP, fn);
}

/* Which attempt the promotion is, for its output and its dry run. */
static void attempt_line(const struct promotion *p, struct strbuf *sb)
{
	if (p->attempt.recorded)
		sb_addf(sb, "  attempt  %lld of %lld of %s in this envelope (ledger %s, line %lld "
			"of %lld)\n", p->attempt.k, p->attempt.n, p->lever_id, p->ledger,
			p->attempt.started_seq, p->attempt.head_seq);
	else
		sb_adds(sb, "  attempt  not recorded: a manual loop (no experiment, no ledger "
			    "line)\n");
}

/* A graph file fak did not write (by hand, jq -S) is rewritten into fak's
 * layout by any change: say so, and how to normalise it once on its own,
 * so that from then on a change of one lever is a diff of its lines. */
static void layout_note(const struct promotion *p, const struct witness_paths *paths,
			struct strbuf *sb)
{
	struct graph g;
	struct err e;

	if (graph_load_buf(&g, p->old_graph.buf, p->old_graph.len, paths->graph, &e) < 0)
		return;	/* the plan loaded it: it loads */
	if (!np_graph_in_layout(&g, &p->old_graph))
		sb_addf(sb, "  layout   %s is not in fak's layout (that of --json), so this "
			"change also rewrites the rest of it into that layout; to see only the "
			"lever's lines, normalise it once, in a change of its own: fak "
			"native-performance --graph %s --json >%s.new && mv %s.new %s\n",
			paths->graph, paths->graph, paths->graph, paths->graph, paths->graph);
	graph_release(&g);
}

/* What --promote and --enable each do around the one sequence of np_change:
 * plan, refuse or show (--dry-run), write through the journal, report. */
struct change {
	const char *verb;	/* "promote", "enable" */
	const char *would;	/* "promoted", "enabled" */
	int (*plan)(const struct np_opts *o, const struct witness_paths *paths,
		    struct promotion *p, struct findings *f, struct err *e);
	/* the dry run's lines before the diffs (NULL: none) and after them */
	void (*dry_head)(const struct promotion *p, struct strbuf *sb);
	void (*dry_tail)(const struct promotion *p, const struct witness_paths *paths,
			 struct strbuf *sb);
	void (*report)(const struct promotion *p, const struct witness_paths *paths,
		       struct strbuf *sb);
};

static int np_change(const struct np_ctx *c, const struct change *k)
{
	const struct np_opts *o = c->o;
	/* EV_CHANGE: the files, resolved; the plan loads them, once */
	const struct witness_paths paths = { c->ev->graph_file, c->ev->index_file,
					     c->ev->witness_root };
	struct promotion p = { 0 };
	struct findings f = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	int rc = EXIT_OK, committed;

	if (k->plan(o, &paths, &p, &f, &e) < 0) {
		rc = cli_fail(NP_CMD, &e);
		goto out;
	}
	if (f.nr) {
		/* the graph's own findings, as every mode reports them */
		char *what = p.invalid_graph
				     ? xstrdup("invalid native performance graph")
				     : xasprintf("%s: refused; nothing written", k->verb);

		rc = cli_findings(NP_CMD, what, &f);
		free(what);
		goto out;
	}
	if (o->dry_run) {
		sb_addf(&sb, "dry run: nothing written. %s would be %s with:\n", p.lever_id,
			k->would);
		if (k->dry_head)
			k->dry_head(&p, &sb);
		layout_note(&p, &paths, &sb);
		diff_unified(p.old_graph.buf, p.old_graph.len, p.new_graph.buf, p.new_graph.len,
			     paths.graph, &sb);
		diff_unified(p.old_index.buf, p.old_index.len, p.new_index.buf, p.new_index.len,
			     paths.index, &sb);
		if (k->dry_tail)
			k->dry_tail(&p, &paths, &sb);
		cli_out(sb.buf, sb.len);
		goto out;
	}
	on_stop(stop_during_commit);
	committed = witness_promote_commit(&p, &paths, &e);
	on_stop(SIG_DFL);
	if (committed < 0) {
		rc = cli_fail(NP_CMD, &e);
		goto out;
	}
	if (committed > 0)	/* done: the exit status stays 0 */
		cli_errorf(NP_CMD, "%s: %s", k->verb, e.msg);
	k->report(&p, &paths, &sb);
	layout_note(&p, &paths, &sb);
	if (p.next_lever)
		sb_addf(&sb, "next: %s\n", p.next_lever);
	else
		sb_adds(&sb, "next: no lever is ready\n");
	if (!o->graph)
		sb_adds(&sb, "rebuild (make) so the graph compiled into fak "
			     "follows the committed data\n");
	cli_out(sb.buf, sb.len);
out:
	findings_release(&f);
	sb_release(&sb);
	promotion_release(&p);
	return rc;
}

static int plan_promote(const struct np_opts *o, const struct witness_paths *paths,
			struct promotion *p, struct findings *f, struct err *e)
{
	return witness_promote_plan(o->promote, paths, FAK_VERSION, p, f, e);
}

static void promote_tail(const struct promotion *p, const struct witness_paths *paths,
			 struct strbuf *sb)
{
	sb_addf(sb, "new witness folder %s/%s/:\n", paths->root, p->rel);
	for (size_t i = 0; i < p->nr_files; i++)
		sb_addf(sb, "  %s (%zu bytes)\n", p->files[i].path, p->files[i].data.len);
}

static void promote_report(const struct promotion *p, const struct witness_paths *paths,
			   struct strbuf *sb)
{
	sb_addf(sb, "promoted %s in %s: %s\n", p->lever_id, p->envelope_id, p->summary);
	sb_addf(sb, "  witness  %s/%s/ (manifest %s)\n", paths->root, p->rel,
		p->manifest_digest);
	attempt_line(p, sb);
	sb_addf(sb, "  graph    %s: %s witnessed; not enabled: once the default path uses "
		"it, --enable %s --default-path RECEIPT (step 6)\n", paths->graph, p->lever_id,
		p->lever_id);
	if (p->diagnostic)
		sb_addf(sb, "  index    %s: a DIAGNOSTIC row for %s (it quotes no gain; the "
			"envelope's CURRENT row stands)\n", paths->index, p->envelope_id);
	else
		sb_addf(sb, "  index    %s: a CURRENT row for %s%s\n", paths->index,
			p->envelope_id,
			p->demoted ? "; the previous CURRENT row is HISTORICAL" : "");
}

int np_promote(const struct np_ctx *c)
{
	static const struct change k = { "promote", "promoted", plan_promote, attempt_line,
					 promote_tail, promote_report };

	return np_change(c, &k);
}

static int plan_enable(const struct np_opts *o, const struct witness_paths *paths,
		       struct promotion *p, struct findings *f, struct err *e)
{
	return witness_enable_plan(o->enable, o->default_path, paths, p, f, e);
}

static void enable_report(const struct promotion *p, const struct witness_paths *paths,
			  struct strbuf *sb)
{
	sb_addf(sb, "enabled %s in %s: %s\n", p->lever_id, p->envelope_id, p->summary);
	sb_addf(sb, "  graph    %s: %s enabled, present", paths->graph, p->lever_id);
	for (size_t i = 0; i < p->nr_disabled; i++)
		sb_addf(sb, "%s%s", i ? ", " : "; conflicting lever turned off: ",
			p->disabled[i]);
	sb_addf(sb, "\n  index    %s: the witness's row records it\n", paths->index);
}

int np_enable(const struct np_ctx *c)
{
	static const struct change k = { "enable", "enabled", plan_enable, NULL, NULL,
					 enable_report };

	return np_change(c, &k);
}

int np_verify_witnesses(const struct np_ctx *c)
{
	const struct np_opts *o = c->o;
	struct index idx;
	struct witness_summary sum = { 0 };
	struct findings f = FINDINGS_INIT;
	const char *root = c->ev->witness_root;
	const struct findings *graph_findings = c->ev->graph_findings;
	struct err e;
	int rc;

	if (!root) {
		cli_errorf(NP_CMD,
			   "--verify-witnesses: outside a checkout of fak, name the witness root "
			   "(--verify-witnesses DIR)");
		return EXIT_USAGE;
	}
	if (evidence_index(c->ev, &idx, &e) < 0)
		return cli_fail(NP_CMD, &e);
	index_validate(&idx, c->g, &f);
	if (!f.nr)
		witness_verify(root, c->g, &idx, &sum, &f);
	for (size_t i = 0; graph_findings && i < graph_findings->nr; i++)
		findings_addf(&f, "graph: %s", graph_findings->items[i]);
	findings_sort(&f);
	if (f.nr) {
		rc = cli_findings(NP_CMD, "witnesses do not verify", &f);
	} else {
		printf("VERIFIED %zu witness folder%s under %s; %zu external witness%s "
		       "(recorded before fak kept witness folders: they name their issue)\n",
		       sum.verified, sum.verified == 1 ? "" : "s",
		       o->witness_root ? o->witness_root : CHECKOUT_WITNESSES, sum.external,
		       sum.external == 1 ? "" : "es");
		if (sum.has_ledger)
			printf("VERIFIED the attempt ledger " LEDGER_FILE ": %zu line%s, one hash "
			       "chain, every attempt a witness names in it\n", sum.ledger_lines,
			       sum.ledger_lines == 1 ? "" : "s");
		else
			printf("no attempt ledger (" LEDGER_FILE ") yet: no experiment was "
			       "recorded in this witness root\n");
		rc = EXIT_OK;
	}
	findings_release(&f);
	index_release(&idx);
	return rc;
}
