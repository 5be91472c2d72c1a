#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "cli/cli.h"
#include "cli/np.h"
#include "cli/opts.h"
#include "render/render.h"

static const char usage[] =
	"usage: fak native-performance [--graph FILE] [--format FORMAT | --json]"
	" [--next | --dot | --chart climb [--out FILE]"
	" | --baseline LEVER | --compare BASELINE --candidate CANDIDATE [--chart FILE]"
	" | --attach-receipt RECEIPT --system-baseline ATTESTATION [--out FILE]"
	" | --gate REQUEST [--fail-on-investigate]"
	" | --profile FILE | --profile-next FILE"
	" | --frontdoor-md [--as-of DATE] [--index FILE] [--write-doc FILE | --check-doc FILE]"
	" | --promote DIR|REQUEST [--dry-run] [--index FILE] [--witness-root DIR]"
	" | --verify-witnesses [DIR] [--index FILE]]";

static const char about[] =
	"Shows and checks the committed native-performance evidence graph and the evidence\n"
	"around it. Without a mode it prints the human readout of the graph. Every mode\n"
	"validates the graph first and fails closed. Nothing here runs a model.\n"
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

/* opts_parse: an exit status to return (help, a usage error), or -1 to
 * go on. */
static int parse_opts(const struct opt *opts, int argc, char **argv, int *rest)
{
	switch (opts_parse(NP_CMD, usage, opts, argc, argv, rest)) {
	case OPTS_HELP:
		opts_help(stdout, usage, about, opts);
		return EXIT_OK;
	case OPTS_ERROR:
		return EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	return -1;
}

static int usage_error(const char *why)
{
	cli_errorf(NP_CMD, "%s", why);
	fprintf(stderr, "%s\n", usage);
	return EXIT_USAGE;
}

/* Mode exclusivity and pairing rules; returns 0 or the usage exit code.
 * positional: the first word that is not an option, or NULL. *fmt gets
 * the output format. */
static int check_usage(const struct np_opts *o, const char *positional, enum render_format *fmt)
{
	int modes = 0;

	if (positional) {
		char why[sizeof(((struct err *)0)->msg)];

		snprintf(why, sizeof(why), "unexpected argument '%s'; every input is given with an "
			 "option (see --help)", positional);
		return usage_error(why);
	}
	/* --json and --format go with a report mode, or choose the graph view */
	modes += (o->json || o->format) && !(o->next || o->compare || o->gate || o->profile || o->profile_next);
	modes += o->chart && !o->compare;
	modes += o->next;
	modes += o->dot;
	modes += o->baseline != NULL;
	modes += o->compare || o->candidate;
	modes += o->attach_receipt || o->system_baseline;
	modes += o->gate != NULL;
	modes += o->profile != NULL;
	modes += o->profile_next != NULL;
	modes += o->frontdoor_md;
	modes += o->promote != NULL;
	modes += o->verify_witnesses;
	if (modes > 1)
		return usage_error("choose one mode");
	if ((o->compare != NULL) != (o->candidate != NULL))
		return usage_error("--compare and --candidate go together");
	if ((o->attach_receipt != NULL) != (o->system_baseline != NULL))
		return usage_error("--attach-receipt and --system-baseline go together");
	if (o->out && !o->attach_receipt && !(o->chart && !o->compare))
		return usage_error("--out goes with --attach-receipt and --chart climb");
	if (o->fail_on_investigate && !o->gate)
		return usage_error("--fail-on-investigate goes with --gate");
	if ((o->as_of || o->write_doc || o->check_doc) && !o->frontdoor_md)
		return usage_error("--as-of, --write-doc and --check-doc go with --frontdoor-md");
	if (o->index && !o->frontdoor_md && !o->promote && !o->verify_witnesses)
		return usage_error("--index goes with --frontdoor-md, --promote and --verify-witnesses");
	if (o->dry_run && !o->promote)
		return usage_error("--dry-run goes with --promote");
	if (o->witness_root && !o->promote && !o->verify_witnesses)
		return usage_error("--witness-root goes with --promote and --verify-witnesses");
	if (o->write_doc && o->check_doc)
		return usage_error("choose one of --write-doc and --check-doc");
	{
		const struct {
			const char *name, *value;
		} vals[] = {
			{ "graph", o->graph }, { "baseline", o->baseline }, { "compare", o->compare },
			{ "candidate", o->candidate }, { "attach-receipt", o->attach_receipt },
			{ "system-baseline", o->system_baseline }, { "out", o->out }, { "gate", o->gate },
			{ "profile", o->profile }, { "profile-next", o->profile_next }, { "as-of", o->as_of },
			{ "index", o->index }, { "write-doc", o->write_doc }, { "check-doc", o->check_doc },
			{ "promote", o->promote }, { "witness-root", o->witness_root },
			{ "format", o->format }, { "chart", o->chart },
		};
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			if (vals[i].value && !*vals[i].value) {
				char why[64];

				snprintf(why, sizeof(why), "--%s needs a non-empty value", vals[i].name);
				return usage_error(why);
			}
	}
	{
		char why[256];

		if (np_report_usage(o, fmt, why, sizeof(why)) < 0)
			return usage_error(why);
	}
	return 0;
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
		    { "index", o->index }, { "compare", o->compare }, { "candidate", o->candidate } };
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
				cli_errorf(NP_CMD, "--%s '%s' is the same file as --%s '%s'; fak never "
						   "overwrites its input evidence, so write to another file",
					   outs[i].name, outs[i].path, ins[j].name, ins[j].path);
				return EXIT_FAIL;
			}
	}
	return 0;
}

