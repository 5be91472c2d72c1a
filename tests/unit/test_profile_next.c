/* --profile-next: the recommendation against the envelope's first ready
 * lever in graph order, issue-backed overrides, and the dependency fence
 * that no override can bypass. */
#include <stdint.h>

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

TestSuite(profile_next, .init = setup, .fini = teardown);

/* Runs profile_next; returns the selected lever id, or NULL with the
 * refusal in *e (validation findings fail the test). */
static const char *select_next(const struct profile *p, struct err *e)
{
	struct findings f = FINDINGS_INIT;
	struct profile_next n;
	int rc = profile_next(p, &g, &f, &n, e);

	cr_assert_eq(f.nr, 0, "unexpected finding: %s", f.nr ? f.items[0] : "");
	return rc == 0 ? n.lever->id : NULL;
}

static void expect_refusal(const struct profile *p, const char *msg)
{
	struct err e;

	cr_expect_null(select_next(p, &e), "selected despite: %s", msg);
	cr_expect_str_eq(e.msg, msg);
}

static struct lever *mutable_lever(const char *id)
{
	return (struct lever *)(uintptr_t)graph_lever(&g, id);
}

Test(profile_next, fixtures_select_their_lever)
{
	static const struct {
		const char *fixture, *lever;
	} cases[] = {
		{ "synthetic-metal-launch-bound.json", "metal.command-buffer-amortization" },
		{ "synthetic-metal-attribution-unavailable.json",
		  "metal.command-buffer-amortization" },
		{ "synthetic-cuda-bandwidth-bound.json", "cuda.q8_1-activation-quant" },
		{ "synthetic-metal-bandwidth-override.json", "metal.paged-kv" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct profile p;
		struct err e;
		const char *id;

		tp_load(&p, cases[i].fixture);
		id = select_next(&p, &e);
		cr_expect_not_null(id, "%s: %s", cases[i].fixture, e.msg);
		if (id)
			cr_expect_str_eq(id, cases[i].lever, "%s", cases[i].fixture);
		profile_release(&p);
	}
}

Test(profile_next, contradiction_without_override_is_refused)
{
	struct profile p;

	tp_load(&p, "reject-profile-next-contradiction-without-override.json");
	cr_expect_str_eq(tp_class(&p, &g), "bandwidth-bound");
	expect_refusal(&p, "profile contradicts graph-order lever "
			   "\"metal.command-buffer-amortization\" with measured recommendation "
			   "\"metal.paged-kv\"; record a positive issue number and issue-backed "
			   "reason");
	profile_release(&p);
}

Test(profile_next, an_invalid_override_is_a_validation_finding)
{
	struct profile p;
	struct findings f = FINDINGS_INIT;
	struct profile_next n;
	struct err e;

	tp_load(&p, "synthetic-metal-bandwidth-override.json");
	p.override.issue_number = 0;
	cr_expect_eq(profile_next(&p, &g, &f, &n, &e), -1);
	cr_assert_eq(f.nr, 1);
	cr_expect_str_eq(f.items[0], "selection override requires a positive issue number and "
				     "scrubbed issue-backed reason");
	findings_release(&f);
	profile_release(&p);
}

Test(profile_next, unmet_dependencies_are_refused_even_with_an_override)
{
	struct profile p;

	/* compute-bound CUDA recommends DP4A, whose Q8_1 dependency is off */
	tp_load(&p, "synthetic-cuda-bandwidth-bound.json");
	p.cuda.achieved_bandwidth_gbs = 500;
	p.cuda.achieved_compute_tflops = 80;
	expect_refusal(&p, "profile recommendation \"cuda.dp4a-q4k-mmvq\" is not an unwitnessed "
			   "dependency-ready lever: dependency \"cuda.q8_1-activation-quant\" is "
			   "not enabled");
	p.has_override = true;
	p.override.issue_number = 8635;
	p.override.reason = "issue-backed reason";
	expect_refusal(&p, "profile recommendation \"cuda.dp4a-q4k-mmvq\" is not an unwitnessed "
			   "dependency-ready lever: dependency \"cuda.q8_1-activation-quant\" is "
			   "not enabled");
	/* synchronization-bound CUDA recommends default routing (DP4A off) */
	p.cuda.achieved_compute_tflops = 18;
	p.cuda.synchronization_ms = 20;
	expect_refusal(&p, "profile recommendation \"cuda.default-decode-routing\" is not an "
			   "unwitnessed dependency-ready lever: dependency \"cuda.dp4a-q4k-mmvq\" "
			   "is not enabled");
	profile_release(&p);

	/* compute-bound Metal recommends fused coverage (amortization off) */
	tp_load(&p, "synthetic-metal-bandwidth-override.json");
	p.metal.working_set_bytes = p.metal.resident_bytes;
	p.metal.dispatch_ms = 30;
	cr_expect_str_eq(tp_class(&p, &g), "compute-bound");
	expect_refusal(&p, "profile recommendation \"metal.fused-hybrid-graph-coverage\" is not an "
			   "unwitnessed dependency-ready lever: dependency "
			   "\"metal.command-buffer-amortization\" is not enabled");
	profile_release(&p);
}

Test(profile_next, enabled_or_witnessed_recommendations_are_refused)
{
	struct profile p;
	struct lever *l = mutable_lever("metal.command-buffer-amortization");

	tp_load(&p, "synthetic-metal-launch-bound.json");
	l->enabled = true;
	expect_refusal(&p, "profile recommendation \"metal.command-buffer-amortization\" is not an "
			   "unwitnessed dependency-ready lever: it is already enabled");
	l->enabled = false;
	l->has_witnessed = true;
	expect_refusal(&p, "profile recommendation \"metal.command-buffer-amortization\" is not an "
			   "unwitnessed dependency-ready lever: it is already witnessed");
	profile_release(&p);
}

Test(profile_next, enabling_a_dependency_advances_graph_order)
{
	struct profile p;
	struct err e;
	const char *id;

	/* once amortization is enabled, fused coverage is both the measured
	 * recommendation and the first ready Metal lever: no override needed */
	mutable_lever("metal.command-buffer-amortization")->enabled = true;
	tp_load(&p, "synthetic-metal-launch-bound.json");
	p.metal.command_buffers = 12;
	cr_expect_str_eq(tp_class(&p, &g), "compute-bound");
	id = select_next(&p, &e);
	cr_assert_not_null(id, "%s", e.msg);
	cr_expect_str_eq(id, "metal.fused-hybrid-graph-coverage");
	/* and bandwidth-bound paged KV now contradicts fused coverage */
	p.metal.working_set_bytes = p.metal.resident_bytes + 1;
	expect_refusal(&p, "profile contradicts graph-order lever "
			   "\"metal.fused-hybrid-graph-coverage\" with measured recommendation "
			   "\"metal.paged-kv\"; record a positive issue number and issue-backed "
			   "reason");
	profile_release(&p);
}

Test(profile_next, output_keeps_an_accepted_override)
{
	struct profile p;
	struct findings f = FINDINGS_INIT;
	struct profile_next n;
	struct err e;
	json_t *doc;

	tp_load(&p, "synthetic-metal-bandwidth-override.json");
	cr_assert_eq(profile_next(&p, &g, &f, &n, &e), 0, "%s", e.msg);
	doc = profile_next_json(&p, &n);
	{
		const char *keys[3], *key;
		json_t *v;
		size_t k = 0;

		json_object_foreach(doc, key, v)
			if (k < 3)
				keys[k++] = key;
		cr_assert_eq(json_object_size(doc), 3);
		cr_expect_str_eq(keys[0], "classification");
		cr_expect_str_eq(keys[1], "lever");
		cr_expect_str_eq(keys[2], "selection_override");
	}
	{
		char *got = tp_json(json_incref(json_object_get(doc, "selection_override")));

		cr_expect_str_eq(got, "{\n"
				      "  \"issue_number\": 8395,\n"
				      "  \"reason\": \"Synthetic Metal fixture exercises an "
				      "issue-backed same-envelope graph-order override.\"\n"
				      "}\n");
		free(got);
	}
	{
		char *got = tp_json(json_incref(json_object_get(doc, "lever")));
		char *want = tp_json(graph_lever_json(graph_lever(&g, "metal.paged-kv")));

		cr_expect_str_eq(got, want);
		free(got);
		free(want);
	}
	json_decref(doc);
	profile_release(&p);

	/* an override is kept even when it was not needed */
	tp_load(&p, "synthetic-metal-launch-bound.json");
	p.has_override = true;
	p.override.issue_number = 8324;
	p.override.reason = "confirming graph order";
	cr_assert_eq(profile_next(&p, &g, &f, &n, &e), 0, "%s", e.msg);
	doc = profile_next_json(&p, &n);
	cr_expect_not_null(json_object_get(doc, "selection_override"));
	json_decref(doc);
	profile_release(&p);

	/* and absent when the bundle has none */
	tp_load(&p, "synthetic-cuda-bandwidth-bound.json");
	cr_assert_eq(profile_next(&p, &g, &f, &n, &e), 0, "%s", e.msg);
	doc = profile_next_json(&p, &n);
	cr_expect_eq(json_object_size(doc), 2);
	cr_expect_null(json_object_get(doc, "selection_override"));
	json_decref(doc);
	profile_release(&p);
}

Test(profile_next, output_is_deterministic)
{
	struct profile p;
	struct findings f = FINDINGS_INIT;
	struct profile_next n1, n2;
	struct err e;
	char *a, *b;

	tp_load(&p, "synthetic-metal-bandwidth-override.json");
	cr_assert_eq(profile_next(&p, &g, &f, &n1, &e), 0);
	cr_assert_eq(profile_next(&p, &g, &f, &n2, &e), 0);
	a = tp_json(profile_next_json(&p, &n1));
	b = tp_json(profile_next_json(&p, &n2));
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	profile_release(&p);
}
