#!/bin/sh
# Everything `make check` promises: gcc build with warnings as errors, its
# unit and CLI tests, the same suite under ASan+UBSan (clang), cppcheck and
# clang-tidy, a smoke run of every fuzz target, and the llama.cpp example end to end
# (tests/example-llama.sh). Last line: the total.
set -u
cd "$(dirname "$0")/.." || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
pass=0
fail=0
stage() {	# stage NAME COMMAND...: a pass/fail stage that counts once
	name=$1
	shift
	echo "== $name"
	if "$@"; then pass=$((pass + 1)); else echo "FAILED: $name"; fail=$((fail + 1)); fi
}
suite() {	# suite BUILD MAKE-ARGS...: adds the suite's own counts
	build=$1
	shift
	echo "== tests in $build"
	rm -f "$build/results"
	make -s -j"$jobs" "$@" || true
	if [ -f "$build/results" ]; then
		set -- $(cat "$build/results")
		pass=$((pass + $1))
		fail=$((fail + $2))
	else
		echo "FAILED: $build did not build or run"
		fail=$((fail + 1))
	fi
}
suite build test
suite build-asan sanitize
stage "clang build" sh -c "make -s -j$jobs BUILD=build-clang CC=clang build-clang/fak build-clang/test_unit >/dev/null"
stage lint make -s lint
stage fuzz make -s -j"$jobs" fuzz
# the real engine: builds llama.cpp once (about 10 minutes on 2 cores), then one A/B
stage "llama.cpp example" make -s example-llama-check
echo "$pass passed, $fail failed"
[ $fail = 0 ]
