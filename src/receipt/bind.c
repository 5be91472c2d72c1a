/* Sealed metrics: a repetition whose attestation was made by `fak bench
 * experiment` (fak.system-baseline/v2) must state exactly the values the
 * attestation sealed from the run's own output, and a receipt whose
 * repetitions are all bound must state the memory and quality they
 * measured. The experiment member's schedule must match the attestations.
 * Called by receipt_validate for every attached attestation, whatever the
 * validation flags: a mismatch is a refusal, never an investigation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dates.h"
#include "receipt/receipt.h"
#include "base/digest.h"
#include "base/xalloc.h"
#include "receipt/bind.h"
#include "attestation/attest.h"
#include "attestation/workload.h"

static void num(char buf[JSON_NUMBER_MAX], double d)
{
	json_format_double(buf, d);
}

/* One optional repetition metric against its sealed counterpart. */
static void same_metric(size_t i, const char *key, bool has, double v, bool sealed_has,
			double sealed, struct findings *out)
{
	char a[JSON_NUMBER_MAX], b[JSON_NUMBER_MAX];

	if (has && !sealed_has)
		findings_addf(out, "repetitions[%zu].%s: not sealed in system_baselines[%zu]", i,
			      key, i);
	else if (!has && sealed_has)
		findings_addf(out, "repetitions[%zu].%s: missing; system_baselines[%zu] sealed one",
			      i, key, i);
	else if (has && v != sealed) {
		num(a, v);
		num(b, sealed);
		findings_addf(out, "repetitions[%zu].%s: %s differs from %s, the value sealed in "
				   "system_baselines[%zu]", i, key, a, b, i);
	}
}

/* The envelope state a run sealed (its digest) must be the receipt's: a
 * run sealed against one state cannot be presented as measured against
 * another, and a receipt cannot claim a state its runs did not seal. */
static void check_label_state(const struct receipt *r, const struct wl_label *l, const char *where,
			      struct findings *out)
{
	char d[JSON_DIGEST_LEN + 1];
	struct err e;

	if (!l->envelope_state[0] && !r->has_envelope_state)
		return;	/* sealed before fak recorded the state */
	if (!r->has_envelope_state) {
		findings_addf(out, "%s.workload.label.envelope_state: sealed against envelope "
				   "state %s; the receipt records no envelope_state",
			      where, l->envelope_state);
		return;
	}
	if (receipt_state_digest(r->envelope_state.json, d, &e) < 0) {
		findings_addf(out, "envelope_state: %s", e.msg);
		return;
	}
	if (!l->envelope_state[0])
		findings_addf(out, "%s.workload.label.envelope_state: the run sealed no envelope "
				   "state; the receipt's envelope_state (%s) is not what it ran "
				   "against", where, d);
	else if (strcmp(d, l->envelope_state))
		findings_addf(out, "%s.workload.label.envelope_state: sealed against envelope "
				   "state %s; the receipt's envelope_state is %s",
			      where, l->envelope_state, d);
}

/* The label of a sealed run must name this receipt's experiment, machine,
 * revision, envelope, lever, arm and the slot it is attached to, and its
 * command must be the arm's (commands[0]; the quality run's: commands[1]). */
static void check_label(const struct receipt *r, const struct workload *w, const char *where,
			const char *kind, size_t index, struct findings *out)
{
	const struct wl_label *l = &w->label;
	size_t ci = strcmp(kind, WL_KIND_QUALITY) ? 0 : 1;

	if (strcmp(l->envelope_id, r->envelope_id) || strcmp(l->lever_id, r->changed_lever_id) ||
	    strcmp(l->arm, r->role) || strcmp(l->kind, kind) || l->index != (int64_t)index)
		findings_addf(out, "%s.workload.label: sealed for the %s arm's %s %lld of lever "
				   "\"%s\" in envelope \"%s\"; it is attached as the %s arm's %s "
				   "%zu of lever \"%s\" in envelope \"%s\"",
			      where, l->arm, l->kind, (long long)l->index, l->lever_id,
			      l->envelope_id, r->role, kind, index, r->changed_lever_id,
			      r->envelope_id);
	if (r->has_experiment && strcmp(l->experiment_id, r->experiment.id))
		findings_addf(out, "%s.workload.label.experiment_id: sealed in experiment %s; this "
				   "receipt records experiment %s",
			      where, l->experiment_id, r->experiment.id);
	if (strcmp(l->machine_id, r->machine.scrubbed_id))
		findings_addf(out, "%s.workload.label.machine_id: sealed on machine %s; the "
				   "receipt says %s", where, l->machine_id, r->machine.scrubbed_id);
	if (strcmp(l->revision, r->revision))
		findings_addf(out, "%s.workload.label.revision: sealed at revision %s; the receipt "
				   "says %s", where, l->revision, r->revision);
	if (ci >= r->commands.n || strcmp(r->commands.v[ci], w->command))
		findings_addf(out, "%s.workload.command: the sealed command is not commands[%zu] "
				   "of this receipt", where, ci);
	check_label_state(r, l, where, out);
}

