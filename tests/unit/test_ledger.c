/* receipt/ledger.c: the attempt ledger. A chain built by appends verifies;
 * every corruption (an edited field, a deleted, swapped or torn line, a
 * line that is not canonical, a non-regular file, a file over the cap) is
 * refused with the line that breaks it. graph_envelope_digest is pinned to
 * an independent RFC 8785 implementation's digest. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/xalloc.h"
#include "graph/graph.h"
#include "receipt/ledger.h"

#define ID1 "0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210"
#define ID3 "00112233445566778899aabbccddeeff"
#define D1 "sha256:1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "sha256:2222222222222222222222222222222222222222222222222222222222222222"

static char *tmp_dir(void)
{
	char *d = xstrdup("/tmp/fak-ledger-XXXXXX");

	cr_assert(mkdtemp(d));
	return d;
}

static void append(const char *path, enum ledger_event ev, const char *id, const char *lever,
		   const char *env_digest, long long want_seq)
{
	struct ledger_entry in = { .event = ev, .experiment_id = id, .lever_id = lever,
				   .envelope_id = "env", .envelope_digest = env_digest,
				   .criterion_digest = D2, .out_dir = "/home/someone/runs/x1/",
				   .verdict = "faster", .gate = "pass" };
	char digest[JSON_DIGEST_LEN + 1];
	long long seq;
	struct err e;

	cr_assert_eq(ledger_append(path, &in, &seq, digest, &e), 0, "%s", e.msg);
	cr_expect_eq(seq, want_seq);
	cr_expect_eq(strncmp(digest, "sha256:", 7), 0);
}

/* A ledger of three attempts of lever a (the second never ended) and one
 * of lever b, in dir; its path (caller frees). */
static char *build(const char *dir)
{
	char *path = xasprintf("%s/attempts.jsonl", dir);

	append(path, LEDGER_STARTED, ID1, "a", D1, 1);
	append(path, LEDGER_ENDED, ID1, "a", D1, 2);
	append(path, LEDGER_STARTED, ID2, "a", D1, 3);
	append(path, LEDGER_STARTED, ID3, "b", D1, 4);
	append(path, LEDGER_ENDED, ID3, "b", D1, 5);
	return path;
}

Test(ledger, appends_build_a_chain_that_counts_attempts)
{
	char *dir = tmp_dir(), *path = build(dir);
	struct ledger l;
	struct err e;

	cr_assert_eq(ledger_load(path, &l, &e), 0, "%s", e.msg);
	cr_assert_eq(l.nr, 5);
	cr_expect(!l.missing);
	cr_expect_str_eq(l.lines[0].prev, LEDGER_ZERO);
	for (size_t i = 1; i < l.nr; i++)
		cr_expect_str_eq(l.lines[i].prev, l.lines[i - 1].digest);
	/* a private absolute path never reaches the ledger */
	cr_expect_str_eq(l.lines[0].out_dir, "x1");
	cr_expect_null(l.lines[0].verdict);
	cr_expect_str_eq(l.lines[1].verdict, "faster");
	cr_expect_eq(ledger_attempts(&l, "a", D1), 2);
	cr_expect_eq(ledger_attempts(&l, "a", D2), 0);
	cr_expect_eq(ledger_attempts(&l, "b", D1), 1);
	cr_expect_eq(ledger_attempt_number(&l, ID1), 1);
	cr_expect_eq(ledger_attempt_number(&l, ID2), 2);
	cr_expect_eq(ledger_attempt_number(&l, ID3), 1);
	cr_expect_eq(ledger_attempt_number(&l, "ffffffffffffffffffffffffffffffff"), 0);
	cr_expect_null(ledger_find(&l, ID2, LEDGER_ENDED));
	cr_expect_eq(ledger_find(&l, ID3, LEDGER_ENDED)->seq, 5);
	cr_expect_str_eq(ledger_head(&l), l.lines[4].digest);
	ledger_release(&l);
	free(path);
	free(dir);
}

Test(ledger, a_missing_file_is_an_empty_ledger)
{
	struct ledger l;
	struct err e;

	cr_assert_eq(ledger_load("/nonexistent-fak/attempts.jsonl", &l, &e), 0, "%s", e.msg);
	cr_expect(l.missing);
	cr_expect_eq(l.nr, 0);
	cr_expect_str_eq(ledger_head(&l), LEDGER_ZERO);
	cr_expect_eq(ledger_check("/nonexistent-fak/attempts.jsonl", &e), 0, "%s", e.msg);
	cr_expect_eq(ledger_check("/nonexistent-fak/deeper/attempts.jsonl", &e), -1);
	cr_expect(strstr(e.msg, "does not exist, nor does its folder"), "%s", e.msg);
}

