#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "cli/cli.h"
#include "cli/command.h"
#include "cli/np.h"
#include "cli/opts.h"
#include "render/render.h"

/* The usage line: this, then every mode's synopsis (command.c). */
static const char usage[] =
	"usage: fak native-performance [--graph FILE] [--format FORMAT | --json]";

static const char about[] =
	"Shows and checks the committed native-performance evidence graph and the evidence\n"
	"around it. Without a mode it prints the human readout of the graph. Every mode\n"
	"validates the graph first and fails closed. Nothing here runs a model.\n"
	"\n"
	"Your own engine: --new-graph creates a graph (and with --index its front-door index),\n"
	"--add-envelope pins a benchmark set-up (the artifact's sha256 and this machine's\n"
	"platform and memory read by fak; --prompt-tokens, --decode-tokens and\n"
	"--required-evidence are required too) with a criterion of documented defaults, and\n"
	"--add-lever adds an optimization to try. Each validates the whole new graph, writes\n"
	"it atomically in the layout of --json and prints the change as a diff. --set\n"
	"KEY=VALUE sets any other member of the new envelope (criterion.KEY: of its\n"
	"criterion) or lever; docs/graph.md has the defaults.\n"
	"\n"
	"FORMAT: text (the default), json, md (Markdown for a pull request) or csv (one row per\n"
	"repetition) for --compare, --gate, --next, --profile and --profile-next; text or json\n"
	"for the graph itself. --json is --format json.\n"
	"\n"
	"exit status: 0 success (and --gate pass or investigate), 1 invalid input or refusal,\n"
	"2 usage error, 3 --gate regression, 4 --gate investigate with --fail-on-investigate";

int np_human(const struct np_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;

	render_graph_text(&sb, c->g);
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
	return EXIT_OK;
}

int np_json(const struct np_ctx *c)
{
	cli_out_json(graph_to_json(c->g));
	return EXIT_OK;
}

int np_next(const struct np_ctx *c)
{
	const struct lever *l = graph_next(c->g, NULL);
	struct strbuf sb = STRBUF_INIT;

	if (c->fmt == RENDER_JSON) {
		json_t *doc = jobj();

		jset_str(doc, "schema", "fak-native-performance-next/v1");
		jset_new(doc, "lever", l ? graph_lever_json(l) : json_null());
		cli_out_json(doc);
		return EXIT_OK;
	}
	if (c->fmt == RENDER_MD)
		render_next_md(&sb, l);
	else if (c->fmt == RENDER_CSV)
		render_next_csv(&sb, l);
	else
		render_next_text(&sb, l);
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
	return EXIT_OK;
}

int np_dot(const struct np_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;

	render_graph_dot(&sb, c->g);
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
	return EXIT_OK;
}

/* The options, by index in opts[] (the bits of the mode table). */
enum {
	O_GRAPH, O_JSON, O_FORMAT, O_CHART, O_NEXT, O_DOT, O_BASELINE, O_COMPARE, O_CANDIDATE,
	O_ATTACH, O_SYSTEM_BASELINE, O_OUT, O_GATE, O_FAIL_ON_INVESTIGATE, O_PROFILE,
	O_PROFILE_NEXT, O_FRONTDOOR, O_AS_OF, O_INDEX, O_WRITE_DOC, O_CHECK_DOC, O_PROMOTE,
	O_DRY_RUN, O_WITNESS_ROOT, O_VERIFY_WITNESSES,
	O_NEW_GRAPH, O_TITLE, O_ADD_ENVELOPE, O_ARTIFACT, O_MODEL, O_MODEL_REVISION,
	O_QUANTIZATION, O_HARDWARE, O_ENGINE, O_BACKEND, O_FORWARD_PATH, O_PLATFORM,
	O_PROMPT_TOKENS, O_DECODE_TOKENS, O_WARMUPS, O_REPETITIONS, O_REQUIRED_EVIDENCE,
	O_HOST_POLICY, O_ADD_LEVER, O_ENVELOPE, O_NAME, O_EXPECTED, O_PROVENANCE, O_DEPENDS_ON,
	O_CONFLICTS_WITH, O_ISSUE, O_SET, O_ENABLE, O_DEFAULT_PATH, O_SERVE_TRACE, O_PRIMARY_METRIC,
	O_DIRECTION,
};

