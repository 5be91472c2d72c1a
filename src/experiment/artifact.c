/* The pinned artifact, identified before every run: its device, inode, size,
 * modification and change times, and its sha256 again whenever any of them
 * moved. A file that no longer has the pinned digest fails the experiment at
 * the run it would have served (docs/experiments.md). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <limits.h>
#include <stdlib.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/text.h"
#include "experiment/internal.h"
#include "sampler/child.h"

/* POSIX's st_mtim and st_ctim; macOS names them st_*timespec */
#if defined(__APPLE__)
#define ST_MTIM st_mtimespec
#define ST_CTIM st_ctimespec
#else
#define ST_MTIM st_mtim
#define ST_CTIM st_ctim
#endif

static int identify(const char *path, struct xp_artifact_id *id, struct err *e)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (stat(path, &st) < 0)
		return err_errno(e, errno, "cannot read '%s'", path);
	if (!S_ISREG(st.st_mode))	/* as digest_file says it */
		return err_set(e, "cannot read '%s': it is a %s, not a regular file; give the "
				  "file itself", path, file_kind(st.st_mode));
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	id->size = (int64_t)st.st_size;
	id->mtime_ns = (int64_t)st.ST_MTIM.tv_sec * 1000000000 + st.ST_MTIM.tv_nsec;
	id->ctime_ns = (int64_t)st.ST_CTIM.tv_sec * 1000000000 + st.ST_CTIM.tv_nsec;
	return 0;
}

static bool same_id(const struct xp_artifact_id *a, const struct xp_artifact_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

int xp_artifact_pin(struct xp *x, char sha256[65], struct err *e)
{
	struct xp_artifact_id after;
	int64_t bytes;

	if (identify(x->o->artifact, &x->artifact_id, e) < 0 ||
	    digest_file(x->o->artifact, sha256, &bytes, e) < 0 ||
	    identify(x->o->artifact, &after, e) < 0)
		return -1;
	if (!same_id(&x->artifact_id, &after))
		return err_set(e, "'%s' changed while fak read it; pin it when nothing writes it",
			       x->o->artifact);
	return 0;
}

void xp_artifact_recheck(struct xp *x, const char *when, bool digest, struct findings *out)
{
	struct xp_artifact_id now;
	char sha[65];
	struct err e;

	if (identify(x->o->artifact, &now, &e) < 0) {
		findings_addf(out, "--artifact: %s: %s", when, e.msg);
		return;
	}
	if (!digest && same_id(&now, &x->artifact_id))
		return;
	if (xp_artifact_pin(x, sha, &e) < 0) {
		findings_addf(out, "--artifact: %s: %s", when, e.msg);
		return;
	}
	if (strcmp(sha, x->artifact_sha256))
		findings_addf(out, "--artifact: '%s' changed during the experiment: %s it has "
				   "sha256 %s, not the pinned %s; no receipt can say which model "
				   "ran, so none is written", x->o->artifact, when, sha,
			      x->artifact_sha256);
}

static bool assignment(const char *w)
{
	const char *eq = strchr(w, '=');

	if (!eq || eq == w || (w[0] >= '0' && w[0] <= '9'))
		return false;
	for (const char *p = w; p < eq; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

void xp_program(const char *cmd, char sha256[65])
{
	struct strbuf words = STRBUF_INIT;
	bool *exp = calloc(strlen(cmd) + 1, sizeof(*exp));
	char path[PATH_MAX];
	const char *w;
	size_t n, i = 0;
	int64_t bytes;
	struct err e;

	sha256[0] = '\0';
	if (!exp || sh_words(cmd, &words, &n, exp) < 0)
		goto out;
	w = words.buf;
	while (i < n && (assignment(w) || !strcmp(w, "exec"))) {
		if (exp[i] && !assignment(w))
			break;
		w += strlen(w) + 1;
		i++;
	}
	if (i == n || exp[i] || !w[0] || strchr(";&|<>()", w[0]))
		goto out;
	if (child_resolve(w, path, sizeof(path), &e) < 0 ||
	    digest_file(path, sha256, &bytes, &e) < 0)
		sha256[0] = '\0';
out:
	free(exp);
	sb_release(&words);
}
