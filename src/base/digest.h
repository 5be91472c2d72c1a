#ifndef FAK_BASE_DIGEST_H
#define FAK_BASE_DIGEST_H
/* SHA-256 of files of any size (streamed, bounded memory) and HMAC-SHA-256
 * (RFC 2104). Hex digests are 64 lowercase digits plus NUL. */
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Digest and size of everything readable from fd, from offset 0 (pread:
 * the file offset is not moved). */
int digest_fd(int fd, char hex[65], int64_t *bytes, struct err *e);
/* The same for the regular file at path (anything else, a device, a FIFO
 * or a folder, is refused before a byte is read); errors name it. */
int digest_file(const char *path, char hex[65], int64_t *bytes, struct err *e);
/* HMAC-SHA-256 of msg under key. */
void digest_hmac(const void *key, size_t klen, const void *msg, size_t mlen, char hex[65]);
/* 64 lowercase hex digits. */
int digest_is_hex(const char *s);
/* Exactly n lowercase hex digits. */
int digest_is_hexn(const char *s, size_t n);

#endif
