/* sampler/: the attestation model. Building from synthetic samples,
 * classification rules, validation rules, strict decoding, digests, and
 * the committed attestation fixtures. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"
#include "sampler/cgroup.h"
#include "sampler/fold.h"
#include "sampler/run.h"
#include "workload/metrics.h"
#include "attestation/attestation.h"

#define MSEC ((int64_t)1000000)
#define FIX "tests/fixtures/attestations/"

/* ---- synthetic runs ------------------------------------------------------ */

static struct sample smp(int64_t t_ms, int64_t total_ms, int64_t busy_ms, int64_t wall_ms)
{
	struct sample s;

	memset(&s, 0, sizeof(s));
	s.mono_ns = t_ms * MSEC;
	s.wall_ns = wall_ms * MSEC;
	s.cpu_ok = true;
	s.cpu_total_ns = (uint64_t)(total_ms * MSEC);
	s.cpu_busy_ns = (uint64_t)(busy_ms * MSEC);
	s.mem_ok = true;
	s.mem_total = 16ULL << 30;
	s.mem_available = 8ULL << 30;
	s.count_ok = true;
	s.process_count = 100;
	for (int i = 0; i < PSI_AXES; i++) {
		s.psi_ok[i] = true;
		s.psi[i].some_ok = s.psi[i].full_ok = true;
		s.psi[i].some_total_us = (uint64_t)t_ms;
		s.psi[i].full_total_us = (uint64_t)t_ms / 2;
	}
	s.tree_ok = true;
	s.members = 1;
	s.rss_members = 1;
	s.reads = 1;
	s.sut_rss_ok = true;
	s.sut_rss_bytes = 1 << 20;
	return s;
}

struct synth {
	struct sample b[2], c[2];
	bool c_overloaded[2];
	size_t nb, nc;
	struct fold fb, fc;
	struct fold_input in;
	struct attestation r;
};

/* A clean run on a 4-CPU host: quiet baseline at 5 %, then a command
 * window of 1 s where the host is 27.5 % busy and the SUT used 1 s (25 %). */
static void synth_init(struct synth *x)
{
	memset(x, 0, sizeof(*x));
	x->b[0] = smp(0, 10000, 1000, 10);
	x->b[1] = smp(1000, 14000, 1200, 10);
	x->c[0] = smp(2000, 20000, 2000, 10);
	x->c[1] = smp(3000, 24000, 3100, 10);
	x->nb = x->nc = 2;
	x->in.real0_ns = 1787961600LL * 1000000000;	/* 2026-08-29T00:00:00Z */
	x->in.mono0_ns = 0;
	x->in.interval_ns = 1000 * MSEC;
	policy_default(&x->in.policy);
	x->in.coverage = COVERAGE_SUBREAPER;
	x->in.enumeration = ENUM_CHILDREN;
	x->in.note = "";
	x->in.census_limit = 4096;
	x->in.clk_tck = 100;
	x->in.page_size = 4096;
	x->in.sut_cpu_ok = true;
	x->in.sut_cpu_ns = 1000 * MSEC;
	x->in.sut_cpu_source = "wait4 rusage of every reaped SUT process";
	x->in.root_pid = 7;
	x->in.reaped = 1;
	cgroup_not_requested(&x->in.cgroup, "cgroup v2 not used in this test");
}

static int synth_try(struct synth *x, struct err *e)
{
	fold_init(&x->fb);
	fold_init(&x->fc);
	for (size_t i = 0; i < x->nb; i++)
		fold_add(&x->fb, &x->b[i], x->in.interval_ns, false, false);
	for (size_t i = 0; i < x->nc; i++)
		fold_add(&x->fc, &x->c[i], x->in.interval_ns, x->c_overloaded[i], true);
	x->in.baseline = &x->fb;
	x->in.command = &x->fc;
	return fold_attestation(&x->r, &x->in, e);
}

static void synth_build(struct synth *x)
{
	struct err e;

	cr_assert_eq(synth_try(x, &e), 0, "%s", e.msg);
}

static bool has_finding(const struct attestation *r, const char *code, const char *detail)
{
	for (size_t i = 0; i < r->nr_findings; i++)
		if (!strcmp(r->findings[i].code, code) &&
		    (!detail || !strcmp(r->findings[i].detail, detail)))
			return true;
	return false;
}

static void findings_are(const struct attestation *r, const char *const *codes)
{
	size_t n = 0;

	while (codes[n])
		n++;
	cr_assert_eq(r->nr_findings, n, "%zu findings, want %zu (first: %s)", r->nr_findings, n,
		     r->nr_findings ? r->findings[0].code : "none");
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(r->findings[i].code, codes[i]);
}

/* The rendered report must pass attestation_check; returns the rendering. */
static char *checked(const struct attestation *r)
{
	struct strbuf sb = STRBUF_INIT;
	struct attestation_facts facts;
	struct err e;
	json_t *doc;

	attestation_render(r, &sb);
	cr_assert_eq(attestation_parse(sb.buf, sb.len, &doc, &e), 0, "%s", e.msg);
	cr_assert_eq(attestation_check(doc, &facts, &e), 0, "%s", e.msg);
	cr_expect_str_eq(facts.digest, r->digest);
	cr_expect_str_eq(facts.verdict, r->verdict);
	json_decref(doc);
	return sb_detach(&sb, NULL);
}

/* ---- building and classification ----------------------------------------- */

Test(attestation_build, clean_vector)
{
	struct synth x;
	struct attestation_facts facts;
	struct err e;
	json_t *doc;
	char *text;

	synth_init(&x);
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "clean");
	cr_expect_eq(x.r.nr_findings, 0);
	cr_expect_eq(x.r.baseline_host_totals.cpu_percent.value, 5);
	cr_expect_float_eq(x.r.host_totals.cpu_percent.value, 27.5, 1e-9);
	cr_expect_eq(x.r.attribution.sut_cpu_percent_of_host.value, 25);
	cr_expect_eq(x.r.attribution.non_sut_cpu_percent_of_host.value, 2.5);
	cr_expect_eq(x.r.attribution.sut_cpu_seconds.value, 1);
	cr_expect_eq(x.r.baseline_sampler.counted_samples, 1);
	cr_expect_eq(x.r.baseline_sampler.wall_ns, 10 * MSEC,
		     "the final endpoint census is not counted");
	cr_expect_eq(x.r.baseline_sampler.duty_percent.value, 1);
	cr_expect_str_eq(x.r.baseline_window.started_at_utc, "2026-08-29T00:00:00Z");
	cr_expect_str_eq(x.r.command_window.ended_at_utc, "2026-08-29T00:00:03Z");
	cr_expect_eq(x.r.host_totals.pressure.cpu.some_total_us.value, 1000);
	cr_expect_eq(x.r.host_totals.pressure.cpu.full_total_us.value, 500);
	cr_expect_eq(x.r.attribution.sut_rss_bytes.value, 1 << 20);
	cr_expect_not(x.r.attribution.non_sut_rss_bytes.available);
	text = checked(&x.r);
	cr_assert_eq(attestation_parse(text, strlen(text), &doc, &e), 0);
	cr_assert_eq(attestation_check(doc, &facts, &e), 0, "%s", e.msg);
	cr_expect_str_eq(facts.coverage, COVERAGE_SUBREAPER);
	cr_expect_not(facts.has_top_consumers);
	cr_expect_eq(facts.baseline_samples, 2);
	cr_expect_eq(facts.baseline_duration_ns, 1000 * MSEC);
	cr_expect(facts.baseline_host_cpu_available && facts.host_cpu_available &&
		  facts.sut_cpu_available && facts.non_sut_cpu_available);
	json_decref(doc);
	free(text);
}

Test(attestation_build, deterministic)
{
	struct synth x, y;
	char *a, *b;

	synth_init(&x);
	synth_init(&y);
	synth_build(&x);
	synth_build(&y);
	a = checked(&x.r);
	b = checked(&y.r);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
}

Test(attestation_build, three_repetitions_three_digests)
{
	struct synth x;
	char seen[3][JSON_DIGEST_LEN + 1];

	for (int i = 0; i < 3; i++) {
		synth_init(&x);
		x.in.real0_ns += (int64_t)(i + 1) * 60 * 1000 * MSEC;
		synth_build(&x);
		memcpy(seen[i], x.r.digest, sizeof(seen[i]));
	}
	cr_expect_str_neq(seen[0], seen[1]);
	cr_expect_str_neq(seen[1], seen[2]);
	cr_expect_str_neq(seen[0], seen[2]);
}

/* A seam set while sealing is recorded, sealed and read back; the decoder
 * takes only fak's own test variables, each once, in table order. */
