/* --enable: the source's step 6. A witnessed lever is marked enabled only
 * when a receipt of the envelope's default command (the witness's baseline
 * command, run by a build whose default path now uses the lever) shows the
 * lever's effect within its witnessed interval. The graph (the lever on,
 * conflicting levers off) and the index (the witness's row says so) change
 * together through the promotion journal; no witness folder is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attestation/layout.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "receipt/parity.h"
#include "witness/internal.h"
#include "witness/witness.h"

#define READ_CAP ((size_t)64 << 20)
#define SLACK 1e-9	/* percent */

struct enable {
	const struct witness_paths *paths;
	const char *lever_id, *receipt_path;
	struct graph g;
	struct index idx;
	bool have_g, have_idx, have_base, have_def;
	const struct lever *l;
	char *rel;			/* the lever's witness folder, under the root */
	struct receipt base;		/* the witness's baseline.json */
	struct receipt def;		/* the default-path receipt */
	char def_sha[65];
	json_t *cmp;			/* the witness's comparison.json */
	double lower, upper, level;	/* the witnessed interval (percent), its level */
};

/* One file of the witness folder, read and checked against its manifest
 * (the manifest against the folder's name): enabling trusts only what the
 * promotion sealed. */
static int witness_file(const struct enable *en, const struct witness_manifest *m,
			const char *name, struct strbuf *sb, struct findings *out)
{
	char *path = xasprintf("%s/%s/%s", en->paths->root, en->rel, name), hex[65];
	struct err e;
	int rc = -1;

	if (file_read(path, READ_CAP, sb, &e) < 0) {
		findings_addf(out, "witness %s: %s", en->rel, e.msg);
		goto out;
	}
	sha256_hex(sb->buf, sb->len, hex);
	for (size_t i = 0; i < m->nr_files; i++)
		if (!strcmp(m->files[i].path, name)) {
			if (strcmp(m->files[i].sha256, hex))
				break;
			rc = 0;
			goto out;
		}
	findings_addf(out, "witness %s: %s is not what its manifest lists; run "
			   "--verify-witnesses", en->rel, name);
out:
	free(path);
	return rc;
}

/* The lever: known, not enabled yet, witnessed by a folder of the root that
 * belongs to its envelope and lever; NULL with the reason in out. */
static const struct lever *witnessed_lever(const struct enable *en, struct findings *out)
{
	const struct lever *l = graph_lever(&en->g, en->lever_id);
	size_t n = strlen(WITNESS_REF_PREFIX);

	if (!l) {
		findings_addf(out, "unknown lever \"%s\"", en->lever_id);
		return NULL;
	}
	if (l->enabled) {
		findings_addf(out, "lever \"%s\" is enabled already", l->id);
		return NULL;
	}
	if (!l->has_witnessed) {
		findings_addf(out, "lever \"%s\" is not witnessed: promote a passing experiment "
				   "of it first (--promote, the source's step 5); a lever is "
				   "enabled only once witnessed", l->id);
		return NULL;
	}
	if (!l->witnessed.receipt || strncmp(l->witnessed.receipt, WITNESS_REF_PREFIX, n)) {
		findings_addf(out, "lever \"%s\" is witnessed by no witness folder (external "
				   "evidence): no witnessed interval to check a default path "
				   "against; witness it with fak bench experiment and --promote",
			      l->id);
		return NULL;
	}
	/* <envelope>/<lever>/<name>: a folder of this lever, nothing else */
	const char *rel = l->witnessed.receipt + n;
	size_t el = strlen(l->app.envelope_id), ll = strlen(l->id);

	if (strncmp(rel, l->app.envelope_id, el) || rel[el] != '/' ||
	    strncmp(rel + el + 1, l->id, ll) || rel[el + 1 + ll] != '/' || !rel[el + 2 + ll] ||
	    strchr(rel + el + 2 + ll, '/') || rel[el + 2 + ll] == '.') {
		findings_addf(out, "lever \"%s\": its witness %s is not a folder of its "
				   "envelope and lever; run --verify-witnesses", l->id, rel);
		return NULL;
	}
	return l;
}