static void check_rep(const struct receipt *r, size_t i, const struct attestation *rep,
		      struct findings *out)
{
	const struct receipt_rep *p = &r->reps[i];
	const struct wl_metrics *m = &rep->workload.metrics;
	char where[48];

	snprintf(where, sizeof(where), "system_baselines[%zu]", i);
	check_label(r, &rep->workload, where, WL_KIND_REPETITION, i, out);
	if (!rep->workload.has_metrics || !m->has_throughput) {
		findings_addf(out, "repetitions[%zu]: system_baselines[%zu] sealed no "
				   "throughput (%s)", i, i,
			      rep->workload.has_metrics ? "a quality run"
							: rep->workload.metrics_error);
		return;
	}
	same_metric(i, "tokens_per_second", true, p->tokens_per_second, true, m->tokens_per_second,
		    out);
	same_metric(i, "end_to_end_milliseconds", true, p->end_to_end_ms, true, m->end_to_end_ms,
		    out);
	same_metric(i, "ttft_milliseconds", p->has_ttft, p->ttft_ms, m->has_ttft, m->ttft_ms, out);
	same_metric(i, "prefill_milliseconds", p->has_prefill, p->prefill_ms, m->has_prefill,
		    m->prefill_ms, out);
	same_metric(i, "decode_milliseconds", p->has_decode, p->decode_ms, m->has_decode,
		    m->decode_ms, out);
	if (p->has_serving != rep->workload.serving.present) {
		findings_addf(out, "repetitions[%zu].serving: %s", i, p->has_serving
			      ? "system_baselines[i] sealed no serving run"
			      : "missing: system_baselines[i] sealed a serving run");
	} else if (p->has_serving) {
		json_t *a = wl_serving_to_json(&p->serving),
		       *b = wl_serving_to_json(&rep->workload.serving);

		if (!json_equal(a, b))
			findings_addf(out, "repetitions[%zu].serving: differs from what "
					   "system_baselines[%zu] sealed", i, i);
		json_decref(a);
		json_decref(b);
	}
}

int receipt_memory_from_reports(const struct attestation *const *reps, size_t n, long long *peak,
				long long *resident, struct err *e)
{
	double pk = 0, rs = 0;

	for (size_t i = 0; i < n; i++) {
		const struct attestation *r = reps[i];
		const struct metric *wl = &r->workload.peak_rss_bytes;
		const struct metric *cg = &r->cgroup_v2.memory_peak_bytes;
		const struct metric *s =
			r->attribution.sut_rss_bytes.available ? &r->attribution.sut_rss_bytes : wl;

		if (!cg->available && !wl->available)
			return err_set(e, "run %zu measured no peak memory (%s)", i, wl->reason);
		if (!s->available)
			return err_set(e, "run %zu measured no resident memory (%s)", i, s->reason);
		pk = cg->available && cg->value > pk ? cg->value : pk;
		pk = wl->available && wl->value > pk ? wl->value : pk;
		pk = s->value > pk ? s->value : pk;
		rs = s->value > rs ? s->value : rs;
	}
	*peak = (long long)pk;
	*resident = (long long)rs;
	return 0;
}

int receipt_quality_from_runs(const struct attestation *const *reps, size_t n,
			      struct wl_quality *q, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const struct wl_metrics *m = &reps[i]->workload.metrics;

		if (!reps[i]->workload.has_metrics || !m->has_quality)
			return err_set(e, "run %zu sealed no quality", i);
		if (i && (strcmp(m->quality.name, q->name) ||
			  m->quality.higher_is_better != q->higher_is_better))
			return err_set(e, "run %zu measured quality \"%s\" (%s is better), run 0 "
					  "\"%s\" (%s is better); every run of an arm reports the "
					  "same quality metric",
				       i, m->quality.name,
				       m->quality.higher_is_better ? "higher" : "lower", q->name,
				       q->higher_is_better ? "higher" : "lower");
		if (!i || (q->higher_is_better ? m->quality.score < q->score
					       : m->quality.score > q->score))
			*q = m->quality;
	}
	return 0;
}

