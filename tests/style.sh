#!/bin/sh
# The 100-column rule for C sources (tabs of 8), fak's own output width: every
# line of every .c and .h file under src, tests, examples, tools and bench is at most
# 100 columns wide. Each wide line is named with its file and line number.
#   tests/style.sh
set -u
cd "$(dirname "$0")/.." || exit 1
bad=$(find src tests examples tools bench -name '*.[ch]' -not -path '*/node_modules/*' | LC_ALL=C sort |
	while read -r f; do
		expand -t 8 "$f" | awk -v f="$f" 'length($0) > 100 {
			printf "%s:%d: %d columns, at most 100 (tabs of 8)\n", f, NR, length($0) }'
	done)
if [ -n "$bad" ]; then
	echo "$bad"
	echo "style: $(echo "$bad" | wc -l) line(s) wider than 100 columns: rewrap them"
	exit 1
fi
echo "style: every C line is at most 100 columns wide"
