#include "sampler/syscheck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/gpu_reasons.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "sampler/gpu.h"
#include "base/proc_parse.h"
#include "sampler/proc_read.h"
#include "attestation/attestation.h"
#include "platform/platform.h"

#define FILE_CAP	  4096 /* every file read here but the command line */
#define CMDLINE_CAP	  65536
#define SCAN_MAX	  16384 /* processes read per scan */
#define TOP_MAX		  5
#define TOP_FLOOR_PERCENT 1.0 /* consumers below this are not listed */
#define WORD_MAX	  32

struct proc_row {
	int32_t pid;
	uint64_t start, ticks;
	uint64_t ended_ticks; /* of the children it waited for */
	char comm[PP_COMM_MAX];
};

struct scan {
	struct proc_row *rows;
	size_t nr;
	bool ok;
};

struct consumer_row {
	char image[ATTESTATION_IMAGE_MAX];
	int32_t pid;
	double percent; /* of one CPU */
	bool ended;	/* the CPU of its children that ended in the sample */
};

/* What the readers found. A reader sets its *_ok only when it read
 * well-formed values; the judges never read the machine. */
struct machine {
	const struct syscheck_opts *o;
	long clk_tck;
	size_t online, gov_read, gov_other, isolated, nr_top;
	double load1, busy_percent;
	double busy_cpus_percent; /* host busy time in the window, in percent of one CPU */
	double top_percent; /* the largest, also when under the floor */
	int64_t busy_window_ns;
	uint64_t swap_total, swap_free;
	struct pp_psi_avg psi[3]; /* cpu, memory, io */
	struct consumer_row top[TOP_MAX];
	int no_turbo, boost, smt_active, aslr; /* -1: not exposed */
	unsigned char online_set[SYSCHECK_MAX_CPUS / 8];
	unsigned char isolated_set[SYSCHECK_MAX_CPUS / 8];
	char gov_other_name[WORD_MAX], thp[WORD_MAX];
	char isolated_text[64], isolcpus[64], nohz_full[64];
	char consumers_reason[128];
	bool online_ok, isolated_ok, cmdline_ok, have_isolcpus, have_nohz, load_ok;
	bool psi_ok[3];
	bool busy_ok, busy_since_boot, consumers_ok, consumers_lifetime, thp_ok, swap_ok;
	bool sampled; /* the sampling reader ran */
	/* NVIDIA devices through NVML (sampler/gpu.h), read once for both checks */
	bool gpu_read;
	int gpu_rc;		/* gpu_probe's: -1 when NVML cannot be read */
	struct err gpu_err;
	struct gpu_probe gpu;
};

/* ---- reading ------------------------------------------------------------ */

