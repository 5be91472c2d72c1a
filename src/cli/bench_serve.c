/* fak bench trace and fak bench serve: option parsing, then one call into
 * serve/ and a renderer. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "cli/command.h"
#include "cli/opts.h"
#include "cli/report.h"
#include "cli/sampler_flags.h"
#include "render/chart.h"
#include "render/serving.h"
#include "base/xalloc.h"
#include "serve/client.h"
#include "serve/quality.h"
#include "serve/record.h"
#include "serve/trace.h"

/* ---- fak bench trace ------------------------------------------------- */

#define TCMD "bench trace"

static const char tr_usage[] =
	"usage: fak bench trace (--rate R [--burstiness B] | --concurrency C) [--requests N]"
	" [--seed S] [--prompt-tokens N|LO:HI] [--output-tokens N|LO:HI] [--vocab V | --text]"
	" [--shared-prefix-fraction F --prefix-tokens P] [--out FILE]\n"
	"       fak bench trace --check FILE";

static const char tr_about[] =
	"Writes a deterministic arrival trace (" TRACE_SCHEMA ") in canonical JSON (RFC 8785),\n"
	"so the same options give the same bytes and sha256 anywhere: Poisson arrivals at\n"
	"--rate requests per second, gamma arrivals with shape --burstiness at the same mean\n"
	"rate (as vllm bench serve --burstiness: below 1 burstier, above 1 more regular), or a\n"
	"closed loop that keeps --concurrency requests in flight. Prompts are token ids drawn\n"
	"within --vocab (or words with --text); a --shared-prefix-fraction of the requests\n"
	"start with one shared prefix of --prefix-tokens tokens (prefix group 0). The digest\n"
	"goes to stderr. --check reads a trace anyone wrote and lists what is wrong with it,\n"
	"with JSON paths; exit 1 when anything is.";

struct tr_opts {
	const char *seed, *rate, *burst, *conc, *requests, *prompt, *output, *vocab, *frac,
		*prefix, *out, *check;
	bool text;
};

enum { TR_RATE, TR_BURST, TR_CONC, TR_REQUESTS, TR_SEED, TR_PROMPT, TR_OUTPUT, TR_VOCAB,
       TR_TEXT, TR_FRAC, TR_PREFIX, TR_OUT, TR_CHECK };

#define TR(m) struct tr_opts, m
static const struct opt tr_opts[] = {
	[TR_RATE] = { "rate", "R", "Poisson (or gamma) arrivals at R requests per second",
		      OPT_VALUE(TR(rate)) },
	[TR_BURST] = { "burstiness", "B", "gamma arrivals of shape B (1 is Poisson), with --rate",
		       OPT_VALUE(TR(burst)) },
	[TR_CONC] = { "concurrency", "C", "a closed loop: C requests in flight, no schedule",
		      OPT_VALUE(TR(conc)) },
	[TR_REQUESTS] = { "requests", "N", "how many requests (default 100)",
			  OPT_VALUE(TR(requests)) },
	[TR_SEED] = { "seed", "S", "the seed of every draw, 0..2^53-1 (default 0)",
		      OPT_VALUE(TR(seed)) },
	[TR_PROMPT] = { "prompt-tokens", "N|LO:HI",
			"prompt length, fixed or uniform in LO..HI (default 32)",
			OPT_VALUE(TR(prompt)) },
	[TR_OUTPUT] = { "output-tokens", "N|LO:HI",
			"max_tokens, fixed or uniform in LO..HI (default 64)",
			OPT_VALUE(TR(output)) },
	[TR_VOCAB] = { "vocab", "V", "token ids are drawn in 0..V-1 (default 32000)",
		       OPT_VALUE(TR(vocab)) },
	[TR_TEXT] = { "text", NULL, "text prompts (one short word per token) instead of token ids",
		      OPT_FLAG(TR(text)) },
	[TR_FRAC] = { "shared-prefix-fraction", "F", "this fraction of the requests share a prefix",
		      OPT_VALUE(TR(frac)) },
	[TR_PREFIX] = { "prefix-tokens", "P", "the shared prefix's length in tokens",
			OPT_VALUE(TR(prefix)) },
	[TR_OUT] = { "out", "FILE", "write the trace to FILE (atomically) instead of stdout",
		     OPT_VALUE(TR(out)) },
	[TR_CHECK] = { "check", "FILE", "check a trace file and print its digest",
		       OPT_VALUE(TR(check)) },
	{ 0 },
};
#undef TR

