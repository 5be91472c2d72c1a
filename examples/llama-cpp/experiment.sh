#!/bin/sh
# The llama.cpp example's A/B (make example-llama): the next lever of graph.json (or
# LEVER), baseline flags from the levers the graph has enabled, the candidate with
# LEVER's flag on top, run by fak bench experiment through the real llama-bench.
#
#   examples/llama-cpp/experiment.sh OUT_DIR [LEVER] [fak bench experiment options...]
#
# FAK (build/fak), LLAMA_DIR (build/llama-cpp, as make example-llama-build made it) and
# GRAPH (examples/llama-cpp/graph.json) may be set; DRY_RUN=1 prints the lever and the two
# arms' llama.cpp flags instead of running them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: experiment.sh OUT_DIR [LEVER] [options...]}
shift
# OUT_DIR, FAK and GRAPH are the caller's: relative to the folder it ran in
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
out=$(abs "$out")
FAK=$(abs "${FAK:-$top/build/fak}")
graph=$(abs "${GRAPH:-$top/examples/llama-cpp/graph.json}")
dir=$(abs "${LLAMA_DIR:-$top/build/llama-cpp}")
cd "$top"
# commands go into public receipts: name the tools by a path relative to the repository
case "$dir" in "$top"/*) dir=${dir#"$top"/} ;; esac
lever=$("$FAK" native-performance --graph "$graph" --next --json | jq -r '.lever.id // empty')
case "${1:-}" in
llama.*) lever=$1; shift ;;
esac
[ -n "$lever" ] || { echo "experiment.sh: no lever is ready in $graph" >&2; exit 1; }
bin=$dir/build/bin
model=$dir/model-q4_k_m.gguf
[ -x "$bin/llama-bench" ] && [ -f "$model" ] ||
	{ echo "experiment.sh: run make example-llama-build first" >&2; exit 1; }

# The flags of a configuration: the baseline path, then each lever that is on.
threads=1 fa=off kv=f16
apply() {
	case "$1" in
	llama.one-thread-f16-kv) ;;
	llama.threads-2) threads=2 ;;
	llama.flash-attention) fa=on ;;
	llama.kv-q8_0) kv=q8_0 ;;
	*) echo "experiment.sh: the example has no flags for lever '$1'" >&2; exit 1 ;;
	esac
}
for on in $("$FAK" native-performance --graph "$graph" --json |
	jq -r '.levers[] | select(.enabled) | .id'); do
	apply "$on"
done
base="-t $threads -fa $fa -ctk $kv -ctv $kv"
apply "$lever"
cand="-t $threads -fa $fa -ctk $kv -ctv $kv"
[ "$base" != "$cand" ] || { echo "experiment.sh: lever '$lever' is already on in $graph" >&2; exit 1; }

if [ "${DRY_RUN:-}" = 1 ]; then
	printf 'lever %s\nbaseline %s\ncandidate %s\n' "$lever" "$base" "$cand"
	exit 0
fi
# P and T of the lever's own envelope
env=$("$FAK" native-performance --graph "$graph" --json | jq -c --arg l "$lever" \
	'(.levers[] | select(.id == $l) | .applicability.envelope_id) as $e
	 | .envelopes[] | select(.id == $e)')
p=$(echo "$env" | jq -r .prompt_tokens)
t=$(echo "$env" | jq -r .decode_tokens)
run="$bin/llama-bench -m \"\$FAK_ARTIFACT\" -p $p -n $t -r 3 -o jsonl"
commit=$(git -C "$dir/src" rev-parse --short=7 HEAD)
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unversioned)
# every attempt is recorded in the attempt ledger of this witness root
witnesses=${WITNESS_ROOT:-build/example-llama/witnesses}
exec "$FAK" bench experiment "$lever" --graph "$graph" --witness-root "$witnesses" \
	--baseline "$run $base" --candidate "$run $cand" --out-dir "$out" \
	--metrics llama-bench \
	--quality-command "examples/llama-cpp/quality.sh $bin '$base' '$cand'" \
	--artifact "$model" --revision "$rev" --module "llama.cpp@$commit" "$@"
