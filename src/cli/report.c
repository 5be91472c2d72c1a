#include "cli/report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

int report_format(const char *name, bool json, enum render_format *fmt, char *why, size_t cap)
{
	*fmt = json ? RENDER_JSON : RENDER_TEXT;
	if (!name)
		return 0;
	if (json) {
		snprintf(why, cap, "give --format or --json, not both (--json is --format json)");
		return -1;
	}
	if (render_format_parse(name, fmt) < 0) {
		snprintf(why, cap, "--format must be text, json, md or csv (got \"%.64s\")", name);
		return -1;
	}
	return 0;
}

void report_ab_arms(struct render_ab *ab, const struct receipt *first, const char *first_name,
		    const struct receipt *candidate)
{
	ab->arms[0] = (struct render_arm){ first_name, first, receipt_rows(first) };
	ab->arms[1] = (struct render_arm){ "candidate", candidate, receipt_rows(candidate) };
}

void report_ab_release(struct render_ab *ab)
{
	for (int a = 0; a < 2; a++)
		free((void *)(uintptr_t)ab->arms[a].rows);
}

void report_print_ab(enum render_format fmt, const struct render_ab *ab,
		     void (*render_text)(struct strbuf *, const struct render_ab *),
		     const json_t *json_doc)
{
	struct strbuf sb = STRBUF_INIT;

	switch (fmt) {
	case RENDER_JSON:
		json_write_pretty(&sb, json_doc);
		break;
	case RENDER_MD:
		render_ab_md(&sb, ab);
		break;
	case RENDER_CSV:
		render_ab_csv(&sb, ab);
		break;
	case RENDER_TEXT:
		render_text(&sb, ab);
		break;
	}
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
}
