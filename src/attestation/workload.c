#include "attestation/workload.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/digest.h"
#include "base/jfields.h"
#include "base/strbuf.h"
#include "base/text.h"

const char *const wl_identity_keys[] = { "engine", "forward_path", "build_commit", "backends",
					 "model_file", "model_type", NULL };

/* The members of struct wl_identity in wl_identity_keys order. */
static const size_t identity_offsets[] = {
	offsetof(struct wl_identity, engine),	    offsetof(struct wl_identity, forward_path),
	offsetof(struct wl_identity, build_commit), offsetof(struct wl_identity, backends),
	offsetof(struct wl_identity, model_file),   offsetof(struct wl_identity, model_type),
};

static const char *identity_get(const struct wl_identity *id, size_t k)
{
	return (const char *)id + identity_offsets[k];
}

void wl_identity_to_json(const struct wl_identity *id, json_t *o)
{
	for (size_t k = 0; wl_identity_keys[k]; k++)
		if (identity_get(id, k)[0])
			jset_str(o, wl_identity_keys[k], identity_get(id, k));
}

static bool identity_equal(const struct wl_identity *a, const struct wl_identity *b)
{
	for (size_t k = 0; wl_identity_keys[k]; k++)
		if (strcmp(identity_get(a, k), identity_get(b, k)))
			return false;
	return true;
}

int wl_identity_decode(const json_t *o, const struct jpath *at, struct wl_identity *id,
		       struct err *e)
{
	memset(id, 0, sizeof(*id));
	for (size_t k = 0; wl_identity_keys[k]; k++) {
		struct jpath kp = JP_KEY(at, wl_identity_keys[k]);
		struct strbuf why = STRBUF_INIT;
		const char *v;
		int rc = jd_str(o, at, wl_identity_keys[k], JD_OPTIONAL, &v, e);

		if (rc < 0)
			return -1;
		if (rc)
			continue;
		if (str_blank(v) || strlen(v) >= WL_IDENTITY_MAX)
			return jpath_err(e, &kp, "must be a non-blank name of at most %d bytes",
					 WL_IDENTITY_MAX - 1);
		if (!str_printable(v, "", &why) || !str_scrubbed(v, &why)) {
			jpath_err(e, &kp, "contains a private detail or a control character: %s",
				  why.buf);
			sb_release(&why);
			return -1;
		}
		sb_release(&why);
		memcpy((char *)id + identity_offsets[k], v, strlen(v) + 1);
	}
	return 0;
}

void wl_identity_describe(const struct wl_identity *id, char *out, size_t cap)
{
	static const char *const words[] = { "engine", "forward path", "build", "backends",
					     "model file", "model type" };
	size_t n = 0;

	out[0] = '\0';
	for (size_t k = 1; wl_identity_keys[k] && n < cap; k++) {
		int m;

		if (!identity_get(id, k)[0])
			continue;
		m = snprintf(out + n, cap - n, "%s%s \"%s\"", n ? ", " : "", words[k],
			     identity_get(id, k));
		if (m < 0)
			break;
		n += (size_t)m;
	}
}

json_t *wl_metrics_to_json(const struct wl_metrics *m)
{
	json_t *o = jobj();

	if (m->has_throughput) {
		jset_num(o, "tokens_per_second", m->tokens_per_second);
		jset_num(o, "end_to_end_milliseconds", m->end_to_end_ms);
	}
	if (m->has_ttft)
		jset_num(o, "ttft_milliseconds", m->ttft_ms);
	if (m->has_prefill)
		jset_num(o, "prefill_milliseconds", m->prefill_ms);
	if (m->has_decode)
		jset_num(o, "decode_milliseconds", m->decode_ms);
	if (m->has_quality) {
		json_t *q = jobj();

		jset_str(q, "name", m->quality.name);
		jset_num(q, "score", m->quality.score);
		jset_bool(q, "higher_is_better", m->quality.higher_is_better);
		jset_new(o, "quality", q);
	}
	if (m->nr_numerical) {
		json_t *n = jobj();

		for (size_t i = 0; i < m->nr_numerical; i++)
			jset_num(n, m->numerical[i].name, m->numerical[i].value);
		jset_new(o, "numerical", n);
	}
	if (m->derivation[0])
		jset_str(o, "derivation", m->derivation);
	wl_identity_to_json(&m->identity, o);
	return o;
}

/* An optional number within [lo, hi] (lo excluded when open_lo). */
static int bounded(const json_t *o, const struct jpath *at, const char *key, double lo,
		   bool open_lo, double hi, bool *has, double *v, struct err *e)
{
	int rc = jd_num(o, at, key, JD_OPTIONAL, v, e);

	if (rc < 0)
		return -1;
	*has = rc == 0;
	if (*has && ((open_lo ? !(*v > lo) : !(*v >= lo)) || *v > hi)) {
		struct jpath kp = JP_KEY(at, key);
		char a[JSON_NUMBER_MAX], b[JSON_NUMBER_MAX];

		json_format_double(a, lo);
		json_format_double(b, hi);
		return jpath_err(e, &kp, "must be in %s%s, %s]", open_lo ? "(" : "[", a, b);
	}
	return 0;
}

