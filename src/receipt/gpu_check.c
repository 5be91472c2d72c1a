/* gpu_check.h: the criterion's GPU policy against the sealed GPU sections
 * of a receipt's runs (the rules of docs/graph.md, "GPU policy"). */
#include "receipt/gpu_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "attestation/attest.h"
#include "attestation/attestation.h"

static uint64_t disqualifying_bits(const struct gpu_policy *gp)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < gp->disqualifying_reasons.n; i++)
		bits |= gpu_reason_bit(gp->disqualifying_reasons.v[i]);
	return bits;
}

/* Largest distance of the range from the reference (target, else mean),
 * as a percent of the reference. */
static double drift_percent(const struct gpu_range *g, long long target)
{
	double ref = target > 0 ? (double)target : g->mean;
	double lo = fabs((double)g->min - ref), hi = fabs((double)g->max - ref);

	return ref > 0 ? (lo > hi ? lo : hi) / ref * 100 : 0;
}

static int check_device(const struct gpu_policy *gp, const struct gpu_device *d, struct strbuf *why)
{
	const struct gpu_summary *m = &d->summary;
	uint64_t bad = disqualifying_bits(gp) & (uint64_t)m->event_reasons;
	double sm, mem;

	sb_addf(why, "device %lld (%s): ", (long long)d->index, d->name);
	if (m->failed) {
		for (size_t i = 0; i < d->nr_readings; i++)
			if (!strcmp(d->readings[i].status, GPU_FAILED)) {
				sb_addf(why, "%lld failed reading(s), first at %lld ms: %s",
					(long long)m->failed, (long long)d->readings[i].offset_ms,
					d->readings[i].error);
				break;
			}
		return -1;
	}
	if (m->unreadable && !gp->allow_unreadable) {
		sb_addf(why, "%lld unreadable reading(s) and the policy does not allow them",
			(long long)m->unreadable);
		return -1;
	}
	if (m->coverage_ratio < gp->minimum_coverage_ratio || !m->observed) {
		sb_addf(why, "coverage %.2f is below the minimum %g", m->coverage_ratio,
			gp->minimum_coverage_ratio);
		return m->observed || gp->minimum_coverage_ratio > 0 ? -1 : 0;
	}
	sm = drift_percent(&m->sm_clock_mhz, gp->target_sm_clock_mhz);
	mem = drift_percent(&m->memory_clock_mhz, gp->target_memory_clock_mhz);
	if (bad) {
		char names[160];

		gpu_reasons_text((int64_t)bad, names, sizeof(names));
		sb_addf(why, "clock-event reason(s) %s", names);
	} else if (sm > gp->maximum_sm_clock_drift_percent) {
		sb_addf(why, "SM clock drift %.2f%% exceeds %g%%", sm,
			gp->maximum_sm_clock_drift_percent);
	} else if (mem > gp->maximum_memory_clock_drift_percent) {
		sb_addf(why, "memory clock drift %.2f%% exceeds %g%%", mem,
			gp->maximum_memory_clock_drift_percent);
	} else {
		return 0;
	}
	sb_addf(why, " (SM %lld..%lld MHz, mean %.0f; memory %lld..%lld MHz, mean %.0f)",
		(long long)m->sm_clock_mhz.min, (long long)m->sm_clock_mhz.max,
		m->sm_clock_mhz.mean,
		(long long)m->memory_clock_mhz.min, (long long)m->memory_clock_mhz.max,
		m->memory_clock_mhz.mean);
	return -1;
}

