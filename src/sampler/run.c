#include "sampler/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/dates.h"
#include "base/xalloc.h"
#include "sampler/census.h"
#include "sampler/cgroup.h"
#include "sampler/child.h"
#include "sampler/fold.h"
#include "sampler/gpu.h"
#include "sampler/proc_read.h"

/* The driver's thread (run_opts.driver). */
struct driver {
	const struct run_opts *o;
	pthread_t th;
	bool started;
	pid_t pid;
	volatile int gone, done;
};

struct runner {
	const struct run_opts *o;
	struct driver drv;
	int64_t stop_at;		/* when the stop's SIGTERM went; 0: not yet */
	bool stop_killed;
	struct census *c;
	struct cadence cad;
	struct platform_signals sig;
	struct child ch;
	bool child_running, sigchld, timed_out;
	int interrupted, interrupts;
	int64_t next_interval;
	struct gpu *gpu;		/* NULL: no NVML, nothing to read */
	struct gpu_section *gsec;
	struct artifact_watch {
		int fd;			/* platform_open_watch, -1: none */
		bool opened;		/* it reported an open since the last census */
		int64_t looks;		/* censuses that looked */
		int64_t seen_at;	/* the look that saw it (1-based), 0: none */
		int64_t ns;		/* the looks' wall time */
		pid_t pid;
		const char *how;
		bool unobservable;
		char why[ATTESTATION_TEXT_MAX];
	} art;
};

/* The sampler's own CPU: the process's, or with a driver on another
 * thread, this thread's where the OS tells it (Linux). */
