/* fak bench experiment: option parsing, progress and the summary around one
 * call into experiment/. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attestation/layout.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/command.h"
#include "cli/evidence.h"
#include "cli/opts.h"
#include "cli/report.h"
#include "cli/sampler_flags.h"
#include "experiment/experiment.h"
#include "platform/platform.h"
#include "workload/metrics.h"
#include "attestation/simulated.h"
#include "receipt/gate.h"
#include "receipt/ledger.h"
#include "receipt/parity.h"
#include "render/chart.h"
#include "attestation/workload.h"

#define CMD "bench experiment"

static const char usage[] =
	"usage: fak bench experiment LEVER --baseline CMD --candidate CMD --out-dir DIR\n"
	"           [--artifact FILE] [--profile-artifact FILE]... [--revision REV]\n"
	"           [--baseline-revision REV --candidate-revision REV] [--module NAME@REV]...\n"
	"           [--order interleaved|random|blocked] [--seed N] [--metrics json|llama-bench]\n"
	"           [--quality-command CMD] [--last-accepted RECEIPT] [--graph FILE]"
	" [--show-output]\n"
	"           [--format text|json|md|csv | --json] [--baseline-duration DUR]"
	" [--interval DUR]\n"
	"           [--until-decisive [--max-repetitions N]] [--witness-root DIR]\n"
	"           [--allow-declared-identity] [--parity [--candidate-metrics KIND]]\n"
	"           [--serve-trace FILE [--quality-prompts FILE] [--ready-timeout DUR]"
	" [--max-lag DUR]\n"
	"           [--stop-grace DUR]]\n"
	"           [--max-log-bytes SIZE] [--timeout DUR] [--progress auto|always|never] ...";

static const char about[] =
	"Runs the one-lever A/B of LEVER: warm-ups, then the envelope's repetitions of each arm\n"
	"(baseline CMD with the lever off, candidate CMD with it on), interleaved by default."
	" Each\n"
	"run goes through the system-baseline sampler with its output captured in DIR/"
	LAYOUT_LOGS "/; the\n"
	"metrics its last stdout line reports are sealed into its attestation. Then DIR gets\n"
	LAYOUT_BASELINE " and " LAYOUT_CANDIDATE " (attested receipts), " LAYOUT_ATTESTATIONS
	"/, " LAYOUT_COMPARISON ",\n"
	LAYOUT_GATE_REQUEST ", " LAYOUT_GATE " and " LAYOUT_CHART
	" (every run's tok/s in order), and stdout the\n"
	"summary (--format text, json, md or csv). Every input is checked before the first run;\n"
	"DIR must not exist yet or be empty (missing parents are created). CMD runs with\n"
	"/bin/sh -c; its environment has FAK_ARTIFACT (the absolute path of the --artifact\n"
	"file: write -m \"$FAK_ARTIFACT\", since commands are public), FAK_ARM (baseline or\n"
	"candidate) and FAK_RUN (the run's name, e.g. candidate-2).\n"
	"With --serve-trace the commands are servers (docs/serving.md, \"The serving mode\"):\n"
	"every run starts a fresh one on $FAK_PORT, waits for GET /health, replays the trace\n"
	"the envelope pins, stops it (SIGTERM, SIGKILL after --stop-grace) and seals the\n"
	"summary.\n"
	"Every attempt counts: with a witness root (--witness-root DIR, else the checkout's\n"
	"docs/witnesses when no --graph is given) the experiment is recorded in its attempt\n"
	"ledger DIR/attempts.jsonl before the first run and again when it ends, and the\n"
	"out-dir gets " LAYOUT_ATTEMPT "; only a recorded experiment can be promoted.\n"
	"With --parity, LEVER's next witness is a parity campaign of two engines: the baseline\n"
	"arm runs the first engine, the candidate the second, each run must state its engine,\n"
	"and DIR gets " LAYOUT_PARITY " (their tok/s ratio, labelled parity) instead of receipts.\n"
	"Exit 0 when the receipts were written, 1 when an input is missing or a run failed (its\n"
	"evidence stays in DIR, no receipt is written), 128+N when signal N stopped it.";

struct ex_opts {
	const char *graph, *baseline, *candidate, *out_dir, *artifact, *revision, *base_rev,
		   *cand_rev;
	const char *order, *seed, *metrics, *quality, *last_accepted, *machine_id_file, *format;
	const char *max_log, *max_reps, *witness_root, *progress, *cand_metrics, *serve_trace,
		   *ready_timeout, *max_lag, *stop_grace, *quality_prompts;
	bool until_decisive, allow_declared_identity, parity;
	struct optlist profiles, modules;
	bool show_output, json;
	struct sampler_flags sf;
};

static int usage_error(const char *msg)
{
	cli_errorf(CMD, "%s", msg);
	fprintf(stderr, "%s\n", usage);
	return EXIT_USAGE;
}

/* ---- progress and output ------------------------------------------------- */

