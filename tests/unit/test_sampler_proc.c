/* sampler/: /proc parsers, and the census on fake /proc trees
 * (tests/fixtures/proc). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "sampler/census.h"
#include "sampler/fold.h"
#include "base/proc_parse.h"
#include "sampler/proc_read.h"

#define S(lit) (lit), (sizeof(lit) - 1)

/* ---- /proc/stat ----------------------------------------------------- */

Test(proc_stat, four_fields)
{
	struct pp_cpu c;

	cr_assert_eq(pp_stat_cpu(S("cpu  10 20 30 40\n"), &c), 0);
	cr_expect_eq(c.total_ticks, 100);
	cr_expect_eq(c.idle_ticks, 40);
}

Test(proc_stat, guest_time_is_not_counted_twice)
{
	struct pp_cpu c;

	cr_assert_eq(pp_stat_cpu(S("cpu  100 20 30 40 5 1 2 3 90 10\ncpu0 1 2 3 4\n"), &c), 0);
	cr_expect_eq(c.total_ticks, 201);
	cr_expect_eq(c.idle_ticks, 45);
}

Test(proc_stat, rejects)
{
	struct pp_cpu c;

	cr_expect_eq(pp_stat_cpu(S("cpu  10 20 30\n"), &c), -1, "fewer than 4 fields");
	cr_expect_eq(pp_stat_cpu(S("cpu0 10 20 30 40\n"), &c), -1, "not the total line");
	cr_expect_eq(pp_stat_cpu(S("cpu  10 20 x 40\n"), &c), -1, "not a number");
	cr_expect_eq(pp_stat_cpu(S("cpu  10 20 -3 40\n"), &c), -1, "negative");
	cr_expect_eq(pp_stat_cpu(S("cpu  18446744073709551615 1 0 0\n"), &c), -1, "sum overflows");
	cr_expect_eq(pp_stat_cpu(S("cpu  18446744073709551616 0 0 0\n"), &c), -1,
		     "field overflows");
	cr_expect_eq(pp_stat_cpu(S(""), &c), -1);
}

Test(proc_stat, tick_conversion)
{
	uint64_t ns = 1;

	cr_expect(pp_ticks_to_ns(0, 100, &ns));
	cr_expect_eq(ns, 0);
	cr_expect(pp_ticks_to_ns(123, 100, &ns));
	cr_expect_eq(ns, 1230000000ULL);
	cr_expect(pp_ticks_to_ns(7, 1000, &ns));
	cr_expect_eq(ns, 7000000ULL);
	cr_expect_not(pp_ticks_to_ns(UINT64_MAX, 100, &ns));
	cr_expect_not(pp_ticks_to_ns(1, 0, &ns));
}

/* ---- /proc/meminfo --------------------------------------------------- */

Test(proc_meminfo, both_values)
{
	uint64_t t, a;

	cr_assert_eq(pp_meminfo(S("MemTotal:       16384 kB\nMemFree: 1 kB\nMemAvailable:    8192 "
				  "kB\n"),
				&t, &a),
		     0);
	cr_expect_eq(t, 16384ULL * 1024);
	cr_expect_eq(a, 8192ULL * 1024);
}

Test(proc_meminfo, rejects)
{
	uint64_t t, a;

	cr_expect_eq(pp_meminfo(S("MemTotal: 16384 kB\n"), &t, &a), -1, "no MemAvailable");
	cr_expect_eq(pp_meminfo(S("MemTotal: 0 kB\nMemAvailable: 1 kB\n"), &t, &a), -1,
		     "zero total");
	cr_expect_eq(pp_meminfo(S("MemTotal: 16384 MB\nMemAvailable: 1 kB\n"), &t, &a), -1, "unit");
	cr_expect_eq(pp_meminfo(S("MemTotal: 99999999999999999999 kB\nMemAvailable: 1 kB\n"), &t,
				&a),
		     -1);
}

/* ---- /proc/PID/stat --------------------------------------------------- */

