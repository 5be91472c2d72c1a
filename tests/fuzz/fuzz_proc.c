/* libFuzzer target: every /proc and cgroup text parser of sampler/ on the
 * same bytes. None may read outside the buffer, and what they return must
 * respect their documented bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct pp_cpu cpu;
	struct pp_pid pid;
	struct pp_psi psi;
	uint64_t a, b;
	int32_t pids[16];
	size_t nr;
	bool more;
	char path[64];

	if (pp_stat_cpu(buf, size, &cpu) == 0 && cpu.total_ticks < cpu.idle_ticks)
		abort();
	if (pp_meminfo(buf, size, &a, &b) == 0 && (!a || !b))
		abort();
	if (pp_pid_stat(buf, size, &pid) == 0 &&
	    (pid.pid <= 0 || pid.ppid < 0 || strlen(pid.comm) >= PP_COMM_MAX))
		abort();
	/* comm is never cut short by a NUL: all of it up to its bound */
	if (pp_pid_stat(buf, size, &pid) == 0) {
		const char *open = memchr(buf, '(', size);
		size_t n = strlen(pid.comm);

		if (!open || (n < PP_COMM_MAX - 1 && open[1 + n] != ')'))
			abort();
	}
	(void)pp_statm_resident(buf, size, &a);
	if (pp_pid_list(buf, size, pids, 16, &nr, &more) == 0) {
		if (nr > 16)
			abort();
		for (size_t i = 0; i < nr; i++)
			if (pids[i] <= 0)
				abort();
	}
	if (pp_psi(buf, size, &psi) == 0 && !psi.some_ok && !psi.full_ok)
		abort();
	(void)pp_keyed_u64(buf, size, "usage_usec", &a);
	(void)pp_u64_file(buf, size, &a);
	if (pp_cgroup_v2_path(buf, size, path, sizeof(path)) == 0 &&
	    (path[0] != '/' || strlen(path) >= sizeof(path)))
		abort();
	if (pp_mountinfo_cgroup2(buf, size, path, sizeof(path)) == 0 &&
	    strlen(path) >= sizeof(path))
		abort();
	{
		struct pp_psi_avg avg;
		unsigned char set[16];
		char word[16];
		double load;

		if (pp_psi_avg10(buf, size, &avg) == 0 &&
		    (avg.some_avg10 < 0 || avg.some_avg10 > 100 || avg.full_avg10 < 0 ||
		     avg.full_avg10 > 100))
			abort();
		if (pp_loadavg1(buf, size, &load) == 0 && load < 0)
			abort();
		if (pp_cpulist(buf, size, set, 128, &nr) == 0 && nr > 128)
			abort();
		set[0] = 3;
		if (pp_stat_cpus(buf, size, set, 128, 2, &cpu) == 0 &&
		    cpu.total_ticks < cpu.idle_ticks)
			abort();
		if (pp_bracketed(buf, size, word, sizeof(word)) == 0) {
			/* a word of printable ASCII, never cut by a NUL */
			if (!strlen(word))
				abort();
			for (const char *w = word; *w; w++)
				if (*w <= ' ' || *w >= 0x7f || *w == '[' || *w == ']')
					abort();
		}
		if (pp_cmdline_param(buf, size, "isolcpus", word, sizeof(word)) == 0 &&
		    strlen(word) >= sizeof(word))
			abort();
		(void)pp_meminfo_field(buf, size, "SwapTotal", &a);
	}
	if (size >= 16) {
		uint64_t ticks, hz, ns;

		memcpy(&ticks, data, 8);
		memcpy(&hz, data + 8, 8);
		if (pp_ticks_to_ns(ticks, hz, &ns) && hz && ticks / hz > ns / 1000000000u)
			abort();
	}
	return 0;
}
