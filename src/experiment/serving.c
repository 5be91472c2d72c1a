/* The serving mode of the experiment (docs/serving.md, "The serving
 * mode"): each arm's command is a server. For every run fak picks a free
 * loopback port ($FAK_PORT), the sampler starts the server, and this
 * driver, on a thread of its own, waits for GET /health to answer 200,
 * sends the warm-up requests, replays the pinned trace with serve_run and
 * writes the per-request log; when it returns the sampler stops the server.
 * Then the run's serving facts are sealed into its attestation. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "attestation/layout.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/xalloc.h"
#include "experiment/internal.h"
#include "platform/platform.h"
#include "serve/client.h"

/* The CPU of the calling thread (the driver's: fak's client), where the
 * OS tells it; -1 where it does not. */
static double thread_cpu_ms(void)
{
#ifdef RUSAGE_THREAD
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		return ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e3 +
		       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e3;
#endif
	return -1;
}

/* --quality-prompts: a prompts file whose every prompt has its reference,
 * and a criterion that measures what they give (exact_match, higher is
 * better). */
static void quality_preflight(struct xp *x, struct findings *out)
{
	const char *path = x->o->quality_prompts;
	struct err e;
	long i;

	if (quality_load(path, &x->quality, x->quality_sha256, &e) < 0) {
		findings_addf(out, "--quality-prompts: %s", e.msg);
		return;
	}
	x->has_quality = true;
	if ((i = quality_missing_reference(&x->quality)) >= 0)
		findings_addf(out, "--quality-prompts: '%s': prompts[%ld] has no reference (make "
				   "them with fak bench serve --quality-prompts FILE "
				   "--write-reference OUT against a known-good server)", path, i);
	if (strcmp(x->crit->quality_metric, WL_QUALITY_EXACT_MATCH) ||
	    !x->crit->quality_higher_is_better)
		findings_addf(out, "--quality-prompts: measures \"%s\" (higher is better); "
				   "envelope \"%s\"'s criterion measures \"%s\" (%s is better)",
			      WL_QUALITY_EXACT_MATCH, x->env->id, x->crit->quality_metric,
			      x->crit->quality_higher_is_better ? "higher" : "lower");
}

int xp_serving_preflight(struct xp *x, struct findings *out)
{
	const struct xp_opts *o = x->o;
	const struct envelope_serving *pin;
	struct findings f = FINDINGS_INIT;
	bool by_env;
	struct err e;

	if (!o->serve_trace)
		return 0;
	pin = graph_serving_pin(x->env, x->lever);
	if (!pin) {
		findings_addf(out, "--serve-trace: envelope \"%s\" has no serving member: a "
				   "serving experiment needs the envelope to pin its trace and "
				   "primary metric, or the lever's serving next witness to pin "
				   "them (docs/graph.md, \"Serving envelopes\")", x->env->id);
		return 0;
	}
	if (!o->quality_cmd == !o->quality_prompts)
		findings_addf(out, "%s", o->quality_cmd
			      ? "--quality-command and --quality-prompts do not go together: "
				"give one"
			      : "--quality-prompts FILE (or --quality-command CMD) is required "
				"with --serve-trace: the trace's outputs under batching are no "
				"quality measure (docs/serving.md, \"Quality\")");
	if (o->quality_prompts)
		quality_preflight(x, out);
	if (trace_load(o->serve_trace, &x->trace, &f, x->trace_sha256, &e) < 0) {
		findings_addf(out, "--serve-trace: %s", e.msg);
		findings_release(&f);
		return 0;
	}
	x->has_trace = true;
	by_env = pin == &x->env->serving;
	/* valid graph: a known metric */
	x->primary = serving_metric_find(pin->primary_metric);
	if (x->primary < 0)
		BUG("primary metric \"%s\"", pin->primary_metric);
	for (size_t i = 0; i < f.nr; i++)
		findings_addf(out, "--serve-trace: '%s' is not a usable trace: %s", o->serve_trace,
			      f.items[i]);
	findings_release(&f);
	if (strcmp(x->trace_sha256, pin->trace_sha256))
		findings_addf(out, "--serve-trace: '%s' is trace %s; %s \"%s\" pins %s (give "
				   "the pinned trace, or pin this one in the %s)",
			      o->serve_trace, x->trace_sha256, by_env ? "envelope" : "lever",
			      by_env ? x->env->id : x->lever->id, pin->trace_sha256,
			      by_env ? "envelope" : "lever's next witness");
	return 0;
}

