/* base/digest: streamed file digests and HMAC-SHA-256 (RFC 4231 vectors). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/json.h"

Test(digest_hmac, rfc4231_vectors)
{
	unsigned char k1[20], k6[131];
	char out[65];

	memset(k1, 0x0b, sizeof(k1));
	digest_hmac(k1, sizeof(k1), "Hi There", 8, out);
	cr_assert_str_eq(out, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	digest_hmac("Jefe", 4, "what do ya want for nothing?", 28, out);
	cr_assert_str_eq(out, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* a key longer than the block is hashed first */
	memset(k6, 0xaa, sizeof(k6));
	digest_hmac(k6, sizeof(k6), "Test Using Larger Than Block-Size Key - Hash Key First", 54,
		    out);
	cr_assert_str_eq(out, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

Test(digest_file, streams_past_the_buffer_and_counts_bytes)
{
	char path[] = "/tmp/fak-digest-XXXXXX", want[65], got[65];
	size_t n = (3u << 20) + 7;	/* three buffers and a bit */
	char *data = malloc(n);
	int64_t bytes = -1;
	struct err e;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)(i * 131 + (i >> 12));
	cr_assert_eq(write(fd, data, n), (ssize_t)n);
	sha256_hex(data, n, want);
	cr_assert_eq(digest_fd(fd, got, &bytes, &e), 0, "%s", e.msg);
	cr_assert_str_eq(got, want);
	cr_assert_eq(bytes, (int64_t)n);
	close(fd);
	cr_assert_eq(digest_file(path, got, &bytes, &e), 0, "%s", e.msg);
	cr_assert_str_eq(got, want);
	unlink(path);
	cr_assert_eq(digest_file(path, got, &bytes, &e), -1);
	cr_assert(strstr(e.msg, "No such file or directory"), "%s", e.msg);
	free(data);
}

Test(digest_is_hex, exactly_64_lowercase_digits)
{
	cr_assert(
		digest_is_hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
	cr_assert(
		!digest_is_hex("B0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
	cr_assert(
		!digest_is_hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff"));
	cr_assert(!digest_is_hex(""));
}
