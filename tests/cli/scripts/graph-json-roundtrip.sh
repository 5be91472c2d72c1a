# --json output re-loaded with --graph validates and renders identically in
# every view, for the default graph and every valid fixture; and --json does
# not depend on the input's key order (jq -S sorts every object's keys).
set -eu
# the committed data file is the --json form of itself
"$FAK" native-performance --json | cmp - "$ROOT/data/native-performance-graph.json"
for g in "" "$ROOT"/tests/fixtures/graphs/valid-*.json "$ROOT"/examples/*/graph.json; do
	[ -z "$g" ] || [ -f "$g" ] || continue
	set -- native-performance
	[ -z "$g" ] || set -- native-performance --graph "$g"
	"$FAK" "$@" --json >a.json
	jq -S . "${g:-$ROOT/data/native-performance-graph.json}" >sorted.json
	"$FAK" native-performance --graph sorted.json --json >b.json
	cmp a.json b.json || { echo "--json depends on the key order of '$g'"; exit 1; }
	for mode in "" --json --next "--next --json" --dot; do
		# shellcheck disable=SC2086
		"$FAK" "$@" $mode >want.out
		# shellcheck disable=SC2086
		"$FAK" native-performance --graph a.json $mode >got.out
		cmp want.out got.out || { echo "round trip differs for '$g' mode '$mode'"; exit 1; }
	done
done
echo ok