/* --progress: auto shows the live line on a terminal and a plain line per
 * run elsewhere (CI, nohup, a pipe); always the live line wherever stderr
 * goes; never nothing. */
enum progress_mode { PROGRESS_PLAIN, PROGRESS_LIVE, PROGRESS_NEVER };

struct view {
	enum progress_mode mode;
};

static void clock_text(int64_t ns, char *out, size_t cap)
{
	long long s = ns / 1000000000;

	snprintf(out, cap, "%lld:%02lld", s / 60, s % 60);
}

/* A finished run: its name, tok/s, verdict, elapsed and time left; then the
 * look --until-decisive just took. Live: over the quiet window's line. */
static void progress_run(const struct xp_progress *p, bool live)
{
	char title[64], el[32], left[32];

	receipt_step_title(p->step, title, sizeof(title));
	clock_text(p->elapsed_ns, el, sizeof(el));
	clock_text(p->left_ns, left, sizeof(left));
	fprintf(stderr, "%s[%zu/%zu] %s", live ? "\r\033[K" : "", p->done, p->total, title);
	if (p->has_tps)
		fprintf(stderr, "  %.4g tok/s", p->tps);
	fprintf(stderr, "  %s  elapsed %s  about %s left\n", p->verdict, el, left);
	if (p->look)
		fprintf(stderr, "%s\n", p->look);
}

static void progress(void *ctx, const struct xp_progress *p)
{
	const struct view *v = ctx;
	char title[64];

	if (v->mode == PROGRESS_NEVER)
		return;
	if (!p->quiet_total_ns) {
		progress_run(p, v->mode == PROGRESS_LIVE);
		fflush(stderr);
		return;
	}
	/* the quiet window ticks only where a line can be redrawn */
	if (v->mode != PROGRESS_LIVE)
		return;
	receipt_step_title(p->step, title, sizeof(title));
	if (p->quiet_done_ns < p->quiet_total_ns && p->waiting_for)
		fprintf(stderr, "\r\033[K[%zu/%zu] %s: waiting for a quiet window (%s): "
			"%.1fs of %.1fs", p->done + 1, p->total, title, p->waiting_for,
			(double)p->quiet_done_ns / 1e9, (double)p->quiet_total_ns / 1e9);
	else if (p->quiet_done_ns < p->quiet_total_ns)
		fprintf(stderr, "\r\033[K[%zu/%zu] %s: quiet window %.1fs of %.1fs",
			p->done + 1, p->total, title, (double)p->quiet_done_ns / 1e9,
			(double)p->quiet_total_ns / 1e9);
	else
		fprintf(stderr, "\r\033[K[%zu/%zu] %s: running", p->done + 1, p->total, title);
	fflush(stderr);
}

static void copy_file(const char *path)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stderr) != (size_t)n)
			break;
	close(fd);
}

static void show_output(void *ctx, const struct receipt_step *s, const char *out_log,
			const char *err_log)
{
	char title[64];

	(void)ctx;
	receipt_step_title(s, title, sizeof(title));
	fprintf(stderr, "---- %s: stdout (%s) ----\n", title, out_log);
	copy_file(out_log);
	fprintf(stderr, "---- %s: stderr (%s) ----\n", title, err_log);
	copy_file(err_log);
	fflush(stderr);
}

/* The summary on stdout in fmt: the comparison as --compare prints it, the
 * gate's verdict and what was written where; json is the summary document. */
/* The attempt line of the summary (caller frees) and its JSON member. */
static char *attempt_text(const struct xp_result *res, const char *lever, const char *ledger,
			  json_t *doc)
{
	const struct xp_attempt *a = &res->attempt;
	json_t *o = jobj();
	char *t;

	jset_bool(o, "recorded", a->recorded);
	if (!a->recorded) {
		t = xstrdup("not recorded: no witness root (--witness-root DIR); this experiment "
			    "cannot be promoted");
	} else {
		/* promotion decides again at the level widened for every attempt
		 * (docs/receipts.md, "Attempts"): say so before anyone relies on
		 * this experiment's own verdict */
		t = xasprintf("%zu of %zu of lever %s in this envelope (ledger %s)%s", a->k, a->n,
			      lever, ledger,
			      a->n > 1 ? "; a promotion decides again at the level widened for "
					 "every attempt so far"
				       : "");
		jset_str(o, "experiment_id", a->experiment_id);
		jset_int(o, "attempt", (long long)a->k);
		jset_int(o, "attempts", (long long)a->n);
		jset_str(o, "ledger", ledger);
		jset_int(o, "started_seq", a->started_seq);
		jset_int(o, "ended_seq", a->ended_seq);
	}
	jset_str(o, "text", t);
	jset_new(doc, "attempt", o);
	return t;
}