/* --check is a mode of its own; the others write a trace */
static const struct cmd_rule tr_rules[] = {
	{ CMD_RULE_ONLY, OPT_BIT(TR_CHECK), 0, 0, "--check takes no other option" },
	{ CMD_RULE_ONE, 0, OPT_BIT(TR_CHECK), OPT_BIT(TR_RATE) | OPT_BIT(TR_CONC),
	  "give --rate (open loop) or --concurrency (closed loop)" },
	{ CMD_RULE_ALL, OPT_BIT(TR_BURST), 0, OPT_BIT(TR_RATE), "--burstiness goes with --rate" },
	{ CMD_RULE_NONE, OPT_BIT(TR_TEXT), 0, OPT_BIT(TR_VOCAB),
	  "--vocab goes with token prompts, not --text" },
	{ 0 },
};

static int bench_trace(int argc, char **argv);

const struct cmd_spec bench_trace_spec = { .usage = tr_usage, .about = tr_about,
					   .opts = tr_opts, .rules = tr_rules, .run = bench_trace };

static int tr_usage_error(const char *why)
{
	return cmd_usage_error(TCMD, &bench_trace_spec, why);
}

/* An integer option within [lo, hi]; NULL keeps *out. */
static int int_opt(const char *cmd, const struct cmd_spec *spec, const char *name, const char *v,
		   long long lo, long long hi, long long *out)
{
	char *end, why[256];
	long long x;

	if (!v)
		return 0;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (!*v || *end || errno || x < lo || x > hi) {
		snprintf(why, sizeof(why), "--%s must be an integer in %lld..%lld (got \"%.40s\")",
			 name, lo, hi, v);
		return cmd_usage_error(cmd, spec, why);
	}
	*out = x;
	return 0;
}

static int num_opt(const char *cmd, const struct cmd_spec *spec, const char *name, const char *v,
		   double *out)
{
	char *end, why[256];
	double x;

	if (!v)
		return 0;
	errno = 0;
	x = strtod(v, &end);
	if (!*v || *end || errno || !isfinite(x)) {
		snprintf(why, sizeof(why), "--%s must be a number (got \"%.40s\")", name, v);
		return cmd_usage_error(cmd, spec, why);
	}
	*out = x;
	return 0;
}

/* N or LO:HI */
static int range_opt(const char *name, const char *v, long long *lo, long long *hi)
{
	char why[256], *end;
	long long a, b;

	if (!v)
		return 0;
	errno = 0;
	a = strtoll(v, &end, 10);
	b = a;
	if (end != v && *end == ':') {
		const char *s = end + 1;

		b = strtoll(s, &end, 10);
		if (end == s)
			b = 0;	/* "N:" has no HI */
	}
	if (end == v || *end || errno || a < 1 || b < a || b > TRACE_MAX_PROMPT_TOKENS) {
		snprintf(why, sizeof(why), "--%s must be N or LO:HI with 1 <= LO <= HI <= %d "
			 "(got \"%.40s\")", name, TRACE_MAX_PROMPT_TOKENS, v);
		return tr_usage_error(why);
	}
	*lo = a;
	*hi = b;
	return 0;
}

static int trace_check(const char *path)
{
	struct findings f = FINDINGS_INIT;
	char digest[72];
	struct trace t;
	struct err e;
	int rc;

	if (trace_load(path, &t, &f, digest, &e) < 0) {
		findings_release(&f);
		return cli_fail(TCMD, &e);
	}
	if (f.nr) {
		char what[300];

		snprintf(what, sizeof(what), "'%s' is not a usable trace", path);
		rc = cli_findings(TCMD, what, &f);
	} else {
		printf("valid %s: %zu requests, %s arrivals, %s\n", digest, t.nr,
		       trace_process_names[t.process], t.vocab ? "token prompts" : "text prompts");
		rc = EXIT_OK;
	}
	findings_release(&f);
	trace_release(&t);
	return rc;
}

