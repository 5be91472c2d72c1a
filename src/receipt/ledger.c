/* The attempt ledger: a hash-chained JSON Lines file, verified whole on
 * every load and appended to under an exclusive lock. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/dates.h"
#include "base/jfields.h"
#include "base/digest.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "receipt/ledger.h"

static const char *const event_names[] = { [LEDGER_STARTED] = "started",
					    [LEDGER_ENDED] = "ended" };
static const char *const gate_names[] = { "pass", "investigate", "regression", "none", NULL };

static bool is_digest(const char *s)
{
	return !strncmp(s, "sha256:", 7) && digest_is_hex(s + 7);
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* The members of one line's object, checked one by one. */
static int decode_line(json_t *o, struct ledger_line *ln, struct err *e)
{
	static const char *const keys[] = { "schema", "seq", "prev", "event", "experiment_id",
					    "lever_id", "envelope_id", "envelope_digest",
					    "criterion_digest", "time", "out_dir", "verdict",
					    "gate", "digest", NULL };
	struct jpath at;
	const char *schema, *event;
	int64_t ns;

	TRY(jd_object(o, NULL, keys, e));
	TRY(jd_str(o, NULL, "schema", REQ, &schema, e));
	if (strcmp(schema, LEDGER_SCHEMA))
		return err_set(e, "schema: must be \"" LEDGER_SCHEMA "\"");
	TRY(jd_int(o, NULL, "seq", REQ, &ln->seq, e));
	TRY(jd_str(o, NULL, "prev", REQ, &ln->prev, e));
	TRY(jd_str(o, NULL, "event", REQ, &event, e));
	TRY(jd_str(o, NULL, "experiment_id", REQ, &ln->experiment_id, e));
	TRY(jd_str(o, NULL, "lever_id", REQ, &ln->lever_id, e));
	TRY(jd_str(o, NULL, "envelope_id", REQ, &ln->envelope_id, e));
	TRY(jd_str(o, NULL, "envelope_digest", REQ, &ln->envelope_digest, e));
	TRY(jd_str(o, NULL, "criterion_digest", REQ, &ln->criterion_digest, e));
	TRY(jd_str(o, NULL, "time", REQ, &ln->time, e));
	TRY(jd_str(o, NULL, "out_dir", REQ, &ln->out_dir, e));
	TRY(jd_str(o, NULL, "digest", REQ, &ln->digest, e));
	if (!strcmp(event, "started"))
		ln->event = LEDGER_STARTED;
	else if (!strcmp(event, "ended"))
		ln->event = LEDGER_ENDED;
	else
		return err_set(e, "event: must be \"started\" or \"ended\"");
	if (ln->event == LEDGER_ENDED) {
		TRY(jd_str(o, NULL, "verdict", REQ, &ln->verdict, e));
		TRY(jd_str(o, NULL, "gate", REQ, &ln->gate, e));
		if (!*ln->verdict || strlen(ln->verdict) > 64)
			return err_set(e, "verdict: must hold 1 to 64 bytes");
		if (!in_list(ln->gate, gate_names))
			return err_set(e, "gate: must be pass, investigate, regression or none");
	} else if (json_object_get(o, "verdict") || json_object_get(o, "gate")) {
		return err_set(e, "a \"started\" line has no verdict and no gate");
	}
	if (!digest_is_hexn(ln->experiment_id, 32))
		return err_set(e, "experiment_id: must be 32 lowercase hex digits");
	if (!*ln->lever_id || !*ln->envelope_id)
		return err_set(e, "lever_id and envelope_id must not be empty");
	at = JP_KEY(NULL, "envelope_digest");
	if (!is_digest(ln->envelope_digest))
		return jpath_err(e, &at, "must be \"sha256:\" and 64 lowercase hex digits");
	at = JP_KEY(NULL, "criterion_digest");
	if (!is_digest(ln->criterion_digest))
		return jpath_err(e, &at, "must be \"sha256:\" and 64 lowercase hex digits");
	if (!is_digest(ln->prev) || !is_digest(ln->digest))
		return err_set(e, "prev and digest must be \"sha256:\" and 64 lowercase hex "
				  "digits");
	if (timestamp_parse(ln->time, &ns) < 0)
		return err_set(e, "time: not an RFC 3339 UTC timestamp as fak writes them");
	if (!*ln->out_dir || ln->out_dir[0] == '/')
		return err_set(e, "out_dir: must be a relative path");
	return 0;
}

