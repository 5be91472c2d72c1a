/* receipt/gate: the noise/drop vectors, hard checks, policy binding and
 * rules, the system-baseline state table (on attestation facts), legacy
 * ambient evidence and clean-only statistics. */
#include <criterion/criterion.h>
#include <string.h>

#include "receipt/gate.h"
#include "receipt/identity.h"
#include "test_receipt_util.h"

#define GFIX "tests/fixtures/gate/"

/* Evaluate a request document (borrowed). Returns the verdict or NULL with
 * the refusal in *what and *joined (caller frees). */
static json_t *eval_doc(json_t *doc, enum gate_class *cls, const char **what, char **joined)
{
	struct graph g;
	struct gate_request q;
	struct findings f = FINDINGS_INIT;
	struct err e;
	json_t *v;

	/* the committed graph with the CUDA envelope pinned to its artifact's
	 * sha256 (the committed one pins a placeholder, which the gate refuses) */
	cr_assert_eq(graph_load_file(&g, "tests/fixtures/graphs/valid-cuda-pinned.json", &e), 0,
		     "%s", e.msg);
	{
		char *text = json_dumps(doc, 0);

		cr_assert_eq(gate_parse(&q, text, strlen(text), "req", &e), 0, "%s", e.msg);
		free(text);
	}
	*what = NULL;
	v = gate_evaluate(&q, &g, cls, what, &f);
	*joined = tu_join(&f);
	findings_release(&f);
	gate_release(&q);
	graph_release(&g);
	return v;
}

static json_t *eval_file(const char *path, enum gate_class *cls)
{
	json_t *doc = tu_json(path), *v;
	const char *what;
	char *j;

	v = eval_doc(doc, cls, &what, &j);
	cr_assert_not_null(v, "%s refused: %s: %s", path, what, j);
	free(j);
	json_decref(doc);
	return v;
}

static const char *cls_of(json_t *v)
{
	return json_string_value(json_object_get(v, "classification"));
}

/* ---- noise and drop vectors (policy 3/2/2/5) ------------------------------ */

Test(gate_vectors, equal_receipts_pass_without_bisect)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "pass.json", &c);

	cr_expect_eq(c, GATE_PASS);
	cr_expect_str_eq(cls_of(v), "pass");
	cr_expect_null(json_object_get(v, "bisect"));
	cr_expect_null(json_object_get(v, "suspect_modules"));
	cr_expect_null(json_object_get(v, "throughput_delta_percent"), "one effect size only");
	cr_expect_str_eq(json_string_value(json_object_get(v, "criterion_digest")),
			 "sha256:c6238b78a81b3ef8b07769046ee241620154c7a48b4e34e42f85d6225555a62d");
	/* the seven checks of the policy and the criterion's GPU policy */
	cr_expect_eq(json_array_size(json_object_get(v, "checks")), 8);
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.2.name")), "identity");
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.2.detail")),
			 "last_accepted declared, candidate declared; the policy allows a "
			 "declared identity (allow_declared_identity)");
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.7.name")), "gpu");
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.7.status")), "pass");
	cr_expect_str_eq(json_string_value(json_object_get(v, "schema")),
			 "fak-native-performance-gate-verdict/v3");
	/* 100, 101, 100 in both arms: the interval [-0.99%, +1%] lies within 2% */
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.population")), "all_sample");
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.verdict")), "equivalent");
	cr_expect_eq(json_number_value(tu_get(v, "decision.shift_percent")), 0);
	cr_expect_eq(json_number_value(tu_get(v, "decision.level")), 0.9);
	cr_expect_eq(json_number_value(tu_get(v, "decision.practical_threshold_percent")), 2);
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.threshold_source")),
			 "maximum_noise_percent");
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.rule")), "fixed");
	cr_expect_eq(json_integer_value(tu_get(v, "decision.attempts")), 1);
	cr_expect(json_is_null(tu_get(v, "decision.host_policy")));
	cr_expect_null(json_object_get(v, "throughput_shift"), "one effect size only");
	json_decref(v);
}

Test(gate_vectors, a_three_percent_drop_beyond_the_threshold_is_slower)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "investigate-drop.json", &c);

	/* every candidate 97 against 100, 101, 100: ratios 97/101 and 97/100,
	 * the whole interval a loss beyond 2%: slower, a regression (the
	 * drop thresholds of the Go original no longer decide) */
	cr_expect_eq(c, GATE_REGRESSION);
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.verdict")), "slower");
	cr_expect_not_null(json_object_get(v, "bisect"));
	cr_expect_float_eq(json_number_value(tu_get(v, "decision.shift_percent")), -3, 1e-12);
	cr_expect_float_eq(json_number_value(tu_get(v, "decision.interval_percent.lower")),
			   100 * (97.0 / 101 - 1), 1e-12);
	cr_expect_float_eq(json_number_value(tu_get(v, "decision.interval_percent.upper")), -3,
			   1e-12);
	cr_expect(strstr(json_string_value(json_object_get(v, "reason")),
			 "decision slower: -3.0% [-4.0%, -3.0%] at 90%; the whole interval is a "
			 "loss beyond the 2% threshold"),
		  "%s", json_string_value(json_object_get(v, "reason")));
	json_decref(v);
}

Test(gate_vectors, five_repetitions_throughout)
{
	struct graph g;
	struct gate_request q;
	struct findings f = FINDINGS_INIT;
	const char *what = NULL;
	enum gate_class cls;
	struct err e;
	json_t *v;

	cr_assert_eq(graph_load_file(&g, "tests/fixtures/graphs/valid-five-repetitions.json", &e),
		     0, "%s", e.msg);
	cr_assert_eq(gate_load(&q, GFIX "five-repetitions-pass.json", &e), 0, "%s", e.msg);
	v = gate_evaluate(&q, &g, &cls, &what, &f);
	cr_assert_not_null(v, "%s", what);
	cr_expect_eq(cls, GATE_PASS);
	/* 5 + 5: the narrowest interval at or above 90%: k = 5 */
	cr_expect_float_eq(json_number_value(tu_get(v, "decision.level")), 1 - 24.0 / 252, 1e-15);
	json_decref(v);
	gate_release(&q);
	/* the committed graph's criterion asks for three: the policy is stale */
	graph_release(&g);
	tu_graph(&g);
	cr_assert_eq(gate_load(&q, GFIX "five-repetitions-pass.json", &e), 0, "%s", e.msg);
	cr_expect_null(gate_evaluate(&q, &g, &cls, &what, &f));
	cr_expect_str_eq(what, "gate: last accepted comparison criterion is not resolved");
	findings_release(&f);
	gate_release(&q);
	graph_release(&g);
}

