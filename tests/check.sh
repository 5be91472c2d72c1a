#!/bin/sh
# Everything `make check` promises: gcc build with warnings as errors, its
# unit and CLI tests, the same suite under ASan+UBSan (clang), cppcheck and
# clang-tidy, a smoke run of every fuzz target, every C file compiled and
# linked for macOS (make cross-check), the llama.cpp example end to end
# (tests/example-llama.sh) and llama-server under load (tests/example-serve.sh).
# Last line: the total.
#
#   tests/check.sh           make check: everything
#   tests/check.sh --fast    make check-fast: the gcc build and its suite
#                            without the slowest tests (the scripts run
#                            $SCRIPT_JOBS, default nproc, at a time), the
#                            style, floor and complexity checks, the
#                            bench programs' build, cppcheck
#                            on the C files changed since HEAD
#
# The ASan pass skips the scripts marked "# fak-test: once" (they exercise
# nothing of the build: the gcc pass ran them), tests/cli/run.sh says which.
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
# changed_c: the C files under cppcheck's folders that differ from HEAD or
# that git does not track yet
changed_c() {
	{ git diff --name-only HEAD -- src tools tests/fuzz examples bench
	  git ls-files --others --exclude-standard -- src tools tests/fuzz examples bench; } 2>/dev/null |
		grep '\.[ch]$' | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done
}

if [ "${1:-}" = --fast ]; then
	# the three deep-graph unit tests take most of the unit suite's time
	UNIT_FILTER='!(graph_deep/*|graph_climb/a_long_chain_listed_backwards_needs_no_deep_stack)'
	FAK_TEST_SKIP_SLOW=1
	SCRIPT_JOBS=${SCRIPT_JOBS:-$jobs}
	export UNIT_FILTER FAK_TEST_SKIP_SLOW SCRIPT_JOBS
	suite build test
	stage "bench programs" make -s bench-build
	stage "style (100 columns)" tests/style.sh
	stage "layers (includes point down)" tests/layers.sh
	stage "complexity (100 lines, McCabe 30)" tests/complexity.sh
	files=$(changed_c)
	if [ -z "$files" ]; then
		echo "== cppcheck: no C file changed since HEAD"
	elif echo "$files" | grep -q '\.h$'; then
		stage "cppcheck (a header changed: every file)" make -s cppcheck
	else
		# shellcheck disable=SC2086
		stage "cppcheck $(echo $files)" make -s cppcheck CPPCHECK_FILES="$(echo $files)"
	fi
	echo "(check-fast: make check runs the rest: slow tests, ASan, clang, clang-tidy, fuzz," \
	     "macOS cross-compile, llama.cpp, llama-server)"
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit
fi

suite build test
FAK_TEST_SKIP_ONCE=1
export FAK_TEST_SKIP_ONCE
suite build-asan sanitize
stage "clang build" sh -c "make -s -j$jobs BUILD=build-clang CC=clang build-clang/fak build-clang/test_unit >/dev/null"
stage lint make -s -j"$jobs" lint
stage "bench programs (gcc, clang)" sh -c "make -s bench-build && make -s BUILD=build-clang CC=clang bench-build"
stage "style (100 columns)" tests/style.sh
stage "layers (includes point down)" tests/layers.sh
stage "complexity (100 lines, McCabe 30)" tests/complexity.sh
stage fuzz make -s -j"$jobs" fuzz
# every C file compiled and linked for macOS with Zig's clang (Zig runs on x86_64 Linux)
if [ "$(uname -sm)" = "Linux x86_64" ]; then
	stage "macOS cross-compile" make -s -j"$jobs" cross-check
else
	echo "== macOS cross-compile: skipped (the pinned Zig runs on x86_64 Linux, this is $(uname -sm))"
fi
# the real engine: builds llama.cpp once (about 10 minutes on 2 cores, about 3 more for
# llama-server), then one A/B
stage "llama.cpp example" make -s example-llama-check
# the real server under load: llama-server (built by the stage above) replays the trace
stage "llama-server example" make -s example-serve-check
# a serving A/B of the real server: receipts, comparison, gate, promotion, witnesses
stage "llama-server A/B" make -s example-serve-ab-check
echo "$pass passed, $fail failed"
[ $fail = 0 ]