/* ---- the experiment member ------------------------------------------------ */

static const char *const orders[] = { "interleaved", "random", "blocked", NULL };

static int order_of(const char *s)
{
	for (int i = 0; orders[i]; i++)
		if (!strcmp(s, orders[i]))
			return i;
	return -1;
}

/* The position of (arm, kind, index) in the schedule; -1 when absent. */
static long find_run(const struct receipt_experiment *x, const char *arm, const char *kind,
		     long long index)
{
	for (size_t i = 0; i < x->nr_schedule; i++) {
		const struct receipt_run *u = &x->schedule[i];

		if (!strcmp(u->arm, arm) && !strcmp(u->kind, kind) && u->index == index)
			return (long)i;
	}
	return -1;
}

/* A sealed run and its schedule entry agree on position, digest and start. */
static void check_entry(const struct receipt_experiment *x, const char *arm, const char *kind,
			long long index, const struct attestation *rep, const char *where,
			struct findings *out)
{
	long pos = find_run(x, arm, kind, index);
	const struct receipt_run *u;

	if (pos < 0)
		return;	/* reported by check_schedule */
	u = &x->schedule[pos];
	if (rep->workload.label.sequence != pos)
		findings_addf(out, "%s.workload.label.sequence: sealed as run %lld of its "
				   "experiment; the schedule lists it as run %ld",
			      where, (long long)rep->workload.label.sequence, pos);
	if (strcmp(u->attestation_digest, rep->digest))
		findings_addf(out, "experiment.schedule[%ld]: names attestation %s, not %s (%s)",
			      pos, u->attestation_digest, rep->digest, where);
	if (strcmp(u->started_at_utc, rep->command_window.started_at_utc))
		findings_addf(out, "experiment.schedule[%ld].started_at_utc: %s; %s sealed %s", pos,
			      u->started_at_utc, where, rep->command_window.started_at_utc);
}

/* The schedule is exactly the plan of the recorded order and seed for the
 * receipt's warm-ups and repetitions (receipt_plan): the order cannot be
 * told otherwise than it ran. */
static void check_schedule(const struct receipt *r, struct findings *out)
{
	const struct receipt_experiment *x = &r->experiment;
	struct receipt_step *plan = NULL;
	size_t n = 0;
	int order = order_of(x->order);
	struct err e;

	if (order < 0 || r->controls.warmups < 0 ||
	    (x->has_seed && (x->seed < 0 || x->seed >= (1LL << 53))))
		return;	/* reported by check_experiment and check_controls */
	if (receipt_plan((enum receipt_order)order, x->has_seed ? (uint64_t)x->seed : 0,
			 (size_t)r->controls.warmups, r->nr_reps, x->quality_attestation != NULL,
			 &plan, &n, &e) < 0) {
		findings_addf(out, "experiment.schedule: %s", e.msg);
		return;
	}
	if (x->nr_schedule != n) {
		findings_addf(out, "experiment.schedule: lists %zu runs; the %s plan of %lld "
				   "warm-up(s) and %zu repetition(s) per arm has %zu",
			      x->nr_schedule, x->order, r->controls.warmups, r->nr_reps, n);
		free(plan);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct receipt_run *u = &x->schedule[i];
		int64_t t;

		if (strcmp(u->arm, receipt_arm_names[plan[i].arm]) ||
		    strcmp(u->kind, plan[i].kind) || u->index != plan[i].index)
			findings_addf(out, "experiment.schedule[%zu]: the %s arm's %s %lld; the %s "
					   "plan runs the %s arm's %s %lld here",
				      i, u->arm, u->kind, u->index, x->order,
				      receipt_arm_names[plan[i].arm], plan[i].kind,
				      (long long)plan[i].index);
		if (timestamp_parse(u->started_at_utc, &t) < 0)
			findings_addf(out, "experiment.schedule[%zu].started_at_utc: not an RFC "
					   "3339 UTC time", i);
		if (strncmp(u->attestation_digest, "sha256:", 7) ||
		    !digest_is_hex(u->attestation_digest + 7))
			findings_addf(out, "experiment.schedule[%zu].attestation_digest: not a "
					   "sha256 digest", i);
	}
	free(plan);
}