Test(proc_pid_stat, comm_up_to_the_last_paren)
{
	struct pp_pid p;
	static const char line[] =
		"4242 (a) b (c) R 1 4242 4242 0 -1 4194560 10 0 0 0 150 50 0 0 -100 -5 3 0 98765 "
		"1000 -7 18446744073709551615 1\n";

	cr_assert_eq(pp_pid_stat(S(line), &p), 0);
	cr_expect_eq(p.pid, 4242);
	cr_expect_str_eq(p.comm, "a) b (c");
	cr_expect_eq(p.state, 'R');
	cr_expect_eq(p.ppid, 1);
	cr_expect_eq(p.utime_ticks, 150);
	cr_expect_eq(p.stime_ticks, 50);
	cr_expect_eq(p.num_threads, 3);
	cr_expect_eq(p.starttime_ticks, 98765);
	cr_expect_eq(p.rss_pages, 0, "negative rss reads as 0");
}

Test(proc_pid_stat, rejects)
{
	struct pp_pid p;

	cr_expect_eq(pp_pid_stat(S("107 (broken"), &p), -1, "no closing paren");
	cr_expect_eq(pp_pid_stat(S("107 (x) S 1 2 3\n"), &p), -1, "too few fields");
	cr_expect_eq(pp_pid_stat(S("(x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\n"),
				 &p),
		     -1);
	cr_expect_eq(pp_pid_stat(S("0 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
				   "21\n"),
				 &p),
		     -1, "pid 0");
	cr_expect_eq(pp_pid_stat(S("5 (x) S 1 2 3 4 5 6 7 8 9 10 -11 12 13 14 15 16 17 18 19 20 "
				   "21\n"),
				 &p),
		     -1, "negative utime");
	cr_expect_eq(pp_pid_stat(S("5 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 1x 20 "
				   "21\n"),
				 &p),
		     -1);
	/* the kernel's comm is a C string: a NUL would cut it short */
	cr_expect_eq(pp_pid_stat(S("5 (a\0b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
				   "21\n"),
				 &p),
		     -1, "a NUL in comm");
}

Test(proc_statm, resident)
{
	uint64_t r;

	cr_assert_eq(pp_statm_resident(S("1000 256 100 10 0 300 0\n"), &r), 0);
	cr_expect_eq(r, 256);
	cr_expect_eq(pp_statm_resident(S("1000\n"), &r), -1);
}

/* ---- lists, PSI, cgroup files ------------------------------------------ */

Test(proc_lists, pid_list_bounded)
{
	int32_t pids[3];
	size_t nr;
	bool more;

	cr_assert_eq(pp_pid_list(S("101 102\n103 "), pids, 3, &nr, &more), 0);
	cr_expect_eq(nr, 3);
	cr_expect_not(more);
	cr_expect_eq(pids[2], 103);
	cr_assert_eq(pp_pid_list(S("1 2 3 4 5"), pids, 3, &nr, &more), 0);
	cr_expect_eq(nr, 3);
	cr_expect(more, "a truncated list says so");
	cr_assert_eq(pp_pid_list(S(""), pids, 3, &nr, &more), 0);
	cr_expect_eq(nr, 0);
	cr_expect_eq(pp_pid_list(S("12 x3"), pids, 3, &nr, &more), -1);
	cr_expect_eq(pp_pid_list(S("0"), pids, 3, &nr, &more), -1);
	cr_expect_eq(pp_pid_list(S("99999999999"), pids, 3, &nr, &more), -1);
}

Test(proc_psi, some_and_full)
{
	struct pp_psi p;

	cr_assert_eq(pp_psi(S("some avg10=0.00 avg60=1.50 avg300=0.00 total=7388339\n"
			      "full avg10=0.00 avg60=0.00 avg300=0.00 total=12\n"), &p), 0);
	cr_expect(p.some_ok && p.full_ok);
	cr_expect_eq(p.some_total_us, 7388339);
	cr_expect_eq(p.full_total_us, 12);
	cr_assert_eq(pp_psi(S("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"), &p), 0);
	cr_expect(p.some_ok && !p.full_ok, "a missing full line is reported as missing");
	cr_expect_eq(pp_psi(S("some avg10=0.00 total=x\n"), &p), -1);
	cr_expect_eq(pp_psi(S("some avg10=0.00\n"), &p), -1, "no total");
	cr_expect_eq(pp_psi(S("half total=1\n"), &p), -1);
	cr_expect_eq(pp_psi(S("some total=1\nsome total=2\n"), &p), -1, "duplicate line");
	/* a carriage return separates fields like a blank (found by fuzz_proc: the field
	 * loops once spun on it for ever) */
	cr_assert_eq(pp_psi(S("some avg10=0.00\r total=5\r\n"), &p), 0);
	cr_expect_eq(p.some_total_us, 5);
	cr_expect_eq(pp_psi(S("some \r\r\n"), &p), -1, "no total");
}

