/* gpu_section.h: the sealed "gpu" section in and out of JSON. Optional figures
 * (-1 in memory) are omitted members; the summary, status and reason are
 * re-derived from the readings on decode, never trusted. */
#include <string.h>

#include "base/digest.h"
#include "base/jfields.h"
#include "base/xalloc.h"
#include "attestation/gpu_section.h"

static int check_status(const char *status, const struct jpath *at, struct err *e)
{
	if (strcmp(status, GPU_OBSERVED) && strcmp(status, GPU_FAILED) &&
	    strcmp(status, GPU_UNREADABLE))
		return jpath_err(e, at, "must be \"observed\", \"failed\" or \"unreadable\"");
	return 0;
}

static int check_section_status(const void *rec, const struct jpath *at, struct err *e)
{
	return check_status(((const struct gpu_section *)rec)->status, at, e);
}

static int check_reading_status(const void *rec, const struct jpath *at, struct err *e)
{
	return check_status(((const struct gpu_reading *)rec)->status, at, e);
}

/* The flat parts of the section, in the documented order. */
static const struct jfield section_fields[] = {
	JF_HANDS("schema"),
	JF_KEYC("status", JF_NAME, struct gpu_section, status, JF_REQ, check_section_status),
	JF(JF_NAME, struct gpu_section, reason, JF_OMIT),
	JF(JF_NAME, struct gpu_section, driver_version, JF_OMIT),
	JF(JF_OPT_COUNT, struct gpu_section, sampler_wall_ns, JF_OPT),
	JF_HANDS("devices"),
	JF_END,
};

/* An observed reading; one that was not has a status, offset_ms and error. */
static const struct jfield reading_fields[] = {
	JF_KEYC("status", JF_NAME, struct gpu_reading, status, JF_REQ, check_reading_status),
	JF(JF_OPT_COUNT, struct gpu_reading, offset_ms, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, sm_clock_mhz, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, memory_clock_mhz, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, clocks_event_reasons, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, temperature_c, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, power_mw, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, utilization_percent, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, memory_used_bytes, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_reading, process_memory_bytes, JF_OPT),
	JF_HANDS("error"),
	JF_END,
};

static int get_text(const json_t *o, const struct jpath *at, const char *key, enum jd_need need,
		    char *dst, size_t cap, struct err *e);

/* persistence_mode: "enabled", "disabled" or "unknown" (1, 0, -1) */
static int mode_decode(const json_t *o, const struct jpath *at, const char *key, void *dst,
		       const void *arg, struct err *e)
{
	char mode[16];
	int v;

	(void)arg;
	TRY(get_text(o, at, key, JD_REQUIRED, mode, sizeof(mode), e));
	v = !strcmp(mode, "enabled") ? 1 : !strcmp(mode, "disabled") ? 0 : -1;
	if (v < 0 && strcmp(mode, "unknown")) {
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "must be \"enabled\", \"disabled\" or \"unknown\"");
	}
	memcpy(dst, &v, sizeof(v));
	return 0;
}

static json_t *mode_encode(const void *src, const void *arg)
{
	int v;

	(void)arg;
	memcpy(&v, src, sizeof(v));
	return json_string(v < 0 ? "unknown" : v ? "enabled" : "disabled");
}

static const struct jf_codec mode_codec = { mode_decode, mode_encode };

static const struct jfield state_fields[] = {
	JF_CODEC("persistence_mode", int, struct gpu_state, persistence_mode, &mode_codec, NULL),
	JF(JF_OPT_COUNT, struct gpu_state, applications_sm_clock_mhz, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_state, applications_memory_clock_mhz, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_state, default_applications_sm_clock_mhz, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_state, default_applications_memory_clock_mhz, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_state, max_sm_clock_mhz, JF_OPT),
	JF(JF_OPT_COUNT, struct gpu_state, max_memory_clock_mhz, JF_OPT),
	JF_KEY("clocks_event_reasons", JF_OPT_COUNT, struct gpu_state, event_reasons, JF_OPT),
	JF_END,
};

static const struct jfield range_fields[] = {
	JF(JF_INT, struct gpu_range, min, JF_REQ),
	JF(JF_INT, struct gpu_range, max, JF_REQ),
	JF(JF_NUM, struct gpu_range, mean, JF_REQ),
	JF_END,
};

static int check_identity(const void *rec, const struct jpath *at, struct err *e)
{
	if (!digest_is_hexn(((const struct gpu_device *)rec)->identity, GPU_IDENTITY_LEN))
		return jpath_err(e, at, "must be %d lowercase hex digits", GPU_IDENTITY_LEN);
	return 0;
}

