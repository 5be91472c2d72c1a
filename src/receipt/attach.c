/* `--attach-receipt R --system-baseline A`: one attestation per repetition. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"

json_t *receipt_attach(const struct receipt *r, const json_t *attestation, const struct graph *g,
		       const char **what, struct findings *out, struct err *e)
{
	struct receipt up = *r, check;
	struct attest_facts facts;
	size_t k = r->nr_system_baselines;
	json_t *doc;

	if (r->has_ambient) {
		err_set(e, "receipt already carries legacy ambient evidence; capture a new receipt "
			   "with system-baseline attestations instead");
		return NULL;
	}
	up.schema = RECEIPT_SCHEMA_V2;
	receipt_validate(&up, g, RECEIPT_PARTIAL, out);
	if (out->nr) {
		*what = strcmp(r->schema, RECEIPT_SCHEMA_V1) ?
			"attach system baseline: invalid native-performance receipt" :
			"attach system baseline: receipt cannot be upgraded from v1 to v2";
		return NULL;
	}
	if (attest_check(attestation, &facts, e) < 0) {
		err_prefix(e, "system baseline");
		return NULL;
	}
	if (facts.has_top_consumers) {
		err_set(e, "system baseline contains high-cardinality process identities "
			   "(top_non_sut_consumers); capture it without --top-consumers");
		return NULL;
	}
	if (facts.simulated[0]) {
		err_set(e, "system baseline: %s %s", RECEIPT_SIMULATED_WHY, facts.simulated);
		return NULL;
	}
	if (k >= r->nr_reps) {
		err_set(e, "system baselines already cover every repetition (%zu of %zu)", k,
			r->nr_reps);
		return NULL;
	}

	up.reps = xmalloc(sizeof(*up.reps) * r->nr_reps);
	memcpy(up.reps, r->reps, sizeof(*up.reps) * r->nr_reps);
	up.reps[k].system_baseline_digest = facts.digest;
	up.system_baselines = xmalloc(sizeof(*up.system_baselines) * (k + 1));
	if (k)
		memcpy(up.system_baselines, r->system_baselines, sizeof(*up.system_baselines) * k);
	up.system_baselines[k].json = attestation;
	up.nr_system_baselines = k + 1;
	doc = receipt_to_json(&up);
	free(up.reps);
	free(up.system_baselines);

	/* Validate what will be written, exactly as a reader will decode it. */
	if (receipt_decode(&check, doc, NULL, e) < 0) {
		json_decref(doc);
		return NULL;
	}
	receipt_validate(&check, g, RECEIPT_PARTIAL, out);
	receipt_release(&check);
	if (out->nr) {
		*what = "attach system baseline: refused";
		json_decref(doc);
		return NULL;
	}
	return doc;
}
