/* --verify-witnesses: every witness folder proves itself, and the graph and
 * the index name only folders that do. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attestation/layout.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/json.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"
#include "receipt/gate.h"
#include "receipt/parity.h"
#include "witness/internal.h"
#include "receipt/ledger.h"
#include "witness/witness.h"

#define FILE_CAP ((size_t)64 << 20)

struct refs {
	char **v;	/* relative folder paths, owned */
	size_t n;
};

static void ref_add(struct refs *r, const char *s, size_t len)
{
	r->v = xrealloc(r->v, xmul(r->n + 1, sizeof(*r->v)));
	r->v[r->n++] = xstrndup(s, len);
}

/* "witness env/lever/name" inside text: the folder it names. */
static bool find_ref(const char *text, const char **start, size_t *len)
{
	const char *p = text ? strstr(text, WITNESS_REF_PREFIX) : NULL;
	size_t n = 0;
	int slashes = 0;

	if (!p)
		return false;
	p += strlen(WITNESS_REF_PREFIX);
	/* three path elements: envelope, lever, folder */
	while (p[n] && p[n] != ' ' && p[n] != ')' && p[n] != ';' && p[n] != ',') {
		if (p[n] == '/' && ++slashes == 3)
			break;
		n++;
	}
	while (n && p[n - 1] == '.')
		n--;
	*start = p;
	*len = n;
	return slashes >= 2;
}

/* Files below dir (relative paths, sorted), MANIFEST.json excluded. */
static void list_files(const char *dir, const char *rel, struct refs *out)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		char *path, *r;
		struct stat st;

		if (strcmp(nm, ".") && strcmp(nm, "..")) {
			path = xasprintf("%s/%s", dir, nm);
			r = *rel ? xasprintf("%s/%s", rel, nm) : xstrdup(nm);
			if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
				list_files(path, r, out);
			else if (strcmp(r, "MANIFEST.json"))
				ref_add(out, r, strlen(r));
			free(path);
			free(r);
		}
		free(names[i]);
	}
	free(names);
}

/* The documents a folder's comparison and gate are recomputed from. */
enum { DOC_BASELINE, DOC_CANDIDATE, DOC_GATE_REQUEST, DOC_COMPARISON, DOC_GATE, NR_DOCS };
static const char *const doc_names[NR_DOCS] = { LAYOUT_BASELINE, LAYOUT_CANDIDATE,
						LAYOUT_GATE_REQUEST, LAYOUT_COMPARISON,
						LAYOUT_GATE };

/* What verify_folder read of a folder, each file once: the bytes of the
 * documents whose size and sha256 are the manifest's, and the two receipts
 * as check_contents decoded them (each attestation they embed verified
 * once); recompute takes them instead of reading and decoding again. */
struct kept {
	struct strbuf doc[NR_DOCS];
	bool has[NR_DOCS];
	struct receipt r[2];	/* DOC_BASELINE, DOC_CANDIDATE */
	bool decoded[2];
};

static int doc_index(const char *path)
{
	for (int i = 0; i < NR_DOCS; i++)
		if (!strcmp(path, doc_names[i]))
			return i;
	return -1;
}

static void kept_release(struct kept *k)
{
	for (int i = 0; i < NR_DOCS; i++)
		sb_release(&k->doc[i]);
	for (int i = 0; i < 2; i++)
		if (k->decoded[i])
			receipt_release(&k->r[i]);
}

/* A file whose size and sha256 are the manifest's: what it holds verifies.
 * A receipt stays decoded in k (unless it fails); the bytes of a document
 * recompute needs move into k. */
static void check_contents(const char *rel, const char *path, struct strbuf *data,
			   struct kept *k, struct findings *out)
{
	struct attestation_facts facts;
	struct err e;
	size_t len = strlen(path);
	int d = doc_index(path);

