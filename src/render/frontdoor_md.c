/* Markdown for the front-door performance index (docs/frontdoor.md, "What
 * the page holds"): the generated readout, the lifecycle
 * vocabulary, the two tables and the update and reap process. Rows and
 * readout records are data (struct index_page); the wording of the rules is
 * here. Renderers compute nothing: presence and counts come from the page. */
#include <stdio.h>
#include <string.h>

#include "base/dates.h"
#include "base/json.h"
#include "render/escape.h"
#include "render/frontdoor_md.h"

static bool is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c >= 0x80;
}

static bool is_alnum(unsigned char c)
{
	return c < 0x80 && is_word(c);
}

void frontdoor_md_text(struct strbuf *out, const char *s, bool block_start)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), digits = 0;

	if (block_start) {
		while (digits < n && p[digits] >= '0' && p[digits] <= '9')
			digits++;
		if (digits == 0 && n && strchr("#>-+=", p[0]))
			sb_addch(out, '\\');
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		bool esc;

		switch (c) {
		case '\\': case '`': case '*': case '[': case ']': case '<': case '~': case '|':
			esc = true;
			break;
		case '_':	/* intraword underscores never make emphasis */
			esc = !(i > 0 && is_word(p[i - 1]) && i + 1 < n && is_word(p[i + 1]));
			break;
		case '&':	/* only an entity or numeric reference needs it */
			esc = i + 1 < n && (is_alnum(p[i + 1]) || p[i + 1] == '#');
			break;
		case '.': case ')':	/* "1." or "1)" opening a block is a list */
			esc = block_start && digits && i == digits;
			break;
		default:
			esc = false;
		}
		if (esc)
			sb_addch(out, '\\');
		sb_addch(out, (char)c);
	}
}

void frontdoor_md_code(struct strbuf *out, const char *s, bool in_table)
{
	size_t longest = 0, run = 0, n = strlen(s);
	bool pad;

	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = n && (s[0] == '`' || s[n - 1] == '`');
	for (size_t i = 0; i <= longest; i++)
		sb_addch(out, '`');
	if (pad)
		sb_addch(out, ' ');
	for (size_t i = 0; i < n; i++) {
		if (in_table && s[i] == '|')
			sb_addch(out, '\\');
		sb_addch(out, s[i]);
	}
	if (pad)
		sb_addch(out, ' ');
	for (size_t i = 0; i <= longest; i++)
		sb_addch(out, '`');
}

void frontdoor_md_cell(struct strbuf *out, const char *s)
{
	struct strbuf clean = STRBUF_INIT;

	while (*s) {
		size_t n = strcspn(s, "\r\n");

		sb_reset(&clean);
		esc_clean(&clean, s, n);
		frontdoor_md_text(out, sb_str(&clean), false);
		s += n;
		if (*s) {
			s += s[0] == '\r' && s[1] == '\n' ? 2 : 1;
			sb_adds(out, "<br>");
		}
	}
	sb_release(&clean);
}

void frontdoor_md_data_code(struct strbuf *out, const char *s, bool in_table)
{
	struct strbuf clean = STRBUF_INIT;

	if (!*s)
		return;
	esc_clean(&clean, s, strlen(s));
	for (size_t i = 0; i < clean.len; i++)
		if (clean.buf[i] == '\r' || clean.buf[i] == '\n' || clean.buf[i] == '\t')
			clean.buf[i] = ' ';
	frontdoor_md_code(out, sb_str(&clean), in_table);
	sb_release(&clean);
}

/* Ends the sentence in out with a period unless it already ends with one. */
static void full_stop(struct strbuf *out)
{
	if (!out->len || !strchr(".!?", out->buf[out->len - 1]))
		sb_addch(out, '.');
}

static void bold_date(struct strbuf *out, long day)
{
	char d[11];

	date_format(day, d);
	sb_addf(out, "**%s**", d);
}

static void number(struct strbuf *out, double v)
{
	char buf[JSON_NUMBER_MAX];

	json_format_double(buf, v);
	sb_adds(out, buf);
}

