/* The hill-climb chart: one panel per envelope, each on its own axis. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/xalloc.h"
#include "render/chart.h"
#include "render/svg.h"
#include "render/wrap.h"

#define WIDTH 1000.0
#define PANEL_X 16.0
#define PANEL_W (WIDTH - 2 * PANEL_X)
#define LABEL_X 32.0
#define PX0 360.0	/* the plot area of a panel's axis */
#define PX1 950.0
#define MONO_PX 7.3	/* advance of a monospace character at 12px */
#define SANS_PX 6.9	/* a generous average of a sans-serif one */
#define BOLD_PX 7.6	/* and of a bold one */
#define HEAD_H 96.0	/* title and legend of the chart */
#define PANEL_TOP 84.0	/* panel header down to its axis */
#define RUNG_H 52.0
#define EMPTY_H 30.0
#define AXIS_FOOT 56.0	/* axis foot: floor and comparison labels */
#define LEVER_HEAD 26.0
#define LINE_H 16.0	/* a line of text in a lever row */
#define LEVER_LINES 2	/* lines of its hypothesis and of its witness, at most */
#define PANEL_GAP 20.0

static size_t chars(double px, double per)
{
	return px > per ? (size_t)(px / per) : 1;
}

static void number(char *buf, double v)
{
	json_format_double(buf, v);
}

/* Text split at spaces into lines of at most max code points, at most
 * LEVER_LINES of them; the last takes the rest (svg_text cuts it, and shows
 * its line breaks and tabs as spaces). A line break in the text starts a
 * line while there is one to start. Returns the number of lines. */
static size_t split(const char *text, size_t max, struct strbuf lines[LEVER_LINES])
{
	size_t n = 1, w = 0;

	for (size_t i = 0; i < LEVER_LINES; i++)
		sb_reset(&lines[i]);
	while (*text) {
		size_t len = strcspn(text, " \t\r\n"), ww = 0;

		if (!len) {
			/* a line break in the text starts a line while there is one */
			if ((*text == '\n' || *text == '\r') && w && n < LEVER_LINES) {
				text += text[0] == '\r' && text[1] == '\n';
				n++;
				w = 0;
			}
			text++;
			continue;
		}
		for (size_t i = 0; i < len; i++)
			ww += ((unsigned char)text[i] & 0xC0) != 0x80;
		if (w && w + 1 + ww > max) {
			if (n == LEVER_LINES) {
				sb_addch(&lines[n - 1], ' ');
				sb_adds(&lines[n - 1], text);	/* the rest, cut when drawn */
				break;
			}
			n++;
			w = 0;
		}
		if (w)
			sb_addch(&lines[n - 1], ' ');
		sb_add(&lines[n - 1], text, len);
		w += (w ? 1 : 0) + ww;
		text += len;
	}
	return n;
}

static const char *hypothesis(const struct lever *l, struct strbuf *t)
{
	sb_reset(t);
	sb_addf(t, "%s: %s", l->expected.classification, l->expected.summary);
	return t->buf;
}

static const char *witness(const struct lever *l, struct strbuf *t)
{
	sb_reset(t);
	if (l->has_witnessed)
		sb_addf(t, "%s: %s \u00b7 receipt: %s", l->witnessed.classification,
			l->witnessed.summary, l->witnessed.receipt);
	else
		sb_adds(t, "witnessed: pending (no receipt yet)");
	return t->buf;
}

#define TEXT_CHARS ((size_t)((PANEL_W - 40) / SANS_PX))
#define BOLD_CHARS ((size_t)((PANEL_W - 40) / BOLD_PX))

/* The characters of a line of a lever's witness: bold when witnessed. */
static size_t witness_chars(const struct lever *l)
{
	return l->has_witnessed ? BOLD_CHARS : TEXT_CHARS;
}

static double lever_height(const struct lever *l)
{
	struct strbuf t = STRBUF_INIT, lines[LEVER_LINES] = { STRBUF_INIT, STRBUF_INIT };
	size_t n = split(hypothesis(l, &t), TEXT_CHARS, lines) +
		   split(witness(l, &t), witness_chars(l), lines);

	sb_release(&t);
	for (size_t i = 0; i < LEVER_LINES; i++)
		sb_release(&lines[i]);
	return 24 + (double)n * LINE_H;
}

