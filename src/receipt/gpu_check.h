#ifndef FAK_RECEIPT_GPU_CHECK_H
#define FAK_RECEIPT_GPU_CHECK_H
/* The criterion's optional GPU policy (graph/graph.h struct gpu_policy)
 * applied to sealed GPU sections (attestation/gpu_section.h), as docs/graph.md "GPU
 * policy" states it: failed readings, unreadable readings unless allowed, coverage
 * below the minimum, disqualifying clock-event reasons, SM and memory
 * clock drift from the target (else the mean) beyond the tolerance. */
#include <stdbool.h>

#include "base/strbuf.h"
#include "graph/graph.h"
#include "receipt/receipt.h"
#include "attestation/gpu_section.h"

/* 0 when the section qualifies; -1 with the first violation appended to
 * why (device, reason, clocks). present false: the attestation has no GPU
 * section. */
int gpu_check_section(const struct gpu_policy *gp, bool present, const struct gpu_section *s,
		      struct strbuf *why);

/* Every sealed run of the receipt; -1 with "<side> run N (arm kind index):
 * <violation>" appended to why for the first one that does not qualify. */
int gpu_check_receipt(const struct gpu_policy *gp, const struct receipt *rc, const char *side,
		      struct strbuf *why);

/* Each arm's GPU clocks over its sealed runs (SM and memory minimum,
 * maximum and reading-weighted mean, clock-event reasons, status), or NULL
 * when no run of either arm read a GPU device. New reference. */
json_t *gpu_clocks_json(const struct receipt *base, const struct receipt *cand);

#endif
