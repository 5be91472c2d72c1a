# tests/style.sh, the 100-column ratchet, on a copy of the sources: the tree as
# committed passes; a new wide line fails naming its file; a file that lost its
# wide lines fails until the list is updated.
# fak-test: once
set -u
. "$ROOT/tests/lib.sh"
mkdir -p t/tests
cp -R "$ROOT/src" "$ROOT/examples" "$ROOT/tools" t/
cp -R "$ROOT/tests/unit" "$ROOT/tests/fuzz" "$ROOT/tests/tools" "$ROOT/tests/nvml" t/tests/
cp "$ROOT/tests/style.sh" "$ROOT/tests/style-wide.txt" t/tests/
t/tests/style.sh >out.txt || { cat out.txt; fail "the committed tree does not pass"; }
w=$(printf '/* %0100d */' 0)
printf 'int x; %s\n' "$w" >>t/src/main.c
if t/tests/style.sh >out.txt; then fail "a wide line passed"; fi
grep -qx 'src/main.c: 1 lines wider than 100 columns (tabs of 8), 0 allowed' out.txt ||
	{ cat out.txt; fail "the finding"; }
sed -i '$d' t/src/main.c
f=$(awk 'NR == 1 { print $2 }' t/tests/style-wide.txt)
expand -t 8 "t/$f" | awk 'length($0) <= 100' >t/narrow && mv t/narrow "t/$f"
if t/tests/style.sh >out.txt; then fail "a stale list passed"; fi
grep -q "^$f: no wide line left: tests/style.sh --update$" out.txt || { cat out.txt; fail "stale"; }
t/tests/style.sh --update >/dev/null && t/tests/style.sh >/dev/null || fail "--update"