/* One line (without its newline), the n-th (1-based), after prev. */
static int parse_line(const char *s, size_t len, size_t n, const char *prev,
		      struct ledger_line *ln, struct err *e)
{
	struct strbuf canon = STRBUF_INIT;
	char want[JSON_DIGEST_LEN + 1];
	json_t *o;
	int rc = -1;

	memset(ln, 0, sizeof(*ln));
	if (len > LEDGER_LINE_MAX)
		return err_set(e, "longer than %d bytes", LEDGER_LINE_MAX);
	if (!len)
		return err_set(e, "empty");
	if (!(o = json_parse_strict(s, len, NULL, e)))
		return -1;
	ln->doc = o;
	if (!json_is_object(o)) {
		err_set(e, "not a JSON object");
		goto out;
	}
	if (decode_line(o, ln, e) < 0)
		goto out;
	if (json_write_canonical(&canon, o, e) < 0)
		goto out;
	if (canon.len != len || memcmp(canon.buf, s, len)) {
		err_set(e, "not in RFC 8785 canonical form (fak writes every line canonical)");
		goto out;
	}
	if (ln->seq != (long long)n) {
		err_set(e, "seq is %lld, expected %zu: a line was deleted, inserted or moved",
			ln->seq, n);
		goto out;
	}
	if (strcmp(ln->prev, prev)) {
		err_set(e, "prev is %s, but %s is %s: a line before it was deleted, changed or "
			   "moved", ln->prev, n == 1 ? "the start of the chain" : "the line before",
			prev);
		goto out;
	}
	if (json_digest(o, "digest", want, e) < 0)
		goto out;
	if (strcmp(want, ln->digest)) {
		err_set(e, "its digest is %s, but its content digests to %s: the line was edited",
			ln->digest, want);
		goto out;
	}
	rc = 0;
out:
	sb_release(&canon);
	if (rc < 0) {
		json_decref(o);
		ln->doc = NULL;
	}
	return rc;
}

int ledger_parse(const char *buf, size_t len, const char *what, struct ledger *l, struct err *e)
{
	const char *prev = LEDGER_ZERO;
	size_t pos = 0, n = 0;

	memset(l, 0, sizeof(*l));
	if (len > LEDGER_MAX_BYTES)
		return err_set(e, "%s: larger than %zu bytes (the ledger's cap)", what,
			       LEDGER_MAX_BYTES);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		struct ledger_line ln;

		n++;
		if (!nl) {
			err_set(e, "%s: line %zu has no newline at its end: an append was cut "
				   "short (a torn write); restore the file from version control "
				   "(git checkout) and run the experiment again", what, n);
			goto fail;
		}
		if (parse_line(buf + pos, ll, n, prev, &ln, e) < 0) {
			err_prefix(e, "%s: line %zu", what, n);
			goto fail;
		}
		l->lines = xrealloc(l->lines, xmul(l->nr + 1, sizeof(*l->lines)));
		l->lines[l->nr++] = ln;
		prev = ln.digest ? ln.digest : LEDGER_ZERO;	/* set: decode_line requires it */
		pos += ll + 1;
	}
	return 0;
fail:
	ledger_release(l);
	return -1;
}

void ledger_release(struct ledger *l)
{
	for (size_t i = 0; i < l->nr; i++)
		json_decref(l->lines[i].doc);
	free(l->lines);
	memset(l, 0, sizeof(*l));
}

