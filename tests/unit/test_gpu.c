/* sampler/gpu: the sealed GPU section (summary, status, strict decoding and
 * every rejection rule) and receipt/gpu_check: the criterion's GPU policy. */
#include <criterion/criterion.h>
#include <string.h>

#include "base/file.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "receipt/gpu_check.h"
#include "attestation/attest.h"
#include "sampler/gpu.h"

static void reading(struct gpu_device *d, int64_t at_ms, int64_t sm, int64_t reasons)
{
	struct gpu_reading *r = &d->readings[d->nr_readings++];

	memset(r, 0, sizeof(*r));
	strcpy(r->status, GPU_OBSERVED);
	r->offset_ms = at_ms;
	r->sm_clock_mhz = sm;
	r->memory_clock_mhz = 1593;
	r->clocks_event_reasons = reasons;
	r->temperature_c = 40 + at_ms / 100;
	r->power_mw = 250000;
	r->utilization_percent = 90 + at_ms / 100;
	r->memory_used_bytes = 1 << 30;
	r->process_memory_bytes = -1;
}

static void failed(struct gpu_device *d, int64_t at_ms, const char *why)
{
	struct gpu_reading *r = &d->readings[d->nr_readings++];

	memset(r, 0, sizeof(*r));
	strcpy(r->status, GPU_FAILED);
	strcpy(r->error, why);
	r->offset_ms = at_ms;
	r->clocks_event_reasons = r->temperature_c = r->power_mw = -1;
	r->utilization_percent = r->memory_used_bytes = r->process_memory_bytes = -1;
}

/* One A100: 1410, 1410, 1005 MHz (the third with sw_power_cap), and
 * optionally a failed fourth reading. */
static void section(struct gpu_section *s, bool with_failure)
{
	struct gpu_device *d = &s->devices[0];

	memset(s, 0, sizeof(*s));
	strcpy(s->status, GPU_OBSERVED);
	strcpy(s->driver_version, "535.104.05");
	s->nr_devices = 1;
	strcpy(d->name, "NVIDIA A100-SXM4-80GB");
	strcpy(d->identity, "0123456789abcdef");
	d->state.persistence_mode = 1;
	d->state.applications_sm_clock_mhz = d->state.max_sm_clock_mhz = 1410;
	d->state.applications_memory_clock_mhz = d->state.max_memory_clock_mhz = 1593;
	d->state.default_applications_sm_clock_mhz = 1095;
	d->state.default_applications_memory_clock_mhz = 1593;
	d->state.event_reasons = 0;
	d->reading_stride = 1;
	reading(d, 0, 1410, 0);
	reading(d, 100, 1410, 0);
	reading(d, 200, 1005, 0x4);
	if (with_failure)
		failed(d, 300, "nvmlDeviceGetClockInfo: GPU is lost");
	gpu_summarize(s);
}

Test(gpu_section, summary_and_status)
{
	struct gpu_section s;
	const struct gpu_summary *m;

	section(&s, false);
	m = &s.devices[0].summary;
	cr_assert_str_eq(s.status, "observed");
	cr_assert_str_eq(s.reason, "");
	cr_assert_eq(m->readings, 3);
	cr_assert_eq(m->observed, 3);
	cr_assert_eq(m->sm_clock_mhz.min, 1005);
	cr_assert_eq(m->sm_clock_mhz.max, 1410);
	cr_assert_float_eq(m->sm_clock_mhz.mean, 1275.0, 1e-9);
	cr_assert_eq(m->event_reasons, 4);
	cr_assert_eq(m->max_temperature_c, 42);
	cr_assert_float_eq(m->mean_utilization_percent, 91.0, 1e-9);
	cr_assert_eq(m->max_process_memory_bytes, -1);
	cr_assert_float_eq(m->coverage_ratio, 1.0, 1e-12);

	section(&s, true);
	cr_assert_str_eq(s.status, "failed");
	cr_assert_str_eq(s.reason, "device 0: nvmlDeviceGetClockInfo: GPU is lost");
	cr_assert_eq(m->failed, 1);
	cr_assert_float_eq(m->coverage_ratio, 0.75, 1e-12);
}

