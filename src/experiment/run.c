/* One run of the schedule: the command under the sampler with its output
 * captured, its metrics parsed and sealed, its attestation written. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/xalloc.h"
#include "experiment/internal.h"
#include "receipt/identity.h"
#include "workload/metrics.h"
#include "attestation/attest.h"

/* a valid graph id always fits the sealed label, never cut */
_Static_assert(GRAPH_ID_MAX < WL_ID_MAX, "graph ids fit the attestation's label");

struct hook {
	struct xp *x;
	size_t k;			/* the run's position in the schedule */
	const struct receipt_step *s;
	int out_fd, err_fd;
	const char *out_path, *err_path;
	char waiting[160];		/* why --wait-quiet rejected the last window */
	bool disk_full;			/* the logs' filesystem was full after the command */
	struct xp_serving_run *serving;	/* a serving run, else NULL */
};

int xp_bound_log(int fd, int64_t bound, struct wl_stream *st, struct err *e)
{
	int64_t head = bound / 2, tail = bound - bound / 2, from = st->bytes - tail, to;
	size_t cap = (size_t)1 << 20;
	char marker[WL_LOG_MARKER_MAX], *buf;
	int n;

	if (st->bytes <= bound + WL_LOG_MARKER_MAX)
		return 0;
	n = snprintf(marker, sizeof(marker),
		     "\n[fak: %lld bytes of this stream left out here; it had %lld bytes in all, "
		     "sha256 %s]\n", (long long)(st->bytes - head - tail), (long long)st->bytes,
		     st->sha256);
	if (n < 0 || (size_t)n >= sizeof(marker))
		BUG("log marker of %d bytes", n);
	to = head + n;
	if (pwrite(fd, marker, (size_t)n, (off_t)head) != n)
		return err_errno(e, errno ? errno : EIO, "cannot shorten a log");
	/* the tail moves down (to < from): a forward copy never reads what it
	 * wrote */
	buf = xmalloc(cap);
	for (int64_t done = 0; done < tail;) {
		size_t want = (size_t)(tail - done < (int64_t)cap ? tail - done : (int64_t)cap);
		ssize_t r = pread(fd, buf, want, (off_t)(from + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || pwrite(fd, buf, (size_t)r, (off_t)(to + done)) != r) {
			free(buf);
			return err_errno(e, errno ? errno : EIO, "cannot shorten a log");
		}
		done += r;
	}
	free(buf);
	if (ftruncate(fd, (off_t)(to + tail)) < 0 || fsync(fd) < 0)
		return err_errno(e, errno, "cannot shorten a log");
	st->has_kept = true;
	st->kept.head_bytes = head;
	st->kept.tail_bytes = tail;
	return digest_fd(fd, st->kept.sha256, &st->kept.bytes, e);
}

void xp_log_bounds(const struct xp_opts *o, const char *parser, int64_t *out_bound,
		   int64_t *err_bound)
{
	const struct metrics_parser *mp = metrics_parser_find(parser);
	int64_t bound = o->max_log_bytes ? o->max_log_bytes : WL_LOG_BOUND_DEFAULT;
	int64_t whole = mp && mp->whole ? (int64_t)mp->max_bytes : 0;

	*out_bound = whole > bound ? whole : bound;
	*err_bound = bound;
}

/* Whether the filesystem of fd has no space left for an ordinary user. */
static bool disk_full(int fd)
{
	struct statvfs sv;

	return fstatvfs(fd, &sv) == 0 && sv.f_bavail == 0;
}

static int fill_workload(void *ctx, const struct run_result *res, struct workload *w, struct err *e)
{
	struct hook *h = ctx;
	const struct xp *x = h->x;
	const struct receipt_step *s = h->s;
	bool quality = !strcmp(s->kind, WL_KIND_QUALITY);
	struct strbuf sb = STRBUF_INIT;
	char why[ATTESTATION_TEXT_MAX];
	struct err pe;

	memset(w, 0, sizeof(*w));
	attestation_copy(w->label.experiment_id, sizeof(w->label.experiment_id), x->experiment_id);
	w->label.sequence = (int64_t)h->k;
	attestation_copy(w->label.machine_id, sizeof(w->label.machine_id), x->machine_id);
	attestation_copy(w->label.revision, sizeof(w->label.revision), x->o->revision[s->arm]);
	attestation_copy(w->label.envelope_state, sizeof(w->label.envelope_state), x->state_digest);
	attestation_copy(w->label.envelope_id, sizeof(w->label.envelope_id), x->env->id);
	attestation_copy(w->label.lever_id, sizeof(w->label.lever_id), x->lever->id);
	attestation_copy(w->label.arm, sizeof(w->label.arm), receipt_arm_names[s->arm]);
	attestation_copy(w->label.kind, sizeof(w->label.kind), s->kind);
	w->label.index = s->index;
	attestation_copy(w->command, sizeof(w->command),
		    quality ? x->o->quality_cmd : x->o->cmd[s->arm]);
	attestation_copy(w->parser, sizeof(w->parser), quality ? WL_PARSER_QUALITY
							: xp_arm_parser(x->o, s->arm));
	if (!quality)
		attestation_copy(w->program_sha256, sizeof(w->program_sha256),
				 x->program_sha256[s->arm]);
	w->prompt_tokens = x->env->prompt_tokens;
	w->decode_tokens = x->env->decode_tokens;
	if (digest_fd(h->out_fd, w->out.sha256, &w->out.bytes, e) < 0 ||
	    digest_fd(h->err_fd, w->err.sha256, &w->err.bytes, e) < 0)
		return err_prefix(e, "captured output");
	if (h->serving) {
		xp_serving_fill(h->serving, res, h->err_fd, w);
		if (res->exit_code && !w->metrics_error[0])
			snprintf(w->metrics_error, sizeof(w->metrics_error),
				 "not parsed: the server did not run until fak stopped it "
				 "(exit status %d)", res->exit_code);
		if (w->metrics_error[0])
			w->has_metrics = false;
	} else if (metrics_read_output(h->out_fd, w->out.bytes, metrics_parser_find(w->parser),
				       &sb, why, sizeof(why)) < 0) {
		sb_release(&sb);
		return err_errno(e, errno ? errno : EIO, "cannot read the captured output");
	}
	if (h->serving) {
		/* filled above */
	} else if (res->exit_code) {
		/* what a failed command printed measures nothing */
		snprintf(w->metrics_error, sizeof(w->metrics_error),
			 "not parsed: the command did not succeed (exit status %d)",
			 res->exit_code);
	} else if (why[0]) {
		attestation_copy(w->metrics_error, sizeof(w->metrics_error), why);
	} else if (metrics_parse(w->parser, sb.buf, sb.len, w->prompt_tokens, w->decode_tokens,
				 &w->metrics, &pe) < 0) {
		attestation_copy(w->metrics_error, sizeof(w->metrics_error), pe.msg);
	} else {
		w->has_metrics = true;
	}
	sb_release(&sb);
	/* a full disk cut the command's output short (its writes failed
	 * with ENOSPC): say that, not what the cut output looks like */
	h->disk_full = disk_full(h->out_fd);
	/* the metrics are read: now the logs may shrink to their bound; a
	 * parser that reads all of stdout keeps all it could read */
	{
		int64_t out_bound, err_bound;

		xp_log_bounds(x->o, w->parser, &out_bound, &err_bound);
		if (xp_bound_log(h->out_fd, out_bound, &w->out, e) < 0)
			return err_prefix(e, "captured output '%s'", h->out_path);
		if (xp_bound_log(h->err_fd, err_bound, &w->err, e) < 0)
			return err_prefix(e, "captured output '%s'", h->err_path);
	}
	return 0;
}

static void quiet_progress(void *ctx, int64_t done, int64_t total)
{
	const struct hook *h = ctx;
	const struct xp *x = h->x;
	struct xp_progress p = {
		.step = h->s, .done = x->nr_done, .total = x->nr_steps, .left_ns = -1,
		.quiet_done_ns = done, .quiet_total_ns = total,
		.waiting_for = h->waiting[0] ? h->waiting : NULL,
	};

	if (x->o->progress)
		x->o->progress(x->o->ctx, &p);
}

static void quiet_waiting(void *ctx, const char *why)
{
	struct hook *h = ctx;

	snprintf(h->waiting, sizeof(h->waiting), "%s", why);
}

static int open_log(const char *dir, const char *name, const char *ext, char **path, struct err *e)
{
	int fd;

	*path = xasprintf("%s/%s.%s", dir, name, ext);
	fd = open(*path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_errno(e, errno, "cannot create '%s'", *path);
	return fd;
}

/* What the shell's own exit statuses mean (the sealed finding keeps the
 * bare status): 127 no such command, 126 one that cannot be executed. */
static const char *shell_status_hint(const struct attestation *r)
{
	if (r->command_signal > 0 || r->timed_out)
		return "";
	if (r->command_exit_code == 127)
		return " (127: the command was not found; give it by its path or put it on PATH)";
	if (r->command_exit_code == 126)
		return " (126: the command was found but cannot be executed; check its mode)";
	return "";
}

/* The limit a timed-out run hit, and how to move it (the sealed finding
 * says only that it fired). */
static void timeout_hint(int64_t ns, struct strbuf *why)
{
	int64_t ms = ns / 1000000;

	sb_adds(why, " (after ");
	if (ms % 3600000 == 0)
		sb_addf(why, "%lldh", (long long)(ms / 3600000));
	else if (ms % 60000 == 0)
		sb_addf(why, "%lldm", (long long)(ms / 60000));
	else if (ms % 1000 == 0)
		sb_addf(why, "%llds", (long long)(ms / 1000));
	else
		sb_addf(why, "%lldms", (long long)ms);
	sb_adds(why, ", the --timeout of each run; give a longer one, or --timeout 0 for none)");
}

/* Why a finished run cannot count (findings), if it cannot. */
static void judge(const struct xp *x, const struct receipt_step *s, const struct attestation *r,
		  const char *name, struct findings *out)
{
	char title[64];
	const struct wl_metrics *m = &r->workload.metrics;
	struct strbuf why = STRBUF_INIT;

	receipt_step_title(s, title, sizeof(title));
	if (!strcmp(r->verdict, "invalid")) {
		for (size_t i = 0; i < r->nr_findings; i++)
			if (attestation_code_invalidates(r->findings[i].code)) {
				const char *code = r->findings[i].code;

				sb_addf(&why, "%s%s: %s%s", why.len ? "; " : "", code,
					r->findings[i].detail,
					strcmp(code, "COMMAND_FAILED") ? "" : shell_status_hint(r));
				if (!strcmp(code, "COMMAND_TIMEOUT"))
					timeout_hint(x->o->sampler.timeout_ns, &why);
			}
		findings_addf(out, "%s failed: %s; see %s/%s.stdout and .stderr, and %s/%s.json",
			      title, why.buf, x->dir_logs, name, x->dir_attestations, name);
		sb_release(&why);
		return;
	}
	if (x->o->parity ? !xp_parity_identity(x, s, r, &why)
			 : r->workload.has_metrics &&
				   !receipt_identity_agrees(x->env, &m->identity, &why)) {
		findings_addf(out, "%s %s; see %s/%s.stdout", title, why.buf, x->dir_logs, name);
		sb_release(&why);
		return;
	}
	sb_release(&why);
	if (m->has_quality && strcmp(m->quality.name, x->crit->quality_metric))
		findings_addf(out,
			      "%s reports quality \"%s\"; envelope \"%s\"'s criterion measures "
			      "\"%s\"; see %s/%s.stdout",
			      title, m->quality.name, x->env->id, x->crit->quality_metric,
			      x->dir_logs, name);
	else if (m->has_quality &&
		 m->quality.higher_is_better != x->crit->quality_higher_is_better)
		findings_addf(out, "%s reports quality \"%s\" with higher_is_better %s; envelope "
				   "\"%s\"'s criterion says %s: the score would be judged the "
				   "wrong way round; see %s/%s.stdout", title, m->quality.name,
			      m->quality.higher_is_better ? "true" : "false", x->env->id,
			      x->crit->quality_higher_is_better ? "true" : "false", x->dir_logs,
			      name);
}

/* The sampler's options of one run: the command, its captured stdio, the
 * hooks, and the artifact identified before the run (xp_artifact_recheck). */
static void step_opts(struct xp *x, struct hook *h, char **argv, struct child_stdio *io,
		      struct run_opts *ro)
{
	ro->argv = argv;
	ro->stdio = io;
	ro->child_mask = &x->caller_mask;
	ro->progress = quiet_progress;
	ro->waiting = quiet_waiting;
	ro->progress_ctx = h;
	ro->workload = fill_workload;
	ro->workload_ctx = h;
	ro->watch_artifact = true;
	ro->artifact_dev = x->artifact_id.dev;
	ro->artifact_ino = x->artifact_id.ino;
	ro->artifact_path = x->o->artifact;
}

int xp_run_step(struct xp *x, size_t k, struct xp_done *done, int *sig, struct findings *out,
		struct err *e)
{
	const struct receipt_step *s = &x->steps[k];
	const char *cmd = !strcmp(s->kind, WL_KIND_QUALITY) ? x->o->quality_cmd : x->o->cmd[s->arm];
	static char sh[] = "/bin/sh", dash_c[] = "-c";
	/* execv's argv is char *const[]: the command string is not written to */
	char *argv[] = { sh, dash_c, (char *)(uintptr_t)cmd, NULL };
	char name[64];
	char *out_path = NULL, *err_path = NULL, *att_path = NULL;
	struct hook h = { .x = x, .k = k, .s = s, .out_fd = -1, .err_fd = -1 };
	struct xp_serving_run serving = { 0 };
	struct child_stdio io;
	struct run_opts ro = x->o->sampler;
	struct run_result res;
	struct strbuf sb = STRBUF_INIT;
	int null_fd = -1, rc = -1;

	memset(done, 0, sizeof(*done));
	*sig = 0;
	receipt_step_name(s, name, sizeof(name));
	if ((h.out_fd = open_log(x->dir_logs, name, "stdout", &out_path, e)) < 0 ||
	    (h.err_fd = open_log(x->dir_logs, name, "stderr", &err_path, e)) < 0)
		goto out;
	h.out_path = out_path;
	h.err_path = err_path;
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0) {
		err_errno(e, errno, "cannot open /dev/null");
		goto out;
	}
	io = (struct child_stdio){ null_fd, h.out_fd, h.err_fd };
	step_opts(x, &h, argv, &io, &ro);
	/* the run knows its arm and name (docs/experiments.md): a quality
	 * command checks the arm's own configuration */
	if (setenv("FAK_ARM", receipt_arm_names[s->arm], 1) < 0 || setenv("FAK_RUN", name, 1) < 0) {
		err_errno(e, errno, "cannot set the run's environment");
		goto out;
	}
	/* a serving run: the command is a server on $FAK_PORT, driven by the
	 * client on the sampler's driver thread (the quality run is not) */
	if (x->has_trace && strcmp(s->kind, WL_KIND_QUALITY)) {
		if (xp_serving_prepare(x, name, &serving, e) < 0)
			goto out;
		h.serving = &serving;
		ro.driver = xp_serving_driver;
		ro.driver_ctx = &serving;
		ro.stop_grace_ns = x->o->serve_grace_ns;
	}
	done->rep = xmalloc(sizeof(*done->rep));
	if (sampler_run(&ro, done->rep, &res, e) < 0) {
		err_prefix(e, "%s", name);
		goto out;
	}
	if (res.interrupted) {
		*sig = res.interrupted;
		rc = 1;
		goto out;
	}
	done->leftovers = res.leftovers;
	attestation_render(done->rep, &sb);
	att_path = xasprintf("%s/%s.json", x->dir_attestations, name);
	if (file_write_atomic(att_path, sb.buf, sb.len, 0600, e) < 0)
		goto out;
	done->doc = attestation_to_json(done->rep, true);
	if (x->o->show_output)
		x->o->show_output(x->o->ctx, s, out_path, err_path);
	if (h.disk_full) {
		char title[64];

		receipt_step_title(s, title, sizeof(title));
		findings_addf(out,
			      "%s failed: no space left on device: the filesystem of '%s' was "
			      "full when the command ended, so what it wrote may be cut short; "
			      "free space there or name an --out-dir on another filesystem; "
			      "see %s/%s.stderr", title, x->dir_logs, x->dir_logs, name);
	} else {
		judge(x, s, done->rep, name, out);
	}
	rc = 0;
out:
	if (rc != 0) {
		free(done->rep);
		done->rep = NULL;
	}
	sb_release(&sb);
	if (h.out_fd >= 0)
		close(h.out_fd);
	if (h.err_fd >= 0)
		close(h.err_fd);
	if (null_fd >= 0)
		close(null_fd);
	free(out_path);
	free(err_path);
	free(att_path);
	xp_serving_release(&serving);
	return rc;
}
