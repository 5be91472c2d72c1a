/* stats/: descriptive statistics, the exact Mann-Whitney distribution (with
 * and without ties, against exhaustive enumeration done here), p-values,
 * the Hodges-Lehmann shift and its interval (against brute force), the
 * verdict and the repetitions needed. R's wilcox.test cross-checks the
 * tie-free results in tests/cli/scripts/stats-r.sh. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* ---- helpers -------------------------------------------------------------- */

static uint64_t rng = 88172645463325252u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Every difference cand_i - base_j, sorted (caller frees). */
static double *all_diffs(const double *b, size_t nb, const double *c, size_t nc)
{
	double *d = malloc(sizeof(*d) * nb * nc);

	for (size_t i = 0; i < nc; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] = c[i] - b[j];
	qsort(d, nb * nc, sizeof(*d), cmp);
	return d;
}

/* Twice the Mann-Whitney U of the values at the positions in `mask`
 * (candidates) over the others (baselines). */
static unsigned doubled_u(const double *v, size_t n, unsigned mask)
{
	unsigned u = 0;

	for (size_t p = 0; p < n; p++)
		for (size_t q = 0; q < n; q++)
			if ((mask >> p & 1) && !(mask >> q & 1))
				u += v[p] > v[q] ? 2 : v[p] == v[q] ? 1 : 0;
	return u;
}