static int bench_trace(int argc, char **argv)
{
	struct tr_opts o = { 0 };
	struct trace_gen g = { .requests = 100, .prompt_min = 32, .prompt_max = 32,
			       .output_min = 64, .output_max = 64, .vocab = 32000 };
	struct strbuf sb = STRBUF_INIT;
	long long seed = 0, requests = 100;
	char digest[72];
	struct trace t;
	struct err e;
	int rest, rc, i;

	if ((rc = cmd_parse(TCMD, &bench_trace_spec, &o, argc, argv, &rest)) >= 0)
		return rc;
	if (rest < argc) {
		char why[200];

		snprintf(why, sizeof(why), "unexpected argument '%.60s'", argv[rest]);
		return tr_usage_error(why);
	}
	if ((i = opts_empty(tr_opts, &o)) >= 0) {
		char why[200];

		snprintf(why, sizeof(why), "--%s needs a value", tr_opts[i].name);
		return tr_usage_error(why);
	}
	if ((rc = cmd_rules_check(TCMD, &bench_trace_spec, opts_given(tr_opts, &o))) >= 0)
		return rc;
	if (o.check)
		return trace_check(o.check);
	if ((rc = int_opt(TCMD, &bench_trace_spec, "seed", o.seed, 0, (long long)TRACE_MAX_SEED,
			  &seed)) ||
	    (rc = int_opt(TCMD, &bench_trace_spec, "requests", o.requests, 1, TRACE_MAX_REQUESTS,
			  &requests)) ||
	    (rc = int_opt(TCMD, &bench_trace_spec, "concurrency", o.conc, 1,
			  TRACE_MAX_CONCURRENCY, &g.concurrency)) ||
	    (rc = int_opt(TCMD, &bench_trace_spec, "vocab", o.vocab, 2, TRACE_MAX_VOCAB,
			  &g.vocab)) ||
	    (rc = int_opt(TCMD, &bench_trace_spec, "prefix-tokens", o.prefix, 1,
			  TRACE_MAX_PROMPT_TOKENS, &g.prefix_tokens)) ||
	    (rc = num_opt(TCMD, &bench_trace_spec, "rate", o.rate, &g.rate)) ||
	    (rc = num_opt(TCMD, &bench_trace_spec, "burstiness", o.burst, &g.burstiness)) ||
	    (rc = num_opt(TCMD, &bench_trace_spec, "shared-prefix-fraction", o.frac,
			  &g.prefix_fraction)) ||
	    (rc = range_opt("prompt-tokens", o.prompt, &g.prompt_min, &g.prompt_max)) ||
	    (rc = range_opt("output-tokens", o.output, &g.output_min, &g.output_max)))
		return rc;
	g.seed = (uint64_t)seed;
	g.requests = (size_t)requests;
	g.text = o.text;
	g.process = o.conc ? TRACE_CLOSED : o.burst ? TRACE_GAMMA : TRACE_POISSON;
	if (!o.burst)
		g.burstiness = 1;
	if (o.out && file_check_output(o.out, &e) < 0) {
		cli_errorf(TCMD, "--out: %s", e.msg);
		return EXIT_FAIL;
	}
	if (trace_generate(&g, &t, &e) < 0)
		return tr_usage_error(e.msg);
	rc = trace_render(&t, &sb, digest, &e);
	trace_release(&t);
	if (rc < 0) {
		sb_release(&sb);
		return cli_fail(TCMD, &e);
	}
	if (o.out) {
		if (file_write_atomic(o.out, sb.buf, sb.len, 0644, &e) < 0) {
			sb_release(&sb);
			return cli_fail(TCMD, &e);
		}
		fprintf(stderr, "fak " TCMD ": wrote %s (%s)\n", o.out, digest);
	} else {
		cli_out(sb.buf, sb.len);
		fprintf(stderr, "fak " TCMD ": %s\n", digest);
	}
	sb_release(&sb);
	return EXIT_OK;
}

/* ---- fak bench serve ------------------------------------------------- */

#define SCMD "bench serve"

static const char sv_usage[] =
	"usage: fak bench serve --endpoint URL --trace FILE [--model NAME] [--log FILE]"
	" [--slo ttft_ms=MS,tpot_ms=MS,e2el_ms=MS] [--max-lag 1ms] [--timeout 600s]"
	" [--stall-timeout 60s] [--connect-timeout 5s] [--ready-timeout DUR]"
	" [--format text|json|md|csv] [--chart FILE]\n"
	"       fak bench serve --from-log FILE [--trace FILE] [--slo ...] [--format ...]"
	" [--chart FILE]\n"
	"       fak bench serve --endpoint URL --quality-prompts FILE [--write-reference OUT]"
	" [--model NAME] [--ready-timeout DUR]";

