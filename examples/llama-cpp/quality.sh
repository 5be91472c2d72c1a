#!/bin/sh
# The example's quality check, run by fak bench experiment after each arm's last
# repetition (--quality-command): the arm's configuration decodes 24 tokens greedily
# from a fixed prompt with greedy (greedy.c, the llama.cpp C API), and the token ids
# must equal the committed reference (exact_match 1, else 0). fak sets FAK_ARM
# (baseline or candidate) and FAK_ARTIFACT (the model whose sha256 it checked).
#
#   quality.sh BIN_DIR BASELINE_FLAGS CANDIDATE_FLAGS
set -eu
[ $# = 3 ] || { echo "usage: quality.sh BIN_DIR BASELINE_FLAGS CANDIDATE_FLAGS" >&2; exit 2; }
case "${FAK_ARM:-}" in
baseline) flags=$2 ;;
candidate) flags=$3 ;;
*) echo "quality.sh: FAK_ARM must be baseline or candidate (fak bench experiment sets it)" >&2; exit 2 ;;
esac
: "${FAK_ARTIFACT:?fak bench experiment sets FAK_ARTIFACT to the --artifact file}"
want=$(cat "$(dirname "$0")/reference.txt")
# word splitting of $flags is wanted
# shellcheck disable=SC2086
got=$("$1/greedy" "$FAK_ARTIFACT" 24 $flags)
score=0
[ "$got" = "$want" ] && score=1
echo "$FAK_ARM ($flags): greedy token ids $got"
echo "reference: $want"
printf '{"name": "exact_match", "score": %d, "higher_is_better": true}\n' "$score"
