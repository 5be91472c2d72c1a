/* experiment/: the schedule and what the runner learns about the host. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment/experiment.h"
#include "attestation/workload.h"

/* The schedule as a string: "Bw0 Cw0 B0 C0 C1 B1" (B/C arm, w warm-up,
 * q quality, digits the index). */
static void plan_text(enum receipt_order order, uint64_t seed, size_t warmups, size_t reps,
		      bool quality, char *out, size_t cap)
{
	struct receipt_step *v;
	size_t n, len = 0;
	struct err e;

	cr_assert_eq(receipt_plan(order, seed, warmups, reps, quality, &v, &n, &e), 0, "%s", e.msg);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%c%s%lld", i ? " " : "",
					v[i].arm ? 'C' : 'B',
					!strcmp(v[i].kind, WL_KIND_WARMUP)    ? "w" :
					!strcmp(v[i].kind, WL_KIND_QUALITY) ? "q" : "",
					(long long)v[i].index);
	free(v);
}

Test(receipt_plan, interleaved_is_abba_after_the_warmups)
{
	char s[256];

	plan_text(RECEIPT_ORDER_INTERLEAVED, 0, 1, 3, false, s, sizeof(s));
	cr_assert_str_eq(s, "Bw0 Cw0 B0 C0 C1 B1 B2 C2");
	plan_text(RECEIPT_ORDER_INTERLEAVED, 0, 2, 4, true, s, sizeof(s));
	cr_assert_str_eq(s, "Bw0 Cw0 Bw1 Cw1 B0 C0 C1 B1 B2 C2 C3 B3 Bq0 Cq0");
	plan_text(RECEIPT_ORDER_INTERLEAVED, 0, 0, 1, false, s, sizeof(s));
	cr_assert_str_eq(s, "B0 C0");
}

Test(receipt_plan, blocked_runs_each_arm_as_one_block)
{
	char s[256];

	plan_text(RECEIPT_ORDER_BLOCKED, 0, 1, 3, false, s, sizeof(s));
	cr_assert_str_eq(s, "Bw0 B0 B1 B2 Cw0 C0 C1 C2");
	plan_text(RECEIPT_ORDER_BLOCKED, 0, 0, 2, true, s, sizeof(s));
	cr_assert_str_eq(s, "B0 B1 Bq0 C0 C1 Cq0");
}

Test(receipt_plan, random_shuffles_within_pairs_and_replays_from_its_seed)
{
	char a[1024], b[1024], c[1024];
	struct receipt_step *v;
	size_t n, firsts = 0;
	struct err e;

	plan_text(RECEIPT_ORDER_RANDOM, 42, 1, 40, false, a, sizeof(a));
	plan_text(RECEIPT_ORDER_RANDOM, 42, 1, 40, false, b, sizeof(b));
	plan_text(RECEIPT_ORDER_RANDOM, 43, 1, 40, false, c, sizeof(c));
	cr_assert_str_eq(a, b, "the same seed must replay the same order");
	cr_assert_str_neq(a, c, "another seed gives another order");
	cr_assert_eq(receipt_plan(RECEIPT_ORDER_RANDOM, 7, 0, 200, false, &v, &n, &e), 0);
	for (size_t i = 0; i < n; i += 2) {
		/* each pair holds both arms with the same index */
		cr_assert_neq(v[i].arm, v[i + 1].arm);
		cr_assert_eq(v[i].index, (int64_t)(i / 2));
		cr_assert_eq(v[i + 1].index, (int64_t)(i / 2));
		firsts += v[i].arm == RECEIPT_ARM_BASELINE;
	}
	/* a fair coin: 200 pairs, baseline first far from always or never */
	cr_assert(firsts > 60 && firsts < 140, "baseline first in %zu of 200 pairs", firsts);
	free(v);
}

Test(receipt_plan, refuses_what_it_cannot_plan)
{
	struct receipt_step *v;
	size_t n;
	struct err e;

	cr_assert_eq(receipt_plan(RECEIPT_ORDER_INTERLEAVED, 0, 1, 0, false, &v, &n, &e), -1);
	cr_assert_str_eq(e.msg, "an experiment needs at least one repetition per arm");
	cr_assert_eq(receipt_plan(RECEIPT_ORDER_INTERLEAVED, 0, 1, RECEIPT_MAX_STEPS, false, &v, &n,
				  &e),
		     -1);
	cr_assert(strstr(e.msg, "exceed"), "%s", e.msg);
}

