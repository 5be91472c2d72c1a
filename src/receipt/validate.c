/* Receipt validation: every rule, graph-independent then graph-bound, each
 * finding naming the JSON path it is about. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digest.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "base/xalloc.h"
#include "receipt/bind.h"
#include "receipt/identity.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"

/* ---- string classes ------------------------------------------------------ */

bool receipt_is_scrubbed_id(const char *s)
{
	return !str_blank(s) && str_scrubbed(s, NULL) && !strchr(s, ':');
}

/* One finding when the free text s at path is not scrubbed (base/text.h;
 * a shell command by the command rules). */
static void check_scrubbed_as(const char *path, const char *s, bool command, struct findings *out)
{
	struct strbuf why = STRBUF_INIT;

	if (!str_printable(s, command ? "\t\n" : "", &why))
		findings_addf(out, "%s: holds %s", path, why.buf);
	else if (!(command ? str_scrubbed_command(s, &why) : str_scrubbed(s, &why)))
		findings_addf(out, "%s: contains a private detail: %s", path, why.buf);
	sb_release(&why);
}

static void check_scrubbed(const char *path, const char *s, struct findings *out)
{
	check_scrubbed_as(path, s, false, out);
}

bool receipt_is_placeholder(const char *s)
{
	size_t n;

	if (strstr(s, RECEIPT_FILL_PREFIX))
		return true;
	if (!strncmp(s, "sha256:", 7))
		s += 7;
	n = strspn(s, "0");
	return n == 64 && !s[n];
}

/* Every string of v (members and elements, embedded attestations included)
 * that is a template placeholder, one finding each at its JSON path. */
static void check_placeholders(const json_t *v, struct strbuf *path, struct findings *out)
{
	size_t len = path->len;

	if (json_is_string(v) && receipt_is_placeholder(json_string_value(v))) {
		if (strstr(json_string_value(v), RECEIPT_FILL_PREFIX))
			findings_addf(out, "%s: is a " RECEIPT_FILL_PREFIX " template placeholder; "
					   "fill in the captured value", path->buf);
		else
			findings_addf(out, "%s: an all-zero SHA-256 is a template placeholder, not "
					   "a digest", path->buf);
	} else if (json_is_object(v)) {
		const char *key;
		const json_t *x;

		/* jansson iterates only non-const objects; nothing is modified */
		json_object_foreach ((json_t *)(uintptr_t)v, key, x) {
			sb_addf(path, "%s%s", len ? "." : "", key);
			check_placeholders(x, path, out);
			path->len = len;
			path->buf[len] = '\0';
		}
	} else if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			sb_addf(path, "[%zu]", i);
			check_placeholders(json_array_get(v, i), path, out);
			path->len = len;
			path->buf[len] = '\0';
		}
	}
}

static bool captured(const char *s, bool command, struct strbuf *why)
{
	if (str_blank(s)) {
		sb_adds(why, "it is blank");
		return false;
	}
	if (receipt_is_placeholder(s)) {
		sb_adds(why, "it is a FILL_ placeholder or an all-zero digest");
		return false;
	}
	return command ? str_scrubbed_command(s, why) : str_scrubbed(s, why);
}

bool receipt_text_captured(const char *s, struct strbuf *why)
{
	return captured(s, false, why);
}

bool receipt_command_captured(const char *s, struct strbuf *why)
{
	return captured(s, true, why);
}

/* ---- comparison identity ------------------------------------------------- */

bool receipt_comparison_is_zero(const struct receipt_comparison *c)
{
	return !*c->output_class && !*c->criterion_id && c->criterion_version == 0 &&
	       !*c->criterion_digest;
}

bool receipt_comparison_equal(const struct receipt_comparison *a,
			      const struct receipt_comparison *b)
{
	return !strcmp(a->output_class, b->output_class) &&
	       !strcmp(a->criterion_id, b->criterion_id) &&
	       a->criterion_version == b->criterion_version &&
	       !strcmp(a->criterion_digest, b->criterion_digest);
}

