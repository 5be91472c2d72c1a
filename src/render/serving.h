#ifndef FAK_RENDER_SERVING_H
#define FAK_RENDER_SERVING_H
/* The summary of a serving run (fak bench serve) in text, Markdown and CSV
 * (JSON is serve_summary_to_json). Every value comes from the summary. */
#include "base/strbuf.h"
#include "serve/record.h"

/* CSV: one row per metric: metric,unit,n,mean,p50,p90,p95,p99,max (the
 * scalar ones fill mean only). */
#define RENDER_SERVING_CSV_HEADER "metric,unit,n,mean,p50,p90,p95,p99,max"

void render_serving_text(struct strbuf *out, const struct serve_summary *s,
			 const char *trace_sha256);
void render_serving_md(struct strbuf *out, const struct serve_summary *s,
		       const char *trace_sha256);
void render_serving_csv(struct strbuf *out, const struct serve_summary *s);
/* The failed requests by name: "3 http-status, 1 stalled" ("" for none). */
void render_serving_failures(struct strbuf *out, const struct serve_summary *s);

#endif