	if (!strncmp(path, LAYOUT_ATTESTATIONS "/", sizeof(LAYOUT_ATTESTATIONS)) && len > 5 &&
	    !strcmp(path + len - 5, ".json")) {
		if (attestation_verify_bytes(data->buf, data->len, &facts, &e) < 0)
			findings_addf(out, "%s/%s: %s", rel, path, e.msg);
	} else if (d == DOC_BASELINE || d == DOC_CANDIDATE) {
		struct receipt *r = &k->r[d];

		if (receipt_parse(r, data->buf, data->len, path, &e) < 0) {
			findings_addf(out, "%s/%s: %s", rel, path, e.msg);
			return;
		}
		k->decoded[d] = true;
		for (size_t i = 0; i < r->nr_system_baselines; i++)
			if (!r->system_baselines[i].verified)
				findings_addf(out, "%s/%s: system_baselines[%zu]: %s", rel, path, i,
					      r->system_baselines[i].why);
	} else if (d == DOC_GATE) {
		json_t *v = json_parse_strict(data->buf, data->len, path, &e);
		const char *c = v ? json_string_value(json_object_get(v, "classification")) : NULL;

		if (!c || strcmp(c, "pass"))
			findings_addf(out, "%s/%s: not a passing gate verdict", rel, path);
		json_decref(v);
	}
	if (d >= 0 && !k->has[d]) {
		k->doc[d] = *data;
		*data = (struct strbuf)STRBUF_INIT;
		k->has[d] = true;
	}
}

/* The requirement of the folder's lever (l; NULL: the graph has no such
 * lever, which the citations report) as the graph states it now. */
static void recheck(const char *rel, const struct lever *l, const struct receipt *cand,
		    const char *const engines[2], struct findings *out)
{
	struct findings f = FINDINGS_INIT;

	if (!l)
		return;
	witness_recheck_requirement(l, cand, engines, &f);
	for (size_t i = 0; i < f.nr; i++)
		findings_addf(out, "%s: %s", rel, f.items[i]);
	findings_release(&f);
}

/* Receipt d of k decoded (from its bytes unless check_contents did). */
static bool decoded(struct kept *k, int d, struct err *e)
{
	if (!k->decoded[d])
		k->decoded[d] = receipt_parse(&k->r[d], k->doc[d].buf, k->doc[d].len,
					      doc_names[d], e) == 0;
	return k->decoded[d];
}

/* The folder's comparison and gate, recomputed from its receipts and gate
 * request (k: as verify_folder read and decoded them) against the graph,
 * must equal the documents it keeps and pass. A document the manifest does
 * not list is read here (and fails: it was not in the folder either).
 * *claim gets the shift the folder proves (caller frees). */
static void recompute(const char *dir, const char *rel, const struct graph *g,
		      const struct lever *l, const struct witness_attempt *att, struct kept *k,
		      char **claim, struct findings *out)
{
	size_t attempts = att->recorded && att->n > 1 ? (size_t)att->n : 1;
	struct receipt *b = &k->r[DOC_BASELINE], *c = &k->r[DOC_CANDIDATE];
	const struct receipt *const known[2] = { b, c };
	struct strbuf *sb = k->doc;
	struct gate_request q;
	bool hq = false;
	json_t *cmp = NULL, *verdict = NULL, *kept_cmp = NULL, *kept_gate = NULL;
	const char *what = NULL;
	struct findings why = FINDINGS_INIT;
	enum gate_class cls;
	struct err e;

	*claim = NULL;
	for (int i = 0; i < NR_DOCS; i++) {
		char *path;
		int rc;

		if (k->has[i])
			continue;
		path = xasprintf("%s/%s", dir, doc_names[i]);
		rc = file_read(path, FILE_CAP, &sb[i], &e);
		free(path);
		if (rc < 0) {
			findings_addf(out, "%s/%s: %s", rel, doc_names[i], e.msg);
			goto out;
		}
		k->has[i] = true;
	}
	if (!decoded(k, DOC_BASELINE, &e) || !decoded(k, DOC_CANDIDATE, &e) ||
	    !(hq = gate_parse_known(&q, sb[DOC_GATE_REQUEST].buf, sb[DOC_GATE_REQUEST].len,
				    LAYOUT_GATE_REQUEST, known, 2, &e) == 0) ||
	    !(kept_cmp = json_parse_strict(sb[DOC_COMPARISON].buf, sb[DOC_COMPARISON].len,
					   LAYOUT_COMPARISON, &e)) ||
	    !(kept_gate = json_parse_strict(sb[DOC_GATE].buf, sb[DOC_GATE].len, LAYOUT_GATE,
					    &e))) {
		findings_addf(out, "%s: %s", rel, e.msg);
		goto out;
	}
	/* compare and gate report their refusals in a list of their own */
	/* the promotion's decision: widened for the attempts it counted */
	cmp = receipt_compare_attempts(b, c, g, attempts, &what, &why);
	if (!cmp) {
		findings_addf(out, "%s/" LAYOUT_COMPARISON ": the receipts no longer compare "
				   "(%s: %s)", rel, what, why.nr ? why.items[0] : "");
		goto out;
	}
	if (!json_same(cmp, kept_cmp))
		findings_addf(out, "%s/" LAYOUT_COMPARISON ": not what the receipts give", rel);
	q.attempts = attempts;
	verdict = gate_evaluate(&q, g, &cls, &what, &why);
	if (!verdict)
		findings_addf(out, "%s/" LAYOUT_GATE_REQUEST ": the gate refuses it (%s: %s)", rel,
			      what, why.nr ? why.items[0] : "");
	else if (cls != GATE_PASS || !json_same(verdict, kept_gate))
		findings_addf(out, "%s/" LAYOUT_GATE ": not the passing verdict the gate request "
				   "gives", rel);
	*claim = witness_shift_text(cmp);
	recheck(rel, l, c, NULL, out);
out:
	if (hq)
		gate_release(&q);
	json_decref(cmp);
	json_decref(verdict);
	json_decref(kept_cmp);
	json_decref(kept_gate);
	findings_release(&why);
}