/* A free port on 127.0.0.1: bound, read back and closed (another process
 * may take it before the server does: the server then fails to start, and
 * the run with it, naming its stderr). */
static int free_port(int *port, struct err *e)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);	/* closed before any spawn */

	if (fd < 0)
		return err_errno(e, errno, "cannot open a socket to find a free port");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		int err = errno;

		close(fd);
		return err_errno(e, err, "cannot find a free port on 127.0.0.1");
	}
	close(fd);
	*port = ntohs(a.sin_port);
	return 0;
}

/* A non-negative integer member of a /health body; -1 when there is none. */
static int64_t health_count(const char *body, const char *key)
{
	json_error_t je;
	json_t *o = json_loads(body, JSON_REJECT_DUPLICATES, &je);
	json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	int64_t n = json_is_integer(v) && json_integer_value(v) >= 0 ? json_integer_value(v)
								       : -1;

	json_decref(o);
	return n;
}

int xp_serving_prepare(struct xp *x, const char *name, struct xp_serving_run *s, struct err *e)
{
	char port[16];

	memset(s, 0, sizeof(*s));
	s->x = x;
	s->fallback_count = -1;
	s->client_cpu_ms = -1;
	if (free_port(&s->port, e) < 0)
		return -1;
	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(s->endpoint, sizeof(s->endpoint), "http://127.0.0.1:%d", s->port);
	s->log_path = xasprintf("%s/%s" LAYOUT_REQUESTS, x->dir_logs, name);
	if (x->has_quality)
		s->quality_log_path = xasprintf("%s/%s" LAYOUT_QUALITY, x->dir_logs, name);
	if (setenv("FAK_PORT", port, 1) < 0)
		return err_errno(e, errno, "cannot set the run's environment");
	return 0;
}

/* The first XP_SERVING_WARMUP_REQUESTS requests of the trace, one at a
 * time: a fresh server's first requests pay for lazy set-up. */
static void warm_up(struct xp_serving_run *s, const struct serve_opts *so)
{
	const struct trace *t = &s->x->trace;
	struct trace w = { .process = TRACE_CLOSED, .concurrency = 1, .vocab = t->vocab,
			   .req = t->req };
	struct serve_record *r = NULL;
	struct err e;

	w.nr = t->nr < XP_SERVING_WARMUP_REQUESTS ? t->nr : XP_SERVING_WARMUP_REQUESTS;
	if (serve_run(so, &w, &r, &e) == 0)
		serve_records_release(r, w.nr);
	s->warmup_requests = (int64_t)w.nr;
}

/* A written log's sha256 (hex); -1 with the error in s->error. */
static int log_digest(struct xp_serving_run *s, const char *path, char hex[65])
{
	int64_t bytes;
	struct err e;
	int rc = digest_file(path, hex, &bytes, &e);

	if (rc < 0)
		snprintf(s->error, sizeof(s->error), "cannot digest '%s'", path);
	return rc;
}

/* --quality-prompts: each prompt alone to this run's fresh server, before
 * anything else; the outputs go to logs/NAME.quality.jsonl, digested.
 * -1 with s->error when a prompt got no completion. */
static int ask_quality(struct xp_serving_run *s, const struct serve_opts *so)
{
	const struct xp *x = s->x;
	char **out = xcalloc(x->quality.nr, sizeof(*out));
	struct strbuf lb = STRBUF_INIT;
	struct err e;
	int rc = quality_ask(so, &x->quality, out, &e);

	if (rc < 0)
		snprintf(s->error, sizeof(s->error), "%.560s", e.msg);
	if (rc == 0) {
		s->quality_matched = (int64_t)quality_matched(&x->quality, out);
		quality_log(&x->quality, x->quality_sha256, out, &lb);
		rc = file_write_atomic(s->quality_log_path, lb.buf, lb.len, 0600, &e);
		if (rc < 0)
			attestation_copy(s->error, sizeof(s->error), e.msg);
	}
	if (rc == 0 && (rc = log_digest(s, s->quality_log_path, s->quality_log_sha256)) == 0)
		s->has_quality = true;
	for (size_t i = 0; i < x->quality.nr; i++)
		free(out[i]);
	free(out);
	sb_release(&lb);
	return rc;
}

/* llama-server's build as GET /props states it ("build_info": "b1-de3ff81"),
 * asked once (1 s) of a server whose /health names no engine; "" when it
 * does not answer 200 with a JSON object holding that string. */
