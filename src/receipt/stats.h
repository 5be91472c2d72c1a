#ifndef FAK_RECEIPT_STATS_H
#define FAK_RECEIPT_STATS_H
/* Descriptive statistics over one side's tokens-per-second values. Nothing
 * is trimmed or dropped: every value given is counted. */
#include <stdbool.h>
#include <stddef.h>

struct stats {
	size_t n;
	double mean, median, min, max;
	double stddev;		/* population (divide by n) */
	double noise_percent;	/* stddev / mean * 100; INFINITY when mean is 0 and n > 0 */
};

/* All zero for n == 0. v is not modified. */
void stats_compute(const double *v, size_t n, struct stats *out);

/* Every member of s is finite (the JSON writer refuses anything else). */
bool stats_finite(const struct stats *s);

/* Smallest two-sided p-value an exact rank test (Mann-Whitney U) can reach
 * with n1 and n2 observations: 2 / C(n1 + n2, n1), capped at 1. It depends
 * on the design only, never on the data. */
double stats_min_rank_p(size_t n1, size_t n2);

#endif
