/* libcurl, opened once (serve/curl.h). */
#include "serve/curl.h"

#include <dlfcn.h>
#include <string.h>

struct curl_fns CURL_FN;

static const char *const curl_fn_names[] = {
#define X(f) #f,
	CURL_FNS(X)
#undef X
};

int serve_curl_load(struct err *e)
{
	static void *so;
	void **slots = (void **)(void *)&CURL_FN;

	if (so)
		return 0;
	so = dlopen(CURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!so)
		return err_set(e, "fak needs libcurl for HTTP (%s, Debian's libcurl4): %s",
			       CURL_LIBRARY, dlerror());
	for (size_t i = 0; i < sizeof(curl_fn_names) / sizeof(curl_fn_names[0]); i++) {
		void *fn = dlsym(so, curl_fn_names[i]);

		if (!fn) {
			dlclose(so);
			so = NULL;
			return err_set(e, "%s has no %s (libcurl 7.87 or later is needed)",
				       CURL_LIBRARY, curl_fn_names[i]);
		}
		/* POSIX: a data pointer from dlsym converts to a function pointer */
		memcpy(&slots[i], &fn, sizeof(fn));
	}
	return 0;
}

void serve_curl_setup(CURL *h, const char *url, char *cerr)
{
	CURL_FN.curl_easy_setopt(h, CURLOPT_URL, url);
	CURL_FN.curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
	CURL_FN.curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	CURL_FN.curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	CURL_FN.curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
}
