/* gpu_check.h: the criterion's GPU policy against the sealed GPU sections
 * of a receipt's runs (the Go original's clock-observation rules). */
#include "receipt/gpu_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "sampler/attest.h"
#include "sampler/report.h"

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

/* "run 4 (candidate repetition 1)" from the sealed workload label, else
 * the attestation's place in the receipt. */
static void run_name(const struct report *r, size_t i, struct strbuf *out)
{
	if (r->has_workload)
		sb_addf(out, "run %lld (%s %s %lld)", (long long)r->workload.label.sequence,
			r->workload.label.arm, r->workload.label.kind,
			(long long)r->workload.label.index);
	else
		sb_addf(out, "attestation %zu", i);
}

int gpu_check_receipt(const struct gpu_policy *gp, const struct receipt *rc, const char *side,
		      struct strbuf *why)
{
	struct report *r = xmalloc(sizeof(*r));
	int bad = 0;

	for (size_t i = 0; i < rc->nr_system_baselines && !bad; i++) {
		struct strbuf v = STRBUF_INIT;
		struct err e;

		if (attest_check_report(rc->system_baselines[i].json, r, &e) < 0) {
			sb_addf(why, "%s attestation %zu does not verify: %s", side, i, e.msg);
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
	free(r);
	return bad;
}