#define NP(m) struct np_opts, m
static const struct opt opts[] = {
	[O_GRAPH] = { "graph", "FILE", "use graph FILE instead of the committed default",
		      OPT_VALUE(NP(graph)) },
	[O_JSON] = { "json", NULL, "emit JSON (the same as --format json)", OPT_FLAG(NP(json)) },
	[O_FORMAT] = { "format", "FORMAT", "text (default), json, md or csv (see FORMAT above)",
		       OPT_VALUE(NP(format)) },
	[O_CHART] = { "chart", "climb|FILE",
		      "climb: the hill climb as SVG; with --compare: its runs chart to FILE",
		      OPT_VALUE(NP(chart)) },
	[O_NEXT] = { "next", NULL, "emit the first dependency-ready unwitnessed lever",
		     OPT_FLAG(NP(next)) },
	[O_DOT] = { "dot", NULL, "emit the lever graph as Graphviz DOT", OPT_FLAG(NP(dot)) },
	[O_BASELINE] = { "baseline", "LEVER",
			 "emit a pre-change baseline receipt template for LEVER",
			 OPT_VALUE(NP(baseline)) },
	[O_COMPARE] = { "compare", "FILE",
			"compare baseline receipt FILE with --candidate FILE (text, or --json)",
			OPT_VALUE(NP(compare)) },
	[O_CANDIDATE] = { "candidate", "FILE", "candidate receipt FILE used with --compare",
			  OPT_VALUE(NP(candidate)) },
	[O_ATTACH] = { "attach-receipt", "FILE",
		       "append --system-baseline attestation to receipt FILE",
		       OPT_VALUE(NP(attach_receipt)) },
	[O_SYSTEM_BASELINE] = { "system-baseline", "FILE",
				"system-baseline attestation FILE used with --attach-receipt",
				OPT_VALUE(NP(system_baseline)) },
	[O_OUT] = { "out", "FILE",
		    "write the attachment (mode 0600) or the climb chart to FILE, not stdout",
		    OPT_VALUE(NP(out)) },
	[O_GATE] = { "gate", "FILE",
		     "classify a candidate against the last accepted receipt in gate request FILE",
		     OPT_VALUE(NP(gate)) },
	[O_FAIL_ON_INVESTIGATE] = { "fail-on-investigate", NULL,
				    "with --gate: exit 4 when the classification is investigate",
				    OPT_FLAG(NP(fail_on_investigate)) },
	[O_PROFILE] = { "profile", "FILE", "validate and classify profile bundle FILE",
			OPT_VALUE(NP(profile)) },
	[O_PROFILE_NEXT] = { "profile-next", "FILE",
			     "select the next lever from profile bundle FILE",
			     OPT_VALUE(NP(profile_next)) },
	[O_FRONTDOOR] = { "frontdoor-md", NULL, "emit the front-door performance index as Markdown",
			  OPT_FLAG(NP(frontdoor_md)) },
	[O_AS_OF] = { "as-of", "DATE", "front-door date YYYY-MM-DD (default: today, UTC)",
		      OPT_VALUE(NP(as_of)) },
	[O_INDEX] = { "index", "FILE", "use result rows FILE instead of the committed index",
		      OPT_VALUE(NP(index)) },
	[O_WRITE_DOC] = { "write-doc", "FILE",
			  "replace the generated block between the markers in FILE",
			  OPT_VALUE(NP(write_doc)) },
	[O_CHECK_DOC] = { "check-doc", "FILE", "fail when the generated block in FILE is stale",
			  OPT_VALUE(NP(check_doc)) },
	[O_PROMOTE] = { "promote", "DIR",
			"promote a passing experiment (or gate request) to graph, index, witness",
			OPT_VALUE(NP(promote)) },
	[O_DRY_RUN] = { "dry-run", NULL,
			"with --promote or --enable: print the changes as a unified diff, write "
			"nothing",
			OPT_FLAG(NP(dry_run)) },
	[O_WITNESS_ROOT] = { "witness-root", "DIR",
			     "witness folder root (default: docs/witnesses of the checkout)",
			     OPT_VALUE(NP(witness_root)) },
	[O_VERIFY_WITNESSES] = { "verify-witnesses", NULL,
				 "re-verify every witness ([DIR]: the witness root)",
				 OPT_FLAG(NP(verify_witnesses)) },
	[O_NEW_GRAPH] = { "new-graph", "FILE",
			  "create graph FILE for a new engine (and with --index its index)",
			  OPT_VALUE(NP(new_graph)) },
	[O_TITLE] = { "title", "TEXT", "the new index page's title", OPT_VALUE(NP(title)) },
	[O_ADD_ENVELOPE] = { "add-envelope", "ID",
			     "add envelope ID and its criterion to the --graph file",
			     OPT_VALUE(NP(add_envelope)) },
	[O_ARTIFACT] = { "artifact", "FILE", "the model file the envelope pins by its sha256",
			 OPT_VALUE(NP(artifact)) },
	[O_MODEL] = { "model", "TEXT", "the model the envelope measures", OPT_VALUE(NP(model)) },
	[O_MODEL_REVISION] = { "model-revision", "TEXT", "the model's revision (unspecified)",
			       OPT_VALUE(NP(model_revision)) },
	[O_QUANTIZATION] = { "quantization", "TEXT", "the artifact's quantization (unspecified)",
			     OPT_VALUE(NP(quantization)) },
	[O_HARDWARE] = { "hardware", "TEXT", "the machine class (this machine: platform, memory)",
			 OPT_VALUE(NP(hardware)) },
	[O_ENGINE] = { "engine", "NAME", "the engine every receipt must state (llama.cpp, ...)",
		       OPT_VALUE(NP(engine)) },
	[O_BACKEND] = { "backend", "NAME", "cpu (the default), cuda, metal, ...",
			OPT_VALUE(NP(backend)) },
	[O_FORWARD_PATH] = { "forward-path", "TEXT",
			     "the execution path receipts must name (the backend)",
			     OPT_VALUE(NP(forward_path)) },
	[O_PLATFORM] = { "platform", "OS/ARCH", "the envelope's platform (this machine's)",
			 OPT_VALUE(NP(platform)) },
	[O_PROMPT_TOKENS] = { "prompt-tokens", "N", "P: prompt tokens per run (0: decode only)",
			      OPT_VALUE(NP(prompt_tokens)) },
	[O_DECODE_TOKENS] = { "decode-tokens", "N", "T: decoded tokens of every run",
			      OPT_VALUE(NP(decode_tokens)) },
	[O_WARMUPS] = { "warmups", "N", "warm-up runs before the repetitions (1)",
			OPT_VALUE(NP(warmups)) },
	[O_REPETITIONS] = { "repetitions", "N", "measured repetitions per arm (5)",
			    OPT_VALUE(NP(repetitions)) },
	[O_REQUIRED_EVIDENCE] = { "required-evidence", "LIST",
				  "none, or profiler_artifacts and/or module_versions (a,b)",
				  OPT_VALUE(NP(required_evidence)) },
	[O_HOST_POLICY] = { "host-policy", "CPU,DUTY,PSI",
			    "the criterion's sampler ceilings in percent (none: the defaults)",
			    OPT_VALUE(NP(host_policy)) },
	[O_ADD_LEVER] = { "add-lever", "ID", "add lever ID to the --graph file",
			  OPT_VALUE(NP(add_lever)) },
	[O_ENVELOPE] = { "envelope", "ID", "the lever's envelope (the graph's only one)",
			 OPT_VALUE(NP(envelope)) },
	[O_NAME] = { "name", "TEXT", "the lever's name", OPT_VALUE(NP(name)) },
	[O_EXPECTED] = { "expected", "TEXT", "the lever's hypothesis: what it should gain, why",
			 OPT_VALUE(NP(expected)) },
	[O_PROVENANCE] = { "provenance", "TEXT", "where the hypothesis comes from",
			   OPT_VALUE(NP(provenance)) },
	[O_DEPENDS_ON] = { "depends-on", "ID", "a lever this one needs enabled",
			   OPT_LIST(NP(depends_on)) },
	[O_CONFLICTS_WITH] = { "conflicts-with", "ID",
			       "a lever this one excludes, on both sides",
			       OPT_LIST(NP(conflicts_with)) },
	[O_ISSUE] = { "issue", "URL", "the issue that owns the lever, ending in its number",
		      OPT_VALUE(NP(issue)) },
	[O_SET] = { "set", "KEY=VALUE", "set another member of the new envelope or lever",
		    OPT_LIST(NP(set)) },
	[O_ENABLE] = { "enable", "LEVER",
		       "enable a witnessed LEVER once the default path uses it (step 6)",
		       OPT_VALUE(NP(enable)) },
	[O_DEFAULT_PATH] = { "default-path", "RECEIPT",
			     "with --enable: a receipt of the envelope's default command",
			     OPT_VALUE(NP(default_path)) },
	[O_SERVE_TRACE] = { "serve-trace", "FILE",
			    "the arrival trace a serving envelope pins by its sha256",
			    OPT_VALUE(NP(serve_trace)) },
	[O_PRIMARY_METRIC] = { "primary-metric", "METRIC",
			       "with --serve-trace: the metric that decides (ttft_p95_ms, ...)",
			       OPT_VALUE(NP(primary_metric)) },
	[O_DIRECTION] = { "direction", "lower|higher",
			  "with --serve-trace: the primary metric's better way (its own)",
			  OPT_VALUE(NP(direction)) },
	{ 0 },
};
#undef NP