/* A parity campaign's folder: its ratio derived again from the sealed runs
 * it keeps must be parity.json's; *claim gets the ratio's text. */
static void recompute_parity(const char *dir, const char *rel, const struct graph *g,
			     const struct lever *l, char **claim, struct findings *out)
{
	struct witness_parity wp;
	struct findings why = FINDINGS_INIT;
	struct err e;

	*claim = NULL;
	if (witness_parity_read(dir, &wp, &e) < 0) {
		findings_addf(out, "%s/%s", rel, e.msg);
		witness_parity_release(&wp);
		return;
	}
	witness_parity_runs(dir, &wp, graph_criterion(g, wp.envelope_id), &why);
	for (size_t i = 0; i < why.nr; i++)
		findings_addf(out, "%s/%s", rel, why.items[i]);
	if (!why.nr && wp.recomputed)
		*claim = receipt_parity_text(wp.recomputed);
	recheck(rel, l, NULL, wp.engines, out);
	findings_release(&why);
	witness_parity_release(&wp);
}

/* The ledger of the witness root as verify found it. */
struct chain {
	struct ledger l;
	bool ok;		/* loaded and verified (maybe missing) */
};

/* Line seq of the ledger is the one with digest the witness names (what:
 * which of its lines). */
static void check_line(const char *rel, const struct chain *c, long long seq, const char *digest,
		       const char *what, struct findings *out)
{
	if (seq < 1 || (size_t)seq > c->l.nr)
		findings_addf(out, "%s: names line %lld of " LEDGER_FILE " (%s), which ends at "
				   "line %zu: lines were cut off its end; restore it from version "
				   "control", rel, seq, what, c->l.nr);
	else if (strcmp(c->l.lines[seq - 1].digest, digest))
		findings_addf(out, "%s: line %lld of " LEDGER_FILE " is not the line it names (%s, "
				   "%s): the ledger was rewritten; restore it from version control",
			      rel, seq, what, digest);
}

/* The attempt a witness records is in the ledger: its started and ended
 * lines and the head the ledger had at promotion. */
static void check_attempt(const char *rel, const struct witness_attempt *a,
			  const struct chain *c, struct findings *out)
{
	if (!a->recorded || !c->ok)
		return;
	if (c->l.missing) {
		findings_addf(out, "%s: records attempt %s in " LEDGER_FILE ", which does not "
				   "exist: the attempt ledger was deleted; restore it from version "
				   "control", rel, a->experiment_id);
		return;
	}
	check_line(rel, c, a->started_seq, a->started, "the attempt's start", out);
	check_line(rel, c, a->ended_seq, a->ended, "the attempt's end", out);
	check_line(rel, c, a->head_seq, a->head, "the ledger's last line at promotion", out);
}

/* The witness is of the complete envelope its manifest records: the graph's
 * envelope of that id must still be it, member for member. A v2 manifest,
 * written before fak recorded the envelope, cannot show which it is. */
