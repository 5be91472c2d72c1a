/* gpu_section.h: the summary of the "gpu" section, derived from the
 * readings alone; the sampler fills it when the window closes and --verify
 * re-derives it to compare. */
#include <stdio.h>
#include <string.h>

#include "attestation/gpu_section.h"

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src);
}

static void range_add(struct gpu_range *g, int64_t v, int64_t n)
{
	if (n == 1 || v < g->min)
		g->min = v;
	if (n == 1 || v > g->max)
		g->max = v;
	g->mean += (double)v;	/* a sum until divided */
}

static void summarize_device(struct gpu_device *d)
{
	struct gpu_summary *m = &d->summary;
	int64_t util_n = 0;
	double util = 0;

	memset(m, 0, sizeof(*m));
	m->max_temperature_c = m->max_power_mw = m->max_memory_used_bytes = -1;
	m->max_process_memory_bytes = -1;
	m->mean_utilization_percent = -1;
	for (size_t i = 0; i < d->nr_readings; i++) {
		const struct gpu_reading *r = &d->readings[i];

		m->readings++;
		if (!strcmp(r->status, GPU_FAILED)) {
			m->failed++;
			continue;
		}
		if (strcmp(r->status, GPU_OBSERVED)) {
			m->unreadable++;
			continue;
		}
		m->observed++;
		range_add(&m->sm_clock_mhz, r->sm_clock_mhz, m->observed);
		range_add(&m->memory_clock_mhz, r->memory_clock_mhz, m->observed);
		if (r->clocks_event_reasons > 0)
			m->event_reasons |= r->clocks_event_reasons;
		if (r->temperature_c > m->max_temperature_c)
			m->max_temperature_c = r->temperature_c;
		if (r->power_mw > m->max_power_mw)
			m->max_power_mw = r->power_mw;
		if (r->memory_used_bytes > m->max_memory_used_bytes)
			m->max_memory_used_bytes = r->memory_used_bytes;
		if (r->process_memory_bytes > m->max_process_memory_bytes)
			m->max_process_memory_bytes = r->process_memory_bytes;
		if (r->utilization_percent >= 0) {
			util += (double)r->utilization_percent;
			util_n++;
		}
	}
	if (m->observed) {
		m->sm_clock_mhz.mean /= (double)m->observed;
		m->memory_clock_mhz.mean /= (double)m->observed;
	}
	if (util_n)
		m->mean_utilization_percent = util / (double)util_n;
	m->coverage_ratio = m->readings ? (double)m->observed / (double)m->readings : 0;
}

void gpu_summarize(struct gpu_section *s)
{
	int64_t bad = 0, seen = 0;

	if (!strcmp(s->status, GPU_UNREADABLE) && !s->nr_devices)
		return;
	for (size_t i = 0; i < s->nr_devices; i++) {
		summarize_device(&s->devices[i]);
		bad += s->devices[i].summary.failed + s->devices[i].summary.unreadable;
		seen += s->devices[i].summary.observed;
	}
	s->reason[0] = '\0';
	if (!bad && seen) {
		copy(s->status, sizeof(s->status), GPU_OBSERVED);
		return;
	}
	copy(s->status, sizeof(s->status), seen ? GPU_FAILED : GPU_UNREADABLE);
	if (!seen && !bad)
		copy(s->reason, sizeof(s->reason), "no reading was taken in the command window");
	for (size_t i = 0; i < s->nr_devices && !s->reason[0]; i++)
		for (size_t k = 0; k < s->devices[i].nr_readings; k++)
			if (s->devices[i].readings[k].error[0]) {
				const struct gpu_device *d = &s->devices[i];

				snprintf(s->reason, sizeof(s->reason), "device %lld: %s",
					 (long long)d->index, d->readings[k].error);
				break;
			}
	if (!s->reason[0])
		copy(s->reason, sizeof(s->reason), "a reading was not observed");
}