/* Needs no evidence: it creates a graph. */
static int np_new_graph_mode(const struct np_ctx *c)
{
	return np_new_graph(c->o);
}

static int np_graph(const struct np_ctx *c)
{
	return c->fmt == RENDER_JSON ? np_json(c) : np_human(c);
}

static int np_profile_bundle(const struct np_ctx *c)
{
	return np_profile(c, false);
}

static int np_profile_select(const struct np_ctx *c)
{
	return np_profile(c, true);
}

#define B(o) OPT_BIT(O_##o)
#define REPORT (B(JSON) | B(FORMAT))	/* the modes with --format md and csv */
#define G EV_GRAPH			/* the modes that read the graph */
/* Each mode once: its name in messages, its part of the usage line, its help,
 * its handler, the options that choose it and those it takes, and the
 * evidence it needs (cli/evidence.h: resolved once, before the handler). */
static const struct cmd_mode modes[] = {
	{ "--next", "--next", "the first dependency-ready unwitnessed lever", np_next,
	  B(NEXT), 0, REPORT, 0, G },
	{ "--dot", "--dot", "the lever graph as Graphviz DOT", np_dot, B(DOT), 0, 0, 0, G },
	{ "--chart climb", "--chart climb [--out FILE]", "the hill climb as SVG", np_chart_climb,
	  B(CHART), 0, B(OUT), 0, G },
	{ "--baseline", "--baseline LEVER", "a pre-change baseline receipt template", np_baseline,
	  B(BASELINE), 0, 0, 0, G },
	{ "--compare", "--compare BASELINE --candidate CANDIDATE [--chart FILE]",
	  "compare two receipts", np_compare, B(COMPARE) | B(CANDIDATE), B(COMPARE) | B(CANDIDATE),
	  REPORT | B(CHART), 0, G },
	{ "--attach-receipt", "--attach-receipt RECEIPT --system-baseline ATTESTATION [--out FILE]",
	  "attach a system-baseline attestation to a receipt", np_attach,
	  B(ATTACH) | B(SYSTEM_BASELINE), B(ATTACH) | B(SYSTEM_BASELINE), B(OUT), 0, G },
	{ "--gate", "--gate REQUEST [--fail-on-investigate]",
	  "classify a candidate against the last accepted receipt", np_gate, B(GATE), 0,
	  REPORT | B(FAIL_ON_INVESTIGATE), 0, G },
	{ "--profile", "--profile FILE", "validate and classify a profile bundle",
	  np_profile_bundle, B(PROFILE), 0, REPORT, 0, G },
	{ "--profile-next", "--profile-next FILE", "the next lever from a profile bundle",
	  np_profile_select, B(PROFILE_NEXT), 0, REPORT, 0, G },
	{ "--frontdoor-md",
	  "--frontdoor-md [--as-of DATE] [--index FILE] [--write-doc FILE | --check-doc FILE]",
	  "the front-door performance index as Markdown", np_frontdoor, B(FRONTDOOR), 0,
	  B(AS_OF) | B(INDEX) | B(WRITE_DOC) | B(CHECK_DOC), B(WRITE_DOC) | B(CHECK_DOC),
	  G | EV_INDEX },
	{ "--promote", "--promote DIR|REQUEST [--dry-run] [--index FILE] [--witness-root DIR]",
	  "promote a passing experiment to graph, index and witness", np_promote, B(PROMOTE), 0,
	  B(DRY_RUN) | B(INDEX) | B(WITNESS_ROOT), 0, EV_CHANGE },
	{ "--enable", "--enable LEVER --default-path RECEIPT [--dry-run] [--index FILE] "
	  "[--witness-root DIR]", "enable a witnessed lever once the default path uses it",
	  np_enable, B(ENABLE) | B(DEFAULT_PATH), B(ENABLE) | B(DEFAULT_PATH),
	  B(DRY_RUN) | B(INDEX) | B(WITNESS_ROOT), 0, EV_CHANGE },
	{ "--verify-witnesses", "--verify-witnesses [DIR] [--index FILE]",
	  "re-verify every witness", np_verify_witnesses, B(VERIFY_WITNESSES), 0,
	  B(INDEX) | B(WITNESS_ROOT), 0,
	  G | EV_GRAPH_CHANGED_ENVELOPES | EV_INDEX | EV_WITNESS_ROOT },
	{ "--new-graph", "--new-graph FILE [--index FILE --title TEXT]",
	  "create a graph (and its index) for a new engine", np_new_graph_mode, B(NEW_GRAPH), 0,
	  B(INDEX) | B(TITLE), 0, 0 },
	{ "--add-envelope",
	  "--add-envelope ID --artifact FILE --model TEXT --engine NAME [...]",
	  "add an envelope and its criterion to a graph", np_add_envelope, B(ADD_ENVELOPE), 0,
	  B(ARTIFACT) | B(MODEL) | B(MODEL_REVISION) | B(QUANTIZATION) | B(HARDWARE) |
		  B(ENGINE) | B(BACKEND) | B(FORWARD_PATH) | B(PLATFORM) | B(PROMPT_TOKENS) |
		  B(DECODE_TOKENS) | B(WARMUPS) | B(REPETITIONS) | B(REQUIRED_EVIDENCE) |
		  B(HOST_POLICY) | B(SERVE_TRACE) | B(PRIMARY_METRIC) | B(DIRECTION) | B(SET),
	  0, G },
	{ "--add-lever",
	  "--add-lever ID --name TEXT --expected TEXT --issue URL [...]",
	  "add a lever to a graph", np_add_lever, B(ADD_LEVER), 0,
	  B(ENVELOPE) | B(NAME) | B(EXPECTED) | B(PROVENANCE) | B(DEPENDS_ON) |
		  B(CONFLICTS_WITH) | B(ISSUE) | B(SET),
	  0, G },
	{ "the graph view", NULL, "the human readout of the graph (text or json)", np_graph,
	  REPORT, 0, 0, 0, G },
	{ 0 },
};
#undef REPORT
#undef G