Test(gpu_section, round_trip)
{
	struct gpu_section s, back;
	struct jpath at = JP_KEY(NULL, "gpu");
	struct err e;
	json_t *j, *again;

	section(&s, true);
	j = gpu_to_json(&s);
	cr_assert_eq(gpu_decode(j, &at, &back, &e), 0, "%s", e.msg);
	again = gpu_to_json(&back);
	cr_assert(json_same(j, again));
	json_decref(j);
	json_decref(again);
}

/* The section of `section(s, true)` as JSON, edited by one rule's fixture. */
static const struct {
	const char *path;	/* "devices/0/readings/1/offset_ms" style; "" for the root */
	const char *key;
	const char *json;	/* the new value, NULL to delete the key */
	const char *msg;
} rejects[] = {
	{ "", "schema", "\"x\"",
	  "gpu.schema: must be \"fak-native-gpu-clock-observation/v1\"" },
	{ "", "status", "\"ok\"",
	  "gpu.status: must be \"observed\", \"failed\" or \"unreadable\"" },
	{ "", "status", "\"observed\"",
	  "gpu: status \"observed\" (device 0: nvmlDeviceGetClockInfo: GPU is lost) differs "
	  "from the one derived from the readings \"failed\" (device 0: "
	  "nvmlDeviceGetClockInfo: GPU is lost)" },
	{ "", "sampler_wall_ns", NULL, "gpu: sampler_wall_ns is required" },
	{ "devices/0", "identity", "\"ABC\"",
	  "gpu.devices[0].identity: must be 16 lowercase hex digits" },
	{ "devices/0", "reading_stride", "3",
	  "gpu.devices[0]: index is required and reading_stride is a power of 2" },
	{ "devices/0/readings/0", "error", "\"x\"",
	  "gpu.devices[0].readings[0]: an observed reading has both clocks above 0 and no "
	  "error" },
	{ "devices/0/readings/0", "sm_clock_mhz", "0",
	  "gpu.devices[0].readings[0]: an observed reading has both clocks above 0 and no "
	  "error" },
	{ "devices/0/readings/3", "sm_clock_mhz", "1410",
	  "gpu.devices[0].readings[3]: a reading that was not observed has a status, an "
	  "offset and an error only" },
	{ "devices/0/readings/1", "offset_ms", "500",
	  "gpu.devices[0].readings[2]: readings are in time order" },
	{ "devices/0/readings/1", "power_mw", "-1",
	  "gpu.devices[0].readings[1].power_mw: must be non-negative" },
	{ "devices/0/readings/1", "sm_clock_mhz", "1005",
	  "gpu.devices[0].summary: differs from the summary derived from the readings" },
	{ "devices/0/summary", "clocks_event_reasons", "[]",
	  "gpu.devices[0].summary: differs from the summary derived from the readings" },
	{ "devices/0/state", "persistence_mode", "\"on\"",
	  "gpu.devices[0].state.persistence_mode: must be \"enabled\", \"disabled\" or "
	  "\"unknown\"" },
};

static json_t *walk(json_t *j, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save))
		j = json_is_array(j) ? json_array_get(j, (size_t)atoi(t)) : json_object_get(j, t);
	return j;
}

Test(gpu_section, every_rejection_rule)
{
	for (size_t i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
		struct gpu_section s, back;
		struct jpath at = JP_KEY(NULL, "gpu");
		struct err e;
		json_t *j, *o;

		section(&s, true);
		j = gpu_to_json(&s);
		o = walk(j, rejects[i].path);
		cr_assert_not_null(o, "%s", rejects[i].path);
		if (rejects[i].json)
			json_object_set_new(o, rejects[i].key,
					    json_loads(rejects[i].json, JSON_DECODE_ANY, NULL));
		else
			json_object_del(o, rejects[i].key);
		cr_assert_eq(gpu_decode(j, &at, &back, &e), -1, "case %zu accepted", i);
		cr_assert_str_eq(e.msg, rejects[i].msg, "case %zu", i);
		json_decref(j);
	}
}

