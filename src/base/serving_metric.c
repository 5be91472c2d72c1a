#include "base/serving_metric.h"

#include <string.h>

#define LAT(s) { s "_mean_ms", false }, { s "_p50_ms", false }, { s "_p90_ms", false }, \
	{ s "_p95_ms", false }, { s "_p99_ms", false }

const struct serving_metric serving_metrics[SERVING_NR_METRICS] = {
	LAT("ttft"), LAT("tpot"), LAT("itl"), LAT("e2el"),
	{ "request_throughput", true },
	{ "output_tokens_per_second", true },
	{ "total_tokens_per_second", true },
	{ "prefix_hit_rate", true },
};

int serving_metric_find(const char *name)
{
	for (int i = 0; i < SERVING_NR_METRICS; i++)
		if (!strcmp(serving_metrics[i].name, name))
			return i;
	return -1;
}

const char *serving_direction_name(bool higher_is_better)
{
	return higher_is_better ? "higher" : "lower";
}