static const char sv_about[] =
	"Replays a trace (fak bench trace) against an OpenAI-compatible /v1/completions\n"
	"endpoint on this machine, streaming, open loop: each request leaves at its scheduled\n"
	"time whether or not earlier ones finished, and a send later than --max-lag after its\n"
	"schedule flags the run as fallen behind (exit 1). A closed-loop trace keeps its\n"
	"concurrency in flight. Prints TTFT, TPOT, ITL and E2EL (vllm bench serve's\n"
	"definitions), request and token throughput and goodput under --slo. Every request is\n"
	"kept: --log writes one JSON line per request (chunk arrivals, tokens, status, error).\n"
	"Failed requests are counted by name and make the exit status 1. Only loopback\n"
	"endpoints (127.0.0.0/8, ::1, localhost) are accepted. --from-log summarizes a log\n"
	"again without sending anything. --chart draws the CDFs of TTFT, ITL and E2EL (SVG).\n"
	"--quality-prompts sends each prompt of a " QUALITY_SCHEMA " file alone, greedy, and\n"
	"compares its output with the prompt's reference (exit 1 unless all match);\n"
	"--write-reference records the outputs of a known-good server as the references of a\n"
	"new prompts file instead.";

struct sv_opts {
	const char *endpoint, *trace, *model, *log, *slo, *max_lag, *timeout, *stall, *connect,
		*ready, *format, *from_log, *chart, *quality, *write_ref;
};

enum { SV_ENDPOINT, SV_TRACE, SV_MODEL, SV_LOG, SV_SLO, SV_MAX_LAG, SV_TIMEOUT, SV_STALL,
       SV_CONNECT, SV_READY, SV_FORMAT, SV_FROM_LOG, SV_CHART, SV_QUALITY, SV_WRITE_REF };

#define SV(m) struct sv_opts, m
static const struct opt sv_opts[] = {
	[SV_ENDPOINT] = { "endpoint", "URL",
			  "the server, http://127.0.0.1:PORT (path /v1/completions)",
			  OPT_VALUE(SV(endpoint)) },
	[SV_TRACE] = { "trace", "FILE", "the arrival trace to replay (" TRACE_SCHEMA ")",
		       OPT_VALUE(SV(trace)) },
	[SV_MODEL] = { "model", "NAME", "the request's model member (none by default)",
		       OPT_VALUE(SV(model)) },
	[SV_LOG] = { "log", "FILE",
		     "write the per-request log (JSON lines); never over an existing file",
		     OPT_VALUE(SV(log)) },
	[SV_SLO] = { "slo", "SPEC",
		     "goodput SLOs: ttft_ms=200,tpot_ms=50,e2el_ms=2000 (any of them)",
		     OPT_VALUE(SV(slo)) },
	[SV_MAX_LAG] = { "max-lag", "DUR",
			 "a send later than this after its schedule flags the run (1ms)",
			 OPT_VALUE(SV(max_lag)) },
	[SV_TIMEOUT] = { "timeout", "DUR", "a response that has not ended after this fails (600s)",
			 OPT_VALUE(SV(timeout)) },
	[SV_STALL] = { "stall-timeout", "DUR", "a response silent for this long fails (60s)",
		       OPT_VALUE(SV(stall)) },
	[SV_CONNECT] = { "connect-timeout", "DUR", "connecting longer than this fails (5s)",
			 OPT_VALUE(SV(connect)) },
	[SV_READY] = { "ready-timeout", "DUR", "first wait until GET /health answers 200 (no wait)",
		       OPT_VALUE(SV(ready)) },
	[SV_FORMAT] = { "format", "FORMAT", "text (default), json, md or csv",
			OPT_VALUE(SV(format)) },
	[SV_FROM_LOG] = { "from-log", "FILE", "summarize a written log instead of sending",
			  OPT_VALUE(SV(from_log)) },
	[SV_CHART] = { "chart", "FILE", "write the latency chart (CDFs of TTFT, ITL, E2EL) as SVG",
		       OPT_VALUE(SV(chart)) },
	[SV_QUALITY] = { "quality-prompts", "FILE",
			 "send these prompts alone, greedy, and compare with their references",
			 OPT_VALUE(SV(quality)) },
	[SV_WRITE_REF] = { "write-reference", "OUT",
			   "with --quality-prompts: write the outputs as the references of a "
			   "new file", OPT_VALUE(SV(write_ref)) },
	{ 0 },
};
#undef SV

