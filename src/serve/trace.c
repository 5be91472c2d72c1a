/* Arrival traces: drawn from a seed (xoshiro256**), canonical JSON, strict
 * decode with findings. */
#include "serve/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"

const char *const trace_process_names[3] = { "poisson", "gamma", "closed" };

/* ---- the generator -------------------------------------------------- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* (0, 1]: never 0, so its log is finite */
static double rng_unit(struct rng *r)
{
	return (double)((rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

static long long rng_range(struct rng *r, long long lo, long long hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;

	return span ? lo + (long long)(rng_next(r) % span) : lo;
}

static double rng_normal(struct rng *r)
{
	return sqrt(-2.0 * log(rng_unit(r))) * cos(2.0 * M_PI * rng_unit(r));
}

/* Gamma(shape k, scale 1): Marsaglia and Tsang (2000); k < 1 by
 * Gamma(k+1) * U^(1/k). */
static double rng_gamma(struct rng *r, double k)
{
	double d, c, x, v, u;

	if (k < 1.0)
		return rng_gamma(r, k + 1.0) * pow(rng_unit(r), 1.0 / k);
	d = k - 1.0 / 3.0;
	c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		do {
			x = rng_normal(r);
			v = 1.0 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = rng_unit(r);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

/* A text prompt of n words, one per drawn id (about one token each). */
static char *text_prompt(struct rng *r, size_t n)
{
	static const char *const syl[16] = { "ka", "lo", "mi", "nu", "pe", "ri", "so", "ta",
					     "ve", "zu", "ba", "de", "fo", "gi", "ho", "ju" };
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = rng_next(r);

		sb_addf(&sb, "%s%s%s", i ? " " : "", syl[x & 15], syl[(x >> 4) & 15]);
	}
	return sb_detach(&sb, NULL);
}

static int gen_check(const struct trace_gen *g, struct err *e)
{
	if (g->seed > TRACE_MAX_SEED)
		return err_set(e, "--seed must be at most 2^53-1 (got %llu)",
			       (unsigned long long)g->seed);
	if (g->requests < 1 || g->requests > TRACE_MAX_REQUESTS)
		return err_set(e, "--requests must be 1..%d (got %zu)", TRACE_MAX_REQUESTS,
			       g->requests);
	if (g->process != TRACE_CLOSED && !(g->rate > 0 && g->rate <= 1e6))
		return err_set(e, "--rate must be in (0, 1000000] requests per second");
	if (g->process == TRACE_GAMMA && !(g->burstiness > 0 && g->burstiness <= 1e3))
		return err_set(e, "--burstiness must be in (0, 1000]");
	if (g->process == TRACE_CLOSED &&
	    (g->concurrency < 1 || g->concurrency > TRACE_MAX_CONCURRENCY))
		return err_set(e, "--concurrency must be 1..%d", TRACE_MAX_CONCURRENCY);
	if (g->prompt_min < 1 || g->prompt_max < g->prompt_min ||
	    g->prompt_max > TRACE_MAX_PROMPT_TOKENS)
		return err_set(e, "--prompt-tokens must be N or LO:HI within 1..%d",
			       TRACE_MAX_PROMPT_TOKENS);
	if (g->output_min < 1 || g->output_max < g->output_min ||
	    g->output_max > TRACE_MAX_OUTPUT_TOKENS)
		return err_set(e, "--output-tokens must be N or LO:HI within 1..%d",
			       TRACE_MAX_OUTPUT_TOKENS);
	if (!g->text && (g->vocab < 2 || g->vocab > TRACE_MAX_VOCAB))
		return err_set(e, "--vocab must be 2..%d", TRACE_MAX_VOCAB);
	if (!(g->prefix_fraction >= 0 && g->prefix_fraction <= 1))
		return err_set(e, "--shared-prefix-fraction must be in [0, 1]");
	if ((g->prefix_fraction > 0) != (g->prefix_tokens > 0))
		return err_set(e, "--shared-prefix-fraction and --prefix-tokens go together");
	if (g->prefix_tokens < 0 || g->prefix_tokens + g->prompt_max > TRACE_MAX_PROMPT_TOKENS)
		return err_set(e, "--prefix-tokens plus the longest prompt must be at most %d",
			       TRACE_MAX_PROMPT_TOKENS);
	if (g->text && g->prefix_tokens)
		return err_set(e, "a shared prefix needs token prompts (not --text)");
	if ((double)g->requests * (double)(g->prompt_max + g->prefix_tokens) >
	    (double)TRACE_MAX_TOTAL_TOKENS)
		return err_set(e, "the trace would hold more than %zu prompt tokens",
			       TRACE_MAX_TOTAL_TOKENS);
	return 0;
}

int trace_generate(const struct trace_gen *g, struct trace *t, struct err *e)
{
	struct rng r, lens, shared;
	int32_t *prefix = NULL;
	size_t nr_shared;
	double clock = 0;

	memset(t, 0, sizeof(*t));
	TRY(gen_check(g, e));
	/* three streams, so a change of one draw (lengths, prefix choice)
	 * does not move the arrivals */
	rng_seed(&r, g->seed);
	rng_seed(&lens, g->seed ^ 0x6c656e67746873ULL);
	rng_seed(&shared, g->seed ^ 0x707265666978ULL);
	t->process = g->process;
	t->rate = g->process == TRACE_CLOSED ? 0 : g->rate;
	t->burstiness = g->process == TRACE_GAMMA ? g->burstiness
		      : g->process == TRACE_POISSON ? 1 : 0;
	t->concurrency = g->process == TRACE_CLOSED ? g->concurrency : 0;
	t->has_seed = true;
	t->seed = g->seed;
	t->vocab = g->text ? 0 : g->vocab;
	t->prefix_tokens = g->prefix_tokens;
	t->nr = g->requests;
	t->req = xcalloc(t->nr, sizeof(*t->req));
	if (g->prefix_tokens) {
		prefix = xcalloc((size_t)g->prefix_tokens, sizeof(*prefix));
		for (long long k = 0; k < g->prefix_tokens; k++)
			prefix[k] = (int32_t)rng_range(&shared, 0, g->vocab - 1);
	}
	/* exactly round(F * N) requests share the prefix: the first of a
	 * seeded permutation */
	nr_shared = (size_t)llround(g->prefix_fraction * (double)g->requests);
	{
		size_t *perm = xcalloc(t->nr, sizeof(*perm));

		for (size_t i = 0; i < t->nr; i++)
			perm[i] = i;
		for (size_t i = t->nr - 1; i > 0; i--) {
			size_t j = (size_t)rng_range(&shared, 0, (long long)i), x = perm[i];

			perm[i] = perm[j];
			perm[j] = x;
		}
		for (size_t i = 0; i < t->nr; i++)
			t->req[i].prefix_group = -1;
		for (size_t i = 0; i < nr_shared; i++)
			t->req[perm[i]].prefix_group = 0;
		free(perm);
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct trace_request *q = &t->req[i];
		size_t n = (size_t)rng_range(&lens, g->prompt_min, g->prompt_max), at = 0;

		if (g->process != TRACE_CLOSED) {
			/* the first request leaves at 0, each next one an interval
			 * later: Gamma(B, 1/(rate B)), mean 1/rate (B = 1: Poisson) */
			if (i)
				clock += rng_gamma(&r, t->burstiness) / (g->rate * t->burstiness);
			q->arrival_us = (int64_t)llround(clock * 1e6);
		}
		q->max_tokens = rng_range(&lens, g->output_min, g->output_max);
		if (g->text) {
			q->text = text_prompt(&lens, n);
			continue;
		}
		if (q->prefix_group >= 0)
			n += (size_t)g->prefix_tokens;
		q->nr_tokens = n;
		q->tokens = xcalloc(n, sizeof(*q->tokens));
		if (q->prefix_group >= 0 && prefix) {
			memcpy(q->tokens, prefix, (size_t)g->prefix_tokens * sizeof(*prefix));
			at = (size_t)g->prefix_tokens;
		}
		for (; at < n; at++)
			q->tokens[at] = (int32_t)rng_range(&lens, 0, g->vocab - 1);
	}
	free(prefix);
	if (t->nr && t->req[t->nr - 1].arrival_us > TRACE_MAX_OFFSET_US) {
		trace_release(t);
		return err_set(e, "the last arrival would be more than a day after the first: "
			       "raise --rate or lower --requests");
	}
	return 0;
}

/* ---- the document --------------------------------------------------- */

json_t *trace_prompt_to_json(const struct trace_request *q)
{
	json_t *ids;

	if (q->text)
		return json_string(q->text);
	ids = jarr();
	for (size_t k = 0; k < q->nr_tokens; k++)
		jpush_new(ids, json_integer(q->tokens[k]));
	return ids;
}

json_t *trace_to_json(const struct trace *t)
{
	json_t *doc = jobj(), *arr = jobj(), *reqs = jarr();

	jset_str(doc, "schema", TRACE_SCHEMA);
	jset_str(arr, "process", trace_process_names[t->process]);
	if (t->process == TRACE_CLOSED) {
		jset_int(arr, "concurrency", t->concurrency);
	} else {
		jset_num(arr, "rate", t->rate);
		jset_num(arr, "burstiness", t->burstiness);
	}
	jset_new(doc, "arrival", arr);
	if (t->has_seed)
		jset_int(doc, "seed", (long long)t->seed);
	if (t->vocab)
		jset_int(doc, "vocab", t->vocab);
	if (t->prefix_tokens)
		jset_int(doc, "prefix_tokens", t->prefix_tokens);
	for (size_t i = 0; i < t->nr; i++) {
		const struct trace_request *q = &t->req[i];
		json_t *o = jobj();

		jset_int(o, "arrival_us", q->arrival_us);
		jset_new(o, q->text ? "prompt" : "prompt_token_ids", trace_prompt_to_json(q));
		jset_int(o, "max_tokens", q->max_tokens);
		if (q->prefix_group >= 0)
			jset_int(o, "prefix_group", q->prefix_group);
		jpush_new(reqs, o);
	}
	jset_new(doc, "requests", reqs);
	return doc;
}

int trace_render(const struct trace *t, struct strbuf *out, char digest[72], struct err *e)
{
	json_t *doc = trace_to_json(t);
	size_t at = out->len;
	int rc = json_write_canonical(out, doc, e);

	json_decref(doc);
	TRY(rc);
	memcpy(digest, "sha256:", 8);	/* its NUL is overwritten */
	sha256_hex(out->buf + at, out->len - at, digest + 7);
	sb_addch(out, '\n');
	return 0;
}

/* ---- reading -------------------------------------------------------- */

static const char *const top_keys[] = { "schema", "arrival", "seed", "vocab", "prefix_tokens",
					"requests", NULL };
static const char *const arrival_keys[] = { "process", "rate", "burstiness", "concurrency",
					    NULL };
static const char *const req_keys[] = { "arrival_us", "prompt_token_ids", "prompt",
					"max_tokens", "prefix_group", NULL };

static void findf(struct findings *f, const struct jpath *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void findf(struct findings *f, const struct jpath *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	jpath_format(p, &sb);
	sb_adds(&sb, ": ");
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	findings_add_owned(f, sb_detach(&sb, NULL));
}

/* What the arrival's members say once read (from the tree or by the fast
 * read): t's process, and its rate, burstiness and concurrency already
 * read into t, kept or cleared; findings for what the process forbids or
 * needs. has_* follow jd_*: 0 when the member is there. */
static void arrival_rules(struct trace *t, const char *name, int has_rate, int has_burst,
			  int has_conc, struct findings *f)
{
	struct jpath at = JP_KEY(NULL, "arrival");

	if (!strcmp(name, "closed")) {
		t->process = TRACE_CLOSED;
		if (has_conc != 0) {
			struct jpath p = JP_KEY(&at, "concurrency");

			findf(f, &p, "required in a closed loop");
		} else if (t->concurrency < 1 || t->concurrency > TRACE_MAX_CONCURRENCY) {
			struct jpath p = JP_KEY(&at, "concurrency");

			findf(f, &p, "%lld is outside 1..%d", t->concurrency,
			      TRACE_MAX_CONCURRENCY);
		}
		if (has_rate == 0 || has_burst == 0)
			findf(f, &at, "a closed loop has no rate or burstiness");
		t->rate = t->burstiness = 0;
		return;
	}
	if (!strcmp(name, "poisson")) {
		t->process = TRACE_POISSON;
	} else if (!strcmp(name, "gamma")) {
		t->process = TRACE_GAMMA;
	} else {
		struct jpath p = JP_KEY(&at, "process");

		findf(f, &p, "\"%.40s\" is not poisson, gamma or closed", name);
		return;
	}
	if (has_conc == 0)
		findf(f, &at, "concurrency belongs to a closed loop only");
	t->concurrency = 0;
	if (has_rate != 0 || !(t->rate > 0 && t->rate <= 1e6)) {
		struct jpath p = JP_KEY(&at, "rate");

		findf(f, &p, "required, in (0, 1000000] requests per second");
	}
	if (has_burst != 0) {
		t->burstiness = 1;
		if (t->process == TRACE_GAMMA) {
			struct jpath p = JP_KEY(&at, "burstiness");

			findf(f, &p, "required for gamma arrivals");
		}
	} else if (!(t->burstiness > 0 && t->burstiness <= 1e3) ||
		   (t->process == TRACE_POISSON && t->burstiness != 1)) {
		struct jpath p = JP_KEY(&at, "burstiness");

		findf(f, &p, "%g is outside %s", t->burstiness,
		      t->process == TRACE_POISSON ? "1 (poisson)" : "(0, 1000]");
	}
}

static int decode_arrival(const json_t *doc, const struct jpath *root, struct trace *t,
			  struct findings *f, struct err *e)
{
	struct jpath at = JP_KEY(root, "arrival");
	const json_t *a;
	const char *name;
	int has_rate, has_burst, has_conc;

	TRY(jd_obj(doc, root, "arrival", REQ, &a, e));
	TRY(jd_object(a, &at, arrival_keys, e));
	TRY(jd_str(a, &at, "process", REQ, &name, e));
	TRY(has_rate = jd_num(a, &at, "rate", OPT, &t->rate, e));
	TRY(has_burst = jd_num(a, &at, "burstiness", OPT, &t->burstiness, e));
	TRY(has_conc = jd_int(a, &at, "concurrency", OPT, &t->concurrency, e));
	arrival_rules(t, name, has_rate, has_burst, has_conc, f);
	return 0;
}

static int decode_request(const json_t *o, const struct jpath *at, struct trace *t,
			  struct trace_request *q, size_t *total, struct err *e)
{
	const json_t *ids;
	const char *text;
	long long v;
	int has_ids, has_text;

	q->prefix_group = -1;
	TRY(jd_object(o, at, req_keys, e));
	TRY(jd_int(o, at, "arrival_us", REQ, &v, e));
	q->arrival_us = v;
	TRY(jd_int(o, at, "max_tokens", REQ, &q->max_tokens, e));
	TRY(jd_int(o, at, "prefix_group", OPT, &q->prefix_group, e));
	TRY(has_ids = jd_arr(o, at, "prompt_token_ids", OPT, false, &ids, e));
	TRY(has_text = jd_str(o, at, "prompt", OPT, &text, e));
	if (has_ids == has_text)
		return jpath_err(e, at, "give exactly one of prompt_token_ids and prompt");
	if (has_text == 0) {
		size_t n = strlen(text);

		if (n > TRACE_MAX_TEXT_BYTES) {
			struct jpath p = JP_KEY(at, "prompt");

			return jpath_err(e, &p, "longer than %d bytes", TRACE_MAX_TEXT_BYTES);
		}
		q->text = xstrdup(text);
		*total += n;
	} else {
		struct jpath p = JP_KEY(at, "prompt_token_ids");
		size_t n = json_array_size(ids);

		if (n > TRACE_MAX_PROMPT_TOKENS)
			return jpath_err(e, &p, "more than %d tokens", TRACE_MAX_PROMPT_TOKENS);
		*total += n;
		if (*total > TRACE_MAX_TOTAL_TOKENS)
			return jpath_err(e, &p, "the trace holds more than %zu prompt tokens",
					 TRACE_MAX_TOTAL_TOKENS);
		q->tokens = xcalloc(n ? n : 1, sizeof(*q->tokens));
		q->nr_tokens = n;
		for (size_t k = 0; k < n; k++) {
			const json_t *x = json_array_get(ids, k);
			struct jpath pk = JP_IDX(&p, k);
			json_int_t id;

			if (!json_is_integer(x))
				return jpath_err(e, &pk, "expected a token id (an integer)");
			id = json_integer_value(x);
			if (id < 0 || id >= TRACE_MAX_VOCAB)
				return jpath_err(e, &pk, "%lld is outside 0..%d", (long long)id,
						 TRACE_MAX_VOCAB - 1);
			q->tokens[k] = (int32_t)id;
		}
	}
	(void)t;
	return 0;
}

/* Request i's arrival: within a day, none in a closed loop, never before
 * the previous request's. */
static void check_arrival(const struct trace *t, size_t i, const struct jpath *at,
			  struct findings *f)
{
	const struct trace_request *q = &t->req[i];

	if (q->arrival_us < 0 || q->arrival_us > TRACE_MAX_OFFSET_US) {
		struct jpath p = JP_KEY(at, "arrival_us");

		findf(f, &p, "%lld is outside 0..%lld (one day)", (long long)q->arrival_us,
		      (long long)TRACE_MAX_OFFSET_US);
	} else if (t->process == TRACE_CLOSED && q->arrival_us) {
		struct jpath p = JP_KEY(at, "arrival_us");

		findf(f, &p, "a closed loop has no schedule (0, got %lld)",
		      (long long)q->arrival_us);
	} else if (i && q->arrival_us < t->req[i - 1].arrival_us) {
		struct jpath p = JP_KEY(at, "arrival_us");

		findf(f, &p, "%lld comes before the previous request's %lld (arrivals "
		      "must not decrease)", (long long)q->arrival_us,
		      (long long)t->req[i - 1].arrival_us);
	}
}

/* Request i's prompt: not empty, of the kind of request 0's (a trace's
 * prompts are all text or all token ids), and its token ids in the
 * vocabulary the trace declares (required with token prompts, refused with
 * text ones; said once, at request 0). */
static void check_prompt(const struct trace *t, size_t i, const struct jpath *root,
			 const struct jpath *at, struct findings *f)
{
	const struct trace_request *q = &t->req[i];

	if (q->text ? !*q->text : !q->nr_tokens) {
		struct jpath p = JP_KEY(at, q->text ? "prompt" : "prompt_token_ids");

		findf(f, &p, "the prompt is empty");
	}
	if (i > 0 && !q->text != !t->req[0].text) {
		struct jpath p = JP_KEY(at, q->text ? "prompt" : "prompt_token_ids");

		findf(f, &p, "%s where request 0's prompt is %s: a trace's prompts are all "
		      "text or all token ids", q->text ? "a text prompt" : "token ids",
		      q->text ? "token ids" : "text");
	}
	if (i == 0 && q->text && t->vocab) {
		struct jpath p = JP_KEY(root, "vocab");

		findf(f, &p, "set, but the prompts are text: vocab goes with token prompts");
	}
	if (i == 0 && !q->text && !t->vocab) {
		struct jpath p = JP_KEY(root, "vocab");

		findf(f, &p, "required with token prompts");
	}
	for (size_t k = 0; !q->text && t->vocab && k < q->nr_tokens; k++)
		if (q->tokens[k] >= t->vocab) {
			struct jpath p = JP_KEY(at, "prompt_token_ids");
			struct jpath pk = JP_IDX(&p, k);

			findf(f, &pk, "%d is outside the vocabulary (0..%lld)",
			      (int)q->tokens[k], t->vocab - 1);
			break;
		}
}

/* Request i's prefix group: -1 or a group, which needs prefix_tokens and a
 * token prompt at least that long, and every member of a group starts with
 * its first member's prefix. */
static void check_prefix_group(const struct trace *t, size_t i, const struct jpath *at,
			       struct findings *f)
{
	const struct trace_request *q = &t->req[i];
	const struct trace_request *first_of_group = NULL;

	if (q->prefix_group < 0 && q->prefix_group != -1) {
		struct jpath p = JP_KEY(at, "prefix_group");

		findf(f, &p, "%lld is negative", q->prefix_group);
	}
	if (q->prefix_group < 0)
		return;
	if (!t->prefix_tokens) {
		struct jpath p = JP_KEY(at, "prefix_group");

		findf(f, &p, "a prefix group needs prefix_tokens at the top level");
		return;
	}
	if (q->text || q->nr_tokens < (size_t)t->prefix_tokens) {
		struct jpath p = JP_KEY(at, "prompt_token_ids");

		findf(f, &p, "shorter than the shared prefix (%lld tokens)",
		      t->prefix_tokens);
		return;
	}
	for (size_t j = 0; j < i && !first_of_group; j++)
		if (t->req[j].prefix_group == q->prefix_group && !t->req[j].text &&
		    t->req[j].nr_tokens >= (size_t)t->prefix_tokens)
			first_of_group = &t->req[j];
	if (first_of_group &&
	    memcmp(first_of_group->tokens, q->tokens,
		   (size_t)t->prefix_tokens * sizeof(*q->tokens))) {
		struct jpath p = JP_KEY(at, "prompt_token_ids");

		findf(f, &p, "does not start with the prefix of group %lld (the first "
		      "%lld tokens of its first request)", q->prefix_group,
		      t->prefix_tokens);
	}
}

/* The rules between members and requests, as findings. */
static void check_rules(const struct trace *t, const struct jpath *root, struct findings *f)
{
	struct jpath rq = JP_KEY(root, "requests");

	if (t->nr == 0)
		findf(f, &rq, "a trace has at least one request");
	for (size_t i = 0; i < t->nr; i++) {
		const struct trace_request *q = &t->req[i];
		struct jpath at = JP_IDX(&rq, i);

		check_arrival(t, i, &at, f);
		if (q->max_tokens < 1 || q->max_tokens > TRACE_MAX_OUTPUT_TOKENS) {
			struct jpath p = JP_KEY(&at, "max_tokens");

			findf(f, &p, "%lld is outside 1..%d", q->max_tokens,
			      TRACE_MAX_OUTPUT_TOKENS);
		}
		check_prompt(t, i, root, &at, f);
		check_prefix_group(t, i, &at, f);
	}
}

/* What the top's optional members say once read: the seed kept (has_seed
 * 0: it is there), vocab (has_vocab 0: it is there, 0 included) and
 * prefix_tokens outside their bounds cleared, with findings. */
static void top_rules(struct trace *t, int has_seed, long long seed, int has_vocab,
		      struct findings *f)
{
	if (has_seed == 0) {
		t->has_seed = true;
		t->seed = (uint64_t)seed;
		if (seed < 0 || (uint64_t)seed > TRACE_MAX_SEED) {
			struct jpath p = JP_KEY(NULL, "seed");

			findf(f, &p, "%lld is outside 0..2^53-1", seed);
		}
	}
	if (has_vocab == 0 && (t->vocab < 2 || t->vocab > TRACE_MAX_VOCAB)) {
		struct jpath p = JP_KEY(NULL, "vocab");

		findf(f, &p, "%lld is outside 2..%d", t->vocab, TRACE_MAX_VOCAB);
		t->vocab = 0;
	}
	if (t->prefix_tokens < 0 || t->prefix_tokens > TRACE_MAX_PROMPT_TOKENS) {
		struct jpath p = JP_KEY(NULL, "prefix_tokens");

		findf(f, &p, "%lld is outside 1..%d", t->prefix_tokens, TRACE_MAX_PROMPT_TOKENS);
		t->prefix_tokens = 0;
	}
}

int trace_decode(const json_t *doc, struct trace *t, struct findings *f, struct err *e)
{
	const struct jpath *root = NULL;
	struct jpath rq = JP_KEY(root, "requests");
	const json_t *reqs;
	long long seed;
	size_t total = 0;
	int rc, has_vocab;

	memset(t, 0, sizeof(*t));
	if (!json_is_object(doc))
		return jpath_err(e, root, "expected an object (a " TRACE_SCHEMA " trace)");
	TRY(jd_schema(doc, top_keys, TRACE_SCHEMA, e));
	TRY(rc = jd_int(doc, root, "seed", OPT, &seed, e));
	TRY(has_vocab = jd_int(doc, root, "vocab", OPT, &t->vocab, e));
	TRY(jd_int(doc, root, "prefix_tokens", OPT, &t->prefix_tokens, e));
	top_rules(t, rc, seed, has_vocab, f);
	if (decode_arrival(doc, root, t, f, e) < 0)
		return -1;
	TRY(jd_arr(doc, root, "requests", REQ, false, &reqs, e));
	if (json_array_size(reqs) > TRACE_MAX_REQUESTS)
		return jpath_err(e, &rq, "more than %d requests", TRACE_MAX_REQUESTS);
	t->nr = json_array_size(reqs);
	t->req = xcalloc(t->nr ? t->nr : 1, sizeof(*t->req));
	for (size_t i = 0; i < t->nr; i++) {
		struct jpath at = JP_IDX(&rq, i);
		const json_t *o = json_array_get(reqs, i);

		if (!json_is_object(o)) {
			trace_release(t);
			return jpath_err(e, &at, "expected an object (a request)");
		}
		if (decode_request(o, &at, t, &t->req[i], &total, e) < 0) {
			trace_release(t);
			return -1;
		}
	}
	check_rules(t, root, f);
	findings_sort(f);
	return 0;
}

/* ---- the fast read ---------------------------------------------------- */

/* A trace as fak writes it is read in one pass, without a tree: canonical
 * bytes (members in their sorted order, no white space, integers within
 * 2^53, other numbers as json_format_double writes them, strings of
 * printable ASCII without escapes), then at most a newline, every value of
 * its type and within the bounds the full read fails on. Such bytes are
 * their own canonical form, so the digest is theirs. Anything else is not
 * taken here and the full read decides, with its errors and findings;
 * fuzz_serve_log holds the two equal wherever this one takes a trace. */
struct scan {
	const char *p, *end;
	bool first;	/* no member read yet in the current object */
};

static bool at_byte(struct scan *s, char c)
{
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

/* The member `k` when it comes next, its '"k":' (and the ',' before a
 * member that is not the object's first) consumed. */
static bool scan_key(struct scan *s, const char *k, size_t n)
{
	const char *p = s->p;

	if (!s->first && (p >= s->end || *p++ != ','))
		return false;
	if ((size_t)(s->end - p) < n || memcmp(p, k, n))
		return false;
	s->p = p + n;
	s->first = false;
	return true;
}
#define SCAN_KEY(s, k) scan_key(s, "\"" k "\":", sizeof("\"" k "\":") - 1)

/* The bytes of lit, next. */
static bool scan_lit_n(struct scan *s, const char *lit, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n))
		return false;
	s->p += n;
	return true;
}
#define scan_lit(s, lit) scan_lit_n(s, lit, sizeof(lit) - 1)

static bool scan_open(struct scan *s)
{
	s->first = true;
	return at_byte(s, '{');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* An integer as jansson reads it and the canonical form writes it: 0, or
 * an optional '-' and up to 16 digits without a leading 0, at most 2^53
 * (no fraction, no exponent: those are reals; beyond 2^53 the canonical
 * form fails). */
static bool scan_int(struct scan *s, long long *v)
{
	const char *p = s->p;
	bool neg = at_byte(s, '-');
	long long x = 0;
	int n = 0;

	if (s->p < s->end && *s->p == '0' && !neg) {
		s->p++;
	} else {
		while (s->p < s->end && is_digit(*s->p) && n <= 16 && (n || *s->p != '0')) {
			x = x * 10 + (*s->p++ - '0');
			n++;
		}
		if (!n || n > 16 || x > (1LL << 53))
			goto no;
	}
	if (s->p < s->end && (is_digit(*s->p) || *s->p == '.' || *s->p == 'e' || *s->p == 'E'))
		goto no;
	*v = neg ? -x : x;
	return true;
no:
	s->p = p;
	return false;
}

/* A number: an integer as above, or a real (a '.' or an 'e': jansson reads
 * plain digits as an integer, and one beyond 2^53 has no canonical form)
 * in the very bytes json_format_double writes for the double it reads as. */
static bool scan_num(struct scan *s, double *v)
{
	char tok[JSON_NUMBER_MAX], canon[JSON_NUMBER_MAX];
	size_t n = 0;
	long long x;
	char *end;

	if (scan_int(s, &x)) {
		*v = (double)x;
		return true;
	}
	while (s->p + n < s->end && n < sizeof(tok) - 1 &&
	       (is_digit(s->p[n]) || (s->p[n] && strchr("-+.e", s->p[n]))))
		n++;
	if (!n || n == sizeof(tok) - 1)
		return false;
	memcpy(tok, s->p, n);
	tok[n] = '\0';
	if (!strpbrk(tok, ".e"))
		return false;
	*v = strtod(tok, &end);
	if (end != tok + n || !isfinite(*v))
		return false;
	json_format_double(canon, *v);
	if (strcmp(canon, tok))
		return false;
	s->p += n;
	return true;
}

/* A string of printable ASCII without escapes: its bytes and length. */
static bool scan_str(struct scan *s, const char **str, size_t *len)
{
	const char *p;

	if (!at_byte(s, '"'))
		return false;
	p = s->p;
	while (s->p < s->end && *s->p >= 0x20 && *s->p < 0x7f && *s->p != '"' && *s->p != '\\')
		s->p++;
	if (!at_byte(s, '"'))
		return false;
	*str = p;
	*len = (size_t)(s->p - 1 - p);
	return true;
}

/* The arrival's members as read: what arrival_rules then judges (a
 * process name of 16 bytes or more is left to the full read). */
struct arrival_seen {
	char name[16];
	int has_rate, has_burst, has_conc;	/* 0: there */
};

static bool scan_arrival(struct scan *s, struct trace *t, struct arrival_seen *a)
{
	const char *str;
	size_t len;

	a->has_rate = a->has_burst = a->has_conc = 1;
	if (!scan_open(s))
		return false;
	if (SCAN_KEY(s, "burstiness")) {
		if (!scan_num(s, &t->burstiness))
			return false;
		a->has_burst = 0;
	}
	if (SCAN_KEY(s, "concurrency")) {
		if (!scan_int(s, &t->concurrency))
			return false;
		a->has_conc = 0;
	}
	if (!SCAN_KEY(s, "process") || !scan_str(s, &str, &len) || len >= sizeof(a->name))
		return false;
	memcpy(a->name, str, len);
	a->name[len] = '\0';
	if (SCAN_KEY(s, "rate")) {
		if (!scan_num(s, &t->rate))
			return false;
		a->has_rate = 0;
	}
	return at_byte(s, '}');
}

static bool scan_tokens(struct scan *s, struct trace_request *q, size_t *total)
{
	size_t alloc = 0;
	long long id;

	if (!at_byte(s, '['))
		return false;
	if (at_byte(s, ']'))
		return true;
	do {
		if (!scan_int(s, &id) || id < 0 || id >= TRACE_MAX_VOCAB ||
		    q->nr_tokens >= TRACE_MAX_PROMPT_TOKENS || ++*total > TRACE_MAX_TOTAL_TOKENS)
			return false;
		ALLOC_GROW(q->tokens, q->nr_tokens + 1, alloc);
		q->tokens[q->nr_tokens++] = (int32_t)id;
	} while (at_byte(s, ','));
	return at_byte(s, ']');
}

static bool scan_request(struct scan *s, struct trace_request *q, size_t *total)
{
	long long v;
	const char *str;
	size_t len;

	q->prefix_group = -1;
	if (!scan_open(s) || !SCAN_KEY(s, "arrival_us") || !scan_int(s, &v))
		return false;
	q->arrival_us = v;
	if (!SCAN_KEY(s, "max_tokens") || !scan_int(s, &q->max_tokens))
		return false;
	if (SCAN_KEY(s, "prefix_group") && !scan_int(s, &q->prefix_group))
		return false;
	if (SCAN_KEY(s, "prompt")) {
		if (!scan_str(s, &str, &len) || len > TRACE_MAX_TEXT_BYTES ||
		    (*total += len) > TRACE_MAX_TOTAL_TOKENS)
			return false;
		q->text = xstrndup(str, len);
	} else if (!SCAN_KEY(s, "prompt_token_ids") || !scan_tokens(s, q, total)) {
		return false;
	}
	if (!q->tokens && !q->text)
		q->tokens = xcalloc(1, sizeof(*q->tokens));	/* as the full read's [] */
	return at_byte(s, '}');
}

static bool scan_requests(struct scan *s, struct trace *t)
{
	size_t alloc = 0, total = 0;

	if (!SCAN_KEY(s, "requests") || !at_byte(s, '['))
		return false;
	if (at_byte(s, ']'))
		return true;
	do {
		if (t->nr >= TRACE_MAX_REQUESTS)
			return false;
		ALLOC_GROW(t->req, t->nr + 1, alloc);
		memset(&t->req[t->nr], 0, sizeof(t->req[t->nr]));
		if (!scan_request(s, &t->req[t->nr++], &total))
			return false;
	} while (at_byte(s, ','));
	return at_byte(s, ']');
}

int trace_read_fast(const char *buf, size_t len, struct trace *t, struct findings *f,
		    char digest[72])
{
	struct scan s = { .p = buf, .end = buf + (len && buf[len - 1] == '\n' ? len - 1 : len) };
	struct arrival_seen a;
	long long seed = 0;
	int has_seed = 1, has_vocab = 1;
	bool ok;

	memset(t, 0, sizeof(*t));
	ok = scan_open(&s) && SCAN_KEY(&s, "arrival") && scan_arrival(&s, t, &a);
	s.first = false;	/* back in the top object, past its first member */
	ok = ok && (!SCAN_KEY(&s, "prefix_tokens") || scan_int(&s, &t->prefix_tokens)) &&
	     scan_requests(&s, t) && SCAN_KEY(&s, "schema") && scan_lit(&s, "\"" TRACE_SCHEMA "\"");
	if (ok && SCAN_KEY(&s, "seed")) {
		ok = scan_int(&s, &seed);
		has_seed = 0;
	}
	if (ok && SCAN_KEY(&s, "vocab")) {
		ok = scan_int(&s, &t->vocab);
		has_vocab = 0;
	}
	ok = ok && at_byte(&s, '}') && s.p == s.end;
	if (!ok) {
		trace_release(t);
		return 0;
	}
	if (!t->req)
		t->req = xcalloc(1, sizeof(*t->req));	/* as the full read's */
	/* the full read's rules in its order: the top, the arrival, the requests */
	top_rules(t, has_seed, seed, has_vocab, f);
	arrival_rules(t, a.name, a.has_rate, a.has_burst, a.has_conc, f);
	check_rules(t, NULL, f);
	findings_sort(f);
	memcpy(digest, "sha256:", 8);	/* its NUL is overwritten */
	sha256_hex(buf, (size_t)(s.end - buf), digest + 7);
	return 1;
}

int trace_read_full(const char *buf, size_t len, const char *name, struct trace *t,
		    struct findings *f, char digest[72], struct err *e)
{
	struct strbuf canon = STRBUF_INIT;
	json_t *doc = json_parse_strict(buf, len, name, e);
	int rc;

	memset(t, 0, sizeof(*t));
	if (!doc)
		return -1;	/* the parse error names the file */
	rc = trace_decode(doc, t, f, e);
	if (rc == 0 && json_write_canonical(&canon, doc, e) == 0) {
		memcpy(digest, "sha256:", 8);	/* its NUL is overwritten */
		sha256_hex(canon.buf, canon.len, digest + 7);
	} else if (rc == 0) {
		trace_release(t);
		rc = -1;
	}
	sb_release(&canon);
	json_decref(doc);
	if (rc < 0 && name)
		err_prefix(e, "'%s'", name);
	return rc;
}

int trace_load(const char *path, struct trace *t, struct findings *f, char digest[72],
	       struct err *e)
{
	struct strbuf buf = STRBUF_INIT;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (file_read(path, TRACE_FILE_CAP, &buf, e) == 0)
		rc = trace_read_fast(buf.buf, buf.len, t, f, digest)
			     ? 0 : trace_read_full(buf.buf, buf.len, path, t, f, digest, e);
	sb_release(&buf);
	return rc;
}

bool trace_equal(const struct trace *a, const struct trace *b)
{
	if (a->process != b->process || a->rate != b->rate || a->burstiness != b->burstiness ||
	    a->concurrency != b->concurrency || a->has_seed != b->has_seed ||
	    a->seed != b->seed || a->vocab != b->vocab || a->prefix_tokens != b->prefix_tokens ||
	    a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++) {
		const struct trace_request *x = &a->req[i], *y = &b->req[i];

		if (x->arrival_us != y->arrival_us || x->max_tokens != y->max_tokens ||
		    x->prefix_group != y->prefix_group || x->nr_tokens != y->nr_tokens ||
		    !x->text != !y->text || (x->text && strcmp(x->text, y->text)) ||
		    !x->tokens != !y->tokens ||
		    (x->tokens && y->tokens && x->nr_tokens &&
		     memcmp(x->tokens, y->tokens, x->nr_tokens * sizeof(*x->tokens))))
			return false;
	}
	return true;
}

size_t trace_prompt_tokens(const struct trace_request *r)
{
	return r->text ? strlen(r->text) : r->nr_tokens;
}

void trace_release(struct trace *t)
{
	for (size_t i = 0; t->req && i < t->nr; i++) {
		free(t->req[i].tokens);
		free(t->req[i].text);
	}
	free(t->req);
	memset(t, 0, sizeof(*t));
}
