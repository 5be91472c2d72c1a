/* Strict decoding of fak-native-performance-profile/v1 bundles. Every
 * object is checked for unknown keys first, then its members are read in
 * documented order; the first problem stops decoding with its JSON path.
 * Nothing is defaulted: a missing counter is an error, never a zero. */
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "profile/profile.h"

static const char *const top_keys[] = {
	"schema", "envelope_id", "execution", "phases", "metal", "cuda", "attributions",
	"attribution_unavailable", "counter_comparisons", "selection_override", NULL,
};
static const char *const execution_keys[] = { "engine", "forward_path", "fallback_count", NULL };
static const char *const phase_keys[] = { "name", "start_milliseconds", "duration_milliseconds",
					  NULL };
static const char *const metal_keys[] = {
	"command_buffers", "encoders", "dispatch_milliseconds", "wait_milliseconds",
	"resident_bytes", "working_set_bytes", NULL,
};
static const char *const cuda_keys[] = {
	"launches", "occupancy_percent", "achieved_bandwidth_gbs", "peak_bandwidth_gbs",
	"achieved_compute_tflops", "peak_compute_tflops", "synchronization_milliseconds", NULL,
};
static const char *const attribution_keys[] = { "name", "layer", "lever_id", "count", NULL };
static const char *const unavailable_keys[] = { "reason", "detail", NULL };
static const char *const comparison_keys[] = {
	"left_backend", "left_counter", "right_backend", "right_counter", NULL,
};
static const char *const override_keys[] = { "issue_number", "reason", NULL };

/* Byte counts are unsigned: a negative value does not decode. */
static int get_bytes(const json_t *obj, const struct jpath *at, const char *key,
		     unsigned long long *out, struct err *e)
{
	long long v;

	TRY(jd_int(obj, at, key, REQ, &v, e));
	if (v < 0) {
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "expected a non-negative integer, found %lld", v);
	}
	*out = (unsigned long long)v;
	return 0;
}

static int decode_execution(const json_t *v, const struct jpath *at, struct profile *p,
			    struct err *e)
{
	TRY(jd_object(v, at, execution_keys, e));
	TRY(jd_str(v, at, "engine", REQ, &p->execution.engine, e));
	TRY(jd_str(v, at, "forward_path", REQ, &p->execution.forward_path, e));
	return jd_int(v, at, "fallback_count", REQ, &p->execution.fallback_count, e);
}

static int decode_phase(const json_t *v, const struct jpath *at, struct profile_phase *ph,
			struct err *e)
{
	TRY(jd_object(v, at, phase_keys, e));
	TRY(jd_str(v, at, "name", REQ, &ph->name, e));
	TRY(jd_num(v, at, "start_milliseconds", REQ, &ph->start_ms, e));
	return jd_num(v, at, "duration_milliseconds", REQ, &ph->duration_ms, e);
}

static int decode_metal(const json_t *v, const struct jpath *at, struct profile_metal *m,
			struct err *e)
{
	TRY(jd_object(v, at, metal_keys, e));
	TRY(jd_int(v, at, "command_buffers", REQ, &m->command_buffers, e));
	TRY(jd_int(v, at, "encoders", REQ, &m->encoders, e));
	TRY(jd_num(v, at, "dispatch_milliseconds", REQ, &m->dispatch_ms, e));
	TRY(jd_num(v, at, "wait_milliseconds", REQ, &m->wait_ms, e));
	TRY(get_bytes(v, at, "resident_bytes", &m->resident_bytes, e));
	return get_bytes(v, at, "working_set_bytes", &m->working_set_bytes, e);
}

static int decode_cuda(const json_t *v, const struct jpath *at, struct profile_cuda *c,
		       struct err *e)
{
	TRY(jd_object(v, at, cuda_keys, e));
	TRY(jd_int(v, at, "launches", REQ, &c->launches, e));
	TRY(jd_num(v, at, "occupancy_percent", REQ, &c->occupancy_percent, e));
	TRY(jd_num(v, at, "achieved_bandwidth_gbs", REQ, &c->achieved_bandwidth_gbs, e));
	TRY(jd_num(v, at, "peak_bandwidth_gbs", REQ, &c->peak_bandwidth_gbs, e));
	TRY(jd_num(v, at, "achieved_compute_tflops", REQ, &c->achieved_compute_tflops, e));
	TRY(jd_num(v, at, "peak_compute_tflops", REQ, &c->peak_compute_tflops, e));
	return jd_num(v, at, "synchronization_milliseconds", REQ, &c->synchronization_ms, e);
}

static int decode_attribution(const json_t *v, const struct jpath *at,
			      struct profile_attribution *a, struct err *e)
{
	TRY(jd_object(v, at, attribution_keys, e));
	TRY(jd_str(v, at, "name", REQ, &a->name, e));
	TRY(jd_int(v, at, "layer", REQ, &a->layer, e));
	TRY(jd_str(v, at, "lever_id", REQ, &a->lever_id, e));
	return jd_int(v, at, "count", REQ, &a->count, e);
}

/* Comparisons are decoded only to be rejected by validation; they are still
 * held to their documented shape. */
