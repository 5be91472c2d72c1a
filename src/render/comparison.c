/* Human text of a comparison document: a header, one benchstat-style line
 * per metric and a legend. Every number comes from the document; this file
 * only formats and lays out. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"

#define COLUMNS 100
#define LABEL_WIDTH 5

/* A line being filled: tokens are appended with a separator; one that
 * would pass COLUMNS starts a continuation line indented by `indent`. */
struct line {
	struct strbuf *out;
	size_t col, indent;
	bool fresh;	/* nothing on this line yet: no separator */
};

#define LINE(out, indent) ((struct line){ (out), 0, (indent), true })

/* Display width: UTF-8 code points. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void put(struct line *l, const char *sep, const char *token)
{
	size_t w = width(token);

	if (!l->fresh && l->col > l->indent && l->col + width(sep) + w > COLUMNS) {
		sb_addch(l->out, '\n');
		for (l->col = 0; l->col < l->indent; l->col++)
			sb_addch(l->out, ' ');
		l->fresh = true;
	}
	if (!l->fresh) {
		sb_adds(l->out, sep);
		l->col += width(sep);
	}
	sb_adds(l->out, token);
	l->col += w;
	l->fresh = false;
}

static void end(struct line *l)
{
	sb_addch(l->out, '\n');
	l->col = 0;
	l->fresh = true;
}

/* Prose, one word at a time. */
static void words(struct line *l, const char *text)
{
	char word[256];

	while (*text) {
		size_t n = strcspn(text, " ");

		if (n) {
			snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) ? n : sizeof(word) - 1),
				 text);
			put(l, " ", word);
		}
		text += n + (text[n] == ' ');
	}
}

static const json_t *get(const json_t *o, const char *key)
{
	return json_object_get(o, key);
}

