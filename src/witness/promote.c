/* --promote: from an experiment folder (or a gate request) to the witness
 * folder, the graph and the index, computed in memory; nothing written. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attestation/layout.h"
#include "base/dates.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/jfields.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "receipt/gate.h"
#include "receipt/ledger.h"
#include "receipt/parity.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"
#include "workload/metrics.h"
#include "attestation/attestation.h"
#include "serve/record.h"
#include "witness/internal.h"
#include "witness/witness.h"

#define READ_CAP ((size_t)64 << 20)

static void add_file(struct promotion *p, const char *path, const char *data, size_t len)
{
	struct witness_file *f;

	p->files = xrealloc(p->files, xmul(p->nr_files + 1, sizeof(*p->files)));
	f = &p->files[p->nr_files++];
	f->path = xstrdup(path);
	memset(&f->data, 0, sizeof(f->data));
	sb_add(&f->data, data, len);
}

static void add_json(struct promotion *p, const char *path, const json_t *doc)
{
	struct strbuf sb = STRBUF_INIT;

	json_write_pretty(&sb, doc);
	add_file(p, path, sb.buf, sb.len);
	sb_release(&sb);
}

static int cmp_files(const void *a, const void *b)
{
	return strcmp(((const struct witness_file *)a)->path,
		      ((const struct witness_file *)b)->path);
}

/* ---- the experiment folder ------------------------------------------------- */

struct source {
	struct strbuf base_bytes, cand_bytes, req_bytes;
	struct receipt base, cand;
	struct gate_request req;
	bool has_base, has_cand, has_req;
};

static void source_release(struct source *s)
{
	if (s->has_base)
		receipt_release(&s->base);
	if (s->has_cand)
		receipt_release(&s->cand);
	if (s->has_req)
		gate_release(&s->req);
	sb_release(&s->base_bytes);
	sb_release(&s->cand_bytes);
	sb_release(&s->req_bytes);
}

static int read_in(const char *dir, const char *name, struct strbuf *sb, struct findings *out)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct err e;
	int rc = file_read(path, READ_CAP, sb, &e);

	if (rc < 0)
		findings_addf(out, "%s: %s", name, e.msg);
	free(path);
	return rc;
}

/* The logs of one verified run: named as its attestation says, the
 * output it sealed, and its stdout re-parses to its metrics. Their
 * digests go to logs. */
static void check_run_logs(const char *ldir, const char *name, const char *stem,
			   const struct attestation *r, json_t *logs, struct findings *out)
{
	static const char *const ext[2] = { "stdout", "stderr" };
	const struct wl_label *lb = &r->workload.label;
	struct receipt_step step = { !strcmp(lb->arm, "candidate"), lb->kind, lb->index };
	char want[64];

	receipt_step_name(&step, want, sizeof(want));
	if (!r->has_workload || strcmp(want, stem))
		findings_addf(out, LAYOUT_ATTESTATIONS "/%s: holds the run %s", name,
			      r->has_workload ? want : "of no experiment");
	for (int k = 0; k < 2; k++) {
		char *lp = xasprintf("%s/%s.%s", ldir, stem, ext[k]), hex[65], summary[256];
		char *rel = xasprintf(LAYOUT_LOGS "/%s.%s", stem, ext[k]);
		const struct wl_stream *st = k ? &r->workload.err : &r->workload.out;
		int64_t bytes;
		struct err e;
		json_t *o = jobj();
		bool found = digest_file(lp, hex, &bytes, &e) == 0;

		if (found && !metrics_log_matches(st, bytes, hex))
			findings_addf(out, "%s: not the output " LAYOUT_ATTESTATIONS "/%s sealed",
				      rel, name);
		else if (!found ||
			 (!k && metrics_verify_log(r, lp, summary, sizeof(summary), &e) < 0))
			findings_addf(out, "%s: %s", rel, e.msg);
		jset_str(o, "path", rel);
		jset_int(o, "bytes", st->bytes);
		jset_str(o, "sha256", st->sha256);
		jpush_new(logs, o);
		free(rel);
		free(lp);
	}
}

/* A serving run's per-request log (logs/NAME.requests.jsonl, whose digest
 * metrics_verify_log checked) summarized again gives exactly what its
 * attestation sealed: the counts, the lag facts and every serving metric. */
static void check_serving_log(const char *ldir, const char *name, const char *stem,
			      const struct attestation *r, struct findings *out)
{
	const struct wl_serving *w = &r->workload.serving;
	char *lp = xasprintf("%s/%s" LAYOUT_REQUESTS, ldir, stem);
	struct strbuf buf = STRBUF_INIT;
	struct serve_log_head h;
	struct serve_record *recs = NULL;
	struct serve_summary s;
	double v[SERVING_NR_METRICS];
	size_t n = 0;
	struct err e;

	if (!w->present || !r->workload.has_metrics)
		goto out;
	if (file_read(lp, SERVE_LOG_CAP, &buf, &e) < 0 ||
	    serve_log_parse(buf.buf, buf.len, &h, &recs, &n, &e) < 0) {
		findings_addf(out, LAYOUT_LOGS "/%s" LAYOUT_REQUESTS ": %s", stem, e.msg);
		goto out;
	}
	serve_summarize(recs, n, h.open_loop, h.max_lag_ms, NULL, &s);
	serve_summary_values(&s, v);
	if (strcmp(h.trace_sha256, w->trace_sha256) || (int64_t)s.requests != w->requests ||
	    (int64_t)s.failed != w->failed || (int64_t)s.late != w->late ||
	    s.fell_behind != w->fell_behind || h.max_lag_ms != w->max_lag_ms) {
		findings_addf(out, LAYOUT_LOGS "/%s" LAYOUT_REQUESTS ": its trace, requests, "
				   "failures or lag differ from what " LAYOUT_ATTESTATIONS
				   "/%s sealed", stem, name);
		goto out;
	}
	for (size_t i = 0; i < SERVING_NR_METRICS; i++)
		if (v[i] != w->values[i]) {
			findings_addf(out, LAYOUT_LOGS "/%s" LAYOUT_REQUESTS ": summarized again, "
					   "%s is %.17g; " LAYOUT_ATTESTATIONS "/%s sealed %.17g",
				      stem,
				      serving_metrics[i].name, v[i], name, w->values[i]);
			break;
		}
out:
	serve_records_release(recs, n);
	sb_release(&buf);
	free(lp);
}

/* One file of attestations/: it verifies, it is a run of the schedule not
 * taken yet (taken[] marks it), and its logs check. Returns whether it
 * matched a run. */