/* --from-log summarizes a log again: nothing of sending goes with it */
static const struct cmd_rule sv_rules[] = {
	{ CMD_RULE_ONLY, OPT_BIT(SV_FROM_LOG), 0,
	  OPT_BIT(SV_TRACE) | OPT_BIT(SV_SLO) | OPT_BIT(SV_FORMAT) | OPT_BIT(SV_CHART),
	  "--from-log takes only --trace, --slo and --format" },
	{ CMD_RULE_ALL, OPT_BIT(SV_QUALITY) | OPT_BIT(SV_WRITE_REF), 0,
	  OPT_BIT(SV_QUALITY) | OPT_BIT(SV_ENDPOINT),
	  "--write-reference goes with --quality-prompts and --endpoint" },
	{ CMD_RULE_ONLY, OPT_BIT(SV_QUALITY), 0,
	  OPT_BIT(SV_ENDPOINT) | OPT_BIT(SV_MODEL) | OPT_BIT(SV_WRITE_REF) | OPT_BIT(SV_TIMEOUT) |
	  OPT_BIT(SV_CONNECT) | OPT_BIT(SV_READY),
	  "--quality-prompts takes only --endpoint, --model, --write-reference and the timeouts" },
	{ CMD_RULE_ALL, 0, OPT_BIT(SV_FROM_LOG) | OPT_BIT(SV_QUALITY),
	  OPT_BIT(SV_ENDPOINT) | OPT_BIT(SV_TRACE), "--endpoint and --trace are required" },
	{ 0 },
};

static int bench_serve(int argc, char **argv);

const struct cmd_spec bench_serve_spec = { .usage = sv_usage, .about = sv_about,
					   .opts = sv_opts, .rules = sv_rules, .run = bench_serve };

static int sv_usage_error(const char *why)
{
	return cmd_usage_error(SCMD, &bench_serve_spec, why);
}

static volatile int stop_flag;

static void on_signal(int sig)
{
	stop_flag = sig;
}

static void progress(void *ctx, size_t done, size_t sent, size_t total)
{
	(void)ctx;
	if (done >= total)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "\rfak " SCMD ": %zu of %zu sent, %zu done", sent, total, done);
	fflush(stderr);
}

static void print_summary(enum render_format fmt, const struct serve_summary *s,
			  const char *digest)
{
	struct strbuf sb = STRBUF_INIT;

	switch (fmt) {
	case RENDER_JSON: {
		json_t *j = serve_summary_to_json(s);

		jset_str(j, "trace_sha256", digest);
		cli_out_json(j);
		return;
	}
	case RENDER_MD:
		render_serving_md(&sb, s, digest);
		break;
	case RENDER_CSV:
		render_serving_csv(&sb, s);
		break;
	case RENDER_TEXT:
		render_serving_text(&sb, s, digest);
		break;
	}
	cli_out(sb.buf, sb.len);
	sb_release(&sb);
}

/* Says on stderr what makes the run fail; returns its exit status. */
static int judge(const struct serve_summary *s)
{
	int rc = EXIT_OK;

	if (s->failed) {
		struct strbuf sb = STRBUF_INIT;

		render_serving_failures(&sb, s);
		cli_errorf(SCMD, "%zu of %zu requests failed: %s", s->failed, s->requests, sb.buf);
		sb_release(&sb);
		rc = EXIT_FAIL;
	}
	if (s->fell_behind) {
		cli_errorf(SCMD, "the client fell behind its schedule: %zu of %zu sends more than "
			   "%g ms late (max %.3f ms); the run does not measure the trace's load",
			   s->late, s->lag.n, s->max_lag_ms, s->lag.max);
		rc = EXIT_FAIL;
	}
	return rc;
}

/* The first few failures, each with its request, on stderr. */
static void name_failures(const struct serve_record *r, size_t n)
{
	size_t shown = 0;

	for (size_t i = 0; i < n && shown < 5; i++)
		if (r[i].fail != SERVE_OK) {
			cli_errorf(SCMD, "request %zu: %s: %s", r[i].index,
				   serve_fail_names[r[i].fail],
				   r[i].error);
			shown++;
		}
}

