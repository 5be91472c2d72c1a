/* receipt/: strict decode, validation (every reject fixture with its exact
 * findings), private/scrubbed detection, criterion digests, template,
 * comparison, statistics. Attachment tests live in test_receipt_attach.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "base/text.h"
#include "receipt/receipt.h"
#include "stats/stats.h"
#include "test_receipt_util.h"

#define FIX "tests/fixtures/receipts/"

/* RFC 8785 digests of the committed criteria, computed independently with the
 * npm package `canonicalize` (2.x) and Node's SHA-256 over the objects in
 * data/native-performance-graph.json. */
#define METAL_DIGEST "sha256:98378807e72e28eeea1f1565f0d3b31ed9706576bb5a7f3fef1bafa804e622e6"
#define CUDA_DIGEST "sha256:c6238b78a81b3ef8b07769046ee241620154c7a48b4e34e42f85d6225555a62d"
#define METAL_ENV "qwen38-27b-q4km-m3pro-p32-t64"
#define CUDA_ENV "qwen38-27b-q4k-a100-p1-decode"

static void load(struct receipt *r, const char *path)
{
	struct err e;

	cr_assert_eq(receipt_load(r, path, &e), 0, "%s", e.msg);
}

static char *validate_joined(const char *path)
{
	json_t *doc = tu_json(path);
	char *s = tu_validate(doc);

	json_decref(doc);
	return s;
}

/* ---- criterion ---------------------------------------------------------- */

Test(criterion, digests_match_an_independent_jcs_implementation)
{
	struct graph g;
	char d[JSON_DIGEST_LEN + 1];
	struct err e;

	tu_graph(&g);
	cr_assert_eq(graph_criterion_digest(graph_criterion(&g, METAL_ENV), d, &e), 0, "%s", e.msg);
	cr_expect_str_eq(d, METAL_DIGEST);
	cr_assert_eq(graph_criterion_digest(graph_criterion(&g, CUDA_ENV), d, &e), 0, "%s", e.msg);
	cr_expect_str_eq(d, CUDA_DIGEST);
	graph_release(&g);
}

Test(criterion, any_changed_bound_changes_the_digest)
{
	struct graph g;
	char a[JSON_DIGEST_LEN + 1], b[JSON_DIGEST_LEN + 1];
	struct err e;
	json_t *c;

	tu_graph(&g);
	c = graph_criterion_json(graph_criterion(&g, METAL_ENV));
	cr_assert_eq(json_digest(c, NULL, a, &e), 0);
	cr_expect_str_eq(a, METAL_DIGEST);
	tu_set(c, "minimum_quality_score", json_real(0.99));
	cr_assert_eq(json_digest(c, NULL, b, &e), 0);
	cr_expect_str_neq(a, b);
	json_decref(c);
	graph_release(&g);
}

Test(criterion, resolution_names_every_drifted_axis)
{
	struct graph g;
	struct receipt r;
	struct findings f = FINDINGS_INIT;
	char *s;

	tu_graph(&g);
	load(&r, FIX "metal-baseline.json");
	cr_expect_not_null(receipt_criterion(&r, &g, NULL));
	r.controls.batch = 2;
	r.controls.temperature = 0.5;
	r.quality.name = "bleu";
	cr_expect_null(receipt_criterion(&r, &g, &f));
	s = tu_join(&f);
	cr_expect_str_eq(s, "comparison: criterion not resolved: controls.batch must be 1\n"
			    "comparison: criterion not resolved: controls.temperature must be 0\n"
			    "comparison: criterion not resolved: quality.name must be "
			    "\"exact_match\"");
	free(s);
	findings_release(&f);
	receipt_release(&r);
	graph_release(&g);
}

Test(criterion, warmups_and_platform_come_from_the_envelope)
{
	struct graph g;
	struct receipt r;
	struct findings f = FINDINGS_INIT;
	struct err e;
	json_t *t;
	char *s;

	tu_graph(&g);
	g.envelopes[0].warmups = 2;
	g.envelopes[0].platform = "darwin/arm64+m3pro";
	t = receipt_template(&g, "metal.command-buffer-amortization", &e);
	cr_assert_not_null(t, "%s", e.msg);
	cr_expect_eq(json_integer_value(tu_get(t, "controls.warmups")), 2);
	cr_expect_str_eq(json_string_value(tu_get(t, "machine.platform")), "darwin/arm64+m3pro");
	json_decref(t);
	/* a receipt that ran one warm-up does not resolve the criterion */
	load(&r, FIX "metal-baseline.json");
	cr_expect_null(receipt_criterion(&r, &g, &f));
	s = tu_join(&f);
	cr_expect_str_eq(s, "comparison: criterion not resolved: controls.warmups must be 2");
	free(s);
	findings_release(&f);
	r.controls.warmups = 2;
	cr_expect_not_null(receipt_criterion(&r, &g, NULL));
	receipt_release(&r);
	graph_release(&g);
}

/* ---- valid receipts ------------------------------------------------------ */

Test(receipt, valid_fixtures_validate_and_round_trip_byte_for_byte)
{
	static const char *const files[] = {
		FIX "metal-baseline.json", FIX "metal-candidate.json", FIX "cuda-baseline.json",
		FIX "cuda-candidate.json", FIX "v1-metal-baseline.json",
		FIX "v1-metal-candidate.json",
		FIX "v1-metal-baseline-identity.json",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
		struct receipt r;
		struct err e;
		char *s = validate_joined(files[i]);
		json_t *v;

		cr_expect(!*s, "%s: %s", files[i], s);
		free(s);
		cr_assert_eq(file_read(files[i], 1 << 20, &raw, &e), 0);
		load(&r, files[i]);
		v = receipt_to_json(&r);
		json_write_pretty(&out, v);
		json_decref(v);
		/* v1 receipts without an identity gain the all-zero object */
		if (strstr(files[i], "v1-metal-baseline.json") ||
		    strstr(files[i], "v1-metal-candidate"))
			cr_expect(strstr(out.buf, "\"criterion_version\": 0") != NULL);
		else
			cr_expect_str_eq(out.buf, raw.buf, "%s does not round-trip", files[i]);
		receipt_release(&r);
		sb_release(&raw);
		sb_release(&out);
	}
}

