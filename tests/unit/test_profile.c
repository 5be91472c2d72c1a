/* Profile bundles: every committed fixture with its exact outcome, strict
 * decoding, and every validation rule with its exact finding text. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "test_profile.h"

static struct graph g;

static void setup(void)
{
	tp_graph(&g);
}

static void teardown(void)
{
	graph_release(&g);
}

TestSuite(profile, .init = setup, .fini = teardown);

/* ---- accepted fixtures ------------------------------------------------ */

static const char launch_json[] =
	"{\n"
	"  \"schema\": \"fak-native-performance-bottleneck/v1\",\n"
	"  \"envelope_id\": \"qwen38-27b-q4km-m3pro-p32-t64\",\n"
	"  \"class\": \"launch-bound\",\n"
	"  \"confidence\": \"medium\",\n"
	"  \"evidence\": [\n"
	"    \"Metal command-buffer count is high for one decode sample\"\n"
	"  ],\n"
	"  \"recommended_lever_id\": \"metal.command-buffer-amortization\"\n"
	"}\n";

static const char cuda_json[] = "{\n"
				"  \"schema\": \"fak-native-performance-bottleneck/v1\",\n"
				"  \"envelope_id\": \"qwen38-27b-q4k-a100-p1-decode\",\n"
				"  \"class\": \"bandwidth-bound\",\n"
				"  \"confidence\": \"high\",\n"
				"  \"evidence\": [\n"
				"    \"CUDA achieved bandwidth is at least 70% while compute is "
				"below 60% of backend peak\"\n"
				"  ],\n"
				"  \"recommended_lever_id\": \"cuda.q8_1-activation-quant\"\n"
				"}\n";

static const char bandwidth_json[] =
	"{\n"
	"  \"schema\": \"fak-native-performance-bottleneck/v1\",\n"
	"  \"envelope_id\": \"qwen38-27b-q4km-m3pro-p32-t64\",\n"
	"  \"class\": \"bandwidth-bound\",\n"
	"  \"confidence\": \"medium\",\n"
	"  \"evidence\": [\n"
	"    \"Metal working set exceeds resident bytes\"\n"
	"  ],\n"
	"  \"recommended_lever_id\": \"metal.paged-kv\"\n"
	"}\n";

static const struct {
	const char *fixture, *json;
} accepted[] = {
	{ "synthetic-metal-launch-bound.json", launch_json },
	{ "synthetic-metal-attribution-unavailable.json", launch_json },
	{ "synthetic-cuda-bandwidth-bound.json", cuda_json },
	{ "synthetic-metal-bandwidth-override.json", bandwidth_json },
	/* valid and classifiable; refused only by --profile-next */
	{ "reject-profile-next-contradiction-without-override.json", bandwidth_json },
};

Test(profile, accepted_fixtures_classify_to_their_golden_json)
{
	for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		struct findings f = FINDINGS_INIT;
		struct profile p;
		struct profile_class c1, c2;
		struct err e;
		char *a, *b;

		tp_load(&p, accepted[i].fixture);
		cr_assert_eq(profile_classify(&p, &g, &f, &c1, &e), 0, "%s", accepted[i].fixture);
		cr_assert_eq(f.nr, 0);
		cr_assert_eq(profile_classify(&p, &g, &f, &c2, &e), 0);
		a = tp_json(profile_class_json(&c1));
		b = tp_json(profile_class_json(&c2));
		cr_expect_str_eq(a, accepted[i].json, "%s", accepted[i].fixture);
		cr_expect_str_eq(a, b, "%s: classification is not deterministic",
				 accepted[i].fixture);
		free(a);
		free(b);
		profile_release(&p);
	}
}

Test(profile, backend_counters_are_preserved)
{
	struct profile p;

	tp_load(&p, "synthetic-metal-launch-bound.json");
	cr_expect(p.has_metal);
	cr_expect(!p.has_cuda);
	cr_expect_eq(p.metal.command_buffers, 40);
	cr_expect_eq(p.metal.encoders, 48);
	cr_expect_eq(p.metal.dispatch_ms, 34.5);
	cr_expect_eq(p.metal.wait_ms, 4);
	cr_expect_eq(p.metal.resident_bytes, 24000000000ULL);
	cr_expect_eq(p.metal.working_set_bytes, 24000000000ULL);
	cr_expect_eq(p.nr_phases, 6);
	cr_expect_str_eq(p.phases[3].name, "steady-decode");
	cr_expect_eq(p.phases[3].start_ms, 28);
	cr_expect_eq(p.phases[3].duration_ms, 40);
	cr_expect_eq(p.nr_attributions, 2);
	cr_expect_str_eq(p.attributions[1].lever_id, "metal.command-buffer-amortization");
	cr_expect_eq(p.attributions[1].layer, 1);
	profile_release(&p);

	tp_load(&p, "synthetic-cuda-bandwidth-bound.json");
	cr_expect(p.has_cuda);
	cr_expect(!p.has_metal);
	cr_expect_eq(p.cuda.launches, 24);
	cr_expect_eq(p.cuda.occupancy_percent, 58);
	cr_expect_eq(p.cuda.achieved_bandwidth_gbs, 800);
	cr_expect_eq(p.cuda.peak_bandwidth_gbs, 1000);
	cr_expect_eq(p.cuda.achieved_compute_tflops, 18);
	cr_expect_eq(p.cuda.peak_compute_tflops, 100);
	cr_expect_eq(p.cuda.synchronization_ms, 4);
	profile_release(&p);

	tp_load(&p, "synthetic-metal-bandwidth-override.json");
	cr_expect(p.has_override);
	cr_expect_eq(p.override.issue_number, 8395);
	cr_expect_str_eq(p.override.reason, "Synthetic Metal fixture exercises an issue-backed "
					    "same-envelope graph-order override.");
	profile_release(&p);

	tp_load(&p, "synthetic-metal-attribution-unavailable.json");
	cr_expect_eq(p.nr_attributions, 0);
	cr_expect(p.has_unavailable);
	cr_expect_str_eq(p.unavailable.reason, "backend-does-not-expose-dispatch-attribution");
	profile_release(&p);
}

