#ifndef FAK_BASE_SERVING_METRIC_H
#define FAK_BASE_SERVING_METRIC_H
/* The metrics of a serving run as receipts, envelopes and attestations name
 * them (docs/serving.md, "The serving mode"): the latencies of vLLM's
 * `vllm bench serve` (TTFT, TPOT, ITL, E2EL) at mean, p50, p90, p95 and p99
 * in milliseconds, lower is better; the throughputs and the prefix-hit
 * rate, higher is better. One table: the graph checks an envelope's primary
 * metric against it, the sampler seals a run's values in its order, the
 * decision reads each metric's direction from it. */
#include <stdbool.h>
#include <stddef.h>

#define SERVING_NR_METRICS 24

struct serving_metric {
	const char *name;	/* "ttft_p95_ms", "output_tokens_per_second", ... */
	bool higher_is_better;
};

extern const struct serving_metric serving_metrics[SERVING_NR_METRICS];

/* The index of name in serving_metrics, or -1. */
int serving_metric_find(const char *name);
/* "lower" or "higher": how envelopes and receipts write a direction. */
const char *serving_direction_name(bool higher_is_better);

#endif