/* The levers a panel plots on its axis: those whose witness states its
 * medians (graph_lever_witnessed_medians). */
static size_t plotted_levers(const struct graph_climb *c)
{
	size_t n = 0;
	double b, v;

	for (size_t i = 0; i < c->nr_levers; i++)
		n += graph_lever_witnessed_medians(c->levers[i], &b, &v);
	return n;
}

/* The rows on a panel's axis: its rungs, then its plotted levers. */
static size_t axis_rows(const struct graph_climb *c)
{
	return c->nr_rungs + plotted_levers(c);
}

static double panel_height(const struct graph_climb *c)
{
	size_t rows = axis_rows(c);
	double h = PANEL_TOP + (rows ? (double)rows * RUNG_H : EMPTY_H) + AXIS_FOOT + LEVER_HEAD +
		   8;

	for (size_t i = 0; i < c->nr_levers; i++)
		h += lever_height(c->levers[i]);
	return h;
}

/* The axis of a panel: from 0 past its largest value, every witnessed
 * value (of a rung or of a lever) included, so none is ever off the axis. */
static void panel_axis(const struct graph_climb *c, struct svg_axis *a)
{
	double hi = 0, b, v;

	for (size_t i = 0; i < c->nr_levers; i++)
		if (graph_lever_witnessed_medians(c->levers[i], &b, &v))
			hi = fmax(hi, fmax(b, v));

	if (c->crit)
		hi = fmax(hi, c->crit->minimum_throughput_tokens_per_second);
	if (c->comparison)
		hi = fmax(hi, c->comparison->tokens_per_second);
	for (size_t i = 0; i < c->nr_rungs; i++) {
		hi = fmax(hi, c->rungs[i]->expected.roof);
		if (c->rungs[i]->has_witnessed)
			hi = fmax(hi, c->rungs[i]->witnessed.tokens_per_second);
	}
	svg_axis(0, hi > 0 ? hi * 1.08 : 1, 6, a);
}

static double xpos(const struct svg_axis *a, double v)
{
	return PX0 + (v - a->first) / (a->last - a->first) * (PX1 - PX0);
}

/* The boxes of the labels drawn on a panel's axis, which its floor and
 * comparison lines leave a gap for. */
struct boxes {
	struct box {
		double x0, y0, x1, y1;
	} *v;
	size_t n, cap;
};

/* A label at x: it starts at x, or ends there when it would pass the right
 * edge of the panel and has more room on the left (down to left). Its box
 * (12px text: 10px above the baseline, 3px below) goes to b. */
static void plot_label(struct strbuf *out, double x, double y, const char *cls, const char *text,
		       double left, struct boxes *b)
{
	double per = !strcmp(cls, "wit") ? BOLD_PX : SANS_PX;
	size_t room_right = chars(PANEL_X + PANEL_W - 8 - x, per), room_left = chars(x - left, per),
	       w = wrap_width(text), shown;
	bool start = w <= room_right || room_right >= room_left;

	shown = start ? (w < room_right ? w : room_right) : (w < room_left ? w : room_left);
	svg_text(out, x, y, cls, start ? "start" : "end", text, start ? room_right : room_left);
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 8;
		b->v = xrealloc(b->v, xmul(b->cap, sizeof(*b->v)));
	}
	b->v[b->n++] = (struct box){ start ? x : x - (double)shown * per, y - 10,
				     start ? x + (double)shown * per : x, y + 3 };
}

static int by_top(const void *a, const void *b)
{
	double d = ((const struct box *)a)->y0 - ((const struct box *)b)->y0;

	return (d > 0) - (d < 0);
}

/* A vertical line at x from y0 to y1, broken where a label of b lies across
 * it (2px apart), so no label is crossed by it. */
