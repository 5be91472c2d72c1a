/* graph/: the committed default graph, selection, JSON round trip, deep
 * chains. Rule-by-rule rejections are golden CLI cases (graph-reject-*). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "graph/graph.h"

static void load_default(struct graph *g)
{
	struct err e;
	struct findings f = FINDINGS_INIT;

	cr_assert_eq(graph_load_default(g, &e), 0, "%s", e.msg);
	graph_validate(g, &f);
	cr_assert_eq(f.nr, 0, "default graph invalid: %s", f.nr ? f.items[0] : "");
	findings_release(&f);
}

Test(graph_default, pins_two_separate_envelopes)
{
	struct graph g;

	load_default(&g);
	cr_expect_str_eq(g.schema, GRAPH_SCHEMA);
	cr_expect_eq(g.envelope.prompt_tokens, 32);
	cr_expect_eq(g.envelope.decode_tokens, 64);
	cr_assert_eq(g.nr_envelopes, 2);
	cr_expect_str_eq(g.envelopes[0].backend, "metal");
	cr_expect_str_eq(g.envelopes[1].backend, "cuda");
	cr_assert_eq(g.nr_rungs, 3);
	cr_expect(g.rungs[0].has_witnessed);
	cr_expect_eq(g.rungs[0].witnessed.tokens_per_second, 3.3);
	cr_expect(!g.rungs[1].has_witnessed);
	cr_expect_eq(g.comparison.tokens_per_second, 6.966061);
	cr_assert_eq(g.nr_levers, 12);
	for (size_t i = 0; i < g.nr_levers; i++)
		if (!strcmp(g.levers[i].app.backend, "cuda"))
			cr_expect(!g.levers[i].has_witnessed, "%s has a witness", g.levers[i].id);
	cr_expect(graph_lever(&g, "cuda.dp4a-q4k-mmvq") == &g.levers[10]);
	cr_expect_null(graph_lever(&g, "cuda.dp4a"));
	cr_expect_eq(graph_criterion(&g, g.envelopes[0].id)->minimum_throughput_tokens_per_second,
		     2.3);
	cr_expect_eq(graph_criterion(&g, g.envelopes[1].id)->minimum_throughput_tokens_per_second,
		     11);
	graph_release(&g);
}

Test(graph_default, next_is_first_dependency_ready_lever)
{
	struct graph g;
	static const char *const ready[] = {
		"metal.command-buffer-amortization", "metal.paged-kv", "metal.chunked-prefill",
		"cuda.q8_1-activation-quant"
	};
	size_t k = 0;

	load_default(&g);
	cr_assert_str_eq(graph_next(&g, NULL)->id, "metal.command-buffer-amortization");
	cr_expect_eq(graph_next(&g, NULL)->owner.number, 8324);
	cr_expect(strstr(graph_next(&g, NULL)->next_witness, "OFF/ON") != NULL);
	/* conflicts do not block: Q8_1 is selectable while its baseline is on */
	cr_expect_str_eq(graph_next(&g, g.envelopes[1].id)->id, "cuda.q8_1-activation-quant");
	for (size_t i = 0; i < g.nr_levers; i++)
		if (graph_lever_ready(&g, &g.levers[i])) {
			cr_assert_lt(k, 4);
			cr_expect_str_eq(g.levers[i].id, ready[k]);
			k++;
		}
	cr_expect_eq(k, 4);
	/* enabling the selected lever advances selection */
	g.levers[1].enabled = true;
	cr_expect_str_eq(graph_next(&g, NULL)->id, "metal.fused-hybrid-graph-coverage");
	graph_release(&g);
}

/* The committed levers carry the typed form of their next witness. */
Test(graph_default, typed_next_witnesses)
{
	struct graph g;
	const struct lever *q, *p;

	load_default(&g);
	q = graph_lever(&g, "cuda.q8_1-activation-quant");
	p = graph_lever(&g, "metal.matched-parity-receipt");
	cr_assert(q && q->has_requirement && p && p->has_requirement);
	cr_expect_str_eq(q->requirement.kind, "numerical");
	cr_assert_eq(q->requirement.nr_metrics, 3);
	cr_expect_str_eq(q->requirement.metrics[0].metric, "cosine");
	cr_expect(graph_threshold_met(&q->requirement.metrics[0], 0.995));
	cr_expect(!graph_threshold_met(&q->requirement.metrics[0], 0.9949));
	cr_expect(graph_threshold_met(&q->requirement.metrics[1], 1));
	cr_expect(!graph_threshold_met(&q->requirement.metrics[1], 0.5));
	cr_expect(graph_threshold_met(&q->requirement.metrics[2], 0.02));
	cr_expect(!graph_threshold_met(&q->requirement.metrics[2], 0.021));
	cr_expect_str_eq(p->requirement.kind, "parity");
	cr_assert_eq(p->requirement.engines.n, 2);
	cr_expect_str_eq(p->requirement.engines.v[1], "llama.cpp");
	for (size_t i = 0; i < g.nr_levers; i++)
		cr_expect(g.levers[i].has_requirement, "%s has no requirement", g.levers[i].id);
	graph_release(&g);
}

