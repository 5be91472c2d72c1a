#ifndef FAK_CLI_NP_H
#define FAK_CLI_NP_H
/* `fak native-performance`: parsed options and the mode handlers. The
 * dispatcher (np.c) parses, checks usage, resolves the evidence the mode
 * declares (cli/evidence.h), then calls exactly one handler. Each handler returns
 * an exit code and prints through cli.h. */
#include <stdbool.h>

#include "cli/command.h"
#include "cli/evidence.h"
#include "graph/graph.h"
#include "render/report.h"

#define NP_CMD "native-performance"

struct np_opts {
	const char *graph;	/* --graph FILE (NULL: embedded default) */
	bool json, next, dot;
	const char *baseline;
	const char *compare, *candidate;
	const char *attach_receipt, *system_baseline, *out;
	const char *gate;
	bool fail_on_investigate;	/* --gate: exit 4 on investigate */
	const char *profile, *profile_next;
	bool frontdoor_md;
	const char *as_of, *index, *write_doc, *check_doc;
	const char *promote;		/* --promote DIR|GATE_REQUEST */
	bool dry_run, verify_witnesses;
	const char *witness_root;	/* --witness-root, or --verify-witnesses DIR */
	const char *enable, *default_path;	/* --enable LEVER --default-path RECEIPT */
	const char *format;		/* --format text|json|md|csv */
	const char *chart;		/* --chart climb, or with --compare the SVG file */
	/* graphs written by fak (np_new.c) */
	const char *new_graph, *title;
	const char *add_envelope, *artifact, *model, *model_revision, *quantization, *hardware;
	const char *engine, *backend, *forward_path, *platform, *prompt_tokens, *decode_tokens;
	const char *warmups, *repetitions, *required_evidence, *host_policy;
	const char *serve_trace, *primary_metric, *direction;	/* the serving member */
	const char *add_lever, *envelope, *name, *expected, *provenance, *issue;
	struct optlist depends_on, conflicts_with, set;	/* owned arrays */
};

struct np_ctx {
	const struct np_opts *o;
	/* the evidence the mode declared (its needs in the mode table),
	 * resolved once (cli/evidence.h) */
	const struct evidence *ev;
	const struct graph *g;	/* EV_GRAPH: &ev->g, loaded and valid, but see
				 * ev->graph_findings; else NULL */
	enum render_format fmt;	/* --format, --json, or text */
};

/* The options, modes and help of the command (np.c). */
extern const struct cmd_spec np_spec;

/* graph views (np.c) */
int np_human(const struct np_ctx *c);
int np_json(const struct np_ctx *c);
int np_next(const struct np_ctx *c);
int np_dot(const struct np_ctx *c);

/* reports (np_report.c): the usage rules of --format and --chart (0, or
 * the message in why), --chart climb, and printing a report */
int np_report_usage(const struct np_opts *o, const struct cmd_mode *mode, enum render_format *fmt,
		    char *why, size_t cap);
int np_chart_climb(const struct np_ctx *c);
/* The runs chart of a comparison document into path (0644, atomic); aa:
 * its arms ran the same thing. No gate ran: the chart says so. */
int np_write_chart(const char *path, const json_t *comparison, bool aa, struct err *e);

/* Whether text is g as fak writes a graph (--json's layout, np_new.c):
 * then a change of one lever is a diff of that lever's lines. */
bool np_graph_in_layout(const struct graph *g, const struct strbuf *text);

/* receipts (np_receipt.c) */
int np_baseline(const struct np_ctx *c);
int np_compare(const struct np_ctx *c);
int np_attach(const struct np_ctx *c);
int np_gate(const struct np_ctx *c);

/* profiles (np_profile.c): next=false for --profile, true for --profile-next */
int np_profile(const struct np_ctx *c, bool next);

/* promotion and witnesses (np_witness.c) */
int np_promote(const struct np_ctx *c);
int np_enable(const struct np_ctx *c);
int np_verify_witnesses(const struct np_ctx *c);

/* graphs written by fak (np_new.c): --new-graph needs no evidence (it
 * creates a graph); the --add-* modes rewrite the --graph file */
int np_new_graph(const struct np_opts *o);
int np_add_envelope(const struct np_ctx *c);
int np_add_lever(const struct np_ctx *c);

/* front door (np_frontdoor.c) */
int np_frontdoor(const struct np_ctx *c);

#endif