/* The runs whose command left processes running (killed by the sampler,
 * counted in their attestations), as a summary line (caller frees; NULL
 * for none) and the summary's JSON member. */
static char *leftovers_text(const struct ex_opts *eo, const struct xp_result *res, json_t *doc)
{
	struct strbuf t = STRBUF_INIT, names = STRBUF_INIT;
	json_t *o, *runs;
	long long total = 0;
	bool by[3] = { false, false, false };	/* baseline, candidate, quality */
	const char *const flag[3] = { "--baseline", "--candidate", "--quality-command" };
	const char *const cmd[3] = { eo->baseline, eo->candidate, eo->quality };
	const char *sep = "; left by ";

	if (!res->nr_leftovers)
		return NULL;
	o = jobj();
	runs = jarr();
	for (size_t i = 0; i < res->nr_leftovers; i++)
		total += res->leftovers[i].killed;
	sb_addf(&t, "%lld process%s still running when %s command exited, killed: ", total,
		total == 1 ? " was" : "es were", res->nr_leftovers == 1 ? "its" : "their");
	for (size_t i = 0; i < res->nr_leftovers; i++) {
		const struct xp_leftover *l = &res->leftovers[i];
		char title[64], name[64];
		json_t *r = jobj();

		receipt_step_title(&l->step, title, sizeof(title));
		receipt_step_name(&l->step, name, sizeof(name));
		sb_reset(&names);
		run_leftovers_text(&l->names, &names);
		sb_addf(&t, "%s%s: %lld", i ? "; " : "", title, (long long)l->killed);
		if (names.len)
			sb_addf(&t, " (%s)", names.buf);
		by[!strcmp(l->step.kind, WL_KIND_QUALITY) ? 2 : l->step.arm] = true;
		jset_str(r, "run", name);
		jset_int(r, "killed", (long long)l->killed);
		jset_str(r, "processes", names.buf);
		jpush_new(runs, r);
	}
	/* the commands are public (they are in the receipts) */
	for (int a = 0; a < 3; a++)
		if (by[a] && cmd[a]) {
			sb_addf(&t, "%s%s '%s'", sep, flag[a], cmd[a]);
			sep = " and ";
		}
	sb_adds(&t, "; a benchmark should wait for what it starts");
	jset_int(o, "killed", total);
	jset_new(o, "runs", runs);
	jset_str(o, "text", t.buf);
	jset_new(doc, "leftovers", o);
	sb_release(&names);
	return sb_detach(&t, NULL);
}

static int summary(const struct ex_opts *eo, const char *ledger, enum render_format fmt,
		   const struct xp_result *res)
{
	struct render_file files[XP_NR_FILES];
	struct render_ab ab = { .comparison = res->comparison, .gate = res->gate, .files = files,
				.nr_files = XP_NR_FILES, .out_dir = eo->out_dir };
	const struct receipt *r = res->arms;
	struct receipt_aa aa;
	struct strbuf note = STRBUF_INIT;
	json_t *doc = jobj();
	char why[768];

	jset_str(doc, "schema", "fak-bench-experiment-summary/v1");
	jset_str(doc, "out_dir", eo->out_dir);
	jset_new(doc, "comparison", json_incref(res->comparison));
	jset_new(doc, "gate", json_incref(res->gate));
	xp_explain(res, why, sizeof(why));
	if (why[0])
		jset_str(doc, "why", why);
	ab.why = why;
	ab.attempt = attempt_text(res, json_string_value(json_object_get(
		res->receipts[1], "changed_lever_id")), ledger, doc);
	ab.leftovers = leftovers_text(eo, res, doc);
	for (size_t k = 0; k < XP_NR_FILES; k++)
		files[k] = (struct render_file){ xp_file_names[k], res->sha256[k] };
	if (!res->has_arms)
		BUG("an experiment done without its receipts");
	receipt_arms_compare(&r[0], &r[1], &aa);
	if (aa.same) {
		/* an A/A run calibrates the noise; --promote refuses it */
		sb_adds(&note, RECEIPT_AA_NOTE " (");
		receipt_aa_why(&aa, &r[0], &r[1], &note);
		sb_adds(&note, "; --promote refuses it)");
		ab.note = note.buf;
		jset_str(doc, "note", ab.note);
	}
	report_ab_arms(&ab, &r[0], "baseline", &r[1]);
	report_print_ab(fmt, &ab, render_experiment_text, doc);
	report_ab_release(&ab);
	sb_release(&note);
	free((char *)(uintptr_t)ab.attempt);
	free((char *)(uintptr_t)ab.leftovers);
	json_decref(doc);
	return EXIT_OK;
}