Test(attestation_build, simulated_is_sealed)
{
	static const char *const bad[][2] = {
		{ "[]", "simulated: must be a non-empty array of test variable names" },
		{ "[\"HOME\"]", "simulated[0]: \"HOME\" is not a test variable of fak" },
		{ "[\"FAK_SYS_ROOT\", \"FAK_PROC_ROOT\"]",
		  "simulated[1]: \"FAK_PROC_ROOT\" is out of order or repeated" },
		{ "[\"FAK_PROC_ROOT\", \"FAK_PROC_ROOT\"]",
		  "simulated[1]: \"FAK_PROC_ROOT\" is out of order or repeated" },
	};
	struct simulated sim = { .nr = 2 };
	struct attestation_facts facts;
	struct synth x;
	struct err e;
	json_t *doc;
	char *text;

	snprintf(sim.names[0], SIM_NAME_MAX, "FAK_PROC_ROOT");
	snprintf(sim.names[1], SIM_NAME_MAX, "FAK_CENSUS_PROCESS_LIMIT");
	synth_init(&x);
	x.in.simulated = &sim;
	synth_build(&x);
	text = checked(&x.r);
	cr_assert_eq(attestation_parse(text, strlen(text), &doc, &e), 0);
	cr_assert_eq(attestation_check(doc, &facts, &e), 0, "%s", e.msg);
	cr_expect_str_eq(facts.simulated, "FAK_PROC_ROOT, FAK_CENSUS_PROCESS_LIMIT");
	cr_expect_str_eq(x.r.verdict, "clean", "the figures are judged as they are");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct attestation *r = malloc(sizeof(*r));

		json_object_set_new(doc, "simulated", json_loads(bad[i][0], 0, NULL));
		cr_expect_eq(attestation_decode(doc, r, &e), -1, "%s", bad[i][0]);
		cr_expect_str_eq(e.msg, bad[i][1]);
		free(r);
	}
	json_object_del(doc, "simulated");
	cr_expect_eq(attestation_check(doc, &facts, &e), -1, "removing it breaks the seal");
	cr_expect(strstr(e.msg, "canonical digest mismatch") != NULL, "%s", e.msg);
	json_decref(doc);
	free(text);
}

Test(attestation_classify, non_sut_cpu_high)
{
	struct synth x;

	synth_init(&x);
	x.c[1].cpu_busy_ns = 4500 * MSEC;
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "investigate");
	cr_expect(has_finding(&x.r, "NON_SUT_CPU_HIGH", "non-SUT CPU 37.50% exceeds 20.00%"));
	free(checked(&x.r));
}

Test(attestation_classify, quiet_baseline_too_busy)
{
	struct synth x;

	synth_init(&x);
	x.b[1].cpu_busy_ns = 5000 * MSEC;
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "investigate");
	cr_expect(has_finding(&x.r, "BASELINE_HOST_CPU_HIGH",
			      "quiet baseline host CPU 100.00% exceeds 20.00%"));
}

Test(attestation_classify, sampler_duty_vectors)
{
	struct synth x;
	static const char *const high[] = { "COMMAND_SAMPLER_DUTY_HIGH", NULL };

	synth_init(&x);
	x.in.policy.maximum_sampler_duty_percent = 15;
	x.b[0].wall_ns = 50 * MSEC;
	x.b[1].wall_ns = 900 * MSEC;
	x.c[0].wall_ns = 100 * MSEC;
	x.c[1].wall_ns = 900 * MSEC;
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "clean");
	cr_expect_eq(x.r.baseline_sampler.wall_ns, 50 * MSEC);
	cr_expect_eq(x.r.baseline_sampler.duty_percent.value, 5);
	cr_expect_eq(x.r.command_sampler.duty_percent.value, 10);
	x.c[0].wall_ns = 200 * MSEC;
	synth_build(&x);
	findings_are(&x.r, high);
	cr_expect_str_eq(x.r.findings[0].detail, "command sampler duty 20.00% exceeds 15.00%");
	cr_expect_str_eq(x.r.verdict, "investigate");
	free(checked(&x.r));
}

Test(attestation_classify, one_command_sample_is_invalid_but_well_formed)
{
	struct synth x;
	static const char *const want[] = { "INVALID_WINDOW", "HOST_CPU_UNKNOWN", "SUT_CPU_UNKNOWN",
					    "SAMPLER_DUTY_UNKNOWN", NULL };

	synth_init(&x);
	x.nc = 1;
	synth_build(&x);
	findings_are(&x.r, want);
	cr_expect_str_eq(x.r.verdict, "invalid");
	cr_expect_str_eq(x.r.command_sampler.duty_percent.reason, "sampler window unavailable");
	free(checked(&x.r));
}

Test(attestation_classify, no_command_samples)
{
	struct synth x;
	static const char *const want[] = { "NO_SAMPLES", NULL };

	synth_init(&x);
	x.nc = 0;
	x.in.coverage = COVERAGE_SUBREAPER;
	synth_build(&x);
	findings_are(&x.r, want);
	cr_expect_str_eq(x.r.verdict, "invalid");
	cr_expect_str_eq(x.r.coverage.descendant_attribution, "");
	free(checked(&x.r));
}

Test(attestation_classify, empty_baseline)
{
	struct synth x;

	synth_init(&x);
	x.nb = 0;
	synth_build(&x);
	cr_expect(has_finding(&x.r, "INVALID_BASELINE_WINDOW", NULL));
	cr_expect(has_finding(&x.r, "BASELINE_HOST_CPU_UNKNOWN", NULL));
	cr_expect_str_eq(x.r.verdict, "invalid");
	free(checked(&x.r));
}

Test(attestation_classify, sut_cpu_above_host_busy_is_not_clamped)
{
	struct synth x;

	synth_init(&x);
	x.in.sut_cpu_ns = 1300 * MSEC;	/* busy delta is 1100 ms: 200 ms over, resolution 120 ms */
	synth_build(&x);
	cr_expect_not(x.r.attribution.sut_cpu_percent_of_host.available);
	cr_expect(strstr(x.r.attribution.sut_cpu_percent_of_host.reason,
			 "by more than the counters' resolution") != NULL);
	cr_expect_str_eq(x.r.attribution.non_sut_cpu_percent_of_host.reason,
			 "non-SUT residual is inconsistent with host CPU");
	cr_expect_float_eq(x.r.host_totals.cpu_percent.value, 27.5, 1e-9,
			   "host CPU stays as measured");
	cr_expect(x.r.attribution.sut_cpu_seconds.available, "the SUT's own CPU is still known");
	cr_expect(has_finding(&x.r, "SUT_CPU_UNKNOWN", NULL));
	cr_expect_str_eq(x.r.verdict, "investigate");
	free(checked(&x.r));
}

Test(attestation_classify, sut_cpu_above_host_busy_within_resolution)
{
	struct synth x;

	synth_init(&x);
	x.in.sut_cpu_ns =
		1150 * MSEC; /* 50 ms over a 1100 ms busy delta, within 12 ticks of 10 ms */
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "clean");
	cr_expect_float_eq(x.r.host_totals.cpu_percent.value, 28.75, 1e-9,
			   "raised to the SUT's exact CPU");
	cr_expect(strstr(x.r.host_totals.cpu_percent.source, "raised to the SUT CPU") != NULL);
	cr_expect_float_eq(x.r.attribution.sut_cpu_percent_of_host.value, 28.75, 1e-9);
	cr_expect_eq(x.r.attribution.non_sut_cpu_percent_of_host.value, 0);
	free(checked(&x.r));
}

Test(attestation_classify, host_cpu_unavailable_at_an_endpoint)
{
	struct synth x;

	synth_init(&x);
	x.c[0].cpu_ok = false;
	strcpy(x.c[0].cpu_reason, "cannot read /proc/stat: Input/output error");
	synth_build(&x);
	cr_expect(has_finding(&x.r, "HOST_CPU_UNKNOWN",
			      "cannot read /proc/stat: Input/output error"));
	cr_expect(has_finding(&x.r, "SUT_CPU_UNKNOWN", NULL));
	cr_expect_not(x.r.attribution.non_sut_cpu_percent_of_host.available);
	cr_expect_str_eq(x.r.verdict, "investigate");
	free(checked(&x.r));
}

Test(attestation_classify, busy_delta_above_total)
{
	struct synth x;

	synth_init(&x);
	x.c[1].cpu_busy_ns = 7000 * MSEC;
	synth_build(&x);
	cr_expect(has_finding(&x.r, "HOST_CPU_UNKNOWN", "host busy CPU exceeds total CPU delta"));
}

Test(attestation_classify, unknown_sut_cpu)
{
	struct synth x;

	synth_init(&x);
	x.in.sut_cpu_ok = false;
	x.in.sut_cpu_reason = "a SUT process was seen in fewer than 2 censuses";
	x.in.coverage = COVERAGE_SAMPLED;
	synth_build(&x);
	cr_expect(has_finding(&x.r, "SUT_CPU_UNKNOWN",
			      "a SUT process was seen in fewer than 2 censuses"));
	cr_expect_not(x.r.attribution.sut_cpu_seconds.available);
	free(checked(&x.r));
}

