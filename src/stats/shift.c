/* The Hodges-Lehmann shift and its distribution-free interval: order
 * statistics of the pairwise differences, found without storing them. */
#include "stats/stats.h"
#include "stats/internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* Doubles mapped to unsigned integers in the same order (-0 just below +0),
 * so the search below can bisect the real line exactly. */
static uint64_t key_of(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b >> 63 ? ~b : b | (UINT64_C(1) << 63);
}

static double value_of(uint64_t k)
{
	uint64_t b = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/* Number of pairs with cand_i - base_j <= v. For a fixed candidate the
 * difference falls as the baseline grows, and the first baseline j with a
 * difference <= v only moves right as the candidate grows (rounding is
 * monotone), so one pass over both sorted arms counts them all. */
static size_t count_le(const double *base, size_t nb, const double *cand, size_t nc, double v)
{
	size_t count = 0, j = 0;

	for (size_t i = 0; i < nc; i++) {
		while (j < nb && !(cand[i] - base[j] <= v))
			j++;
		count += nb - j;
	}
	return count;
}

double stats_kth_difference(const double *base, size_t nb, const double *cand, size_t nc, size_t k)
{
	uint64_t lo = key_of(cand[0] - base[nb - 1]), hi = key_of(cand[nc - 1] - base[0]);

	/* the smallest double v with at least k differences <= v is the k-th
	 * difference itself: every count step happens at a difference */
	if (count_le(base, nb, cand, nc, value_of(lo)) >= k)
		return value_of(lo) + 0.0;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (count_le(base, nb, cand, nc, value_of(mid)) >= k)
			hi = mid;
		else
			lo = mid;
	}
	return value_of(hi) + 0.0;
}

double stats_normal_quantile(double p)
{
	double lo = -40, hi = 40;

	/* bisection: the cdf is monotone, and 200 halvings reach the spacing
	 * of doubles */
	for (int it = 0; it < 200; it++) {
		double mid = (lo + hi) / 2;

		if (stats_normal_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* The smallest q with P(U <= q) >= alpha_half, by the normal approximation
 * with continuity correction (sd: tie-free standard deviation of U). */
static size_t normal_quantile(double mn, double sd, double alpha_half)
{
	double q = ceil(mn / 2 - 0.5 + stats_normal_quantile(alpha_half) * sd);

	q = q < 0 ? 0 : q;
	/* settle the integer against the same cdf the level is reported from */
	while (q > 0 && stats_normal_cdf((q - 1 + 0.5 - mn / 2) / sd) >= alpha_half)
		q--;
	while (stats_normal_cdf((q + 0.5 - mn / 2) / sd) < alpha_half)
		q++;
	return (size_t)q;
}

int stats_shift_with(const double *base, size_t nb, const double *cand, size_t nc,
		     double min_level, const double *tiefree_cdf, struct stats_shift *out,
		     struct err *e)
{
	double *b, *c, alpha_half = (1 - min_level) / 2;
	size_t mn, qmax;

	memset(out, 0, sizeof(*out));
	TRY(stats_check_values("baseline", base, nb, e));
	TRY(stats_check_values("candidate", cand, nc, e));
	if (!(min_level > 0 && min_level < 1))
		return err_set(e, "shift interval: the level must lie strictly between 0 and 1");
	b = stats_sorted_copy(base, nb);
	c = stats_sorted_copy(cand, nc);
	if (!isfinite(c[0] - b[nb - 1]) || !isfinite(c[nc - 1] - b[0])) {
		free(b);
		free(c);
		return err_set(e, "shift interval: a difference between the arms is not finite");
	}
	mn = xmul(nb, nc);
	/* k beyond (mn + 1) / 2 would cross the bounds over */
	qmax = (mn - 1) / 2;
	out->estimate = mn % 2 ? stats_kth_difference(b, nb, c, nc, mn / 2 + 1) :
				 stats_kth_difference(b, nb, c, nc, mn / 2) / 2 +
					 stats_kth_difference(b, nb, c, nc, mn / 2 + 1) / 2;
	out->exact = stats_mw_exact(nb, nc);
	out->requested_level = min_level;
	/* R's rule (wilcox.test, conf.int): k is the smallest q with
	 * P(U <= q) >= alpha / 2 (a hair of slack so a tail that is exactly
	 * alpha / 2 on paper is not lost to rounding), and at least 1; the
	 * level 1 - 2 P(U <= k - 1) is then at least min_level, unless even
	 * the widest interval (k = 1) is below it, which `attained` says */
	if (out->exact) {
		double *own = tiefree_cdf ? NULL : stats_mw_tiefree_cdf(nb, nc);
		const double *cdf = tiefree_cdf ? tiefree_cdf : own;
		size_t q = 0;

		while (q < qmax && cdf[q] < alpha_half * (1 - 1e-12))
			q++;
		out->k = q ? q : 1;
		out->level = 1 - 2 * cdf[out->k - 1];
		free(own);
	} else {
		double sd = sqrt((double)mn * (double)(nb + nc + 1) / 12);
		size_t q = normal_quantile((double)mn, sd, alpha_half);

		q = q < qmax ? q : qmax;
		out->k = q ? q : 1;
		out->level = 1 - 2 * stats_normal_cdf(((double)out->k - 1 + 0.5 - (double)mn / 2) /
						      sd);
	}
	out->attained = out->level >= min_level * (1 - 1e-12);
	out->lower = stats_kth_difference(b, nb, c, nc, out->k);
	out->upper = stats_kth_difference(b, nb, c, nc, mn + 1 - out->k);
	free(b);
	free(c);
	return 0;
}

int stats_shift(const double *base, size_t nb, const double *cand, size_t nc, double min_level,
		struct stats_shift *out, struct err *e)
{
	return stats_shift_with(base, nb, cand, nc, min_level, NULL, out, e);
}