/* A parity campaign's summary: the ratio, never a gain of either engine. */
static int parity_summary(const struct ex_opts *eo, const char *ledger, enum render_format fmt,
			  const struct xp_result *res)
{
	json_t *doc = jobj();
	const json_t *par = json_object_get(res->comparison, "parity");
	char *att = attempt_text(res, json_string_value(json_object_get(res->comparison,
									"lever_id")),
				 ledger, doc), *text = receipt_parity_text(par);

	jset_str(doc, "schema", "fak-bench-experiment-summary/v1");
	jset_str(doc, "out_dir", eo->out_dir);
	jset_new(doc, "parity", json_incref(res->comparison));
	if (fmt == RENDER_JSON) {
		struct strbuf sb = STRBUF_INIT;

		json_write_pretty(&sb, doc);
		fwrite(sb.buf, 1, sb.len, stdout);
		sb_release(&sb);
	} else {
		printf("%s\n%s\nwrote %s/" PARITY_FILE " (sha256 %s)\nattempt %s\n", text,
		       PARITY_NOTE, eo->out_dir, res->sha256[0], att);
	}
	free(text);
	free(att);
	json_decref(doc);
	return EXIT_OK;
}

/* ---- options ------------------------------------------------------------- */

static int parse_modules(const struct optlist *l, struct xp_module **out, char ***copies)
{
	*out = xcalloc(l->n + 1, sizeof(**out));
	*copies = xcalloc(l->n + 1, sizeof(**copies));
	for (size_t i = 0; i < l->n; i++) {
		char *c = xstrdup(l->v[i]), *at = strrchr(c, '@');

		(*copies)[i] = c;
		if (!at || at == c || !at[1]) {
			char msg[512];

			snprintf(msg, sizeof(msg), "--module takes NAME@REV (got \"%.400s\")",
				 l->v[i]);
			return usage_error(msg);
		}
		*at = '\0';
		(*out)[i] = (struct xp_module){ c, at + 1 };
	}
	return 0;
}

static int parse_seed(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v >= RECEIPT_SEED_MAX) {
		char msg[256];

		snprintf(msg, sizeof(msg), "--seed must be an integer in 0..2^53-1 "
			 "(got \"%.64s\")", s);
		return usage_error(msg);
	}
	*out = v;
	return 0;
}

/* --max-log-bytes: N, NK, NM or NG (binary units), at least WL_LOG_BOUND_MIN. */
static int parse_log_bound(const char *s, int64_t *out)
{
	static const char units[] = "KMG";
	char *end;
	const char *u;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	u = *end ? strchr(units, *end) : NULL;
	if (!*s || s[0] == '-' || errno || (*end && (!u || end[1])) ||
	    v > (1ULL << 40) >> (u ? 10 * (u - units + 1) : 0) ||
	    (int64_t)(v << (u ? 10 * (u - units + 1) : 0)) < WL_LOG_BOUND_MIN) {
		char msg[256];

		snprintf(msg, sizeof(msg), "--max-log-bytes must be a size from "
			 WL_LOG_BOUND_MIN_TEXT " to 1T: bytes, or a number with K, M or G "
			 "(got \"%.64s\")", s);
		return usage_error(msg);
	}
	*out = (int64_t)(v << (u ? 10 * (u - units + 1) : 0));
	return 0;
}

/* The report's format, and the flags every experiment needs. */
static int check_required(const struct ex_opts *eo, enum render_format *fmt)
{
	const char *const required[][2] = {
		{ "baseline", eo->baseline },
		{ "candidate", eo->candidate },
		{ "out-dir", eo->out_dir },
	};
	char msg[256];

	if (report_format(eo->format, eo->json, fmt, msg, sizeof(msg)) < 0)
		return usage_error(msg);
	if (eo->parity && *fmt != RENDER_TEXT && *fmt != RENDER_JSON)
		return usage_error("--parity prints its summary as text or json: a parity ratio "
				   "has no comparison table");
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!required[i][1] || !*required[i][1]) {
			snprintf(msg, sizeof(msg), "--%s is required and must not be empty",
				 required[i][0]);
			return usage_error(msg);
		}
	return 0;
}

/* The arms' revisions: one for both, or one each. */
static int check_revisions(const struct ex_opts *eo, struct xp_opts *o)
{
	if (eo->revision && (eo->base_rev || eo->cand_rev))
		return usage_error("give --revision, or --baseline-revision and "
				   "--candidate-revision, not both");
	if (!eo->base_rev != !eo->cand_rev)
		return usage_error("--baseline-revision and --candidate-revision go together");
	o->revision[0] = eo->revision ? eo->revision : eo->base_rev;
	o->revision[1] = eo->revision ? eo->revision : eo->cand_rev;
	return 0;
}

