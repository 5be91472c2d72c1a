/* Writing a promotion all together or not at all.
 *
 * 1. The journal (in the graph file's folder) says "staging" and lists the
 *    staged paths: the new graph and index beside their targets, the new
 *    witness folder beside the witness root. Each is written and fsynced.
 * 2. The journal is rewritten (atomically) to "committing" with the renames
 *    to run: witness folder, graph, index.
 * 3. The renames run; the journal is removed.
 * A crash in 1 leaves staged files that the next fak command deletes (rolled
 * back: nothing visible changed); a crash in 2 or 3 leaves a journal whose
 * renames the next fak command completes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"
#include "witness/witness.h"


/* FAK_PROMOTE_FAULT=N: SIGKILL at the N-th step; =fail:N: the N-th step
 * fails instead, as a rename across devices would; =stop:N: SIGTERM there,
 * as a user's kill would (tests only). */
static int fault_point(int *step, struct err *e)
{
	static int target = -1, sig = SIGKILL;
	static bool fail;

	if (target < 0) {
		const char *v = getenv(WITNESS_FAULT_ENV);

		fail = v && !strncmp(v, "fail:", 5);
		if (v && !strncmp(v, "stop:", 5))
			sig = SIGTERM;
		target = v ? atoi(fail || sig == SIGTERM ? v + 5 : v) : 0;
	}
	if (++*step != target)
		return 0;
	if (fail)
		return err_errno(e, EXDEV, "step %d of the promotion (a test fault)", target);
	kill(getpid(), sig);
	return 0;
}

/* What a signal handler may read: where the promotion is. */
static volatile sig_atomic_t phase = WITNESS_PHASE_NONE;

int witness_commit_phase(void)
{
	return phase;
}

static char *dir_of(const char *path)
{
	char *c = xstrdup(path), *d = xstrdup(dirname(c));

	free(c);
	return d;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The journal's removal is the promotion's last step: durable before the
 * promotion counts as done. */
static int remove_journal(const char *journal, const char *dir, struct err *e)
{
	if (unlink(journal) < 0)
		return err_errno(e, errno, "cannot remove '%s'", journal);
	sync_dir(dir);
	return 0;
}

/* No element of path that exists is a symbolic link (path absolute). */
static bool no_links(const char *path)
{
	char *c = xstrdup(path);
	bool ok = true;

	for (char *s = c + 1;; s++) {
		if (*s == '/' || !*s) {
			char save = *s;
			struct stat st;

			*s = '\0';
			if (lstat(c, &st) < 0) {
				*s = save;
				break;	/* what does not exist yet is not a link */
			}
			if (S_ISLNK(st.st_mode))
				ok = false;
			*s = save;
			if (!save || !ok)
				break;
		}
	}
	free(c);
	return ok;
}

/* mkdir -p of path's parents (not path itself), never through a link. */
static int make_parents(const char *path, struct err *e)
{
	char *c = xstrdup(path);

	if (!no_links(path)) {
		free(c);
		return err_set(e, "'%s' passes through a symbolic link; fak does not follow one "
				  "here", path);
	}
	for (char *s = c + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(c, 0755) < 0 && errno != EEXIST) {
			int saved = errno;

			err_errno(e, saved, "cannot create '%s'", c);
			free(c);
			return -1;
		}
		*s = '/';
	}
	free(c);
	return 0;
}

/* A path a journal may act on: absolute, through no link, and (when it
 * exists) fak's own: owned by this user, not a link itself. */
static bool ours(const char *path)
{
	struct stat st;

	if (path[0] != '/' || !no_links(path))
		return false;
	if (lstat(path, &st) < 0)
		return errno == ENOENT;
	return st.st_uid == geteuid() && !S_ISLNK(st.st_mode);
}

/* rm -r of a staging folder fak made itself, never following a link. */
static void remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);	/* a file, or a link itself (never what it points to) */
		return;
	}
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		remove_tree(sub);
		free(sub);
	}
	closedir(d);
	rmdir(path);
}

/* The lock that keeps promotions and recoveries of one folder apart: held
 * for the whole promotion, tried by recovery. -1 with e when wait is false
 * and another process holds it (*busy set). */
