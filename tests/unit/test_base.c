/* base/: JSON output and canonical form, strict decoding, files, dates. */
#include <criterion/criterion.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/dates.h"
#include "base/file.h"
#include "base/findings.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/text.h"

static void expect_number(double d, const char *want)
{
	char buf[JSON_NUMBER_MAX];

	json_format_double(buf, d);
	cr_expect_str_eq(buf, want, "%.17g printed as %s, want %s", d, buf, want);
}

Test(json_number, integers_and_strings_written_without_printf)
{
	static const long long v[] = { 0, 7, -7, 1234567890123LL, LLONG_MAX, LLONG_MIN };
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char want[32];

		sb_reset(&sb);
		json_write_int(&sb, v[i]);
		snprintf(want, sizeof(want), "%lld", v[i]);
		cr_expect_str_eq(sb_str(&sb), want);
	}
	sb_reset(&sb);
	json_write_str(&sb, "a\"b\\\n\x01");
	cr_expect_str_eq(sb_str(&sb), "\"a\\\"b\\\\\\n\\u0001\"");
	sb_release(&sb);
}

Test(json_number, shortest_round_trip_forms)
{
	expect_number(6.966061, "6.966061");
	expect_number(5, "5");
	expect_number(2.3, "2.3");
	expect_number(0.1 + 0.2, "0.30000000000000004");
	expect_number(100.0 / 3.0, "33.333333333333336");
	expect_number(-12.5, "-12.5");
	expect_number(-0.0, "0");
	expect_number(0.000001, "0.000001");
	expect_number(1e-7, "1e-7");
	expect_number(1.5e-7, "1.5e-7");
	expect_number(1e21, "1e+21");
	expect_number(1e20, "100000000000000000000");
	expect_number(123456789012345680000.0, "123456789012345680000");
	expect_number(5e-324, "5e-324");
	expect_number(1.7976931348623157e308, "1.7976931348623157e+308");
}

static char *canon(const char *text)
{
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	json_t *v = json_parse_strict(text, strlen(text), "test", &e);

	cr_assert_not_null(v, "%s", e.msg);
	cr_assert_eq(json_write_canonical(&sb, v, &e), 0, "%s", e.msg);
	json_decref(v);
	return sb_detach(&sb, NULL);
}

Test(json_write, shown_documents_escape_del_and_c1_canonical_keeps_them)
{
	json_t *v = json_pack("{s:s}", "k\x7f", "a\x1b\xc2\x9b" "b\xc2\xa0");
	struct strbuf sb = STRBUF_INIT;
	struct err e;

	json_write_compact(&sb, v);
	cr_expect_str_eq(sb.buf, "{\"k\\u007f\":\"a\\u001b\\u009bb\xc2\xa0\"}");
	sb_reset(&sb);
	cr_assert_eq(json_write_canonical(&sb, v, &e), 0, "%s", e.msg);
	cr_expect_str_eq(sb.buf, "{\"k\x7f\":\"a\\u001b\xc2\x9b" "b\xc2\xa0\"}");
	sb_release(&sb);
	json_decref(v);
}

Test(json_canonical, rfc8785_ordering_numbers_and_strings)
{
	char *s;

	/* keys sort by UTF-16 code units: U+1F600 (D83D DE00) before U+E000 */
	s = canon("{\"\\ue000\": 1, \"\\ud83d\\ude00\": 2, \"b\": [1E2, 0.5e-6, 4.50], \"a\": "
		  "\"\\u000f\\u007f\\\"\"}");
	cr_expect_str_eq(s, "{\"a\":\"\\u000f\x7f\\\"\",\"b\":[100,5e-7,4.5],\"\xF0\x9F\x98\x80\":"
			    "2,\"\xEE\x80\x80\":1}");
	free(s);
	s = canon("[true, false, null, {}, [], \"\\/\\b\\f\\n\\r\\t\"]");
	cr_expect_str_eq(s, "[true,false,null,{},[],\"/\\b\\f\\n\\r\\t\"]");
	free(s);
}

Test(json_canonical, rejects_integers_without_exact_double)
{
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	json_t *v = json_integer(9007199254740993LL);

	cr_expect_eq(json_write_canonical(&sb, v, &e), -1);
	cr_expect(strstr(e.msg, "no exact canonical form") != NULL, "%s", e.msg);
	json_decref(v);
	sb_release(&sb);
}

/* The canonical writer prints an integer as itself: the same bytes as the
 * shortest round trip of the double it equals (json_format_double), at the
 * edges (0, powers of ten and of two up to 2^53, both signs) and for
 * 60,000 pseudo-random integers of the exact range. */