Test(receipt, envelope_and_lever_survive_decoding)
{
	struct receipt r;

	load(&r, FIX "cuda-candidate.json");
	cr_expect_str_eq(r.envelope_id, CUDA_ENV);
	cr_expect_str_eq(r.changed_lever_id, "cuda.q8_1-activation-quant");
	cr_expect_eq(r.nr_reps, 3);
	cr_expect_eq(r.reps[1].tokens_per_second, 101);
	cr_expect_str_eq(r.comparison.criterion_digest, CUDA_DIGEST);
	receipt_release(&r);
}

/* ---- every rejection with its exact findings ------------------------------ */

static const struct {
	const char *file, *findings;
} rejects[] = {
	{ "reject-missing-repetition.json",
	  "repetitions: 2 repetitions do not match controls.repetitions 3" },
	{ "reject-platform-mismatch.json",
	  "machine: platform/backend \"linux/amd64+nvidia-a100\"/\"metal\" does not match envelope "
	  "\"qwen38-27b-q4km-m3pro-p32-t64\" (\"darwin/arm64\"/\"metal\")" },
	{ "reject-backend-mismatch.json",
	  "machine: platform/backend \"darwin/arm64\"/\"cuda\" does not match envelope "
	  "\"qwen38-27b-q4km-m3pro-p32-t64\" (\"darwin/arm64\"/\"metal\")" },
	{ "reject-artifact-mismatch.json",
	  "artifact_sha256: does not match the artifact of envelope "
	  "\"qwen38-27b-q4km-m3pro-p32-t64\"\n"
	  "comparison: criterion not resolved: artifact_sha256 must be the envelope artifact "
	  "\"7e78da5d7e3ae28d178121f58646953305f3e5bd3cb46f4a75584e8b6c6fe169\"" },
	{ "reject-unchanged-incomplete.json",
	  "unchanged_controls: must contain the complete canonical control list "
	  "exactly once each" },
	{ "reject-unchanged-duplicate.json",
	  "unchanged_controls: must contain the complete canonical control list "
	  "exactly once each" },
	{ "reject-no-modules.json", "module_versions: at least one module revision is required" },
	{ "reject-duplicate-module.json",
	  "module_versions[2]: module \"internal/model\" is listed twice" },
	{ "reject-no-commands.json", "commands: at least one scrubbed command is required" },
	{ "reject-no-artifacts.json",
	  "profiler_artifacts: at least one profiler artifact is required" },
	{ "reject-bad-artifact-sha.json",
	  "profiler_artifacts[0].sha256: must be 64 lowercase hex digits" },
	{ "reject-invalid-role.json", "role: must be baseline or candidate, got \"observer\"" },
	{ "reject-blank-engine.json",
	  "comparison: criterion not resolved: execution.engine must be \"fak-native\"\n"
	  "execution: must name an engine and a forward path" },
	{ "reject-blank-forward-path.json",
	  "comparison: criterion not resolved: execution.forward_path must be "
	  "\"metal/qwen35-hybrid-session-v1\"\n"
	  "execution: must name an engine and a forward path" },
	{ "reject-negative-stage.json", "repetitions[0]: stage timings must be non-negative" },
	{ "reject-peak-below-resident.json",
	  "memory.peak_bytes: 21474836479 is below memory.resident_bytes 21474836480; the peak "
	  "includes what was resident" },
	{ "reject-fallback.json",
	  "comparison: criterion not resolved: execution.fallback_count must be 0\n"
	  "execution.fallback_count: fallback count must be zero, got 1" },
	{ "reject-foreign-engine.json",
	  "comparison: criterion not resolved: execution.engine must be \"fak-native\"\n"
	  "execution.engine: must be \"fak-native\", the engine of envelope "
	  "\"qwen38-27b-q4km-m3pro-p32-t64\", got \"llama.cpp\"" },
	{ "reject-private-command.json",
	  "commands[0]: contains a private detail: an absolute path \"/home/alice/run.sh\"" },
	{ "reject-private-machine.json",
	  "machine.scrubbed_id: contains a private detail: an account or e-mail address "
	  "\"alice@lab-host\"" },
	{ "reject-private-artifact.json",
	  "profiler_artifacts[0].path: contains a private detail: a backslash "
	  "(a Windows path or an escape)" },
	{ "reject-private-commands.json",
	  "commands[0]: contains a private detail: an absolute path \"/srv/secret\"\n"
	  "commands[1]: contains a private detail: an absolute path \"/mnt/private/alice/m.gguf\"\n"
	  "commands[2]: contains a private detail: a home-relative path \"~/bench/run\"\n"
	  "commands[3]: contains a private detail: a remote login \"scp\"\n"
	  "commands[4]: contains a private detail: a URL other than the project's public links "
	  "\"ssh://host/x\"\n"
	  "commands[5]: contains a private detail: a remote login \"ssh\"\n"
	  "commands[6]: contains a private detail: a URL other than the project's public links "
	  "\"http://10.0.0.7:8080/run\"\n"
	  "commands[7]: contains a private detail: an account or e-mail address "
	  "\"someone@example.com\"\n"
	  "commands[8]: contains a private detail: a '..' path escape \"logs/../../etc/passwd\"" },
	{ "reject-private-artifact-escape.json",
	  "profiler_artifacts[0].path: contains a private detail: a '..' path escape "
	  "\"../../etc/passwd\"" },
	{ "reject-private-module.json",
	  "module_versions[0].module: contains a private detail: an absolute path "
	  "\"/home/alice/src/model\"" },
	{ "reject-placeholder-machine.json",
	  "machine.scrubbed_id: is a FILL_ template placeholder; fill in the captured value" },
	{ "reject-placeholder-inside.json",
	  "commands[0]: is a FILL_ template placeholder; fill in the captured value" },
	{ "reject-zero-artifact-sha.json",
	  "profiler_artifacts[0].sha256: an all-zero SHA-256 is a template placeholder, not a "
	  "digest" },
	{ "reject-private-revision.json",
	  "revision: contains a private detail: a remote host:path or host:port "
	  "\"gpu-node:8080\"" },
	{ "reject-two-changed-axes.json",
	  "changed_axes: a candidate declares exactly one changed axis "
	  "\"lever:metal.command-buffer-amortization\" and no other" },
	{ "reject-v2-drift-batch.json",
	  "comparison: criterion not resolved: controls.batch must be 1" },
	{ "reject-wrong-identity.json",
	  "comparison: does not match the criterion resolved from run identity (want output_class "
	  "\"exact_match\", criterion_id \"exact-match-native-throughput\", criterion_version 1, "
	  "criterion_digest \"" METAL_DIGEST "\")" },
	{ "reject-unknown-lever.json",
	  "changed_axes: a candidate declares exactly one changed axis \"lever:metal.warp-drive\" "
	  "and no other\n"
	  "changed_lever_id: unknown lever \"metal.warp-drive\"\n"
	  "comparison: no comparison criterion is registered for these run axes (envelope "
	  "\"" METAL_ENV "\", lever \"metal.warp-drive\")" },
	{ "reject-other-envelope.json",
	  "comparison: no comparison criterion is registered for these run axes (envelope "
	  "\"" CUDA_ENV "\", lever \"metal.command-buffer-amortization\")\n"
	  "envelope_id: lever \"metal.command-buffer-amortization\" belongs to envelope "
	  "\"" METAL_ENV "\", not \"" CUDA_ENV "\"" },
	{ "reject-v1-binding.json",
	  "repetitions[1].system_baseline_digest: a v1 repetition cannot bind system-baseline "
	  "evidence" },
	{ "reject-reused-attestation.json",
	  "system_baselines[1]: reuses the attestation digest of system_baselines[0]" },
	{ "reject-tampered-embedded.json",
	  "system_baselines[0]: invalid attestation: canonical digest mismatch: recorded "
	  "\"sha256:1b30c672c9e697fa20d07daabffd103c406c89750f68909e2e13cc220cfbebd5\", computed "
	  "\"sha256:bacd4a2ee6ae74636c44becc2ec25ed8ff97a61e6ec4370264933a8613f43831\"; the "
	  "attestation was changed after it was sealed" },
	{ "reject-binding-hole.json",
	  "repetitions[1].system_baseline_digest: binding hole: no attestation at "
	  "system_baselines[1]" },
	{ "reject-v1-off-envelope-candidate.json",
	  "comparison: criterion not resolved: controls.context_tokens must be 96\n"
	  "comparison: criterion not resolved: controls.prompt_tokens must be 32\n"
	  "comparison: criterion not resolved: controls.sampling must be \"greedy\"\n"
	  "comparison: criterion not resolved: controls.temperature must be 0\n"
	  "comparison: criterion not resolved: quality.name must be \"exact_match\"" },
	{ "reject-huge-tps.json",
	  "repetitions[0].tokens_per_second: 1.7e+308 is outside the sane range "
	  "[0.000001, 1000000000]\n"
	  "repetitions[1].tokens_per_second: 1.7e+308 is outside the sane range "
	  "[0.000001, 1000000000]\n"
	  "repetitions[2].tokens_per_second: 1.7e+308 is outside the sane range "
	  "[0.000001, 1000000000]" },
	{ "reject-tiny-tps.json",
	  "repetitions[0].tokens_per_second: 1e-300 is outside the sane range "
	  "[0.000001, 1000000000]\n"
	  "repetitions[1].tokens_per_second: 1e-300 is outside the sane range "
	  "[0.000001, 1000000000]\n"
	  "repetitions[2].tokens_per_second: 1e-300 is outside the sane range "
	  "[0.000001, 1000000000]" },
	{ "reject-huge-ms.json",
	  "repetitions[0].end_to_end_milliseconds: 10000000000000 is outside the sane range [0, "
	  "1000000000000]" },
	{ "reject-huge-stage.json",
	  "repetitions[2].decode_milliseconds: 2000000000000 is outside the sane range [0, "
	  "1000000000000]" },
};