static size_t bits(unsigned mask)
{
	size_t n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

/* The exhaustive permutation distribution: counts[u2] over every choice of
 * nc of the n pooled values as the candidate arm; returns the number of
 * choices. counts must hold n * n + 1 entries. */
static unsigned enumerate(const double *v, size_t n, size_t nc, unsigned *counts)
{
	unsigned total = 0;

	memset(counts, 0, sizeof(*counts) * (n * n + 1));
	for (unsigned mask = 0; mask < 1u << n; mask++)
		if (bits(mask) == nc) {
			counts[doubled_u(v, n, mask)]++;
			total++;
		}
	return total;
}

/* Two-sided exact p of the split base | cand by exhaustive enumeration. */
static double enumerated_p(const double *b, size_t nb, const double *c, size_t nc)
{
	double v[16];
	unsigned counts[16 * 16 + 1], total, u, lower = 0, upper = 0;
	size_t n = nb + nc;

	memcpy(v, b, sizeof(*b) * nb);
	memcpy(v + nb, c, sizeof(*c) * nc);
	total = enumerate(v, n, nc, counts);
	u = doubled_u(v, n, ((1u << nc) - 1) << nb);
	for (unsigned k = 0; k <= n * n; k++) {
		lower += k <= u ? counts[k] : 0;
		upper += k >= u ? counts[k] : 0;
	}
	return fmin(1, 2.0 * (lower < upper ? lower : upper) / total);
}

static void expect_rel(double got, double want, double tol, const char *what)
{
	cr_expect(fabs(got - want) <= tol * fmax(fabs(want), 1e-300), "%s: got %.17g, want %.17g",
		  what, got, want);
}

/* ---- descriptive ---------------------------------------------------------- */

Test(stats, median_mean_population_stddev_and_noise)
{
	const double v[] = { 10, 100, 20, 999 }, w[] = { 10, 20 };
	struct stats s;

	stats_compute(v, 4, &s);
	cr_expect_eq(s.n, 4);
	cr_expect_eq(s.median, 60);
	cr_expect_eq(s.mean, 282.25);
	cr_expect_eq(s.min, 10);
	cr_expect_eq(s.max, 999);
	cr_expect_eq(v[1], 100, "input reordered");
	stats_compute(w, 2, &s);
	cr_expect_eq(s.mean, 15);
	cr_expect_eq(s.median, 15);
	cr_expect_eq(s.stddev, 5);
	cr_expect_float_eq(s.noise_percent, 100.0 / 3, 1e-12);
	stats_compute(w, 0, &s);
	cr_expect_eq(s.mean, 0);
	cr_expect_eq(s.n, 0);
}

Test(stats, finite_only_when_every_member_is)
{
	const double v[] = { 1, 2 };
	struct stats s;

	stats_compute(v, 2, &s);
	cr_expect(stats_finite(&s));
	s.stddev = INFINITY;
	cr_expect_not(stats_finite(&s));
	stats_compute(v, 2, &s);
	s.mean = NAN;
	cr_expect_not(stats_finite(&s));
}

/* ---- the null distribution ------------------------------------------------ */

Test(mann_whitney, three_and_three_by_hand)
{
	/* U of 3 + 3: counts 1 1 2 3 3 3 3 2 1 1 out of C(6, 3) = 20 */
	static const double want[] = { 1, 1, 2, 3, 3, 3, 3, 2, 1, 1 };
	double *pmf;
	size_t len;
	unsigned scale;
	struct err e;

	cr_assert_eq(stats_mw_pmf(3, 3, NULL, 0, &pmf, &len, &scale, &e), 0, "%s", e.msg);
	cr_assert_eq(len, 10);
	cr_expect_eq(scale, 1);
	for (size_t u = 0; u < len; u++)
		expect_rel(pmf[u], want[u] / 20, 1e-15, "3+3");
	free(pmf);
}

Test(mann_whitney, tie_free_distribution_equals_enumeration)
{
	for (size_t nb = 1; nb <= 8; nb++)
		for (size_t nc = 1; nc + nb <= 14; nc++) {
			double v[16], *pmf;
			unsigned counts[16 * 16 + 1], total, scale;
			size_t len;
			struct err e;

			for (size_t i = 0; i < nb + nc; i++)
				v[i] = (double)i;
			total = enumerate(v, nb + nc, nc, counts);
			cr_assert_eq(stats_mw_pmf(nb, nc, NULL, 0, &pmf, &len, &scale, &e), 0, "%s",
				     e.msg);
			cr_assert_eq(len, nb * nc + 1);
			for (size_t u = 0; u < len; u++)
				expect_rel(pmf[u], (double)counts[2 * u] / total, 1e-13, "tie-free "
											 "pmf");
			free(pmf);
		}
}

Test(mann_whitney, tied_distribution_equals_enumeration)
{
	/* 200 random tie structures (values 0..3), both arm orders */
	for (int k = 0; k < 200; k++) {
		size_t nb = 1 + next() % 7, nc = 1 + next() % 7, n = nb + nc, groups[16], ng = 0;
		double v[16], s[16], *pmf;
		unsigned counts[16 * 16 + 1], total, scale;
		size_t len;
		struct err e;

		for (size_t i = 0; i < n; i++)
			s[i] = v[i] = (double)(next() % 4);
		qsort(s, n, sizeof(*s), cmp);
		for (size_t i = 0; i < n; i++)
			if (!i || s[i] != s[i - 1])
				groups[ng++] = 1;
			else
				groups[ng - 1]++;
		total = enumerate(v, n, nc, counts);
		cr_assert_eq(stats_mw_pmf(nb, nc, groups, ng, &pmf, &len, &scale, &e), 0, "%s",
			     e.msg);
		if (ng == n) {
			cr_expect_eq(scale, 1);
			for (size_t u = 0; u < len; u++)
				expect_rel(pmf[u], (double)counts[2 * u] / total, 1e-13, "no ties "
											 "drawn");
		} else {
			cr_expect_eq(scale, 2);
			cr_assert_eq(len, 2 * nb * nc + 1);
			for (size_t u = 0; u < len; u++)
				cr_expect(fabs(pmf[u] - (double)counts[u] / total) <= 1e-13,
					  "%zu+%zu u2=%zu: %.17g, enumerated %u/%u", nb, nc, u,
					  pmf[u], counts[u], total);
		}
		free(pmf);
	}
}

Test(mann_whitney, bad_arguments)
{
	const size_t short_groups[] = { 2, 2 }, zero_group[] = { 3, 0, 3 };
	double *pmf = NULL;
	size_t len;
	unsigned scale;
	struct err e;

	cr_expect_eq(stats_mw_pmf(0, 3, NULL, 0, &pmf, &len, &scale, &e), -1);
	cr_expect_str_eq(e.msg, "mann-whitney distribution: an arm has no values");
	cr_expect_eq(stats_mw_pmf(101, 100, NULL, 0, &pmf, &len, &scale, &e), -1);
	cr_expect_str_eq(e.msg, "mann-whitney distribution: 101 x 100 pairs exceed the exact limit "
				"10000");
	cr_expect_eq(stats_mw_pmf(3, 3, short_groups, 2, &pmf, &len, &scale, &e), -1);
	cr_expect_str_eq(e.msg, "mann-whitney distribution: tie groups hold 4 values, not 6");
	cr_expect_eq(stats_mw_pmf(3, 3, zero_group, 3, &pmf, &len, &scale, &e), -1);
	cr_expect_str_eq(e.msg, "mann-whitney distribution: tie group 1 of size 0 does not fit");
	cr_expect_null(pmf);
}

/* ---- the rank test -------------------------------------------------------- */

Test(rank_test, separated_three_and_three_is_p_one_tenth)
{
	const double b[] = { 97, 96, 98 }, c[] = { 251, 250, 252 };
	struct stats_rank_test t;
	struct err e;

	cr_assert_eq(stats_rank_test(b, 3, c, 3, &t, &e), 0, "%s", e.msg);
	cr_expect_eq(t.u, 9);
	expect_rel(t.p, 0.1, 1e-15, "p");
	cr_expect(t.exact);
	cr_expect_not(t.ties);
	cr_assert_eq(stats_rank_test(c, 3, b, 3, &t, &e), 0, "%s", e.msg);
	cr_expect_eq(t.u, 0);
	expect_rel(t.p, 0.1, 1e-15, "p reversed");
}

Test(rank_test, tied_p_equals_exhaustive_enumeration)
{
	int tied = 0;

	for (int k = 0; k < 300; k++) {
		size_t nb = 1 + next() % 7, nc = 1 + next() % 7;
		double b[8], c[8];
		struct stats_rank_test t;
		struct err e;

		for (size_t i = 0; i < nb; i++)
			b[i] = (double)(next() % 5);
		for (size_t i = 0; i < nc; i++)
			c[i] = (double)(next() % 5 + k % 3);
		cr_assert_eq(stats_rank_test(b, nb, c, nc, &t, &e), 0, "%s", e.msg);
		tied += t.ties;
		cr_expect(t.exact);
		expect_rel(t.p, enumerated_p(b, nb, c, nc), 1e-12, "tied p");
	}
	cr_expect_gt(tied, 250, "the draw should be mostly tied, got %d", tied);
}

Test(rank_test, all_equal_samples)
{
	const double b[] = { 5, 5, 5, 5 }, c[] = { 5, 5, 5 };
	struct stats_rank_test t;
	struct err e;

	cr_assert_eq(stats_rank_test(b, 4, c, 3, &t, &e), 0, "%s", e.msg);
	cr_expect(t.ties);
	cr_expect_eq(t.u, 6);
	cr_expect_eq(t.p, 1);
}

Test(rank_test, one_and_one)
{
	const double b[] = { 1 }, c[] = { 2 };
	struct stats_rank_test t;
	struct err e;

	cr_assert_eq(stats_rank_test(b, 1, c, 1, &t, &e), 0, "%s", e.msg);
	cr_expect_eq(t.u, 1);
	cr_expect_eq(t.p, 1);
}

Test(rank_test, exact_up_to_the_limit_then_normal_approximation)
{
	double b[1000], c[1000];
	struct stats_rank_test t;
	struct err e;

	for (int i = 0; i < 1000; i++) {
		b[i] = 100 + (double)(next() % 1000000) / 1e4;
		c[i] = 110 + (double)(next() % 1000000) / 1e4;
	}
	cr_assert_eq(stats_rank_test(b, 100, c, 100, &t, &e), 0, "%s", e.msg);
	cr_expect(t.exact);
	cr_assert_eq(stats_rank_test(b, 100, c, 101, &t, &e), 0, "%s", e.msg);
	cr_expect_not(t.exact);
	cr_assert_eq(stats_rank_test(b, 1000, c, 1000, &t, &e), 0, "%s", e.msg);
	cr_expect_not(t.exact);
	cr_expect(t.p > 0 && t.p < 1e-6, "a shift of 10 over a range of 100 in 1000 + 1000: %g",
		  t.p);
}

Test(rank_test, refuses_empty_and_non_finite)
{
	const double b[] = { 1, NAN }, c[] = { 1, INFINITY };
	struct stats_rank_test t;
	struct err e;

	cr_expect_eq(stats_rank_test(b, 0, c, 1, &t, &e), -1);
	cr_expect_str_eq(e.msg, "baseline: no values");
	cr_expect_eq(stats_rank_test(b, 2, c, 1, &t, &e), -1);
	cr_expect_str_eq(e.msg, "baseline: value 1 is not finite");
	cr_expect_eq(stats_rank_test(b, 1, c, 2, &t, &e), -1);
	cr_expect_str_eq(e.msg, "candidate: value 1 is not finite");
}

/* ---- shift and interval --------------------------------------------------- */

Test(shift, kth_difference_equals_brute_force)
{
	for (int k = 0; k < 100; k++) {
		size_t nb = 1 + next() % 12, nc = 1 + next() % 12;
		double b[12], c[12], *d;

		for (size_t i = 0; i < nb; i++)
			b[i] = (double)((int)(next() % 21) - 10) / 4;
		for (size_t i = 0; i < nc; i++)
			c[i] = k % 5 ? (double)((int)(next() % 21) - 10) / 4
				     : (next() & 1 ? -0.0 : 0.0);
		qsort(b, nb, sizeof(*b), cmp);
		qsort(c, nc, sizeof(*c), cmp);
		d = all_diffs(b, nb, c, nc);
		for (size_t r = 1; r <= nb * nc; r++) {
			double got = stats_kth_difference(b, nb, c, nc, r);

			cr_expect(got == d[r - 1] && !(got == 0 && signbit(got)),
				  "k=%zu: %g, want %g", r, got, d[r - 1]);
		}
		free(d);
	}
}

Test(shift, three_and_three_is_the_whole_range_at_ninety_percent)
{
	const double b[] = { 97, 96, 98 }, c[] = { 251, 250, 252 };
	struct stats_shift s;
	struct err e;

	cr_assert_eq(stats_shift(b, 3, c, 3, STATS_DECISION_LEVEL, &s, &e), 0, "%s", e.msg);
	cr_expect_eq(s.k, 1);
	expect_rel(s.level, 0.9, 1e-15, "level");
	cr_expect_eq(s.lower, 250 - 98);
	cr_expect_eq(s.upper, 252 - 96);
	cr_expect_eq(s.estimate, 154);
	cr_expect(s.exact);
}

Test(shift, attained_levels_of_small_designs)
{
	/* level 1 - 2 P(U <= k - 1), the narrowest at or above 90%: 2+2 cannot
	 * reach it (the widest, 1 - 2/6); 4+4 -> k 2, 1 - 4/70; 5+5 -> k 5,
	 * 1 - 24/252 */
	static const struct {
		size_t n;
		size_t k;
		double level;
		bool attained;
	} want[] = { { 2, 1, 1 - 2.0 / 6, false }, { 3, 1, 0.9, true },
		     { 4, 2, 1 - 4.0 / 70, true }, { 5, 5, 1 - 24.0 / 252, true } };
	double b[5] = { 1, 2, 3, 4, 5 }, c[5] = { 1.5, 2.5, 3.5, 4.5, 5.5 };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct stats_shift s;
		struct err e;

		cr_assert_eq(stats_shift(b, want[i].n, c, want[i].n, STATS_DECISION_LEVEL, &s, &e),
			     0,
			     "%s", e.msg);
		cr_expect_eq(s.k, want[i].k, "%zu+%zu", want[i].n, want[i].n);
		expect_rel(s.level, want[i].level, 1e-14, "level");
		cr_expect_eq(s.attained, want[i].attained, "%zu+%zu", want[i].n, want[i].n);
		cr_expect(s.attained == (s.level >= STATS_DECISION_LEVEL));
	}
	cr_expect_eq(stats_min_repetitions(0.95), 4);
	cr_expect_eq(stats_min_repetitions(STATS_DECISION_LEVEL), 3);
	cr_expect_eq(stats_min_repetitions(0.99), 5);
}

