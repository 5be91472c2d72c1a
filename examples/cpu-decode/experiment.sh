#!/bin/sh
# The whole A/B loop on the example, as `make example` runs it:
#
#   examples/cpu-decode/experiment.sh OUT_DIR [LEVER] [fak bench experiment options...]
#
# LEVER defaults to the graph's --next lever. The baseline arm runs the
# example with what is enabled today; the candidate arm adds the lever's
# flag (GRAPH=FILE: another copy of the example graph). Everything else
# comes from `make example-build`: the binary, the
# weights (whose sha256 the graph pins) and the profile.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
FAK=${FAK:-build/fak}
BUILD=${BUILD:-build}
out=${1:?usage: experiment.sh OUT_DIR [LEVER] [options...]}
shift
graph=${GRAPH:-examples/cpu-decode/graph.json}
# every attempt is recorded in the attempt ledger of this witness root
witnesses=${WITNESS_ROOT:-$BUILD/example/witnesses}
lever=$("$FAK" native-performance --graph "$graph" --next --json | jq -r '.lever.id // empty')
case "${1:-}" in
cpu.*) lever=$1; shift ;;
esac
[ -n "$lever" ] || { echo "experiment.sh: no lever is ready in $graph" >&2; exit 1; }
run="$BUILD/example/decode --weights $BUILD/example/weights.bin --reference examples/cpu-decode/reference.txt"
run="$run --prompt-tokens 2 --decode-tokens 5"
case "$lever" in
cpu.q8-row-blocked-sse2-matvec) base="$run --kernel scalar" cand="$run --kernel blocked" ;;
cpu.drop-row-recheck) base="$run --kernel scalar" cand="$run --kernel scalar --no-row-check" ;;
*) echo "experiment.sh: the example has no arms for lever '$lever'" >&2; exit 1 ;;
esac
# the revision of this checkout, and the workload's own source as a module
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unversioned)
mod=$(sha256sum examples/cpu-decode/decode.c | cut -c1-12)
exec "$FAK" bench experiment "$lever" --graph "$graph" \
	--baseline "$base" --candidate "$cand" --out-dir "$out" \
	--artifact "$BUILD/example/weights.bin" --profile-artifact "$BUILD/example/profile.json" \
	--revision "$rev" --module "cpu-decode@$mod" --witness-root "$witnesses" "$@"