Test(attestation_classify, command_failures)
{
	struct synth x;
	static const char *const timeout[] = { "COMMAND_FAILED", "COMMAND_TIMEOUT", NULL };

	synth_init(&x);
	x.in.exit_code = 7;
	synth_build(&x);
	cr_expect(has_finding(&x.r, "COMMAND_FAILED", "child command exited 7"));
	cr_expect_str_eq(x.r.verdict, "invalid");
	free(checked(&x.r));

	synth_init(&x);
	x.in.exit_code = 137;
	x.in.signal = 9;
	synth_build(&x);
	cr_expect(has_finding(&x.r, "COMMAND_FAILED", "child command was terminated by signal 9"));
	free(checked(&x.r));

	synth_init(&x);
	x.in.exit_code = 124;
	x.in.signal = 9;
	x.in.timed_out = true;
	synth_build(&x);
	findings_are(&x.r, timeout);
	cr_expect_str_eq(x.r.findings[0].detail, "child command exited 124");
	cr_expect_str_eq(x.r.verdict, "invalid");
	free(checked(&x.r));
}

Test(attestation_classify, cadence_overload)
{
	struct synth x;
	static const char *const want[] = { "SAMPLER_COVERAGE_LIMITED", NULL };

	synth_init(&x);
	x.c_overloaded[1] = true;
	synth_build(&x);
	cr_expect_eq(x.r.nr_findings, 0, "the final endpoint's cadence is never used");
	x.c_overloaded[0] = true;
	synth_build(&x);
	findings_are(&x.r, want);
	cr_expect_str_eq(x.r.verdict, "invalid");
	cr_expect(x.r.command_sampler.coverage_limited);
	free(checked(&x.r));
}

static void measured_cgroup(struct synth *x)
{
	struct cgroup_section *g = &x->in.cgroup;
	struct psi_pair *pp[3] = { &g->pressure.cpu, &g->pressure.memory, &g->pressure.io };

	memset(g, 0, sizeof(*g));
	strcpy(g->state, CGROUP_MEASURED);
	g->atomic_placement = true;
	metric_set(&g->members_at_root_exit, 0, "cgroup.procs after the root exited");
	metric_set(&g->cpu_usage_us, 1000000, "cgroup v2 cpu.stat usage_usec");
	metric_set(&g->memory_peak_bytes, 64 << 20, "cgroup v2 memory.peak");
	for (int i = 0; i < 3; i++) {
		metric_set(&pp[i]->some_total_us, 0, "test");
		metric_set(&pp[i]->full_total_us, 0, "test");
	}
	g->cleanup.attempted = g->cleanup.empty = g->cleanup.removed = true;
	x->in.coverage = COVERAGE_CGROUP;
	x->in.enumeration = ENUM_CGROUP;
	x->in.sut_cpu_source = "cgroup v2 cpu.stat usage_usec";
}

Test(attestation_classify, cgroup_measured)
{
	struct synth x;

	synth_init(&x);
	measured_cgroup(&x);
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "clean");
	cr_expect_str_eq(x.r.coverage.descendant_attribution, COVERAGE_CGROUP);
	cr_expect_eq(x.r.attribution.sut_rss_bytes.value, 64 << 20);
	cr_expect_str_eq(x.r.attribution.sut_rss_bytes.source, "cgroup v2 memory.peak");
	free(checked(&x.r));
}

Test(attestation_classify, cgroup_psi_stall)
{
	struct synth x;
	static const char *const want[] = { "CPU_PSI_STALL_HIGH", NULL };

	synth_init(&x);
	measured_cgroup(&x);
	metric_set(&x.in.cgroup.pressure.cpu.some_total_us, 100000, "test");
	synth_build(&x);
	findings_are(&x.r, want);
	cr_expect_str_eq(x.r.findings[0].detail, "cpu cgroup PSI stall 10.00% exceeds 5.00%");
	cr_expect_eq(x.r.attribution.sut_cpu_percent_of_host.value, 25,
		     "PSI never corrects CPU figures");
	cr_expect_str_eq(x.r.verdict, "investigate");
	free(checked(&x.r));
}

Test(attestation_classify, cgroup_cleanup_failed)
{
	struct synth x;

	synth_init(&x);
	measured_cgroup(&x);
	x.in.cgroup.cleanup.removed = false;
	strcpy(x.in.cgroup.cleanup.reason, "cannot remove the cgroup: Device or resource busy");
	synth_build(&x);
	cr_expect(has_finding(&x.r, "CGROUP_CLEANUP_FAILED",
			      "cannot remove the cgroup: Device or resource busy"));
	cr_expect_str_eq(x.r.verdict, "investigate");
	free(checked(&x.r));
}

Test(attestation_classify, memory_required)
{
	struct synth x;

	synth_init(&x);
	x.in.policy.require_process_memory = true;
	synth_build(&x);
	cr_expect(has_finding(&x.r, "PROCESS_MEMORY_UNKNOWN",
			      "non-SUT processes are censused only with --require-process-memory"));
	x.in.non_sut_rss_censused = true;
	x.c[0].non_sut_rss_ok = x.c[1].non_sut_rss_ok = true;
	x.c[1].non_sut_rss_bytes = 5 << 20;
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "clean");
	cr_expect_eq(x.r.attribution.non_sut_rss_bytes.value, 5 << 20);
	x.c[1].sut_rss_ok = false;
	synth_build(&x);
	cr_expect(has_finding(&x.r, "PROCESS_MEMORY_UNKNOWN",
			      "a census of the SUT tree was incomplete (limited or unreadable)"));
	cr_expect(x.r.attribution.sut_cpu_percent_of_host.available, "missing RSS never hides CPU");
	free(checked(&x.r));
}

Test(attestation_classify, census_errors_and_survivors)
{
	struct synth x;

	synth_init(&x);
	x.c[0].unreadable = 2;
	x.in.unreaped = 1;
	synth_build(&x);
	cr_expect(
		has_finding(&x.r, "PROCESS_CENSUS_ERRORS",
			    "2 process read(s) failed for reasons other than the process exiting"));
	cr_expect(has_finding(&x.r, "DESCENDANT_CLEANUP_FAILED",
			      "1 descendant process(es) were still present after cleanup"));
	free(checked(&x.r));
}

Test(attestation_classify, top_consumers_only_when_asked)
{
	struct synth x;

	synth_init(&x);
	x.in.nr_consumers = 2;
	strcpy(x.in.consumers[0].image, "other.exe");
	x.in.consumers[0].pid = 20;
	x.in.consumers[0].cpu_available = x.in.consumers[0].rss_available = true;
	x.in.consumers[0].cpu_seconds = 0.5;
	strcpy(x.in.consumers[1].image, "idle");
	x.in.consumers[1].pid = 30;
	synth_build(&x);
	cr_expect_eq(x.r.nr_consumers, 0);
	x.in.policy.include_top_consumers = true;
	synth_build(&x);
	cr_expect_eq(x.r.nr_consumers, 2);
	free(checked(&x.r));
}

/* ---- the SUT's peak memory (a v2 run) ------------------------------------- */

/* A repetition of an experiment whose metrics line was missing; the runner
 * measured ru_maxrss (0: no descendant reaped, so unknown). */
static void with_workload(struct synth *x, struct workload *w, double ru_maxrss)
{
	memset(w, 0, sizeof(*w));
	strcpy(w->label.experiment_id, "0123456789abcdef0123456789abcdef");
	strcpy(w->label.envelope_id, "env");
	strcpy(w->label.lever_id, "lever.x");
	strcpy(w->label.arm, "baseline");
	strcpy(w->label.kind, WL_KIND_REPETITION);
	strcpy(w->label.machine_id, "machine");
	strcpy(w->label.revision, "r1");
	strcpy(w->command, "./bench");
	memset(w->out.sha256, 'a', 64);
	memset(w->err.sha256, 'b', 64);
	strcpy(w->parser, WL_PARSER_JSON);
	w->prompt_tokens = w->decode_tokens = 4;
	strcpy(w->metrics_error, "no metrics line");
	if (ru_maxrss > 0)
		metric_set(&w->peak_rss_bytes, ru_maxrss, "wait4 ru_maxrss");
	else
		metric_unavailable(&w->peak_rss_bytes, "1 descendant process(es) were never "
						       "reaped");
	metric_set(&w->fak_rss_at_fork_bytes, 1 << 20, "test");
	x->in.workload = w;
}

/* The receipt's memory from one report: peak and resident. */
static void receipt_memory(const struct attestation *r, long long *peak, long long *resident)
{
	const struct attestation *one[1] = { r };
	struct err e;

	cr_assert_eq(receipt_memory_from_reports(one, 1, peak, resident, &e), 0, "%s", e.msg);
}

/* Builds x; the workload's peak must be `peak` from `source`, and the
 * receipt's memory that peak and `resident`. */
static void expect_peak(struct synth *x, long long peak, const char *source, long long resident)
{
	long long p, r;

	synth_build(x);
	cr_expect_eq(x->r.workload.peak_rss_bytes.value, (double)peak);
	cr_expect_str_eq(x->r.workload.peak_rss_bytes.source, source);
	receipt_memory(&x->r, &p, &r);
	cr_expect_eq(p, peak);
	cr_expect_eq(r, resident);
	free(checked(&x->r));
}

#define MIB (1LL << 20)

