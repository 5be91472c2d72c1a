/* witness/: the strict decoders of MANIFEST.json and of the journal. A
 * planted or damaged journal cannot make recovery touch anything but fak's
 * own staging files. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "witness/witness.h"

static void read_fixture(const char *name, struct strbuf *sb)
{
	char path[256];
	struct err e;

	snprintf(path, sizeof(path), "tests/fixtures/witness/%s", name);
	cr_assert_eq(file_read(path, 1 << 20, sb, &e), 0, "%s", e.msg);
}

/* fixture name with the first occurrence of from replaced by to, into ed */
static void fixture_with(const char *name, const char *from, const char *to, struct strbuf *ed)
{
	struct strbuf sb = STRBUF_INIT;
	const char *at;

	read_fixture(name, &sb);
	at = strstr(sb.buf, from);
	cr_assert(at, "%s not in %s", from, name);
	sb_add(ed, sb.buf, (size_t)(at - sb.buf));
	sb_adds(ed, to);
	sb_adds(ed, at + strlen(from));
	sb_release(&sb);
}

/* the journal fixture with one text replaced */
static int journal_with(const char *from, const char *to, struct err *e)
{
	struct strbuf ed = STRBUF_INIT;
	struct witness_journal j;
	int rc;

	fixture_with("journal-committing.json", from, to, &ed);
	rc = witness_journal_parse(ed.buf, ed.len, &j, e);
	if (rc == 0)
		witness_journal_release(&j);
	sb_release(&ed);
	return rc;
}

Test(witness_journal, a_journal_fak_wrote_decodes)
{
	struct strbuf sb = STRBUF_INIT;
	struct witness_journal j;
	struct err e;

	read_fixture("journal-committing.json", &sb);
	cr_assert_eq(witness_journal_parse(sb.buf, sb.len, &j, &e), 0, "%s", e.msg);
	cr_assert(j.committing);
	cr_assert_eq(j.nr_staged, 3);
	cr_assert_eq(j.nr_steps, 2);
	cr_assert(j.steps[0].dir && !j.steps[0].sha256);
	cr_assert(!j.steps[1].dir && j.steps[1].sha256);
	witness_journal_release(&j);
	sb_release(&sb);
}

Test(witness_journal, planted_paths_are_refused)
{
	struct err e;

	cr_assert_eq(journal_with("\"/srv/fak/examples/.fak-promote-4242-index\"",
				  "\"/etc/passwd\"", &e), -1);
	cr_assert_str_eq(e.msg, "staged[1]: is not a staging path of fak");
	cr_assert_eq(journal_with("\"to\": \"/srv/fak/examples/graph.json\"",
				  "\"to\": \"/etc/graph.json\"", &e), -1);
	cr_assert(strstr(e.msg, "steps[1]: is not a step fak would have written"), "%s", e.msg);
	cr_assert_eq(journal_with("\"from\": \"/srv/fak/.fak-promote-4242-witness\"",
				  "\"from\": \"/srv/fak/important\"", &e), -1);
	cr_assert(strstr(e.msg, "steps[0]: is not a step fak would have written"), "%s", e.msg);
	cr_assert_eq(journal_with("/witnesses/env", "/../../env", &e), -1);
	cr_assert(strstr(e.msg, "steps[0]"), "%s", e.msg);
	cr_assert_eq(journal_with("\"committing\"", "\"done\"", &e), -1);
	cr_assert_str_eq(e.msg, "state: must be \"staging\" or \"committing\"");
	cr_assert_eq(journal_with("\"kind\": \"dir\"", "\"kind\": \"dir\", \"extra\": 1", &e), -1);
	cr_assert(strstr(e.msg, "steps[0].extra"), "%s", e.msg);
}

Test(witness_manifest, strict)
{
	struct strbuf sb = STRBUF_INIT;
	struct witness_manifest m;
	struct err e;

	read_fixture("MANIFEST.json", &sb);
	cr_assert_eq(witness_manifest_parse(sb.buf, sb.len, &m, &e), 0, "%s", e.msg);
	cr_assert_str_eq(m.lever_id, "cpu.fast");
	cr_assert(m.nr_files > 5);
	cr_assert(m.attempt.recorded);
	cr_assert_eq(m.attempt.k, 2);
	cr_assert_eq(m.attempt.n, 4);
	cr_assert_eq(m.attempt.head_seq, 8);
	cr_assert_str_eq(m.attempt.experiment_id, "229f168cd5f2aa333f7d423f6b27302c");
	witness_manifest_release(&m);
	cr_assert_eq(witness_manifest_parse("{\"schema\": \"x\"}", 15, &m, &e), -1);
	cr_assert_str_eq(e.msg, "schema: must be \"fak-witness-manifest/v3\"");
	sb_release(&sb);
}


