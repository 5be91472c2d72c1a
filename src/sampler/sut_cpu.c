/* The SUT's sampled CPU, folded member by member: shared by the census of
 * each OS (census.c, census_darwin.c). */
#include "sampler/census.h"

#include <stdio.h>

void sut_cpu_fold(struct sut_cpu *t, uint32_t *reads, uint64_t *first_ns, uint64_t last_ns)
{
	if (*reads >= 2 && last_ns >= *first_ns) {
		t->ns += last_ns - *first_ns;
		*first_ns = last_ns;
		*reads = 1;
	} else if (*reads < 2 && !t->incomplete) {
		t->incomplete = true;
		snprintf(t->reason, sizeof(t->reason),
			 "a SUT process was seen in fewer than 2 censuses; "
			 "complete process-tree CPU attribution unavailable");
	}
}

bool sut_cpu_total(struct sut_cpu *t, bool root_seen, uint64_t *ns,
		   char reason[ATTESTATION_TEXT_MAX])
{
	if (!root_seen) {
		t->incomplete = true;
		snprintf(t->reason, sizeof(t->reason),
			 "the SUT root was never observed; "
			 "complete process-tree CPU attribution unavailable");
	}
	if (t->incomplete) {
		attestation_copy(reason, ATTESTATION_TEXT_MAX, t->reason);
		return false;
	}
	*ns = t->ns;
	return true;
}
