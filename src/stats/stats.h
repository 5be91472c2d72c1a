#ifndef FAK_STATS_STATS_H
#define FAK_STATS_STATS_H
/* Comparison statistics: pure functions over arrays of doubles. Nothing is
 * trimmed or dropped (every value given is counted), inputs are never
 * modified, nothing prints, and the same input gives the same bits.
 *
 * Two samples throughout: `base` (the baseline arm, nb values) and `cand`
 * (the candidate arm, nc values). stats_shift's shift is candidate minus
 * baseline on the scale of the values it is given (R's
 * wilcox.test(x = cand, y = base) estimate); stats_compare gives it the
 * logarithms, so a comparison's shift is a ratio.
 *
 * Methods (docs/receipts.md explains them in plain words):
 * - Mann-Whitney U of the candidate: the number of (candidate, baseline)
 *   pairs with candidate > baseline, plus one half per pair that is equal.
 * - Its null distribution is exact: every assignment of the nb + nc pooled
 *   values to the two arms is equally likely. Without ties this is R's
 *   dwilcox; with ties it is the exact permutation distribution of the
 *   mid-rank statistic (U in half units), computed in probability form so
 *   nothing overflows. Beyond STATS_EXACT_MAX_PAIRS pairs the normal
 *   approximation with tie and continuity correction is used instead and
 *   `exact` says so.
 * - Two-sided p = min(1, 2 * min(P(U <= u), P(U >= u))), R's exact rule.
 * - Hodges-Lehmann estimate: the median of the nb * nc differences
 *   cand_i - base_j. Its interval is [d(k), d(nb*nc + 1 - k)] of the sorted
 *   differences, k chosen from the tie-free null distribution so that the
 *   level 1 - 2 P(U <= k - 1) is the highest attainable one not above the
 *   requested maximum. With ties the same order statistics are used; the
 *   closed interval then covers the true shift with at least that level. */
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* ---- descriptive ---------------------------------------------------------- */

struct stats {
	size_t n;
	double mean, median, min, max;
	double stddev;		/* population (divide by n) */
	double noise_percent;	/* stddev / mean * 100; INFINITY when mean is 0 and n > 0 */
};

/* All zero for n == 0. */
void stats_compute(const double *v, size_t n, struct stats *out);

/* Every member of s is finite (the JSON writer refuses anything else). */
bool stats_finite(const struct stats *s);

/* ---- Mann-Whitney rank test ----------------------------------------------- */

/* Largest nb * nc for which the exact distributions are computed (measured:
 * 100 + 100 with ties takes well under 100 ms; see docs/receipts.md). */
#define STATS_EXACT_MAX_PAIRS 10000

/* Exact null distribution of the Mann-Whitney U of nb baseline and nc
 * candidate values whose pooled sorted values form tie groups of the given
 * sizes, in sorted order (groups NULL: nb + nc groups of one, no ties).
 * The statistic is counted in units of 1/scale: scale is 2 when a group has
 * more than one value (U is then a multiple of 1/2), else 1. On success
 * *pmf (owned by the caller, free()) has *len = scale * nb * nc + 1 entries,
 * (*pmf)[i] = P(U = i / scale). Fails for nb or nc zero, group sizes that do
 * not add up to nb + nc, or nb * nc above STATS_EXACT_MAX_PAIRS. */
int stats_mw_pmf(size_t nb, size_t nc, const size_t *groups, size_t nr_groups, double **pmf,
		 size_t *len, unsigned *scale, struct err *e);

struct stats_rank_test {
	double u;	/* Mann-Whitney U of the candidate (a multiple of 1/2) */
	double p;	/* two-sided p-value */
	bool ties;	/* the pooled values hold at least one tie */
	bool exact;	/* exact distribution; false: normal approximation */
};

/* Fails when an arm is empty or a value is not finite. */
int stats_rank_test(const double *base, size_t nb, const double *cand, size_t nc,
		    struct stats_rank_test *out, struct err *e);

/* ---- Hodges-Lehmann shift and its interval -------------------------------- */

/* The level the comparison asks for: the highest attainable one not above. */
#define STATS_MAX_LEVEL 0.95

struct stats_shift {
	double estimate;	/* median of all cand_i - base_j */
	double lower, upper;	/* d(k) and d(nb*nc + 1 - k) */
	size_t k;		/* 1-based rank of the lower bound */
	double level;		/* 1 - 2 P(U <= k - 1), tie-free null distribution */
	bool exact;		/* level exact; false: normal approximation */
};