static void expect_integer_canonical(long long x)
{
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	json_t *v = json_integer(x);
	char want[JSON_NUMBER_MAX];

	json_format_double(want, (double)x);
	cr_assert_eq(json_write_canonical(&sb, v, &e), 0, "%s", e.msg);
	cr_expect_str_eq(sb.buf, want, "integer %lld", x);
	json_decref(v);
	sb_release(&sb);
}

Test(json_canonical, integers_as_the_doubles_they_equal)
{
	unsigned long long r = 0x9e3779b97f4a7c15ULL;

	expect_integer_canonical(0);
	for (long long p = 1; p <= 1000000000000000LL; p *= 10)
		for (int d = -1; d <= 1; d++) {
			expect_integer_canonical(p + d);
			expect_integer_canonical(-(p + d));
		}
	for (int k = 0; k <= 53; k++)
		for (int d = -1; d <= (k < 53 ? 1 : 0); d++) {
			expect_integer_canonical((1LL << k) + d);
			expect_integer_canonical(-((1LL << k) + d));
		}
	for (int i = 0; i < 60000; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		expect_integer_canonical((long long)(r % (1ULL << 54)) - (1LL << 53));
	}
}

Test(json_digest, omits_member_and_matches_sha256)
{
	struct err e;
	char d1[JSON_DIGEST_LEN + 1], d2[JSON_DIGEST_LEN + 1], hex[65];
	const char *ta = "{\"b\":1,\"a\":2,\"digest\":\"x\"}", *tb = "{\"a\":2,\"b\":1}";
	json_t *a = json_parse_strict(ta, strlen(ta), NULL, &e);
	json_t *b = json_parse_strict(tb, strlen(tb), NULL, &e);

	cr_assert(a && b);
	cr_assert_eq(json_digest(a, "digest", d1, &e), 0);
	cr_assert_eq(json_digest(b, NULL, d2, &e), 0);
	cr_expect_str_eq(d1, d2);
	sha256_hex("{\"a\":2,\"b\":1}", 13, hex);
	cr_expect_eq(strncmp(d1, "sha256:", 7), 0);
	cr_expect_str_eq(d1 + 7, hex);
	/* the original still has its digest member */
	cr_expect_not_null(json_object_get(a, "digest"));
	json_decref(a);
	json_decref(b);
}

Test(json_digest, sha256_known_vector)
{
	char hex[65];

	sha256_hex("abc", 3, hex);
	cr_expect_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

Test(json_pretty, layout_and_no_html_escaping)
{
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	const char *in =
		"{\"z\":[],\"a\":{},\"s\":\">=0.995 <=0.02 & \\u2028\",\"n\":[1,2.50,null]}";
	json_t *v = json_parse_strict(in, strlen(in), NULL, &e);

	cr_assert_not_null(v);
	json_write_pretty(&sb, v);
	cr_expect_str_eq(sb.buf, "{\n  \"z\": [],\n  \"a\": {},\n  \"s\": \">=0.995 <=0.02 & "
				 "\xE2\x80\xA8\",\n"
				 "  \"n\": [\n    1,\n    2.5,\n    null\n  ]\n}\n");
	json_decref(v);
	sb_release(&sb);
}

Test(json_parse, strict_rejections)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "{\"a\":1,\"a\":2}", "duplicate object key" },
		{ "{} {}", "end of file expected" },
		{ "{\"a\":NaN}", "invalid token" },
		{ "{\"a\":1e999}", "real number overflow" },
		{ "", "expected near end of file" },
		{ "7", "'[' or '{' expected" },
		{ "{\"a\":\"\\u0000\"}", "\\u0000 is not allowed" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err e;
		json_t *v = json_parse_strict(cases[i].text, strlen(cases[i].text), "doc", &e);

		cr_expect_null(v, "accepted %s", cases[i].text);
		cr_expect(strstr(e.msg, cases[i].want) && !strncmp(e.msg, "doc: line ", 10),
			  "%s -> %s", cases[i].text, e.msg);
		json_decref(v);
	}
}