/* ---- generated readout ----------------------------------------------- */

static const char *const class_labels[] = { "ACCEPTED", "APPROXIMATE", "DIAGNOSTIC" };

static void readout_figure(struct strbuf *out, const struct index_readout *r)
{
	struct strbuf fig = STRBUF_INIT;

	if (r->has_floor) {
		number(&fig, r->floor_tps);
		sb_addch(&fig, '-');
	}
	number(&fig, r->native_tps);
	if (r->baseline_tps > 0) {
		char pct[32];

		sb_adds(&fig, " vs ");
		number(&fig, r->baseline_tps);
		snprintf(pct, sizeof(pct), "%.0f", r->native_tps / r->baseline_tps * 100.0);
		sb_addf(&fig, " tok/s (~%s%%)", pct);
	} else {
		sb_adds(&fig, " tok/s");
	}
	sb_adds(out, "**");
	frontdoor_md_text(out, fig.buf, false);
	sb_adds(out, "**");
	sb_release(&fig);
}

static void readout_item(struct strbuf *out, const struct index_readout *r)
{
	sb_addf(out, "- **%s** in ", class_labels[r->cls]);
	frontdoor_md_code(out, r->envelope_id, false);
	sb_adds(out, ": ");
	readout_figure(out, r);
	sb_adds(out, ", quality ");
	frontdoor_md_text(out, r->quality, false);
	sb_adds(out, " \xe2\x80\x94 ");	/* em dash */
	frontdoor_md_text(out, r->caveat, false);
	full_stop(out);
	sb_adds(out, " Observed ");
	bold_date(out, r->observed);
	sb_adds(out, ", review by ");
	bold_date(out, r->review_by);
	sb_adds(out, "; evidence: ");
	frontdoor_md_code(out, r->provenance, false);
	sb_adds(out, ".\n");
}

static void render_readout(struct strbuf *out, const struct index_page *p)
{
	sb_adds(out, "## Generated front-door readout\n\n"
		     "This block is derived by `fak native-performance --frontdoor-md`; "
		     "classifications cannot be spliced across envelopes.\n");
	if (p->nr_readout)
		sb_addch(out, '\n');
	for (size_t i = 0; i < p->nr_readout; i++)
		readout_item(out, &p->readout[i]);
	if (p->nr_reaped)
		sb_addf(out,
			"\n_%zu reviewed row(s) are reaped from active presentation; immutable "
			"witnesses remain._\n",
			p->nr_reaped);
}

/* ---- the two tables --------------------------------------------------- */

static void lifecycle_cell(struct strbuf *out, const struct index_page_row *pr)
{
	sb_addf(out, "| **%s** | ", index_lifecycle_name(pr->shown_as));
}

static void result_row(struct strbuf *out, const struct index_page_row *pr)
{
	const struct index_row *r = pr->row;

	lifecycle_cell(out, pr);
	frontdoor_md_code(out, r->envelope_key, true);
	sb_adds(out, " | ");
	frontdoor_md_text(out, r->highlight, false);
	sb_adds(out, " | ");
	frontdoor_md_text(out, r->status, false);
	if (pr->retained) {
		sb_addch(out, ' ');
		frontdoor_md_text(out, r->retain_reason, false);
	}
	sb_adds(out, " | ");
	frontdoor_md_text(out, r->evidence, false);
	sb_adds(out, "; observed ");
	bold_date(out, r->observed);
	if (r->review_by == INDEX_NO_DATE) {
		sb_adds(out, "; ");
		frontdoor_md_text(out, r->retention, false);
	} else {
		sb_adds(out, pr->retained ? "; reviewed through " : "; review by ");
		bold_date(out, r->review_by);
	}
	full_stop(out);
	sb_adds(out, " |\n");
}

