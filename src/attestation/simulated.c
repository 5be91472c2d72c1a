#include "attestation/simulated.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every test variable the sampler reads (grep getenv src/): a fake /proc,
 * a fake /sys, a lowered census bound. */
static const char *const seams[] = { "FAK_PROC_ROOT", "FAK_SYS_ROOT",
				     "FAK_CENSUS_PROCESS_LIMIT" };
#define NR_SEAMS (sizeof(seams) / sizeof(seams[0]))
_Static_assert(NR_SEAMS <= SIM_MAX, "SIM_MAX too small");

static void add(struct simulated *s, const char *name)
{
	snprintf(s->names[s->nr++], SIM_NAME_MAX, "%s", name);
}

void simulated_from_env(struct simulated *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < NR_SEAMS; i++)
		if (getenv(seams[i]))
			add(s, seams[i]);
}

const char *simulated_env_first(void)
{
	for (size_t i = 0; i < NR_SEAMS; i++)
		if (getenv(seams[i]))
			return seams[i];
	return NULL;
}

json_t *simulated_to_json(const struct simulated *s)
{
	json_t *a = jarr();

	for (size_t i = 0; i < s->nr; i++)
		jpush_new(a, json_string(s->names[i]));
	return a;
}

static int seam_index(const char *name)
{
	for (size_t i = 0; i < NR_SEAMS; i++)
		if (!strcmp(seams[i], name))
			return (int)i;
	return -1;
}

int simulated_decode(const json_t *v, const struct jpath *at, struct simulated *s, struct err *e)
{
	int last = -1;

	memset(s, 0, sizeof(*s));
	if (!json_is_array(v) || !json_array_size(v))
		return jpath_err(e, at, "must be a non-empty array of test variable names");
	for (size_t i = 0; i < json_array_size(v); i++) {
		const char *name;
		int k;

		if (jd_str_at(v, at, i, &name, e) < 0)
			return -1;
		k = seam_index(name);
		if (k < 0 || k <= last) {
			struct jpath ip = JP_IDX(at, i);

			return jpath_err(e, &ip, k < 0 ? "\"%.64s\" is not a test variable of fak"
						       : "\"%.64s\" is out of order or repeated",
					 name);
		}
		last = k;
		add(s, name);
	}
	return 0;
}

void simulated_join(const struct simulated *s, char *out, size_t cap)
{
	size_t n = 0;

	if (cap)
		out[0] = '\0';
	for (size_t i = 0; i < s->nr && n < cap; i++) {
		int w = snprintf(out + n, cap - n, "%s%s", i ? ", " : "", s->names[i]);

		if (w < 0)
			break;
		n += (size_t)w;
	}
}