Test(gpu_section, unreadable_without_devices)
{
	struct gpu_section s, back;
	struct jpath at = JP_KEY(NULL, "gpu");
	struct err e;
	json_t *j;

	gpu_unreadable(&s, "no libnvidia-ml.so.1");
	j = gpu_to_json(&s);
	cr_assert_eq(gpu_decode(j, &at, &back, &e), 0, "%s", e.msg);
	json_object_del(j, "reason");
	cr_assert_eq(gpu_decode(j, &at, &back, &e), -1);
	cr_assert_str_eq(e.msg, "gpu: a section without devices is unreadable and says why");
	json_decref(j);
}

/* ---- the criterion's policy ------------------------------------------------ */

static const char *disqualifying[] = { "sw_power_cap", "hw_slowdown" };

static struct gpu_policy policy(void)
{
	struct gpu_policy p = {
		.minimum_coverage_ratio = 1,
		.maximum_sm_clock_drift_percent = 50,
		.maximum_memory_clock_drift_percent = 1,
	};

	p.disqualifying_reasons.v = disqualifying;
	p.disqualifying_reasons.n = 2;
	return p;
}

static const char *verdict(const struct gpu_policy *p, bool present,
			   const struct gpu_section *s, struct strbuf *why)
{
	sb_reset(why);
	return gpu_check_section(p, present, s, why) < 0 ? why->buf : "ok";
}

Test(gpu_check, each_violation_names_device_reason_and_clocks)
{
	struct gpu_policy p = policy();
	struct gpu_section s;
	struct strbuf why = STRBUF_INIT;

	section(&s, false);
	cr_assert_str_eq(verdict(&p, true, &s, &why),
			 "device 0 (NVIDIA A100-SXM4-80GB): clock-event reason(s) sw_power_cap (SM "
			 "1005..1410 MHz, mean 1275; memory 1593..1593 MHz, mean 1593)");
	p.disqualifying_reasons.n = 0;
	cr_assert_str_eq(verdict(&p, true, &s, &why), "ok");
	p.maximum_sm_clock_drift_percent = 2;	/* (1275 - 1005) / 1275 = 21.18 % */
	cr_assert_str_eq(verdict(&p, true, &s, &why),
			 "device 0 (NVIDIA A100-SXM4-80GB): SM clock drift 21.18% exceeds 2% (SM "
			 "1005..1410 MHz, mean 1275; memory 1593..1593 MHz, mean 1593)");
	p.maximum_sm_clock_drift_percent = 30;
	p.target_sm_clock_mhz = 1410;		/* (1410 - 1005) / 1410 = 28.72 % */
	cr_assert_str_eq(verdict(&p, true, &s, &why), "ok");
	p.maximum_sm_clock_drift_percent = 28;
	cr_assert_str_eq(verdict(&p, true, &s, &why),
			 "device 0 (NVIDIA A100-SXM4-80GB): SM clock drift 28.72% exceeds 28% (SM "
			 "1005..1410 MHz, mean 1275; memory 1593..1593 MHz, mean 1593)");
	p.maximum_sm_clock_drift_percent = 50;
	p.target_memory_clock_mhz = 1500;	/* 6.2 % */
	cr_assert_str_eq(verdict(&p, true, &s, &why),
			 "device 0 (NVIDIA A100-SXM4-80GB): memory clock drift 6.20% exceeds 1% "
			 "(SM 1005..1410 MHz, mean 1275; memory 1593..1593 MHz, mean 1593)");
	sb_release(&why);
}

