#include "sampler/fold.h"

#include <stdio.h>
#include <string.h>

#include "base/dates.h"
#include "sampler/gpu.h"

int64_t cadence_next(const struct cadence *c, int64_t cost_ns, bool *overloaded)
{
	double duty =
		c->max_duty_percent > 0 && c->max_duty_percent <= 100 ? c->max_duty_percent : 10;
	int64_t min = c->min_ns > 0 ? c->min_ns : 10000000;
	int64_t max = c->max_ns >= min ? c->max_ns : min;
	double required = (double)(cost_ns > 0 ? cost_ns : 0) * 125.0 / duty;
	int64_t next = required > 9e18 ? INT64_MAX
				       : (int64_t)required + ((double)(int64_t)required < required);

	if (next < min)
		next = min;
	*overloaded = next > max;
	return next > max ? max : next;
}

void fold_init(struct fold *f)
{
	memset(f, 0, sizeof(*f));
	f->sut_rss_complete = true;
	f->non_sut_complete = true;
}

static void contribute(struct fold *f)
{
	const struct sample *s = &f->last;

	f->wall_ns += s->wall_ns;
	f->stage_host_ns += s->stage_host_ns;
	f->stage_tree_ns += s->stage_tree_ns;
	f->hits += s->hits;
	f->misses += s->misses;
	if (f->last_cadence_ns > 0)
		f->effective_cadence_ns = f->last_cadence_ns;
	f->coverage_limited |= f->last_overloaded;
}

void fold_add(struct fold *f, const struct sample *s, int64_t cadence_ns, bool overloaded,
	      bool tree)
{
	if (f->n > 0)
		contribute(f);
	else
		f->first = *s;
	f->last = *s;
	f->last_cadence_ns = cadence_ns;
	f->last_overloaded = overloaded;
	f->n++;
	if (s->cpu_ok)
		f->host_cpu_samples++;
	if (s->mem_ok) {
		f->host_memory_samples++;
		if (!f->mem_seen || s->mem_available < f->mem_min_available)
			f->mem_min_available = s->mem_available;
		if (!f->mem_seen)
			f->mem_total = s->mem_total;
		f->mem_seen = true;
	}
	if (s->count_ok && (!f->count_seen || s->process_count > f->max_count)) {
		f->max_count = s->process_count;
		f->count_seen = true;
	}
	if (!tree)
		return;
	f->non_sut_censuses++;
	if (!s->non_sut_rss_ok)
		f->non_sut_complete = false;
	else if (s->non_sut_rss_bytes > f->non_sut_peak)
		f->non_sut_peak = s->non_sut_rss_bytes;
	f->tree_censuses++;
	f->snapshots += s->tree_ok;
	f->observed += s->members;
	f->rss_observed += s->rss_members;
	f->reads += s->reads;
	f->unreadable += s->unreadable;
	f->vanished += s->vanished;
	f->census_limited |= s->limited;
	if (!s->sut_rss_ok)
		f->sut_rss_complete = false;
	else if (s->sut_rss_bytes > f->sut_rss_peak)
		f->sut_rss_peak = s->sut_rss_bytes;
}

void psi_pair_delta(struct psi_pair *out, bool ok0, const struct pp_psi *a, bool ok1,
		    const struct pp_psi *b, const char *source, const char *why)
{
	if (!ok0 || !ok1) {
		metric_unavailable(&out->some_total_us, "%s", why);
		metric_unavailable(&out->full_total_us, "%s", why);
		return;
	}
	if (a->some_ok && b->some_ok && b->some_total_us >= a->some_total_us)
		metric_set(&out->some_total_us, (double)(b->some_total_us - a->some_total_us),
			   source);
	else
		metric_unavailable(&out->some_total_us, "%s: some line unavailable or regressed",
				   source);
	if (a->full_ok && b->full_ok && b->full_total_us >= a->full_total_us)
		metric_set(&out->full_total_us, (double)(b->full_total_us - a->full_total_us),
			   source);
	else
		metric_unavailable(&out->full_total_us, "%s: full line unavailable or regressed",
				   source);
}