static int64_t self_cpu_ns(const struct run_opts *o)
{
	struct rusage ru;
	int who = RUSAGE_SELF;

#ifdef RUSAGE_THREAD
	if (o->driver)
		who = RUSAGE_THREAD;
#else
	(void)o;
#endif
	if (getrusage(who, &ru) < 0)
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static void handle_signals(struct runner *rn)
{
	struct platform_signal si[16];
	size_t n;

	while ((n = platform_signals_take(&rn->sig, si, 16)) > 0) {
		for (size_t i = 0; i < n; i++) {
			int sig = si[i].signo;

			if (sig == SIGCHLD) {
				rn->sigchld = true;
				continue;
			}
			if (!rn->interrupted)
				rn->interrupted = sig;
			rn->drv.gone = 1;
			rn->interrupts++;
			if (!rn->child_running)
				continue;
			/* A terminal's ^C already reached the command (same process
			 * group); forward only what was sent to fak alone. A second
			 * interrupt is not negotiable. */
			if (rn->interrupts > 1)
				kill(rn->ch.pid, SIGKILL);
			else if (!si[i].sent_by_kernel)
				kill(rn->ch.pid, sig);
		}
	}
}

/* Sleeps until deadline (CLOCK_MONOTONIC), a signal, or an open of the
 * watched artifact. */
static void wait_until(struct runner *rn, int64_t deadline)
{
	int64_t left = deadline - platform_mono_ns();
	bool opened;

	if (left < 0)
		left = 0;
	/* the watch stays open until the run ends: closing an inotify
	 * descriptor waits for the kernel (10 ms here), which no census
	 * should pay */
	if (platform_signals_wait_fd(&rn->sig, rn->art.seen_at ? -1 : rn->art.fd, &opened, left))
		handle_signals(rn);
	if (opened && platform_open_watch_take(rn->art.fd))
		rn->art.opened = true;
}

static bool is_sut(void *ctx, int pid)
{
	return census_is_sut(ctx, pid);
}

/* One look per census of the tree (and a census at every open of the
 * file: command_loop), until the artifact is seen: its time counts in the
 * census's wall time, so the duty budget covers it. */
static void look_artifact(struct runner *rn, struct sample *s)
{
	struct artifact_watch *a = &rn->art;
	int64_t t0 = platform_mono_ns(), dt;
	int rc;

	if (!rn->o->watch_artifact || a->seen_at || a->unobservable)
		return;
	rc = census_file_look(rn->c, rn->o->artifact_dev, rn->o->artifact_ino, &a->pid, &a->how,
			      a->why);
	a->looks++;
	if (rc > 0)
		a->seen_at = a->looks;	/* nothing left to wait for */
	a->unobservable = rc < 0;
	dt = platform_mono_ns() - t0;
	a->ns += dt;
	s->wall_ns += dt;
	s->stage_tree_ns += dt;
}

static void artifact_use(const struct runner *rn, struct wl_artifact_use *u)
{
	const struct artifact_watch *a = &rn->art;

	memset(u, 0, sizeof(*u));
	if (!rn->o->watch_artifact)
		return;
	u->looked = true;
	u->observable = !a->unobservable;
	u->observed = a->seen_at > 0;
	if (a->unobservable)
		snprintf(u->observation, sizeof(u->observation), "not observable: %s", a->why);
	else if (a->seen_at)
		snprintf(u->observation, sizeof(u->observation),
			 "%s by a process of the command's tree at look %lld (a look at every "
			 "census, and at every open of the file, until seen)", a->how,
			 (long long)a->seen_at);
	else
		snprintf(u->observation, sizeof(u->observation),
			 "no process of the command's tree had the pinned artifact open or mapped "
			 "at any census while it ran; the command must read the model "
			 "\"$FAK_ARTIFACT\" names (or the same file), and keep it open or "
			 "mapped for more than a millisecond");
}

static void take(struct runner *rn, struct fold *f, unsigned flags)
{
	struct sample s;
	bool over;

	census_take(rn->c, flags, &s);
	if ((flags & CENSUS_TREE) && rn->child_running)
		look_artifact(rn, &s);
	/* NVML is read outside the census wall time, which stays comparable
	 * with runs on machines without a GPU; its own cost is sealed apart */
	if (rn->gpu && (flags & CENSUS_TREE))
		gpu_sample(rn->gpu, rn->gsec, s.mono_ns, is_sut, rn->c);
	rn->next_interval = cadence_next(&rn->cad, s.wall_ns, &over);
	fold_add(f, &s, rn->next_interval, over, flags & CENSUS_TREE);
}

static int64_t advance(int64_t next, int64_t interval, int64_t now)
{
	next += interval;
	return next <= now ? now + interval : next;
}

static void baseline_window(struct runner *rn, struct fold *f)
{
	const struct run_opts *o = rn->o;
	int64_t cpu0 = self_cpu_ns(rn->o), start, end, next;

	take(rn, f, CENSUS_ENDPOINT);
	start = f->first.mono_ns;
	end = start + o->baseline_ns;
	next = start + rn->next_interval;
	while (!rn->interrupted) {
		int64_t now;

		wait_until(rn, next < end ? next : end);
		if (rn->interrupted)
			break;
		now = platform_mono_ns();
		if (now >= end) {
			take(rn, f, CENSUS_ENDPOINT);
			break;
		}
		if (now >= next) {
			take(rn, f, 0);
			next = advance(next, rn->next_interval, now);
		}
		if (o->progress)
			o->progress(o->progress_ctx, now - start, o->baseline_ns);
	}
	if (o->progress && !rn->interrupted)
		o->progress(o->progress_ctx, o->baseline_ns, o->baseline_ns);
	f->process_cpu_ns = self_cpu_ns(rn->o) - cpu0;
}

/* --wait-quiet: while the quiet window just taken is busy (host CPU above
 * the non-SUT ceiling, or the host's PSI stall above the PSI ceiling) and
 * the wait has time left, record it as rejected and take another. A window
 * whose host CPU is unknown is not rejected; an unknown PSI stall does not
 * reject one. */
static void wait_quiet(struct runner *rn, struct fold *f, const struct fold_input *in,
		       struct quiet_wait *q)
{
	const struct run_opts *o = rn->o;
	int64_t first = f->first.mono_ns, limit = first + o->wait_quiet_ns;

	memset(q, 0, sizeof(*q));
	q->limit_ns = o->wait_quiet_ns;
	q->psi_stall_judged = true;
	for (;;) {
		struct rejected_window *w;
		struct psi psi;
		double cpu = -1, stall;
		bool cpu_known = fold_host_cpu_percent(f, &cpu);
		const char *axis;

		fold_host_psi(f, &psi);
		axis = attestation_psi_worst(&psi, f->last.mono_ns - f->first.mono_ns, &stall);
		if (attestation_window_quiet(&o->policy, cpu_known, cpu, stall)) {
			q->quiet_found = true;
			break;
		}
		if (platform_mono_ns() >= limit || q->nr_rejected == ATTESTATION_MAX_REJECTED)
			break;
		w = &q->rejected[q->nr_rejected++];
		timestamp_format(in->real0_ns + (f->first.mono_ns - in->mono0_ns),
				 w->started_at_utc);
		w->duration_ns = f->last.mono_ns - f->first.mono_ns;
		w->host_cpu_percent = cpu;
		if (axis && stall > 0) {
			w->psi_stall_percent = stall;
			snprintf(w->psi_stall_axis, sizeof(w->psi_stall_axis), "%s", axis);
		}
		if (o->waiting) {
			char why[160];

			attestation_window_why(&o->policy, cpu, stall, axis, why, sizeof(why));
			o->waiting(o->progress_ctx, why);
		}
		fold_init(f);
		baseline_window(rn, f);
		if (rn->interrupted)
			return;
	}
	q->waited_ns = f->first.mono_ns - first;
}

/* ---- the driver ---------------------------------------------------- */

static void *driver_main(void *arg)
{
	struct driver *d = arg;

	d->o->driver(d->o->driver_ctx, d->pid, &d->gone);
	d->done = 1;
	/* wakes the census loop (SIGCHLD is blocked in every thread of fak and
	 * read from the signal queue; a spurious one only reaps nothing) */
	kill(getpid(), SIGCHLD);
	return NULL;
}

/* sig to root and every descendant of it, deepest first. */
#define STOP_MAX 1024
static void stop_tree(pid_t root, int sig)
{
	static pid_t v[STOP_MAX];
	size_t n = 1;

	v[0] = root;
	for (size_t i = 0; i < n && n < STOP_MAX; i++)
		n += platform_children(v[i], v + n, STOP_MAX - n);
	while (n--)
		kill(v[n], sig);
}

/* With a driver that returned: SIGTERM to the tree, SIGKILL after the
 * grace period. Returns the next time to look (0: none). */
static int64_t driver_stop(struct runner *rn, int64_t now)
{
	int64_t grace = rn->o->stop_grace_ns;

	if (!rn->drv.started || !rn->drv.done || rn->ch.exited)
		return 0;
	if (!rn->stop_at) {
		stop_tree(rn->ch.pid, SIGTERM);
		rn->stop_at = now ? now : 1;
	}
	if (!rn->stop_killed && now - rn->stop_at >= grace) {
		stop_tree(rn->ch.pid, SIGKILL);
		rn->stop_killed = true;
	}
	return rn->stop_killed ? 0 : rn->stop_at + grace;
}

/* Censuses an open of the artifact may add: at most one a millisecond. */
#define ARTIFACT_WAKE_NS ((int64_t)1000000)

static void command_loop(struct runner *rn, struct fold *f)
{
	int64_t deadline = platform_mono_ns() + rn->o->timeout_ns, next;

	take(rn, f, CENSUS_TREE);
	next = f->last.mono_ns + rn->next_interval;
	for (;;) {
		int64_t now, wake, stop;

		if (rn->sigchld) {
			rn->sigchld = false;
			child_reap(&rn->ch);
		}
		if (rn->ch.exited)
			break;
		now = platform_mono_ns();
		stop = driver_stop(rn, now);
		if (rn->o->timeout_ns && now >= deadline && !rn->timed_out) {
			kill(rn->ch.pid, SIGKILL);
			rn->timed_out = true;
		}
		if (now >= next) {
			take(rn, f, CENSUS_TREE);
			next = advance(next, rn->next_interval, platform_mono_ns());
			rn->art.opened = false;
		} else if (rn->art.opened && now - f->last.mono_ns >= ARTIFACT_WAKE_NS) {
			/* a process opened the artifact: find it before it closes */
			take(rn, f, CENSUS_TREE);
			rn->art.opened = false;
		}
		wake = next;
		/* an open within a millisecond of the last census (which may have
		 * looked just before it) keeps its census, a millisecond after */
		if (rn->art.opened && f->last.mono_ns + ARTIFACT_WAKE_NS < wake)
			wake = f->last.mono_ns + ARTIFACT_WAKE_NS;
		if (rn->o->timeout_ns && !rn->timed_out && deadline < wake)
			wake = deadline;
		if (stop && stop < wake)
			wake = stop;
		wait_until(rn, wake);
	}
	rn->drv.gone = 1;
	rn->child_running = false;
}

/* A command the driver's stop ended as asked: by the SIGTERM (or the
 * SIGKILL after the grace period), or exiting 0 or 128 + SIGTERM. */
static bool stopped_as_asked(const struct runner *rn, struct run_result *res)
{
	int st = rn->ch.status;

	if (!rn->stop_at)
		return false;
	res->stopped = true;
	res->killed = rn->stop_killed;
	if (rn->stop_killed)
		snprintf(res->stop_status, sizeof(res->stop_status),
			 "killed after the grace period");
	else if (WIFSIGNALED(st))
		snprintf(res->stop_status, sizeof(res->stop_status), "signal %d", WTERMSIG(st));
	else
		snprintf(res->stop_status, sizeof(res->stop_status), "exit %d", WEXITSTATUS(st));
	if (rn->stop_killed || rn->timed_out)
		return !rn->timed_out;
	return WIFSIGNALED(st) ? WTERMSIG(st) == SIGTERM
			       : WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 128 + SIGTERM;
}

static void exit_status(const struct runner *rn, struct fold_input *in, struct run_result *res)
{
	int st = rn->ch.status;

	if (stopped_as_asked(rn, res)) {
		in->signal = 0;
		in->exit_code = 0;
		in->timed_out = false;
		res->exit_code = 0;
		return;
	}
	in->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	if (rn->timed_out)
		in->exit_code = 124;
	else if (WIFEXITED(st))
		in->exit_code = WEXITSTATUS(st);
	else
		in->exit_code = 128 + in->signal;
	in->timed_out = rn->timed_out;
	res->exit_code = (int)in->exit_code;
}

static void sut_cpu(struct runner *rn, struct fold_input *in, bool sampled, char *reason)
{
	uint64_t ns = 0;

	in->sut_cpu_ok = false;
	in->sut_cpu_reason = reason;
	if (rn->ch.unreaped > 0) {
		snprintf(reason, ATTESTATION_TEXT_MAX,
			 "%lld descendant process(es) were still running after cleanup; "
			 "their CPU is not final",
			 (long long)rn->ch.unreaped);
		return;
	}
	if (!strcmp(in->coverage, COVERAGE_CGROUP)) {
		ns = (uint64_t)in->cgroup.cpu_usage_us.value * 1000;
		in->sut_cpu_source = "cgroup v2 cpu.stat usage_usec";
	} else if (sampled) {
		if (!census_sampled_sut_cpu(rn->c, &ns, reason))
			return;
		in->sut_cpu_source = "sampled root + descendant CPU deltas";
	} else {
		ns = rn->ch.reaped_cpu_us * 1000;
		in->sut_cpu_source = "wait4 rusage of every reaped SUT process";
	}
	in->sut_cpu_ok = true;
	in->sut_cpu_ns = ns;
}

/* fak's resident memory now, from /proc/self/statm; 0 when unknown. */
static uint64_t own_rss(const char *proc_root, long page_size)
{
	char path[PATH_MAX], buf[256];
	unsigned long long size, resident;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/self/statm", proc_root);
	n = proc_read_at(AT_FDCWD, path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * (uint64_t)page_size;
}

static void workload_rss(struct workload *w, const struct child *ch, uint64_t fork_rss)
{
	if (fork_rss)
		metric_set(&w->fak_rss_at_fork_bytes, (double)fork_rss,
			   "/proc/self/statm resident before the fork");
	else
		metric_unavailable(&w->fak_rss_at_fork_bytes, "/proc/self/statm could not be read");
	if (ch->unreaped > 0)
		metric_unavailable(&w->peak_rss_bytes,
				   "%lld descendant process(es) were never reaped",
				   (long long)ch->unreaped);
	else if (ch->max_rss_kib == 0)
		metric_unavailable(&w->peak_rss_bytes, "wait4 reported no resident set size");
	else
		metric_set(&w->peak_rss_bytes, (double)ch->max_rss_kib * 1024,
			   "largest wait4 ru_maxrss of a reaped SUT process "
			   "(with fak's memory at fork)");
}

static int setup_signals(struct runner *rn, struct err *e)
{
	static const int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };

	return platform_signals_open(&rn->sig, sigs, sizeof(sigs) / sizeof(sigs[0]), e);
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct run_state {
	struct fold baseline, command;
	struct fold_input in;
	struct cgroup cg;
	struct workload workload;
	struct quiet_wait wait;
	unsigned char cpu_set[PP_MAX_CPUS / 8];
	size_t cpu_count;
	struct gpu_section gpu;
	uint64_t fork_rss;
	char note[ATTESTATION_TEXT_MAX], reason[ATTESTATION_TEXT_MAX];
	char placement[ATTESTATION_TEXT_MAX];
	char exe[PATH_MAX];
};

/* --cpus: the command's cgroup on those CPUs, or a refusal before the
 * quiet window. */
static int confine(const struct run_opts *o, struct run_state *st, struct err *e)
{
	char why[512];

	if (pp_cpulist(o->cpus, strlen(o->cpus), st->cpu_set, PP_MAX_CPUS, &st->cpu_count) < 0 ||
	    !st->cpu_count)
		return err_set(e, "--cpus: \"%s\" is not a CPU list", o->cpus);
	if (!st->cg.active)
		return err_set(e, "--cpus needs a cgroup v2 of its own for the command, and "
				  "there is none: %s", st->in.cgroup.reason);
	if (cgroup_set_cpus(&st->cg, o->cpus, st->cpu_set, st->cpu_count, why, sizeof(why)) < 0)
		return err_set(e, "--cpus: %s", why);
	return 0;
}

void run_leftovers_text(const struct run_leftovers *l, struct strbuf *out)
{
	for (size_t i = 0; i < l->nr; i++) {
		sb_addf(out, "%s%s", i ? ", " : "", l->names[i].name);
		if (l->names[i].count > 1)
			sb_addf(out, " (%zu)", l->names[i].count);
	}
	if (l->unnamed)
		sb_addf(out, "%s%zu more", l->nr ? ", " : "", l->unnamed);
}

static void leftover_add(struct run_leftovers *l, const char *name)
{
	size_t i;

	l->seen++;
	for (i = 0; i < l->nr && strcmp(l->names[i].name, name); i++)
		;
	if (i < l->nr) {
		l->names[i].count++;
	} else if (l->nr < RUN_LEFTOVER_NAMES) {
		attestation_copy(l->names[l->nr].name, ATTESTATION_IMAGE_MAX, name);
		l->names[l->nr++].count = 1;
	} else {
		l->unnamed++;
	}
}

/* Who is still running now the command's root exited, by name, before the
 * cleanup kills them: the cgroup's members, else fak's children (the
 * subreaper's orphans) but the root. */
static void note_leftovers(const struct run_opts *o, const struct runner *rn,
			   const struct run_state *st, struct run_leftovers *l)
{
	pid_t pids[RUN_LEFTOVER_SCAN];
	size_t n = st->cg.active ? cgroup_members(&st->cg, pids, RUN_LEFTOVER_SCAN)
				 : platform_children(getpid(), pids, RUN_LEFTOVER_SCAN);

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX], comm[64] = "", name[ATTESTATION_IMAGE_MAX];
		FILE *f;

		if (pids[i] == rn->ch.pid)
			continue;
		snprintf(path, sizeof(path), "%s/%d/comm", o->proc_root, (int)pids[i]);
		if ((f = fopen(path, "re"))) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		comm[strcspn(comm, "\n")] = '\0';
		attestation_scrub_image(comm, name);
		leftover_add(l, name);
	}
}

