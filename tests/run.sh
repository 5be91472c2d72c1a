#!/bin/sh
# Unit and CLI tests of one build folder: tests/run.sh BUILD
# Prints "<build>: N passed, N failed" last and records it in BUILD/results.
set -u
build=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
export LC_ALL=C TZ=UTC

# UNIT_FILTER: a Criterion pattern of the tests to run (make check-fast)
if [ -n "${UNIT_FILTER:-}" ]; then
	echo "$build unit: only the tests matching $UNIT_FILTER"
	"$build/test_unit" --jobs 2 --filter "$UNIT_FILTER" >"$build/unit.log" 2>&1
else
	"$build/test_unit" --jobs 2 >"$build/unit.log" 2>&1
fi
unit_rc=$?
cat "$build/unit.log" | grep -v '^\[----\]' | grep -E 'FAIL|Assertion|CRASH|Synthesis|Warning|ERROR|error' || true
syn=$(grep 'Synthesis' "$build/unit.log" | tail -1)
u_pass=$(echo "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
u_fail=$(echo "$syn" | sed -n 's/.*Failing: \([0-9]*\).*Crashing: \([0-9]*\).*/\1 \2/p')
[ -n "$u_pass" ] || { u_pass=0; u_fail="1 0"; echo "unit tests did not report a synthesis"; tail -20 "$build/unit.log"; }
set -- $u_fail
u_fail=$(($1 + $2))
[ $unit_rc = 0 ] || [ $u_fail -gt 0 ] || u_fail=1

tests/cli/run.sh "$build/fak" >"$build/cli.log" 2>&1
cat "$build/cli.log" | grep -v '^cli:' || true
cli=$(tail -1 "$build/cli.log")
c_pass=$(echo "$cli" | sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
c_fail=$(echo "$cli" | sed -n 's/^cli: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
[ -n "$c_pass" ] || { c_pass=0; c_fail=1; }

echo "$build unit: $u_pass passed, $u_fail failed"
echo "$build cli: $c_pass passed, $c_fail failed"
echo "$((u_pass + c_pass)) $((u_fail + c_fail))" >"$build/results"
echo "$build: $((u_pass + c_pass)) passed, $((u_fail + c_fail)) failed"
[ $((u_fail + c_fail)) = 0 ]
