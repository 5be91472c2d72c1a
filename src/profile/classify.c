/* The bottleneck classifier: one committed rule table per backend, tested
 * top-down, first match wins. Ratios are plain double divisions compared
 * with the literal threshold (never rewritten as a multiplication, which
 * rounds differently on decimal inputs). A table only names metrics of its
 * own backend, so Metal and CUDA counters are never compared. */
#include <string.h>

#include "base/json.h"
#include "profile/profile.h"

static const struct profile_rule metal_rules[] = {
	{ { { PM_METAL_WAIT_SHARE, PO_GE, 0.30 } }, 1,
	  "synchronization-bound", "medium",
	  "Metal wait time is at least 30% of steady decode",
	  "metal.command-buffer-amortization" },
	{ { { PM_METAL_COMMAND_BUFFERS, PO_GE, 32 } }, 1,
	  "launch-bound", "medium",
	  "Metal command-buffer count is high for one decode sample",
	  "metal.command-buffer-amortization" },
	{ { { PM_METAL_WORKING_SET_EXCESS, PO_GT, 0 } }, 1,
	  "bandwidth-bound", "medium",
	  "Metal working set exceeds resident bytes",
	  "metal.paged-kv" },
	{ { { PM_METAL_DISPATCH_SHARE, PO_GE, 0.70 } }, 1,
	  "compute-bound", "low",
	  "Metal dispatch time dominates steady decode without launch, wait, or residency "
	  "pressure",
	  "metal.fused-hybrid-graph-coverage" },
	{ { { 0 } }, 0,
	  "cpu-orchestration-bound", "low",
	  "Metal device and synchronization thresholds are low while steady-decode wall time "
	  "remains",
	  "metal.command-buffer-amortization" },
};