int receipt_identity(const struct criterion *c, char digest[JSON_DIGEST_LEN + 1],
		     struct receipt_comparison *out, struct err *e)
{
	if (graph_criterion_digest(c, digest, e) < 0)
		return -1;
	out->output_class = c->output_class;
	out->criterion_id = c->id;
	out->criterion_version = c->version;
	out->criterion_digest = digest;
	return 0;
}

const struct criterion *receipt_criterion(const struct receipt *r, const struct graph *g,
					  struct findings *why)
{
	const struct lever *l = graph_lever(g, r->changed_lever_id);
	const struct envelope *env = l ? graph_envelope(g, l->app.envelope_id) : NULL;
	const struct criterion *c;
	const struct receipt_controls *k = &r->controls;
	bool drift = false;

	if (!env || strcmp(env->id, r->envelope_id) || !(c = graph_criterion(g, env->id))) {
		if (why)
			findings_addf(why, "comparison: no comparison criterion is registered for "
					   "these run axes (envelope \"%s\", lever \"%s\")",
				      r->envelope_id, r->changed_lever_id);
		return NULL;
	}
#define DRIFT(cond, path, ...)                                                              \
	do {                                                                                \
		if (cond) {                                                                 \
			drift = true;                                                       \
			if (why)                                                            \
				findings_addf(why, "comparison: criterion not resolved: "   \
						   path " must be " __VA_ARGS__);           \
		}                                                                           \
	} while (0)
	/* an envelope that pins no artifact yet takes the receipts' own */
	DRIFT(env->artifact_sha256 && strcmp(r->artifact_sha256, env->artifact_sha256),
	      "artifact_sha256",
	      "the envelope artifact \"%s\"", env->artifact_sha256);
	DRIFT(k->prompt_tokens != env->prompt_tokens, "controls.prompt_tokens", "%lld",
	      env->prompt_tokens);
	DRIFT(k->decode_tokens != env->decode_tokens, "controls.decode_tokens", "%lld",
	      env->decode_tokens);
	DRIFT(k->batch != 1, "controls.batch", "%d", 1);
	DRIFT(k->context_tokens != env->prompt_tokens + env->decode_tokens,
	      "controls.context_tokens", "%lld", env->prompt_tokens + env->decode_tokens);
	DRIFT(k->temperature != env->temperature, "controls.temperature", "%g",
	      env->temperature);
	DRIFT(strcmp(k->sampling, "greedy"), "controls.sampling", "\"%s\"", "greedy");
	DRIFT(strcmp(k->cache_state, "cold"), "controls.cache_state", "\"%s\"", "cold");
	DRIFT(k->warmups != env->warmups, "controls.warmups", "%lld", env->warmups);
	/* a sequential experiment (--until-decisive) runs at least the
	 * envelope's repetitions and at most its recorded maximum; the
	 * comparison replays its looks (receipt_decide) */
	if (r->has_experiment && r->experiment.has_sequential) {
		const struct receipt_sequential *s = &r->experiment.sequential;

		DRIFT(k->repetitions < env->repetitions || k->repetitions > s->max_repetitions ||
			      s->first_repetitions != env->repetitions,
		      "controls.repetitions", "from %lld to experiment.sequential.max_repetitions "
		      "(a sequential experiment)", env->repetitions);
	} else {
		DRIFT(k->repetitions != env->repetitions, "controls.repetitions", "%lld",
		      env->repetitions);
	}
	DRIFT(strcmp(r->execution.engine, env->engine), "execution.engine", "\"%s\"", env->engine);
	DRIFT(strcmp(r->execution.forward_path, env->forward_path), "execution.forward_path",
	      "\"%s\"", env->forward_path);
	DRIFT(r->execution.fallback_count != 0, "execution.fallback_count", "%d", 0);
	DRIFT(strcmp(r->quality.name, c->quality_metric), "quality.name", "\"%s\"",
	      c->quality_metric);
#undef DRIFT
	return drift ? NULL : c;
}

/* ---- legacy ambient evidence -------------------------------------------- */