Test(gate_vectors, ten_percent_drop_is_a_regression_with_one_suspect)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "regression-drop.json", &c);
	json_t *s = json_object_get(v, "suspect_modules");

	cr_expect_eq(c, GATE_REGRESSION);
	cr_assert_eq(json_array_size(s), 1);
	cr_expect_str_eq(json_string_value(tu_get(s, "0.module")), "internal/model");
	cr_expect_str_eq(json_string_value(tu_get(s, "0.accepted_revision")), "r10+gaaaaaaa");
	cr_expect_str_eq(json_string_value(tu_get(s, "0.candidate_revision")), "r11+gbbbbbbb");
	cr_expect_str_eq(json_string_value(tu_get(v, "bisect.schema")), GATE_BISECT_SCHEMA);
	cr_expect_str_eq(json_string_value(tu_get(v, "bisect.good_revision")), "rev-100");
	cr_expect_str_eq(json_string_value(tu_get(v, "bisect.bad_revision")), "rev-101");
	cr_expect_str_eq(json_string_value(tu_get(v, "bisect.guarded_commands.0")),
			 "git bisect start 'rev-101' 'rev-100' -- 'internal/model'");
	json_decref(v);
}

Test(gate_vectors, suspects_are_sorted_by_module)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "regression-two-suspects.json", &c);

	cr_expect_eq(c, GATE_REGRESSION);
	cr_assert_eq(json_array_size(json_object_get(v, "suspect_modules")), 2);
	cr_expect_str_eq(json_string_value(tu_get(v, "suspect_modules.0.module")), "cmd/fak");
	cr_expect_str_eq(json_string_value(tu_get(v, "suspect_modules.1.module")),
			 "internal/model");
	cr_expect_str_eq(json_string_value(tu_get(v, "bisect.guarded_commands.0")),
			 "git bisect start 'rev-101' 'rev-100' -- 'cmd/fak' 'internal/model'");
	json_decref(v);
}

Test(gate_vectors, noise_makes_the_interval_wide_and_the_answer_undecided)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "investigate-noise.json", &c);

	/* noise is no check of its own: the interval [-9.1%, +1%] straddles */
	cr_expect_eq(c, GATE_INVESTIGATE);
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.verdict")), "undecided");
	cr_expect(strstr(json_string_value(json_object_get(v, "reason")),
			 "the interval straddles the 2% threshold"),
		  "%s", json_string_value(json_object_get(v, "reason")));
	json_decref(v);
}

Test(gate_vectors, hard_failures_and_the_floor_are_regressions)
{
	static const struct {
		const char *file, *check, *detail;
	} hard[] = {
		{ GFIX "regression-fallback.json", "fallback", "count=1" },
		{ GFIX "regression-memory.json", "memory", "peak=2000 ceiling=1200" },
		{ GFIX "regression-quality.json", "quality", "exact_match=0.5 floor=1" },
		{ GFIX "regression-floor.json", "throughput_floor", "median=10 floor=11" },
	};

	for (size_t i = 0; i < sizeof(hard) / sizeof(hard[0]); i++) {
		enum gate_class c;
		json_t *v = eval_file(hard[i].file, &c), *checks = json_object_get(v, "checks");
		size_t failed = 0;

		cr_expect_eq(c, GATE_REGRESSION, "%s", hard[i].file);
		for (size_t k = 0; k < json_array_size(checks); k++) {
			json_t *ck = json_array_get(checks, k);

			if (strcmp(json_string_value(json_object_get(ck, "status")), "fail"))
				continue;
			failed++;
			cr_expect_str_eq(json_string_value(json_object_get(ck, "name")),
					 hard[i].check);
			cr_expect_str_eq(json_string_value(json_object_get(ck, "detail")),
					 hard[i].detail);
		}
		cr_expect_eq(failed, 1, "%s", hard[i].file);
		cr_expect_not_null(json_object_get(v, "bisect"));
		json_decref(v);
	}
}

Test(gate_vectors, a_foreign_engine_is_a_check_not_an_error)
{
	json_t *doc = tu_json(GFIX "pass.json"), *v;
	enum gate_class c;
	const char *what;
	char *j;

	tu_set(doc, "candidate.execution.engine", json_string("llama.cpp"));
	v = eval_doc(doc, &c, &what, &j);
	cr_assert_not_null(v, "%s: %s", what, j);
	cr_expect_eq(c, GATE_REGRESSION);
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.0.detail")),
			 "got llama.cpp; require fak-native");
	free(j);
	json_decref(v);
	json_decref(doc);
}

Test(gate_vectors, fully_v1_requests_pass)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "v1-pass.json", &c);

	cr_expect_eq(c, GATE_PASS);
	json_decref(v);
}

Test(gate_vectors, a_request_re_decoded_from_its_own_json_gives_the_same_verdict)
{
	json_t *doc = tu_json(GFIX "regression-drop.json"), *a, *b;
	enum gate_class c1, c2;
	const char *what;
	char *j1, *j2, *s1, *s2;

	a = eval_doc(doc, &c1, &what, &j1);
	b = eval_doc(doc, &c2, &what, &j2);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	s1 = json_dumps(a, 0);
	s2 = json_dumps(b, 0);
	cr_expect_str_eq(s1, s2);
	cr_expect_eq(c1, c2);
	free(s1);
	free(s2);
	free(j1);
	free(j2);
	json_decref(a);
	json_decref(b);
	json_decref(doc);
}

/* ---- structural refusals --------------------------------------------------- */

static void refused(const char *path, const char *key, json_t *value, const char *what_want,
		    const char *want)
{
	json_t *doc = tu_json(path), *v;
	enum gate_class c;
	const char *what;
	char *j;

	if (key)
		tu_set(doc, key, value);
	v = eval_doc(doc, &c, &what, &j);
	cr_expect_null(v, "%s %s accepted", path, key ? key : "");
	cr_expect_str_eq(what, what_want, "%s %s", path, key ? key : "");
	cr_expect_str_eq(j, want, "%s %s", path, key ? key : "");
	free(j);
	json_decref(v);
	json_decref(doc);
}

Test(gate_vectors, the_bisect_command_quotes_every_receipt_string)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "regression-hostile-revision.json", &c);

	cr_expect_eq(c, GATE_REGRESSION);
	cr_expect_str_eq(json_string_value(tu_get(v, "bisect.guarded_commands.0")),
			 "git bisect start 'x$(touch pwned)'\\''; touch pwned2 #' 'rev-100' -- "
			 "'internal/model'");
	json_decref(v);
	refused(GFIX "reject-option-revision.json", NULL, NULL,
		"gate: candidate: invalid native-performance receipt",
		"revision: must not start with '-'");
	refused(GFIX "pass.json", "candidate.module_versions.0.module", json_string("-C/tmp"),
		"gate: candidate: invalid native-performance receipt",
		"module_versions[0]: module and revision must not start with '-'");
}

