#ifndef FAK_ATTESTATION_SIMULATED_H
#define FAK_ATTESTATION_SIMULATED_H
/* Test seams: the environment variables through which tests point fak's
 * sampler at another machine's files or change how it samples. Evidence
 * sealed under one is not evidence of this host: `fak bench experiment`
 * refuses them, and `fak bench system-baseline` seals their names in the
 * attestation's `simulated` member, which --verify reports and every
 * reader of receipts (attach, compare, gate, promotion) refuses. */
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/err.h"
#include "base/json.h"

#define SIM_MAX 4		/* seams in the table, with room */
#define SIM_NAME_MAX 32
#define SIM_TEXT_MAX (SIM_MAX * (SIM_NAME_MAX + 2))

struct simulated {
	char names[SIM_MAX][SIM_NAME_MAX];	/* table order */
	size_t nr;			/* 0: nothing simulated (the key is absent) */
};

/* The seams set (to anything, even "") in this process's environment. */
void simulated_from_env(struct simulated *s);
/* The first seam set in the environment, or NULL. Static storage. */
const char *simulated_env_first(void);
/* ["FAK_PROC_ROOT", ...] (new reference). */
json_t *simulated_to_json(const struct simulated *s);
/* Strict inverse of simulated_to_json (borrowed): a non-empty array of
 * known seam names, in table order, each once. */
int simulated_decode(const json_t *v, const struct jpath *at, struct simulated *s, struct err *e);
/* "FAK_PROC_ROOT, FAK_SYS_ROOT" into out; "" when nothing is simulated. */
void simulated_join(const struct simulated *s, char *out, size_t cap);

#endif