Test(sut_peak, estimate_counts_the_sampled_tree)
{
	/* two processes of 3 MiB each: the tree held 6, no one process more
	 * than 3 */
	struct synth x;
	struct workload w;

	synth_init(&x);
	x.c[1].sut_rss_bytes = 6 * MIB;
	with_workload(&x, &w, 3 * MIB);
	expect_peak(&x, 6 * MIB, "estimate: peak sampled SUT-tree RSS (above every reaped "
				 "process's ru_maxrss)", 6 * MIB);
	cr_expect_eq(x.r.attribution.sut_rss_bytes.value, 6 * MIB);
}

Test(sut_peak, estimate_keeps_a_larger_process_peak)
{
	/* one process peaked at 10 MiB between two censuses */
	struct synth x;
	struct workload w;

	synth_init(&x);
	with_workload(&x, &w, 10 * MIB);
	expect_peak(&x, 10 * MIB, "estimate: largest wait4 ru_maxrss of a reaped SUT process (at "
				  "least the sampled tree)", MIB);
}

Test(sut_peak, estimate_without_a_complete_census)
{
	struct synth x;
	struct workload w;

	synth_init(&x);
	x.c[1].sut_rss_ok = false;
	x.c[1].sut_rss_bytes = 50 * MIB;
	with_workload(&x, &w, 3 * MIB);
	expect_peak(&x, 3 * MIB, "estimate: largest wait4 ru_maxrss of a reaped SUT process (tree "
				 "not fully sampled)", 3 * MIB);
	cr_expect_not(x.r.attribution.sut_rss_bytes.available);
}

Test(sut_peak, unknown_while_a_descendant_was_never_reaped)
{
	struct synth x;
	struct workload w;
	long long peak, resident;
	const struct attestation *one[1] = { &x.r };
	struct err e;

	synth_init(&x);
	with_workload(&x, &w, 0);
	synth_build(&x);
	cr_expect_not(x.r.workload.peak_rss_bytes.available);
	cr_expect_str_eq(x.r.workload.peak_rss_bytes.reason,
			 "1 descendant process(es) were never reaped");
	cr_expect_eq(receipt_memory_from_reports(one, 1, &peak, &resident, &e), -1);
	cr_expect_str_eq(e.msg, "run 0 measured no peak memory (1 descendant process(es) were "
				"never reaped)");
	free(checked(&x.r));
}

Test(sut_peak, cgroup_memory_peak_never_below_the_sampled_tree)
{
	struct synth x;
	struct workload w;

	synth_init(&x);
	measured_cgroup(&x);
	/* the cgroup's peak, not a process's ru_maxrss (which fak's memory at
	 * fork inflates) */
	with_workload(&x, &w, 100 * MIB);
	expect_peak(&x, 64 * MIB, "cgroup v2 memory.peak", 64 * MIB);
	/* the tree's summed RSS counts shared pages once per process */
	x.c[1].sut_rss_bytes = 80 * MIB;
	expect_peak(&x, 80 * MIB, "cgroup v2 memory.peak, raised to the peak sampled SUT-tree RSS",
		    64 * MIB);
}

Test(sut_peak, sealed_before_the_estimate)
{
	/* an attestation whose workload peak is one process's ru_maxrss, below
	 * the sampled tree: the receipt's peak is still the larger */
	struct synth x;
	struct workload w;
	long long peak, resident;

	synth_init(&x);
	x.c[1].sut_rss_bytes = 6 * MIB;
	with_workload(&x, &w, 3 * MIB);
	synth_build(&x);
	metric_set(&x.r.workload.peak_rss_bytes, 3 * MIB, "largest wait4 ru_maxrss of a reaped SUT "
							   "process (with fak's memory at fork)");
	receipt_memory(&x.r, &peak, &resident);
	cr_expect_eq(peak, 6 * MIB);
	cr_expect_eq(resident, 6 * MIB);
}

/* ---- a metrics line that agrees with itself -------------------------------- */

/* A run of the envelope's 64 decode tokens whose metrics line says tps and
 * end to end e2e_ms (the command window is 1 s); decode_ms < 0: absent. */
static void with_metrics(struct synth *x, struct workload *w, double tps, double e2e_ms,
			 double decode_ms)
{
	with_workload(x, w, MIB);
	w->metrics_error[0] = '\0';
	w->decode_tokens = 64;
	w->has_metrics = true;
	w->metrics.has_throughput = true;
	w->metrics.tokens_per_second = tps;
	w->metrics.end_to_end_ms = e2e_ms;
	w->metrics.has_decode = decode_ms >= 0;
	w->metrics.decode_ms = decode_ms >= 0 ? decode_ms : 0;
	w->metrics.has_quality = true;
	strcpy(w->metrics.quality.name, "exact_match");
	w->metrics.quality.score = 1;
	w->metrics.quality.higher_is_better = true;
}

/* Builds x: the one finding `code` with `detail` (invalid), or none (clean);
 * either way the sealed document re-derives it. */
static void expect_workload(struct synth *x, const char *code, const char *detail)
{
	synth_build(x);
	if (code) {
		cr_expect_str_eq(x->r.verdict, "invalid");
		cr_assert_eq(x->r.nr_findings, 1, "%zu findings (first: %s)", x->r.nr_findings,
			     x->r.nr_findings ? x->r.findings[0].code : "none");
		cr_expect_str_eq(x->r.findings[0].code, code);
		cr_expect_str_eq(x->r.findings[0].detail, detail);
	} else {
		cr_expect_str_eq(x->r.verdict, "clean", "%s: %s",
				 x->r.nr_findings ? x->r.findings[0].code : "",
				 x->r.nr_findings ? x->r.findings[0].detail : "");
	}
	free(checked(&x->r));
}

#define RATE "WORKLOAD_RATE_DISAGREES_WITH_STAGES"
#define STAGES "WORKLOAD_STAGES_EXCEED_END_TO_END"

Test(workload_rate, a_timer_unit_bug_is_refused)
{
	/* 64 tokens in 100 ms of decode are 640 tok/s, not a million */
	struct synth x;
	struct workload w;

	synth_init(&x);
	with_metrics(&x, &w, 1e6, 100, 100);
	expect_workload(&x, RATE, "tokens_per_second 1000000 but 64 decode tokens in "
				  "decode_milliseconds 100 are 640 tok/s: the rate is more than "
				  "10% above what its own decode time allows");
}

Test(workload_rate, within_ten_percent_of_the_decode_time)
{
	struct synth x;
	struct workload w;

	synth_init(&x);
	with_metrics(&x, &w, 703.9, 100, 100);
	expect_workload(&x, NULL, NULL);
	with_metrics(&x, &w, 704.1, 100, 100);
	expect_workload(&x, RATE, "tokens_per_second 704.1 but 64 decode tokens in "
				  "decode_milliseconds 100 are 640 tok/s: the rate is more than "
				  "10% above what its own decode time allows");
	/* the first token counted with prefill: 63 tokens over the decode time */
	with_metrics(&x, &w, 630, 110, 100);
	expect_workload(&x, NULL, NULL);
	/* a rate of end-to-end time (end_to_end_decode_tokens_per_second) */
	with_metrics(&x, &w, 160, 400, 100);
	expect_workload(&x, NULL, NULL);
	/* a decode time of 0 bounds nothing */
	with_metrics(&x, &w, 640, 100, 0);
	expect_workload(&x, NULL, NULL);
}

Test(workload_rate, within_ten_percent_of_the_end_to_end_time)
{
	/* 64 tokens, the first perhaps counted with prefill: 63 in 100 ms end
	 * to end are at least 630 tok/s; 630 / 1.1 is 572.7 */
	struct synth x;
	struct workload w;

	synth_init(&x);
	with_metrics(&x, &w, 572.8, 100, -1);
	expect_workload(&x, NULL, NULL);
	with_metrics(&x, &w, 572.6, 100, -1);
	expect_workload(&x, RATE, "tokens_per_second 572.6 but 63 decode tokens in "
				  "end_to_end_milliseconds 100 are at least 630 tok/s: the rate "
				  "is more than 10% below what its own end-to-end time allows");
	with_metrics(&x, &w, 572.6, 100, 50);
	expect_workload(&x, RATE, "tokens_per_second 572.6 but 63 decode tokens in "
				  "end_to_end_milliseconds 100 are at least 630 tok/s: the rate "
				  "is more than 10% below what its own end-to-end time allows");
}

Test(workload_rate, may_count_the_first_token_with_prefill)
{
	/* the CPU example's line on a busy host (calibration, 2026-12-02): T = 5,
	 * the rate counts the 4 tokens of the decode stage, which took most of
	 * the request; 5 / 961.691 ms would be 5.2 tok/s, 4 of them 4.16 */
	struct synth x;
	struct workload w;

	synth_init(&x);
	with_metrics(&x, &w, 4.676, 961.691, 855.4);
	w.decode_tokens = 5;
	expect_workload(&x, NULL, NULL);
	/* below what T - 1 tokens in the end-to-end time allow: 4 / 0.481 s is
	 * 8.316 tok/s, over 1.1 is 7.56 */
	with_metrics(&x, &w, 7.57, 481, -1);
	w.decode_tokens = 5;
	expect_workload(&x, NULL, NULL);
	with_metrics(&x, &w, 7.5, 481, -1);
	w.decode_tokens = 5;
	expect_workload(&x, RATE, "tokens_per_second 7.5 but 4 decode tokens in "
				  "end_to_end_milliseconds 481 are at least 8.31601 tok/s: "
				  "the rate is more than 10% below what its own end-to-end time "
				  "allows");
	/* one token: nothing to leave out */
	with_metrics(&x, &w, 1.8, 500, -1);
	w.decode_tokens = 1;
	expect_workload(&x, RATE, "tokens_per_second 1.8 but 1 decode tokens in "
				  "end_to_end_milliseconds 500 are at least 2 tok/s: the rate is "
				  "more than 10% below what its own end-to-end time allows");
}

