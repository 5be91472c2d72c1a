#include "render/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/escape.h"
#include "render/wrap.h"

/* Colours: blue for the baseline and for hypotheses, orange for the
 * candidate, dark blue for witnessed values, red for the floor. */
static const char style[] =
	"text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:12px;fill:#222}"
	".title{font-size:18px;font-weight:bold}.head{font-size:14px;font-weight:bold}"
	".note{fill:#555}.small{font-size:11px;fill:#555}"
	".id{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace}"
	".hyp{font-style:italic;fill:#3d6a99}.wit{fill:#1c3f7a;font-weight:bold}.pending{fill:#888}"
	".floor-label{fill:#b42318}.cmp-label{fill:#666}.verdict{font-size:14px;font-weight:bold}"
	".frame{fill:#fafafa;stroke:#ddd}.grid{stroke:#e4e4e4}.axis{stroke:#999}"
	".bar{fill:#cfe2f3;stroke:#6f9fd8}.witness{fill:#1c3f7a}"
	".floor{stroke:#b42318;stroke-width:1.5;stroke-dasharray:6 3}"
	".cmp{stroke:#777;stroke-width:1.2;stroke-dasharray:2 3}"
	".base{fill:#3c78d8}.cand{fill:#e69138}.base-line{stroke:#3c78d8;stroke-dasharray:5 3}"
	".cand-line{stroke:#e69138;stroke-dasharray:5 3}.noise{fill:#eeeeee}.zero{stroke:#999}"
	".gate-pass{fill:#2e7d32}.gate-investigate{fill:#9a5b00}.gate-regression{fill:#b42318}"
	".step{stroke:#1c3f7a;stroke-width:1.5}.ci{stroke:#222;stroke-width:2.5}"
	".on{fill:#2e7d32}.off{fill:#fff;stroke:#888}";

void svg_begin(struct strbuf *out, double width, double height, const char *title)
{
	sb_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		     "viewBox=\"0 0 %.0f %.0f\">\n<title>", width, height, width, height);
	esc_xml(out, title);
	sb_addf(out, "</title>\n<style>%s</style>\n", style);
	sb_addf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
		width, height);
}

void svg_end(struct strbuf *out)
{
	sb_adds(out, "</svg>\n");
}

void svg_text(struct strbuf *out, double x, double y, const char *cls, const char *anchor,
	      const char *text, size_t max_chars)
{
	bool cut = max_chars && wrap_width(text) > max_chars;

	sb_addf(out, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (cls && *cls)
		sb_addf(out, " class=\"%s\"", cls);
	if (anchor && strcmp(anchor, "start"))
		sb_addf(out, " text-anchor=\"%s\"", anchor);
	sb_addch(out, '>');
	if (cut) {
		struct strbuf part = STRBUF_INIT;

		sb_add(&part, text, wrap_prefix(text, max_chars > 1 ? max_chars - 1 : 0));
		sb_adds(out, "<title>");
		esc_xml(out, text);
		sb_adds(out, "</title>");
		esc_xml(out, sb_str(&part));
		sb_adds(out, "\xe2\x80\xa6");	/* … */
		sb_release(&part);
	} else {
		esc_xml(out, text);
	}
	sb_adds(out, "</text>\n");
}

void svg_line(struct strbuf *out, double x1, double y1, double x2, double y2, const char *cls)
{
	sb_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>\n", x1,
		y1, x2, y2, cls);
}

void svg_rect(struct strbuf *out, double x, double y, double w, double h, const char *cls)
{
	sb_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"%s\"/>\n",
		x, y, w, h, cls);
}

void svg_polyline(struct strbuf *out, const double *xy, size_t n, const char *stroke)
{
	sb_adds(out, "<polyline points=\"");
	for (size_t i = 0; i < n; i++)
		sb_addf(out, "%s%.1f,%.1f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
	sb_addf(out, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", stroke);
}

void svg_circle(struct strbuf *out, double cx, double cy, double r, const char *cls)
{
	sb_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" class=\"%s\"/>\n", cx, cy, r, cls);
}

void svg_diamond(struct strbuf *out, double cx, double cy, double r, const char *cls)
{
	sb_addf(out, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" class=\"%s\"/>\n",
		cx, cy - r, cx + r, cy, cx, cy + r, cx - r, cy, cls);
}

void svg_square(struct strbuf *out, double cx, double cy, double r, const char *cls)
{
	svg_rect(out, cx - r, cy - r, 2 * r, 2 * r, cls);
}

void svg_axis(double lo, double hi, int ticks, struct svg_axis *a)
{
	static const double mult[] = { 1, 2, 2.5, 5, 10 };
	double span, raw, mag;
	size_t i = 0;

	if (!(hi > lo)) {
		double pad = fabs(lo) > 0 ? fabs(lo) * 0.05 : 1;

		lo -= pad;
		hi += pad;
	}
	span = hi - lo;
	raw = span / (ticks > 0 ? ticks : 1);
	mag = pow(10, floor(log10(raw)));
	while (i + 1 < sizeof(mult) / sizeof(mult[0]) && mult[i] * mag < raw)
		i++;
	a->step = mult[i] * mag;
	a->first = floor(lo / a->step + 1e-9) * a->step;
	a->last = ceil(hi / a->step - 1e-9) * a->step;
	/* 2.5 x 10^k needs one decimal more than 10^k */
	a->decimals = (int)fmax(0, -floor(log10(a->step) + 1e-9) + (mult[i] == 2.5 ? 1 : 0));
}

void svg_tick_label(char *buf, size_t cap, const struct svg_axis *a, double v)
{
	if (fabs(v) < a->step * 1e-6)
		v = 0;	/* no "-0" */
	snprintf(buf, cap, "%.*f", a->decimals, v);
}