/* ---- rejected fixtures ------------------------------------------------ */

#define ENV_METAL "\"qwen38-27b-q4km-m3pro-p32-t64\""
#define ENV_CUDA "\"qwen38-27b-q4k-a100-p1-decode\""

static const struct {
	const char *fixture, *findings;
} rejected[] = {
	{ "reject-forward-path-envelope-mismatch.json",
	  "execution.forward_path must exactly match the selected envelope: "
	  "\"metal/other-forward-path\" is not \"metal/qwen35-hybrid-session-v1\"" },
	{ "reject-invalid-fallback-identity.json",
	  "profile requires fak-native execution identity with zero fallback (engine "
	  "\"fak-native\", "
	  "forward_path \"metal/qwen35-hybrid-session-v1\", fallback_count 1)" },
	{ "reject-invalid-native-identity.json",
	  "profile requires fak-native execution identity with zero fallback (engine "
	  "\"other-engine\", "
	  "forward_path \"metal/qwen35-hybrid-session-v1\", fallback_count 0)" },
	{ "reject-missing-attribution-state.json",
	  "dispatch attribution is required or must carry a typed unavailable reason" },
	{ "reject-missing-phase.json",
	  "profile must contain every ordered phase: expected 6, found 5" },
	{ "reject-mixed-backend-counters.json",
	  "Metal envelope " ENV_METAL
	  " requires only Metal counters: a metal block and no cuda block" },
	{ "reject-mixed-envelope-lever.json",
	  "dispatch attribution 0 mixes envelope " ENV_CUDA
	  " lever \"cuda.q8_1-activation-quant\" into " ENV_METAL "\n"
	  "dispatch attribution 1 mixes envelope " ENV_CUDA
	  " lever \"cuda.q8_1-activation-quant\" into " ENV_METAL },
	{ "reject-mixed-levers.json", "dispatch attribution 1 mixes lever \"metal.paged-kv\" with "
				      "\"metal.command-buffer-amortization\"" },
	{ "reject-negative-counter.json",
	  "Metal wait_milliseconds must be finite and non-negative, found -1" },
	{ "reject-overlapping-phases.json", "phase \"first-token\" overlaps the previous phase: it "
					    "starts at 20 ms, before the previous "
					    "phase ends at 22 ms" },
	{ "reject-unknown-lever.json",
	  "dispatch attribution 0 references unknown lever \"metal.unknown-lever\"\n"
	  "dispatch attribution 1 references unknown lever \"metal.unknown-lever\"" },
	{ "reject-time-counter-exceeds-steady-decode.json",
	  "Metal dispatch_milliseconds must not exceed the steady-decode duration: 10000000 > 40\n"
	  "Metal wait_milliseconds must not exceed the steady-decode duration: 1000000 > 40" },
	{ "reject-cuda-sync-exceeds-steady-decode.json",
	  "CUDA synchronization_milliseconds must not exceed the steady-decode duration: 40.5 > "
	  "40" },
	{ "reject-non-finite-share.json",
	  "Metal dispatch_milliseconds must not exceed the steady-decode duration: 34.5 > 1e-300\n"
	  "Metal wait_milliseconds must not exceed the steady-decode duration: 1e+300 > 1e-300\n"
	  "classifier metric metal.wait_milliseconds / steady-decode duration must be finite, "
	  "found +Inf" },
	{ "reject-unsupported-counter-comparison.json",
	  "profile counter comparisons are unsupported; preserve backend-specific counters without "
	  "cross-backend normalization" },
	{ "reject-private-detail.json",
	  "dispatch attribution unavailable detail must be present and scrubbed: an absolute path "
	  "\"/Users/alice/traces/decode.trace\"" },
};

Test(profile, rejected_fixtures_fail_validation_with_exact_findings)
{
	for (size_t i = 0; i < sizeof(rejected) / sizeof(rejected[0]); i++) {
		struct findings f = FINDINGS_INIT;
		struct profile p;
		struct profile_class c;
		struct err e = { { 0 } };

		tp_load(&p, rejected[i].fixture);
		tp_expect_findings(&p, &g, rejected[i].findings, rejected[i].fixture);
		/* an invalid bundle never gets a classification */
		cr_expect_eq(profile_classify(&p, &g, &f, &c, &e), -1, "%s", rejected[i].fixture);
		cr_expect_neq(f.nr, 0, "%s", rejected[i].fixture);
		findings_release(&f);
		profile_release(&p);
	}
}