Test(workload_window, the_reported_times_fit_in_the_command_window)
{
	/* the synthetic command window is 1000 ms; 1 ms of slack */
	struct synth x;
	struct workload w;

	synth_init(&x);
	with_metrics(&x, &w, 64, 1001, -1);
	expect_workload(&x, NULL, NULL);
	with_metrics(&x, &w, 64, 1001.5, -1);
	expect_workload(&x, "WORKLOAD_TIME_EXCEEDS_WINDOW", "the reported end-to-end time "
			"1001.500 ms exceeds the command window of 1000.000 ms");
	/* 63 tokens (the first may be in prefill) at 62.9 tok/s take 1001.6 ms */
	with_metrics(&x, &w, 62.95, 1000, -1);
	expect_workload(&x, NULL, NULL);
	with_metrics(&x, &w, 62.9, 1000, -1);
	expect_workload(&x, "WORKLOAD_RATE_EXCEEDS_WINDOW", "63 decode tokens at the reported "
			"62.9 tok/s take 1001.590 ms, longer than the command window of "
			"1000.000 ms");
}

Test(workload_stages, must_fit_in_the_end_to_end_time)
{
	/* within the documented slack: 1% of end to end plus 1 ms */
	struct synth x;
	struct workload w;

	synth_init(&x);
	with_metrics(&x, &w, 64, 1000, 511);
	w.metrics.has_ttft = w.metrics.has_prefill = true;
	w.metrics.ttft_ms = 1011;
	w.metrics.prefill_ms = 500;
	expect_workload(&x, NULL, NULL);
	w.metrics.ttft_ms = 1011.5;
	expect_workload(&x, STAGES, "ttft_milliseconds 1011.5 is longer than "
				    "end_to_end_milliseconds 1000: the stage times contradict each "
				    "other");
	w.metrics.ttft_ms = 100;
	w.metrics.prefill_ms = 600;
	w.metrics.decode_ms = 600;
	expect_workload(&x, STAGES, "prefill_milliseconds 600 and decode_milliseconds 600 add up "
				    "to more than end_to_end_milliseconds 1000: the stage times "
				    "contradict each other");
	with_metrics(&x, &w, 64, 1000, 1012);
	expect_workload(&x, STAGES, "decode_milliseconds 1012 is longer than "
				    "end_to_end_milliseconds 1000: the stage times contradict each "
				    "other");
}

/* llama-bench's rate and times come from the same avg_ns: they agree by
 * construction, whichever rows were picked (pg; pp+tg; tg). */