Test(proc_cgroup, keyed_values)
{
	uint64_t v = 0;
	static const char stat[] = "usage_usec 50000\nuser_usec 30000\nsystem_usec 20000\n";

	cr_expect_eq(pp_keyed_u64(S(stat), "usage_usec", &v), 0);
	cr_expect_eq(v, 50000);
	cr_expect_eq(pp_keyed_u64(S(stat), "user", &v), 1, "prefixes do not match");
	cr_expect_eq(pp_keyed_u64(S("usage_usec 5\nbroken\n"), "usage_usec", &v), -1);
	cr_expect_eq(pp_keyed_u64(S("usage_usec -5\n"), "usage_usec", &v), -1);
	cr_expect_eq(pp_u64_file(S("8388608\n"), &v), 0);
	cr_expect_eq(v, 8388608);
	cr_expect_eq(pp_u64_file(S("max\n"), &v), -1);
}

Test(proc_cgroup, membership_and_mount)
{
	char out[128];
	static const char mountinfo[] =
		"24 1 0:22 / /sys rw,nosuid - sysfs sysfs rw\n"
		"35 24 0:30 / /sys/fs/cgroup/my\\040tree rw,relatime - cgroup2 cgroup2 rw\n";

	cr_assert_eq(pp_cgroup_v2_path(S("4:memory:/x\n0::/user.slice/app.scope\n"), out,
				       sizeof(out)),
		     0);
	cr_expect_str_eq(out, "/user.slice/app.scope");
	cr_expect_eq(pp_cgroup_v2_path(S("4:memory:/x\n"), out, sizeof(out)), -1);
	cr_assert_eq(pp_mountinfo_cgroup2(S(mountinfo), out, sizeof(out)), 0);
	cr_expect_str_eq(out, "/sys/fs/cgroup/my tree");
	cr_expect_eq(pp_mountinfo_cgroup2(S("24 1 0:22 / /sys rw - sysfs sysfs rw\n"), out,
					  sizeof(out)),
		     -1);
}

/* ---- bounded reads ------------------------------------------------------ */

Test(proc_read, bounded)
{
	char buf[8];

	cr_expect_eq(proc_read_at(AT_FDCWD, "tests/fixtures/proc/tree/50/task/50/children", buf,
				  sizeof(buf)),
		     8);
	cr_expect_eq(proc_read_at(AT_FDCWD, "tests/fixtures/proc/tree/stat", buf, sizeof(buf)), -1);
	cr_expect_eq(errno, EFBIG);
	cr_expect_eq(proc_read_at(AT_FDCWD, "tests/fixtures/proc/tree/999/stat", buf, sizeof(buf)),
		     -1);
	cr_expect(proc_gone(errno));
}

/* ---- the census on fake trees ------------------------------------------- */

/* fak is PID 50 in the fake trees, the SUT root is 100. */
static struct census_cfg fixture_cfg(const char *tree, const char *enumeration)
{
	struct census_cfg cfg = {
		.proc_root = tree,
		.self_pid = 50,
		.clk_tck = 100,
		.page_size = 4096,
		.process_limit = 64,
		.table_cap = 64,
		.enumeration = enumeration,
		.cgroup_procs_fd = -1,
	};

	return cfg;
}

static struct census *census_with(const struct census_cfg *cfg, pid_t root)
{
	struct err e;
	struct census *c = census_new(cfg, &e);

