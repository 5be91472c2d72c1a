#ifndef FAK_INDEX_INDEX_H
#define FAK_INDEX_INDEX_H
/* The front-door performance index (schema fak-performance-index/v1): the
 * result rows of the page "Current results by envelope", the candidates of
 * "Newer code awaiting comparable remeasurement", and the readout records
 * of the generated front-door block (docs/frontdoor.md).
 *
 * Load (strict decode, first problem stops with its JSON path), validate
 * against the graph in use (every finding collected and sorted), then build
 * the page for one as-of date. Presentation rule, for rows and readout
 * records alike: shown from the observed date through the review-by date
 * (inclusive); before the observed date not shown yet; after the review-by
 * date reaped (counted), and for rows with at_review "retain" still shown as
 * HISTORICAL with the retain reason. A row with a durable retention reason
 * instead of a review-by date is never reaped.
 *
 * Strings in struct index are borrowed from idx->doc, except those of
 * graph-derived readout records, which are borrowed from the graph passed to
 * index_validate (it must outlive the index). The page borrows the index. */
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/strbuf.h"
#include "graph/graph.h"

#define INDEX_SCHEMA "fak-performance-index/v1"
#define INDEX_MAX_BYTES ((size_t)4 << 20)
/* Longest text field accepted, in bytes. */
#define INDEX_TEXT_MAX 4096
/* Longest Markdown document --write-doc and --check-doc read. */
#define INDEX_DOC_MAX_BYTES ((size_t)32 << 20)

/* The generated block sits between these two lines (docs/frontdoor.md,
 * "What the page holds"). */
#define INDEX_MARK_BEGIN "<!-- qwen38-frontdoor:begin -->"
#define INDEX_MARK_END "<!-- qwen38-frontdoor:end -->"

/* "no date" for optional dates */
#define INDEX_NO_DATE LONG_MIN

enum index_table { INDEX_RESULTS, INDEX_AWAITING };
enum index_lifecycle {
	INDEX_CURRENT, INDEX_DIAGNOSTIC, INDEX_HISTORICAL, INDEX_AWAITING_REMEASURE
};
enum index_quality { INDEX_QUALITY_PASS, INDEX_QUALITY_FAIL, INDEX_QUALITY_UNMEASURED };
/* What review does to a row: nothing stated, removal, or HISTORICAL retention. */
enum index_at_review { INDEX_AT_REVIEW_UNSET, INDEX_AT_REVIEW_REMOVE, INDEX_AT_REVIEW_RETAIN };

/* "CURRENT", "DIAGNOSTIC", "HISTORICAL", "AWAITING REMEASURE" */
const char *index_lifecycle_name(enum index_lifecycle l);
/* "pass", "fail", "unmeasured" */
const char *index_quality_name(enum index_quality q);

/* One row of either table. Absent optional strings are NULL, absent dates
 * INDEX_NO_DATE. Results rows have highlight, status and evidence; awaiting
 * rows have candidate, why and reap_condition. */
struct index_row {
	enum index_table table;
	size_t pos;	/* index in its JSON array (for findings) */
	enum index_lifecycle lifecycle;	/* while inside its presentation window */
	const char *envelope_key;
	const char *highlight, *status, *evidence;	/* results */
	const char *candidate, *why, *reap_condition;	/* awaiting */
	long observed, review_by;
	const char *retention;	/* durable retention reason (instead of review_by) */
	enum index_at_review at_review;
	const char *retain_reason;	/* with INDEX_AT_REVIEW_RETAIN */
	const char *model, *artifact, *engine, *hardware, *metric;
	enum index_quality quality;
	bool quotes_gain;
};

enum index_class { INDEX_CLASS_ACCEPTED, INDEX_CLASS_APPROXIMATE, INDEX_CLASS_DIAGNOSTIC };
/* "accepted", "approximate", "diagnostic" */
const char *index_class_name(enum index_class c);

/* One readout record of the generated block (docs/frontdoor.md). A record
 * with graph_rung takes envelope_id, native/baseline throughput, observed
 * date and provenance from the graph: the rung's witness and the graph's
 * comparison point. has_native etc. say what the file stated. */
struct index_readout {
	size_t pos;
	enum index_class cls;
	const char *graph_rung;
	const char *envelope_id;
	bool has_native, has_floor;
	double native_tps, floor_tps, baseline_tps;	/* baseline 0: none */
	const char *quality;
	long observed, review_by;
	const char *provenance, *caveat;
};

struct index {
	json_t *doc;	/* owned */
	const char *schema;
	struct {
		const char *title, *intro, *subject;
		const char **notes;	/* owned array of borrowed strings */
		size_t nr_notes;
	} page;
	struct index_readout *readout;
	size_t nr_readout;
	struct index_row *rows;	/* results first, then awaiting, each in file order */
	size_t nr_rows;
};

/* Strict decode. name is used in error messages. */
int index_load_default(struct index *idx, struct err *e);
int index_load_file(struct index *idx, const char *path, struct err *e);
int index_load_buf(struct index *idx, const char *buf, size_t len, const char *name,
		   struct err *e);
void index_release(struct index *idx);

/* Resolves graph-derived readout records against g (which must be valid),
 * then checks every rule; findings are appended and sorted. No findings =
 * valid. */
void index_validate(struct index *idx, const struct graph *g, struct findings *out);

/* JSON path of a row, "results[3]" or "awaiting[0]", into out. */
void index_row_path(const struct index_row *r, struct strbuf *out);

/* ---- the page for one as-of date ------------------------------------ */

enum index_presence {
	INDEX_PENDING,	/* observed after the as-of date: not shown yet */
	INDEX_SHOWN,	/* inside its window, or durable */
	INDEX_RETAINED,	/* past review, shown as HISTORICAL */
	INDEX_REAPED,	/* past review, removed */
};

/* observed/review_by may be INDEX_NO_DATE (no review date: durable). */
enum index_presence index_presence_at(long observed, long review_by, enum index_at_review at,
				      long as_of);

struct index_page_row {
	const struct index_row *row;
	enum index_lifecycle shown_as;	/* HISTORICAL once retained */
	bool retained;
};

struct index_page {
	const struct index *idx;
	long as_of;
	struct index_readout *readout;	/* owned array of copies; records shown */
	size_t nr_readout;
	struct index_page_row *results, *awaiting;	/* owned arrays; rows shown */
	size_t nr_results, nr_awaiting;
	/* readout records and rows past their review date */
	size_t nr_reaped;
	/* CURRENT rows shown / past review; AWAITING REMEASURE rows likewise */
	size_t nr_current, nr_current_reviewed;
	size_t nr_awaiting_live, nr_awaiting_reviewed;
};

/* idx must be valid (index_validate found nothing). Never fails. */
void index_page_build(struct index_page *p, const struct index *idx, long as_of);
void index_page_release(struct index_page *p);

/* ---- the generated block inside a Markdown document ------------------ */

/* Locates the block: exactly one begin and one end marker line, begin
 * first; a marker that is not a line of its own is text (an error only when
 * there is no marker line at all). *off and *blen cover the begin marker
 * through the end marker (without the end marker's line break). Errors name
 * the document. */
int index_doc_find(const char *doc, size_t len, const char *name, size_t *off, size_t *blen,
		   struct err *e);
/* out = doc with its block replaced by block (which must carry the markers
 * and no trailing line break). Text outside the markers is kept byte for
 * byte. */
int index_doc_splice(const char *doc, size_t len, const char *name, const char *block,
		     size_t block_len, struct strbuf *out, struct err *e);

#endif