/* The order of the arms' runs, interleaved unless --order says. */
static int check_order(const struct ex_opts *eo, struct xp_opts *o)
{
	o->order = RECEIPT_ORDER_INTERLEAVED;
	if (eo->order) {
		size_t i;

		for (i = 0; i < 3 && strcmp(eo->order, receipt_order_names[i]); i++)
			;
		if (i == 3)
			return usage_error("--order must be interleaved, random or blocked");
		o->order = (enum receipt_order)i;
	}
	return 0;
}

/* The sequential design's flags: --until-decisive and its cap. */
static int check_repetitions(const struct ex_opts *eo, struct xp_opts *o)
{
	char msg[256];

	if (eo->max_reps && !eo->until_decisive)
		return usage_error("--max-repetitions goes with --until-decisive");
	o->until_decisive = eo->until_decisive;
	o->allow_declared_identity = eo->allow_declared_identity;
	o->parity = eo->parity;
	o->max_repetitions = XP_DEFAULT_MAX_REPETITIONS;
	if (eo->max_reps) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(eo->max_reps, &end, 10);
		if (errno || end == eo->max_reps || *end || v < 1 || v > XP_MAX_REPETITIONS) {
			snprintf(msg, sizeof(msg), "--max-repetitions must be a whole number "
						   "from 1 to %d", XP_MAX_REPETITIONS);
			return usage_error(msg);
		}
		o->max_repetitions = (size_t)v;
	}
	return 0;
}

/* A random order's seed, given or drawn; a look needs both arms alike. */
static int check_seed(const struct ex_opts *eo, struct xp_opts *o)
{
	if (eo->until_decisive && eo->order && !strcmp(eo->order, "blocked"))
		return usage_error("--until-decisive needs interleaved or random pairs, not "
				   "--order blocked: a look must see both arms alike");
	if (eo->seed && o->order != RECEIPT_ORDER_RANDOM)
		return usage_error("--seed goes with --order random");
	if (o->order == RECEIPT_ORDER_RANDOM) {
		if (eo->seed) {
			if (parse_seed(eo->seed, &o->seed))
				return EXIT_USAGE;
		} else {
			uint64_t r = 0;

			if (platform_random(&r, sizeof(r)) < 0) {
				cli_errorf(CMD, "cannot draw a seed: %s; give --seed N",
					   strerror(errno));
				return EXIT_FAIL;
			}
			o->seed = r % RECEIPT_SEED_MAX;
		}
	}
	return 0;
}

/* The metrics parser of the arms' output, json unless --metrics says. */
static int check_metrics(const struct ex_opts *eo, struct xp_opts *o)
{
	char msg[256];
	const struct metrics_parser *mp =
		metrics_parser_for_option(eo->metrics ? eo->metrics : "json");

	if (!mp) {
		snprintf(msg, sizeof(msg), "--metrics must be one of %s", METRICS_OPTIONS);
		return usage_error(msg);
	}
	o->parser = mp->id;
	return 0;
}

/* --serve-trace: a serving A/B, its client's flags and their bounds. */
static int check_serving(const struct ex_opts *eo, struct xp_opts *o)
{
	int rc;

	if (eo->metrics)
		return usage_error("--serve-trace measures a server with fak's own client; "
				   "it takes no --metrics (the commands are servers, not "
				   "benchmarks)");
	if (eo->parity || eo->cand_metrics)
		return usage_error("--serve-trace and --parity do not go together: a "
				   "parity campaign compares two engines' decode runs, a "
				   "serving A/B two servers under one trace");
	o->parser = WL_PARSER_SERVING;
	o->serve_trace = eo->serve_trace;
	o->quality_prompts = eo->quality_prompts;
	o->serve_ready_ns = (int64_t)60 * 1000000000;
	o->serve_max_lag_ns = 1000000;
	o->serve_grace_ns = (int64_t)5 * 1000000000;
	if ((rc = duration_opt(CMD, usage, "ready-timeout", eo->ready_timeout, 1000000,
			       (int64_t)3600 * 1000000000, "1ms..1h",
			       &o->serve_ready_ns)) ||
	    (rc = duration_opt(CMD, usage, "max-lag", eo->max_lag, 0,
			       (int64_t)3600 * 1000000000, "0..1h",
			       &o->serve_max_lag_ns)) ||
	    (rc = duration_opt(CMD, usage, "stop-grace", eo->stop_grace, 0,
			       (int64_t)600 * 1000000000, "0..10m", &o->serve_grace_ns)))
		return rc;
	return 0;
}