static int metric_check(const struct ambient_metric *m, const char *name, struct err *e)
{
	if (strcmp(m->availability, "measured") && strcmp(m->availability, "unavailable") &&
	    strcmp(m->availability, "unknown"))
		return err_set(e, "%s.availability must be measured, unavailable or unknown", name);
	if (strcmp(m->availability, "measured") && m->has_value && m->value != 0)
		return err_set(e, "%s cannot carry a value when unmeasured", name);
	return 0;
}

int ambient_validate(const struct ambient *a, struct err *e)
{
	char digest[JSON_DIGEST_LEN + 1];

	if (strcmp(a->schema, AMBIENT_SCHEMA))
		return err_set(e, "schema must be \"%s\"", AMBIENT_SCHEMA);
	if (!*a->started_at || !*a->ended_at)
		return err_set(e, "started_at and ended_at are required");
	if (a->elapsed_ms <= 0 || a->interval_ms <= 0)
		return err_set(e, "elapsed and sample interval must be positive");
	if (str_blank(a->source))
		return err_set(e, "source is required");
	if (strcmp(a->platform, "linux") && strcmp(a->platform, "windows"))
		return err_set(e, "platform must be linux or windows");
	if (a->sampler_overhead_ms < 0)
		return err_set(e, "sampler overhead must be non-negative");
	if (metric_check(&a->host_cpu_percent, "host_cpu_percent", e) < 0 ||
	    metric_check(&a->available_memory_bytes, "available_memory_bytes", e) < 0 ||
	    metric_check(&a->process_churn, "process_churn", e) < 0 ||
	    metric_check(&a->non_sut_cpu_percent, "non_sut_cpu_percent", e) < 0)
		return -1;
	if (strcmp(a->verdict, "clean") && strcmp(a->verdict, "investigate") &&
	    strcmp(a->verdict, "invalid"))
		return err_set(e, "verdict must be clean, investigate or invalid");
	if (a->command_exit_code != 0 && strcmp(a->verdict, "invalid"))
		return err_set(e, "a failed command (exit %lld) requires verdict invalid",
			       a->command_exit_code);
	if (json_digest(a->json, "digest", digest, e) < 0)
		return -1;
	if (strcmp(digest, a->digest))
		return err_set(e, "ambient evidence digest mismatch: recorded \"%s\", computed "
				  "\"%s\"", a->digest, digest);
	return 0;
}

/* ---- rules ---------------------------------------------------------------- */

static bool is_v1(const struct receipt *r)
{
	return !strcmp(r->schema, RECEIPT_SCHEMA_V1);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Same multiset as the canonical list. */
static bool controls_complete(const struct strlist *s)
{
	const char *sorted[RECEIPT_NR_CONTROLS], **have;
	bool ok = true;

	if (s->is_null || s->n != RECEIPT_NR_CONTROLS)
		return false;
	memcpy(sorted, receipt_canonical_controls, sizeof(sorted));
	qsort(sorted, RECEIPT_NR_CONTROLS, sizeof(*sorted), cmp_str);
	have = xmalloc(sizeof(*have) * s->n);
	memcpy(have, s->v, sizeof(*have) * s->n);
	qsort(have, s->n, sizeof(*have), cmp_str);
	for (size_t i = 0; i < RECEIPT_NR_CONTROLS && ok; i++)
		ok = !strcmp(sorted[i], have[i]);
	free(have);
	return ok;
}

static void check_identity(const struct receipt *r, const struct graph *g, struct findings *out)
{
	const struct criterion *c;
	struct receipt_comparison want;
	char digest[JSON_DIGEST_LEN + 1];
	struct err e;

	/* Every receipt's run identity must resolve the envelope's criterion;
	 * only a legacy v1 receipt without a comparison identity has nothing
	 * to compare the resolved identity with. */
	c = receipt_criterion(r, g, out);
	if (!c || (is_v1(r) && receipt_comparison_is_zero(&r->comparison)))
		return;
	if (receipt_identity(c, digest, &want, &e) < 0) {
		findings_addf(out, "comparison: invalid comparison criterion: %s", e.msg);
		return;
	}
	if (!receipt_comparison_equal(&r->comparison, &want))
		findings_addf(out, "comparison: does not match the criterion resolved from run "
				   "identity (want output_class \"%s\", criterion_id \"%s\", "
				   "criterion_version %lld, criterion_digest \"%s\")",
			      want.output_class, want.criterion_id, want.criterion_version,
			      want.criterion_digest);
}

static void check_controls(const struct receipt_controls *k, struct findings *out)
{
	static const struct {
		const char *name;
		size_t off;
		long long min;
	} dims[] = {
		/* P = 0: a decode-only envelope */
		{ "prompt_tokens", offsetof(struct receipt_controls, prompt_tokens), 0 },
		{ "decode_tokens", offsetof(struct receipt_controls, decode_tokens), 1 },
		{ "batch", offsetof(struct receipt_controls, batch), 1 },
		{ "context_tokens", offsetof(struct receipt_controls, context_tokens), 1 },
		{ "warmups", offsetof(struct receipt_controls, warmups), 0 },
		{ "repetitions", offsetof(struct receipt_controls, repetitions), 1 },
	};

	for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
		long long v;

		memcpy(&v, (const char *)k + dims[i].off, sizeof(v));
		if (v < dims[i].min)
			findings_addf(out, "controls.%s: invalid control dimension %lld "
					   "(must be %s)",
				      dims[i].name, v, dims[i].min ? "positive" : "non-negative");
	}
}