Test(profile, rejected_fixtures_that_fail_at_decode)
{
	static const struct {
		const char *fixture, *msg;
	} cases[] = {
		{ "reject-missing-counter.json",
		  "cannot decode profile 'tests/fixtures/profiles/reject-missing-counter.json': "
		  "metal.wait_milliseconds: missing required field" },
		{ "reject-non-finite-counter.json",
		  "cannot decode profile 'tests/fixtures/profiles/reject-non-finite-counter.json': "
		  "line 44, column 34: real number overflow near '1e999'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[256];
		struct profile p;
		struct err e;

		snprintf(path, sizeof(path), TP_DIR "%s", cases[i].fixture);
		cr_expect_eq(profile_load(&p, path, &e), -1, "%s", cases[i].fixture);
		cr_expect_str_eq(e.msg, cases[i].msg);
		cr_expect_null(p.doc, "a failed decode leaves the profile released");
	}
}

/* ---- strict decoding -------------------------------------------------- */

static const char LB[] = "synthetic-metal-launch-bound.json";

static void expect_decode_error(const char *from, const char *to, const char *msg)
{
	struct profile p;
	struct err e;

	cr_expect_eq(tp_decode_edit(&p, LB, from, to, &e), -1, "%s -> %s decoded", from, to);
	cr_expect_str_eq(e.msg, msg, "%s -> %s", from, to);
}

#define DE "cannot decode profile 'synthetic-metal-launch-bound.json': "

Test(profile, strict_decode_rejects_unknown_keys_types_and_null)
{
	expect_decode_error("\"schema\"", "\"raw_private_log\": \"x\", \"schema\"",
			    DE "raw_private_log: unknown field");
	expect_decode_error("\"encoders\"", "\"Encoders\": 1, \"encoders\"",
			    DE "metal.Encoders: unknown field");
	expect_decode_error("\"count\": 20\n    },\n    {",
			    "\"count\": 20, \"extra\": 1\n    },\n    {",
			    DE "attributions[0].extra: unknown field");
	expect_decode_error("\"fallback_count\": 0", "\"fallback_count\": null",
			    DE "execution.fallback_count: expected an integer, found null");
	expect_decode_error("\"fallback_count\": 0", "\"fallback_count\": 0.0",
			    DE "execution.fallback_count: expected an integer, found a fractional "
			       "number");
	expect_decode_error("\"command_buffers\": 40", "\"command_buffers\": 4e1",
			    DE "metal.command_buffers: expected an integer, found a fractional "
			       "number");
	expect_decode_error("\"command_buffers\": 40", "\"command_buffers\": \"40\"",
			    DE "metal.command_buffers: expected an integer, found a string");
	expect_decode_error("\"wait_milliseconds\": 4", "\"wait_milliseconds\": null",
			    DE "metal.wait_milliseconds: expected a number, found null");
	expect_decode_error("\"resident_bytes\": 24000000000", "\"resident_bytes\": -1",
			    DE "metal.resident_bytes: expected a non-negative integer, found -1");
	expect_decode_error("\"working_set_bytes\": 24000000000", "\"working_set_bytes\": 24e9",
			    DE "metal.working_set_bytes: expected an integer, found a fractional "
			       "number");
	expect_decode_error("\"schema\": \"fak-native-performance-profile/v1\",", "",
			    DE "schema: missing required field");
	expect_decode_error("\"execution\": {", "\"execution\": null, \"x\": {",
			    DE "x: unknown field");
	expect_decode_error("\"name\": \"load-setup\",", "",
			    DE "phases[0].name: missing required field");
	expect_decode_error("\"phases\": [", "\"phases\": [1, ",
			    DE "phases[0]: expected an object, found an integer");
	expect_decode_error("\"attributions\": [", "\"attribution_unavailable\": null, "
						   "\"attributions\": [",
			    DE "attribution_unavailable: expected an object, found null");
	expect_decode_error("\"attributions\": [", "\"counter_comparisons\": [{\"left_backend\": "
						   "\"metal\"}], \"attributions\": [",
			    DE "counter_comparisons[0].left_counter: missing required field");
	expect_decode_error("\"attributions\": [", "\"selection_override\": {\"issue_number\": 1}, "
			    "\"attributions\": [",
			    DE "selection_override.reason: missing required field");
	expect_decode_error("\"encoders\": 48", "\"encoders\": 9223372036854775808",
			    DE "line 43, column 35: too big integer near '9223372036854775808'");
	expect_decode_error("\"schema\"", "\"schema\": 1, \"schema\"",
			    DE "line 2, column 23: duplicate object key near '\"schema\"'");
}

Test(profile, strict_decode_rejects_non_objects_and_trailing_values)
{
	struct strbuf twice = STRBUF_INIT;
	struct profile p;
	struct err e;
	struct err re;

	cr_assert_eq(file_read(TP_DIR "synthetic-metal-launch-bound.json", PROFILE_MAX_BYTES,
			       &twice, &re),
		     0);
	sb_add(&twice, twice.buf, twice.len);
	cr_expect_eq(profile_parse(&p, twice.buf, twice.len, "twice", &e), -1);
	cr_expect_str_eq(e.msg, "cannot decode profile 'twice': line 64, column 1: end of file "
				"expected near '{'");
	sb_release(&twice);

	cr_expect_eq(profile_parse(&p, "", 0, "empty", &e), -1);
	cr_expect_str_eq(e.msg, "cannot decode profile 'empty': line 1, column 0: '[' or '{' "
				"expected near end of file");
	cr_expect_eq(profile_parse(&p, "[]", 2, "array", &e), -1);
	cr_expect_str_eq(e.msg, "cannot decode profile 'array': $: expected an object, found an "
				"array");
}

Test(profile, load_refuses_unreadable_and_oversized_files)
{
	char path[] = "/tmp/fak-profile-XXXXXX";
	int fd = mkstemp(path);
	struct profile p;
	struct err e;
	char *big;

	cr_assert_geq(fd, 0);
	big = xmalloc(PROFILE_MAX_BYTES + 1);
	memset(big, ' ', PROFILE_MAX_BYTES + 1);
	cr_assert_eq(write(fd, big, PROFILE_MAX_BYTES + 1), (ssize_t)PROFILE_MAX_BYTES + 1);
	close(fd);
	free(big);
	cr_expect_eq(profile_load(&p, path, &e), -1);
	cr_expect(strstr(e.msg, "larger than the 4194304-byte limit"), "%s", e.msg);
	unlink(path);

	cr_expect_eq(profile_load(&p, TP_DIR "no-such-profile.json", &e), -1);
	cr_expect_str_eq(e.msg,
			 "cannot read '" TP_DIR "no-such-profile.json': No such file or directory");
}

/* ---- envelope binding and identity ------------------------------------ */

Test(profile, schema_and_envelope_binding)
{
	struct profile p;

	tp_load(&p, LB);
	p.schema = "fak-native-performance-profile/v2";
	tp_expect_findings(&p, &g,
			   "schema must be \"fak-native-performance-profile/v1\", found "
			   "\"fak-native-performance-profile/v2\"",
			   "schema");
	p.schema = PROFILE_SCHEMA;

	/* an unknown envelope skips the forward-path and counter checks */
	p.envelope_id = "qwen38-other";
	p.metal.wait_ms = -1;
	tp_expect_findings(&p, &g,
			   "dispatch attribution 0 mixes envelope " ENV_METAL
			   " lever \"metal.command-buffer-amortization\" into \"qwen38-other\"\n"
			   "dispatch attribution 1 mixes envelope " ENV_METAL
			   " lever \"metal.command-buffer-amortization\" into \"qwen38-other\"\n"
			   "profile references unknown envelope \"qwen38-other\"",
			   "unknown envelope");
	profile_release(&p);
}

Test(profile, identity_and_forward_path)
{
	struct profile p;

	tp_load(&p, LB);
	p.execution.forward_path = " \t";
	tp_expect_findings(&p, &g,
			   "execution.forward_path must exactly match the selected envelope: \" "
			   "\\t\" is "
			   "not \"metal/qwen35-hybrid-session-v1\"\n"
			   "profile requires fak-native execution identity with zero fallback "
			   "(engine \"fak-native\", forward_path \" \\t\", fallback_count 0)",
			   "blank forward path gives both findings");
	p.execution.forward_path = "metal/qwen35-hybrid-session-v1";
	p.execution.engine = "FAK-NATIVE";
	p.execution.fallback_count = -1;
	tp_expect_findings(&p, &g,
			   "profile requires fak-native execution identity with zero fallback "
			   "(engine \"FAK-NATIVE\", forward_path "
			   "\"metal/qwen35-hybrid-session-v1\", fallback_count -1)",
			   "identity is one finding, case-sensitive");
	profile_release(&p);

	/* the forward path of the other envelope does not match */
	tp_load(&p, "synthetic-cuda-bandwidth-bound.json");
	p.execution.forward_path = "metal/qwen35-hybrid-session-v1";
	tp_expect_findings(&p, &g,
			   "execution.forward_path must exactly match the selected envelope: "
			   "\"metal/qwen35-hybrid-session-v1\" is not \"cuda/q4k-p1-decode\"",
			   "cross-envelope forward path");
	profile_release(&p);
}

/* ---- phases ----------------------------------------------------------- */

Test(profile, phase_numbers)
{
	static const struct {
		double start, duration;
		const char *want;
	} cases[] = {
		{ NAN, 12,
		  "phase \"load-setup\" start must be finite and non-negative, found NaN" },
		{ INFINITY, 12,
		  "phase \"load-setup\" start must be finite and non-negative, found +Inf" },
		{ -1, 12, "phase \"load-setup\" start must be finite and non-negative, found -1" },
		{ 0, NAN, "phase \"load-setup\" duration must be finite and positive, found NaN" },
		{ 0, INFINITY,
		  "phase \"load-setup\" duration must be finite and positive, found +Inf" },
		{ 0, 0, "phase \"load-setup\" duration must be finite and positive, found 0" },
		{ 0, -1, "phase \"load-setup\" duration must be finite and positive, found -1" },
		{ DBL_MAX, DBL_MAX, "phase \"load-setup\" end must be finite" },
	};
	struct profile p;

	tp_load(&p, LB);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p.phases[0].start_ms = cases[i].start;
		p.phases[0].duration_ms = cases[i].duration;
		tp_expect_findings(&p, &g, cases[i].want, cases[i].want);
	}
	p.phases[0].start_ms = 0;
	p.phases[0].duration_ms = 12;
	p.phases[1].start_ms = 1;
	tp_expect_findings(&p, &g,
			   "phase \"prefill\" overlaps the previous phase: it starts at 1 ms, "
			   "before the previous phase ends at 12 ms", "overlap");
	/* a non-finite phase does not move the running end: the next phase is
	 * compared with the last finite one */
	p.phases[1].start_ms = NAN;
	p.phases[2].start_ms = 11.5;
	tp_expect_findings(&p, &g,
			   "phase \"first-token\" overlaps the previous phase: it starts at 11.5 "
			   "ms, before the previous phase ends at 12 ms\n"
			   "phase \"prefill\" start must be finite and non-negative, found NaN",
			   "running end after a non-finite phase");
	profile_release(&p);
}

