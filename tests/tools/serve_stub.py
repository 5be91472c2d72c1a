#!/usr/bin/env python3
"""A scripted OpenAI-compatible /v1/completions server for fak bench serve's tests.

    serve_stub.py --port-file FILE [--ttft-ms 20] [--itl-ms 5] [--fault KIND]
                  [--fault-every N] [--no-usage] [--cache-n N] [--bind-port P]
                  [--engine NAME] [--forward-path TEXT] [--fallbacks N]
                  [--wrong-every N]

Listens on 127.0.0.1 at a port the OS chooses (written to --port-file once it
listens; --bind-port asks for one, to test a port already taken). Each request
streams max_tokens chunks over SSE: the first --ttft-ms after the request was
read, each next one --itl-ms later, at absolute times (time.monotonic), then a
usage chunk and data: [DONE]. Deterministic: nothing random, the same script
for every request. GET /health answers 200, its JSON body naming --engine and
--forward-path when given (what fak bench experiment's serving mode seals as
the engine's identity), and once a completion was served, fallback_count
--fallbacks N. Faults (--fault, for every request
or every Nth with --fault-every, counted from 1 in arrival order):

  status429, status500  that status with a JSON error body
  malformed             a chunk whose data is not JSON
  truncated             the chunks, then the response ends without [DONE]
  stall                 two chunks, then silence (the connection stays open)
  endless               chunks every --itl-ms, never ending
  die                   two chunks, then the whole server exits (os._exit)
  notopenai             a 200 text/html page
  never-ready           /health answers 503 (and so do completions)

A request that is not streamed ("stream": false, fak's quality prompts) must
be greedy ("temperature": 0, else 400) and gets one JSON completion whose
text is a function of the prompt alone (" w<k>" max_tokens times), or, for
every Nth such request with --wrong-every N, another text; it is logged to
stderr with the port that served it.

What it did goes to stderr, one JSON line per streamed request: its number,
the first 8 prompt token ids and when each chunk was written (ms after the
request was read, each stamped just before its write) and when the closing
write began, so a test can hold the client's measures against them.
"""
import argparse
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
COUNT = 0
QUALITY = 0
LOCK = threading.Lock()