Test(graph_default, criterion_digest_matches_independent_jcs)
{
	struct graph g;
	struct err e;
	char d[JSON_DIGEST_LEN + 1];

	load_default(&g);
	cr_assert_eq(graph_criterion_digest(graph_criterion(&g, g.envelopes[0].id), d, &e), 0);
	/* sha256 of the RFC 8785 form produced by the npm package "canonicalize";
	 * tests/cli/scripts/jcs-crosscheck.sh re-derives it on every run */
	cr_expect_str_eq(d,
			 "sha256:98378807e72e28eeea1f1565f0d3b31ed9706576bb5a7f3fef1bafa804e622e6");
	graph_release(&g);
}

Test(graph_json, round_trip_is_byte_identical)
{
	struct graph g, h;
	struct err e;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	json_t *doc;

	load_default(&g);
	doc = graph_to_json(&g);
	json_write_pretty(&a, doc);
	json_decref(doc);
	cr_assert_eq(graph_load_buf(&h, a.buf, a.len, "round trip", &e), 0, "%s", e.msg);
	doc = graph_to_json(&h);
	json_write_pretty(&b, doc);
	json_decref(doc);
	cr_expect_str_eq(a.buf, b.buf);
	/* explicit [] and null lists survive */
	cr_expect(strstr(a.buf, "\"dependency_ids\": []") != NULL);
	cr_expect(strstr(a.buf, "\"conflict_ids\": null") != NULL);
	graph_release(&g);
	graph_release(&h);
	sb_release(&a);
	sb_release(&b);
}

/* A graph written by fak for a new engine has no legacy view: it loads,
 * validates, climbs without a comparison point and writes no legacy member;
 * the default graph keeps its legacy view. */
Test(graph_json, without_legacy_view)
{
	static const char doc[] = "{\"schema\": \"" GRAPH_SCHEMA "\", \"envelopes\": [], "
				  "\"levers\": [], \"criteria\": {}}";
	struct graph g, d;
	struct findings f = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	json_t *j;

	cr_assert_eq(graph_load_buf(&g, doc, strlen(doc), "new", &e), 0, "%s", e.msg);
	cr_expect(!g.has_legacy);
	graph_validate(&g, &f);
	cr_expect_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	j = graph_to_json(&g);
	json_write_pretty(&sb, j);
	json_decref(j);
	cr_expect_str_eq(sb.buf, "{\n  \"schema\": \"" GRAPH_SCHEMA "\",\n  \"envelopes\": [],\n"
			 "  \"levers\": [],\n  \"criteria\": {}\n}\n");
	load_default(&d);
	cr_expect(d.has_legacy);
	graph_release(&d);
	graph_release(&g);
	findings_release(&f);
	sb_release(&sb);
}

/* One envelope, n levers; lever i depends on lever i-1; with `cycle` the
 * first lever depends on the last. */