#define BOUNDS "gate: gate policy bounds are absent, stale, or do not match the criterion " \
	"resolved from run identity"
#define POLICY "gate: invalid envelope-scoped gate policy"
#define CRIT "criterion \"exact-match-native-throughput\" of envelope " \
	"\"qwen38-27b-q4k-a100-p1-decode\""

Test(gate_refusals, policy_bounds_must_equal_the_envelope_criterion)
{
	refused(GFIX "reject-stale-policy.json", NULL, NULL, BOUNDS,
		"policy.minimum_quality_score: 0.99, " CRIT " says 1");
	refused(GFIX "reject-missing-floor.json", NULL, NULL, BOUNDS,
		"policy.minimum_throughput_tokens_per_second: 0, " CRIT " says 11");
	refused(GFIX "pass.json", "policy.minimum_repetitions", json_integer(2), BOUNDS,
		"policy.minimum_repetitions: 2, " CRIT " says 3");
	refused(GFIX "pass.json", "policy.quality_higher_is_better", json_false(), BOUNDS,
		"policy.quality_higher_is_better: false, " CRIT " says true");
	refused(GFIX "pass.json", "last_accepted.controls.batch", json_integer(2),
		"gate: last accepted comparison criterion is not resolved",
		"comparison: criterion not resolved: controls.batch must be 1");
}

Test(gate_refusals, policy_rules)
{
	refused(GFIX "reject-policy-envelope.json", NULL, NULL, POLICY,
		"policy.changed_lever_id: lever \"cuda.q8_1-activation-quant\" must belong to the "
		"exact envelope \"other\"");
	refused(GFIX "reject-both-evidence.json", NULL, NULL, POLICY,
		"policy: cannot require both legacy ambient evidence and system baseline evidence");
	refused(GFIX "pass.json", "policy.allow_sampled_system_baseline", json_true(), POLICY,
		"policy.allow_sampled_system_baseline: the sampled opt-in requires "
		"require_system_baseline");
	refused(GFIX "pass.json", "policy.minimum_clean_repetitions", json_integer(2), POLICY,
		"policy.minimum_clean_repetitions: requires require_ambient_evidence");
	refused(GFIX "pass.json", "policy.minimum_clean_repetitions", json_integer(4), POLICY,
		"policy.minimum_clean_repetitions: must be between zero and minimum_repetitions");
	refused(GFIX "pass.json", "policy.maximum_peak_bytes", json_integer(0), POLICY,
		"policy.maximum_peak_bytes: must be positive");
	refused(GFIX "pass.json", "policy.required_engine", json_string("llama.cpp"), POLICY,
		"policy.required_engine: must be \"fak-native\", the engine of envelope "
		"\"qwen38-27b-q4k-a100-p1-decode\"");
	refused(GFIX "pass.json", "schema", json_string(GATE_REQUEST_V1), POLICY,
		"policy.schema: a v1 gate request requires a v1 gate policy");
	refused(GFIX "pass.json", "schema", json_string("gate/v9"), "gate: invalid gate request",
		"schema: must be \"" GATE_REQUEST_V1 "\" or \"" GATE_REQUEST_V2
		"\", got \"gate/v9\"");
}

Test(gate_refusals, v1_policy_cannot_require_system_baselines)
{
	json_t *doc = tu_json(GFIX "v1-pass.json"), *v;
	enum gate_class c;
	const char *what;
	char *j;

	tu_set(doc, "policy.require_system_baseline", json_true());
	v = eval_doc(doc, &c, &what, &j);
	cr_expect_null(v);
	cr_expect_str_eq(j,
			 "policy.schema: a v1 gate policy cannot require system baseline evidence");
	free(j);
	json_decref(doc);
}

Test(gate_refusals, receipts_revision_roles_envelope_and_drift)
{
	refused(GFIX "reject-accepted-revision.json", NULL, NULL,
		"gate: policy is bound to another accepted revision",
		"policy.accepted_revision: \"rev-099\", last_accepted.revision \"rev-100\"");
	refused(GFIX "pass.json", "candidate.machine.scrubbed_id", json_string("lab-node-class-b"),
		"gate: receipts are incomparable: an envelope control axis drifted",
		"machine.scrubbed_id: baseline \"lab-node-class-a\", "
		"candidate \"lab-node-class-b\"");
	refused(GFIX "pass.json", "policy.changed_lever_id", json_string("cuda.dp4a-q4k-mmvq"),
		"gate: policy and receipts must use the exact envelope and lever",
		"candidate.changed_lever_id: \"cuda.q8_1-activation-quant\", policy "
		"\"cuda.dp4a-q4k-mmvq\"\n"
		"last_accepted.changed_lever_id: \"cuda.q8_1-activation-quant\", policy "
		"\"cuda.dp4a-q4k-mmvq\"");
	refused(GFIX "reject-accepted-quality.json", NULL, NULL,
		"gate: last accepted receipt fails the quality policy",
		"last_accepted.quality: exact_match=0 does not meet the policy floor 1");
	refused(GFIX "pass.json", "last_accepted.quality.name", json_string("bleu"),
		"gate: last accepted comparison criterion is not resolved",
		"comparison: criterion not resolved: quality.name must be \"exact_match\"");
	refused(GFIX "pass.json", "last_accepted.quality.higher_is_better", json_false(),
		"gate: last accepted receipt fails the quality policy",
		"last_accepted.quality: exact_match=1 does not meet the policy floor 1");
	refused(GFIX "reject-huge-tps.json", NULL, NULL,
		"gate: candidate: invalid native-performance receipt",
		"repetitions[0].tokens_per_second: 1.7e+308 is outside the sane range "
		"[0.000001, 1000000000]\n"
		"repetitions[1].tokens_per_second: 1.7e+308 is outside the sane range "
		"[0.000001, 1000000000]\n"
		"repetitions[2].tokens_per_second: 1.7e+308 is outside the sane range "
		"[0.000001, 1000000000]");
	refused(GFIX "pass.json", "last_accepted.repetitions.0.tokens_per_second",
		json_real(1e-300), "gate: last accepted: invalid native-performance receipt",
		"repetitions[0].tokens_per_second: 1e-300 is outside the sane range "
		"[0.000001, 1000000000]");
	refused(GFIX "pass.json", "candidate.repetitions.1.end_to_end_milliseconds",
		json_integer(0), "gate: candidate: invalid native-performance receipt",
		"repetitions[1]: lacks positive end-to-end latency and tok/s");
	refused(GFIX "pass.json", "last_accepted.revision", json_string("FILL_COMMITTED_REVISION"),
		"gate: last accepted: invalid native-performance receipt",
		"revision: is a FILL_ template placeholder; fill in the captured value");
	refused(GFIX "pass.json", "last_accepted.revision", json_string(" "),
		"gate: last accepted: invalid native-performance receipt", "revision: is missing");
	/* placeholders never validate, wherever they are */
	refused(GFIX "reject-placeholder-machine.json", NULL, NULL,
		"gate: candidate: invalid native-performance receipt",
		"machine.scrubbed_id: is a FILL_ template placeholder; fill in the captured value");
	refused(GFIX "reject-zero-profile-sha.json", NULL, NULL,
		"gate: last accepted: invalid native-performance receipt",
		"profiler_artifacts[0].sha256: an all-zero SHA-256 is a template placeholder, "
		"not a digest");
	refused(GFIX "pass.json", "candidate.role", json_string("baseline"),
		"gate: candidate: invalid native-performance receipt",
		"changed_axes: a baseline declares no changed axis");
}