/* The witness's candidate.json meets the lever's requirement as the graph
 * states it now (a requirement tightened since the promotion enables
 * nothing); 0 when it does. */
static int recheck(const struct enable *en, const struct witness_manifest *m,
		   struct findings *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct findings f = FINDINGS_INIT;
	struct receipt c;
	struct err e;
	size_t before = out->nr;

	if (witness_file(en, m, LAYOUT_CANDIDATE, &sb, out) < 0) {
		sb_release(&sb);
		return -1;
	}
	if (receipt_parse(&c, sb.buf, sb.len, LAYOUT_CANDIDATE, &e) < 0) {
		findings_addf(out, "witness %s: %s", en->rel, e.msg);
	} else {
		witness_recheck_requirement(en->l, &c, NULL, &f);
		for (size_t i = 0; i < f.nr; i++)
			findings_addf(out, "witness %s: %s", en->rel, f.items[i]);
		receipt_release(&c);
	}
	findings_release(&f);
	sb_release(&sb);
	return out->nr == before ? 0 : -1;
}

/* The witnessed lever (witnessed_lever), the folder's baseline receipt and
 * comparison. */
static void load_witness(struct enable *en, struct findings *out)
{
	const struct lever *l = witnessed_lever(en, out);
	struct strbuf mb = STRBUF_INIT, bb = STRBUF_INIT, cb = STRBUF_INIT;
	struct witness_manifest m;
	const json_t *d, *iv;
	const char *verdict;
	char *mpath, hex[65];
	struct err e;
	size_t n = strlen(WITNESS_REF_PREFIX);

	if (!l)
		return;
	en->l = l;
	en->rel = xstrdup(l->witnessed.receipt + n);
	mpath = xasprintf("%s/%s/MANIFEST.json", en->paths->root, en->rel);
	if (file_read(mpath, READ_CAP, &mb, &e) < 0 ||
	    witness_manifest_parse(mb.buf, mb.len, &m, &e) < 0) {
		findings_addf(out, "witness %s: %s", en->rel, e.msg);
		free(mpath);
		sb_release(&mb);
		return;
	}
	free(mpath);
	sha256_hex(mb.buf, mb.len, hex);
	if (strlen(en->rel) < 12 || strncmp(en->rel + strlen(en->rel) - 12, hex, 12))
		findings_addf(out, "witness %s: its MANIFEST.json is not the one the folder "
				   "names; run --verify-witnesses", en->rel);
	else if (witness_manifest_lists(&m, PARITY_FILE))
		findings_addf(out, "lever \"%s\": its witness %s is a parity campaign, a ratio of "
				   "two engines, not an effect of the lever that a default path "
				   "can show: it enables nothing", l->id, en->rel);
	else if (witness_file(en, &m, LAYOUT_BASELINE, &bb, out) == 0 &&
		 witness_file(en, &m, LAYOUT_COMPARISON, &cb, out) == 0 &&
		 recheck(en, &m, out) == 0) {
		if (receipt_parse(&en->base, bb.buf, bb.len, LAYOUT_BASELINE, &e) < 0)
			findings_addf(out, "witness %s: %s", en->rel, e.msg);
		else
			en->have_base = true;
		en->cmp = json_loadb(cb.buf, cb.len, JSON_REJECT_DUPLICATES, NULL);
	}
	witness_manifest_release(&m);
	sb_release(&mb);
	sb_release(&bb);
	sb_release(&cb);
	if (!en->have_base || !en->cmp) {
		if (en->have_base && !en->cmp)
			findings_addf(out, "witness %s: " LAYOUT_COMPARISON " is not JSON",
				      en->rel);
		return;
	}
	d = json_object_get(en->cmp, "decision");
	iv = json_object_get(d, "interval_percent");
	verdict = json_string_value(json_object_get(d, "verdict"));
	en->lower = json_number_value(json_object_get(iv, "lower"));
	en->upper = json_number_value(json_object_get(iv, "upper"));
	en->level = json_number_value(json_object_get(d, "level"));
	if (!verdict || !json_is_number(json_object_get(iv, "lower")) ||
	    !json_is_number(json_object_get(iv, "upper")) || !(en->level > 0 && en->level < 1))
		findings_addf(out, "witness %s: " LAYOUT_COMPARISON " has no decision interval",
			      en->rel);
	else if (strcmp(verdict, "faster"))
		findings_addf(out, "lever \"%s\" is witnessed as %s, not faster: a witnessed "
				   "null keeps the lever off; nothing to enable", l->id, verdict);
}

