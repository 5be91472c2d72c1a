/* From sealed runs to documents: each arm's receipt is the receipt template
 * of the lever with the measured values filled in, its attestations
 * attached by receipt_attach in repetition order; then the comparison, the
 * gate request (policy from the envelope's criterion) and its verdict. */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attestation/layout.h"
#include "base/file.h"
#include "base/xalloc.h"
#include "experiment/internal.h"
#include "receipt/identity.h"
#include "receipt/gate.h"

/* The finished runs of one arm and kind, by index. */
static size_t runs_of(const struct xp *x, int arm, const char *kind, const struct xp_done **v)
{
	size_t n = 0;

	for (size_t k = 0; k < x->nr_done; k++)
		if (x->steps[k].arm == arm && !strcmp(x->steps[k].kind, kind))
			v[x->steps[k].index] = &x->done[k], n++;
	return n;
}

/* The controls a receipt states as the criterion requires them that no
 * run reports and no envelope pins: a batch-size lever's candidate runs
 * another batch, whatever "batch": 1 says. The envelope pins the prompt
 * and decode tokens (so the context) and the temperature; fak ran the
 * warm-ups and repetitions itself. */
static const char *const not_observed[] = { "batch", "sampling", "cache_state" };

/* One identity member every repetition of arm stated alike, or NULL. */
static const char *stated_alike(const struct xp *x, int arm, size_t off)
{
	const char *v = NULL;

	for (size_t k = 0; k < x->nr_done; k++) {
		const char *s;

		if (x->steps[k].arm != arm || strcmp(x->steps[k].kind, WL_KIND_REPETITION))
			continue;
		s = (const char *)&x->done[k].rep->workload.metrics.identity + off;
		if (!x->done[k].rep->workload.has_metrics || !*s || (v && strcmp(v, s)))
			return NULL;
		v = s;
	}
	return v;
}

/* What fak observed beyond the runs' metrics: the host (CPU model, kernel),
 * the engine's runtime where every repetition's metrics line stated it,
 * and the controls it did not observe. */
static void observed_json(const struct xp *x, int arm, json_t *o)
{
	char cpu[128], kernel[128];
	const char *build = stated_alike(x, arm, offsetof(struct wl_identity, build_commit));
	const char *backends = stated_alike(x, arm, offsetof(struct wl_identity, backends));
	json_t *h = jobj(), *a = jarr();

	xp_host_observed(cpu, sizeof(cpu), kernel, sizeof(kernel));
	jset_str(h, "cpu_model", cpu);
	jset_str(h, "kernel_release", kernel);
	jset_new(o, "host", h);
	if (build || backends) {
		h = jobj();
		if (build)
			jset_str(h, "build_commit", build);
		if (backends)
			jset_str(h, "backends", backends);
		jset_new(o, "engine_runtime", h);
	}
	for (size_t i = 0; i < sizeof(not_observed) / sizeof(not_observed[0]); i++)
		jpush_new(a, json_string(not_observed[i]));
	jset_new(o, "controls_not_observed", a);
}

static json_t *experiment_json(const struct xp *x, int arm)
{
	json_t *o = jobj(), *sched = jarr();
	const struct xp_opts *op = x->o;

	jset_str(o, "id", x->experiment_id);
	jset_str(o, "order", receipt_order_names[op->order]);
	if (op->order == RECEIPT_ORDER_RANDOM)
		jset_int(o, "seed", (long long)op->seed);
	jset_str(o, "metrics_parser", op->parser);
	for (size_t k = 0; k < x->nr_done; k++) {
		const struct receipt_step *s = &x->steps[k];
		const struct attestation *r = x->done[k].rep;
		json_t *u = jobj();

		jset_str(u, "arm", receipt_arm_names[s->arm]);
		jset_str(u, "kind", s->kind);
		jset_int(u, "index", s->index);
		jset_str(u, "started_at_utc", r->command_window.started_at_utc);
		jset_str(u, "attestation_digest", r->digest);
		jpush_new(sched, u);
	}
	jset_new(o, "schedule", sched);
	if (x->sequential)
		jset_new(o, "sequential", xp_sequential_json(x));
	for (size_t k = 0; k < x->nr_done; k++)
		if (x->steps[k].arm == arm && !strcmp(x->steps[k].kind, WL_KIND_QUALITY))
			jset_new(o, "quality_attestation", json_deep_copy(x->done[k].doc));
	observed_json(x, arm, o);
	return o;
}

