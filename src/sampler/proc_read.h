#ifndef FAK_SAMPLER_PROC_READ_H
#define FAK_SAMPLER_PROC_READ_H
/* Bounded reads of kernel text files. The sampler keeps descriptors open
 * and re-reads them from offset 0 with pread; a /proc/PID descriptor stays
 * bound to its process, so a reused PID can never be read through it. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The whole file from offset 0 into buf (cap bytes, no NUL added). Returns
 * the length, or -1 with errno set (EFBIG when it does not fit). One pread
 * suffices for any file shorter than cap. */
ssize_t proc_pread_all(int fd, char *buf, size_t cap);

/* openat(dirfd, rel) + proc_pread_all + close. */
ssize_t proc_read_at(int dirfd, const char *rel, char *buf, size_t cap);

/* The errors that mean "the process exited meanwhile", not a failure. */
bool proc_gone(int err);

/* The proc root used by the CLI: $FAK_PROC_ROOT when set (tests point it
 * at a fake tree under tests/fixtures/proc), else "/proc". Borrowed. */
const char *proc_root_default(void);

#endif