/* --candidate-metrics: the candidate read by its own parser (--parity). */
static int check_candidate_metrics(const struct ex_opts *eo, struct xp_opts *o)
{
	char msg[256];
	const struct metrics_parser *mp = metrics_parser_for_option(eo->cand_metrics);

	if (!eo->parity)
		return usage_error("--candidate-metrics goes with --parity: the arms of an "
				   "A/B are read alike");
	if (!mp) {
		snprintf(msg, sizeof(msg), "--candidate-metrics must be one of %s",
			 METRICS_OPTIONS);
		return usage_error(msg);
	}
	o->candidate_parser = mp->id;
	return 0;
}

static int check_usage(const struct ex_opts *eo, struct xp_opts *o, enum render_format *fmt)
{
	int rc;

	if ((rc = check_required(eo, fmt)) || (rc = check_revisions(eo, o)) ||
	    (rc = check_order(eo, o)))
		return rc;
	if (eo->max_log && parse_log_bound(eo->max_log, &o->max_log_bytes))
		return EXIT_USAGE;
	if ((rc = check_repetitions(eo, o)) || (rc = check_seed(eo, o)) ||
	    (rc = check_metrics(eo, o)))
		return rc;
	if (eo->serve_trace)
		return check_serving(eo, o);
	if (eo->quality_prompts)
		return usage_error("--quality-prompts goes with --serve-trace: each serving "
				   "run sends them to its own server");
	if (eo->ready_timeout || eo->max_lag || eo->stop_grace)
		return usage_error("--ready-timeout, --max-lag and --stop-grace go with "
				   "--serve-trace");
	if (eo->cand_metrics && (rc = check_candidate_metrics(eo, o)))
		return rc;
	if (eo->quality && !strcmp(o->parser, WL_PARSER_JSON) &&
	    (!o->candidate_parser || !strcmp(o->candidate_parser, WL_PARSER_JSON)))
		return usage_error("--quality-command goes with --metrics llama-bench or "
				   "--serve-trace; the json metrics line carries the quality");
	return 0;
}

static int progress_mode(const char *v, enum progress_mode *out)
{
	if (!v || !strcmp(v, "auto"))
		*out = isatty(STDERR_FILENO) ? PROGRESS_LIVE : PROGRESS_PLAIN;
	else if (!strcmp(v, "always"))
		*out = PROGRESS_LIVE;
	else if (!strcmp(v, "never"))
		*out = PROGRESS_NEVER;
	else
		return usage_error("--progress must be auto, always or never");
	return 0;
}

