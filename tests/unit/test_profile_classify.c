/* The classifier: the committed rule tables, every threshold just below, at
 * and just above on both backends, the rounding vectors of double division,
 * and the fence between Metal and CUDA counters. */
#include <math.h>
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

TestSuite(profile_classify, .init = setup, .fini = teardown);

/* ---- the committed tables --------------------------------------------- */

static const struct {
	enum profile_backend backend;
	size_t nr_cond;
	enum profile_metric m0;
	enum profile_op op0;
	double t0;
	enum profile_metric m1;
	enum profile_op op1;
	double t1;
	const char *cls, *confidence, *lever;
} committed[] = {
	{ PROFILE_METAL, 1, PM_METAL_WAIT_SHARE, PO_GE, 0.30, 0, 0, 0,
	  "synchronization-bound", "medium", "metal.command-buffer-amortization" },
	{ PROFILE_METAL, 1, PM_METAL_COMMAND_BUFFERS, PO_GE, 32, 0, 0, 0,
	  "launch-bound", "medium", "metal.command-buffer-amortization" },
	{ PROFILE_METAL, 1, PM_METAL_WORKING_SET_EXCESS, PO_GT, 0, 0, 0, 0,
	  "bandwidth-bound", "medium", "metal.paged-kv" },
	{ PROFILE_METAL, 1, PM_METAL_DISPATCH_SHARE, PO_GE, 0.70, 0, 0, 0,
	  "compute-bound", "low", "metal.fused-hybrid-graph-coverage" },
	{ PROFILE_METAL, 0, 0, 0, 0, 0, 0, 0,
	  "cpu-orchestration-bound", "low", "metal.command-buffer-amortization" },
	{ PROFILE_CUDA, 1, PM_CUDA_SYNC_SHARE, PO_GE, 0.30, 0, 0, 0,
	  "synchronization-bound", "medium", "cuda.default-decode-routing" },
	{ PROFILE_CUDA, 1, PM_CUDA_LAUNCHES, PO_GE, 64, 0, 0, 0,
	  "launch-bound", "medium", "cuda.default-decode-routing" },
	{ PROFILE_CUDA, 2, PM_CUDA_BANDWIDTH_SHARE, PO_GE, 0.70, PM_CUDA_COMPUTE_SHARE, PO_LT, 0.60,
	  "bandwidth-bound", "high", "cuda.q8_1-activation-quant" },
	{ PROFILE_CUDA, 1, PM_CUDA_COMPUTE_SHARE, PO_GE, 0.70, 0, 0, 0,
	  "compute-bound", "high", "cuda.dp4a-q4k-mmvq" },
	{ PROFILE_CUDA, 0, 0, 0, 0, 0, 0, 0,
	  "cpu-orchestration-bound", "low", "cuda.default-decode-routing" },
};

Test(profile_classify, rule_tables_hold_the_committed_thresholds_in_order)
{
	size_t nm, nc, k = 0;
	const struct profile_rule *metal = profile_rules(PROFILE_METAL, &nm);
	const struct profile_rule *cuda = profile_rules(PROFILE_CUDA, &nc);

	cr_assert_eq(nm + nc, sizeof(committed) / sizeof(committed[0]));
	for (size_t i = 0; i < nm + nc; i++, k++) {
		const struct profile_rule *r = i < nm ? &metal[i] : &cuda[i - nm];

		cr_assert_eq(committed[k].backend, i < nm ? PROFILE_METAL : PROFILE_CUDA);
		cr_expect_eq(r->nr_cond, committed[k].nr_cond, "row %zu", i);
		if (r->nr_cond > 0) {
			cr_expect_eq(r->cond[0].metric, committed[k].m0, "row %zu", i);
			cr_expect_eq(r->cond[0].op, committed[k].op0, "row %zu", i);
			cr_expect_eq(r->cond[0].threshold, committed[k].t0, "row %zu", i);
		}
		if (r->nr_cond > 1) {
			cr_expect_eq(r->cond[1].metric, committed[k].m1, "row %zu", i);
			cr_expect_eq(r->cond[1].op, committed[k].op1, "row %zu", i);
			cr_expect_eq(r->cond[1].threshold, committed[k].t1, "row %zu", i);
		}
		cr_expect_str_eq(r->class_name, committed[k].cls, "row %zu", i);
		cr_expect_str_eq(r->confidence, committed[k].confidence, "row %zu", i);
		cr_expect_str_eq(r->lever_id, committed[k].lever, "row %zu", i);
	}
}