static int not_regular(const char *path, const struct stat *st, struct err *e)
{
	return err_set(e, "ledger '%s' is not a regular file (%s): fak appends attempts only "
			  "to a plain file; move it away and restore attempts.jsonl from "
			  "version control", path,
		       S_ISLNK(st->st_mode) ? "a symbolic link" : S_ISDIR(st->st_mode) ? "a folder"
		       : S_ISFIFO(st->st_mode) ? "a FIFO" : "a special file");
}

/* All of fd (a regular file) from offset 0, at most the cap. */
static int read_fd(int fd, const char *path, struct strbuf *sb, struct err *e)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;

	sb_reset(sb);
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		if (sb->len + (size_t)n > LEDGER_MAX_BYTES)
			return err_set(e, "ledger '%s' is larger than %zu bytes (the ledger's "
					  "cap); start a new witness root", path,
				       LEDGER_MAX_BYTES);
		sb_add(sb, buf, (size_t)n);
		off += n;
	}
	if (n < 0)
		return err_errno(e, errno, "cannot read ledger '%s'", path);
	return 0;
}

int ledger_load(const char *path, struct ledger *l, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int fd, rc;

	memset(l, 0, sizeof(*l));
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT) {
			l->missing = true;
			return 0;
		}
		return err_errno(e, errno, "cannot read ledger '%s'", path);
	}
	if (!S_ISREG(st.st_mode))
		return not_regular(path, &st, e);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return err_errno(e, errno, "cannot read ledger '%s'", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(path, &st, e);
	}
	rc = read_fd(fd, path, &sb, e);
	close(fd);
	if (rc == 0)
		rc = ledger_parse(sb.buf ? sb.buf : "", sb.len, path, l, e);
	sb_release(&sb);
	return rc;
}

/* The folder of path (caller frees). */
static char *folder_of(const char *path)
{
	char *c = xstrdup(path), *d = xstrdup(dirname(c));

	free(c);
	return d;
}

int ledger_check(const char *path, struct err *e)
{
	struct ledger l;
	struct stat st;
	char *dir, *up;
	int rc = 0;

	if (ledger_load(path, &l, e) < 0)
		return -1;
	if (!l.missing) {
		ledger_release(&l);
		return 0;
	}
	dir = folder_of(path);
	up = folder_of(dir);
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			rc = err_set(e, "witness root '%s' is not a folder", dir);
		else if (access(dir, W_OK) < 0)
			rc = err_errno(e, errno, "cannot write the ledger into '%s'", dir);
	} else if (stat(up, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rc = err_set(e, "witness root '%s' does not exist, nor does its folder '%s'; "
				"create it first", dir, up);
	}
	free(up);
	free(dir);
	return rc;
}

char *ledger_scrub_dir(const char *dir)
{
	char *c = xstrdup(dir), *r;
	size_t n = strlen(c);
	bool dots = false;

	while (n > 1 && c[n - 1] == '/')
		c[--n] = '\0';
	for (const char *p = c; (p = strstr(p, "..")); p += 2)
		if ((p == c || p[-1] == '/') && (p[2] == '/' || !p[2]))
			dots = true;
	if (c[0] != '/' && !dots && *c)
		return c;
	r = strrchr(c, '/');
	r = xstrdup(r && r[1] ? r + 1 : "experiment");
	if (!strcmp(r, "..") || !strcmp(r, ".")) {
		free(r);
		r = xstrdup("experiment");
	}
	free(c);
	return r;
}

/* The canonical line (with its newline) of in after the line prev (seq,
 * digest): *digest gets its own. */
static int build_line(const struct ledger_entry *in, long long seq, const char *prev,
		      struct strbuf *out, char digest[JSON_DIGEST_LEN + 1], struct err *e)
{
	json_t *o = jobj();
	char when[40], *od = ledger_scrub_dir(in->out_dir);
	struct timespec ts;
	int rc;

