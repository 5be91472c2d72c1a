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
#
# Both see FAK (the binary), ROOT (the repository), FIX (tests/fixtures),
# under LC_ALL=C and TZ=UTC. UPDATE=1 rewrites the expected files of the
# named cases (read the diff before committing it). In out and err, the
# case's folder is written as $PWD and the repository as $ROOT, so goldens
# hold no path of the machine that made them.
set -u
bin=$1
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FAK=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
FIX=$ROOT/tests/fixtures
export ROOT FAK FIX
export LC_ALL=C TZ=UTC
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

want() {	# is $1 among the names given on the command line (or none given)?
	[ $# -eq 1 ] && return 0
	n=$1
	shift
	for x in "$@"; do [ "$x" = "$n" ] && return 0; done
	return 1
}

for dir in "$ROOT"/tests/cli/cases/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	want "$name" "$@" || continue
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
	ok=1
	for k in out err code; do
		if [ ! -f "$dir/expected.$k" ]; then
			echo "FAIL $name: expected.$k is missing"
			ok=0
		elif ! cmp -s "$dir/expected.$k" "$work/$name.$k"; then
			echo "FAIL $name: $k differs"
			diff -u "$dir/expected.$k" "$work/$name.$k" | head -40
			ok=0
		fi
	done
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done

for script in "$ROOT"/tests/cli/scripts/*.sh; do
	[ -f "$script" ] || continue
	name=$(basename "$script" .sh)
	want "$name" "$@" || continue
	run="$work/script-$name"
	mkdir -p "$run"
	if (cd "$run" && sh "$script" >"$work/script-$name.log" 2>&1 </dev/null); then
		pass=$((pass + 1))
	else
		echo "FAIL script $name:"
		tail -40 "$work/script-$name.log"
		fail=$((fail + 1))
	fi
done

echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]