/* ---- attestation pieces--------------------------------------------------- */

static void window(struct window *w, const struct fold *f, const struct fold_input *in)
{
	memset(w, 0, sizeof(*w));
	w->sample_interval_ns = in->interval_ns > 0 ? in->interval_ns : 0;
	w->samples = f->n;
	if (!f->n)
		return;
	timestamp_format(in->real0_ns + (f->first.mono_ns - in->mono0_ns), w->started_at_utc);
	timestamp_format(in->real0_ns + (f->last.mono_ns - in->mono0_ns), w->ended_at_utc);
	w->duration_ns = f->last.mono_ns - f->first.mono_ns;
}

/* Host CPU deltas between the window endpoints; false with a reason. */
static bool cpu_deltas(const struct fold *f, uint64_t *total, uint64_t *busy, const char **why)
{
	if (f->n < 2) {
		*why = "host CPU counter delta unavailable: fewer than 2 samples";
		return false;
	}
	if (!f->first.cpu_ok || !f->last.cpu_ok) {
		*why = !f->first.cpu_ok ? f->first.cpu_reason : f->last.cpu_reason;
		return false;
	}
	if (f->last.cpu_total_ns <= f->first.cpu_total_ns ||
	    f->last.cpu_busy_ns < f->first.cpu_busy_ns) {
		*why = "host CPU counter delta unavailable";
		return false;
	}
	*total = f->last.cpu_total_ns - f->first.cpu_total_ns;
	*busy = f->last.cpu_busy_ns - f->first.cpu_busy_ns;
	if (*busy > *total) {
		*why = "host busy CPU exceeds total CPU delta";
		return false;
	}
	return true;
}

/* With --cpus: the whole host's CPU over the window, as information. */
static void all_cpus(struct metric *m, const struct fold *f)
{
	const struct sample *a = &f->first, *b = &f->last;

	if (f->n < 2 || !a->cpu_all_ok || !b->cpu_all_ok ||
	    b->cpu_all_total_ns <= a->cpu_all_total_ns || b->cpu_all_busy_ns < a->cpu_all_busy_ns ||
	    b->cpu_all_busy_ns - a->cpu_all_busy_ns > b->cpu_all_total_ns - a->cpu_all_total_ns) {
		metric_unavailable(m, "the all-CPU line of /proc/stat gives no delta over the "
				      "window");
		return;
	}
	metric_set(m, (double)(b->cpu_all_busy_ns - a->cpu_all_busy_ns) /
			      (double)(b->cpu_all_total_ns - a->cpu_all_total_ns) * 100.0,
		   "/proc/stat busy/total delta of all CPUs (information)");
}

bool fold_host_cpu_percent(const struct fold *f, double *pct)
{
	uint64_t total, busy;
	const char *why;

	if (!cpu_deltas(f, &total, &busy, &why))
		return false;
	*pct = (double)busy / (double)total * 100.0;
	return true;
}

void fold_host_psi(const struct fold *f, struct psi *out)
{
	static const char *const src[PSI_AXES] = { "/proc/pressure/cpu total delta",
						   "/proc/pressure/memory total delta",
						   "/proc/pressure/io total delta" };
	struct psi_pair *pp[PSI_AXES] = { &out->cpu, &out->memory, &out->io };

	for (int i = 0; i < PSI_AXES; i++) {
		bool enough = f->n >= 2;
		const char *r = !enough ? "fewer than 2 samples"
				: !f->first.psi_ok[i] ? f->first.psi_reason[i]
				: f->last.psi_reason[i];

		psi_pair_delta(pp[i], enough && f->first.psi_ok[i], &f->first.psi[i],
			       enough && f->last.psi_ok[i], &f->last.psi[i], src[i], r);
	}
}

