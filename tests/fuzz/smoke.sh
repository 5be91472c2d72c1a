#!/bin/sh
# Smoke-runs every built fuzz target over its seed corpus plus a bounded
# number of mutations: tests/fuzz/smoke.sh BUILD [RUNS]
# Seeds: tests/fuzz/seeds/<target>.list names fixture files or folders.
set -u
build=$1
runs=${2:-2000}
root=$(cd "$(dirname "$0")/../.." && pwd)
rc=0
for bin in "$build"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	corpus=$(mktemp -d)
	if [ -f "$root/tests/fuzz/seeds/$name.list" ]; then
		while read -r item; do
			[ -n "$item" ] || continue
			if [ -d "$root/$item" ]; then cp "$root/$item"/* "$corpus"/ 2>/dev/null || true
			else cp "$root/$item" "$corpus"/ 2>/dev/null || true; fi
		done <"$root/tests/fuzz/seeds/$name.list"
	fi
	if "$bin" -runs="$runs" -max_len=65536 -timeout=10 "$corpus" >"$build/$name.log" 2>&1; then
		echo "fuzz $name: ok ($(ls "$corpus" | wc -l) seeds, $runs runs)"
	else
		echo "fuzz $name: FAILED"
		tail -30 "$build/$name.log"
		rc=1
	fi
	rm -rf "$corpus"
done
exit $rc