/* the manifest fixture with one text replaced: 0 (m filled) or the error */
static int manifest_with(const char *from, const char *to, struct witness_manifest *m,
			 struct err *e)
{
	struct strbuf ed = STRBUF_INIT;
	int rc;

	fixture_with("MANIFEST.json", from, to, &ed);
	rc = witness_manifest_parse(ed.buf, ed.len, m, e);
	sb_release(&ed);
	return rc;
}

Test(witness_manifest, attempt_is_null_or_strict)
{
	static const char *const bad[][3] = {
		{ "\"attempt\": 2,", "\"attempt\": 5,",
		  "attempt: must hold 1 <= attempt <= attempts and 1 <= started_seq < ended_seq "
		  "<= ledger_head_seq" },
		{ "\"ledger_head_seq\": 8", "\"ledger_head_seq\": 3", "must hold 1 <= attempt" },
		{ "\"229f", "\"zz9f", "attempt: experiment_id must be 32 lowercase hex digits" },
		{ "sha256:3c83", "sha256:3C83", "attempt: started_digest, ended_digest and" },
		{ "\"attempts\": 4,", "\"attempts\": 4, \"x\": 1,", "attempt.x: unknown field" },
		{ "\"attempts\": 4,", "", "attempt.attempts: missing" },
	};
	struct witness_manifest m;
	struct err e;
	const char *start;
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(manifest_with(bad[i][0], bad[i][1], &m, &e), -1, "case %zu", i);
		cr_expect(strstr(e.msg, bad[i][2]), "case %zu: %s", i, e.msg);
	}
	/* null: a manual loop's witness */
	read_fixture("MANIFEST.json", &sb);
	start = strstr(sb.buf, "\"attempt\": {");
	cr_assert(start);
	{
		struct strbuf ed = STRBUF_INIT;
		const char *end = strstr(start, "},") + 1;

		sb_add(&ed, sb.buf, (size_t)(start - sb.buf));
		sb_adds(&ed, "\"attempt\": null");
		sb_adds(&ed, end);
		cr_assert_eq(witness_manifest_parse(ed.buf, ed.len, &m, &e), 0, "%s", e.msg);
		cr_expect(!m.attempt.recorded);
		witness_manifest_release(&m);
		sb_release(&ed);
	}
	cr_expect_eq(manifest_with("\"attempt\": {", "\"attemptx\": {", &m, &e), -1);
	cr_expect(strstr(e.msg, "attempt"), "%s", e.msg);
	sb_release(&sb);
}

/* ---- writing a promotion: the outcomes around the commit point ---------- */

struct commit_dir {
	char root[64], graph[96], index[96], wit[96], dest[160];
};

static void put(const char *path, const char *text)
{
	struct err e;

	cr_assert_eq(file_write_atomic(path, text, strlen(text), 0644, &e), 0, "%s", e.msg);
}

static bool holds(const char *path, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	bool same = file_read(path, 1 << 20, &sb, &e) == 0 && !strcmp(sb_str(&sb), text);

	sb_release(&sb);
	return same;
}

/* Commits a tiny promotion under $FAK_PROMOTE_FAULT=fault in a new folder. */
static int commit_with(const char *fault, struct commit_dir *d, struct err *e)
{
	struct witness_paths paths;
	struct promotion p;
	struct witness_file f = { .path = (char *)(uintptr_t)"MANIFEST.json", .data = STRBUF_INIT };
	int rc;

	snprintf(d->root, sizeof(d->root), "/tmp/fak-test-commit-XXXXXX");
	cr_assert(mkdtemp(d->root));
	snprintf(d->graph, sizeof(d->graph), "%s/graph.json", d->root);
	snprintf(d->index, sizeof(d->index), "%s/index.json", d->root);
	snprintf(d->wit, sizeof(d->wit), "%s/wit", d->root);
	snprintf(d->dest, sizeof(d->dest), "%s/wit/e/l/2026-01-01-abc", d->root);
	put(d->graph, "old graph");
	put(d->index, "old index");
	memset(&p, 0, sizeof(p));
	p.rel = (char *)(uintptr_t)"e/l/2026-01-01-abc";
	sb_adds(&p.old_graph, "old graph");
	sb_adds(&p.old_index, "old index");
	sb_adds(&p.new_graph, "new graph");
	sb_adds(&p.new_index, "new index");
	sb_adds(&f.data, "{}");
	p.files = &f;
	p.nr_files = 1;
	paths = (struct witness_paths){ d->graph, d->index, d->wit };
	setenv(WITNESS_FAULT_ENV, fault, 1);
	rc = witness_promote_commit(&p, &paths, e);
	sb_release(&p.old_graph);
	sb_release(&p.old_index);
	sb_release(&p.new_graph);
	sb_release(&p.new_index);
	sb_release(&f.data);
	return rc;
}

