#include "render/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const json_t *fmt_get(const json_t *o, const char *key)
{
	return json_object_get(o, key);
}

double fmt_num(const json_t *o, const char *key)
{
	return json_number_value(fmt_get(o, key));
}

const char *fmt_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(fmt_get(o, key));

	return s ? s : "";
}

void fmt_value(char buf[FMT_PART], double v)
{
	double a = fabs(v);

	if (a == 0)
		snprintf(buf, FMT_PART, "0");
	else if (a >= 1e-3 && a < 1e7)
		snprintf(buf, FMT_PART, "%.*f", (int)fmax(0, 3 - floor(log10(a))), v);
	else
		snprintf(buf, FMT_PART, "%.3e", v);
}

void fmt_percent(char buf[FMT_PART], double v)
{
	if (fabs(v) < 1e4)
		snprintf(buf, FMT_PART, "%+.1f%%", v);
	else
		snprintf(buf, FMT_PART, "%+.2e%%", v);
}

void fmt_value_noise(char buf[FMT_MAX], double value, double noise)
{
	char v[FMT_PART];

	fmt_value(v, value);
	/* below 1% a decimal, so low noise does not read as none */
	snprintf(buf, FMT_MAX, "%s \u00b1%.*f%%", v, noise < 0.95 ? 1 : 0, noise);
}

void fmt_arm(char buf[FMT_MAX], const json_t *arm)
{
	fmt_value_noise(buf, fmt_num(arm, "median"), fmt_num(arm, "noise_percent"));
}

void fmt_level(char buf[FMT_PART], double level)
{
	/* 90% and 94.4%: one decimal, cut rather than rounded so a level below
	 * 95% never reads as 95% (the hair absorbs 0.9 * 1000 = 899.99...) */
	level = floor(level * 1000 + 1e-9) / 10;
	if (fmod(level * 10, 10) == 0)
		snprintf(buf, FMT_PART, "%.0f%%", level);
	else
		snprintf(buf, FMT_PART, "%.1f%%", level);
}

void fmt_p(char buf[FMT_PART], double p)
{
	if (p >= 0.0005)
		snprintf(buf, FMT_PART, "%.3f", p);
	else
		snprintf(buf, FMT_PART, "%.1e", p);
}

void fmt_interval(char buf[FMT_MAX], const json_t *ip)
{
	char lo[FMT_PART], hi[FMT_PART];

	fmt_percent(lo, fmt_num(ip, "lower"));
	fmt_percent(hi, fmt_num(ip, "upper"));
	snprintf(buf, FMT_MAX, "[%s, %s]", lo, hi);
}

void fmt_band(char buf[FMT_MAX], const json_t *band)
{
	/* + 0.0: a threshold of 0 reads +0%, not -0% */
	snprintf(buf, FMT_MAX, "%+.3g%% or %+.3g%%", fmt_num(band, "upper") + 0.0,
		 fmt_num(band, "lower") + 0.0);
}

void fmt_shift(char buf[FMT_SHIFT], const json_t *s)
{
	char d[FMT_PART], ci[FMT_MAX], lv[FMT_PART];

	fmt_percent(d, fmt_num(s, "shift_percent"));
	fmt_interval(ci, fmt_get(s, "interval_percent"));
	fmt_level(lv, fmt_num(s, "confidence_level"));
	snprintf(buf, FMT_SHIFT, "%s %s %s CI", d, ci, lv);
}

const char *fmt_verdict(const char *verdict)
{
	return verdict;
}