int gpu_check_section(const struct gpu_policy *gp, bool present, const struct gpu_section *s,
		      struct strbuf *why)
{
	if (!present) {
		if (gp->allow_unreadable && gp->minimum_coverage_ratio <= 0)
			return 0;
		sb_adds(why, "the attestation has no GPU section (sealed before fak read GPUs)");
		return -1;
	}
	if (!s->nr_devices) {
		if (gp->allow_unreadable && gp->minimum_coverage_ratio <= 0)
			return 0;
		sb_addf(why, "the GPU was unreadable (%s)%s", s->reason,
			gp->allow_unreadable ? " and the policy requires coverage" : "");
		return -1;
	}
	for (size_t i = 0; i < s->nr_devices; i++) {
		struct strbuf d = STRBUF_INIT;
		int rc = check_device(gp, &s->devices[i], &d);

		if (rc < 0)
			sb_adds(why, d.buf);
		sb_release(&d);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* "run 4 (candidate repetition 1)", counted from 1 as the runner prints
 * its schedule, from the sealed workload label; else the attestation's
 * place in the receipt. */
static void run_name(const struct attestation *r, size_t i, struct strbuf *out)
{
	if (r->has_workload)
		sb_addf(out, "run %lld (%s %s %lld)", (long long)r->workload.label.sequence + 1,
			r->workload.label.arm, r->workload.label.kind,
			(long long)r->workload.label.index + 1);
	else
		sb_addf(out, "attestation %zu", i);
}

int gpu_check_receipt(const struct gpu_policy *gp, const struct receipt *rc, const char *side,
		      struct strbuf *why)
{
	int bad = 0;

	for (size_t i = 0; i < rc->nr_system_baselines && !bad; i++) {
		const struct attestation *r = rc->system_baselines[i].att;
		struct strbuf v = STRBUF_INIT;

		if (!rc->system_baselines[i].verified) {
			sb_addf(why, "%s attestation %zu does not verify: %s", side, i,
				rc->system_baselines[i].why);
			bad = -1;
		} else if (gpu_check_section(gp, r->has_gpu, &r->gpu, &v) < 0) {
			sb_addf(why, "%s ", side);
			run_name(r, i, why);
			sb_addf(why, ": %s", v.buf);
			bad = -1;
		}
		sb_release(&v);
	}
	if (!bad && !rc->nr_system_baselines) {
		sb_addf(why, "%s has no sealed runs to read GPU clocks from", side);
		bad = -1;
	}
	return bad;
}

/* One arm's clocks over every sealed run (all devices): what the
 * comparison shows next to the throughput. */
struct arm_clocks {
	int64_t runs, with_devices, observed;
	struct gpu_range sm, mem;
	double sm_sum, mem_sum;
	int64_t reasons;
	bool failed;
};

static void arm_add(struct arm_clocks *a, const struct gpu_section *s)
{
	a->with_devices += s->nr_devices > 0;
	a->failed |= !strcmp(s->status, GPU_FAILED);
	for (size_t i = 0; i < s->nr_devices; i++) {
		const struct gpu_summary *m = &s->devices[i].summary;

		if (!m->observed)
			continue;
		if (!a->observed || m->sm_clock_mhz.min < a->sm.min)
			a->sm.min = m->sm_clock_mhz.min;
		if (!a->observed || m->sm_clock_mhz.max > a->sm.max)
			a->sm.max = m->sm_clock_mhz.max;
		if (!a->observed || m->memory_clock_mhz.min < a->mem.min)
			a->mem.min = m->memory_clock_mhz.min;
		if (!a->observed || m->memory_clock_mhz.max > a->mem.max)
			a->mem.max = m->memory_clock_mhz.max;
		a->observed += m->observed;
		a->sm_sum += m->sm_clock_mhz.mean * (double)m->observed;
		a->mem_sum += m->memory_clock_mhz.mean * (double)m->observed;
		a->reasons |= m->event_reasons;
	}
}

static json_t *range_json(const struct gpu_range *g, double mean)
{
	json_t *o = jobj();

	jset_int(o, "min", g->min);
	jset_int(o, "max", g->max);
	jset_num(o, "mean", mean);
	return o;
}

static json_t *arm_json(const struct arm_clocks *a)
{
	json_t *o = jobj(), *r = jarr();

	jset_int(o, "runs", a->runs);
	jset_int(o, "runs_with_devices", a->with_devices);
	jset_str(o, "status", a->failed ? GPU_FAILED : a->observed ? GPU_OBSERVED : GPU_UNREADABLE);
	jset_int(o, "observed_readings", a->observed);
	if (a->observed) {
		double n = (double)a->observed;

		jset_new(o, "sm_clock_mhz", range_json(&a->sm, a->sm_sum / n));
		jset_new(o, "memory_clock_mhz", range_json(&a->mem, a->mem_sum / n));
	}
	for (const struct gpu_reason_name *n = gpu_reason_names; n->name; n++)
		if ((uint64_t)a->reasons & n->bit)
			jpush_new(r, json_string(n->name));
	jset_new(o, "clocks_event_reasons", r);
	return o;
}

json_t *gpu_clocks_json(const struct receipt *base, const struct receipt *cand)
{
	const struct receipt *rs[2] = { base, cand };
	struct arm_clocks arms[2];
	json_t *o = NULL;

	memset(arms, 0, sizeof(arms));
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < rs[k]->nr_system_baselines; i++) {
			const struct attestation *r = rs[k]->system_baselines[i].att;

			arms[k].runs++;
			if (r && r->has_gpu)
				arm_add(&arms[k], &r->gpu);
		}
	if (arms[0].with_devices || arms[1].with_devices) {
		o = jobj();
		jset_new(o, "baseline", arm_json(&arms[0]));
		jset_new(o, "candidate", arm_json(&arms[1]));
	}
	return o;
}
