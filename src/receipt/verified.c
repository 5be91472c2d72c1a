/* Verify once, carry the facts: a receipt's attestations are verified when
 * it is decoded, and every reader takes the verdict, the facts and the
 * decoded attestation from the receipt (issue 28). */
#include "receipt/verified.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void receipt_attestation_verify(struct receipt_attestation *a, const json_t *json)
{
	struct err e;

	memset(a, 0, sizeof(*a));
	a->json = json;
	if (!json)
		return;
	a->att = xmalloc(sizeof(*a->att));
	if (attestation_check_decode(json, a->att, &e) < 0) {
		free(a->att);
		a->att = NULL;
		a->why = xstrdup(e.msg);
		return;
	}
	attestation_facts_of(a->att, &a->facts);
	a->verified = true;
}

void receipt_attestation_release(struct receipt_attestation *a)
{
	free(a->att);
	free(a->why);
	a->att = NULL;
	a->why = NULL;
	a->verified = false;
}

void receipt_verify_attestations(struct receipt *r)
{
	for (size_t i = 0; i < r->nr_system_baselines; i++)
		receipt_attestation_verify(&r->system_baselines[i], r->system_baselines[i].json);
	if (r->has_experiment)
		receipt_attestation_verify(&r->experiment.quality_sealed,
					   r->experiment.quality_attestation);
}

void receipt_release_attestations(struct receipt *r)
{
	for (size_t i = 0; i < r->nr_system_baselines && r->system_baselines; i++)
		receipt_attestation_release(&r->system_baselines[i]);
	receipt_attestation_release(&r->experiment.quality_sealed);
}