	clock_gettime(CLOCK_REALTIME, &ts);
	timestamp_format((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, when);
	jset_str(o, "schema", LEDGER_SCHEMA);
	jset_int(o, "seq", seq);
	jset_str(o, "prev", prev);
	jset_str(o, "event", event_names[in->event]);
	jset_str(o, "experiment_id", in->experiment_id);
	jset_str(o, "lever_id", in->lever_id);
	jset_str(o, "envelope_id", in->envelope_id);
	jset_str(o, "envelope_digest", in->envelope_digest);
	jset_str(o, "criterion_digest", in->criterion_digest);
	jset_str(o, "time", when);
	jset_str(o, "out_dir", od);
	free(od);
	if (in->event == LEDGER_ENDED) {
		jset_str(o, "verdict", in->verdict);
		jset_str(o, "gate", in->gate);
	}
	rc = json_digest(o, NULL, digest, e);
	if (rc == 0) {
		jset_str(o, "digest", digest);
		rc = json_write_canonical(out, o, e);
		sb_addch(out, '\n');
	}
	json_decref(o);
	return rc;
}

/* Opens path for appending: a regular file, never through a symbolic
 * link; its folder is created when only that is missing. */
static int open_append(const char *path, struct err *e)
{
	int flags = O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int fd = open(path, flags, 0644);
	struct stat st;

	if (fd < 0 && errno == ENOENT) {
		char *dir = folder_of(path);

		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			err_errno(e, errno, "cannot create witness root '%s'", dir);
			free(dir);
			return -1;
		}
		free(dir);
		fd = open(path, flags, 0644);
	}
	if (fd < 0) {
		if ((errno == ELOOP || errno == ENXIO || errno == EISDIR) &&
		    lstat(path, &st) == 0)
			return not_regular(path, &st, e);
		return err_errno(e, errno, "cannot open ledger '%s' for appending", path);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int rc = not_regular(path, &st, e);

		close(fd);
		return rc;
	}
	return fd;
}

int ledger_append(const char *path, const struct ledger_entry *in, long long *seq,
		  char digest[JSON_DIGEST_LEN + 1], struct err *e)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
	struct ledger l = { 0 };
	int fd = open_append(path, e), rc = -1;
	ssize_t w;

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX) < 0) {
		err_errno(e, errno, "cannot lock ledger '%s'", path);
		goto out;
	}
	if (read_fd(fd, path, &sb, e) < 0 ||
	    ledger_parse(sb.buf ? sb.buf : "", sb.len, path, &l, e) < 0)
		goto out;
	*seq = (long long)l.nr + 1;
	if (build_line(in, *seq, ledger_head(&l), &line, digest, e) < 0)
		goto out;
	if (sb.len + line.len > LEDGER_MAX_BYTES) {
		err_set(e, "ledger '%s' would grow past %zu bytes (the ledger's cap); start a new "
			   "witness root", path, LEDGER_MAX_BYTES);
		goto out;
	}
	w = write(fd, line.buf, line.len);
	if (w != (ssize_t)line.len) {
		int errnum = w < 0 ? errno : ENOSPC;

		/* never leave a torn line behind */
		if (w > 0 && ftruncate(fd, (off_t)sb.len) < 0)
			errnum = errno;
		err_errno(e, errnum, "cannot append to ledger '%s'", path);
		goto out;
	}
	if (fsync(fd) < 0) {
		err_errno(e, errno, "cannot sync ledger '%s'", path);
		goto out;
	}
	if (sb.len == 0) {	/* a new file: its name must survive a crash too */
		char *dir = folder_of(path);
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	rc = 0;
out:
	close(fd);
	ledger_release(&l);
	sb_release(&sb);
	sb_release(&line);
	return rc;
}

