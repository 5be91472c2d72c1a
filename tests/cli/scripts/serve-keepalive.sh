# 100 requests over 2 s (Poisson arrivals, one at a time most of the time)
# against the scripted server: the connections are kept alive and carried
# from request to request (a handful for all 100), and a kept connection
# stays in the poller between requests: libcurl lets go of its socket after
# each response and takes it back for the next, which costs no epoll_ctl
# (it cost up to two a request: 17 to 66 here before). Counted with strace:
# at most 3 epoll_ctl a connection (added to write, changed to read, removed
# at close). Where strace cannot trace, skipped (77). LeakSanitizer cannot
# run under ptrace: leaks are not looked for in the traced run (an ASan
# build's other runs do).
set -eu
. "$ROOT/tests/lib.sh"

command -v strace >/dev/null 2>&1 || exit 77
strace -f -qq -o /dev/null true 2>/dev/null || exit 77
serve_stub s --ttft-ms 0 --itl-ms 0
"$FAK" bench trace --rate 50 --requests 100 --output-tokens 2 --seed 3 --out t.json 2>/dev/null
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
expect_code 0 strace -f -qq -e trace=connect,epoll_ctl -o st.txt "$FAK" bench serve \
	--endpoint "http://127.0.0.1:$STUB_PORT" --trace t.json --format json --max-lag 1h
expect_equal 100 "$(jq .completed out.txt)" "completed requests"
conns=$(grep -c '^[0-9]* *connect(' st.txt || true)
ctl=$(grep -c 'epoll_ctl(' st.txt || true)
[ "$conns" -ge 1 ] && [ "$conns" -le 10 ] || fail "$conns connections for 100 requests"
[ "$ctl" -le $((3 * conns)) ] ||
	fail "$ctl epoll_ctl calls for 100 requests on $conns connections (want at most $((3 * conns)))"
