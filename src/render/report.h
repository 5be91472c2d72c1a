#ifndef FAK_RENDER_REPORT_H
#define FAK_RENDER_REPORT_H
/* Reports of results in the four output formats (docs/reports.md):
 *   text  the human form, wrapped at 100 columns (the default)
 *   json  the documents themselves (rendered by the CLI, not here)
 *   md    GitHub-flavoured Markdown ready for a pull-request comment: tables
 *         whose cells hold escaped data text, and the digests a reviewer
 *         checks the result against
 *   csv   RFC 4180 with a header line and stable, documented columns
 * Renderers compute nothing: every value comes from a document or a
 * struct the caller built; everything they take is borrowed. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "graph/graph.h"
#include "receipt/gate.h"
#include "receipt/receipt.h"

enum render_format { RENDER_TEXT, RENDER_JSON, RENDER_MD, RENDER_CSV };
#define RENDER_NR_FORMATS 4
/* "text", "json", "md", "csv" (indexed by enum render_format). */
extern const char *const render_format_names[RENDER_NR_FORMATS];
/* 0 with *out set, -1 for a name that is not one of them. */
int render_format_parse(const char *name, enum render_format *out);

/* A file a report names, with the sha256 of its bytes (64 hex digits) so a
 * reviewer can check it with sha256sum. */
struct render_file {
	const char *what;	/* "baseline receipt", "gate-request.json" */
	const char *sha256;
};

/* One arm of an A/B. */
struct render_arm {
	const char *name;		/* "baseline", "candidate", "last_accepted" */
	const struct receipt *r;
	const struct receipt_row *rows;	/* receipt_rows(r) */
};

/* An A/B result: a comparison (--compare), a gate verdict (--gate), or both
 * (the summary of `fak bench experiment`). */
struct render_ab {
	const json_t *comparison;	/* fak-native-performance-comparison/v2, or NULL */
	const json_t *gate;		/* fak-native-performance-gate-verdict/v2, or NULL */
	const struct gate_policy *policy;	/* the gate request's policy, with gate */
	struct render_arm arms[2];	/* baseline (or last accepted), candidate */
	const struct render_file *files;
	size_t nr_files;
	const char *out_dir;		/* the runner's folder (text only), or NULL */
	const char *why;		/* why the runner's gate investigates (text), or NULL */
	const char *note;		/* a caveat on the whole run (an A/A), or NULL */
	const char *attempt;		/* the runner's attempt line, or NULL */
	/* the runs whose command left processes running, killed (text), or NULL */
	const char *leftovers;
};

/* The CSV columns of every A/B report, one row per repetition:
 * envelope_id, lever_id, arm, revision, repetition (1-based), run (1-based
 * position in the order the experiment ran its runs, warm-ups included;
 * empty when the receipt records no order), started_at_utc, the five
 * repetition metrics (empty when absent), metrics_bound (true/false),
 * attestation_digest (empty when none). */
#define RENDER_AB_CSV_HEADER                                                                       \
	"envelope_id,lever_id,arm,revision,repetition,run,started_at_utc,tokens_per_second,"       \
	"end_to_end_milliseconds,ttft_milliseconds,prefill_milliseconds,decode_milliseconds,"      \
	"metrics_bound,attestation_digest"

void render_ab_md(struct strbuf *out, const struct render_ab *ab);
void render_ab_csv(struct strbuf *out, const struct render_ab *ab);
/* The gate verdict as text: classification and reason, identity, means,
 * the shift (information only), the checks, exclusions, suspects and the
 * bisect packet. */
void render_gate_text(struct strbuf *out, const struct render_ab *ab);
/* The runner's summary: the comparison text, the gate line and what was
 * written where. */
void render_experiment_text(struct strbuf *out, const struct render_ab *ab);

/* --next in Markdown (a field table) and CSV (the header and one row; no
 * row when l is NULL). Columns: RENDER_NEXT_CSV_HEADER; lists of ids are
 * joined by ';'. */
#define RENDER_NEXT_CSV_HEADER                                                                     \
	"lever_id,name,envelope_id,platform,backend,enabled,status,dependency_ids,conflict_ids,"   \
	"expected_classification,expected_summary,expected_provenance,owning_issue,"               \
	"owning_issue_url,next_witness,experiment"
void render_next_md(struct strbuf *out, const struct lever *l);
void render_next_csv(struct strbuf *out, const struct lever *l);

/* A profile classification (--profile) or selection (--profile-next). */
struct render_profile {
	const json_t *classification;	/* fak-native-performance-bottleneck/v1 */
	const struct lever *next;	/* --profile-next: the selected lever; else NULL */
	bool has_override;		/* the bundle's selection override */
	long long override_issue;
	const char *override_reason;
};

/* One row per classification; the next_* and selection_override_* columns
 * are empty for --profile. */
#define RENDER_PROFILE_CSV_HEADER                                                                  \
	"envelope_id,class,confidence,evidence,recommended_lever_id,next_lever_id,next_witness,"   \
	"selection_override_issue,selection_override_reason"
void render_profile_text(struct strbuf *out, const struct render_profile *p);
void render_profile_md(struct strbuf *out, const struct render_profile *p);
void render_profile_csv(struct strbuf *out, const struct render_profile *p);

#endif