static void vline(struct strbuf *out, double x, double y0, double y1, const char *cls,
		  const struct boxes *b)
{
	struct box *hit = xcalloc(b->n + 1, sizeof(*hit));
	size_t n = 0;

	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].x0 - 2 <= x && x <= b->v[i].x1 + 2)
			hit[n++] = b->v[i];
	qsort(hit, n, sizeof(*hit), by_top);
	for (size_t i = 0; i < n && y0 < y1; i++) {
		if (hit[i].y0 - 2 > y0)
			svg_line(out, x, y0, x, fmin(hit[i].y0 - 2, y1), cls);
		y0 = fmax(y0, hit[i].y1 + 2);
	}
	if (y0 < y1)
		svg_line(out, x, y0, x, y1, cls);
	free(hit);
}

static void legend(struct strbuf *out, double y)
{
	double x = LABEL_X;

	svg_rect(out, x, y - 9, 22, 10, "bar");
	svg_text(out, x + 28, y, "small", "start", "expected range (hypothesis)", 0);
	x += 210;
	svg_diamond(out, x + 8, y - 4, 6, "witness");
	svg_text(out, x + 20, y, "small", "start", "witnessed value, with its source", 0);
	x += 225;
	svg_line(out, x, y - 4, x + 24, y - 4, "floor");
	svg_text(out, x + 30, y, "small", "start", "criterion floor", 0);
	x += 125;
	svg_line(out, x, y - 4, x + 24, y - 4, "cmp");
	svg_text(out, x + 30, y, "small", "start", "comparison point (not a witness)", 0);
	x += 225;
	svg_circle(out, x + 5, y - 4, 4.5, "on");
	svg_text(out, x + 14, y, "small", "start", "enabled", 0);
	svg_circle(out, x + 80, y - 4, 4.5, "off");
	svg_text(out, x + 89, y, "small", "start", "disabled", 0);
}

static void deps_text(struct strbuf *t, const struct strlist *deps)
{
	if (!deps->n)
		return;
	sb_adds(t, "; after ");
	for (size_t i = 0; i < deps->n; i++)
		sb_addf(t, "%s%s", i ? ", " : "", deps->v[i]);
}

static void rung_row(struct strbuf *out, const struct rung *r, const struct svg_axis *a, double y,
		     struct boxes *b)
{
	struct strbuf t = STRBUF_INIT;
	char lo[JSON_NUMBER_MAX], hi[JSON_NUMBER_MAX];
	double x0 = xpos(a, r->expected.floor), x1 = xpos(a, r->expected.roof);

	svg_circle(out, LABEL_X + 4, y + 18, 4.5, r->enabled ? "on" : "off");
	svg_text(out, LABEL_X + 14, y + 22, "id", "start", r->id,
		 chars(PX0 - LABEL_X - 30, MONO_PX));
	sb_addf(&t, "rung, %s", r->status);
	deps_text(&t, &r->deps);
	svg_text(out, LABEL_X + 14, y + 38, "small", "start", t.buf,
		 chars(PX0 - LABEL_X - 30, SANS_PX * 0.92));
	number(lo, r->expected.floor);
	number(hi, r->expected.roof);
	sb_reset(&t);
	sb_addf(&t, "%s %s\u2013%s tok/s", r->expected.classification, lo, hi);
	plot_label(out, x0, y + 12, "hyp", t.buf, PX0, b);
	svg_rect(out, x0, y + 16, fmax(x1 - x0, 2), 12, "bar");
	sb_reset(&t);
	if (r->has_witnessed) {
		double x = xpos(a, r->witnessed.tokens_per_second);

		number(lo, r->witnessed.tokens_per_second);
		svg_diamond(out, x, y + 22, 6.5, "witness");
		sb_addf(&t, "%s %s tok/s (%s) \u00b7 %s", r->witnessed.classification, lo,
			r->witnessed.comparability, r->witnessed.provenance);
		plot_label(out, x, y + 44, "wit", t.buf, PX0, b);
	} else {
		plot_label(out, x0, y + 44, "pending", "witnessed: pending (no receipt yet)", PX0,
			   b);
	}
	sb_release(&t);
}

/* A witnessed lever on the axis: the step from its baseline's median (a
 * ring) to its candidate's (a diamond), as its witness states them. */