/* The NVIDIA accelerator is verified through NVML: tests/cli/scripts/
 * gpu-experiment.sh checks it with the test double of the library. */
Test(xp_platform, only_this_platform_and_a_known_accelerator)
{
	char here[64], want[256];
	struct err e;

	cr_assert_eq(xp_host_platform(here, sizeof(here), &e), 0, "%s", e.msg);
	cr_assert_eq(xp_platform_check(here, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_platform_check("darwin/arm64", &e), -1);
	snprintf(want, sizeof(want),
		 "this machine is %s; a run here cannot witness an envelope on darwin/arm64", here);
	cr_assert_str_eq(e.msg, want);
	snprintf(want, sizeof(want), "%s+amd-mi300", here);
	cr_assert_eq(xp_platform_check(want, &e), -1);
	cr_assert_str_eq(e.msg, "the envelope's accelerator \"amd-mi300\" cannot be verified on "
				"this machine; fak knows how to check nvidia-a100 only");
}

Test(xp_machine_id, keyed_hash_never_the_raw_id)
{
	char path[] = "/tmp/fak-mid-XXXXXX", a[40], b[40];
	const char *raw = "3d1219c7c4c5404aaa1f6d2a48adfda4\n";
	struct err e;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, raw, strlen(raw)), (ssize_t)strlen(raw));
	close(fd);
	cr_assert_eq(xp_machine_id(path, a, &e), 0, "%s", e.msg);
	cr_assert_eq(xp_machine_id(path, b, &e), 0, "%s", e.msg);
	cr_assert_str_eq(a, b, "stable for the same machine");
	cr_assert_eq(strlen(a), 34);
	cr_assert(!strncmp(a, "m-", 2));
	cr_assert(!strstr(a, "3d1219c7"), "the raw id must not show: %s", a);
	/* HMAC-SHA-256 under fak's key, 32 hex digits (computed with Python's hmac) */
	cr_assert_str_eq(a, "m-" "757a8b58612ee56312ca75431718e78b");
	unlink(path);
	cr_assert_eq(xp_machine_id(path, a, &e), -1);
	cr_assert(strstr(e.msg, "machine id"), "%s", e.msg);
}

/* ---- why a gate investigates ------------------------------------------------ */

static void explain(const char *gate, const char *base_sb, const char *cand_sb, char *out,
		    size_t cap)
{
	struct xp_result res = { 0 };
	char doc[4096];
	json_error_t je;

	res.gate = json_loads(gate, 0, &je);
	cr_assert_not_null(res.gate, "%s", je.text);
	snprintf(doc, sizeof(doc), "{\"system_baselines\": [%s]}", base_sb);
	res.receipts[0] = json_loads(doc, 0, &je);
	cr_assert_not_null(res.receipts[0], "%s", je.text);
	snprintf(doc, sizeof(doc), "{\"system_baselines\": [%s]}", cand_sb);
	res.receipts[1] = json_loads(doc, 0, &je);
	cr_assert_not_null(res.receipts[1], "%s", je.text);
	xp_explain(&res, out, cap);
	json_decref(res.gate);
	json_decref(res.receipts[0]);
	json_decref(res.receipts[1]);
}

#define INVESTIGATE "{\"classification\": \"investigate\"}"
#define CLEAN "{\"findings\": []}"
#define BUSY(quiet, non_sut, findings)                                                     \
	"{\"findings\": [" findings "], \"policy\": {\"maximum_non_sut_cpu_percent\": 20},"  \
	"\"baseline_host_totals\": {\"cpu_percent\": {\"available\": true, \"value\": "    \
	quiet "}}, \"attribution\": {\"non_sut_cpu_percent_of_host\": {\"available\": "     \
	"true, \"value\": " non_sut "}}}"
#define F(code) "{\"code\": \"" code "\", \"detail\": \"d\"}"

