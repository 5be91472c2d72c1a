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
 * in the attestation's "gpu" section (attestation/gpu_section.h), with a
 * summary that `--verify` re-derives from them. Prints nothing; allocates
 * only in gpu_open. docs/sampler.md describes every field. */
#include <stdbool.h>
#include <stdint.h>

#include "attestation/gpu_section.h"
#include "base/err.h"

#define GPU_LIBRARY "libnvidia-ml.so.1"

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

#endif
