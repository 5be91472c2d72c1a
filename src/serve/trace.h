#ifndef FAK_SERVE_TRACE_H
#define FAK_SERVE_TRACE_H
/* Arrival traces (fak-serving-trace/v1, docs/serving.md): drawn from a
 * seed, written in canonical JSON (RFC 8785) so their sha256 is stable, and
 * read back strictly (a trace a user wrote is checked the same way). */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/findings.h"
#include "base/strbuf.h"

#define TRACE_SCHEMA "fak-serving-trace/v1"
/* Bounds of every trace, drawn or read. */
#define TRACE_MAX_REQUESTS 100000
#define TRACE_MAX_PROMPT_TOKENS 131072
#define TRACE_MAX_OUTPUT_TOKENS 131072
#define TRACE_MAX_TOTAL_TOKENS ((size_t)1 << 24)	/* prompt tokens of all requests */
#define TRACE_MAX_TEXT_BYTES (1 << 20)			/* of one text prompt */
#define TRACE_MAX_VOCAB (1 << 24)
#define TRACE_MAX_CONCURRENCY 4096
#define TRACE_MAX_OFFSET_US ((int64_t)86400 * 1000000)	/* one day */
#define TRACE_MAX_SEED (((uint64_t)1 << 53) - 1)	/* exact in JSON */
#define TRACE_FILE_CAP ((size_t)64 << 20)

enum trace_process { TRACE_POISSON, TRACE_GAMMA, TRACE_CLOSED };
/* "poisson", "gamma", "closed" */
extern const char *const trace_process_names[3];

struct trace_request {
	int64_t arrival_us;	/* offset from the start of the run; 0 in a closed loop */
	int32_t *tokens;	/* owned; NULL for a text prompt */
	size_t nr_tokens;
	char *text;		/* owned; NULL for a token prompt */
	long long max_tokens;
	long long prefix_group;	/* -1: none */
};

struct trace {
	enum trace_process process;
	double rate;		/* req/s (poisson, gamma); 0 in a closed loop */
	double burstiness;	/* gamma shape (1 for poisson); 0 in a closed loop */
	long long concurrency;	/* closed loop; 0 otherwise */
	bool has_seed;
	uint64_t seed;
	long long vocab;	/* 0: text prompts */
	long long prefix_tokens;	/* length of each prefix group's shared prefix; 0: none */
	struct trace_request *req;	/* owned */
	size_t nr;
};

/* What fak bench trace draws. */
struct trace_gen {
	uint64_t seed;
	enum trace_process process;
	double rate, burstiness;
	long long concurrency;
	size_t requests;
	long long prompt_min, prompt_max;	/* inclusive; equal for a fixed length */
	long long output_min, output_max;
	long long vocab;
	bool text;		/* text prompts instead of token ids */
	double prefix_fraction;	/* [0,1] */
	long long prefix_tokens;
};

/* Draws the trace (deterministic: same gen, same trace, on any machine
 * with IEEE doubles and a correctly rounded log). Checks gen's bounds
 * first; -1 with e on a bad value. t is filled; release it. */
int trace_generate(const struct trace_gen *gen, struct trace *t, struct err *e);

/* The request's prompt: its text, or its token ids as an array (new
 * reference). */
json_t *trace_prompt_to_json(const struct trace_request *q);
/* The trace as a JSON document (new reference). */
json_t *trace_to_json(const struct trace *t);
/* Its canonical form (RFC 8785) plus a newline, and the sha256 of the
 * canonical bytes without the newline ("sha256:<hex>"). */
int trace_render(const struct trace *t, struct strbuf *out, char digest[72], struct err *e);

/* Strict decode of a trace document: unknown keys, wrong types and bounds
 * fail with the JSON path (-1, e). Then the rules of the schema (arrivals
 * in order, token ids within the vocabulary, prefix groups that really
 * share their prefix, ...) are collected as findings: the trace is usable
 * only when f is empty. */
int trace_decode(const json_t *doc, struct trace *t, struct findings *f, struct err *e);
/* Reads and decodes a file ("-": stdin), capped at TRACE_FILE_CAP; digest
 * gets the sha256 of its canonical form. */
int trace_load(const char *path, struct trace *t, struct findings *f, char digest[72],
	       struct err *e);
/* The full read of trace_load: the strict parse of buf, trace_decode, and
 * the digest of the canonical form; name (NULL: none) names buf in errors. */
int trace_read_full(const char *buf, size_t len, const char *name, struct trace *t,
		    struct findings *f, char digest[72], struct err *e);
/* The fast read of trace_load: 1 with t, f and digest filled, as the full
 * read fills them, when buf is a trace as fak writes it (canonical bytes
 * of plain ASCII strings, then at most a newline, every value of its type
 * and within the bounds the full read fails on); 0 with nothing left
 * allocated otherwise, and the full read decides. */
int trace_read_fast(const char *buf, size_t len, struct trace *t, struct findings *f,
		    char digest[72]);
/* Every value of a and b the same. */
bool trace_equal(const struct trace *a, const struct trace *b);
/* Prompt tokens of all requests (tokens, or bytes of text). */
size_t trace_prompt_tokens(const struct trace_request *r);
void trace_release(struct trace *t);

#endif