static const struct profile_rule cuda_rules[] = {
	{ { { PM_CUDA_SYNC_SHARE, PO_GE, 0.30 } }, 1,
	  "synchronization-bound", "medium",
	  "CUDA synchronization is at least 30% of steady decode",
	  "cuda.default-decode-routing" },
	{ { { PM_CUDA_LAUNCHES, PO_GE, 64 } }, 1,
	  "launch-bound", "medium",
	  "CUDA launch count is high for one decode sample",
	  "cuda.default-decode-routing" },
	{ { { PM_CUDA_BANDWIDTH_SHARE, PO_GE, 0.70 }, { PM_CUDA_COMPUTE_SHARE, PO_LT, 0.60 } }, 2,
	  "bandwidth-bound", "high",
	  "CUDA achieved bandwidth is at least 70% while compute is below 60% of backend peak",
	  "cuda.q8_1-activation-quant" },
	{ { { PM_CUDA_COMPUTE_SHARE, PO_GE, 0.70 } }, 1,
	  "compute-bound", "high",
	  "CUDA achieved compute is at least 70% of backend peak",
	  "cuda.dp4a-q4k-mmvq" },
	{ { { 0 } }, 0,
	  "cpu-orchestration-bound", "low",
	  "CUDA device utilization thresholds are low without dominant synchronization",
	  "cuda.default-decode-routing" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct profile_rule *profile_rules(enum profile_backend b, size_t *nr)
{
	if (b == PROFILE_METAL) {
		*nr = ARRAY_SIZE(metal_rules);
		return metal_rules;
	}
	*nr = ARRAY_SIZE(cuda_rules);
	return cuda_rules;
}

enum profile_backend profile_metric_backend(enum profile_metric m)
{
	switch (m) {
	case PM_METAL_WAIT_SHARE:
	case PM_METAL_COMMAND_BUFFERS:
	case PM_METAL_WORKING_SET_EXCESS:
	case PM_METAL_DISPATCH_SHARE:
		return PROFILE_METAL;
	case PM_CUDA_SYNC_SHARE:
	case PM_CUDA_LAUNCHES:
	case PM_CUDA_BANDWIDTH_SHARE:
	case PM_CUDA_COMPUTE_SHARE:
		return PROFILE_CUDA;
	}
	BUG("unknown profile metric %d", (int)m);
}

const char *profile_metric_name(enum profile_metric m)
{
	switch (m) {
	case PM_METAL_WAIT_SHARE: return "metal.wait_milliseconds / steady-decode duration";
	case PM_METAL_COMMAND_BUFFERS: return "metal.command_buffers";
	case PM_METAL_WORKING_SET_EXCESS: return "metal.working_set_bytes - metal.resident_bytes";
	case PM_METAL_DISPATCH_SHARE: return "metal.dispatch_milliseconds / steady-decode duration";
	case PM_CUDA_SYNC_SHARE:
		return "cuda.synchronization_milliseconds / steady-decode duration";
	case PM_CUDA_LAUNCHES: return "cuda.launches";
	case PM_CUDA_BANDWIDTH_SHARE:
		return "cuda.achieved_bandwidth_gbs / cuda.peak_bandwidth_gbs";
	case PM_CUDA_COMPUTE_SHARE:
		return "cuda.achieved_compute_tflops / cuda.peak_compute_tflops";
	}
	BUG("unknown profile metric %d", (int)m);
}

/* Duration of the first steady-decode phase (validated positive). */
static double steady_decode_ms(const struct profile *p)
{
	for (size_t i = 0; i < p->nr_phases; i++)
		if (!strcmp(p->phases[i].name, "steady-decode"))
			return p->phases[i].duration_ms;
	BUG("classifying a profile without a steady-decode phase");
}

/* Unsigned difference with an exact sign (the magnitude may round). */
static double excess(unsigned long long a, unsigned long long b)
{
	return a >= b ? (double)(a - b) : -(double)(b - a);
}

double profile_metric_value(const struct profile *p, enum profile_metric m)
{
	const struct profile_metal *mt = &p->metal;
	const struct profile_cuda *cu = &p->cuda;

	if ((profile_metric_backend(m) == PROFILE_METAL ? !p->has_metal : !p->has_cuda))
		BUG("metric %s read from a profile without its counter block",
		    profile_metric_name(m));
	switch (m) {
	case PM_METAL_WAIT_SHARE: return mt->wait_ms / steady_decode_ms(p);
	case PM_METAL_COMMAND_BUFFERS: return (double)mt->command_buffers;
	case PM_METAL_WORKING_SET_EXCESS: return excess(mt->working_set_bytes, mt->resident_bytes);
	case PM_METAL_DISPATCH_SHARE: return mt->dispatch_ms / steady_decode_ms(p);
	case PM_CUDA_SYNC_SHARE: return cu->synchronization_ms / steady_decode_ms(p);
	case PM_CUDA_LAUNCHES: return (double)cu->launches;
	case PM_CUDA_BANDWIDTH_SHARE: return cu->achieved_bandwidth_gbs / cu->peak_bandwidth_gbs;
	case PM_CUDA_COMPUTE_SHARE: return cu->achieved_compute_tflops / cu->peak_compute_tflops;
	}
	BUG("unknown profile metric %d", (int)m);
}

static bool holds(const struct profile *p, const struct profile_cond *c)
{
	double v = profile_metric_value(p, c->metric);

	switch (c->op) {
	case PO_GE: return v >= c->threshold;
	case PO_GT: return v > c->threshold;
	case PO_LT: return v < c->threshold;
	}
	BUG("unknown profile operator %d", (int)c->op);
}

static const struct profile_rule *match(const struct profile *p, enum profile_backend b)
{
	size_t nr;
	const struct profile_rule *rules = profile_rules(b, &nr);

	for (size_t i = 0; i < nr; i++) {
		size_t k = 0;

		while (k < rules[i].nr_cond && holds(p, &rules[i].cond[k]))
			k++;
		if (k == rules[i].nr_cond)
			return &rules[i];
	}
	BUG("rule table without a fallback row");
}

int profile_classify(const struct profile *p, const struct graph *g, struct findings *invalid,
		     struct profile_class *out, struct err *e)
{
	const struct lever *l;

	profile_validate(p, g, invalid);
	if (invalid->nr)
		return -1;
	/* validation bound exactly one counter block to the envelope backend */
	out->envelope_id = p->envelope_id;
	out->rule = match(p, p->has_metal ? PROFILE_METAL : PROFILE_CUDA);
	l = graph_lever(g, out->rule->lever_id);
	if (!l || strcmp(l->app.envelope_id, p->envelope_id))
		return err_set(e, "classification recommends lever \"%s\" outside profile "
				  "envelope \"%s\"", out->rule->lever_id, p->envelope_id);
	return 0;
}

json_t *profile_class_json(const struct profile_class *c)
{
	json_t *doc = jobj(), *ev = jarr();

	jset_str(doc, "schema", PROFILE_BOTTLENECK_SCHEMA);
	jset_str(doc, "envelope_id", c->envelope_id);
	jset_str(doc, "class", c->rule->class_name);
	jset_str(doc, "confidence", c->rule->confidence);
	jpush_new(ev, json_string(c->rule->evidence));
	jset_new(doc, "evidence", ev);
	jset_str(doc, "recommended_lever_id", c->rule->lever_id);
	return doc;
}