Test(xp_explain, a_busy_host_in_figures_and_what_to_do)
{
	char why[512];

	explain(INVESTIGATE, BUSY("85.2", "3", F("BASELINE_HOST_CPU_HIGH")) "," CLEAN,
		BUSY("40", "55", F("BASELINE_HOST_CPU_HIGH") "," F("NON_SUT_CPU_HIGH")), why,
		sizeof(why));
	cr_expect_str_eq(why, "the host was busy: up to 85% CPU in the quiet window before the "
			      "command (2 of 3 runs) and up to 55% CPU outside the command while "
			      "it ran (1 of 3 runs), above the 20% ceiling; run `fak bench "
			      "system-check`, or use --wait-quiet DUR");
}

Test(xp_explain, a_wait_that_ran_out_says_so)
{
	char why[512];

	explain(INVESTIGATE,
		"{\"quiet_wait\": {\"limit_ns\": 30000000000, \"quiet_found\": false},"
		" \"findings\": [" F("BASELINE_HOST_CPU_HIGH") "], \"policy\": "
		"{\"maximum_non_sut_cpu_percent\": 20}, \"baseline_host_totals\": {\"cpu_percent\":"
		" {\"available\": true, \"value\": 64}}}",
		CLEAN, why, sizeof(why));
	cr_expect_str_eq(why, "the host was busy: up to 64% CPU in the quiet window before the "
			      "command (1 of 2 runs), above the 20% ceiling, and it stayed busy "
			      "through the 30 s of --wait-quiet (1 of 2 runs); run `fak bench "
			      "system-check`, or wait longer");
}

Test(xp_explain, a_wait_that_ran_out_on_a_stall_says_so)
{
	char why[512];

	explain(INVESTIGATE,
		"{\"quiet_wait\": {\"limit_ns\": 30000000000, \"quiet_found\": false},"
		" \"findings\": [" F("IO_PSI_STALL_HIGH") "]}",
		CLEAN, why, sizeof(why));
	cr_expect_str_eq(why, "the command's tasks stalled waiting for I/O (PSI) in 1 of 2 runs, "
			      "and the host stayed busy through the 30 s of --wait-quiet (1 of 2 "
			      "runs); run `fak bench system-check`, or wait longer");
}

Test(xp_explain, stall_duty_other_and_nothing)
{
	char why[512];

	explain(INVESTIGATE, "{\"findings\": [" F("MEMORY_PSI_STALL_HIGH") "]}", CLEAN, why,
		sizeof(why));
	cr_expect_str_eq(why, "the command's tasks stalled waiting for memory (PSI) in 1 of 2 "
			      "runs; run `fak bench system-check`, or use --wait-quiet DUR");
	explain(INVESTIGATE, "{\"findings\": [" F("COMMAND_SAMPLER_DUTY_HIGH") "]}", CLEAN, why,
		sizeof(why));
	cr_expect_str_eq(why, "fak's own sampling took more than its duty ceiling in 1 of 2 runs; "
			      "use a longer --interval");
	explain(INVESTIGATE, CLEAN, "{\"findings\": [" F("SUT_CPU_UNKNOWN") "]}", why, sizeof(why));
	cr_expect_str_eq(why, "the evidence of 1 of 2 runs is not clean (SUT_CPU_UNKNOWN: d); see "
			      "the attestations");
	explain(INVESTIGATE, CLEAN, CLEAN, why, sizeof(why));
	cr_expect_str_eq(why, "", "noise alone: the gate's own reason says it");
	explain("{\"classification\": \"pass\"}", CLEAN,
		BUSY("90", "90", F("BASELINE_HOST_CPU_HIGH")), why, sizeof(why));
	cr_expect_str_eq(why, "", "only an investigate is explained");
}

/* The host as public text: a CPU's clock "@" is not an account; what is
 * still not scrubbed text is withheld. */
Test(xp_host, text_is_public_or_withheld)
{
	char out[128];

	xp_host_text("Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", out, sizeof(out));
	cr_expect_str_eq(out, "Intel(R) Xeon(R) CPU E5-2690 v4 at 2.60GHz");
	xp_host_text("6.1.0-18-amd64", out, sizeof(out));
	cr_expect_str_eq(out, "6.1.0-18-amd64");
	xp_host_text("", out, sizeof(out));
	cr_expect_str_eq(out, "unknown");
	xp_host_text("built in /home/alice/k", out, sizeof(out));
	cr_expect_str_eq(out, "scrubbed");
	xp_host_text("a\x1b[31m", out, sizeof(out));
	cr_expect_str_eq(out, "scrubbed");
}
