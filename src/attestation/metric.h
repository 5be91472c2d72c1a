#ifndef FAK_ATTESTATION_METRIC_H
#define FAK_ATTESTATION_METRIC_H
/* A measured value of the attestation, or the reason it is unknown. */
#include <stdbool.h>

#define ATTESTATION_SOURCE_MAX 96	/* bytes, NUL included */
#define ATTESTATION_TEXT_MAX 192
/* A finding's detail and a run's metrics error: room for a whole message
 * (a list of llama-bench results), so none is cut in the usual case */
#define ATTESTATION_DETAIL_MAX 1024

/* One measured value, or the reason it could not be measured (never a 0
 * standing in for "unknown"). The unit is fixed per field. */
struct metric {
	bool available;
	double value;			/* finite, >= 0 when available */
	char source[ATTESTATION_SOURCE_MAX];	/* set iff available */
	char reason[ATTESTATION_TEXT_MAX];	/* set iff unavailable */
};

#endif
