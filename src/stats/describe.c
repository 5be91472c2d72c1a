/* Descriptive statistics of one arm. */
#include "stats/stats.h"
#include "stats/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double *stats_sorted_copy(const double *v, size_t n)
{
	double *s = xmalloc(xmul(n ? n : 1, sizeof(*s)));

	if (n)
		memcpy(s, v, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

void stats_compute(const double *v, size_t n, struct stats *out)
{
	double *s, sum = 0, sq = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	s = stats_sorted_copy(v, n);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	out->n = n;
	/* equal values have their own mean and no spread, whatever the
	 * rounding of their sum */
	out->mean = s[0] == s[n - 1] ? s[0] : sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (s[i] - out->mean) * (s[i] - out->mean);
	out->stddev = sqrt(sq / (double)n);
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	out->noise_percent = out->mean != 0 ? out->stddev / out->mean * 100 : INFINITY;
	free(s);
}

bool stats_finite(const struct stats *s)
{
	return isfinite(s->mean) && isfinite(s->median) && isfinite(s->min) && isfinite(s->max) &&
	       isfinite(s->stddev) && isfinite(s->noise_percent);
}
