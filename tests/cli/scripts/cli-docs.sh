# The man page and the bash completion come from the command tables: the
# man page names every command and every option that --help lists (the
# lists are read from --help, not written here) and renders without a
# warning; the completion completes commands, subcommands and options;
# `make install DESTDIR=...` puts fak, fak.1 and the completion in place.
set -eu
. "$ROOT/tests/lib.sh"
for t in man groff mandoc bash; do
	command -v $t >/dev/null || fail "$t is not installed (tools/packages.txt)"
done

"$FAK" --man >fak.1
"$FAK" --completion bash >fak.bash

# ---- the man page renders cleanly -----------------------------------------
MANWIDTH=80 man -l fak.1 >man.txt 2>man.err
expect_file /dev/null man.err
groff -man -Tutf8 -ww -z fak.1 2>groff.err
expect_file /dev/null groff.err
mandoc -Tlint fak.1 >lint.txt 2>&1 || true
expect_file /dev/null lint.txt

# ---- every command and option of --help is in it ---------------------------
# the commands: the lines "  NAME  help" under "commands:" ("bench SUB" too)
"$FAK" --help | sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z -]*[a-z]\)  .*/\1/p' >commands.txt
[ "$(wc -l <commands.txt)" -ge 4 ] || fail "fak --help lists $(wc -l <commands.txt) commands"
n=0
while read -r cmd; do
	grep -qx "   fak $cmd" man.txt || fail "the man page has no section 'fak $cmd'"
	# the section of the command: from its heading to the next one
	sed -n "/^   fak $cmd\$/,/^   fak \|^[A-Z]/p" man.txt >section.txt
	# shellcheck disable=SC2086
	"$FAK" $cmd --help >help.txt
	sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' help.txt >opts.txt
	[ -s opts.txt ] || fail "fak $cmd --help lists no option"
	while read -r o; do
		grep -q -- "^       $o\( \|$\)" section.txt ||
			fail "the man page section 'fak $cmd' does not describe $o"
		n=$((n + 1))
	done <opts.txt
done <commands.txt
echo "man page: $(wc -l <commands.txt) commands, $n options"

# ---- bash completion -------------------------------------------------------
# complete WORD...: the completions of the last word, one a line
complete() {
	bash -c '. ./fak.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fak
		 printf "%s\n" "${COMPREPLY[@]}"' complete "$@"
}
expect_equal native-performance "$(complete fak na)" "fak na<TAB>"
expect_equal experiment "$(complete fak bench ex)" "fak bench ex<TAB>"
expect_equal "--profile
--profile-next
--promote
--prompt-tokens
--provenance" "$(complete fak native-performance --pro)" "fak native-performance --pro<TAB>"
expect_equal "--verify" "$(complete fak bench system-baseline --veri)" \
	"fak bench system-baseline --veri<TAB>"
# an option's value is left to bash's file names (complete -o default)
expect_equal "" "$(complete fak native-performance --graph ne)" "fak native-performance --graph ne<TAB>"
expect_equal "--json" "$(complete fak bench system-check --js)" "fak bench system-check --js<TAB>"
# every option of every command completes
while read -r cmd; do
	# shellcheck disable=SC2086
	"$FAK" $cmd --help | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' >opts.txt
	while read -r o; do
		# shellcheck disable=SC2086
		complete fak $cmd "$o" | grep -qx -- "$o" ||
			fail "fak $cmd $o<TAB> does not complete $o"
	done <opts.txt
done <commands.txt

# ---- make install ----------------------------------------------------------
build=$(dirname "$FAK")
# -o keeps make from rebuilding fak; the page and completion it would then
# think current may be an earlier binary's: make them again from this one
rm -f "$build/fak.1" "$build/fak.bash"
make -s -C "$ROOT" install BUILD="$build" -o "$build/fak" DESTDIR="$PWD/stage" PREFIX=/usr \
	>install.log 2>&1 || { cat install.log; fail "make install failed"; }
for f in bin/fak share/man/man1/fak.1 share/bash-completion/completions/fak; do
	[ -f "stage/usr/$f" ] || fail "make install did not install usr/$f"
done
[ -x stage/usr/bin/fak ] || fail "usr/bin/fak is not executable"
expect_file fak.1 stage/usr/share/man/man1/fak.1
expect_file fak.bash stage/usr/share/bash-completion/completions/fak
echo "make install: bin/fak, share/man/man1/fak.1, share/bash-completion/completions/fak"