static int lock_folder(const char *dir, bool wait, bool *busy, struct err *e)
{
	char *path = xasprintf("%s/.fak-promotion.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	*busy = false;
	if (fd < 0) {
		err_errno(e, errno, "cannot open '%s'", path);
		free(path);
		return -1;
	}
	if (flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) < 0) {
		*busy = errno == EWOULDBLOCK;
		err_errno(e, errno, "cannot lock '%s'", path);
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	return fd;
}

static int write_synced(const char *path, const struct strbuf *data, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	size_t off = 0;

	if (fd < 0)
		return err_errno(e, errno, "cannot write '%s'", path);
	while (off < data->len) {
		ssize_t n = write(fd, data->buf + off, data->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			close(fd);
			return err_errno(e, saved, "cannot write '%s'", path);
		}
		off += (size_t)n;
	}
	if (fsync(fd) < 0 || close(fd) < 0)
		return err_errno(e, errno, "cannot write '%s'", path);
	return 0;
}

static int write_journal(const char *path, const char *state, json_t *staged, json_t *steps,
			 struct err *e)
{
	json_t *j = jobj();
	struct strbuf sb = STRBUF_INIT;
	int rc;

	jset_str(j, "schema", WITNESS_JOURNAL_SCHEMA);
	jset_str(j, "state", state);
	jset_new(j, "staged", json_incref(staged));
	jset_new(j, "steps", json_incref(steps));
	json_write_pretty(&sb, j);
	rc = file_write_atomic(path, sb.buf, sb.len, 0600, e);
	sb_release(&sb);
	json_decref(j);
	return rc;
}

static json_t *step(const char *kind, const char *from, const char *to, const struct strbuf *data)
{
	json_t *s = jobj();

	jset_str(s, "kind", kind);
	jset_str(s, "from", from);
	jset_str(s, "to", to);
	if (data) {
		char hex[65];

		sha256_hex(data->buf, data->len, hex);
		jset_str(s, "sha256", hex);
	}
	return s;
}

/* Runs one rename of the journal, or checks it already ran. */
static int run_step(const struct witness_step *s, struct err *e)
{
	struct stat st;
	char *dir;

	if (!ours(s->from) || !no_links(s->to))
		return err_set(e, "the step '%s' -> '%s' is not fak's own (a link, or another "
				  "user's file); fak does not follow it", s->from, s->to);
	if (lstat(s->from, &st) == 0) {
		if (make_parents(s->to, e) < 0)
			return -1;
		if (rename(s->from, s->to) < 0)
			return err_errno(e, errno, "cannot move '%s' to '%s'", s->from, s->to);
		dir = dir_of(s->to);
		sync_dir(dir);
		free(dir);
		return 0;
	}
	if (stat(s->to, &st) < 0)
		return err_set(e, "neither '%s' nor '%s' exists; the promotion cannot be completed",
			       s->from, s->to);
	if (s->sha256) {
		char hex[65];
		int64_t bytes;

		if (digest_file(s->to, hex, &bytes, e) < 0)
			return -1;
		if (strcmp(hex, s->sha256))
			return err_set(e, "'%s' is not what the promotion wrote; the promotion "
					  "cannot be completed", s->to);
	}
	return 0;
}

/* What was planned from must still be there: no lost update; -1 where
 * the graph or the index changed since the promotion was prepared. */
static int unchanged_since_planned(const struct promotion *p, const char *graph,
				   const char *index, struct err *e)
{
	const struct {
		const char *path;
		const struct strbuf *was;
	} in[2] = { { graph, &p->old_graph }, { index, &p->old_index } };

	for (int i = 0; i < 2; i++) {
		char now[65], then[65];
		int64_t bytes;

		if (digest_file(in[i].path, now, &bytes, e) < 0)
			return -1;
		sha256_hex(in[i].was->buf, in[i].was->len, then);
		if (strcmp(now, then))
			return err_set(e, "'%s' changed while the promotion was prepared; run "
					  "--promote again", in[i].path);
	}
	return 0;
}

/* The witness folder staged at wtmp: its files written and synced. */
static int stage_witness(const struct promotion *p, const char *wtmp, struct err *e)
{
	if (mkdir(wtmp, 0755) < 0)
		return err_errno(e, errno, "cannot create '%s'", wtmp);
	for (size_t i = 0; i < p->nr_files; i++) {
		char *f = xasprintf("%s/%s", wtmp, p->files[i].path);
		int r = make_parents(f, e) < 0 ? -1 : write_synced(f, &p->files[i].data, e);

		free(f);
		if (r < 0)
			return -1;
	}
	sync_dir(wtmp);
	return 0;
}

/* Past the commit point: the journal's renames, as recovery would read
 * them back, each followed by its fault point. */
static int run_journal(const char *journal, int *fault, struct err *e)
{
	struct strbuf jb = STRBUF_INIT;
	struct witness_journal j;
	int r = file_read(journal, (size_t)1 << 20, &jb, e);

	if (r == 0)
		r = witness_journal_parse(jb.buf, jb.len, &j, e);
	sb_release(&jb);
	if (r < 0)
		return -1;
	for (size_t i = 0; i < j.nr_steps && r == 0; i++) {
		r = run_step(&j.steps[i], e);
		if (r == 0)
			r = fault_point(fault, e);
	}
	witness_journal_release(&j);
	return r < 0 ? -1 : 0;
}

/* A promotion that failed after writing its journal, finished now as the
 * next command would: rolled back while staging (-1, the error stands),
 * completed while committing (1, the error says whether it was). */
static int finish_failed(const char *gdir, const char *journal, bool committed,
			 struct err *e)
{
	const char *what = "";
	struct err e2, why = *e;
	int r = witness_recover(gdir, &what, &e2);

	if (!committed)
		return -1;
	if (r == 0 && !strcmp(what, "completed"))
		err_set(e, "promoted, but a step after the commit point failed (%s); fak "
			   "completed it at once: nothing is left to clean", why.msg);
	else
		err_set(e, "promoted, but a step after the commit point failed (%s), and "
			   "completing it failed too (%s): the journal '%s' stays, and the next "
			   "fak command completes the promotion", why.msg,
			r < 0 ? e2.msg : "no journal found", journal);
	return 1;
}

int witness_promote_commit(const struct promotion *p, const struct witness_paths *paths,
			   struct err *e)
{
	char graph[PATH_MAX], index[PATH_MAX], rootparent[PATH_MAX];
	char *gdir = NULL, *idir = NULL, *journal = NULL, *gtmp = NULL, *itmp = NULL, *wtmp = NULL,
	     *wdest = NULL, *copy = NULL;
	json_t *staged = jarr(), *steps = jarr();
	int fault = 0, rc = -1, lock = -1;
	bool wrote_journal = false, committed = false, busy;
	struct stat st;

	if (!realpath(paths->graph, graph) || !realpath(paths->index, index)) {
		err_errno(e, errno, "cannot resolve the graph or index path");
		goto out;
	}
	copy = xstrdup(paths->root);
	if (p->rel && !realpath(dirname(copy), rootparent)) {
		err_errno(e, errno, "cannot resolve the folder of the witness root '%s'",
			  paths->root);
		goto out;
	}
	free(copy);
	copy = xstrdup(paths->root);
	if (p->rel)	/* an enablement (--enable) writes no witness folder */
		wdest = xasprintf("%s/%s/%s", rootparent, basename(copy), p->rel);
	gdir = dir_of(graph);
	idir = dir_of(index);
	journal = xasprintf("%s/" WITNESS_JOURNAL, gdir);
	/* one promotion of this folder at a time; recovery waits for us */
	if ((lock = lock_folder(gdir, true, &busy, e)) < 0)
		goto out;
	if (lstat(journal, &st) == 0) {
		err_set(e, "'%s' exists: another promotion is unfinished", journal);
		goto out;
	}
	if (unchanged_since_planned(p, graph, index, e) < 0)
		goto out;
	gtmp = xasprintf("%s/.fak-promote-%ld-graph", gdir, (long)getpid());
	itmp = xasprintf("%s/.fak-promote-%ld-index", idir, (long)getpid());
	jpush_new(staged, json_string(gtmp));
	jpush_new(staged, json_string(itmp));
	if (wdest) {
		wtmp = xasprintf("%s/.fak-promote-%ld-witness", rootparent, (long)getpid());
		jpush_new(staged, json_string(wtmp));
	}
	if (write_journal(journal, "staging", staged, steps, e) < 0)
		goto out;
	wrote_journal = true;
	phase = WITNESS_PHASE_STAGING;
	if (fault_point(&fault, e) < 0 || write_synced(gtmp, &p->new_graph, e) < 0)
		goto out;
	if (fault_point(&fault, e) < 0 || write_synced(itmp, &p->new_index, e) < 0)
		goto out;
	if (fault_point(&fault, e) < 0)
		goto out;
	if (wtmp && stage_witness(p, wtmp, e) < 0)
		goto out;
	if (fault_point(&fault, e) < 0)
		goto out;
	if (wtmp)
		jpush_new(steps, step("dir", wtmp, wdest, NULL));
	jpush_new(steps, step("file", gtmp, graph, &p->new_graph));
	jpush_new(steps, step("file", itmp, index, &p->new_index));
	if (write_journal(journal, "committing", staged, steps, e) < 0)
		goto out;
	/* the commit point: from here on the promotion happens */
	committed = true;
	phase = WITNESS_PHASE_COMMITTED;
	if (fault_point(&fault, e) < 0)
		goto out;
	if (run_journal(journal, &fault, e) < 0)
		goto out;
	if (remove_journal(journal, gdir, e) < 0)
		goto out;
	rc = 0;
out:
	if (lock >= 0)
		close(lock);	/* recovery below takes it again */
	if (rc < 0 && wrote_journal)
		rc = finish_failed(gdir, journal, committed, e);
	phase = WITNESS_PHASE_NONE;
	json_decref(staged);
	json_decref(steps);
	free(copy);
	free(gdir);
	free(idir);
	free(journal);
	free(gtmp);
	free(itmp);
	free(wtmp);
	free(wdest);
	return rc;
}

int witness_recover(const char *dir, const char **what, struct err *e)
{
	char *path = xasprintf("%s/" WITNESS_JOURNAL, dir);
	struct strbuf sb = STRBUF_INIT;
	struct witness_journal j;
	bool parsed = false;
	int rc = -1;

	struct stat st;
	int lock = -1;
	bool busy;

	if (what)
		*what = "";
	if (lstat(path, &st) < 0) {
		free(path);
		return 0;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		/* not ours to follow: another user's, or a link */
		if (what)
			*what = "left alone (not a file of this user's)";
		free(path);
		return 0;
	}
	if ((lock = lock_folder(dir, false, &busy, e)) < 0) {
		free(path);
		if (!busy)
			return -1;
		if (what)
			*what = "left alone: a promotion is running";
		return 0;
	}
	if (lstat(path, &st) < 0) {
		rc = 0;	/* finished while we waited for the lock */
		goto out;
	}
	if (file_read(path, (size_t)1 << 20, &sb, e) < 0)
		goto out;
	if (witness_journal_parse(sb.buf, sb.len, &j, e) < 0) {
		err_prefix(e, "'%s' cannot be recovered; look at it and remove it by hand", path);
		goto out;
	}
	parsed = true;
	if (!j.committing) {
		for (size_t i = 0; i < j.nr_staged; i++)
			if (!ours(j.staged[i])) {
				err_set(e, "'%s' names '%s', which is not fak's own; look at it "
					   "and remove the journal by hand", path, j.staged[i]);
				goto out;
			}
		for (size_t i = 0; i < j.nr_staged; i++)
			remove_tree(j.staged[i]);
		if (what)
			*what = "rolled back";
	} else {
		for (size_t i = 0; i < j.nr_steps; i++)
			if (run_step(&j.steps[i], e) < 0) {
				err_prefix(e, "recovering the promotion of '%s'", path);
				goto out;
			}
		if (what)
			*what = "completed";
	}
	if (remove_journal(path, dir, e) < 0)
		goto out;
	rc = 0;
out:
	if (parsed)
		witness_journal_release(&j);
	if (lock >= 0)
		close(lock);
	sb_release(&sb);
	free(path);
	return rc;
}