/* Every repetition metric stays far from overflow, so the statistics derived
 * from it are finite. Non-positive values have their own finding. */
static void bound(double v, double lo, double hi, size_t i, const char *key, struct findings *out)
{
	char got[JSON_NUMBER_MAX], a[JSON_NUMBER_MAX], b[JSON_NUMBER_MAX];

	if (!isfinite(v) || (v > 0 && (v < lo || v > hi))) {
		if (isfinite(v))
			json_format_double(got, v);
		else
			snprintf(got, sizeof(got), "a non-finite number");
		json_format_double(a, lo);
		json_format_double(b, hi);
		findings_addf(out, "repetitions[%zu].%s: %s is outside the sane range [%s, %s]", i,
			      key, got, a, b);
	}
}

static void check_rep_bounds(const struct receipt_rep *p, size_t i, struct findings *out)
{
	bound(p->tokens_per_second, RECEIPT_MIN_TPS, RECEIPT_MAX_TPS, i, "tokens_per_second", out);
	bound(p->end_to_end_ms, 0, RECEIPT_MAX_MS, i, "end_to_end_milliseconds", out);
	if (p->has_ttft)
		bound(p->ttft_ms, 0, RECEIPT_MAX_MS, i, "ttft_milliseconds", out);
	if (p->has_prefill)
		bound(p->prefill_ms, 0, RECEIPT_MAX_MS, i, "prefill_milliseconds", out);
	if (p->has_decode)
		bound(p->decode_ms, 0, RECEIPT_MAX_MS, i, "decode_milliseconds", out);
}

static void check_repetitions(const struct receipt *r, struct findings *out)
{
	if (r->controls.repetitions > 0 && (long long)r->nr_reps != r->controls.repetitions)
		findings_addf(out, "repetitions: %zu repetitions do not match controls.repetitions "
				   "%lld", r->nr_reps, r->controls.repetitions);
	for (size_t i = 0; i < r->nr_reps; i++) {
		const struct receipt_rep *p = &r->reps[i];

		if (!(p->end_to_end_ms > 0) || !(p->tokens_per_second > 0))
			findings_addf(out, "repetitions[%zu]: lacks positive end-to-end latency "
					   "and tok/s", i);
		if ((p->has_ttft && p->ttft_ms < 0) || (p->has_prefill && p->prefill_ms < 0) ||
		    (p->has_decode && p->decode_ms < 0))
			findings_addf(out, "repetitions[%zu]: stage timings must be non-negative",
				      i);
		check_rep_bounds(p, i, out);
	}
}

