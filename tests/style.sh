#!/bin/sh
# The 100-column rule for C sources (tabs of 8), kept by a ratchet: a file may
# not gain lines wider than 100 columns, and a new file has none.
# tests/style-wide.txt lists the files that had wide lines when the rule came
# (COUNT PATH): each may only go down, and when it does the list must say so
# (tests/style.sh --update rewrites it; commit the shorter list).
#   tests/style.sh [--update]
set -u
cd "$(dirname "$0")/.." || exit 1
list=tests/style-wide.txt
now=$(mktemp)
trap 'rm -f "$now"' EXIT
find src tests examples tools -name '*.[ch]' -not -path '*/node_modules/*' | LC_ALL=C sort |
	while read -r f; do
		n=$(expand -t 8 "$f" | awk 'length($0) > 100' | wc -l)
		[ "$n" -gt 0 ] && echo "$n $f"
	done >"$now"
if [ "${1:-}" = --update ]; then
	cp "$now" "$list"
	echo "style: $(wc -l <"$list") files with wide lines, $(awk '{ s += $1 } END { print s + 0 }' "$list") lines"
	exit 0
fi
bad=$(awk 'NR == FNR { was[$2] = $1; next }
	{ w = ($2 in was) ? was[$2] : 0
	  if ($1 > w) printf "%s: %d lines wider than 100 columns (tabs of 8), %d allowed\n", $2, $1, w
	  seen[$2] = 1 }
	END { for (f in was) if (!(f in seen)) printf "%s: no wide line left: tests/style.sh --update\n", f }' \
	"$list" "$now")
lower=$(awk 'NR == FNR { was[$2] = $1; next } ($2 in was) && $1 < was[$2] { print $2 }' "$list" "$now")
if [ -n "$bad" ]; then
	echo "$bad" | LC_ALL=C sort
	exit 1
fi
if [ -n "$lower" ]; then
	echo "style: fewer wide lines in $(echo "$lower" | wc -l) file(s): run tests/style.sh --update and commit"
	exit 1
fi
echo "style: no file gained a line wider than 100 columns ($(awk '{ s += $1 } END { print s + 0 }' "$now") left in $(wc -l <"$now") files)"