int wl_quality_decode(const json_t *q, const struct jpath *at, struct wl_quality *out,
		      struct err *e)
{
	static const char *const keys[] = { "name", "score", "higher_is_better", NULL };
	const char *name;

	memset(out, 0, sizeof(*out));
	TRY(jd_object(q, at, keys, e));
	TRY(jd_str(q, at, "name", JD_REQUIRED, &name, e));
	TRY(jd_num(q, at, "score", JD_REQUIRED, &out->score, e));
	TRY(jd_bool(q, at, "higher_is_better", JD_REQUIRED, &out->higher_is_better, e));
	if (str_blank(name) || strlen(name) >= sizeof(out->name)) {
		struct jpath np = JP_KEY(at, "name");

		return jpath_err(e, &np, "must be a non-blank name of at most %zu bytes",
				 sizeof(out->name) - 1);
	}
	memcpy(out->name, name, strlen(name) + 1);
	return 0;
}

static int cmp_numerical(const void *a, const void *b)
{
	return strcmp(((const struct wl_numerical *)a)->name,
		      ((const struct wl_numerical *)b)->name);
}

int wl_numerical_decode(const json_t *o, const struct jpath *at, const char *quality_name,
			struct wl_metrics *m, struct err *e)
{
	const char *k;
	json_t *v;
	size_t n = json_object_size(o);

	m->nr_numerical = 0;
	if (!json_is_object(o))
		return jpath_err(e, at, "expected an object of named numbers");
	if (!n)
		return jpath_err(e, at, "holds no metric; leave it out instead");
	if (n > WL_NUMERICAL_MAX)
		return jpath_err(e, at, "holds %zu metrics, at most %d", n, WL_NUMERICAL_MAX);
	json_object_foreach ((json_t *)(uintptr_t)o, k, v) {	/* read only */
		struct jpath kp = JP_KEY(at, k);
		struct wl_numerical *x = &m->numerical[m->nr_numerical];
		const char *why = str_id_problem(k);

		if (why) {
			m->nr_numerical = 0;
			return jpath_err(e, &kp,
					 "a metric name %s; a name is lowercase letters and digits "
					 "joined by single '.', '_' or '-', at most %d bytes", why,
					 STR_ID_MAX);
		}
		if (quality_name && !strcmp(k, quality_name)) {
			m->nr_numerical = 0;
			return jpath_err(e, &kp, "is the quality's metric; state it once, in the "
					 "quality object");
		}
		if (jd_num(o, at, k, JD_REQUIRED, &x->value, e) < 0) {
			m->nr_numerical = 0;
			return -1;
		}
		memcpy(x->name, k, strlen(k) + 1);
		m->nr_numerical++;
	}
	qsort(m->numerical, m->nr_numerical, sizeof(m->numerical[0]), cmp_numerical);
	return 0;
}

const double *wl_metric_value(const struct wl_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->nr_numerical; i++)
		if (!strcmp(m->numerical[i].name, name))
			return &m->numerical[i].value;
	if (m->has_quality && !strcmp(m->quality.name, name))
		return &m->quality.score;
	return NULL;
}