static void host(struct host_totals *h, const struct fold *f)
{
	uint64_t total, busy;
	const char *why;

	memset(h, 0, sizeof(*h));
	if (cpu_deltas(f, &total, &busy, &why))
		metric_set(&h->cpu_percent, (double)busy / (double)total * 100.0,
			   CENSUS_HOST_CPU);
	else
		metric_unavailable(&h->cpu_percent, "%s", why);
	if (f->mem_seen) {
		metric_set(&h->memory_total_bytes, (double)f->mem_total, CENSUS_MEM_TOTAL);
		metric_set(&h->memory_available_bytes, (double)f->mem_min_available,
			   "minimum sampled " CENSUS_MEM_AVAILABLE);
	} else {
		const char *r = f->n ? f->first.mem_reason : "no samples";

		metric_unavailable(&h->memory_total_bytes, "%s", r);
		metric_unavailable(&h->memory_available_bytes, "%s", r);
	}
	if (f->count_seen)
		metric_set(&h->process_count, (double)f->max_count,
			   "maximum process count of the full censuses");
	else
		metric_unavailable(&h->process_count, "process census unavailable");
	fold_host_psi(f, &h->pressure);
}

static void overhead(struct overhead *o, const struct fold *f)
{
	int64_t duration = f->n ? f->last.mono_ns - f->first.mono_ns : 0;

	memset(o, 0, sizeof(*o));
	o->process_cpu_ns = f->process_cpu_ns;
	if (f->n < 2 || duration <= 0) {
		metric_unavailable(&o->duty_percent, "sampler window unavailable");
		return;
	}
	o->counted_samples = f->n - 1;
	o->wall_ns = f->wall_ns;
	metric_set(&o->duty_percent, (double)f->wall_ns / (double)duration * 100.0,
		   "census wall time before the final counter endpoint");
	o->effective_cadence_ns = f->effective_cadence_ns;
	o->stage_host_counters_ns = f->stage_host_ns;
	o->stage_process_census_ns = f->stage_tree_ns;
	o->stable_identity_cache_hits = f->hits;
	o->stable_identity_cache_misses = f->misses;
	o->coverage_limited = f->coverage_limited;
}

/* How far the /proc/stat busy delta can fall short: each of its six busy
 * fields is truncated to a clock tick at each of the two endpoints. */
static uint64_t resolution_ns(const struct fold_input *in)
{
	return in->clk_tck > 0 ? 12 * (uint64_t)(1000000000 / in->clk_tck) : 0;
}