static void lever_axis_row(struct strbuf *out, const struct lever *l, double base, double cand,
			   const struct svg_axis *a, double y, struct boxes *b)
{
	struct strbuf t = STRBUF_INIT;
	char v0[JSON_NUMBER_MAX], v1[JSON_NUMBER_MAX];
	double x0 = xpos(a, base), x1 = xpos(a, cand);

	svg_circle(out, LABEL_X + 4, y + 18, 4.5, l->enabled ? "on" : "off");
	svg_text(out, LABEL_X + 14, y + 22, "id", "start", l->id,
		 chars(PX0 - LABEL_X - 30, MONO_PX));
	svg_text(out, LABEL_X + 14, y + 38, "small", "start", "lever, witnessed",
		 chars(PX0 - LABEL_X - 30, SANS_PX * 0.92));
	svg_line(out, x0, y + 22, x1, y + 22, "step");
	svg_circle(out, x0, y + 22, 4, "off");
	svg_diamond(out, x1, y + 22, 6.5, "witness");
	number(v0, base);
	number(v1, cand);
	sb_addf(&t, "witnessed %s tok/s (median; baseline %s)", v1, v0);
	plot_label(out, x1, y + 44, "wit", t.buf, PX0, b);
	sb_release(&t);
}

/* Draws lines[0..n) from y, one per LINE_H; returns the y after them. */
static double text_lines(struct strbuf *out, double y, const char *cls, struct strbuf *lines,
			 size_t n, size_t max)
{
	for (size_t i = 0; i < n; i++, y += LINE_H)
		svg_text(out, LABEL_X + 14, y, cls, "start", lines[i].buf, max);
	return y;
}

static void lever_row(struct strbuf *out, const struct lever *l, double y)
{
	struct strbuf t = STRBUF_INIT, lines[LEVER_LINES] = { STRBUF_INIT, STRBUF_INIT };
	size_t id_chars = chars(PANEL_W - 60, MONO_PX) / 2, shown, n;
	double x;

	svg_circle(out, LABEL_X + 4, y + 12, 4.5, l->enabled ? "on" : "off");
	svg_text(out, LABEL_X + 14, y + 16, "id", "start", l->id, id_chars);
	shown = wrap_width(l->id) < id_chars ? wrap_width(l->id) : id_chars;
	sb_addf(&t, "%s, %s%s; issue #%lld", l->enabled ? "enabled" : "disabled", l->status,
		l->has_witnessed ? ", witnessed" : "", l->owner.number);
	deps_text(&t, &l->deps);
	x = LABEL_X + 14 + (double)shown * MONO_PX + 12;
	svg_text(out, x, y + 16, "small", "start", t.buf,
		 chars(PANEL_X + PANEL_W - 12 - x, SANS_PX * 0.92));
	n = split(hypothesis(l, &t), TEXT_CHARS, lines);
	y = text_lines(out, y + 33, "hyp", lines, n, TEXT_CHARS);
	n = split(witness(l, &t), witness_chars(l), lines);
	text_lines(out, y, l->has_witnessed ? "wit" : "pending", lines, n, witness_chars(l));
	sb_release(&t);
	for (size_t i = 0; i < LEVER_LINES; i++)
		sb_release(&lines[i]);
}