static void chain(struct strbuf *sb, size_t n, int cycle)
{
	struct graph g;
	struct err e;
	json_t *doc;

	cr_assert_eq(graph_load_default(&g, &e), 0);
	doc = graph_to_json(&g);
	graph_release(&g);
	json_object_del(doc, "levers");
	json_object_del(doc, "criteria");
	json_write_compact(sb, doc);
	json_decref(doc);
	sb->len--;	/* reopen the object: levers and criteria come last */
	sb_adds(sb, ",\"levers\":");
	sb_addch(sb, '[');
	for (size_t i = 0; i < n; i++) {
		sb_addf(sb, "%s{\"id\":\"l%zu\",\"name\":\"\",\"applicability\":{\"envelope_id\":"
			    "\"qwen38-27b-q4km-m3pro-p32-t64\",\"platform\":\"darwin/arm64\","
			    "\"backend\":\"metal\"},"
			    "\"enabled\":%s,\"status\":\"%s\",\"dependency_ids\":",
			i ? "," : "", i, i ? "false" : "true", i ? "absent" : "present");
		if (i)
			sb_addf(sb, "[\"l%zu\"]", i - 1);
		else if (cycle)
			sb_addf(sb, "[\"l%zu\"]", n - 1);
		else
			sb_adds(sb, "null");
		sb_adds(sb, ",\"conflict_ids\":null,\"expected\":{\"summary\":\"s\","
			    "\"classification\":\"hypothesis\",\"provenance\":\"p\"},"
			    "\"witnessed\":null,\"owning_issue\":{\"number\":1,\"url\":\"u\"},"
			    "\"next_witness\":\"w\"}");
	}
	sb_adds(sb, "],\"criteria\":{\"qwen38-27b-q4km-m3pro-p32-t64\":{\"schema\":"
		    "\"fak-native-performance-comparison-criterion/v1\",\"id\":\"c\",\"version\":1,"
		    "\"output_class\":\"exact_match\",\"minimum_repetitions\":3,"
		    "\"maximum_noise_percent\":2,"
		    "\"investigate_drop_percent\":2,\"regression_drop_percent\":5,"
		    "\"minimum_throughput_tokens_per_second\":2.3,"
		    "\"quality_metric\":\"exact_match\","
		    "\"minimum_quality_score\":1,\"quality_higher_is_better\":true},"
		    "\"qwen38-27b-q4k-a100-p1-decode\":{\"schema\":"
		    "\"fak-native-performance-comparison-criterion/v1\",\"id\":\"c\",\"version\":1,"
		    "\"output_class\":\"exact_match\",\"minimum_repetitions\":3,"
		    "\"maximum_noise_percent\":2,"
		    "\"investigate_drop_percent\":2,\"regression_drop_percent\":5,"
		    "\"minimum_throughput_tokens_per_second\":11,"
		    "\"quality_metric\":\"exact_match\","
		    "\"minimum_quality_score\":1,\"quality_higher_is_better\":true}}}");
}

Test(graph_deep, million_lever_chain_validates_without_recursion, .timeout = 120)
{
	struct strbuf sb = STRBUF_INIT;
	struct graph g;
	struct err e;
	struct findings f = FINDINGS_INIT;

	chain(&sb, 1000000, 0);
	cr_assert_eq(graph_load_buf(&g, sb.buf, sb.len, "chain", &e), 0, "%s", e.msg);
	graph_validate(&g, &f);
	cr_expect_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	cr_expect_str_eq(graph_next(&g, NULL)->id, "l1");
	findings_release(&f);
	graph_release(&g);
	sb_release(&sb);
}

Test(graph_deep, long_cycle_reports_the_whole_path, .timeout = 60)
{
	struct strbuf sb = STRBUF_INIT;
	struct graph g;
	struct err e;
	struct findings f = FINDINGS_INIT;

	chain(&sb, 5, 1);
	cr_assert_eq(graph_load_buf(&g, sb.buf, sb.len, "cycle", &e), 0, "%s", e.msg);
	graph_validate(&g, &f);
	cr_assert_eq(f.nr, 1);
	cr_expect_str_eq(f.items[0], "lever dependency cycle: l0 -> l4 -> l3 -> l2 -> l1 -> l0");
	findings_release(&f);
	graph_release(&g);
	sb_release(&sb);

	chain(&sb, 200000, 1);
	cr_assert_eq(graph_load_buf(&g, sb.buf, sb.len, "cycle", &e), 0, "%s", e.msg);
	graph_validate(&g, &f);
	cr_assert_eq(f.nr, 1);
	cr_expect(!strncmp(f.items[0], "lever dependency cycle: l0 -> l199999 -> l199998", 48));
	findings_release(&f);
	graph_release(&g);
	sb_release(&sb);
}

Test(graph_load, errors_name_the_json_path)
{
	struct graph g;
	struct err e;
	const char *bad = "{\"schema\":1}";

	cr_expect_eq(graph_load_buf(&g, bad, strlen(bad), "x.json", &e), -1);
	/* every problem at once, in document order */
	cr_expect_str_eq(e.msg, "cannot load graph 'x.json': 4 problems:\n"
				"  schema: expected a string, found a number\n"
				"  envelopes: missing required field\n"
				"  levers: missing required field\n"
				"  criteria: missing required field");
	{	/* at most JP_MAX_PROBLEMS, then the next stops the reading */
		struct strbuf sb = STRBUF_INIT;

		sb_adds(&sb, "{");
		for (int i = 0; i < 300; i++)
			sb_addf(&sb, "%s\"x%d\":[{}]", i ? "," : "", i);
		sb_adds(&sb, "}");
		cr_expect_eq(graph_load_buf(&g, sb.buf, sb.len, "x.json", &e), -1);
		cr_expect(strstr(e.msg, "x.json': 101 problems:\n  x0: unknown field\n"), "%s",
			  e.msg);
		cr_expect(strstr(e.msg, " more") && strlen(e.msg) < sizeof(e.msg) - 1, "%s", e.msg);
		sb_release(&sb);
	}
	bad = "{\"schema\":1";	/* syntax stops the reading, with what came before */
	cr_expect_eq(graph_load_buf(&g, bad, strlen(bad), "x.json", &e), -1);
	cr_expect_str_eq(e.msg, "cannot load graph 'x.json': 2 problems:\n"
				"  schema: expected a string, found a number\n"
				"  line 1, column 12: ',' or '}' expected");
	cr_expect_eq(graph_load_buf(&g, "{", 1, "x.json", &e), -1);
	cr_expect_str_eq(
		e.msg, "cannot load graph 'x.json': line 1, column 2: member name or '}' expected");
}