int wl_metrics_decode(const json_t *o, const struct jpath *at, struct wl_metrics *m, struct err *e)
{
	static const char *const keys[] = { "tokens_per_second", "end_to_end_milliseconds",
					    "ttft_milliseconds", "prefill_milliseconds",
					    "decode_milliseconds", "quality", "numerical",
					    "derivation",
					    "engine", "forward_path", "build_commit",
					    "backends", "model_file", "model_type", NULL };
	static const char *const derivations[] = { WL_DERIVATION_PG, WL_DERIVATION_PP_TG,
						   WL_DERIVATION_TG, NULL };
	bool has_tps, has_e2e;
	const json_t *q;
	const char *d = NULL;
	int rc;

	memset(m, 0, sizeof(*m));
	TRY(jd_object(o, at, keys, e));
	TRY(bounded(o, at, "tokens_per_second", WL_MIN_TPS, false, WL_MAX_TPS, &has_tps,
		    &m->tokens_per_second, e));
	TRY(bounded(o, at, "end_to_end_milliseconds", 0, true, WL_MAX_MS, &has_e2e,
		    &m->end_to_end_ms, e));
	if (has_tps != has_e2e)
		return jpath_err(e, at,
				 "tokens_per_second and end_to_end_milliseconds go together");
	m->has_throughput = has_tps;
	TRY(bounded(o, at, "ttft_milliseconds", 0, false, WL_MAX_MS, &m->has_ttft, &m->ttft_ms, e));
	TRY(bounded(o, at, "prefill_milliseconds", 0, false, WL_MAX_MS, &m->has_prefill,
		    &m->prefill_ms, e));
	TRY(bounded(o, at, "decode_milliseconds", 0, false, WL_MAX_MS, &m->has_decode,
		    &m->decode_ms, e));
	rc = jd_obj(o, at, "quality", JD_OPTIONAL, &q, e);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		struct jpath qp = JP_KEY(at, "quality");

		TRY(wl_quality_decode(q, &qp, &m->quality, e));
		m->has_quality = true;
	}
	if (!m->has_throughput && !m->has_quality)
		return jpath_err(e, at, "holds neither throughput nor quality");
	rc = jd_obj(o, at, "numerical", JD_OPTIONAL, &q, e);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		struct jpath np = JP_KEY(at, "numerical");

		if (!m->has_quality)
			return jpath_err(e, &np, "goes with a quality object");
		TRY(wl_numerical_decode(q, &np, m->quality.name, m, e));
	}
	rc = jd_str(o, at, "derivation", JD_OPTIONAL, &d, e);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		struct jpath dp = JP_KEY(at, "derivation");
		size_t i = 0;

		while (derivations[i] && strcmp(derivations[i], d))
			i++;
		if (!derivations[i] || !m->has_throughput)
			return jpath_err(e, &dp, "must be pg, pp+tg or tg, with throughput");
		memcpy(m->derivation, d, strlen(d) + 1);
	}
	return wl_identity_decode(o, at, &m->identity, e);
}

static bool same(bool ha, double a, bool hb, double b)
{
	/* values are finite (decoding refuses anything else), so == is exact */
	return ha == hb && (!ha || a == b);
}

static bool numerical_equal(const struct wl_metrics *a, const struct wl_metrics *b)
{
	if (a->nr_numerical != b->nr_numerical)
		return false;
	for (size_t i = 0; i < a->nr_numerical; i++)
		if (strcmp(a->numerical[i].name, b->numerical[i].name) ||
		    a->numerical[i].value != b->numerical[i].value)
			return false;
	return true;
}

bool wl_metrics_equal(const struct wl_metrics *a, const struct wl_metrics *b)
{
	return numerical_equal(a, b) &&
	       same(a->has_throughput, a->tokens_per_second, b->has_throughput,
		    b->tokens_per_second) &&
	       same(a->has_throughput, a->end_to_end_ms, b->has_throughput, b->end_to_end_ms) &&
	       same(a->has_ttft, a->ttft_ms, b->has_ttft, b->ttft_ms) &&
	       same(a->has_prefill, a->prefill_ms, b->has_prefill, b->prefill_ms) &&
	       same(a->has_decode, a->decode_ms, b->has_decode, b->decode_ms) &&
	       !strcmp(a->derivation, b->derivation) &&
	       identity_equal(&a->identity, &b->identity) &&
	       a->has_quality == b->has_quality &&
	       (!a->has_quality ||
		(!strcmp(a->quality.name, b->quality.name) &&
		 same(true, a->quality.score, true, b->quality.score) &&
		 a->quality.higher_is_better == b->quality.higher_is_better));
}

/* ---- the serving member -------------------------------------------- */

/* Every member but the metrics, in documented order. */
static const struct jfield serving_fields[] = {
	JF(JF_TEXT, struct wl_serving, trace_sha256, JF_REQ),
	JF(JF_TEXT, struct wl_serving, log_sha256, JF_REQ),
	JF(JF_COUNT, struct wl_serving, requests, JF_REQ),
	JF(JF_COUNT, struct wl_serving, completed, JF_REQ),
	JF(JF_COUNT, struct wl_serving, failed, JF_REQ),
	JF(JF_COUNT, struct wl_serving, warmup_requests, JF_REQ),
	JF(JF_NUM, struct wl_serving, startup_ms, JF_REQ),
	JF(JF_NUM, struct wl_serving, max_lag_ms, JF_REQ),
	JF(JF_COUNT, struct wl_serving, late, JF_REQ),
	JF(JF_BOOL, struct wl_serving, fell_behind, JF_REQ),
	JF(JF_NUM, struct wl_serving, lag_p99_ms, JF_REQ),
	JF(JF_NUM, struct wl_serving, lag_max_ms, JF_REQ),
	JF(JF_TEXT, struct wl_serving, stop_status, JF_REQ),
	JF(JF_BOOL, struct wl_serving, killed, JF_REQ),
	JF(JF_OPT_COUNT, struct wl_serving, fallback_count, JF_OPT),
	JF_HANDS("client_cpu_ms"),	/* absent where the OS does not tell it */
	JF_HANDS("metrics"),
	JF_HANDS("quality"),		/* with --quality-prompts */
	JF_END,
};