static void attribution(struct attestation *r, const struct fold_input *in)
{
	struct attribution *a = &r->attribution;
	const struct fold *f = in->command;
	uint64_t total, busy;
	const char *why;

	if (!in->sut_cpu_ok) {
		metric_unavailable(&a->sut_cpu_seconds, "%s", in->sut_cpu_reason);
		metric_unavailable(&a->sut_cpu_percent_of_host, "%s", in->sut_cpu_reason);
		metric_unavailable(&a->non_sut_cpu_percent_of_host,
				   "non-SUT residual requires complete SUT attribution");
	} else {
		metric_set(&a->sut_cpu_seconds, (double)in->sut_cpu_ns / 1e9, in->sut_cpu_source);
		if (!cpu_deltas(f, &total, &busy, &why)) {
			metric_unavailable(&a->sut_cpu_percent_of_host, "%s", why);
			metric_unavailable(&a->non_sut_cpu_percent_of_host, "%s", why);
		} else if (in->sut_cpu_ns > busy && in->sut_cpu_ns - busy <= resolution_ns(in)) {
			/* The SUT is part of the busy time, so the true busy time is
			 * at least the SUT's exact CPU; /proc/stat fell short by less
			 * than its resolution. Host CPU is raised to it, said so. */
			double pct = (double)in->sut_cpu_ns / (double)total * 100.0;

			metric_set(&r->host_totals.cpu_percent, pct,
				   CENSUS_HOST_CPU ", raised to the SUT CPU "
				   "(within counter resolution)");
			metric_set(&a->sut_cpu_percent_of_host, pct, in->sut_cpu_source);
			metric_set(&a->non_sut_cpu_percent_of_host, 0,
				   "host busy CPU minus SUT CPU: none beyond counter resolution");
		} else if (in->sut_cpu_ns > busy) {
			metric_unavailable(&a->sut_cpu_percent_of_host,
					   "attributed SUT CPU exceeds the host busy CPU delta by "
					   "more than the counters' resolution");
			metric_unavailable(&a->non_sut_cpu_percent_of_host,
					   "non-SUT residual is inconsistent with host CPU");
		} else {
			metric_set(&a->sut_cpu_percent_of_host,
				   (double)in->sut_cpu_ns / (double)total * 100.0,
				   in->sut_cpu_source);
			metric_set(&a->non_sut_cpu_percent_of_host,
				   (double)(busy - in->sut_cpu_ns) / (double)total * 100.0,
				   "host busy CPU minus SUT CPU");
		}
	}
	if (!strcmp(in->cgroup.state, CGROUP_MEASURED) && in->cgroup.memory_peak_bytes.available)
		metric_set(&a->sut_rss_bytes, in->cgroup.memory_peak_bytes.value,
			   "cgroup v2 memory.peak");
	else if (f->rss_observed > 0 && f->sut_rss_complete)
		metric_set(&a->sut_rss_bytes, (double)f->sut_rss_peak, "peak sampled SUT-tree RSS");
	else if (f->rss_observed == 0)
		metric_unavailable(&a->sut_rss_bytes, "no census observed the SUT tree alive (it "
				   "ended within one interval, or was seen only as a zombie)");
	else
		metric_unavailable(&a->sut_rss_bytes, "a census of the SUT tree was incomplete "
						      "(limited or unreadable)");
	if (!in->non_sut_rss_censused)
		metric_unavailable(&a->non_sut_rss_bytes, "non-SUT processes are censused only "
							  "with --require-process-memory");
	else if (f->non_sut_censuses > 0 && f->non_sut_complete)
		metric_set(&a->non_sut_rss_bytes, (double)f->non_sut_peak,
			   "peak sampled non-SUT process RSS");
	else
		metric_unavailable(&a->non_sut_rss_bytes,
				   "a census of non-SUT processes was incomplete");
}

/* The SUT's peak memory, never below the largest resident set a census saw
 * of its tree: with the cgroup's memory.peak that value (raised to the
 * sampled maximum, which counts shared pages once per process); without
 * it an estimate, the larger of every reaped process's wait4 ru_maxrss
 * (w->peak_rss_bytes as the runner measured it) and the sampled maximum.
 * Unreaped descendants leave it unknown: their peaks were never read. */
static void sut_peak(struct workload *w, const struct fold_input *in)
{
	const struct fold *f = in->command;
	const struct metric *cg = &in->cgroup.memory_peak_bytes;
	struct metric *p = &w->peak_rss_bytes;
	bool sampled = f->rss_observed > 0 && f->sut_rss_complete;
	double tree = sampled ? (double)f->sut_rss_peak : 0;

	if (!strcmp(in->cgroup.state, CGROUP_MEASURED) && cg->available) {
		if (tree > cg->value)
			metric_set(p, tree, "cgroup v2 memory.peak, raised to the peak sampled "
					    "SUT-tree RSS");
		else
			metric_set(p, cg->value, "cgroup v2 memory.peak");
	} else if (!p->available) {
		return;
	} else if (!sampled) {
		metric_set(p, p->value, "estimate: largest wait4 ru_maxrss of a reaped SUT "
					"process (tree not fully sampled)");
	} else if (tree > p->value) {
		metric_set(p, tree, "estimate: peak sampled SUT-tree RSS (above every reaped "
				    "process's ru_maxrss)");
	} else {
		metric_set(p, p->value, "estimate: largest wait4 ru_maxrss of a reaped SUT "
					"process (at least the sampled tree)");
	}
}

