# tests/style.sh, the 100-column rule, on a copy of the sources: the tree as
# committed passes; a line of 101 columns (a tab counts 8) fails naming its
# file and line; one of exactly 100 passes.
# fak-test: once
set -u
. "$ROOT/tests/lib.sh"
mkdir -p t/tests
cp -R "$ROOT/src" "$ROOT/examples" "$ROOT/tools" t/
cp -R "$ROOT/tests/unit" "$ROOT/tests/fuzz" "$ROOT/tests/tools" "$ROOT/tests/nvml" t/tests/
cp "$ROOT/tests/style.sh" t/tests/
t/tests/style.sh >out.txt || { cat out.txt; fail "the committed tree does not pass"; }
n=$(wc -l <t/src/main.c)
# a tab (8 columns) and 92 characters: 100 columns, allowed
printf '\t/* %086d */\n' 0 >>t/src/main.c
t/tests/style.sh >out.txt || { cat out.txt; fail "a line of 100 columns failed"; }
# one more character: 101 columns
printf '\t/* %087d */\n' 0 >>t/src/main.c
if t/tests/style.sh >out.txt; then fail "a wide line passed"; fi
expect_grep "^src/main.c:$((n + 2)): 101 columns, at most 100 (tabs of 8)\$" out.txt "the finding"
expect_grep '^style: 1 line(s) wider than 100 columns: rewrap them$' out.txt "the summary"
