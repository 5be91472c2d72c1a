#ifndef FAK_BASE_DATES_H
#define FAK_BASE_DATES_H
/* Calendar dates (YYYY-MM-DD, proleptic Gregorian, UTC) as day numbers,
 * and durations ("250ms", "2s", "1.5m"). */
#include <stdint.h>

#include "base/err.h"

/* Strict YYYY-MM-DD with a real calendar day; *days = days since 1970-01-01. */
int date_parse(const char *s, long *days, struct err *e);
/* out gets "YYYY-MM-DD" + NUL. */
void date_format(long days, char out[11]);
/* Today's date in UTC. */
long date_today_utc(void);

/* A duration: a decimal number followed by "ms", "s", "m" or "h".
 * *ns = nanoseconds. Rejects signs, blanks, missing units and overflow. */
int duration_parse(const char *s, int64_t *ns, struct err *e);

/* RFC 3339 UTC timestamp with nanoseconds, trailing zeros trimmed:
 * 2026-11-30T03:14:07.25Z. out must hold 40 bytes. */
void timestamp_format(int64_t unix_ns, char out[40]);
/* The inverse, exactly: only what timestamp_format writes is accepted. */
int timestamp_parse(const char *s, int64_t *ns);

#endif
