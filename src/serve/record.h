#ifndef FAK_SERVE_RECORD_H
#define FAK_SERVE_RECORD_H
/* Per-request records of a serving run, their log (JSON lines, one request
 * a line) and the run's summary, with the definitions of vLLM's
 * `vllm bench serve` (docs/serving.md): TTFT from send to the first chunk,
 * TPOT (E2EL - TTFT) / (output tokens - 1), ITL between consecutive chunks,
 * E2EL from send to the end of the response. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/serving_metric.h"
#include "base/strbuf.h"

#define SERVE_LOG_SCHEMA "fak-serving-log/v1"
#define SERVE_SUMMARY_SCHEMA "fak-serving-summary/v1"
#define SERVE_MAX_CHUNKS 1000000	/* per request */
#define SERVE_LOG_CAP ((size_t)512 << 20)
#define SERVE_LOG_MAX_LINE ((size_t)32 << 20)
#define SERVE_ERROR_MAX 200

/* What went wrong with a request: a name a script can match. */
enum serve_fail {
	SERVE_OK,
	SERVE_REFUSED,		/* connection refused (nothing listens on the port) */
	SERVE_CONNECT,		/* other connection failures (connect timeout, reset) */
	SERVE_HTTP,		/* a status other than 200 */
	SERVE_TIMEOUT,		/* the response did not end within --timeout */
	SERVE_STALLED,		/* no byte for --stall-timeout */
	SERVE_LOST,		/* the connection closed or broke mid-response */
	SERVE_TRUNCATED,	/* the stream ended without data: [DONE] */
	SERVE_MALFORMED,	/* an event that is not a completion chunk */
	SERVE_NOT_OPENAI,	/* a 200 that is not an event stream */
	SERVE_SERVER_ERROR,	/* an error event in the stream */
	SERVE_NOT_SENT,		/* the run stopped before the request left */
	SERVE_NR_FAILS,
};
/* "ok", "connection-refused", ... (indexed by enum serve_fail) */
extern const char *const serve_fail_names[SERVE_NR_FAILS];

struct serve_record {
	size_t index;			/* in the trace */
	int64_t scheduled_ns;		/* from the start of the run */
	int64_t sent_ns;		/* -1: never sent */
	int64_t first_ns;		/* first chunk with choices; -1: none */
	int64_t end_ns;			/* -1: none */
	int64_t *chunks_ns;		/* owned: arrival of every chunk with choices */
	size_t nr_chunks, alloc_chunks;
	long long prompt_tokens;	/* usage, else the trace's count */
	bool prompt_from_usage;
	long long output_tokens;	/* usage, else counted chunks */
	bool output_from_usage;
	long long cached_tokens;	/* -1: the server did not say */
	long http_status;		/* 0: no response */
	enum serve_fail fail;
	char error[SERVE_ERROR_MAX];
};

void serve_record_release(struct serve_record *r);
void serve_records_release(struct serve_record *r, size_t n);

/* The log's first line: what the run was. */
struct serve_log_head {
	char trace_sha256[72];	/* "sha256:<hex>" of the trace's canonical form */
	size_t requests;	/* in the trace: the log has exactly this many lines after */
	bool open_loop;
	double max_lag_ms;
};

void serve_log_head_line(struct strbuf *out, const struct serve_log_head *h);
/* One log line (compact JSON and '\n') per record. */
void serve_log_line(struct strbuf *out, const struct serve_record *r);
/* Reads a log back: strict JSON per line, bounded; errors name the line
 * ("line 3: ..."). A log holds its head, then one line per request of the
 * trace, each index once. *recs owned by the caller (serve_records_release). */
int serve_log_parse(const char *buf, size_t len, struct serve_log_head *h,
		    struct serve_record **recs, size_t *n, struct err *e);

/* Mean, median and percentiles as vllm bench serve prints them (numpy's
 * linear interpolation); n 0 leaves every value 0. */
struct serve_dist {
	size_t n;
	double mean, p50, p90, p95, p99, min, max;
};

struct serve_slo {
	double ttft_ms, tpot_ms, e2el_ms;	/* 0: none */
};

struct serve_summary {
	size_t requests, completed, failed;
	size_t fails[SERVE_NR_FAILS];
	double duration_s;		/* from the first send to the last end */
	double request_throughput;	/* completed / duration */
	double output_throughput;	/* output tokens / duration */
	double total_throughput;	/* (prompt + output tokens) / duration */
	long long prompt_tokens, output_tokens;
	size_t output_from_usage;	/* completed requests whose count came from usage */
	long long cached_tokens;	/* sum over the requests that report it */
	size_t cached_reported;
	/* cached_tokens / the prompt tokens of the requests that report it
	 * (the prefix-hit rate); 0 when none does */
	double prefix_hit_rate;
	struct serve_dist ttft, tpot, itl, e2el, lag;	/* ms */
	bool has_slo;
	struct serve_slo slo;
	size_t good;
	double goodput;			/* good requests / duration */
	bool open_loop;
	double max_lag_ms;		/* the bound */
	size_t late;			/* sends beyond the bound */
	bool fell_behind;
};

void serve_dist_of(double *v, size_t n, struct serve_dist *d);	/* sorts v */

/* The latencies of the completed requests, each sorted ascending, in ms:
 * what the summary's TTFT, ITL and E2EL are drawn from (a CDF plots them).
 * The arrays are owned: serve_latencies_release. */
struct serve_latencies {
	double *ttft, *itl, *e2el;
	size_t nr_ttft, nr_itl, nr_e2el;
};

void serve_latencies_of(const struct serve_record *r, size_t n, struct serve_latencies *l);
void serve_latencies_release(struct serve_latencies *l);
/* The summary of n records; open_loop says whether sends had a schedule
 * (lag counts only then); slo may be NULL. */
void serve_summarize(const struct serve_record *r, size_t n, bool open_loop, double max_lag_ms,
		     const struct serve_slo *slo, struct serve_summary *s);
/* Parses "ttft_ms=200,tpot_ms=50,e2el_ms=1000". */
int serve_slo_parse(const char *spec, struct serve_slo *slo, struct err *e);
json_t *serve_summary_to_json(const struct serve_summary *s);
/* The summary's values in the order of serving_metrics (base/serving_metric.h). */
void serve_summary_values(const struct serve_summary *s, double out[SERVING_NR_METRICS]);

#endif
