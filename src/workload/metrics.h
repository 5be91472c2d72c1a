#ifndef FAK_WORKLOAD_METRICS_H
#define FAK_WORKLOAD_METRICS_H
/* The metrics parsers of `fak bench experiment`: pure functions from the
 * captured stdout of one run to the values it measured (struct wl_metrics).
 * No I/O; the caller reads the log and passes the bytes its parser needs
 * (struct metrics_parser says how many). The protocol is documented in
 * docs/experiments.md, "The metrics protocol".
 *
 * Lines: stdout is split at LF; the bytes after the last LF form a final
 * line. Trailing blanks (space, tab, CR) of a line are ignored, and a line
 * holding nothing else is empty. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "attestation/workload.h"

/* json-line/v1 and quality-line/v1 read only the last METRICS_TAIL_BYTES of
 * stdout. Their line, counted from its first byte to the end of stdout
 * (blank lines after it included), must be at most METRICS_LINE_MAX bytes:
 * the verdict is then the same whether a parser gets the whole stdout or
 * only its tail. */
#define METRICS_TAIL_BYTES ((size_t)64 * 1024)
#define METRICS_LINE_MAX (METRICS_TAIL_BYTES - 1)
/* llama-bench/v1 reads the whole stdout; more than this is refused. */
#define METRICS_DOC_MAX_BYTES ((size_t)4 * 1024 * 1024)

struct metrics_parser {
	const char *id;		/* WL_PARSER_*, recorded in the attestation */
	const char *option;	/* its `--metrics` value; NULL for the quality line */
	bool whole;		/* reads the whole stdout (else only its tail) */
	size_t max_bytes;	/* whole: the largest stdout accepted; tail: its size */
};

/* The `--metrics` values, for usage messages. */
#define METRICS_OPTIONS "json, llama-bench"

/* The parser with this id, or NULL. Static storage. */
const struct metrics_parser *metrics_parser_find(const char *id);
/* The parser behind a `--metrics` value ("json", "llama-bench"), or NULL. */
const struct metrics_parser *metrics_parser_for_option(const char *option);

/* Parses the bytes buf[0..len) (no NUL needed) with parser `parser_id` and
 * fills *out (zeroed first):
 *   json-line/v1    the metrics line: throughput, optional stage times and
 *                   quality; len may exceed the tail, only the tail is read.
 *   quality-line/v1 the quality line: only out->quality (has_quality).
 *   llama-bench/v1  at depth 0, the pP+tgT row (P = prompt_tokens, T =
 *                   decode_tokens), or else the pP row and the tgT row (for
 *                   P = 0 the tgT row alone): throughput, and for a pair
 *                   prefill and decode times; out->derivation says which.
 * prompt_tokens and decode_tokens are the envelope's; only llama-bench
 * uses them (decode positive, prompt not negative). Returns 0, or -1 with a message that
 * says what is wrong with the output (an unknown parser id is an error too). */
int metrics_parse(const char *parser_id, const char *buf, size_t len, long long prompt_tokens,
		  long long decode_tokens, struct wl_metrics *out, struct err *e);

/* ---- captured logs (metrics_log.c) --------------------------------------- */

/* Reads what parser mp needs of a captured stdout of size bytes at fd:
 * its tail, or all of it up to the parser's limit (beyond it, why says so
 * and nothing is read). The runner and --verify --log read alike. -1 with
 * errno on a read error. */
int metrics_read_output(int fd, int64_t size, const struct metrics_parser *mp, struct strbuf *sb,
			char *why, size_t cap);

/* Whether a log file of bytes with sha256 (hex) is the one a sealed stream
 * left: the whole stream, or its kept head and tail. */
bool metrics_log_matches(const struct wl_stream *st, int64_t bytes, const char *sha256);

/* `--verify ATTESTATION --log FILE` and promotion: the log's size and
 * sha256 must equal the sealed stdout of r's workload, and re-parsing it
 * with the recorded parser must give the sealed metrics (or the same parse
 * error). r must be a verified fak.system-baseline/v2 attestation. *summary gets
 * a short text of what matched (static storage of the caller: cap bytes). */
struct attestation;
int metrics_verify_log(const struct attestation *r, const char *log_path, char *summary, size_t cap,
		       struct err *e);

#endif