Test(ledger, out_dir_is_scrubbed)
{
	const char *const cases[][2] = {
		{ "runs/x1", "runs/x1" }, { "runs/x1//", "runs/x1" }, { "/home/u/runs/x1", "x1" },
		{ "../secret/x1", "x1" }, { "a/../b", "b" }, { "/", "experiment" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = ledger_scrub_dir(cases[i][0]);

		cr_expect_str_eq(s, cases[i][1], "%s", cases[i][0]);
		free(s);
	}
}

/* The five lines of build() as text. */
static void lines_of(char *const *path, struct strbuf *sb)
{
	struct err e;

	cr_assert_eq(file_read(*path, 1 << 20, sb, &e), 0, "%s", e.msg);
}

/* Line n (1-based) of text, its start and length (without newline). */
static const char *line_at(const struct strbuf *sb, int n, size_t *len)
{
	const char *p = sb->buf;

	while (--n > 0)
		p = strchr(p, '\n') + 1;
	*len = (size_t)(strchr(p, '\n') - p);
	return p;
}

/* The error of parsing text. */
static void refused(const struct strbuf *text, const char *want)
{
	struct ledger l;
	struct err e;

	cr_assert_eq(ledger_parse(text->buf, text->len, "L", &l, &e), -1, "accepted");
	cr_expect(strstr(e.msg, want), "got: %s\nwant: %s", e.msg, want);
}

/* build()'s text with line n replaced (NULL: deleted) */
static void with_line(const struct strbuf *sb, int n, const char *repl, struct strbuf *out)
{
	size_t len;
	const char *p = line_at(sb, n, &len);

	sb_reset(out);
	sb_add(out, sb->buf, (size_t)(p - sb->buf));
	if (repl) {
		sb_adds(out, repl);
		sb_addch(out, '\n');
	}
	sb_adds(out, p + len + 1);
}

Test(ledger, every_corruption_names_its_line)
{
	char *dir = tmp_dir(), *path = build(dir);
	struct strbuf sb = STRBUF_INIT, t = STRBUF_INIT, one = STRBUF_INIT;
	size_t len, len3;
	const char *l2, *l3;
	char *ed;

	lines_of(&path, &sb);
	l2 = line_at(&sb, 2, &len);

	/* an edited field: its own digest no longer matches */
	ed = xstrndup(l2, len);
	memcpy(strstr(ed, "\"verdict\":\"faster\""), "\"verdict\":\"slower\"", 18);
	with_line(&sb, 2, ed, &t);
	refused(&t, "L: line 2: its digest is sha256:");
	refused(&t, "the line was edited");
	free(ed);
	/* a deleted middle line */
	with_line(&sb, 3, NULL, &t);
	refused(&t, "L: line 3: seq is 4, expected 3: a line was deleted, inserted or moved");
	/* two lines swapped */
	l3 = line_at(&sb, 3, &len3);
	{
		char *a = xstrndup(l2, len), *b = xstrndup(l3, len3);

		with_line(&sb, 2, b, &one);
		with_line(&one, 3, a, &t);
		refused(&t, "L: line 2: seq is 3, expected 2");
		free(a);
		free(b);
	}
	/* a torn last line */
	sb_reset(&t);
	sb_add(&t, sb.buf, sb.len - 10);
	refused(&t, "L: line 5 has no newline at its end: an append was cut short (a torn write)");
	/* an empty line, a line that is not canonical, one that is not JSON */
	with_line(&sb, 2, "", &t);
	refused(&t, "L: line 2: empty");
	ed = xstrndup(l2, len);
	ed[0] = ' ';
	with_line(&sb, 2, ed, &t);
	refused(&t, "L: line 2");
	free(ed);
	ed = xasprintf("{\"seq\":2,%.*s", (int)(len - 1), l2 + 1);
	with_line(&sb, 2, ed, &t);
	refused(&t, "L: line 2: line 1, column");
	free(ed);
	/* a member the schema does not have */
	with_line(&sb, 1, "{\"x\":1}", &t);
	refused(&t, "L: line 1: x: unknown field");
	sb_release(&one);
	sb_release(&t);
	sb_release(&sb);
	free(path);
	free(dir);
}

Test(ledger, a_rewritten_line_with_its_own_digest_breaks_the_next_prev)
{
	char *dir = tmp_dir(), *path = build(dir), *other = xasprintf("%s/b", dir),
	     *opath = xasprintf("%s/attempts.jsonl", other);
	struct strbuf sb = STRBUF_INIT, ob = STRBUF_INIT, t = STRBUF_INIT;
	size_t len;
	const char *first;

	/* the first line of another ledger: a valid line 1, another digest */
	cr_assert_eq(mkdir(other, 0700), 0);
	append(opath, LEDGER_STARTED, ID2, "a", D1, 1);
	lines_of(&path, &sb);
	lines_of(&opath, &ob);
	first = line_at(&ob, 1, &len);
	{
		char *l = xstrndup(first, len);

		with_line(&sb, 1, l, &t);
		free(l);
	}
	refused(&t, "L: line 2: prev is sha256:");
	refused(&t, "a line before it was deleted, changed or moved");
	sb_release(&sb);
	sb_release(&ob);
	sb_release(&t);
	free(opath);
	free(other);
	free(path);
	free(dir);
}

Test(ledger, non_regular_files_and_oversize_are_refused)
{
	char *dir = tmp_dir(), *path = build(dir), *link = xasprintf("%s/link.jsonl", dir),
	     *fifo = xasprintf("%s/fifo.jsonl", dir), *big;
	struct ledger_entry in = { .event = LEDGER_STARTED, .experiment_id = ID1,
				   .lever_id = "a", .envelope_id = "env", .envelope_digest = D1,
				   .criterion_digest = D2, .out_dir = "x" };
	char digest[JSON_DIGEST_LEN + 1];
	long long seq;
	struct ledger l;
	struct err e;

	cr_assert_eq(symlink(path, link), 0);
	cr_expect_eq(ledger_load(link, &l, &e), -1);
	cr_expect(strstr(e.msg, "is not a regular file (a symbolic link)"), "%s", e.msg);
	cr_expect_eq(ledger_append(link, &in, &seq, digest, &e), -1);
	cr_expect(strstr(e.msg, "is not a regular file (a symbolic link)"), "%s", e.msg);
	cr_expect_eq(ledger_check(link, &e), -1);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_expect_eq(ledger_append(fifo, &in, &seq, digest, &e), -1);
	cr_expect(strstr(e.msg, "is not a regular file (a FIFO)"), "%s", e.msg);
	cr_expect_eq(ledger_load(dir, &l, &e), -1);
	cr_expect(strstr(e.msg, "is not a regular file (a folder)"), "%s", e.msg);
	/* a file over the cap, a line over its cap */
	big = xcalloc(LEDGER_MAX_BYTES + 2, 1);
	cr_expect_eq(ledger_parse(big, LEDGER_MAX_BYTES + 1, "L", &l, &e), -1);
	cr_expect(strstr(e.msg, "L: larger than 67108864 bytes (the ledger's cap)"), "%s", e.msg);
	memset(big, ' ', LEDGER_LINE_MAX + 1);
	big[LEDGER_LINE_MAX + 1] = '\n';
	cr_expect_eq(ledger_parse(big, LEDGER_LINE_MAX + 2, "L", &l, &e), -1);
	cr_expect(strstr(e.msg, "L: line 1: longer than 4096 bytes"), "%s", e.msg);
	free(big);
	/* an append onto a broken chain is refused, and writes nothing */
	{
		int fd = open(path, O_WRONLY | O_APPEND);
		struct stat before, after;

		cr_assert(fd >= 0);
		cr_assert_eq(write(fd, "{", 1), 1);
		close(fd);
		stat(path, &before);
		cr_expect_eq(ledger_append(path, &in, &seq, digest, &e), -1);
		cr_expect(strstr(e.msg, "line 6 has no newline"), "%s", e.msg);
		stat(path, &after);
		cr_expect_eq(before.st_size, after.st_size);
	}
	free(fifo);
	free(link);
	free(path);
	free(dir);
}

Test(ledger, the_committed_fixture_verifies)
{
	struct ledger l;
	struct err e;

	cr_assert_eq(ledger_load("tests/fixtures/ledger/two-lines.jsonl", &l, &e), 0, "%s", e.msg);
	cr_expect_eq(l.nr, 2);
	cr_expect_eq(ledger_attempt_number(&l, l.lines[0].experiment_id), 1);
	ledger_release(&l);
	cr_expect_eq(ledger_load("tests/fixtures/ledger/reject-edited.jsonl", &l, &e), -1);
	cr_expect(strstr(e.msg, "line 1: its digest is"), "%s", e.msg);
	cr_expect_eq(ledger_load("tests/fixtures/ledger/reject-swapped.jsonl", &l, &e), -1);
	cr_expect(strstr(e.msg, "line 1: seq is 2, expected 1"), "%s", e.msg);
	cr_expect_eq(ledger_load("tests/fixtures/ledger/reject-torn.jsonl", &l, &e), -1);
	cr_expect(strstr(e.msg, "line 1 has no newline"), "%s", e.msg);
}

/* attempt.json with one text replaced: 0 or the error */
static int record_with(const char *from, const char *to, struct err *e)
{
	struct strbuf sb = STRBUF_INIT, ed = STRBUF_INIT;
	struct ledger_record r;
	const char *at;
	int rc;

	cr_assert_eq(file_read("tests/fixtures/ledger/attempt.json", 1 << 16, &sb, e), 0);
	at = strstr(sb.buf, from);
	cr_assert(at, "%s not in the fixture", from);
	sb_add(&ed, sb.buf, (size_t)(at - sb.buf));
	sb_adds(&ed, to);
	sb_adds(&ed, at + strlen(from));
	rc = ledger_record_parse(ed.buf, ed.len, "attempt.json", &r, e);
	if (rc == 0)
		ledger_record_release(&r);
	sb_release(&sb);
	sb_release(&ed);
	return rc;
}

Test(ledger_record, attempt_json_is_strict)
{
	static const char *const cases[][3] = {
		{ "\"attempt\": 1,", "\"attempt\": 1,", NULL },
		{ "record/v1", "record/v2",
		  "attempt.json: schema: must be \"fak-attempt-record/v1\"" },
		{ "\"229f", "\"229F",
		  "attempt.json: experiment_id: must be 32 lowercase hex digits" },
		{ "\"attempt\": 1,", "\"attempt\": 2,", "attempt.json: must hold 1 <= attempt <= "
		  "attempts and 1 <= started_seq < ended_seq" },
		{ "\"ended_seq\": 2", "\"ended_seq\": 1", "must hold 1 <= attempt" },
		{ "\"ledger\": ", "\"x\": 1, \"ledger\": ", "attempt.json: x: unknown field" },
		{ "sha256:3c83", "sha256:3C83", "started_digest and ended_digest must each be" },
		{ "\"attempt\": 1,", "\"attempt\": -1,", "attempt: must be non-negative" },
	};
	struct err e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = record_with(cases[i][0], cases[i][1], &e);

		if (!cases[i][2]) {
			cr_expect_eq(rc, 0, "%s", e.msg);
			continue;
		}
		cr_expect_eq(rc, -1, "case %zu accepted", i);
		cr_expect(strstr(e.msg, cases[i][2]), "case %zu: %s", i, e.msg);
	}
}