	cr_assert_not_null(c, "%s", e.msg);
	census_set_root(c, root);
	return c;
}

static struct census *fixture_census(const char *tree, const char *enumeration, bool track_cpu)
{
	struct census_cfg cfg = fixture_cfg(tree, enumeration);

	cfg.track_cpu = track_cpu;
	return census_with(&cfg, 100);
}

static const uint64_t tree_rss_pages = 256 + 100 + 1000 + 10 + 20 + 5;

Test(census, host_counters_from_the_fixture)
{
	struct census *c = fixture_census("tests/fixtures/proc/tree", ENUM_CHILDREN, false);
	struct sample s;

	census_take(c, CENSUS_ENDPOINT, &s);
	cr_assert(s.cpu_ok, "%s", s.cpu_reason);
	cr_expect_eq(s.cpu_total_ns, 2010000000ULL);
	cr_expect_eq(s.cpu_busy_ns, (201ULL - 45) * 10000000);
	cr_assert(s.mem_ok);
	cr_expect_eq(s.mem_total, 16384000ULL * 1024);
	cr_expect_eq(s.mem_available, 8192000ULL * 1024);
	cr_expect(s.psi_ok[PSI_CPU] && s.psi_ok[PSI_MEMORY] && s.psi_ok[PSI_IO]);
	cr_expect_eq(s.psi[PSI_IO].full_total_us, 200);
	cr_expect(s.count_ok);
	cr_expect_eq(s.process_count, 9);
	census_free(c);
}

Test(census, cpus_judged_on_their_own_lines)
{
	struct census_cfg cfg = fixture_cfg("tests/fixtures/proc/tree", ENUM_CHILDREN);
	unsigned char set[PP_MAX_CPUS / 8] = { 0 };
	struct census *c;
	struct sample s;

	set[0] = 1;	/* CPU 0 */
	cfg.cpu_set = set;
	cfg.cpu_count = 1;
	c = census_with(&cfg, 100);
	census_take(c, CENSUS_ENDPOINT, &s);
	cr_assert(s.cpu_ok, "%s", s.cpu_reason);
	cr_expect_eq(s.cpu_total_ns, 990000000ULL, "cpu0: 50+10+15+20+2+0+1+1 ticks");
	cr_expect_eq(s.cpu_busy_ns, (99ULL - 22) * 10000000);
	cr_assert(s.cpu_all_ok, "the all-CPU line is kept as information");
	cr_expect_eq(s.cpu_all_total_ns, 2010000000ULL);
	census_free(c);

	set[0] = 2;	/* CPU 1: no line in the fixture (offline) */
	c = census_with(&cfg, 100);
	census_take(c, CENSUS_ENDPOINT, &s);
	cr_expect_not(s.cpu_ok);
	cr_expect_str_eq(s.cpu_reason, "/proc/stat lacks a valid line for a CPU of --cpus");
	census_free(c);
}

Test(proc_stat, per_cpu_lines)
{
	unsigned char set[PP_MAX_CPUS / 8] = { 0 };
	struct pp_cpu c;

	set[0] = 0x5;	/* CPUs 0 and 2 */
	cr_assert_eq(pp_stat_cpus(S("cpu  9 9 9 9\ncpu0 1 0 1 10\ncpu1 5 5 5 5\ncpu2 2 0 0 20 1\n"
				    "intr 1 2\n"), set, PP_MAX_CPUS, 2, &c), 0);
	cr_expect_eq(c.total_ticks, 12 + 23);
	cr_expect_eq(c.idle_ticks, 10 + 21);
	cr_expect_eq(pp_stat_cpus(S("cpu0 1 0 1 10\n"), set, PP_MAX_CPUS, 2, &c), -1,
		     "cpu2 missing");
	cr_expect_eq(pp_stat_cpus(S("cpu0 1 0 1 10\ncpu0 1 0 1 10\ncpu2 1 1 1 1\n"), set,
				  PP_MAX_CPUS, 2, &c), -1, "cpu0 twice");
	cr_expect_eq(pp_stat_cpus(S("cpu0 1 0 1\ncpu2 1 1 1 1\n"), set, PP_MAX_CPUS, 2, &c), -1,
		     "three fields");
	cr_expect_eq(pp_stat_cpus(S("cpu0x 1 0 1 1\ncpu2 1 1 1 1\n"), set, PP_MAX_CPUS, 2, &c), -1);
	cr_expect_eq(pp_stat_cpus(S("cpu0 1 1 1 1\n"), set, PP_MAX_CPUS, 0, &c), -1, "no CPU");
}

