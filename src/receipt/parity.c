#include "receipt/parity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xalloc.h"
#include "attestation/workload.h"
#include "stats/stats.h"

json_t *receipt_parity_json(const char *engine_a, const double *a, size_t na,
			    const char *engine_b, const double *b, size_t nb, struct err *e)
{
	double *la = xcalloc(na + 1, sizeof(*la)), *lb = xcalloc(nb + 1, sizeof(*lb));
	struct stats sa, sb;
	struct stats_shift sh;
	json_t *o = NULL, *iv;
	int rc = 0;

	for (size_t i = 0; i < na && !rc; i++)
		rc = a[i] > 0 ? (la[i] = log(a[i]), 0) : -1;
	for (size_t i = 0; i < nb && !rc; i++)
		rc = b[i] > 0 ? (lb[i] = log(b[i]), 0) : -1;
	if (rc < 0)
		err_set(e, "a repetition measured no positive tokens per second");
	/* the shift of log(a) against log(b): the ratio a / b */
	else if (stats_shift(lb, nb, la, na, STATS_DECISION_LEVEL, &sh, e) == 0) {
		stats_compute(a, na, &sa);
		stats_compute(b, nb, &sb);
		o = jobj();
		jset_str(o, "metric", "tokens_per_second");
		jset_str(o, "numerator", engine_a);
		jset_str(o, "denominator", engine_b);
		jset_num(o, "ratio", exp(sh.estimate));
		jset_num(o, "level", sh.level);
		jset_bool(o, "level_attained", sh.attained);
		iv = jobj();
		jset_num(iv, "lower", exp(sh.lower));
		jset_num(iv, "upper", exp(sh.upper));
		jset_new(o, "interval", iv);
		jset_num(o, "numerator_median", sa.median);
		jset_num(o, "denominator_median", sb.median);
		jset_int(o, "numerator_repetitions", (long long)na);
		jset_int(o, "denominator_repetitions", (long long)nb);
	}
	free(la);
	free(lb);
	return o;
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

char *receipt_parity_text(const json_t *p)
{
	const json_t *iv = json_object_get(p, "interval");

	return xasprintf("parity: %s / %s tok/s %.4g (%.4g%% interval %.4g..%.4g, n=%lld+%lld); "
			 "a parity ratio, not a throughput gain of either engine",
			 json_string_value(json_object_get(p, "numerator")),
			 json_string_value(json_object_get(p, "denominator")), num(p, "ratio"),
			 num(p, "level") * 100, num(iv, "lower"), num(iv, "upper"),
			 (long long)num(p, "numerator_repetitions"),
			 (long long)num(p, "denominator_repetitions"));
}

json_t *receipt_parity_of_runs(const char *const engines[2], const struct parity_run *runs,
			       size_t n, struct findings *out)
{
	double *v[2] = { xcalloc(n + 1, sizeof(double)), xcalloc(n + 1, sizeof(double)) };
	bool *seen[2] = { xcalloc(n + 1, sizeof(bool)), xcalloc(n + 1, sizeof(bool)) };
	size_t count[2] = { 0, 0 }, before = out->nr;
	json_t *o = NULL;
	struct err e;

	for (size_t i = 0; i < n; i++) {
		const struct parity_run *r = &runs[i];
		int arm = !strcmp(r->arm, "candidate");

		/* a quality run checks the arm's output: it states no engine */
		if (strcmp(r->kind, WL_KIND_QUALITY) && strcmp(r->engine, engines[arm]))
			findings_addf(out, "run %s of the %s arm (%s %lld) shows engine "
					   "\"%s\"; the %s arm of this campaign is %s's: each "
					   "arm's engine is observed, and must be the "
					   "requirement's, in order",
				      r->digest, r->arm, r->kind, r->index + 1,
				      r->engine[0] ? r->engine : "(none stated)", r->arm,
				      engines[arm]);
		if (r->artifact_unseen)
			findings_addf(out, "run %s of the %s arm (%s %lld) never had the pinned "
					   "artifact open or mapped: a campaign on one artifact "
					   "needs both engines to use it", r->digest, r->arm,
				      r->kind, r->index + 1);
		if (strcmp(r->kind, WL_KIND_REPETITION))
			continue;
		if (strcmp(r->verdict, "clean"))
			findings_addf(out, "run %s of the %s arm (repetition %lld): verdict %s, "
					   "not clean: a parity ratio counts only repetitions "
					   "measured on a quiet host (the criterion's host "
					   "policy); run the campaign again", r->digest, r->arm,
				      r->index + 1, r->verdict);
		if (!r->has_throughput || r->index < 0 || (size_t)r->index >= n ||
		    seen[arm][r->index]) {
			findings_addf(out, "run %s: not one repetition of the %s arm with a "
					   "throughput", r->digest, r->arm);
			continue;
		}
		seen[arm][r->index] = true;
		v[arm][r->index] = r->tokens_per_second;
		count[arm] = (size_t)r->index + 1 > count[arm] ? (size_t)r->index + 1 : count[arm];
	}
	for (int arm = 0; arm < 2; arm++)
		for (size_t i = 0; i < count[arm]; i++)
			if (!seen[arm][i])
				findings_addf(out, "the %s arm has no repetition %zu",
					      arm ? "candidate" : "baseline", i + 1);
	if (out->nr == before) {
		o = receipt_parity_json(engines[0], v[0], count[0], engines[1], v[1], count[1], &e);
		if (!o)
			findings_addf(out, "the parity ratio: %s", e.msg);
	}
	for (int arm = 0; arm < 2; arm++) {
		free(v[arm]);
		free(seen[arm]);
	}
	return o;
}
