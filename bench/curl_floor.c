/* The floor of a libcurl client (bench/serve.sh parts (d) and (e)): requests
 * sent open loop through libcurl's multi interface, Poisson arrivals at a
 * rate (as fak bench trace draws them), streamed responses read and thrown
 * away: nothing timed, parsed or kept. libcurl is driven the way fak drives
 * it (curl_multi_socket_action on the sockets epoll reports, a wait that
 * ends at the next send or libcurl's timeout to the nanosecond, handles kept
 * and reused, the URL parsed once), so what this costs a request is what
 * fak's client costs without fak's own work. Linux only (epoll), as the
 * script that runs it.
 *
 * usage: curl_floor URL RATE SECONDS (prints the requests that completed;
 * exit 1 if any failed) */
#define _GNU_SOURCE	/* epoll_pwait2, erand48 */
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>

#define SPARE 64

static const char body[] = "{\"prompt\":[1,2,3,4,5,6,7,8],\"max_tokens\":1,\"stream\":true}";

static int64_t curl_at = -1;	/* libcurl's next timeout (ns, monotonic), -1: none */

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static size_t discard(char *p, size_t size, size_t n, void *u)
{
	(void)p;
	(void)u;
	return size * n;
}

/* libcurl's socket callback: the socket into, within or out of epoll */
static int on_socket(CURL *h, curl_socket_t fd, int what, void *ep, void *sockp)
{
	struct epoll_event ev = { .data.fd = fd };

	(void)h;
	(void)sockp;
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(*(int *)ep, EPOLL_CTL_DEL, fd, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	if (epoll_ctl(*(int *)ep, EPOLL_CTL_MOD, fd, &ev) < 0)
		epoll_ctl(*(int *)ep, EPOLL_CTL_ADD, fd, &ev);
	return 0;
}

/* libcurl's timer callback: when it wants to be called next */
static int on_timer(CURLM *m, long ms, void *u)
{
	(void)m;
	(void)u;
	curl_at = ms < 0 ? -1 : now_ns() + (int64_t)ms * 1000000;
	return 0;
}

static CURL *handle(CURLU *url, struct curl_slist *hdr)
{
	CURL *h = curl_easy_init();

	if (!h)
		return NULL;
	curl_easy_setopt(h, CURLOPT_CURLU, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 10000L);	/* a stalled server ends the run */
	return h;
}

int main(int argc, char **argv)
{
	struct curl_slist *hdr = NULL;
	CURL *spare[SPARE];
	int nspare = 0, running, left, ep;
	bool pwait2 = true;
	long sent = 0, ended = 0, done = 0, total;
	unsigned short seed[3] = { 1, 2, 3 };	/* the same arrivals every run */
	double rate;
	int64_t due;
	CURLM *m;
	CURLMsg *msg;
	CURLU *url;

	if (argc != 4 || atof(argv[2]) <= 0 || atof(argv[3]) <= 0) {
		fprintf(stderr, "usage: curl_floor URL RATE SECONDS\n");
		return 2;
	}
	rate = atof(argv[2]);
	total = (long)(rate * atof(argv[3]));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) || !(m = curl_multi_init())) {
		fprintf(stderr, "curl_floor: cannot start epoll or libcurl\n");
		return 1;
	}
	curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(m, CURLMOPT_SOCKETDATA, &ep);
	curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, on_timer);
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, "Accept: text/event-stream");
	hdr = curl_slist_append(hdr, "Expect:");
	url = curl_url();	/* parsed once (a URL string is parsed again each transfer) */
	if (!url || curl_url_set(url, CURLUPART_URL, argv[1], 0) != CURLUE_OK) {
		fprintf(stderr, "curl_floor: not a URL: %s\n", argv[1]);
		return 2;
	}
	due = now_ns();
	while (ended < total) {
		struct epoll_event ev[64];
		int64_t t = now_ns(), next = -1;
		struct timespec wait;
		int n;

		if (sent < total && t >= due) {
			CURL *h = nspare ? spare[--nspare] : handle(url, hdr);

			if (!h || curl_multi_add_handle(m, h) != CURLM_OK) {
				fprintf(stderr, "curl_floor: cannot add a transfer\n");
				return 1;
			}
			sent++;
			/* an exponential gap */
			due += (int64_t)(-log(1 - erand48(seed)) / rate * 1e9);
		}
		if (curl_at >= 0 && t >= curl_at) {
			curl_at = -1;
			curl_multi_socket_action(m, CURL_SOCKET_TIMEOUT, 0, &running);
		}
		while ((msg = curl_multi_info_read(m, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_multi_remove_handle(m, msg->easy_handle);
			ended++;
			done += msg->data.result == CURLE_OK;
			if (nspare < SPARE)
				spare[nspare++] = msg->easy_handle;
			else
				curl_easy_cleanup(msg->easy_handle);
		}
		if (sent < total)
			next = due;
		if (curl_at >= 0 && (next < 0 || curl_at < next))
			next = curl_at;
		if (ended >= total)
			break;
		t = now_ns();
		if (next >= 0 && next <= t)
			continue;
		if (next < 0)
			next = t + 1000000000;	/* nothing due: libcurl's sockets will say */
		wait.tv_sec = (next - t) / 1000000000;
		wait.tv_nsec = (next - t) % 1000000000;
		n = pwait2 ? epoll_pwait2(ep, ev, 64, &wait, NULL) : -1;
		if (n < 0 && pwait2 && errno == ENOSYS)
			pwait2 = false;	/* a kernel before 5.11, or valgrind */
		if (!pwait2)	/* whole milliseconds, rounded up */
			n = epoll_wait(ep, ev, 64, (int)((next - t + 999999) / 1000000));
		for (int i = 0; i < n; i++) {
			int flags = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
				    (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
				    (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);

			curl_multi_socket_action(m, ev[i].data.fd, flags, &running);
		}
	}
	printf("%ld\n", done);
	while (nspare)
		curl_easy_cleanup(spare[--nspare]);
	curl_multi_cleanup(m);
	curl_slist_free_all(hdr);
	curl_url_cleanup(url);
	curl_global_cleanup();
	return done == total ? 0 : 1;
}