Test(census, children_walk_finds_every_thread_and_orphan)
{
	struct census *c = fixture_census("tests/fixtures/proc/tree", ENUM_CHILDREN, false);
	struct sample s;

	census_take(c, CENSUS_TREE, &s);
	cr_expect_str_eq(census_enumeration(c), ENUM_CHILDREN);
	cr_expect(s.tree_ok);
	cr_expect_eq(s.members, 6, "100 101 102 103 104 300");
	cr_expect_eq(s.unreadable, 0);
	cr_expect_eq(s.vanished, 0);
	cr_expect(s.sut_rss_ok);
	cr_expect_eq(s.sut_rss_bytes, tree_rss_pages * 4096);
	cr_expect_eq(s.misses, 6);
	cr_expect_not(s.quick, "the first census enumerates");
	census_take(c, CENSUS_TREE, &s);
	cr_expect(s.quick, "no PID allocated (loadavg unchanged): members are re-read, not "
			   "re-listed");
	cr_expect_eq(s.members, 6);
	cr_expect_eq(s.sut_rss_bytes, tree_rss_pages * 4096, "statm gives the same RSS");
	cr_expect_eq(s.hits, 6, "the second census reuses every identity");
	cr_expect_eq(s.misses, 0);
	census_free(c);
}

/* tests/fixtures/proc/zombies is the tree with 101, 102 and 103 exited but not
 * reaped (state Z, 0 resident pages): still members of the tree, but no memory, so a
 * tree seen only as zombies has no sampled RSS (fold: sut_rss unavailable). */
Test(census, zombies_are_members_without_memory)
{
	struct census *c = fixture_census("tests/fixtures/proc/zombies", ENUM_CHILDREN, false);
	struct sample s;

	census_take(c, CENSUS_TREE, &s);
	cr_expect_eq(s.members, 6, "100 101 102 103 104 300");
	cr_expect_eq(s.rss_members, 3, "100 104 300 are alive");
	census_free(c);
	c = fixture_census("tests/fixtures/proc/tree", ENUM_CHILDREN, false);
	census_take(c, CENSUS_TREE, &s);
	cr_expect_eq(s.rss_members, s.members, "no zombie in the tree fixture");
	census_free(c);
}

Test(census, a_new_pid_forces_a_full_enumeration)
{
	struct census *c = fixture_census("tests/fixtures/proc/vanish", ENUM_CHILDREN, false);
	struct sample s;

	census_take(c, CENSUS_TREE, &s);
	census_take(c, CENSUS_TREE, &s);
	cr_expect_not(s.quick, "without /proc/loadavg every census enumerates");
	census_free(c);
}

Test(census, scan_classifies_by_parent)
{
	struct census *c = fixture_census("tests/fixtures/proc/tree", ENUM_SCAN, false);
	struct sample s;

	census_take(c, CENSUS_TREE, &s);
	cr_expect(s.tree_ok);
	cr_expect_eq(s.members, 6, "same members as the children walk");
	cr_expect_eq(s.sut_rss_bytes, tree_rss_pages * 4096);
	cr_expect_eq(s.process_count, 9);
	census_take(c, CENSUS_TREE, &s);
	cr_expect_eq(s.members, 6);
	census_free(c);
}

Test(census, no_children_files_fall_back_to_scan)
{
	struct census *c = fixture_census("tests/fixtures/proc/flat", ENUM_CHILDREN, false);
	struct sample s;

	census_take(c, CENSUS_TREE, &s);
	cr_expect_str_eq(census_enumeration(c), ENUM_SCAN);
	cr_expect(strstr(census_note(c), "task children files are unavailable") != NULL, "%s",
		  census_note(c));
	cr_expect_eq(s.members, 2, "100 and 101, not the stranger 102");
	cr_expect_eq(s.sut_rss_bytes, (64 + 8) * 4096ULL);
	census_free(c);
}

