/* `--gate REQUEST`: structural phase, statistics, checks, system-baseline
 * state, classification, suspects and bisect packet. */
#include "receipt/gate.h"
#include "receipt/gpu_check.h"
#include "receipt/identity.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attestation/layout.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/jfields.h"
#include "base/xalloc.h"
#include "stats/stats.h"
#include "attestation/attestation.h"

#define GATE_MAX_BYTES ((size_t)64 << 20)

/* ---- decode --------------------------------------------------------------- */

/* The request's policy, in the documented order; what gate_policy_json
 * writes leaves out the v1-only members at their defaults. */
static const struct jfield policy_fields[] = {
	JF(JF_STR, struct gate_policy, schema, JF_REQ),
	JF(JF_STR, struct gate_policy, envelope_id, JF_REQ),
	JF(JF_STR, struct gate_policy, changed_lever_id, JF_REQ),
	JF(JF_STR, struct gate_policy, accepted_revision, JF_REQ),
	JF(JF_LLONG, struct gate_policy, minimum_repetitions, JF_REQ),
	JF(JF_LLONG, struct gate_policy, minimum_clean_repetitions, JF_OMIT),
	JF(JF_NUM, struct gate_policy, maximum_noise_percent, JF_REQ),
	JF(JF_NUM, struct gate_policy, investigate_drop_percent, JF_REQ),
	JF(JF_NUM, struct gate_policy, regression_drop_percent, JF_REQ),
	JF(JF_NUM, struct gate_policy, minimum_throughput_tokens_per_second, JF_REQ),
	JF(JF_LLONG, struct gate_policy, maximum_peak_bytes, JF_REQ),
	JF(JF_STR, struct gate_policy, quality_metric, JF_REQ),
	JF(JF_NUM, struct gate_policy, minimum_quality_score, JF_REQ),
	JF(JF_BOOL, struct gate_policy, quality_higher_is_better, JF_REQ),
	JF(JF_STR, struct gate_policy, required_engine, JF_REQ),
	JF(JF_STR, struct gate_policy, required_forward_path, JF_REQ),
	JF(JF_BOOL, struct gate_policy, require_ambient_evidence, JF_OMIT),
	JF(JF_BOOL, struct gate_policy, require_system_baseline, JF_OPT),
	JF(JF_BOOL, struct gate_policy, allow_sampled_system_baseline, JF_OPT),
	JF(JF_BOOL, struct gate_policy, allow_declared_identity, JF_OMIT),
	JF_END,
};

static int dec_policy(struct gate_policy *p, const json_t *o, const struct jpath *at, struct err *e)
{
	p->minimum_clean_repetitions = 0;
	p->require_ambient_evidence = p->require_system_baseline = false;
	p->allow_sampled_system_baseline = p->allow_declared_identity = false;
	return jf_decode(policy_fields, o, at, p, e);
}

/* The receipts a request is parsed against (gate_parse_known). */
struct known {
	const struct receipt *const *v;
	size_t n;
};

/* The receipt o at path at: a shared copy of a known receipt with the same
 * document, else decoded. */
static int dec_receipt(struct receipt *r, bool *shared, const json_t *o, const struct jpath *at,
		       const struct known *k, struct err *e)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i] && json_equal(k->v[i]->doc, o)) {
			*r = *k->v[i];
			*shared = true;
			return 0;
		}
	*shared = false;
	return receipt_decode(r, o, at, e);
}

static int decode(struct gate_request *q, const json_t *v, const struct known *k, struct err *e)
{
	static const char *const keys[] = { "schema", "policy", "last_accepted",
					    "candidate", NULL };
	const json_t *o;
	struct jpath pp = JP_KEY(NULL, "policy"), ap = JP_KEY(NULL, "last_accepted"),
		     cp = JP_KEY(NULL, "candidate");

	if (jd_object(v, NULL, keys, e) < 0 ||
	    jd_str(v, NULL, "schema", JD_REQUIRED, &q->schema, e) < 0 ||
	    jd_obj(v, NULL, "policy", JD_REQUIRED, &o, e) < 0 ||
	    dec_policy(&q->policy, o, &pp, e) < 0 ||
	    jd_obj(v, NULL, "last_accepted", JD_REQUIRED, &o, e) < 0 ||
	    dec_receipt(&q->last_accepted, &q->shared_last_accepted, o, &ap, k, e) < 0)
		return -1;
	if (jd_obj(v, NULL, "candidate", JD_REQUIRED, &o, e) < 0 ||
	    dec_receipt(&q->candidate, &q->shared_candidate, o, &cp, k, e) < 0) {
		if (!q->shared_last_accepted)
			receipt_release(&q->last_accepted);
		return -1;
	}
	return 0;
}

int gate_parse_known(struct gate_request *q, const char *buf, size_t len, const char *name,
		     const struct receipt *const *known, size_t n, struct err *e)
{
	const struct known k = { known, n };

	memset(q, 0, sizeof(*q));
	q->doc = json_parse_strict(buf, len, name, e);
	if (!q->doc)
		return -1;
	if (decode(q, q->doc, &k, e) < 0) {
		json_decref(q->doc);
		memset(q, 0, sizeof(*q));
		if (name)
			err_prefix(e, "%s", name);
		return -1;
	}
	return 0;
}

int gate_parse(struct gate_request *q, const char *buf, size_t len, const char *name, struct err *e)
{
	return gate_parse_known(q, buf, len, name, NULL, 0, e);
}

int gate_load(struct gate_request *q, const char *path, struct err *e)
{
	return gate_load_sha256(q, path, NULL, e);
}