Test(shift, estimate_and_bounds_equal_brute_force_order_statistics)
{
	for (int k = 0; k < 100; k++) {
		size_t nb = 1 + next() % 15, nc = 1 + next() % 15, mn = nb * nc;
		double b[15], c[15], *d;
		struct stats_shift s;
		struct err e;

		for (size_t i = 0; i < nb; i++)
			b[i] = (double)(next() % 100000) / 7;
		for (size_t i = 0; i < nc; i++)
			c[i] = (double)(next() % 100000) / 7 + (double)(k % 4) * 1000;
		d = all_diffs(b, nb, c, nc);
		cr_assert_eq(stats_shift(b, nb, c, nc, STATS_DECISION_LEVEL, &s, &e), 0, "%s",
			     e.msg);
		cr_expect_eq(s.estimate, mn % 2 ? d[mn / 2] : d[mn / 2 - 1] / 2 + d[mn / 2] / 2);
		cr_expect_eq(s.lower, d[s.k - 1]);
		cr_expect_eq(s.upper, d[mn - s.k]);
		cr_expect(s.lower <= s.estimate && s.estimate <= s.upper);
		free(d);
	}
}

Test(shift, ties_use_the_tie_free_order_statistics)
{
	const double b[] = { 10, 10, 11, 12 }, c[] = { 10, 11, 11, 13 };
	const double u[] = { 1, 2, 3, 4 }, v[] = { 5, 6, 7, 8 };
	struct stats_shift tied, free_of_ties;
	struct err e;

	cr_assert_eq(stats_shift(b, 4, c, 4, STATS_DECISION_LEVEL, &tied, &e), 0, "%s", e.msg);
	cr_assert_eq(stats_shift(u, 4, v, 4, STATS_DECISION_LEVEL, &free_of_ties, &e), 0, "%s",
		     e.msg);
	cr_expect_eq(tied.k, free_of_ties.k);
	cr_expect_eq(tied.level, free_of_ties.level);
	/* differences -2 -1 -1 -1 0 0 0 0 1 1 1 1 1 2 3 3: k = 2 */
	cr_expect_eq(tied.lower, -1);
	cr_expect_eq(tied.upper, 3);
	cr_expect_eq(tied.estimate, 0.5);
}