Test(gpu_check, failed_unreadable_and_absent)
{
	struct gpu_policy p = policy();
	struct gpu_section s;
	struct strbuf why = STRBUF_INIT;

	p.disqualifying_reasons.n = 0;
	section(&s, true);
	cr_assert_str_eq(verdict(&p, true, &s, &why),
			 "device 0 (NVIDIA A100-SXM4-80GB): 1 failed reading(s), first at 300 ms: "
			 "nvmlDeviceGetClockInfo: GPU is lost");
	gpu_unreadable(&s, "no libnvidia-ml.so.1");
	cr_assert_str_eq(verdict(&p, true, &s, &why),
			 "the GPU was unreadable (no libnvidia-ml.so.1)");
	p.allow_unreadable = true;
	cr_assert_str_eq(verdict(&p, true, &s, &why),
			 "the GPU was unreadable (no libnvidia-ml.so.1) and the policy requires "
			 "coverage");
	cr_assert_str_eq(verdict(&p, false, &s, &why),
			 "the attestation has no GPU section (sealed before fak read GPUs)");
	p.minimum_coverage_ratio = 0;
	cr_assert_str_eq(verdict(&p, true, &s, &why), "ok");
	cr_assert_str_eq(verdict(&p, false, &s, &why), "ok");
	sb_release(&why);
}

/* ---- a receipt's sealed runs ------------------------------------------------ */

static json_t *attestation(const char *name)
{
	char path[256];
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	json_t *doc;

	snprintf(path, sizeof(path), "tests/fixtures/attestations/%s", name);
	cr_assert_eq(file_read(path, ATTESTATION_MAX_BYTES, &sb, &e), 0, "%s", e.msg);
	cr_assert_eq(attestation_parse(sb.buf, sb.len, &doc, &e), 0, "%s", e.msg);
	sb_release(&sb);
	return doc;
}

Test(gpu_check, receipt_runs_are_named_and_old_attestations_do_not_qualify)
{
	struct gpu_policy p = policy();
	struct receipt_attestation att[2];
	json_t *docs[2] = { attestation("gpu-clock-drop.json"), attestation("clean-1.json") };
	struct receipt r;
	struct strbuf why = STRBUF_INIT;

	memset(&r, 0, sizeof(r));
	cr_assert_eq(gpu_check_receipt(&p, &r, "candidate", &why), -1);
	cr_assert_str_eq(why.buf, "candidate has no sealed runs to read GPU clocks from");

	receipt_attestation_verify(&att[0], docs[0]);
	receipt_attestation_verify(&att[1], docs[1]);
	r.system_baselines = att;
	r.nr_system_baselines = 2;
	p.disqualifying_reasons.n = 0;
	sb_reset(&why);
	cr_assert_eq(gpu_check_receipt(&p, &r, "candidate", &why), -1);
	cr_assert_str_eq(why.buf, "candidate attestation 1: the attestation has no GPU section "
				  "(sealed before fak read GPUs)");
	p.maximum_sm_clock_drift_percent = 3;
	sb_reset(&why);
	cr_assert_eq(gpu_check_receipt(&p, &r, "last_accepted", &why), -1);
	cr_assert_str_eq(why.buf, "last_accepted attestation 0: device 0 (NVIDIA A100-SXM4-80GB): "
				  "SM clock drift 21.88% exceeds 3% (SM 1005..1410 MHz, mean 1157; "
				  "memory 1593..1593 MHz, mean 1593)");
	r.nr_system_baselines = 1;
	p.maximum_sm_clock_drift_percent = 30;
	sb_reset(&why);
	cr_assert_eq(gpu_check_receipt(&p, &r, "last_accepted", &why), 0, "%s", why.buf);
	receipt_attestation_release(&att[0]);
	receipt_attestation_release(&att[1]);
	json_decref(docs[0]);
	json_decref(docs[1]);
	sb_release(&why);
}