static int decode_comparison(const json_t *v, const struct jpath *at, struct err *e)
{
	const char *s;

	TRY(jd_object(v, at, comparison_keys, e));
	for (const char *const *k = comparison_keys; *k; k++)
		TRY(jd_str(v, at, *k, REQ, &s, e));
	return 0;
}

static int decode_root(struct profile *p, struct err *e)
{
	const json_t *root = p->doc, *v;
	int rc;

	TRY(jd_object(root, NULL, top_keys, e));
	TRY(jd_str(root, NULL, "schema", REQ, &p->schema, e));
	TRY(jd_str(root, NULL, "envelope_id", REQ, &p->envelope_id, e));
	{
		struct jpath kp = JP_KEY(NULL, "execution");

		TRY(jd_obj(root, NULL, "execution", REQ, &v, e));
		TRY(decode_execution(v, &kp, p, e));
	}
	{
		struct jpath kp = JP_KEY(NULL, "phases");

		TRY(jd_arr(root, NULL, "phases", REQ, false, &v, e));
		p->nr_phases = json_array_size(v);
		p->phases = xcalloc(p->nr_phases ? p->nr_phases : 1, sizeof(*p->phases));
		for (size_t i = 0; i < p->nr_phases; i++) {
			struct jpath ip = JP_IDX(&kp, i);

			TRY(decode_phase(json_array_get(v, i), &ip, &p->phases[i], e));
		}
	}
	{
		struct jpath kp = JP_KEY(NULL, "metal");

		TRY(rc = jd_obj(root, NULL, "metal", OPT, &v, e));
		p->has_metal = rc == 0;
		if (p->has_metal)
			TRY(decode_metal(v, &kp, &p->metal, e));
	}
	{
		struct jpath kp = JP_KEY(NULL, "cuda");

		TRY(rc = jd_obj(root, NULL, "cuda", OPT, &v, e));
		p->has_cuda = rc == 0;
		if (p->has_cuda)
			TRY(decode_cuda(v, &kp, &p->cuda, e));
	}
	{
		struct jpath kp = JP_KEY(NULL, "attributions");

		TRY(rc = jd_arr(root, NULL, "attributions", OPT, false, &v, e));
		if (rc == 0) {
			p->nr_attributions = json_array_size(v);
			p->attributions = xcalloc(p->nr_attributions ? p->nr_attributions : 1,
						  sizeof(*p->attributions));
			for (size_t i = 0; i < p->nr_attributions; i++) {
				struct jpath ip = JP_IDX(&kp, i);

				TRY(decode_attribution(json_array_get(v, i), &ip,
						       &p->attributions[i], e));
			}
		}
	}
	{
		struct jpath kp = JP_KEY(NULL, "attribution_unavailable");

		TRY(rc = jd_obj(root, NULL, "attribution_unavailable", OPT, &v, e));
		p->has_unavailable = rc == 0;
		if (p->has_unavailable) {
			TRY(jd_object(v, &kp, unavailable_keys, e));
			TRY(jd_str(v, &kp, "reason", REQ, &p->unavailable.reason, e));
			TRY(jd_str(v, &kp, "detail", REQ, &p->unavailable.detail, e));
		}
	}
	{
		struct jpath kp = JP_KEY(NULL, "counter_comparisons");

		TRY(rc = jd_arr(root, NULL, "counter_comparisons", OPT, false, &v, e));
		if (rc == 0) {
			p->nr_counter_comparisons = json_array_size(v);
			for (size_t i = 0; i < p->nr_counter_comparisons; i++) {
				struct jpath ip = JP_IDX(&kp, i);

				TRY(decode_comparison(json_array_get(v, i), &ip, e));
			}
		}
	}
	{
		struct jpath kp = JP_KEY(NULL, "selection_override");

		TRY(rc = jd_obj(root, NULL, "selection_override", OPT, &v, e));
		p->has_override = rc == 0;
		if (p->has_override) {
			TRY(jd_object(v, &kp, override_keys, e));
			TRY(jd_int(v, &kp, "issue_number", REQ, &p->override.issue_number, e));
			TRY(jd_str(v, &kp, "reason", REQ, &p->override.reason, e));
		}
	}
	return 0;
}

int profile_parse(struct profile *p, const char *buf, size_t len, const char *name,
		  struct err *e)
{
	memset(p, 0, sizeof(*p));
	p->doc = json_parse_strict(buf, len, NULL, e);
	if (!p->doc)
		return err_prefix(e, "cannot decode profile '%s'", name);
	if (decode_root(p, e) < 0) {
		profile_release(p);
		return err_prefix(e, "cannot decode profile '%s'", name);
	}
	return 0;
}

int profile_load(struct profile *p, const char *path, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	memset(p, 0, sizeof(*p));
	if (file_read(path, PROFILE_MAX_BYTES, &sb, e) < 0) {
		sb_release(&sb);
		return -1;
	}
	rc = profile_parse(p, sb.buf, sb.len, path, e);
	sb_release(&sb);
	return rc;
}

void profile_release(struct profile *p)
{
	json_decref(p->doc);
	free(p->phases);
	free(p->attributions);
	memset(p, 0, sizeof(*p));
}
