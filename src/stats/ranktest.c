/* The Mann-Whitney rank test: the exact null distribution of U, with or
 * without ties, and the two-sided p-value. */
#include "stats/stats.h"
#include "stats/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

double stats_normal_cdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/* P(c of the next t pooled values are candidates | `cands` of the `left`
 * values not yet placed are), for c = 0..t: the hypergeometric
 * distribution, built from its mode outwards by the ratio of neighbouring
 * terms and then normalised, so no factorial is ever formed and nothing
 * overflows. */
static void hyper(size_t left, size_t cands, size_t t, double *w)
{
	size_t bases = left - cands;
	size_t lo = t > bases ? t - bases : 0, hi = t < cands ? t : cands, mode;
	double sum = 0;

	for (size_t c = 0; c <= t; c++)
		w[c] = 0;
	if (t == 1) {
		w[0] = (double)bases / (double)left;
		w[1] = (double)cands / (double)left;
		return;
	}
	mode = (size_t)((double)(t + 1) * (double)(cands + 1) / (double)(left + 2));
	mode = mode < lo ? lo : mode > hi ? hi : mode;
	w[mode] = 1;
	for (size_t c = mode; c < hi; c++)
		w[c + 1] = w[c] * ((double)(cands - c) * (double)(t - c)) /
			   ((double)(c + 1) * (double)(bases + c + 1 - t));
	for (size_t c = mode; c > lo; c--)
		w[c - 1] = w[c] * ((double)c * (double)(bases + c - t)) /
			   ((double)(cands - c + 1) * (double)(t - c + 1));
	for (size_t c = lo; c <= hi; c++)
		sum += w[c];
	for (size_t c = lo; c <= hi; c++)
		w[c] /= sum;
}

/* The distribution is built in place, one tie group at a time in sorted
 * order. The state after r pooled values is (i, j): j values of the `j arm`
 * and i = r - j of the `i arm`; cell j holds P(state and partial statistic
 * u) for u = 0..len(i, j) - 1, and is zero beyond. A cell's capacity is its
 * length once the whole i arm is placed, so it only ever grows in place:
 * the j arm is the smaller one, to keep that memory small. */
struct dist {
	size_t ni, nj;		/* arm sizes; the j arm carries the statistic */
	unsigned scale;		/* the statistic counts halves when 2 */
	size_t umax;		/* statistics above it are not tracked */
};

static size_t cell_len(const struct dist *d, size_t i, size_t j)
{
	size_t full = (size_t)d->scale * i * j;

	return (full < d->umax ? full : d->umax) + 1;
}

/* The kernels below are the whole cost of the distribution; the buffers
 * never overlap (restrict lets the compiler use vector instructions). */
static void scale_by(double *dst, double a, size_t m)
{
	for (size_t u = 0; u < m; u++)
		dst[u] *= a;
}

static void fma2(double *restrict dst, const double *restrict src, double a, double b, size_t m)
{
	for (size_t u = 0; u < m; u++)
		dst[u] = a * dst[u] + b * src[u];
}

static void axpy(double *restrict dst, const double *restrict src, double b, size_t m)
{
	for (size_t u = 0; u < m; u++)
		dst[u] += b * src[u];
}

/* dst[0..lold) *= a, then dst[add + u] += b * src[u] for u < m, in one pass
 * where the two overlap (dst is zero from lold on). */
static void combine(double *dst, size_t lold, double a, const double *src, size_t add, size_t m,
		    double b)
{
	size_t lo = add < lold ? add : lold, hi = add + m < lold ? add + m : lold;

	scale_by(dst, a, lo);
	if (hi > add) {
		fma2(dst + add, src, a, b, hi - add);
		scale_by(dst + hi, a, lold - hi);
		axpy(dst + hi, src + (hi - add), b, add + m - hi);
	} else {
		axpy(dst + add, src, b, m);
	}
}

/* P(statistic of the j arm = u / scale) for u = 0..umax (caller frees).
 * groups NULL: every group holds one value. Every assignment of the pooled
 * values to the arms is equally likely; c values of the j arm in a group of
 * t that follows i values of the i arm add c * i + c * (t - c) / 2 to the
 * statistic (they beat the i smaller ones and tie with the t - c others). */
