/* The attestation model: policy, classification, validation, JSON in and
 * out, seal. Classification is one function used both when building and
 * when verifying, so a sealed attestation always re-derives its own verdict. */
#include "attestation/attestation.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/dates.h"
#include "base/jfields.h"
#include "base/digest.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "attestation/attest.h"
#include "base/proc_parse.h"

#define MS ((int64_t)1000000)

/* ---- small helpers ---------------------------------------------------- */

void attestation_copy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	bool cut = n >= cap;

	if (cut) {
		n = cap > 4 ? cap - 4 : 0;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;	/* never split a UTF-8 sequence */
	}
	memcpy(dst, src, n);
	if (cut && cap > 4)
		memcpy(dst + n, "...", 4);
	else
		dst[n] = '\0';
}

void metric_set(struct metric *m, double value, const char *source)
{
	if (!isfinite(value) || value < 0)
		BUG("metric value %g from '%s' is not finite and non-negative", value, source);
	memset(m, 0, sizeof(*m));
	m->available = true;
	m->value = value;
	attestation_copy(m->source, sizeof(m->source), source);
}

void metric_unavailable(struct metric *m, const char *fmt, ...)
{
	va_list ap;

	memset(m, 0, sizeof(*m));
	va_start(ap, fmt);
	vsnprintf(m->reason, sizeof(m->reason), fmt, ap);
	va_end(ap);
	if (!m->reason[0])
		BUG("unavailable metric without a reason");
}

void attestation_scrub_image(const char *image, char out[ATTESTATION_IMAGE_MAX])
{
	size_t end = strlen(image), start;

	while (end > 0 && (image[end - 1] == '/' || image[end - 1] == '\\'))
		end--;
	start = end;
	while (start > 0 && image[start - 1] != '/' && image[start - 1] != '\\')
		start--;
	if (end == start || (end - start == 1 && image[start] == '.')) {
		attestation_copy(out, ATTESTATION_IMAGE_MAX, "unknown");
		return;
	}
	if (end - start >= ATTESTATION_IMAGE_MAX)
		end = start + ATTESTATION_IMAGE_MAX - 1;
	memcpy(out, image + start, end - start);
	out[end - start] = '\0';
	/* a process may name itself anything ("alice@gpu-node", an address) */
	if (!str_scrubbed(out, NULL))
		attestation_copy(out, ATTESTATION_IMAGE_MAX, "scrubbed");
}

/* ---- policy ----------------------------------------------------------- */

void policy_default(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->minimum_baseline_samples = 2;
	p->minimum_samples = 2;
	p->maximum_non_sut_cpu_percent = 20;
	p->maximum_sampler_duty_percent = 10;
	p->maximum_psi_stall_percent = 5;
	p->minimum_census_interval_ns = 10 * MS;
	p->maximum_census_interval_ns = 1000 * MS;
	p->require_host_cpu = true;
	p->require_sut_cpu = true;
}

static bool in_open_closed(double x, double lo, double hi)
{
	return isfinite(x) && x > lo && x <= hi;
}

int policy_check(const struct policy *p, struct err *e)
{
	if (p->minimum_baseline_samples < 2 || p->minimum_samples < 2)
		return err_set(e, "policy: minimum sample counts must be at least 2");
	if (!in_open_closed(p->maximum_non_sut_cpu_percent, 0, 100))
		return err_set(e, "policy: maximum_non_sut_cpu_percent must be in (0,100]");
	if (!in_open_closed(p->maximum_sampler_duty_percent, 0, 100))
		return err_set(e, "policy: maximum_sampler_duty_percent must be in (0,100]");
	if (!isfinite(p->maximum_psi_stall_percent) || p->maximum_psi_stall_percent < 0 ||
	    p->maximum_psi_stall_percent > 100)
		return err_set(e, "policy: maximum_psi_stall_percent must be in [0,100]");
	if (p->minimum_census_interval_ns <= 0 ||
	    p->maximum_census_interval_ns < p->minimum_census_interval_ns)
		return err_set(e, "policy: census interval bounds must satisfy "
				  "0 < minimum <= maximum");
	return 0;
}

/* ---- classification --------------------------------------------------- */

/* The findings that make the evidence invalid (the run itself is unusable);
 * every other finding makes it investigate. */
static const char *const invalidating[] = {
	"NO_SAMPLES", "INVALID_BASELINE_WINDOW", "INVALID_WINDOW", "SAMPLER_COVERAGE_LIMITED",
	"COMMAND_FAILED", "COMMAND_TIMEOUT", "WORKLOAD_METRICS_INVALID",
	"WORKLOAD_TIME_EXCEEDS_WINDOW", "WORKLOAD_RATE_EXCEEDS_WINDOW",
	"WORKLOAD_STAGES_EXCEED_END_TO_END", "WORKLOAD_RATE_DISAGREES_WITH_STAGES",
	"ARTIFACT_NOT_OBSERVED", NULL,
};

bool attestation_code_invalidates(const char *code)
{
	for (const char *const *p = invalidating; *p; p++)
		if (!strcmp(*p, code))
			return true;
	return false;
}

struct classify {
	struct attestation *r;
	bool invalid;
};

