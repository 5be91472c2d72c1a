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
 *   differences, k the largest whose level 1 - 2 P(U <= k - 1) (tie-free
 *   null distribution) is at least the requested one: R's wilcox.test
 *   conf.int rule. With ties the same order statistics are used; the
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

/* The level of the decision's interval: two-sided 90%, so that a false
 * `faster` (or a false `slower`) has probability at most 5%, and an
 * `equivalent` is Schuirmann's two one-sided tests at 5% (docs/receipts.md,
 * "The decision"). Repeated looks and attempts widen it (stats_plan_looks,
 * stats_level_for_attempts). */
#define STATS_DECISION_LEVEL 0.90

struct stats_shift {
	double estimate;	/* median of all cand_i - base_j */
	double lower, upper;	/* d(k) and d(nb*nc + 1 - k) */
	size_t k;		/* 1-based rank of the lower bound */
	double level;		/* 1 - 2 P(U <= k - 1), tie-free null distribution */
	double requested_level;	/* what the caller asked for */
	bool attained;		/* level >= requested_level; false: too few values,
				 * the widest interval, which decides nothing */
	bool exact;		/* level exact; false: normal approximation */
};

/* min_level in (0, 1): the narrowest interval whose level is at least
 * min_level; when even the widest (k = 1) is below it, that one with
 * attained false. Fails when an arm is empty, a value or a pairwise
 * difference is not finite, or min_level is out of range. */
int stats_shift(const double *base, size_t nb, const double *cand, size_t nc, double min_level,
		struct stats_shift *out, struct err *e);

/* The k-th smallest (1-based, 1 <= k <= nb * nc) of the differences
 * cand_i - base_j as computed in double, found without storing them:
 * O((nb + nc) * 64). base and cand must be sorted ascending, every
 * difference finite. -0 is returned as +0. */
double stats_kth_difference(const double *base, size_t nb, const double *cand, size_t nc, size_t k);

/* ---- the decision ---------------------------------------------------------- */

enum stats_better { STATS_HIGHER_IS_BETTER, STATS_LOWER_IS_BETTER };
/* The one verdict (docs/receipts.md, "The decision"), from the interval of
 * the ratio candidate / baseline and the practical threshold T as a factor
 * g = 1 + T / 100, the interval's ends read as gains (the ratio when higher
 * is better, its reciprocal when lower is better):
 *   faster      the whole interval is a gain beyond g     (near end > g)
 *   slower      the whole interval is a loss beyond g     (far end < 1/g)
 *   equivalent  the whole interval lies within [1/g, g]
 *   undecided   anything else, and always when the interval did not reach
 *               its level (too few repetitions) */
enum stats_verdict { STATS_UNDECIDED, STATS_FASTER, STATS_SLOWER, STATS_EQUIVALENT };

/* "undecided", "faster", "slower", "equivalent" */
const char *stats_verdict_name(enum stats_verdict v);

/* Smallest number of repetitions per arm for which an exact two-sided
 * interval of n + n values reaches `level` (in (0, 1)) at all: 3 for 0.90,
 * 4 for 0.95. */
size_t stats_min_repetitions(double level);

/* Repetitions per arm at which a `level` interval around a shift of this
 * size is expected to decide (both in the units of the values; stats_compare
 * passes log ratios): normal theory, the Hodges-Lehmann estimate having
 * efficiency 3/pi against the pooled standard deviation `spread`, the
 * margin being |shift| - threshold (to clear the threshold) or threshold -
 * |shift| (to fit within it):
 * n = ceil(2 pi / 3 * (z * spread / margin)^2), never below
 * stats_min_repetitions(level). Returns 0 and sets *reason (a static
 * sentence) when no number can be given: the shift sits on the threshold,
 * the spread is zero or unknown, or the number is absurd. */
long long stats_repetitions_needed(double shift, double threshold, double spread, double level,
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
	/* the practical threshold is a ratio: a change beyond the factor
	 * 1 + threshold_percent / 100 either way, i.e. above +threshold_percent
	 * or below threshold_down_percent = 100 / (1 + threshold_percent / 100)
	 * - 100 (+2% and -1.96% for 2) */
	double threshold_percent, threshold_down_percent;
	enum stats_better better;
	enum stats_verdict verdict;
	long long repetitions_needed;	/* per arm; 0 with repetitions_reason set */
	const char *repetitions_reason;	/* static; NULL when a number is given */
};

/* The rank test of the values, and the shift at `level` (at least; see
 * stats_shift) of their logarithms: the Hodges-Lehmann estimate and
 * interval of the ratio candidate / baseline (R: exp of
 * wilcox.test(log(cand), log(base), conf.int = TRUE, conf.level = level)),
 * so rates and times measured together give reciprocal ratios and a
 * percentage never passes -100%; then the verdict (enum stats_verdict).
 * Repetitions needed plan an undecided verdict on the same log scale (the
 * pooled spread of the logs against log(1 + threshold / 100)).
 * Fails as the functions above do, and when a value is not positive (it has
 * no logarithm), the threshold is negative or not finite, or a derived
 * number is not finite. */
int stats_compare(const double *base, size_t nb, const double *cand, size_t nc,
		  double threshold_percent, enum stats_better better, double level,
		  struct stats_comparison *out, struct err *e);

/* ---- sequential looks and attempts ----------------------------------------- */

/* The most looks a sequential experiment plans. */
#define STATS_MAX_LOOKS 32

/* The looks of `fak bench experiment --until-decisive`, fixed before the
 * first run (docs/receipts.md, "Running until decisive"): repeated
 * confidence intervals (Jennison and Turnbull, Group Sequential Methods
 * with Applications to Clinical Trials, 2000, ch. 9) whose error is split
 * by Bonferroni, so the chance that any look's interval misses the true
 * shift is at most 1 - level whatever the data do. Looks at first,
 * 2 first, 4 first, ... repetitions per arm, and at max; the last look gets
 * half of the error, the earlier ones share the other half equally; a look
 * whose size cannot reach its level is dropped before the split (it could
 * never decide), which depends on the sizes only. */
struct stats_looks {
	size_t nr;
	size_t reps[STATS_MAX_LOOKS];	/* per arm, increasing; the last is max */
	double level[STATS_MAX_LOOKS];	/* each look's interval level */
};

/* Fails when first is 0, max < first, or level is not in (0, 1). */
int stats_plan_looks(size_t first, size_t max, double level, struct stats_looks *out,
		     struct err *e);

/* The level that keeps the error of the best of `attempts` attempts within
 * 1 - level (Bonferroni): 1 - (1 - level) / attempts (attempts 0 counts
 * as 1). */
double stats_level_for_attempts(double level, size_t attempts);

/* One sentence naming the method behind p and the level of c. Static. */
const char *stats_method(const struct stats_comparison *c);

#endif
