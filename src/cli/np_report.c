/* The output formats and charts of `fak native-performance`: the usage
 * rules of --format, --json and --chart, and --chart climb. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/file.h"
#include "cli/cli.h"
#include "cli/np.h"
#include "cli/report.h"
#include "render/chart.h"

int np_report_usage(const struct np_opts *o, const struct cmd_mode *mode, enum render_format *fmt,
		    char *why, size_t cap)
{
	size_t format = (size_t)cmd_opt_index(&np_spec, "format");

	if (report_format(o->format, o->json, fmt, why, cap) < 0)
		return -1;
	/* md and csv: the modes that take --format (the graph view is chosen by it) */
	if ((*fmt == RENDER_MD || *fmt == RENDER_CSV) && !(mode->accepts & OPT_BIT(format))) {
		struct strbuf sb = STRBUF_INIT;

		cmd_takers(&sb, &np_spec, format);
		snprintf(why, cap, "--format %s goes with %s (the graph itself is text or json)",
			 render_format_names[*fmt], sb.buf);
		sb_release(&sb);
		return -1;
	}
	if (o->chart && !o->compare && strcmp(o->chart, "climb")) {
		snprintf(why, cap,
			 "--chart takes climb (--chart climb [--out FILE.svg]), or with --compare "
			 "the SVG file to write");
		return -1;
	}
	return 0;
}

int np_write_chart(const char *path, const json_t *comparison, bool aa, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	render_chart_runs(&sb, comparison, NULL, aa);
	rc = file_write_atomic(path, sb.buf, sb.len, 0644, e);
	sb_release(&sb);
	if (rc < 0)
		err_prefix(e, "compare: chart");
	return rc;
}

int np_chart_climb(const struct np_ctx *c)
{
	struct strbuf sb = STRBUF_INIT;
	struct graph_climb *climbs = graph_climbs(c->g);
	struct err e;
	int rc = EXIT_OK;

	render_chart_climb(&sb, c->g, climbs);
	graph_climbs_release(climbs, c->g->nr_envelopes);
	if (!c->o->out) {
		cli_out(sb.buf, sb.len);
	} else if (file_write_atomic(c->o->out, sb.buf, sb.len, 0644, &e) < 0) {
		err_prefix(&e, "chart");
		rc = cli_fail(NP_CMD, &e);
	}
	sb_release(&sb);
	return rc;
}
