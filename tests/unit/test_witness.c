/* witness/: the strict decoders of MANIFEST.json and of the journal. A
 * planted or damaged journal cannot make recovery touch anything but fak's
 * own staging files. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/file.h"
#include "witness/witness.h"

static void read_fixture(const char *name, struct strbuf *sb)
{
	char path[256];
	struct err e;

	snprintf(path, sizeof(path), "tests/fixtures/witness/%s", name);
	cr_assert_eq(file_read(path, 1 << 20, sb, &e), 0, "%s", e.msg);
}

/* the journal fixture with one text replaced */
static int journal_with(const char *from, const char *to, struct err *e)
{
	struct strbuf sb = STRBUF_INIT, ed = STRBUF_INIT;
	struct witness_journal j;
	const char *at;
	int rc;

	read_fixture("journal-committing.json", &sb);
	at = strstr(sb.buf, from);
	cr_assert(at, "%s not in the fixture", from);
	sb_add(&ed, sb.buf, (size_t)(at - sb.buf));
	sb_adds(&ed, to);
	sb_adds(&ed, at + strlen(from));
	rc = witness_journal_parse(ed.buf, ed.len, &j, e);
	if (rc == 0)
		witness_journal_release(&j);
	sb_release(&sb);
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

	cr_assert_eq(journal_with("\"/srv/fak/examples/.fak-promote-4242-index\"", "\"/etc/passwd\"", &e), -1);
	cr_assert_str_eq(e.msg, "staged[1]: is not a staging path of fak");
	cr_assert_eq(journal_with("\"to\": \"/srv/fak/examples/graph.json\"", "\"to\": \"/etc/graph.json\"", &e), -1);
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
	witness_manifest_release(&m);
	cr_assert_eq(witness_manifest_parse("{\"schema\": \"x\"}", 15, &m, &e), -1);
	cr_assert_str_eq(e.msg, "schema: must be \"fak-witness-manifest/v1\"");
	sb_release(&sb);
}
