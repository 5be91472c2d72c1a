#ifndef FAK_RENDER_SVG_H
#define FAK_RENDER_SVG_H
/* Inside render/: the SVG primitives of fak's charts. Coordinates are
 * printed with one decimal and numbers of axes with the decimals of their
 * step, so the same input gives the same bytes; every text is data and goes
 * through esc_xml; a text longer than its room is cut with "…" and keeps
 * its whole value in a <title> (a tooltip). Styles are CSS classes of the
 * document's <style>. */
#include <stddef.h>

#include "base/strbuf.h"

/* Opens the document: width x height, its <title> (data text), the style
 * sheet and a white background. */
void svg_begin(struct strbuf *out, double width, double height, const char *title);
void svg_end(struct strbuf *out);

/* anchor: "start", "middle" or "end". max_chars 0: no limit. */
void svg_text(struct strbuf *out, double x, double y, const char *cls, const char *anchor,
	      const char *text, size_t max_chars);
void svg_line(struct strbuf *out, double x1, double y1, double x2, double y2, const char *cls);
void svg_rect(struct strbuf *out, double x, double y, double w, double h, const char *cls);
/* A line through n points (xy holds x0, y0, x1, y1, ...), unfilled, in the
 * colour stroke (#rrggbb). */
void svg_polyline(struct strbuf *out, const double *xy, size_t n, const char *stroke);
void svg_circle(struct strbuf *out, double cx, double cy, double r, const char *cls);
/* A diamond of half-diagonal r. */
void svg_diamond(struct strbuf *out, double cx, double cy, double r, const char *cls);
/* An axis-aligned square of half-side r. */
void svg_square(struct strbuf *out, double cx, double cy, double r, const char *cls);

/* A readable axis over [lo, hi]: a step of 1, 2, 2.5 or 5 times a power of
 * ten giving about `ticks` intervals; *first and *last are lo and hi
 * rounded out to the step, *decimals what its labels need. */
struct svg_axis {
	double first, last, step;
	int decimals;
};
void svg_axis(double lo, double hi, int ticks, struct svg_axis *a);
/* The tick value v as its label. */
void svg_tick_label(char *buf, size_t cap, const struct svg_axis *a, double v);

#endif