Test(json_decode, typed_getters_report_json_paths)
{
	static const char *const known[] = { "id", "n", "list", NULL };
	const char *text =
		"{\"levers\":[{\"id\":\"a\"},{\"id\":\"b\",\"n\":1.5,\"list\":[\"x\",5]}]}";
	struct err e;
	json_t *doc = json_parse_strict(text, strlen(text), NULL, &e);
	const json_t *lever = json_array_get(json_object_get(doc, "levers"), 1), *list;
	struct jpath lp = JP_KEY(NULL, "levers"), ip = JP_IDX(&lp, 1), kp = JP_KEY(&ip, "list");
	long long n;
	double d;
	const char *s;

	cr_assert_not_null(doc);
	cr_expect_eq(jd_object(lever, &ip, known, &e), 0);
	cr_expect_eq(jd_int(lever, &ip, "n", JD_REQUIRED, &n, &e), -1);
	cr_expect_str_eq(e.msg, "levers[1].n: expected an integer, found a fractional number");
	cr_expect_eq(jd_num(lever, &ip, "n", JD_REQUIRED, &d, &e), 0);
	cr_expect_eq(d, 1.5);
	cr_expect_eq(jd_str(lever, &ip, "name", JD_OPTIONAL, &s, &e), 1);
	cr_expect_eq(jd_str(lever, &ip, "name", JD_REQUIRED, &s, &e), -1);
	cr_expect_str_eq(e.msg, "levers[1].name: missing required field");
	cr_assert_eq(jd_arr(lever, &ip, "list", JD_REQUIRED, false, &list, &e), 0);
	cr_expect_eq(jd_str_at(list, &kp, 1, &s, &e), -1);
	cr_expect_str_eq(e.msg, "levers[1].list[1]: expected a string, found an integer");
	{
		static const char *const narrow[] = { "id", NULL };
		cr_expect_eq(jd_object(lever, &ip, narrow, &e), -1);
		cr_expect(strstr(e.msg, "levers[1].") && strstr(e.msg, ": unknown field"), "%s",
			  e.msg);
	}
	cr_expect_eq(jd_object(doc, NULL, known, &e), -1);
	cr_expect_str_eq(e.msg, "levers: unknown field");
	json_decref(doc);
}

Test(json_build, invalid_utf8_becomes_replacement_character)
{
	json_t *o = jobj();
	struct strbuf sb = STRBUF_INIT;

	jset_str(o, "comm", "a\xff" "b\xE2\x82");
	json_write_compact(&sb, o);
	cr_expect_str_eq(sb.buf, "{\"comm\":\"a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD\"}");
	json_decref(o);
	sb_release(&sb);
}

Test(file, read_respects_cap_on_files_and_endless_devices)
{
	char path[] = "/tmp/fak-test-XXXXXX";
	int fd = mkstemp(path);
	struct strbuf sb = STRBUF_INIT;
	struct err e;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "0123456789", 10), 10);
	close(fd);
	cr_expect_eq(file_read(path, 10, &sb, &e), 0);
	cr_expect_eq(sb.len, 10);
	cr_expect_str_eq(sb.buf, "0123456789");
	cr_expect_eq(file_read(path, 9, &sb, &e), -1);
	cr_expect(strstr(e.msg, "larger than the 9-byte limit") != NULL, "%s", e.msg);
	cr_expect_eq(file_read("/dev/zero", 4096, &sb, &e), -1);
	cr_expect(strstr(e.msg, "'/dev/zero': larger than the 4096-byte limit") != NULL, "%s",
		  e.msg);
	cr_expect_eq(file_read("/nonexistent/x", 10, &sb, &e), -1);
	cr_expect_str_eq(e.msg, "cannot read '/nonexistent/x': No such file or directory");
	unlink(path);
	sb_release(&sb);
}

