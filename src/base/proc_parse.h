#ifndef FAK_BASE_PROC_PARSE_H
#define FAK_BASE_PROC_PARSE_H
/* Pure parsers for the kernel text files the sampler reads (/proc, cgroup
 * v2). Each takes a buffer and its length (no NUL needed), never allocates,
 * and returns 0 on success or -1 on malformed input; they are unit-tested
 * on fixtures and fuzzed. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* First line of /proc/stat: "cpu" and at least 4 counters. total = sum of
 * the first up to 8 (user..steal; guest time is already inside user/nice),
 * idle = idle + iowait. Fails on overflow or total < idle. */
struct pp_cpu {
	uint64_t total_ticks, idle_ticks;
};
int pp_stat_cpu(const char *buf, size_t len, struct pp_cpu *out);
/* The same summed over the "cpuN" lines of the CPUs in set (a bitmap of
 * max_cpus <= PP_MAX_CPUS bits, count > 0 of them set). Fails when a CPU of
 * set has no line (it is offline) or two, or on a malformed cpuN line. */
#define PP_MAX_CPUS 8192
int pp_stat_cpus(const char *buf, size_t len, const unsigned char *set, size_t max_cpus,
		 size_t count, struct pp_cpu *out);

/* /proc/meminfo: MemTotal and MemAvailable in bytes; -1 unless both are
 * present and positive. */
int pp_meminfo(const char *buf, size_t len, uint64_t *total_bytes, uint64_t *available_bytes);

/* /proc/PID/stat. comm is the text between the first '(' and the last ')'
 * (any bytes but NUL, which fails: the kernel's comm is a C string). */
#define PP_COMM_MAX 64
struct pp_pid {
	int32_t pid, ppid;
	char state;
	char comm[PP_COMM_MAX];
	uint64_t utime_ticks, stime_ticks;
	/* CPU of children it has waited for, so of processes that ended
	 * (negative values read as 0) */
	uint64_t cutime_ticks, cstime_ticks;
	uint64_t starttime_ticks;	/* since boot: with the PID, a reuse-safe identity */
	int64_t num_threads;
	uint64_t rss_pages;		/* negative values read as 0 */
};
int pp_pid_stat(const char *buf, size_t len, struct pp_pid *out);

/* /proc/PID/statm: the second field (resident pages). */
int pp_statm_resident(const char *buf, size_t len, uint64_t *pages);

/* Whitespace-separated positive decimal PIDs (task children files,
 * cgroup.procs). Stores at most cap; *more is set when further PIDs were
 * left out. *nr = number stored. */
int pp_pid_list(const char *buf, size_t len, int32_t *pids, size_t cap, size_t *nr, bool *more);

/* PSI file: "some avg10=.. avg60=.. avg300=.. total=N" and "full ..." lines.
 * A missing line leaves its *_ok false; a malformed line fails. */
struct pp_psi {
	bool some_ok, full_ok;
	uint64_t some_total_us, full_total_us;
};
int pp_psi(const char *buf, size_t len, struct pp_psi *out);

/* "key value" lines (cgroup cpu.stat, memory.events): value of key.
 * Returns 0 found, 1 absent, -1 when any line is malformed. */
int pp_keyed_u64(const char *buf, size_t len, const char *key, uint64_t *out);

/* A file holding one unsigned decimal and an optional newline (memory.peak). */
int pp_u64_file(const char *buf, size_t len, uint64_t *out);

/* /proc/self/cgroup: the path of the "0::" line (cgroup v2 membership). */
int pp_cgroup_v2_path(const char *buf, size_t len, char *out, size_t cap);

/* /proc/self/mountinfo: mount point of the first cgroup2 file system, with
 * the kernel's octal escapes (\040 ...) decoded. */
int pp_mountinfo_cgroup2(const char *buf, size_t len, char *out, size_t cap);

/* ticks * 1e9 / hz without overflow; false when the result does not fit. */
bool pp_ticks_to_ns(uint64_t ticks, uint64_t hz, uint64_t *ns);

/* /proc/meminfo: one "Key: N kB" field in bytes. Returns 0 found, 1 absent,
 * -1 when the field is malformed. */
int pp_meminfo_field(const char *buf, size_t len, const char *key, uint64_t *bytes);

/* PSI file: the avg10 percentages of the "some" and "full" lines. A missing
 * line leaves its *_ok false; a malformed line fails; values are 0..100. */
struct pp_psi_avg {
	bool some_ok, full_ok;
	double some_avg10, full_avg10;
};
int pp_psi_avg10(const char *buf, size_t len, struct pp_psi_avg *out);

/* /proc/loadavg: the 1-minute load average (first field). */
int pp_loadavg1(const char *buf, size_t len, double *load1);

/* A kernel CPU list ("0-3,8,10-11", blank = empty) into a bitmap of
 * max_cpus bits (set must hold (max_cpus + 7) / 8 bytes); *count = CPUs
 * set. Fails on malformed text, a reversed range or a CPU >= max_cpus. */
int pp_cpulist(const char *buf, size_t len, unsigned char *set, size_t max_cpus, size_t *count);

/* The word in brackets of a sysfs choice file ("always [madvise] never"):
 * printable ASCII, neither blank nor a bracket; anything else fails. */
int pp_bracketed(const char *buf, size_t len, char *out, size_t cap);

/* /proc/cmdline: the value of the last "key=value" parameter before "--"
 * (words separated by blanks or NULs). Returns 0 found, 1 absent, -1 when
 * the value does not fit in cap. */
int pp_cmdline_param(const char *buf, size_t len, const char *key, char *out, size_t cap);

/* One line of /proc/PID/maps ("start-end perms offset MM:mm inode [path]"):
 * the device (hexadecimal major and minor) and inode of what is mapped (0
 * for anonymous memory). Reads up to the first newline; -1 when malformed. */
struct pp_map {
	uint64_t dev_major, dev_minor, inode;
};
int pp_maps_line(const char *buf, size_t len, struct pp_map *out);

#endif