/* --chart: checked before any work; never an input (the trace, the log
 * read) nor the log written. Returns an exit status, or -1 when fine. */
static int check_chart(const struct sv_opts *o)
{
	const char *ins[] = { o->trace, o->from_log };
	struct err e;

	if (!o->chart)
		return -1;
	if (file_check_output(o->chart, &e) < 0) {
		cli_errorf(SCMD, "--chart: %s", e.msg);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < sizeof(ins) / sizeof(ins[0]); i++)
		if (ins[i] && file_same(o->chart, ins[i])) {
			cli_errorf(SCMD, "--chart: '%s' is an input of the run; give the chart "
				   "another name", o->chart);
			return EXIT_FAIL;
		}
	if (o->log && !strcmp(o->log, o->chart)) {
		cli_errorf(SCMD, "--chart: '%s' is also the --log; give each its own name",
			   o->chart);
		return EXIT_FAIL;
	}
	return -1;
}

/* The latency chart of n records and their summary, written atomically.
 * Returns an exit status. */
static int write_chart(const char *path, const struct serve_summary *s,
		       const struct serve_record *r, size_t n, const char *digest)
{
	struct strbuf sb = STRBUF_INIT;
	struct serve_latencies l;
	struct err e;
	int rc = EXIT_OK;

	serve_latencies_of(r, n, &l);
	render_chart_serve(&sb, s, &l, digest);
	serve_latencies_release(&l);
	if (file_write_atomic(path, sb.buf, sb.len, 0644, &e) < 0)
		rc = cli_fail(SCMD, &e);
	sb_release(&sb);
	return rc;
}

static int from_log(const struct sv_opts *o, enum render_format fmt, const struct serve_slo *slo)
{
	struct strbuf buf = STRBUF_INIT;
	struct serve_log_head h;
	struct serve_summary s;
	struct serve_record *r;
	size_t n;
	struct err e;
	int rc;

	if ((rc = check_chart(o)) >= 0)
		return rc;
	if (o->trace) {
		struct findings f = FINDINGS_INIT;
		struct trace t;
		char digest[72];

		if (trace_load(o->trace, &t, &f, digest, &e) < 0) {
			findings_release(&f);
			return cli_fail(SCMD, &e);
		}
		trace_release(&t);
		findings_release(&f);
		if (file_read(o->from_log, SERVE_LOG_CAP, &buf, &e) < 0)
			return cli_fail(SCMD, &e);
		if (serve_log_parse(buf.buf, buf.len, &h, &r, &n, &e) < 0) {
			sb_release(&buf);
			cli_errorf(SCMD, "'%s': %s", o->from_log, e.msg);
			return EXIT_FAIL;
		}
		if (strcmp(h.trace_sha256, digest)) {
			sb_release(&buf);
			serve_records_release(r, n);
			cli_errorf(SCMD, "'%s' is the log of trace %s, not of '%s' (%s)",
				   o->from_log,
				   h.trace_sha256, o->trace, digest);
			return EXIT_FAIL;
		}
	} else {
		if (file_read(o->from_log, SERVE_LOG_CAP, &buf, &e) < 0)
			return cli_fail(SCMD, &e);
		if (serve_log_parse(buf.buf, buf.len, &h, &r, &n, &e) < 0) {
			sb_release(&buf);
			cli_errorf(SCMD, "'%s': %s", o->from_log, e.msg);
			return EXIT_FAIL;
		}
	}
	sb_release(&buf);
	serve_summarize(r, n, h.open_loop, h.max_lag_ms, slo, &s);
	if (o->chart && (rc = write_chart(o->chart, &s, r, n, h.trace_sha256)) != EXIT_OK) {
		serve_records_release(r, n);
		return rc;
	}
	print_summary(fmt, &s, h.trace_sha256);
	serve_records_release(r, n);
	return judge(&s);
}

/* --write-reference: a new file, never over one. Returns an exit status,
 * or -1 when fine. */
static int check_reference_out(const char *path)
{
	struct err e;

	if (!access(path, F_OK)) {
		cli_errorf(SCMD, "--write-reference: '%s' exists; references are never written "
			   "over (remove it or choose another name)", path);
		return EXIT_FAIL;
	}
	if (file_check_output(path, &e) < 0) {
		cli_errorf(SCMD, "--write-reference: %s", e.msg);
		return EXIT_FAIL;
	}
	return -1;
}