const struct ledger_line *ledger_find(const struct ledger *l, const char *experiment_id,
				      enum ledger_event ev)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->lines[i].event == ev && !strcmp(l->lines[i].experiment_id, experiment_id))
			return &l->lines[i];
	return NULL;
}

size_t ledger_attempts(const struct ledger *l, const char *lever_id, const char *envelope_digest)
{
	size_t n = 0;

	for (size_t i = 0; i < l->nr; i++) {
		const struct ledger_line *x = &l->lines[i];

		n += x->event == LEDGER_STARTED && !strcmp(x->lever_id, lever_id) &&
		     !strcmp(x->envelope_digest, envelope_digest);
	}
	return n;
}

size_t ledger_attempt_number(const struct ledger *l, const char *experiment_id)
{
	const struct ledger_line *s = ledger_find(l, experiment_id, LEDGER_STARTED);
	size_t k = 0;

	if (!s)
		return 0;
	for (const struct ledger_line *x = l->lines; x <= s; x++)
		k += x->event == LEDGER_STARTED && !strcmp(x->lever_id, s->lever_id) &&
		     !strcmp(x->envelope_digest, s->envelope_digest);
	return k;
}

const char *ledger_head(const struct ledger *l)
{
	return l->nr ? l->lines[l->nr - 1].digest : LEDGER_ZERO;
}

/* ---- attempt.json ------------------------------------------------------ */

#define REC(kind, m) JF(kind, struct ledger_record, m, JF_REQ)
static const struct jfield record_fields[] = {
	REC(JF_STR, schema),
	REC(JF_STR, experiment_id),
	REC(JF_STR, lever_id),
	REC(JF_STR, envelope_id),
	REC(JF_STR, envelope_digest),
	REC(JF_STR, ledger),
	REC(JF_COUNT, attempt),
	REC(JF_COUNT, attempts),
	REC(JF_COUNT, started_seq),
	REC(JF_STR, started_digest),
	REC(JF_COUNT, ended_seq),
	REC(JF_STR, ended_digest),
	JF_END,
};
#undef REC

json_t *ledger_record_json(const struct ledger_record *r)
{
	struct ledger_record c = *r;

	c.schema = LEDGER_RECORD_SCHEMA;
	return jf_to_json(record_fields, &c);
}

int ledger_record_parse(const char *buf, size_t len, const char *what, struct ledger_record *r,
			struct err *e)
{
	memset(r, 0, sizeof(*r));
	if (len > LEDGER_LINE_MAX * 4)
		return err_set(e, "%s: larger than %d bytes", what, LEDGER_LINE_MAX * 4);
	if (!(r->doc = json_parse_strict(buf, len, what, e)))
		return -1;
	if (jf_decode(record_fields, r->doc, NULL, r, e) < 0) {
		err_prefix(e, "%s", what);
		goto fail;
	}
	if (strcmp(r->schema, LEDGER_RECORD_SCHEMA))
		err_set(e, "%s: schema: must be \"" LEDGER_RECORD_SCHEMA "\"", what);
	else if (!digest_is_hexn(r->experiment_id, 32))
		err_set(e, "%s: experiment_id: must be 32 lowercase hex digits", what);
	else if (!is_digest(r->envelope_digest) || !is_digest(r->started_digest) ||
		 !is_digest(r->ended_digest))
		err_set(e, "%s: envelope_digest, started_digest and ended_digest must each be "
			   "\"sha256:\" and 64 lowercase hex digits", what);
	else if (r->attempt < 1 || r->attempts < r->attempt || r->started_seq < 1 ||
		 r->ended_seq <= r->started_seq)
		err_set(e, "%s: must hold 1 <= attempt <= attempts and 1 <= started_seq < "
			   "ended_seq", what);
	else
		return 0;
fail:
	ledger_record_release(r);
	return -1;
}

void ledger_record_release(struct ledger_record *r)
{
	json_decref(r->doc);
	memset(r, 0, sizeof(*r));
}