static void props_build_info(const struct serve_opts *so, struct xp_serving_run *s)
{
	enum { PROPS_CAP = 1 << 16 };
	char *body = malloc(PROPS_CAP);
	json_t *o = NULL, *v;
	struct err e;

	s->build_info[0] = '\0';
	if (body && serve_get(so, "/props", body, PROPS_CAP, &e) == 0 &&
	    (o = json_loads(body, JSON_REJECT_DUPLICATES, NULL)) &&
	    json_is_string(v = json_object_get(o, "build_info")))
		snprintf(s->build_info, sizeof(s->build_info), "%s", json_string_value(v));
	json_decref(o);
	free(body);
}

void xp_serving_driver(void *ctx, pid_t pid, const volatile int *gone)
{
	struct xp_serving_run *s = ctx;
	const struct xp *x = s->x;
	const struct trace *t = &x->trace;
	struct serve_opts so = {
		.endpoint = s->endpoint, .timeout_ns = XP_SERVING_TIMEOUT_NS,
		.stall_ns = XP_SERVING_STALL_NS, .connect_ns = 5000000000LL,
		.ready_ns = x->o->serve_ready_ns, .stop = gone,
	};
	struct serve_log_head h = { .requests = t->nr, .open_loop = t->process != TRACE_CLOSED,
				    .max_lag_ms = (double)x->o->serve_max_lag_ns / 1e6 };
	struct serve_record *r = NULL;
	struct strbuf lb = STRBUF_INIT;
	double cpu0 = thread_cpu_ms();
	int64_t t0 = platform_mono_ns();
	struct err e;

	(void)pid;
	if (serve_wait_ready(&so, s->health, sizeof(s->health), &e) < 0) {
		snprintf(s->error, sizeof(s->error), "%.560s%s", e.msg,
			 *gone ? " (the server exited)" : "");
		return;
	}
	s->startup_ms = (double)(platform_mono_ns() - t0) / 1e6;
	so.ready_ns = 0;
	if (x->has_quality && ask_quality(s, &so) < 0)
		return;
	warm_up(s, &so);
	if (serve_run(&so, t, &r, &e) < 0) {
		attestation_copy(s->error, sizeof(s->error), e.msg);
		return;
	}
	serve_summarize(r, t->nr, h.open_loop, h.max_lag_ms, NULL, &s->sum);
	/* what the engine says of itself after the trace: its fallbacks */
	so.ready_ns = 1000000000;
	if (serve_wait_ready(&so, s->health_after, sizeof(s->health_after), &e) == 0)
		s->fallback_count = health_count(s->health_after, "fallback_count");
	if (!strstr(s->health, "\"engine\""))
		props_build_info(&so, s);
	memcpy(h.trace_sha256, x->trace_sha256, sizeof(h.trace_sha256));
	serve_log_head_line(&lb, &h);
	for (size_t k = 0; k < t->nr; k++)
		serve_log_line(&lb, &r[k]);
	serve_records_release(r, t->nr);
	if (file_write_atomic(s->log_path, lb.buf, lb.len, 0600, &e) < 0) {
		attestation_copy(s->error, sizeof(s->error), e.msg);
		sb_release(&lb);
		return;
	}
	log_digest(s, s->log_path, s->log_sha256);
	sb_release(&lb);
	s->client_cpu_ms = cpu0 < 0 ? -1 : thread_cpu_ms() - cpu0;
	s->has_sum = !s->error[0];
}

/* The last lines of the server's stderr (at most 3, 300 bytes), on one
 * line: what a start-up failure says. */
