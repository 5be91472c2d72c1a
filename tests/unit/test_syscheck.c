/* sampler/: the parsers behind `fak bench system-check`, and the check on
 * the fake trees of tests/fixtures/syscheck (the CLI goldens syscheck-*
 * pin every line; here each check's status is asserted by name). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "base/file.h"
#include "base/strbuf.h"
#include "base/proc_parse.h"
#include "render/syscheck.h"
#include "sampler/syscheck.h"

#define S(lit) (lit), (sizeof(lit) - 1)

Test(syscheck_parse, cpulist)
{
	unsigned char set[16];
	size_t n;

	cr_assert_eq(pp_cpulist(S("0-3,8,10-11\n"), set, 128, &n), 0);
	cr_expect_eq(n, 7);
	cr_expect_eq(set[0], 0x0f);
	cr_expect_eq(set[1], 0x0d);
	cr_assert_eq(pp_cpulist(S("\n"), set, 128, &n), 0, "blank is the empty list");
	cr_expect_eq(n, 0);
	cr_assert_eq(pp_cpulist(S("1,1-2"), set, 128, &n), 0);
	cr_expect_eq(n, 2, "a CPU listed twice counts once");
	cr_expect_eq(pp_cpulist(S("3-1"), set, 128, &n), -1, "reversed range");
	cr_expect_eq(pp_cpulist(S("0-128"), set, 128, &n), -1, "past the bitmap");
	cr_expect_eq(pp_cpulist(S("0,"), set, 128, &n), -1, "trailing comma");
	cr_expect_eq(pp_cpulist(S("0 1"), set, 128, &n), -1, "two words");
	cr_expect_eq(pp_cpulist(S("a"), set, 128, &n), -1);
}

Test(syscheck_parse, psi_avg10_and_loadavg)
{
	struct pp_psi_avg p;
	double l;

	cr_assert_eq(pp_psi_avg10(S("some avg10=12.50 avg60=1.00 avg300=0.00 total=9\n"
				    "full avg10=0.3 avg60=0.00 avg300=0.00 total=1\n"),
				  &p),
		     0);
	cr_expect(p.some_ok && p.full_ok);
	cr_expect_float_eq(p.some_avg10, 12.5, 1e-9);
	cr_expect_float_eq(p.full_avg10, 0.3, 1e-9);
	cr_expect_eq(pp_psi_avg10(S("some avg60=1.00 total=9\n"), &p), -1, "no avg10");
	cr_expect_eq(pp_psi_avg10(S("some avg10=100.01 total=9\n"), &p), -1, "above 100");
	cr_expect_eq(pp_psi_avg10(S("some \r avg60=1.00\r\n"), &p), -1, "a return, no avg10");
	cr_expect_eq(pp_psi_avg10(S("some avg10=1.234 total=9\n"), &p), -1, "three decimals");
	cr_expect_eq(pp_psi_avg10(S("some avg10=1. total=9\n"), &p), -1);
	cr_expect_eq(pp_psi_avg10(S("some avg10=1\nsome avg10=2\n"), &p), -1, "twice");
	cr_assert_eq(pp_loadavg1(S("3.32 1.24 0.46 7/124 8861\n"), &l), 0);
	cr_expect_float_eq(l, 3.32, 1e-9);
	cr_expect_eq(pp_loadavg1(S("-1 0 0"), &l), -1);
	cr_expect_eq(pp_loadavg1(S("1.2x 0 0"), &l), -1);
}

Test(syscheck_parse, meminfo_bracket_cmdline)
{
	char w[16];
	uint64_t b;

	cr_assert_eq(pp_meminfo_field(S("MemTotal: 8 kB\nSwapTotal:   2 kB\n"), "SwapTotal", &b),
		     0);
	cr_expect_eq(b, 2048);
	cr_expect_eq(pp_meminfo_field(S("MemTotal: 8 kB\n"), "SwapTotal", &b), 1, "absent");
	cr_expect_eq(pp_meminfo_field(S("SwapTotal: 8 MB\n"), "SwapTotal", &b), -1, "unit");
	cr_expect_eq(pp_meminfo_field(S("SwapTotalX: 8 kB\n"), "SwapTotal", &b), 1, "prefix only");
	cr_assert_eq(pp_bracketed(S("always [madvise] never\n"), w, sizeof(w)), 0);
	cr_expect_str_eq(w, "madvise");
	cr_expect_eq(pp_bracketed(S("always madvise never\n"), w, sizeof(w)), -1, "no choice");
	cr_expect_eq(pp_bracketed(S("[] x\n"), w, sizeof(w)), -1, "empty choice");
	cr_expect_eq(pp_bracketed(S("[a b]\n"), w, sizeof(w)), -1, "two words");
	cr_expect_eq(pp_bracketed(S("[aaaaaaaaaaaaaaaaaaaa]"), w, sizeof(w)), -1, "too long");
	cr_assert_eq(pp_bracketed(S("always [defer+madvise] never\n"), w, sizeof(w)), 0);
	cr_expect_str_eq(w, "defer+madvise");
}

/* Bytes a choice word cannot hold: a NUL (which would cut the word short),
 * control bytes, DEL and non-ASCII. */
