#!/bin/sh
# Golden CLI cases and scripted end-to-end tests.
#
#   tests/cli/run.sh BUILD/fak [NAME...]
#
# cases/<name>/cmd           shell snippet, run by sh in a fresh empty folder
# cases/<name>/expected.out  exact stdout
# cases/<name>/expected.err  exact stderr
# cases/<name>/expected.code exit status
# scripts/<name>.sh          a test of its own: passes when it exits 0
# scripts/<name>.sh exiting 77  cannot run its case on this host: named, not counted
#
# Both see FAK (the binary), ROOT (the repository), FIX (tests/fixtures),
# under LC_ALL=C and TZ=UTC. UPDATE=1 rewrites the expected files of the
# named cases (read the diff before committing it). In out and err, the
# case folder is written as $PWD and the repository as $ROOT, so goldens
# hold no path of the machine that made them.
#
# The cases run $JOBS at a time (default: the number of CPUs), the scripts
# $SCRIPT_JOBS at a time (default 1; make check-fast runs 2). A script may carry a line "# fak-test: slow", "# fak-test:
# once" or "# fak-test: slow once":
#   FAK_TEST_SKIP_SLOW=1  skips the slow scripts (make check-fast)
#   FAK_TEST_SKIP_ONCE=1  skips the scripts that exercise nothing of the build
#                         under test (no fak, no test driver of the build), so
#                         a second build's pass need not run them again (make
#                         check's ASan pass)
# Skipped scripts are named in a line before the total and never counted.
set -u
if [ "${1:-}" = --case ]; then	# internal: run one case, leave NAME.result
	shift
	work=$1 dir=$2 name=$3
	run="$work/$name"
	mkdir -p "$run"
	(cd "$run" && sh "$dir/cmd" >"$work/$name.raw.out" 2>"$work/$name.raw.err" </dev/null)
	echo $? >"$work/$name.code"
	# goldens never hold paths of this machine: the case folder reads $PWD,
	# the repository $ROOT
	for k in out err; do
		sed -e "s|$run|\$PWD|g" -e "s|$ROOT|\$ROOT|g" "$work/$name.raw.$k" >"$work/$name.$k"
	done
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$work/$name.out" "$dir/expected.out"
		cp "$work/$name.err" "$dir/expected.err"
		cp "$work/$name.code" "$dir/expected.code"
	fi
	for k in out err code; do
		if [ ! -f "$dir/expected.$k" ]; then
			echo "FAIL $name: expected.$k is missing"
		elif ! cmp -s "$dir/expected.$k" "$work/$name.$k"; then
			echo "FAIL $name: $k differs"
			diff -u "$dir/expected.$k" "$work/$name.$k" | head -40
		fi
	done >"$work/$name.result"
	rm -rf "$run"
	exit 0
fi
if [ "${1:-}" = --script ]; then	# internal: run one script, leave NAME.rc and NAME.log
	work=$2 name=$3
	run="$work/script-$name"
	mkdir -p "$run"
	(cd "$run" && sh "$ROOT/tests/cli/scripts/$name.sh" >"$work/script-$name.log" 2>&1 </dev/null)
	echo $? >"$work/script-$name.rc"
	rm -rf "$run"
	exit 0
fi
bin=$1
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FAK=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
FIX=$ROOT/tests/fixtures
export ROOT FAK FIX
export LC_ALL=C TZ=UTC
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
pass=0
fail=0
skipped=
notrun=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

want() {	# is $1 among the names given on the command line (or none given)?
	[ $# -eq 1 ] && return 0
	n=$1
	shift
	for x in "$@"; do [ "$x" = "$n" ] && return 0; done
	return 1
}

: >"$work/cases"
for dir in "$ROOT"/tests/cli/cases/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	want "$name" "$@" || continue
	echo "$name" >>"$work/cases"
done
# one sh per case, $jobs at a time; the results are read in name order
self=$(cd "$(dirname "$0")" && pwd)/run.sh
xargs -P "$jobs" -I{} sh "$self" --case "$work" "$ROOT/tests/cli/cases/{}" {} <"$work/cases"
while read -r name; do
	if [ ! -f "$work/$name.result" ]; then
		echo "FAIL $name: the case did not run"
		fail=$((fail + 1))
	elif [ -s "$work/$name.result" ]; then
		cat "$work/$name.result"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done <"$work/cases"

tagged() {	# tagged SCRIPT TAG: does the script carry "# fak-test: ... TAG"?
	grep -q "^# fak-test:.* $2\( \|\$\)" "$1"
}

: >"$work/scripts"
for script in "$ROOT"/tests/cli/scripts/*.sh; do
	[ -f "$script" ] || continue
	name=$(basename "$script" .sh)
	want "$name" "$@" || continue
	if { [ "${FAK_TEST_SKIP_SLOW:-}" = 1 ] && tagged "$script" slow; } ||
		{ [ "${FAK_TEST_SKIP_ONCE:-}" = 1 ] && tagged "$script" once; }; then
		skipped="$skipped $name"
		continue
	fi
	echo "$name" >>"$work/scripts"
done
# SCRIPT_JOBS scripts at a time (default 1: several at once load the host
# that some of them measure)
xargs -P "${SCRIPT_JOBS:-1}" -I{} sh "$self" --script "$work" {} <"$work/scripts"
while read -r name; do
	rc=$(cat "$work/script-$name.rc" 2>/dev/null)
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
	elif [ "$rc" = 77 ]; then
		# the script could not run its case on this host and said why (its
		# last line): neither passed nor failed, and named below
		notrun="$notrun
  $name: $(tail -1 "$work/script-$name.log")"
	else
		echo "FAIL script $name:"
		tail -40 "$work/script-$name.log"
		fail=$((fail + 1))
	fi
done <"$work/scripts"

[ -z "$skipped" ] || echo "skipped (FAK_TEST_SKIP_SLOW/FAK_TEST_SKIP_ONCE):$skipped"
[ -z "$notrun" ] || echo "not run on this host (exit 77, the script's reason):$notrun"

echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]
