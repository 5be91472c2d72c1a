/* Output formats, and the reports of a selected lever (--next) and of a
 * profile classification (--profile, --profile-next) in text, Markdown and
 * CSV. */
#include <stdio.h>
#include <string.h>

#include "render/escape.h"
#include "render/fmt.h"
#include "render/frontdoor_md.h"
#include "render/render.h"
#include "render/report.h"
#include "render/wrap.h"

const char *const render_format_names[RENDER_NR_FORMATS] = { "text", "json", "md", "csv" };

int render_format_parse(const char *name, enum render_format *out)
{
	for (int i = 0; i < RENDER_NR_FORMATS; i++)
		if (!strcmp(name, render_format_names[i])) {
			*out = (enum render_format)i;
			return 0;
		}
	return -1;
}

/* ids joined by ';' (a CSV cell). */
static void ids(struct strbuf *out, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			sb_addch(out, ';');
		sb_adds(out, l->v[i]);
	}
}

static void csv_field(struct strbuf *out, const char *s, bool last)
{
	esc_csv(out, s ? s : "");
	sb_addch(out, last ? '\n' : ',');
}

/* ---- Markdown field tables ------------------------------------------------ */

enum md_kind { MD_TEXT, MD_CODE, MD_CODES };

/* "| key | value |": value as escaped text, one code span, or (MD_CODES) a
 * code span per id of l. */
static void md_field(struct strbuf *out, const char *key, enum md_kind kind, const char *value,
		     const struct strlist *l)
{
	sb_addf(out, "| %s | ", key);
	if (kind == MD_TEXT) {
		frontdoor_md_cell(out, value);
	} else if (kind == MD_CODE) {
		frontdoor_md_data_code(out, value, true);
	} else if (!l->n) {
		sb_adds(out, "none");
	} else {
		for (size_t i = 0; i < l->n; i++) {
			if (i)
				sb_adds(out, ", ");
			frontdoor_md_data_code(out, l->v[i], true);
		}
	}
	sb_adds(out, " |\n");
}

/* The rows of a lever's field table. */
static void md_lever_rows(struct strbuf *out, const struct lever *l)
{
	struct strbuf t = STRBUF_INIT;

	md_field(out, "lever", MD_CODE, l->id, NULL);
	md_field(out, "name", MD_TEXT, l->name, NULL);
	md_field(out, "envelope", MD_CODE, l->app.envelope_id, NULL);
	sb_addf(&t, "%s, %s", l->app.platform, l->app.backend);
	md_field(out, "platform, backend", MD_TEXT, t.buf, NULL);
	sb_reset(&t);
	sb_addf(&t, "%s, %s", l->enabled ? "enabled" : "disabled", l->status);
	md_field(out, "state", MD_TEXT, t.buf, NULL);
	md_field(out, "dependencies", MD_CODES, "", &l->deps);
	md_field(out, "conflicts", MD_CODES, "", &l->conflicts);
	sb_reset(&t);
	sb_addf(&t, "expected (%s)", l->expected.classification);
	md_field(out, t.buf, MD_TEXT, l->expected.summary, NULL);
	md_field(out, "expected provenance", MD_TEXT, l->expected.provenance, NULL);
	md_field(out, "witnessed", MD_TEXT, l->has_witnessed ? l->witnessed.summary : "pending",
		 NULL);
	sb_reset(&t);
	sb_addf(&t, "#%lld %s", l->owner.number, l->owner.url);
	md_field(out, "owning issue", MD_TEXT, t.buf, NULL);
	md_field(out, "required witness", MD_TEXT, l->next_witness, NULL);
	md_field(out, "experiment", MD_TEXT, render_next_experiment(l), NULL);
	sb_release(&t);
}

/* ---- --next --------------------------------------------------------------- */

void render_next_md(struct strbuf *out, const struct lever *l)
{
	if (!l) {
		sb_adds(out, "#### Next lever: none\n\nNo lever is disabled, unwitnessed and ready "
			     "(every "
			     "dependency enabled).\n");
		return;
	}
	sb_adds(out, "#### Next lever: ");
	frontdoor_md_data_code(out, l->id, false);
	sb_adds(out, "\n\n| field | value |\n|:--|:--|\n");
	md_lever_rows(out, l);
}

