#ifndef FAK_SERVE_QUALITY_H
#define FAK_SERVE_QUALITY_H
/* Quality prompts (fak-quality-prompts/v1, docs/serving.md, "Quality"): a
 * few prompts, each sent alone and greedy (temperature 0) to a server's
 * /v1/completions, whose outputs are compared with their reference text.
 * Read strictly, written in canonical JSON (RFC 8785). The requests go
 * through libcurl's easy interface, one at a time. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "serve/client.h"
#include "serve/trace.h"

#define QUALITY_SCHEMA "fak-quality-prompts/v1"
/* Bounds of every prompts file. */
#define QUALITY_FILE_CAP ((size_t)4 << 20)
#define QUALITY_MAX_PROMPTS 256
#define QUALITY_MAX_TOKENS 4096			/* max_tokens */
#define QUALITY_MAX_PROMPT_TOKENS 8192		/* token ids of one prompt */
#define QUALITY_MAX_TEXT_BYTES (64 << 10)	/* of one text prompt */
#define QUALITY_MAX_REFERENCE_BYTES (256 << 10)	/* of one reference, and of an answer */

struct quality_prompt {
	struct trace_request q;	/* the prompt (tokens or text) and the set's max_tokens */
	char *reference;	/* owned; NULL: none yet (a file to make references from) */
};

struct quality_set {
	long long max_tokens;
	struct quality_prompt *p;	/* owned */
	size_t nr;
};

/* Strict decode (doc borrowed): unknown or duplicate keys, wrong types and
 * values out of bounds fail with their JSON path. s is filled; release it. */
int quality_decode(const json_t *doc, struct quality_set *s, struct err *e);
/* Reads and decodes a file, capped at QUALITY_FILE_CAP; digest gets the
 * sha256 of its canonical form ("sha256:<hex>"). Errors name the file. */
int quality_load(const char *path, struct quality_set *s, char digest[72], struct err *e);
/* The index of the first prompt without a reference; -1 when all have one. */
long quality_missing_reference(const struct quality_set *s);
/* The set as a document (new reference), each prompt's reference replaced
 * by refs[i] when refs is not NULL. */
json_t *quality_to_json(const struct quality_set *s, char *const *refs);
/* Its canonical form plus a newline, and the digest of the canonical bytes. */
int quality_render(const struct quality_set *s, char *const *refs, struct strbuf *out,
		   char digest[72], struct err *e);
void quality_release(struct quality_set *s);

/* Sends each prompt alone, in order, greedy (temperature 0, not streamed)
 * to o->endpoint's completions route (o->model when set; o->timeout_ns
 * bounds each answer), and gets each answer's choices[0].text in out[i]
 * (owned by the caller; out has s->nr slots, NULL on failure). -1 with e
 * naming the prompt and what its answer was, at the first that fails. */
int quality_ask(const struct serve_opts *o, const struct quality_set *s, char **out,
		struct err *e);
/* The outputs that equal their reference, byte for byte. */
size_t quality_matched(const struct quality_set *s, char *const *out);
/* The per-prompt log (JSON lines): a head line (prompts_sha256, prompts,
 * matched), then per prompt its index, whether it matched and its output. */
void quality_log(const struct quality_set *s, const char *digest, char *const *out,
		 struct strbuf *sb);

#endif