static const struct jfield serving_quality_fields[] = {
	JF(JF_TEXT, struct wl_serving_quality, prompts_sha256, JF_REQ),
	JF(JF_TEXT, struct wl_serving_quality, log_sha256, JF_REQ),
	JF(JF_COUNT, struct wl_serving_quality, prompts, JF_REQ),
	JF(JF_COUNT, struct wl_serving_quality, matched, JF_REQ),
	JF_END,
};

/* The quality member of a serving run: its digests, and 0 <= matched <=
 * prompts, at least one prompt. */
static int serving_quality_decode(const json_t *o, const struct jpath *at, struct wl_serving *s,
				  struct err *e)
{
	struct jpath qp = JP_KEY(at, "quality");
	const struct wl_serving_quality *q = &s->quality;
	const json_t *m;
	int rc = jd_obj(o, at, "quality", JD_OPTIONAL, &m, e);

	if (rc)
		return rc < 0 ? -1 : 0;
	TRY(jf_decode(serving_quality_fields, m, &qp, &s->quality, e));
	if (strncmp(q->prompts_sha256, "sha256:", 7) || !digest_is_hex(q->prompts_sha256 + 7) ||
	    !digest_is_hex(q->log_sha256))
		return jpath_err(e, &qp, "prompts_sha256 must be \"sha256:\" and 64 lowercase hex "
				 "digits, log_sha256 64 lowercase hex digits");
	if (q->prompts < 1 || q->matched > q->prompts)
		return jpath_err(e, &qp, "at least one prompt, and no more matched than prompts");
	s->has_quality = true;
	return 0;
}

json_t *wl_serving_to_json(const struct wl_serving *s)
{
	json_t *o = jf_to_json(serving_fields, s), *m = jobj();

	if (s->client_cpu_ms >= 0)
		jset_num(o, "client_cpu_ms", s->client_cpu_ms);
	for (size_t i = 0; i < SERVING_NR_METRICS; i++)
		jset_num(m, serving_metrics[i].name, s->values[i]);
	jset_new(o, "metrics", m);
	if (s->has_quality)
		jset_new(o, "quality", jf_to_json(serving_quality_fields, &s->quality));
	return o;
}

/* A value of the record or its metrics: >= 0 (finite: jd_num). */
static int serving_value(const char *key, double v, const struct jpath *at, struct err *e)
{
	struct jpath kp = JP_KEY(at, key);

	return v >= 0 && v <= WL_MAX_MS ? 0 : jpath_err(e, &kp, "must be in [0, 1e12]");
}

int wl_serving_decode(const json_t *o, const struct jpath *at, struct wl_serving *s,
		      struct err *e)
{
	static const char *names[SERVING_NR_METRICS + 1];
	struct jpath mp = JP_KEY(at, "metrics");
	const double *nums[] = { &s->startup_ms, &s->max_lag_ms, &s->lag_p99_ms, &s->lag_max_ms,
				 &s->client_cpu_ms };
	const char *num_keys[] = { "startup_ms", "max_lag_ms", "lag_p99_ms", "lag_max_ms",
				   "client_cpu_ms" };
	const json_t *m;
	int rc;

	memset(s, 0, sizeof(*s));
	s->fallback_count = -1;
	for (size_t i = 0; i < SERVING_NR_METRICS; i++)
		names[i] = serving_metrics[i].name;
	TRY(jf_decode(serving_fields, o, at, s, e));
	if (strncmp(s->trace_sha256, "sha256:", 7) || !digest_is_hex(s->trace_sha256 + 7) ||
	    !digest_is_hex(s->log_sha256))
		return jpath_err(e, at, "trace_sha256 must be \"sha256:\" and 64 lowercase hex "
				 "digits, log_sha256 64 lowercase hex digits");
	if (s->completed + s->failed != s->requests)
		return jpath_err(e, at, "completed and failed must add up to requests");
	rc = jd_num(o, at, "client_cpu_ms", JD_OPTIONAL, &s->client_cpu_ms, e);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		TRY(serving_value(num_keys[i], *nums[i], at, e));
	if (rc)
		s->client_cpu_ms = -1;
	TRY(jd_obj(o, at, "metrics", JD_REQUIRED, &m, e));
	TRY(jd_object(m, &mp, names, e));
	for (size_t i = 0; i < SERVING_NR_METRICS; i++) {
		TRY(jd_num(m, &mp, serving_metrics[i].name, JD_REQUIRED, &s->values[i], e));
		TRY(serving_value(serving_metrics[i].name, s->values[i], &mp, e));
	}
	TRY(serving_quality_decode(o, at, s, e));
	s->present = true;
	return 0;
}
