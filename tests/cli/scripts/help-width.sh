# fak's help and usage errors stay within 100 columns, its output width:
# `fak --help`, every command's and bench subcommand's --help (the commands
# are read from `fak --help`, not written here), and the usage error of each,
# whose usage line is wrapped with continuation lines under the command name.
# fak-test: once
set -u
. "$ROOT/tests/lib.sh"
"$FAK" --help >help.txt
sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z -]*[a-z]\)  .*/\1/p' help.txt >commands.txt
[ "$(wc -l <commands.txt)" -ge 6 ] || fail "fak --help lists $(wc -l <commands.txt) commands"
n=0
while read -r cmd; do
	# shellcheck disable=SC2086
	"$FAK" $cmd --help >>help.txt 2>&1
	# shellcheck disable=SC2086
	"$FAK" $cmd --no-such-option >/dev/null 2>>help.txt
	n=$((n + 1))
done <commands.txt
awk 'length($0) > 100 { printf "%d columns: %s\n", length($0), $0; bad = 1 } END { exit bad }' \
	help.txt || fail "lines wider than 100 columns in the help of $n commands"
# the wrapped usage: native-performance's modes, one alternative a line
"$FAK" native-performance --no-such-option 2>err.txt && fail "an unknown option passed"
expect_grep '^           | --compare BASELINE --candidate CANDIDATE \[--chart FILE\]$' err.txt \
	"a mode of the usage line on its own continuation line"
# and '-- COMMAND [ARGS...]' is not cut
"$FAK" bench system-baseline --no-such-option 2>err.txt && fail "an unknown option passed"
expect_grep '^           \[--out FILE\] -- COMMAND \[ARGS...\]$' err.txt "the command kept together"