/* The default path ran as the gate wants any candidate to: no fallback,
 * and the criterion's quality. */
static void check_run(const struct enable *en, struct findings *out)
{
	const struct criterion *c = graph_criterion(&en->g, en->l->app.envelope_id);
	const struct receipt *r = &en->def;
	bool ok = r->quality.higher_is_better ? r->quality.score >= c->minimum_quality_score
					      : r->quality.score <= c->minimum_quality_score;

	if (r->execution.fallback_count)
		findings_addf(out, "'%s': execution.fallback_count is %lld: the default path fell "
				   "back; it must run the envelope's forward path throughout",
			      en->receipt_path, r->execution.fallback_count);
	if (!ok)
		findings_addf(out, "'%s': quality %s %g misses the criterion's %g",
			      en->receipt_path, r->quality.name, r->quality.score,
			      c->minimum_quality_score);
	/* a numerical gate holds on the default path too */
	if (en->l->has_requirement && !strcmp(en->l->requirement.kind, "numerical")) {
		char *who = xasprintf("'%s'", en->receipt_path);

		witness_check_numerical(en->l, r, who, out);
		free(who);
	}
}

/* The default-path receipt: valid, of the lever and its envelope, made
 * against the graph as it stands (the lever witnessed, not enabled), the
 * witness's baseline command at another revision, no control drifted. */
static void load_default(struct enable *en, struct findings *out)
{
	struct findings f = FINDINGS_INIT;
	const struct receipt *b = &en->base, *r = &en->def;
	const char *who = en->receipt_path;
	struct err e;

	if (receipt_load_sha256(&en->def, who, en->def_sha, &e) < 0) {
		findings_addf(out, "%s", e.msg);
		return;
	}
	en->have_def = true;
	receipt_validate(r, &en->g, 0, &f);
	for (size_t i = 0; i < f.nr; i++)
		findings_addf(out, "'%s': %s", who, f.items[i]);
	findings_release(&f);
	if (strcmp(r->envelope_id, en->l->app.envelope_id) ||
	    strcmp(r->changed_lever_id, en->l->id)) {
		findings_addf(out, "'%s': a receipt of lever \"%s\" in \"%s\", not of lever \"%s\" "
				   "in \"%s\"", who, r->changed_lever_id, r->envelope_id,
			      en->l->id, en->l->app.envelope_id);
		return;
	}
	receipt_state_check(r, &en->g, who, out);
	check_run(en, out);
	if (!r->commands.n || !b->commands.n || strcmp(r->commands.v[0], b->commands.v[0]))
		findings_addf(out, "'%s': its command is \"%s\", not the envelope's default "
				   "command \"%s\" (the witness's baseline command, without the "
				   "lever's switches): a default-path receipt runs the default "
				   "command", who, r->commands.n ? r->commands.v[0] : "",
			      b->commands.n ? b->commands.v[0] : "");
	if (!strcmp(r->revision, b->revision))
		findings_addf(out, "'%s': revision %s is the witness's baseline revision: the "
				   "default path there does not use the lever; run the default "
				   "command at the revision that makes it the default", who,
			      r->revision);
	f = (struct findings)FINDINGS_INIT;
	receipt_drift(b, r, RECEIPT_DRIFT_EXECUTION, &f);
	for (size_t i = 0; i < f.nr; i++)
		findings_addf(out, "'%s' against the witness's baseline: %s", who, f.items[i]);
	findings_release(&f);
}

/* The default path's shift against the witness's baseline, inside the
 * witnessed interval. *shift: that shift (percent). */