Test(graph_envelope, digest_matches_independent_jcs_and_follows_every_field)
{
	struct graph g;
	struct err e;
	char d[JSON_DIGEST_LEN + 1], d2[JSON_DIGEST_LEN + 1];

	cr_assert_eq(graph_load_default(&g, &e), 0, "%s", e.msg);
	cr_assert_eq(graph_envelope_digest(&g.envelopes[0], d, &e), 0, "%s", e.msg);
	/* sha256 of the npm package "canonicalize"'s form of envelopes[0] of
	 * `fak native-performance --json`; tests/cli/scripts/jcs-crosscheck.sh
	 * re-derives it */
	cr_expect_str_eq(d,
			 "sha256:4e82af3491eccd5e98455a7b75fea3405cefdc6db1fd2030192040fca83d6395");
	cr_assert_eq(graph_envelope_digest(&g.envelopes[0], d2, &e), 0);
	cr_expect_str_eq(d, d2);
	g.envelopes[0].repetitions++;
	cr_assert_eq(graph_envelope_digest(&g.envelopes[0], d2, &e), 0);
	cr_expect_str_neq(d, d2);
	g.envelopes[0].repetitions--;
	g.envelopes[0].warmups++;
	cr_assert_eq(graph_envelope_digest(&g.envelopes[0], d2, &e), 0);
	cr_expect_str_neq(d, d2);
	cr_assert_eq(graph_envelope_digest(&g.envelopes[1], d2, &e), 0);
	cr_expect_str_neq(d, d2);
	graph_release(&g);
}