static void check_ambient(const struct receipt *r, unsigned flags, struct findings *out)
{
	if (!r->has_ambient)
		return;
	/* With system-baseline rules skipped the attestations are not part of
	 * this receipt's validation, so the mix is the gate's to judge. */
	if (r->nr_system_baselines && !(flags & RECEIPT_SKIP_SYSTEM_BASELINES))
		findings_addf(out, "ambient_evidence: a receipt cannot carry both legacy ambient "
				   "evidence and system-baseline attestations");
	if (r->nr_ambient != r->nr_reps)
		findings_addf(out, "ambient_evidence: %zu entries must align 1:1 with %zu "
				   "repetitions", r->nr_ambient, r->nr_reps);
	for (size_t i = 0; i < r->nr_ambient; i++) {
		struct err e;

		if (ambient_validate(&r->ambient[i], &e) < 0)
			findings_addf(out, "ambient_evidence[%zu]: %s", i, e.msg);
	}
}

/* A v1 receipt carries no system-baseline evidence and records no
 * experiment (sb_rules: the system-baseline rules apply). */
static void check_v1_evidence(const struct receipt *r, bool sb_rules, struct findings *out)
{
	if (r->nr_system_baselines && sb_rules)
		findings_addf(out, "system_baselines: a v1 receipt cannot carry "
				   "system-baseline attestations");
	for (size_t i = 0; i < r->nr_reps && sb_rules; i++)
		if (r->reps[i].system_baseline_digest)
			findings_addf(out, "repetitions[%zu].system_baseline_digest: a "
					   "v1 repetition cannot bind system-baseline "
					   "evidence", i);
	if (r->has_experiment)
		findings_addf(out, "experiment: a v1 receipt cannot record an experiment");
}

/* Each repetition binds the digest of its attestation (reps[i], NULL where
 * it failed its check), and none binds a hole past the n attached. */
static void check_digest_bindings(const struct receipt *r, const struct attestation *const *reps,
				  size_t n, struct findings *out)
{
	for (size_t i = 0; i < r->nr_reps; i++) {
		const char *d = r->reps[i].system_baseline_digest;

		if (i < n) {
			/* An attestation that failed its check has no trusted digest:
			 * compare against the recorded one so the finding stays exact. */
			const char *want = reps[i] ? reps[i]->digest : NULL;

			if (!want) {
				const json_t *dv =
					json_object_get(r->system_baselines[i].json, "digest");
				want = json_is_string(dv) ? json_string_value(dv) : "";
			}
			if (!d || strcmp(d, want))
				findings_addf(out, "repetitions[%zu].system_baseline_digest: "
						   "binding does not match "
						   "system_baselines[%zu].digest", i, i);
		} else if (d) {
			findings_addf(out, "repetitions[%zu].system_baseline_digest: binding hole: "
					   "no attestation at system_baselines[%zu]", i, i);
		}
	}
}

/* Every attached attestation, as receipt_decode verified it. sb_rules: the
 * system-baseline rules apply (the gate judges that evidence itself); the
 * sealed-metrics bindings always do. */