Test(file, atomic_write_sets_mode_and_leaves_nothing_on_failure)
{
	char dir[] = "/tmp/fak-test-XXXXXX", path[128];
	struct stat st;
	struct strbuf sb = STRBUF_INIT;
	struct err e;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	cr_assert_eq(file_write_atomic(path, "old\n", 4, 0644, &e), 0);
	cr_assert_eq(file_write_atomic(path, "{}\n", 3, 0600, &e), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	cr_expect_eq(file_read(path, 100, &sb, &e), 0);
	cr_expect_str_eq(sb.buf, "{}\n");
	snprintf(path, sizeof(path), "%s/missing/out.json", dir);
	cr_expect_eq(file_write_atomic(path, "{}\n", 3, 0600, &e), -1);
	cr_expect(strstr(e.msg, "/missing' does not exist; create it first") != NULL, "%s", e.msg);
	{
		/* only out.json remains: no temporary files */
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1 && rm -rf %s", dir, dir);
		cr_expect_eq(system(cmd), 0);
	}
	sb_release(&sb);
}

/* "<dir>/<name>" into buf. */
static const char *in_dir(char *buf, size_t n, const char *dir, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
	return buf;
}

Test(file, check_output_refuses_what_cannot_be_replaced_safely)
{
	char dir[] = "/tmp/fak-test-XXXXXX", p[512], q[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct err e;
	int sock;

	cr_assert_not_null(mkdtemp(dir));
	/* a new file, an existing regular file, and a link to either are fine */
	cr_expect_eq(file_check_output(in_dir(p, sizeof(p), dir, "new.json"), &e), 0, "%s", e.msg);
	cr_assert_eq(file_write_atomic(p, "x", 1, 0600, &e), 0, "%s", e.msg);
	cr_expect_eq(file_check_output(p, &e), 0, "%s", e.msg);
	cr_assert_eq(symlink("new.json", in_dir(q, sizeof(q), dir, "link.json")), 0);
	cr_expect_eq(file_check_output(q, &e), 0, "%s", e.msg);

	cr_expect_eq(file_check_output("", &e), -1);
	cr_expect_str_eq(e.msg, "cannot write '': the output path is empty; give a file name");
	cr_expect_eq(file_check_output(dir, &e), -1);
	cr_expect(strstr(e.msg, "': it is a folder; give the name of a file inside it"), "%s",
		  e.msg);
	cr_expect_eq(file_check_output(in_dir(p, sizeof(p), dir, "sub/"), &e), -1);
	cr_expect(strstr(e.msg, "a path ending in '/' names a folder"), "%s", e.msg);
	cr_expect_eq(file_check_output("/dev/null", &e), -1);
	cr_expect_str_eq(e.msg, "cannot write '/dev/null': it is a character device, not a regular "
				"file; fak only replaces regular files, so give a new file name");
	cr_assert_eq(mkfifo(in_dir(p, sizeof(p), dir, "fifo"), 0600), 0);
	cr_expect_eq(file_check_output(p, &e), -1);
	cr_expect(strstr(e.msg, "it is a FIFO, not a regular file"), "%s", e.msg);
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert(sock >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", dir);
	cr_assert_eq(bind(sock, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_expect_eq(file_check_output(sa.sun_path, &e), -1);
	cr_expect(strstr(e.msg, "it is a socket, not a regular file"), "%s", e.msg);
	close(sock);
	/* a link is judged by what it leads to, and the message names both */
	cr_assert_eq(symlink("/dev/null", in_dir(p, sizeof(p), dir, "null")), 0);
	cr_expect_eq(file_check_output(p, &e), -1);
	cr_expect(strstr(e.msg, "null' (a symbolic link to '/dev/null'): it is a character device"),
		  "%s", e.msg);
	cr_assert_eq(symlink("loop", in_dir(p, sizeof(p), dir, "loop")), 0);
	cr_expect_eq(file_check_output(p, &e), -1);
	cr_expect(strstr(e.msg, "Too many levels of symbolic links"), "%s", e.msg);
	/* the folder of a link's target must exist too */
	cr_assert_eq(symlink("gone/x.json", in_dir(p, sizeof(p), dir, "dangling")), 0);
	cr_expect_eq(file_check_output(p, &e), -1);
	cr_expect(strstr(e.msg, "/gone' does not exist; create it first"), "%s", e.msg);
	cr_expect_eq(file_check_output(in_dir(p, sizeof(p), dir, "new.json/x"), &e), -1);
	cr_expect(strstr(e.msg, "new.json' is not a folder"), "%s", e.msg);
	/* a folder fak cannot write (root writes everywhere, so only as a user) */
	if (geteuid() != 0) {
		cr_assert_eq(mkdir(in_dir(q, sizeof(q), dir, "ro"), 0500), 0);
		cr_expect_eq(file_check_output(in_dir(p, sizeof(p), q, "x.json"), &e), -1);
		cr_expect(strstr(e.msg, "ro' is not writable (Permission denied); choose a folder"),
			  "%s", e.msg);
	}
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		cr_expect_eq(system(cmd), 0);
	}
}

Test(file, atomic_write_through_links_with_long_names)
{
	char dir[] = "/tmp/fak-test-XXXXXX", p[512], q[512], name[256], cmd[128];
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	struct err e;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(mkdir(in_dir(p, sizeof(p), dir, "real"), 0755), 0);
	cr_assert_eq(file_write_atomic(in_dir(p, sizeof(p), dir, "real/doc.md"), "old", 3, 0640,
				       &e),
		     0);
	cr_assert_eq(symlink("real/doc.md", in_dir(q, sizeof(q), dir, "doc.md")), 0);
	cr_expect_eq(file_write_atomic(q, "new", 3, 0640, &e), 0, "%s", e.msg);
	cr_expect_eq(lstat(q, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link was replaced");
	cr_expect_eq(file_read(p, 100, &sb, &e), 0);
	cr_expect_str_eq(sb.buf, "new");
	/* a device behind a link is refused and left alone */
	cr_assert_eq(symlink("/dev/null", in_dir(p, sizeof(p), dir, "null")), 0);
	cr_expect_eq(file_write_atomic(p, "x", 1, 0600, &e), -1);
	cr_expect_eq(lstat(p, &st), 0);
	cr_expect(S_ISLNK(st.st_mode));
	/* the longest legal name */
	memset(name, 'n', 255);
	name[255] = '\0';
	cr_expect_eq(file_write_atomic(in_dir(p, sizeof(p), dir, name), "x", 1, 0600, &e), 0, "%s",
		     e.msg);
	cr_expect_eq(stat(p, &st), 0);
	cr_expect_eq(st.st_size, 1);
	/* no temporary file anywhere: doc.md, null, real, the long name; real/doc.md */
	snprintf(cmd, sizeof(cmd),
		 "test $(ls -A %s | wc -l) -eq 4 && test $(ls -A %s/real | wc -l) -eq 1", dir, dir);
	cr_expect_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
	sb_release(&sb);
}

Test(file, same_file_by_device_and_inode)
{
	char dir[] = "/tmp/fak-test-XXXXXX", a[128], b[128], c[128];
	struct err e;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(file_write_atomic(in_dir(a, sizeof(a), dir, "a"), "x", 1, 0600, &e), 0);
	cr_assert_eq(link(a, in_dir(b, sizeof(b), dir, "hard")), 0);
	cr_assert_eq(symlink("a", in_dir(c, sizeof(c), dir, "soft")), 0);
	cr_expect(file_same(a, a));
	cr_expect(file_same(a, b));
	cr_expect(file_same(c, a));
	cr_assert_eq(file_write_atomic(in_dir(b, sizeof(b), dir, "b"), "x", 1, 0600, &e), 0);
	cr_expect(!file_same(a, b), "equal contents are not the same file");
	cr_expect(!file_same(a, in_dir(c, sizeof(c), dir, "missing")));
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		cr_expect_eq(system(cmd), 0);
	}
}

Test(dates, parse_format_and_calendar_rules)
{
	struct err e;
	long d, d2;
	char out[11];

	cr_assert_eq(date_parse("1970-01-01", &d, &e), 0);
	cr_expect_eq(d, 0);
	cr_assert_eq(date_parse("2026-09-03", &d, &e), 0);
	cr_assert_eq(date_parse("2026-09-01", &d2, &e), 0);
	cr_expect_eq(d - d2, 2);
	date_format(d, out);
	cr_expect_str_eq(out, "2026-09-03");
	cr_expect_eq(date_parse("2024-02-29", &d, &e), 0);
	cr_expect_eq(date_parse("2026-02-29", &d, &e), -1);
	cr_expect_str_eq(e.msg, "date \"2026-02-29\" is not a calendar day");
	cr_expect_eq(date_parse("2026-9-1", &d, &e), -1);
	cr_expect_eq(date_parse("2026-13-01", &d, &e), -1);
	cr_expect_eq(date_parse("2026-09-01x", &d, &e), -1);
}

Test(dates, durations)
{
	struct err e;
	int64_t ns;

	cr_expect_eq(duration_parse("250ms", &ns, &e), 0);
	cr_expect_eq(ns, 250000000);
	cr_expect_eq(duration_parse("2s", &ns, &e), 0);
	cr_expect_eq(ns, 2000000000);
	cr_expect_eq(duration_parse("1.5m", &ns, &e), 0);
	cr_expect_eq(ns, 90000000000LL);
	cr_expect_eq(duration_parse("2", &ns, &e), -1);
	cr_expect_eq(duration_parse("-1s", &ns, &e), -1);
	cr_expect_eq(duration_parse("s", &ns, &e), -1);
	cr_expect_eq(duration_parse("2h", &ns, &e), 0);
	cr_expect_eq(ns, 7200000000000LL);
	cr_expect_eq(duration_parse("2d", &ns, &e), -1);
	cr_expect_str_eq(e.msg, "invalid duration \"2d\": expected a number with ms, s, m or h");
}

Test(dates, rfc3339_timestamps)
{
	char out[40];

	timestamp_format(0, out);
	cr_expect_str_eq(out, "1970-01-01T00:00:00Z");
	timestamp_format(1788400447250000000LL, out);
	cr_expect_str_eq(out, "2026-09-03T01:54:07.25Z");
}

Test(strmap, insert_lookup_duplicates_and_growth)
{
	struct strmap m = STRMAP_INIT;
	char keys[2000][8];
	size_t v;

	for (int i = 0; i < 2000; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		cr_assert_eq(strmap_put(&m, keys[i], (size_t)i, NULL), 1);
	}
	cr_expect_eq(strmap_put(&m, "k7", 99, &v), 0);
	cr_expect_eq(v, 7);
	for (int i = 0; i < 2000; i++)
		cr_expect(strmap_get(&m, keys[i], &v) && v == (size_t)i);
	cr_expect_eq(strmap_get(&m, "k2000", &v), 0);
	strmap_release(&m);
}

Test(text, blank_and_quoting)
{
	struct strbuf sb = STRBUF_INIT;

	cr_expect(str_blank(NULL));
	cr_expect(str_blank(""));
	cr_expect(str_blank(" \t\r\n\xC2\xA0\xE2\x80\x83\xE3\x80\x80"));
	cr_expect(!str_blank(" x "));
	sb_add_quoted(&sb, "a\"b\\c\n\x01");
	cr_expect_str_eq(sb.buf, "\"a\\\"b\\\\c\\n\\x01\"");
	sb_release(&sb);
}

/* The scrubbed-text rule table (docs/receipts.md "Scrubbed text"): each
 * refused string with the exact reason, then strings that stay accepted. */
Test(text, printable_refuses_controls_and_invalid_utf8)
{
	static const struct {
		const char *s, *keep, *why;
	} refused[] = {
		{ "r1\x1b[31m", "", "a control character (U+001B) at byte 2" },
		{ "a\tb", "", "a control character (U+0009) at byte 1" },
		{ "a\rb", "\t\n", "a control character (U+000D) at byte 1" },
		{ "x\x7f", "", "a control character (U+007F) at byte 1" },
		{ "m\xc2\x9b" "2J", "", "a control character (U+009B) at byte 1" },
		{ "v\xff", "", "invalid UTF-8 at byte 1" },
		{ "\xc3\xa9\xc0\xaf", "", "invalid UTF-8 at byte 2" },
	};
	static const char *const accepted[] = { "r1", "pr\xc3\xa9\x63ision \xe2\x9c\x93",
						"\xc2\xa0nbsp", "" };
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		sb_reset(&why);
		cr_expect(!str_printable(refused[i].s, refused[i].keep, &why), "#%zu accepted", i);
		cr_expect_str_eq(sb_str(&why), refused[i].why, "#%zu", i);
	}
	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++)
		cr_expect(str_printable(accepted[i], "", NULL), "#%zu refused", i);
	cr_expect(str_printable("a\tb\nc", "\t\n", NULL));
	sb_release(&why);
}

Test(text, scrubbed_command_shell_escapes)
{
	static const struct {
		const char *s, *why;
	} refused[] = {
		{ "type C:\\Users\\x", "a Windows path" },
		{ "dir \"D:\\data\"", "a Windows path" },
		{ "copy '\\\\fileserver\\share' .", "a Windows path" },
		{ "cat x\\/home/someone", "a home folder \"x/home/someone\"" },
		{ "cat \\/etc/passwd", "an absolute path \"/etc/passwd\"" },
		{ "ssh\\ host", "a remote login \"ssh\"" },
	};
	static const char *const accepted[] = {
		"printf 'a\\n'",
		"echo \\\"quoted\\\" words",
		"./bench.sh --sep '\\t' --end \\\\",
		"awk '{ printf \"%s\\n\", $1 }' out.txt",
	};
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		sb_reset(&why);
		cr_expect(!str_scrubbed_command(refused[i].s, &why), "\"%s\" accepted",
			  refused[i].s);
		cr_expect_str_eq(sb_str(&why), refused[i].why, "\"%s\"", refused[i].s);
	}
	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		sb_reset(&why);
		cr_expect(str_scrubbed_command(accepted[i], &why), "\"%s\" refused: %s",
			  accepted[i], sb_str(&why));
		/* free text keeps refusing every backslash */
		cr_expect(!str_scrubbed(accepted[i], NULL));
	}
	sb_release(&why);
}

Test(text, scrubbed_rule_table)
{
	static const struct {
		const char *s, *why;
	} refused[] = {
		{ "cd /srv/secret && ./run", "an absolute path \"/srv/secret\"" },
		{ "--model=/mnt/private/alice/m.gguf",
		  "an absolute path \"/mnt/private/alice/m.gguf\"" },
		{ "cmd /abs/x", "an absolute path \"/abs/x\"" },
		{ "run '/srv/x'", "an absolute path \"/srv/x\"" },
		{ "/usrlocal/x", "an absolute path \"/usrlocal/x\"" },
		{ "/optimal", "an absolute path \"/optimal\"" },
		{ "/dev/nullx", "an absolute path \"/dev/nullx\"" },
		{ "/data/bench/run.sh", "an absolute path \"/data/bench/run.sh\"" },
		{ "/opt/home/alice/x", "a home folder \"/opt/home/alice/x\"" },
		{ "/usr/../home/x", "a '..' path escape \"/usr/../home/x\"" },
		{ "//server/share", "an absolute path \"//server/share\"" },
		{ "cmd </etc/passwd", "an absolute path \"/etc/passwd\"" },
		{ "cmd >/tmp/log 2>&1", "an absolute path \"/tmp/log\"" },
		{ "~/bench/run", "a home-relative path \"~/bench/run\"" },
		{ "cp ~alice/x .", "a home-relative path \"~alice/x\"" },
		{ "ls ~someone", "a home-relative path \"~someone\"" },
		{ "$HOME/bench", "a home-relative path \"$HOME/bench\"" },
		{ "--dir=${HOME}", "a home-relative path \"${HOME}\"" },
		{ "../../etc/passwd", "a '..' path escape \"../../etc/passwd\"" },
		{ "cd ..", "a '..' path escape \"..\"" },
		{ "logs/../../x", "a '..' path escape \"logs/../../x\"" },
		{ "up/..", "a '..' path escape \"up/..\"" },
		{ "x/USERS/y", "a home folder \"x/USERS/y\"" },
		{ "c:/home/someone", "a home folder \"c:/home/someone\"" },
		{ "alice@gpu-node", "an account or e-mail address \"alice@gpu-node\"" },
		{ "mail someone@example.com",
		  "an account or e-mail address \"someone@example.com\"" },
		{ "ssh://host/x", "a URL other than the project's public links \"ssh://host/x\"" },
		{ "see https://example.com/a",
		  "a URL other than the project's public links \"https://example.com/a\"" },
		{ "http://github.com/anthony-chaudhary/fak/issues/1",
		  "a URL other than the project's public links "
		  "\"http://github.com/anthony-chaudhary/fak/issues/1\"" },
		{ "https://github.com/anthony-chaudhary/fak-private/x",
		  "a URL other than the project's public links "
		  "\"https://github.com/anthony-chaudhary/fak-private/x\"" },
		{ "rsync -a out vm:/data/x", "a remote host:path or host:port \"vm:/data/x\"" },
		{ "copy gpu7:logs/run.txt",
		  "a remote host:path or host:port \"gpu7:logs/run.txt\"" },
		{ "host:~/x", "a remote host:path or host:port \"host:~/x\"" },
		{ "--server=gpu-node.lan:8080",
		  "a remote host:path or host:port \"gpu-node.lan:8080\"" },
		{ "C:/Users", "a remote host:path or host:port \"C:/Users\"" },
		{ "curl 10.0.0.7:8080", "an IP address \"10.0.0.7:8080\"" },
		{ "ping 192.168.1.1.", "an IP address \"192.168.1.1.\"" },
		{ "fe80::1%eth0", "an IP address \"fe80::1%eth0\"" },
		{ "[2001:db8::7]:22", "an IP address \"2001:db8::7\"" },
		{ "2001:0db8:0000:0000:0000:ff00:0042:8329",
		  "an IP address \"2001:0db8:0000:0000:0000:ff00:0042:8329\"" },
		{ "scp vm:/data/x .", "a remote login \"scp\"" },
		{ "ssh\talice", "a remote login \"ssh\"" },
		{ "SSH host run", "a remote login \"SSH\"" },
		{ "sftp\xC2\xA0host", "a remote login \"sftp\"" },
		{ "C:\\Users\\x", "a backslash (a Windows path or an escape)" },
	};
	static const char *const accepted[] = {
		"./build/example/decode --weights build/example/weights.bin",
		/* the system's own paths name no one */
		"/usr/bin/node bench.js",
		"/bin/sh -c ./run",
		"/opt/rocm/bin/rocm-smi",
		"LD_LIBRARY_PATH=/usr/local/lib:/lib64 ./run 2>/dev/null",
		"/sbin/ldconfig -p",
		"fak native-performance --next",
		"fak run --out dir/x",
		"profiles/metal.trace",
		"home/relative",
		"sshd-config",
		"ssh",
		"lab-node-class-a",
		"https://github.com/anthony-chaudhary/fak/issues/8635",
		"see (https://github.com/anthony-chaudhary/fak/pull/12).",
		"https://github.com/anthony-chaudhary/fak",
		"docs/_witnesses/issue-8643-prefill/summary.json",
		"2.3..3.3 tok/s",
		"3.3 vs 6.966061 tok/s (~47%), native P31/T64 versus llama.cpp P32/T64.",
		"~ 2 tok/s",
		"~strike~ and ~47%",
		"a / b",
		"<b>bold</b> and <i>x</i>",
		"sha256:98378807e72e28eeea1f1565f0d3b31ed9706576bb5a7f3fef1bafa804e622e6",
		"lever:metal.command-buffer-amortization",
		"Note: ratio 3:1 at 12:30:45",
		"v1.2.3.4 and 1.2.3.4.5 and 256.1.1.1",
		"llama.cpp b9828",
		"#8643 issue receipt, commit 2b54497aa0",
		"std::vector",
		"FILL_SCRUBBED_CAPTURE_COMMAND",
		"",
	};
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		sb_reset(&why);
		cr_expect(!str_scrubbed(refused[i].s, &why), "\"%s\" accepted", refused[i].s);
		cr_expect_str_eq(sb_str(&why), refused[i].why, "\"%s\"", refused[i].s);
		cr_expect(!str_scrubbed(refused[i].s, NULL));
	}
	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		sb_reset(&why);
		cr_expect(str_scrubbed(accepted[i], &why), "\"%s\" refused: %s", accepted[i],
			  sb_str(&why));
		cr_expect_eq(why.len, 0);
	}
	/* a long word is shown cut, never in the middle of a UTF-8 sequence */
	sb_reset(&why);
	cr_expect(!str_scrubbed("/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				"aaaaaaaaaaaaa\xC3\xA9zz",
				&why));
	cr_expect_str_eq(why.buf, "an absolute path "
				  "\"/"
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				  "aaaaaaaaaaaaaa\"...");
	cr_expect(str_contains_ci("abcDEF", "cdE"));
	cr_expect(!str_contains_ci("abc", "abcd"));
	sb_release(&why);
}