#define EX(m) struct ex_opts, m
static const struct opt opts[] = {
	{ "baseline", "CMD", "the baseline arm: the lever off (run by /bin/sh -c)",
	  OPT_VALUE(EX(baseline)) },
	{ "candidate", "CMD", "the candidate arm: the lever on", OPT_VALUE(EX(candidate)) },
	{ "out-dir", "DIR",
	  "new or empty folder for receipts, attestations, logs, comparison, gate",
	  OPT_VALUE(EX(out_dir)) },
	{ "graph", "FILE", "use graph FILE instead of the committed default",
	  OPT_VALUE(EX(graph)) },
	{ "artifact", "FILE", "the model file; its sha256 must equal the envelope's pin",
	  OPT_VALUE(EX(artifact)) },
	{ "profile-artifact", "FILE", "a profiler artifact (relative path) for the receipts",
	  OPT_LIST(EX(profiles)) },
	{ "revision", "REV", "the revision both arms run", OPT_VALUE(EX(revision)) },
	{ "baseline-revision", "REV", "the baseline arm's revision, where the arms differ",
	  OPT_VALUE(EX(base_rev)) },
	{ "candidate-revision", "REV", "the candidate arm's revision", OPT_VALUE(EX(cand_rev)) },
	{ "module", "NAME@REV", "a module revision for the receipts", OPT_LIST(EX(modules)) },
	{ "order", "ORDER", "interleaved (ABBA, default), random (pairs shuffled) or blocked",
	  OPT_VALUE(EX(order)) },
	{ "seed", "N", "the seed of --order random (default: drawn and recorded)",
	  OPT_VALUE(EX(seed)) },
	{ "metrics", "KIND", "json (the metrics line, default) or llama-bench (-o json/jsonl)",
	  OPT_VALUE(EX(metrics)) },
	{ "quality-command", "CMD",
	  "with llama-bench or a serving trace: the quality run after each arm",
	  OPT_VALUE(EX(quality)) },
	{ "serve-trace", "FILE",
	  "serving mode: the arms are servers on $FAK_PORT; replay this trace",
	  OPT_VALUE(EX(serve_trace)) },
	{ "quality-prompts", "FILE",
	  "with --serve-trace: prompts sent alone first; outputs vs references",
	  OPT_VALUE(EX(quality_prompts)) },
	{ "ready-timeout", "DUR",
	  "with --serve-trace: how long GET /health may take to answer 200 (60s)",
	  OPT_VALUE(EX(ready_timeout)) },
	{ "max-lag", "DUR",
	  "with --serve-trace: a later send fell behind its schedule (default 1ms)",
	  OPT_VALUE(EX(max_lag)) },
	{ "stop-grace", "DUR",
	  "with --serve-trace: SIGKILL a server this long after SIGTERM (default 5s)",
	  OPT_VALUE(EX(stop_grace)) },
	{ "last-accepted", "RECEIPT",
	  "gate the candidate against this receipt (default: this baseline)",
	  OPT_VALUE(EX(last_accepted)) },
	{ "machine-id-file", "FILE", "machine id to hash (default /etc/machine-id)",
	  OPT_VALUE(EX(machine_id_file)) },
	{ "show-output", NULL, "copy each run's stdout and stderr to stderr",
	  OPT_FLAG(EX(show_output)) },
	{ "until-decisive", NULL,
	  "after the envelope's repetitions, add pairs until the decision is decided",
	  OPT_FLAG(EX(until_decisive)) },
	{ "allow-declared-identity", NULL,
	  "the gate passes an engine the runs did not state (never promoted)",
	  OPT_FLAG(EX(allow_declared_identity)) },
	{ "parity", NULL,
	  "a parity campaign: the arms are the lever's two engines; writes " LAYOUT_PARITY,
	  OPT_FLAG(EX(parity)) },
	{ "candidate-metrics", "KIND",
	  "with --parity: the candidate engine's metrics, json or llama-bench",
	  OPT_VALUE(EX(cand_metrics)) },
	{ "max-repetitions", "N",
	  "with --until-decisive: at most N repetitions per arm (default 60)",
	  OPT_VALUE(EX(max_reps)) },
	{ "max-log-bytes", "SIZE",
	  "bound of each captured log (default " WL_LOG_BOUND_DEFAULT_TEXT "): beyond, head and "
	  "tail",
	  OPT_VALUE(EX(max_log)) },
	{ "witness-root", "DIR",
	  "record the attempt in DIR/attempts.jsonl (default: the checkout's docs/witnesses)",
	  OPT_VALUE(EX(witness_root)) },
	{ "progress", "WHEN",
	  "auto (default: live on a terminal, else a line per run), always or never",
	  OPT_VALUE(EX(progress)) },
	{ "json", NULL, "print the summary as JSON (the same as --format json)",
	  OPT_FLAG(EX(json)) },
	{ "format", "FORMAT", "the summary: text (default), json, md or csv",
	  OPT_VALUE(EX(format)) },
	SAMPLER_FLAG_OPTS(struct ex_opts, sf),
	{ 0 },
};
#undef EX

static int bench_experiment(int argc, char **argv);

const struct cmd_spec bench_experiment_spec = { .usage = usage, .about = about, .opts = opts,
						.needs = EV_GRAPH | EV_LEDGER_ROOT,
						.run = bench_experiment };

/* The sampler's ceilings from the host policy of the lever's envelope's
 * criterion, where no flag sets them; a flag may tighten or loosen one (an
 * attestation looser than the criterion makes the gate investigate). An
 * unknown lever is left to xp_run to refuse. */
static void host_policy_apply(const struct graph *g, const char *lever_id,
			      const struct sampler_flags *sf, struct policy *p)
{
	const struct lever *l = graph_lever(g, lever_id);
	const struct criterion *c = l ? graph_criterion(g, l->app.envelope_id) : NULL;

	if (!c || !c->has_host_policy)
		return;
	if (!sf->max_non_sut)
		p->maximum_non_sut_cpu_percent = c->host_policy.maximum_non_sut_cpu_percent;
	if (!sf->max_duty)
		p->maximum_sampler_duty_percent = c->host_policy.maximum_sampler_duty_percent;
	if (!sf->max_psi)
		p->maximum_psi_stall_percent = c->host_policy.maximum_psi_stall_percent;
}

/* An attempt that ended without receipts still counts: say so. */
static void attempt_counted(const struct xp_result *res, const char *lever, const char *ledger,
			    const char *how)
{
	const struct xp_attempt *a = &res->attempt;

	if (a->ended)
		cli_errorf(CMD, "attempt %zu of %zu of lever %s in this envelope, recorded as %s "
			   "(ledger %s)", a->k, a->n, lever, how, ledger);
}

/* LEVER comes first (or last, after the options). */
static int parse(int argc, char **argv, struct ex_opts *eo, const char **lever)
{
	bool first = argc > 1 && argv[1][0] != '-';
	int rest, rc;

	*lever = NULL;
	if (first) {
		*lever = argv[1];
		argv++;
		argc--;
	}
	if ((rc = cmd_parse(CMD, &bench_experiment_spec, eo, argc, argv, &rest)) >= 0)
		return rc == EXIT_OK ? -1 : rc;	/* -1: --help printed */
	if (!first && rest < argc)
		*lever = argv[rest++];
	if (rest < argc) {
		char msg[512];

		snprintf(msg, sizeof(msg), "unexpected argument '%.400s'", argv[rest]);
		return usage_error(msg);
	}
	if (!*lever || !**lever)
		return usage_error("the LEVER to experiment on is required");
	return 0;
}

