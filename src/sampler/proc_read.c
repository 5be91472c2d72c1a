#include "sampler/proc_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

ssize_t proc_pread_all(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	for (;;) {
		ssize_t n = pread(fd, buf + len, cap - len, (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		len += (size_t)n;
		if (n == 0 || len < cap)
			return (ssize_t)len;
		if (len == cap) {
			char probe;

			n = pread(fd, &probe, 1, (off_t)len);
			if (n == 0)
				return (ssize_t)len;
			errno = n < 0 ? errno : EFBIG;
			return -1;
		}
	}
}

ssize_t proc_read_at(int dirfd, const char *rel, char *buf, size_t cap)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int saved;

	if (fd < 0)
		return -1;
	n = proc_pread_all(fd, buf, cap);
	saved = errno;
	close(fd);
	errno = saved;
	return n;
}

bool proc_gone(int err)
{
	return err == ENOENT || err == ESRCH;
}

const char *proc_root_default(void)
{
	const char *root = getenv("FAK_PROC_ROOT");

	return root && *root ? root : "/proc";
}
