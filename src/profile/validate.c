/* Validation of a decoded profile bundle against the graph in use. Every
 * finding is collected; the list is sorted byte-wise at the end so the
 * output does not depend on the order of the checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "profile/profile.h"

const char *const profile_phase_names[PROFILE_NR_PHASES] = {
	"load-setup", "prefill", "first-token", "steady-decode", "verification", "teardown",
};

const char *const profile_unavailable_reasons[] = {
	"backend-does-not-expose-dispatch-attribution",
	"capture-tool-does-not-export-dispatch-attribution",
	NULL,
};

/* Validation state: the strings made for messages live until the end. */
struct vctx {
	const struct profile *p;
	const struct graph *g;
	struct findings *f;
	char **keep;
	size_t nr_keep, alloc_keep;
};

static const char *keep(struct vctx *c, char *s)
{
	ALLOC_GROW(c->keep, c->nr_keep + 1, c->alloc_keep);
	c->keep[c->nr_keep++] = s;
	return s;
}

/* s in double quotes with control characters escaped. */
static const char *q(struct vctx *c, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	sb_add_quoted(&sb, s);
	return keep(c, sb_detach(&sb, NULL));
}

/* Shortest round-trip form; non-finite values (possible only in memory)
 * are named rather than printed as numbers. */
static const char *num(struct vctx *c, double d)
{
	char buf[JSON_NUMBER_MAX];

	if (isnan(d))
		return "NaN";
	if (isinf(d))
		return d > 0 ? "+Inf" : "-Inf";
	json_format_double(buf, d);
	return keep(c, xstrdup(buf));
}

