/* Serving summaries: text (vllm bench serve's layout), Markdown, CSV. */
#include "render/serving.h"

#include <stdio.h>

static const char *tokens_from(const struct serve_summary *s)
{
	return !s->completed ? "none"
	     : s->output_from_usage == s->completed ? "usage"
	     : s->output_from_usage ? "usage and counted chunks" : "counted chunks";
}

struct dist_row {
	const char *name, *what;
	const struct serve_dist *d;
};

static void rows(const struct serve_summary *s, struct dist_row out[5])
{
	out[0] = (struct dist_row){ "ttft_ms", "TTFT (ms)", &s->ttft };
	out[1] = (struct dist_row){ "tpot_ms", "TPOT (ms)", &s->tpot };
	out[2] = (struct dist_row){ "itl_ms", "ITL (ms)", &s->itl };
	out[3] = (struct dist_row){ "e2el_ms", "E2EL (ms)", &s->e2el };
	out[4] = (struct dist_row){ "send_lag_ms", "send lag (ms)", &s->lag };
}

void render_serving_failures(struct strbuf *out, const struct serve_summary *s)
{
	const char *sep = "";

	for (int k = 1; k < SERVE_NR_FAILS; k++)
		if (s->fails[k]) {
			sb_addf(out, "%s%zu %s", sep, s->fails[k], serve_fail_names[k]);
			sep = ", ";
		}
}

void render_serving_text(struct strbuf *out, const struct serve_summary *s,
			 const char *trace_sha256)
{
	struct dist_row r[5];

	rows(s, r);
	sb_addf(out, "trace              %s\n", trace_sha256);
	sb_addf(out, "requests           %zu: %zu completed, %zu failed", s->requests, s->completed,
		s->failed);
	if (s->failed) {
		sb_adds(out, " (");
		render_serving_failures(out, s);
		sb_adds(out, ")");
	}
	sb_addf(out, "\nduration           %.3f s\n", s->duration_s);
	sb_addf(out, "request throughput %.3f req/s\n", s->request_throughput);
	sb_addf(out, "output throughput  %.2f tok/s\n", s->output_throughput);
	sb_addf(out, "total throughput   %.2f tok/s\n", s->total_throughput);
	sb_addf(out, "tokens             %lld prompt, %lld output (output from %s)\n",
		s->prompt_tokens, s->output_tokens, tokens_from(s));
	if (s->cached_reported)
		sb_addf(out, "cached prompt      %lld tokens, prefix-hit rate %.1f%% (%zu requests "
			"report it)\n", s->cached_tokens, 100 * s->prefix_hit_rate,
			s->cached_reported);
	else
		sb_adds(out, "cached prompt      not reported by the server\n");
	if (s->has_slo)
		sb_addf(out, "goodput            %.3f req/s (%zu of %zu completed meet the SLOs)\n",
			s->goodput, s->good, s->completed);
	sb_addf(out, "\n%-14s %7s %10s %10s %10s %10s %10s %10s\n", "", "n", "mean", "p50", "p90",
		"p95", "p99", "max");
	for (int i = 0; i < 5; i++) {
		if (i == 4 && !s->open_loop)
			continue;
		sb_addf(out, "%-14s %7zu %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", r[i].what,
			r[i].d->n, r[i].d->mean, r[i].d->p50, r[i].d->p90, r[i].d->p95, r[i].d->p99,
			r[i].d->max);
	}
	if (!s->open_loop)
		sb_adds(out, "\nschedule           closed loop (no send schedule, no lag)\n");
	else if (s->fell_behind)
		sb_addf(out, "\nschedule           FELL BEHIND: %zu of %zu sends later than "
			"%.3g ms after their schedule (max %.3f ms)\n", s->late, s->lag.n,
			s->max_lag_ms, s->lag.max);
	else
		sb_addf(out, "\nschedule           on time: every send within %.3g ms of its "
			"schedule (max %.3f ms)\n", s->max_lag_ms, s->lag.max);
	sb_adds(out, "definitions        vllm bench serve's (TTFT, TPOT without the first token, "
		"ITL between chunks, E2EL)\n");
}

void render_serving_md(struct strbuf *out, const struct serve_summary *s,
		       const char *trace_sha256)
{
	struct dist_row r[5];

	rows(s, r);
	sb_adds(out, "| run | value |\n| --- | --- |\n");
	sb_addf(out, "| trace | `%s` |\n", trace_sha256);
	sb_addf(out, "| requests | %zu |\n| completed | %zu |\n| failed | %zu", s->requests,
		s->completed, s->failed);
	if (s->failed) {
		sb_adds(out, " (");
		render_serving_failures(out, s);
		sb_adds(out, ")");
	}
	sb_addf(out, " |\n| duration (s) | %.3f |\n", s->duration_s);
	sb_addf(out, "| request throughput (req/s) | %.3f |\n", s->request_throughput);
	sb_addf(out, "| output throughput (tok/s) | %.2f |\n", s->output_throughput);
	sb_addf(out, "| total throughput (tok/s) | %.2f |\n", s->total_throughput);
	sb_addf(out, "| output tokens from | %s |\n", tokens_from(s));
	if (s->cached_reported)
		sb_addf(out, "| prefix-hit rate | %.1f%% (%lld cached prompt tokens) |\n",
			100 * s->prefix_hit_rate, s->cached_tokens);
	if (s->has_slo)
		sb_addf(out, "| goodput (req/s) | %.3f |\n", s->goodput);
	sb_addf(out, "| schedule | %s |\n", !s->open_loop ? "closed loop"
		: s->fell_behind ? "**fell behind**" : "on time");
	sb_adds(out, "\n| metric | n | mean | p50 | p90 | p95 | p99 | max |\n"
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (int i = 0; i < 5; i++) {
		if (i == 4 && !s->open_loop)
			continue;
		sb_addf(out, "| %s | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r[i].what,
			r[i].d->n, r[i].d->mean, r[i].d->p50, r[i].d->p90, r[i].d->p95, r[i].d->p99,
			r[i].d->max);
	}
}

void render_serving_csv(struct strbuf *out, const struct serve_summary *s)
{
	struct dist_row r[5];

	rows(s, r);
	sb_adds(out, RENDER_SERVING_CSV_HEADER "\n");
	sb_addf(out, "requests,count,%zu,,,,,,\n", s->requests);
	sb_addf(out, "completed,count,%zu,,,,,,\n", s->completed);
	sb_addf(out, "failed,count,%zu,,,,,,\n", s->failed);
	sb_addf(out, "duration,s,,%.6f,,,,,\n", s->duration_s);
	sb_addf(out, "request_throughput,req/s,,%.6f,,,,,\n", s->request_throughput);
	sb_addf(out, "output_token_throughput,tok/s,,%.6f,,,,,\n", s->output_throughput);
	sb_addf(out, "total_token_throughput,tok/s,,%.6f,,,,,\n", s->total_throughput);
	if (s->has_slo)
		sb_addf(out, "goodput,req/s,%zu,%.6f,,,,,\n", s->good, s->goodput);
	if (s->cached_reported)
		sb_addf(out, "prefix_hit_rate,ratio,%zu,%.6f,,,,,\n", s->cached_reported,
			s->prefix_hit_rate);
	for (int i = 0; i < 5; i++)
		sb_addf(out, "%s,ms,%zu,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", r[i].name, r[i].d->n,
			r[i].d->mean, r[i].d->p50, r[i].d->p90, r[i].d->p95, r[i].d->p99,
			r[i].d->max);
}