/* The command's cgroup as --attribution and --cpus ask, or a refusal; a
 * cgroup made is the caller's to finish, whatever the outcome. */
static int place(const struct run_opts *o, struct run_state *st, struct err *e)
{
	bool want_cgroup = !strcmp(o->attribution, ATTRIBUTION_AUTO) ||
			   !strcmp(o->attribution, ATTRIBUTION_CGROUP);

	if (want_cgroup && cgroup_create(&st->cg, o->proc_root, &st->in.cgroup) < 0 &&
	    !strcmp(o->attribution, ATTRIBUTION_CGROUP))
		return err_set(e, "cgroup attribution was requested but is unavailable: %s",
			       st->in.cgroup.reason);
	if (!want_cgroup)
		cgroup_not_requested(&st->in.cgroup, "cgroup v2 not used: attribution by the "
						     "subreaper or the sampled tree was requested");
	return o->cpus ? confine(o, st, e) : 0;
}

int sampler_placement_check(const struct run_opts *o, struct err *e)
{
	struct run_state *st;
	int rc;

	/* auto falls back to the subreaper: nothing to refuse */
	if (!o->cpus && strcmp(o->attribution, ATTRIBUTION_CGROUP))
		return 0;
	st = xcalloc(1, sizeof(*st));
	rc = place(o, st, e);

	if (st->cg.active)
		cgroup_finish(&st->cg, &st->in.cgroup);
	free(st);
	return rc;
}

