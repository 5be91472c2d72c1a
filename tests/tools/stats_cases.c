/* Test driver for tests/cli/scripts/stats-r.sh: generates COUNT sample
 * pairs (arm sizes 3..20, no ties, magnitudes from 1e-3 to 1e6, shifts from
 * none to large) from a fixed seed and prints, one case per line, the
 * samples and our statistics, every double in C99 hex form so R reads back
 * exactly the same bits:
 *
 *   nb nc base[nb] cand[nc] estimate lower upper level p
 *
 * With `approx`, the cases are beyond the exact limit (arms of 101..250,
 * every other case rounded to whole numbers so it holds ties) and only the
 * normal-approximation p follows the samples.
 *
 * With `ratio`, the same exact cases (every value positive) go through
 * stats_compare, whose shift is of the logarithms, and the samples are
 * followed by its shift and interval in percent and the level:
 *
 *   nb nc base[nb] cand[nc] shift% lower% upper% level
 *
 * Usage: stats_cases COUNT [approx|ratio] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

/* splitmix64 */
static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) with 53 random bits */
static double uniform(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

/* roughly normal: the sum of four uniforms, centred */
static double bell(void)
{
	return uniform() + uniform() + uniform() + uniform() - 2;
}

static int tied(const double *v, size_t n, double x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static int approx_cases(long count)
{
	static double all[500];

	for (long k = 0; k < count; k++) {
		size_t nb = 101 + next() % 150, nc = 101 + next() % 150;
		double shift = 0.02 * (double)(next() % 4);
		struct stats_rank_test t;
		struct err e;

		for (size_t i = 0; i < nb + nc; i++) {
			all[i] = 100 * (1 + (i >= nb ? shift : 0) + 0.1 * bell());
			if (k % 2)
				all[i] = (double)(long)all[i];
		}
		if (stats_rank_test(all, nb, all + nb, nc, &t, &e) < 0 || t.exact) {
			fprintf(stderr, "stats_cases: %s\n", t.exact ? "an exact case" : e.msg);
			return 1;
		}
		printf("%zu %zu", nb, nc);
		for (size_t i = 0; i < nb + nc; i++)
			printf(" %a", all[i]);
		printf(" %a\n", t.p);
	}
	return fflush(stdout) ? 1 : 0;
}

/* One exact case: arm sizes 3..20, no ties, every value positive. */
static void exact_case(double all[40], size_t *nb, size_t *nc)
{
	static const double scales[] = { 1e-3, 1, 100, 1e6 };
	static const double shifts[] = { 0, 0.02, 0.1, 0.3 };
	double scale, shift;

	*nb = 3 + next() % 18;
	*nc = 3 + next() % 18;
	scale = scales[next() % 4];
	shift = shifts[next() % 4];
	for (size_t i = 0; i < *nb + *nc; i++) {
		double x;

		do
			x = scale * (1 + (i >= *nb ? shift : 0) + 0.1 * bell());
		while (tied(all, i, x));
		all[i] = x;
	}
}

static int ratio_cases(long count)
{
	for (long k = 0; k < count; k++) {
		double all[40];
		size_t nb, nc;
		struct stats_comparison s;
		struct err e;

		exact_case(all, &nb, &nc);
		if (stats_compare(all, nb, all + nb, nc, 2, STATS_HIGHER_IS_BETTER,
				  STATS_DECISION_LEVEL, &s, &e) < 0) {
			fprintf(stderr, "stats_cases: %s\n", e.msg);
			return 1;
		}
		printf("%zu %zu", nb, nc);
		for (size_t i = 0; i < nb + nc; i++)
			printf(" %a", all[i]);
		printf(" %a %a %a %a\n", s.shift_percent, s.lower_percent, s.upper_percent,
		       s.shift.level);
	}
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	long count = argc >= 2 ? strtol(argv[1], NULL, 10) : 0;
	int approx = argc == 3 && !strcmp(argv[2], "approx");
	int ratio = argc == 3 && !strcmp(argv[2], "ratio");

	if (count <= 0 || argc > 3 || (argc == 3 && !approx && !ratio)) {
		fprintf(stderr, "usage: stats_cases COUNT [approx|ratio]\n");
		return 2;
	}
	if (approx)
		return approx_cases(count);
	if (ratio)
		return ratio_cases(count);
	for (long k = 0; k < count; k++) {
		double all[40];
		size_t nb, nc;
		struct stats_rank_test t;
		struct stats_shift s;
		struct err e;

		exact_case(all, &nb, &nc);
		if (stats_rank_test(all, nb, all + nb, nc, &t, &e) < 0 ||
		    stats_shift(all, nb, all + nb, nc, STATS_DECISION_LEVEL, &s, &e) < 0) {
			fprintf(stderr, "stats_cases: %s\n", e.msg);
			return 1;
		}
		printf("%zu %zu", nb, nc);
		for (size_t i = 0; i < nb + nc; i++)
			printf(" %a", all[i]);
		printf(" %a %a %a %a %a\n", s.estimate, s.lower, s.upper, s.level, t.p);
	}
	return fflush(stdout) ? 1 : 0;
}
