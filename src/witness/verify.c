/* --verify-witnesses: every witness folder proves itself, and the graph and
 * the index name only folders that do. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/json.h"
#include "base/strmap.h"
#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "sampler/attest.h"
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

static void check_contents(const char *rel, const char *path, const struct strbuf *data, struct findings *out)
{
	struct attest_facts facts;
	struct err e;
	size_t len = strlen(path);

	if (!strncmp(path, "attestations/", 13) && len > 5 && !strcmp(path + len - 5, ".json")) {
		if (attest_verify_bytes(data->buf, data->len, &facts, &e) < 0)
			findings_addf(out, "%s/%s: %s", rel, path, e.msg);
	} else if (!strcmp(path, "baseline.json") || !strcmp(path, "candidate.json")) {
		struct receipt r;

		if (receipt_parse(&r, data->buf, data->len, path, &e) < 0) {
			findings_addf(out, "%s/%s: %s", rel, path, e.msg);
			return;
		}
		for (size_t i = 0; i < r.nr_system_baselines; i++)
			if (attest_check(r.system_baselines[i].json, &facts, &e) < 0)
				findings_addf(out, "%s/%s: system_baselines[%zu]: %s", rel, path, i, e.msg);
		receipt_release(&r);
	} else if (!strcmp(path, "gate.json")) {
		json_t *v = json_parse_strict(data->buf, data->len, path, &e);
		const char *c = v ? json_string_value(json_object_get(v, "classification")) : NULL;

		if (!c || strcmp(c, "pass"))
			findings_addf(out, "%s/%s: not a passing gate verdict", rel, path);
		json_decref(v);
	}
}

/* One folder: its manifest names it, lists exactly its files, each with its
 * size and digest, and the evidence in it verifies. */
static bool verify_folder(const char *root, const char *rel, struct findings *out)
{
	char *dir = xasprintf("%s/%s", root, rel), *mpath = xasprintf("%s/MANIFEST.json", dir);
	struct strbuf mb = STRBUF_INIT;
	struct refs actual = { 0 };
	struct witness_manifest m;
	size_t before = out->nr;
	struct err e;
	char hex[65], *want;

	if (file_read(mpath, FILE_CAP, &mb, &e) < 0 || witness_manifest_parse(mb.buf, mb.len, &m, &e) < 0) {
		findings_addf(out, "%s/MANIFEST.json: %s", rel, e.msg);
		goto out;
	}
	sha256_hex(mb.buf, mb.len, hex);
	want = xasprintf("%s/%s/%s-%.12s", m.envelope_id, m.lever_id, m.observed_on, hex);
	if (strcmp(want, rel))
		findings_addf(out, "%s/MANIFEST.json: its sha256 %s names the folder %s; the manifest was changed or "
				   "the folder moved", rel, hex, want);
	free(want);
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
			findings_addf(out, "%s/%s: listed in the manifest but missing", rel, f->path);
		} else {
			char got[65];

			sha256_hex(data.buf, data.len, got);
			if ((long long)data.len != f->bytes || strcmp(got, f->sha256))
				findings_addf(out, "%s/%s: %zu bytes with sha256 %s; the manifest says %lld bytes with sha256 %s",
					      rel, f->path, data.len, got, f->bytes, f->sha256);
			else
				check_contents(rel, f->path, &data, out);
		}
		free(fp);
		sb_release(&data);
	}
	for (size_t k = 0; k < actual.n; k++)
		if (actual.v[k])
			findings_addf(out, "%s/%s: not listed in the manifest", rel, actual.v[k]);
	witness_manifest_release(&m);
out:
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

		if (nm[0] == '.') {
			free(names[i]);
			continue;
		}
		r = *rel ? xasprintf("%s/%s", rel, nm) : xstrdup(nm);
		p = xasprintf("%s/%s", dir, nm);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode))
			findings_addf(f, "%s: not a witness folder (expected <envelope>/<lever>/<date>-<digest>/)", r);
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

void witness_verify(const char *root, const struct graph *g, const struct index *idx,
		    struct witness_summary *sum, struct findings *out)
{
	struct refs folders = { 0 }, named = { 0 };
	struct strmap ok = STRMAP_INIT;
	struct stat st;

	memset(sum, 0, sizeof(*sum));
	if (stat(root, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			findings_addf(out, "witness root '%s' is not a folder", root);
		else
			walk(root, "", 0, &folders, out);
	} else if (errno != ENOENT) {
		findings_addf(out, "witness root '%s': %s", root, strerror(errno));
	}
	for (size_t i = 0; i < folders.n; i++) {
		sum->folders++;
		if (verify_folder(root, folders.v[i], out)) {
			sum->verified++;
			strmap_put(&ok, folders.v[i], i, NULL);
		}
	}
	/* what the graph and the index name */
	for (size_t i = 0; i < g->nr_levers; i++) {
		const struct lever *l = &g->levers[i];
		const char *s;
		size_t len;

		if (!l->has_witnessed)
			continue;
		if (find_ref(l->witnessed.receipt, &s, &len) || find_ref(l->witnessed.provenance, &s, &len)) {
			char *r = xstrndup(s, len);
			size_t k;

			ref_add(&named, r, len);
			if (!strmap_get(&ok, r, &k))
				findings_addf(out, "lever \"%s\": its witness %s does not verify or does not exist", l->id, r);
			free(r);
		} else {
			sum->external++;
		}
	}
	for (size_t i = 0; i < idx->nr_rows; i++) {
		const struct index_row *row = &idx->rows[i];
		const char *texts[2] = { row->evidence, row->retention }, *s;
		size_t len;
		bool any = false;

		for (int t = 0; t < 2; t++)
			if (find_ref(texts[t], &s, &len)) {
				char *r = xstrndup(s, len);
				size_t k;
				struct strbuf where = STRBUF_INIT;

				any = true;
				ref_add(&named, r, len);
				index_row_path(row, &where);
				if (!strmap_get(&ok, r, &k))
					findings_addf(out, "index %s: its witness %s does not verify or does not exist",
						      where.buf, r);
				sb_release(&where);
				free(r);
			}
		if (!any && row->lifecycle == INDEX_CURRENT)
			sum->external++;
	}
	for (size_t i = 0; i < folders.n; i++) {
		bool used = false;

		for (size_t k = 0; k < named.n && !used; k++)
			used = !strcmp(named.v[k], folders.v[i]);
		if (!used)
			findings_addf(out, "%s: orphaned: no lever and no index row names it", folders.v[i]);
	}
	findings_sort(out);
	for (size_t i = 0; i < folders.n; i++)
		free(folders.v[i]);
	free(folders.v);
	for (size_t i = 0; i < named.n; i++)
		free(named.v[i]);
	free(named.v);
	strmap_release(&ok);
}
