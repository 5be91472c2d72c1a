# A promotion killed (SIGKILL) at each of its fault-injection points leaves
# either all of its effects or none once the next fak command has run: that
# command finds the journal and rolls the promotion back (killed while
# staging) or completes it (killed while committing). Graph, index and
# witness root are compared byte for byte with the state before and with a
# promotion that ran to the end.
# A busy host changes nothing: the fixture criterion's host policy
# (tests/fixtures/experiment/promote.sh).
# fak-test: slow
set -u
. "$FIX/experiment/lib.sh"
. "$FIX/experiment/promote.sh"
cp "$ROOT/examples/cpu-decode/index.json" index.json
pass_run good
mkdir start
cp graph.json index.json start/
cp -r wit start/	# the attempt ledger that recorded good
state() { (cd "$1" && find . -type f ! -name .fak-promotion.lock | sort | xargs sha256sum); }
fresh() { rm -rf "$1" && cp -r start "$1"; }
promote() {
	d=$1
	shift
	(cd "$d" && "$FAK" native-performance --graph graph.json --index index.json --witness-root wit \
		--promote ../good "$@")
}

fresh done
promote done >/dev/null || fail "a whole promotion"
pre=$(state start)
post=$(state done)
[ "$pre" != "$post" ] || fail "the promotion changed nothing"

k=1
while [ $k -le 8 ]; do
	fresh t$k
	FAK_PROMOTE_FAULT=$k promote t$k >/dev/null 2>&1
	rc=$?
	[ $rc = 137 ] || fail "point $k: exit $rc, not killed"
	# the next command: recovery first, then its own work
	(cd t$k && "$FAK" native-performance --graph graph.json --next >next.txt 2>recover.txt) ||
		{ cat t$k/recover.txt; fail "point $k: the next command failed"; }
	rm t$k/next.txt
	grep -q "^fak native-performance: an interrupted promotion was found in '.*' and \(rolled back\|completed\)$" \
		t$k/recover.txt || { cat t$k/recover.txt; fail "point $k: recovery did not say what it did"; }
	rm t$k/recover.txt
	got=$(state t$k)
	if [ $k -le 4 ]; then want=$pre; what="none of its effects"; else want=$post; what="all of its effects"; fi
	[ "$got" = "$want" ] || { echo "$want" >want.txt; echo "$got" >got.txt; diff want.txt got.txt; fail "point $k: not $what"; }
	[ -z "$(find . -name ".fak-promot*" ! -name .fak-promotion.lock)" ] || { find . -name '.fak-promot*'; fail "point $k: leftovers"; }
	k=$((k + 1))
done
# past the last point: no journal, nothing to recover
fresh t9
FAK_PROMOTE_FAULT=9 promote t9 >/dev/null || fail "point 9 is after the end"
[ "$(state t9)" = "$post" ] || fail "point 9"
echo ok