/* ---- system-baseline state table ------------------------------------------ */

static struct gate_sb_rep clean_rep(const char *digest, const char *coverage)
{
	struct gate_sb_rep r = { .verified = true, .binding = NULL };

	snprintf(r.facts.digest, sizeof(r.facts.digest), "%s", digest);
	r.binding = r.facts.digest;
	r.facts.verdict = "clean";
	r.facts.coverage = coverage;
	r.facts.baseline_samples = 5;
	r.facts.baseline_duration_ns = 200000000;
	r.facts.baseline_host_cpu_available = true;
	r.facts.host_cpu_available = r.facts.sut_cpu_available = r.facts.non_sut_cpu_available =
		true;
	/* sealed under exactly the sampler's default policy */
	r.facts.policy.minimum_baseline_samples = 2;
	r.facts.policy.minimum_samples = 2;
	r.facts.policy.maximum_non_sut_cpu_percent = 20;
	r.facts.policy.maximum_sampler_duty_percent = 10;
	r.facts.policy.maximum_psi_stall_percent = 5;
	r.facts.policy.require_host_cpu = r.facts.policy.require_sut_cpu = true;
	return r;
}

struct sb_case {
	struct gate_sb_rep a[3], c[3];
	struct gate_sb_side sides[2];
	const struct criterion *crit;	/* the envelope's criterion, NULL: none */
};

static void sb_setup(struct sb_case *k, const char *coverage)
{
	static const char *const d[6] = { "sha256:a0", "sha256:a1", "sha256:a2",
					  "sha256:c0", "sha256:c1", "sha256:c2" };

	for (int i = 0; i < 3; i++) {
		k->a[i] = clean_rep(d[i], coverage);
		k->c[i] = clean_rep(d[3 + i], coverage);
	}
	k->sides[0] = (struct gate_sb_side){ "last_accepted", false, true, 3, 3, k->a };
	k->sides[1] = (struct gate_sb_side){ "candidate", false, true, 3, 3, k->c };
	k->crit = NULL;
	/* bindings point at the (copied) digests */
	for (int i = 0; i < 3; i++) {
		k->a[i].binding = k->a[i].facts.digest;
		k->c[i].binding = k->c[i].facts.digest;
	}
}

static void sb_expect(struct sb_case *k, bool allow, bool pass, const char *detail)
{
	struct strbuf sb = STRBUF_INIT;

	cr_expect_eq(gate_sb_judge(k->sides, allow, k->crit, &sb), pass, "%s", sb_str(&sb));
	cr_expect_str_eq(sb_str(&sb), detail);
	sb_release(&sb);
}

#define SB_PASS "every repetition has a clean system baseline with host/SUT/non-SUT CPU attribution"

Test(gate_sb, exact_coverage_passes_without_the_sampled_opt_in)
{
	struct sb_case k;

	sb_setup(&k, "exact_subreaper_rusage");
	sb_expect(&k, false, true, SB_PASS);
	sb_setup(&k, "exact_cgroup_v2");
	sb_expect(&k, false, true, SB_PASS);
}

Test(gate_sb, sampled_coverage_needs_the_opt_in)
{
	struct sb_case k;

	sb_setup(&k, "sampled_pid_ppid_tree");
	sb_expect(&k, false, false,
		  "last_accepted repetition 0 uses sampled descendant attribution "
		  "without policy opt-in");
	sb_expect(&k, true, true, SB_PASS);
}

Test(gate_sb, every_row_of_the_state_table)
{
	struct sb_case k;

	sb_setup(&k, "exact_subreaper_rusage");
	k.sides[1].has_ambient = true;
	sb_expect(&k, false, false,
		  "candidate mixes legacy ambient evidence with system baseline attestations");

	sb_setup(&k, "exact_subreaper_rusage");
	k.sides[0].is_v2 = false;
	sb_expect(&k, false, false, "last_accepted uses a legacy receipt schema that cannot carry "
				    "system baseline attestations");

	sb_setup(&k, "exact_subreaper_rusage");
	k.sides[1].nr_system_baselines = 2;
	sb_expect(&k, false, false, "candidate has 2 system baselines for 3 repetitions");

	sb_setup(&k, "exact_subreaper_rusage");
	k.c[1].verified = false;
	err_set(&k.c[1].why,
		"canonical digest mismatch: recorded \"sha256:1\", computed \"sha256:2\"");
	sb_expect(&k, false, false, "candidate repetition 1 has an invalid system baseline: "
				    "candidate.system_baselines[1] fails verification: "
				    "canonical digest mismatch: recorded \"sha256:1\", "
				    "computed \"sha256:2\"");

	sb_setup(&k, "exact_subreaper_rusage");
	k.c[2].facts.verdict = "invalid";
	sb_expect(&k, false, false,
		  "candidate repetition 2 has an invalid system baseline: its verdict is invalid");

	sb_setup(&k, "exact_subreaper_rusage");
	k.a[0].facts.has_top_consumers = true;
	sb_expect(&k, false, false,
		  "last_accepted repetition 0 contains high-cardinality process identities");

	sb_setup(&k, "exact_subreaper_rusage");
	k.c[0].binding = k.c[1].facts.digest;
	sb_expect(&k, false, false,
		  "candidate repetition 0 has an invalid or reused system baseline binding");

	sb_setup(&k, "exact_subreaper_rusage");
	k.a[1].binding = NULL;
	sb_expect(&k, false, false,
		  "last_accepted repetition 1 has an invalid or reused system baseline binding");

	/* the candidate rebinds the accepted side's attestation */
	sb_setup(&k, "exact_subreaper_rusage");
	k.c[2] = k.a[1];
	k.c[2].binding = k.c[2].facts.digest;
	sb_expect(&k, false, false,
		  "candidate repetition 2 reuses system baseline evidence from last_accepted "
		  "repetition 1");

	sb_setup(&k, "");
	sb_expect(&k, true, false, "last_accepted repetition 0 has unknown descendant attribution");
	sb_setup(&k, "job_object");
	sb_expect(&k, true, false, "last_accepted repetition 0 has unknown descendant attribution");

	sb_setup(&k, "exact_subreaper_rusage");
	k.c[1].facts.verdict = "investigate";
	sb_expect(&k, false, false, "candidate repetition 1 has a contaminated or required-unknown "
				    "system baseline (verdict investigate)");
}