/* What the runner reads of the command line, the graph and the view. */
static void runner_options(const struct ex_opts *eo, const struct graph *g,
			   struct xp_module *modules, struct view *view, struct xp_opts *o)
{
	o->g = g;
	o->cmd[0] = eo->baseline;
	o->cmd[1] = eo->candidate;
	o->modules = modules;
	o->nr_modules = eo->modules.n;
	o->artifact = eo->artifact;
	o->profile_artifacts = eo->profiles.v;
	o->nr_profile_artifacts = eo->profiles.n;
	o->out_dir = eo->out_dir;
	o->last_accepted = eo->last_accepted;
	o->quality_cmd = eo->quality;
	o->machine_id_file = eo->machine_id_file;
	o->proc_root = o->sampler.proc_root;
	o->progress = progress;
	o->show_output = eo->show_output ? show_output : NULL;
	o->chart_runs = render_chart_runs;
	o->ctx = view;
}

static int bench_experiment(int argc, char **argv)
{
	struct ex_opts eo = { 0 };
	struct xp_opts o = { 0 };
	struct xp_module *modules = NULL;
	char **copies = NULL;
	struct xp_result res;
	enum render_format fmt;
	struct findings f = FINDINGS_INIT;
	struct view view;
	struct evidence ev = EVIDENCE_INIT;
	struct err e;
	char *ledger = NULL;
	int rc;

	rc = parse(argc, argv, &eo, &o.lever_id);
	if (rc)
		goto out_opts;
	if ((rc = progress_mode(eo.progress, &view.mode)) || (rc = check_usage(&eo, &o, &fmt)) ||
	    (rc = parse_modules(&eo.modules, &modules, &copies)) ||
	    (rc = sampler_flags_apply(CMD, usage, &eo.sf, &o.sampler)))
		goto out_opts;
	if (simulated_env_first()) {
		cli_errorf(CMD, "%s is set: a test variable that simulates what the sampler "
			   "sees (another proc tree, sys tree or census bound); an experiment "
			   "measures this machine, so unset it", simulated_env_first());
		rc = EXIT_USAGE;
		goto out_opts;
	}
	if ((rc = evidence_resolve(&ev, CMD, NULL, bench_experiment_spec.needs,
				   &(struct ev_flags){ eo.graph, NULL, eo.witness_root })))
		goto out_graph;
	if (ev.witness_root)
		ledger = xasprintf("%s/" LEDGER_FILE, ev.witness_root);
	o.ledger = ledger;
	host_policy_apply(&ev.g, o.lever_id, &eo.sf, &o.sampler.policy);
	runner_options(&eo, &ev.g, modules, &view, &o);
	/* every run can name the checked model without a private path in its
	 * command: -m "$FAK_ARTIFACT" */
	if (eo.artifact) {
		char *abs = realpath(eo.artifact, NULL);

		setenv("FAK_ARTIFACT", abs ? abs : eo.artifact, 1);
		free(abs);
	}
	fflush(stdout);
	if (xp_run(&o, &res, &f, &e) < 0) {
		rc = cli_fail(CMD, &e);
		xp_result_release(&res);
		goto out_graph;
	}
	switch (res.status) {
	case XP_REFUSED:
		rc = cli_findings(CMD, "cannot start; nothing ran", &f);
		break;
	case XP_RUN_FAILED:
		rc = cli_findings(CMD, "no receipt written", &f);
		attempt_counted(&res, o.lever_id, ledger, "failed");
		break;
	case XP_INTERRUPTED:
		cli_errorf(CMD, "interrupted by %s; no receipt written (the finished runs' "
			   "evidence is in %s)", strsignal(res.signal), eo.out_dir);
		attempt_counted(&res, o.lever_id, ledger, "interrupted");
		rc = 128 + res.signal;
		break;
	case XP_DONE:
		rc = o.parity ? parity_summary(&eo, ledger, fmt, &res)
			      : summary(&eo, ledger, fmt, &res);
		break;
	}
	xp_result_release(&res);
out_graph:
	findings_release(&f);
	evidence_release(&ev);
	free(ledger);
out_opts:
	if (copies)
		for (size_t i = 0; i < eo.modules.n; i++)
			free(copies[i]);
	free(copies);
	free(modules);
	optlist_release(&eo.profiles);
	optlist_release(&eo.modules);
	return rc < 0 ? EXIT_OK : rc;
}