Test(shift, normal_approximation_beyond_the_limit)
{
	static double b[1000], c[1000];
	struct stats_shift s;
	struct err e;

	for (int i = 0; i < 1000; i++) {
		b[i] = (double)i;
		c[i] = (double)i + 100.5;
	}
	cr_assert_eq(stats_shift(b, 1000, c, 1000, STATS_DECISION_LEVEL, &s, &e), 0, "%s", e.msg);
	cr_expect_not(s.exact);
	cr_expect(s.level >= STATS_DECISION_LEVEL && s.level < 0.9001, "level %.9f", s.level);
	cr_expect(s.attained);
	cr_expect_eq(s.estimate, 100.5);
	cr_expect(s.lower < 100.5 && s.upper > 100.5);
}

Test(shift, one_and_one_has_level_zero)
{
	const double b[] = { 3 }, c[] = { 5 };
	struct stats_shift s;
	struct err e;

	cr_assert_eq(stats_shift(b, 1, c, 1, STATS_DECISION_LEVEL, &s, &e), 0, "%s", e.msg);
	cr_expect_eq(s.k, 1);
	cr_expect_eq(s.level, 0);
	cr_expect_eq(s.lower, 2);
	cr_expect_eq(s.upper, 2);
}

Test(shift, refusals)
{
	const double b[] = { -1.7e308, 1 }, c[] = { 1.7e308, 2 };
	struct stats_shift s;
	struct err e;

	cr_expect_eq(stats_shift(b, 2, c, 2, STATS_DECISION_LEVEL, &s, &e), -1);
	cr_expect_str_eq(e.msg, "shift interval: a difference between the arms is not finite");
	cr_expect_eq(stats_shift(b + 1, 1, c + 1, 1, 1, &s, &e), -1);
	cr_expect_str_eq(e.msg, "shift interval: the level must lie strictly between 0 and 1");
	cr_expect_eq(stats_shift(b, 0, c, 1, 0.5, &s, &e), -1);
	cr_expect_str_eq(e.msg, "baseline: no values");
}