Test(gate_sb, an_attestation_sealed_under_a_looser_policy_investigates)
{
	static const char *const want[] = {
		"maximum_non_sut_cpu_percent 100 > 20", "maximum_sampler_duty_percent 10.5 > 10",
		"maximum_psi_stall_percent 100 > 5", "minimum_samples 1 < 2",
		"minimum_baseline_samples 1 < 2", "require_host_cpu is false",
		"require_sut_cpu is false",
	};

	for (int axis = 0; axis < 7; axis++) {
		struct sb_case k;
		char detail[256];

		sb_setup(&k, "exact_subreaper_rusage");
		switch (axis) {
		case 0: k.c[1].facts.policy.maximum_non_sut_cpu_percent = 100; break;
		case 1: k.c[1].facts.policy.maximum_sampler_duty_percent = 10.5; break;
		case 2: k.c[1].facts.policy.maximum_psi_stall_percent = 100; break;
		case 3: k.c[1].facts.policy.minimum_samples = 1; break;
		case 4: k.c[1].facts.policy.minimum_baseline_samples = 1; break;
		case 5: k.c[1].facts.policy.require_host_cpu = false; break;
		default: k.c[1].facts.policy.require_sut_cpu = false; break;
		}
		snprintf(detail, sizeof(detail), "candidate repetition 1 was sealed under a looser "
						 "policy than the defaults (%s)", want[axis]);
		sb_expect(&k, false, false, detail);
	}
	/* stricter than the defaults is fine */
	{
		struct sb_case k;

		sb_setup(&k, "exact_subreaper_rusage");
		k.a[0].facts.policy.maximum_non_sut_cpu_percent = 5;
		k.a[0].facts.policy.minimum_samples = 10;
		sb_expect(&k, false, true, SB_PASS);
	}
}

/* A criterion's host policy replaces the defaults' three ceilings, and
 * only those: the detail names the bound it used. */
Test(gate_sb, a_criterion_host_policy_is_the_bound)
{
	struct criterion crit = { .id = "shared-ci", .has_host_policy = true,
				  .host_policy = { 100, 50, 100 } };
	struct criterion none = { .id = "strict" };
	struct sb_case k;

	sb_setup(&k, "exact_subreaper_rusage");
	k.crit = &crit;
	for (int i = 0; i < 3; i++) {
		k.a[i].facts.policy.maximum_non_sut_cpu_percent = 100;
		k.c[i].facts.policy.maximum_sampler_duty_percent = 50;
		k.c[i].facts.policy.maximum_psi_stall_percent = 100;
	}
	sb_expect(&k, false, true, SB_PASS " under the host policy of criterion \"shared-ci\"");
	k.crit = &none;
	sb_expect(&k, false, false, "last_accepted repetition 0 was sealed under a looser policy "
				    "than the defaults (maximum_non_sut_cpu_percent 100 > 20)");
	k.crit = &crit;
	k.c[2].facts.policy.maximum_sampler_duty_percent = 60;
	sb_expect(&k, false, false, "candidate repetition 2 was sealed under a looser policy than "
				    "the host policy of criterion \"shared-ci\" "
				    "(maximum_sampler_duty_percent 60 > 50)");
	k.c[2].facts.policy.maximum_sampler_duty_percent = 50;
	k.a[1].facts.policy.minimum_samples = 1;
	sb_expect(&k, false, false, "last_accepted repetition 1 was sealed under a looser policy "
				    "than the host policy of criterion \"shared-ci\" "
				    "(minimum_samples 1 < 2)");
}

Test(gate_sb, every_required_unknown_axis_investigates)
{
	for (int axis = 0; axis < 6; axis++) {
		struct sb_case k;
		struct attestation_facts *f;

		sb_setup(&k, "exact_subreaper_rusage");
		f = &k.c[0].facts;
		switch (axis) {
		case 0: f->baseline_samples = 1; break;
		case 1: f->baseline_duration_ns = 0; break;
		case 2: f->baseline_host_cpu_available = false; break;
		case 3: f->host_cpu_available = false; break;
		case 4: f->sut_cpu_available = false; break;
		default: f->non_sut_cpu_available = false; break;
		}
		sb_expect(&k, false, false, "candidate repetition 0 has a contaminated or "
					    "required-unknown system baseline (verdict clean)");
	}
}

Test(gate_sb, missing_attestations_investigate_without_bisect_but_hard_checks_win)
{
	json_t *doc = tu_json(GFIX "investigate-no-attestations.json"), *v;
	enum gate_class c;
	const char *what;
	char *j;

	v = eval_doc(doc, &c, &what, &j);
	cr_assert_not_null(v, "%s: %s", what, j);
	free(j);
	cr_expect_eq(c, GATE_INVESTIGATE);
	cr_expect_null(json_object_get(v, "bisect"));
	cr_expect_null(json_object_get(v, "suspect_modules"));
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.7.name")), "system_baseline");
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.7.status")), "investigate");
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.7.detail")),
			 "last_accepted has 0 system baselines for 3 repetitions");
	/* every repetition is listed as excluded, none silently dropped */
	cr_expect_eq(json_array_size(tu_get(v, "candidate_samples.exclusions")), 3);
	cr_expect_str_eq(json_string_value(tu_get(v, "candidate_samples.exclusions.0.reason")),
			 "missing");
	cr_expect_eq(json_integer_value(tu_get(v, "candidate_samples.all_sample.included")), 3);
	json_decref(v);

	/* a tok/s drop that is otherwise a regression: evidence investigates */
	tu_set(doc, "candidate.repetitions.0.tokens_per_second", json_integer(50));
	tu_set(doc, "candidate.repetitions.1.tokens_per_second", json_integer(50));
	tu_set(doc, "candidate.repetitions.2.tokens_per_second", json_integer(50));
	v = eval_doc(doc, &c, &what, &j);
	free(j);
	cr_expect_eq(c, GATE_INVESTIGATE);
	cr_expect_null(json_object_get(v, "bisect"));
	json_decref(v);

	/* a hard check failure is still a regression */
	tu_set(doc, "candidate.memory.peak_bytes", json_integer(2000));
	v = eval_doc(doc, &c, &what, &j);
	free(j);
	cr_expect_eq(c, GATE_REGRESSION);
	cr_expect_not_null(json_object_get(v, "bisect"));
	json_decref(v);
	json_decref(doc);
}