static void check_envelope(const char *rel, const struct witness_manifest *m,
			   const struct graph *g, struct findings *out)
{
	const struct envelope *env = graph_envelope(g, m->envelope_id);
	char now[JSON_DIGEST_LEN + 1];
	char *changes;

	if (!m->envelope_digest) {
		findings_addf(out, "%s/MANIFEST.json: %s records no envelope digest (written "
				   "before fak bound a witness to its envelope): it cannot show "
				   "the envelope it witnesses; run the experiment again and "
				   "promote it", rel, m->schema);
		return;
	}
	if (!env) {
		findings_addf(out, "%s: witnesses envelope \"%s\", which the graph no longer has",
			      rel, m->envelope_id);
		return;
	}
	switch (graph_envelope_match(m->envelope, m->envelope_digest, env, now, &changes)) {
	case GRAPH_ENVELOPE_SAME:
		return;
	case GRAPH_ENVELOPE_FORGED:
		findings_addf(out, "%s/MANIFEST.json: envelope_digest %s is not the digest of its "
				   "envelope", rel, m->envelope_digest);
		return;
	case GRAPH_ENVELOPE_CHANGED:
		break;
	}
	findings_addf(out, "%s: witnessed in envelope \"%s\" as %s; the graph has %s now (%s): "
			   "changing any envelope field creates a new envelope: restore envelope "
			   "\"%s\" as it was and put the change in a new envelope (a new id)",
		      rel, env->id, m->envelope_digest, now, changes, env->id);
	free(changes);
}

/* One folder: its manifest names it, lists exactly its files, each with its
 * size and digest, and the evidence in it verifies and recomputes. */
static bool verify_folder(const char *root, const char *rel, const struct graph *g,
			  const struct chain *chain, char **claim, struct findings *out)
{
	char *dir = xasprintf("%s/%s", root, rel), *mpath = xasprintf("%s/MANIFEST.json", dir);
	struct strbuf mb = STRBUF_INIT;
	struct refs actual = { 0 };
	struct kept kept = { 0 };
	struct witness_manifest m;
	const struct lever *l;
	size_t before = out->nr;
	struct err e;
	char hex[65], *want;

	if (file_read(mpath, FILE_CAP, &mb, &e) < 0 ||
	    witness_manifest_parse(mb.buf, mb.len, &m, &e) < 0) {
		findings_addf(out, "%s/MANIFEST.json: %s", rel, e.msg);
		goto out;
	}
	sha256_hex(mb.buf, mb.len, hex);
	want = xasprintf("%s/%s/%s-%.12s", m.envelope_id, m.lever_id, m.observed_on, hex);
	if (strcmp(want, rel))
		findings_addf(out, "%s/MANIFEST.json: its sha256 %s names the folder %s; the "
				   "manifest was changed or the folder moved", rel, hex, want);
	free(want);
	check_envelope(rel, &m, g, out);
	check_attempt(rel, &m.attempt, chain, out);
	list_files(dir, "", &actual);
	for (size_t i = 0; i < m.nr_files; i++) {
		const struct witness_entry *f = &m.files[i];
		struct strbuf data = STRBUF_INIT;
		bool listed = false;
		char *fp;

		for (size_t k = 0; k < actual.n; k++)
			if (actual.v[k] && !strcmp(actual.v[k], f->path)) {
				free(actual.v[k]);
				actual.v[k] = NULL;
				listed = true;
			}
		fp = xasprintf("%s/%s", dir, f->path);
		if (!listed || file_read(fp, FILE_CAP, &data, &e) < 0) {
			findings_addf(out, "%s/%s: listed in the manifest but missing", rel,
				      f->path);
		} else {
			char got[65];

			sha256_hex(data.buf, data.len, got);
			if ((long long)data.len != f->bytes || strcmp(got, f->sha256))
				findings_addf(out, "%s/%s: %zu bytes with sha256 %s; the manifest "
						   "says %lld bytes with sha256 %s",
					      rel, f->path, data.len, got, f->bytes, f->sha256);
			else
				check_contents(rel, f->path, &data, &kept, out);
		}
		free(fp);
		sb_release(&data);
	}
	for (size_t k = 0; k < actual.n; k++)
		if (actual.v[k])
			findings_addf(out, "%s/%s: not listed in the manifest", rel, actual.v[k]);
	l = graph_lever(g, m.lever_id);
	if (l && strcmp(l->app.envelope_id, m.envelope_id))
		l = NULL;
	if (out->nr == before && witness_manifest_lists(&m, PARITY_FILE))
		recompute_parity(dir, rel, g, l, claim, out);
	else if (out->nr == before)
		recompute(dir, rel, g, l, &m.attempt, &kept, claim, out);
	witness_manifest_release(&m);
out:
	kept_release(&kept);
	for (size_t k = 0; k < actual.n; k++)
		free(actual.v[k]);
	free(actual.v);
	sb_release(&mb);
	free(mpath);
	free(dir);
	return out->nr == before;
}

