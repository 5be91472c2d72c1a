#!/bin/sh
# The floors of src/: a folder may include only folders on a lower floor
# (never its own floor's others, never upward), so the ladder stays as flat
# as this table says. Every folder of src/ has a floor; a new one must be
# given its place here. And a command is its entry in the command table and
# its one file (src/cli/command.h): no header declares a command's handler
# or spec (np.h's np_spec serves np's own files).
#   tests/layers.sh
set -u
cd "$(dirname "$0")/.." || exit 1
floors='base 0
platform 1
attestation 2
graph 2
stats 2
index 3
profile 3
receipt 3
sampler 3
serve 3
workload 3
experiment 4
render 4
witness 4
cli 5'
bad=$(
	for d in src/*/; do
		m=$(basename "$d")
		echo "$floors" | grep -q "^$m " || echo "src/$m/: no floor (add it to tests/layers.sh)"
	done
	grep -Ho '^#include "[a-z_]*/' src/*/*.[ch] | sed 's/:#include "/ /; s#/$##' |
		while read -r file to; do
			from=${file#src/}
			from=${from%%/*}
			[ "$from" = "$to" ] && continue
			f=$(echo "$floors" | awk -v m="$from" '$1 == m { print $2 }')
			t=$(echo "$floors" | awk -v m="$to" '$1 == m { print $2 }')
			[ -n "$f" ] || continue	# reported above
			if [ -z "$t" ]; then
				echo "$file: includes $to/, which is no folder of src/ with a floor"
			elif [ "$t" -ge "$f" ]; then
				echo "$file: includes $to/ (floor $t) from $from/ (floor $f): an include points down only"
			fi
		done
	grep -Hn 'int [a-z_]*(int argc, char \*\*argv);\|extern const struct cmd_spec' src/*/*.h |
		grep -v '^src/cli/cli\.h:[0-9]*:int cli_main(\|^src/cli/np\.h:[0-9]*:extern const struct cmd_spec np_spec;' |
		sed 's/^\([^:]*:[0-9]*\):.*/\1: declares a command'"'"'s handler or spec: only its table entry (src\/cli\/cli.c) and its file may (src\/cli\/command.h)/'
)
if [ -n "$bad" ]; then
	echo "$bad" | LC_ALL=C sort -u
	exit 1
fi
echo "layers: every include of src/ points to a lower floor ($(echo "$floors" | awk '{ print $2 }' | sort -u | wc -l) floors); no header declares a command"