Test(syscheck_parse, bracket_refuses_bytes_of_no_choice)
{
	char w[16];
	struct strbuf sb = STRBUF_INIT;
	struct err e;

	cr_expect_eq(pp_bracketed(S("[\0]"), w, sizeof(w)), -1, "a NUL alone");
	cr_expect_eq(pp_bracketed(S("[mad\0vise]"), w, sizeof(w)), -1, "a NUL inside");
	cr_expect_eq(pp_bracketed(S("[mad\x01vise]"), w, sizeof(w)), -1, "a control byte");
	cr_expect_eq(pp_bracketed(S("[madvise\x7f]"), w, sizeof(w)), -1, "DEL");
	cr_expect_eq(pp_bracketed(S("[m\xc3\xa4" "dvise]"), w, sizeof(w)), -1, "non-ASCII");
	/* fuzz_proc's crash input (issue 28), also its seed */
	cr_assert_eq(file_read("tests/fuzz/seeds/fuzz_proc/bracketed-nul", 64, &sb, &e), 0, "%s",
		     e.msg);
	cr_assert_eq(sb.len, 7);
	cr_expect_eq(pp_bracketed(sb.buf, sb.len, w, sizeof(w)), -1);
	sb_release(&sb);
	cr_assert_eq(
	    pp_cmdline_param(S("ro isolcpus=1 quiet isolcpus=2-3\n"), "isolcpus", w, sizeof(w)), 0);
	cr_expect_str_eq(w, "2-3", "the last one wins, as in the kernel");
	cr_assert_eq(pp_cmdline_param(S("a\0nohz_full=1\0"), "nohz_full", w, sizeof(w)), 0,
		     "NUL-separated words");
	cr_expect_str_eq(w, "1");
	cr_expect_eq(pp_cmdline_param(S("ro -- isolcpus=1\n"), "isolcpus", w, sizeof(w)), 1,
		     "after -- the words are init's");
	cr_expect_eq(pp_cmdline_param(S("xisolcpus=1 isolcpus\n"), "isolcpus", w, sizeof(w)), 1);
	cr_expect_eq(pp_cmdline_param(S("isolcpus=0123456789abcdefg\n"), "isolcpus", w, sizeof(w)),
		     -1, "does not fit");
}

static void run_tree(const char *tree, struct syscheck_result *r)
{
	struct syscheck_opts o;
	char proc[256], sys[256];
	struct err e;

	syscheck_defaults(&o);
	snprintf(proc, sizeof(proc), "tests/fixtures/syscheck/%s/proc", tree);
	snprintf(sys, sizeof(sys), "tests/fixtures/syscheck/%s/sys", tree);
	o.proc_root = proc;
	o.sys_root = sys;
	o.sample_ns = 0;
	cr_assert_eq(syscheck_run(&o, r, &e), 0, "%s", e.msg);
}

static const struct syscheck_finding *find(const struct syscheck_result *r, const char *name)
{
	for (size_t i = 0; i < r->nr; i++)
		if (!strcmp(r->f[i].name, name))
			return &r->f[i];
	cr_assert_fail("no finding \"%s\"", name);
	return NULL;
}

static void expect(const struct syscheck_result *r, const char *name, enum syscheck_status s,
		   const char *detail)
{
	const struct syscheck_finding *f = find(r, name);

	cr_expect_eq(f->status, s, "%s: %s, not %s", name, syscheck_status_name(f->status),
		     syscheck_status_name(s));
	cr_expect(strstr(f->detail, detail), "%s: \"%s\" lacks \"%s\"", name, f->detail, detail);
	cr_expect_eq(f->fix[0] != 0, s == SYSCHECK_DISTURBS || s == SYSCHECK_ADVICE,
		     "%s: a fix goes with disturbs and advice", name);
}