Test(profile_classify, tables_never_mix_backends_and_end_with_a_fallback)
{
	static const enum profile_backend backends[] = { PROFILE_METAL, PROFILE_CUDA };

	for (size_t b = 0; b < 2; b++) {
		size_t nr;
		const struct profile_rule *r = profile_rules(backends[b], &nr);

		cr_assert_gt(nr, 0);
		cr_expect_eq(r[nr - 1].nr_cond, 0, "the last row always matches");
		for (size_t i = 0; i < nr; i++) {
			cr_expect(i == nr - 1 || r[i].nr_cond > 0, "only the last row is "
								   "unconditional");
			for (size_t k = 0; k < r[i].nr_cond; k++)
				cr_expect_eq(profile_metric_backend(r[i].cond[k].metric),
					     backends[b], "%s used by the other backend's table",
					     profile_metric_name(r[i].cond[k].metric));
			/* every recommended lever is a lever of that backend's envelope */
			{
				const struct lever *l = graph_lever(&g, r[i].lever_id);

				cr_assert_not_null(l, "%s", r[i].lever_id);
				cr_expect_str_eq(l->app.backend, b == 0 ? "metal" : "cuda");
			}
		}
	}
}

/* ---- boundaries --------------------------------------------------------- */

static const char METAL[] = "synthetic-metal-launch-bound.json";
static const char CUDA[] = "synthetic-cuda-bandwidth-bound.json";

/* A Metal bundle whose only pressure is the one under test: D = 40, wait 4,
 * 12 command buffers, working set = resident, dispatch 20 (0.5 of D). */
static void quiet_metal(struct profile *p)
{
	tp_load(p, METAL);
	p->metal.command_buffers = 12;
	p->metal.dispatch_ms = 20;
}

/* A CUDA bundle with nothing dominant: D = 40, sync 4, 24 launches,
 * bandwidth 0.5, compute 0.18. */
static void quiet_cuda(struct profile *p)
{
	tp_load(p, CUDA);
	p->cuda.achieved_bandwidth_gbs = 500;
}

struct point {
	double v;
	const char *cls;
};

/* Setters of the counters under test (counts are set from small doubles). */
#define SETTER(fn, field, type)                                 \
	static void fn(struct profile *p, double v)             \
	{                                                       \
		p->field = (type)v;                             \
	}
SETTER(set_wait, metal.wait_ms, double)
SETTER(set_command_buffers, metal.command_buffers, long long)
SETTER(set_dispatch, metal.dispatch_ms, double)
SETTER(set_sync, cuda.synchronization_ms, double)
SETTER(set_launches, cuda.launches, long long)
SETTER(set_bandwidth, cuda.achieved_bandwidth_gbs, double)
SETTER(set_compute, cuda.achieved_compute_tflops, double)

static void expect_points(struct profile *p, void (*set)(struct profile *, double),
			  const struct point *pts, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		set(p, pts[i].v);
		cr_expect_str_eq(tp_class(p, &g), pts[i].cls, "%s = %.17g", what, pts[i].v);
	}
}

