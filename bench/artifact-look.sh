#!/bin/sh
# The cost of looking for the pinned artifact in use (docs/experiments.md):
# one look per census of the command's tree (/proc/PID/fd and /proc/PID/maps
# of every member) until a member has it open or mapped. The worst case is a
# command that never touches it: every census looks, to the end. Runs the same
# 20-process tree (sh and 19 sleeps, SECONDS long, 250 ms census) under
# `fak bench experiment` (which looks; the run then fails by name, its
# attestation stays) and under `fak bench system-baseline` (which does not),
# alternating, and prints the census wall time per sample and the command
# window's sampler duty of each, and their difference: the look's cost.
#
#   bench/artifact-look.sh build/fak [SECONDS] [ROUNDS]
# Needs: jq.
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
secs=${2:-5}
rounds=${3:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$top/tests/fixtures/experiment/model.bin" "$top/tests/fixtures/experiment/profile.txt" .
case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
jq --arg p "linux/$arch" '.envelopes[0].platform = $p | .levers[].applicability.platform = $p' \
	"$top/tests/fixtures/experiment/graph.json" >graph.json
printf '0123456789abcdef0123456789abcdef\n' >machine-id
cat >tree.sh <<SH
i=0
while [ \$i -lt 19 ]; do sleep $secs & i=\$((i + 1)); done
wait
echo '{"tokens_per_second": 1, "end_to_end_milliseconds": 1}'
SH
flags="--baseline-duration 500ms --interval 250ms --max-non-sut-cpu-percent 100"
per() { jq -r '[.command_sampler.wall_ns / .command_sampler.counted_samples,
	.command_sampler.duty_percent.value] | @tsv' "$1"; }
: >look.tsv
: >plain.tsv
r=0
while [ $r -lt "$rounds" ]; do
	rm -rf xp
	"$fak" bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 \
		--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id \
		--baseline 'sh tree.sh' --candidate 'sh tree.sh x' --out-dir xp $flags \
		>/dev/null 2>&1 || true
	a=xp/attestations/baseline-warmup-1.json
	jq -e '.workload.artifact_observed == false' "$a" >/dev/null ||
		{ echo "artifact-look.sh: the run did not look to the end" >&2; exit 1; }
	per "$a" >>look.tsv
	"$fak" bench system-baseline $flags -- sh tree.sh >plain.json 2>/dev/null || true
	per plain.json >>plain.tsv
	r=$((r + 1))
done
awk -F'\t' 'FNR == NR { lw += $1; ld += $2; n++; next } { pw += $1; pd += $2; m++ }
END {
	printf "census wall per sample: %.0f us with the look, %.0f us without: the look %.0f us\n",
		lw / n / 1e3, pw / m / 1e3, (lw / n - pw / m) / 1e3
	printf "command-window sampler duty: %.3f%% with the look, %.3f%% without (ceiling 10%%)\n",
		ld / n, pd / m
}' look.tsv plain.tsv
