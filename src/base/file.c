#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
			return err_set(e, "cannot read '%s': larger than the %zu-byte limit", path, cap);
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

int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode, struct err *e)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	/* the temporary file lives beside the target so rename() is atomic */
	char *tmp = xasprintf("%s.fak-tmp-XXXXXX", path);
	int fd, dfd, saved;

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
	if (rename(tmp, path) < 0) {
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
	free(dir);
	free(tmp);
	return 0;
fail_nofile:
	free(dir);
	free(tmp);
	return -1;
}