/* The census's settings for this run: the placement's enumeration, the
 * limits and what the policy asks the census to record; a refusal where
 * sysconf does not tell the clock tick or the page size. */
static int census_settings(const struct run_opts *o, struct run_state *st, bool sampled,
			   struct census_cfg *cfg, struct err *e)
{
	struct fold_input *in = &st->in;

	cfg->proc_root = o->proc_root;
	cfg->self_pid = getpid();
	cfg->clk_tck = sysconf(_SC_CLK_TCK);
	cfg->page_size = sysconf(_SC_PAGESIZE);
	cfg->process_limit = o->process_limit ? o->process_limit : RUN_PROCESS_LIMIT;
	cfg->table_cap = o->table_cap ? o->table_cap : RUN_TABLE_CAP;
	cfg->enumeration = st->cg.active ? ENUM_CGROUP : ENUM_CHILDREN;
	cfg->cgroup_procs_fd = st->cg.active ? st->cg.procs_rfd : -1;
	cfg->track_cpu = sampled;
	cfg->non_sut_rss = o->policy.require_process_memory;
	cfg->top_consumers = o->policy.include_top_consumers;
	if (o->cpus) {
		cfg->cpu_set = st->cpu_set;
		cfg->cpu_count = st->cpu_count;
		in->cpus_list = o->cpus;
		in->cpus_count = st->cpu_count;
	}
	if (cfg->clk_tck <= 0 || cfg->page_size <= 0)
		return err_set(e, "sysconf does not report the clock tick or the page size");
	return 0;
}

