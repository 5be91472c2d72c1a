/* --promote: from an experiment folder (or a gate request) to the witness
 * folder, the graph and the index, computed in memory; nothing written. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/dates.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "experiment/experiment.h"
#include "receipt/gate.h"
#include "receipt/receipt.h"
#include "sampler/attest.h"
#include "sampler/report.h"
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
	return strcmp(((const struct witness_file *)a)->path, ((const struct witness_file *)b)->path);
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

/* Every attestation file verifies; together they are exactly the runs of
 * the schedule, and the receipts embed the repetitions' ones. Every run's
 * logs match what its attestation sealed and re-parse to its metrics. */
static void check_runs(const char *dir, const struct source *s, struct promotion *p, struct findings *out)
{
	char *adir = xasprintf("%s/attestations", dir), *ldir = xasprintf("%s/logs", dir);
	const struct receipt_experiment *x = &s->cand.experiment;
	bool *taken = xcalloc(x->nr_schedule + 1, sizeof(*taken));
	size_t matched = 0;
	json_t *logs = jarr();
	struct dirent **names = NULL;
	int n = scandir(adir, &names, NULL, alphasort);

	if (n < 0) {
		findings_addf(out, "attestations/: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		struct strbuf sb = STRBUF_INIT;
		struct attest_facts facts;
		struct report *r;
		json_t *doc = NULL;
		struct err e;
		char *path, *stem, rel[512];
		bool listed = false;

		if (name[0] == '.')
			continue;
		if (len < 6 || strcmp(name + len - 5, ".json")) {
			findings_addf(out, "attestations/%s: not an attestation file", name);
			continue;
		}
		path = xasprintf("%s/%s", adir, name);
		if (file_read(path, ATTEST_MAX_BYTES, &sb, &e) < 0 ||
		    attest_verify_bytes(sb.buf, sb.len, &facts, &e) < 0) {
			findings_addf(out, "attestations/%s: %s", name, e.msg);
			free(path);
			sb_release(&sb);
			continue;
		}
		free(path);
		snprintf(rel, sizeof(rel), "attestations/%s", name);
		add_file(p, rel, sb.buf, sb.len);
		for (size_t k = 0; k < x->nr_schedule && !listed; k++)
			if (!taken[k] && !strcmp(x->schedule[k].attestation_digest, facts.digest))
				listed = taken[k] = true;
		if (!listed)
			findings_addf(out, "attestations/%s: %s is not a run of the experiment's schedule, or a "
					   "second copy of one", name, facts.digest);
		else
			matched++;
		/* the logs of the run */
		r = xmalloc(sizeof(*r));
		stem = xstrndup(name, len - 5);
		if (attest_parse(sb.buf, sb.len, &doc, &e) == 0 && attest_check_report(doc, r, &e) == 0) {
			static const char *const ext[2] = { "stdout", "stderr" };
			const struct wl_label *lb = &r->workload.label;
			struct receipt_step step = { !strcmp(lb->arm, "candidate"), lb->kind, lb->index };
			char want[64];

			xp_step_name(&step, want, sizeof(want));
			if (!r->has_workload || strcmp(want, stem))
				findings_addf(out, "attestations/%s: holds the run %s", name,
					      r->has_workload ? want : "of no experiment");

			for (int k = 0; k < 2; k++) {
				char *lp = xasprintf("%s/%s.%s", ldir, stem, ext[k]), hex[65], summary[256];
				const struct wl_stream *st = k ? &r->workload.err : &r->workload.out;
				int64_t bytes;
				json_t *o;

				if (digest_file(lp, hex, &bytes, &e) < 0)
					findings_addf(out, "logs/%s.%s: %s", stem, ext[k], e.msg);
				else if (!xp_log_matches(st, bytes, hex))
					findings_addf(out, "logs/%s.%s: not the output attestations/%s sealed", stem,
						      ext[k], name);
				else if (!k && xp_verify_log(r, lp, summary, sizeof(summary), &e) < 0)
					findings_addf(out, "logs/%s.stdout: %s", stem, e.msg);
				o = jobj();
				snprintf(rel, sizeof(rel), "logs/%s.%s", stem, ext[k]);
				jset_str(o, "path", rel);
				jset_int(o, "bytes", st->bytes);
				jset_str(o, "sha256", st->sha256);
				jpush_new(logs, o);
				free(lp);
			}
		} else {
			findings_addf(out, "attestations/%s: %s", name, e.msg);
		}
		json_decref(doc);
		free(stem);
		free(r);
		sb_release(&sb);
	}
	if (matched != x->nr_schedule)
		findings_addf(out, "attestations/: %zu files for the %zu runs of the experiment's schedule", matched,
			      x->nr_schedule);
	{
		json_t *o = jobj();

		jset_str(o, "schema", "fak-witness-logs/v1");
		jset_str(o, "note", "the logs stay with who ran the experiment; these digests let them be checked");
		jset_new(o, "logs", json_incref(logs));
		add_json(p, "logs.json", o);
		json_decref(o);
	}
out:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(taken);
	json_decref(logs);
	free(adir);
	free(ldir);
}

/* The documents of an experiment folder; refusals go to out. */
static void load_dir(const char *dir, struct source *s, struct promotion *p, struct findings *out)
{
	struct err e;

	if (read_in(dir, "baseline.json", &s->base_bytes, out) < 0 || read_in(dir, "candidate.json", &s->cand_bytes, out) < 0 ||
	    read_in(dir, "gate-request.json", &s->req_bytes, out) < 0)
		return;
	if (receipt_parse(&s->base, s->base_bytes.buf, s->base_bytes.len, "baseline.json", &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_base = true;
	if (receipt_parse(&s->cand, s->cand_bytes.buf, s->cand_bytes.len, "candidate.json", &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_cand = true;
	if (gate_parse(&s->req, s->req_bytes.buf, s->req_bytes.len, "gate-request.json", &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_req = true;
	if (!json_equal(s->req.candidate.doc, s->cand.doc))
		findings_addf(out, "gate-request.json: its candidate is not candidate.json");
	if (!s->cand.has_experiment)
		findings_addf(out, "candidate.json: records no experiment; promote a manual loop's gate request "
				   "instead");
	else
		check_runs(dir, s, p, out);
	add_file(p, "baseline.json", s->base_bytes.buf, s->base_bytes.len);
	add_file(p, "candidate.json", s->cand_bytes.buf, s->cand_bytes.len);
	add_file(p, "gate-request.json", s->req_bytes.buf, s->req_bytes.len);
}

/* A manual loop: the gate request holds both receipts. */
static void load_request(const char *path, struct source *s, struct promotion *p, struct findings *out)
{
	struct err e;

	if (file_read(path, READ_CAP, &s->req_bytes, &e) < 0 ||
	    gate_parse(&s->req, s->req_bytes.buf, s->req_bytes.len, path, &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_req = true;
	if (receipt_decode(&s->base, s->req.last_accepted.doc, NULL, &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_base = true;
	if (receipt_decode(&s->cand, s->req.candidate.doc, NULL, &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	s->has_cand = true;
	add_file(p, "gate-request.json", s->req_bytes.buf, s->req_bytes.len);
	add_json(p, "baseline.json", s->base.doc);
	add_json(p, "candidate.json", s->cand.doc);
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

		if (json_is_string(t) && timestamp_parse(json_string_value(t), &ns) == 0 && ns > last)
			last = ns;
	}
	if (!last)
		return err_set(e, "the candidate's attestations record no start time");
	*day = (long)(last / 1000000000 / 86400);
	return 0;
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

/* "7.942 -> 18.18 tok/s median (+128.9%, 90% interval +122.6%..+134.4%, n=3+3)" */
char *witness_shift_text(const json_t *cmp)
{
	const json_t *t = metric_of(cmp, "tokens_per_second");

	return xasprintf("median %.4g -> %.4g tok/s (%+.1f%%, %.4g%% interval %+.1f%%..%+.1f%%, n=%lld+%lld)",
			 num_at(t, "baseline", "median"), num_at(t, "candidate", "median"),
			 num_at(t, "shift_percent", NULL), num_at(t, "confidence_level", NULL) * 100,
			 num_at(t, "interval_percent", "lower"), num_at(t, "interval_percent", "upper"),
			 (long long)num_at(t, "baseline", "repetitions"), (long long)num_at(t, "candidate", "repetitions"));
}

/* The lever becomes enabled, present and witnessed; an enabled lever that
 * conflicts with it is turned off. */
static void update_graph(struct graph *g, struct lever *l, char **texts, struct promotion *pp)
{
	l->enabled = true;
	l->status = "present";
	l->has_witnessed = true;
	l->witnessed.summary = texts[0];
	l->witnessed.classification = "witnessed";
	l->witnessed.provenance = texts[1];
	l->witnessed.receipt = texts[2];
	for (size_t i = 0; i < l->conflicts.n; i++) {
		struct lever *c = (struct lever *)(uintptr_t)graph_lever(g, l->conflicts.v[i]);

		if (c && c->enabled) {
			c->enabled = false;
			if (!strcmp(c->status, "present"))
				c->status = "partial";
			pp->disabled = xrealloc(pp->disabled, xmul(pp->nr_disabled + 1, sizeof(char *)));
			pp->disabled[pp->nr_disabled++] = xstrdup(c->id);
		}
	}
}

/* The previous CURRENT row of the key becomes HISTORICAL (kept as
 * predecessor context, durably, naming what superseded it); the new CURRENT
 * row is appended. */
static char *update_index(json_t *doc, const json_t *row, const char *key, const char *retention)
{
	json_t *results = json_object_get(doc, "results");
	char *demoted = NULL;
	size_t i;
	json_t *r;

	json_array_foreach (results, i, r) {
		const char *k, *lc = json_string_value(json_object_get(r, "lifecycle"));
		json_t *v, *nr;

		if (!lc || strcmp(lc, "CURRENT") || strcmp(json_string_value(json_object_get(r, "envelope_key")), key))
			continue;
		nr = jobj();
		json_object_foreach (r, k, v) {
			if (!strcmp(k, "lifecycle"))
				jset_str(nr, k, "HISTORICAL");
			else if (!strcmp(k, "review_by") || (!strcmp(k, "retention")))
				jset_str(nr, "retention", retention);
			else if (strcmp(k, "at_review") && strcmp(k, "retain_reason"))
				jset_new(nr, k, json_incref(v));
		}
		if (!json_object_get(nr, "retention"))
			jset_str(nr, "retention", retention);
		json_array_set_new(results, i, nr);
		demoted = xstrdup(key);
	}
	json_array_append(results, (json_t *)(uintptr_t)row);
	return demoted;
}

static json_t *new_row(const struct envelope *env, const char *rel, const json_t *cmp, long day, long review_days,
		       const char *lever, bool sealed)
{
	const json_t *t = metric_of(cmp, "tokens_per_second");
	json_t *o = jobj();
	char d[11], r[11];
	char *s, *t2;

	date_format(day, d);
	date_format(day + review_days, r);
	jset_str(o, "lifecycle", "CURRENT");
	jset_str(o, "envelope_key", env->id);
	t2 = witness_shift_text(cmp);
	s = xasprintf("%s: %s with lever %s.", env->throughput_metric, t2, lever);
	jset_str(o, "highlight", s);
	free(s);
	free(t2);
	s = xasprintf("PASS: gate pass against the accepted baseline; %s; verdict %s.",
		      sealed ? "every repetition measured and sealed by fak"
			     : "the repetitions' values were typed in a manual loop, not sealed by fak",
		      json_string_value(json_object_get(t, "verdict")));
	jset_str(o, "status", s);
	free(s);
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
	s = xasprintf("%s %s", env->engine, env->forward_path);
	jset_str(o, "engine", s);
	free(s);
	jset_str(o, "hardware", env->hardware);
	jset_str(o, "metric", env->throughput_metric);
	jset_str(o, "quality", "pass");
	jset_bool(o, "quotes_gain", num_at(t, "shift_percent", NULL) > 0);
	return o;
}

static json_t *manifest_json(const struct promotion *p, const struct envelope *env, const char *lever,
			     const char *day, const char *version, const char *graph_sha)
{
	json_t *m = jobj(), *files = jarr();

	jset_str(m, "schema", WITNESS_MANIFEST_SCHEMA);
	jset_str(m, "envelope_id", env->id);
	jset_str(m, "lever_id", lever);
	jset_str(m, "observed_on", day);
	jset_str(m, "fak_version", version);
	jset_str(m, "graph_sha256", graph_sha);
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

/* How findings name the receipts: the files of an experiment folder, the
 * members of a manual loop's gate request. */
static const char *s_name(const struct stat *st, int arm)
{
	if (S_ISDIR(st->st_mode))
		return arm ? "candidate.json" : "baseline.json";
	return arm ? "gate-request.json: candidate" : "gate-request.json: last_accepted";
}

int witness_promote_plan(const char *from, const struct witness_paths *paths, const char *version,
			 struct promotion *p, struct findings *out, struct err *e)
{
	struct source s = { 0 };
	struct graph g;
	struct index idx;
	bool have_g = false, have_idx = false;
	struct stat st;
	json_t *cmp = NULL, *verdict = NULL, *row = NULL, *manifest = NULL;
	char *texts[3] = { NULL, NULL, NULL }, graph_sha[65], day[11], *retention = NULL;
	const char *what = NULL;
	struct lever *l;
	const struct envelope *env;
	const struct criterion *crit;
	enum gate_class cls;
	bool sealed = false;
	long observed = 0;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	if (stat(from, &st) < 0)
		return err_errno(e, errno, "cannot read '%s'", from);
	if (file_read(paths->graph, GRAPH_MAX_BYTES, &p->old_graph, e) < 0 ||
	    file_read(paths->index, INDEX_MAX_BYTES, &p->old_index, e) < 0)
		return -1;
	if (graph_load_buf(&g, p->old_graph.buf, p->old_graph.len, paths->graph, e) < 0)
		return -1;
	have_g = true;
	graph_validate(&g, out);
	if (out->nr)
		goto done;
	if (index_load_buf(&idx, p->old_index.buf, p->old_index.len, paths->index, e) < 0)
		goto fail;
	have_idx = true;
	index_validate(&idx, &g, out);
	if (out->nr)
		goto done;
	if (S_ISDIR(st.st_mode))
		load_dir(from, &s, p, out);
	else
		load_request(from, &s, p, out);
	if (out->nr)
		goto done;

	/* recompute: the comparison, the gate; only a strict pass goes */
	cmp = receipt_compare(&s.base, &s.cand, &g, &what, out);
	if (!cmp) {
		findings_addf(out, "%s", what);
		other_graph(&s.cand, &g, paths->graph, out);
		goto done;
	}
	verdict = gate_evaluate(&s.req, &g, &cls, &what, out);
	if (!verdict) {
		findings_addf(out, "%s", what);
		goto done;
	}
	if (cls != GATE_PASS)
		findings_addf(out, "gate: %s (%s); only a pass is promoted",
			      json_string_value(json_object_get(verdict, "classification")),
			      json_string_value(json_object_get(verdict, "reason")));
	l = (struct lever *)(uintptr_t)graph_lever(&g, s.cand.changed_lever_id);
	if (l) {
		/* the strict policy of the envelope's criterion, not the file's */
		json_t *want = gate_policy_json(&g, l, s.req.last_accepted.revision, false);
		const json_t *have = json_object_get(s.req.doc, "policy");
		const char *k;
		json_t *v;

		json_object_foreach (want, k, v) {
			const json_t *h = json_object_get(have, k);

			if (!json_same(v, h))
				findings_addf(out, "gate-request.json: policy.%s is not what envelope \"%s\"'s criterion "
						   "implies for a strict promotion", k, s.req.policy.envelope_id);
		}
		if (json_object_size(have) != json_object_size(want))
			findings_addf(out, "gate-request.json: the policy has members the strict policy has not");
		json_decref(want);
	}
	{
		/* the candidate against the baseline it ran with: never slower */
		const char *v = json_string_value(json_object_get(metric_of(cmp, "tokens_per_second"), "verdict"));

		if (v && !strcmp(v, "slower"))
			findings_addf(out, "comparison: the candidate is slower than the baseline it ran against; a gate "
					   "pass against another accepted receipt does not make it a gain");
	}
	/* the arms must differ, and the envelope must be as they found it */
	if (receipt_same_arms(&s.base, &s.cand))
		findings_addf(out, "%s and %s: the two arms ran the same command, revision and "
				   "module versions: " RECEIPT_AA_NOTE "; an A/B needs a candidate "
				   "that differs", s_name(&st, 0), s_name(&st, 1));
	receipt_state_check(&s.cand, &g, s_name(&st, 1), out);
	if (!s.base.has_envelope_state || !s.cand.has_envelope_state ||
	    !json_equal(s.base.envelope_state.json, s.cand.envelope_state.json))
		receipt_state_check(&s.base, &g, s_name(&st, 0), out);
	sealed = all_true(json_object_get(json_object_get(cmp, "metrics_bound"), "candidate")) &&
		 all_true(json_object_get(json_object_get(cmp, "metrics_bound"), "baseline"));
	if (S_ISDIR(st.st_mode) && !sealed)
		findings_addf(out, "the receipts of an experiment folder are sealed throughout; some repetitions are "
				   "not (see --compare)");
	if (S_ISDIR(st.st_mode) && !json_equal(s.req.last_accepted.doc, s.base.doc)) {
		json_t *b = receipt_metrics_bound_json(&s.req.last_accepted);

		if (!all_true(b))
			findings_addf(out, "gate-request.json: its last_accepted is another receipt than baseline.json, "
					   "and not a sealed one");
		json_decref(b);
	}
	if (!l || !graph_lever_ready(&g, l)) {
		findings_addf(out, "lever \"%s\" is not ready in '%s' any more (enabled, witnessed, or a dependency "
				   "off): the graph changed since the experiment; run it again",
			      s.cand.changed_lever_id, paths->graph);
		goto done;
	}
	if (out->nr)
		goto done;
	env = graph_envelope(&g, l->app.envelope_id);
	crit = graph_criterion(&g, env->id);
	add_json(p, "comparison.json", cmp);
	add_json(p, "gate.json", verdict);
	qsort(p->files, p->nr_files, sizeof(*p->files), cmp_files);

	if (observed_day(&s.cand, &observed, e) < 0)
		goto fail;
	date_format(observed, day);
	sha256_hex(p->old_graph.buf, p->old_graph.len, graph_sha);
	manifest = manifest_json(p, env, l->id, day, version, graph_sha);
	{
		struct strbuf mb = STRBUF_INIT;
		char hex[65], *dir;

		json_write_pretty(&mb, manifest);
		sha256_hex(mb.buf, mb.len, hex);
		p->manifest_digest = xasprintf("sha256:%s", hex);
		p->name = xasprintf("%s-%.12s", day, hex);
		p->rel = xasprintf("%s/%s/%s", env->id, l->id, p->name);
		add_file(p, "MANIFEST.json", mb.buf, mb.len);
		qsort(p->files, p->nr_files, sizeof(*p->files), cmp_files);
		sb_release(&mb);
		dir = xasprintf("%s/%s", paths->root, p->rel);
		if (stat(dir, &st) == 0)
			findings_addf(out, "witness folder '%s' exists already: this run was promoted", dir);
		free(dir);
		if (out->nr)
			goto done;
	}

	/* the graph */
	p->summary = witness_shift_text(cmp);
	texts[0] = xasprintf("%s; gate pass, observed %s", p->summary, day);
	texts[1] = xasprintf("%s, promoted by fak %s; manifest %s",
			     sealed ? "fak bench experiment (sealed metrics)"
				    : "a manual loop (values typed in, not sealed by fak)",
			     version, p->manifest_digest);
	texts[2] = xasprintf(WITNESS_REF_PREFIX "%s", p->rel);
	p->lever_id = xstrdup(l->id);
	p->envelope_id = xstrdup(env->id);
	update_graph(&g, l, texts, p);
	{
		json_t *gj = graph_to_json(&g);
		struct graph ng;
		const struct lever *next;

		json_write_pretty(&p->new_graph, gj);
		json_decref(gj);
		if (graph_load_buf(&ng, p->new_graph.buf, p->new_graph.len, "the promoted graph", e) < 0)
			goto fail;
		graph_validate(&ng, out);
		next = out->nr ? NULL : graph_next(&ng, NULL);
		p->next_lever = next ? xstrdup(next->id) : NULL;
		/* the index */
		retention = xasprintf("superseded on %s by " WITNESS_REF_PREFIX "%s", day, p->rel);
		row = new_row(env, p->rel, cmp, observed, graph_criterion_review_period_days(crit), l->id, sealed);
		p->demoted = update_index(idx.doc, row, env->id, retention);
		json_write_pretty(&p->new_index, idx.doc);
		if (!out->nr) {
			struct index ni;

			if (index_load_buf(&ni, p->new_index.buf, p->new_index.len, "the promoted index", e) < 0) {
				graph_release(&ng);
				goto fail;
			}
			index_validate(&ni, &ng, out);
			index_release(&ni);
		}
		graph_release(&ng);
		if (out->nr)
			findings_addf(out, "the promoted graph or index would not validate (above); nothing written");
	}
done:
	rc = 0;
fail:
	findings_sort(out);
	for (int i = 0; i < 3; i++)
		free(texts[i]);
	free(retention);
	json_decref(row);
	json_decref(manifest);
	json_decref(cmp);
	json_decref(verdict);
	source_release(&s);
	if (have_idx)
		index_release(&idx);
	if (have_g)
		graph_release(&g);
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
	sb_release(&p->old_graph);
	sb_release(&p->new_graph);
	sb_release(&p->old_index);
	sb_release(&p->new_index);
	memset(p, 0, sizeof(*p));
}