/* max_level in (0, 1); when even the narrowest interval (k as large as
 * (nb * nc + 1) / 2) has a level above it, that one. Fails when an arm is empty, a value or a
 * pairwise difference is not finite, or max_level is out of range. */
int stats_shift(const double *base, size_t nb, const double *cand, size_t nc, double max_level,
		struct stats_shift *out, struct err *e);

/* The k-th smallest (1-based, 1 <= k <= nb * nc) of the differences
 * cand_i - base_j as computed in double, found without storing them:
 * O((nb + nc) * 64). base and cand must be sorted ascending, every
 * difference finite. -0 is returned as +0. */
double stats_kth_difference(const double *base, size_t nb, const double *cand, size_t nc, size_t k);

/* ---- verdict and planning ------------------------------------------------- */

enum stats_better { STATS_HIGHER_IS_BETTER, STATS_LOWER_IS_BETTER };
enum stats_verdict { STATS_NO_CHANGE, STATS_FASTER, STATS_SLOWER };

/* "no detectable change", "faster", "slower" */
const char *stats_verdict_name(enum stats_verdict v);

/* Smallest number of repetitions per arm for which an exact two-sided
 * interval can reach max_level (in (0, 1)) at all (4 for 0.95: 3 + 3 gives
 * at most 90%). */
size_t stats_min_repetitions(double max_level);

/* Repetitions per arm at which a STATS_MAX_LEVEL interval around a shift of
 * this size is expected to clear the threshold (both in the units of the
 * values; stats_compare passes log ratios): normal theory, the
 * Hodges-Lehmann estimate having efficiency 3/pi against the pooled
 * standard deviation `spread`, i.e.
 * n = ceil(2 pi / 3 * (z * spread / (|shift| - threshold))^2), never below
 * stats_min_repetitions(STATS_MAX_LEVEL). Returns 0 and sets *reason (a
 * static sentence) when no number can be given: the shift is within the
 * threshold, the spread is zero or unknown, or the number is absurd. */
long long stats_repetitions_needed(double shift, double threshold, double spread,
				   const char **reason);

/* Everything the comparison of one metric reports. */
struct stats_comparison {
	struct stats baseline, candidate;	/* of the values */
	struct stats_rank_test test;		/* of the values */
	/* of log(candidate) against log(baseline): estimate, lower and upper
	 * are logarithms of the ratio candidate / baseline */
	struct stats_shift shift;
	/* those ratios as changes in percent: (exp(x) - 1) * 100, never at or
	 * below -100 */
	double shift_percent, lower_percent, upper_percent;
	/* the same changes applied to the baseline median, in the values'
	 * unit: median * (exp(x) - 1) */
	double shift_units, lower_units, upper_units;
	/* the noise threshold is a ratio: a change beyond the factor
	 * 1 + threshold_percent / 100 either way, i.e. above +threshold_percent
	 * or below threshold_down_percent = 100 / (1 + threshold_percent / 100)
	 * - 100 (+2% and -1.96% for 2) */
	double threshold_percent, threshold_down_percent;
	enum stats_better better;
	enum stats_verdict verdict;
	long long repetitions_needed;	/* per arm; 0 with repetitions_reason set */
	const char *repetitions_reason;	/* static; NULL when a number is given */
};

/* The rank test of the values, and the shift at STATS_MAX_LEVEL of their
 * logarithms: the Hodges-Lehmann estimate and interval of the ratio
 * candidate / baseline (R: exp of wilcox.test(log(cand), log(base),
 * conf.int = TRUE)), so rates and times measured together give reciprocal
 * ratios and a percentage never passes -100%. The verdict compares the
 * interval with the noise threshold as a factor: `faster` when the whole
 * interval is beyond 1 + threshold / 100 in the good direction (a ratio
 * above it when higher is better, below its reciprocal when lower is
 * better), `slower` when beyond it in the bad direction, otherwise no
 * detectable change (always when the level is 0: one value per arm gives
 * a point). Repetitions needed plan on the same log scale (the pooled
 * spread of the logs against log(1 + threshold / 100)).
 * Fails as the functions above do, and when a value is not positive (it has
 * no logarithm), the threshold is negative or not finite, or a derived
 * number is not finite. */
int stats_compare(const double *base, size_t nb, const double *cand, size_t nc,
		  double threshold_percent, enum stats_better better, struct stats_comparison *out,
		  struct err *e);

/* One sentence naming the method behind p and the level of c. Static. */
const char *stats_method(const struct stats_comparison *c);

#endif
