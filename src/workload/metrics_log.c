/* A run's captured stdout: what the parsers read of it, and the log
 * against the attestation that sealed it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attestation/layout.h"
#include "base/digest.h"
#include "base/file.h"
#include "base/xalloc.h"
#include "workload/metrics.h"
#include "attestation/attestation.h"

int metrics_read_output(int fd, int64_t size, const struct metrics_parser *mp, struct strbuf *sb,
		       char *why, size_t cap)
{
	int64_t max = (int64_t)mp->max_bytes, off = !mp->whole && size > max ? size - max : 0;
	size_t want = (size_t)(size - off);

	why[0] = '\0';
	if (mp->whole && size > (int64_t)mp->max_bytes) {
		snprintf(why, cap, "stdout holds %lld bytes; the %s parser reads at most %zu",
			 (long long)size, mp->id, mp->max_bytes);
		return 0;
	}
	sb_reset(sb);
	sb_grow(sb, want);
	while (sb->len < want) {
		ssize_t n = pread(fd, sb->buf + sb->len, want - sb->len,
				  (off_t)(off + (int64_t)sb->len));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		sb->len += (size_t)n;
	}
	sb->buf[sb->len] = '\0';
	return 0;
}

bool metrics_log_matches(const struct wl_stream *st, int64_t bytes, const char *sha256)
{
	if (st->has_kept)
		return bytes == st->kept.bytes && !strcmp(sha256, st->kept.sha256);
	return bytes == st->bytes && !strcmp(sha256, st->sha256);
}

/* A serving run: its stdout is the server's, which fak does not parse; its
 * metrics come from the per-request log beside it (NAME.requests.jsonl for
 * NAME.stdout), whose digest the attestation seals. */
static int verify_serving(const struct attestation *r, const char *log_path, char *summary,
			  size_t cap, struct err *e)
{
	const struct workload *w = &r->workload;
	size_t n = strlen(log_path);
	char *req, hex[65];
	int64_t bytes;
	int rc;

	if (digest_file(log_path, hex, &bytes, e) < 0)
		return -1;
	if (!metrics_log_matches(&w->out, bytes, hex))
		return err_set(e, "'%s' is not the sealed stdout of the server", log_path);
	if (!w->has_metrics) {
		snprintf(summary, cap, "log matches; the serving run yielded no metrics, as "
			 "sealed");
		return 0;
	}
	if (n < 7 || strcmp(log_path + n - 7, ".stdout"))
		return err_set(e, "'%s': a serving run's per-request log is found beside its "
			       "NAME.stdout", log_path);
	req = xasprintf("%.*s" LAYOUT_REQUESTS, (int)(n - 7), log_path);
	rc = digest_file(req, hex, &bytes, e);
	if (rc == 0 && strcmp(hex, w->serving.log_sha256))
		rc = err_set(e, "'%s' is not the per-request log the attestation sealed: sha256 "
			     "%s, sealed %s", req, hex, w->serving.log_sha256);
	free(req);
	/* --quality-prompts: the outputs the run's quality was judged on */
	req = xasprintf("%.*s" LAYOUT_QUALITY, (int)(n - 7), log_path);
	if (rc == 0 && w->serving.has_quality && (rc = digest_file(req, hex, &bytes, e)) == 0 &&
	    strcmp(hex, w->serving.quality.log_sha256))
		rc = err_set(e, "'%s' is not the quality log the attestation sealed: sha256 %s, "
			     "sealed %s", req, hex, w->serving.quality.log_sha256);
	if (rc == 0)
		snprintf(summary, cap, "log matches; its per-request log%s matches the sealed "
			 "sha256", w->serving.has_quality ? " and its quality log" : "");
	free(req);
	return rc;
}

int metrics_verify_log(const struct attestation *r, const char *log_path, char *summary, size_t cap,
		       struct err *e)
{
	const struct workload *w = &r->workload;
	const struct metrics_parser *mp = metrics_parser_find(w->parser);
	struct strbuf sb = STRBUF_INIT;
	struct wl_metrics m;
	struct err pe;
	char hex[65];
	int64_t bytes;
	int rc;

	if (!r->has_workload)
		return err_set(e, "the attestation is fak.system-baseline/v1: it seals no "
			       "captured output to check a log against");
	if (w->serving.present)
		return verify_serving(r, log_path, summary, cap, e);
	if (!mp)
		return err_set(e, "unknown parser \"%s\"", w->parser);
	if (digest_file(log_path, hex, &bytes, e) < 0)
		return -1;
	if (!metrics_log_matches(&w->out, bytes, hex))
		return err_set(e, "'%s' is not the sealed stdout: %lld bytes with sha256 %s, "
			       "sealed %lld bytes with sha256 %s", log_path, (long long)bytes, hex,
			       (long long)(w->out.has_kept ? w->out.kept.bytes : w->out.bytes),
			       w->out.has_kept ? w->out.kept.sha256 : w->out.sha256);
	if (r->command_exit_code) {
		/* the runner parses nothing a failed command printed */
		snprintf(summary, cap, "log matches; the command failed (exit %lld), so its "
			 "output was not parsed", (long long)r->command_exit_code);
		return 0;
	}
	{
		int fd = open(log_path, O_RDONLY | O_CLOEXEC);
		char why[ATTESTATION_TEXT_MAX];

		if (fd < 0)
			return err_errno(e, errno, "cannot read '%s'", log_path);
		/* a parser that reads all of stdout judges the whole stream's size
		 * (a kept log is longer than it reads); one that reads the tail
		 * reads the kept log's, which is the stream's */
		rc = metrics_read_output(fd, mp->whole ? w->out.bytes : bytes, mp, &sb, why,
				    sizeof(why));
		close(fd);
		if (rc < 0) {
			sb_release(&sb);
			return err_errno(e, errno ? errno : EIO, "cannot read '%s'", log_path);
		}
		if (why[0]) {
			sb_release(&sb);
			if (w->has_metrics || strcmp(why, w->metrics_error))
				return err_set(e, "'%s': %s, unlike what the attestation sealed",
					       log_path, why);
			snprintf(summary, cap, "log matches; it yields no metrics, as sealed");
			return 0;
		}
	}
	rc = metrics_parse(w->parser, sb.buf, sb.len, w->prompt_tokens, w->decode_tokens, &m, &pe);
	sb_release(&sb);
	if (rc < 0) {
		if (w->has_metrics)
			return err_set(e, "re-parsing '%s' with %s fails (%s) but the attestation "
				       "sealed metrics", log_path, w->parser, pe.msg);
		snprintf(summary, cap, "log matches; it yields no metrics, as sealed");
		return 0;
	}
	if (!w->has_metrics)
		return err_set(e, "re-parsing '%s' with %s yields metrics but the attestation "
			       "sealed an error", log_path, w->parser);
	if (!wl_metrics_equal(&m, &w->metrics))
		return err_set(e, "re-parsing '%s' with %s yields other metrics than the "
			       "attestation sealed", log_path, w->parser);
	if (m.has_throughput)
		/* rounded for people: the sealed value is in the attestation */
		snprintf(summary, cap, "log matches: %s, %.4g tok/s", w->parser,
			 m.tokens_per_second);
	else
		snprintf(summary, cap, "log matches: %s, quality %s=%.4g", w->parser,
			 m.quality.name, m.quality.score);
	return 0;
}