static double *mw_dist(const struct dist *d, const size_t *groups, size_t nr_groups)
{
	size_t n = d->ni + d->nj, tmax = 1, r = 0, *off = xcalloc(d->nj + 2, sizeof(*off));
	double *buf, *w, *out;

	for (size_t g = 0; groups && g < nr_groups; g++)
		tmax = groups[g] > tmax ? groups[g] : tmax;
	for (size_t j = 0; j <= d->nj; j++)
		off[j + 1] = off[j] + cell_len(d, d->ni, j);
	buf = xcalloc(off[d->nj + 1], sizeof(*buf));
	w = xmalloc(xmul(xmul(d->nj + 1, tmax + 1), sizeof(*w)));
	buf[0] = 1;
	for (size_t g = 0; g < (groups ? nr_groups : n); g++) {
		size_t t = groups ? groups[g] : 1, r2 = r + t;
		size_t jlo = r > d->ni ? r - d->ni : 0, jhi = r < d->nj ? r : d->nj;
		size_t jlo2 = r2 > d->ni ? r2 - d->ni : 0, jhi2 = r2 < d->nj ? r2 : d->nj;

		/* the group's split probabilities from every state before it */
		for (size_t s = jlo; s <= jhi; s++)
			hyper(n - r, d->nj - s, t, w + s * (t + 1));
		/* descending: cell j reads only cells below it and itself */
		for (size_t j = jhi2 + 1; j-- > jlo2;) {
			bool was = j >= jlo && j <= jhi, first = true;
			double a = was ? w[j * (t + 1)] : 0, *dst = buf + off[j];
			size_t lold = was ? cell_len(d, r - j, j) : 0;

			for (size_t c = 1; c <= t && c <= j; c++) {
				size_t src = j - c, i = r - src, add, m;
				double b;

				if (src < jlo || src > jhi || w[src * (t + 1) + c] == 0)
					continue;
				b = w[src * (t + 1) + c];
				add = (size_t)d->scale * c * i +
				      (size_t)(d->scale / 2) * c * (t - c);
				if (add > d->umax)
					continue;
				m = cell_len(d, i, src);
				m = m < d->umax - add + 1 ? m : d->umax - add + 1;
				if (first)
					combine(dst, lold, a, buf + off[src], add, m, b);
				else
					axpy(dst + add, buf + off[src], b, m);
				first = false;
			}
			if (first)
				scale_by(dst, a, lold);
		}
		r = r2;
	}
	out = xmalloc(xmul(d->umax + 1, sizeof(*out)));
	memcpy(out, buf + off[d->nj], sizeof(*out) * (d->umax + 1));
	free(off);
	free(buf);
	free(w);
	return out;
}

/* P(U = u / scale) of the candidate arm for u = 0..umax (caller frees).
 * Without ties the distribution is the same from either arm, so the smaller
 * one carries it; with ties a baseline arm that carries it gives
 * nb * nc - U, read backwards (umax must then be the whole range). */
static double *mw_pmf(size_t nb, size_t nc, const size_t *groups, size_t nr_groups,
		      unsigned scale, size_t umax)
{
	bool swap = nb < nc;
	struct dist d = { swap ? nc : nb, swap ? nb : nc, scale, umax };
	double *p = mw_dist(&d, groups, nr_groups);

	if (groups && swap) {
		if (umax != scale * nb * nc)
			BUG("a reversed distribution must be whole");
		for (size_t a = 0, b = umax; a < b; a++, b--) {
			double x = p[a];

			p[a] = p[b];
			p[b] = x;
		}
	}
	return p;
}

static bool exact_ok(size_t nb, size_t nc)
{
	return nb && nc && nb <= STATS_EXACT_MAX_PAIRS && nc <= STATS_EXACT_MAX_PAIRS / nb;
}

int stats_mw_pmf(size_t nb, size_t nc, const size_t *groups, size_t nr_groups, double **pmf,
		 size_t *len, unsigned *scale, struct err *e)
{
	size_t sum = 0;

	*scale = 1;
	if (!nb || !nc)
		return err_set(e, "mann-whitney distribution: an arm has no values");
	if (!exact_ok(nb, nc))
		return err_set(e, "mann-whitney distribution: %zu x %zu pairs exceed the exact "
				  "limit %d", nb, nc, STATS_EXACT_MAX_PAIRS);
	for (size_t g = 0; groups && g < nr_groups; g++) {
		if (!groups[g] || groups[g] > nb + nc - sum)
			return err_set(e, "mann-whitney distribution: tie group %zu of size %zu "
					  "does not fit", g, groups[g]);
		sum += groups[g];
		*scale = groups[g] > 1 ? 2 : *scale;
	}
	if (groups && sum != nb + nc)
		return err_set(e, "mann-whitney distribution: tie groups hold %zu values, not %zu",
			       sum, nb + nc);
	*len = *scale * nb * nc + 1;
	*pmf = mw_pmf(nb, nc, *scale > 1 ? groups : NULL, nr_groups, *scale, *len - 1);
	return 0;
}