static void coverage(struct coverage *c, const struct fold_input *in)
{
	const struct fold *f = in->command;

	memset(c, 0, sizeof(*c));
	c->process_snapshots = f->snapshots;
	c->processes_observed = f->observed;
	c->process_reads = f->reads;
	c->process_unreadable = f->unreadable;
	c->process_vanished = f->vanished;
	c->host_cpu_samples = f->host_cpu_samples;
	c->host_memory_samples = f->host_memory_samples;
	c->sut_root_pid = in->root_pid;
	if (f->n) {
		attestation_copy(c->descendant_attribution, sizeof(c->descendant_attribution),
			    in->coverage);
		attestation_copy(c->process_enumeration, sizeof(c->process_enumeration),
			    in->enumeration);
	}
	c->census_process_limit = in->census_limit;
	c->census_limited = f->census_limited;
	c->descendants_reaped = in->reaped;
	c->descendants_killed_after_root_exit = in->killed;
	c->descendants_unreaped = in->unreaped;
	c->clock_ticks_per_second = in->clk_tck;
	c->page_size_bytes = in->page_size;
	attestation_copy(c->process_enumeration_note, sizeof(c->process_enumeration_note),
		    in->note ? in->note : "");
}

int fold_attestation(struct attestation *r, const struct fold_input *in, struct err *e)
{
	/* everything but the GPU device array, which gpu_copy fills as used */
	memset(r, 0, offsetof(struct attestation, gpu.devices));
	window(&r->baseline_window, in->baseline, in);
	host(&r->baseline_host_totals, in->baseline);
	overhead(&r->baseline_sampler, in->baseline);
	window(&r->command_window, in->command, in);
	overhead(&r->command_sampler, in->command);
	coverage(&r->coverage, in);
	host(&r->host_totals, in->command);
	attribution(r, in);
	r->cgroup_v2 = in->cgroup;
	r->policy = in->policy;
	if (in->policy.include_top_consumers) {
		r->nr_consumers = in->nr_consumers > ATTESTATION_MAX_CONSUMERS
					  ? ATTESTATION_MAX_CONSUMERS : in->nr_consumers;
		memcpy(r->consumers, in->consumers, r->nr_consumers * sizeof(r->consumers[0]));
	}
	r->command_exit_code = in->exit_code;
	r->command_signal = in->signal;
	r->timed_out = in->timed_out;
	if (in->cpus_list) {
		static const char src[] = "/proc/stat busy/total delta of the --cpus CPUs";

		r->has_cpus = true;
		attestation_copy(r->cpus.list, sizeof(r->cpus.list), in->cpus_list);
		r->cpus.count = (int64_t)in->cpus_count;
		all_cpus(&r->cpus.baseline_all_cpus_percent, in->baseline);
		all_cpus(&r->cpus.command_all_cpus_percent, in->command);
		struct metric *m[2] = { &r->baseline_host_totals.cpu_percent,
					&r->host_totals.cpu_percent };

		for (int i = 0; i < 2; i++)
			if (m[i]->available)
				attestation_copy(m[i]->source, ATTESTATION_SOURCE_MAX, src);
	}
	if (in->quiet_wait) {
		r->has_quiet_wait = true;
		r->quiet_wait = *in->quiet_wait;
	}
	if (in->gpu) {
		r->has_gpu = true;
		gpu_copy(&r->gpu, in->gpu);
	}
	if (in->simulated)
		r->simulated = *in->simulated;
	if (in->workload) {
		r->has_workload = true;
		r->workload = *in->workload;
		sut_peak(&r->workload, in);
	}
	attestation_classify(r);
	if (attestation_validate(r, e) < 0)
		return err_prefix(e, "internal error: the built attestation is inconsistent");
	return attestation_seal(r, e);
}