/* ---- verdict and planning ------------------------------------------------- */

static struct stats_comparison compare_ok(const double *b, size_t nb, const double *c, size_t nc,
					  double threshold, enum stats_better better)
{
	struct stats_comparison s;
	struct err e;

	cr_assert_eq(stats_compare(b, nb, c, nc, threshold, better, STATS_DECISION_LEVEL, &s, &e),
		     0, "%s", e.msg);
	return s;
}

Test(verdict, whole_interval_beyond_the_threshold)
{
	/* ratios 110/102 .. 112/100 (3 + 3: the widest interval, 90%), median
	 * 111/101: [+7.84%, +12%], estimate +9.90% */
	const double b[] = { 100, 101, 102 }, c[] = { 110, 111, 112 };
	struct stats_comparison s;

	s = compare_ok(b, 3, c, 3, 2, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_FASTER);
	cr_expect_str_eq(stats_verdict_name(s.verdict), "faster");
	expect_rel(s.lower_percent, 800.0 / 102, 1e-12, "lower %");
	expect_rel(s.upper_percent, 12, 1e-12, "upper %");
	expect_rel(s.shift_percent, 1000.0 / 101, 1e-12, "shift %");
	/* in the unit: the same ratios applied to the baseline median, 101 */
	expect_rel(s.lower_units, 101 * 8.0 / 102, 1e-12, "lower");
	expect_rel(s.upper_units, 101 * 0.12, 1e-12, "upper");
	expect_rel(s.shift_units, 10, 1e-12, "shift");
	expect_rel(s.shift.estimate, log(111.0 / 101), 1e-12, "log ratio");
	s = compare_ok(b, 3, c, 3, 2, STATS_LOWER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_SLOWER);
	cr_expect_str_eq(stats_verdict_name(s.verdict), "slower");
	s = compare_ok(c, 3, b, 3, 2, STATS_LOWER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_FASTER);
	s = compare_ok(c, 3, b, 3, 2, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_SLOWER);
	/* the near end at 7.84% does not clear 8%, and the far end is beyond
	 * it: undecided */
	s = compare_ok(b, 3, c, 3, 8, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_UNDECIDED);
	cr_expect_str_eq(stats_verdict_name(s.verdict), "undecided");
	/* within 13% either way: equivalent */
	s = compare_ok(b, 3, c, 3, 13, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_EQUIVALENT);
	cr_expect_str_eq(stats_verdict_name(s.verdict), "equivalent");
	s = compare_ok(b, 3, c, 3, 13, STATS_LOWER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_EQUIVALENT);
}

Test(verdict, threshold_is_strict_and_a_ratio_either_way)
{
	/* log(1) is 0, so the interval's near end is exactly log 2, and a
	 * threshold of 100% is the factor 2 either way: +100% or -50% */
	const double one[] = { 1, 1, 1 }, more[] = { 2, 3, 4 };
	struct stats_comparison s;

	s = compare_ok(one, 3, more, 3, 100, STATS_HIGHER_IS_BETTER);
	expect_rel(s.lower_percent, 100, 1e-15, "lower %");
	expect_rel(s.threshold_down_percent, -50, 1e-15, "threshold down");
	cr_expect_eq(s.threshold_percent, 100);
	cr_expect_eq(s.verdict, STATS_UNDECIDED);
	s = compare_ok(one, 3, more, 3, 99.999, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_FASTER);
	/* a time halved is the same factor: at the threshold, not beyond */
	s = compare_ok(more, 3, one, 3, 100, STATS_LOWER_IS_BETTER);
	expect_rel(s.upper_percent, -50, 1e-15, "upper %");
	cr_expect_eq(s.verdict, STATS_UNDECIDED);
	s = compare_ok(more, 3, one, 3, 99.999, STATS_LOWER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_FASTER);
	s = compare_ok(more, 3, one, 3, 99.999, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_SLOWER);
}

