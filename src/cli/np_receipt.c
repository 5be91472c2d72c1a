/* Receipt modes of `fak native-performance`: --baseline, --compare,
 * --attach-receipt and --gate. Each reads, calls one receipt/ function and
 * prints its value or its findings. */
#include <stdbool.h>

#include "base/file.h"
#include "base/json.h"
#include "cli/cli.h"
#include "cli/np.h"
#include "cli/report.h"
#include "receipt/gate.h"
#include "receipt/receipt.h"
#include "render/render.h"
#include "attestation/attest.h"

/* Prints findings under `what` (or the error when there are none). */
static int refuse(const char *what, struct findings *f, const struct err *e)
{
	int rc = f->nr ? cli_findings(NP_CMD, what, f) : cli_fail(NP_CMD, e);

	findings_release(f);
	return rc;
}

int np_baseline(const struct np_ctx *c)
{
	struct err e;
	json_t *doc = receipt_template(c->g, c->o->baseline, &e);

	if (!doc) {
		err_prefix(&e, "baseline template");
		return cli_fail(NP_CMD, &e);
	}
	cli_out_json(doc);
	return EXIT_OK;
}

static void compare_text(struct strbuf *out, const struct render_ab *ab)
{
	render_comparison_text(out, ab->comparison);
}

int np_compare(const struct np_ctx *c)
{
	struct receipt base, cand;
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	char sha[2][65];
	struct err e;
	json_t *doc;
	int rc = EXIT_OK;

	if (receipt_load_sha256(&base, c->o->compare, sha[0], &e) < 0) {
		err_prefix(&e, "compare: baseline");
		return cli_fail(NP_CMD, &e);
	}
	if (receipt_load_sha256(&cand, c->o->candidate, sha[1], &e) < 0) {
		receipt_release(&base);
		err_prefix(&e, "compare: candidate");
		return cli_fail(NP_CMD, &e);
	}
	doc = receipt_compare(&base, &cand, c->g, &what, &f);
	if (!doc) {
		rc = refuse(what, &f, &e);
	} else if (c->o->chart &&
		   np_write_chart(c->o->chart, doc, receipt_same_arms(&base, &cand), &e) < 0) {
		rc = cli_fail(NP_CMD, &e);
	} else {
		const struct render_file files[] = { { "baseline receipt", sha[0] },
						     { "candidate receipt", sha[1] } };
		struct render_ab ab = { .comparison = doc, .files = files, .nr_files = 2 };

		report_ab_arms(&ab, &base, "baseline", &cand);
		report_print_ab(c->fmt, &ab, compare_text, doc);
		report_ab_release(&ab);
	}
	json_decref(doc);
	receipt_release(&base);
	receipt_release(&cand);
	return rc;
}

int np_attach(const struct np_ctx *c)
{
	struct receipt r;
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct attestation_loaded att = ATTESTATION_LOADED_INIT;
	json_t *doc;
	struct err e;
	int rc = EXIT_OK;

	if (receipt_load(&r, c->o->attach_receipt, &e) < 0) {
		err_prefix(&e, "attach system baseline: read receipt");
		return cli_fail(NP_CMD, &e);
	}
	if (attestation_load(c->o->system_baseline, ATTESTATION_PARSED, &att, &e) < 0) {
		err_prefix(&e, "attach system baseline: read system baseline '%s'",
			   c->o->system_baseline);
		attestation_loaded_release(&att);
		receipt_release(&r);
		return cli_fail(NP_CMD, &e);
	}
	doc = receipt_attach(&r, att.doc, c->g, &what, &f, &e);
	attestation_loaded_release(&att);
	receipt_release(&r);
	if (!doc) {
		if (!f.nr)
			err_prefix(&e, "attach system baseline");
		return refuse(what, &f, &e);
	}
	json_write_pretty(&sb, doc);
	json_decref(doc);
	if (!c->o->out) {
		cli_out(sb.buf, sb.len);
	} else if (file_write_atomic(c->o->out, sb.buf, sb.len, 0600, &e) < 0) {
		err_prefix(&e, "attach system baseline");
		rc = cli_fail(NP_CMD, &e);
	}
	sb_release(&sb);
	return rc;
}

int np_gate(const struct np_ctx *c)
{
	struct gate_request q;
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	enum gate_class cls;
	char sha[65];
	struct err e;
	json_t *doc;

	if (gate_load_sha256(&q, c->o->gate, sha, &e) < 0) {
		err_prefix(&e, "gate");
		return cli_fail(NP_CMD, &e);
	}
	doc = gate_evaluate(&q, c->g, &cls, &what, &f);
	if (!doc) {
		gate_release(&q);
		return refuse(what, &f, &e);
	}
	{
		const struct render_file files[] = { { "gate request", sha } };
		struct render_ab ab = { .gate = doc, .policy = &q.policy, .files = files,
					.nr_files = 1 };

		report_ab_arms(&ab, &q.last_accepted, "last_accepted", &q.candidate);
		report_print_ab(c->fmt, &ab, render_gate_text, doc);
		report_ab_release(&ab);
	}
	json_decref(doc);
	gate_release(&q);
	if (cls == GATE_REGRESSION)
		return EXIT_REGRESSION;
	return cls == GATE_INVESTIGATE && c->o->fail_on_investigate ? EXIT_INVESTIGATE : EXIT_OK;
}
