# A promotion journal fak did not write, or one that points through a
# symbolic link, is never followed: recovery refuses it (exit 1, the journal
# named) and deletes or moves nothing. Found by review: a planted journal
# once emptied a folder it pointed at through a link.
set -u
. "$ROOT/tests/lib.sh"
mkdir them victim home
echo keep >victim/precious
echo keep >home/.bashrc
cp "$FIX/experiment/graph.json" them/graph.json
here=$(pwd -P)
journal() { cat >them/.fak-promotion-journal.json; }
check() {	# check WHAT: the command refuses and nothing moved
	if "$FAK" native-performance --graph them/graph.json --next >/dev/null 2>err.txt; then
		fail "$1: the journal was followed"; fi
	grep -q "fak does not follow\|is not fak's own" err.txt || { cat err.txt; fail "$1: message"; }
	[ "$(cat victim/precious)" = keep ] && [ "$(cat home/.bashrc)" = keep ] || fail "$1: data was touched"
	rm -f them/.fak-promotion-journal.json
}

# staging: a staged name that is a link to a victim folder
ln -s ../victim them/.fak-promote-1-x
journal <<EOF2
{"schema": "fak-promotion-journal/v1", "state": "staging", "staged": ["$here/them/.fak-promote-1-x"], "steps": []}
EOF2
check "a staged link"
# staging: a path through /proc/self/cwd (a link) to the same name
journal <<EOF2
{"schema": "fak-promotion-journal/v1", "state": "staging", "staged": ["/proc/self/cwd/them/.fak-promote-1-x"], "steps": []}
EOF2
check "a path through a link"
rm them/.fak-promote-1-x
# committing: a move whose target passes through a link
echo attacker >them/.fak-promote-2-x
ln -s ../home them/link
journal <<EOF2
{"schema": "fak-promotion-journal/v1", "state": "committing", "staged": [],
 "steps": [{"kind": "file", "from": "$here/them/.fak-promote-2-x", "to": "$here/them/link/.bashrc",
            "sha256": "0000000000000000000000000000000000000000000000000000000000000001"}]}
EOF2
check "a target through a link"
echo ok