Test(strbuf, fresh_buffer_is_a_string)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	sb_grow(&sb, 10);
	cr_expect_str_eq(sb.buf, "");
	s = sb_detach(&sb, NULL);
	cr_expect_str_eq(s, "");
	free(s);
}

Test(findings, sorted_bytewise_with_duplicates_kept)
{
	struct findings f = FINDINGS_INIT;

	findings_addf(&f, "lever %s", "b");
	findings_addf(&f, "Z first");
	findings_addf(&f, "lever %s", "a");
	findings_addf(&f, "lever %s", "b");
	findings_sort(&f);
	cr_assert_eq(f.nr, 4);
	cr_expect_str_eq(f.items[0], "Z first");
	cr_expect_str_eq(f.items[1], "lever a");
	cr_expect_str_eq(f.items[3], "lever b");
	cr_expect(findings_contain(&f, "ver a"));
	findings_release(&f);
}

Test(json_same, numbers_by_value_members_in_any_order)
{
	struct err e;
	const char *text = "{\"x\": 2, \"y\": [1, {\"z\": 0.5}]}";
	json_t *a = json_parse_strict(text, strlen(text), NULL, &e);
	json_t *b = jobj(), *arr = jarr(), *o = jobj();

	cr_assert(a, "%s", e.msg);
	jset_num(o, "z", 0.5);
	jpush_new(arr, json_real(1.0));
	jpush_new(arr, o);
	jset_new(b, "y", arr);
	jset_num(b, "x", 2.0);
	cr_assert(!json_equal(a, b), "jansson tells 2 from 2.0");
	cr_assert(json_same(a, b));
	jset_num(b, "x", 2.5);
	cr_assert(!json_same(a, b));
	jset_num(b, "x", 2);
	jset_str(b, "w", "extra");
	cr_assert(!json_same(a, b));
	json_decref(a);
	json_decref(b);
}