static void panel(struct strbuf *out, const struct graph_climb *c, double y)
{
	const struct envelope *v = c->env;
	const char *plat = graph_envelope_platform(v);
	struct strbuf t = STRBUF_INIT;
	struct svg_axis a;
	struct boxes b = { 0 };
	char buf[64];
	double ya = y + PANEL_TOP, yb, yl, bm, cm;
	size_t rows = axis_rows(c), row = 0;

	svg_rect(out, PANEL_X, y, PANEL_W, panel_height(c), "frame");
	svg_text(out, LABEL_X, y + 22, "head id", "start", v->id,
		 chars(PANEL_W - 40, MONO_PX * 1.15));
	sb_addf(&t, "%s \u00b7 %s \u00b7 %s \u00b7 %s \u00b7 P%lld/T%lld \u00b7 %lld repetitions",
		v->model, v->hardware, plat ? plat : "?", v->backend, v->prompt_tokens,
		v->decode_tokens, v->repetitions);
	svg_text(out, LABEL_X, y + 40, "small", "start", t.buf,
		 chars(PANEL_W - 40, SANS_PX * 0.92));
	sb_reset(&t);
	sb_addf(&t, "tok/s on this envelope's own axis: %s", v->throughput_metric);
	svg_text(out, LABEL_X, y + 56, "small", "start", t.buf,
		 chars(PANEL_W - 40, SANS_PX * 0.92));

	panel_axis(c, &a);
	yb = ya + (rows ? (double)rows * RUNG_H : EMPTY_H);
	for (double k = 0, tick; (tick = a.first + k * a.step) <= a.last + a.step * 1e-6; k++) {
		double x = xpos(&a, tick);

		svg_line(out, x, ya, x, yb, "grid");
		svg_tick_label(buf, sizeof(buf), &a, tick);
		svg_text(out, x, ya - 4, "small", "middle", buf, 0);
	}
	svg_line(out, PX0, yb, PX1, yb, "axis");
	svg_text(out, PX1, yb + 14, "small", "end", "tok/s", 0);
	/* in the label column, left of the axis: no line of it crosses the note */
	if (!rows)
		svg_text(out, LABEL_X + 14, ya + 20, "pending", "start",
			 "no rungs: the levers are below", chars(PX0 - LABEL_X - 30, SANS_PX));
	for (size_t i = 0; i < c->nr_rungs; i++)
		rung_row(out, c->rungs[i], &a, ya + (double)row++ * RUNG_H, &b);
	for (size_t i = 0; i < c->nr_levers; i++)
		if (graph_lever_witnessed_medians(c->levers[i], &bm, &cm))
			lever_axis_row(out, c->levers[i], bm, cm, &a, ya + (double)row++ * RUNG_H,
				       &b);
	if (c->crit) {
		double x = xpos(&a, c->crit->minimum_throughput_tokens_per_second);

		number(buf, c->crit->minimum_throughput_tokens_per_second);
		vline(out, x, ya - 2, yb + 4, "floor", &b);
		sb_reset(&t);
		sb_addf(&t, "criterion floor %s tok/s", buf);
		plot_label(out, x, yb + 30, "floor-label", t.buf, LABEL_X, &b);
	}
	if (c->comparison) {
		double x = xpos(&a, c->comparison->tokens_per_second);

		number(buf, c->comparison->tokens_per_second);
		vline(out, x, ya - 2, yb + 4, "cmp", &b);
		sb_reset(&t);
		sb_addf(&t, "comparison %s tok/s: %s (%s/%s; not a witness)", buf,
			c->comparison->engine, c->comparison->classification,
			c->comparison->comparability);
		plot_label(out, x, yb + 46, "cmp-label", t.buf, LABEL_X, &b);
	}
	free(b.v);
	yl = yb + AXIS_FOOT;
	svg_text(out, LABEL_X, yl + 14, "head", "start",
		 c->nr_levers ? "Levers, in dependency order" : "No levers in this envelope", 0);
	yl += LEVER_HEAD - 6;
	for (size_t i = 0; i < c->nr_levers; i++) {
		lever_row(out, c->levers[i], yl);
		yl += lever_height(c->levers[i]);
	}
	sb_release(&t);
}

void render_chart_climb(struct strbuf *out, const struct graph *g, const struct graph_climb *climbs)
{
	double h = HEAD_H;

	for (size_t k = 0; k < g->nr_envelopes; k++)
		h += panel_height(&climbs[k]) + PANEL_GAP;
	svg_begin(out, WIDTH, h, "Native-performance hill climb, one panel per envelope");
	svg_text(out, LABEL_X, 30, "title", "start", "Native-performance hill climb", 0);
	svg_text(out, LABEL_X, 50, "note", "start",
		 "One panel per envelope, each on its own axis: envelopes are separate curves, "
		 "never combined or ranked. Rungs and levers in dependency order.", 0);
	legend(out, 76);
	h = HEAD_H;
	for (size_t k = 0; k < g->nr_envelopes; k++) {
		panel(out, &climbs[k], h);
		h += panel_height(&climbs[k]) + PANEL_GAP;
	}
	svg_end(out);
}