/* The folders three levels below root: <envelope>/<lever>/<name>. */
static void walk(const char *root, const char *rel, int depth, struct refs *out, struct findings *f)
{
	char *dir = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		char *r, *p;
		struct stat st;

		if (nm[0] == '.' || (depth == 0 && !strcmp(nm, LEDGER_FILE))) {
			free(names[i]);
			continue;
		}
		r = *rel ? xasprintf("%s/%s", rel, nm) : xstrdup(nm);
		p = xasprintf("%s/%s", dir, nm);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			findings_addf(f, "%s: not a witness folder (expected "
					 "<envelope>/<lever>/<date>-<digest>/)", r);
		else if (depth == 2)
			ref_add(out, r, strlen(r));
		else
			walk(root, r, depth + 1, out, f);
		free(r);
		free(p);
		free(names[i]);
	}
	free(names);
	free(dir);
}

/* Evidence recorded before fak kept witness folders (seeds 000 and 002):
 * the only witnessed lever and CURRENT rows that may name no witness. Each
 * is pinned to the RFC 8785 digest of its exact text (the lever's
 * `witnessed` object, the row object), so none can be edited into another
 * claim and stay "external". */
static const struct {
	const char *kind, *id, *digest;
} externals[] = {
	{ "lever", "metal.resident-q4k-weights",
	  "sha256:f45b7f6075eb73b93637ec6e815f83d987c961f7550ef8b33b452d067ec76ccc" },
	{ "row", "q38-bf16-tp2-arithmetic-ttfc",
	  "sha256:b3a66afbea6ffa7120e550984ab0d06086e9a76b6ac354609ce13f844d95b3df" },
	{ "row", "q38-q4km-native-cuda-a100-cold-decode",
	  "sha256:ccce3af6056aa2c331af0ed6174ff47e835abcd5b3265c32fdcee6c2f1c98023" },
	{ "row", "q38-a100-p2060-prompt-attention",
	  "sha256:fd69f1ca38416b1a496d447ccaa7451e2f26e87a393dc08b737063359536940a" },
	{ "row", "q38-q4km-native-metal-m3pro-sequence-prefill",
	  "sha256:7f0678be676de021a8e49e0b9da774f8d54319b2b6c52c5e76d913e3b4f54164" },
	{ "row", "q38-q4km-native-metal-m3pro-fullrun",
	  "sha256:af4237fc71288a7e646b7e8429cb222ddad551bfff93079cbeff45e5f00ee6e8" },
};

static bool external_ok(const char *kind, const char *id, const json_t *v)
{
	char d[JSON_DIGEST_LEN + 1];
	struct err e;

	if (!v || json_digest(v, NULL, d, &e) < 0)
		return false;
	for (size_t i = 0; i < sizeof(externals) / sizeof(externals[0]); i++)
		if (!strcmp(externals[i].kind, kind) && !strcmp(externals[i].id, id) &&
		    !strcmp(externals[i].digest, d))
			return true;
	return false;
}

struct folder {
	char *rel, *claim;	/* claim: NULL unless it verified */
	bool named;
};

/* The verified folder rel names, if any. */
static struct folder *lookup(struct folder *f, size_t n, const char *rel)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].rel, rel))
			return &f[i];
	return NULL;
}

/* A citation of a witness: the folder verifies, belongs to prefix (the
 * citing lever's envelope and lever, or the row's envelope key), and the
 * citing text quotes the claim the folder proves. */
static void cite(struct folder *f, size_t n, const char *who, const char *ref, const char *prefix,
		 const char *text, struct findings *out)
{
	struct folder *w = lookup(f, n, ref);

	if (!w || !w->claim) {
		findings_addf(out, "%s: its witness %s does not verify or does not exist", who,
			      ref);
		return;
	}
	w->named = true;
	if (strncmp(ref, prefix, strlen(prefix)) || ref[strlen(prefix)] != '/')
		findings_addf(out, "%s: cites witness %s, which belongs to another envelope or "
				   "lever", who, ref);
	if (!text || !strstr(text, w->claim))
		findings_addf(out, "%s: does not quote what its witness proves (%s)", who,
			      w->claim);
}