/* ---- the committed CUDA criterion's GPU policy ------------------------------ */

/* The gpu check of a request evaluated against the default graph. */
static void expect_gpu(const char *path, enum gate_class want, const char *status,
		       const char *detail)
{
	enum gate_class c;
	json_t *v = eval_file(path, &c), *checks = json_object_get(v, "checks");
	const json_t *gpu = json_array_get(checks, json_array_size(checks) - 1);

	cr_expect_eq(c, want, "%s", path);
	cr_assert_str_eq(json_string_value(json_object_get(gpu, "name")), "gpu", "%s", path);
	cr_expect_str_eq(json_string_value(json_object_get(gpu, "status")), status, "%s", path);
	cr_expect_str_eq(json_string_value(json_object_get(gpu, "detail")), detail, "%s", path);
	if (want == GATE_INVESTIGATE) {
		const char *reason = json_string_value(json_object_get(v, "reason"));

		cr_expect_str_eq(reason, "the GPU evidence does not qualify (see the gpu check)",
				 "%s", path);
		cr_expect_null(json_object_get(v, "bisect"), "%s: the clocks, not a commit", path);
	}
	json_decref(v);
}

Test(gate_gpu, steady_runs_pass_and_throttled_runs_investigate_naming_run_reason_clocks)
{
	expect_gpu(GFIX "pass.json", GATE_PASS, "pass",
		   "every run's GPU clocks qualify under the criterion");
	expect_gpu(GFIX "gpu-powercap.json", GATE_INVESTIGATE, "investigate",
		   "candidate attestation 1: device 0 (NVIDIA A100-SXM4-80GB): clock-event "
		   "reason(s) sw_power_cap (SM 1200..1200 MHz, mean 1200; memory 1593..1593 MHz, "
		   "mean 1593)");
	expect_gpu(GFIX "gpu-clock-drop.json", GATE_INVESTIGATE, "investigate",
		   "last_accepted attestation 2: device 0 (NVIDIA A100-SXM4-80GB): SM clock drift "
		   "21.88% exceeds 3% (SM 1005..1410 MHz, mean 1157; memory 1593..1593 MHz, mean "
		   "1593)");
	expect_gpu(GFIX "gpu-device-lost.json", GATE_INVESTIGATE, "investigate",
		   "candidate attestation 0: device 0 (NVIDIA A100-SXM4-80GB): 5 failed "
		   "reading(s), first at 151 ms: nvmlDeviceGetClockInfo: GPU is lost");
	expect_gpu(GFIX "gpu-unsealed.json", GATE_INVESTIGATE, "investigate",
		   "last_accepted has no sealed runs to read GPU clocks from");
}

Test(gate_gpu, throttled_clocks_outrank_a_throughput_drop_but_not_a_hard_check)
{
	json_t *doc = tu_json(GFIX "gpu-powercap.json"), *v;
	enum gate_class c;
	const char *what;
	char *j;

	for (int i = 0; i < 3; i++) {
		char key[64];

		snprintf(key, sizeof(key), "candidate.repetitions.%d.tokens_per_second", i);
		tu_set(doc, key, json_integer(90));
	}
	v = eval_doc(doc, &c, &what, &j);
	cr_assert_not_null(v, "%s: %s", what, j);
	free(j);
	cr_expect_eq(c, GATE_INVESTIGATE, "a 10%% drop on a power-capped card is not a regression");
	json_decref(v);

	tu_set(doc, "candidate.execution.fallback_count", json_integer(1));
	v = eval_doc(doc, &c, &what, &j);
	free(j);
	cr_expect_eq(c, GATE_REGRESSION);
	cr_expect_str_eq(json_string_value(json_object_get(v, "reason")),
			 "hard checks failed: fallback, gpu");
	json_decref(v);
	json_decref(doc);
}

Test(gate_gpu, the_metal_envelope_has_no_gpu_check)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "metal-pass.json", &c);

	cr_expect_eq(c, GATE_PASS);
	cr_expect_eq(json_array_size(json_object_get(v, "checks")), 7);
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.6.name")), "throughput_floor");
	json_decref(v);
}

/* ---- legacy ambient evidence ------------------------------------------------ */

/* A sealed ambient evidence object (new reference). */
static json_t *ambient(const char *verdict)
{
	json_t *a = json_pack(
		"{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:f, s:{s:s, s:f}, s:{s:s}, s:{s:s, s:i}, "
		"s:{s:s, s:f}, s:i, s:s}",
		"schema", AMBIENT_SCHEMA, "started_at", "2026-08-26T00:00:00Z", "ended_at",
		"2026-08-26T00:00:01Z", "elapsed_milliseconds", 1000,
		"sample_interval_milliseconds", 250, "source", "procfs", "platform", "linux",
		"sampler_overhead_milliseconds", 1.5, "host_cpu_percent", "availability",
		"measured", "value", 12.5, "available_memory_bytes", "availability", "unavailable",
		"process_churn", "availability", "measured", "value", 3, "non_sut_cpu_percent",
		"availability", "measured", "value", 2.0, "command_exit_code", 0, "verdict",
		verdict);
	char d[JSON_DIGEST_LEN + 1];
	struct err e;

	cr_assert_not_null(a);
	cr_assert_eq(json_digest(a, "digest", d, &e), 0);
	json_object_set_new(a, "digest", json_string(d));
	return a;
}

static void with_ambient(json_t *doc, const char *side, const double tps[3],
			 const char *verdicts[3])
{
	json_t *arr = json_array();
	char key[96];

	for (int i = 0; i < 3; i++) {
		json_array_append_new(arr, ambient(verdicts[i]));
		snprintf(key, sizeof(key), "%s.repetitions.%d.tokens_per_second", side, i);
		tu_set(doc, key, json_real(tps[i]));
	}
	snprintf(key, sizeof(key), "%s.ambient_evidence", side);
	tu_set(doc, key, arr);
}