double *stats_mw_tiefree_cdf(size_t nb, size_t nc)
{
	size_t qmax = nb * nc / 2;
	double *p = mw_pmf(nb, nc, NULL, 0, 1, qmax);

	for (size_t q = 1; q <= qmax; q++)
		p[q] += p[q - 1];
	return p;
}

bool stats_mw_exact(size_t nb, size_t nc)
{
	return exact_ok(nb, nc);
}

int stats_check_values(const char *what, const double *v, size_t n, struct err *e)
{
	if (!n)
		return err_set(e, "%s: no values", what);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return err_set(e, "%s: value %zu is not finite", what, i);
	return 0;
}

/* Two-sided p of the statistic u2 (in units of 1/scale) under the exact
 * distribution of these tie groups. */
static double exact_p(size_t nb, size_t nc, const size_t *groups, size_t nr_groups,
		      unsigned scale, size_t u2, const double *tiefree_cdf)
{
	size_t mn = nb * nc, top = scale * mn;
	double lower = 0, upper = 0, *pmf;

	if (scale == 1) {
		/* symmetric: the smaller tail is the one nearer its end */
		size_t q = u2 < mn - u2 ? u2 : mn - u2;
		double *cdf = tiefree_cdf ? NULL : stats_mw_tiefree_cdf(nb, nc);

		lower = (tiefree_cdf ? tiefree_cdf : cdf)[q];
		free(cdf);
		return 2 * lower;
	}
	pmf = mw_pmf(nb, nc, groups, nr_groups, scale, top);
	/* each tail summed from its far end: small terms first */
	for (size_t k = 0; k <= u2; k++)
		lower += pmf[k];
	for (size_t k = top + 1; k-- > u2;)
		upper += pmf[k];
	free(pmf);
	return 2 * (lower < upper ? lower : upper);
}

int stats_rank_test_with(const double *base, size_t nb, const double *cand, size_t nc,
			 const double *tiefree_cdf, struct stats_rank_test *out, struct err *e)
{
	double *b, *c, ties3 = 0;
	size_t *groups, nr_groups = 0, n = nb + nc, u2 = 0;
	unsigned scale;

	memset(out, 0, sizeof(*out));
	TRY(stats_check_values("baseline", base, nb, e));
	TRY(stats_check_values("candidate", cand, nc, e));
	b = stats_sorted_copy(base, nb);
	c = stats_sorted_copy(cand, nc);
	/* merge the two sorted arms into tie groups */
	groups = xmalloc(xmul(n, sizeof(*groups)));
	for (size_t i = 0, j = 0; i < nb || j < nc;) {
		double v = j >= nc || (i < nb && b[i] <= c[j]) ? b[i] : c[j];
		size_t t = 0;

		while (i < nb && b[i] == v)
			i++, t++;
		while (j < nc && c[j] == v)
			j++, t++;
		groups[nr_groups++] = t;
		ties3 += (double)t * (double)t * (double)t - (double)t;
	}
	out->ties = nr_groups < n;
	scale = out->ties ? 2 : 1;
	/* U in units of 1/scale: each candidate counts the smaller baselines,
	 * and half of the equal ones */
	for (size_t j = 0, lt = 0; j < nc; j++) {
		size_t eq = 0;

		while (lt < nb && b[lt] < c[j])
			lt++;
		while (lt + eq < nb && b[lt + eq] == c[j])
			eq++;
		u2 += scale * lt + scale / 2 * eq;
	}
	out->u = (double)u2 / scale;
	out->exact = exact_ok(nb, nc);
	if (out->exact) {
		out->p = exact_p(nb, nc, groups, nr_groups, scale, u2, tiefree_cdf);
	} else {
		/* R's normal approximation: tie-corrected variance, continuity
		 * correction towards the centre */
		double mn = (double)nb * (double)nc, z = out->u - mn / 2;
		double var = mn / 12 * ((double)n + 1 - ties3 / ((double)n * (double)(n - 1)));

		if (var > 0) {
			z = (z - (z > 0 ? 0.5 : z < 0 ? -0.5 : 0)) / sqrt(var);
			out->p = 2 * stats_normal_cdf(-fabs(z));
		} else {
			out->p = 1;
		}
	}
	out->p = out->p < 1 ? out->p : 1;
	free(groups);
	free(b);
	free(c);
	return 0;
}

int stats_rank_test(const double *base, size_t nb, const double *cand, size_t nc,
		    struct stats_rank_test *out, struct err *e)
{
	return stats_rank_test_with(base, nb, cand, nc, NULL, out, e);
}