static bool eq(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* Text s must be present and scrubbed (str_scrubbed of base/text.h): the
 * finding is msg, followed by ": <rule broken>" when s is not blank. */
static void check_scrubbed(struct vctx *c, const char *s, const char *msg)
{
	struct strbuf why = STRBUF_INIT;

	if (str_blank(s))
		findings_addf(c->f, "%s", msg);
	else if (!str_scrubbed(s, &why))
		findings_addf(c->f, "%s: %s", msg, why.buf);
	sb_release(&why);
}

#define OVERRIDE_RULE "selection override requires a positive issue number and scrubbed " \
		      "issue-backed reason"

static void check_identity(struct vctx *c, const struct envelope *env)
{
	const struct profile *p = c->p;

	if (!eq(p->execution.engine, "fak-native") || str_blank(p->execution.forward_path) ||
	    p->execution.fallback_count != 0)
		findings_addf(c->f,
			      "profile requires fak-native execution identity with zero fallback "
			      "(engine %s, forward_path %s, fallback_count %lld)",
			      q(c, p->execution.engine), q(c, p->execution.forward_path),
			      p->execution.fallback_count);
	if (env && !eq(p->execution.forward_path, env->forward_path))
		findings_addf(c->f,
			      "execution.forward_path must exactly match the selected envelope: "
			      "%s is not %s",
			      q(c, p->execution.forward_path), q(c, env->forward_path));
}

static void check_phases(struct vctx *c)
{
	const struct profile *p = c->p;
	double prev_end = 0;

	if (p->nr_phases != PROFILE_NR_PHASES) {
		findings_addf(c->f,
			      "profile must contain every ordered phase: expected %d, found %zu",
			      PROFILE_NR_PHASES, p->nr_phases);
		return;
	}
	for (size_t i = 0; i < p->nr_phases; i++) {
		const struct profile_phase *ph = &p->phases[i];
		const char *name = q(c, ph->name);
		double end;

		if (!eq(ph->name, profile_phase_names[i]))
			findings_addf(c->f,
				      "profile phases are missing or out of order: phases[%zu] is "
				      "%s, expected %s",
				      i, name, q(c, profile_phase_names[i]));
		if (!isfinite(ph->start_ms) || ph->start_ms < 0)
			findings_addf(c->f,
				      "phase %s start must be finite and non-negative, found %s",
				      name, num(c, ph->start_ms));
		if (!isfinite(ph->duration_ms) || ph->duration_ms <= 0)
			findings_addf(c->f,
				      "phase %s duration must be finite and positive, found %s",
				      name, num(c, ph->duration_ms));
		if (!isfinite(ph->start_ms) || !isfinite(ph->duration_ms))
			continue;
		end = ph->start_ms + ph->duration_ms;
		if (!isfinite(end)) {
			findings_addf(c->f, "phase %s end must be finite", name);
			continue;
		}
		if (i > 0 && ph->start_ms < prev_end)
			findings_addf(c->f,
				      "phase %s overlaps the previous phase: it starts at %s ms, "
				      "before the previous phase ends at %s ms",
				      name, num(c, ph->start_ms), num(c, prev_end));
		prev_end = end;
	}
}

static void check_metal(struct vctx *c, const struct profile_metal *m)
{
	if (m->command_buffers <= 0)
		findings_addf(c->f, "Metal command_buffers must be positive, found %lld",
			      m->command_buffers);
	if (m->encoders <= 0)
		findings_addf(c->f, "Metal encoders must be positive, found %lld", m->encoders);
	if (!isfinite(m->dispatch_ms) || m->dispatch_ms <= 0)
		findings_addf(c->f,
			      "Metal dispatch_milliseconds must be finite and positive, found %s",
			      num(c, m->dispatch_ms));
	if (!isfinite(m->wait_ms) || m->wait_ms < 0)
		findings_addf(c->f,
			      "Metal wait_milliseconds must be finite and non-negative, found %s",
			      num(c, m->wait_ms));
	if (m->resident_bytes == 0)
		findings_addf(c->f, "Metal resident_bytes must be positive, found 0");
	if (m->working_set_bytes == 0)
		findings_addf(c->f, "Metal working_set_bytes must be positive, found 0");
}

/* "CUDA <counter> must be finite and <domain>, found <v>" */
static void cuda_domain(struct vctx *c, const char *counter, double v, bool ok, const char *domain)
{
	if (!isfinite(v) || !ok)
		findings_addf(c->f, "CUDA %s must be finite and %s, found %s", counter, domain,
			      num(c, v));
}

/* achieved must not exceed peak (checked only when both are meaningful). */
static void cuda_not_above(struct vctx *c, const char *achieved_name, double achieved,
			   const char *peak_name, double peak)
{
	if (isfinite(achieved) && isfinite(peak) && peak > 0 && achieved > peak)
		findings_addf(c->f, "CUDA %s must not exceed %s: %s > %s", achieved_name, peak_name,
			      num(c, achieved), num(c, peak));
}

static void check_cuda(struct vctx *c, const struct profile_cuda *k)
{
	if (k->launches <= 0)
		findings_addf(c->f, "CUDA launches must be positive, found %lld", k->launches);
	cuda_domain(c, "occupancy_percent", k->occupancy_percent,
		    k->occupancy_percent >= 0 && k->occupancy_percent <= 100, "between 0 and 100");
	cuda_domain(c, "achieved_bandwidth_gbs", k->achieved_bandwidth_gbs,
		    k->achieved_bandwidth_gbs >= 0, "non-negative");
	cuda_domain(c, "peak_bandwidth_gbs", k->peak_bandwidth_gbs, k->peak_bandwidth_gbs > 0,
		    "positive");
	cuda_domain(c, "achieved_compute_tflops", k->achieved_compute_tflops,
		    k->achieved_compute_tflops >= 0, "non-negative");
	cuda_domain(c, "peak_compute_tflops", k->peak_compute_tflops, k->peak_compute_tflops > 0,
		    "positive");
	cuda_domain(c, "synchronization_milliseconds", k->synchronization_ms,
		    k->synchronization_ms >= 0, "non-negative");
	cuda_not_above(c, "achieved_bandwidth_gbs", k->achieved_bandwidth_gbs, "peak_bandwidth_gbs",
		       k->peak_bandwidth_gbs);
	cuda_not_above(c, "achieved_compute_tflops", k->achieved_compute_tflops,
		       "peak_compute_tflops", k->peak_compute_tflops);
}

/* Duration of the first steady-decode phase, or 0 when there is none or it
 * is not finite and positive (check_phases reports that). */
static double steady_decode_duration(const struct profile *p)
{
	for (size_t i = 0; i < p->nr_phases; i++)
		if (eq(p->phases[i].name, "steady-decode"))
			return isfinite(p->phases[i].duration_ms) && p->phases[i].duration_ms > 0 ?
				       p->phases[i].duration_ms :
				       0;
	return 0;
}

/* A time counter is measured inside steady decode, the denominator of its
 * share: it cannot be longer than that phase. */
static void within_steady_decode(struct vctx *c, const char *counter, double v, double d)
{
	if (v > d)
		findings_addf(c->f, "%s must not exceed the steady-decode duration: %s > %s",
			      counter, num(c, v), num(c, d));
}

/* Once the counters and the steady-decode phase are in their domains: time
 * counters fit in steady decode, and every quantity the classifier computes
 * is finite (a share of a tiny phase can overflow). */
static void check_consistency(struct vctx *c, bool metal)
{
	const struct profile *p = c->p;
	double d = steady_decode_duration(p);
	const struct profile_rule *rules;
	bool seen[PM_CUDA_COMPUTE_SHARE + 1] = { false };
	size_t nr;

	if (d == 0)
		return;
	if (metal) {
		within_steady_decode(c, "Metal wait_milliseconds", p->metal.wait_ms, d);
		within_steady_decode(c, "Metal dispatch_milliseconds", p->metal.dispatch_ms, d);
	} else {
		within_steady_decode(c, "CUDA synchronization_milliseconds",
				     p->cuda.synchronization_ms, d);
	}
	rules = profile_rules(metal ? PROFILE_METAL : PROFILE_CUDA, &nr);
	for (size_t i = 0; i < nr; i++) {
		for (size_t k = 0; k < rules[i].nr_cond; k++) {
			enum profile_metric m = rules[i].cond[k].metric;
			double v;

			if (seen[m])
				continue;
			seen[m] = true;
			v = profile_metric_value(p, m);
			if (!isfinite(v))
				findings_addf(c->f, "classifier metric %s must be finite, found %s",
					      profile_metric_name(m), num(c, v));
		}
	}
}

/* The counter block must be exactly the envelope backend's; only then are
 * its domains checked, and once they hold, their consistency. Metal and
 * CUDA counters never meet. */
static void check_counters(struct vctx *c, const struct envelope *env)
{
	const struct profile *p = c->p;
	bool metal = eq(env->backend, "metal");
	bool own = metal ? p->has_metal : p->has_cuda, other = metal ? p->has_cuda : p->has_metal;
	const char *label = metal ? "Metal" : "CUDA";
	size_t nr;

	if (!metal && !eq(env->backend, "cuda")) {
		findings_addf(c->f,
			      "profile classification supports only metal and cuda envelopes; "
			      "envelope %s has backend %s",
			      q(c, env->id), q(c, env->backend));
		return;
	}
	if (!own || other) {
		findings_addf(c->f,
			      "%s envelope %s requires only %s counters: a %s block and no %s "
			      "block",
			      label, q(c, env->id), label, metal ? "metal" : "cuda",
			      metal ? "cuda" : "metal");
		return;
	}
	nr = c->f->nr;
	if (metal)
		check_metal(c, &p->metal);
	else
		check_cuda(c, &p->cuda);
	if (c->f->nr == nr)
		check_consistency(c, metal);
}

/* Identity of a record for duplicate detection; unambiguous because the
 * name is length-prefixed and the layer ends at '|'. */
static char *record_key(const struct profile_attribution *a)
{
	return xasprintf("%zu:%s%lld|%s", strlen(a->name), a->name, a->layer, a->lever_id);
}

static void check_record(struct vctx *c, size_t i, const struct profile_attribution *a,
			 const char *first)
{
	const struct lever *l = graph_lever(c->g, a->lever_id);

	if (str_blank(a->name) || a->layer < 0 || a->count <= 0)
		findings_addf(c->f,
			      "dispatch attribution %zu is incomplete: name must not be blank, "
			      "layer must be non-negative, count must be positive "
			      "(name %s, layer %lld, count %lld)",
			      i, q(c, a->name), a->layer, a->count);
	else {
		struct strbuf why = STRBUF_INIT;

		if (!str_scrubbed(a->name, &why))
			findings_addf(c->f,
				      "dispatch attribution %zu name contains a private detail: %s",
				      i, why.buf);
		sb_release(&why);
	}
	if (!l)
		findings_addf(c->f, "dispatch attribution %zu references unknown lever %s", i,
			      q(c, a->lever_id));
	else if (!eq(l->app.envelope_id, c->p->envelope_id))
		findings_addf(c->f, "dispatch attribution %zu mixes envelope %s lever %s into %s",
			      i, q(c, l->app.envelope_id), q(c, a->lever_id),
			      q(c, c->p->envelope_id));
	if (!eq(a->lever_id, first))
		findings_addf(c->f, "dispatch attribution %zu mixes lever %s with %s", i,
			      q(c, a->lever_id), q(c, first));
}

static void check_unavailable(struct vctx *c)
{
	const struct profile *p = c->p;
	bool known = false;

	for (const char *const *r = profile_unavailable_reasons; *r; r++)
		known |= eq(*r, p->unavailable.reason);
	if (!known)
		findings_addf(c->f, "dispatch attribution unavailable reason %s is unknown",
			      q(c, p->unavailable.reason));
	check_scrubbed(c, p->unavailable.detail,
		       "dispatch attribution unavailable detail must be present and scrubbed");
}

/* Either non-empty attribution records or a typed unavailability: never
 * both, never neither. */
static void check_attribution(struct vctx *c)
{
	const struct profile *p = c->p;
	struct strmap seen = STRMAP_INIT;
	char **keys;

	if (!p->nr_attributions) {
		if (!p->has_unavailable)
			findings_addf(c->f,
				      "dispatch attribution is required or must carry a typed "
				      "unavailable reason");
		else
			check_unavailable(c);
		return;
	}
	if (p->has_unavailable) {
		findings_addf(c->f,
			      "dispatch attribution cannot be both available and unavailable");
		return;
	}
	keys = xcalloc(p->nr_attributions, sizeof(*keys));
	for (size_t i = 0; i < p->nr_attributions; i++) {
		const struct profile_attribution *a = &p->attributions[i];

		check_record(c, i, a, p->attributions[0].lever_id);
		keys[i] = record_key(a);
		if (!strmap_put(&seen, keys[i], i, NULL))
			findings_addf(c->f,
				      "dispatch attribution %zu duplicates name/layer/lever "
				      "identity (name %s, layer %lld, lever %s)",
				      i, q(c, a->name), a->layer, q(c, a->lever_id));
	}
	strmap_release(&seen);
	for (size_t i = 0; i < p->nr_attributions; i++)
		free(keys[i]);
	free(keys);
}

void profile_validate(const struct profile *p, const struct graph *g, struct findings *out)
{
	struct vctx c = { .p = p, .g = g, .f = out };
	const struct envelope *env = graph_envelope(g, p->envelope_id);

	if (!eq(p->schema, PROFILE_SCHEMA))
		findings_addf(out, "schema must be \"%s\", found %s", PROFILE_SCHEMA,
			      q(&c, p->schema));
	if (!env)
		findings_addf(out, "profile references unknown envelope %s", q(&c, p->envelope_id));
	check_identity(&c, env);
	check_phases(&c);
	if (env)
		check_counters(&c, env);
	check_attribution(&c);
	if (p->nr_counter_comparisons)
		findings_addf(out, "profile counter comparisons are unsupported; preserve "
				   "backend-specific counters without cross-backend normalization");
	if (p->has_override && p->override.issue_number <= 0)
		findings_addf(out, OVERRIDE_RULE);
	else if (p->has_override)
		check_scrubbed(&c, p->override.reason, OVERRIDE_RULE);
	findings_sort(out);
	for (size_t i = 0; i < c.nr_keep; i++)
		free(c.keep[i]);
	free(c.keep);
}