Test(verdict, rates_and_times_of_the_same_runs_agree)
{
	/* 128 tokens in each run: tok/s = 128000 / ms, so every ratio of
	 * rates is the reciprocal of the matching ratio of times */
	const double ms_b[] = { 2010, 1985, 2040, 1998, 2025 };
	const double ms_c[] = { 1950, 1902, 1931, 1968, 1940 };
	double tps_b[5], tps_c[5];
	struct stats_comparison r, t;

	for (int i = 0; i < 5; i++) {
		tps_b[i] = 128000 / ms_b[i];
		tps_c[i] = 128000 / ms_c[i];
	}
	r = compare_ok(tps_b, 5, tps_c, 5, 2, STATS_HIGHER_IS_BETTER);
	t = compare_ok(ms_b, 5, ms_c, 5, 2, STATS_LOWER_IS_BETTER);
	expect_rel((1 + r.shift_percent / 100) * (1 + t.shift_percent / 100), 1, 1e-12, "shift");
	expect_rel((1 + r.lower_percent / 100) * (1 + t.upper_percent / 100), 1, 1e-12, "lower");
	expect_rel((1 + r.upper_percent / 100) * (1 + t.lower_percent / 100), 1, 1e-12, "upper");
	cr_expect_eq(r.shift.level, t.shift.level);
	cr_expect_eq(r.test.p, t.test.p);
	cr_expect_eq(r.verdict, t.verdict);
	cr_expect_eq(r.verdict, STATS_FASTER, "rates up 3.5%%, times down 3.4%%: [%g, %g]",
		     r.lower_percent, r.upper_percent);
	cr_expect_eq(r.repetitions_needed, t.repetitions_needed);
}

Test(verdict, a_large_drop_at_3_plus_3_stays_above_minus_100_percent)
{
	/* the case: a rate falling to a sixth, baselines spread out.
	 * Differences of the raw values reach -54 against a median of 50
	 * (-108%); ratios cannot pass -100% */
	const double b[] = { 40, 50, 62 }, c[] = { 8, 9, 10 };
	struct stats_shift raw;
	struct stats_comparison s;
	struct err e;

	cr_assert_eq(stats_shift(b, 3, c, 3, STATS_DECISION_LEVEL, &raw, &e), 0, "%s", e.msg);
	cr_expect_lt(raw.lower / 50 * 100, -100, "the raw scale passes -100%%: %g", raw.lower);
	s = compare_ok(b, 3, c, 3, 2, STATS_HIGHER_IS_BETTER);
	/* ratios 8/62 .. 10/40, median 9/50: -82.0% [-87.1%, -75.0%] */
	expect_rel(s.shift_percent, -82, 1e-12, "shift %");
	expect_rel(s.lower_percent, (8.0 / 62 - 1) * 100, 1e-12, "lower %");
	expect_rel(s.upper_percent, -75, 1e-12, "upper %");
	cr_expect_gt(s.lower_percent, -100);
	cr_expect_eq(s.verdict, STATS_SLOWER);
	/* the same runs as times (128 tokens): +456% [+300%, +675%] */
	{
		double tb[3], tc[3];

		for (int i = 0; i < 3; i++) {
			tb[i] = 128000 / b[i];
			tc[i] = 128000 / c[i];
		}
		s = compare_ok(tb, 3, tc, 3, 2, STATS_LOWER_IS_BETTER);
		expect_rel(s.shift_percent, (50.0 / 9 - 1) * 100, 1e-12, "time shift %");
		expect_rel(s.lower_percent, 300, 1e-12, "time lower %");
		expect_rel(s.upper_percent, (62.0 / 8 - 1) * 100, 1e-12, "time upper %");
		cr_expect_eq(s.verdict, STATS_SLOWER);
	}
}

Test(verdict, all_equal_samples)
{
	const double b[] = { 5, 5, 5 }, c[] = { 5, 5, 5 }, d[] = { 6, 6, 6 };
	struct stats_comparison s;

	s = compare_ok(b, 3, c, 3, 0, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.test.p, 1);
	cr_expect_eq(s.shift.estimate, 0);
	cr_expect_eq(s.shift.lower, 0);
	cr_expect_eq(s.shift.upper, 0);
	cr_expect_eq(s.shift_percent, 0);
	/* a point interval at 0 lies within a threshold of 0 */
	cr_expect_eq(s.verdict, STATS_EQUIVALENT);
	cr_expect_eq(s.repetitions_needed, 0);
	cr_expect_str_eq(s.repetitions_reason, "the verdict is decided");
	s = compare_ok(b, 3, d, 3, 2, STATS_HIGHER_IS_BETTER);
	expect_rel(s.shift_percent, 20, 1e-14, "shift %");
	cr_expect_eq(s.verdict, STATS_FASTER);
	cr_expect_eq(s.repetitions_needed, 0);
	cr_expect_str_eq(s.repetitions_reason, "the verdict is decided");
	cr_expect_str_eq(stats_method(&s), "exact permutation distribution of the mid-rank "
					   "statistic (the values hold ties); interval from the "
					   "tie-free distribution, so its level is a lower bound");
}