#define EXPECT_POINTS(p, set, ...)                                                   \
	do {                                                                         \
		const struct point pts_[] = { __VA_ARGS__ };                          \
		expect_points((p), (set), pts_, sizeof(pts_) / sizeof(pts_[0]), #set); \
	} while (0)

Test(profile_classify, metal_wait_share_threshold)
{
	struct profile p;

	quiet_metal(&p);
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	EXPECT_POINTS(&p, set_wait,
		      { 11.99, "cpu-orchestration-bound" },
		      { nextafter(12, 0), "cpu-orchestration-bound" },
		      { 12, "synchronization-bound" },
		      { 12.01, "synchronization-bound" });
	/* sync wins over launch: the table is tested top-down */
	p.metal.command_buffers = 40;
	EXPECT_POINTS(&p, set_wait, { 11.99, "launch-bound" }, { 12, "synchronization-bound" });
	profile_release(&p);
}

Test(profile_classify, metal_command_buffer_threshold)
{
	struct profile p;

	quiet_metal(&p);
	EXPECT_POINTS(&p, set_command_buffers,
		      { 31, "cpu-orchestration-bound" },
		      { 32, "launch-bound" },
		      { 33, "launch-bound" },
		      { 1e15, "launch-bound" });
	profile_release(&p);
}

Test(profile_classify, metal_working_set_threshold)
{
	struct profile p;

	quiet_metal(&p);
	p.metal.working_set_bytes = p.metal.resident_bytes - 1;
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	p.metal.working_set_bytes = p.metal.resident_bytes;
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	p.metal.working_set_bytes = p.metal.resident_bytes + 1;
	cr_expect_str_eq(tp_class(&p, &g), "bandwidth-bound");
	/* compared as integers: exact beyond 2^53, where doubles would be equal */
	p.metal.resident_bytes = 1ULL << 53;
	p.metal.working_set_bytes = (1ULL << 53) + 1;
	cr_expect_eq((double)p.metal.resident_bytes, (double)p.metal.working_set_bytes);
	cr_expect_str_eq(tp_class(&p, &g), "bandwidth-bound");
	p.metal.resident_bytes = (1ULL << 53) + 1;
	p.metal.working_set_bytes = 1ULL << 53;
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	profile_release(&p);
}

Test(profile_classify, metal_dispatch_share_threshold)
{
	struct profile p;

	quiet_metal(&p);
	EXPECT_POINTS(&p, set_dispatch,
		      { 27.99, "cpu-orchestration-bound" },
		      { 28, "compute-bound" },
		      { 28.01, "compute-bound" });
	/* bandwidth wins over compute */
	p.metal.working_set_bytes = p.metal.resident_bytes + 1;
	EXPECT_POINTS(&p, set_dispatch, { 28, "bandwidth-bound" });
	profile_release(&p);
}

Test(profile_classify, metal_rounding_vectors_use_double_division)
{
	struct profile p;

	quiet_metal(&p);
	/* 2.01 / 6.7 = 0.29999999999999993: not synchronization-bound,
	 * although 2.01 >= 0.30 * 6.7 */
	p.phases[3].duration_ms = 6.7;
	p.metal.dispatch_ms = 1;
	p.metal.wait_ms = 2.01;
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	/* 3.09 / 10.3 = 0.3: synchronization-bound, although 3.09 < 0.30 * 10.3 */
	p.phases[3].duration_ms = 10.3;
	p.metal.wait_ms = 3.09;
	cr_expect_str_eq(tp_class(&p, &g), "synchronization-bound");
	/* 24.99 / 35.7 = 0.7: compute-bound */
	p.phases[3].duration_ms = 35.7;
	p.metal.wait_ms = 1;
	p.metal.dispatch_ms = 24.99;
	cr_expect_str_eq(tp_class(&p, &g), "compute-bound");
	profile_release(&p);
}

Test(profile_classify, cuda_sync_share_threshold)
{
	struct profile p;

	quiet_cuda(&p);
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	EXPECT_POINTS(&p, set_sync,
		      { 11.99, "cpu-orchestration-bound" },
		      { nextafter(12, 0), "cpu-orchestration-bound" },
		      { 12, "synchronization-bound" },
		      { 12.01, "synchronization-bound" });
	profile_release(&p);
}

Test(profile_classify, cuda_launch_threshold)
{
	struct profile p;

	quiet_cuda(&p);
	EXPECT_POINTS(&p, set_launches,
		      { 63, "cpu-orchestration-bound" },
		      { 64, "launch-bound" },
		      { 65, "launch-bound" });
	/* launch wins over bandwidth */
	p.cuda.achieved_bandwidth_gbs = 800;
	cr_expect_str_eq(tp_class(&p, &g), "launch-bound");
	profile_release(&p);
}

Test(profile_classify, cuda_bandwidth_share_threshold)
{
	struct profile p;

	quiet_cuda(&p);
	EXPECT_POINTS(&p, set_bandwidth,
		      { 699.99, "cpu-orchestration-bound" },
		      { nextafter(700, 0), "cpu-orchestration-bound" },
		      { 700, "bandwidth-bound" },
		      { 700.01, "bandwidth-bound" },
		      { 1000, "bandwidth-bound" });
	profile_release(&p);
}

Test(profile_classify, cuda_compute_below_share_threshold)
{
	struct profile p;

	quiet_cuda(&p);
	p.cuda.achieved_bandwidth_gbs = 800;
	/* bandwidth-bound needs compute strictly below 0.60; between 0.60 and
	 * 0.70 nothing dominates */
	EXPECT_POINTS(&p, set_compute,
		      { 59.99, "bandwidth-bound" },
		      { 60, "cpu-orchestration-bound" },
		      { 60.01, "cpu-orchestration-bound" },
		      { 69.99, "cpu-orchestration-bound" });
	/* 4.02 / 6.7 = 0.5999999999999999 < 0.60 */
	p.cuda.peak_compute_tflops = 6.7;
	p.cuda.achieved_compute_tflops = 4.02;
	cr_expect_str_eq(tp_class(&p, &g), "bandwidth-bound");
	profile_release(&p);
}

Test(profile_classify, cuda_compute_share_threshold)
{
	struct profile p;

	quiet_cuda(&p);
	EXPECT_POINTS(&p, set_compute,
		      { 69.99, "cpu-orchestration-bound" },
		      { 70, "compute-bound" },
		      { 70.01, "compute-bound" });
	/* with high bandwidth too, compute at 0.70 is not below 0.60 */
	p.cuda.achieved_bandwidth_gbs = 900;
	EXPECT_POINTS(&p, set_compute, { 70, "compute-bound" },
		      { 59.99, "bandwidth-bound" });
	profile_release(&p);
}

/* ---- outputs ------------------------------------------------------------ */

Test(profile_classify, every_class_names_evidence_confidence_and_lever)
{
	struct profile p;
	struct findings f = FINDINGS_INIT;
	struct profile_class c;
	struct err e;
	char *json;

	quiet_cuda(&p);
	p.cuda.achieved_compute_tflops = 80;
	cr_assert_eq(profile_classify(&p, &g, &f, &c, &e), 0);
	json = tp_json(profile_class_json(&c));
	cr_expect_str_eq(json,
			 "{\n"
			 "  \"schema\": \"fak-native-performance-bottleneck/v1\",\n"
			 "  \"envelope_id\": \"qwen38-27b-q4k-a100-p1-decode\",\n"
			 "  \"class\": \"compute-bound\",\n"
			 "  \"confidence\": \"high\",\n"
			 "  \"evidence\": [\n"
			 "    \"CUDA achieved compute is at least 70% of backend peak\"\n"
			 "  ],\n"
			 "  \"recommended_lever_id\": \"cuda.dp4a-q4k-mmvq\"\n"
			 "}\n");
	free(json);
	profile_release(&p);

	quiet_metal(&p);
	cr_assert_eq(profile_classify(&p, &g, &f, &c, &e), 0);
	json = tp_json(profile_class_json(&c));
	cr_expect_str_eq(json, "{\n"
			       "  \"schema\": \"fak-native-performance-bottleneck/v1\",\n"
			       "  \"envelope_id\": \"qwen38-27b-q4km-m3pro-p32-t64\",\n"
			       "  \"class\": \"cpu-orchestration-bound\",\n"
			       "  \"confidence\": \"low\",\n"
			       "  \"evidence\": [\n"
			       "    \"Metal device and synchronization thresholds are low while "
			       "steady-decode wall time remains\"\n"
			       "  ],\n"
			       "  \"recommended_lever_id\": \"metal.command-buffer-amortization\"\n"
			       "}\n");
	free(json);
	profile_release(&p);
}

Test(profile_classify, host_wait_outranks_a_huge_command_buffer_count)
{
	struct profile p;

	/* counter magnitudes like those reported for a real Metal control
	 * capture (14833 command buffers, 23025 encoders, 15322.03 ms GPU time,
	 * 39772.66 ms host wait) over a synthetic 60 s steady decode */
	tp_load(&p, METAL);
	p.metal.command_buffers = 14833;
	p.metal.encoders = 23025;
	p.metal.dispatch_ms = 15322.03;
	p.metal.wait_ms = 39772.66;
	p.phases[3].duration_ms = 60000;
	p.phases[4].start_ms = 60028;
	p.phases[5].start_ms = 60033;
	cr_expect_str_eq(tp_class(&p, &g), "synchronization-bound");
	profile_release(&p);
}

Test(profile_classify, only_the_steady_decode_phase_is_the_denominator)
{
	struct profile p;

	quiet_metal(&p);
	p.metal.wait_ms = 12;
	cr_expect_str_eq(tp_class(&p, &g), "synchronization-bound");
	p.phases[0].duration_ms = 1;	/* other phases do not matter */
	p.phases[5].duration_ms = 1000;
	cr_expect_str_eq(tp_class(&p, &g), "synchronization-bound");
	p.phases[3].duration_ms = 40.01;
	p.phases[4].start_ms = 70;
	p.phases[5].start_ms = 75;
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	/* encoders and occupancy are validated but never classify */
	p.metal.encoders = 1000000;
	cr_expect_str_eq(tp_class(&p, &g), "cpu-orchestration-bound");
	profile_release(&p);
}

Test(profile_classify, recommended_lever_outside_the_envelope_is_an_error)
{
	struct profile p;
	struct findings f = FINDINGS_INIT;
	struct profile_class c;
	struct err e;
	struct lever *l = (struct lever *)(uintptr_t)graph_lever(&g, "cuda.dp4a-q4k-mmvq");

	l->app.envelope_id = "qwen38-27b-q4km-m3pro-p32-t64";
	quiet_cuda(&p);
	p.cuda.achieved_compute_tflops = 80;
	cr_expect_eq(profile_classify(&p, &g, &f, &c, &e), -1);
	cr_expect_eq(f.nr, 0);
	cr_expect_str_eq(e.msg, "classification recommends lever \"cuda.dp4a-q4k-mmvq\" outside "
				"profile envelope \"qwen38-27b-q4k-a100-p1-decode\"");
	profile_release(&p);
}