/* The llama-bench arm's own quality run. */
static void check_quality_run(const struct receipt *r, bool all_bound, struct findings *out)
{
	const struct receipt_experiment *x = &r->experiment;
	const struct attestation *q = x->quality_sealed.att;

	if (!x->quality_sealed.verified) {
		findings_addf(out, "experiment.quality_attestation: invalid attestation: %s",
			      x->quality_sealed.why);
	} else if (!q->has_workload || strcmp(q->workload.parser, WL_PARSER_QUALITY)) {
		findings_addf(out, "experiment.quality_attestation: not a sealed quality run");
	} else {
		check_label(r, &q->workload, "experiment.quality_attestation", WL_KIND_QUALITY, 0,
			    out);
		check_entry(x, r->role, WL_KIND_QUALITY, 0, q, "experiment.quality_attestation",
			    out);
		if (!strcmp(q->verdict, "invalid"))
			findings_addf(out, "experiment.quality_attestation: verdict invalid: the "
					   "quality run did not run cleanly");
		else if (all_bound && q->workload.has_metrics) {
			const struct wl_quality *sq = &q->workload.metrics.quality;
			char a[JSON_NUMBER_MAX], b[JSON_NUMBER_MAX];

			if (strcmp(sq->name, r->quality.name) || sq->score != r->quality.score ||
			    sq->higher_is_better != r->quality.higher_is_better) {
				num(a, r->quality.score);
				num(b, sq->score);
				findings_addf(out, "quality: %s=%s differs from %s=%s, sealed by "
						   "the quality run",
					      r->quality.name, a, sq->name, b);
			}
		}
	}
}

static void check_experiment(const struct receipt *r, bool all_bound, struct findings *out)
{
	const struct receipt_experiment *x = &r->experiment;
	bool llama = !strcmp(x->metrics_parser, WL_PARSER_LLAMA_BENCH) ||
		     !strcmp(x->metrics_parser, WL_PARSER_SERVING);

	if (!digest_is_hexn(x->id, 32))
		findings_addf(out, "experiment.id: must be 32 lowercase hex digits");
	if (order_of(x->order) < 0)
		findings_addf(out, "experiment.order: must be interleaved, random or blocked, got "
				   "\"%s\"", x->order);
	else if (x->has_seed != !strcmp(x->order, "random"))
		findings_addf(out, "experiment.seed: %s",
			      x->has_seed ? "only a random order records a seed"
					  : "a random order records its seed");
	if (x->has_seed && (x->seed < 0 || x->seed >= (1LL << 53)))
		findings_addf(out, "experiment.seed: must be in [0, 2^53)");
	if (!llama && strcmp(x->metrics_parser, WL_PARSER_JSON))
		findings_addf(out, "experiment.metrics_parser: must be %s, %s or %s, got \"%s\"",
			      WL_PARSER_JSON, WL_PARSER_LLAMA_BENCH, WL_PARSER_SERVING,
			      x->metrics_parser);
	/* a serving receipt's quality is its quality run's (--quality-command) or
	 * its repetitions' own (--quality-prompts: check_measured) */
	if (strcmp(x->metrics_parser, WL_PARSER_SERVING) &&
	    llama != (x->quality_attestation != NULL))
		findings_addf(out, "experiment.quality_attestation: %s",
			      llama ? "required with llama-bench and serving metrics"
				    : "only llama-bench and serving metrics have one");
	if (!strcmp(x->metrics_parser, WL_PARSER_SERVING) != r->has_serving)
		findings_addf(out, "experiment.metrics_parser: %s", r->has_serving
			      ? "a serving receipt's runs are serving runs (serving/v1)"
			      : "serving runs make a serving receipt (its serving member)");
	check_schedule(r, out);
	if (x->quality_attestation)
		check_quality_run(r, all_bound, out);
}

/* Repetition i, bound by its sealed run: the run agrees with it, and with
 * the experiment's entry and metrics parser where the receipt records one. */