/* A device but its readings and summary; index and reading_stride are
 * checked after the walk (absent: -1). */
static const struct jfield device_fields[] = {
	JF(JF_OPT_COUNT, struct gpu_device, index, JF_OPT),
	JF(JF_NAME, struct gpu_device, name, JF_REQ),
	JF_KEYC("identity", JF_NAME, struct gpu_device, identity, JF_OMIT, check_identity),
	JF_SUB("state", struct gpu_device, state, state_fields, JF_REQ, 0, 0),
	JF_KEY("not_supported", JF_NAME, struct gpu_device, unsupported, JF_OMIT),
	JF(JF_OPT_COUNT, struct gpu_device, reading_stride, JF_OPT),
	JF_HANDS("readings"),
	JF_HANDS("summary"),
	JF_END,
};

static void set_opt(json_t *o, const char *key, int64_t v)
{
	if (v >= 0)
		jset_int(o, key, v);
}

static json_t *range_json(const struct gpu_range *g)
{
	return jf_to_json(range_fields, g);
}

static json_t *reasons_json(int64_t bits)
{
	json_t *a = jarr();

	for (const struct gpu_reason_name *r = gpu_reason_names; r->name; r++)
		if ((uint64_t)bits & r->bit)
			jpush_new(a, json_string(r->name));
	return a;
}

static json_t *summary_json(const struct gpu_summary *m)
{
	json_t *o = jobj();

	jset_int(o, "readings", m->readings);
	jset_int(o, "observed", m->observed);
	jset_int(o, "failed", m->failed);
	jset_int(o, "unreadable", m->unreadable);
	jset_num(o, "coverage_ratio", m->coverage_ratio);
	if (m->observed) {
		jset_new(o, "sm_clock_mhz", range_json(&m->sm_clock_mhz));
		jset_new(o, "memory_clock_mhz", range_json(&m->memory_clock_mhz));
	}
	jset_int(o, "clocks_event_reasons_bits", m->event_reasons);
	jset_new(o, "clocks_event_reasons", reasons_json(m->event_reasons));
	set_opt(o, "max_temperature_c", m->max_temperature_c);
	set_opt(o, "max_power_mw", m->max_power_mw);
	if (m->mean_utilization_percent >= 0)
		jset_num(o, "mean_utilization_percent", m->mean_utilization_percent);
	set_opt(o, "max_memory_used_bytes", m->max_memory_used_bytes);
	set_opt(o, "max_process_memory_bytes", m->max_process_memory_bytes);
	return o;
}

static json_t *reading_json(const struct gpu_reading *r)
{
	json_t *o;

	if (!strcmp(r->status, GPU_OBSERVED))
		return jf_to_json(reading_fields, r);
	o = jobj();
	jset_str(o, "status", r->status);
	jset_int(o, "offset_ms", r->offset_ms);
	jset_str(o, "error", r->error);
	return o;
}

static json_t *device_json(const struct gpu_device *d)
{
	json_t *o = jf_to_json(device_fields, d), *rs = jarr();

	for (size_t i = 0; i < d->nr_readings; i++)
		jpush_new(rs, reading_json(&d->readings[i]));
	jset_new(o, "readings", rs);
	jset_new(o, "summary", summary_json(&d->summary));
	return o;
}

json_t *gpu_to_json(const struct gpu_section *s)
{
	json_t *o = jobj(), *ds = jarr();

	jset_str(o, "schema", GPU_SCHEMA);
	jf_encode(section_fields, s, o);
	for (size_t i = 0; i < s->nr_devices; i++)
		jpush_new(ds, device_json(&s->devices[i]));
	jset_new(o, "devices", ds);
	return o;
}

/* ---- decoding ------------------------------------------------------------ */