/* root + rel into buf (cap - 1 bytes, NUL-terminated); length or -1. */
static ssize_t read_rel(const char *root, const char *rel, char *buf, size_t cap)
{
	char path[PATH_MAX];
	ssize_t n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -1;
	n = proc_read_at(AT_FDCWD, path, buf, cap - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* A file holding one small decimal; -1 when absent or malformed. */
static int read_small_int(const char *root, const char *rel)
{
	char buf[64];
	ssize_t n = read_rel(root, rel, buf, sizeof(buf));
	uint64_t v;

	if (n < 0 || pp_u64_file(buf, (size_t)n, &v) < 0 || v > INT_MAX)
		return -1;
	return (int)v;
}

/* A word in buf made safe to print: letters, digits, '-', '_', '.', ','. */
static void safe_word(const char *s, size_t n, char out[WORD_MAX])
{
	size_t i;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	for (i = 0; i < n && i < WORD_MAX - 1; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == ',';

		out[i] = ok ? c : '?';
	}
	out[i] = '\0';
}

static void read_online(struct machine *m)
{
	char buf[FILE_CAP];
	ssize_t n = read_rel(m->o->sys_root, "devices/system/cpu/online", buf, sizeof(buf));

	m->online_ok =
	    n >= 0 &&
	    pp_cpulist(buf, (size_t)n, m->online_set, SYSCHECK_MAX_CPUS, &m->online) == 0 &&
	    m->online > 0;
}

static bool cpu_online(const struct machine *m, size_t cpu)
{
	return m->online_set[cpu / 8] & (1u << (cpu % 8));
}

static void read_governors(struct machine *m)
{
	if (!m->online_ok)
		return;
	for (size_t cpu = 0; cpu < SYSCHECK_MAX_CPUS; cpu++) {
		char rel[80], buf[64];
		ssize_t n;

		if (!cpu_online(m, cpu))
			continue;
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%zu/cpufreq/scaling_governor",
			 cpu);
		n = read_rel(m->o->sys_root, rel, buf, sizeof(buf));
		if (n < 0)
			continue;
		m->gov_read++;
		if (n >= 11 && !memcmp(buf, "performance", 11) && (n == 11 || buf[11] == '\n'))
			continue;
		if (!m->gov_other++)
			safe_word(buf, (size_t)n, m->gov_other_name);
	}
}

static void read_boost(struct machine *m)
{
	m->no_turbo = read_small_int(m->o->sys_root, "devices/system/cpu/intel_pstate/no_turbo");
	m->boost = read_small_int(m->o->sys_root, "devices/system/cpu/cpufreq/boost");
}

static void read_smt(struct machine *m)
{
	m->smt_active = read_small_int(m->o->sys_root, "devices/system/cpu/smt/active");
}

static void read_isolation(struct machine *m)
{
	char buf[FILE_CAP], *big = xmalloc(CMDLINE_CAP);
	ssize_t n = read_rel(m->o->sys_root, "devices/system/cpu/isolated", buf, sizeof(buf));

	if (n >= 0 &&
	    pp_cpulist(buf, (size_t)n, m->isolated_set, SYSCHECK_MAX_CPUS, &m->isolated) == 0) {
		m->isolated_ok = true;
		safe_word(buf, (size_t)n, m->isolated_text);
	}
	n = read_rel(m->o->proc_root, "cmdline", big, CMDLINE_CAP);
	if (n >= 0) {
		char v[64];

		m->cmdline_ok = true;
		if (pp_cmdline_param(big, (size_t)n, "isolcpus", v, sizeof(v)) == 0) {
			m->have_isolcpus = true;
			safe_word(v, strlen(v), m->isolcpus);
		}
		if (pp_cmdline_param(big, (size_t)n, "nohz_full", v, sizeof(v)) == 0) {
			m->have_nohz = true;
			safe_word(v, strlen(v), m->nohz_full);
		}
	}
	free(big);
}

static void read_load(struct machine *m)
{
	char buf[FILE_CAP];
	ssize_t n = read_rel(m->o->proc_root, "loadavg", buf, sizeof(buf));

	m->load_ok = n >= 0 && pp_loadavg1(buf, (size_t)n, &m->load1) == 0;
}

static const char *const psi_files[3] = {"pressure/cpu", "pressure/memory", "pressure/io"};
static const char *const psi_names[3] = {"cpu", "memory", "io"};

static void read_pressure(struct machine *m)
{
	for (int i = 0; i < 3; i++) {
		char buf[FILE_CAP];
		ssize_t n = read_rel(m->o->proc_root, psi_files[i], buf, sizeof(buf));

		m->psi_ok[i] =
		    n >= 0 && pp_psi_avg10(buf, (size_t)n, &m->psi[i]) == 0 && m->psi[i].some_ok;
	}
}

static int read_stat(const struct machine *m, struct pp_cpu *c)
{
	char buf[FILE_CAP];
	ssize_t n = read_rel(m->o->proc_root, "stat", buf, sizeof(buf));

	return n < 0 ? -1 : pp_stat_cpu(buf, (size_t)n, c);
}

static int row_cmp(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every /proc/PID/stat, sorted by PID. A process that exits meanwhile is
 * skipped; at most SCAN_MAX are read. */
static void scan_processes(const struct machine *m, struct scan *s)
{
	DIR *d = opendir(m->o->proc_root);
	struct dirent *de;

	s->nr = 0;
	s->ok = d != NULL;
	if (!d)
		return;
	while ((de = readdir(d)) && s->nr < SCAN_MAX) {
		char rel[NAME_MAX + 8], buf[1024];
		struct pp_pid p;
		ssize_t n;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(rel, sizeof(rel), "%s/stat", de->d_name);
		n = read_rel(m->o->proc_root, rel, buf, sizeof(buf));
		if (n < 0 || pp_pid_stat(buf, (size_t)n, &p) < 0 || p.pid == m->o->self_pid)
			continue;
		s->rows[s->nr].pid = p.pid;
		s->rows[s->nr].start = p.starttime_ticks;
		s->rows[s->nr].ticks = p.utime_ticks + p.stime_ticks;
		s->rows[s->nr].ended_ticks = p.cutime_ticks + p.cstime_ticks;
		memcpy(s->rows[s->nr].comm, p.comm, sizeof(p.comm));
		s->nr++;
	}
	closedir(d);
	qsort(s->rows, s->nr, sizeof(s->rows[0]), row_cmp);
}

static void keep_top(struct machine *m, const struct proc_row *r, double pct, bool ended)
{
	size_t i;

	if (pct > m->top_percent)
		m->top_percent = pct;
	if (pct < TOP_FLOOR_PERCENT)
		return;
	for (i = m->nr_top; i > 0 && m->top[i - 1].percent < pct; i--)
		if (i < TOP_MAX)
			m->top[i] = m->top[i - 1];
	if (i >= TOP_MAX)
		return;
	attestation_scrub_image(r->comm, m->top[i].image);
	m->top[i].pid = r->pid;
	m->top[i].percent = pct;
	m->top[i].ended = ended;
	if (m->nr_top < TOP_MAX)
		m->nr_top++;
}

/* Lifetime shares (sample 0): CPU since each process started, as ps(1). */
static void consumers_since_start(struct machine *m, const struct scan *s)
{
	char buf[FILE_CAP];
	ssize_t n = read_rel(m->o->proc_root, "uptime", buf, sizeof(buf));
	double up;

	if (n < 0 || sscanf(buf, "%lf", &up) != 1 || !(up > 0)) {
		snprintf(m->consumers_reason, sizeof(m->consumers_reason),
			 "cannot read \"uptime\"");
		return;
	}
	for (size_t i = 0; i < s->nr; i++) {
		double age = up - (double)s->rows[i].start / (double)m->clk_tck;

		if (age > 0)
			keep_top(m, &s->rows[i],
				 (double)s->rows[i].ticks / (double)m->clk_tck / age * 100, false);
	}
	m->consumers_ok = true;
	m->consumers_lifetime = true;
}

/* The CPU each process used between scans a and b, secs apart: the
 * difference for one seen in both, all of it for one that started in
 * between. A process that started and ended in between is in neither scan
 * (a build's compilers, a shell loop's commands): its CPU shows in the
 * parent that waited for it, as a second row for that parent, also when the
 * parent itself started in between (a build started during the sample).
 * Rows are held to the host's busy time in the window, since a long-lived
 * child reaped in the window brings its whole life with it. */
static void consumers_in_window(struct machine *m, const struct scan *a, const struct scan *b,
				double secs)
{
	double per_tick = 100 / (double)m->clk_tck / secs;
	double busy = m->busy_ok ? m->busy_cpus_percent : INFINITY;

	for (size_t i = 0; i < b->nr; i++) {
		const struct proc_row *r = &b->rows[i];
		const struct proc_row *p = bsearch(r, a->rows, a->nr, sizeof(a->rows[0]), row_cmp);
		bool seen = p && p->start == r->start;
		uint64_t own = seen ? p->ticks : 0, ended = seen ? p->ended_ticks : 0;

		/* one not in scan a is new, or was not read there (SCAN_MAX, a
		 * failed read): its whole life is held to the host's busy time */
		if (r->ticks >= own)
			keep_top(m, r, fmin((double)(r->ticks - own) * per_tick, busy), false);
		if (r->ended_ticks > ended)
			keep_top(m, r, fmin((double)(r->ended_ticks - ended) * per_tick, busy),
				 true);
	}
}

/* Host CPU and every process's CPU over one window (or since boot). */
static void read_sample(struct machine *m)
{
	struct scan a = {0}, b = {0};
	struct pp_cpu c0, c1;
	int64_t t0, t1;

	if (m->sampled)
		return;
	m->sampled = true;
	a.rows = xcalloc(SCAN_MAX, sizeof(a.rows[0]));
	b.rows = xcalloc(SCAN_MAX, sizeof(b.rows[0]));
	t0 = platform_mono_ns();
	if (read_stat(m, &c0) < 0) {
		m->busy_ok = false;
		goto out;
	}
	scan_processes(m, &a);
	if (m->o->sample_ns > 0) {
		struct timespec ts = {(time_t)(m->o->sample_ns / 1000000000),
				      (long)(m->o->sample_ns % 1000000000)};

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		scan_processes(m, &b);
		t1 = platform_mono_ns();
		if (read_stat(m, &c1) == 0 && c1.total_ticks > c0.total_ticks &&
		    c1.idle_ticks >= c0.idle_ticks &&
		    c1.total_ticks - c0.total_ticks >= c1.idle_ticks - c0.idle_ticks) {
			uint64_t dt = c1.total_ticks - c0.total_ticks,
				 di = c1.idle_ticks - c0.idle_ticks;

			m->busy_ok = true;
			m->busy_percent = (double)(dt - di) / (double)dt * 100;
			m->busy_window_ns = t1 - t0;
			m->busy_cpus_percent = (double)(dt - di) / (double)m->clk_tck /
					       ((double)(t1 - t0) / 1e9) * 100;
		}
		if (a.ok && b.ok) {
			consumers_in_window(m, &a, &b, (double)(t1 - t0) / 1e9);
			m->consumers_ok = true;
		}
	} else {
		if (c0.total_ticks > 0) {
			m->busy_ok = true;
			m->busy_since_boot = true;
			m->busy_percent =
			    (double)(c0.total_ticks - c0.idle_ticks) / (double)c0.total_ticks * 100;
		}
		if (a.ok)
			consumers_since_start(m, &a);
	}
	if (!a.ok)
		snprintf(m->consumers_reason, sizeof(m->consumers_reason),
			 "cannot list the processes");
out:
	free(a.rows);
	free(b.rows);
}

static void read_thp(struct machine *m)
{
	char buf[FILE_CAP];
	ssize_t n =
	    read_rel(m->o->sys_root, "kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf));

	m->thp_ok = n >= 0 && pp_bracketed(buf, (size_t)n, m->thp, sizeof(m->thp)) == 0;
	if (m->thp_ok)
		safe_word(m->thp, strlen(m->thp), m->thp);
}

static void read_swap(struct machine *m)
{
	char buf[FILE_CAP];
	ssize_t n = read_rel(m->o->proc_root, "meminfo", buf, sizeof(buf));

	m->swap_ok = n >= 0 && pp_meminfo_field(buf, (size_t)n, "SwapTotal", &m->swap_total) == 0 &&
		     pp_meminfo_field(buf, (size_t)n, "SwapFree", &m->swap_free) == 0 &&
		     m->swap_free <= m->swap_total;
}

static void read_aslr(struct machine *m)
{
	m->aslr = read_small_int(m->o->proc_root, "sys/kernel/randomize_va_space");
}

/* ---- judging -------------------------------------------------------------- */

static void say(struct syscheck_finding *f, enum syscheck_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(struct syscheck_finding *f, enum syscheck_status s, const char *fmt, ...)
{
	va_list ap;

	f->status = s;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
}

static void judge_governor(const struct machine *m, struct syscheck_finding *f)
{
	if (!m->gov_read)
		say(f, SYSCHECK_UNKNOWN,
		    "no cpufreq governor in sys (a VM or a fixed clock: the host "
		    "sets the frequency)");
	else if (m->gov_other)
		say(f, SYSCHECK_DISTURBS,
		    "%zu of %zu CPUs use \"%s\", not \"performance\": the "
		    "clock follows the load",
		    m->gov_other, m->gov_read, m->gov_other_name);
	else
		say(f, SYSCHECK_OK, "%zu of %zu CPUs use \"performance\"", m->gov_read,
		    m->gov_read);
}

static void judge_boost(const struct machine *m, struct syscheck_finding *f)
{
	static const char why[] = "the clock then depends on temperature and on how many cores "
				  "are busy";

	if (m->no_turbo == 0) {
		say(f, SYSCHECK_DISTURBS, "turbo is on (intel_pstate no_turbo is 0): %s", why);
		snprintf(f->fix, sizeof(f->fix),
			 "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo");
	} else if (m->no_turbo > 0) {
		say(f, SYSCHECK_OK, "turbo is off (intel_pstate no_turbo is %d)", m->no_turbo);
	} else if (m->boost > 0) {
		say(f, SYSCHECK_DISTURBS, "boost is on (cpufreq boost is %d): %s", m->boost, why);
	} else if (m->boost == 0) {
		say(f, SYSCHECK_OK, "boost is off (cpufreq boost is 0)");
	} else {
		say(f, SYSCHECK_UNKNOWN, "neither intel_pstate no_turbo nor cpufreq boost in sys");
	}
}

static void judge_smt(const struct machine *m, struct syscheck_finding *f)
{
	if (m->smt_active < 0)
		say(f, SYSCHECK_UNKNOWN, "no smt control in sys");
	else if (m->smt_active)
		say(f, SYSCHECK_ADVICE,
		    "SMT is on: a sibling thread shares the core's execution "
		    "units and caches with the benchmark");
	else
		say(f, SYSCHECK_OK, "SMT is off or not supported");
}

static void judge_isolation(const struct machine *m, struct syscheck_finding *f)
{
	if (!m->isolated_ok && !m->cmdline_ok)
		say(f, SYSCHECK_UNKNOWN,
		    "neither the isolated CPU list nor the kernel command "
		    "line can be read");
	else if (m->isolated || m->have_isolcpus)
		say(f, SYSCHECK_OK, "isolated CPUs: %s; nohz_full: %s",
		    m->isolated ? m->isolated_text : m->isolcpus,
		    m->have_nohz ? m->nohz_full : "none");
	else
		say(f, SYSCHECK_ADVICE,
		    "no CPU is isolated (no isolcpus): the scheduler may run "
		    "anything next to the benchmark%s",
		    m->have_nohz ? "" : ", and no nohz_full: the timer tick interrupts it");
}

static void judge_load(const struct machine *m, struct syscheck_finding *f)
{
	double per_cpu;

	if (!m->load_ok || !m->online_ok) {
		say(f, SYSCHECK_UNKNOWN, "%s cannot be read",
		    !m->load_ok ? "\"loadavg\"" : "the online CPU list");
		return;
	}
	per_cpu = m->load1 / (double)m->online;
	say(f, per_cpu > m->o->max_load_per_cpu ? SYSCHECK_DISTURBS : SYSCHECK_OK,
	    "1-minute load %.2f over %zu CPUs: %.2f per CPU (ceiling %.2f)", m->load1, m->online,
	    per_cpu, m->o->max_load_per_cpu);
}

static void judge_pressure(const struct machine *m, struct syscheck_finding *f)
{
	char worst[96] = "";
	double top = -1;

	if (!m->psi_ok[0] && !m->psi_ok[1] && !m->psi_ok[2]) {
		say(f, SYSCHECK_UNKNOWN,
		    "no pressure files (a kernel without PSI, or booted with "
		    "psi=0)");
		return;
	}
	for (int i = 0; i < 3; i++)
		if (m->psi_ok[i] && m->psi[i].some_avg10 > top) {
			top = m->psi[i].some_avg10;
			snprintf(worst, sizeof(worst), "%s", psi_names[i]);
		}
	say(f, top > m->o->max_psi_percent ? SYSCHECK_DISTURBS : SYSCHECK_OK,
	    "tasks stalled on %s %.2f%% of the last 10 s (the largest PSI \"some\" avg10; "
	    "ceiling %g%%)",
	    worst, top, m->o->max_psi_percent);
}

static void judge_busy(const struct machine *m, struct syscheck_finding *f)
{
	char span[48];

	if (!m->busy_ok) {
		say(f, SYSCHECK_UNKNOWN, "\"stat\" cannot be read twice in order");
		return;
	}
	if (m->busy_since_boot)
		snprintf(span, sizeof(span), "since boot");
	else
		snprintf(span, sizeof(span), "over %.1f s", (double)m->busy_window_ns / 1e9);
	say(f, m->busy_percent > m->o->max_busy_percent ? SYSCHECK_DISTURBS : SYSCHECK_OK,
	    "host CPU %.1f%% busy %s (ceiling %g%%)", m->busy_percent, span,
	    m->o->max_busy_percent);
}

static void judge_consumers(const struct machine *m, struct syscheck_finding *f)
{
	const char *span = m->consumers_lifetime ? "since it started" : "in the sample";
	const char *each = m->consumers_lifetime ? "each since it started" : "in the sample";
	size_t len;

	if (!m->consumers_ok) {
		say(f, SYSCHECK_UNKNOWN, "%s",
		    m->consumers_reason[0] ? m->consumers_reason
					   : "the process scan did not complete");
		return;
	}
	if (!m->nr_top || m->top_percent < m->o->min_consumer_percent) {
		say(f, SYSCHECK_OK, "no process used more than %g%% of a CPU %s",
		    m->o->min_consumer_percent, span);
		return;
	}
	say(f, SYSCHECK_DISTURBS,
	    "processes above %g%% of one CPU (%s):", m->o->min_consumer_percent, each);
	for (size_t i = 0; i < m->nr_top; i++) {
		len = strlen(f->detail);
		snprintf(f->detail + len, sizeof(f->detail) - len, "%s %s (pid %d) %.1f%%%s",
			 i ? "," : "", m->top[i].image, (int)m->top[i].pid, m->top[i].percent,
			 m->top[i].ended ? " in children that ended" : "");
	}
}

static void judge_thp(const struct machine *m, struct syscheck_finding *f)
{
	if (!m->thp_ok)
		say(f, SYSCHECK_UNKNOWN, "no transparent_hugepage setting in sys");
	else if (!strcmp(m->thp, "always"))
		say(f, SYSCHECK_ADVICE,
		    "transparent huge pages \"always\": khugepaged and "
		    "compaction run behind the benchmark and page faults vary");
	else
		say(f, SYSCHECK_OK, "transparent huge pages \"%s\"", m->thp);
}

static void judge_swap(const struct machine *m, struct syscheck_finding *f)
{
	uint64_t used = m->swap_total - m->swap_free, mib = 1024 * 1024;

	if (!m->swap_ok)
		say(f, SYSCHECK_UNKNOWN, "SwapTotal and SwapFree cannot be read from \"meminfo\"");
	else if (used)
		say(f, SYSCHECK_DISTURBS,
		    "%llu MiB of swap in use: the benchmark's pages may be "
		    "swapped out",
		    (unsigned long long)((used + mib - 1) / mib));
	else if (m->swap_total)
		say(f, SYSCHECK_ADVICE,
		    "swap is on (%llu MiB, none in use): under memory pressure "
		    "the benchmark's pages may be swapped out",
		    (unsigned long long)(m->swap_total / mib));
	else
		say(f, SYSCHECK_OK, "no swap");
}

static void judge_aslr(const struct machine *m, struct syscheck_finding *f)
{
	if (m->aslr < 0)
		say(f, SYSCHECK_UNKNOWN, "randomize_va_space cannot be read");
	else if (m->aslr == 2)
		say(f, SYSCHECK_OK,
		    "full address-space randomization: interleaved repetitions "
		    "average over memory layouts");
	else
		say(f, SYSCHECK_ADVICE,
		    "randomize_va_space is %d: %s, so a lucky or unlucky layout "
		    "biases every repetition alike",
		    m->aslr,
		    m->aslr ? "the heap is not randomized"
			    : "every repetition gets the same layout");
}

/* NVML: present on NVIDIA machines only; without it neither GPU check
 * applies (a machine without the library has nothing to tune there). */
static void read_gpu(struct machine *m)
{
	if (!m->gpu_read)
		m->gpu_rc = gpu_probe(&m->gpu, &m->gpu_err);
	m->gpu_read = true;
}

static bool gpu_applies(const struct machine *m)
{
	if (m->gpu_rc < 0)	/* a library that fails says so; no library is no GPU */
		return strcmp(m->gpu_err.msg, "no " GPU_LIBRARY) != 0;
	return m->gpu.nr_devices > 0;
}

/* NVML is there but cannot be read: both checks say why. */
static bool gpu_unknown(const struct machine *m, struct syscheck_finding *f)
{
	if (m->gpu_rc == 0)
		return false;
	say(f, SYSCHECK_UNKNOWN, "NVML cannot be read: %s", m->gpu_err.msg);
	return true;
}

static void judge_persistence(const struct machine *m, struct syscheck_finding *f)
{
	size_t off = 0, unknown = 0;

	if (gpu_unknown(m, f))
		return;
	for (size_t i = 0; i < m->gpu.nr_devices; i++) {
		const struct gpu_probe_device *d = &m->gpu.devices[i];

		if (d->state.persistence_mode < 0)
			unknown++;
		else if (!d->state.persistence_mode)
			off++;
	}
	if (off)
		say(f, SYSCHECK_ADVICE,
		    "persistence mode is off on %zu of %zu device(s): the driver may tear the "
		    "device down between runs, so a run can pay its initialization",
		    off, m->gpu.nr_devices);
	else if (unknown)
		say(f, SYSCHECK_UNKNOWN, "persistence mode cannot be read on %zu of %zu device(s)",
		    unknown, m->gpu.nr_devices);
	else
		say(f, SYSCHECK_OK, "persistence mode is on (%zu device(s))", m->gpu.nr_devices);
}

/* Clock-event reasons that slow a device now disturb; application clocks
 * left at the default let the clocks float with boost (NVML has no reader
 * of locked clocks, so the advice stands unless the reasons show none). */
static void judge_gpu_clocks(const struct machine *m, struct syscheck_finding *f)
{
	const uint64_t idle = gpu_reason_bit("gpu_idle") |
			      gpu_reason_bit("applications_clocks_setting") |
			      gpu_reason_bit("display_clock_setting");

	if (gpu_unknown(m, f))
		return;
	for (size_t i = 0; i < m->gpu.nr_devices; i++) {
		const struct gpu_probe_device *d = &m->gpu.devices[i];
		const struct gpu_state *st = &d->state;
		char why[128];

		if (st->event_reasons > 0 && ((uint64_t)st->event_reasons & ~idle)) {
			gpu_reasons_text(st->event_reasons, why, sizeof(why));
			say(f, SYSCHECK_DISTURBS, "device %zu (%s) is slowed now: %s", i, d->name,
			    why);
			snprintf(f->fix, sizeof(f->fix),
				 "nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE shows what holds "
				 "it; wait until it reads none before benchmarking");
			return;
		}
	}
	for (size_t i = 0; i < m->gpu.nr_devices; i++) {
		const struct gpu_state *st = &m->gpu.devices[i].state;

		if (st->event_reasons < 0) {
			say(f, SYSCHECK_UNKNOWN,
			    "device %zu: the clock-event reasons cannot be read", i);
			return;
		}
		if (st->applications_sm_clock_mhz < 0 || st->max_sm_clock_mhz < 0) {
			say(f, SYSCHECK_UNKNOWN,
			    "device %zu: the application clocks cannot be read", i);
			return;
		}
		if (st->applications_sm_clock_mhz == st->default_applications_sm_clock_mhz) {
			say(f, SYSCHECK_ADVICE,
			    "device %zu (%s): SM clock at the default application clock %lld MHz "
			    "(maximum %lld): boost moves it with temperature and power",
			    i, m->gpu.devices[i].name, (long long)st->applications_sm_clock_mhz,
			    (long long)st->max_sm_clock_mhz);
			return;
		}
	}
	say(f, SYSCHECK_OK, "application clocks set and no clock-event reason now (%zu device(s))",
	    m->gpu.nr_devices);
}

/* ---- the table ------------------------------------------------------------ */

struct check {
	const char *name;
	void (*read)(struct machine *m);
	/* NULL: always; otherwise the check is left out where it does not apply */
	bool (*applies)(const struct machine *m);
	void (*judge)(const struct machine *m, struct syscheck_finding *f);
	const char *fix; /* what fixes a disturbs/advice finding */
};

static const struct check checks[] = {
	{ "cpu.governor", read_governors, NULL, judge_governor,
	  "sudo cpupower frequency-set --governor performance" },
	{ "cpu.boost", read_boost, NULL, judge_boost,
	  "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost" },
	{ "cpu.smt", read_smt, NULL, judge_smt,
	  "echo off | sudo tee /sys/devices/system/cpu/smt/control" },
	{ "cpu.isolation", read_isolation, NULL, judge_isolation,
	  "boot with isolcpus=LIST nohz_full=LIST rcu_nocbs=LIST and run the benchmark on LIST" },
	{ "host.load", read_load, NULL, judge_load,
	  "wait for the load to settle, or use --wait-quiet DUR on the benchmark" },
	{ "host.pressure", read_pressure, NULL, judge_pressure,
	  "find what competes with `top` and stop it, or use --wait-quiet DUR on the benchmark" },
	{ "host.busy", read_sample, NULL, judge_busy,
	  "stop what runs (see host.consumers), or use --wait-quiet DUR on the benchmark" },
	{ "host.consumers", read_sample, NULL, judge_consumers,
	  "stop or pause them (kill -STOP PID, kill -CONT PID after), or benchmark elsewhere" },
	{ "memory.thp", read_thp, NULL, judge_thp,
	  "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled" },
	{ "memory.swap", read_swap, NULL, judge_swap, "sudo swapoff -a" },
	{ "kernel.aslr", read_aslr, NULL, judge_aslr,
	  "echo 2 | sudo tee /proc/sys/kernel/randomize_va_space" },
	/* NVIDIA devices, through NVML (sampler/gpu.h), where it is present */
	{ "gpu.persistence", read_gpu, gpu_applies, judge_persistence, "sudo nvidia-smi -pm 1" },
	{ "gpu.clocks", read_gpu, gpu_applies, judge_gpu_clocks,
	  "sudo nvidia-smi -ac MEMORY_MHZ,SM_MHZ (application clocks, what this check reads; "
	  "--lock-gpu-clocks also pins them, but NVML cannot read that back)" },
};

_Static_assert(sizeof(checks) / sizeof(checks[0]) <= SYSCHECK_MAX, "too many checks");

void syscheck_defaults(struct syscheck_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->proc_root = "/proc";
	o->sys_root = "/sys";
	o->sample_ns = 1000000000;
	o->self_pid = getpid();
	o->max_busy_percent = 20;
	o->max_psi_percent = 5;
	o->max_load_per_cpu = 0.25;
	o->min_consumer_percent = 5;
}

const char *sys_root_default(void)
{
	const char *root = getenv("FAK_SYS_ROOT");

	return root && *root ? root : "/sys";
}

int syscheck_run(const struct syscheck_opts *o, struct syscheck_result *r, struct err *e)
{
	struct machine *m = xcalloc(1, sizeof(*m));
	struct pp_cpu probe;

	memset(r, 0, sizeof(*r));
	m->o = o;
	m->clk_tck = sysconf(_SC_CLK_TCK);
	if (m->clk_tck <= 0)
		m->clk_tck = 100;
	if (read_stat(m, &probe) < 0) {
		free(m);
		return err_set(e, "cannot read '%s/stat': not a proc file system", o->proc_root);
	}
	read_online(m);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const struct check *c = &checks[i];
		struct syscheck_finding *f;

		c->read(m);
		if (c->applies && !c->applies(m))
			continue;
		f = &r->f[r->nr++];
		f->name = c->name;
		c->judge(m, f);
		if ((f->status == SYSCHECK_DISTURBS || f->status == SYSCHECK_ADVICE) && !f->fix[0])
			snprintf(f->fix, sizeof(f->fix), "%s", c->fix);
		r->counts[f->status]++;
	}
	free(m);
	return 0;
}