static void finding(struct classify *c, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void finding(struct classify *c, const char *code, const char *fmt, ...)
{
	struct finding *f;
	va_list ap;

	if (c->r->nr_findings >= ATTESTATION_MAX_FINDINGS)
		BUG("more than %d findings", ATTESTATION_MAX_FINDINGS);
	f = &c->r->findings[c->r->nr_findings++];
	memset(f, 0, sizeof(*f));
	attestation_copy(f->code, sizeof(f->code), code);
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	if (attestation_code_invalidates(code))
		c->invalid = true;
}

static bool window_ok(const struct window *w, int64_t min_samples)
{
	return w->samples >= min_samples && w->duration_ns > 0 && w->sample_interval_ns > 0;
}

static const char *unknown_reason(const struct metric *a, const struct metric *b)
{
	return !a->available ? a->reason : b->reason;
}

double attestation_psi_stall_percent(const struct psi_pair *p, int64_t duration_ns)
{
	double worst = -1;
	const struct metric *m[2] = { &p->some_total_us, &p->full_total_us };

	if (duration_ns <= 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (m[i]->available) {
			double pct = m[i]->value * 1000.0 / (double)duration_ns * 100.0;
			if (pct > worst)
				worst = pct;
		}
	return worst;
}

static const char *const psi_axes[3] = { "cpu", "memory", "io" };

const char *attestation_psi_worst(const struct psi *p, int64_t duration_ns, double *pct)
{
	const struct psi_pair *pp[3] = { &p->cpu, &p->memory, &p->io };
	const char *axis = NULL;

	*pct = -1;
	for (int i = 0; i < 3; i++) {
		double v = attestation_psi_stall_percent(pp[i], duration_ns);

		if (v >= 0 && v > *pct) {
			*pct = v;
			axis = psi_axes[i];
		}
	}
	return axis;
}

bool attestation_window_quiet(const struct policy *p, bool cpu_known, double cpu_pct,
			      double psi_pct)
{
	return !cpu_known || (cpu_pct <= p->maximum_non_sut_cpu_percent &&
			      !(psi_pct > p->maximum_psi_stall_percent));
}

/* The baseline window's host PSI stall as --wait-quiet judged it: -1 when
 * it did not judge it or it is unknown. */
static double baseline_psi(const struct attestation *r, const char **axis)
{
	double pct = -1;

	*axis = NULL;
	if (r->has_quiet_wait && r->quiet_wait.psi_stall_judged)
		*axis = attestation_psi_worst(&r->baseline_host_totals.pressure,
					      r->baseline_window.duration_ns, &pct);
	return pct;
}

void attestation_window_why(const struct policy *p, double cpu_pct, double psi_pct,
			    const char *axis, char *out, size_t cap)
{
	int n = 0;

	out[0] = '\0';
	if (cpu_pct > p->maximum_non_sut_cpu_percent)
		n = snprintf(out, cap, "host CPU %.2f%% is above the %.2f%% ceiling", cpu_pct,
			     p->maximum_non_sut_cpu_percent);
	if (axis && psi_pct > p->maximum_psi_stall_percent && n >= 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n, "%s%s PSI stall %.2f%% is above the %.2f%% "
			 "ceiling", n ? " and " : "", axis, psi_pct, p->maximum_psi_stall_percent);
}

void attestation_quiet_wait_why(const struct attestation *r, char *out, size_t cap)
{
	const struct metric *cpu = &r->baseline_host_totals.cpu_percent;
	const char *axis;
	double psi = baseline_psi(r, &axis);

	attestation_window_why(&r->policy, cpu->available ? cpu->value : -1, psi, axis, out, cap);
}

/* Stage times may exceed what they add up to by this much (the benchmark's
 * clocks and rounding): 1% of the end-to-end time plus 1 ms. */
#define STAGE_SLACK_FRACTION 0.01
#define STAGE_SLACK_MS 1.0

/* The stage times of one request fit in its end-to-end time: ttft, prefill
 * and decode each, and prefill and decode together, at most end to end. */
static void classify_stages(struct classify *c, const struct wl_metrics *m)
{
	const struct {
		bool has;
		double ms;
		const char *name;
	} st[] = { { m->has_ttft, m->ttft_ms, "ttft_milliseconds" },
		   { m->has_prefill, m->prefill_ms, "prefill_milliseconds" },
		   { m->has_decode, m->decode_ms, "decode_milliseconds" } };
	double limit = m->end_to_end_ms * (1 + STAGE_SLACK_FRACTION) + STAGE_SLACK_MS;
	char a[JSON_NUMBER_MAX], b[JSON_NUMBER_MAX], t[JSON_NUMBER_MAX];

	json_format_double(t, m->end_to_end_ms);
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (st[i].has && st[i].ms > limit) {
			json_format_double(a, st[i].ms);
			finding(c, "WORKLOAD_STAGES_EXCEED_END_TO_END",
				"%s %s is longer than end_to_end_milliseconds %s: the stage times "
				"contradict each other", st[i].name, a, t);
			return;
		}
	if (m->has_prefill && m->has_decode && m->prefill_ms + m->decode_ms > limit) {
		json_format_double(a, m->prefill_ms);
		json_format_double(b, m->decode_ms);
		finding(c, "WORKLOAD_STAGES_EXCEED_END_TO_END",
			"prefill_milliseconds %s and decode_milliseconds %s add up to more than "
			"end_to_end_milliseconds %s: the stage times contradict each other",
			a, b, t);
	}
}

/* How far the rate may stray from its own times (docs/experiments.md, "The
 * metrics protocol"): benchmarks time decode slightly differently than they
 * count tokens (the first token in prefill or not, one clock read more or
 * less, rounding of printed figures). */
#define RATE_TOLERANCE 0.10

/* The rate disagrees with the stage stage_ms of the request: above what the
 * decode time allows, or below what the end-to-end time does. */
static void rate_finding(struct classify *c, const struct wl_metrics *m, int64_t tokens,
			 bool above, double stage_ms)
{
	char tps[JSON_NUMBER_MAX], ms[JSON_NUMBER_MAX];

	json_format_double(tps, m->tokens_per_second);
	json_format_double(ms, stage_ms);
	finding(c, "WORKLOAD_RATE_DISAGREES_WITH_STAGES",
		"tokens_per_second %s but %lld decode tokens in %s %s are %s%.6g tok/s: the rate "
		"is more than %.0f%% %s what its own %s time allows", tps, (long long)tokens,
		above ? "decode_milliseconds" : "end_to_end_milliseconds", ms,
		above ? "" : "at least ", (double)tokens / (stage_ms / 1e3), RATE_TOLERANCE * 100,
		above ? "above" : "below", above ? "decode" : "end-to-end");
}

/* The fewest of the envelope's T decode tokens a rate may count: T - 1
 * when the benchmark counts the first token with prefill (the CPU example,
 * vLLM's TPOT), as many do; T when there is only one. */
static int64_t rate_tokens_floor(int64_t tokens)
{
	return tokens > 1 ? tokens - 1 : tokens;
}

/* The rate agrees with the stage times: the tokens it counts (T, or T - 1
 * with the first one in prefill) at the rate take at least the decode time
 * (no faster than the stage that made them: T tokens) and at most the
 * end-to-end time (no slower than the whole request: T - 1 tokens), each
 * within RATE_TOLERANCE. A rate of end-to-end time and a rate of decode time
 * both fit, whichever way the first token is counted. */
static void classify_rate(struct classify *c, const struct wl_metrics *m, int64_t tokens)
{
	if (tokens <= 0)
		return;
	if (m->has_decode && m->decode_ms > 0 &&
	    m->tokens_per_second > (double)tokens / (m->decode_ms / 1e3) * (1 + RATE_TOLERANCE))
		rate_finding(c, m, tokens, true, m->decode_ms);
	else if (m->tokens_per_second * (1 + RATE_TOLERANCE) <
		 (double)rate_tokens_floor(tokens) / (m->end_to_end_ms / 1e3))
		rate_finding(c, m, rate_tokens_floor(tokens), false, m->end_to_end_ms);
}

/* The run's own figures cannot be taken when its output did not yield
 * them, when they contradict each other, or when they claim more time than
 * the command ran. */
static void classify_artifact(struct classify *c, const struct wl_artifact_use *a)
{
	if (!a->looked)
		return;
	if (!a->observable)
		finding(c, "ARTIFACT_NOT_OBSERVABLE", "%s", a->observation);
	else if (!a->observed)
		finding(c, "ARTIFACT_NOT_OBSERVED", "%s", a->observation);
}

static void classify_workload(struct classify *c)
{
	const struct workload *w = &c->r->workload;

	/* a command that failed may never have reached the model */
	if (!c->r->command_exit_code)
		classify_artifact(c, &w->artifact);
	if (!w->has_metrics) {
		/* a failed command has its own finding; its output was not parsed */
		if (!c->r->command_exit_code)
			finding(c, "WORKLOAD_METRICS_INVALID", "%s", w->metrics_error);
		return;
	}
	if (w->metrics.has_throughput) {
		classify_stages(c, &w->metrics);
		classify_rate(c, &w->metrics, w->decode_tokens);
	}
	/* the window opens before the fork and closes after the last reap */
	if (w->metrics.has_throughput &&
	    w->metrics.end_to_end_ms * 1e6 > (double)c->r->command_window.duration_ns + 1e6)
		finding(c, "WORKLOAD_TIME_EXCEEDS_WINDOW",
			"the reported end-to-end time %.3f ms exceeds the command "
			"window of %.3f ms",
			w->metrics.end_to_end_ms, (double)c->r->command_window.duration_ns / 1e6);
	/* the envelope's decode tokens at the reported rate cannot take longer
	 * than the command ran (a rate can only be checked from below) */
	if (w->metrics.has_throughput &&
	    (double)rate_tokens_floor(w->decode_tokens) / w->metrics.tokens_per_second * 1e9 >
		    (double)c->r->command_window.duration_ns + 1e6)
		finding(c, "WORKLOAD_RATE_EXCEEDS_WINDOW",
			"%lld decode tokens at the reported %.6g tok/s take %.3f ms, longer than "
			"the command window of %.3f ms",
			(long long)rate_tokens_floor(w->decode_tokens),
			w->metrics.tokens_per_second,
			(double)rate_tokens_floor(w->decode_tokens) /
				w->metrics.tokens_per_second * 1e3,
			(double)c->r->command_window.duration_ns / 1e6);
}

void attestation_classify(struct attestation *r)
{
	struct classify c = { .r = r };
	const struct policy *p = &r->policy;
	const struct attribution *a = &r->attribution;
	const struct overhead *bs = &r->baseline_sampler, *cs = &r->command_sampler;

	r->nr_findings = 0;
	if (r->command_window.samples == 0) {
		finding(&c, "NO_SAMPLES", "no system samples were captured");
		goto done;
	}
	if (!window_ok(&r->baseline_window, p->minimum_baseline_samples))
		finding(&c, "INVALID_BASELINE_WINDOW",
			"quiet baseline sample count, duration or interval is invalid");
	if (!window_ok(&r->command_window, p->minimum_samples) || r->coverage.sut_root_pid <= 0)
		finding(&c, "INVALID_WINDOW",
			"command window sample count, duration, interval or SUT root is invalid");
	if (p->require_host_cpu && !r->baseline_host_totals.cpu_percent.available)
		finding(&c, "BASELINE_HOST_CPU_UNKNOWN", "%s",
			r->baseline_host_totals.cpu_percent.reason);
	if (p->require_host_cpu && !r->host_totals.cpu_percent.available)
		finding(&c, "HOST_CPU_UNKNOWN", "%s", r->host_totals.cpu_percent.reason);
	if (p->require_sut_cpu &&
	    (!a->sut_cpu_percent_of_host.available || !a->non_sut_cpu_percent_of_host.available))
		finding(&c, "SUT_CPU_UNKNOWN", "%s",
			unknown_reason(&a->sut_cpu_percent_of_host,
				       &a->non_sut_cpu_percent_of_host));
	if (p->require_process_memory &&
	    (!a->sut_rss_bytes.available || !a->non_sut_rss_bytes.available))
		finding(&c, "PROCESS_MEMORY_UNKNOWN", "%s",
			unknown_reason(&a->sut_rss_bytes, &a->non_sut_rss_bytes));
	if (r->coverage.process_unreadable > 0)
		finding(&c, "PROCESS_CENSUS_ERRORS",
			"%lld process read(s) failed for reasons other than the process exiting",
			(long long)r->coverage.process_unreadable);
	if (!bs->duty_percent.available || !cs->duty_percent.available)
		finding(&c, "SAMPLER_DUTY_UNKNOWN",
			"baseline or command sampler duty is unavailable");
	if (bs->duty_percent.available && bs->duty_percent.value > p->maximum_sampler_duty_percent)
		finding(&c, "BASELINE_SAMPLER_DUTY_HIGH",
			"baseline sampler duty %.2f%% exceeds %.2f%%", bs->duty_percent.value,
			p->maximum_sampler_duty_percent);
	if (cs->duty_percent.available && cs->duty_percent.value > p->maximum_sampler_duty_percent)
		finding(&c, "COMMAND_SAMPLER_DUTY_HIGH",
			"command sampler duty %.2f%% exceeds %.2f%%", cs->duty_percent.value,
			p->maximum_sampler_duty_percent);
	if (bs->coverage_limited || cs->coverage_limited)
		finding(&c, "SAMPLER_COVERAGE_LIMITED",
			"required census cadence exceeded the declared maximum; "
			"churn coverage is insufficient");
	if (r->baseline_host_totals.cpu_percent.available &&
	    r->baseline_host_totals.cpu_percent.value > p->maximum_non_sut_cpu_percent)
		finding(&c, "BASELINE_HOST_CPU_HIGH",
			"quiet baseline host CPU %.2f%% exceeds %.2f%%",
			r->baseline_host_totals.cpu_percent.value, p->maximum_non_sut_cpu_percent);
	if (a->non_sut_cpu_percent_of_host.available &&
	    a->non_sut_cpu_percent_of_host.value > p->maximum_non_sut_cpu_percent)
		finding(&c, "NON_SUT_CPU_HIGH", "non-SUT CPU %.2f%% exceeds %.2f%%",
			a->non_sut_cpu_percent_of_host.value, p->maximum_non_sut_cpu_percent);
	if (r->command_exit_code != 0) {
		if (r->command_signal > 0 && !r->timed_out)
			finding(&c, "COMMAND_FAILED", "child command was terminated by signal %lld",
				(long long)r->command_signal);
		else
			finding(&c, "COMMAND_FAILED", "child command exited %lld",
				(long long)r->command_exit_code);
	}
	if (r->timed_out)
		finding(&c, "COMMAND_TIMEOUT", "child command exceeded the configured timeout");
	if (r->coverage.descendants_unreaped > 0)
		finding(&c, "DESCENDANT_CLEANUP_FAILED",
			"%lld descendant process(es) were still present after cleanup",
			(long long)r->coverage.descendants_unreaped);
	if (r->cgroup_v2.cleanup.attempted &&
	    !(r->cgroup_v2.cleanup.empty && r->cgroup_v2.cleanup.removed))
		finding(&c, "CGROUP_CLEANUP_FAILED", "%s", r->cgroup_v2.cleanup.reason);
	if (!strcmp(r->cgroup_v2.state, CGROUP_MEASURED)) {
		static const char *const axis[3] = { "cpu", "memory", "io" };
		static const char *const code[3] = { "CPU_PSI_STALL_HIGH", "MEMORY_PSI_STALL_HIGH",
						      "IO_PSI_STALL_HIGH" };
		const struct psi_pair *pp[3] = { &r->cgroup_v2.pressure.cpu,
						 &r->cgroup_v2.pressure.memory,
						 &r->cgroup_v2.pressure.io };

		for (int i = 0; i < 3; i++) {
			double pct = attestation_psi_stall_percent(pp[i],
								   r->command_window.duration_ns);

			if (pct > p->maximum_psi_stall_percent)
				finding(&c, code[i], "%s cgroup PSI stall %.2f%% exceeds %.2f%%",
					axis[i], pct, p->maximum_psi_stall_percent);
		}
	}
	if (r->has_workload)
		classify_workload(&c);
done:
	attestation_copy(r->verdict, sizeof(r->verdict),
		    c.invalid ? "invalid" : r->nr_findings ? "investigate" : "clean");
}

/* ---- validation ------------------------------------------------------- */

static int check_window(const char *name, const struct window *w, const struct overhead *o,
			int64_t *start, int64_t *end, struct err *e)
{
	int64_t a = 0, b = 0;

	*start = *end = 0;
	if (w->samples == 0) {
		if (w->started_at_utc[0] || w->ended_at_utc[0] || w->duration_ns)
			return err_set(e, "%s: a window without samples has no times or duration",
				       name);
	} else {
		if (timestamp_parse(w->started_at_utc, &a) < 0 ||
		    timestamp_parse(w->ended_at_utc, &b) < 0)
			return err_set(e, "%s: window times must be RFC 3339 UTC timestamps", name);
		if (b - a != w->duration_ns)
			return err_set(e, "%s: duration_ns %lld does not match the window "
					  "times (%lld)",
				       name, (long long)w->duration_ns, (long long)(b - a));
		if (w->samples == 1 && w->duration_ns)
			return err_set(e, "%s: a single sample has no duration", name);
	}
	*start = a;
	*end = b;
	if (w->samples >= 2 && w->duration_ns > 0) {
		if (o->counted_samples != w->samples - 1)
			return err_set(e, "%s sampler: counted_samples must be samples - 1", name);
		if (o->duty_percent.available) {
			double want = (double)o->wall_ns / (double)w->duration_ns * 100.0;

			if (fabs(o->duty_percent.value - want) > 1e-9 * (want > 1 ? want : 1))
				return err_set(e, "%s sampler: duty_percent %g does not equal "
						  "wall_ns / duration_ns * 100",
					       name, o->duty_percent.value);
		} else if (o->wall_ns) {
			return err_set(e, "%s sampler: an unavailable duty must have wall_ns 0",
				       name);
		}
	} else if (o->counted_samples || o->wall_ns || o->duty_percent.available) {
		return err_set(e, "%s sampler: a window with fewer than 2 samples has no "
				  "counted samples or duty",
			       name);
	}
	return 0;
}

static int check_cgroup(const struct attestation *r, struct err *e)
{
	const struct cgroup_section *g = &r->cgroup_v2;
	const struct cgroup_cleanup *cl = &g->cleanup;
	bool measured = !strcmp(g->state, CGROUP_MEASURED);

	if (measured && (g->reason[0] || !g->atomic_placement || !g->cpu_usage_us.available))
		return err_set(e, "cgroup_v2: a measured cgroup has atomic placement, "
				  "CPU usage and no reason");
	if (!measured && !g->reason[0])
		return err_set(e, "cgroup_v2: an unavailable cgroup states its reason");
	if (!cl->attempted && (cl->killed_remaining || cl->empty || cl->removed || cl->reason[0]))
		return err_set(e, "cgroup_v2.cleanup: nothing can be recorded when cleanup "
				  "was not attempted");
	if (cl->attempted && cl->empty && cl->removed && cl->reason[0])
		return err_set(e, "cgroup_v2.cleanup: a successful cleanup carries no reason");
	if (cl->attempted && !(cl->empty && cl->removed) && !cl->reason[0])
		return err_set(e, "cgroup_v2.cleanup: a failed cleanup states its reason");
	if (measured != !strcmp(r->coverage.descendant_attribution, COVERAGE_CGROUP))
		return err_set(e, "coverage: exact_cgroup_v2 is used exactly when the "
				  "cgroup was measured");
	return 0;
}

static int consumer_cmp(const struct consumer *x, const struct consumer *y)
{
	if (x->cpu_seconds != y->cpu_seconds)
		return x->cpu_seconds > y->cpu_seconds ? -1 : 1;
	if (x->rss_bytes != y->rss_bytes)
		return x->rss_bytes > y->rss_bytes ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int check_consumers(const struct attestation *r, struct err *e)
{
	if (r->nr_consumers && !r->policy.include_top_consumers)
		return err_set(e, "top_non_sut_consumers: records require policy "
				  "include_top_consumers");
	for (size_t i = 0; i < r->nr_consumers; i++) {
		const struct consumer *c = &r->consumers[i];
		char scrubbed[ATTESTATION_IMAGE_MAX];

		attestation_scrub_image(c->image, scrubbed);
		if (strcmp(scrubbed, c->image) || strchr(c->image, '/') || strchr(c->image, '\\') ||
		    !str_scrubbed(c->image, NULL))
			return err_set(e, "top_non_sut_consumers[%zu].image: must be a "
					  "scrubbed basename",
				       i);
		if (c->pid <= 0)
			return err_set(e, "top_non_sut_consumers[%zu].pid: must be positive", i);
		if ((!c->cpu_available && c->cpu_seconds) || (!c->rss_available && c->rss_bytes))
			return err_set(e, "top_non_sut_consumers[%zu]: an unavailable "
					  "figure must be 0",
				       i);
		if (i && consumer_cmp(&r->consumers[i - 1], c) > 0)
			return err_set(e, "top_non_sut_consumers: records must be ordered "
					  "by CPU, RSS, then PID");
	}
	return 0;
}

static bool coverage_known(const char *s, bool enumeration)
{
	if (!*s)
		return true;
	if (enumeration)
		return !strcmp(s, ENUM_CHILDREN) || !strcmp(s, ENUM_CGROUP) ||
		       !strcmp(s, ENUM_SCAN);
	return !strcmp(s, COVERAGE_SUBREAPER) || !strcmp(s, COVERAGE_CGROUP) ||
	       !strcmp(s, COVERAGE_SAMPLED);
}

/* A run's label: its envelope, lever and arm, its experiment, machine and
 * revision, the envelope state's digest where it has one, and its kind. */
static int check_label(const struct wl_label *l, struct err *e)
{
	if (!l->envelope_id[0] || !l->lever_id[0] ||
	    (strcmp(l->arm, "baseline") && strcmp(l->arm, "candidate")))
		return err_set(e, "workload.label: names an envelope, a lever and the arm "
				  "baseline or candidate");
	if (!digest_is_hexn(l->experiment_id, 32) || !l->machine_id[0] ||
	    !l->revision[0])
		return err_set(e, "workload.label: names its experiment (32 hex digits), machine "
				  "and revision");
	if (l->envelope_state[0] &&
	    (strncmp(l->envelope_state, "sha256:", 7) || !digest_is_hex(l->envelope_state + 7)))
		return err_set(e, "workload.label.envelope_state: must be \"sha256:\" and 64 "
				  "lowercase hex digits");
	if (strcmp(l->kind, WL_KIND_WARMUP) && strcmp(l->kind, WL_KIND_REPETITION) &&
	    strcmp(l->kind, WL_KIND_QUALITY))
		return err_set(e, "workload.label.kind: must be warmup, repetition or quality");
	return 0;
}

/* A serving run's quality is its quality prompts' exact match. */
static int check_serving_quality(const struct workload *w, struct err *e)
{
	const struct wl_quality *q = &w->metrics.quality;
	const struct wl_serving_quality *s = &w->serving.quality;

	if (strcmp(q->name, WL_QUALITY_EXACT_MATCH) || !q->higher_is_better ||
	    q->score != (double)s->matched / (double)s->prompts)
		return err_set(e, "workload.metrics.quality: a serving run's quality is "
				  "\"%s\" (higher is better), %lld of %lld prompts matched",
			       WL_QUALITY_EXACT_MATCH, (long long)s->matched,
			       (long long)s->prompts);
	return 0;
}

static int check_workload(const struct workload *w, struct err *e)
{
	const struct wl_label *l = &w->label;
	const struct wl_metrics *m = &w->metrics;
	bool json = !strcmp(w->parser, WL_PARSER_JSON),
	     llama = !strcmp(w->parser, WL_PARSER_LLAMA_BENCH),
	     quality = !strcmp(w->parser, WL_PARSER_QUALITY),
	     serving = !strcmp(w->parser, WL_PARSER_SERVING);

	TRY(check_label(l, e));
	if (!w->command[0])
		return err_set(e, "workload.command: must not be empty");
	if (!digest_is_hex(w->out.sha256) || !digest_is_hex(w->err.sha256) ||
	    (w->out.has_kept && !digest_is_hex(w->out.kept.sha256)) ||
	    (w->err.has_kept && !digest_is_hex(w->err.kept.sha256)))
		return err_set(e, "workload: stream digests must be 64 lowercase hex digits");
	if (w->program_sha256[0] && !digest_is_hex(w->program_sha256))
		return err_set(e, "workload.program_sha256: must be 64 lowercase hex digits");
	if (!json && !llama && !quality && !serving)
		return err_set(e, "workload.parser: unknown parser \"%s\"", w->parser);
	if (serving != w->serving.present)
		return err_set(e, "workload.serving: present exactly in a serving run (parser %s)",
			       WL_PARSER_SERVING);
	if (quality != !strcmp(l->kind, WL_KIND_QUALITY))
		return err_set(e, "workload.parser: the quality-line parser serves exactly the "
				  "quality runs");
	/* P = 0 is a decode-only envelope (llama-bench's tgT row alone) */
	if (w->decode_tokens < 1)
		return err_set(e, "workload: decode_tokens must be positive");
	if (w->has_metrics == !!w->metrics_error[0])
		return err_set(e, "workload: holds either metrics or metrics_error");
	if (w->has_metrics &&
	    (m->has_throughput != !quality ||
	     m->has_quality != (serving ? w->serving.has_quality : !llama)))
		return err_set(e, "workload.metrics: %s",
			       quality ? "a quality run holds the quality only"
			       : llama ? "llama-bench metrics hold no quality"
			       : serving ? "serving metrics hold a quality exactly when the run "
					   "sent quality prompts (workload.serving.quality)"
				       : "json-line metrics hold throughput and quality");
	return serving && w->has_metrics && m->has_quality ? check_serving_quality(w, e) : 0;
}

/* The wait re-derived: every rejected window was busy beyond the ceiling,
 * in order and before the accepted one; quiet_found says whether the
 * accepted window is quiet; the wait fits in its limit. */
static int check_cpus(const struct attestation *r, struct err *e)
{
	unsigned char set[PP_MAX_CPUS / 8];
	size_t count;

	if (!r->has_cpus)
		return 0;
	if (pp_cpulist(r->cpus.list, strlen(r->cpus.list), set, PP_MAX_CPUS, &count) < 0 ||
	    !count || (int64_t)count != r->cpus.count)
		return err_set(e, "cpus: \"list\" must be a CPU list of \"count\" CPUs");
	return 0;
}

/* A rejected window's PSI stall: a percentage above 0 with its axis, or
 * neither; never in a wait that did not judge it. */
static bool psi_fields_ok(const struct quiet_wait *q, const struct rejected_window *w)
{
	bool known = false;

	if (!w->psi_stall_axis[0])
		return w->psi_stall_percent == 0;
	for (int i = 0; i < 3; i++)
		known = known || !strcmp(w->psi_stall_axis, psi_axes[i]);
	return q->psi_stall_judged && known && w->psi_stall_percent > 0;
}

static int check_quiet_wait(const struct attestation *r, int64_t bstart, struct err *e)
{
	const struct quiet_wait *q = &r->quiet_wait;
	const struct metric *b = &r->baseline_host_totals.cpu_percent;
	double ceiling = r->policy.maximum_non_sut_cpu_percent;
	int64_t prev = INT64_MIN;
	const char *axis;
	char within[64], above[64];

	snprintf(within, sizeof(within), " and its PSI stall within %.2f%%",
		 r->policy.maximum_psi_stall_percent);
	snprintf(above, sizeof(above), ", nor its PSI stall above %.2f%%",
		 r->policy.maximum_psi_stall_percent);

	if (!r->has_quiet_wait)
		return 0;
	if (q->limit_ns <= 0 || q->limit_ns > ATTESTATION_WAIT_MAX_NS)
		return err_set(e, "quiet_wait.limit_ns must be in (0, 24h]");
	if (q->quiet_found !=
	    attestation_window_quiet(&r->policy, b->available, b->value, baseline_psi(r, &axis)))
		return err_set(e, "quiet_wait.quiet_found must say whether the baseline "
				  "window's host CPU is within %.2f%%%s", ceiling,
			       q->psi_stall_judged ? within : "");
	if (!q->nr_rejected != !q->waited_ns)
		return err_set(e, "quiet_wait.waited_ns is 0 exactly when no window was rejected");
	for (size_t i = 0; i < q->nr_rejected; i++) {
		const struct rejected_window *w = &q->rejected[i];
		double stall = w->psi_stall_axis[0] ? w->psi_stall_percent : -1;
		int64_t t;

		if (!psi_fields_ok(q, w))
			return err_set(e, "quiet_wait.rejected_windows[%zu]: psi_stall_percent "
					  "and psi_stall_axis go together, above 0 and with an "
					  "axis cpu, memory or io, and only where psi_stall_judged",
				       i);
		if (w->host_cpu_percent > 100 ||
		    attestation_window_quiet(&r->policy, true, w->host_cpu_percent, stall))
			return err_set(e, "quiet_wait.rejected_windows[%zu]: host CPU %.2f%% is "
					  "not above the %.2f%% ceiling%s", i, w->host_cpu_percent,
				       ceiling, q->psi_stall_judged ? above : "");
		if (timestamp_parse(w->started_at_utc, &t) < 0 || t <= prev ||
		    (r->baseline_window.samples && t + w->duration_ns > bstart))
			return err_set(e, "quiet_wait.rejected_windows[%zu]: must start in order "
					  "and end before the baseline window", i);
		prev = t;
	}
	return 0;
}

int attestation_validate(const struct attestation *r, struct err *e)
{
	const struct attribution *a = &r->attribution;
	const struct coverage *cv = &r->coverage;
	int64_t bstart, bend, cstart, cend;

	if (policy_check(&r->policy, e) < 0)
		return -1;
	if (check_window("baseline_window", &r->baseline_window, &r->baseline_sampler,
			 &bstart, &bend, e) < 0 ||
	    check_window("command_window", &r->command_window, &r->command_sampler,
			 &cstart, &cend, e) < 0)
		return -1;
	if (r->baseline_window.samples && r->command_window.samples && bend > cstart)
		return err_set(e, "baseline_window must end before command_window starts");
	if (!coverage_known(cv->descendant_attribution, false) ||
	    !coverage_known(cv->process_enumeration, true))
		return err_set(e, "coverage: unknown descendant_attribution or "
				  "process_enumeration");
	if (!cv->descendant_attribution[0] != !r->command_window.samples)
		return err_set(e, "coverage: descendant_attribution is empty exactly when there "
				  "are no command samples");
	if (!strcmp(cv->descendant_attribution, COVERAGE_SUBREAPER) && cv->descendants_reaped < 1)
		return err_set(e, "coverage: exact_subreaper_rusage requires the reaped SUT root");
	if (a->sut_cpu_percent_of_host.available && a->non_sut_cpu_percent_of_host.available) {
		double sum =
			a->sut_cpu_percent_of_host.value + a->non_sut_cpu_percent_of_host.value;

		if (!r->host_totals.cpu_percent.available ||
		    fabs(sum - r->host_totals.cpu_percent.value) > 1e-6)
			return err_set(e, "attribution: SUT and non-SUT CPU must add up "
					  "to host CPU");
	}
	if (check_cgroup(r, e) < 0 || check_consumers(r, e) < 0 ||
	    check_quiet_wait(r, bstart, e) < 0 || check_cpus(r, e) < 0)
		return -1;
	if (r->timed_out ? r->command_exit_code != 124
			 : r->command_signal > 0 && r->command_exit_code != 128 + r->command_signal)
		return err_set(e, "command_exit_code must be 124 after a timeout and "
				  "128+N after signal N");
	if (r->command_signal > 64 || r->command_exit_code > 255)
		return err_set(e, "command_exit_code must be 0..255 and command_signal 0..64");
	if (r->has_workload && check_workload(&r->workload, e) < 0)
		return -1;
	return 0;
}

int attestation_seal(struct attestation *r, struct err *e)
{
	json_t *doc = attestation_to_json(r, false);
	int rc = json_digest(doc, NULL, r->digest, e);

	json_decref(doc);
	return rc;
}

/* ---- field tables: the records, members in the documented order ---- */

/* A metric (available, value, unit, source or reason) of the unit arg. */
static int metric_decode(const json_t *o, const struct jpath *at, const char *key, void *dst,
			 const void *unit, struct err *e);
static json_t *metric_encode(const void *src, const void *unit);
static const struct jf_codec metric_codec = { metric_decode, metric_encode };
#define METRIC(T, m, unit) JF_CODEC(#m, struct metric, T, m, &metric_codec, unit)

static const struct jfield psi_pair_fields[] = {
	METRIC(struct psi_pair, some_total_us, "microseconds"),
	METRIC(struct psi_pair, full_total_us, "microseconds"),
	JF_END,
};

static const struct jfield psi_fields[] = {
	JF_SUB("cpu", struct psi, cpu, psi_pair_fields, JF_REQ, 0, 0),
	JF_SUB("memory", struct psi, memory, psi_pair_fields, JF_REQ, 0, 0),
	JF_SUB("io", struct psi, io, psi_pair_fields, JF_REQ, 0, 0),
	JF_END,
};

static const struct jfield host_fields[] = {
	METRIC(struct host_totals, cpu_percent, "percent"),
	METRIC(struct host_totals, memory_total_bytes, "bytes"),
	METRIC(struct host_totals, memory_available_bytes, "bytes"),
	METRIC(struct host_totals, process_count, "processes"),
	JF_SUB("pressure", struct host_totals, pressure, psi_fields, JF_REQ, 0, 0),
	JF_END,
};

static const struct jfield stage_fields[] = {
	JF_KEY("host_counters", JF_COUNT, struct overhead, stage_host_counters_ns, JF_REQ),
	JF_KEY("process_census", JF_COUNT, struct overhead, stage_process_census_ns, JF_REQ),
	JF_END,
};

static const struct jfield overhead_fields[] = {
	JF(JF_COUNT, struct overhead, counted_samples, JF_REQ),
	JF(JF_COUNT, struct overhead, wall_ns, JF_REQ),
	METRIC(struct overhead, duty_percent, "percent"),
	JF(JF_COUNT, struct overhead, effective_cadence_ns, JF_REQ),
	JF_GROUP("stage_wall_ns", stage_fields, JF_REQ, 0, 0),
	JF(JF_COUNT, struct overhead, stable_identity_cache_hits, JF_REQ),
	JF(JF_COUNT, struct overhead, stable_identity_cache_misses, JF_REQ),
	JF(JF_BOOL, struct overhead, coverage_limited, JF_REQ),
	JF(JF_COUNT, struct overhead, process_cpu_ns, JF_REQ),
	JF_END,
};

static const struct jfield attribution_fields[] = {
	METRIC(struct attribution, sut_cpu_percent_of_host, "percent"),
	METRIC(struct attribution, non_sut_cpu_percent_of_host, "percent"),
	METRIC(struct attribution, sut_rss_bytes, "bytes"),
	METRIC(struct attribution, non_sut_rss_bytes, "bytes"),
	METRIC(struct attribution, sut_cpu_seconds, "seconds"),
	JF_END,
};

static const struct jfield window_fields[] = {
	JF(JF_TEXT, struct window, started_at_utc, JF_REQ),
	JF(JF_TEXT, struct window, ended_at_utc, JF_REQ),
	JF(JF_COUNT, struct window, duration_ns, JF_REQ),
	JF(JF_COUNT, struct window, sample_interval_ns, JF_REQ),
	JF(JF_COUNT, struct window, samples, JF_REQ),
	JF_END,
};

static int check_note(const void *rec, const struct jpath *at, struct err *e)
{
	const struct coverage *c = rec;

	return c->process_enumeration_note[0] ? 0
					      : jpath_err(e, at, "is omitted rather than empty");
}

static const struct jfield coverage_fields[] = {
	JF(JF_COUNT, struct coverage, process_snapshots, JF_REQ),
	JF(JF_COUNT, struct coverage, processes_observed, JF_REQ),
	JF(JF_COUNT, struct coverage, process_reads, JF_REQ),
	JF(JF_COUNT, struct coverage, process_unreadable, JF_REQ),
	JF(JF_COUNT, struct coverage, process_vanished, JF_REQ),
	JF(JF_COUNT, struct coverage, host_cpu_samples, JF_REQ),
	JF(JF_COUNT, struct coverage, host_memory_samples, JF_REQ),
	JF(JF_COUNT, struct coverage, sut_root_pid, JF_REQ),
	JF(JF_TEXT, struct coverage, descendant_attribution, JF_REQ),
	JF(JF_TEXT, struct coverage, process_enumeration, JF_REQ),
	JF(JF_COUNT, struct coverage, census_process_limit, JF_REQ),
	JF(JF_BOOL, struct coverage, census_limited, JF_REQ),
	JF(JF_COUNT, struct coverage, descendants_reaped, JF_REQ),
	JF(JF_COUNT, struct coverage, descendants_killed_after_root_exit, JF_REQ),
	JF(JF_COUNT, struct coverage, descendants_unreaped, JF_REQ),
	JF(JF_COUNT, struct coverage, clock_ticks_per_second, JF_REQ),
	JF(JF_COUNT, struct coverage, page_size_bytes, JF_REQ),
	JF_KEYC("process_enumeration_note", JF_TEXT, struct coverage, process_enumeration_note,
		JF_OMIT, check_note),
	JF_END,
};

static int check_state(const void *rec, const struct jpath *at, struct err *e)
{
	const struct cgroup_section *g = rec;

	if (strcmp(g->state, CGROUP_MEASURED) && strcmp(g->state, CGROUP_UNAVAILABLE))
		return jpath_err(e, at, "must be \"measured\" or \"unavailable\"");
	return 0;
}

static const struct jfield cleanup_fields[] = {
	JF(JF_BOOL, struct cgroup_cleanup, attempted, JF_REQ),
	JF(JF_BOOL, struct cgroup_cleanup, killed_remaining, JF_REQ),
	JF(JF_BOOL, struct cgroup_cleanup, empty, JF_REQ),
	JF(JF_BOOL, struct cgroup_cleanup, removed, JF_REQ),
	JF(JF_TEXT, struct cgroup_cleanup, reason, JF_OMIT),
	JF_END,
};

/* An empty reason (here or in cleanup) is refused after the walk. */
static const struct jfield cgroup_fields[] = {
	JF_KEYC("state", JF_TEXT, struct cgroup_section, state, JF_REQ, check_state),
	JF(JF_TEXT, struct cgroup_section, reason, JF_OMIT),
	JF(JF_BOOL, struct cgroup_section, atomic_placement, JF_REQ),
	METRIC(struct cgroup_section, members_at_root_exit, "processes"),
	METRIC(struct cgroup_section, cpu_usage_us, "microseconds"),
	METRIC(struct cgroup_section, memory_peak_bytes, "bytes"),
	JF_SUB("pressure", struct cgroup_section, pressure, psi_fields, JF_REQ, 0, 0),
	JF_SUB("cleanup", struct cgroup_section, cleanup, cleanup_fields, JF_REQ, 0, 0),
	JF_END,
};

static int check_consumer(const void *rec, const struct jpath *at, struct err *e)
{
	const struct consumer *c = rec;

	if (c->cpu_seconds < 0 || c->rss_bytes < 0)
		return jpath_err(e, at->up,
				 "cpu_seconds and rss_bytes must be finite non-negative numbers");
	return 0;
}

static const struct jfield consumer_fields[] = {
	JF(JF_TEXT, struct consumer, image, JF_REQ),
	JF(JF_COUNT, struct consumer, pid, JF_REQ),
	JF(JF_NUM, struct consumer, cpu_seconds, JF_REQ),
	JF_KEYC("rss_bytes", JF_NUM, struct consumer, rss_bytes, JF_REQ, check_consumer),
	JF(JF_BOOL, struct consumer, cpu_available, JF_REQ),
	JF(JF_BOOL, struct consumer, rss_available, JF_REQ),
	JF_END,
};

static const struct jfield policy_fields[] = {
	JF(JF_COUNT, struct policy, minimum_baseline_samples, JF_REQ),
	JF(JF_COUNT, struct policy, minimum_samples, JF_REQ),
	JF(JF_NUM, struct policy, maximum_non_sut_cpu_percent, JF_REQ),
	JF(JF_NUM, struct policy, maximum_sampler_duty_percent, JF_REQ),
	JF(JF_NUM, struct policy, maximum_psi_stall_percent, JF_REQ),
	JF(JF_COUNT, struct policy, minimum_census_interval_ns, JF_REQ),
	JF(JF_COUNT, struct policy, maximum_census_interval_ns, JF_REQ),
	JF(JF_BOOL, struct policy, require_host_cpu, JF_REQ),
	JF(JF_BOOL, struct policy, require_sut_cpu, JF_REQ),
	JF(JF_BOOL, struct policy, require_process_memory, JF_REQ),
	JF(JF_BOOL, struct policy, include_top_consumers, JF_REQ),
	JF_END,
};

static const struct jfield quiet_wait_fields[] = {
	JF(JF_COUNT, struct quiet_wait, limit_ns, JF_REQ),
	JF(JF_COUNT, struct quiet_wait, waited_ns, JF_REQ),
	JF(JF_BOOL, struct quiet_wait, quiet_found, JF_REQ),
	JF(JF_BOOL, struct quiet_wait, psi_stall_judged, JF_OMIT),
	JF_HANDS("rejected_windows"),
	JF_END,
};

static const struct jfield rejected_fields[] = {
	JF(JF_TEXT, struct rejected_window, started_at_utc, JF_REQ),
	JF(JF_COUNT, struct rejected_window, duration_ns, JF_REQ),
	JF(JF_NUM, struct rejected_window, host_cpu_percent, JF_REQ),
	JF(JF_NUM, struct rejected_window, psi_stall_percent, JF_OMIT),
	JF(JF_TEXT, struct rejected_window, psi_stall_axis, JF_OMIT),
	JF_END,
};

static const struct jfield cpus_fields[] = {
	JF(JF_TEXT, struct cpus_report, list, JF_REQ),
	JF(JF_COUNT, struct cpus_report, count, JF_REQ),
	METRIC(struct cpus_report, baseline_all_cpus_percent, "percent"),
	METRIC(struct cpus_report, command_all_cpus_percent, "percent"),
	JF_END,
};

static const struct jfield finding_fields[] = {
	JF(JF_TEXT, struct finding, code, JF_REQ),
	JF(JF_TEXT, struct finding, detail, JF_REQ),
	JF_END,
};

static const struct jfield stream_fields[] = {
	JF(JF_COUNT, struct wl_stream, bytes, JF_REQ),
	JF(JF_TEXT, struct wl_stream, sha256, JF_REQ),
	JF_HANDS("kept"),
	JF_END,
};

static const struct jfield kept_fields[] = {
	JF_KEY("head_bytes", JF_COUNT, struct wl_stream, kept.head_bytes, JF_REQ),
	JF_KEY("tail_bytes", JF_COUNT, struct wl_stream, kept.tail_bytes, JF_REQ),
	JF_KEY("bytes", JF_COUNT, struct wl_stream, kept.bytes, JF_REQ),
	JF_KEY("sha256", JF_TEXT, struct wl_stream, kept.sha256, JF_REQ),
	JF_END,
};

static const struct jfield label_fields[] = {
	JF(JF_TEXT, struct wl_label, experiment_id, JF_REQ),
	JF(JF_COUNT, struct wl_label, sequence, JF_REQ),
	JF(JF_TEXT, struct wl_label, envelope_id, JF_REQ),
	JF(JF_TEXT, struct wl_label, lever_id, JF_REQ),
	JF(JF_TEXT, struct wl_label, arm, JF_REQ),
	JF(JF_TEXT, struct wl_label, kind, JF_REQ),
	JF(JF_COUNT, struct wl_label, index, JF_REQ),
	JF(JF_TEXT, struct wl_label, machine_id, JF_REQ),
	JF(JF_TEXT, struct wl_label, revision, JF_REQ),
	JF(JF_TEXT, struct wl_label, envelope_state, JF_OMIT),
	JF_END,
};

/* ---- encoding --------------------------------------------------------- */

static json_t *metric_json(const struct metric *m, const char *unit)
{
	json_t *o = jobj();

	jset_bool(o, "available", m->available);
	if (m->available)
		jset_num(o, "value", m->value);
	jset_str(o, "unit", unit);
	if (m->available)
		jset_str(o, "source", m->source);
	else
		jset_str(o, "reason", m->reason);
	return o;
}

static json_t *window_json(const struct window *w)
{
	return jf_to_json(window_fields, w);
}

static json_t *metric_encode(const void *src, const void *unit)
{
	return metric_json(src, unit);
}

static json_t *coverage_json(const struct coverage *c)
{
	return jf_to_json(coverage_fields, c);
}

static json_t *policy_json(const struct policy *p)
{
	return jf_to_json(policy_fields, p);
}

static json_t *stream_json(const struct wl_stream *st)
{
	json_t *o = jf_to_json(stream_fields, st);

	if (st->has_kept)
		jset_new(o, "kept", jf_to_json(kept_fields, st));
	return o;
}

static json_t *workload_json(const struct workload *w)
{
	json_t *o = jobj();

	jset_new(o, "label", jf_to_json(label_fields, &w->label));
	jset_str(o, "command", w->command);
	jset_new(o, "stdout", stream_json(&w->out));
	jset_new(o, "stderr", stream_json(&w->err));
	jset_str(o, "parser", w->parser);
	jset_int(o, "prompt_tokens", w->prompt_tokens);
	jset_int(o, "decode_tokens", w->decode_tokens);
	if (w->has_metrics)
		jset_new(o, "metrics", wl_metrics_to_json(&w->metrics));
	else
		jset_str(o, "metrics_error", w->metrics_error);
	jset_new(o, "peak_rss_bytes", metric_json(&w->peak_rss_bytes, "bytes"));
	jset_new(o, "fak_rss_at_fork_bytes", metric_json(&w->fak_rss_at_fork_bytes, "bytes"));
	if (w->artifact.looked && w->artifact.observable)
		jset_bool(o, "artifact_observed", w->artifact.observed);
	if (w->artifact.looked)
		jset_str(o, "artifact_observation", w->artifact.observation);
	if (w->program_sha256[0])
		jset_str(o, "program_sha256", w->program_sha256);
	if (w->serving.present)
		jset_new(o, "serving", wl_serving_to_json(&w->serving));
	return o;
}

static json_t *quiet_wait_json(const struct quiet_wait *q)
{
	json_t *o = jf_to_json(quiet_wait_fields, q), *arr = jarr();

	for (size_t i = 0; i < q->nr_rejected; i++)
		jpush_new(arr, jf_to_json(rejected_fields, &q->rejected[i]));
	jset_new(o, "rejected_windows", arr);
	return o;
}

json_t *attestation_to_json(const struct attestation *r, bool with_digest)
{
	json_t *o = jobj(), *cons = jarr(), *finds = jarr();

	jset_str(o, "schema", r->has_workload ? ATTESTATION_SCHEMA_V2 : ATTESTATION_SCHEMA);
	jset_str(o, "verdict", r->verdict);
	jset_new(o, "baseline_window", window_json(&r->baseline_window));
	jset_new(o, "baseline_host_totals", jf_to_json(host_fields, &r->baseline_host_totals));
	jset_new(o, "baseline_sampler", jf_to_json(overhead_fields, &r->baseline_sampler));
	jset_new(o, "command_window", window_json(&r->command_window));
	jset_new(o, "command_sampler", jf_to_json(overhead_fields, &r->command_sampler));
	jset_new(o, "coverage", coverage_json(&r->coverage));
	jset_new(o, "host_totals", jf_to_json(host_fields, &r->host_totals));
	jset_new(o, "attribution", jf_to_json(attribution_fields, &r->attribution));
	jset_new(o, "cgroup_v2", jf_to_json(cgroup_fields, &r->cgroup_v2));
	for (size_t i = 0; i < r->nr_consumers; i++)
		jpush_new(cons, jf_to_json(consumer_fields, &r->consumers[i]));
	jset_new(o, "top_non_sut_consumers", cons);
	jset_new(o, "policy", policy_json(&r->policy));
	for (size_t i = 0; i < r->nr_findings; i++)
		jpush_new(finds, jf_to_json(finding_fields, &r->findings[i]));
	if (r->has_quiet_wait)
		jset_new(o, "quiet_wait", quiet_wait_json(&r->quiet_wait));
	if (r->has_cpus)
		jset_new(o, "cpus", jf_to_json(cpus_fields, &r->cpus));
	jset_new(o, "findings", finds);
	jset_int(o, "command_exit_code", r->command_exit_code);
	jset_int(o, "command_signal", r->command_signal);
	jset_bool(o, "timed_out", r->timed_out);
	if (r->has_gpu)
		jset_new(o, "gpu", gpu_to_json(&r->gpu));
	if (r->has_workload)
		jset_new(o, "workload", workload_json(&r->workload));
	if (r->simulated.nr)
		jset_new(o, "simulated", simulated_to_json(&r->simulated));
	if (with_digest)
		jset_str(o, "digest", r->digest);
	return o;
}

/* ---- strict decoding -------------------------------------------------- */

static int get_count(const json_t *o, const struct jpath *at, const char *key, int64_t *out,
		     struct err *e)
{
	long long v;

	TRY(jd_int(o, at, key, JD_REQUIRED, &v, e));
	if (v < 0) {
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "must be non-negative");
	}
	*out = v;
	return 0;
}

static int get_text(const json_t *o, const struct jpath *at, const char *key, enum jd_need need,
		    char *dst, size_t cap, struct err *e)
{
	const char *s;
	int rc = jd_str(o, at, key, need, &s, e);

	if (rc)
		return rc;
	if (strlen(s) >= cap) {
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "longer than %zu bytes", cap - 1);
	}
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

static int get_member(const json_t *o, const struct jpath *at, const char *key,
		      const char *const *known, const json_t **m, struct err *e)
{
	struct jpath kp = JP_KEY(at, key);

	TRY(jd_obj(o, at, key, JD_REQUIRED, m, e));
	return jd_object(*m, &kp, known, e);
}

static int get_metric(const json_t *o, const struct jpath *at, const char *key, const char *unit,
		      struct metric *m, struct err *e)
{
	static const char *const known[] = { "available", "value", "unit", "source",
					     "reason", NULL };
	struct jpath kp = JP_KEY(at, key);
	const json_t *x;
	const char *u;

	memset(m, 0, sizeof(*m));
	TRY(get_member(o, at, key, known, &x, e));
	TRY(jd_bool(x, &kp, "available", JD_REQUIRED, &m->available, e));
	TRY(jd_str(x, &kp, "unit", JD_REQUIRED, &u, e));
	if (strcmp(u, unit)) {
		struct jpath up = JP_KEY(&kp, "unit");
		return jpath_err(e, &up, "must be \"%s\"", unit);
	}
	if (m->available) {
		TRY(jd_num(x, &kp, "value", JD_REQUIRED, &m->value, e));
		if (m->value < 0) {
			struct jpath vp = JP_KEY(&kp, "value");
			return jpath_err(e, &vp, "must be non-negative");
		}
		TRY(get_text(x, &kp, "source", JD_REQUIRED, m->source, sizeof(m->source), e));
		if (!m->source[0] || json_object_get(x, "reason"))
			return jpath_err(e, &kp, "an available metric has a source and no reason");
	} else {
		TRY(get_text(x, &kp, "reason", JD_REQUIRED, m->reason, sizeof(m->reason), e));
		if (!m->reason[0] || json_object_get(x, "value") || json_object_get(x, "source"))
			return jpath_err(e, &kp, "an unavailable metric has a reason "
						 "and no value or source");
	}
	return 0;
}

static int get_window(const json_t *o, const struct jpath *at, const char *key, struct window *w,
		      struct err *e)
{
	return jf_member(window_fields, o, at, key, w, e);
}

static int metric_decode(const json_t *o, const struct jpath *at, const char *key, void *dst,
			 const void *unit, struct err *e)
{
	return get_metric(o, at, key, unit, dst, e);
}

static int get_coverage(const json_t *o, const struct jpath *at, struct coverage *c, struct err *e)
{
	return jf_member(coverage_fields, o, at, "coverage", c, e);
}

static int get_cgroup(const json_t *o, const struct jpath *at, struct cgroup_section *g,
		      struct err *e)
{
	struct jpath kp = JP_KEY(at, "cgroup_v2");
	const json_t *x;

	TRY(jd_obj(o, at, "cgroup_v2", JD_REQUIRED, &x, e));
	TRY(jf_decode(cgroup_fields, x, &kp, g, e));
	if ((json_object_get(x, "reason") && !g->reason[0]) ||
	    (json_object_get(json_object_get(x, "cleanup"), "reason") && !g->cleanup.reason[0]))
		return jpath_err(e, &kp, "an empty reason is omitted");
	return 0;
}

static int get_consumers(const json_t *o, const struct jpath *at, struct attestation *r,
			 struct err *e)
{
	struct jpath kp = JP_KEY(at, "top_non_sut_consumers");
	const json_t *arr;

	TRY(jd_arr(o, at, "top_non_sut_consumers", JD_REQUIRED, false, &arr, e));
	if (json_array_size(arr) > ATTESTATION_MAX_CONSUMERS)
		return jpath_err(e, &kp, "at most %d records", ATTESTATION_MAX_CONSUMERS);
	r->nr_consumers = json_array_size(arr);
	for (size_t i = 0; i < r->nr_consumers; i++) {
		struct jpath ip = JP_IDX(&kp, i);

		TRY(jf_decode(consumer_fields, json_array_get(arr, i), &ip, &r->consumers[i], e));
	}
	return 0;
}

static int get_policy(const json_t *o, const struct jpath *at, struct policy *p, struct err *e)
{
	return jf_member(policy_fields, o, at, "policy", p, e);
}

static int get_quiet_wait(const json_t *o, const struct jpath *at, struct quiet_wait *q,
			  struct err *e)
{
	struct jpath kp = JP_KEY(at, "quiet_wait"), ap = JP_KEY(&kp, "rejected_windows");
	const json_t *x, *arr;

	TRY(jd_obj(o, at, "quiet_wait", JD_REQUIRED, &x, e));
	TRY(jf_decode(quiet_wait_fields, x, &kp, q, e));
	TRY(jd_arr(x, &kp, "rejected_windows", JD_REQUIRED, false, &arr, e));
	if (json_array_size(arr) > ATTESTATION_MAX_REJECTED)
		return jpath_err(e, &ap, "at most %d rejected windows", ATTESTATION_MAX_REJECTED);
	q->nr_rejected = json_array_size(arr);
	for (size_t i = 0; i < q->nr_rejected; i++) {
		struct jpath ip = JP_IDX(&ap, i);

		TRY(jf_decode(rejected_fields, json_array_get(arr, i), &ip, &q->rejected[i], e));
	}
	return 0;
}

static int get_findings(const json_t *o, const struct jpath *at, struct attestation *r,
			struct err *e)
{
	struct jpath kp = JP_KEY(at, "findings");
	const json_t *arr;

	TRY(jd_arr(o, at, "findings", JD_REQUIRED, false, &arr, e));
	if (json_array_size(arr) > ATTESTATION_MAX_FINDINGS)
		return jpath_err(e, &kp, "at most %d findings", ATTESTATION_MAX_FINDINGS);
	r->nr_findings = json_array_size(arr);
	for (size_t i = 0; i < r->nr_findings; i++) {
		struct jpath ip = JP_IDX(&kp, i);

		TRY(jf_decode(finding_fields, json_array_get(arr, i), &ip, &r->findings[i], e));
	}
	return 0;
}

static int get_stream(const json_t *o, const struct jpath *at, const char *key,
		      struct wl_stream *st, struct err *e)
{
	struct jpath kp = JP_KEY(at, key), pp = JP_KEY(&kp, "kept");
	const json_t *x, *k;
	int rc;

	TRY(jd_obj(o, at, key, JD_REQUIRED, &x, e));
	TRY(jf_decode(stream_fields, x, &kp, st, e));
	rc = jd_obj(x, &kp, "kept", JD_OPTIONAL, &k, e);
	if (rc < 0)
		return -1;
	st->has_kept = rc == 0;
	if (!st->has_kept)
		return 0;
	TRY(jf_decode(kept_fields, k, &pp, st, e));
	if (st->kept.head_bytes + st->kept.tail_bytes >= st->bytes ||
	    st->kept.bytes < st->kept.head_bytes + st->kept.tail_bytes ||
	    st->kept.bytes > st->kept.head_bytes + st->kept.tail_bytes + WL_LOG_MARKER_MAX)
		return jpath_err(e, &pp, "head and tail must leave part of the stream out, and the "
					 "kept log hold them and a marker line");
	return 0;
}

/* artifact_observation, with artifact_observed where it was observable;
 * runs sealed before fak looked have neither. */
static int get_artifact_use(const json_t *x, const struct jpath *at, struct wl_artifact_use *a,
			    struct err *e)
{
	int rc = get_text(x, at, "artifact_observation", JD_OPTIONAL, a->observation,
			  sizeof(a->observation), e), seen;

	if (rc < 0)
		return -1;
	a->looked = rc == 0;
	seen = jd_bool(x, at, "artifact_observed", JD_OPTIONAL, &a->observed, e);
	if (seen < 0)
		return -1;
	if (seen == 0 && !a->looked)
		return jpath_err(e, at, "artifact_observed needs its artifact_observation");
	if (a->looked && !a->observation[0])
		return jpath_err(e, at, "artifact_observation must not be empty");
	a->observable = seen == 0;
	return 0;
}

static int get_workload(const json_t *o, const struct jpath *at, struct workload *w, struct err *e)
{
	static const char *const known[] = { "label", "command", "stdout", "stderr", "parser",
					     "prompt_tokens", "decode_tokens", "metrics",
					     "metrics_error", "peak_rss_bytes",
					     "fak_rss_at_fork_bytes", "artifact_observed",
					     "artifact_observation", "program_sha256", "serving",
					     NULL };
	struct jpath kp = JP_KEY(at, "workload"), mp = JP_KEY(&kp, "metrics");
	const json_t *x, *m;
	int rc;

	TRY(get_member(o, at, "workload", known, &x, e));
	TRY(jf_member(label_fields, x, &kp, "label", &w->label, e));
	TRY(get_text(x, &kp, "command", JD_REQUIRED, w->command, sizeof(w->command), e));
	TRY(get_stream(x, &kp, "stdout", &w->out, e));
	TRY(get_stream(x, &kp, "stderr", &w->err, e));
	TRY(get_text(x, &kp, "parser", JD_REQUIRED, w->parser, sizeof(w->parser), e));
	TRY(get_count(x, &kp, "prompt_tokens", &w->prompt_tokens, e));
	TRY(get_count(x, &kp, "decode_tokens", &w->decode_tokens, e));
	rc = jd_obj(x, &kp, "metrics", JD_OPTIONAL, &m, e);
	if (rc < 0)
		return -1;
	w->has_metrics = rc == 0;
	if (w->has_metrics)
		TRY(wl_metrics_decode(m, &mp, &w->metrics, e));
	TRY(get_text(x, &kp, "metrics_error", w->has_metrics ? JD_OPTIONAL : JD_REQUIRED,
		     w->metrics_error, sizeof(w->metrics_error), e));
	if (w->has_metrics ? json_object_get(x, "metrics_error") != NULL : !w->metrics_error[0])
		return jpath_err(e, &kp, "holds either metrics or a non-empty metrics_error");
	TRY(get_metric(x, &kp, "peak_rss_bytes", "bytes", &w->peak_rss_bytes, e));
	TRY(get_metric(x, &kp, "fak_rss_at_fork_bytes", "bytes", &w->fak_rss_at_fork_bytes, e));
	if (get_text(x, &kp, "program_sha256", JD_OPTIONAL, w->program_sha256,
		     sizeof(w->program_sha256), e) < 0)
		return -1;
	rc = jd_obj(x, &kp, "serving", JD_OPTIONAL, &m, e);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		struct jpath sp = JP_KEY(&kp, "serving");

		TRY(wl_serving_decode(m, &sp, &w->serving, e));
	}
	return get_artifact_use(x, &kp, &w->artifact, e);
}

int attestation_decode(const json_t *doc, struct attestation *r, struct err *e)
{
	static const char *const known[] = {
		"schema", "verdict", "baseline_window", "baseline_host_totals", "baseline_sampler",
		"command_window", "command_sampler", "coverage", "host_totals", "attribution",
		"cgroup_v2", "top_non_sut_consumers", "policy", "quiet_wait", "cpus", "findings",
		"command_exit_code", "command_signal", "timed_out", "gpu", "workload", "simulated",
		"digest", NULL
	};
	const struct jpath *root = NULL;
	const char *schema;

	memset(r, 0, sizeof(*r));
	TRY(jd_object(doc, root, known, e));
	TRY(jd_str(doc, root, "schema", JD_REQUIRED, &schema, e));
	if (strcmp(schema, ATTESTATION_SCHEMA) && strcmp(schema, ATTESTATION_SCHEMA_V2)) {
		struct jpath kp = JP_KEY(root, "schema");
		return jpath_err(e, &kp, "unsupported schema \"%s\" (expected \"%s\" or \"%s\")",
				 schema, ATTESTATION_SCHEMA, ATTESTATION_SCHEMA_V2);
	}
	r->has_workload = !strcmp(schema, ATTESTATION_SCHEMA_V2);
	TRY(get_text(doc, root, "verdict", JD_REQUIRED, r->verdict, sizeof(r->verdict), e));
	if (strcmp(r->verdict, "clean") && strcmp(r->verdict, "investigate") &&
	    strcmp(r->verdict, "invalid")) {
		struct jpath kp = JP_KEY(root, "verdict");
		return jpath_err(e, &kp, "must be \"clean\", \"investigate\" or \"invalid\"");
	}
	TRY(get_window(doc, root, "baseline_window", &r->baseline_window, e));
	TRY(jf_member(host_fields, doc, root, "baseline_host_totals", &r->baseline_host_totals,
		      e));
	TRY(jf_member(overhead_fields, doc, root, "baseline_sampler", &r->baseline_sampler, e));
	TRY(get_window(doc, root, "command_window", &r->command_window, e));
	TRY(jf_member(overhead_fields, doc, root, "command_sampler", &r->command_sampler, e));
	TRY(get_coverage(doc, root, &r->coverage, e));
	TRY(jf_member(host_fields, doc, root, "host_totals", &r->host_totals, e));
	TRY(jf_member(attribution_fields, doc, root, "attribution", &r->attribution, e));
	TRY(get_cgroup(doc, root, &r->cgroup_v2, e));
	TRY(get_consumers(doc, root, r, e));
	TRY(get_policy(doc, root, &r->policy, e));
	if (json_object_get(doc, "quiet_wait")) {
		r->has_quiet_wait = true;
		TRY(get_quiet_wait(doc, root, &r->quiet_wait, e));
	}
	if (json_object_get(doc, "cpus")) {
		r->has_cpus = true;
		TRY(jf_member(cpus_fields, doc, root, "cpus", &r->cpus, e));
	}
	TRY(get_findings(doc, root, r, e));
	TRY(get_count(doc, root, "command_exit_code", &r->command_exit_code, e));
	TRY(get_count(doc, root, "command_signal", &r->command_signal, e));
	TRY(jd_bool(doc, root, "timed_out", JD_REQUIRED, &r->timed_out, e));
	if (json_object_get(doc, "gpu")) {
		struct jpath kp = JP_KEY(root, "gpu");
		const json_t *g;

		TRY(jd_obj(doc, root, "gpu", JD_REQUIRED, &g, e));
		TRY(gpu_decode(g, &kp, &r->gpu, e));
		r->has_gpu = true;
	}
	if (r->has_workload) {
		TRY(get_workload(doc, root, &r->workload, e));
	} else if (json_object_get(doc, "workload")) {
		struct jpath kp = JP_KEY(root, "workload");
		return jpath_err(e, &kp, "a %s attestation has no workload section (it is %s)",
				 ATTESTATION_SCHEMA, ATTESTATION_SCHEMA_V2);
	}
	if (json_object_get(doc, "simulated")) {
		struct jpath kp = JP_KEY(root, "simulated");

		TRY(simulated_decode(json_object_get(doc, "simulated"), &kp, &r->simulated, e));
	}
	TRY(get_text(doc, root, "digest", JD_REQUIRED, r->digest, sizeof(r->digest), e));
	return 0;
}
