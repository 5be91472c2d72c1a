#!/bin/sh
# The complexity ceiling of src/: no function longer than 100 lines or with a
# McCabe number over 30, unless tests/complexity-exceptions.txt lists it. The
# list only shrinks: a listed function that is now under the ceiling, or gone,
# fails the check until its line is removed. Figures are pmccabe's (Debian
# package pmccabe): lines are its -c count (the function's lines that are not
# comments), McCabe its traditional cyclomatic complexity (every case of a
# switch counts).
#   tests/complexity.sh [SRC LIST]    (defaults: src tests/complexity-exceptions.txt)
set -u
cd "$(dirname "$0")/.." || exit 1
src=${1:-src}
list=${2:-tests/complexity-exceptions.txt}
max_lines=100
max_mccabe=30
if ! command -v pmccabe >/dev/null 2>&1; then
	echo "complexity: pmccabe is not installed (sh tools/install-deps.sh installs it)"
	exit 1
fi
[ -f "$list" ] || { echo "complexity: no exception list '$list'"; exit 1; }
# "FILE FUNCTION LINES MCCABE" for every function over the ceiling; pmccabe
# names a function it read as inside a C++ scope "scope::name": the name is
# the last part
files=$(find "$src" -name '*.[ch]' | LC_ALL=C sort)
[ -n "$files" ] || { echo "complexity: no C file under '$src'"; exit 1; }
# word splitting of the file list is wanted (the paths of src/ hold no blank)
# shellcheck disable=SC2086
over=$(pmccabe -c $files 2>/dev/null |
	awk -v l="$max_lines" -v m="$max_mccabe" '$5 > l || $2 > m {
		f = $6; sub(/\([0-9]*\):$/, "", f); n = $7; sub(/^.*::/, "", n)
		print f, n, $5, $2 }' | LC_ALL=C sort -u)
listed=$(grep -v '^#' "$list" | grep -v '^[[:space:]]*$' | awk '{ print $1, $2 }' |
	LC_ALL=C sort)
bad=$(
	echo "$listed" | uniq -d | while read -r f n; do
		echo "$list: '$f $n' is listed twice: remove one line"
	done
	echo "$over" | while read -r f n lines mccabe; do
		[ -n "$f" ] || continue
		echo "$listed" | grep -qxF "$f $n" && continue
		echo "$f: $n has $lines lines and McCabe $mccabe, over the ceiling ($max_lines lines," \
		     "McCabe $max_mccabe): split it"
	done
	echo "$listed" | while read -r f n; do
		[ -n "$f" ] || continue
		echo "$over" | awk '{ print $1, $2 }' | grep -qxF "$f $n" && continue
		echo "$list: $f $n is under the ceiling now, or gone: remove its line (the list" \
		     "only shrinks)"
	done
)
if [ -n "$bad" ]; then
	echo "$bad"
	exit 1
fi
echo "complexity: no function over $max_lines lines or McCabe $max_mccabe but the" \
     "$(echo "$listed" | grep -c .) listed in $list"