static int native_performance(int argc, char **argv);

const struct cmd_spec np_spec = {
	.usage = usage, .about = about, .opts = opts, .modes = modes, .common = B(GRAPH),
	.run = native_performance,
};
#undef B

/* The usage rules: one mode (the table), non-empty values, --format and
 * --chart. positional: the first word that is not an option, or NULL.
 * Returns the mode (*fmt: the output format), or NULL after printing the
 * usage error. */
static const struct cmd_mode *check_usage(const struct np_opts *o, const char *positional,
					  enum render_format *fmt)
{
	const struct cmd_mode *mode;
	char why[sizeof(((struct err *)0)->msg)];
	int empty;

	if (positional) {
		snprintf(why, sizeof(why), "unexpected argument '%s'; every input is given with an "
			 "option (see --help)", positional);
		cmd_usage_error(NP_CMD, &np_spec, why);
		return NULL;
	}
	if (!(mode = cmd_mode_of(NP_CMD, &np_spec, opts_given(opts, o))))
		return NULL;
	if ((empty = opts_empty(opts, o)) >= 0) {
		snprintf(why, sizeof(why), "--%s needs a non-empty value", opts[empty].name);
		cmd_usage_error(NP_CMD, &np_spec, why);
		return NULL;
	}
	if (np_report_usage(o, mode, fmt, why, sizeof(why)) < 0) {
		cmd_usage_error(NP_CMD, &np_spec, why);
		return NULL;
	}
	return mode;
}