Test(receipt, every_reject_fixture_has_its_exact_findings)
{
	for (size_t i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
		char path[256];
		char *s;

		snprintf(path, sizeof(path), FIX "%s", rejects[i].file);
		s = validate_joined(path);
		cr_expect_str_eq(s, rejects[i].findings, "%s", rejects[i].file);
		free(s);
	}
}

Test(receipt, the_template_fails_exactly_on_capture_only_values)
{
	struct graph g;
	struct receipt r;
	struct findings f = FINDINGS_INIT;
	struct err e;
	json_t *t;
	char *s;

	tu_graph(&g);
	t = receipt_template(&g, "metal.command-buffer-amortization", &e);
	cr_assert_not_null(t, "%s", e.msg);
	cr_assert_eq(receipt_decode(&r, t, NULL, &e), 0, "%s", e.msg);
	cr_expect_str_eq(r.comparison.criterion_digest, METAL_DIGEST);
	receipt_validate(&r, &g, 0, &f);
	s = tu_join(&f);
	cr_expect_str_eq(s, "commands[0]: is a FILL_ template placeholder; fill in the captured "
			    "value\n"
			    "comparison: criterion not resolved: quality.name must be "
			    "\"exact_match\"\n"
			    "machine.scrubbed_id: is a FILL_ template placeholder; fill in the "
			    "captured value\n"
			    "memory: peak and resident memory are required\n"
			    "module_versions[0].module: is a FILL_ template placeholder; fill in "
			    "the captured value\n"
			    "module_versions[0].revision: is a FILL_ template placeholder; fill in "
			    "the captured value\n"
			    "profiler_artifacts[0].path: is a FILL_ template placeholder; fill in "
			    "the captured value\n"
			    "profiler_artifacts[0].sha256: an all-zero SHA-256 is a template "
			    "placeholder, not a digest\n"
			    "quality.name: is a FILL_ template placeholder; fill in the captured "
			    "value\n"
			    "repetitions[0]: lacks positive end-to-end latency and tok/s\n"
			    "repetitions[1]: lacks positive end-to-end latency and tok/s\n"
			    "repetitions[2]: lacks positive end-to-end latency and tok/s\n"
			    "revision: is a FILL_ template placeholder; fill in the captured "
			    "value");
	free(s);
	findings_release(&f);
	receipt_release(&r);
	json_decref(t);
	graph_release(&g);
}

