# The CUDA receipt fixtures carry GPU-sealed attestations that
# tests/fixtures/receipts/gen.py embeds itself: fak native-performance
# --attach-receipt, given the same receipt without them and the same
# attestations in the same order, writes each fixture byte for byte; every
# attestation verifies, saw the A100 of the test double and qualifies under
# the committed CUDA criterion's GPU policy (gpu-powercap and gpu-clock-drop
# are the ones that must not).
set -eu
. "$ROOT/tests/lib.sh"
att="$FIX/attestations"
for r in cuda-baseline cuda-candidate cuda5-baseline cuda5-candidate; do
	f="$FIX/receipts/$r.json"
	jq 'del(.system_baselines) | .repetitions |= map(del(.system_baseline_digest))' "$f" >cur.json
	n=$(jq '.repetitions | length' "$f")
	[ "$n" = "$(jq '.system_baselines | length' "$f")" ] || fail "$r: not one attestation per repetition"
	graph=
	[ "$n" = 3 ] || graph="--graph $FIX/graphs/valid-five-repetitions.json"
	i=0
	while [ $i -lt "$n" ]; do
		jq ".system_baselines[$i]" "$f" >a.json
		# the embedded attestation is a committed recording, as recorded
		name=$(for c in "$att"/gpu-steady-*.json; do
			if jq -e --slurpfile a a.json '. == $a[0]' "$c" >/dev/null; then
				basename "$c" .json
			fi
		done)
		[ -n "$name" ] || fail "$r: system_baselines[$i] is no committed gpu-steady recording"
		# shellcheck disable=SC2086
		"$FAK" native-performance $graph --attach-receipt cur.json \
			--system-baseline "$att/$name.json" --out next.json || fail "$r: attach $name"
		mv next.json cur.json
		i=$((i + 1))
	done
	expect_file "$f" cur.json
done
for a in "$att"/gpu-steady-*.json "$att"/gpu-powercap.json; do
	"$FAK" bench system-baseline --verify "$a" >/dev/null || fail "$a does not verify"
	jq -e '.gpu.status == "observed" and .gpu.devices[0].name == "NVIDIA A100-SXM4-80GB"
		and .gpu.devices[0].summary.coverage_ratio == 1' "$a" >/dev/null ||
		fail "$a: no observed A100"
done
for a in "$att"/gpu-steady-*.json; do
	jq -e '.gpu.devices[0].summary | .clocks_event_reasons == []
		and .sm_clock_mhz.min == .sm_clock_mhz.max' "$a" >/dev/null || fail "$a is not steady"
done
jq -e '.gpu.devices[0].summary.clocks_event_reasons == ["sw_power_cap"]' "$att/gpu-powercap.json" \
	>/dev/null || fail "gpu-powercap.json saw no power cap"
echo ok
