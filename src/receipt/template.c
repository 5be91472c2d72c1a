/* `--baseline LEVER`: the receipt template of a lever's envelope. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "receipt/receipt.h"

/* A graph given with --graph is outside input: bound what it can make us
 * allocate. */
#define TEMPLATE_MAX_REPETITIONS 10000

static const char zero_sha256[] =
	"0000000000000000000000000000000000000000000000000000000000000000";

/* Dependencies of l that are not enabled, as "a", "b"; 0 when all are. */
static size_t unmet_deps(const struct graph *g, const struct lever *l, struct strbuf *sb)
{
	size_t n = 0;

	for (size_t i = 0; i < l->deps.n; i++) {
		const struct lever *d = graph_lever(g, l->deps.v[i]);

		if (d && d->enabled)
			continue;
		sb_addf(sb, "%s\"%s\"", n++ ? ", " : "", l->deps.v[i]);
	}
	return n;
}

/* A serving lever's template is a serving receipt: the pins of its envelope
 * or of its serving next witness, or placeholders where neither pins a
 * trace yet. */
static void template_serving(struct receipt *r, const struct envelope *env,
			     const struct lever *l, struct receipt_rep *reps)
{
	const struct envelope_serving *sv = graph_serving_pin(env, l);

	if (!sv && !(l->has_requirement && !strcmp(l->requirement.kind, "serving")))
		return;
	r->has_serving = true;
	r->serving = (struct receipt_serving){
		sv ? sv->trace_sha256 : "FILL_TRACE_SHA256",
		sv ? sv->primary_metric : "FILL_PRIMARY_SERVING_METRIC",
		sv ? sv->direction : "FILL_DIRECTION",
	};
	for (size_t i = 0; i < r->nr_reps; i++) {
		struct wl_serving *w = &reps[i].serving;

		reps[i].has_serving = true;
		snprintf(w->trace_sha256, sizeof(w->trace_sha256), "%s", r->serving.trace_sha256);
		memcpy(w->log_sha256, zero_sha256, sizeof(w->log_sha256));
		snprintf(w->stop_status, sizeof(w->stop_status), "FILL_STOP_STATUS");
	}
}

json_t *receipt_template(const struct graph *g, const char *lever_id, struct err *e)
{
	const struct lever *l = graph_lever(g, lever_id);
	const struct envelope *env;
	const struct criterion *c;
	struct receipt r;
	struct receipt_rep *reps;
	struct receipt_module module = { "FILL_MODULE", "FILL_MODULE_REVISION" };
	struct receipt_artifact artifact = { "FILL_RELATIVE_PROFILE_PATH", zero_sha256 };
	const char *command = "FILL_SCRUBBED_CAPTURE_COMMAND";
	const char *controls[RECEIPT_NR_CONTROLS];
	char digest[JSON_DIGEST_LEN + 1];
	struct strbuf sb = STRBUF_INIT;
	size_t n;
	json_t *out, *state;

	if (!l) {
		err_set(e, "unknown lever \"%s\"", lever_id);
		return NULL;
	}
	env = graph_envelope(g, l->app.envelope_id);
	if (!env) {
		err_set(e, "lever \"%s\" has no envelope", l->id);
		return NULL;
	}
	n = unmet_deps(g, l, &sb);
	if (n) {
		err_set(e, "lever \"%s\" is not ready: %s %s %s not enabled; a one-lever "
			   "experiment needs every dependency enabled first",
			l->id, n == 1 ? "dependency" : "dependencies", sb.buf,
			n == 1 ? "is" : "are");
		sb_release(&sb);
		return NULL;
	}
	sb_release(&sb);
	c = graph_criterion(g, env->id);
	if (!c) {
		err_set(e, "envelope \"%s\" has no comparison criterion", env->id);
		return NULL;
	}

	if (env->repetitions > TEMPLATE_MAX_REPETITIONS) {
		err_set(e, "envelope \"%s\" pins %lld repetitions; a template holds at most %d",
			env->id, (long long)env->repetitions, TEMPLATE_MAX_REPETITIONS);
		return NULL;
	}
	memset(&r, 0, sizeof(r));
	r.schema = RECEIPT_SCHEMA_V2;
	r.role = "baseline";
	r.envelope_id = env->id;
	r.changed_lever_id = l->id;
	r.revision = "FILL_COMMITTED_REVISION";
	r.artifact_sha256 =
		env->artifact_sha256 ? env->artifact_sha256 : "FILL_ARTIFACT_SHA256";
	r.machine.scrubbed_id = "FILL_SCRUBBED_MACHINE_ID";
	r.machine.platform = graph_envelope_platform(env);
	r.machine.backend = env->backend;
	r.controls = (struct receipt_controls){
		.prompt_tokens = env->prompt_tokens,
		.decode_tokens = env->decode_tokens,
		.batch = 1,
		.context_tokens = env->prompt_tokens + env->decode_tokens,
		.temperature = env->temperature,
		.sampling = "greedy",
		.cache_state = "cold",
		.warmups = env->warmups,
		.repetitions = env->repetitions,
	};
	memcpy(controls, receipt_canonical_controls, sizeof(controls));
	r.unchanged_controls = (struct strlist){ .v = controls, .n = RECEIPT_NR_CONTROLS };
	r.nr_reps = env->repetitions > 0 ? (size_t)env->repetitions : 0;
	reps = xcalloc(r.nr_reps ? r.nr_reps : 1, sizeof(*reps));
	r.reps = reps;
	r.execution = (struct receipt_execution){ env->engine, env->forward_path, 0 };
	r.quality =
		(struct receipt_quality){ "FILL_QUALITY_METRIC", 0, c->quality_higher_is_better };
	if (receipt_identity(c, digest, &r.comparison, e) < 0) {
		free(reps);
		return NULL;
	}
	r.modules = &module;
	r.nr_modules = graph_envelope_requires(env, "module_versions");
	r.commands = (struct strlist){ .v = &command, .n = 1 };
	r.artifacts = &artifact;
	r.nr_artifacts = graph_envelope_requires(env, "profiler_artifacts");
	/* the levers this experiment runs against: --promote refuses it once
	 * the envelope has changed */
	state = receipt_state_json(g, env, e);
	if (!state) {
		free(reps);
		return NULL;
	}
	r.has_envelope_state = true;
	r.envelope_state.json = state;
	/* nothing the engine printed: the graph's word (the runner says
	 * observed when every run stated it) */
	r.engine_identity = RECEIPT_IDENTITY_DECLARED;
	template_serving(&r, env, l, reps);
	out = receipt_to_json(&r);
	json_decref(state);
	free(reps);
	return out;
}