static int get_text(const json_t *o, const struct jpath *at, const char *key, enum jd_need need,
		    char *dst, size_t cap, struct err *e)
{
	const char *s;
	int rc = jd_str(o, at, key, need, &s, e);

	if (rc)
		return rc;
	if (strlen(s) >= cap || !s[0]) {
		struct jpath kp = JP_KEY(at, key);
		return jpath_err(e, &kp, "must hold 1 to %zu bytes", cap - 1);
	}
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

static int get_reading(const json_t *x, const struct jpath *at, struct gpu_reading *r,
		       struct err *e)
{
	bool observed;

	TRY(jf_decode(reading_fields, x, at, r, e));
	observed = !strcmp(r->status, GPU_OBSERVED);
	if (observed) {
		if (json_object_get(x, "error") || r->sm_clock_mhz <= 0 || r->memory_clock_mhz <= 0)
			return jpath_err(e, at, "an observed reading has both clocks above 0 and "
					 "no error");
		return r->offset_ms < 0 ? jpath_err(e, at, "offset_ms is required") : 0;
	}
	if (json_object_size(x) != 3)
		return jpath_err(e, at, "a reading that was not observed has a status, an "
				 "offset and an error only");
	TRY(get_text(x, at, "error", JD_REQUIRED, r->error, sizeof(r->error), e));
	return r->offset_ms < 0 ? jpath_err(e, at, "offset_ms is required") : 0;
}

static int get_device(const json_t *x, const struct jpath *at, struct gpu_device *d, struct err *e)
{
	struct jpath rp = JP_KEY(at, "readings");
	const json_t *rs, *sum;

	TRY(jf_decode(device_fields, x, at, d, e));
	if (d->index < 0 || d->reading_stride < 1 || (d->reading_stride & (d->reading_stride - 1)))
		return jpath_err(e, at, "index is required and reading_stride is a power of 2");
	TRY(jd_arr(x, at, "readings", JD_REQUIRED, false, &rs, e));
	if (json_array_size(rs) > GPU_MAX_READINGS)
		return jpath_err(e, &rp, "at most %d readings", GPU_MAX_READINGS);
	d->nr_readings = json_array_size(rs);
	for (size_t i = 0; i < d->nr_readings; i++) {
		struct jpath ip = JP_IDX(&rp, i);

		TRY(get_reading(json_array_get(rs, i), &ip, &d->readings[i], e));
		if (i && d->readings[i].offset_ms < d->readings[i - 1].offset_ms)
			return jpath_err(e, &ip, "readings are in time order");
	}
	return jd_obj(x, at, "summary", JD_REQUIRED, &sum, e);
}

int gpu_decode(const json_t *doc, const struct jpath *at, struct gpu_section *s, struct err *e)
{
	struct jpath dp = JP_KEY(at, "devices");
	struct gpu_section *derived;
	const json_t *ds;
	const char *schema;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	TRY(jf_keys(section_fields, doc, at, e));
	TRY(jd_str(doc, at, "schema", JD_REQUIRED, &schema, e));
	if (strcmp(schema, GPU_SCHEMA)) {
		struct jpath kp = JP_KEY(at, "schema");
		return jpath_err(e, &kp, "must be \"%s\"", GPU_SCHEMA);
	}
	TRY(jf_fields(section_fields, doc, at, s, e));
	if (s->sampler_wall_ns < 0)
		return jpath_err(e, at, "sampler_wall_ns is required");
	TRY(jd_arr(doc, at, "devices", JD_REQUIRED, false, &ds, e));
	if (json_array_size(ds) > GPU_MAX_DEVICES)
		return jpath_err(e, &dp, "at most %d devices", GPU_MAX_DEVICES);
	s->nr_devices = json_array_size(ds);
	for (size_t i = 0; i < s->nr_devices; i++) {
		struct jpath ip = JP_IDX(&dp, i);

		TRY(get_device(json_array_get(ds, i), &ip, &s->devices[i], e));
	}
	if (!s->nr_devices && (strcmp(s->status, GPU_UNREADABLE) || !s->reason[0]))
		return jpath_err(e, at, "a section without devices is unreadable and says why");
	if (!s->nr_devices)
		return 0;
	/* everything derived is recomputed and compared */
	derived = xmalloc(sizeof(*derived));
	*derived = *s;
	gpu_summarize(derived);
	for (size_t i = 0; i < s->nr_devices && !rc; i++) {
		struct jpath ip = JP_IDX(&dp, i), mp = JP_KEY(&ip, "summary");
		json_t *want = summary_json(&derived->devices[i].summary);

		if (!json_same(want, json_object_get(json_array_get(ds, i), "summary")))
			rc = jpath_err(e, &mp, "differs from the summary derived from the "
				       "readings");
		json_decref(want);
		s->devices[i].summary = derived->devices[i].summary;
	}
	if (!rc && (strcmp(derived->status, s->status) || strcmp(derived->reason, s->reason)))
		rc = jpath_err(e, at, "status \"%s\" (%s) differs from the one derived from the "
			       "readings \"%s\" (%s)", s->status,
			       s->reason[0] ? s->reason : "no reason", derived->status,
			       derived->reason[0] ? derived->reason : "no reason");
	free(derived);
	return rc;
}
