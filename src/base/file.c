#include "base/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/xalloc.h"

int file_read(const char *path, size_t cap, struct strbuf *out, struct err *e)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	struct stat st;

	sb_reset(out);
	if (fd < 0)
		return err_errno(e, errno, "cannot read '%s'", path);
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (fd != STDIN_FILENO)
			close(fd);
		return err_errno(e, EISDIR, "cannot read '%s'", path);
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > cap) {
		if (fd != STDIN_FILENO)
			close(fd);
		return err_set(e, "cannot read '%s': larger than the %zu-byte limit", path, cap);
	}
	for (;;) {
		size_t want = 65536;
		ssize_t n;

		if (out->len + want > cap + 1)
			want = cap + 1 - out->len;
		sb_grow(out, want);
		n = read(fd, out->buf + out->len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			if (fd != STDIN_FILENO)
				close(fd);
			return err_errno(e, saved, "cannot read '%s'", path);
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->buf[out->len] = '\0';
		if (out->len > cap) {
			if (fd != STDIN_FILENO)
				close(fd);
			return err_set(e, "cannot read '%s': larger than the %zu-byte limit", path,
				       cap);
		}
	}
	if (fd != STDIN_FILENO)
		close(fd);
	sb_grow(out, 0);
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Longest chain of symbolic links followed (the kernel's own limit). */
#define FILE_MAX_LINKS 40

/* The folder of p: "a/b" -> "a", "/a" -> "/", "a" -> ".". Caller frees. */
static char *dir_of(const char *p)
{
	const char *slash = strrchr(p, '/');

	if (!slash)
		return xstrdup(".");
	while (slash > p && slash[-1] == '/')
		slash--;
	return xstrndup(p, slash == p ? 1 : (size_t)(slash - p));
}

/* Follows the symbolic links of path's last element, as open(2) would:
 * *target is the file a write replaces (it need not exist). Caller frees. */
static int follow_links(const char *path, char **target, struct err *e)
{
	char *cur = xstrdup(path);

	for (int hops = 0;; hops++) {
		struct stat st;
		char *link, *next;
		ssize_t n;

		if (lstat(cur, &st) < 0) {
			int saved = errno;

			if (saved == ENOENT || saved == ENOTDIR)
				break;	/* the folder checks say what is missing */
			free(cur);
			err_errno(e, saved, "cannot write '%s'", path);
			return -1;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if (hops == FILE_MAX_LINKS) {
			free(cur);
			err_errno(e, ELOOP, "cannot write '%s'", path);
			return -1;
		}
		link = xmalloc(PATH_MAX);
		n = readlink(cur, link, PATH_MAX);
		if (n < 0 || n >= PATH_MAX) {
			int saved = n < 0 ? errno : ENAMETOOLONG;

			free(link);
			free(cur);
			err_errno(e, saved, "cannot write '%s'", path);
			return -1;
		}
		link[n] = '\0';
		if (link[0] == '/') {
			next = xstrdup(link);
		} else {
			char *dir = dir_of(cur);

			next = xasprintf("%s/%s", dir, link);
			free(dir);
		}
		free(link);
		free(cur);
		cur = next;
	}
	*target = cur;
	return 0;
}

const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "folder";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISFIFO(m))
		return "FIFO";
	if (S_ISSOCK(m))
		return "socket";
	return "special file";
}

/* The target t (reached from path, via says how) and its folder d are
 * usable for an atomic replacement. */
static int check_target(const char *path, const char *via, const char *t, const char *d,
			struct err *e)
{
	struct stat st;

	if (stat(t, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return err_set(e, "cannot write '%s'%s: it is a folder; give the name of a "
					  "file inside it", path, via);
		if (!S_ISREG(st.st_mode))
			return err_set(e,
				       "cannot write '%s'%s: it is a %s, not a regular file; fak "
				       "only replaces regular files, so give a new file name",
				       path, via, file_kind(st.st_mode));
	} else if (errno != ENOENT && errno != ENOTDIR) {
		return err_errno(e, errno, "cannot write '%s'%s", path, via);
	}
	if (stat(d, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return err_set(e, "cannot write '%s'%s: folder '%s' does not exist; create "
					  "it first", path, via, d);
		return err_errno(e, errno, "cannot write '%s'%s: folder '%s'", path, via, d);
	}
	if (!S_ISDIR(st.st_mode))
		return err_set(e, "cannot write '%s'%s: '%s' is not a folder", path, via, d);
	if (access(d, W_OK | X_OK) < 0)
		return err_set(e, "cannot write '%s'%s: folder '%s' is not writable (%s); choose a "
				  "folder you can write", path, via, d, strerror(errno));
	return 0;
}

/* Resolves path to the file a write replaces and checks it and its folder
 * (see file_check_output). On success *target and *dir are set (caller
 * frees both). */
static int output_target(const char *path, char **target, char **dir, struct err *e)
{
	char *t = NULL, *d, *via;
	int rc;

	/* explicit returns: the analyzers cannot see that err_set returns -1 */
	if (!*path) {
		err_set(e, "cannot write '': the output path is empty; give a file name");
		return -1;
	}
	if (path[strlen(path) - 1] == '/') {
		err_set(e, "cannot write '%s': a path ending in '/' names a folder; give a file "
			   "name", path);
		return -1;
	}
	if (follow_links(path, &t, e) < 0)
		return -1;
	via = strcmp(t, path) ? xasprintf(" (a symbolic link to '%s')", t) : xstrdup("");
	d = dir_of(t);
	rc = check_target(path, via, t, d, e);
	free(via);
	if (rc < 0) {
		free(t);
		free(d);
		return -1;
	}
	*target = t;
	*dir = d;
	return 0;
}

int file_check_output(const char *path, struct err *e)
{
	char *target, *dir;

	TRY(output_target(path, &target, &dir, e));
	free(target);
	free(dir);
	return 0;
}

#define TEMP_PREFIX ".fak-"

/* ".fak-<pid>-XXXXXX": the pid, or 0 when name is not one. */
static long temp_pid(const char *name)
{
	const char *p = name + strlen(TEMP_PREFIX), *dash;
	char *end;
	long pid;

	if (strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX)) || !(dash = strchr(p, '-')) ||
	    dash == p || strlen(dash + 1) != 6)
		return 0;
	for (const char *c = dash + 1; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", *c))
			return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	return errno || end != dash || pid <= 0 ? 0 : pid;
}

void file_sweep_temps(const char *dir, size_t *removed)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*removed = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		long pid = temp_pid(de->d_name);
		struct stat st;

		if (!pid || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* not ours, or its writer may still be at work */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			(*removed)++;
	}
	closedir(d);
}

int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct err *e)
{
	char *target, *dir, *tmp;
	int fd, dfd, saved;

	TRY(output_target(path, &target, &dir, e));
	/* A short name beside the target keeps rename() atomic and works for
	 * a target name of the longest legal length. */
	tmp = xasprintf("%s/" TEMP_PREFIX "%ld-XXXXXX", dir, (long)getpid());
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		err_errno(e, saved, "cannot write '%s'", path);
		goto fail_nofile;
	}
	if (fchmod(fd, mode) < 0 || write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		saved = errno;
		close(fd);
		unlink(tmp);
		err_errno(e, saved, "cannot write '%s'", path);
		goto fail_nofile;
	}
	if (close(fd) < 0) {
		saved = errno;
		unlink(tmp);
		err_errno(e, saved, "cannot write '%s'", path);
		goto fail_nofile;
	}
	if (rename(tmp, target) < 0) {
		saved = errno;
		unlink(tmp);
		err_errno(e, saved, "cannot write '%s'", path);
		goto fail_nofile;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(target);
	free(dir);
	free(tmp);
	return 0;
fail_nofile:
	free(target);
	free(dir);
	free(tmp);
	return -1;
}

static int stat_path(const char *p, struct stat *st)
{
	return strcmp(p, "-") ? stat(p, st) : fstat(STDIN_FILENO, st);
}

bool file_same(const char *a, const char *b)
{
	struct stat x, y;

	return stat_path(a, &x) == 0 && stat_path(b, &y) == 0 && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}