Test(workload_rate, llama_bench_agrees_with_itself)
{
	static const struct {
		const char *file;
		long long p, t;
	} cases[] = {
		{ "llama-bench-real/p4-n8.json", 4, 8 },
		{ "llama-bench-real/p4-n8.jsonl", 4, 8 },
		{ "llama-bench-real/pg4-8.json", 4, 8 },
		{ "llama-bench-real/pg4-8.jsonl", 4, 8 },
		{ "llama-bench-real/p4-n8.json", 0, 8 },
		{ "llama-bench/early-2024-json-pp-tg.json", 32, 64 },
		{ "llama-bench/mid-2024-json-pg.json", 32, 64 },
		{ "llama-bench/newest-json-p1.json", 1, 64 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct synth x;
		struct workload w;
		struct strbuf sb = STRBUF_INIT;
		char path[256];
		struct err e;

		snprintf(path, sizeof(path), "tests/fixtures/metrics/%s", cases[i].file);
		cr_assert_eq(file_read(path, 1 << 22, &sb, &e), 0, "%s", e.msg);
		synth_init(&x);
		with_workload(&x, &w, MIB);
		strcpy(w.parser, WL_PARSER_LLAMA_BENCH);
		w.prompt_tokens = cases[i].p ? cases[i].p : 1;
		w.decode_tokens = cases[i].t;
		cr_assert_eq(metrics_parse(WL_PARSER_LLAMA_BENCH, sb.buf, sb.len, cases[i].p,
					   cases[i].t, &w.metrics, &e), 0, "%s: %s", path, e.msg);
		w.metrics_error[0] = '\0';
		w.has_metrics = true;
		/* a window long enough for the slowest of them */
		x.c[1] = smp(6000, 48000, 3100, 10);
		synth_build(&x);
		cr_expect_not(has_finding(&x.r, RATE, NULL) || has_finding(&x.r, STAGES, NULL),
			      "%s (%s): %s", path, w.metrics.derivation,
			      x.r.nr_findings ? x.r.findings[0].detail : "");
		sb_release(&sb);
	}
}

/* Removing the finding from a sealed run and sealing it again does not
 * remove it: the verifier derives it from the metrics. */
Test(workload_rate, resealed_without_the_finding)
{
	struct synth x;
	struct workload w;
	struct strbuf sb = STRBUF_INIT;
	struct attestation_facts facts;
	struct err e;
	json_t *doc;

	synth_init(&x);
	with_metrics(&x, &w, 1e6, 100, 100);
	synth_build(&x);
	x.r.nr_findings = 0;
	strcpy(x.r.verdict, "clean");
	cr_assert_eq(attestation_seal(&x.r, &e), 0, "%s", e.msg);
	attestation_render(&x.r, &sb);
	cr_assert_eq(attestation_parse(sb.buf, sb.len, &doc, &e), 0, "%s", e.msg);
	cr_expect_eq(attestation_check(doc, &facts, &e), -1);
	cr_expect_str_eq(e.msg, "verdict \"clean\" differs from the policy-derived verdict "
				"\"invalid\"");
	json_decref(doc);
	sb_release(&sb);
}

Test(attestation_scrub, images)
{
	char out[ATTESTATION_IMAGE_MAX];

	attestation_scrub_image("C:\\host\\other.exe", out);
	cr_expect_str_eq(out, "other.exe");
	attestation_scrub_image("/tmp/sut", out);
	cr_expect_str_eq(out, "sut");
	attestation_scrub_image("/usr/bin/", out);
	cr_expect_str_eq(out, "bin");
	attestation_scrub_image("", out);
	cr_expect_str_eq(out, "unknown");
	attestation_scrub_image(".", out);
	cr_expect_str_eq(out, "unknown");
	attestation_scrub_image("/", out);
	cr_expect_str_eq(out, "unknown");
	/* a process names itself: what is not scrubbed text is withheld */
	attestation_scrub_image("/usr/bin/alice@gpu-node", out);
	cr_expect_str_eq(out, "scrubbed");
	attestation_scrub_image("10.0.0.7", out);
	cr_expect_str_eq(out, "scrubbed");
	attestation_scrub_image("ssh alice", out);
	cr_expect_str_eq(out, "scrubbed");
	attestation_scrub_image("ssh", out);
	cr_expect_str_eq(out, "ssh");
}

Test(attestation_policy, ranges)
{
	struct policy p;
	struct err e;

	policy_default(&p);
	cr_expect_eq(policy_check(&p, &e), 0);
	p.maximum_non_sut_cpu_percent = 0;
	cr_expect_eq(policy_check(&p, &e), -1);
	cr_expect_str_eq(e.msg, "policy: maximum_non_sut_cpu_percent must be in (0,100]");
	policy_default(&p);
	p.maximum_sampler_duty_percent = 100.5;
	cr_expect_eq(policy_check(&p, &e), -1);
	policy_default(&p);
	p.maximum_psi_stall_percent = -1;
	cr_expect_eq(policy_check(&p, &e), -1);
	policy_default(&p);
	p.minimum_samples = 1;
	cr_expect_eq(policy_check(&p, &e), -1);
	policy_default(&p);
	p.maximum_census_interval_ns = 1;
	cr_expect_eq(policy_check(&p, &e), -1);
}

/* ---- validation: hostile reports resealed after an edit -------------------- */

/* Edits a sealed clean report, reseals it, and expects attestation_check to
 * refuse it with a message containing want. */
static void refuse_resealed(void (*edit)(struct attestation *), const char *want)
{
	struct synth x;
	struct strbuf sb = STRBUF_INIT;
	struct attestation_facts facts;
	struct err e;
	json_t *doc;

	synth_init(&x);
	synth_build(&x);
	edit(&x.r);
	cr_assert_eq(attestation_seal(&x.r, &e), 0, "%s", e.msg);
	attestation_render(&x.r, &sb);
	cr_assert_eq(attestation_parse(sb.buf, sb.len, &doc, &e), 0, "%s", e.msg);
	cr_expect_eq(attestation_check(doc, &facts, &e), -1,
		     "accepted an edit that should fail with: %s", want);
	cr_expect(strstr(e.msg, want) != NULL, "got \"%s\", want \"%s\"", e.msg, want);
	json_decref(doc);
	sb_release(&sb);
}

static void ed_counted(struct attestation *r) { r->command_sampler.counted_samples = 5; }
static void ed_duty(struct attestation *r) { r->command_sampler.duty_percent.value = 0.5; }
static void ed_wall(struct attestation *r)
{
	metric_unavailable(&r->command_sampler.duty_percent, "hidden");
}
static void ed_times(struct attestation *r)
{
	strcpy(r->command_window.ended_at_utc, "2026-08-29T00:00:04Z");
}
static void ed_bad_time(struct attestation *r)
{
	strcpy(r->command_window.ended_at_utc, "2026-08-29 00:00:03");
}
static void ed_order(struct attestation *r)
{
	struct window w = r->baseline_window;

	r->baseline_window = r->command_window;
	r->command_window = w;
}
static void ed_coverage(struct attestation *r)
{
	strcpy(r->coverage.descendant_attribution, "job_object");
}
static void ed_reaped(struct attestation *r) { r->coverage.descendants_reaped = 0; }
static void ed_sum(struct attestation *r) { r->attribution.non_sut_cpu_percent_of_host.value = 0; }
static void ed_cgroup(struct attestation *r)
{
	strcpy(r->cgroup_v2.state, CGROUP_MEASURED), r->cgroup_v2.reason[0] = 0;
}
static void ed_cgroup_reason(struct attestation *r) { r->cgroup_v2.reason[0] = 0; }
static void ed_cleanup(struct attestation *r) { r->cgroup_v2.cleanup.removed = true; }
static void ed_consumers(struct attestation *r)
{
	r->nr_consumers = 1;
	strcpy(r->consumers[0].image, "other");
	r->consumers[0].pid = 3;
}
static void ed_basename(struct attestation *r)
{
	ed_consumers(r);
	r->policy.include_top_consumers = true;
	strcpy(r->consumers[0].image, "secret/path");
}
static void ed_account(struct attestation *r)
{
	ed_consumers(r);
	r->policy.include_top_consumers = true;
	strcpy(r->consumers[0].image, "alice@gpu-node");
}
static void ed_address(struct attestation *r)
{
	ed_consumers(r);
	r->policy.include_top_consumers = true;
	strcpy(r->consumers[0].image, "10.0.0.7");
}
static void ed_consumer_order(struct attestation *r)
{
	ed_consumers(r);
	r->policy.include_top_consumers = true;
	r->nr_consumers = 2;
	r->consumers[1] = r->consumers[0];
	r->consumers[1].rss_available = true;
	r->consumers[1].rss_bytes = 10;
}
static void ed_exit(struct attestation *r) { r->timed_out = true; }
static void ed_policy(struct attestation *r) { r->policy.maximum_sampler_duty_percent = 0; }
static void ed_verdict(struct attestation *r) { strcpy(r->verdict, "investigate"); }
static void ed_detail(struct attestation *r)
{
	r->nr_findings = 1;
	strcpy(r->findings[0].code, "NON_SUT_CPU_HIGH");
	strcpy(r->findings[0].detail, "made up");
}

Test(attestation_validate, counted_samples)
{
	refuse_resealed(ed_counted, "counted_samples must be samples - 1");
}
Test(attestation_validate, duty)
{
	refuse_resealed(ed_duty, "does not equal wall_ns / duration_ns * 100");
}
Test(attestation_validate, wall_without_duty)
{
	refuse_resealed(ed_wall, "an unavailable duty must have wall_ns 0");
}
Test(attestation_validate, window_times)
{
	refuse_resealed(ed_times, "does not match the window times");
}
Test(attestation_validate, time_format)
{
	refuse_resealed(ed_bad_time, "must be RFC 3339 UTC timestamps");
}
Test(attestation_validate, window_order)
{
	refuse_resealed(ed_order, "baseline_window must end before");
}
Test(attestation_validate, coverage_kind)
{
	refuse_resealed(ed_coverage, "unknown descendant_attribution");
}
Test(attestation_validate, subreaper_root)
{
	refuse_resealed(ed_reaped, "requires the reaped SUT root");
}
Test(attestation_validate, cpu_sum)
{
	refuse_resealed(ed_sum, "SUT and non-SUT CPU must add up to host CPU");
}
Test(attestation_validate, cgroup_coverage)
{
	refuse_resealed(ed_cgroup, "a measured cgroup has atomic placement");
}
Test(attestation_validate, cgroup_reason)
{
	refuse_resealed(ed_cgroup_reason, "an unavailable cgroup states its reason");
}
Test(attestation_validate, cleanup)
{
	refuse_resealed(ed_cleanup, "nothing can be recorded when cleanup was not attempted");
}
Test(attestation_validate, consumers_opt_in)
{
	refuse_resealed(ed_consumers, "require policy include_top_consumers");
}
Test(attestation_validate, consumer_basename)
{
	refuse_resealed(ed_basename, "must be a scrubbed basename");
}
Test(attestation_validate, consumer_account)
{
	refuse_resealed(ed_account, "must be a scrubbed basename");
}
Test(attestation_validate, consumer_address)
{
	refuse_resealed(ed_address, "must be a scrubbed basename");
}
Test(attestation_validate, consumer_order)
{
	refuse_resealed(ed_consumer_order, "ordered by CPU, RSS, then PID");
}
Test(attestation_validate, exit_code) { refuse_resealed(ed_exit, "must be 124 after a timeout"); }
Test(attestation_validate, policy)
{
	refuse_resealed(ed_policy, "maximum_sampler_duty_percent must be in (0,100]");
}
Test(attestation_validate, verdict)
{
	refuse_resealed(ed_verdict, "differs from the policy-derived verdict \"clean\"");
}
Test(attestation_validate, findings)
{
	refuse_resealed(ed_detail, "findings[0]: recorded NON_SUT_CPU_HIGH \"made up\"");
}

/* ---- --wait-quiet: the wait is sealed and re-derived ------------------------ */

/* Two busy windows rejected (90 % and 60 %) before the synthetic quiet one. */
static void with_wait(struct attestation *r)
{
	struct quiet_wait *q = &r->quiet_wait;

	r->has_quiet_wait = true;
	memset(q, 0, sizeof(*q));
	q->limit_ns = 10000 * MSEC;
	q->waited_ns = 3000 * MSEC;
	q->quiet_found = true;
	q->nr_rejected = 2;
	strcpy(q->rejected[0].started_at_utc, "2026-08-28T23:59:57Z");
	q->rejected[0].duration_ns = 1000 * MSEC;
	q->rejected[0].host_cpu_percent = 90;
	strcpy(q->rejected[1].started_at_utc, "2026-08-28T23:59:58.5Z");
	q->rejected[1].duration_ns = 1000 * MSEC;
	q->rejected[1].host_cpu_percent = 60;
}

Test(attestation_quiet_wait, sealed_and_verified)
{
	struct synth x;
	struct err e;
	char *text;

	synth_init(&x);
	x.r.has_quiet_wait = false;
	synth_build(&x);
	text = checked(&x.r);
	cr_expect_null(strstr(text, "quiet_wait"), "no --wait-quiet, no key: nothing changes");
	free(text);
	with_wait(&x.r);
	cr_assert_eq(attestation_seal(&x.r, &e), 0, "%s", e.msg);
	text = checked(&x.r);
	cr_expect(strstr(text, "\"quiet_wait\": {\n    \"limit_ns\": 10000000000,\n"
			       "    \"waited_ns\": 3000000000,\n    \"quiet_found\": true,\n"
			       "    \"rejected_windows\": [\n      {\n"
			       "        \"started_at_utc\": \"2026-08-28T23:59:57Z\",\n"),
		  "%s", text);
	free(text);
}

static void ed_wait_quiet(struct attestation *r)
{
	with_wait(r);
	r->quiet_wait.rejected[1].host_cpu_percent = 15;
}
static void ed_wait_found(struct attestation *r)
{
	with_wait(r);
	r->quiet_wait.quiet_found = false;
}
static void ed_wait_order(struct attestation *r)
{
	with_wait(r);
	strcpy(r->quiet_wait.rejected[1].started_at_utc, "2026-08-28T23:59:56Z");
}
static void ed_wait_overlap(struct attestation *r)
{
	with_wait(r);
	r->quiet_wait.rejected[1].duration_ns = 2000 * MSEC;
}
static void ed_wait_zero(struct attestation *r)
{
	with_wait(r);
	r->quiet_wait.waited_ns = 0;
}
static void ed_wait_limit(struct attestation *r)
{
	with_wait(r);
	r->quiet_wait.limit_ns = 0;
}
Test(attestation_quiet_wait, rejected_window_was_quiet)
{
	refuse_resealed(ed_wait_quiet, "quiet_wait.rejected_windows[1]: host CPU 15.00% is "
				       "not above the 20.00% ceiling");
}
Test(attestation_quiet_wait, quiet_found_rederived)
{
	refuse_resealed(ed_wait_found, "quiet_wait.quiet_found must say whether the baseline "
				       "window's host CPU is within 20.00%");
}
Test(attestation_quiet_wait, windows_in_order)
{
	refuse_resealed(ed_wait_order, "quiet_wait.rejected_windows[1]: must start in order");
}
Test(attestation_quiet_wait, windows_end_before_the_baseline)
{
	refuse_resealed(ed_wait_overlap, "quiet_wait.rejected_windows[1]: must start in order and "
					 "end before the baseline window");
}
Test(attestation_quiet_wait, waited_iff_rejected)
{
	refuse_resealed(ed_wait_zero,
			"quiet_wait.waited_ns is 0 exactly when no window was rejected");
}
Test(attestation_quiet_wait, limit)
{
	refuse_resealed(ed_wait_limit, "quiet_wait.limit_ns must be in (0, 24h]");
}

/* The second rejected window quiet on CPU (15 %) but with an io stall of
 * 40 % (the PSI ceiling is 5 %). */
static void with_psi_wait(struct attestation *r)
{
	with_wait(r);
	r->quiet_wait.psi_stall_judged = true;
	r->quiet_wait.rejected[1].host_cpu_percent = 15;
	r->quiet_wait.rejected[1].psi_stall_percent = 40;
	strcpy(r->quiet_wait.rejected[1].psi_stall_axis, "io");
}

Test(attestation_quiet_wait, psi_stall_sealed_and_verified)
{
	struct synth x;
	struct err e;
	char *text;

	synth_init(&x);
	synth_build(&x);
	with_psi_wait(&x.r);
	cr_assert_eq(attestation_seal(&x.r, &e), 0, "%s", e.msg);
	text = checked(&x.r);
	cr_expect(strstr(text, "\"quiet_found\": true,\n    \"psi_stall_judged\": true,\n"),
		  "%s", text);
	cr_expect(strstr(text, "\"host_cpu_percent\": 15,\n        \"psi_stall_percent\": 40,\n"
			       "        \"psi_stall_axis\": \"io\"\n"), "%s", text);
	free(text);
}

static void ed_psi_low(struct attestation *r)
{
	with_psi_wait(r);
	r->quiet_wait.rejected[1].psi_stall_percent = 4;
}
static void ed_psi_unjudged(struct attestation *r)
{
	with_psi_wait(r);
	r->quiet_wait.psi_stall_judged = false;
}
static void ed_psi_axis(struct attestation *r)
{
	with_psi_wait(r);
	strcpy(r->quiet_wait.rejected[1].psi_stall_axis, "disk");
}
Test(attestation_quiet_wait, psi_rejected_window_was_quiet)
{
	refuse_resealed(ed_psi_low, "quiet_wait.rejected_windows[1]: host CPU 15.00% is not "
				    "above the 20.00% ceiling, nor its PSI stall above 5.00%");
}
Test(attestation_quiet_wait, psi_only_where_judged)
{
	refuse_resealed(ed_psi_unjudged, "quiet_wait.rejected_windows[1]: psi_stall_percent and "
					 "psi_stall_axis go together, above 0 and with an axis "
					 "cpu, memory or io, and only where psi_stall_judged");
	refuse_resealed(ed_psi_axis, "quiet_wait.rejected_windows[1]: psi_stall_percent and "
				     "psi_stall_axis go together");
}

/* A quiet window whose host had an io stall of 40 % is quiet on CPU alone
 * (a wait sealed before fak judged PSI) and not quiet when PSI is judged. */
Test(attestation_quiet_wait, psi_quiet_found_rederived)
{
	struct synth x;
	struct attestation_facts facts;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	char why[256];
	json_t *doc;

	synth_init(&x);
	x.b[1].psi[2].some_total_us = 400000;
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "clean", "the quiet window's host PSI is no finding");
	with_wait(&x.r);
	cr_assert_eq(attestation_seal(&x.r, &e), 0, "%s", e.msg);
	free(checked(&x.r));
	x.r.quiet_wait.psi_stall_judged = true;
	cr_assert_eq(attestation_seal(&x.r, &e), 0, "%s", e.msg);
	attestation_render(&x.r, &sb);
	cr_assert_eq(attestation_parse(sb.buf, sb.len, &doc, &e), 0, "%s", e.msg);
	cr_expect_eq(attestation_check(doc, &facts, &e), -1);
	cr_expect_str_eq(e.msg, "quiet_wait.quiet_found must say whether the baseline window's "
				"host CPU is within 20.00% and its PSI stall within 5.00%");
	json_decref(doc);
	sb_release(&sb);
	x.r.quiet_wait.quiet_found = false;
	cr_assert_eq(attestation_seal(&x.r, &e), 0, "%s", e.msg);
	free(checked(&x.r));
	attestation_quiet_wait_why(&x.r, why, sizeof(why));
	cr_expect_str_eq(why, "io PSI stall 40.00% is above the 5.00% ceiling");
	x.r.baseline_host_totals.cpu_percent.value = 30;
	attestation_quiet_wait_why(&x.r, why, sizeof(why));
	cr_expect_str_eq(why, "host CPU 30.00% is above the 20.00% ceiling and io PSI stall "
			      "40.00% is above the 5.00% ceiling");
}

