/* `--attach-receipt R --system-baseline A`: one attestation per repetition. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "receipt/receipt.h"
#include "attestation/attest.h"

/* What attaching refuses of attestation a, the (k+1)th of a receipt of n
 * repetitions: one that does not verify, records top consumers or is
 * simulated, or one more than the repetitions. */
static int refused(const struct receipt_attestation *a, size_t k, size_t n, struct err *e)
{
	if (!a->verified)
		return err_set(e, "system baseline: %s", a->why ? a->why : "not verified");
	if (a->facts.has_top_consumers)
		return err_set(e, "system baseline contains high-cardinality process identities "
				  "(top_non_sut_consumers); capture it without --top-consumers");
	if (a->facts.simulated[0])
		return err_set(e, "system baseline: %s %s", RECEIPT_SIMULATED_WHY,
			       a->facts.simulated);
	if (k >= n)
		return err_set(e, "system baselines already cover every repetition (%zu of %zu)",
			       k, n);
	return 0;
}

int receipt_attached_check(const json_t *doc, size_t *k, const struct graph *g, struct receipt *r,
			   const char **what, struct findings *out, struct err *e)
{
	/* Validate what will be written, exactly as a reader will decode it:
	 * the one decode, which verifies every attestation once. */
	if (receipt_decode(r, doc, NULL, e) < 0)
		return -1;
	for (; *k < r->nr_system_baselines; ++*k)
		if (refused(&r->system_baselines[*k], *k, r->nr_reps, e) < 0) {
			receipt_release(r);
			return -1;
		}
	receipt_validate(r, g, RECEIPT_PARTIAL, out);
	if (out->nr) {
		*what = "attach system baseline: refused";
		receipt_release(r);
		return -1;
	}
	return 0;
}

json_t *receipt_attach(const struct receipt *r, const json_t *attestation, const struct graph *g,
		       const char **what, struct findings *out, struct err *e)
{
	struct receipt up = *r, check;
	size_t k = r->nr_system_baselines;
	const json_t *digest = json_object_get(attestation, "digest");
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

	/* bound by its recorded digest: receipt_attached_check refuses the
	 * attestation unless it verifies, so the digest is the verified one */
	up.reps = xmalloc(sizeof(*up.reps) * (r->nr_reps + 1));
	memcpy(up.reps, r->reps, sizeof(*up.reps) * r->nr_reps);
	if (k < r->nr_reps)
		up.reps[k].system_baseline_digest =
			json_is_string(digest) ? json_string_value(digest) : "";
	up.system_baselines = xmalloc(sizeof(*up.system_baselines) * (k + 1));
	for (size_t i = 0; i < k; i++)
		up.system_baselines[i] = (struct receipt_attestation){
			.json = r->system_baselines[i].json };
	up.system_baselines[k] = (struct receipt_attestation){ .json = attestation };
	up.nr_system_baselines = k + 1;
	doc = receipt_to_json(&up);
	free(up.reps);
	free(up.system_baselines);

	if (receipt_attached_check(doc, &k, g, &check, what, out, e) < 0) {
		json_decref(doc);
		return NULL;
	}
	receipt_release(&check);
	return doc;
}
