# --json output re-loaded with --graph validates and renders identically in
# every view, for the default graph and every valid fixture.
set -eu
for g in "" "$ROOT"/tests/fixtures/graphs/valid-*.json; do
	set -- native-performance
	[ -z "$g" ] || set -- native-performance --graph "$g"
	"$FAK" "$@" --json >a.json
	for mode in "" --json --next "--next --json" --dot; do
		# shellcheck disable=SC2086
		"$FAK" "$@" $mode >want.out
		# shellcheck disable=SC2086
		"$FAK" native-performance --graph a.json $mode >got.out
		cmp want.out got.out || { echo "round trip differs for '$g' mode '$mode'"; exit 1; }
	done
done
echo ok
