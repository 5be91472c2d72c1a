/* One metric compared: rank test, shift and interval, the verdict against a
 * noise threshold, and the repetitions a shift of the observed size needs. */
#include "stats/stats.h"
#include "stats/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* More repetitions per arm than this are not a plan. */
#define MAX_PLANNED_REPETITIONS 1e9

#define STR_(x) #x
#define STR(x) STR_(x)

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_FASTER:
		return "faster";
	case STATS_SLOWER:
		return "slower";
	case STATS_EQUIVALENT:
		return "equivalent";
	case STATS_UNDECIDED:
		break;
	}
	return "undecided";
}

size_t stats_min_repetitions(double level)
{
	double c = 1;	/* C(2n, n) */
	size_t n = 1;

	/* the widest interval of n + n values, [min diff, max diff], has level
	 * 1 - 2 / C(2n, n); C overflows to infinity (level 1) by n = 520, so the
	 * bound only stops a level that is not below 1 */
	for (; n < 1000; n++) {
		c = c * (double)(2 * n) * (double)(2 * n - 1) / ((double)n * (double)n);
		if (1 - 2 / c >= level * (1 - 1e-12))
			break;
	}
	return n;
}

long long stats_repetitions_needed(double shift, double threshold, double spread, double level,
				   const char **reason)
{
	double z = stats_normal_quantile(1 - (1 - level) / 2),
	       margin = fabs(fabs(shift) - threshold);
	double n, floor_n = (double)stats_min_repetitions(level);

	*reason = NULL;
	if (!(margin > 0)) {
		*reason = "the observed shift sits on the practical threshold: no number of "
			  "repetitions is expected to decide it";
		return 0;
	}
	if (isnan(spread)) {
		*reason = "one repetition per arm gives no spread to plan from";
		return 0;
	}
	if (!(spread > 0)) {
		*reason = "the repetitions have no spread, so normal theory gives no number";
		return 0;
	}
	n = ceil(2 * M_PI / 3 * (z * spread / margin) * (z * spread / margin));
	if (!(n <= MAX_PLANNED_REPETITIONS)) {
		*reason = "the shift is too close to the practical threshold: more than a "
			  "billion repetitions per arm";
		return 0;
	}
	return (long long)(n > floor_n ? n : floor_n);
}

/* The natural logarithm of every value (caller frees); fails naming the
 * first value that is not positive. */
static int logs_of(const char *what, const double *v, size_t n, double **out, struct err *e)
{
	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return err_set(e, "%s: value %zu is not positive: a shift is a ratio of "
					  "positive values", what, i);
	*out = xmalloc(xmul(n, sizeof(**out)));
	for (size_t i = 0; i < n; i++)
		(*out)[i] = log(v[i]);
	return 0;
}

/* The pooled sample standard deviation of two arms (NAN for one value per
 * arm), from their population deviations. */
static double pooled_spread(const struct stats *b, const struct stats *c)
{
	if (b->n + c->n <= 2)
		return NAN;
	return sqrt(((double)b->n * b->stddev * b->stddev + (double)c->n * c->stddev * c->stddev) /
		    (double)(b->n + c->n - 2));
}

/* The verdict of an interval [lo, hi] of log gains against the threshold
 * g = log(1 + T / 100). */
static enum stats_verdict decide(const struct stats_shift *sh, double lo, double hi, double g)
{
	if (!sh->attained || !(sh->level > 0))
		return STATS_UNDECIDED;
	if (lo > g)
		return STATS_FASTER;
	if (hi < -g)
		return STATS_SLOWER;
	if (lo >= -g && hi <= g)
		return STATS_EQUIVALENT;
	return STATS_UNDECIDED;
}