/* words joined with '|' for comparison */
static char *sh_joined(const char *cmd, size_t *n, bool *exp)
{
	struct strbuf w = STRBUF_INIT;
	char *out;

	if (sh_words(cmd, &w, n, exp) < 0) {
		sb_release(&w);
		return NULL;
	}
	for (size_t i = 0; i + 1 < w.len; i++)
		if (!w.buf[i])
			w.buf[i] = '|';
	out = strdup(w.len ? w.buf : "");
	sb_release(&w);
	return out;
}

Test(sh_words, quote_removal_and_operators)
{
	static const struct {
		const char *cmd, *words;
		size_t n;
	} cases[] = {
		{ "./bench ok", "./bench|ok", 2 },
		{ "./bench 'ok'", "./bench|ok", 2 },
		{ "./bench \"ok\"", "./bench|ok", 2 },
		{ "./bench o\\k", "./bench|ok", 2 },
		{ "  ./bench\tok \\\n ", "./bench|ok", 2 },
		{ "./bench 'o k'", "./bench|o k", 2 },
		{ "./bench o'k'\"s\"", "./bench|oks", 2 },
		{ "a ''", "a|", 2 },
		{ "a;b", "a|;|b", 3 },
		{ "a && b >>log", "a|&&|b|>>|log", 5 },
		{ "echo \"a\\\"b\\\\c\\d\"", "echo|a\"b\\c\\d", 2 },
		{ "echo 'a\\b'", "echo|a\\b", 2 },
		{ "echo ';'", "echo|;", 2 },
		{ "", "", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 99;
		char *got = sh_joined(cases[i].cmd, &n, NULL);

		cr_assert_not_null(got, "%s", cases[i].cmd);
		cr_expect_str_eq(got, cases[i].words, "%s", cases[i].cmd);
		cr_expect_eq(n, cases[i].n, "%s: %zu words", cases[i].cmd, n);
		free(got);
	}
}

Test(sh_words, expansions_and_unclosed_quotes)
{
	bool exp[8];
	size_t n;
	char *got = sh_joined("X=$HOME \"$Y\" '$Z' *.c ~/a \\$W", &n, exp);

	cr_assert_not_null(got);
	cr_expect_str_eq(got, "X=$HOME|$Y|$Z|*.c|~/a|$W");
	cr_expect(exp[0] && exp[1] && !exp[2] && exp[3] && exp[4] && !exp[5]);
	free(got);
	cr_expect_null(sh_joined("echo 'a", &n, NULL));
	cr_expect_null(sh_joined("echo \"a", &n, NULL));
}