Test(verdict, extreme_values_stay_finite)
{
	const double lo[] = { 1e-6, 1e-6, 2e-6 }, hi[] = { 1e9, 1e9, 9e8 },
		     ms[] = { 1e12, 1, 5e11 };
	const double tiny[] = { 1e-300, 2e-300 }, huge[] = { 1e300, 2e300 };
	struct stats_comparison s;
	struct err e;

	s = compare_ok(lo, 3, hi, 3, 2, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_FASTER);
	cr_expect(isfinite(s.shift_percent) && s.shift_percent > 1e16, "%g", s.shift_percent);
	s = compare_ok(hi, 3, lo, 3, 2, STATS_HIGHER_IS_BETTER);
	cr_expect_eq(s.verdict, STATS_SLOWER);
	cr_expect(s.lower_percent > -100 && s.upper_percent <= -99.99, "[%g, %g]", s.lower_percent,
		  s.upper_percent);
	/* ratios from 1e-18 to 2e-6: all of the interval is a fall; a ratio
	 * of 1e-18 is -100% to the precision of a double, and never below */
	s = compare_ok(ms, 3, lo, 3, 2, STATS_LOWER_IS_BETTER);
	cr_expect(s.lower_percent >= -100 && s.upper_percent < -99.99, "[%g, %g]", s.lower_percent,
		  s.upper_percent);
	cr_expect_eq(s.verdict, STATS_FASTER);
	/* a ratio of 1e600 has no double */
	cr_expect_eq(stats_compare(tiny, 2, huge, 2, 2, STATS_HIGHER_IS_BETTER, 0.5, &s, &e), -1);
	cr_expect_str_eq(e.msg, "derived statistics are not finite");
}

Test(verdict, one_repetition_per_arm)
{
	const double b[] = { 100 }, c[] = { 150 };
	struct stats_comparison s = compare_ok(b, 1, c, 1, 2, STATS_HIGHER_IS_BETTER);

	cr_expect_eq(s.shift.level, 0);
	expect_rel(s.lower_percent, 50, 1e-14, "lower %");
	cr_expect_eq(s.upper_percent, s.lower_percent);
	cr_expect_eq(s.verdict, STATS_UNDECIDED, "one value per arm reaches no level");
	cr_expect_not(s.shift.attained);
	cr_expect_eq(s.repetitions_needed, 0);
	cr_expect_str_eq(s.repetitions_reason,
			 "one repetition per arm gives no spread to plan from");
}

Test(verdict, huge_arms)
{
	static double b[20000], c[20000];
	struct stats_comparison s;

	for (int i = 0; i < 20000; i++) {
		b[i] = 100 + (double)(next() % 100000) / 1e5;
		c[i] = 101 + (double)(next() % 100000) / 1e5;
	}
	s = compare_ok(b, 20000, c, 20000, 0.5, STATS_HIGHER_IS_BETTER);
	cr_expect_not(s.test.exact);
	cr_expect_eq(s.verdict, STATS_FASTER);
	cr_expect(fabs(s.shift_units - 1) < 0.01, "%g", s.shift_units);
	cr_expect(s.lower_percent > 0.9 && s.upper_percent < 1.1);
	cr_expect_str_eq(stats_method(&s),
			 "normal approximation with tie and continuity correction (more than 10000 "
			 "baseline x candidate pairs)");
}

Test(verdict, refusals)
{
	const double b[] = { 0, 0, 1 }, c[] = { 1, 2, 3 }, neg[] = { 1, 2, -3 };
	struct stats_comparison s;
	struct err e;

	cr_expect_eq(stats_compare(b, 3, c, 3, 2, STATS_HIGHER_IS_BETTER, 0.9, &s, &e), -1);
	cr_expect_str_eq(e.msg, "baseline: value 0 is not positive: a shift is a ratio of "
				"positive values");
	cr_expect_eq(stats_compare(c, 3, neg, 3, 2, STATS_LOWER_IS_BETTER, 0.9, &s, &e), -1);
	cr_expect_str_eq(e.msg, "candidate: value 2 is not positive: a shift is a ratio of "
				"positive values");
	cr_expect_eq(stats_compare(c, 3, b, 3, -1, STATS_HIGHER_IS_BETTER, 0.9, &s, &e), -1);
	cr_expect_str_eq(e.msg, "practical threshold: must be a finite non-negative percentage");
	cr_expect_eq(stats_compare(c, 3, b, 3, NAN, STATS_HIGHER_IS_BETTER, 0.9, &s, &e), -1);
	cr_expect_str_eq(e.msg, "practical threshold: must be a finite non-negative percentage");
	cr_expect_eq(stats_compare(c, 3, b, 0, 2, STATS_HIGHER_IS_BETTER, 0.9, &s, &e), -1);
	cr_expect_str_eq(e.msg, "candidate: no values");
}

Test(planning, repetitions_needed)
{
	const char *why;

	/* 2 pi / 3 * (1.959964 * 4 / 1)^2 = 128.7 -> 129 */
	cr_expect_eq(stats_repetitions_needed(3, 2, 4, 0.95, &why), 129);
	cr_expect_null(why);
	cr_expect_eq(stats_repetitions_needed(-3, 2, 4, 0.95, &why), 129,
		     "the sign does not matter");
	/* within the threshold by the same margin: as many to decide equivalent */
	cr_expect_eq(stats_repetitions_needed(1, 2, 4, 0.95, &why), 129);
	cr_expect_eq(stats_repetitions_needed(-1, 2, 4, 0.95, &why), 129);
	/* at 90%: 2 pi / 3 * (1.644854 * 4)^2 = 90.7 -> 91 */
	cr_expect_eq(stats_repetitions_needed(3, 2, 4, STATS_DECISION_LEVEL, &why), 91);
	/* 2.01 -> 3, but an exact 95% interval needs 4 + 4 */
	cr_expect_eq(stats_repetitions_needed(10, 2, 4, 0.95, &why), 4);
	cr_expect_eq(stats_repetitions_needed(2, 2, 4, 0.95, &why), 0);
	cr_expect_str_eq(why, "the observed shift sits on the practical threshold: no number of "
			      "repetitions is expected to decide it");
	cr_expect_eq(stats_repetitions_needed(3, 2, 0, 0.95, &why), 0);
	cr_expect_str_eq(why, "the repetitions have no spread, so normal theory gives no number");
	cr_expect_eq(stats_repetitions_needed(3, 2, NAN, 0.95, &why), 0);
	cr_expect_str_eq(why, "one repetition per arm gives no spread to plan from");
	cr_expect_eq(stats_repetitions_needed(2 + 1e-9, 2, 1e3, 0.95, &why), 0);
	cr_expect_str_eq(why, "the shift is too close to the practical threshold: more than a "
			      "billion repetitions per arm");
}