Test(receipt, the_template_refuses_unknown_and_unready_levers)
{
	struct graph g;
	struct err e;
	json_t *t;

	tu_graph(&g);
	cr_expect_null(receipt_template(&g, "metal.warp-drive", &e));
	cr_expect_str_eq(e.msg, "unknown lever \"metal.warp-drive\"");
	cr_expect_null(receipt_template(&g, "metal.fused-hybrid-graph-coverage", &e));
	cr_expect_str_eq(e.msg, "lever \"metal.fused-hybrid-graph-coverage\" is not ready: "
				"dependency \"metal.command-buffer-amortization\" is not enabled; "
				"a one-lever experiment needs every dependency enabled first");
	/* an enabled lever (re-witnessing) and a CUDA lever without dependencies */
	t = receipt_template(&g, "cuda.q8_1-activation-quant", &e);
	cr_assert_not_null(t, "%s", e.msg);
	cr_expect_str_eq(json_string_value(tu_get(t, "machine.platform")),
			 "linux/amd64+nvidia-a100");
	cr_expect_eq(json_integer_value(tu_get(t, "controls.context_tokens")), 65);
	cr_expect_str_eq(json_string_value(tu_get(t, "comparison.criterion_digest")), CUDA_DIGEST);
	cr_expect_eq(json_array_size(tu_get(t, "repetitions")), 3);
	json_decref(t);
	graph_release(&g);
}

/* ---- strict decoding ---------------------------------------------------- */

static void decode_fails(const char *mutated_path, json_t *value, const char *want)
{
	json_t *doc = tu_json(FIX "metal-candidate.json");
	struct receipt r;
	struct err e;

	if (value)
		tu_set(doc, mutated_path, value);
	else
		cr_assert_eq(json_object_del(tu_get(doc, "memory"), "peak_bytes"), 0);
	cr_expect_eq(receipt_decode(&r, doc, NULL, &e), -1, "%s accepted", mutated_path);
	cr_expect_str_eq(e.msg, want);
	json_decref(doc);
}

Test(receipt_decode, wrong_types_nulls_and_unknown_keys_carry_the_path)
{
	decode_fails("revision", json_null(), "revision: expected a string, found null");
	decode_fails("controls.prompt_tokens", json_real(1.5),
		     "controls.prompt_tokens: expected an integer, found a fractional number");
	decode_fails("repetitions.1.tokens_per_second", json_string("3"),
		     "repetitions[1].tokens_per_second: expected a number, found a string");
	decode_fails("memory.resident_bytes", json_integer(-1),
		     "memory.resident_bytes: expected a non-negative integer, found -1");
	decode_fails("machine.gpu", json_string("x"), "machine.gpu: unknown field");
	decode_fails("commands", json_null(), "commands: expected an array, found null");
	decode_fails("memory.peak_bytes", NULL, "memory.peak_bytes: missing required field");
	decode_fails("system_baselines", json_pack("[i]", 1),
		     "system_baselines[0]: expected an object, found an integer");
}

Test(receipt_decode, exactly_one_json_value)
{
	struct receipt r;
	struct err e;
	const char *two = "{} {}";

	cr_expect_eq(receipt_parse(&r, two, strlen(two), "r.json", &e), -1);
	cr_expect(strstr(e.msg, "r.json") == e.msg, "%s", e.msg);
	cr_expect_eq(receipt_parse(&r, "[]", 2, "r.json", &e), -1);
	cr_expect_str_eq(e.msg, "r.json: $: expected an object, found an array");
	cr_expect_eq(receipt_parse(&r, "{\"schema\":1,\"schema\":2}", 23, "r.json", &e), -1);
}

Test(receipt_decode, v1_may_omit_the_comparison_but_v2_may_not)
{
	json_t *doc = tu_json(FIX "v1-metal-baseline.json");
	struct receipt r;
	struct err e;

	cr_assert_eq(receipt_decode(&r, doc, NULL, &e), 0, "%s", e.msg);
	cr_expect(receipt_comparison_is_zero(&r.comparison));
	receipt_release(&r);
	tu_set(doc, "schema", json_string(RECEIPT_SCHEMA_V2));
	cr_expect_eq(receipt_decode(&r, doc, NULL, &e), -1);
	cr_expect_str_eq(e.msg, "comparison: missing required field");
	json_decref(doc);
}