int stats_compare(const double *base, size_t nb, const double *cand, size_t nc,
		  double threshold_percent, enum stats_better better, double level,
		  struct stats_comparison *out, struct err *e)
{
	double median, spread, lo, hi, g, *lb = NULL, *lc = NULL, *cdf = NULL;
	struct stats slb, slc;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(threshold_percent >= 0) || !isfinite(threshold_percent))
		return err_set(e, "practical threshold: must be a finite non-negative percentage");
	TRY(stats_check_values("baseline", base, nb, e));
	TRY(stats_check_values("candidate", cand, nc, e));
	if (logs_of("baseline", base, nb, &lb, e) < 0 ||
	    logs_of("candidate", cand, nc, &lc, e) < 0) {
		free(lb);
		return -1;
	}
	/* the rank test and the interval share the tie-free distribution; the
	 * test reads the values themselves (the logarithm keeps their order,
	 * but could round two close values to one), the shift their logs */
	if (stats_mw_exact(nb, nc))
		cdf = stats_mw_tiefree_cdf(nb, nc);
	rc = stats_rank_test_with(base, nb, cand, nc, cdf, &out->test, e);
	if (rc == 0)
		rc = stats_shift_with(lb, nb, lc, nc, level, cdf, &out->shift, e);
	free(cdf);
	stats_compute(lb, nb, &slb);
	stats_compute(lc, nc, &slc);
	free(lb);
	free(lc);
	if (rc < 0)
		return -1;
	stats_compute(base, nb, &out->baseline);
	stats_compute(cand, nc, &out->candidate);
	median = out->baseline.median;
	out->threshold_percent = threshold_percent;
	g = log1p(threshold_percent / 100);
	out->threshold_down_percent = expm1(-g) * 100;
	out->better = better;
	out->shift_percent = expm1(out->shift.estimate) * 100;
	out->lower_percent = expm1(out->shift.lower) * 100;
	out->upper_percent = expm1(out->shift.upper) * 100;
	out->shift_units = expm1(out->shift.estimate) * median;
	out->lower_units = expm1(out->shift.lower) * median;
	out->upper_units = expm1(out->shift.upper) * median;
	spread = pooled_spread(&slb, &slc);
	if (!stats_finite(&out->baseline) || !stats_finite(&out->candidate) ||
	    !isfinite(out->shift_percent) || !isfinite(out->lower_percent) ||
	    !isfinite(out->upper_percent) || !isfinite(out->shift_units) ||
	    !isfinite(out->lower_units) || !isfinite(out->upper_units) ||
	    !(isfinite(spread) || isnan(spread)))
		return err_set(e, "derived statistics are not finite");
	/* the interval's ends as log gains: positive is better */
	lo = better == STATS_HIGHER_IS_BETTER ? out->shift.lower : -out->shift.upper;
	hi = better == STATS_HIGHER_IS_BETTER ? out->shift.upper : -out->shift.lower;
	out->verdict = decide(&out->shift, lo, hi, g);
	if (out->verdict == STATS_UNDECIDED) {
		out->repetitions_needed = stats_repetitions_needed(
			out->shift.estimate, g, spread, level, &out->repetitions_reason);
	} else {
		out->repetitions_reason = "the verdict is decided";
	}
	return 0;
}

int stats_plan_looks(size_t first, size_t max, double level, struct stats_looks *out,
		     struct err *e)
{
	size_t reps[STATS_MAX_LOOKS], nr = 0;
	bool keep[STATS_MAX_LOOKS];

	memset(out, 0, sizeof(*out));
	if (first == 0 || max < first)
		return err_set(e, "sequential looks: want 1 <= first (%zu) <= max (%zu)", first,
			       max);
	if (!(level > 0 && level < 1))
		return err_set(e, "sequential looks: the level must lie strictly between 0 and 1");
	for (size_t n = first; nr < STATS_MAX_LOOKS - 1 && n < max; n = n * 2)
		reps[nr++] = n;
	reps[nr++] = max;
	for (size_t i = 0; i < nr; i++)
		keep[i] = true;
	/* drop the early looks that cannot reach their level, then split the
	 * error again among the rest, until nothing changes: each pass drops a
	 * look or ends, and the last look is never dropped (with half of the
	 * error or all of it, it needs no more than a single look would) */
	for (;;) {
		size_t early = 0;
		bool dropped = false;

		for (size_t i = 0; i + 1 < nr; i++)
			early += keep[i];
		for (size_t i = 0; i < nr; i++) {
			double err = i + 1 == nr ? (early ? (1 - level) / 2 : 1 - level)
						 : (1 - level) / 2 / (double)early;

			out->level[i] = 1 - err;
			if (i + 1 < nr && keep[i] &&
			    stats_min_repetitions(out->level[i]) > reps[i]) {
				keep[i] = false;
				dropped = true;
			}
		}
		if (!dropped)
			break;
	}
	for (size_t i = 0, j = 0; i < nr; i++) {
		if (!keep[i])
			continue;
		out->reps[j] = reps[i];
		out->level[j] = out->level[i];
		out->nr = ++j;
	}
	return 0;
}

double stats_level_for_attempts(double level, size_t attempts)
{
	return 1 - (1 - level) / (double)(attempts ? attempts : 1);
}

const char *stats_method(const struct stats_comparison *c)
{
	if (!c->test.exact)
		return "normal approximation with tie and continuity correction (more than "
		       STR(STATS_EXACT_MAX_PAIRS) " baseline x candidate pairs)";
	if (c->test.ties)
		return "exact permutation distribution of the mid-rank statistic (the values hold "
		       "ties); interval from the tie-free distribution, so its level is a lower "
		       "bound";
	return "exact Mann-Whitney distribution";
}