Test(gate_ambient, clean_only_statistics_exclude_and_list_outliers)
{
	json_t *doc = tu_json(GFIX "metal-pass.json"), *v;
	const double a[3] = { 100, 1, 100 }, c[3] = { 101, 1000, 101 };
	const char *va[3] = { "clean", "investigate", "clean" };
	enum gate_class cls;
	const char *what;
	char *j;

	with_ambient(doc, "last_accepted", a, va);
	with_ambient(doc, "candidate", c, va);
	tu_set(doc, "policy.require_ambient_evidence", json_true());
	tu_set(doc, "policy.minimum_clean_repetitions", json_integer(2));
	v = eval_doc(doc, &cls, &what, &j);
	cr_assert_not_null(v, "%s: %s", what, j);
	free(j);
	/* 2 + 2 clean ones reach no 90% interval: undecided, never a pass */
	cr_expect_eq(cls, GATE_INVESTIGATE);
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.verdict")), "undecided");
	cr_expect(json_is_false(tu_get(v, "decision.level_attained")));
	cr_expect_eq(json_real_value(tu_get(v, "accepted_samples.clean_only.median_tokens_per_"
						"second")),
		     100);
	cr_expect_eq(json_integer_value(tu_get(v, "accepted_samples.all_sample.included")), 3);
	cr_expect_eq(json_integer_value(tu_get(v, "accepted_samples.clean_only.included")), 2);
	cr_expect_eq(json_array_size(tu_get(v, "candidate_samples.exclusions")), 1);
	cr_expect_eq(json_integer_value(tu_get(v, "candidate_samples.exclusions.0.repetition")), 1);
	cr_expect_str_eq(json_string_value(tu_get(v, "candidate_samples.exclusions.0.reason")),
			 "investigate");
	/* the shift is of the same population: 101, 101 against 100, 100 */
	cr_expect_str_eq(json_string_value(tu_get(v, "decision.population")), "clean_only");
	cr_expect_float_eq(json_number_value(tu_get(v, "decision.shift_percent")), 1, 1e-12);
	cr_expect_float_eq(json_number_value(tu_get(v, "decision.level")), 1 - 2.0 / 6, 1e-15);
	json_decref(v);

	tu_set(doc, "policy.minimum_clean_repetitions", json_integer(3));
	v = eval_doc(doc, &cls, &what, &j);
	cr_expect_null(v);
	cr_expect_str_eq(what, "gate: too few clean repetitions for the policy");
	cr_expect_str_eq(j,
			 "candidate has 2 clean repetitions; policy requires 3; rerun with clean "
			 "ambient attestations\n"
			 "last_accepted has 2 clean repetitions; policy requires 3; rerun with "
			 "clean ambient attestations");
	free(j);
	json_decref(doc);
}

Test(gate_ambient, any_unclean_verdict_investigates_without_a_clean_floor)
{
	json_t *doc = tu_json(GFIX "metal-pass.json"), *v;
	const double t[3] = { 100, 101, 100 };
	const char *clean[3] = { "clean", "clean", "clean" },
		   *one[3] = { "clean", "clean", "investigate" };
	enum gate_class cls;
	const char *what;
	char *j;

	with_ambient(doc, "last_accepted", t, clean);
	with_ambient(doc, "candidate", t, clean);
	tu_set(doc, "policy.require_ambient_evidence", json_true());
	v = eval_doc(doc, &cls, &what, &j);
	free(j);
	cr_expect_eq(cls, GATE_PASS);
	json_decref(v);

	with_ambient(doc, "candidate", t, one);
	v = eval_doc(doc, &cls, &what, &j);
	free(j);
	cr_expect_eq(cls, GATE_INVESTIGATE);
	cr_assert_eq(json_array_size(json_object_get(v, "checks")), 1);
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.0.name")), "ambient_evidence");
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.0.detail")),
			 "candidate repetition 2 verdict=investigate");
	json_decref(v);

	/* one entry fewer: the receipt itself is refused */
	cr_assert_eq(json_array_remove(tu_get(doc, "candidate.ambient_evidence"), 2), 0);
	v = eval_doc(doc, &cls, &what, &j);
	cr_expect_null(v);
	cr_expect_str_eq(j, "ambient_evidence: 2 entries must align 1:1 with 3 repetitions");
	free(j);
	json_decref(doc);
}

Test(gate_ambient, evidence_rules_and_digest)
{
	json_t *doc = tu_json(GFIX "metal-pass.json"), *v;
	const double t[3] = { 100, 101, 100 };
	const char *clean[3] = { "clean", "clean", "clean" };
	enum gate_class cls;
	const char *what;
	char *j;

	with_ambient(doc, "candidate", t, clean);
	tu_set(doc, "candidate.ambient_evidence.1.source", json_string("edited"));
	tu_set(doc, "candidate.ambient_evidence.2.available_memory_bytes",
	       json_pack("{s:s, s:i}", "availability", "unknown", "value", 5));
	v = eval_doc(doc, &cls, &what, &j);
	cr_expect_null(v);
	cr_expect(strstr(j, "ambient_evidence[1]: ambient evidence digest mismatch") == j, "%s", j);
	cr_expect(strstr(j, "\nambient_evidence[2]: available_memory_bytes cannot carry a value "
			    "when unmeasured") != NULL, "%s", j);
	free(j);
	json_decref(doc);
}

Test(gate_ambient, strict_policy_with_ambient_on_the_candidate_investigates_without_bisect)
{
	json_t *doc = tu_json(GFIX "sb-pass.json"), *v;
	const double t[3] = { 2.71, 2.7, 2.72 };
	const char *clean[3] = { "clean", "clean", "clean" };
	enum gate_class cls;
	const char *what;
	char *j;

	v = eval_doc(doc, &cls, &what, &j);
	cr_assert_not_null(v, "%s: %s", what, j);
	free(j);
	cr_expect_eq(cls, GATE_PASS);
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.7.detail")),
	    "every repetition has a clean system baseline with host/SUT/non-SUT CPU attribution");
	json_decref(v);

	with_ambient(doc, "candidate", t, clean);
	v = eval_doc(doc, &cls, &what, &j);
	cr_assert_not_null(v, "%s: %s", what, j);
	free(j);
	cr_expect_eq(cls, GATE_INVESTIGATE);
	cr_expect_null(json_object_get(v, "bisect"));
	cr_expect_str_eq(
		json_string_value(tu_get(v, "checks.7.detail")),
		"candidate mixes legacy ambient evidence with system baseline attestations");
	json_decref(v);
	json_decref(doc);
}

/* The refusal of the request at path under the committed graph (what
 * gate_evaluate says; its findings in f). */
static const char *refusal_on_committed_graph(const char *path, struct findings *f)
{
	struct graph g;
	struct gate_request q;
	const char *what = NULL;
	enum gate_class cls;
	struct err e;

	tu_graph(&g);
	cr_assert_eq(gate_load(&q, path, &e), 0, "%s", e.msg);
	cr_expect_null(gate_evaluate(&q, &g, &cls, &what, f));
	gate_release(&q);
	graph_release(&g);
	return what;
}