Test(planning, comparison_plans_from_the_pooled_spread_of_the_logs)
{
	/* logs {0, 1, 2} and {3, 4, 5} times log 2: pooled sample sd log 2,
	 * shift 3 log 2; 300% is the factor 4, 2 log 2: margin log 2, so at
	 * 90% n = ceil(2 pi / 3 * 1.644854^2) = ceil(5.67) = 6 */
	const double b[] = { 1, 2, 4 }, c[] = { 8, 16, 32 };
	const char *why;
	struct stats_comparison s = compare_ok(b, 3, c, 3, 300, STATS_HIGHER_IS_BETTER);

	expect_rel(s.shift.estimate, 3 * log(2), 1e-14, "log shift");
	cr_expect_eq(s.verdict, STATS_UNDECIDED);
	cr_expect_eq(s.repetitions_needed, 6);
	cr_expect_eq(s.repetitions_needed, stats_repetitions_needed(3 * log(2), 2 * log(2), log(2),
								    STATS_DECISION_LEVEL, &why));
	/* the same runs as times plan the same */
	s = compare_ok(c, 3, b, 3, 300, STATS_LOWER_IS_BETTER);
	cr_expect_eq(s.repetitions_needed, 6);
}

Test(planning, sequential_looks)
{
	struct stats_looks l;
	struct err e;

	/* 3, 6, 12, 24, 48, 60: five early looks share 5%; at 1% each 3+3
	 * cannot reach 99% (5 per arm needed), so it is dropped and four
	 * share it: 1.25% each (98.75%), and the last look gets 5% (95%) */
	cr_assert_eq(stats_plan_looks(3, 60, STATS_DECISION_LEVEL, &l, &e), 0, "%s", e.msg);
	cr_assert_eq(l.nr, 5);
	{
		static const size_t want[] = { 6, 12, 24, 48, 60 };

		for (size_t i = 0; i < 5; i++)
			cr_expect_eq(l.reps[i], want[i], "look %zu", i);
	}
	for (size_t i = 0; i < 4; i++)
		expect_rel(l.level[i], 1 - 0.05 / 4, 1e-14, "early level");
	expect_rel(l.level[4], 0.95, 1e-14, "last level");
	/* a single look keeps the whole error */
	cr_assert_eq(stats_plan_looks(10, 10, STATS_DECISION_LEVEL, &l, &e), 0, "%s", e.msg);
	cr_expect_eq(l.nr, 1);
	expect_rel(l.level[0], STATS_DECISION_LEVEL, 1e-14, "single look");
	/* the sum of the errors never exceeds the design's */
	for (size_t first = 1; first <= 20; first++)
		for (size_t max = first; max <= 200; max += 7) {
			double sum = 0;

			cr_assert_eq(stats_plan_looks(first, max, 0.9, &l, &e), 0, "%s", e.msg);
			cr_expect_eq(l.reps[l.nr - 1], max);
			for (size_t i = 0; i < l.nr; i++) {
				sum += 1 - l.level[i];
				if (i)
					cr_expect_gt(l.reps[i], l.reps[i - 1]);
			}
			cr_expect_leq(sum, 0.1 + 1e-12, "%zu..%zu: %g", first, max, sum);
		}
	cr_expect_eq(stats_plan_looks(0, 10, 0.9, &l, &e), -1);
	cr_expect_eq(stats_plan_looks(5, 4, 0.9, &l, &e), -1);
	cr_expect_eq(stats_plan_looks(3, 4, 1, &l, &e), -1);
	expect_rel(stats_level_for_attempts(0.9, 4), 0.975, 1e-14, "four attempts");
	cr_expect_eq(stats_level_for_attempts(0.9, 0), 0.9);
}

Test(verdict, names_and_methods)
{
	const double b[] = { 1, 2, 3 }, c[] = { 4, 5, 6 };
	struct stats_comparison s = compare_ok(b, 3, c, 3, 1, STATS_HIGHER_IS_BETTER);

	cr_expect_str_eq(stats_method(&s), "exact Mann-Whitney distribution");
	cr_expect_str_eq(stats_verdict_name((enum stats_verdict)99), "undecided");
}