Test(census, vanished_and_unreadable_members)
{
	struct census *c = fixture_census("tests/fixtures/proc/vanish", ENUM_CHILDREN, false);
	struct sample s;

	census_take(c, CENSUS_TREE | CENSUS_ENDPOINT, &s);
	cr_expect_eq(s.members, 2, "100 and 101 read");
	cr_expect_eq(s.vanished, 1, "106 exited between the listing and the read");
	cr_expect_eq(s.unreadable, 1, "107's stat is cut short");
	cr_expect_not(s.sut_rss_ok, "an unreadable member makes the RSS sum incomplete");
	cr_expect_not(s.cpu_ok);
	cr_expect_str_eq(s.cpu_reason, "/proc/stat has no valid cpu line");
	cr_expect_not(s.mem_ok);
	cr_expect_str_eq(s.mem_reason, "/proc/meminfo lacks MemTotal or MemAvailable");
	cr_expect_not(s.psi_ok[PSI_CPU]);
	cr_expect_str_eq(s.psi_reason[PSI_CPU], "cannot open /proc/pressure/cpu: No such file or "
						"directory");
	census_free(c);
}

Test(census, process_limit_bounds_the_work)
{
	struct census_cfg cfg = fixture_cfg("tests/fixtures/proc/tree", ENUM_CHILDREN);
	struct census *c;
	struct sample s;

	cfg.process_limit = 3;
	c = census_with(&cfg, 100);
	census_take(c, CENSUS_TREE, &s);
	cr_expect(s.limited);
	cr_expect_leq(s.reads, 3);
	cr_expect_not(s.sut_rss_ok, "a limited census cannot claim a complete RSS sum");
	census_free(c);
}

Test(census, sampled_cpu_needs_two_readings)
{
	struct census *c = fixture_census("tests/fixtures/proc/tree", ENUM_CHILDREN, true);
	struct sample s;
	uint64_t ns = 1;
	char why[ATTESTATION_TEXT_MAX];

	census_take(c, CENSUS_TREE, &s);
	cr_expect_not(census_sampled_sut_cpu(c, &ns, why),
		      "one reading per process is not a delta");
	cr_expect(strstr(why, "fewer than 2 censuses") != NULL, "%s", why);
	census_free(c);

	c = fixture_census("tests/fixtures/proc/tree", ENUM_CHILDREN, true);
	census_take(c, CENSUS_TREE, &s);
	census_take(c, CENSUS_TREE, &s);
	cr_assert(census_sampled_sut_cpu(c, &ns, why), "%s", why);
	cr_expect_eq(ns, 0, "the fixture's counters do not move");
	census_free(c);
}

Test(census, root_never_seen)
{
	struct census_cfg cfg = fixture_cfg("tests/fixtures/proc/tree", ENUM_CHILDREN);
	struct census *c;
	struct sample s;
	uint64_t ns;
	char why[ATTESTATION_TEXT_MAX];

	cfg.self_pid = 77;
	cfg.track_cpu = true;
	c = census_with(&cfg, 999);
	census_take(c, CENSUS_TREE, &s);
	census_take(c, CENSUS_TREE, &s);
	cr_expect_not(census_sampled_sut_cpu(c, &ns, why));
	cr_expect(strstr(why, "never observed") != NULL, "%s", why);
	census_free(c);
}