void render_next_csv(struct strbuf *out, const struct lever *l)
{
	struct strbuf t = STRBUF_INIT;
	char n[32];

	sb_adds(out, RENDER_NEXT_CSV_HEADER "\n");
	if (!l)
		return;
	csv_field(out, l->id, false);
	csv_field(out, l->name, false);
	csv_field(out, l->app.envelope_id, false);
	csv_field(out, l->app.platform, false);
	csv_field(out, l->app.backend, false);
	csv_field(out, l->enabled ? "true" : "false", false);
	csv_field(out, l->status, false);
	ids(&t, &l->deps);
	csv_field(out, t.buf, false);
	sb_reset(&t);
	ids(&t, &l->conflicts);
	csv_field(out, t.buf, false);
	csv_field(out, l->expected.classification, false);
	csv_field(out, l->expected.summary, false);
	csv_field(out, l->expected.provenance, false);
	snprintf(n, sizeof(n), "%lld", l->owner.number);
	csv_field(out, n, false);
	csv_field(out, l->owner.url, false);
	csv_field(out, l->next_witness, false);
	csv_field(out, render_next_experiment(l), true);
	sb_release(&t);
}

/* ---- profiles --------------------------------------------------------------- */

/* The evidence lines of a classification, joined by "; ". */
static void evidence(struct strbuf *out, const json_t *cls)
{
	const json_t *v;
	size_t i;

	json_array_foreach (fmt_get(cls, "evidence"), i, v) {
		if (i)
			sb_adds(out, "; ");
		sb_adds(out, json_string_value(v));
	}
}

void render_profile_text(struct strbuf *out, const struct render_profile *p)
{
	const json_t *c = p->classification;
	struct strbuf t = STRBUF_INIT;

	wrap_line(out, "envelope  ", 11, fmt_str(c, "envelope_id"));
	sb_addf(&t, "%s (confidence %s)", fmt_str(c, "class"), fmt_str(c, "confidence"));
	wrap_line(out, "class     ", 11, t.buf);
	sb_reset(&t);
	evidence(&t, c);
	wrap_line(out, "evidence  ", 11, t.buf);
	wrap_line(out, "lever     ", 11, fmt_str(c, "recommended_lever_id"));
	if (p->has_override) {
		sb_reset(&t);
		sb_addf(&t, "issue #%lld: %s", p->override_issue, p->override_reason);
		wrap_line(out, "override  ", 11, t.buf);
	}
	sb_release(&t);
	if (p->next) {
		sb_addch(out, '\n');
		render_next_text(out, p->next);
	}
}

void render_profile_md(struct strbuf *out, const struct render_profile *p)
{
	const json_t *c = p->classification;
	struct strbuf t = STRBUF_INIT;

	sb_addf(out, "#### Profile: %s \u00b7 envelope ", p->next ? "next lever" : "bottleneck");
	frontdoor_md_data_code(out, fmt_str(c, "envelope_id"), false);
	sb_adds(out, "\n\n| field | value |\n|:--|:--|\n");
	md_field(out, "class", MD_TEXT, fmt_str(c, "class"), NULL);
	md_field(out, "confidence", MD_TEXT, fmt_str(c, "confidence"), NULL);
	evidence(&t, c);
	md_field(out, "evidence", MD_TEXT, t.buf, NULL);
	md_field(out, "recommended lever", MD_CODE, fmt_str(c, "recommended_lever_id"), NULL);
	if (p->has_override) {
		sb_reset(&t);
		sb_addf(&t, "issue #%lld: %s", p->override_issue, p->override_reason);
		md_field(out, "selection override", MD_TEXT, t.buf, NULL);
	}
	sb_release(&t);
	if (!p->next)
		return;
	sb_adds(out, "\n#### Next lever\n\n| field | value |\n|:--|:--|\n");
	md_lever_rows(out, p->next);
}

void render_profile_csv(struct strbuf *out, const struct render_profile *p)
{
	const json_t *c = p->classification;
	struct strbuf t = STRBUF_INIT;
	char n[32] = "";

	sb_adds(out, RENDER_PROFILE_CSV_HEADER "\n");
	csv_field(out, fmt_str(c, "envelope_id"), false);
	csv_field(out, fmt_str(c, "class"), false);
	csv_field(out, fmt_str(c, "confidence"), false);
	evidence(&t, c);
	csv_field(out, t.buf, false);
	csv_field(out, fmt_str(c, "recommended_lever_id"), false);
	csv_field(out, p->next ? p->next->id : "", false);
	csv_field(out, p->next ? p->next->next_witness : "", false);
	if (p->has_override)
		snprintf(n, sizeof(n), "%lld", p->override_issue);
	csv_field(out, n, false);
	csv_field(out, p->has_override ? p->override_reason : "", true);
	sb_release(&t);
}
