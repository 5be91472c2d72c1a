#!/bin/sh
# Hand measurement of two arms of the example workload, before (or beside)
# `fak bench experiment`: N rounds in ABBA order, each run's metrics line
# parsed with jq; prints every tok/s, the medians and the B/A ratio.
#
#   examples/cpu-decode/measure.sh N "ARGS A" "ARGS B"
#   examples/cpu-decode/measure.sh 12 "--kernel scalar" "--kernel blocked"
#
# Runs build/example/decode (BUILD=... to use another build folder) on
# build/example/weights.bin: run `make example-build` first.
set -eu
[ $# = 3 ] || { echo "usage: $0 N 'ARGS A' 'ARGS B'" >&2; exit 2; }
n=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
dec=$build/example/decode
w=$build/example/weights.bin
ref=$root/examples/cpu-decode/reference.txt
[ -x "$dec" ] && [ -f "$w" ] || { echo "$0: run 'make example-build' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() {	# one ARM-FILE ARGS: append this run's tok/s, refuse a score below 1
	# shellcheck disable=SC2086
	line=$("$dec" --weights "$w" --reference "$ref" $2 | tail -1)
	echo "$line" | jq -e '.quality.score == 1' >/dev/null || { echo "$0: quality below 1: $line" >&2; exit 1; }
	echo "$line" | jq '.tokens_per_second' >>"$1"
}
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

i=0
while [ $i -lt "$n" ]; do
	if [ $((i % 2)) = 0 ]; then one "$tmp/a" "$2"; one "$tmp/b" "$3"; else one "$tmp/b" "$3"; one "$tmp/a" "$2"; fi
	i=$((i + 1))
done
a=$(median "$tmp/a")
b=$(median "$tmp/b")
echo "A ($2): $(sort -n "$tmp/a" | tr '\n' ' ')"
echo "B ($3): $(sort -n "$tmp/b" | tr '\n' ' ')"
echo "median tok/s: A $a, B $b, B/A $(echo "$a $b" | awk '{ printf "%.3f", $2 / $1 }')"
