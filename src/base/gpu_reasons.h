#ifndef FAK_BASE_GPU_REASONS_H
#define FAK_BASE_GPU_REASONS_H
/* NVIDIA's clock-event (formerly "throttle") reasons: the bit values NVML
 * reports and the names fak writes. Shared vocabulary of the sampler (which
 * records them) and the graph (whose GPU policy names the disqualifying
 * ones). */
#include <stddef.h>
#include <stdint.h>

/* Clock-event (throttle) reasons: NVML's bit values, and their names. */
struct gpu_reason_name {
	uint64_t bit;
	const char *name;
};
extern const struct gpu_reason_name gpu_reason_names[];	/* NULL name ends it */
/* Bits of the named reason; 0 when the name is unknown. */
uint64_t gpu_reason_bit(const char *name);

/* Space-separated names of the reasons in bits ("none" for 0; bits
 * without a name read "other"). */
void gpu_reasons_text(int64_t bits, char *out, size_t cap);

#endif
