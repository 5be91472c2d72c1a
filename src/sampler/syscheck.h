#ifndef FAK_SAMPLER_SYSCHECK_H
#define FAK_SAMPLER_SYSCHECK_H
/* `fak bench system-check`: what on this machine would disturb a benchmark,
 * each with the command that fixes it. One table of checks (name, reader,
 * judge, fix); the readers fill a snapshot from the proc and sys roots, the
 * judges are pure functions of that snapshot. It reads; it never writes. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/proc_parse.h"

#define SYSCHECK_SCHEMA	       "fak.system-check/v1"
#define SYSCHECK_TEXT_MAX      320
#define SYSCHECK_MAX	       16
#define SYSCHECK_MAX_CPUS      8192
#define SYSCHECK_SAMPLE_MAX_NS ((int64_t)60 * 1000000000)

enum syscheck_status {
	SYSCHECK_OK,	   /* nothing to fix */
	SYSCHECK_ADVICE,   /* worth doing on a benchmark machine; does not fail the check */
	SYSCHECK_UNKNOWN,  /* the machine does not expose it (a VM, an old kernel) */
	SYSCHECK_DISTURBS, /* disturbs a benchmark now: the check exits 1 */
};

struct syscheck_finding {
	const char *name; /* static: "cpu.governor" ... */
	enum syscheck_status status;
	char detail[SYSCHECK_TEXT_MAX];
	char fix[SYSCHECK_TEXT_MAX]; /* "" when there is nothing to do */
};

struct syscheck_opts {
	const char *proc_root, *sys_root; /* "/proc", "/sys" or fake trees */
	int64_t sample_ns;	 /* host CPU, consumers over this window; 0: since boot/start */
	pid_t self_pid;		 /* left out of the consumers */
	double max_busy_percent; /* host CPU now, default 20 (as --max-non-sut-cpu-percent) */
	double max_psi_percent;	 /* PSI avg10, default 5 (as --max-psi-stall-percent) */
	double max_load_per_cpu; /* 1-minute load per online CPU, default 0.25 */
	double min_consumer_percent; /* of one CPU: a process above it disturbs, default 5 */
};

struct syscheck_result {
	struct syscheck_finding f[SYSCHECK_MAX];
	size_t nr;
	size_t counts[SYSCHECK_DISTURBS + 1]; /* findings per status */
};

/* Defaults above; roots "/proc" and "/sys", a 1 s sample. */
void syscheck_defaults(struct syscheck_opts *o);
/* The sys root used by the CLI: $FAK_SYS_ROOT when set, else "/sys". */
const char *sys_root_default(void);

/* Reads the machine and judges every check, in table order. Fails only when
 * the proc root itself cannot be read (no /proc/stat). */
int syscheck_run(const struct syscheck_opts *o, struct syscheck_result *r, struct err *e);

#endif
