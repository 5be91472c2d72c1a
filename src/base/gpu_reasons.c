/* gpu_reasons.h */
#include "base/gpu_reasons.h"

#include <stdio.h>
#include <string.h>

const struct gpu_reason_name gpu_reason_names[] = {
	{ 0x1, "gpu_idle" },
	{ 0x2, "applications_clocks_setting" },
	{ 0x4, "sw_power_cap" },
	{ 0x8, "hw_slowdown" },
	{ 0x10, "sync_boost" },
	{ 0x20, "sw_thermal_slowdown" },
	{ 0x40, "hw_thermal_slowdown" },
	{ 0x80, "hw_power_brake_slowdown" },
	{ 0x100, "display_clock_setting" },
	{ 0, NULL },
};

uint64_t gpu_reason_bit(const char *name)
{
	for (const struct gpu_reason_name *r = gpu_reason_names; r->name; r++)
		if (!strcmp(r->name, name))
			return r->bit;
	return 0;
}

void gpu_reasons_text(int64_t bits, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	for (const struct gpu_reason_name *r = gpu_reason_names; r->name; r++)
		if ((uint64_t)bits & r->bit)
			n += (size_t)snprintf(out + (n < cap ? n : cap - 1), n < cap ? cap - n : 1,
					      "%s%s", n ? " " : "", r->name);
	if ((uint64_t)bits & ~(uint64_t)0x1ff)
		snprintf(out + (n < cap ? n : cap - 1), n < cap ? cap - n : 1, "%sother",
			 n ? " " : "");
	if (!out[0])
		snprintf(out, cap, "none");
}