static void awaiting_row(struct strbuf *out, const struct index_page_row *pr)
{
	const struct index_row *r = pr->row;

	lifecycle_cell(out, pr);
	frontdoor_md_text(out, r->candidate, false);
	sb_adds(out, " | ");
	frontdoor_md_text(out, r->why, false);
	sb_adds(out, " | ");
	if (pr->retained) {
		sb_adds(out, "Reaped at review on ");
		bold_date(out, r->review_by);
		sb_adds(out, "; ");
		frontdoor_md_text(out, r->retain_reason, false);
	} else {
		frontdoor_md_text(out, r->reap_condition, false);
		if (r->review_by == INDEX_NO_DATE) {
			sb_adds(out, "; ");
			frontdoor_md_text(out, r->retention, false);
		} else {
			sb_adds(out, "; review by ");
			bold_date(out, r->review_by);
		}
	}
	full_stop(out);
	sb_adds(out, " |\n");
}

static void render_results(struct strbuf *out, const struct index_page *p)
{
	sb_adds(out, "## Current results by envelope\n\n"
		     "Numbers in different envelope keys are not interchangeable. Quote the key, "
		     "model, artifact/precision, engine, hardware, metric, and observed date with "
		     "the number.\n\n");
	if (p->nr_results) {
		sb_adds(out, "| Lifecycle | Envelope key | Current accepted highlight | Status and "
			     "comparison | Evidence and freshness |\n"
			     "|---|---|---|---|---|\n");
		for (size_t i = 0; i < p->nr_results; i++)
			result_row(out, &p->results[i]);
	} else {
		sb_adds(out, "No result row is presented for this date.\n");
	}
	if (!p->nr_current && p->nr_current_reviewed)
		sb_adds(out, "\n**No CURRENT row remains in active presentation:** every CURRENT "
			     "row passed its review date without a promoted or renewed receipt.\n");
	else if (!p->nr_current)
		sb_adds(out, "\nNo CURRENT row is indexed for this date.\n");
	for (size_t i = 0; i < p->idx->page.nr_notes; i++) {
		sb_addch(out, '\n');
		frontdoor_md_text(out, p->idx->page.notes[i], true);
		sb_addch(out, '\n');
	}
}

static void render_awaiting(struct strbuf *out, const struct index_page *p)
{
	sb_adds(out, "\n## Newer code awaiting comparable remeasurement\n\n"
		     "This section prevents landed optimizations from masquerading as newer result "
		     "rows. Entries are reaped when a comparable receipt is promoted above, the "
		     "work is rejected, or the stated review date passes without a renewed reason "
		     "to retain it.\n\n");
	if (p->nr_awaiting) {
		sb_adds(out, "| Lifecycle | Candidate | Why it has not replaced a row | Reap "
			     "condition |\n"
			     "|---|---|---|---|\n");
		for (size_t i = 0; i < p->nr_awaiting; i++)
			awaiting_row(out, &p->awaiting[i]);
	} else {
		sb_adds(out, "No candidate is listed for this date.\n");
	}
	if (!p->nr_awaiting_live && p->nr_awaiting_reviewed)
		sb_adds(out, "\n**No candidate remains awaiting remeasurement:** every AWAITING "
			     "REMEASURE entry passed its review date without a renewed reason to "
			     "retain it.\n");
}

/* ---- fixed rules ------------------------------------------------------- */

static const char read_first[] =
	"## Read this first: rows are envelopes, not a timeline\n\n"
	"A newer result replaces an older row **only when its envelope key matches**: model + "
	"artifact/precision + engine/path + hardware/topology + workload/cache mode. A Metal "
	"kernel improvement does not supersede an A100 CUDA result, and a kernel microbenchmark "
	"does not supersede an end-to-end tokens/sec result.\n\n"
	"Read the first two columns before the number:\n\n"
	"- **CURRENT** \xe2\x80\x94 newest accepted, quality-passing result for that exact "
	"envelope key. There may be one CURRENT row per key.\n"
	"- **DIAGNOSTIC** \xe2\x80\x94 retained because it explains a current hold or parity gap; "
	"never read it as a fak-native headline.\n"
	"- **HISTORICAL** \xe2\x80\x94 predecessor context only. It stays out of current-result "
	"comparisons.\n"
	"- **AWAITING REMEASURE** \xe2\x80\x94 newer code exists, but no comparable accepted run "
	"exists. It cannot replace a CURRENT row.\n\n"
	"Every CURRENT row has both an **observed** date and a **review-by** date. Review does not "
	"mean rerun blindly: it either promotes a comparable receipt, advances the review date "
	"with evidence that no replacement exists, or removes the row from this index. Superseded "
	"numbers remain in their immutable witness/detail page, not as a second current row here. "
	"Receipt classifications such as **ACCEPTED** and **APPROXIMATE** remain visible in "
	"historical evidence, but only CURRENT rows belong in the active presentation.\n\n";