static void remove_dir(const char *dir)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;

	cr_assert(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

Test(witness_commit, a_failure_after_the_commit_point_is_a_promotion)
{
	struct commit_dir d;
	struct err e;

	cr_assert_eq(commit_with("fail:5", &d, &e), 1);
	cr_assert_str_eq(e.msg, "promoted, but a step after the commit point failed (step 5 of "
				"the promotion (a test fault): Invalid cross-device link); fak "
				"completed it at once: nothing is left to clean");
	cr_assert(holds(d.graph, "new graph") && holds(d.index, "new index"));
	cr_assert(access(d.dest, F_OK) == 0);
	/* graph, index, lock and the witness root: no journal, nothing staged */
	cr_assert_eq(entries(d.root), 4);
	remove_dir(d.root);
}

Test(witness_commit, a_failure_before_it_changes_nothing)
{
	struct commit_dir d;
	struct err e;

	cr_assert_eq(commit_with("fail:3", &d, &e), -1);
	cr_assert_str_eq(e.msg,
			 "step 3 of the promotion (a test fault): Invalid cross-device link");
	cr_assert(holds(d.graph, "old graph") && holds(d.index, "old index"));
	cr_assert(access(d.wit, F_OK) < 0);
	cr_assert_eq(entries(d.root), 3);	/* graph, index, lock */
	remove_dir(d.root);
}

Test(witness_commit, no_fault_promotes)
{
	struct commit_dir d;
	struct err e;

	cr_assert_eq(commit_with("0", &d, &e), 0, "%s", e.msg);
	cr_assert(holds(d.graph, "new graph") && access(d.dest, F_OK) == 0);
	remove_dir(d.root);
}

/* ---- fak's own temporary files left by a kill --------------------------- */

Test(file_sweep, only_fak_temporaries_of_dead_writers)
{
	char dir[64] = "/tmp/fak-test-sweep-XXXXXX", path[160], live[64];
	static const char *const kept[] = { ".fak-XXXXXX", ".fak-12-abc", "fak-99999999-abcdef",
					    ".fak-promotion.lock", "graph.json" };
	size_t n;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/.fak-99999999-aB3dEf", dir);	/* no such pid */
	put(path, "x");
	snprintf(live, sizeof(live), ".fak-%ld-abcdef", (long)getppid());	/* alive */
	snprintf(path, sizeof(path), "%s/%s", dir, live);
	put(path, "x");
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kept[i]);
		put(path, "x");
	}
	snprintf(path, sizeof(path), "%s/.fak-99999998-folder", dir);
	cr_assert_eq(mkdir(path, 0700), 0);	/* not a regular file */
	file_sweep_temps(dir, &n);
	cr_assert_eq(n, 1);
	snprintf(path, sizeof(path), "%s/.fak-99999999-aB3dEf", dir);
	cr_assert(access(path, F_OK) < 0);
	cr_assert_eq(entries(dir), 7);
	remove_dir(dir);
}

/* v2 (the fixture) is read without an envelope, which --verify-witnesses
 * refuses by name; v3 requires the envelope's digest and object. */
Test(witness_manifest, v3_records_the_envelope)
{
	struct witness_manifest m;
	struct err e;

	cr_assert_eq(manifest_with("\"lever_id\"", "\"lever_id\"", &m, &e), 0, "%s", e.msg);
	cr_expect_str_eq(m.schema, "fak-witness-manifest/v2");
	cr_expect_null(m.envelope_digest);
	cr_expect_null(m.envelope);
	witness_manifest_release(&m);
	cr_assert_eq(manifest_with("fak-witness-manifest/v2", "fak-witness-manifest/v3", &m, &e),
		     -1);
	cr_expect_str_eq(e.msg, "envelope_digest: missing required field");
#define ENV_MEMBERS "\"envelope_digest\": \"sha256:1\", " \
	"\"envelope\": {\"id\": \"e\"}"
	cr_assert_eq(manifest_with("\"graph_sha256\"", ENV_MEMBERS ", \"graph_sha256\"", &m, &e),
		     -1);
	cr_expect_str_eq(e.msg, "envelope_digest: unknown field");
	cr_assert_eq(manifest_with("fak-witness-manifest/v2\"", "fak-witness-manifest/v3\", "
				   ENV_MEMBERS, &m, &e), 0, "%s", e.msg);
	cr_expect_str_eq(m.envelope_digest, "sha256:1");
	cr_expect_str_eq(json_string_value(json_object_get(m.envelope, "id")), "e");
	witness_manifest_release(&m);
}