/* ---- --cpus: host CPU on the chosen CPUs, the whole host as information ----- */

Test(attestation_cpus, all_cpus_recorded_as_information)
{
	struct synth x;
	char *text;

	synth_init(&x);
	for (size_t i = 0; i < 2; i++) {
		x.b[i].cpu_all_ok = x.c[i].cpu_all_ok = true;
		x.b[i].cpu_all_total_ns = (uint64_t)(40000 + 4000 * (int64_t)i) * MSEC;
		x.b[i].cpu_all_busy_ns = (uint64_t)(10000 + 3000 * (int64_t)i) * MSEC;
		x.c[i].cpu_all_total_ns = (uint64_t)(50000 + 8000 * (int64_t)i) * MSEC;
		x.c[i].cpu_all_busy_ns = (uint64_t)(20000 + 2000 * (int64_t)i) * MSEC;
	}
	x.in.cpus_list = "2-3";
	x.in.cpus_count = 2;
	synth_build(&x);
	cr_expect_str_eq(x.r.verdict, "clean", "judged on the chosen CPUs: 5%% quiet, not 75%%");
	cr_assert(x.r.has_cpus);
	cr_expect_float_eq(x.r.cpus.baseline_all_cpus_percent.value, 75, 1e-9);
	cr_expect_float_eq(x.r.cpus.command_all_cpus_percent.value, 25, 1e-9);
	cr_expect_str_eq(x.r.host_totals.cpu_percent.source,
			 "/proc/stat busy/total delta of the --cpus CPUs");
	text = checked(&x.r);
	cr_expect(strstr(text, "\"cpus\": {\n    \"list\": \"2-3\",\n    \"count\": 2,\n"),
		  "%s", text);
	free(text);
}

static void ed_cpus(struct attestation *r)
{
	r->has_cpus = true;
	strcpy(r->cpus.list, "0-3");
	r->cpus.count = 2;
	metric_unavailable(&r->cpus.baseline_all_cpus_percent, "x");
	metric_unavailable(&r->cpus.command_all_cpus_percent, "x");
}
Test(attestation_cpus, list_and_count_agree)
{
	refuse_resealed(ed_cpus, "cpus: \"list\" must be a CPU list of \"count\" CPUs");
}

/* ---- strict decoding ------------------------------------------------------ */

static char *fixture(const char *name, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	char path[256];

	snprintf(path, sizeof(path), FIX "%s", name);
	cr_assert_eq(file_read(path, ATTESTATION_MAX_BYTES, &sb, &e), 0, "%s", e.msg);
	return sb_detach(&sb, len);
}

/* attestation_parse + attestation_check of text; the error when it fails. */
static int check_text(const char *text, size_t len, struct err *e)
{
	struct attestation_facts facts;
	json_t *doc;
	int rc;

	if (attestation_parse(text, len, &doc, e) < 0)
		return -1;
	rc = attestation_check(doc, &facts, e);
	json_decref(doc);
	return rc;
}

/* The fixture with the first occurrence of from replaced by to. */
static void refuse_edit(const char *name, const char *from, const char *to, const char *want)
{
	size_t len;
	char *text = fixture(name, &len), *at = strstr(text, from);
	struct strbuf sb = STRBUF_INIT;
	struct err e;

	cr_assert_not_null(at, "'%s' not in %s", from, name);
	sb_add(&sb, text, (size_t)(at - text));
	sb_adds(&sb, to);
	sb_adds(&sb, at + strlen(from));
	cr_expect_eq(check_text(sb.buf, sb.len, &e), -1, "accepted: %s", want);
	cr_expect(strstr(e.msg, want) != NULL, "got \"%s\", want \"%s\"", e.msg, want);
	sb_release(&sb);
	free(text);
}