/* ---- platform, warm-ups, review period, criteria order ------------------- */

/* The default graph as JSON with edit applied, loaded back into g; the
 * findings of graph_validate in f. */
static void load_edited(struct graph *g, struct findings *f, void (*edit)(json_t *doc))
{
	struct graph d;
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	json_t *doc;

	load_default(&d);
	doc = graph_to_json(&d);
	graph_release(&d);
	edit(doc);
	json_write_pretty(&sb, doc);
	json_decref(doc);
	cr_assert_eq(graph_load_buf(g, sb.buf, sb.len, "edited", &e), 0, "%s", e.msg);
	graph_validate(g, f);
	sb_release(&sb);
}

static json_t *member(json_t *doc, const char *array, size_t i)
{
	return json_array_get(json_object_get(doc, array), i);
}

Test(graph_default, envelopes_declare_platform_and_warmups)
{
	struct graph g;

	load_default(&g);
	cr_expect_str_eq(g.envelopes[0].platform, "darwin/arm64");
	cr_expect_str_eq(g.envelopes[1].platform, "linux/amd64+nvidia-a100");
	cr_expect_eq(g.envelopes[0].warmups, 1);
	cr_expect_eq(g.envelopes[1].warmups, 1);
	/* the legacy view keeps its original members */
	cr_expect_null(g.envelope.platform);
	for (size_t i = 0; i < g.nr_levers; i++)
		cr_expect_str_eq(
			g.levers[i].app.platform,
			graph_envelope_platform(graph_envelope(&g, g.levers[i].app.envelope_id)));
	graph_release(&g);
}

static void drop_platform_and_warmups(json_t *doc)
{
	for (size_t i = 0; i < 2; i++) {
		json_object_del(member(doc, "envelopes", i), "platform");
		json_object_del(member(doc, "envelopes", i), "warmups");
	}
}

Test(graph_envelope, older_graphs_get_the_backend_platform_and_one_warmup)
{
	struct graph g;
	struct findings f = FINDINGS_INIT;
	struct strbuf a = STRBUF_INIT;
	json_t *doc;

	load_edited(&g, &f, drop_platform_and_warmups);
	cr_expect_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	cr_expect_null(g.envelopes[0].platform);
	cr_expect_str_eq(graph_envelope_platform(&g.envelopes[0]), "darwin/arm64");
	cr_expect_str_eq(graph_envelope_platform(&g.envelopes[1]), "linux/amd64+nvidia-a100");
	cr_expect_eq(g.envelopes[0].warmups, GRAPH_DEFAULT_WARMUPS);
	cr_expect_eq(g.envelopes[1].warmups, 1);
	/* --json writes the defaults out: the committed form, byte for byte */
	doc = graph_to_json(&g);
	json_write_pretty(&a, doc);
	json_decref(doc);
	{
		struct graph d;
		struct strbuf b = STRBUF_INIT;

		load_default(&d);
		doc = graph_to_json(&d);
		json_write_pretty(&b, doc);
		json_decref(doc);
		cr_expect_str_eq(a.buf, b.buf);
		sb_release(&b);
		graph_release(&d);
	}
	sb_release(&a);
	findings_release(&f);
	graph_release(&g);
}

/* The CUDA envelope becomes a CPU one: backend cpu, levers agree, and its
 * criterion holds no GPU to a policy. */
static void cpu_envelope(json_t *doc)
{
	json_object_del(json_object_get(json_object_get(doc, "criteria"),
					"qwen38-27b-q4k-a100-p1-decode"), "gpu_policy");
	json_object_set_new(member(doc, "envelopes", 1), "backend", json_string("cpu"));
	json_object_set_new(member(doc, "envelopes", 1), "platform", json_string("linux/amd64"));
	for (size_t i = 8; i < 12; i++) {
		json_t *a = json_object_get(member(doc, "levers", i), "applicability");

		json_object_set_new(a, "backend", json_string("cpu"));
		json_object_set_new(a, "platform", json_string("linux/amd64"));
	}
}

