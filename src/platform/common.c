/* What both backends of platform.h do alike. */
#include "platform/platform.h"

#include <time.h>

#if defined(__APPLE__)
#include <Availability.h>	/* before sys/random.h: some SDKs' copy needs it */
#include <sys/random.h>
#else
#include <unistd.h>		/* glibc's getentropy, over the getrandom fak called before */
#endif

int64_t platform_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int platform_random(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		size_t n = len < 256 ? len : 256;

		if (getentropy(p, n) < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

void platform_words(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	bool space = false;

	if (!cap)
		return;
	for (const char *p = in; *p && n + 1 < cap; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			space = n > 0;
			continue;
		}
		if (space && n + 2 < cap)
			out[n++] = ' ';
		space = false;
		out[n++] = *p;
	}
	out[n] = '\0';
}