/* A signal stopped the run: the result says which, and nothing is folded. */
static bool stopped_by_signal(const struct runner *rn, struct run_result *res)
{
	if (!rn->interrupted)
		return false;
	res->interrupted = rn->interrupted;
	res->exit_code = 128 + rn->interrupted;
	return true;
}

/* The command's window: spawned into its placement (and the driver's
 * thread started), censused until its root exits, its leftovers noted and
 * cleaned up, and the closing census taken; -1 where the spawn or the
 * driver's thread fails (the caller's cleanup kills what runs). */
static int command_window(struct runner *rn, struct run_state *st, const struct census_cfg *cfg,
			  struct run_result *res, struct err *e)
{
	const struct run_opts *o = rn->o;
	struct fold_input *in = &st->in;
	int64_t cpu0 = self_cpu_ns(o);

	take(rn, &st->command,
	     CENSUS_ENDPOINT | (cfg->top_consumers ? CENSUS_CONSUMERS_FIRST : 0));
	if (o->workload)
		st->fork_rss = own_rss(o->proc_root, cfg->page_size);
	if (o->watch_artifact && o->artifact_path)
		rn->art.fd = platform_open_watch(o->artifact_path);
	if (child_spawn(&rn->ch, st->exe, o->argv,
			o->child_mask ? o->child_mask : &rn->sig.old_mask,
			o->stdio ? o->stdio : &CHILD_STDIO_DEFAULT,
			st->cg.active ? st->cg.dir_fd : -1,
			st->cg.active ? st->cg.procs_wfd : -1, st->placement,
			sizeof(st->placement), e) < 0)
		return -1;
	rn->child_running = true;
	if (st->placement[0]) {
		cgroup_placement_failed(&st->cg, &in->cgroup, st->placement);
		census_use_enumeration(rn->c, ENUM_CHILDREN, -1);
	}
	census_set_root(rn->c, rn->ch.pid);
	if (o->driver) {
		rn->drv.o = o;
		rn->drv.pid = rn->ch.pid;
		if (pthread_create(&rn->drv.th, NULL, driver_main, &rn->drv))
			return err_set(e, "cannot start the driver's thread");
		rn->drv.started = true;
	}
	command_loop(rn, &st->command);
	if (rn->drv.started) {
		pthread_join(rn->drv.th, NULL);
		rn->drv.started = false;
	}
	note_leftovers(o, rn, st, &res->leftovers);
	if (st->cg.active)
		cgroup_root_exited(&st->cg, &in->cgroup);
	child_cleanup(&rn->ch, &rn->sig, platform_mono_ns() + RUN_CLEANUP_NS);
	take(rn, &st->command, CENSUS_ENDPOINT | CENSUS_TREE |
			       (cfg->top_consumers ? CENSUS_CONSUMERS_LAST : 0));
	st->command.process_cpu_ns = self_cpu_ns(o) - cpu0;
	gpu_close(rn->gpu, &st->gpu);
	rn->gpu = NULL;
	if (st->cg.active)
		cgroup_finish(&st->cg, &in->cgroup);
	return 0;
}