static int check_effect(struct enable *en, double *shift, struct findings *out, struct err *e)
{
	const struct criterion *c = graph_criterion(&en->g, en->l->app.envelope_id);
	struct stats_comparison sc;

	if (receipt_metric_compare(&en->base, &en->def, RECEIPT_TOKENS_PER_SECOND,
				   graph_criterion_threshold(c), en->level, &sc, e) < 0)
		return -1;
	*shift = sc.shift_percent;
	/* the interval's ends and the shift are the same computation: a
	 * rounding difference is no difference */
	if (sc.shift_percent < en->lower - SLACK || sc.shift_percent > en->upper + SLACK)
		findings_addf(out, "'%s': the default path is %+.1f%% against the witness's "
				   "baseline, outside the witnessed interval %+.1f%%..%+.1f%%: it "
				   "does not show the lever's effect (is the lever on by default "
				   "in that build?)", en->receipt_path, sc.shift_percent,
			      en->lower, en->upper);
	return 0;
}

/* The new graph and index: the lever enabled (conflicts off), its
 * witnessed provenance and its witness's index row saying by what. */
static void change(struct enable *en, struct promotion *p, double shift)
{
	json_t *g = graph_to_json(&en->g), *w, *idx, *r;
	char *ref = xasprintf(WITNESS_REF_PREFIX "%s", en->rel), *s;
	const char *st;
	bool sealed;
	size_t i, n;

	{
		json_t *bound = receipt_metrics_bound_json(&en->def), *v;

		sealed = json_array_size(bound) > 0;
		json_array_foreach (bound, i, v)
			sealed = sealed && json_is_true(v);
		json_decref(bound);
	}
	p->summary = xasprintf("enabled on the default path (step 6): receipt sha256:%s, the "
			       "default command at revision %s (%s), %+.1f%% against the "
			       "witness's baseline, within the witnessed interval "
			       "%+.1f%%..%+.1f%%", en->def_sha, en->def.revision,
			       sealed ? "sealed by fak" : "values typed in, not sealed by fak",
			       shift, en->lower, en->upper);
	witness_turn_on(g, en->l, p);
	w = json_object_get(witness_member(g, "levers", en->l->id), "witnessed");
	s = xasprintf("%s; %s", json_string_value(json_object_get(w, "provenance")), p->summary);
	jset_str(w, "provenance", s);
	free(s);
	json_write_pretty(&p->new_graph, g);
	json_decref(g);
	idx = json_deep_copy(en->idx.doc);
	json_array_foreach (json_object_get(idx, "results"), i, r) {
		if (!json_is_string(json_object_get(r, "evidence")) ||
		    strcmp(json_string_value(json_object_get(r, "evidence")), ref))
			continue;
		st = json_string_value(json_object_get(r, "status"));
		n = strlen(st);
		s = xasprintf("%.*s; %s.", (int)(n && st[n - 1] == '.' ? n - 1 : n), st,
			      p->summary);
		jset_str(r, "status", s);
		free(s);
	}
	json_write_pretty(&p->new_index, idx);
	json_decref(idx);
	free(ref);
}

int witness_enable_plan(const char *lever_id, const char *receipt,
			const struct witness_paths *paths, struct promotion *p,
			struct findings *out, struct err *e)
{
	struct enable en = { .paths = paths, .lever_id = lever_id, .receipt_path = receipt };
	double shift = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = witness_load_state(paths, p, &en.g, &en.have_g, &en.idx, &en.have_idx, out, e);
	if (rc == 0 && !out->nr)
		load_witness(&en, out);
	if (rc == 0 && !out->nr)
		load_default(&en, out);
	if (rc == 0 && !out->nr)
		rc = check_effect(&en, &shift, out, e);
	if (rc == 0 && !out->nr) {
		p->lever_id = xstrdup(en.l->id);
		p->envelope_id = xstrdup(en.l->app.envelope_id);
		change(&en, p, shift);
		rc = witness_check_new(p, out, e);
	}
	findings_sort(out);
	if (en.have_def)
		receipt_release(&en.def);
	if (en.have_base)
		receipt_release(&en.base);
	json_decref(en.cmp);
	free(en.rel);
	if (en.have_idx)
		index_release(&en.idx);
	if (en.have_g)
		graph_release(&en.g);
	return rc;
}
