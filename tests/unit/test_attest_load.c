/* attestation/attest.h: attestation_load, the one loader of attestation files (the
 * CLI's --verify and --attach-receipt, promotion's attestations/). Every
 * way it fails, with the exact message, and what it hands back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "attestation/attest.h"
#include "attestation/attestation.h"

#define FIX "tests/fixtures/attestations/"

/* A file of a temporary folder holding data; the folder's path in dir. */
static void put(char dir[static 32], const char *name, const char *data, size_t len,
		char *path, size_t cap)
{
	struct err e;

	strcpy(dir, "/tmp/fak-test-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, cap, "%s/%s", dir, name);
	cr_assert_eq(file_write_atomic(path, data, len, 0600, &e), 0, "%s", e.msg);
}

static void drop(const char *dir, const char *path)
{
	unlink(path);
	rmdir(dir);
}

/* attestation_load fails at level with exactly want; unread as expected. */
static void expect_fail(const char *path, enum attestation_level level, bool unread,
			const char *want)
{
	struct attestation_loaded a = ATTESTATION_LOADED_INIT;
	struct err e;

	cr_assert_eq(attestation_load(path, level, &a, &e), -1, "'%s' loaded", path);
	cr_expect_str_eq(e.msg, want);
	cr_expect_eq(a.unread, unread, "unread %d for '%s'", a.unread, path);
	attestation_loaded_release(&a);
}

Test(attestation_load, verified_hands_back_bytes_doc_report_and_facts)
{
	struct attestation_loaded a = ATTESTATION_LOADED_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct attestation_facts facts;
	struct err e;

	cr_assert_eq(attestation_load(FIX "clean-1.json", ATTESTATION_VERIFIED, &a, &e), 0, "%s",
		     e.msg);
	cr_assert_eq(file_read(FIX "clean-1.json", ATTESTATION_MAX_BYTES, &sb, &e), 0);
	cr_expect_eq(a.bytes.len, sb.len);
	cr_expect_eq(memcmp(a.bytes.buf, sb.buf, sb.len), 0);
	cr_assert_eq(attestation_verify_bytes(sb.buf, sb.len, &facts, &e), 0, "%s", e.msg);
	cr_expect_str_eq(a.facts.digest, facts.digest);
	cr_expect_str_eq(a.facts.verdict, "clean");
	cr_assert_not_null(a.att);
	cr_expect_str_eq(a.att->digest, facts.digest);
	cr_expect(json_is_object(a.doc));
	cr_expect_not(a.unread);
	attestation_loaded_release(&a);
	cr_expect_null(a.doc);
	cr_expect_null(a.att);
	sb_release(&sb);
}

/* --attach-receipt reads and parses; the checks are receipt_attach's. */
Test(attestation_load, parsed_does_not_check)
{
	struct attestation_loaded a = ATTESTATION_LOADED_INIT;
	struct err e;

	cr_assert_eq(attestation_load(FIX "tampered-verdict.json", ATTESTATION_PARSED, &a, &e), 0,
		     "%s", e.msg);
	cr_expect(json_is_object(a.doc));
	cr_expect_null(a.att);
	attestation_loaded_release(&a);
}

Test(attestation_load, unreadable)
{
	expect_fail(FIX "no-such-attestation.json", ATTESTATION_VERIFIED, true,
		    "cannot read '" FIX "no-such-attestation.json': No such file or directory");
	expect_fail(FIX, ATTESTATION_PARSED, true, "cannot read '" FIX "': Is a directory");
}

Test(attestation_load, too_big)
{
	size_t len = ATTESTATION_MAX_BYTES + 1;
	char *big = malloc(len), dir[32], path[64], want[128];

	cr_assert_not_null(big);
	memset(big, ' ', len);
	put(dir, "big.json", big, len, path, sizeof(path));
	snprintf(want, sizeof(want), "cannot read '%s': larger than the 1048576-byte limit", path);
	expect_fail(path, ATTESTATION_PARSED, true, want);
	drop(dir, path);
	free(big);
}

Test(attestation_load, not_json)
{
	char dir[32], path[64];

	put(dir, "a.json", "not json\n", 9, path, sizeof(path));
	expect_fail(path, ATTESTATION_PARSED, false,
		    "attestation: line 1, column 3: '[' or '{' expected near 'not'");
	drop(dir, path);
}

Test(attestation_load, not_an_object)
{
	char dir[32], path[64];

	put(dir, "a.json", "[]\n", 3, path, sizeof(path));
	expect_fail(path, ATTESTATION_PARSED, false, "attestation: expected a JSON object");
	drop(dir, path);
}

Test(attestation_load, bad_digest)
{
	expect_fail(FIX "tampered-verdict.json", ATTESTATION_VERIFIED, false,
		    "canonical digest mismatch: recorded "
		    "\"sha256:e48917cc6bae5d825b5f6304ceca4e7fdc52c922daeef0cd75f87c5462b039d3\", "
		    "computed "
		    "\"sha256:572bfa6f09eb9bd0641a51fc0178650544ad6d577c862ef55d3ce56e05f2f861\"; "
		    "the attestation was changed after it was sealed");
}

/* A report that does not decode: an unknown field, before any digest. */
Test(attestation_load, bad_report)
{
	struct strbuf sb = STRBUF_INIT;
	const char *key = "\"timed_out\": false,";
	char dir[32], path[64], *at, *edited;
	struct err e;

	cr_assert_eq(file_read(FIX "clean-1.json", ATTESTATION_MAX_BYTES, &sb, &e), 0, "%s", e.msg);
	at = strstr(sb.buf, key);
	cr_assert_not_null(at);
	at += strlen(key);
	cr_assert_gt(asprintf(&edited, "%.*s \"note\": 1,%s", (int)(at - sb.buf), sb.buf, at), 0);
	put(dir, "a.json", edited, strlen(edited), path, sizeof(path));
	expect_fail(path, ATTESTATION_VERIFIED, false, "note: unknown field");
	drop(dir, path);
	free(edited);
	sb_release(&sb);
}

Test(attestation_load, edited_bytes)
{
	expect_fail(FIX "tampered-whitespace.json", ATTESTATION_VERIFIED, false,
		    "bytes differ from the sealed rendering at line 327 (byte 9364); the file was "
		    "edited after it was written");
}