/* What the fold reads of the run: the windows, the census's settings and
 * notes, the root's reaping and the GPU section. */
static void fold_inputs(const struct runner *rn, struct run_state *st,
			const struct census_cfg *cfg)
{
	const struct run_opts *o = rn->o;
	struct fold_input *in = &st->in;

	in->baseline = &st->baseline;
	in->command = &st->command;
	in->interval_ns = o->interval_ns;
	in->enumeration = census_enumeration(rn->c);
	if (!st->note[0])
		attestation_copy(st->note, sizeof(st->note), census_note(rn->c));
	in->note = st->note;
	in->census_limit = (int64_t)cfg->process_limit;
	in->clk_tck = cfg->clk_tck;
	in->page_size = cfg->page_size;
	in->non_sut_rss_censused = cfg->non_sut_rss;
	in->root_pid = rn->ch.pid;
	in->reaped = rn->ch.reaped;
	/* cgroup.kill got them all at once; the reaping loop then only finishes the job */
	in->killed = in->cgroup.members_at_root_exit.available
			     ? (int64_t)in->cgroup.members_at_root_exit.value
			     : rn->ch.killed;
	in->unreaped = rn->ch.unreaped;
	in->gpu = &st->gpu;
	in->simulated = &o->simulated;
	if (cfg->top_consumers)
		in->nr_consumers = census_consumers(rn->c, in->consumers,
						    ATTESTATION_MAX_CONSUMERS);
}