/* Output paths are checked before any work: a target that could not be
 * replaced safely, or one that names input evidence (same file), is refused
 * and nothing is read or written. Rewriting the receipt of --attach-receipt
 * or the document of --write-doc in place is what those modes do. */
static int check_outputs(const struct np_opts *o)
{
	const struct {
		const char *name, *path;
	} outs[] = { { "out", o->out }, { "write-doc", o->write_doc },
		     { "chart", o->compare ? o->chart : NULL } },
	  ins[] = { { "graph", o->graph }, { "system-baseline", o->system_baseline },
		    { "index", o->index }, { "compare", o->compare },
		    { "candidate", o->candidate } };
	struct err e;

	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		if (!outs[i].path)
			continue;
		if (file_check_output(outs[i].path, &e) < 0) {
			cli_errorf(NP_CMD, "--%s: %s", outs[i].name, e.msg);
			return EXIT_FAIL;
		}
		for (size_t j = 0; j < sizeof(ins) / sizeof(ins[0]); j++)
			if (ins[j].path && file_same(outs[i].path, ins[j].path)) {
				cli_errorf(NP_CMD, "--%s '%s' is the same file as --%s '%s'; "
						   "fak never overwrites its input evidence, "
						   "so write to another file",
					   outs[i].name, outs[i].path, ins[j].name, ins[j].path);
				return EXIT_FAIL;
			}
	}
	return 0;
}