static bool check_run(const char *dir, const char *name, const struct receipt_experiment *x,
		      bool *taken, json_t *logs, struct promotion *p, struct findings *out)
{
	struct attestation_loaded a = ATTESTATION_LOADED_INIT;
	char *path = xasprintf("%s/" LAYOUT_ATTESTATIONS "/%s", dir, name);
	char *ldir = xasprintf("%s/" LAYOUT_LOGS, dir);
	size_t len = strlen(name);
	bool listed = false;
	struct err e;

	if (attestation_load(path, ATTESTATION_VERIFIED, &a, &e) < 0) {
		findings_addf(out, LAYOUT_ATTESTATIONS "/%s: %s", name, e.msg);
	} else {
		char *rel = xasprintf(LAYOUT_ATTESTATIONS "/%s", name),
		     *stem = xstrndup(name, len - 5);

		add_file(p, rel, a.bytes.buf, a.bytes.len);
		for (size_t k = 0; k < x->nr_schedule && !listed; k++)
			if (!taken[k] && !strcmp(x->schedule[k].attestation_digest, a.facts.digest))
				listed = taken[k] = true;
		if (!listed)
			findings_addf(out, LAYOUT_ATTESTATIONS "/%s: %s is not a run of the "
				      "experiment's schedule, or a second copy of one", name,
				      a.facts.digest);
		check_run_logs(ldir, name, stem, a.att, logs, out);
		check_serving_log(ldir, name, stem, a.att, out);
		free(stem);
		free(rel);
	}
	attestation_loaded_release(&a);
	free(ldir);
	free(path);
	return listed;
}

/* Every attestation file verifies; together they are exactly the runs of
 * the schedule, and the receipts embed the repetitions' ones. Every run's
 * logs match what its attestation sealed and re-parse to its metrics. */
static void check_runs(const char *dir, const struct receipt_experiment *x, struct promotion *p,
		       struct findings *out)
{
	char *adir = xasprintf("%s/" LAYOUT_ATTESTATIONS, dir);
	bool *taken = xcalloc(x->nr_schedule + 1, sizeof(*taken));
	size_t matched = 0;
	json_t *logs = jarr(), *o;
	struct dirent **names = NULL;
	int n = scandir(adir, &names, NULL, alphasort);

