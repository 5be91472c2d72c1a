#include "base/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The one fixed algorithm we need: the low-level SHA-256 calls do not go
 * through OpenSSL 3's provider machinery (configuration file, DSO loading),
 * which cost every run start-up time and memory. They are marked deprecated
 * in 3.0, hence the API level. */
#define OPENSSL_API_COMPAT 0x10100000L
#include <openssl/sha.h>

#include "base/file.h"
#include "base/json.h"
#include "base/xalloc.h"

static void hex(const unsigned char md[SHA256_DIGEST_LENGTH], char out[65])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[64] = '\0';
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX ctx;

	if (!SHA256_Init(&ctx) || !SHA256_Update(&ctx, data, len) || !SHA256_Final(md, &ctx))
		BUG("SHA-256 failed");
	hex(md, out);
}

int digest_fd(int fd, char out[65], int64_t *bytes, struct err *e)
{
	size_t cap = (size_t)1 << 20;
	unsigned char *buf = xmalloc(cap), md[SHA256_DIGEST_LENGTH];
	SHA256_CTX ctx;
	int64_t off = 0;

	if (!SHA256_Init(&ctx))
		BUG("SHA-256 failed");
	for (;;) {
		ssize_t n = pread(fd, buf, cap, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			free(buf);
			return err_errno(e, saved, "cannot read");
		}
		if (n == 0)
			break;
		SHA256_Update(&ctx, buf, (size_t)n);
		off += n;
	}
	SHA256_Final(md, &ctx);
	free(buf);
	hex(md, out);
	*bytes = off;
	return 0;
}

int digest_file(const char *path, char out[65], int64_t *bytes, struct err *e)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int rc;

	if (fd < 0)
		return err_errno(e, errno, "cannot read '%s'", path);
	if (fstat(fd, &st) < 0) {
		rc = errno;
		close(fd);
		return err_errno(e, rc, "cannot read '%s'", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, "cannot read '%s': it is a %s, not a regular file; give the "
				  "file itself", path, file_kind(st.st_mode));
	}
	rc = digest_fd(fd, out, bytes, e);
	close(fd);
	if (rc < 0)
		err_prefix(e, "'%s'", path);
	return rc;
}

void digest_hmac(const void *key, size_t klen, const void *msg, size_t mlen, char out[65])
{
	unsigned char k[SHA256_CBLOCK] = { 0 }, pad[SHA256_CBLOCK], inner[SHA256_DIGEST_LENGTH],
		      md[SHA256_DIGEST_LENGTH];
	SHA256_CTX ctx;

	if (klen > sizeof(k)) {
		/* not SHA256(): in OpenSSL 3 it goes through the provider machinery */
		SHA256_Init(&ctx);
		SHA256_Update(&ctx, key, klen);
		SHA256_Final(k, &ctx);
	} else {
		memcpy(k, key, klen);
	}
	for (size_t i = 0; i < sizeof(k); i++)
		pad[i] = k[i] ^ 0x36;
	SHA256_Init(&ctx);
	SHA256_Update(&ctx, pad, sizeof(pad));
	SHA256_Update(&ctx, msg, mlen);
	SHA256_Final(inner, &ctx);
	for (size_t i = 0; i < sizeof(k); i++)
		pad[i] = k[i] ^ 0x5c;
	SHA256_Init(&ctx);
	SHA256_Update(&ctx, pad, sizeof(pad));
	SHA256_Update(&ctx, inner, sizeof(inner));
	SHA256_Final(md, &ctx);
	hex(md, out);
}

int digest_is_hexn(const char *s, size_t n)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == n;
}

int digest_is_hex(const char *s)
{
	return digest_is_hexn(s, 64);
}