Test(profile, phase_end_overflow_from_json)
{
	struct profile p;
	struct err e;

	cr_assert_eq(tp_decode_edit(&p, LB, "\"start_milliseconds\": 73,\n"
					    "      \"duration_milliseconds\": 3",
				    "\"start_milliseconds\": 1e308,\n"
				    "      \"duration_milliseconds\": 1e308",
				    &e),
		     0, "%s", e.msg);
	tp_expect_findings(&p, &g, "phase \"teardown\" end must be finite", "overflow");
	profile_release(&p);
}

Test(profile, phases_touching_and_gaps_are_allowed_order_is_not)
{
	struct profile p;

	tp_load(&p, LB);
	p.phases[4].start_ms = 100;	/* gap after steady-decode */
	p.phases[5].start_ms = 105;	/* touches verification's end */
	tp_expect_findings(&p, &g, "", "gap and touching");
	p.phases[1].name = "first-token";
	p.phases[2].name = "prefill";
	tp_expect_findings(&p, &g,
			   "profile phases are missing or out of order: phases[1] is "
			   "\"first-token\", expected \"prefill\"\n"
			   "profile phases are missing or out of order: phases[2] is \"prefill\", "
			   "expected \"first-token\"",
			   "swapped names");
	p.phases[1].name = "pre\nfill\"";
	p.phases[2].name = "first-token";
	p.phases[1].start_ms = -0.5;
	tp_expect_findings(&p, &g,
			   "phase \"pre\\nfill\\\"\" overlaps the previous phase: it starts at "
			   "-0.5 ms, before the previous phase ends at 12 ms\n"
			   "phase \"pre\\nfill\\\"\" start must be finite and non-negative, found "
			   "-0.5\n"
			   "profile phases are missing or out of order: phases[1] is "
			   "\"pre\\nfill\\\"\", expected \"prefill\"",
			   "names are quoted and escaped; a negative start is still checked for "
			   "overlap");
	profile_release(&p);
}