int gate_load_sha256(struct gate_request *q, const char *path, char sha256[65], struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	memset(q, 0, sizeof(*q));
	if (file_read(path, GATE_MAX_BYTES, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	if (sha256)
		sha256_hex(sb.buf, sb.len, sha256);
	rc = gate_parse(q, sb_str(&sb), sb.len, path, e);
	sb_release(&sb);
	return rc;
}

void gate_release(struct gate_request *q)
{
	if (!q->doc)
		return;
	if (!q->shared_last_accepted)
		receipt_release(&q->last_accepted);
	if (!q->shared_candidate)
		receipt_release(&q->candidate);
	json_decref(q->doc);
	memset(q, 0, sizeof(*q));
}

/* ---- policy --------------------------------------------------------------- */

json_t *gate_policy_json(const struct graph *g, const struct lever *l,
			 const char *accepted_revision, bool allow_sampled)
{
	const struct envelope *env = graph_envelope(g, l->app.envelope_id);
	const struct criterion *c = env ? graph_criterion(g, env->id) : NULL;

	/* A validated graph gives every lever an envelope with a criterion. */
	if (!env || !c)
		BUG("lever \"%s\" has no envelope criterion", l->id);
	struct gate_policy p = {
		.schema = GATE_POLICY_V2,
		.envelope_id = env->id,
		.changed_lever_id = l->id,
		.accepted_revision = accepted_revision,
		.minimum_repetitions = c->minimum_repetitions,
		.maximum_noise_percent = c->maximum_noise_percent,
		.investigate_drop_percent = c->investigate_drop_percent,
		.regression_drop_percent = c->regression_drop_percent,
		.minimum_throughput_tokens_per_second = c->minimum_throughput_tokens_per_second,
		.maximum_peak_bytes = env->memory_gib * (1LL << 30),
		.quality_metric = c->quality_metric,
		.minimum_quality_score = c->minimum_quality_score,
		.quality_higher_is_better = c->quality_higher_is_better,
		.required_engine = env->engine,
		.required_forward_path = env->forward_path,
		.require_system_baseline = true,
		.allow_sampled_system_baseline = allow_sampled,
	};

	return jf_to_json(policy_fields, &p);
}

static void num(char buf[JSON_NUMBER_MAX], double d)
{
	json_format_double(buf, d);
}

/* Policy bounds must equal the criterion resolved from the run identity. */
static void check_bounds(const struct gate_policy *p, const struct criterion *c,
			 struct findings *out)
{
	char a[JSON_NUMBER_MAX], b[JSON_NUMBER_MAX];

#define BOUND_NUM(field)                                                                      \
	do {                                                                                  \
		if (p->field != c->field) {                                                   \
			num(a, p->field);                                                     \
			num(b, c->field);                                                     \
			findings_addf(out, "policy." #field ": %s, criterion \"%s\" of envelope " \
					   "\"%s\" says %s", a, c->id, c->envelope_id, b);     \
		}                                                                             \
	} while (0)
	if (p->minimum_repetitions != c->minimum_repetitions)
		findings_addf(out, "policy.minimum_repetitions: %lld, criterion \"%s\" of envelope "
				   "\"%s\" says %lld",
			      p->minimum_repetitions, c->id, c->envelope_id,
			      c->minimum_repetitions);
	BOUND_NUM(maximum_noise_percent);
	BOUND_NUM(investigate_drop_percent);
	BOUND_NUM(regression_drop_percent);
	BOUND_NUM(minimum_throughput_tokens_per_second);
	BOUND_NUM(minimum_quality_score);
#undef BOUND_NUM
	if (strcmp(p->quality_metric, c->quality_metric))
		findings_addf(out, "policy.quality_metric: \"%s\", criterion \"%s\" of envelope "
				   "\"%s\" says \"%s\"",
			      p->quality_metric, c->id, c->envelope_id, c->quality_metric);
	if (p->quality_higher_is_better != c->quality_higher_is_better)
		findings_addf(out, "policy.quality_higher_is_better: %s, criterion \"%s\" of "
				   "envelope \"%s\" says %s",
			      p->quality_higher_is_better ? "true" : "false", c->id, c->envelope_id,
			      c->quality_higher_is_better ? "true" : "false");
}

static void check_policy(const struct gate_policy *p, const struct graph *g, struct findings *out)
{
	const struct lever *l = graph_lever(g, p->changed_lever_id);
	const struct envelope *env = graph_envelope(g, p->envelope_id);
	bool v1 = !strcmp(p->schema, GATE_POLICY_V1);

	if (!v1 && strcmp(p->schema, GATE_POLICY_V2))
		findings_addf(out, "policy.schema: must be \"%s\" or \"%s\", got \"%s\"",
			      GATE_POLICY_V1, GATE_POLICY_V2, p->schema);
	if (!*p->envelope_id)
		findings_addf(out, "policy.envelope_id: is required");
	if (!*p->changed_lever_id)
		findings_addf(out, "policy.changed_lever_id: is required");
	else if (!l || strcmp(l->app.envelope_id, p->envelope_id))
		findings_addf(out, "policy.changed_lever_id: lever \"%s\" must belong to the exact "
				   "envelope \"%s\"", p->changed_lever_id, p->envelope_id);
	if (!*p->accepted_revision)
		findings_addf(out, "policy.accepted_revision: is required");
	if (p->minimum_repetitions < 2)
		findings_addf(out, "policy.minimum_repetitions: must be at least 2");
	if (p->maximum_noise_percent < 0)
		findings_addf(out, "policy.maximum_noise_percent: must be non-negative");
	if (p->investigate_drop_percent < 0)
		findings_addf(out, "policy.investigate_drop_percent: must be non-negative");
	if (!(p->regression_drop_percent > p->investigate_drop_percent))
		findings_addf(out, "policy.regression_drop_percent: must exceed "
				   "investigate_drop_percent");
	if (!(p->minimum_throughput_tokens_per_second > 0))
		findings_addf(out, "policy.minimum_throughput_tokens_per_second: must be positive");
	if (p->maximum_peak_bytes <= 0)
		findings_addf(out, "policy.maximum_peak_bytes: must be positive");
	if (!*p->quality_metric)
		findings_addf(out, "policy.quality_metric: is required");
	if (env && strcmp(p->required_engine, env->engine))
		findings_addf(out, "policy.required_engine: must be \"%s\", the engine of envelope "
				   "\"%s\"", env->engine, env->id);
	if (!*p->required_forward_path)
		findings_addf(out, "policy.required_forward_path: is required");
	if (v1 && (p->require_system_baseline || p->allow_sampled_system_baseline))
		findings_addf(out, "policy.schema: a v1 gate policy cannot require system baseline "
				   "evidence");
	if (p->minimum_clean_repetitions < 0 ||
	    p->minimum_clean_repetitions > p->minimum_repetitions)
		findings_addf(out, "policy.minimum_clean_repetitions: must be between zero and "
				   "minimum_repetitions");
	else if (p->minimum_clean_repetitions > 0 && !p->require_ambient_evidence)
		findings_addf(out, "policy.minimum_clean_repetitions: requires "
				   "require_ambient_evidence");
	if (p->require_ambient_evidence && p->require_system_baseline)
		findings_addf(out, "policy: cannot require both legacy ambient evidence and system "
				   "baseline evidence");
	if (p->allow_sampled_system_baseline && !p->require_system_baseline)
		findings_addf(out, "policy.allow_sampled_system_baseline: the sampled opt-in "
				   "requires require_system_baseline");
}

/* ---- system-baseline state ------------------------------------------------ */

struct seen {
	const char *digest, *side;
	size_t rep;
};

static bool coverage_is_exact(const char *c)
{
	return !strcmp(c, "exact_subreaper_rusage") || !strcmp(c, "exact_cgroup_v2");
}

/* The first policy value of f looser than the sampler's defaults, described
 * in why; false when the attestation is at least as strict. */
static bool looser_policy(const struct attestation_facts *f, const struct policy *d, char *why,
			  size_t n)
{
	char a[JSON_NUMBER_MAX], b[JSON_NUMBER_MAX];
	const struct {
		const char *name;
		double got, max;
	} ceilings[] = {
		{ "maximum_non_sut_cpu_percent", f->policy.maximum_non_sut_cpu_percent,
		  d->maximum_non_sut_cpu_percent },
		{ "maximum_sampler_duty_percent", f->policy.maximum_sampler_duty_percent,
		  d->maximum_sampler_duty_percent },
		{ "maximum_psi_stall_percent", f->policy.maximum_psi_stall_percent,
		  d->maximum_psi_stall_percent },
	};

	for (size_t i = 0; i < sizeof(ceilings) / sizeof(ceilings[0]); i++)
		if (!(ceilings[i].got <= ceilings[i].max)) {
			num(a, isfinite(ceilings[i].got) ? ceilings[i].got : 0);
			num(b, ceilings[i].max);
			snprintf(why, n, "%s %s > %s", ceilings[i].name, a, b);
			return true;
		}
	if (f->policy.minimum_samples < d->minimum_samples) {
		snprintf(why, n, "minimum_samples %lld < %lld", f->policy.minimum_samples,
			 (long long)d->minimum_samples);
		return true;
	}
	if (f->policy.minimum_baseline_samples < d->minimum_baseline_samples) {
		snprintf(why, n, "minimum_baseline_samples %lld < %lld",
			 f->policy.minimum_baseline_samples,
			 (long long)d->minimum_baseline_samples);
		return true;
	}
	if (!f->policy.require_host_cpu || !f->policy.require_sut_cpu) {
		snprintf(why, n, "%s is false",
			 !f->policy.require_host_cpu ? "require_host_cpu" : "require_sut_cpu");
		return true;
	}
	return false;
}

/* The policy an attestation must be at least as strict as: the sampler's
 * defaults, with the ceilings of the criterion's host policy when it has
 * one; name says which, for the detail. */
static void host_bound(const struct criterion *crit, struct policy *bound, struct strbuf *name)
{
	policy_default(bound);
	if (!crit || !crit->has_host_policy) {
		sb_adds(name, "the defaults");
		return;
	}
	bound->maximum_non_sut_cpu_percent = crit->host_policy.maximum_non_sut_cpu_percent;
	bound->maximum_sampler_duty_percent = crit->host_policy.maximum_sampler_duty_percent;
	bound->maximum_psi_stall_percent = crit->host_policy.maximum_psi_stall_percent;
	sb_addf(name, "the host policy of criterion \"%s\"", crit->id);
}

/* Why a sealed run does not show the pinned artifact in use. */
static const char *artifact_unseen(const struct attestation_facts *f)
{
	if (!f->artifact_looked)
		return "it was sealed before fak looked for it";
	if (!f->artifact_observable)
		return "this OS does not show it (artifact_observed not observable)";
	return "artifact_observed is false";
}

/* What a side's system baselines are judged against: the policy bound
 * (and its name, for the details) and the digests already seen, so no
 * attestation serves two repetitions. */
struct sb_judging {
	bool allow_sampled;
	struct policy strict;
	struct strbuf bound;
	struct seen *seen;
	size_t nr_seen;
};

/* A side that cannot carry system baselines one for one with its
 * repetitions; true, with the reason in detail, when it cannot. */
static bool side_unfit(const struct gate_sb_side *sd, struct strbuf *detail)
{
	if (sd->has_ambient) {
		sb_addf(detail, "%s mixes legacy ambient evidence with system baseline "
				"attestations", sd->name);
		return true;
	}
	if (!sd->is_v2) {
		sb_addf(detail, "%s uses a legacy receipt schema that cannot carry system "
				"baseline attestations", sd->name);
		return true;
	}
	if (sd->nr_system_baselines != sd->nr_reps) {
		sb_addf(detail, "%s has %zu system baselines for %zu repetitions", sd->name,
			sd->nr_system_baselines, sd->nr_reps);
		return true;
	}
	return false;
}

/* Repetition i's sealed run proves the host was what it says: verified,
 * bound to it alone, low-cardinality, and its attribution exact (or
 * sampled with the policy's opt-in). True, with the reason in detail, when
 * it does not. */
static bool rep_unproven(const struct gate_sb_side *sd, size_t i, struct sb_judging *sj,
			 struct strbuf *detail)
{
	const struct gate_sb_rep *r = &sd->reps[i];
	const struct attestation_facts *f = &r->facts;

	if (!r->verified) {
		sb_addf(detail, "%s repetition %zu has an invalid system baseline: "
				"%s.system_baselines[%zu] fails verification: %s",
			sd->name, i, sd->name, i, r->why.msg[0] ? r->why.msg : "unknown");
		return true;
	}
	if (!strcmp(f->verdict, "invalid")) {
		sb_addf(detail, "%s repetition %zu has an invalid system baseline: "
				"its verdict is invalid", sd->name, i);
		return true;
	}
	if (f->has_top_consumers) {
		sb_addf(detail, "%s repetition %zu contains high-cardinality process identities",
			sd->name, i);
		return true;
	}
	if (!r->binding || strcmp(r->binding, f->digest)) {
		sb_addf(detail, "%s repetition %zu has an invalid or reused system "
				"baseline binding", sd->name, i);
		return true;
	}
	for (size_t j = 0; j < sj->nr_seen; j++)
		if (!strcmp(sj->seen[j].digest, f->digest)) {
			sb_addf(detail, "%s repetition %zu reuses system baseline evidence from "
					"%s repetition %zu",
				sd->name, i, sj->seen[j].side, sj->seen[j].rep);
			return true;
		}
	sj->seen[sj->nr_seen++] = (struct seen){ f->digest, sd->name, i };
	if (!strcmp(f->coverage, "sampled_pid_ppid_tree")) {
		if (!sj->allow_sampled) {
			sb_addf(detail, "%s repetition %zu uses sampled descendant attribution "
					"without policy opt-in", sd->name, i);
			return true;
		}
	} else if (!coverage_is_exact(f->coverage)) {
		sb_addf(detail, "%s repetition %zu has unknown descendant attribution", sd->name,
			i);
		return true;
	}
	return false;
}

/* Repetition i's sealed run was clean: the artifact seen in use, a policy
 * at least as strict as the bound, and a clean baseline with every CPU
 * figure known. True, with the reason in detail, when it was not. */
static bool rep_unclean(const struct gate_sb_side *sd, size_t i, const struct sb_judging *sj,
			struct strbuf *detail)
{
	const struct attestation_facts *f = &sd->reps[i].facts;
	char why[160];

	if (f->has_workload && !f->artifact_observed) {
		sb_addf(detail, "%s repetition %zu does not show the pinned artifact in use: %s",
			sd->name, i, artifact_unseen(f));
		return true;
	}
	if (looser_policy(f, &sj->strict, why, sizeof(why))) {
		sb_addf(detail, "%s repetition %zu was sealed under a looser policy than %s (%s)",
			sd->name, i, sj->bound.buf, why);
		return true;
	}
	if (f->baseline_samples < 2 || f->baseline_duration_ns <= 0 ||
	    !f->baseline_host_cpu_available || strcmp(f->verdict, "clean") ||
	    !f->host_cpu_available || !f->sut_cpu_available || !f->non_sut_cpu_available) {
		sb_addf(detail, "%s repetition %zu has a contaminated or required-unknown system "
				"baseline (verdict %s)", sd->name, i, f->verdict);
		return true;
	}
	return false;
}

/* The first side or repetition that does not qualify, in order; true,
 * with the reason in detail, when there is one. */
static bool sb_disqualified(const struct gate_sb_side sides[2], struct sb_judging *sj,
			    struct strbuf *detail)
{
	for (int s = 0; s < 2; s++) {
		if (side_unfit(&sides[s], detail))
			return true;
		for (size_t i = 0; i < sides[s].nr_system_baselines; i++)
			if (rep_unproven(&sides[s], i, sj, detail) ||
			    rep_unclean(&sides[s], i, sj, detail))
				return true;
	}
	return false;
}

bool gate_sb_judge(const struct gate_sb_side sides[2], bool allow_sampled,
		   const struct criterion *crit, struct strbuf *detail)
{
	struct sb_judging sj = { .allow_sampled = allow_sampled, .bound = STRBUF_INIT };
	bool ok = false;

	sj.seen = xcalloc(sides[0].nr_system_baselines + sides[1].nr_system_baselines + 1,
			  sizeof(*sj.seen));
	host_bound(crit, &sj.strict, &sj.bound);
	if (!sb_disqualified(sides, &sj, detail)) {
		sb_adds(detail, "every repetition has a clean system baseline with host/SUT/"
				"non-SUT CPU attribution");
		if (crit && crit->has_host_policy)
			sb_addf(detail, " under %s", sj.bound.buf);
		ok = true;
	}
	sb_release(&sj.bound);
	free(sj.seen);
	return ok;
}

/* Every attestation of r as receipt_decode verified it; reps has
 * r->nr_system_baselines slots. */
static void sb_facts(const struct receipt *r, struct gate_sb_rep *reps)
{
	for (size_t i = 0; i < r->nr_system_baselines; i++) {
		const struct receipt_attestation *a = &r->system_baselines[i];

		reps[i].verified = a->verified;
		reps[i].facts = a->facts;
		snprintf(reps[i].why.msg, sizeof(reps[i].why.msg), "%s", a->why ? a->why : "");
		reps[i].binding = i < r->nr_reps ? r->reps[i].system_baseline_digest : NULL;
	}
}

/* ---- repetition summaries ------------------------------------------------- */

struct rep_evidence {
	const char *status;	/* "clean", "investigate", "invalid", "missing" */
	const char *digest;	/* "" when missing */
};

/* Per repetition: the aligned legacy ambient evidence, else the bound
 * system-baseline attestation, else missing. */
static void evidence(const struct receipt *r, const struct gate_sb_rep *sb, struct rep_evidence *ev)
{
	for (size_t i = 0; i < r->nr_reps; i++) {
		struct err e;

		ev[i] = (struct rep_evidence){ "missing", "" };
		if (r->has_ambient) {
			if (i < r->nr_ambient) {
				const struct ambient *a = &r->ambient[i];

				ev[i].digest = a->digest;
				ev[i].status = ambient_validate(a, &e) < 0 ? "invalid" : a->verdict;
			}
		} else if (i < r->nr_system_baselines) {
			const json_t *d = json_object_get(r->system_baselines[i].json, "digest");

			ev[i].digest = json_is_string(d) ? json_string_value(d) : "";
			if (!sb[i].verified || !sb[i].binding ||
			    strcmp(sb[i].binding, sb[i].facts.digest))
				ev[i].status = "invalid";
			else
				ev[i].status = sb[i].facts.verdict;
		}
	}
}

static json_t *summary_json(const struct stats *s, size_t total)
{
	json_t *o = jobj();

	jset_int(o, "included", (long long)s->n);
	jset_int(o, "total", (long long)total);
	jset_num(o, "mean_tokens_per_second", s->mean);
	jset_num(o, "median_tokens_per_second", s->median);
	jset_num(o, "stddev_tokens_per_second", s->stddev);
	return o;
}

struct side {
	const struct receipt *r;
	struct gate_sb_rep *sb;
	struct rep_evidence *ev;
	size_t nr_clean;
	struct stats all, clean, used;
	double *values;		/* owned: tok/s of the population `used` describes */
};

static void side_init(struct side *s, const struct receipt *r, bool clean_only)
{
	double *all = xcalloc(r->nr_reps + 1, sizeof(*all)),
	       *clean = xcalloc(r->nr_reps + 1, sizeof(*clean));

	s->r = r;
	s->sb = xcalloc(r->nr_system_baselines + 1, sizeof(*s->sb));
	s->ev = xcalloc(r->nr_reps + 1, sizeof(*s->ev));
	sb_facts(r, s->sb);
	evidence(r, s->sb, s->ev);
	s->nr_clean = 0;
	for (size_t i = 0; i < r->nr_reps; i++) {
		all[i] = r->reps[i].tokens_per_second;
		if (!strcmp(s->ev[i].status, "clean"))
			clean[s->nr_clean++] = all[i];
	}
	stats_compute(all, r->nr_reps, &s->all);
	stats_compute(clean, s->nr_clean, &s->clean);
	s->used = clean_only ? s->clean : s->all;
	s->values = clean_only ? clean : all;
	free(clean_only ? all : clean);
}

static void side_release(struct side *s)
{
	free(s->sb);
	free(s->ev);
	free(s->values);
}

static json_t *samples_json(const struct side *s)
{
	json_t *o = jobj(), *ex = jarr();

	jset_new(o, "all_sample", summary_json(&s->all, s->r->nr_reps));
	jset_new(o, "clean_only", summary_json(&s->clean, s->r->nr_reps));
	jset_str(o, "inclusion_policy",
		 "clean_only includes a repetition only when its aligned evidence (legacy ambient "
		 "evidence or the bound system-baseline attestation) validates with verdict=clean; "
		 "every other repetition is listed under exclusions");
	for (size_t i = 0; i < s->r->nr_reps; i++) {
		json_t *x;

		if (!strcmp(s->ev[i].status, "clean"))
			continue;
		x = jobj();
		jset_int(x, "repetition", (long long)i);
		jset_str(x, "attestation_digest", s->ev[i].digest);
		jset_str(x, "reason", s->ev[i].status);
		jpush_new(ex, x);
	}
	if (json_array_size(ex))
		jset_new(o, "exclusions", ex);
	else
		json_decref(ex);
	return o;
}

/* ---- checks and verdict --------------------------------------------------- */

static void add_check(json_t *checks, const char *name, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_check(json_t *checks, const char *name, const char *status, const char *fmt, ...)
{
	json_t *c = jobj();
	va_list ap;
	struct strbuf buf = STRBUF_INIT;

	va_start(ap, fmt);
	sb_vaddf(&buf, fmt, ap);
	va_end(ap);
	jset_str(c, "name", name);
	jset_str(c, "status", status);
	jset_str(c, "detail", sb_str(&buf));
	jpush_new(checks, c);
	sb_release(&buf);
}

static const char *pf(bool ok)
{
	return ok ? "pass" : "fail";
}

/* s as one POSIX shell word: single quotes, each ' written as '\''. */
static void shell_quote(struct strbuf *out, const char *s)
{
	sb_adds(out, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sb_adds(out, "'\\''");
		else
			sb_addch(out, *s);
	}
	sb_adds(out, "'");
}

/* Modules present in both receipts whose revision differs, by module name. */
static json_t *suspects_json(const struct receipt *a, const struct receipt *c, struct strbuf *paths)
{
	/* pairs of module indexes (candidate, accepted) */
	struct pair {
		size_t c, a;
	} *v = xcalloc(c->nr_modules + 1, sizeof(*v));
	size_t n = 0;
	json_t *arr = jarr();

	for (size_t i = 0; i < c->nr_modules; i++)
		for (size_t j = 0; j < a->nr_modules; j++)
			if (!strcmp(c->modules[i].module, a->modules[j].module) &&
			    strcmp(c->modules[i].revision, a->modules[j].revision)) {
				v[n++] = (struct pair){ i, j };
				break;
			}
	/* insertion sort by module name: a handful of entries */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(c->modules[v[j - 1].c].module,
						   c->modules[v[j].c].module) > 0; j--) {
			struct pair t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		json_t *s = jobj();

		jset_str(s, "module", c->modules[v[i].c].module);
		jset_str(s, "accepted_revision", a->modules[v[i].a].revision);
		jset_str(s, "candidate_revision", c->modules[v[i].c].revision);
		jpush_new(arr, s);
		if (!paths->len)
			sb_adds(paths, " --");
		sb_adds(paths, " ");
		shell_quote(paths, c->modules[v[i].c].module);
	}
	free(v);
	return arr;
}

static json_t *bisect_json(const struct gate_request *q, json_t *suspects, const char *paths)
{
	json_t *b = jobj(), *cmds = jarr();
	struct strbuf cmd = STRBUF_INIT;

	jset_str(b, "schema", GATE_BISECT_SCHEMA);
	jset_str(b, "envelope_id", q->policy.envelope_id);
	jset_str(b, "good_revision", q->last_accepted.revision);
	jset_str(b, "bad_revision", q->candidate.revision);
	jset_new(b, "suspect_modules", json_deep_copy(suspects));
	sb_adds(&cmd, "git bisect start ");
	shell_quote(&cmd, q->candidate.revision);
	sb_adds(&cmd, " ");
	shell_quote(&cmd, q->last_accepted.revision);
	sb_adds(&cmd, paths);
	jpush_new(cmds, json_string(cmd.buf));
	sb_release(&cmd);
	jpush_new(cmds, json_string("fak native-performance --gate " LAYOUT_GATE_REQUEST));
	jset_new(b, "guarded_commands", cmds);
	jset_str(b, "stop_condition",
		 "first revision classified regression under the exact "
		 "envelope, quality, identity, memory, and throughput policy");
	return b;
}

static const char *const class_names[] = { "pass", "investigate", "regression" };

/* ---- structural phase ----------------------------------------------------- */

/* The quality metric, direction and score meet the policy. */
static bool quality_ok(const struct receipt_quality *ql, const struct gate_policy *p)
{
	return !strcmp(ql->name, p->quality_metric) &&
	       ql->higher_is_better == p->quality_higher_is_better && isfinite(ql->score) &&
	       (p->quality_higher_is_better ? ql->score >= p->minimum_quality_score :
					      ql->score <= p->minimum_quality_score);
}

/* A receipt passes only when pinned to its artifact by hash (the source:
 * "the exact receipt must carry its hash"): 64 lowercase hex digits, not a
 * placeholder such as "issue-8635-pinned-artifact". */
static void check_artifact_hash(const char *who, const struct receipt *r, struct findings *out)
{
	const char *h = r->artifact_sha256;

	if (!digest_is_hex(h))
		findings_addf(out, "%s.artifact_sha256: \"%s\" is not a sha256 (64 lowercase "
				   "hex digits): the gate passes only receipts pinned to their "
				   "artifact by hash; pin the envelope to the artifact's sha256 (a "
				   "new envelope) and measure again", who, h);
}

/* What the structural checks read of a gate request. */
struct request_view {
	const struct gate_request *q;
	const struct graph *g;
	const struct gate_policy *p;
	const struct receipt *a, *c;	/* last accepted, candidate */
};

/* The structural checks of a gate request, in order: each returns what
 * refuses the request (its findings in out), or NULL to go on. */
static const char *request_schema(const struct request_view *v, struct findings *out)
{
	if (strcmp(v->q->schema, GATE_REQUEST_V1) && strcmp(v->q->schema, GATE_REQUEST_V2)) {
		findings_addf(out, "schema: must be \"%s\" or \"%s\", got \"%s\"", GATE_REQUEST_V1,
			      GATE_REQUEST_V2, v->q->schema);
		return "gate: invalid gate request";
	}
	return NULL;
}

static const char *policy_bounds(const struct request_view *v, struct findings *out)
{
	const struct criterion *crit = receipt_criterion(v->a, v->g, out);

	if (!crit)
		return "gate: last accepted comparison criterion is not resolved";
	check_bounds(v->p, crit, out);
	if (out->nr)
		return "gate: gate policy bounds are absent, stale, or do not match the criterion "
		       "resolved from run identity";
	return NULL;
}

static const char *policy_valid(const struct request_view *v, struct findings *out)
{
	check_policy(v->p, v->g, out);
	if (!strcmp(v->q->schema, GATE_REQUEST_V1) && strcmp(v->p->schema, GATE_POLICY_V1))
		findings_addf(out, "policy.schema: a v1 gate request requires a v1 gate policy");
	if (out->nr)
		return "gate: invalid envelope-scoped gate policy";
	return NULL;
}

static const char *receipts_valid(const struct request_view *v, struct findings *out)
{
	unsigned flags = v->p->require_system_baseline ? RECEIPT_SKIP_SYSTEM_BASELINES : 0;
	struct receipt norm;

	receipt_validate(v->a, v->g, flags, out);
	if (out->nr)
		return "gate: last accepted: invalid native-performance receipt";
	/* The execution identity and the comparison identity of the candidate are
	 * judged by checks below, not refused here. */
	norm = *v->c;
	norm.execution.engine = v->a->execution.engine;
	norm.execution.forward_path = v->a->execution.forward_path;
	norm.execution.fallback_count = 0;
	norm.comparison = v->a->comparison;
	receipt_validate(&norm, v->g, flags, out);
	if (out->nr)
		return "gate: candidate: invalid native-performance receipt";
	return NULL;
}

static const char *revision_and_roles(const struct request_view *v, struct findings *out)
{
	if (strcmp(v->a->revision, v->p->accepted_revision)) {
		findings_addf(out, "policy.accepted_revision: \"%s\", "
				   "last_accepted.revision \"%s\"",
			      v->p->accepted_revision, v->a->revision);
		return "gate: policy is bound to another accepted revision";
	}
	if (strcmp(v->a->role, "baseline") || strcmp(v->c->role, "candidate")) {
		findings_addf(out, "role: last_accepted has role \"%s\", candidate has role \"%s\"",
			      v->a->role, v->c->role);
		return "gate: gate requires a baseline last_accepted and a candidate";
	}
	return NULL;
}

/* A finding where a receipt's field is not what the policy names. */
static void policy_differs(struct findings *out, const char *field, const char *got,
			   const char *want)
{
	if (strcmp(got, want))
		findings_addf(out, "%s: \"%s\", policy \"%s\"", field, got, want);
}

static const char *envelope_and_lever(const struct request_view *v, struct findings *out)
{
	policy_differs(out, "last_accepted.envelope_id", v->a->envelope_id, v->p->envelope_id);
	policy_differs(out, "candidate.envelope_id", v->c->envelope_id, v->p->envelope_id);
	policy_differs(out, "last_accepted.changed_lever_id", v->a->changed_lever_id,
		       v->p->changed_lever_id);
	policy_differs(out, "candidate.changed_lever_id", v->c->changed_lever_id,
		       v->p->changed_lever_id);
	if (out->nr) {
		findings_sort(out);
		return "gate: policy and receipts must use the exact envelope and lever";
	}
	return NULL;
}

static const char *artifact_hashes(const struct request_view *v, struct findings *out)
{
	check_artifact_hash("last_accepted", v->a, out);
	check_artifact_hash("candidate", v->c, out);
	return out->nr ? GATE_WHAT_ARTIFACT_HASH : NULL;
}

static const char *accepted_quality(const struct request_view *v, struct findings *out)
{
	char x[JSON_NUMBER_MAX], y[JSON_NUMBER_MAX];

	if (quality_ok(&v->a->quality, v->p))
		return NULL;
	num(x, isfinite(v->a->quality.score) ? v->a->quality.score : 0);
	num(y, v->p->minimum_quality_score);
	findings_addf(out, "last_accepted.quality: %s=%s does not meet the policy %s %s",
		      v->a->quality.name, x, v->p->quality_higher_is_better ? "floor" : "ceiling",
		      y);
	return GATE_WHAT_ACCEPTED_QUALITY;
}

static const char *no_drift(const struct request_view *v, struct findings *out)
{
	receipt_drift(v->a, v->c, 0, out);
	if (out->nr) {
		findings_sort(out);
		return "gate: receipts are incomparable: an envelope control axis drifted";
	}
	return NULL;
}

static const char *enough_repetitions(const struct request_view *v, struct findings *out)
{
	if ((long long)v->a->nr_reps < v->p->minimum_repetitions)
		findings_addf(out, "last_accepted.repetitions: %zu, policy requires at least %lld",
			      v->a->nr_reps, v->p->minimum_repetitions);
	if ((long long)v->c->nr_reps < v->p->minimum_repetitions)
		findings_addf(out, "candidate.repetitions: %zu, policy requires at least %lld",
			      v->c->nr_reps, v->p->minimum_repetitions);
	return out->nr ? "gate: too few repetitions for the policy" : NULL;
}

static const char *ambient_aligned(const struct request_view *v, struct findings *out)
{
	const struct receipt *rs[2] = { v->a, v->c };
	const char *names[2] = { "last_accepted", "candidate" };

	if (!v->p->require_ambient_evidence)
		return NULL;
	for (int s = 0; s < 2; s++) {
		if (rs[s]->nr_ambient != rs[s]->nr_reps)
			findings_addf(out, "%s.ambient_evidence: %zu entries must align "
					   "1:1 with %zu repetitions",
				      names[s], rs[s]->nr_ambient, rs[s]->nr_reps);
	}
	return out->nr ? "gate: ambient evidence does not align with repetitions" : NULL;
}

/* The structural checks in the order they refuse a request: the first
 * that refuses decides what the gate says. */
static const char *(*const structural_checks[])(const struct request_view *v,
						struct findings *out) = {
	request_schema,	    policy_bounds,	policy_valid,	 receipts_valid,
	revision_and_roles, envelope_and_lever, artifact_hashes, accepted_quality,
	no_drift,	    enough_repetitions, ambient_aligned,
};

static const char *structural(const struct gate_request *q, const struct graph *g,
			      struct findings *out)
{
	const struct request_view v = { q, g, &q->policy, &q->last_accepted, &q->candidate };

	for (size_t i = 0; i < sizeof(structural_checks) / sizeof(structural_checks[0]); i++) {
		const char *what = structural_checks[i](&v, out);

		if (what)
			return what;
	}
	return NULL;
}

/* ---- evaluate ------------------------------------------------------------- */

/* The names of the failed checks, "engine, memory". */
static void failed_checks(const json_t *checks, struct strbuf *out)
{
	size_t i, n = 0;
	const json_t *c;

	json_array_foreach (checks, i, c)
		if (strcmp(json_string_value(json_object_get(c, "status")), "pass"))
			sb_addf(out, "%s%s", n++ ? ", " : "",
				json_string_value(json_object_get(c, "name")));
}

/* The identity check: pass when both receipts' engine identity is
 * observed (validation checked it against their sealed runs), or when the
 * policy allows a declared one; otherwise it investigates. True when it
 * investigates. */
static bool identity_check(const struct receipt *a, const struct receipt *c,
			   const struct gate_policy *p, json_t *checks)
{
	const char *ia = receipt_identity_recorded(a), *ic = receipt_identity_recorded(c);
	bool observed = !strcmp(ia, RECEIPT_IDENTITY_OBSERVED) &&
			!strcmp(ic, RECEIPT_IDENTITY_OBSERVED);

	if (observed)
		add_check(checks, "identity", "pass", "observed: every run of both receipts "
			  "stated engine %s", c->execution.engine);
	else if (p->allow_declared_identity)
		add_check(checks, "identity", "pass", "last_accepted %s, candidate %s; the policy "
			  "allows a declared identity (allow_declared_identity)", ia, ic);
	else
		add_check(checks, "identity", "investigate", "last_accepted %s, candidate %s: "
			  "no sealed run stated its engine, so %s is only the graph's word; "
			  "have the benchmark state it (engine and forward_path in its metrics "
			  "line), or set allow_declared_identity in the policy", ia, ic,
			  c->execution.engine);
	return !observed && !p->allow_declared_identity;
}

/* A serving candidate's runs (docs/receipts.md, "Serving receipts"):
 * every request of every repetition completed, and no send fell behind
 * its schedule beyond the sealed bound. Each a hard check. */
static bool serving_checks(const struct receipt *c, json_t *checks)
{
	long long failed = 0, requests = 0, late = 0, behind = 0, fallbacks = 0, reported = 0;
	double lag = 0, bound = 0;
	bool bad;

	for (size_t i = 0; i < c->nr_reps; i++) {
		const struct wl_serving *s = &c->reps[i].serving;

		failed += s->failed;
		requests += s->requests;
		late += s->late;
		behind += s->fell_behind;
		if (s->lag_max_ms > lag)
			lag = s->lag_max_ms;
		bound = s->max_lag_ms;
		if (s->fallback_count >= 0) {
			fallbacks += s->fallback_count;
			reported++;
		}
	}
	bad = failed > 0;
	add_check(checks, "serving_requests", pf(!bad), "failed=%lld of %lld requests over %zu "
		  "repetitions%s", failed, requests, c->nr_reps,
		  bad ? "; see each run's per-request log" : "");
	add_check(checks, "serving_schedule", pf(!behind), "%lld repetition(s) fell behind: "
		  "%lld sends later than %g ms (largest lag %.3f ms); the client could not keep "
		  "the trace's schedule", behind, late, bound, lag);
	add_check(checks, "serving_fallback", pf(!fallbacks), "%lld fallback(s) reported by the "
		  "engine in %lld of %zu repetitions (fallback_count of its /health body after "
		  "the trace)", fallbacks, reported, c->nr_reps);
	return bad || behind || fallbacks;
}

/* What the checks of judge() read: the policy, the graph and both sides. */
struct judging {
	const struct gate_policy *p;
	const struct graph *g;
	const struct side *sa, *sc;
};

/* What a check that does not pass makes of the candidate: a hard check's
 * failure is a regression; the others investigate, or (the throughput
 * floor) regress only when nothing else already decided. */
enum judged { JUDGED_HARD, JUDGED_IDENTITY, JUDGED_FLOOR, JUDGED_SYSTEM_BASELINE, JUDGED_GPU,
	      JUDGED_N };

/* Legacy ambient mode without a clean floor: any non-clean verdict
 * investigates at once, naming the first one. True when one does. */
static bool ambient_not_clean(const struct judging *j, json_t *checks, struct strbuf *why)
{
	const struct side *ss[2] = { j->sa, j->sc };
	const char *names[2] = { "last accepted", "candidate" };

	if (!j->p->require_ambient_evidence || j->p->minimum_clean_repetitions)
		return false;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < ss[s]->r->nr_reps; i++)
			if (strcmp(ss[s]->ev[i].status, "clean")) {
				add_check(checks, "ambient_evidence", "fail",
					  "%s repetition %zu verdict=%s", names[s], i,
					  ss[s]->ev[i].status);
				sb_addf(why, "the ambient evidence of %s repetition %zu is %s",
					names[s], i, ss[s]->ev[i].status);
				return true;
			}
	return false;
}

/* Each check of the table adds its entry to checks (or none where it does
 * not apply) and returns true when it does not pass. */
static bool not_required(json_t *checks, const char *name, const char *got, const char *want)
{
	bool ok = !strcmp(got, want);

	add_check(checks, name, pf(ok), "got %s; require %s", got, want);
	return !ok;
}

static bool check_engine(const struct judging *j, json_t *checks)
{
	return not_required(checks, "engine", j->sc->r->execution.engine, j->p->required_engine);
}

static bool check_forward_path(const struct judging *j, json_t *checks)
{
	return not_required(checks, "forward_path", j->sc->r->execution.forward_path,
			    j->p->required_forward_path);
}

static bool check_identity(const struct judging *j, json_t *checks)
{
	return identity_check(j->sa->r, j->sc->r, j->p, checks);
}

static bool check_fallback(const struct judging *j, json_t *checks)
{
	const struct receipt *c = j->sc->r;
	bool ok = c->execution.fallback_count == 0;

	add_check(checks, "fallback", pf(ok), "count=%lld", c->execution.fallback_count);
	return !ok;
}

static bool check_serving(const struct judging *j, json_t *checks)
{
	return j->sc->r->has_serving && serving_checks(j->sc->r, checks);
}

static bool check_memory(const struct judging *j, json_t *checks)
{
	const struct receipt *c = j->sc->r;
	bool ok = c->memory.peak_bytes <= j->p->maximum_peak_bytes;

	add_check(checks, "memory", pf(ok), "peak=%lld ceiling=%lld", c->memory.peak_bytes,
		  j->p->maximum_peak_bytes);
	return !ok;
}

static bool check_quality(const struct judging *j, json_t *checks)
{
	const struct receipt_quality *ql = &j->sc->r->quality;
	char x[JSON_NUMBER_MAX], y[JSON_NUMBER_MAX];
	bool ok = quality_ok(ql, j->p);

	num(x, ql->score);
	num(y, j->p->minimum_quality_score);
	add_check(checks, "quality", pf(ok), "%s=%s %s=%s", ql->name, x,
		  j->p->quality_higher_is_better ? "floor" : "ceiling", y);
	return !ok;
}

static bool check_throughput_floor(const struct judging *j, json_t *checks)
{
	char x[JSON_NUMBER_MAX], y[JSON_NUMBER_MAX];
	bool fail = !(j->sc->used.median >= j->p->minimum_throughput_tokens_per_second);

	num(x, j->sc->used.median);
	num(y, j->p->minimum_throughput_tokens_per_second);
	add_check(checks, "throughput_floor", pf(!fail), "median=%s floor=%s", x, y);
	return fail;
}

static bool check_system_baseline(const struct judging *j, json_t *checks)
{
	const struct receipt *a = j->sa->r, *c = j->sc->r;
	struct gate_sb_side sides[2] = {
		{ "last_accepted", a->has_ambient, !strcmp(a->schema, RECEIPT_SCHEMA_V2),
		  a->nr_reps, a->nr_system_baselines, j->sa->sb },
		{ "candidate", c->has_ambient, !strcmp(c->schema, RECEIPT_SCHEMA_V2),
		  c->nr_reps, c->nr_system_baselines, j->sc->sb },
	};
	struct strbuf detail = STRBUF_INIT;
	bool investigate;

	if (!j->p->require_system_baseline)
		return false;
	investigate = !gate_sb_judge(sides, j->p->allow_sampled_system_baseline,
				     graph_criterion(j->g, j->p->envelope_id), &detail);
	add_check(checks, "system_baseline", investigate ? "investigate" : "pass", "%s",
		  detail.buf);
	sb_release(&detail);
	return investigate;
}

static bool check_gpu(const struct judging *j, json_t *checks)
{
	const struct criterion *crit = graph_criterion(j->g, j->p->envelope_id);
	struct strbuf detail = STRBUF_INIT;
	bool bad;

	if (!crit || !crit->has_gpu_policy)
		return false;
	bad = gpu_check_receipt(&crit->gpu_policy, j->sa->r, "last_accepted", &detail) < 0 ||
	      gpu_check_receipt(&crit->gpu_policy, j->sc->r, "candidate", &detail) < 0;
	add_check(checks, "gpu", bad ? "investigate" : "pass", "%s",
		  bad ? detail.buf : "every run's GPU clocks qualify under the criterion");
	sb_release(&detail);
	return bad;
}

/* The gate's checks in the order the report lists them, each with what
 * its failure makes of the candidate. */
static const struct judge_check {
	bool (*run)(const struct judging *j, json_t *checks);
	enum judged effect;
} judge_checks[] = {
	{ check_engine, JUDGED_HARD },
	{ check_forward_path, JUDGED_HARD },
	{ check_identity, JUDGED_IDENTITY },
	{ check_fallback, JUDGED_HARD },
	/* a serving candidate's runs (docs/receipts.md, "Serving receipts") */
	{ check_serving, JUDGED_HARD },
	{ check_memory, JUDGED_HARD },
	{ check_quality, JUDGED_HARD },
	{ check_throughput_floor, JUDGED_FLOOR },
	{ check_system_baseline, JUDGED_SYSTEM_BASELINE },
	{ check_gpu, JUDGED_GPU },
};

/* The classification from the checks that did not pass, in the order of
 * the rules: hard failures, then the evidence that investigates, then the
 * floor, then the one decision. */
static enum gate_class classify(const struct judging *j, const bool flagged[JUDGED_N],
				const struct receipt_decision *d, json_t *checks,
				bool *sb_investigate, struct strbuf *why)
{
	char x[JSON_NUMBER_MAX], y[JSON_NUMBER_MAX], *text;

	if (flagged[JUDGED_HARD]) {
		sb_adds(why, "hard checks failed: ");
		failed_checks(checks, why);
		return GATE_REGRESSION;
	}
	if (flagged[JUDGED_SYSTEM_BASELINE]) {
		sb_adds(why, "the system-baseline evidence does not qualify (see the "
			     "system_baseline check)");
		return GATE_INVESTIGATE;
	}
	if (flagged[JUDGED_GPU]) {
		sb_adds(why, "the GPU evidence does not qualify (see the gpu check)");
		*sb_investigate = true;
		return GATE_INVESTIGATE;
	}
	if (flagged[JUDGED_IDENTITY]) {
		sb_adds(why, "the engine identity is declared, not observed (see the identity "
			     "check)");
		*sb_investigate = true;
		return GATE_INVESTIGATE;
	}
	num(x, j->sc->used.median);
	num(y, j->p->minimum_throughput_tokens_per_second);
	if (flagged[JUDGED_FLOOR]) {
		sb_addf(why, "the candidate median %s tok/s is below the floor %s", x, y);
		return GATE_REGRESSION;
	}
	/* the one decision: the interval against the practical threshold */
	text = receipt_decision_text(d);
	sb_addf(why, "decision %s", text);
	free(text);
	switch (d->tps.verdict) {
	case STATS_SLOWER:
		return GATE_REGRESSION;
	case STATS_UNDECIDED:
		if (d->tps.repetitions_needed > 0)
			sb_addf(why, "; about %lld repetitions per arm would decide it",
				d->tps.repetitions_needed);
		return GATE_INVESTIGATE;
	case STATS_FASTER:
	case STATS_EQUIVALENT:
		break;
	}
	return GATE_PASS;
}

/* Checks in order; returns the classification, and in *why the rule that
 * decided it, in words. *sb_investigate tells whether system-baseline
 * evidence caused an investigate. */
static enum gate_class judge(const struct gate_request *q, const struct graph *g,
			     const struct side *sa, const struct side *sc,
			     const struct receipt_decision *d, json_t *checks,
			     bool *sb_investigate, struct strbuf *why)
{
	const struct judging j = { &q->policy, g, sa, sc };
	bool flagged[JUDGED_N] = { false };

	if (ambient_not_clean(&j, checks, why))
		return GATE_INVESTIGATE;
	for (size_t i = 0; i < sizeof(judge_checks) / sizeof(judge_checks[0]); i++)
		flagged[judge_checks[i].effect] |= judge_checks[i].run(&j, checks);
	*sb_investigate = flagged[JUDGED_SYSTEM_BASELINE];
	return classify(&j, flagged, d, checks, sb_investigate, why);
}

/* The decision over the population the gate reads: every repetition, or
 * under a legacy clean-only policy the clean ones (a fixed design then). */
static int gate_decide(const struct gate_request *q, const struct graph *g, const struct side *sa,
		       const struct side *sc, struct receipt_decision *d, struct findings *out,
		       struct err *e)
{
	const struct criterion *crit = graph_criterion(g, q->policy.envelope_id);
	size_t attempts = q->attempts ? q->attempts : 1;

	if (!crit)
		BUG("a gate request past its structural phase without a criterion");
	if (q->policy.minimum_clean_repetitions <= 0)
		return receipt_decide(&q->last_accepted, &q->candidate, crit, attempts, d, out, e);
	return receipt_decide_values(sa->values, sa->used.n, sc->values, sc->used.n, crit,
				     attempts, d, e);
}

json_t *gate_evaluate(const struct gate_request *q, const struct graph *g, enum gate_class *cls,
		      const char **what, struct findings *out)
{
	const struct gate_policy *p = &q->policy;
	const struct receipt *a = &q->last_accepted, *c = &q->candidate;
	struct side sa, sc;
	struct receipt_decision d;
	struct err e;
	json_t *doc, *checks;
	struct strbuf why = STRBUF_INIT;
	bool sb_investigate = false;

	*what = structural(q, g, out);
	if (*what) {
		findings_sort(out);
		return NULL;
	}
	side_init(&sa, a, p->minimum_clean_repetitions > 0);
	side_init(&sc, c, p->minimum_clean_repetitions > 0);
	if (p->minimum_clean_repetitions > 0) {
		if ((long long)sa.nr_clean < p->minimum_clean_repetitions)
			findings_addf(out, "last_accepted has %zu clean repetitions; policy "
					   "requires %lld; rerun with clean ambient attestations",
				      sa.nr_clean, p->minimum_clean_repetitions);
		if ((long long)sc.nr_clean < p->minimum_clean_repetitions)
			findings_addf(out, "candidate has %zu clean repetitions; policy requires "
					   "%lld; rerun with clean ambient attestations",
				      sc.nr_clean, p->minimum_clean_repetitions);
		if (out->nr) {
			*what = "gate: too few clean repetitions for the policy";
			findings_sort(out);
			side_release(&sa);
			side_release(&sc);
			return NULL;
		}
	}

	if (!stats_finite(&sa.all) || !stats_finite(&sa.clean) || !stats_finite(&sc.all) ||
	    !stats_finite(&sc.clean) ||
	    gate_decide(q, g, &sa, &sc, &d, out, &e) < 0) {
		if (out->nr) {
			*what = "gate: the sequential record does not follow its rule";
		} else {
			*what = "gate: derived statistics are not finite";
			findings_addf(out, "repetitions: tokens_per_second: %s",
				      stats_finite(&sa.all) && stats_finite(&sc.all) &&
						      stats_finite(&sa.clean) &&
						      stats_finite(&sc.clean)
					      ? e.msg
					      : "the values give a non-finite mean or deviation");
		}
		findings_sort(out);
		side_release(&sa);
		side_release(&sc);
		return NULL;
	}
	checks = jarr();
	*cls = judge(q, g, &sa, &sc, &d, checks, &sb_investigate, &why);
	doc = jobj();
	jset_str(doc, "schema", GATE_VERDICT_SCHEMA);
	jset_str(doc, "envelope_id", p->envelope_id);
	jset_str(doc, "criterion_digest", a->comparison.criterion_digest);
	jset_str(doc, "classification", class_names[*cls]);
	jset_str(doc, "reason", why.buf);
	jset_str(doc, "accepted_revision", a->revision);
	jset_str(doc, "candidate_revision", c->revision);
	{
		json_t *dj = receipt_decision_json(&d);

		jset_str(dj, "population",
			 p->minimum_clean_repetitions > 0 ? "clean_only" : "all_sample");
		jset_new(doc, "decision", dj);
	}
	jset_new(doc, "accepted_samples", samples_json(&sa));
	jset_new(doc, "candidate_samples", samples_json(&sc));
	jset_new(doc, "checks", checks);
	{
		json_t *b = jobj();

		jset_new(b, "last_accepted", receipt_metrics_bound_json(a));
		jset_new(b, "candidate", receipt_metrics_bound_json(c));
		jset_new(doc, "metrics_bound", b);
	}
	if (*cls != GATE_PASS && (!sb_investigate || *cls == GATE_REGRESSION)) {
		struct strbuf paths = STRBUF_INIT;
		json_t *suspects = suspects_json(a, c, &paths);

		if (json_array_size(suspects))
			jset_new(doc, "suspect_modules", json_deep_copy(suspects));
		jset_new(doc, "bisect", bisect_json(q, suspects, paths.len ? paths.buf : ""));
		json_decref(suspects);
		sb_release(&paths);
	}
	sb_release(&why);
	side_release(&sa);
	side_release(&sc);
	return doc;
}