Test(census, consumers_from_endpoint_scans)
{
	struct census_cfg cfg = fixture_cfg("tests/fixtures/proc/tree", ENUM_CHILDREN);
	struct census *c;
	struct sample s;
	struct consumer k[ATTESTATION_MAX_CONSUMERS];
	size_t n;

	cfg.top_consumers = true;
	c = census_with(&cfg, 100);
	census_take(c, CENSUS_ENDPOINT | CENSUS_TREE | CENSUS_CONSUMERS_FIRST, &s);
	census_take(c, CENSUS_ENDPOINT | CENSUS_TREE | CENSUS_CONSUMERS_LAST, &s);
	n = census_consumers(c, k, ATTESTATION_MAX_CONSUMERS);
	cr_assert_eq(n, 3, "1, 50 (fak itself) and 200: SUT processes are never consumers");
	cr_expect_str_eq(k[0].image, "other", "ordered by CPU (all 0 here), then RSS");
	cr_expect_eq(k[0].rss_bytes, 5000 * 4096.0);
	cr_expect(k[0].cpu_available);
	cr_expect_eq(k[0].cpu_seconds, 0);
	census_free(c);
}

/* ---- cadence ---------------------------------------------------------- */

Test(cadence, vectors)
{
	struct cadence c = { .min_ns = 10000000, .max_ns = 100000000, .max_duty_percent = 10 };
	bool over;

	cr_expect_eq(cadence_next(&c, 1000000, &over), 12500000);
	cr_expect_not(over);
	cr_expect_eq(cadence_next(&c, 5000000, &over), 62500000);
	cr_expect_not(over);
	cr_expect_eq(cadence_next(&c, 20000000, &over), 100000000);
	cr_expect(over);
	cr_expect_eq(cadence_next(&c, 10, &over), 10000000, "never below the configured interval");
}

Test(proc_pid_stat, children_that_ended)
{
	struct pp_pid p;
	static const char waited[] = "7 (make) S 1 7 7 0 -1 0 0 0 0 0 5 2 4100 900 20 0 1 0 "
				     "300 1000 10\n";
	static const char negative[] = "7 (make) S 1 7 7 0 -1 0 0 0 0 0 5 2 -4 -9 20 0 1 0 "
				       "300 1000 10\n";

	cr_assert_eq(pp_pid_stat(S(waited), &p), 0);
	cr_expect_eq(p.utime_ticks, 5);
	cr_expect_eq(p.stime_ticks, 2);
	cr_expect_eq(p.cutime_ticks, 4100);
	cr_expect_eq(p.cstime_ticks, 900);
	cr_assert_eq(pp_pid_stat(S(negative), &p), 0);
	cr_expect_eq(p.cutime_ticks, 0, "a negative cutime reads as 0");
	cr_expect_eq(p.cstime_ticks, 0, "a negative cstime reads as 0");
}

Test(proc_maps, device_and_inode)
{
	static const char file[] =
		"7fb4f30e7000-7fb4f30ec000 r--s 00000000 fe:00 5482300                    "
		"/srv/model.bin\nnext line";
	static const char anon[] = "7ffd1c5e1000-7ffd1c602000 rw-p 00000000 00:00 0    [stack]";
	static const char big[] = "1000-2000 r--p 0001f000 103:a2 18446744073709551615 /x";
	struct pp_map m;

	cr_assert_eq(pp_maps_line(file, sizeof(file) - 1, &m), 0);
	cr_expect_eq(m.dev_major, 0xfe);
	cr_expect_eq(m.dev_minor, 0);
	cr_expect_eq(m.inode, 5482300);
	cr_assert_eq(pp_maps_line(anon, sizeof(anon) - 1, &m), 0);
	cr_expect_eq(m.inode, 0);
	cr_assert_eq(pp_maps_line(big, sizeof(big) - 1, &m), 0);
	cr_expect_eq(m.dev_major, 0x103);
	cr_expect_eq(m.dev_minor, 0xa2);
	cr_expect_eq(m.inode, UINT64_MAX);
}

Test(proc_maps, rejects)
{
	static const char *const bad[] = {
		"", "1000 r--p 0 fe:00 1", "1000-2000 r--p 0 fe00 1", "1000-2000 r--p 0 fe:00",
		"1000-2000 r--p zz fe:00 1", "1000-2000 r--p 0 fe:00 1x",
		"g000-2000 r--p 0 fe:00 1",
		"1000-2000 r--p 0 fe:00 18446744073709551616",
	};
	struct pp_map m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(pp_maps_line(bad[i], strlen(bad[i]), &m), -1, "%s", bad[i]);
}