Test(profile, too_many_phases)
{
	struct profile p;
	struct err e;

	cr_assert_eq(tp_decode_edit(&p, LB, "\"phases\": [",
				    "\"phases\": [{\"name\": \"warmup\", \"start_milliseconds\": "
				    "0, \"duration_milliseconds\": 1},",
				    &e),
		     0, "%s", e.msg);
	tp_expect_findings(&p, &g, "profile must contain every ordered phase: expected 6, found 7",
			   "7");
	profile_release(&p);
}

/* ---- counters --------------------------------------------------------- */

Test(profile, metal_counter_domains)
{
	struct profile p;

	tp_load(&p, LB);
	p.metal.command_buffers = 0;
	p.metal.encoders = -1;
	p.metal.dispatch_ms = 0;
	p.metal.wait_ms = -1;
	p.metal.resident_bytes = 0;
	p.metal.working_set_bytes = 0;
	tp_expect_findings(&p, &g,
			   "Metal command_buffers must be positive, found 0\n"
			   "Metal dispatch_milliseconds must be finite and positive, found 0\n"
			   "Metal encoders must be positive, found -1\n"
			   "Metal resident_bytes must be positive, found 0\n"
			   "Metal wait_milliseconds must be finite and non-negative, found -1\n"
			   "Metal working_set_bytes must be positive, found 0",
			   "all six");
	profile_release(&p);

	tp_load(&p, LB);
	p.metal.dispatch_ms = NAN;
	p.metal.wait_ms = INFINITY;
	tp_expect_findings(&p, &g,
			   "Metal dispatch_milliseconds must be finite and positive, found NaN\n"
			   "Metal wait_milliseconds must be finite and non-negative, found +Inf",
			   "NaN, +Inf");
	p.metal.dispatch_ms = INFINITY;
	p.metal.wait_ms = NAN;
	tp_expect_findings(&p, &g,
			   "Metal dispatch_milliseconds must be finite and positive, found +Inf\n"
			   "Metal wait_milliseconds must be finite and non-negative, found NaN",
			   "+Inf, NaN");
	p.metal.dispatch_ms = 1e-300;
	p.metal.wait_ms = 0;
	tp_expect_findings(&p, &g, "", "smallest positive dispatch and zero wait are valid");
	profile_release(&p);
}

