#include "base/dates.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Days from civil date (Howard Hinnant's algorithm, public domain idea). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	long era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

static void civil_from_days(long z, long *y, unsigned *m, unsigned *d)
{
	long era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (long)yoe + era * 400 + (*m <= 2);
}

static int is_leap(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int date_parse(const char *s, long *days, struct err *e)
{
	static const unsigned mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	long y;
	unsigned m, d;

	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return err_set(e, "date \"%s\" is not in YYYY-MM-DD form", s);
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return err_set(e, "date \"%s\" is not in YYYY-MM-DD form", s);
	y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	m = (unsigned)((s[5] - '0') * 10 + (s[6] - '0'));
	d = (unsigned)((s[8] - '0') * 10 + (s[9] - '0'));
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && is_leap(y)))
		return err_set(e, "date \"%s\" is not a calendar day", s);
	*days = days_from_civil(y, m, d);
	return 0;
}

void date_format(long days, char out[11])
{
	long y;
	unsigned m, d;

	char buf[64];

	civil_from_days(days, &y, &m, &d);
	snprintf(buf, sizeof(buf), "%04ld-%02u-%02u", y, m, d);
	memcpy(out, buf, 10);
	out[10] = '\0';
}

long date_today_utc(void)
{
	time_t t = time(NULL);

	return (long)(t / 86400) - (t < 0 && t % 86400);
}

int duration_parse(const char *s, int64_t *ns, struct err *e)
{
	const char *p = s;
	double whole = 0, scale;
	int digits = 0;

	while (isdigit((unsigned char)*p)) {
		whole = whole * 10 + (*p++ - '0');
		digits++;
	}
	if (*p == '.') {
		double f = 0.1;
		p++;
		while (isdigit((unsigned char)*p)) {
			whole += f * (*p++ - '0');
			f /= 10;
			digits++;
		}
	}
	if (!digits)
		return err_set(e, "invalid duration \"%s\": expected a number with ms, s, m or h",
			       s);
	if (!strcmp(p, "ms"))
		scale = 1e6;
	else if (!strcmp(p, "s"))
		scale = 1e9;
	else if (!strcmp(p, "m"))
		scale = 60e9;
	else if (!strcmp(p, "h"))
		scale = 3600e9;
	else
		return err_set(e, "invalid duration \"%s\": expected a number with ms, s, m or h",
			       s);
	if (whole * scale > 9.2e18)
		return err_set(e, "invalid duration \"%s\": too long", s);
	*ns = (int64_t)(whole * scale + 0.5);
	return 0;
}

void timestamp_format(int64_t unix_ns, char out[40])
{
	int64_t sec = unix_ns / 1000000000, frac = unix_ns % 1000000000;
	long days, rem;
	long y;
	unsigned m, d;
	char fs[16] = "";

	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	days = (long)(sec / 86400);
	rem = (long)(sec % 86400);
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	civil_from_days(days, &y, &m, &d);
	if (frac) {
		int n;
		snprintf(fs, sizeof(fs), ".%09lld", (long long)frac);
		n = (int)strlen(fs);
		while (fs[n - 1] == '0')
			fs[--n] = '\0';
	}
	snprintf(out, 40, "%04ld-%02u-%02uT%02ld:%02ld:%02ld%sZ", y, m, d, rem / 3600,
		 rem / 60 % 60, rem % 60, fs);
}

/* RFC 3339 UTC as written by timestamp_format, read back exactly. */
int timestamp_parse(const char *s, int64_t *ns)
{
	char day[11], again[40];
	struct err e;
	long days = 0;
	int hh, mm, ss, n = 0;
	int64_t frac = 0;
	const char *p;

	if (strlen(s) < 20 || s[10] != 'T')
		return -1;
	memcpy(day, s, 10);
	day[10] = '\0';
	if (date_parse(day, &days, &e) < 0)
		return -1;
	if (sscanf(s + 11, "%2d:%2d:%2d%n", &hh, &mm, &ss, &n) != 3 || n != 8 || hh > 23 ||
	    mm > 59 || ss > 59 || hh < 0 || mm < 0 || ss < 0)
		return -1;
	p = s + 19;
	if (*p == '.') {
		int digits = 0;

		for (p++; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
			frac = frac * 10 + (*p - '0');
		if (!digits)
			return -1;
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (strcmp(p, "Z"))
		return -1;
	*ns = ((int64_t)days * 86400 + hh * 3600 + mm * 60 + ss) * 1000000000 + frac;
	timestamp_format(*ns, again);
	return strcmp(again, s) ? -1 : 0;
}