static void check_system_baselines(const struct receipt *r, const struct envelope *env,
				   bool sb_rules, unsigned flags, struct findings *out)
{
	size_t n = r->nr_system_baselines;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	const struct attestation **reps = xcalloc(n ? n : 1, sizeof(*reps));

	if (is_v1(r)) {
		check_v1_evidence(r, sb_rules, out);
		free(reps);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct receipt_attestation *a = &r->system_baselines[i];

		if (!a->verified) {
			if (sb_rules)
				findings_addf(out, "system_baselines[%zu]: invalid attestation: %s",
					      i, a->why);
			continue;
		}
		reps[i] = a->att;
		/* even where the gate judges the rest of the evidence itself */
		if (reps[i]->simulated.nr)
			findings_addf(out, "system_baselines[%zu]: %s %s", i, RECEIPT_SIMULATED_WHY,
				      a->facts.simulated);
		/* the engine the run showed, against the envelope's (the gate too) */
		if (env && reps[i]->has_workload && reps[i]->workload.has_metrics) {
			struct strbuf why = STRBUF_INIT;

			if (!receipt_identity_agrees(env, &reps[i]->workload.metrics.identity,
						     &why))
				findings_addf(out, "system_baselines[%zu]: the run %s", i, why.buf);
			sb_release(&why);
		}
		if (!sb_rules)
			continue;
		if (reps[i]->nr_consumers)
			findings_addf(out, "system_baselines[%zu]: contains high-cardinality "
					   "process identities (top_non_sut_consumers)", i);
		for (size_t j = 0; j < i; j++)
			if (reps[j] && !strcmp(reps[j]->digest, reps[i]->digest)) {
				findings_addf(out, "system_baselines[%zu]: reuses the attestation "
						   "digest of system_baselines[%zu]", i, j);
				break;
			}
	}
	if (n > r->nr_reps && sb_rules)
		findings_addf(out, "system_baselines: %zu attestations exceed %zu repetitions", n,
			      r->nr_reps);
	if (sb_rules)
		check_digest_bindings(r, reps, n, out);
	receipt_check_bindings(r, reps, n, (flags & RECEIPT_PARTIAL) != 0, out);
	free(reps);
}

static void check_axes(const struct receipt *r, struct findings *out)
{
	const struct strlist *a = &r->changed_axes;

	if (!strcmp(r->role, "baseline")) {
		if (a->n)
			findings_addf(out, "changed_axes: a baseline declares no changed axis");
	} else if (!strcmp(r->role, "candidate")) {
		char *want = xasprintf("lever:%s", r->changed_lever_id);

		if (a->n != 1 || strcmp(a->v[0], want))
			findings_addf(out, "changed_axes: a candidate declares exactly one changed "
					   "axis \"%s\" and no other", want);
		free(want);
	}
}

static void check_modules(const struct receipt *r, bool required, struct findings *out)
{
	if (!r->nr_modules && required)
		findings_addf(out, "module_versions: at least one module revision is required");
	for (size_t i = 0; i < r->nr_modules; i++) {
		const struct receipt_module *m = &r->modules[i];
		bool dup = false;

		for (size_t j = 0; j < i && !dup; j++)
			dup = !strcmp(r->modules[j].module, m->module);
		if (str_blank(m->module) || str_blank(m->revision))
			findings_addf(out, "module_versions[%zu]: module and revision must be "
					   "captured, not blank", i);
		else if (m->module[0] == '-' || m->revision[0] == '-')
			findings_addf(out, "module_versions[%zu]: module and revision must not "
					   "start with '-'", i);
		else if (dup)
			findings_addf(out, "module_versions[%zu]: module \"%s\" is listed twice", i,
				      m->module);
		{
			char path[64];

			snprintf(path, sizeof(path), "module_versions[%zu].module", i);
			check_scrubbed(path, m->module, out);
			snprintf(path, sizeof(path), "module_versions[%zu].revision", i);
			check_scrubbed(path, m->revision, out);
		}
	}
}

static void check_commands_artifacts(const struct receipt *r, bool artifacts_required,
				     struct findings *out)
{
	if (!r->commands.n)
		findings_addf(out, "commands: at least one scrubbed command is required");
	for (size_t i = 0; i < r->commands.n; i++) {
		char path[64];

		snprintf(path, sizeof(path), "commands[%zu]", i);
		if (str_blank(r->commands.v[i]))
			findings_addf(out, "%s: is blank", path);
		check_scrubbed_as(path, r->commands.v[i], true, out);
	}
	if (!r->nr_artifacts && artifacts_required)
		findings_addf(out,
			      "profiler_artifacts: at least one profiler artifact is required");
	for (size_t i = 0; i < r->nr_artifacts; i++) {
		const struct receipt_artifact *a = &r->artifacts[i];
		char path[64];

		snprintf(path, sizeof(path), "profiler_artifacts[%zu].path", i);
		if (str_blank(a->path))
			findings_addf(out, "%s: must be a relative scrubbed path", path);
		check_scrubbed(path, a->path, out);
		if (!digest_is_hex(a->sha256))
			findings_addf(out, "profiler_artifacts[%zu].sha256: must be 64 lowercase "
					   "hex digits", i);
	}
}