Test(profile, time_counters_fit_in_steady_decode)
{
	struct profile p;

	tp_load(&p, LB);
	/* D = 40: a time counter may fill the whole phase, not more */
	p.metal.wait_ms = 40;
	p.metal.dispatch_ms = 40;
	tp_expect_findings(&p, &g, "", "wait and dispatch equal to steady decode");
	p.metal.wait_ms = nextafter(40, 41);
	tp_expect_findings(&p, &g,
			   "Metal wait_milliseconds must not exceed the steady-decode duration: "
			   "40.00000000000001 > 40",
			   "wait just above steady decode");
	/* a counter outside its domain is reported once, without the bound */
	p.metal.wait_ms = INFINITY;
	tp_expect_findings(&p, &g,
			   "Metal wait_milliseconds must be finite and non-negative, found +Inf",
			   "infinite wait");
	/* so is a steady-decode phase outside its domain */
	p.metal.wait_ms = 4;
	p.phases[3].duration_ms = 0;
	tp_expect_findings(&p, &g,
			   "phase \"steady-decode\" duration must be finite and positive, found 0",
			   "zero steady decode");
	profile_release(&p);

	tp_load(&p, "synthetic-cuda-bandwidth-bound.json");
	p.cuda.synchronization_ms = 40;
	tp_expect_findings(&p, &g, "", "sync equal to steady decode");
	p.cuda.synchronization_ms = nextafter(40, 41);
	tp_expect_findings(&p, &g,
			   "CUDA synchronization_milliseconds must not exceed the steady-decode "
			   "duration: 40.00000000000001 > 40",
			   "sync just above steady decode");
	profile_release(&p);
}

Test(profile, cuda_counter_domains)
{
	static const struct {
		int field;
		double v;
		const char *want;
	} cases[] = {
		{ 0, -1, "CUDA occupancy_percent must be finite and between 0 and 100, found -1" },
		{ 0, 101,
		  "CUDA occupancy_percent must be finite and between 0 and 100, found 101" },
		{ 0, NAN,
		  "CUDA occupancy_percent must be finite and between 0 and 100, found NaN" },
		{ 0, INFINITY,
		  "CUDA occupancy_percent must be finite and between 0 and 100, found +Inf" },
		{ 1, -1, "CUDA achieved_bandwidth_gbs must be finite and non-negative, found -1" },
		{ 1, NAN,
		  "CUDA achieved_bandwidth_gbs must be finite and non-negative, found NaN" },
		{ 1, INFINITY,
		  "CUDA achieved_bandwidth_gbs must be finite and non-negative, found +Inf" },
		{ 1, 1001,
		  "CUDA achieved_bandwidth_gbs must not exceed peak_bandwidth_gbs: 1001 > 1000" },
		/* no cross-check against a peak that is not positive */
		{ 2, 0, "CUDA peak_bandwidth_gbs must be finite and positive, found 0" },
		{ 2, -1, "CUDA peak_bandwidth_gbs must be finite and positive, found -1" },
		{ 2, NAN, "CUDA peak_bandwidth_gbs must be finite and positive, found NaN" },
		{ 2, INFINITY, "CUDA peak_bandwidth_gbs must be finite and positive, found +Inf" },
		{ 3, -1, "CUDA achieved_compute_tflops must be finite and non-negative, found -1" },
		{ 3, NAN,
		  "CUDA achieved_compute_tflops must be finite and non-negative, found NaN" },
		{ 3, INFINITY,
		  "CUDA achieved_compute_tflops must be finite and non-negative, found +Inf" },
		{ 3, 101,
		  "CUDA achieved_compute_tflops must not exceed peak_compute_tflops: 101 > 100" },
		{ 4, 0, "CUDA peak_compute_tflops must be finite and positive, found 0" },
		{ 4, -1, "CUDA peak_compute_tflops must be finite and positive, found -1" },
		{ 4, NAN, "CUDA peak_compute_tflops must be finite and positive, found NaN" },
		{ 4, INFINITY, "CUDA peak_compute_tflops must be finite and positive, found +Inf" },
		{ 5, -1,
		  "CUDA synchronization_milliseconds must be finite and non-negative, found -1" },
		{ 5, NAN,
		  "CUDA synchronization_milliseconds must be finite and non-negative, found NaN" },
		{ 5, INFINITY,
		  "CUDA synchronization_milliseconds must be finite and non-negative, found +Inf" },
		/* edges that are valid */
		{ 0, 0, "" },
		{ 0, 100, "" },
		{ 1, 0, "" },
		{ 1, 1000, "" },
		{ 3, 100, "" },
		{ 5, 0, "" },
	};
	struct profile p;

	tp_load(&p, "synthetic-cuda-bandwidth-bound.json");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct profile_cuda saved = p.cuda;
		double *const fields[] = {
			&p.cuda.occupancy_percent, &p.cuda.achieved_bandwidth_gbs,
			&p.cuda.peak_bandwidth_gbs, &p.cuda.achieved_compute_tflops,
			&p.cuda.peak_compute_tflops, &p.cuda.synchronization_ms,
		};

		*fields[cases[i].field] = cases[i].v;
		tp_expect_findings(&p, &g, cases[i].want, cases[i].want);
		p.cuda = saved;
	}
	p.cuda.launches = 0;
	tp_expect_findings(&p, &g, "CUDA launches must be positive, found 0", "launches");
	profile_release(&p);
}

