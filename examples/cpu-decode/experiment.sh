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
#
# NUMERICAL=1 adds --numerical to both arms (each metrics line then states
# cosine, argmax_match and max_abs of its logits against the scalar kernel's,
# for a numerical next witness); CANDIDATE_FLAGS="..." adds flags to the
# candidate arm only (e.g. --tf32-head, a reduced-precision output product).
# PARITY_ENGINE=NAME runs a parity campaign (--parity) instead of an A/B: the
# candidate arm states engine NAME (decode --engine), the baseline fak-native,
# for a lever whose next witness is a parity campaign of fak-native and NAME.
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
[ "${NUMERICAL:-0}" = 1 ] && run="$run --numerical"
case "$lever" in
cpu.q8-row-blocked-sse2-matvec) base="$run --kernel scalar" cand="$run --kernel blocked" ;;
cpu.drop-row-recheck) base="$run --kernel scalar" cand="$run --kernel scalar --no-row-check" ;;
*) echo "experiment.sh: the example has no arms for lever '$lever'" >&2; exit 1 ;;
esac
[ -n "${CANDIDATE_FLAGS:-}" ] && cand="$cand $CANDIDATE_FLAGS"
parity=
[ -n "${PARITY_ENGINE:-}" ] && cand="$cand --engine $PARITY_ENGINE" && parity=--parity
# the revision of this checkout, and the workload's own source as a module
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unversioned)
mod=$(sha256sum examples/cpu-decode/decode.c | cut -c1-12)
# shellcheck disable=SC2086
exec "$FAK" bench experiment "$lever" $parity --graph "$graph" \
	--baseline "$base" --candidate "$cand" --out-dir "$out" \
	--artifact "$BUILD/example/weights.bin" --profile-artifact "$BUILD/example/profile.json" \
	--revision "$rev" --module "cpu-decode@$mod" --witness-root "$witnesses" "$@"
