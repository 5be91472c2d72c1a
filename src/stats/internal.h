#ifndef FAK_STATS_INTERNAL_H
#define FAK_STATS_INTERNAL_H
/* Helpers shared by the files of src/stats/ only. */
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "stats/stats.h"

/* A sorted (ascending) copy of v; caller frees. n may be 0. */
double *stats_sorted_copy(const double *v, size_t n);

/* Standard normal distribution function. */
double stats_normal_cdf(double x);
/* Its inverse, for p in (0, 1). */
double stats_normal_quantile(double p);

/* The exact distributions are computed for these arm sizes. */
bool stats_mw_exact(size_t nb, size_t nc);

/* P(U <= q) for q = 0..nb * nc / 2 of the tie-free null distribution of
 * U (caller frees); requires stats_mw_exact(nb, nc). */
double *stats_mw_tiefree_cdf(size_t nb, size_t nc);

/* stats_rank_test and stats_shift given the tie-free cdf above (borrowed;
 * NULL: computed when needed), so a comparison computes it once. */
int stats_rank_test_with(const double *base, size_t nb, const double *cand, size_t nc,
			 const double *tiefree_cdf, struct stats_rank_test *out, struct err *e);
int stats_shift_with(const double *base, size_t nb, const double *cand, size_t nc,
		     double min_level, const double *tiefree_cdf, struct stats_shift *out,
		     struct err *e);

/* At least one value, every value finite; what names the arm in errors. */
int stats_check_values(const char *what, const double *v, size_t n, struct err *e);

#endif