/* Checks doc, the receipt of an arm with every repetition's attestation
 * attached and bound, as `--attach-receipt` checks an attachment
 * (receipt_attached_check), read back from its text as a reader reads the
 * file: decoded once into *r, every attestation verified once. Steals doc;
 * returns the document read back, or NULL with findings or e. */
static json_t *attached(const struct xp *x, json_t *doc, struct receipt *r, struct findings *out,
			struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	const char *what = NULL;
	size_t k = 0;

	json_write_pretty(&sb, doc);
	json_decref(doc);
	doc = json_parse_strict(sb.buf, sb.len, "receipt", e);
	sb_release(&sb);
	if (!doc || receipt_attached_check(doc, &k, x->o->g, r, &what, out, e) < 0) {
		if (!out->nr)
			findings_addf(out, "attaching repetition %zu: %s", k + 1, e->msg);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* A repetition as its sealed run measured it, with that run attached
 * (*att) and bound to it. */
static void rep_of(const struct xp_done *run, struct receipt_rep *rep,
		   struct receipt_attestation *att)
{
	const struct wl_metrics *m = &run->rep->workload.metrics;

	*att = (struct receipt_attestation){ .json = run->doc };
	*rep = (struct receipt_rep){
		.system_baseline_digest = run->rep->digest,
		.end_to_end_ms = m->end_to_end_ms,
		.tokens_per_second = m->tokens_per_second,
		.has_ttft = m->has_ttft, .ttft_ms = m->ttft_ms,
		.has_prefill = m->has_prefill, .prefill_ms = m->prefill_ms,
		.has_decode = m->has_decode, .decode_ms = m->decode_ms,
		.has_serving = run->rep->workload.serving.present,
		.serving = run->rep->workload.serving,
	};
}

/* The receipt of one arm, attested, and decoded into *dec; NULL with
 * findings or e. */
static json_t *arm_receipt(const struct xp *x, int arm, struct receipt *dec, struct findings *out,
			   struct err *e)
{
	const struct xp_opts *o = x->o;
	size_t n = x->reps;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	const struct xp_done **reps = xcalloc(n + 1, sizeof(*reps)), *quality = NULL;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	const struct attestation **sealed = xcalloc(n + 1, sizeof(*sealed));
	struct receipt t, r;
	struct receipt_rep *rv = NULL;
	struct receipt_attestation *atts = NULL;
	struct receipt_module *mods = NULL;
	const char *cmds[2], *axis = NULL;
	char *axis_buf = NULL;
	struct wl_quality q;
	json_t *tpl, *doc = NULL, *xj = NULL;

	if (runs_of(x, arm, WL_KIND_REPETITION, reps) != n)
		BUG("%zu repetitions planned, not all finished", n);
	runs_of(x, arm, WL_KIND_QUALITY, &quality);
	tpl = receipt_template(o->g, o->lever_id, e);
	if (!tpl || receipt_decode(&t, tpl, NULL, e) < 0) {
		json_decref(tpl);
		goto out;
	}
	json_decref(tpl);
	r = t;
	r.role = receipt_arm_names[arm];
	r.revision = o->revision[arm];
	r.machine.scrubbed_id = x->machine_id;
	if (arm == RECEIPT_ARM_CANDIDATE) {
		axis = axis_buf = xasprintf("lever:%s", x->lever->id);
		r.changed_axes = (struct strlist){ .v = &axis, .n = 1 };
	}
	rv = xcalloc(n + 1, sizeof(*rv));
	atts = xcalloc(n + 1, sizeof(*atts));
	for (size_t i = 0; i < n; i++) {
		sealed[i] = reps[i]->rep;
		rep_of(reps[i], &rv[i], &atts[i]);
	}
	if (x->has_trace) {
		const struct envelope_serving *pin = graph_serving_pin(x->env, x->lever);

		r.has_serving = true;
		r.serving = (struct receipt_serving){ pin->trace_sha256, pin->primary_metric,
						      pin->direction };
	}
	r.reps = rv;
	r.nr_reps = n;
	r.system_baselines = atts;
	r.nr_system_baselines = n;
	r.engine_identity = receipt_identity_of_runs(sealed, n);
	r.controls.repetitions = (long long)n;
	if (receipt_memory_from_reports(sealed, n, &r.memory.peak_bytes, &r.memory.resident_bytes,
					e) < 0) {
		findings_addf(out, "%s memory: %s", receipt_arm_names[arm], e->msg);
		goto out_t;
	}
	if (quality) {
		q = quality->rep->workload.metrics.quality;
	} else if (receipt_quality_from_runs(sealed, n, &q, e) < 0) {
		findings_addf(out, "%s quality: %s", receipt_arm_names[arm], e->msg);
		goto out_t;
	}
	r.quality = (struct receipt_quality){ q.name, q.score, q.higher_is_better };
	mods = xcalloc(o->nr_modules + 1, sizeof(*mods));
	for (size_t i = 0; i < o->nr_modules; i++)
		mods[i] = (struct receipt_module){ o->modules[i].name, o->modules[i].revision };
	r.modules = mods;
	r.nr_modules = o->nr_modules;
	cmds[0] = o->cmd[arm];
	cmds[1] = o->quality_cmd;
	r.commands = (struct strlist){ .v = cmds, .n = o->quality_cmd ? 2 : 1 };
	{
		struct receipt_artifact *arts = xcalloc(o->nr_profile_artifacts + 1, sizeof(*arts));

		for (size_t i = 0; i < o->nr_profile_artifacts; i++)
			arts[i] = (struct receipt_artifact){ x->artifacts[i].path,
							     x->artifacts[i].sha256 };
		r.artifacts = arts;
		r.nr_artifacts = o->nr_profile_artifacts;
		xj = experiment_json(x, arm);
		r.has_experiment = true;
		r.experiment = (struct receipt_experiment){ .json = xj };
		doc = receipt_to_json(&r);
		free(arts);
	}
	doc = attached(x, doc, dec, out, e);
out_t:
	receipt_release(&t);
out:
	json_decref(xj);
	free(axis_buf);
	free(rv);
	free(atts);
	free(mods);
	free(reps);
	free(sealed);
	return doc;
}

static json_t *gate_request_json(const struct xp *x, const json_t *last_accepted,
				 const json_t *candidate)
{
	const json_t *la = x->has_last_accepted ? x->last_accepted.doc : last_accepted;
	const char *rev = json_string_value(json_object_get(la, "revision"));
	json_t *q = jobj(), *policy;

	jset_str(q, "schema", GATE_REQUEST_V2);
	/* the sampled attribution is an explicit choice (--attribution sampled) */
	policy = gate_policy_json(x->o->g, x->lever, rev ? rev : "",
				  !strcmp(x->o->sampler.attribution, ATTRIBUTION_SAMPLED));
	/* and so is a declared engine identity (the policy's last member) */
	if (x->o->allow_declared_identity)
		jset_bool(policy, "allow_declared_identity", true);
	jset_new(q, "policy", policy);
	jset_new(q, "last_accepted", json_deep_copy(la));
	jset_new(q, "candidate", json_deep_copy(candidate));
	return q;
}

const char *const xp_file_names[XP_NR_FILES] = {
	LAYOUT_BASELINE, LAYOUT_CANDIDATE, LAYOUT_COMPARISON, LAYOUT_GATE_REQUEST, LAYOUT_GATE,
	LAYOUT_CHART,
};

/* Writes the bytes of file k of xp_file_names (mode 0600: evidence; the
 * chart 0644) and records their digest. */
static int write_file(const struct xp *x, struct xp_result *res, size_t k, const struct strbuf *sb,
		      struct err *e)
{
	char *path = xasprintf("%s/%s", x->o->out_dir, xp_file_names[k]);
	int rc = file_write_atomic(path, sb->buf, sb->len, k + 1 == XP_NR_FILES ? 0644 : 0600, e);

	sha256_hex(sb->buf, sb->len, res->sha256[k]);
	free(path);
	return rc;
}

/* Writes every file; the documents in docs[] follow xp_file_names. */
static int write_all(const struct xp *x, struct xp_result *res,
		     const json_t *const docs[XP_NR_FILES - 1], struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	size_t k;

	for (k = 0; k < XP_NR_FILES && rc == 0; k++) {
		sb_reset(&sb);
		if (k + 1 < XP_NR_FILES)
			json_write_pretty(&sb, docs[k]);
		else
			x->o->chart_runs(&sb, res->comparison, res->gate, res->aa);
		rc = write_file(x, res, k, &sb, e);
	}
	sb_release(&sb);
	if (rc < 0)
		/* all the files or none of them: remove those written */
		while (k-- > 0) {
			char *path = xasprintf("%s/%s", x->o->out_dir, xp_file_names[k]);

			unlink(path);
			free(path);
		}
	return rc;
}

int xp_assemble(struct xp *x, struct xp_result *res, struct findings *out, struct err *e)
{
	json_t *docs[2] = { NULL, NULL }, *req = NULL;
	struct receipt arms[2];
	const struct receipt *known[3];
	struct gate_request gq;
	struct strbuf sb = STRBUF_INIT;
	const char *what = NULL;
	enum gate_class cls;
	int rv = -1, nr_arms = 0;

	for (; nr_arms < 2; nr_arms++) {
		docs[nr_arms] = arm_receipt(x, nr_arms, &arms[nr_arms], out, e);
		if (!docs[nr_arms])
			goto out;
	}
	res->comparison = receipt_compare(&arms[0], &arms[1], x->o->g, &what, out);
	res->aa = receipt_same_arms(&arms[0], &arms[1]);
	if (!res->comparison) {
		findings_addf(out, "%s", what);
		goto out;
	}
	req = gate_request_json(x, docs[0], docs[1]);
	json_write_pretty(&sb, req);
	/* the gate reads the request as written; its receipts are the arms
	 * (or --last-accepted's), decoded and verified once already */
	known[0] = &arms[0];
	known[1] = &arms[1];
	known[2] = x->has_last_accepted ? &x->last_accepted : NULL;
	if (gate_parse_known(&gq, sb.buf, sb.len, LAYOUT_GATE_REQUEST, known, 3, e) < 0)
		goto out;
	res->gate = gate_evaluate(&gq, x->o->g, &cls, &what, out);
	gate_release(&gq);
	if (!res->gate) {
		/* without --last-accepted, the last accepted receipt is this run's
		 * baseline arm: say which run failed */
		if (!x->has_last_accepted && !strcmp(what, GATE_WHAT_ACCEPTED_QUALITY))
			what = "gate: the baseline arm failed quality (without --last-accepted "
			       "it is the gate's last accepted receipt)";
		findings_addf(out, "%s", what);
		goto out;
	}
	res->gate_class = (int)cls;
	/* a stop that arrived while this was computed: no receipt */
	if ((res->signal = xp_pending_stop())) {
		res->status = XP_INTERRUPTED;
		rv = 0;
		goto out;
	}
	{
		const json_t *const files[XP_NR_FILES - 1] = { docs[0], docs[1], res->comparison,
							       req, res->gate };

		if (write_all(x, res, files, e) < 0)
			goto out;
	}
	res->receipts[0] = json_incref(docs[0]);
	res->receipts[1] = json_incref(docs[1]);
	res->arms[0] = arms[0];
	res->arms[1] = arms[1];
	res->has_arms = true;
	nr_arms = 0;
	rv = 0;
out:
	if (out->nr)
		rv = 0;	/* findings, not an internal error */
	while (nr_arms-- > 0)
		receipt_release(&arms[nr_arms]);
	sb_release(&sb);
	json_decref(req);
	json_decref(docs[0]);
	json_decref(docs[1]);
	return rv;
}