static void check_graph(const struct receipt *r, const struct graph *g, struct findings *out)
{
	const struct lever *l = graph_lever(g, r->changed_lever_id);
	const struct envelope *env;
	const char *plat;

	if (!l) {
		findings_addf(out, "changed_lever_id: unknown lever \"%s\"", r->changed_lever_id);
		return;
	}
	env = graph_envelope(g, l->app.envelope_id);
	if (!env) {
		findings_addf(out, "changed_lever_id: lever \"%s\" has no envelope", l->id);
		return;
	}
	if (strcmp(r->envelope_id, env->id))
		findings_addf(out, "envelope_id: lever \"%s\" belongs to envelope \"%s\", not "
				   "\"%s\"", l->id, env->id, r->envelope_id);
	plat = graph_envelope_platform(env);
	if (!plat || strcmp(r->machine.platform, plat) || strcmp(r->machine.backend, env->backend))
		findings_addf(out, "machine: platform/backend \"%s\"/\"%s\" does not match "
				   "envelope \"%s\" (\"%s\"/\"%s\")",
			      r->machine.platform, r->machine.backend, env->id, plat ? plat : "",
			      env->backend);
	if (env->artifact_sha256 && strcmp(r->artifact_sha256, env->artifact_sha256))
		findings_addf(out,
			      "artifact_sha256: does not match the artifact of envelope \"%s\"",
			      env->id);
}

/* A serving receipt (docs/receipts.md, "Serving receipts"): the trace and
 * primary metric its envelope's serving pins (or its lever's serving next
 * witness, in an envelope that pins none), and a serving summary of that
 * trace in every repetition. (A serving envelope keeps its decode
 * receipts: the levers whose next witness is a decode A/B.) */
static void check_serving(const struct receipt *r, const struct graph *g,
			  const struct envelope *env, struct findings *out)
{
	const struct receipt_serving *s = &r->serving;
	const struct envelope_serving *pin =
		env && r->changed_lever_id ?
		graph_serving_pin(env, graph_lever(g, r->changed_lever_id)) : NULL;

	if (env && r->has_serving && !pin) {
		findings_addf(out, "serving: envelope \"%s\" pins no serving trace: a serving "
				   "receipt witnesses a serving envelope only (docs/graph.md, "
				   "\"Serving envelopes\")", env->id);
		return;
	}
	if (!r->has_serving) {
		for (size_t i = 0; i < r->nr_reps; i++)
			if (r->reps[i].has_serving) {
				findings_addf(out, "repetitions[%zu].serving: only a serving "
						   "receipt's repetitions carry one", i);
				break;
			}
		return;
	}
	if (pin && (strcmp(s->trace_sha256, pin->trace_sha256) ||
		    strcmp(s->primary_metric, pin->primary_metric) ||
		    strcmp(s->direction, pin->direction)))
		findings_addf(out, "serving: trace %s, primary metric %s (%s); %s \"%s\" "
				   "pins trace %s, primary metric %s (%s)", s->trace_sha256,
			      s->primary_metric, s->direction,
			      pin == &env->serving ? "envelope" : "lever",
			      pin == &env->serving ? env->id : r->changed_lever_id,
			      pin->trace_sha256, pin->primary_metric, pin->direction);
	for (size_t i = 0; i < r->nr_reps; i++)
		if (!r->reps[i].has_serving)
			findings_addf(out, "repetitions[%zu].serving: missing: a serving receipt's "
					   "repetitions carry their run's serving summary", i);
		else if (strcmp(r->reps[i].serving.trace_sha256, s->trace_sha256))
			findings_addf(out, "repetitions[%zu].serving.trace_sha256: %s, not the "
					   "receipt's trace %s", i, r->reps[i].serving.trace_sha256,
				      s->trace_sha256);
}