/* ---- private and scrubbed syntax ----------------------------------------- */

Test(receipt_private, scrubbed_machine_id)
{
	cr_expect(!receipt_is_scrubbed_id("host:22"));
	cr_expect(!receipt_is_scrubbed_id("https://x"));
	cr_expect(!receipt_is_scrubbed_id("  "));
	cr_expect(!receipt_is_scrubbed_id("user@host"));
	cr_expect(!receipt_is_scrubbed_id("10.0.0.7"));
	cr_expect(!receipt_is_scrubbed_id("rack/../node"));
	cr_expect(receipt_is_scrubbed_id("lab-node-class-a"));
}

Test(receipt_private, placeholders)
{
	static const char *const yes[] = {
		"FILL_X", " FILL_X", "fak run --model FILL_MODEL_PATH",
		"0000000000000000000000000000000000000000000000000000000000000000",
		"sha256:0000000000000000000000000000000000000000000000000000000000000000",
	};
	static const char *const no[] = {
		"FIL_X", "fill_x", "", "\t", "000", "sha256:",
		"00000000000000000000000000000000000000000000000000000000000000001",
		"sha256:0000000000000000000000000000000000000000000000000000000000000001",
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_expect(receipt_is_placeholder(yes[i]), "\"%s\" is not a placeholder", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect(!receipt_is_placeholder(no[i]), "\"%s\" is a placeholder", no[i]);
}

/* ---- comparison ----------------------------------------------------------- */

static json_t *compare_files(const char *b, const char *c, const char **what, struct findings *f)
{
	struct graph g;
	struct receipt rb, rc;
	json_t *doc;

	tu_graph(&g);
	load(&rb, b);
	load(&rc, c);
	doc = receipt_compare(&rb, &rc, &g, what, f);
	receipt_release(&rb);
	receipt_release(&rc);
	graph_release(&g);
	return doc;
}

Test(compare, document_statistics_of_both_metrics)
{
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	json_t *a = compare_files(FIX "cuda-baseline.json", FIX "cuda-candidate.json", &what, &f);
	json_t *b = compare_files(FIX "cuda-baseline.json", FIX "cuda-candidate.json", &what, &f);
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;

	cr_assert_not_null(a);
	json_write_pretty(&x, a);
	json_write_pretty(&y, b);
	cr_expect_str_eq(x.buf, y.buf, "not deterministic");
	cr_expect_str_eq(json_string_value(tu_get(a, "criterion_digest")), CUDA_DIGEST);
	cr_expect_null(tu_get(a, "delta_tokens_per_second"), "one effect size only");
	cr_expect_eq(json_real_value(tu_get(a, "baseline_samples.median")), 100);
	cr_expect_eq(json_real_value(tu_get(a, "baseline_samples.max")), 101);
	cr_expect_float_eq(json_real_value(tu_get(a, "baseline_samples.noise_percent")),
			   sqrt(2.0 / 9) / (301.0 / 3) * 100, 1e-12);
	cr_expect_str_eq(json_string_value(tu_get(a, "schema")),
			 "fak-native-performance-comparison/v3");
	cr_expect_null(json_object_get(a, "significance"));
	/* the criterion has no practical_threshold_percent: its maximum_noise_percent */
	cr_expect_eq(json_number_value(tu_get(a, "statistics.practical_threshold_percent")), 2);
	cr_expect_str_eq(json_string_value(tu_get(a, "decision.threshold_source")),
			 "maximum_noise_percent");
	/* the same values in both arms: every statistic says nothing changed */
	cr_expect_str_eq(json_string_value(tu_get(a, "statistics.tokens_per_second.unit")),
			 "tok/s");
	cr_expect(json_is_true(tu_get(a, "statistics.tokens_per_second.higher_is_better")));
	cr_expect_eq(json_number_value(tu_get(a, "statistics.tokens_per_second.baseline.median")),
		     100);
	cr_expect_eq(json_number_value(tu_get(a, "statistics.tokens_per_second.shift")), 0);
	cr_expect_eq(json_number_value(tu_get(a, "statistics.tokens_per_second.p_value")), 1);
	cr_expect_eq(json_number_value(tu_get(a, "statistics.tokens_per_second.mann_whitney_u")),
		     4.5);
	cr_expect(json_is_true(tu_get(a, "statistics.tokens_per_second.ties")));
	cr_expect(json_is_true(tu_get(a, "statistics.tokens_per_second.exact")));
	cr_expect_eq(json_number_value(tu_get(a, "statistics.tokens_per_second.confidence_level")),
		     0.9);
	/* ratios 100/101 .. 101/100, applied to the baseline median 100 */
	{
		json_t *m = tu_get(a, "statistics.tokens_per_second");

		cr_expect_float_eq(json_number_value(tu_get(m, "interval.lower")),
				   100 * (100.0 / 101 - 1), 1e-12);
		cr_expect_float_eq(json_number_value(tu_get(m, "interval.upper")), 1, 1e-12);
		cr_expect_float_eq(json_number_value(tu_get(m, "interval_percent.upper")), 1,
				   1e-12);
	}
	/* the threshold as a ratio either way: +2% or 100 / 1.02 - 100 */
	cr_expect_eq(json_number_value(tu_get(a, "statistics.threshold_band_percent.upper")), 2);
	cr_expect_float_eq(json_number_value(tu_get(a, "statistics.threshold_band_percent.lower")),
			   100 / 1.02 - 100, 1e-12);
	/* [-0.99%, +1%] within 2%: equivalent, the same verdict in the decision */
	cr_expect_str_eq(json_string_value(tu_get(a, "statistics.tokens_per_second.verdict")),
			 "equivalent");
	cr_expect_str_eq(json_string_value(tu_get(a, "decision.verdict")), "equivalent");
	cr_expect(json_is_null(tu_get(a, "statistics.tokens_per_second.repetitions_needed")));
	cr_expect_str_eq(json_string_value(tu_get(a, "statistics.tokens_per_second."
						     "repetitions_needed_reason")),
			 "the verdict is decided");
	cr_expect_str_eq(json_string_value(tu_get(a, "statistics.end_to_end_milliseconds.unit")),
			 "ms");
	cr_expect(json_is_false(tu_get(a, "statistics.end_to_end_milliseconds.higher_is_better")));
	cr_expect_eq(json_number_value(
			     tu_get(a, "statistics.end_to_end_milliseconds.baseline.repetitions")),
		     3);
	cr_expect_eq(json_number_value(tu_get(a, "statistics.end_to_end_milliseconds.shift")), 0);
	json_decref(a);
	json_decref(b);
	sb_release(&x);
	sb_release(&y);
}

Test(compare, five_repetitions_throughout)
{
	struct graph g;
	struct receipt rb, rc;
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	struct err e;
	json_t *t, *doc;

	cr_assert_eq(graph_load_file(&g, "tests/fixtures/graphs/valid-five-repetitions.json", &e),
		     0, "%s", e.msg);
	graph_validate(&g, &f);
	cr_assert_eq(f.nr, 0);
	t = receipt_template(&g, "cuda.q8_1-activation-quant", &e);
	cr_assert_not_null(t, "%s", e.msg);
	cr_expect_eq(json_array_size(json_object_get(t, "repetitions")), 5);
	cr_expect_eq(json_integer_value(tu_get(t, "controls.repetitions")), 5);
	json_decref(t);
	load(&rb, FIX "cuda5-baseline.json");
	load(&rc, FIX "cuda5-candidate.json");
	doc = receipt_compare(&rb, &rc, &g, &what, &f);
	cr_assert_not_null(doc, "%s", what);
	/* 5 + 5: k = 5, level 1 - 2 * 12 / 252, the narrowest at or above 90% */
	cr_expect_float_eq(json_number_value(
				   tu_get(doc, "statistics.tokens_per_second.confidence_level")),
			   1 - 24.0 / 252, 1e-15);
	cr_expect_str_eq(json_string_value(tu_get(doc, "statistics.tokens_per_second.verdict")),
			 "faster");
	cr_expect_str_eq(json_string_value(
				 tu_get(doc, "statistics.end_to_end_milliseconds.verdict")),
			 "faster");
	cr_expect_eq(json_integer_value(tu_get(doc, "candidate_samples.repetitions")), 5);
	json_decref(doc);
	receipt_release(&rb);
	receipt_release(&rc);
	/* three-repetition receipts do not fit the five-repetition envelope */
	load(&rb, FIX "cuda-baseline.json");
	load(&rc, FIX "cuda-candidate.json");
	cr_expect_null(receipt_compare(&rb, &rc, &g, &what, &f));
	cr_expect_str_eq(what, "compare: baseline: invalid native-performance receipt");
	findings_release(&f);
	receipt_release(&rb);
	receipt_release(&rc);
	graph_release(&g);
}

Test(compare, delta_of_one_token_per_second)
{
	struct graph g;
	struct receipt rb, rc;
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	json_t *doc;

	tu_graph(&g);
	load(&rb, FIX "metal-baseline.json");
	load(&rc, FIX "metal-candidate.json");
	for (int i = 0; i < 3; i++)
		rc.reps[i].tokens_per_second = rb.reps[i].tokens_per_second + 1;
	doc = receipt_compare(&rb, &rc, &g, &what, &f);
	cr_assert_not_null(doc);
	cr_expect_float_eq(json_real_value(tu_get(doc, "candidate_samples.mean")) -
				   json_real_value(tu_get(doc, "baseline_samples.mean")),
			   1, 1e-12);
	cr_expect_null(tu_get(doc, "delta_percent"), "one effect size: the decision's");
	json_decref(doc);
	receipt_release(&rb);
	receipt_release(&rc);
	graph_release(&g);
}

Test(compare, the_sane_bounds_keep_every_derived_number_finite)
{
	struct graph g;
	struct receipt rb, rc;
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	json_t *doc;

	tu_graph(&g);
	load(&rb, FIX "metal-baseline.json");
	load(&rc, FIX "metal-candidate.json");
	for (int i = 0; i < 3; i++) {
		rb.reps[i].tokens_per_second = RECEIPT_MIN_TPS;
		rc.reps[i].tokens_per_second = RECEIPT_MAX_TPS;
		rb.reps[i].end_to_end_ms = rc.reps[i].end_to_end_ms = RECEIPT_MAX_MS;
	}
	doc = receipt_compare(&rb, &rc, &g, &what, &f);
	cr_assert_not_null(doc, "%s", what);
	cr_expect_float_eq(json_real_value(tu_get(doc, "decision.shift_percent")),
			   (RECEIPT_MAX_TPS - RECEIPT_MIN_TPS) / RECEIPT_MIN_TPS * 100,
			   1e-9 * (RECEIPT_MAX_TPS / RECEIPT_MIN_TPS * 100));
	json_decref(doc);
	rc.reps[1].tokens_per_second = 1.7e308;
	doc = receipt_compare(&rb, &rc, &g, &what, &f);
	cr_expect_null(doc);
	cr_expect_str_eq(what, "compare: candidate: invalid native-performance receipt");
	findings_release(&f);
	receipt_release(&rb);
	receipt_release(&rc);
	graph_release(&g);
}

static void compare_refused(const char *b, const char *c, const char *what_want, const char *want)
{
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	json_t *doc = compare_files(b, c, &what, &f);
	char *s = tu_join(&f);

	cr_expect_null(doc, "%s accepted", c);
	cr_expect_str_eq(what, what_want, "%s", c);
	cr_expect_str_eq(s, want, "%s", c);
	free(s);
	findings_release(&f);
}

Test(compare, fail_closed_order_and_drift_on_every_axis)
{
	/* A v1 receipt without a comparison identity still resolves the
	 * envelope criterion from its run identity: every pinned control that
	 * drifts is refused while validating the candidate. */
	static const struct {
		const char *file, *finding;
	} pinned[] = {
		{ "reject-drift-prompt-tokens.json", "controls.prompt_tokens must be 32" },
		{ "reject-drift-decode-tokens.json", "controls.decode_tokens must be 64" },
		{ "reject-drift-batch.json", "controls.batch must be 1" },
		{ "reject-drift-context-tokens.json", "controls.context_tokens must be 96" },
		{ "reject-drift-temperature.json", "controls.temperature must be 0" },
		{ "reject-drift-sampling.json", "controls.sampling must be \"greedy\"" },
		{ "reject-drift-cache-state.json", "controls.cache_state must be \"cold\"" },
		{ "reject-drift-warmups.json", "controls.warmups must be 1" },
		{ "reject-drift-repetitions.json", "controls.repetitions must be 3" },
		{ "reject-drift-forward-path.json",
		  "execution.forward_path must be \"metal/qwen35-hybrid-session-v1\"" },
	};
	char path[256], want[256];

	for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		snprintf(path, sizeof(path), FIX "%s", pinned[i].file);
		snprintf(want, sizeof(want), "comparison: criterion not resolved: %s",
			 pinned[i].finding);
		compare_refused(FIX "v1-metal-baseline.json", path,
				"compare: candidate: invalid native-performance receipt", want);
	}
	/* the machine is not pinned by the criterion: the drift step names it */
	compare_refused(FIX "v1-metal-baseline.json", FIX "reject-drift-machine.json",
			"compare: receipts are incomparable: an undeclared control axis drifted",
			"machine.scrubbed_id: baseline \"lab-node-class-a\", candidate "
			"\"lab-node-class-b\"");
	compare_refused(FIX "metal-baseline.json", FIX "reject-fallback.json",
			"compare: candidate: invalid native-performance receipt",
			"comparison: criterion not resolved: execution.fallback_count must be 0\n"
			"execution.fallback_count: fallback count must be zero, got 1");
	compare_refused(FIX "reject-missing-repetition.json", FIX "reject-fallback.json",
			"compare: baseline: invalid native-performance receipt",
			"repetitions: 2 repetitions do not match controls.repetitions 3");
	compare_refused(FIX "metal-candidate.json", FIX "metal-baseline.json",
			"compare: comparison requires baseline then candidate roles",
			"role: baseline file has role \"candidate\", candidate file has role "
			"\"baseline\"");
	compare_refused(FIX "metal-baseline.json", FIX "cuda-candidate.json",
			"compare: receipts target different envelope or lever",
			"changed_lever_id: baseline \"metal.command-buffer-amortization\", "
			"candidate \"cuda.q8_1-activation-quant\"\n"
			"envelope_id: baseline \"" METAL_ENV "\", candidate \"" CUDA_ENV "\"");
}

/* An A/A is the same commands (word for word, blanks aside), revision and
 * module versions in both arms. */
Test(receipt, same_arms_are_word_for_word)
{
	const char *c1[] = { "./lb.sh pair" }, *c2[] = { "  ./lb.sh\tpair " },
		   *c3[] = { "./lb.sh pairs" }, *c4[] = { "./lb.sh 'pair'" }, *c5[] = { "./lb.sh" };
	struct receipt_module m = { "engine", "r1" }, m2 = { "engine", "r2" };
	struct receipt a = { .revision = "r1", .modules = &m, .nr_modules = 1,
			     .commands = { .v = c1, .n = 1 } };
	struct receipt b = a;

	cr_expect(receipt_same_arms(&a, &b));
	b.commands.v = c2;
	cr_expect(receipt_same_arms(&a, &b), "blanks between and around words do not count");
	b.commands.v = c3;
	cr_expect_not(receipt_same_arms(&a, &b));
	b.commands.v = c4;
	cr_expect(receipt_same_arms(&a, &b), "the shell removes the quotes: one command");
	b.commands.v = c5;
	cr_expect_not(receipt_same_arms(&a, &b), "a word fewer");
	cr_expect_not(receipt_same_arms(&b, &a));
	b.commands.v = c1;
	b.modules = &m2;
	cr_expect_not(receipt_same_arms(&a, &b), "another module version");
	b.modules = &m;
	b.revision = "r2";
	cr_expect_not(receipt_same_arms(&a, &b), "another revision");
}

/* With the executables sealed, what ran decides, not the labels. */
Test(receipt, same_arms_by_the_executables_they_ran)
{
	const char *cmd[] = { "./bench ok" };
	json_t *pa = json_pack("{s:{s:s}}", "workload", "program_sha256", "aa"),
	       *pb = json_pack("{s:{s:s}}", "workload", "program_sha256", "bb"),
	       *none = json_pack("{s:{}}", "workload");
	struct receipt_attestation sa[2] = { { .json = pa }, { .json = pa } },
				   sb[2] = { { .json = pa }, { .json = pa } };
	struct receipt a = { .revision = "r1", .commands = { .v = cmd, .n = 1 },
			     .system_baselines = sa, .nr_system_baselines = 2 };
	struct receipt b = a;
	struct receipt_aa aa;
	struct strbuf why = STRBUF_INIT;

	b.revision = "r2";
	b.system_baselines = sb;
	receipt_arms_compare(&a, &b, &aa);
	cr_expect(aa.same && aa.by_program && aa.labels_differ, "one executable, two labels");
	receipt_aa_why(&aa, &a, &b, &why);
	cr_expect_str_eq(why.buf, "both arms ran the same command and the same executable "
				  "(sha256 aa); the revision labels differ (r1, r2) but the "
				  "executables do not: was the candidate rebuilt?");
	sb[1].json = pb;
	receipt_arms_compare(&a, &b, &aa);
	cr_expect_not(aa.same, "an arm whose runs sealed two executables is no A/A by them");
	cr_expect_not(aa.by_program);
	sb[0].json = pb;
	b.revision = "r1";
	receipt_arms_compare(&a, &b, &aa);
	cr_expect(aa.by_program && !aa.same, "another executable, the same labels: an A/B");
	sb[0].json = sb[1].json = none;
	receipt_arms_compare(&a, &b, &aa);
	cr_expect(!aa.by_program && aa.same, "no executable sealed: the labels decide");
	sb_release(&why);
	json_decref(pa);
	json_decref(pb);
	json_decref(none);
}

/* What the runner observed beyond the runs (issue 27): the host, the
 * engine's runtime where the runs stated it, the controls it did not
 * observe. Each optional (older receipts have none), each strict. */
Test(receipt_decode, the_experiment_states_its_host_and_unobserved_controls)
{
	json_t *doc = tu_json("tests/fixtures/reports/xp-candidate.json");
	struct receipt r;
	struct err e;

	cr_assert_eq(receipt_decode(&r, doc, NULL, &e), 0, "%s", e.msg);
	cr_expect_null(r.experiment.cpu_model);
	cr_expect(r.experiment.controls_not_observed.is_null);
	receipt_release(&r);
	tu_set(doc, "experiment.host",
	       json_pack("{s:s, s:s}", "cpu_model", "AMD EPYC 7763 64-Core Processor",
			 "kernel_release", "6.1.0-18-amd64"));
	tu_set(doc, "experiment.engine_runtime", json_pack("{s:s}", "build_commit", "de3ff81"));
	tu_set(doc, "experiment.controls_not_observed",
	       json_pack("[s, s]", "batch", "cache_state"));
	cr_assert_eq(receipt_decode(&r, doc, NULL, &e), 0, "%s", e.msg);
	cr_expect_str_eq(r.experiment.cpu_model, "AMD EPYC 7763 64-Core Processor");
	cr_expect_str_eq(r.experiment.kernel_release, "6.1.0-18-amd64");
	cr_expect_str_eq(r.experiment.engine_build_commit, "de3ff81");
	cr_expect_null(r.experiment.engine_backends);
	cr_assert_eq(r.experiment.controls_not_observed.n, 2);
	cr_expect_str_eq(r.experiment.controls_not_observed.v[1], "cache_state");
	receipt_release(&r);

	tu_set(doc, "experiment.controls_not_observed", json_pack("[s]", "flux"));
	cr_expect_eq(receipt_decode(&r, doc, NULL, &e), -1);
	cr_expect_str_eq(e.msg,
			 "experiment.controls_not_observed: \"flux\" is not a member of controls");
	tu_set(doc, "experiment.controls_not_observed", json_pack("[s]", "batch"));
	tu_set(doc, "experiment.host.gpu", json_string("x"));
	cr_expect_eq(receipt_decode(&r, doc, NULL, &e), -1);
	cr_expect_str_eq(e.msg, "experiment.host.gpu: unknown field");
	tu_set(doc, "experiment.host", json_pack("{s:s}", "cpu_model", "x"));
	cr_expect_eq(receipt_decode(&r, doc, NULL, &e), -1);
	cr_expect_str_eq(e.msg, "experiment.host.kernel_release: missing required field");
	json_decref(doc);
}

/* Verify once, carry the facts: decoding verifies every attestation once and
 * keeps its verdict and facts; one that fails keeps why, the decode passes. */
Test(receipt_decode, attestations_are_verified_once_and_carry_their_facts)
{
	json_t *doc = tu_json(FIX "metal-baseline-attested.json");
	struct receipt r;
	struct err e;

	cr_assert_eq(receipt_decode(&r, doc, NULL, &e), 0, "%s", e.msg);
	cr_assert_eq(r.nr_system_baselines, 3);
	for (size_t i = 0; i < r.nr_system_baselines; i++) {
		const struct receipt_attestation *a = &r.system_baselines[i];

		cr_expect(a->verified, "system_baselines[%zu]: %s", i, a->why ? a->why : "");
		cr_expect_null(a->why);
		cr_assert_not_null(a->att);
		cr_expect_str_eq(a->facts.digest, r.reps[i].system_baseline_digest);
		cr_expect_str_eq(a->att->digest, a->facts.digest);
		cr_expect_str_eq(a->facts.verdict, "clean");
	}
	receipt_release(&r);

	tu_set(doc, "system_baselines.1.verdict", json_string("investigate"));
	cr_assert_eq(receipt_decode(&r, doc, NULL, &e), 0, "%s", e.msg);
	cr_expect(r.system_baselines[0].verified && r.system_baselines[2].verified);
	cr_expect_not(r.system_baselines[1].verified);
	cr_expect_null(r.system_baselines[1].att);
	cr_assert_not_null(r.system_baselines[1].why);
	cr_expect(strstr(r.system_baselines[1].why, "canonical digest mismatch") != NULL, "%s",
		  r.system_baselines[1].why);
	receipt_release(&r);
	json_decref(doc);
}
