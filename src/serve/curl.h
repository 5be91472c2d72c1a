#ifndef FAK_SERVE_CURL_H
#define FAK_SERVE_CURL_H
/* libcurl, opened when a serving command first needs it, as the GPU
 * sampler opens NVML: linked in, its dozen protocol libraries would load with
 * every fak command (7x the start-up time of `fak --version` and 4x its RSS,
 * measured). One table of the functions fak calls, for the open-loop client
 * (serve/client.c) and the quality prompts (serve/quality.c). */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

#include "base/err.h"

/* the system's libcurl: macOS ships it in /usr/lib (the dyld shared cache) */
#ifdef __APPLE__
#define CURL_LIBRARY "libcurl.4.dylib"
#else
#define CURL_LIBRARY "libcurl.so.4"
#endif
#define CURL_FNS(X) \
	X(curl_easy_cleanup) \
	X(curl_easy_getinfo) \
	X(curl_easy_init) \
	X(curl_easy_perform) \
	X(curl_easy_reset) \
	X(curl_easy_setopt) \
	X(curl_easy_strerror) \
	X(curl_free) \
	X(curl_global_cleanup) \
	X(curl_global_init) \
	X(curl_multi_add_handle) \
	X(curl_multi_cleanup) \
	X(curl_multi_info_read) \
	X(curl_multi_init) \
	X(curl_multi_remove_handle) \
	X(curl_multi_setopt) \
	X(curl_multi_socket_action) \
	X(curl_slist_append) \
	X(curl_slist_free_all) \
	X(curl_url) \
	X(curl_url_cleanup) \
	X(curl_url_get) \
	X(curl_url_set)

/* __typeof__ (gcc and clang) declares each pointer with the function's own
 * prototype from curl.h, so a call through it is checked as a direct one */
struct curl_fns {
#define X(f) __typeof__(f) *f;
	CURL_FNS(X)
#undef X
};
extern struct curl_fns CURL_FN;

/* Opens libcurl and fills CURL_FN, once; -1 with e when it cannot. */
int serve_curl_load(struct err *e);
/* What every request of fak sets on its handle: the url, plain http only,
 * no proxy (the server is on this machine), no signals; errors into cerr
 * (CURL_ERROR_SIZE bytes). */
void serve_curl_setup(CURL *h, const char *url, char *cerr);

#endif