static void render_process(struct strbuf *out, const struct index_page *p)
{
	sb_adds(out,
		"\n## Shift-left update and reap process\n\n"
		"This happens in the result-producing change, not in a later documentation "
		"cleanup:\n\n"
		"- **Choose the envelope key before running.** Reuse an existing key only if "
		"model, artifact/precision, engine/path, hardware/topology, workload, and cache "
		"mode match. Otherwise add a distinct key.\n"
		"- **Capture the receipt first.** Retain immutable raw/summary evidence under "
		"`docs/_witnesses/issue-<id>-<slug>/`; scrub private control-plane details. An "
		"issue comment or worker log alone is not durable evidence.\n"
		"- **Bind the operating envelope.** Record model revision/hash and quantization. "
		"Native/performance rows must name the fak-native engine and forward-path "
		"identity, hardware/topology, OS/driver/runtime, commit or `module@rev`, "
		"workload/token counts, cache state, repetitions/statistic, quality, memory, and "
		"observation date.\n"
		"- **Classify before quoting.** A quality-passing comparable run can be CURRENT. "
		"Reference-only or failed-quality evidence is DIAGNOSTIC. New code without a "
		"comparable run is AWAITING REMEASURE. Older model context is HISTORICAL.\n"
		"- **Replace atomically.** When promoting a result, delete the old CURRENT row "
		"with the same envelope key in the same commit. Its witness remains immutable. "
		"Never append a second CURRENT row for that key.\n"
		"- **Set review/reap state now.** Every CURRENT, DIAGNOSTIC, and AWAITING "
		"REMEASURE entry gets an observed/review date or explicit durable retention "
		"reason. At review, promote, renew with evidence, or remove it.\n"
		"- **Update downstream summaries last.** `README.md`, release notes, plans, and "
		"issue comments may quote only the resulting CURRENT row. `BENCHMARK-AUTHORITY.md` "
		"owns general method; this page owns ");
	frontdoor_md_text(out, p->idx->page.subject, false);
	sb_adds(out, " result discovery.\n\n"
		     "This page is generated from validated result rows and regenerated with `fak "
		     "native-performance --frontdoor-md --write-doc FILE`; `--check-doc FILE` "
		     "fails while the committed page is stale. Generation refuses duplicate "
		     "CURRENT envelope keys, rows without lifecycle freshness metadata, CURRENT "
		     "rows that do not name model, artifact/precision, engine, hardware and "
		     "metric, speed quoted as a gain when quality failed, and unlike envelopes "
		     "collapsed under one key. Review also refuses hidden setup/recovery costs.\n");
}

void frontdoor_md_render(struct strbuf *out, const struct index_page *p)
{
	sb_adds(out, INDEX_MARK_BEGIN "\n# ");
	frontdoor_md_text(out, p->idx->page.title, true);
	sb_adds(out, "\n\n");
	frontdoor_md_text(out, p->idx->page.intro, true);
	sb_adds(out, "\n\n");
	render_readout(out, p);
	sb_addch(out, '\n');
	sb_adds(out, read_first);
	render_results(out, p);
	render_awaiting(out, p);
	render_process(out, p);
	sb_adds(out, INDEX_MARK_END "\n");
}
