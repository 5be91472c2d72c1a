# tests/complexity.sh, the complexity ceiling, on a copy of the sources: the
# tree as committed passes; a function of 101 lines and one of McCabe 31 each
# fail with their finding, one of 100 lines and McCabe 30 passes; the
# exception list only shrinks (a listed function under the ceiling or gone,
# and a line listed twice, fail by name).
# fak-test: once
set -u
. "$ROOT/tests/lib.sh"
command -v pmccabe >/dev/null || fail "pmccabe is not installed (tools/packages.txt)"
mkdir -p t/tests
cp -R "$ROOT/src" t/
cp "$ROOT/tests/complexity.sh" "$ROOT/tests/complexity-exceptions.txt" t/tests/
list=tests/complexity-exceptions.txt
t/tests/complexity.sh >out.txt || { cat out.txt; fail "the committed tree does not pass"; }
refused() {	# refused FINDING: the check fails with exactly FINDING
	if t/tests/complexity.sh >out.txt; then fail "passed: $1"; fi
	grep -qxF "$1" out.txt || { cat out.txt; fail "the finding: $1"; }
}
fn() {	# fn NAME N FORMAT: a function of N statements (FORMAT of 1..N) and 4 lines more
	printf 'int %s(int x);\nint %s(int x)\n{\n' "$1" "$1"
	i=0
	while [ $i -lt "$2" ]; do
		i=$((i + 1))
		# shellcheck disable=SC2059
		printf "$3" $i
	done
	printf '\treturn x;\n}\n'
}
body() {	# body NAME N: N + 4 lines, McCabe 1
	fn "$1" "$2" '\tx += %d;\n'
}
branches() {	# branches NAME N: N ifs, McCabe N + 1
	fn "$1" "$2" '\tif (x == %d)\n\t\tx++;\n'
}
# at the ceiling: 100 lines (a comment and a blank line do not count), McCabe 30
{ body at_lines 96; echo '/* a comment */'; echo; branches at_mccabe 29; } >t/src/base/ceiling.c
t/tests/complexity.sh >out.txt || { cat out.txt; fail "a function at the ceiling failed"; }
body too_long 97 >t/src/base/ceiling.c
refused 'src/base/ceiling.c: too_long has 101 lines and McCabe 1, over the ceiling (100 lines, McCabe 30): split it'
branches too_branchy 30 >t/src/base/ceiling.c
refused 'src/base/ceiling.c: too_branchy has 64 lines and McCabe 31, over the ceiling (100 lines, McCabe 30): split it'
rm t/src/base/ceiling.c
# a listed function now under the ceiling, or gone
echo 'src/base/strbuf.c sb_addf	# listed by mistake' >>t/$list
refused "$list: src/base/strbuf.c sb_addf is under the ceiling now, or gone: remove its line (the list only shrinks)"
cp "$ROOT/$list" t/$list
grep '^src/' t/$list | head -1 >>t/$list
first=$(grep '^src/' t/$list | head -1 | awk '{ print $1, $2 }')
refused "$list: '$first' is listed twice: remove one line"
rm t/$list
refused "complexity: no exception list '$list'"