/* The committed CUDA envelope pins a placeholder, not a hash: its receipts
 * never pass, however well they measure (issue 26). */
Test(gate_refusals, a_placeholder_artifact_hash_never_passes)
{
	struct findings f = FINDINGS_INIT;

	cr_expect_str_eq(refusal_on_committed_graph(GFIX "reject-placeholder-artifact.json", &f),
			 GATE_WHAT_ARTIFACT_HASH);
	cr_assert_eq(f.nr, 2);
	cr_expect_str_eq(f.items[0], "candidate.artifact_sha256: \"issue-8635-pinned-artifact\" "
				     "is not a sha256 (64 lowercase hex digits): the gate passes "
				     "only receipts pinned to their artifact by hash; pin the "
				     "envelope to the artifact's sha256 (a new envelope) and "
				     "measure again");
	cr_expect(!strncmp(f.items[1], "last_accepted.artifact_sha256: ", 31));
	findings_release(&f);
}

/* A declared engine identity (no sealed run stated it) investigates,
 * without a bisect packet, unless the policy allows it. */
Test(gate_identity, declared_investigates_without_the_allowance)
{
	enum gate_class c;
	json_t *v = eval_file(GFIX "investigate-declared-identity.json", &c);

	cr_expect_eq(c, GATE_INVESTIGATE);
	cr_expect_str_eq(json_string_value(json_object_get(v, "reason")),
			 "the engine identity is declared, not observed (see the identity "
			 "check)");
	cr_expect_str_eq(json_string_value(tu_get(v, "checks.2.status")), "investigate");
	cr_expect_null(json_object_get(v, "bisect"), "about the evidence, not the code");
	json_decref(v);
}

/* What a run says about itself against the envelope: each rule, in
 * order, with its exact reason. */
Test(gate_identity, a_run_agrees_with_its_envelope)
{
	struct envelope env = { .id = "e", .engine = "llama.cpp", .backend = "metal",
				.forward_path = "llama.cpp de3ff81 ggml-metal" };
	static const struct {
		struct wl_identity id;
		const char *why;	/* NULL: agrees */
	} t[] = {
		{ { .engine = "" }, NULL },
		{ { .engine = "llama.cpp", .build_commit = "de3ff81", .backends = "Metal,BLAS" },
		  NULL },
		{ { .engine = "fak-native", .model_type = "llama 1B" },
		  "shows engine \"fak-native\" (model type \"llama 1B\"), but envelope \"e\" "
		  "names engine \"llama.cpp\": a run of one engine cannot witness another's "
		  "envelope" },
		{ { .forward_path = "llama.cpp x" },
		  "states forward path \"llama.cpp x\", but envelope \"e\" pins \"llama.cpp "
		  "de3ff81 ggml-metal\"" },
		{ { .build_commit = "de3ff" },
		  "shows build \"de3ff\", which envelope \"e\"'s forward path \"llama.cpp "
		  "de3ff81 ggml-metal\" does not name: pin the build in the forward path (a new "
		  "envelope)" },
		{ { .backends = "CUDA" },
		  "shows backends \"CUDA\", but envelope \"e\" runs on backend \"metal\"" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct strbuf why = STRBUF_INIT;
		bool ok = receipt_identity_agrees(&env, &t[i].id, &why);

		cr_expect_eq(ok, t[i].why == NULL, "case %zu: %s", i, why.buf);
		if (t[i].why)
			cr_expect_str_eq(why.buf, t[i].why, "case %zu", i);
		sb_release(&why);
	}
}

/* Row 7a: a run of the runner (a workload) shows the pinned artifact in use. */
Test(gate_sb, a_sealed_run_shows_the_artifact_in_use)
{
	struct sb_case k;

	sb_setup(&k, "exact_subreaper_rusage");
	for (int i = 0; i < 3; i++) {
		struct attestation_facts *f[2] = { &k.a[i].facts, &k.c[i].facts };

		for (int s = 0; s < 2; s++)
			f[s]->has_workload = f[s]->artifact_looked = f[s]->artifact_observable =
				f[s]->artifact_observed = true;
	}
	sb_expect(&k, false, true, SB_PASS);
	k.c[1].facts.artifact_observed = false;
	sb_expect(&k, false, false, "candidate repetition 1 does not show the pinned artifact in "
				    "use: artifact_observed is false");
	k.c[1].facts.artifact_observable = false;
	sb_expect(&k, false, false, "candidate repetition 1 does not show the pinned artifact in "
				    "use: this OS does not show it (artifact_observed not "
				    "observable)");
	k.c[1].facts.artifact_looked = false;
	sb_expect(&k, false, false, "candidate repetition 1 does not show the pinned artifact in "
				    "use: it was sealed before fak looked for it");
	/* a manual loop's run (no workload) is not the runner's: nothing to show */
	k.c[1].facts.has_workload = false;
	sb_expect(&k, false, true, SB_PASS);
}

/* A request's receipt whose document equals a known (decoded) one is that
 * receipt, shared: not decoded or verified again, and left to its owner. */
Test(gate_parse, known_receipts_are_shared_not_decoded_again)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *req, *other;
	struct receipt la, cand;
	const struct receipt *known[2] = { &la, &cand };
	struct gate_request q;
	struct err e;

	cr_assert_eq(file_read(GFIX "sb-pass.json", (size_t)64 << 20, &sb, &e), 0, "%s", e.msg);
	req = json_parse_strict(sb.buf, sb.len, "sb-pass.json", &e);
	cr_assert_not_null(req, "%s", e.msg);
	cr_assert_eq(receipt_decode(&la, json_object_get(req, "last_accepted"), NULL, &e), 0,
		     "%s", e.msg);
	other = json_deep_copy(json_object_get(req, "candidate"));
	tu_set(other, "revision", json_string("another"));
	cr_assert_eq(receipt_decode(&cand, other, NULL, &e), 0, "%s", e.msg);

	cr_assert_eq(gate_parse_known(&q, sb.buf, sb.len, "req", known, 2, &e), 0, "%s", e.msg);
	cr_expect(q.shared_last_accepted);
	cr_expect_eq(q.last_accepted.system_baselines, la.system_baselines);
	cr_expect_not(q.shared_candidate, "a candidate that differs is decoded");
	cr_expect_neq(q.candidate.system_baselines, cand.system_baselines);
	cr_expect(q.candidate.system_baselines[0].verified);
	gate_release(&q);
	cr_expect(la.system_baselines[0].verified, "left to its owner");

	receipt_release(&la);
	receipt_release(&cand);
	json_decref(other);
	json_decref(req);
	sb_release(&sb);
}