static void cpu_envelope_without_platform(json_t *doc)
{
	cpu_envelope(doc);
	json_object_del(member(doc, "envelopes", 1), "platform");
}

/* The committed CUDA criterion carries the GPU policy of docs/graph.md; the
 * Metal one carries none. */
Test(graph_envelope, the_committed_cuda_criterion_carries_its_gpu_policy)
{
	static const char *const reasons[] = { "sw_power_cap", "hw_slowdown", "sw_thermal_slowdown",
					       "hw_thermal_slowdown", "hw_power_brake_slowdown" };
	struct graph g;
	const struct criterion *c;

	load_default(&g);
	cr_expect_not(graph_criterion(&g, "qwen38-27b-q4km-m3pro-p32-t64")->has_gpu_policy);
	c = graph_criterion(&g, "qwen38-27b-q4k-a100-p1-decode");
	cr_assert(c->has_gpu_policy);
	cr_expect_eq(c->gpu_policy.minimum_coverage_ratio, 1);
	cr_expect_not(c->gpu_policy.allow_unreadable);
	cr_expect_eq(c->gpu_policy.maximum_sm_clock_drift_percent, 3);
	cr_expect_eq(c->gpu_policy.maximum_memory_clock_drift_percent, 1);
	cr_expect_eq(c->gpu_policy.target_sm_clock_mhz, 0);
	cr_expect_eq(c->gpu_policy.target_memory_clock_mhz, 0);
	cr_assert_eq(c->gpu_policy.disqualifying_reasons.n, 5);
	for (size_t i = 0; i < 5; i++)
		cr_expect_str_eq(c->gpu_policy.disqualifying_reasons.v[i], reasons[i]);
	graph_release(&g);
}

Test(graph_envelope, any_backend_that_declares_its_platform)
{
	struct graph g;
	struct findings f = FINDINGS_INIT;

	load_edited(&g, &f, cpu_envelope);
	cr_expect_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	cr_expect_str_eq(graph_envelope_platform(&g.envelopes[1]), "linux/amd64");
	cr_expect_str_eq(graph_next(&g, g.envelopes[1].id)->id, "cuda.q8_1-activation-quant");
	findings_release(&f);
	graph_release(&g);

	load_edited(&g, &f, cpu_envelope_without_platform);
	cr_expect_null(graph_envelope_platform(&g.envelopes[1]));
	cr_assert_eq(f.nr, 1);
	cr_expect_str_eq(f.items[0],
			 "envelope \"qwen38-27b-q4k-a100-p1-decode\" must declare its "
			 "platform: backend \"cpu\" implies none (only metal and cuda do)");
	findings_release(&f);
	graph_release(&g);
}