	if (n < 0)
		findings_addf(out, LAYOUT_ATTESTATIONS "/: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);

		if (name[0] == '.')
			continue;
		if (len < 6 || strcmp(name + len - 5, ".json"))
			findings_addf(out, LAYOUT_ATTESTATIONS "/%s: not an attestation file",
				      name);
		else
			matched += check_run(dir, name, x, taken, logs, p, out);
	}
	if (n >= 0 && matched != x->nr_schedule)
		findings_addf(out, LAYOUT_ATTESTATIONS "/: %zu files for the %zu runs of the "
				   "experiment's schedule", matched, x->nr_schedule);
	if (n >= 0) {
		o = jobj();
		jset_str(o, "schema", "fak-witness-logs/v1");
		jset_str(o, "note", "the logs stay with who ran the experiment; these digests let "
				    "them be checked");
		jset_new(o, "logs", json_incref(logs));
		add_json(p, LAYOUT_WITNESS_LOGS, o);
		json_decref(o);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(taken);
	json_decref(logs);
	free(adir);
}

/* The documents of an experiment folder; refusals go to out. */
static void load_dir(const char *dir, struct source *s, struct promotion *p, struct findings *out)
{
	const struct receipt *const known[2] = { &s->base, &s->cand };
	struct err e;

	if (read_in(dir, LAYOUT_BASELINE, &s->base_bytes, out) < 0 ||
	    read_in(dir, LAYOUT_CANDIDATE, &s->cand_bytes, out) < 0 ||
	    read_in(dir, LAYOUT_GATE_REQUEST, &s->req_bytes, out) < 0)
		return;
	if (receipt_parse(&s->base, s->base_bytes.buf, s->base_bytes.len, LAYOUT_BASELINE,
			  &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_base = true;
	if (receipt_parse(&s->cand, s->cand_bytes.buf, s->cand_bytes.len, LAYOUT_CANDIDATE,
			  &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_cand = true;
	/* its receipts, where they are baseline.json and candidate.json, are
	 * those: decoded and verified once */
	if (gate_parse_known(&s->req, s->req_bytes.buf, s->req_bytes.len, LAYOUT_GATE_REQUEST,
			     known, 2, &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_req = true;
	if (!json_equal(s->req.candidate.doc, s->cand.doc))
		findings_addf(out, LAYOUT_GATE_REQUEST ": its candidate is not " LAYOUT_CANDIDATE);
	if (!s->cand.has_experiment)
		findings_addf(out, LAYOUT_CANDIDATE ": records no experiment; promote a manual "
				   "loop's gate request instead");
	else
		check_runs(dir, &s->cand.experiment, p, out);
	add_file(p, LAYOUT_BASELINE, s->base_bytes.buf, s->base_bytes.len);
	add_file(p, LAYOUT_CANDIDATE, s->cand_bytes.buf, s->cand_bytes.len);
	add_file(p, LAYOUT_GATE_REQUEST, s->req_bytes.buf, s->req_bytes.len);
}

/* A manual loop: the gate request holds both receipts. */
static void load_request(const char *path, struct source *s, struct promotion *p,
			 struct findings *out)
{
	struct err e;

	if (file_read(path, READ_CAP, &s->req_bytes, &e) < 0 ||
	    gate_parse(&s->req, s->req_bytes.buf, s->req_bytes.len, path, &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_req = true;
	/* the request's receipts, taken over: decoded and verified once */
	s->base = s->req.last_accepted;
	s->req.shared_last_accepted = s->has_base = true;
	s->cand = s->req.candidate;
	s->req.shared_candidate = s->has_cand = true;
	add_file(p, LAYOUT_GATE_REQUEST, s->req_bytes.buf, s->req_bytes.len);
	add_json(p, LAYOUT_BASELINE, s->base.doc);
	add_json(p, LAYOUT_CANDIDATE, s->cand.doc);
}

/* ---- the effects ----------------------------------------------------------- */

static bool all_true(const json_t *a)
{
	size_t i;
	const json_t *v;

	if (!json_is_array(a))
		return false;
	json_array_foreach (a, i, v)
		if (!json_is_true(v))
			return false;
	return true;
}

/* The day the candidate's last repetition started. */
static int observed_day(const struct receipt *c, long *day, struct err *e)
{
	int64_t last = 0;

	for (size_t i = 0; i < c->nr_system_baselines; i++) {
		const json_t *w = json_object_get(c->system_baselines[i].json, "command_window");
		const json_t *t = json_object_get(w, "started_at_utc");
		int64_t ns;

		if (json_is_string(t) && timestamp_parse(json_string_value(t), &ns) == 0 &&
		    ns > last)
			last = ns;
	}
	if (!last)
		return err_set(e, "the candidate's attestations record no start time");
	*day = (long)(last / 1000000000 / 86400);
	return 0;
}

/* The comparison's one verdict: "faster", "equivalent", ... */
static const char *verdict_of(const json_t *cmp)
{
	const char *v = json_string_value(json_object_get(json_object_get(cmp, "decision"),
							  "verdict"));

	return v ? v : "";
}

static bool is_null_result(const json_t *cmp)
{
	return !strcmp(verdict_of(cmp), "equivalent");
}

static const json_t *metric_of(const json_t *cmp, const char *m)
{
	return json_object_get(json_object_get(cmp, "statistics"), m);
}

static double num_at(const json_t *o, const char *a, const char *b)
{
	const json_t *x = json_object_get(o, a);

	return json_number_value(b ? json_object_get(x, b) : x);
}

/* "faster: median 7.942 -> 18.18 tok/s (+128.9%, 90% interval
 * +122.6%..+134.4%, n=3+3)", or for a witnessed null "equivalent: no
 * effect beyond +-2%: median ..." */
char *witness_shift_text(const json_t *cmp)
{
	const json_t *t = metric_of(cmp, "tokens_per_second"),
		     *d = json_object_get(cmp, "decision");
	char *nul = is_null_result(cmp)
			    ? xasprintf(" no effect beyond \u00b1%g%%:",
					num_at(d, "practical_threshold_percent", NULL))
			    : xstrdup("");
	char *s = xasprintf("%s:%s median %.4g -> %.4g tok/s (%+.1f%%, %.4g%% interval "
			    "%+.1f%%..%+.1f%%, n=%lld+%lld)",
			    verdict_of(cmp), nul, num_at(t, "baseline", "median"),
			    num_at(t, "candidate", "median"), num_at(d, "shift_percent", NULL),
			    num_at(d, "level", NULL) * 100,
			    num_at(d, "interval_percent", "lower"),
			    num_at(d, "interval_percent", "upper"),
			    (long long)num_at(t, "baseline", "repetitions"),
			    (long long)num_at(t, "candidate", "repetitions"));

	free(nul);
	return s;
}

/* ---- graph and index: each a fresh JSON tree of the current document,
 * changed in place, then written; nothing else changes either ---------- */

json_t *witness_member(json_t *tree, const char *array, const char *id)
{
	json_t *v;
	size_t i;

	json_array_foreach (json_object_get(tree, array), i, v)
		if (!strcmp(json_string_value(json_object_get(v, "id")), id))
			return v;
	return NULL;
}

void witness_turn_on(json_t *tree, const struct lever *l, struct promotion *p)
{
	json_t *o = witness_member(tree, "levers", l->id);

	jset_bool(o, "enabled", true);
	jset_str(o, "status", "present");
	for (size_t i = 0; i < l->conflicts.n; i++) {
		json_t *c = witness_member(tree, "levers", l->conflicts.v[i]);

		if (!c || !json_is_true(json_object_get(c, "enabled")))
			continue;
		jset_bool(c, "enabled", false);
		if (!strcmp(json_string_value(json_object_get(c, "status")), "present"))
			jset_str(c, "status", "partial");
		p->disabled = xrealloc(p->disabled, xmul(p->nr_disabled + 1, sizeof(char *)));
		p->disabled[p->nr_disabled++] = xstrdup(l->conflicts.v[i]);
	}
}

/* The graph's JSON with lever l witnessed (texts: summary, provenance,
 * receipt, envelope digest). Its enabled flag and status stay as they are:
 * enabling is the source's step 6, `--enable` (enable.c), once the default
 * path uses the lever; a witnessed null is never enabled. New reference. */
static json_t *promoted_graph(const struct graph *g, const struct lever *l, char *const texts[4])
{
	json_t *tree = graph_to_json(g), *o = witness_member(tree, "levers", l->id), *w = jobj();

	jset_str(w, "summary", texts[0]);
	jset_str(w, "classification", "witnessed");
	jset_str(w, "provenance", texts[1]);
	jset_str(w, "receipt", texts[2]);
	jset_str(w, "envelope_digest", texts[3]);
	jset_new(o, "witnessed", w);
	return tree;
}

/* A CURRENT results row made HISTORICAL: kept as predecessor context,
 * durably (retention names what superseded it). New reference. */
static json_t *demoted_row(json_t *r, const char *retention)
{
	json_t *nr = jobj(), *v;
	const char *k;

	json_object_foreach (r, k, v) {
		if (!strcmp(k, "lifecycle"))
			jset_str(nr, k, "HISTORICAL");
		else if (!strcmp(k, "review_by") || !strcmp(k, "retention"))
			jset_str(nr, "retention", retention);
		else if (strcmp(k, "at_review") && strcmp(k, "retain_reason"))
			jset_new(nr, k, json_incref(v));
	}
	if (!json_object_get(nr, "retention"))
		jset_str(nr, "retention", retention);
	return nr;
}

/* The index's JSON with the CURRENT row of key (NULL: none) demoted and row
 * (stolen) appended; *demoted gets key when a row was demoted. New
 * reference. */
static json_t *promoted_index(const struct index *idx, json_t *row, const char *key,
			      const char *retention, char **demoted)
{
	json_t *tree = json_deep_copy(idx->doc), *results = json_object_get(tree, "results"), *r;
	size_t i;

	json_array_foreach (results, i, r) {
		const char *lc = json_string_value(json_object_get(r, "lifecycle"));

		if (!key || !lc || strcmp(lc, "CURRENT") ||
		    strcmp(json_string_value(json_object_get(r, "envelope_key")), key))
			continue;
		json_array_set_new(results, i, demoted_row(r, retention));
		free(*demoted);
		*demoted = xstrdup(key);
	}
	json_array_append_new(results, row);
	return tree;
}

/* What a reader of a promoted claim must see beside "sealed": that the
 * host was judged by the criterion's own ceilings, not the sampler's
 * defaults; "" without a host policy. Owned by the caller. */
static char *host_note(const struct criterion *c)
{
	const struct host_policy *h = &c->host_policy;

	if (!c->has_host_policy)
		return xstrdup("");
	return xasprintf(", the host judged by the criterion's host policy (non-SUT CPU at most "
			 "%g%%, sampler duty at most %g%%, PSI stall at most %g%%), not the "
			 "sampler's defaults",
			 h->maximum_non_sut_cpu_percent, h->maximum_sampler_duty_percent,
			 h->maximum_psi_stall_percent);
}

/* An index row of the witness folder rel (texts stolen), in the index's key
 * order. New object. */
static json_t *row_json(const struct envelope *env, const char *rel, long day, long review_days,
			const char *lifecycle, char *highlight, char *status, char *engine,
			bool quotes_gain)
{
	json_t *o = jobj();
	char d[11], r[11];
	char *s;

	date_format(day, d);
	date_format(day + review_days, r);
	jset_str(o, "lifecycle", lifecycle);
	jset_str(o, "envelope_key", env->id);
	jset_str(o, "highlight", highlight);
	jset_str(o, "status", status);
	s = xasprintf(WITNESS_REF_PREFIX "%s", rel);
	jset_str(o, "evidence", s);
	free(s);
	jset_str(o, "observed", d);
	jset_str(o, "review_by", r);
	jset_str(o, "at_review", "remove");
	s = xasprintf("%s at revision %s", env->model, env->model_revision);
	jset_str(o, "model", s);
	free(s);
	jset_str(o, "artifact", env->quantization);
	jset_str(o, "engine", engine);
	jset_str(o, "hardware", env->hardware);
	jset_str(o, "metric", env->throughput_metric);
	jset_str(o, "quality", "pass");
	jset_bool(o, "quotes_gain", quotes_gain);
	free(highlight);
	free(status);
	free(engine);
	return o;
}

static json_t *new_row(const struct envelope *env, const char *rel, const json_t *cmp, long day,
		       long review_days, const char *lever, bool sealed, const char *host,
		       const char *attempt)
{
	char *t2 = witness_shift_text(cmp);
	char *hl = xasprintf("%s: %s with lever %s.", env->throughput_metric, t2, lever);
	char *st = xasprintf("%s: gate pass against the accepted baseline; %s%s; decision %s; %s.",
			     is_null_result(cmp) ? "NULL RESULT" : "PASS",
			     sealed ? "every repetition measured and sealed by fak"
				    : "the repetitions' values were typed in a manual loop, "
				      "not sealed by fak",
			     host,
			     json_string_value(json_object_get(json_object_get(cmp, "decision"),
							       "summary")),
			     attempt);

	free(t2);
	/* a witnessed null explains why a lever stays off; it is no newer
	 * result of the envelope, whose CURRENT row stands; only a faster
	 * verdict is a gain, a witnessed null quotes none */
	return row_json(env, rel, day, review_days,
			is_null_result(cmp) ? "DIAGNOSTIC" : "CURRENT", hl, st,
			xasprintf("%s %s", env->engine, env->forward_path),
			!strcmp(verdict_of(cmp), "faster"));
}

/* The manifest's "attempt": null for a manual loop. New reference. */
static json_t *attempt_json(const struct witness_attempt *a)
{
	return a->recorded ? jf_to_json(witness_attempt_fields, a) : json_null();
}

/* "attempt 2 of 3" or "attempt not recorded (a manual loop)". Caller frees. */
static char *attempt_words(const struct witness_attempt *a)
{
	if (!a->recorded)
		return xstrdup("attempt not recorded (a manual loop)");
	return xasprintf("attempt %lld of %lld", a->k, a->n);
}

static json_t *manifest_json(const struct promotion *p, const struct envelope *env,
			     const char *lever, const char *day, const char *version,
			     const char *graph_sha)
{
	json_t *m = jobj(), *files = jarr();
	char edig[JSON_DIGEST_LEN + 1];
	struct err e;

	if (graph_envelope_digest(env, edig, &e) < 0)
		BUG("envelope digest: %s", e.msg);

	jset_str(m, "schema", WITNESS_MANIFEST_SCHEMA);
	jset_str(m, "envelope_id", env->id);
	jset_str(m, "lever_id", lever);
	jset_str(m, "observed_on", day);
	jset_str(m, "fak_version", version);
	jset_str(m, "graph_sha256", graph_sha);
	/* the complete envelope the lever is witnessed in: a later edit of any
	 * member is named by --verify-witnesses */
	jset_str(m, "envelope_digest", edig);
	jset_new(m, "envelope", graph_envelope_json(env));
	jset_new(m, "attempt", attempt_json(&p->attempt));
	for (size_t i = 0; i < p->nr_files; i++) {
		json_t *f = jobj();
		char hex[65];

		sha256_hex(p->files[i].data.buf, p->files[i].data.len, hex);
		jset_str(f, "path", p->files[i].path);
		jset_int(f, "bytes", (long long)p->files[i].data.len);
		jset_str(f, "sha256", hex);
		jpush_new(files, f);
	}
	jset_new(m, "files", files);
	return m;
}

/* When the receipts do not validate against the graph: say so when the
 * reason is that they were made against another graph (their lever or
 * envelope is not in it, or its criterion is another). */
static void other_graph(const struct receipt *r, const struct graph *g, const char *path,
			struct findings *out)
{
	const struct lever *l = graph_lever(g, r->changed_lever_id);
	const struct envelope *env = graph_envelope(g, r->envelope_id);
	const struct criterion *c = env ? graph_criterion(g, env->id) : NULL;
	char digest[JSON_DIGEST_LEN + 1];
	struct err e;

	if (!l || !env)
		findings_addf(out, "the experiment was made against another graph: '%s' has no "
				   "%s \"%s\"", path, l ? "envelope" : "lever",
			      l ? r->envelope_id : r->changed_lever_id);
	else if (c && graph_criterion_digest(c, digest, &e) == 0 &&
		 strcmp(digest, r->comparison.criterion_digest))
		findings_addf(out, "the experiment was made against another graph: the criterion "
				   "of envelope \"%s\" in '%s' is %s, the receipts' %s; run the "
				   "experiment again", env->id, path, digest,
			      r->comparison.criterion_digest);
}

/* ---- the phases of a promotion -------------------------------------------
 *
 * Each phase takes the plan as the phases before it left it and returns -1
 * with e set on an internal error (I/O), else 0; a refusal is a finding in
 * out, and witness_promote_plan runs no further phase after one. */

struct plan {
	const char *from, *version;
	const struct witness_paths *paths;
	bool from_dir;			/* an experiment folder, not a gate request */
	bool parity;			/* a parity campaign's folder (par) */
	/* how findings name the gate request ("gate-request.json" in a folder,
	 * else the file passed) and its two receipts */
	char *req_name, *arm_names[2];
	struct graph g;
	struct index idx;
	bool have_g, have_idx;
	struct source s;
	json_t *cmp, *verdict;		/* recomputed comparison and gate verdict */
	enum gate_class cls;		/* the verdict's class */
	const struct lever *l;		/* the lever promoted, in g */
	const struct envelope *env;
	bool sealed;			/* every repetition measured and sealed by fak */
	long observed;			/* day of the candidate's last repetition */
	char day[11];
	/* The experiment's attempt in the ledger (load_attempt, before the
	 * comparison is judged): attempt k of n of the lever in its envelope,
	 * for a decision rule that widens its interval for n attempts. */
	struct witness_attempt attempt;
	/* why the attempt is refused: reported with the other findings, not
	 * before them (the phases after it still run) */
	struct findings attempt_refusals;
	/* a parity campaign's folder (parity.json), not an A/B's: parity */
	struct witness_parity par;
};

/* How findings name the receipts: the files of an experiment folder, the
 * members of a manual loop's gate request. */
static const char *s_name(const struct plan *pl, int arm)
{
	return pl->arm_names[arm];
}

int witness_load_state(const struct witness_paths *paths, struct promotion *p, struct graph *g,
		       bool *have_g, struct index *idx, bool *have_idx, struct findings *out,
		       struct err *e)
{
	if (file_read(paths->graph, GRAPH_MAX_BYTES, &p->old_graph, e) < 0 ||
	    graph_load_buf(g, p->old_graph.buf, p->old_graph.len, paths->graph, e) < 0)
		return -1;
	*have_g = true;
	if (file_read(paths->index, INDEX_MAX_BYTES, &p->old_index, e) < 0)
		return -1;
	graph_validate(g, out);
	if ((p->invalid_graph = out->nr > 0))
		return 0;
	if (index_load_buf(idx, p->old_index.buf, p->old_index.len, paths->index, e) < 0)
		return -1;
	*have_idx = true;
	index_validate(idx, g, out);
	return 0;
}

static int load_state(struct plan *pl, struct promotion *p, struct findings *out, struct err *e)
{
	return witness_load_state(pl->paths, p, &pl->g, &pl->have_g, &pl->idx, &pl->have_idx, out,
				  e);
}

/* The receipts and the gate request, from the folder (every run checked)
 * or the request file; their bytes become witness files. */
static int load_inputs(struct plan *pl, struct promotion *p, struct findings *out, struct err *e)
{
	if (pl->parity) {
		if (witness_parity_read(pl->from, &pl->par, e) < 0) {
			findings_addf(out, "%s", e->msg);
			return 0;
		}
		check_runs(pl->from, &pl->par.x, p, out);
		witness_parity_runs(pl->from, &pl->par,
				    graph_criterion(&pl->g, pl->par.envelope_id), out);
		add_file(p, PARITY_FILE, pl->par.bytes.buf, pl->par.bytes.len);
	} else if (pl->from_dir)
		load_dir(pl->from, &pl->s, p, out);
	else
		load_request(pl->from, &pl->s, p, out);
	return 0;
}

/* attempt.json of an experiment folder (strict): its experiment id and
 * the digest of its started line. */
static int read_record(const char *dir, char id[33], char started[JSON_DIGEST_LEN + 1],
		       struct err *e)
{
	char *path = xasprintf("%s/" LEDGER_RECORD_FILE, dir);
	struct strbuf sb = STRBUF_INIT;
	struct ledger_record r;
	int rc = -1;

	if (file_read(path, LEDGER_LINE_MAX * 4, &sb, e) == 0 &&
	    ledger_record_parse(sb.buf, sb.len, LEDGER_RECORD_FILE, &r, e) == 0) {
		strcpy(id, r.experiment_id);
		strcpy(started, r.started_digest);
		ledger_record_release(&r);
		rc = 0;
	}
	sb_release(&sb);
	free(path);
	return rc;
}

/* The experiment's attempt is in the ledger of the witness root this
 * promotion writes to: its started line (by experiment id, the digest its
 * attempt.json names) and its ended line; k and n follow. A manual loop
 * has no attempt. */
static int load_attempt(struct plan *pl, struct promotion *p, struct findings *unused,
			struct err *e)
{
	struct findings *out = &pl->attempt_refusals;
	struct witness_attempt *a = &pl->attempt;
	const struct ledger_line *st, *en;
	const struct envelope *env;
	char id[33], started[JSON_DIGEST_LEN + 1], edig[JSON_DIGEST_LEN + 1];
	struct ledger l;
	struct err le;
	/* the experiment, its lever and envelope: the receipts', or parity.json's */
	const char *xid = pl->parity ? pl->par.experiment_id : pl->s.cand.experiment.id;
	const char *lever = pl->parity ? pl->par.lever_id : pl->s.cand.changed_lever_id;
	const char *envid = pl->parity ? pl->par.envelope_id : pl->s.cand.envelope_id;

	(void)unused;
	p->ledger = xasprintf("%s/" LEDGER_FILE, pl->paths->root);
	if (!pl->parity && (!pl->from_dir || !pl->s.has_cand || !pl->s.cand.has_experiment))
		return 0;
	if (read_record(pl->from, id, started, &le) < 0) {
		findings_addf(out, "%s; the experiment's attempt was not recorded (run without a "
				   "witness root): run it again with --witness-root %s so that it "
				   "counts, and promote that one", le.msg, pl->paths->root);
		return 0;
	}
	if (strcmp(id, xid))
		findings_addf(out, LAYOUT_ATTEMPT ": names experiment %s, the receipts %s", id,
			      xid);
	if (ledger_load(p->ledger, &l, &le) < 0) {
		findings_addf(out, "%s", le.msg);
		return 0;
	}
	st = ledger_find(&l, id, LEDGER_STARTED);
	en = ledger_find(&l, id, LEDGER_ENDED);
	env = graph_envelope(&pl->g, envid);
	if (l.missing || !st)
		findings_addf(out, "attempt %s is not in the ledger '%s'%s: the experiment was "
				   "recorded in another witness root; promote into that one "
				   "(--witness-root), or run the experiment again with "
				   "--witness-root %s", id, p->ledger,
			      l.missing ? " (it does not exist)" : "", pl->paths->root);
	else if (strcmp(st->digest, started))
		findings_addf(out, LAYOUT_ATTEMPT ": its started line is %s, the ledger's line "
				   "%lld for experiment %s is %s", started, st->seq, id,
			      st->digest);
	else if (!en)
		findings_addf(out, "the ledger '%s' records no end of attempt %s (it did not "
				   "finish); run the experiment again", p->ledger, id);
	else if (strcmp(st->lever_id, lever) ||
		 strcmp(st->envelope_id, envid))
		findings_addf(out, "the ledger's attempt %s is of lever %s in %s, the receipts' "
				   "of %s in %s", id, st->lever_id, st->envelope_id,
			      lever, envid);
	else if (env && graph_envelope_digest(env, edig, e) == 0 &&
		 strcmp(edig, st->envelope_digest))
		findings_addf(out, "envelope \"%s\" is %s in '%s', %s when attempt %s ran: the "
				   "envelope changed since; run the experiment again", env->id,
			      edig, pl->paths->graph, st->envelope_digest, id);
	else {
		a->recorded = true;
		strcpy(a->experiment_id, id);
		a->k = (long long)ledger_attempt_number(&l, id);
		a->n = (long long)ledger_attempts(&l, st->lever_id, st->envelope_digest);
		a->started_seq = st->seq;
		a->ended_seq = en->seq;
		a->head_seq = (long long)l.nr;
		strcpy(a->started, st->digest);
		strcpy(a->ended, en->digest);
		strcpy(a->head, ledger_head(&l));
		p->attempt = *a;
	}
	ledger_release(&l);
	return 0;
}

/* The comparison and the gate, recomputed against the graph. */
static int recompute(struct plan *pl, struct promotion *p, struct findings *out, struct err *e)
{
	const char *what = NULL;
	size_t attempts;

	(void)p;
	(void)e;
	if (pl->parity)
		return 0;	/* derived again from the runs by load_inputs */
	/* the decision widened for every attempt of the lever so far
	 * (docs/receipts.md, "Attempts"); a manual loop counts as one */
	attempts = pl->attempt.recorded && pl->attempt.n > 1 ? (size_t)pl->attempt.n : 1;
	pl->cmp = receipt_compare_attempts(&pl->s.base, &pl->s.cand, &pl->g, attempts, &what, out);
	if (!pl->cmp) {
		findings_addf(out, "%s", what);
		other_graph(&pl->s.cand, &pl->g, pl->paths->graph, out);
		return 0;
	}
	pl->s.req.attempts = attempts;
	pl->verdict = gate_evaluate(&pl->s.req, &pl->g, &pl->cls, &what, out);
	if (!pl->verdict)
		findings_addf(out, "%s", what);
	return 0;
}

/* The gate request's policy is the strict one of the envelope's criterion,
 * not whatever the file says. */
static void check_policy(const struct plan *pl, struct findings *out)
{
	json_t *want = gate_policy_json(&pl->g, pl->l, pl->s.req.last_accepted.revision, false), *v;
	const json_t *have = json_object_get(pl->s.req.doc, "policy");
	const char *k;

	json_object_foreach (want, k, v)
		if (!json_same(v, json_object_get(have, k)))
			findings_addf(out, "%s: policy.%s is not what envelope \"%s\"'s "
				      "criterion implies for a strict promotion", pl->req_name, k,
				      pl->s.req.policy.envelope_id);
	if (json_object_size(have) != json_object_size(want))
		findings_addf(out, "%s: the policy has members the strict policy has not",
			      pl->req_name);
	json_decref(want);
}

/* The arms differ, and the envelope is as the receipts found it (the
 * decision judges the effect: check_consistency). */
static void check_arms(const struct plan *pl, struct findings *out)
{
	const struct source *s = &pl->s;
	struct receipt_aa aa;

	receipt_arms_compare(&s->base, &s->cand, &aa);
	if (aa.same) {
		struct strbuf why = STRBUF_INIT;

		receipt_aa_why(&aa, &s->base, &s->cand, &why);
		findings_addf(out, "%s and %s: %s: " RECEIPT_AA_NOTE "; an A/B needs a candidate "
				   "that differs", s_name(pl, 0), s_name(pl, 1), why.buf);
		sb_release(&why);
	}
	receipt_state_check(&s->cand, &pl->g, s_name(pl, 1), out);
	if (!s->base.has_envelope_state || !s->cand.has_envelope_state ||
	    !json_equal(s->base.envelope_state.json, s->cand.envelope_state.json))
		receipt_state_check(&s->base, &pl->g, s_name(pl, 0), out);
}

/* An experiment folder is sealed throughout, and its gate request's
 * last_accepted is its baseline or another sealed receipt. */
static void check_sealed(struct plan *pl, struct findings *out)
{
	const json_t *bound = json_object_get(pl->cmp, "metrics_bound");
	json_t *b;

	pl->sealed = all_true(json_object_get(bound, "candidate")) &&
		     all_true(json_object_get(bound, "baseline"));
	if (!pl->from_dir)
		return;
	if (!pl->sealed)
		findings_addf(out, "the receipts of an experiment folder are sealed throughout; "
			      "some repetitions are not (see --compare)");
	if (json_equal(pl->s.req.last_accepted.doc, pl->s.base.doc))
		return;
	b = receipt_metrics_bound_json(&pl->s.req.last_accepted);
	if (!all_true(b))
		findings_addf(out, LAYOUT_GATE_REQUEST ": its last_accepted is another receipt "
				   "than " LAYOUT_BASELINE ", and not a sealed one");
	json_decref(b);
}

/* The lever's typed next witness (docs/graph.md, "Typed next witnesses"):
 * what the experiment must be, beyond a passing A/B. */
static void check_requirement(const struct plan *pl, struct findings *out)
{
	const struct witness_requirement *r = &pl->l->requirement;

	if (!pl->l->has_requirement || !strcmp(r->kind, "decode"))
		return;
	if (!strcmp(r->kind, "serving")) {
		/* a serving receipt of the trace its envelope (or its lever)
		 * pins (the same trace in both arms: the comparison checked
		 * their equality) */
		const struct receipt *c = &pl->s.cand;
		const struct envelope *env = graph_envelope(&pl->g, pl->l->app.envelope_id);
		const struct envelope_serving *pin = env ? graph_serving_pin(env, pl->l) : NULL;

		if (!c->has_serving || !pin)
			findings_addf(out, "lever \"%s\" needs a serving receipt (its "
					   "next_witness_requirement): %s is a decode A/B, which "
					   "does not witness it; run fak bench experiment "
					   "--serve-trace in an envelope that pins a trace "
					   "(docs/serving.md)", pl->l->id, s_name(pl, 1));
		else if (strcmp(c->serving.trace_sha256, pin->trace_sha256))
			findings_addf(out, "lever \"%s\" needs a serving receipt of trace %s, "
					   "which %s \"%s\" pins; %s replayed %s",
				      pl->l->id, pin->trace_sha256,
				      pin == &env->serving ? "envelope" : "lever",
				      pin == &env->serving ? env->id : pl->l->id,
				      s_name(pl, 1), c->serving.trace_sha256);
		return;
	}
	if (!strcmp(r->kind, "parity")) {
		findings_addf(out, "lever \"%s\" needs a parity campaign of %s against %s on "
				   "one artifact and envelope (its next_witness_requirement): "
				   "its result is a ratio labelled parity, never a throughput "
				   "witness of either engine; a throughput A/B does not witness it",
			      pl->l->id, r->engines.v[0], r->engines.v[1]);
		return;
	}
	/* numerical: every threshold, on every candidate run */
	witness_check_numerical(pl->l, &pl->s.cand, s_name(pl, 1), out);
}

/* A parity campaign witnesses only a lever whose next witness is one, of
 * the same two engines in the same order, in the envelope as it ran. */
static void check_parity(struct plan *pl, struct findings *out)
{
	const struct witness_parity *w = &pl->par;
	const struct lever *l = graph_lever(&pl->g, w->lever_id);
	const struct witness_requirement *r = l ? &l->requirement : NULL;
	const struct envelope *env = graph_envelope(&pl->g, w->envelope_id);
	char edig[JSON_DIGEST_LEN + 1];
	struct err e;

	pl->l = l;
	if (!l || !env || strcmp(l->app.envelope_id, env->id)) {
		findings_addf(out, "the campaign was made against another graph: '%s' has no lever "
				   "\"%s\" of envelope \"%s\"", pl->paths->graph, w->lever_id,
			      w->envelope_id);
		return;
	}
	if (!l->has_requirement || strcmp(r->kind, "parity"))
		findings_addf(out, "lever \"%s\" needs %s (its next_witness_requirement), not a "
				   "parity campaign: a ratio of two engines witnesses no lever "
				   "of one", l->id, l->has_requirement ? r->kind : "a decode A/B");
	else if (strcmp(r->engines.v[0], w->engines[0]) || strcmp(r->engines.v[1], w->engines[1]))
		findings_addf(out, "lever \"%s\" needs a parity campaign of %s against %s; %s "
				   "ran %s against %s", l->id, r->engines.v[0], r->engines.v[1],
			      PARITY_FILE, w->engines[0], w->engines[1]);
	if (graph_envelope_digest(env, edig, &e) == 0 && strcmp(edig, w->envelope_digest))
		findings_addf(out, "envelope \"%s\" is %s in '%s', %s when the campaign ran: the "
				   "envelope changed since; run the campaign again", env->id, edig,
			      pl->paths->graph, w->envelope_digest);
	pl->sealed = true;
	if (!graph_lever_ready(&pl->g, l))
		findings_addf(out, "lever \"%s\" is not ready in '%s' any more (enabled, "
			      "witnessed, or a dependency off): the graph changed since the "
			      "campaign; run it again", l->id, pl->paths->graph);
	else
		pl->env = env;
}

/* Only a pass goes, and not on its own: the policy, the arms, the seals,
 * and the lever still ready in the graph. */
static int check_consistency(struct plan *pl, struct promotion *p, struct findings *out,
			     struct err *e)
{
	(void)p;
	(void)e;
	if (pl->parity) {
		check_parity(pl, out);
		return 0;
	}
	if (pl->cls != GATE_PASS)
		findings_addf(out, "gate: %s (%s); only a pass is promoted",
			      json_string_value(json_object_get(pl->verdict, "classification")),
			      json_string_value(json_object_get(pl->verdict, "reason")));
	if (strcmp(verdict_of(pl->cmp), "faster") && strcmp(verdict_of(pl->cmp), "equivalent"))
		findings_addf(out, "decision: %s: only a faster verdict is witnessed as a gain, "
				   "and an equivalent one as a witnessed null; %s",
			      verdict_of(pl->cmp),
			      !strcmp(verdict_of(pl->cmp), "slower")
				      ? "the candidate is slower: nothing to promote"
				      : "run more repetitions (fak bench experiment "
					"--until-decisive) instead of trying again");
	pl->l = graph_lever(&pl->g, pl->s.cand.changed_lever_id);
	if (pl->l) {
		check_policy(pl, out);
		check_requirement(pl, out);
	}
	check_arms(pl, out);
	check_sealed(pl, out);
	if (!pl->l || !graph_lever_ready(&pl->g, pl->l))
		findings_addf(out, "lever \"%s\" is not ready in '%s' any more (enabled, "
			      "witnessed, or a dependency off): the graph changed since the "
			      "experiment; run it again", pl->s.cand.changed_lever_id,
			      pl->paths->graph);
	else
		pl->env = graph_envelope(&pl->g, pl->l->app.envelope_id);
	return 0;
}

/* The witness folder's files (comparison, gate, MANIFEST.json last, over
 * the others), its name and place; it must not exist yet. */
static int build_witness_files(struct plan *pl, struct promotion *p, struct findings *out,
			       struct err *e)
{
	struct strbuf mb = STRBUF_INIT;
	char hex[65], graph_sha[65], *dir;
	struct stat st;
	json_t *manifest;

	if (!pl->parity) {
		add_json(p, LAYOUT_COMPARISON, pl->cmp);
		add_json(p, LAYOUT_GATE, pl->verdict);
	}
	qsort(p->files, p->nr_files, sizeof(*p->files), cmp_files);
	if (pl->parity) {
		int64_t ns;

		if (timestamp_parse(pl->par.last_started, &ns) < 0)
			return err_set(e, "the campaign's runs record no start time");
		pl->observed = (long)(ns / 1000000000 / 86400);
	} else if (observed_day(&pl->s.cand, &pl->observed, e) < 0) {
		return -1;
	}
	date_format(pl->observed, pl->day);
	sha256_hex(p->old_graph.buf, p->old_graph.len, graph_sha);
	manifest = manifest_json(p, pl->env, pl->l->id, pl->day, pl->version, graph_sha);
	json_write_pretty(&mb, manifest);
	json_decref(manifest);
	sha256_hex(mb.buf, mb.len, hex);
	p->manifest_digest = xasprintf("sha256:%s", hex);
	p->name = xasprintf("%s-%.12s", pl->day, hex);
	p->rel = xasprintf("%s/%s/%s", pl->env->id, pl->l->id, p->name);
	add_file(p, "MANIFEST.json", mb.buf, mb.len);
	qsort(p->files, p->nr_files, sizeof(*p->files), cmp_files);
	sb_release(&mb);
	dir = xasprintf("%s/%s", pl->paths->root, p->rel);
	if (stat(dir, &st) == 0)
		findings_addf(out, "witness folder '%s' exists already: this run was promoted",
			      dir);
	free(dir);
	return 0;
}

/* The new graph (p->new_graph): the lever witnessed by this folder. */
static int change_graph(struct plan *pl, struct promotion *p, struct findings *out, struct err *e)
{
	char *texts[4], *host = host_note(graph_criterion(&pl->g, pl->env->id)), *words;
	char edig[JSON_DIGEST_LEN + 1];
	json_t *tree;

	(void)out;
	if (graph_envelope_digest(pl->env, edig, e) < 0) {
		free(host);
		return -1;
	}
	p->summary = pl->parity ? receipt_parity_text(pl->par.recomputed)
				: witness_shift_text(pl->cmp);
	texts[0] = xasprintf("%s; %s, observed %s", p->summary,
			     pl->parity ? "a parity campaign, no gate" : "gate pass", pl->day);
	words = attempt_words(&pl->attempt);
	texts[1] = xasprintf("%s%s, %s, promoted by fak %s; manifest %s",
			     pl->parity ? "fak bench experiment --parity (sealed metrics)"
			     : pl->sealed ? "fak bench experiment (sealed metrics)"
					  : "a manual loop (values typed in, not sealed by fak)",
			     host, words, pl->version, p->manifest_digest);
	free(words);
	free(host);
	texts[2] = xasprintf(WITNESS_REF_PREFIX "%s", p->rel);
	texts[3] = xstrdup(edig);
	p->lever_id = xstrdup(pl->l->id);
	p->envelope_id = xstrdup(pl->env->id);
	tree = promoted_graph(&pl->g, pl->l, texts);
	json_write_pretty(&p->new_graph, tree);
	json_decref(tree);
	for (int i = 0; i < 4; i++)
		free(texts[i]);
	return 0;
}

/* A parity campaign's row: DIAGNOSTIC, quoting no gain; the envelope's
 * CURRENT row stands. New object. */
static json_t *parity_row(const struct plan *pl, const char *rel, const struct criterion *crit,
			  const char *summary, const char *host, const char *attempt)
{
	const struct envelope *env = pl->env;
	const char *const *en = pl->par.engines;

	return row_json(env, rel, pl->observed, graph_criterion_review_period_days(crit),
			"DIAGNOSTIC",
			xasprintf("%s: %s (lever %s).", env->throughput_metric, summary,
				  pl->l->id),
			xasprintf("PARITY: %s against %s on one artifact and envelope, every run "
				  "measured and sealed by fak%s; a ratio, not a throughput result "
				  "of either engine; %s.", en[0], en[1], host, attempt),
			xasprintf("%s against %s (parity)", en[0], en[1]), false);
}

/* The new index (p->new_index): this folder's row CURRENT, the previous
 * one of the envelope HISTORICAL. */
static int change_index(struct plan *pl, struct promotion *p, struct findings *out, struct err *e)
{
	const struct criterion *crit = graph_criterion(&pl->g, pl->env->id);
	char *retention = xasprintf("superseded on %s by " WITNESS_REF_PREFIX "%s", pl->day,
				    p->rel);
	char *host = host_note(crit), *words = attempt_words(&pl->attempt);
	json_t *row = pl->parity ? parity_row(pl, p->rel, crit, p->summary, host, words)
				 : new_row(pl->env, p->rel, pl->cmp, pl->observed,
					   graph_criterion_review_period_days(crit), pl->l->id,
					   pl->sealed, host, words);
	/* a witnessed null or a parity ratio is no newer result of the envelope */
	p->diagnostic = pl->parity || is_null_result(pl->cmp);
	json_t *tree = promoted_index(&pl->idx, row,
				      pl->parity || is_null_result(pl->cmp) ? NULL : pl->env->id,
				      retention, &p->demoted);

	(void)out;
	(void)e;
	free(host);
	free(words);
	json_write_pretty(&p->new_index, tree);
	json_decref(tree);
	free(retention);
	return 0;
}

int witness_check_new(struct promotion *p, struct findings *out, struct err *e)
{
	struct graph ng;
	struct index ni;
	const struct lever *next;
	int rc = 0;

	if (graph_load_buf(&ng, p->new_graph.buf, p->new_graph.len, "the new graph", e) < 0)
		return -1;
	graph_validate(&ng, out);
	if (!out->nr) {
		next = graph_next(&ng, NULL);
		p->next_lever = next ? xstrdup(next->id) : NULL;
		rc = index_load_buf(&ni, p->new_index.buf, p->new_index.len, "the new index", e);
		if (rc == 0) {
			index_validate(&ni, &ng, out);
			index_release(&ni);
		}
	}
	graph_release(&ng);
	if (rc == 0 && out->nr)
		findings_addf(out, "the new graph or index would not validate (above); "
			      "nothing written");
	return rc;
}

static int check_promoted(struct plan *pl, struct promotion *p, struct findings *out,
			  struct err *e)
{
	(void)pl;
	return witness_check_new(p, out, e);
}

static void plan_release(struct plan *pl)
{
	json_decref(pl->cmp);
	json_decref(pl->verdict);
	source_release(&pl->s);
	witness_parity_release(&pl->par);
	if (pl->have_idx)
		index_release(&pl->idx);
	if (pl->have_g)
		graph_release(&pl->g);
	free(pl->req_name);
	free(pl->arm_names[0]);
	free(pl->arm_names[1]);
}

typedef int phase_fn(struct plan *pl, struct promotion *p, struct findings *out, struct err *e);

int witness_promote_plan(const char *from, const struct witness_paths *paths, const char *version,
			 struct promotion *p, struct findings *out, struct err *e)
{
	static phase_fn *const phases[] = {
		load_state, load_inputs, load_attempt, recompute, check_consistency,
		build_witness_files, change_graph, change_index, check_promoted,
	};
	struct plan pl = { .from = from, .version = version, .paths = paths,
			   .attempt_refusals = FINDINGS_INIT };
	struct stat st;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if (stat(from, &st) < 0)
		return err_errno(e, errno, "cannot read '%s'", from);
	pl.from_dir = S_ISDIR(st.st_mode);
	if (pl.from_dir) {
		char *pp = xasprintf("%s/" PARITY_FILE, from);

		pl.parity = stat(pp, &st) == 0;
		free(pp);
	}
	pl.req_name = xstrdup(pl.from_dir ? LAYOUT_GATE_REQUEST : from);
	pl.arm_names[0] = pl.from_dir ? xstrdup(LAYOUT_BASELINE)
				      : xasprintf("%s: last_accepted", pl.req_name);
	pl.arm_names[1] = pl.from_dir ? xstrdup(LAYOUT_CANDIDATE)
				      : xasprintf("%s: candidate", pl.req_name);
	for (size_t i = 0; i < sizeof(phases) / sizeof(*phases) && rc == 0 && !out->nr; i++)
		rc = phases[i](&pl, p, out, e);
	for (size_t i = 0; i < pl.attempt_refusals.nr; i++)
		findings_addf(out, "%s", pl.attempt_refusals.items[i]);
	findings_release(&pl.attempt_refusals);
	findings_sort(out);
	plan_release(&pl);
	return rc;
}

void promotion_release(struct promotion *p)
{
	for (size_t i = 0; i < p->nr_files; i++) {
		free(p->files[i].path);
		sb_release(&p->files[i].data);
	}
	free(p->files);
	for (size_t i = 0; i < p->nr_disabled; i++)
		free(p->disabled[i]);
	free(p->disabled);
	free(p->name);
	free(p->rel);
	free(p->manifest_digest);
	free(p->lever_id);
	free(p->envelope_id);
	free(p->next_lever);
	free(p->summary);
	free(p->demoted);
	free(p->ledger);
	sb_release(&p->old_graph);
	sb_release(&p->new_graph);
	sb_release(&p->old_index);
	sb_release(&p->new_index);
	memset(p, 0, sizeof(*p));
}
