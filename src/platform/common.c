/* What both backends of platform.h do alike. */
#include "platform/platform.h"

#if defined(__APPLE__)
#include <Availability.h>	/* before sys/random.h: some SDKs' copy needs it */
#include <sys/random.h>
#else
#include <unistd.h>		/* glibc's getentropy, over the getrandom fak called before */
#endif

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