static void last_lines(int fd, int64_t bytes, char *out, size_t cap)
{
	char buf[301];
	int64_t from = bytes > 300 ? bytes - 300 : 0;
	ssize_t n = pread(fd, buf, (size_t)(bytes - from), (off_t)from);
	size_t lines = 0, k;

	out[0] = '\0';
	if (n <= 0)
		return;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	for (k = (size_t)n; k > 0; k--)
		if (buf[k - 1] == '\n' && ++lines == 3)
			break;
	for (char *p = buf + k; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = *p == '\n' ? '|' : ' ';
	snprintf(out, cap, "%s", buf + k);
}

/* The engine's identity where the server states it: engine and
 * forward_path members of its /health JSON body (docs/serving.md); a body
 * that is no JSON object, or members that are not valid identity text,
 * state nothing. */
static void health_identity(const char *body, const char *build_info, struct wl_identity *id)
{
	json_error_t je;
	json_t *o = json_loads(body, JSON_REJECT_DUPLICATES, &je), *x = jobj();
	struct err e;
	const char *keys[] = { "engine", "forward_path" };
	size_t digits = build_info[0] == 'b' ? strspn(build_info + 1, "0123456789") : 0;
	const char *commit = build_info + 1 + digits + 1;

	memset(id, 0, sizeof(*id));
	for (size_t i = 0; o && json_is_object(o) && i < 2; i++) {
		json_t *v = json_object_get(o, keys[i]);

		if (json_is_string(v))
			json_object_set(x, keys[i], v);
	}
	/* llama-server's /props: "b<build number>-<commit>", as llama-bench's
	 * build_commit names the build (the engine is llama.cpp) */
	if (!json_object_get(x, "engine") && digits && build_info[1 + digits] == '-' &&
	    strlen(commit) >= 7 && strlen(commit) <= 40 &&
	    strspn(commit, "0123456789abcdef") == strlen(commit)) {
		jset_str(x, "engine", WL_ENGINE_LLAMA_CPP);
		jset_str(x, "build_commit", commit);
	}
	if (wl_identity_decode(x, NULL, id, &e) < 0)
		memset(id, 0, sizeof(*id));
	json_decref(o);
	json_decref(x);
}

void xp_serving_fill(const struct xp_serving_run *s, const struct run_result *res, int err_fd,
		     struct workload *w)
{
	const struct serve_summary *u = &s->sum;
	struct wl_serving *v = &w->serving;
	char tail[320];

	v->present = true;
	memcpy(v->trace_sha256, s->x->trace_sha256, sizeof(v->trace_sha256));
	snprintf(v->stop_status, sizeof(v->stop_status), "%s",
		 res->stopped ? res->stop_status : "exited before the stop");
	v->killed = res->killed;
	v->fallback_count = s->fallback_count;
	v->startup_ms = s->startup_ms;
	v->warmup_requests = s->warmup_requests;
	v->client_cpu_ms = s->client_cpu_ms;
	v->max_lag_ms = (double)s->x->o->serve_max_lag_ns / 1e6;
	if (!s->has_sum) {
		last_lines(err_fd, w->err.bytes, tail, sizeof(tail));
		snprintf(w->metrics_error, sizeof(w->metrics_error),
			 "%s; the server's last stderr lines: %s", s->error,
			 tail[0] ? tail : "(none)");
		/* a sealed log digest still names no log: all zero stands for none */
		memset(v->log_sha256, '0', 64);
		v->log_sha256[64] = '\0';
		return;
	}
	memcpy(v->log_sha256, s->log_sha256, sizeof(v->log_sha256));
	v->requests = (int64_t)u->requests;
	v->completed = (int64_t)u->completed;
	v->failed = (int64_t)u->failed;
	v->late = (int64_t)u->late;
	v->fell_behind = u->fell_behind;
	v->lag_p99_ms = u->lag.p99;
	v->lag_max_ms = u->lag.max;
	serve_summary_values(u, v->values);
	if (!(u->output_throughput >= WL_MIN_TPS) || !(u->duration_s > 0)) {
		snprintf(w->metrics_error, sizeof(w->metrics_error),
			 "no output: %zu of %zu requests failed (see the per-request log "
			 "%s)", u->failed, u->requests, s->log_path);
		return;
	}
	health_identity(s->health, s->build_info, &w->metrics.identity);
	if (s->has_quality) {
		struct wl_serving_quality *q = &v->quality;

		v->has_quality = true;
		memcpy(q->prompts_sha256, s->x->quality_sha256, sizeof(q->prompts_sha256));
		memcpy(q->log_sha256, s->quality_log_sha256, sizeof(q->log_sha256));
		q->prompts = (int64_t)s->x->quality.nr;
		q->matched = s->quality_matched;
		w->metrics.has_quality = true;
		snprintf(w->metrics.quality.name, sizeof(w->metrics.quality.name), "%s",
			 WL_QUALITY_EXACT_MATCH);
		w->metrics.quality.score = (double)q->matched / (double)q->prompts;
		w->metrics.quality.higher_is_better = true;
	}
	w->has_metrics = true;
	w->metrics.has_throughput = true;
	w->metrics.tokens_per_second = u->output_throughput;
	w->metrics.end_to_end_ms = u->duration_s * 1e3;
}

void xp_serving_release(struct xp_serving_run *s)
{
	free(s->log_path);
	free(s->quality_log_path);
	s->log_path = NULL;
	s->quality_log_path = NULL;
}
