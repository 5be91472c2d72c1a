#ifndef FAK_RENDER_FMT_H
#define FAK_RENDER_FMT_H
/* Inside render/: how numbers and JSON members of the documents read in
 * every human format (text, Markdown, SVG labels). Formatting only: every
 * value comes from the document. */
#include <jansson.h>
#include <stddef.h>

#define FMT_MAX 64
/* Enough for one number (fmt_value, fmt_percent, fmt_level, fmt_p). */
#define FMT_PART 24

/* Members of a borrowed object; "" and 0 when absent. */
const json_t *fmt_get(const json_t *o, const char *key);
double fmt_num(const json_t *o, const char *key);
const char *fmt_str(const json_t *o, const char *key);

/* Four significant digits, fixed point from 0.001 to 10^7: 2.620, 24427. */
void fmt_value(char buf[FMT_PART], double v);
/* Signed percent with one decimal: +3.4%. */
void fmt_percent(char buf[FMT_PART], double v);
/* An arm object {median, noise_percent}: "2.620 ±0.3%". */
void fmt_arm(char buf[FMT_MAX], const json_t *arm);
/* A value and its noise: "2.620 ±0.3%" (below 1% with a decimal). */
void fmt_value_noise(char buf[FMT_MAX], double value, double noise_percent);
/* A confidence level in 0..1 as a percent, cut (never rounded up) to one
 * decimal: "90%", "94.4%". */
void fmt_level(char buf[FMT_PART], double level);
/* A p-value: "0.100", "1.2e-05". */
void fmt_p(char buf[FMT_PART], double p);
/* An interval object {lower, upper} in percent: "[+2.7%, +4.2%]". */
void fmt_interval(char buf[FMT_MAX], const json_t *interval_percent);
/* A shift object {shift_percent, interval_percent, confidence_level}:
 * "+3.4% [+2.7%, +4.2%] 90% CI". */
#define FMT_SHIFT (FMT_PART + FMT_MAX + FMT_PART + 8)
void fmt_shift(char buf[FMT_SHIFT], const json_t *shift);
/* A noise band object {lower, upper} in percent, the threshold as a ratio
 * either way: "+2% or -1.96%". */
void fmt_band(char buf[FMT_MAX], const json_t *band);
/* A metric's verdict as the reports show it: faster, slower or "~". */
const char *fmt_verdict(const char *verdict);

#endif