int cmd_native_performance(int argc, char **argv)
{
	struct np_opts o = { 0 };
	const struct opt opts[] = {
		{ "graph", "FILE", "use graph FILE instead of the committed default", NULL, &o.graph, NULL },
		{ "json", NULL, "emit JSON (the same as --format json)", &o.json, NULL, NULL },
		{ "format", "FORMAT", "text (default), json, md or csv (see FORMAT above)", NULL, &o.format, NULL },
		{ "chart", "climb|FILE", "climb: the hill climb as SVG; with --compare: its runs chart to FILE", NULL, &o.chart, NULL },
		{ "next", NULL, "emit the first dependency-ready unwitnessed lever", &o.next, NULL, NULL },
		{ "dot", NULL, "emit the lever graph as Graphviz DOT", &o.dot, NULL, NULL },
		{ "baseline", "LEVER", "emit a pre-change baseline receipt template for LEVER", NULL, &o.baseline, NULL },
		{ "compare", "FILE", "compare baseline receipt FILE with --candidate FILE (text, or --json)", NULL, &o.compare, NULL },
		{ "candidate", "FILE", "candidate receipt FILE used with --compare", NULL, &o.candidate, NULL },
		{ "attach-receipt", "FILE", "append --system-baseline attestation to receipt FILE", NULL, &o.attach_receipt, NULL },
		{ "system-baseline", "FILE", "system-baseline attestation FILE used with --attach-receipt", NULL, &o.system_baseline, NULL },
		{ "out", "FILE", "write the attachment (mode 0600) or the climb chart to FILE, not stdout", NULL, &o.out, NULL },
		{ "gate", "FILE", "classify a candidate against the last accepted receipt in gate request FILE", NULL, &o.gate, NULL },
		{ "fail-on-investigate", NULL, "with --gate: exit 4 when the classification is investigate", &o.fail_on_investigate, NULL, NULL },
		{ "profile", "FILE", "validate and classify profile bundle FILE", NULL, &o.profile, NULL },
		{ "profile-next", "FILE", "select the next lever from profile bundle FILE", NULL, &o.profile_next, NULL },
		{ "frontdoor-md", NULL, "emit the front-door performance index as Markdown", &o.frontdoor_md, NULL, NULL },
		{ "as-of", "DATE", "front-door date YYYY-MM-DD (default: today, UTC)", NULL, &o.as_of, NULL },
		{ "index", "FILE", "use result rows FILE instead of the committed index", NULL, &o.index, NULL },
		{ "write-doc", "FILE", "replace the generated block between the markers in FILE", NULL, &o.write_doc, NULL },
		{ "check-doc", "FILE", "fail when the generated block in FILE is stale", NULL, &o.check_doc, NULL },
		{ "promote", "DIR", "promote a passing experiment (or gate request) to graph, index, witness", NULL, &o.promote, NULL },
		{ "dry-run", NULL, "with --promote: print the changes as a unified diff, write nothing", &o.dry_run, NULL, NULL },
		{ "witness-root", "DIR", "witness folder root (default: docs/witnesses of the checkout)", NULL, &o.witness_root, NULL },
		{ "verify-witnesses", NULL, "re-verify every witness ([DIR]: the witness root)", &o.verify_witnesses, NULL, NULL },
		{ 0 },
	};
	struct graph g;
	struct findings f = FINDINGS_INIT;
	struct err e;
	struct np_ctx c = { .o = &o, .g = &g };
	int rest, rc;

	if ((rc = parse_opts(opts, argc, argv, &rest)) >= 0)
		return rc;
	if (o.verify_witnesses && rest < argc) {
		/* --verify-witnesses DIR: options may follow DIR too */
		const char *dir = argv[rest], *before = o.witness_root;
		int more = 1;

		o.witness_root = NULL;
		if ((rc = parse_opts(opts, argc - rest, argv + rest, &more)) >= 0)
			return rc;
		rest += more;
		if (before && o.witness_root)
			return usage_error("option '--witness-root' is given twice; give it once");
		if (!o.witness_root)
			o.witness_root = before;
		if (o.witness_root && strcmp(o.witness_root, dir)) {
			cli_errorf(NP_CMD, "--verify-witnesses '%s' and --witness-root '%s' name "
					   "two witness roots; give one", dir, o.witness_root);
			return EXIT_USAGE;
		}
		o.witness_root = dir;
	}
	rc = check_usage(&o, rest < argc ? argv[rest] : NULL, &c.fmt);
	if (!rc)
		rc = check_outputs(&o);
	if (!rc)
		rc = np_recover(&o);
	if (rc)
		return rc;

	if ((o.graph ? graph_load_file(&g, o.graph, &e) : graph_load_default(&g, &e)) < 0)
		return cli_fail(NP_CMD, &e);
	graph_validate(&g, &f);
	if (f.nr) {
		rc = cli_findings(NP_CMD, "invalid native performance graph", &f);
		findings_release(&f);
		graph_release(&g);
		return rc;
	}

	if (o.next)
		rc = np_next(&c);
	else if (o.compare)
		rc = np_compare(&c);
	else if (o.chart)
		rc = np_chart_climb(&c);
	else if (o.dot)
		rc = np_dot(&c);
	else if (o.baseline)
		rc = np_baseline(&c);
	else if (o.attach_receipt)
		rc = np_attach(&c);
	else if (o.gate)
		rc = np_gate(&c);
	else if (o.profile)
		rc = np_profile(&c, false);
	else if (o.profile_next)
		rc = np_profile(&c, true);
	else if (o.frontdoor_md)
		rc = np_frontdoor(&c);
	else if (o.promote)
		rc = np_promote(&c);
	else if (o.verify_witnesses)
		rc = np_verify_witnesses(&c);
	else if (c.fmt == RENDER_JSON)
		rc = np_json(&c);
	else
		rc = np_human(&c);
	graph_release(&g);
	return rc;
}