int sampler_run(const struct run_opts *o, struct attestation *r, struct run_result *res,
		struct err *e)
{
	struct runner rn = { .o = o, .sig = { .fd = -1 }, .art = { .fd = -1 } };
	struct run_state *st = xcalloc(1, sizeof(*st));
	struct fold_input *in = &st->in;
	struct census_cfg cfg = { 0 };
	bool sampled = !strcmp(o->attribution, ATTRIBUTION_SAMPLED);
	struct timespec rt, mt;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (child_resolve(o->argv[0], st->exe, sizeof(st->exe), e) < 0)
		goto out;
	in->policy = o->policy;
	in->policy.minimum_census_interval_ns = o->interval_ns;
	in->policy.maximum_census_interval_ns = o->interval_ns * 10;
	rn.cad.min_ns = o->interval_ns;
	rn.cad.max_ns = o->interval_ns * 10;
	rn.cad.max_duty_percent = o->policy.maximum_sampler_duty_percent;
	in->coverage = sampled ? COVERAGE_SAMPLED : COVERAGE_SUBREAPER;
	if (child_become_subreaper(e) < 0) {
		attestation_copy(st->note, sizeof(st->note),
			    "cannot become a child subreaper; attribution uses the sampled tree");
		in->coverage = COVERAGE_SAMPLED;
		sampled = true;
	}
	raise_nofile();
	if (place(o, st, e) < 0)
		goto out_cgroup;
	if (setup_signals(&rn, e) < 0)
		goto out_cgroup;
	if (census_settings(o, st, sampled, &cfg, e) < 0)
		goto out_signals;
	rn.c = census_new(&cfg, e);
	if (!rn.c)
		goto out_signals;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	in->real0_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	in->mono0_ns = (int64_t)mt.tv_sec * 1000000000 + mt.tv_nsec;
	fold_init(&st->baseline);
	fold_init(&st->command);
	baseline_window(&rn, &st->baseline);
	if (o->wait_quiet_ns > 0 && !rn.interrupted) {
		wait_quiet(&rn, &st->baseline, in, &st->wait);
		in->quiet_wait = &st->wait;
	}
	if (stopped_by_signal(&rn, res)) {
		rc = 0;
		goto out_census;
	}

