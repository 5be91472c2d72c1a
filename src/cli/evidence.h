#ifndef FAK_CLI_EVIDENCE_H
#define FAK_CLI_EVIDENCE_H
/* Where the evidence lives, decided once per command. A command (or each
 * mode of one) declares in the command table what it needs (EV_* in
 * cmd_spec.needs or cmd_mode.needs); evidence_resolve finds each from its
 * flag, else the checkout fak runs in, else the compiled-in default, and
 * loads what is loaded once. No other file of src/ spells these rules. */
#include <stdbool.h>

#include "base/err.h"
#include "base/findings.h"
#include "graph/graph.h"
#include "index/index.h"

/* The checkout's evidence, relative to its top folder. */
#define CHECKOUT_DATA "data"
#define CHECKOUT_GRAPH CHECKOUT_DATA "/native-performance-graph.json"
#define CHECKOUT_INDEX CHECKOUT_DATA "/performance-index.json"
#define CHECKOUT_WITNESSES "docs/witnesses"

/* What a command needs (a bit set). Any need first completes or rolls back
 * an interrupted promotion beside the graph file in use. */
enum ev_need {
	/* the graph, loaded and valid: --graph, else the compiled-in one */
	EV_GRAPH = 1 << 0,
	/* with EV_GRAPH: findings that are all envelopes changed under their
	 * witness are kept in ev->graph_findings instead of refused */
	EV_GRAPH_CHANGED_ENVELOPES = 1 << 1,
	/* the index: --index, else the compiled-in one (evidence_index) */
	EV_INDEX = 1 << 2,
	/* the witness root: --witness-root, else the checkout's (may stay NULL) */
	EV_WITNESS_ROOT = 1 << 3,
	/* the attempt ledger's witness root: --witness-root, else the
	 * checkout's when the graph is the committed one (no --graph) */
	EV_LEDGER_ROOT = 1 << 4,
	/* the graph and index files a change rewrites and its witness root:
	 * each flag, else the checkout's; all three or a refusal (the
	 * compiled-in data cannot be rewritten). Nothing is loaded here: the
	 * change reads these files itself, once. */
	EV_CHANGE = 1 << 5,
};

/* The flags that name evidence (NULL: not given). */
struct ev_flags {
	const char *graph, *index, *witness_root;
};

struct evidence {
	struct ev_flags flags;
	struct graph g;			/* EV_GRAPH: loaded and valid (but see below) */
	bool have_g;
	/* EV_GRAPH_CHANGED_ENVELOPES: the graph's findings when every one is an
	 * envelope changed under its witness; else NULL */
	const struct findings *graph_findings;
	struct findings findings;
	/* EV_CHANGE: the files; EV_*ROOT: the root, or NULL when there is none */
	char *graph_file, *index_file, *witness_root;
	char *checkout;			/* the checkout's top folder, or NULL */
	bool looked;			/* checkout was looked for */
};

#define EVIDENCE_INIT { 0 }

/* Resolves what needs declares for cmd (what: the mode, "--promote", for
 * messages). Returns 0, or an exit status after printing why. needs 0
 * resolves nothing. evidence_release in both cases. */
int evidence_resolve(struct evidence *ev, const char *cmd, const char *what, unsigned needs,
		     const struct ev_flags *flags);
/* The index in use: --index, else the compiled-in one (index_release). */
int evidence_index(const struct evidence *ev, struct index *idx, struct err *e);
/* The checkout's top folder, looked for once from the current folder up:
 * the nearest that holds the committed graph and index; NULL outside. */
const char *evidence_checkout(struct evidence *ev);
void evidence_release(struct evidence *ev);

#endif