/* The outputs compared with the references: the prompts that differ, and
 * the exact match. */
static int quality_compare(const struct quality_set *s, char *const *out)
{
	size_t m = quality_matched(s, out);

	for (size_t i = 0; i < s->nr; i++)
		if (!s->p[i].reference || strcmp(out[i], s->p[i].reference))
			printf("prompt %zu: differs from its reference\n", i + 1);
	printf("exact_match %.6g: %zu of %zu prompts matched their reference\n",
	       (double)m / (double)s->nr, m, s->nr);
	return m == s->nr ? EXIT_OK : EXIT_FAIL;
}

/* --quality-prompts FILE [--write-reference OUT]. */
static int quality_mode(const struct sv_opts *o, struct serve_opts *so)
{
	struct quality_set s;
	struct strbuf sb = STRBUF_INIT;
	char digest[72], url[2048];
	char **out;
	struct err e;
	int rc;

	if ((rc = duration_opt(SCMD, sv_usage, "timeout", o->timeout, 1000000, 86400000000000LL,
			       "1ms..24h", &so->timeout_ns)) ||
	    (rc = duration_opt(SCMD, sv_usage, "connect-timeout", o->connect, 1000000,
			       3600000000000LL, "1ms..1h", &so->connect_ns)) ||
	    (rc = duration_opt(SCMD, sv_usage, "ready-timeout", o->ready, 0, 3600000000000LL,
			       "0..1h", &so->ready_ns)))
		return rc;
	if (serve_endpoint(o->endpoint, url, sizeof(url), &e) < 0) {
		char why[sizeof(e.msg) + 16];

		snprintf(why, sizeof(why), "--endpoint: %s", e.msg);
		return sv_usage_error(why);
	}
	so->endpoint = o->endpoint;
	so->model = o->model;
	if (o->write_ref && (rc = check_reference_out(o->write_ref)) >= 0)
		return rc;
	if (quality_load(o->quality, &s, digest, &e) < 0)
		return cli_fail(SCMD, &e);
	if (!o->write_ref && quality_missing_reference(&s) >= 0) {
		cli_errorf(SCMD, "'%s': prompts[%ld] has no reference; make them with "
			   "--write-reference OUT against a known-good server", o->quality,
			   quality_missing_reference(&s));
		quality_release(&s);
		return EXIT_FAIL;
	}
	out = xcalloc(s.nr, sizeof(*out));
	if ((so->ready_ns && serve_wait_ready(so, NULL, 0, &e) < 0) ||
	    quality_ask(so, &s, out, &e) < 0 ||
	    (o->write_ref && (quality_render(&s, out, &sb, digest, &e) < 0 ||
			      file_write_atomic(o->write_ref, sb.buf, sb.len, 0644, &e) < 0)))
		rc = cli_fail(SCMD, &e);
	else if (!o->write_ref)
		rc = quality_compare(&s, out);
	else
		rc = printf("wrote '%s': %zu prompts with their references, %s\n", o->write_ref,
			    s.nr, digest) < 0 ? EXIT_FAIL : EXIT_OK;
	for (size_t i = 0; i < s.nr; i++)
		free(out[i]);
	free(out);
	sb_release(&sb);
	quality_release(&s);
	return rc;
}

