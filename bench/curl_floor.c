/* The floor of a libcurl client (bench/serve.sh part (e)): requests sent
 * open loop through libcurl's multi interface, Poisson arrivals at a rate
 * (as fak bench trace draws them), streamed responses read and thrown away,
 * nothing timed, parsed or kept. What this costs a request is what any
 * client built on this libcurl costs at least.
 *
 * usage: curl_floor URL RATE SECONDS (prints the requests that completed) */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */
#define _XOPEN_SOURCE 700	/* erand48 */
#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char body[] = "{\"prompt\":[1,2,3,4,5,6,7,8],\"max_tokens\":1,\"stream\":true}";

static size_t discard(char *p, size_t size, size_t n, void *u)
{
	(void)p;
	(void)u;
	return size * n;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct curl_slist *hdr = NULL;
	CURL *spare[64];
	int nspare = 0, running = 0, left;
	long sent = 0, done = 0, total;
	unsigned short seed[3] = { 1, 2, 3 };	/* the same arrivals every run */
	double due, rate;
	CURLM *m;
	CURLMsg *msg;
	CURLU *url;

	if (argc != 4 || atof(argv[2]) <= 0 || atof(argv[3]) <= 0) {
		fprintf(stderr, "usage: curl_floor URL RATE SECONDS\n");
		return 2;
	}
	rate = atof(argv[2]);
	total = (long)(rate * atof(argv[3]));
	curl_global_init(CURL_GLOBAL_DEFAULT);
	m = curl_multi_init();
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, "Accept: text/event-stream");
	hdr = curl_slist_append(hdr, "Expect:");
	url = curl_url();	/* parsed once (a URL string is parsed again each transfer) */
	if (!url || curl_url_set(url, CURLUPART_URL, argv[1], 0) != CURLUE_OK) {
		fprintf(stderr, "curl_floor: not a URL: %s\n", argv[1]);
		return 2;
	}
	due = now();
	while (done < total) {
		double wait = due - now();

		if (sent < total && wait <= 0) {
			CURL *h = nspare ? spare[--nspare] : NULL;

			if (!h) {	/* options set once a handle: a spare keeps them */
				h = curl_easy_init();
				if (!h) {
					fprintf(stderr, "curl_floor: curl_easy_init failed\n");
					return 1;
				}
				curl_easy_setopt(h, CURLOPT_CURLU, url);
				curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
				curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
				curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
				curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
			}
			curl_multi_add_handle(m, h);
			sent++;
			due -= log(1 - erand48(seed)) / rate;	/* an exponential gap */
			continue;
		}
		curl_multi_perform(m, &running);
		while ((msg = curl_multi_info_read(m, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_multi_remove_handle(m, msg->easy_handle);
			if (msg->data.result == CURLE_OK)
				done++;
			else
				total--;	/* a failure is not counted either way */
			if (nspare < 64)
				spare[nspare++] = msg->easy_handle;
			else
				curl_easy_cleanup(msg->easy_handle);
		}
		wait = due - now();
		if (sent >= total)
			wait = 1;
		if (wait > 0)
			curl_multi_poll(m, NULL, 0, (int)(wait * 1000) + 1, NULL);
	}
	printf("%ld\n", done);
	while (nspare)
		curl_easy_cleanup(spare[--nspare]);
	curl_multi_cleanup(m);
	curl_slist_free_all(hdr);
	curl_url_cleanup(url);
	curl_global_cleanup();
	return 0;
}