void receipt_validate(const struct receipt *r, const struct graph *g, unsigned flags,
		      struct findings *out)
{
	bool v1 = is_v1(r);
	/* NULL when the envelope is unknown; check_graph says so */
	const struct envelope *env = graph_envelope(g, r->envelope_id);

	if (!v1 && strcmp(r->schema, RECEIPT_SCHEMA_V2))
		findings_addf(out, "schema: must be \"%s\" or \"%s\", got \"%s\"",
			      RECEIPT_SCHEMA_V1, RECEIPT_SCHEMA_V2, r->schema);
	if (strcmp(r->role, "baseline") && strcmp(r->role, "candidate"))
		findings_addf(out, "role: must be baseline or candidate, got \"%s\"", r->role);
	if (str_blank(r->revision))
		findings_addf(out, "revision: is missing");
	else if (r->revision[0] == '-')
		findings_addf(out, "revision: must not start with '-'");
	check_scrubbed("revision", r->revision, out);
	if (str_blank(r->machine.scrubbed_id) || (str_scrubbed(r->machine.scrubbed_id, NULL) &&
						   strchr(r->machine.scrubbed_id, ':')))
		findings_addf(out, "machine.scrubbed_id: is empty or contains private path/host "
				   "syntax");
	check_scrubbed("machine.scrubbed_id", r->machine.scrubbed_id, out);
	if (str_blank(r->execution.engine) || str_blank(r->execution.forward_path))
		findings_addf(out, "execution: must name an engine and a forward path");
	else if (env && strcmp(r->execution.engine, env->engine))
		findings_addf(out, "execution.engine: must be \"%s\", the engine of envelope "
				   "\"%s\", got \"%s\"", env->engine, env->id, r->execution.engine);
	if (r->execution.fallback_count != 0)
		findings_addf(out,
			      "execution.fallback_count: fallback count must be zero, got %lld",
			      r->execution.fallback_count);
	if (str_blank(r->quality.name) || !isfinite(r->quality.score))
		findings_addf(out, "quality: metric must be captured and finite");
	check_modules(r, !env || graph_envelope_requires(env, "module_versions"), out);
	receipt_envelope_check(r, g, out);
	check_controls(&r->controls, out);
	check_repetitions(r, out);
	check_serving(r, g, env, out);
	check_ambient(r, flags, out);
	check_system_baselines(r, env, !(flags & RECEIPT_SKIP_SYSTEM_BASELINES), flags, out);
	if (r->memory.peak_bytes == 0 || r->memory.resident_bytes == 0)
		findings_addf(out, "memory: peak and resident memory are required");
	else if (r->memory.peak_bytes < r->memory.resident_bytes)
		findings_addf(out, "memory.peak_bytes: %lld is below memory.resident_bytes "
				   "%lld; the peak includes what was resident",
			      r->memory.peak_bytes, r->memory.resident_bytes);
	if (!controls_complete(&r->unchanged_controls))
		findings_addf(out, "unchanged_controls: must contain the complete canonical "
				   "control list exactly once each");
	check_axes(r, out);
	check_commands_artifacts(r, !env || graph_envelope_requires(env, "profiler_artifacts"),
				 out);
	check_graph(r, g, out);
	check_identity(r, g, out);
	/* (while --attach-receipt or the runner binds the runs one by one, the
	 * last attachment decides) */
	if (!(flags & RECEIPT_PARTIAL) &&
	    !strcmp(receipt_identity_recorded(r), RECEIPT_IDENTITY_OBSERVED) &&
	    strcmp(receipt_identity_of_receipt(r), RECEIPT_IDENTITY_OBSERVED))
		findings_addf(out, "engine_identity: records \"observed\", but not every "
				   "repetition's sealed run stated its engine: the identity is "
				   "the graph's word (\"declared\")");
	if (r->doc) {
		struct strbuf path = STRBUF_INIT;

		sb_adds(&path, "");
		check_placeholders(r->doc, &path, out);
		sb_release(&path);
	}
	findings_sort(out);
}