	rn.gsec = &st->gpu;
	rn.gpu = gpu_open(&st->gpu);
	if (command_window(&rn, st, &cfg, res, e) < 0)
		goto out_census;
	if (stopped_by_signal(&rn, res)) {
		rc = 0;
		goto out_census;
	}

	if (!strcmp(in->cgroup.state, CGROUP_MEASURED))
		in->coverage = COVERAGE_CGROUP;
	exit_status(&rn, in, res);
	sut_cpu(&rn, in, sampled, st->reason);
	fold_inputs(&rn, st, &cfg);
	if (o->workload) {
		if (o->workload(o->workload_ctx, res, &st->workload, e) < 0)
			goto out_census;
		workload_rss(&st->workload, &rn.ch, st->fork_rss);
		artifact_use(&rn, &st->workload.artifact);
		in->workload = &st->workload;
	}
	rc = fold_attestation(r, in, e);
out_census:
	if (rn.child_running) {
		/* spawn failed after fork, or an error path: leave nothing behind */
		kill(rn.ch.pid, SIGKILL);
		child_cleanup(&rn.ch, &rn.sig, platform_mono_ns() + RUN_CLEANUP_NS);
	}
	if (rn.drv.started) {
		rn.drv.gone = 1;
		pthread_join(rn.drv.th, NULL);
	}
	gpu_close(rn.gpu, &st->gpu);
	census_free(rn.c);
	if (rn.art.fd >= 0)
		close(rn.art.fd);
out_signals:
	platform_signals_close(&rn.sig);
out_cgroup:
	if (st->cg.active)
		cgroup_finish(&st->cg, &in->cgroup);
out:
	free(st);
	return rc;
}