Test(syscheck, noisy_tree_trips_every_check)
{
	struct syscheck_result r;

	run_tree("noisy", &r);
	expect(&r, "cpu.governor", SYSCHECK_DISTURBS, "2 of 4 CPUs use \"powersave\"");
	expect(&r, "cpu.boost", SYSCHECK_DISTURBS, "no_turbo is 0");
	cr_expect(strstr(find(&r, "cpu.boost")->fix, "intel_pstate/no_turbo"));
	expect(&r, "cpu.smt", SYSCHECK_ADVICE, "SMT is on");
	expect(&r, "cpu.isolation", SYSCHECK_ADVICE, "no CPU is isolated");
	expect(&r, "host.load", SYSCHECK_DISTURBS, "0.75 per CPU");
	expect(&r, "host.pressure", SYSCHECK_DISTURBS, "cpu 12.50%");
	expect(&r, "host.busy", SYSCHECK_DISTURBS, "88.9% busy since boot");
	expect(&r, "host.consumers", SYSCHECK_DISTURBS,
	       "burner (pid 200) 80.0%, scrubbed (pid 201) 60.0%");
	cr_expect_null(strstr(find(&r, "host.consumers")->detail, "sshd"), "under 1%%: not listed");
	expect(&r, "memory.thp", SYSCHECK_ADVICE, "\"always\"");
	expect(&r, "memory.swap", SYSCHECK_DISTURBS, "1024 MiB of swap in use");
	expect(&r, "kernel.aslr", SYSCHECK_ADVICE, "randomize_va_space is 0");
	cr_expect_eq(r.counts[SYSCHECK_DISTURBS], 7);
	cr_expect_eq(r.counts[SYSCHECK_ADVICE], 4);
}

Test(syscheck, quiet_tree_is_all_ok)
{
	struct syscheck_result r;

	run_tree("quiet", &r);
	cr_assert_eq(r.nr, 11, "the GPU checks stay out until NVML is wired");
	cr_expect_eq(r.counts[SYSCHECK_OK], 11);
	expect(&r, "cpu.isolation", SYSCHECK_OK, "isolated CPUs: 2-3; nohz_full: 2-3");
}

Test(syscheck, amd_tree_boost_swap_aslr)
{
	struct syscheck_result r;

	run_tree("amd", &r);
	expect(&r, "cpu.governor", SYSCHECK_DISTURBS, "2 of 2 CPUs use \"schedutil\"");
	expect(&r, "cpu.boost", SYSCHECK_DISTURBS, "cpufreq boost is 1");
	cr_expect(strstr(find(&r, "cpu.boost")->fix, "cpufreq/boost"));
	expect(&r, "cpu.smt", SYSCHECK_UNKNOWN, "no smt control");
	expect(&r, "host.load", SYSCHECK_OK, "0.20 per CPU");
	expect(&r, "host.pressure", SYSCHECK_UNKNOWN, "no pressure files");
	expect(&r, "memory.swap", SYSCHECK_ADVICE, "swap is on (1024 MiB, none in use)");
	expect(&r, "kernel.aslr", SYSCHECK_ADVICE, "the heap is not randomized");
	expect(&r, "memory.thp", SYSCHECK_OK, "\"never\"");
}

Test(syscheck, bare_tree_is_unknown_not_disturbing)
{
	struct syscheck_result r;

	run_tree("bare", &r);
	cr_expect_eq(r.counts[SYSCHECK_DISTURBS], 0);
	cr_expect_eq(r.counts[SYSCHECK_UNKNOWN], 10);
	expect(&r, "cpu.governor", SYSCHECK_UNKNOWN, "no cpufreq governor");
}

Test(syscheck, no_proc_root_fails)
{
	struct syscheck_opts o;
	struct syscheck_result r;
	struct err e;

	syscheck_defaults(&o);
	o.proc_root = "tests/fixtures/syscheck/missing";
	cr_assert_eq(syscheck_run(&o, &r, &e), -1);
	cr_expect_str_eq(e.msg, "cannot read 'tests/fixtures/syscheck/missing/stat': not a proc "
				"file system");
}