Test(attestation_decode, refusals)
{
	struct err e;
	char *big;

	cr_expect_eq(check_text("", 0, &e), -1);
	cr_expect_eq(check_text("{\"schema\":", 10, &e), -1);
	cr_expect_eq(check_text("{} {}", 5, &e), -1);
	cr_expect_eq(check_text("{} !", 4, &e), -1);
	cr_expect_eq(check_text("[]", 2, &e), -1);
	cr_expect_str_eq(e.msg, "attestation: expected a JSON object");
	cr_expect_eq(check_text("{}", 2, &e), -1);
	cr_expect_str_eq(e.msg, "schema: missing required field");
	big = malloc(ATTESTATION_MAX_BYTES + 1);
	memset(big, ' ', ATTESTATION_MAX_BYTES + 1);
	cr_expect_eq(check_text(big, ATTESTATION_MAX_BYTES + 1, &e), -1);
	cr_expect_str_eq(e.msg, "attestation exceeds 1048576 bytes");
	free(big);
}

Test(attestation_decode, strict_fields)
{
	refuse_edit("clean-1.json", "{\n  \"schema\"", "{\n  \"extra\": 1,\n  \"schema\"",
		    "extra: unknown field");
	refuse_edit("clean-1.json", "\"process_snapshots\"", "\"bogus\": 1, \"process_snapshots\"",
		    "coverage.bogus: unknown field");
	refuse_edit("clean-1.json", "\"command_exit_code\": 0", "\"command_exit_code\": \"0\"",
		    "command_exit_code: expected an integer, found a string");
	refuse_edit("clean-1.json", "\"command_exit_code\": 0", "\"command_exit_code\": 0.5",
		    "command_exit_code: expected an integer, found a fractional number");
	refuse_edit("clean-1.json", "\"command_exit_code\": 0", "\"command_exit_code\": -1",
		    "command_exit_code: must be non-negative");
	refuse_edit("clean-1.json", "\"timed_out\": false",
		    "\"timed_out\": false, \"timed_out\": true", "duplicate");
	refuse_edit("clean-1.json", "\"timed_out\": false", "\"timed_out\": null",
		    "timed_out: expected a boolean, found null");
	refuse_edit("clean-1.json", "\"unit\": \"percent\"", "\"unit\": \"ratio\"",
		    "baseline_host_totals.cpu_percent.unit: must be \"percent\"");
	refuse_edit("clean-1.json", "\"schema\": \"fak.system-baseline/v1\"",
		    "\"schema\": \"fak.system-baseline/v3\"",
		    "schema: unsupported schema \"fak.system-baseline/v3\"");
	/* v2 is v1 plus the workload section of an experiment run, both ways */
	refuse_edit("clean-1.json", "\"schema\": \"fak.system-baseline/v1\"",
		    "\"schema\": \"fak.system-baseline/v2\"", "workload: missing required field");
	refuse_edit("clean-1.json", "\"timed_out\": false",
		    "\"timed_out\": false, \"workload\": {}",
		    "workload: a fak.system-baseline/v1 attestation has no workload section");
	refuse_edit("clean-1.json", "\"verdict\": \"clean\"", "\"verdict\": \"fine\"",
		    "verdict: must be \"clean\", \"investigate\" or \"invalid\"");
	refuse_edit("clean-1.json", "\"source\": \"/proc/stat busy/total delta\"",
		    "\"source\": \"\"", "an available metric has a source and no reason");
	refuse_edit("clean-1.json", "\"top_non_sut_consumers\": []",
		    "\"top_non_sut_consumers\": null",
		    "top_non_sut_consumers: expected an array, found null");
}

Test(attestation_decode, surrounding_whitespace_keeps_the_digest)
{
	size_t len;
	char *text = fixture("clean-1.json", &len);
	struct strbuf sb = STRBUF_INIT;
	struct attestation_facts facts, plain;
	struct err e;
	json_t *doc;

	cr_assert_eq(attestation_verify_bytes(text, len, &plain, &e), 0, "%s", e.msg);
	sb_adds(&sb, "\n\t ");
	sb_add(&sb, text, len);
	sb_adds(&sb, " \r\n");
	cr_assert_eq(attestation_parse(sb.buf, sb.len, &doc, &e), 0, "%s", e.msg);
	cr_assert_eq(attestation_check(doc, &facts, &e), 0, "%s", e.msg);
	cr_expect_str_eq(facts.digest, plain.digest);
	json_decref(doc);
	cr_expect_eq(attestation_verify_bytes(sb.buf, sb.len, &facts, &e), -1,
		     "--verify wants the exact bytes");
	cr_expect(strstr(e.msg,
			 "bytes differ from the sealed rendering at line 1 (byte 1)") != NULL,
		  "%s", e.msg);
	sb_release(&sb);
	free(text);
}

/* ---- the committed fixtures ------------------------------------------------ */

static void expect_valid(const char *name, const char *verdict, const char *coverage)
{
	size_t len;
	char *text = fixture(name, &len);
	struct attestation_facts facts;
	struct err e;

	cr_assert_eq(attestation_verify_bytes(text, len, &facts, &e), 0, "%s: %s", name, e.msg);
	cr_expect_str_eq(facts.verdict, verdict, "%s", name);
	cr_expect_str_eq(facts.coverage, coverage, "%s", name);
	cr_expect_not(facts.has_top_consumers);
	cr_expect_geq(facts.baseline_samples, 2);
	free(text);
}

static void expect_tampered(const char *name, const char *want)
{
	size_t len;
	char *text = fixture(name, &len);
	struct attestation_facts facts;
	struct err e;

	cr_expect_eq(attestation_verify_bytes(text, len, &facts, &e), -1, "%s verified", name);
	cr_expect(strstr(e.msg, want) != NULL, "%s: got \"%s\"", name, e.msg);
	free(text);
}

Test(attestation_fixtures, valid)
{
	static const char *const clean[] = { "clean-1.json", "clean-2.json", "clean-3.json",
					     "clean-4.json", "clean-5.json", "clean-6.json" };
	char digests[6][JSON_DIGEST_LEN + 1];

	for (size_t i = 0; i < 6; i++) {
		size_t len;
		char *text = fixture(clean[i], &len);
		struct attestation_facts facts;
		struct err e;

		expect_valid(clean[i], "clean", COVERAGE_SUBREAPER);
		cr_assert_eq(attestation_verify_bytes(text, len, &facts, &e), 0);
		memcpy(digests[i], facts.digest, sizeof(digests[i]));
		for (size_t k = 0; k < i; k++)
			cr_expect_str_neq(digests[i], digests[k],
					  "fixtures must be distinct evidence");
		free(text);
	}
	expect_valid("clean-cgroup-1.json", "clean", COVERAGE_CGROUP);
	expect_valid("clean-sampled-1.json", "clean", COVERAGE_SAMPLED);
	expect_valid("investigate-1.json", "investigate", COVERAGE_SUBREAPER);
	expect_valid("invalid-exit-7.json", "invalid", COVERAGE_SUBREAPER);
}

Test(attestation_fixtures, tampered)
{
	expect_tampered("tampered-exit-code.json", "canonical digest mismatch");
	expect_tampered("tampered-verdict.json", "canonical digest mismatch");
	expect_tampered("tampered-sut-cpu.json", "canonical digest mismatch");
	expect_tampered("tampered-whitespace.json",
			"bytes differ from the sealed rendering at line 327");
}

Test(attestation_copy, never_cuts_silently)
{
	char small[8], big[ATTESTATION_DETAIL_MAX], src[300];

	attestation_copy(small, sizeof(small), "1234567");
	cr_assert_str_eq(small, "1234567");
	attestation_copy(small, sizeof(small), "12345678");
	cr_assert_str_eq(small, "1234...");
	/* never inside a UTF-8 sequence: an e-acute at bytes 3..4 goes whole */
	attestation_copy(small, sizeof(small), "abc\xc3\xa9" "defgh");
	cr_assert_str_eq(small, "abc...");
	attestation_copy(small, sizeof(small), "ab\xc3\xa9" "defgh");
	cr_assert_str_eq(small, "ab\xc3\xa9...");
	/* a llama-bench result list longer than the old 191 bytes stays whole */
	memset(src, 'x', sizeof(src) - 1);
	src[sizeof(src) - 1] = '\0';
	attestation_copy(big, sizeof(big), src);
	cr_assert_str_eq(big, src);
}

/* The names of the processes a command left running, for people: each name
 * once with its count, the rest counted. */
Test(run_leftovers, text_names_each_process_once_with_its_count)
{
	struct run_leftovers l = { .seen = 4, .nr = 2, .unnamed = 0 };
	struct strbuf sb = STRBUF_INIT;

	snprintf(l.names[0].name, sizeof(l.names[0].name), "sleep");
	l.names[0].count = 3;
	snprintf(l.names[1].name, sizeof(l.names[1].name), "python3");
	l.names[1].count = 1;
	run_leftovers_text(&l, &sb);
	cr_assert_str_eq(sb.buf, "sleep (3), python3");
	sb_reset(&sb);
	l.unnamed = 4;
	run_leftovers_text(&l, &sb);
	cr_assert_str_eq(sb.buf, "sleep (3), python3, 4 more");
	sb_reset(&sb);
	memset(&l, 0, sizeof(l));
	run_leftovers_text(&l, &sb);
	cr_assert_str_eq(sb.buf, "");
	sb_release(&sb);
}