static int bench_serve(int argc, char **argv)
{
	struct sv_opts o = { 0 };
	struct err e;
	struct serve_opts so = { .timeout_ns = 600000000000LL, .stall_ns = 60000000000LL,
				 .connect_ns = 5000000000LL, .stop = &stop_flag };
	struct findings f = FINDINGS_INIT;
	struct serve_slo slo = { 0 };
	struct serve_log_head h = { 0 };
	struct serve_summary s;
	struct serve_record *r;
	struct sigaction sa = { 0 }, old_int, old_term;
	enum render_format fmt;
	int64_t max_lag = 1000000;
	char why[sizeof(e.msg) + 64], url[2048];
	struct trace t;
	int rest, rc, i;

	if ((rc = cmd_parse(SCMD, &bench_serve_spec, &o, argc, argv, &rest)) >= 0)
		return rc;
	if (rest < argc) {
		snprintf(why, sizeof(why), "unexpected argument '%.60s'", argv[rest]);
		return sv_usage_error(why);
	}
	if ((i = opts_empty(sv_opts, &o)) >= 0) {
		snprintf(why, sizeof(why), "--%s needs a value", sv_opts[i].name);
		return sv_usage_error(why);
	}
	if (report_format(o.format, false, &fmt, why, sizeof(why)) < 0)
		return sv_usage_error(why);
	if (o.slo && serve_slo_parse(o.slo, &slo, &e) < 0) {
		snprintf(why, sizeof(why), "--slo: %s", e.msg);
		return sv_usage_error(why);
	}
	if ((rc = cmd_rules_check(SCMD, &bench_serve_spec, opts_given(sv_opts, &o))) >= 0)
		return rc;
	if (o.from_log)
		return from_log(&o, fmt, o.slo ? &slo : NULL);
	if (o.quality)
		return quality_mode(&o, &so);
	if ((rc = duration_opt(SCMD, sv_usage, "max-lag", o.max_lag, 0, 3600000000000LL,
			       "0..1h", &max_lag)) ||
	    (rc = duration_opt(SCMD, sv_usage, "timeout", o.timeout, 0, 86400000000000LL,
			       "0..24h", &so.timeout_ns)) ||
	    (rc = duration_opt(SCMD, sv_usage, "stall-timeout", o.stall, 0, 86400000000000LL,
			       "0..24h", &so.stall_ns)) ||
	    (rc = duration_opt(SCMD, sv_usage, "connect-timeout", o.connect, 1000000,
			       3600000000000LL, "1ms..1h", &so.connect_ns)) ||
	    (rc = duration_opt(SCMD, sv_usage, "ready-timeout", o.ready, 0, 3600000000000LL,
			       "0..1h", &so.ready_ns)))
		return rc;
	if (serve_endpoint(o.endpoint, url, sizeof(url), &e) < 0) {
		snprintf(why, sizeof(why), "--endpoint: %s", e.msg);
		return sv_usage_error(why);
	}
	so.endpoint = o.endpoint;
	so.model = o.model;
	if ((rc = check_chart(&o)) >= 0)
		return rc;
	/* the log is evidence: never written over a file, nor over the trace */
	if (o.log) {
		if (!access(o.log, F_OK)) {
			cli_errorf(SCMD, "--log: '%s' exists; a log is the evidence of a run "
				   "and is never written over (remove it or choose another name)",
				   o.log);
			return EXIT_FAIL;
		}
		if (file_check_output(o.log, &e) < 0) {
			cli_errorf(SCMD, "--log: %s", e.msg);
			return EXIT_FAIL;
		}
	}
	if (trace_load(o.trace, &t, &f, h.trace_sha256, &e) < 0) {
		findings_release(&f);
		return cli_fail(SCMD, &e);
	}
	if (f.nr) {
		snprintf(why, sizeof(why), "'%s' is not a usable trace", o.trace);
		rc = cli_findings(SCMD, why, &f);
		findings_release(&f);
		trace_release(&t);
		return rc;
	}
	findings_release(&f);
	if (isatty(STDERR_FILENO))
		so.progress = progress;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = serve_run(&so, &t, &r, &e);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc < 0) {
		trace_release(&t);
		return cli_fail(SCMD, &e);
	}
	h.requests = t.nr;
	h.open_loop = t.process != TRACE_CLOSED;
	h.max_lag_ms = (double)max_lag / 1e6;
	serve_summarize(r, t.nr, h.open_loop, h.max_lag_ms, o.slo ? &slo : NULL, &s);
	rc = EXIT_OK;
	if (o.log) {
		struct strbuf lb = STRBUF_INIT;

		serve_log_head_line(&lb, &h);
		for (size_t k = 0; k < t.nr; k++)
			serve_log_line(&lb, &r[k]);
		if (file_write_atomic(o.log, lb.buf, lb.len, 0644, &e) < 0)
			rc = cli_fail(SCMD, &e);
		sb_release(&lb);
	}
	if (o.chart && rc == EXIT_OK)
		rc = write_chart(o.chart, &s, r, t.nr, h.trace_sha256);
	print_summary(fmt, &s, h.trace_sha256);
	name_failures(r, t.nr);
	i = judge(&s);
	serve_records_release(r, t.nr);
	trace_release(&t);
	if (stop_flag) {
		cli_errorf(SCMD, "interrupted by %s: the requests not sent are counted as not-sent",
			   strsignal(stop_flag));
		return 128 + stop_flag;
	}
	return rc ? rc : i;
}