Test(graph_envelope, platform_syntax)
{
	static const char *const good[] = {
		"linux/amd64", "darwin/arm64", "linux/amd64+nvidia-a100", "linux/386",
		"linux/ppc64le", "freebsd/riscv64", "linux/arm64+nvidia-gh200.sxm_5",
		"linux/amd64+a",
		/* 64 bytes */
		"linux/amd64+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	static const char *const bad[] = {
		"", "linux", "linux/", "/amd64", "Linux/amd64", "linux/AMD64", "linux/amd64+",
		"linux/amd64+NVIDIA", "linux/amd64 ", " linux/amd64", "linux//amd64",
		"linux/amd64/x", "linux/amd64+a+b", "1linux/amd64", "linux/_amd64",
		"linux/amd64+-x", "linux/amd64+.x", "linux/amd64+nvidia a100", "linux/amd-64",
		"linux\\amd64", "linux/amd64\n",
		/* 65 bytes */
		"linux/amd64+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};

	cr_assert_eq(strlen(good[8]), GRAPH_PLATFORM_MAX);
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		cr_expect(graph_platform_valid(good[i]), "'%s' refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_expect(!graph_platform_valid(bad[i]), "'%s' accepted", bad[i]);
}

static void review_periods(json_t *doc)
{
	json_t *c = json_object_get(doc, "criteria");

	json_object_set_new(json_object_get(c, "qwen38-27b-q4km-m3pro-p32-t64"),
			    "review_period_days", json_integer(1));
	json_object_set_new(json_object_get(c, "qwen38-27b-q4k-a100-p1-decode"),
			    "review_period_days", json_integer(366));
}

Test(graph_criterion, review_period_is_optional_and_emitted_only_when_given)
{
	struct graph g;
	struct findings f = FINDINGS_INIT;
	char d[JSON_DIGEST_LEN + 1];
	struct err e;
	json_t *c;

	load_default(&g);
	cr_expect(!g.criteria[0].has_review_period);
	cr_expect_eq(graph_criterion_review_period_days(&g.criteria[0]), 30);
	c = graph_criterion_json(&g.criteria[0]);
	cr_expect_null(json_object_get(c, "review_period_days"));
	json_decref(c);
	graph_release(&g);

	load_edited(&g, &f, review_periods);
	cr_expect_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	cr_expect_eq(graph_criterion_review_period_days(graph_criterion(&g, g.envelopes[0].id)), 1);
	cr_expect_eq(graph_criterion_review_period_days(graph_criterion(&g, g.envelopes[1].id)),
		     366);
	c = graph_criterion_json(graph_criterion(&g, g.envelopes[0].id));
	cr_expect_eq(json_integer_value(json_object_get(c, "review_period_days")), 1);
	json_decref(c);
	/* a criterion with a review period is a different criterion */
	cr_assert_eq(graph_criterion_digest(graph_criterion(&g, g.envelopes[0].id), d, &e), 0);
	cr_expect_str_neq(
		d, "sha256:98378807e72e28eeea1f1565f0d3b31ed9706576bb5a7f3fef1bafa804e622e6");
	findings_release(&f);
	graph_release(&g);
}

#define CRIT                                                                             \
	"{\"schema\":\"fak-native-performance-comparison-criterion/v1\",\"id\":\"c\","   \
	"\"version\":1,\"output_class\":\"exact_match\",\"minimum_repetitions\":3,"      \
	"\"maximum_noise_percent\":2,\"investigate_drop_percent\":2,"                    \
	"\"regression_drop_percent\":5,"                                                 \
	"\"minimum_throughput_tokens_per_second\":1,\"quality_metric\":\"exact_match\"," \
	"\"minimum_quality_score\":1,\"quality_higher_is_better\":true}"
#define ENV(id)                                                                                  \
	"{\"id\":\"" id "\",\"model\":\"m\",\"model_revision\":\"r\",\"artifact_sha256\":null," \
	"\"quantization\":\"q\",\"hardware\":\"h\",\"memory_gib\":1,\"engine\":\"fak-native\","  \
	"\"backend\":\"metal\",\"forward_path\":\"f\",\"prompt_tokens\":1,\"decode_tokens\":1,"  \
	"\"repetitions\":3,\"temperature\":0,\"throughput_metric\":\"t\","                       \
	"\"comparability_rule\":\"c\"}"

Test(graph_json, criteria_follow_envelope_order_not_input_order)
{
	struct graph g;
	struct err e;
	struct findings f = FINDINGS_INIT;
	const char *key;
	json_t *doc, *v;
	size_t k = 0;
	/* criteria listed CUDA first */
	static const char text[] =
		"{\"schema\":\"x\",\"criteria\":{\"b\":" CRIT "," "\"a\":" CRIT "},"
		"\"envelope\":" ENV("a") ",\"comparison\":{\"tokens_per_second\":1,"
		"\"classification\":\"comparison\",\"engine\":\"e\",\"comparability\":\"exact\","
		"\"observed_on\":\"d\",\"provenance\":\"p\",\"note\":\"n\"},"
		"\"rungs\":[],\"features\":[],"
		"\"envelopes\":[" ENV("a") "," ENV("b") "],\"levers\":[]}";

	cr_assert_eq(graph_load_buf(&g, text, strlen(text), "order", &e), 0, "%s", e.msg);
	graph_validate(&g, &f);
	cr_expect_eq(f.nr, 1, "%s", f.nr ? f.items[0] : "");	/* only the schema */
	cr_expect_str_eq(g.criteria[0].envelope_id, "b");
	doc = graph_to_json(&g);
	json_object_foreach(json_object_get(doc, "criteria"), key, v) {
		cr_expect_str_eq(key, k ? "b" : "a");
		k++;
	}
	cr_expect_eq(k, 2);
	json_decref(doc);
	findings_release(&f);
	graph_release(&g);
}

/* ---- the climb (what the climb chart draws) ------------------------------ */

static void reverse_levers(json_t *doc)
{
	json_t *l = json_object_get(doc, "levers"), *r = json_array();

	for (size_t i = json_array_size(l); i-- > 0;)
		json_array_append(r, json_array_get(l, i));
	json_object_set_new(doc, "levers", r);
}

Test(graph_climb, one_climb_per_envelope_dependencies_first)
{
	struct graph g;
	struct findings f = FINDINGS_INIT;
	struct graph_climb *c;

	/* every lever listed after the levers that depend on it */
	load_edited(&g, &f, reverse_levers);
	cr_assert_eq(f.nr, 0, "%s", f.nr ? f.items[0] : "");
	c = graph_climbs(&g);
	cr_assert_eq(g.nr_envelopes, 2);
	cr_expect_str_eq(c[0].env->id, "qwen38-27b-q4km-m3pro-p32-t64");
	cr_expect_str_eq(c[1].env->id, "qwen38-27b-q4k-a100-p1-decode");
	cr_expect_eq(c[0].crit->minimum_throughput_tokens_per_second, 2.3);
	cr_expect_eq(c[1].crit->minimum_throughput_tokens_per_second, 11);
	/* the legacy rungs and comparison belong to the legacy envelope only */
	cr_expect_eq(c[0].nr_rungs, 3);
	cr_expect(c[0].comparison == &g.comparison);
	cr_expect_eq(c[1].nr_rungs, 0);
	cr_expect(c[1].comparison == NULL);
	cr_assert_eq(c[0].nr_levers, 8);
	cr_assert_eq(c[1].nr_levers, 4);
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < c[k].nr_levers; i++) {
			const struct lever *l = c[k].levers[i];

			cr_expect_str_eq(l->app.envelope_id, c[k].env->id);
			for (size_t d = 0; d < l->deps.n; d++) {
				size_t j;

				for (j = 0; j < i && strcmp(c[k].levers[j]->id, l->deps.v[d]); j++)
					;
				cr_expect(j < i, "%s comes before its dependency %s", l->id,
					  l->deps.v[d]);
			}
		}
	/* independent levers keep graph order (reversed here): CUDA's chain
	 * is q8_1 -> dp4a -> routing; the baseline depends on nothing and is
	 * listed last, so it comes out after the chain's root */
	cr_expect_str_eq(c[1].levers[0]->id, "cuda.q8_1-activation-quant");
	cr_expect_str_eq(c[1].levers[1]->id, "cuda.dp4a-q4k-mmvq");
	cr_expect_str_eq(c[1].levers[2]->id, "cuda.default-decode-routing");
	cr_expect_str_eq(c[1].levers[3]->id, "cuda.scalar-f32-activation-baseline");
	graph_climbs_release(c, g.nr_envelopes);
	findings_release(&f);
	graph_release(&g);
}

Test(graph_climb, a_long_chain_listed_backwards_needs_no_deep_stack, .timeout = 60)
{
	struct strbuf sb = STRBUF_INIT, rev = STRBUF_INIT;
	struct graph g;
	struct graph_climb *c;
	struct err e;
	json_t *doc;

	chain(&sb, 100000, 0);
	doc = json_parse_strict(sb.buf, sb.len, "chain", &e);
	cr_assert(doc, "%s", e.msg);
	reverse_levers(doc);
	json_write_compact(&rev, doc);
	json_decref(doc);
	cr_assert_eq(graph_load_buf(&g, rev.buf, rev.len, "reversed chain", &e), 0, "%s", e.msg);
	c = graph_climbs(&g);
	cr_assert_eq(c[0].nr_levers, 100000);
	cr_expect_str_eq(c[0].levers[0]->id, "l0");
	cr_expect_str_eq(c[0].levers[99999]->id, "l99999");
	graph_climbs_release(c, g.nr_envelopes);
	graph_release(&g);
	sb_release(&sb);
	sb_release(&rev);
}

/* What binds a witness to its envelope: the digest of the envelope object,
 * and the members named when it changed (issue 26). */
Test(graph_envelope, changes_name_every_member_that_differs)
{
	struct graph g;
	const struct envelope *v;
	char d1[JSON_DIGEST_LEN + 1], d2[JSON_DIGEST_LEN + 1];
	struct err e;
	json_t *was;
	char *c;

	load_default(&g);
	v = graph_envelope(&g, "qwen38-27b-q4km-m3pro-p32-t64");
	cr_assert_not_null(v);
	was = graph_envelope_json(v);
	cr_expect_null(graph_envelope_changes(was, v));
	cr_assert_eq(json_digest(was, NULL, d1, &e), 0, "%s", e.msg);
	cr_assert_eq(graph_envelope_digest(v, d2, &e), 0, "%s", e.msg);
	cr_expect_str_eq(d1, d2);
	jset_str(was, "hardware", "NVIDIA H200");
	jset_int(was, "memory_gib", 141);
	json_object_del(was, "throughput_metric");
	jset_str(was, "extra", "x");
	c = graph_envelope_changes(was, v);
	cr_assert_not_null(c);
	cr_expect(strstr(c, "hardware: \"NVIDIA H200\" then, \"Apple M3 Pro") != NULL, "%s", c);
	cr_expect(strstr(c, "memory_gib: 141 then, ") != NULL, "%s", c);
	cr_expect(strstr(c, "throughput_metric: (absent) then, \"") != NULL, "%s", c);
	cr_expect(strstr(c, "extra: absent now") != NULL, "%s", c);
	cr_expect(strstr(c, "model:") == NULL, "%s", c);
	free(c);
	json_decref(was);
	graph_release(&g);
}

/* docs/graph.md "Ids": one form for every id (the index's envelope keys too) */
Test(graph_id, form)
{
	char id[GRAPH_ID_MAX + 2];

	cr_expect_null(graph_id_problem("metal.paged-kv"));
	cr_expect_null(graph_id_problem("cuda.q8_1-activation-quant"));
	cr_expect_null(graph_id_problem("a0"));
	cr_expect_null(graph_id_problem("0"));
	cr_expect_str_eq(graph_id_problem("metal/paged-kv"),
			 "holds a byte other than a lowercase letter, a digit, '.', '_' and '-'");
	cr_expect_str_eq(graph_id_problem("Metal.x"),
			 "holds a byte other than a lowercase letter, a digit, '.', '_' and '-'");
	cr_expect_not_null(graph_id_problem("a\nb"));
	cr_expect_not_null(graph_id_problem("<b>"));
	cr_expect_not_null(graph_id_problem("a b"));
	cr_expect_not_null(graph_id_problem("caf\xc3\xa9"));
	cr_expect_str_eq(graph_id_problem("a..b"), "holds two of '.', '_' and '-' in a row");
	cr_expect_str_eq(graph_id_problem("a_-b"), "holds two of '.', '_' and '-' in a row");
	cr_expect_str_eq(graph_id_problem(".a"), "starts or ends with '.', '_' or '-'");
	cr_expect_str_eq(graph_id_problem("a-"), "starts or ends with '.', '_' or '-'");
	cr_expect_str_eq(graph_id_problem("."), "starts or ends with '.', '_' or '-'");
	cr_expect_str_eq(graph_id_problem(""), "is empty");
	memset(id, 'x', GRAPH_ID_MAX);
	id[GRAPH_ID_MAX] = '\0';
	cr_expect_null(graph_id_problem(id));
	id[GRAPH_ID_MAX] = 'x';
	id[GRAPH_ID_MAX + 1] = '\0';
	cr_expect_str_eq(graph_id_problem(id), "is longer than 128 bytes");
}

/* The medians a lever's witness states, as fak's promotion writes them
 * (the climb chart plots them); a witness written by hand states none. */
Test(graph_climb, witnessed_medians_only_from_the_promotion_form)
{
	static const struct {
		const char *summary;
		bool ok;
		double base, cand;
	} cases[] = {
		{ "faster: median 100 -> 200 tok/s (+100.0%, 90% interval +99.0%..+101.0%, n=3+3); "
		  "gate pass, observed 2026-12-02", true, 100, 200 },
		{ "equivalent: no effect beyond \u00b12%: median 2.62 -> 2.6 tok/s (-0.8%, 90% "
		  "interval -1.0%..+0.5%, n=5+5)", true, 2.62, 2.6 },
		{ "3.3 tok/s fak-native after 31 prompt tokens", false, 0, 0 },
		{ "faster: median 100 -> 200 ms", false, 0, 0 },
		{ "faster: median -1 -> 200 tok/s", false, 0, 0 },
		{ "faster: median nan -> 200 tok/s", false, 0, 0 },
		{ "median 100 -> 200 tok/s", false, 0, 0 },	/* no verdict before it */
	};
	struct lever l = { .has_witnessed = true };
	double b = -1, c = -1;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		l.witnessed.summary = cases[i].summary;
		b = c = -1;
		cr_expect_eq(graph_lever_witnessed_medians(&l, &b, &c), cases[i].ok, "%s",
			     cases[i].summary);
		if (cases[i].ok) {
			cr_expect_eq(b, cases[i].base, "%s", cases[i].summary);
			cr_expect_eq(c, cases[i].cand, "%s", cases[i].summary);
		} else {
			cr_expect_eq(b, -1, "%s: base written", cases[i].summary);
		}
	}
	l.has_witnessed = false;
	l.witnessed.summary = cases[0].summary;
	cr_expect_not(graph_lever_witnessed_medians(&l, &b, &c), "a lever without a witness");
}