def sleep_until(t):
    while True:
        left = t - time.monotonic()
        if left <= 0:
            return
        time.sleep(left)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):
        pass

    def plain(self, status, ctype, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if ARGS.fault == "never-ready":
            self.plain(503, "application/json", '{"error":"loading model"}')
        elif self.path == "/health":
            health = {"status": "ok"}
            if ARGS.engine:
                health["engine"] = ARGS.engine
            if ARGS.forward_path:
                health["forward_path"] = ARGS.forward_path
            if ARGS.fallbacks is not None and COUNT > 0:
                health["fallback_count"] = ARGS.fallbacks
            self.plain(200, "application/json", json.dumps(health))
        elif self.path == "/props" and ARGS.build_info:
            # llama-server's /props names its build (and much else)
            props = {"build_info": ARGS.build_info, "total_slots": 4}
            self.plain(200, "application/json", json.dumps(props))
        else:
            self.plain(404, "text/plain", "not found")

    def chunk(self, payload):
        data = payload.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def event(self, obj):
        self.chunk("data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n")

    def complete(self, body, prompt, n):
        """A request not streamed (fak's quality prompts): greedy only, its
        text a function of the prompt, or another with --wrong-every."""
        global QUALITY
        with LOCK:
            QUALITY += 1
            index = QUALITY
        if body.get("temperature") != 0:
            return self.plain(400, "application/json", '{"error":"not greedy"}')
        seed = sum(prompt) if isinstance(prompt, list) else sum(prompt.encode())
        wrong = ARGS.wrong_every and index % ARGS.wrong_every == 0
        text = "".join(" w%d" % ((seed + k + (50 if wrong else 0)) % 100) for k in range(n))
        port = self.server.server_address[1]
        sys.stderr.write(json.dumps({"quality": index, "port": port, "wrong": bool(wrong),
                                     "text": text}) + "\n")
        self.plain(200, "application/json", json.dumps({
            "id": "cmpl-q%d" % index, "object": "text_completion",
            "choices": [{"index": 0, "text": text, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": n, "total_tokens": n}}))

    def do_POST(self):
        global COUNT
        start = time.monotonic()
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        with LOCK:
            COUNT += 1
            index = COUNT
        fault = ARGS.fault if ARGS.fault and (
            not ARGS.fault_every or index % ARGS.fault_every == 0) else None
        if self.path != "/v1/completions":
            return self.plain(404, "text/plain", "not found")
        if fault in ("status429", "status500", "never-ready"):
            code = {"status429": 429, "status500": 500, "never-ready": 503}[fault]
            return self.plain(code, "application/json",
                              '{"error":{"message":"scripted %d","code":%d}}' % (code, code))
        if fault == "notopenai":
            return self.plain(200, "text/html", "<html><body>hello</body></html>")
        n = int(body.get("max_tokens", 16))
        prompt = body.get("prompt", [])
        if not body.get("stream"):
            return self.complete(body, prompt, n)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        written = []
        k = 0
        while True:
            if fault == "endless":
                pass
            elif k >= n or (fault in ("stall", "die") and k >= 2):
                break
            sleep_until(start + (ARGS.ttft_ms + k * ARGS.itl_ms) / 1000.0)
            # stamped before the write: the client cannot see the chunk earlier
            written.append(round((time.monotonic() - start) * 1000.0, 3))
            if fault == "malformed" and k == 1:
                self.event("{not json")
            else:
                self.event({"id": "cmpl-%d" % index, "object": "text_completion",
                            "choices": [{"index": 0, "text": " t%d" % k,
                                         "finish_reason": "length" if k == n - 1 else None}]})
            self.wfile.flush()
            k += 1

        if fault == "stall":
            sys.stderr.write("request %d stalls\n" % index)
            time.sleep(3600)
        if fault == "die":
            sys.stderr.flush()
            os._exit(3)
        if fault != "truncated":
            usage = {"prompt_tokens": len(prompt) if isinstance(prompt, list) else 0,
                     "completion_tokens": n, "total_tokens": n}
            last = {"id": "cmpl-%d" % index, "object": "text_completion", "choices": []}
            if not ARGS.no_usage:
                last["usage"] = usage
            if ARGS.cache_n is not None:
                last["timings"] = {"cache_n": ARGS.cache_n}
            if not ARGS.no_usage or ARGS.cache_n is not None:
                self.event(last)
            self.event("[DONE]")
        end_ms = round((time.monotonic() - start) * 1000.0, 3)
        self.chunk("")
        self.wfile.flush()
        sys.stderr.write(json.dumps({"request": index, "prompt_head": prompt[:8],
                                     "chunks_ms": written, "end_ms": end_ms}) + "\n")


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--bind-port", type=int, default=0)
    p.add_argument("--ttft-ms", type=float, default=20.0)
    p.add_argument("--itl-ms", type=float, default=5.0)
    p.add_argument("--fault")
    p.add_argument("--fault-every", type=int, default=0)
    p.add_argument("--no-usage", action="store_true")
    p.add_argument("--cache-n", type=int)
    p.add_argument("--engine")
    p.add_argument("--forward-path")
    p.add_argument("--fallbacks", type=int)
    p.add_argument("--build-info")
    p.add_argument("--wrong-every", type=int, default=0)
    ARGS = p.parse_args()
    ThreadingHTTPServer.request_queue_size = 256
    ThreadingHTTPServer.daemon_threads = True
    try:
        srv = ThreadingHTTPServer(("127.0.0.1", ARGS.bind_port), Handler)
    except OSError as e:
        sys.stderr.write("serve_stub: cannot listen on 127.0.0.1:%d: %s\n" % (ARGS.bind_port, e))
        sys.exit(98)
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, ARGS.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