Test(profile, counter_block_must_be_the_envelope_backend)
{
	struct profile p;

	/* CUDA envelope with a metal block (no cuda block) */
	tp_load(&p, "synthetic-cuda-bandwidth-bound.json");
	p.has_cuda = false;
	p.has_metal = true;
	p.metal.wait_ms = -1;	/* not checked: the block is the wrong one */
	tp_expect_findings(&p, &g,
			   "CUDA envelope " ENV_CUDA
			   " requires only CUDA counters: a cuda block and no metal block",
			   "metal block in a CUDA envelope");
	p.has_cuda = true;
	tp_expect_findings(&p, &g,
			   "CUDA envelope " ENV_CUDA
			   " requires only CUDA counters: a cuda block and no metal block",
			   "both blocks");
	p.has_metal = false;
	p.has_cuda = false;
	tp_expect_findings(&p, &g,
			   "CUDA envelope " ENV_CUDA
			   " requires only CUDA counters: a cuda block and no metal block",
			   "no block: a missing counter block is never read as zeros");
	profile_release(&p);

	tp_load(&p, LB);
	p.has_metal = false;
	tp_expect_findings(&p, &g,
			   "Metal envelope " ENV_METAL
			   " requires only Metal counters: a metal block and no cuda block",
			   "no metal block");
	profile_release(&p);
}

Test(profile, unsupported_envelope_backend)
{
	struct profile p;
	struct envelope *env =
		(struct envelope *)(uintptr_t)graph_envelope(&g, "qwen38-27b-q4km-m3pro-p32-t64");

	env->backend = "vulkan";
	tp_load(&p, LB);
	tp_expect_findings(&p, &g,
			   "profile classification supports only metal and cuda envelopes; "
			   "envelope " ENV_METAL " has backend \"vulkan\"", "vulkan");
	profile_release(&p);
}

/* ---- attribution ------------------------------------------------------ */

Test(profile, attribution_unavailable_state)
{
	struct profile p;

	tp_load(&p, "synthetic-metal-attribution-unavailable.json");
	tp_expect_findings(&p, &g, "", "valid as committed");
	p.unavailable.reason = "capture-tool-does-not-export-dispatch-attribution";
	tp_expect_findings(&p, &g, "", "second closed reason");
	p.unavailable.reason = "not-sure";
	tp_expect_findings(&p, &g,
			   "dispatch attribution unavailable reason \"not-sure\" is unknown",
			   "unknown reason");
	p.unavailable.reason = "backend-does-not-expose-dispatch-attribution";
	{
		/* blank: the rule alone; unscrubbed: the rule and what broke it */
		static const struct {
			const char *detail, *why;
		} bad[] = {
			{ "", "" },
			{ "  ", "" },
			{ "\xe2\x80\x83", "" },
			{ "/srv/capture.log", ": an absolute path \"/srv/capture.log\"" },
			{ "see C:\\traces", ": a backslash (a Windows path or an escape)" },
			{ "ran on /Users/someone/x", ": an absolute path \"/Users/someone/x\"" },
			{ "ran on x/HOME/y", ": a home folder \"x/HOME/y\"" },
			{ "user@host", ": an account or e-mail address \"user@host\"" },
			{ "via SSH host", ": a remote login \"SSH\"" },
			{ "export ../../traces", ": a '..' path escape \"../../traces\"" },
			{ "node 10.1.2.3", ": an IP address \"10.1.2.3\"" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char want[256];

			snprintf(want, sizeof(want),
				 "dispatch attribution unavailable detail must be present and "
				 "scrubbed%s",
				 bad[i].why);
			p.unavailable.detail = bad[i].detail;
			tp_expect_findings(&p, &g, want, bad[i].detail);
		}
	}
	p.unavailable.detail = "relative/path is fine; sshd is not a host";
	tp_expect_findings(&p, &g, "", "scrubbed detail");
	profile_release(&p);
}

Test(profile, attribution_names_are_scrubbed)
{
	struct profile p;

	tp_load(&p, LB);
	p.attributions[0].name = "/home/alice/kernels.metal:q4k";
	tp_expect_findings(&p, &g,
			   "dispatch attribution 0 name contains a private detail: an absolute "
			   "path \"/home/alice/kernels.metal:q4k\"", "private kernel name");
	p.attributions[0].name = "kernel_mul_mv_q4_K_f32";
	tp_expect_findings(&p, &g, "", "kernel name");
	profile_release(&p);
}

Test(profile, attribution_cannot_be_both_or_neither)
{
	struct profile p;

	tp_load(&p, LB);
	p.has_unavailable = true;
	p.unavailable.reason = "not-checked";
	p.unavailable.detail = "";
	p.attributions[0].lever_id = "metal.unknown-lever";	/* records are not checked either */
	tp_expect_findings(&p, &g, "dispatch attribution cannot be both available and unavailable",
			   "both");
	profile_release(&p);

	/* an empty array is the same as no records */
	{
		struct err e;

		cr_assert_eq(tp_decode_edit(&p, "reject-missing-attribution-state.json",
					    "\"metal\"", "\"attributions\": [], \"metal\"", &e),
			     0, "%s", e.msg);
		tp_expect_findings(&p, &g,
				   "dispatch attribution is required or must carry a typed "
				   "unavailable reason", "empty records");
		profile_release(&p);
	}
}

Test(profile, attribution_records)
{
	struct profile p;

	tp_load(&p, LB);
	p.attributions[0].name = " ";
	p.attributions[1].layer = -1;
	p.attributions[1].count = 0;
	tp_expect_findings(&p, &g,
			   "dispatch attribution 0 is incomplete: name must not be blank, layer "
			   "must be non-negative, count must be positive (name \" \", layer 0, "
			   "count 20)\n"
			   "dispatch attribution 1 is incomplete: name must not be blank, layer "
			   "must be non-negative, count must be positive (name \"q4k-projection\", "
			   "layer -1, count 0)", "incomplete");
	profile_release(&p);

	tp_load(&p, LB);
	p.attributions[1].layer = 0;
	tp_expect_findings(&p, &g,
			   "dispatch attribution 1 duplicates name/layer/lever identity (name "
			   "\"q4k-projection\", layer 0, lever "
			   "\"metal.command-buffer-amortization\")", "duplicate");
	/* same name and layer with another lever is a mixed lever, not a duplicate */
	p.attributions[1].lever_id = "metal.paged-kv";
	tp_expect_findings(&p, &g,
			   "dispatch attribution 1 mixes lever \"metal.paged-kv\" with "
			   "\"metal.command-buffer-amortization\"",
			   "mixed, not duplicate");
	/* a record may name another lever of the envelope than the one the
	 * classifier recommends, and an unknown lever also mixes */
	p.attributions[0].lever_id = "metal.paged-kv";
	p.attributions[1].lever_id = "metal.nope";
	tp_expect_findings(&p, &g,
			   "dispatch attribution 1 mixes lever \"metal.nope\" with "
			   "\"metal.paged-kv\"\n"
			   "dispatch attribution 1 references unknown lever \"metal.nope\"",
			   "unknown and mixed");
	profile_release(&p);
}

/* ---- counter comparisons and overrides -------------------------------- */

Test(profile, selection_override_rules)
{
	static const struct {
		long long issue;
		const char *reason;
		bool ok;
	} cases[] = {
		{ 8395, "issue-backed reason", true },
		{ 1, "x", true },
		{ 0, "issue-backed reason", false },
		{ -8395, "issue-backed reason", false },
		{ 8395, "", false },
		{ 8395, "\t\n", false },
		{ 8395, "see /home/someone/notes", false },
		{ 8395, "ask someone@example", false },
		{ 8395, "https://github.com/anthony-chaudhary/fak/issues/8395", true },
		{ 8395, "https://tracker.example/8395", false },
	};
	static const char *const why[] = {
		[6] = ": an absolute path \"/home/someone/notes\"",
		[7] = ": an account or e-mail address \"someone@example\"",
		[9] = ": a URL other than the project's public links "
		      "\"https://tracker.example/8395\"",
	};
	struct profile p;

	tp_load(&p, "synthetic-metal-bandwidth-override.json");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[256];

		snprintf(want, sizeof(want),
			 "selection override requires a positive issue number and scrubbed "
			 "issue-backed reason%s",
			 i < sizeof(why) / sizeof(why[0]) && why[i] ? why[i] : "");
		p.override.issue_number = cases[i].issue;
		p.override.reason = cases[i].reason;
		tp_expect_findings(&p, &g, cases[i].ok ? "" : want, cases[i].reason);
	}
	profile_release(&p);
}