static double num(const json_t *o, const char *key)
{
	return json_number_value(get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(get(o, key));

	return s ? s : "";
}

/* Four significant digits, fixed point from 0.001 to 10^7. */
static void fmt_value(char *buf, size_t n, double v)
{
	double a = fabs(v);

	if (a == 0)
		snprintf(buf, n, "0");
	else if (a >= 1e-3 && a < 1e7)
		snprintf(buf, n, "%.*f", (int)fmax(0, 3 - floor(log10(a))), v);
	else
		snprintf(buf, n, "%.3e", v);
}

static void fmt_percent(char *buf, size_t n, double v)
{
	if (fabs(v) < 1e4)
		snprintf(buf, n, "%+.1f%%", v);
	else
		snprintf(buf, n, "%+.2e%%", v);
}

static void fmt_arm(char *buf, size_t n, const json_t *arm)
{
	char v[32];

	double noise = num(arm, "noise_percent");

	fmt_value(v, sizeof(v), num(arm, "median"));
	/* below 1% a decimal, so low noise does not read as none */
	snprintf(buf, n, "%s \u00b1%.*f%%", v, noise < 0.95 ? 1 : 0, noise);
}

static const char *verdict_mark(const char *verdict)
{
	return !strcmp(verdict, "faster") || !strcmp(verdict, "slower") ? verdict : "~";
}

void render_metric_line(struct strbuf *out, const json_t *metric)
{
	const json_t *ip = get(metric, "interval_percent");
	struct line l = LINE(out, LABEL_WIDTH + 2);
	char buf[96], lo[40], hi[40];
	double level = num(metric, "confidence_level") * 100, p = num(metric, "p_value");

	snprintf(buf, sizeof(buf), "%-*s", LABEL_WIDTH, str(metric, "unit"));
	put(&l, "", buf);
	fmt_arm(buf, sizeof(buf), get(metric, "baseline"));
	put(&l, "  ", buf);
	put(&l, "  ", "\u2192");
	fmt_arm(buf, sizeof(buf), get(metric, "candidate"));
	put(&l, "  ", buf);
	fmt_percent(buf, sizeof(buf), num(metric, "shift_percent"));
	put(&l, "  ", buf);
	fmt_percent(lo, sizeof(lo), num(ip, "lower"));
	fmt_percent(hi, sizeof(hi), num(ip, "upper"));
	snprintf(buf, sizeof(buf), "[%s, %s]", lo, hi);
	put(&l, " ", buf);
	/* 90% and 94.4%: one decimal, cut rather than rounded so a level below
	 * 95% never reads as 95% (the hair absorbs 0.9 * 1000 = 899.99...) */
	level = floor(level * 10 + 1e-9) / 10;
	if (fmod(level * 10, 10) == 0)
		snprintf(buf, sizeof(buf), "%.0f%% CI", level);
	else
		snprintf(buf, sizeof(buf), "%.1f%% CI", level);
	put(&l, " ", buf);
	if (p >= 0.0005)
		snprintf(buf, sizeof(buf), "p=%.3f", p);
	else
		snprintf(buf, sizeof(buf), "p=%.1e", p);
	put(&l, "  ", buf);
	snprintf(buf, sizeof(buf), "n=%.0f+%.0f", num(get(metric, "baseline"), "repetitions"),
		 num(get(metric, "candidate"), "repetitions"));
	put(&l, "  ", buf);
	put(&l, "  ", verdict_mark(str(metric, "verdict")));
	end(&l);
}

/* The notes under the lines: method when it is not the plain exact one,
 * and the repetitions a shift of the observed size needs. */
static void metric_notes(struct strbuf *out, const json_t *metric)
{
	struct line l = LINE(out, 2);
	const json_t *need = get(metric, "repetitions_needed");
	char buf[160];

	if (json_is_true(get(metric, "ties")) || json_is_false(get(metric, "exact"))) {
		snprintf(buf, sizeof(buf), "%s:", str(metric, "unit"));
		put(&l, "", buf);
		words(&l, str(metric, "method"));
		end(&l);
	}
	snprintf(buf, sizeof(buf), "%s:", str(metric, "unit"));
	put(&l, "", buf);
	if (json_is_integer(need)) {
		snprintf(buf, sizeof(buf), "about %lld repetitions per arm would resolve a shift of this "
					   "size at 95%%", (long long)json_integer_value(need));
		words(&l, buf);
	} else {
		words(&l, "no repetition count:");
		words(&l, str(metric, "repetitions_needed_reason"));
	}
	end(&l);
}

/* How the arms ran in time, each run with its start, and the warning of a
 * blocked arrangement. */
static void order_text(struct strbuf *out, const json_t *order)
{
	const json_t *runs = get(order, "runs");
	const char *req = str(order, "requested"), *arr = str(order, "arrangement");
	struct line l = LINE(out, 11);
	size_t i;
	const json_t *u;

	if (!json_is_array(runs)) {
		sb_adds(out, "order      unknown: the receipts record no experiment schedule\n");
		return;
	}
	sb_addf(out, "order      %s%s%s\n", arr, strcmp(req, arr) ? ", requested " : "",
		strcmp(req, arr) ? req : "");
	json_array_foreach (runs, i, u) {
		const char *kind = str(u, "kind");

		sb_addf(out, "           %2zu  %-9s  %-10s %3lld  %s\n", i + 1, str(u, "arm"),
			!strcmp(kind, "warmup") ? "warm-up" : kind, (long long)json_integer_value(get(u, "index")) + 1,
			str(u, "started_at_utc"));
	}
	if (get(order, "warning")) {
		put(&l, "", "warning   ");
		words(&l, str(order, "warning"));
		end(&l);
	}
}

/* How many repetitions of each arm are sealed by their attestation. */
static void bound_text(struct strbuf *out, const json_t *bound)
{
	static const char *const arms[] = { "baseline", "candidate" };
	size_t n = 0, total = 0, i;
	const json_t *v;

	for (int a = 0; a < 2; a++)
		json_array_foreach (get(bound, arms[a]), i, v) {
			total++;
			n += json_is_true(v);
		}
	if (n == total)
		sb_addf(out, "metrics    sealed: every repetition (%zu) equals its attestation's measurement\n", n);
	else if (!n)
		sb_addf(out, "metrics    not sealed: no repetition (of %zu) was measured by fak; the values were "
			     "typed in\n", total);
	else
		sb_addf(out, "metrics    %zu of %zu repetitions sealed; the others were typed in\n", n, total);
}

void render_comparison_text(struct strbuf *out, const json_t *doc)
{
	static const char *const metrics[] = { "tokens_per_second", "end_to_end_milliseconds" };
	const json_t *st = get(doc, "statistics");
	struct line l = LINE(out, 0);
	char buf[320];

	sb_addf(out, "envelope   %s\n", str(doc, "envelope_id"));
	sb_addf(out, "lever      %s\n", str(doc, "changed_lever_id"));
	sb_addf(out, "revisions  %s (baseline) \u2192 %s (candidate)\n", str(doc, "baseline_revision"),
		str(doc, "candidate_revision"));
	bound_text(out, get(doc, "metrics_bound"));
	order_text(out, get(doc, "order"));
	sb_addch(out, '\n');
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		render_metric_line(out, get(st, metrics[i]));
	sb_addch(out, '\n');
	snprintf(buf, sizeof(buf), "Median \u00b1noise, Hodges-Lehmann shift of the candidate in "
				   "percent of the baseline median with its distribution-free "
				   "interval, two-sided Mann-Whitney p. faster or slower: the whole "
				   "interval lies beyond the \u00b1%g%% noise threshold; ~: no "
				   "detectable change.",
		 num(st, "noise_threshold_percent"));
	words(&l, buf);
	end(&l);
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		metric_notes(out, get(st, metrics[i]));
}
