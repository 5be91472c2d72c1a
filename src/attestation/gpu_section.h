#ifndef FAK_ATTESTATION_GPU_SECTION_H
#define FAK_ATTESTATION_GPU_SECTION_H
/* The attestation's "gpu" section (schema GPU_SCHEMA): every device's
 * readings over the command window and a summary that `--verify` re-derives
 * from them. sampler/gpu.h fills it through NVML; this is the sealed
 * document's part. docs/sampler.md describes every field. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "base/gpu_reasons.h"
#include "base/json.h"

#define GPU_SCHEMA "fak-native-gpu-clock-observation/v1"
#define GPU_MAX_DEVICES 8
#define GPU_MAX_READINGS 64	/* per device; more are decimated (stride doubles) */
#define GPU_NAME_MAX 96
#define GPU_TEXT_MAX 96
#define GPU_IDENTITY_LEN 16	/* hex digits of SHA-256 of the device UUID */

/* Reading and section status (docs/sampler.md, "The attestation"). */
#define GPU_OBSERVED "observed"
#define GPU_FAILED "failed"
#define GPU_UNREADABLE "unreadable"

/* One reading of one device. Optional figures are -1 when not read. */
struct gpu_reading {
	char status[12];		/* GPU_OBSERVED | GPU_FAILED | GPU_UNREADABLE */
	char error[GPU_TEXT_MAX];	/* set iff not observed */
	int64_t offset_ms;		/* since the command window opened */
	int64_t sm_clock_mhz, memory_clock_mhz;	/* set iff observed */
	int64_t clocks_event_reasons;	/* bit set, -1 unread */
	int64_t temperature_c, power_mw, utilization_percent, memory_used_bytes;
	int64_t process_memory_bytes;	/* GPU memory of the command's processes */
};

struct gpu_range {
	int64_t min, max;
	double mean;
};

/* Derived from the readings alone (gpu_summarize). */
struct gpu_summary {
	int64_t readings, observed, failed, unreadable;
	double coverage_ratio;			/* observed / readings, 0 when none */
	struct gpu_range sm_clock_mhz, memory_clock_mhz;	/* over observed readings */
	int64_t event_reasons;			/* union of every reading's bits */
	int64_t max_temperature_c, max_power_mw, max_memory_used_bytes;	/* -1 unread */
	int64_t max_process_memory_bytes;	/* -1 unread */
	double mean_utilization_percent;	/* -1 unread */
};

/* Per-device state that matters before a run (and that a system check
 * reports): -1 when unknown or not supported. */
struct gpu_state {
	int persistence_mode;			/* 1 enabled, 0 disabled, -1 unknown */
	int64_t applications_sm_clock_mhz, applications_memory_clock_mhz;
	int64_t default_applications_sm_clock_mhz, default_applications_memory_clock_mhz;
	int64_t max_sm_clock_mhz, max_memory_clock_mhz;
	int64_t event_reasons;			/* at the probe, -1 unread */
};

struct gpu_device {
	int64_t index;
	char name[GPU_NAME_MAX];
	char identity[GPU_IDENTITY_LEN + 1];	/* "" when the UUID is unreadable */
	struct gpu_state state;			/* when the window opened */
	char unsupported[GPU_TEXT_MAX];		/* functions that said NOT_SUPPORTED, "" none */
	int64_t reading_stride;			/* 1, doubled at each decimation */
	size_t nr_readings;
	struct gpu_reading readings[GPU_MAX_READINGS];
	struct gpu_summary summary;
};

/* The attestation's "gpu" section. */
struct gpu_section {
	char status[12];		/* GPU_* for the whole section */
	char reason[GPU_TEXT_MAX];	/* set iff not observed */
	char driver_version[GPU_NAME_MAX];	/* "" unknown */
	int64_t sampler_wall_ns;	/* time spent in NVML over the window */
	size_t nr_devices;
	struct gpu_device devices[GPU_MAX_DEVICES];
};

/* ---- the sealed section ----------------------------------------------- */

/* Fills every device's summary and the section status from the readings. */
void gpu_summarize(struct gpu_section *s);

/* New reference, keys in the documented order. */
json_t *gpu_to_json(const struct gpu_section *s);
/* Strict decode of the section (borrowed, at path at): every key known,
 * every reading consistent with its status, and the recorded summaries,
 * status and reason equal to the ones re-derived from the readings. */
int gpu_decode(const json_t *doc, const struct jpath *at, struct gpu_section *s, struct err *e);

#endif
