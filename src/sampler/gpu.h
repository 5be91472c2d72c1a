#ifndef FAK_SAMPLER_GPU_H
#define FAK_SAMPLER_GPU_H
/* GPU evidence through NVIDIA's management library (NVML), loaded at run
 * time with dlopen("libnvidia-ml.so.1") from the normal library search path:
 * no NVIDIA package is needed to build fak, and a test double on
 * LD_LIBRARY_PATH takes the real library's place. Only the entry points
 * listed in gpu.c are resolved.
 *
 * The sampler reads every device at each census of the command window
 * (clocks, clock-event reasons, temperature, power, utilization, memory and
 * the GPU memory of the command's own processes); the readings are sealed
 * in the attestation's "gpu" section, schema GPU_SCHEMA, with a summary that
 * `--verify` re-derives from them. Prints nothing; allocates only in
 * gpu_open. docs/sampler.md describes every field. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "base/gpu_reasons.h"
#include "base/json.h"

#define GPU_SCHEMA "fak-native-gpu-clock-observation/v1"
#define GPU_LIBRARY "libnvidia-ml.so.1"
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

struct gpu;

/* Loads NVML and lists the devices. Returns NULL when there is nothing to
 * sample (no library, no entry point, init failed, no device): s is then
 * final (status unreadable with the reason). Otherwise the caller samples
 * with gpu_sample and ends with gpu_close. */
struct gpu *gpu_open(struct gpu_section *s);

/* Whether pid belongs to the command's process tree (for the GPU memory of
 * its own processes). */
typedef bool gpu_is_sut_fn(void *ctx, int pid);

/* Reads every device once (g may be NULL: nothing happens). */
void gpu_sample(struct gpu *g, struct gpu_section *s, int64_t mono_ns, gpu_is_sut_fn *is_sut,
		void *ctx);
/* Summarizes, sets the section status and unloads NVML. g may be NULL. */
void gpu_close(struct gpu *g, struct gpu_section *s);

/* The section that says the GPU could not be read, and why (the device
 * array is left untouched: nr_devices is 0). */
void gpu_unreadable(struct gpu_section *s, const char *reason);
/* *dst = *src, copying only the devices in use. */
void gpu_copy(struct gpu_section *dst, const struct gpu_section *src);

/* ---- the probe (for `fak bench system-check` and the platform check) ---- */

struct gpu_probe_device {
	char name[GPU_NAME_MAX];
	char identity[GPU_IDENTITY_LEN + 1];
	struct gpu_state state;
};

struct gpu_probe {
	char driver_version[GPU_NAME_MAX];
	size_t nr_devices;
	struct gpu_probe_device devices[GPU_MAX_DEVICES];
};

/* Reads each device's name, scrubbed identity and state (persistence mode,
 * application and maximum clocks, current clock-event reasons) now, with
 * NVML loaded and unloaded around the call. Returns -1 with e set when NVML
 * cannot be read ("no libnvidia-ml.so.1", "nvmlInit_v2 failed: ..."); a
 * machine with the library and no device returns 0 with nr_devices 0. */
int gpu_probe(struct gpu_probe *p, struct err *e);

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