void witness_verify(const char *root, const struct graph *g, const struct index *idx,
		    struct witness_summary *sum, struct findings *out)
{
	struct refs dirs = { 0 };
	struct chain chain = { 0 };
	struct folder *f;
	struct stat st;

	memset(sum, 0, sizeof(*sum));
	if (stat(root, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			findings_addf(out, "witness root '%s' is not a folder", root);
		else
			walk(root, "", 0, &dirs, out);
	} else if (errno != ENOENT) {
		findings_addf(out, "witness root '%s': %s", root, strerror(errno));
	}
	{
		char *lp = xasprintf("%s/" LEDGER_FILE, root);
		struct err e;

		chain.ok = ledger_load(lp, &chain.l, &e) == 0;
		if (!chain.ok)
			findings_addf(out, "%s", e.msg);
		sum->has_ledger = chain.ok && !chain.l.missing;
		sum->ledger_lines = chain.l.nr;
		free(lp);
	}
	f = xcalloc(dirs.n + 1, sizeof(*f));
	for (size_t i = 0; i < dirs.n; i++) {
		f[i].rel = dirs.v[i];
		sum->folders++;
		if (verify_folder(root, f[i].rel, g, &chain, &f[i].claim, out) && f[i].claim)
			sum->verified++;
		else {
			free(f[i].claim);
			f[i].claim = NULL;
		}
	}
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];
		const char *s;
		size_t len;
		char *who;

		if (!l->has_witnessed)
			continue;
		who = xasprintf("lever \"%s\"", l->id);
		if (find_ref(l->witnessed.receipt, &s, &len) ||
		    find_ref(l->witnessed.provenance, &s, &len)) {
			char *r = xstrndup(s, len),
			     *prefix = xasprintf("%s/%s", l->app.envelope_id, l->id);

			cite(f, dirs.n, who, r, prefix, l->witnessed.summary, out);
			/* graph validation compares it with the envelope */
			if (!l->witnessed.envelope_digest)
				findings_addf(out, "%s: names witness %s but records no "
					      "witnessed.envelope_digest, so nothing binds it "
					      "to its envelope when the graph loads: write the "
					      "envelope_digest its witness's MANIFEST.json "
					      "records", who, r);
			free(r);
			free(prefix);
		} else {
			json_t *lj = graph_lever_json(l);

			if (external_ok("lever", l->id, json_object_get(lj, "witnessed")))
				sum->external++;
			else
				findings_addf(out, "%s: its witnessed effect names no witness "
						   "folder (only the seeds' evidence, pinned as it "
						   "stands, may)", who);
			json_decref(lj);
		}
		free(who);
	}
	for (size_t i = 0; i < idx->nr_rows; i++) {
		const struct index_row *row = &idx->rows[i];
		const char *texts[2] = { row->evidence, row->retention }, *s;
		struct strbuf where = STRBUF_INIT;
		size_t len;
		bool any = false;

		index_row_path(row, &where);
		for (int t = 0; t < 2; t++)
			if (find_ref(texts[t], &s, &len)) {
				char *r = xstrndup(s, len);
				struct folder *w;

				any = true;
				if (t == 0) {
					char *who = xasprintf("index %s", where.buf);

					cite(f, dirs.n, who, r, row->envelope_key, row->highlight,
					     out);
					free(who);
				} else if ((w = lookup(f, dirs.n, r)) && w->claim) {
					w->named = true;	/* what superseded a row */
				} else {
					findings_addf(out, "index %s: its witness %s does not "
							   "verify or does not exist",
						      where.buf, r);
				}
				free(r);
			}
		if (!any && row->lifecycle == INDEX_CURRENT) {
			const json_t *rj =
				json_array_get(json_object_get(idx->doc, row->table == INDEX_RESULTS
									 ? "results" : "awaiting"),
					       row->pos);

			if (external_ok("row", row->envelope_key, rj))
				sum->external++;
			else
				findings_addf(out, "index %s: a CURRENT row that names no witness "
						   "folder (only the seeds' rows, pinned as they "
						   "stand, may)", where.buf);
		}
		sb_release(&where);
	}
	for (size_t i = 0; i < dirs.n; i++) {
		if (!f[i].named && f[i].claim)
			findings_addf(out, "%s: orphaned: no lever and no index row names it",
				      f[i].rel);
		free(f[i].claim);
		free(dirs.v[i]);
	}
	free(f);
	free(dirs.v);
	ledger_release(&chain.l);
	findings_sort(out);
}