static void check_bound_rep(const struct receipt *r, size_t i, const struct attestation *rep,
			    struct findings *out)
{
	check_rep(r, i, rep, out);
	if (r->has_experiment) {
		char where[48];

		snprintf(where, sizeof(where), "system_baselines[%zu]", i);
		check_entry(&r->experiment, r->role, WL_KIND_REPETITION, (long long)i, rep, where,
			    out);
	}
	if (r->has_experiment && strcmp(rep->workload.parser, r->experiment.metrics_parser))
		findings_addf(out, "system_baselines[%zu].workload.parser: %s, the "
				   "experiment says %s",
			      i, rep->workload.parser, r->experiment.metrics_parser);
}

/* Every repetition bound: the receipt's memory, and its quality where the
 * json metrics line carries it, are what the bound runs measured. */
static void check_measured(const struct receipt *r, const struct attestation **b, size_t bound,
			   struct findings *out)
{
	long long peak = 0, resident = 0;
	struct wl_quality q = { 0 };
	char x[JSON_NUMBER_MAX], y[JSON_NUMBER_MAX];
	struct err e;

	if (receipt_memory_from_reports(b, bound, &peak, &resident, &e) < 0)
		findings_addf(out, "memory: %s", e.msg);
	else if (peak != r->memory.peak_bytes || resident != r->memory.resident_bytes)
		findings_addf(out, "memory: peak %lld and resident %lld differ from %lld "
				   "and %lld, measured by the bound attestations",
			      r->memory.peak_bytes, r->memory.resident_bytes, peak, resident);
	if (strcmp(b[0]->workload.parser, WL_PARSER_JSON) &&
	    (strcmp(b[0]->workload.parser, WL_PARSER_SERVING) ||
	     (r->has_experiment && r->experiment.quality_attestation)))
		return;
	if (receipt_quality_from_runs(b, bound, &q, &e) < 0) {
		findings_addf(out, "quality: %s", e.msg);
	} else if (strcmp(q.name, r->quality.name) || q.score != r->quality.score ||
		   q.higher_is_better != r->quality.higher_is_better) {
		num(x, r->quality.score);
		num(y, q.score);
		findings_addf(out, "quality: %s=%s differs from %s=%s, the worst "
				   "score the bound repetitions sealed",
			      r->quality.name, x, q.name, y);
	}
}

void receipt_check_bindings(const struct receipt *r, const struct attestation *const *atts,
			    size_t n, bool partial, struct findings *out)
{
	size_t attached = n;
	size_t bound = 0, unbound = 0;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	const struct attestation **b = xcalloc(n + 1, sizeof(*b));

	if (n > r->nr_reps)
		n = r->nr_reps;	/* overfill has its own finding */
	for (size_t i = 0; i < n; i++) {
		const struct attestation *rep = atts[i];

		if (!rep)
			continue;	/* failed attestation_check: reported there */
		if (!rep->has_workload) {
			unbound++;
			continue;
		}
		b[bound++] = rep;
		check_bound_rep(r, i, rep, out);
	}
	for (size_t i = 1; i < bound; i++)
		if (strcmp(b[i]->workload.metrics.derivation, b[0]->workload.metrics.derivation)) {
			findings_addf(out, "system_baselines: a repetition sealed derivation "
					   "\"%s\", the first \"%s\"; every repetition reads its "
					   "results the same way",
				      b[i]->workload.metrics.derivation,
				      b[0]->workload.metrics.derivation);
			break;
		}
	if (bound && unbound)
		findings_addf(out, "system_baselines: %zu repetition(s) carry sealed metrics and "
				   "%zu do not; bind every repetition or none", bound, unbound);
	if (r->has_experiment && unbound)
		findings_addf(out, "system_baselines: an experiment's repetitions are bound by "
				   "fak.system-baseline/v2 attestations; %zu are not", unbound);
	if (bound && !r->has_experiment)
		findings_addf(out, "experiment: sealed runs (fak.system-baseline/v2) belong to an "
				   "experiment; this receipt records none");
	if ((bound || r->has_experiment) && attached < r->nr_reps && !partial)
		findings_addf(out, "system_baselines: %zu of %zu repetitions are attached; a "
				   "receipt of sealed runs binds every repetition",
			      attached, r->nr_reps);
	if (bound && bound == r->nr_reps && !unbound)
		check_measured(r, b, bound, out);
	if (r->has_experiment)
		check_experiment(r, bound && bound == r->nr_reps && !unbound, out);
	free(b);
}