Test(profile, counter_comparisons_are_rejected_even_within_one_backend)
{
	struct profile p;
	struct err e;

	cr_assert_eq(tp_decode_edit(&p, LB, "\"attributions\": [",
				    "\"counter_comparisons\": [{\"left_backend\": \"metal\", "
				    "\"left_counter\": \"wait_milliseconds\", \"right_backend\": "
				    "\"metal\", \"right_counter\": \"dispatch_milliseconds\"}], "
				    "\"attributions\": [",
				    &e),
		     0, "%s", e.msg);
	tp_expect_findings(&p, &g,
			   "profile counter comparisons are unsupported; preserve backend-specific "
			   "counters without cross-backend normalization",
			   "same-backend comparison");
	profile_release(&p);

	cr_assert_eq(tp_decode_edit(&p, LB, "\"attributions\": [",
				    "\"counter_comparisons\": [], \"attributions\": [", &e),
		     0, "%s", e.msg);
	tp_expect_findings(&p, &g, "", "an empty list is nothing to reject");
	profile_release(&p);
}

Test(profile, findings_are_collected_and_sorted)
{
	struct profile p;

	tp_load(&p, LB);
	p.schema = "x";
	p.execution.fallback_count = 2;
	p.metal.encoders = 0;
	p.nr_counter_comparisons = 1;
	p.has_override = true;
	p.override.issue_number = 0;
	p.override.reason = "r";
	p.attributions[1].lever_id = "metal.paged-kv";
	tp_expect_findings(&p, &g,
			   "Metal encoders must be positive, found 0\n"
			   "dispatch attribution 1 mixes lever \"metal.paged-kv\" with "
			   "\"metal.command-buffer-amortization\"\n"
			   "profile counter comparisons are unsupported; preserve backend-specific "
			   "counters without cross-backend normalization\n"
			   "profile requires fak-native execution identity with zero fallback "
			   "(engine \"fak-native\", forward_path "
			   "\"metal/qwen35-hybrid-session-v1\", fallback_count 2)\n"
			   "schema must be \"fak-native-performance-profile/v1\", found \"x\"\n"
			   "selection override requires a positive issue number and scrubbed "
			   "issue-backed reason", "byte-wise order");
	profile_release(&p);
}