static int np_main(struct np_opts *o, int argc, char **argv)
{
	const struct cmd_mode *mode;
	struct evidence ev = EVIDENCE_INIT;
	struct np_ctx c = { .o = o, .ev = &ev };
	int rest, rc;

	if ((rc = cmd_parse(NP_CMD, &np_spec, o, argc, argv, &rest)) >= 0)
		return rc;
	if (o->verify_witnesses && rest < argc) {
		/* --verify-witnesses DIR: options may follow DIR too */
		const char *dir = argv[rest], *before = o->witness_root;
		int more = 1;

		o->witness_root = NULL;
		if ((rc = cmd_parse(NP_CMD, &np_spec, o, argc - rest, argv + rest, &more)) >= 0)
			return rc;
		rest += more;
		if (before && o->witness_root)
			return cmd_usage_error(NP_CMD, &np_spec, "option '--witness-root' "
					       "is given twice; give it once");
		if (!o->witness_root)
			o->witness_root = before;
		if (o->witness_root && strcmp(o->witness_root, dir)) {
			cli_errorf(NP_CMD, "--verify-witnesses '%s' and --witness-root '%s' name "
					   "two witness roots; give one", dir, o->witness_root);
			return EXIT_USAGE;
		}
		o->witness_root = dir;
	}
	mode = check_usage(o, rest < argc ? argv[rest] : NULL, &c.fmt);
	rc = mode ? check_outputs(o) : EXIT_USAGE;
	if (!rc)
		rc = evidence_resolve(&ev, NP_CMD, mode->name, mode->needs,
				      &(struct ev_flags){ o->graph, o->index, o->witness_root });
	if (!rc) {
		c.g = ev.have_g ? &ev.g : NULL;
		rc = mode->run(&c);
	}
	evidence_release(&ev);
	return rc;
}

static int native_performance(int argc, char **argv)
{
	struct np_opts o = { 0 };
	int rc = np_main(&o, argc, argv);

	optlist_release(&o.depends_on);
	optlist_release(&o.conflicts_with);
	optlist_release(&o.set);
	return rc;
}
