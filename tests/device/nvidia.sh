#!/bin/sh
# On a real NVIDIA machine (not part of `make check`): wraps a GPU-busy
# command in `fak bench system-baseline` and cross-checks fak's sealed GPU
# readings against `nvidia-smi --query-gpu` sampled in the same window.
#
#   tests/device/nvidia.sh build/fak [SECONDS]
#
# The busy command is GPU_BUSY_CMD when set (e.g. a CUDA kernel loop or a
# `llama-bench -ngl 99` run), else `nvidia-smi`'s own load-free query loop
# is the only activity and the clocks may sit at idle. Exit 0 when every
# check holds; each failed check is printed.
set -u
fak=$1
secs=${2:-10}
fail=0
no() { echo "FAIL: $*"; fail=1; }
command -v nvidia-smi >/dev/null || { echo "nvidia-smi not found: not an NVIDIA machine"; exit 2; }
command -v jq >/dev/null || { echo "jq not found"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
busy=${GPU_BUSY_CMD:-"sleep $secs"}

# nvidia-smi samples every 200 ms while fak runs the busy command
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu,memory.used,persistence_mode,clocks_throttle_reasons.active \
	--format=csv,noheader,nounits -lms 200 >"$work/smi.csv" 2>"$work/smi.err" &
smi=$!
"$fak" bench system-baseline --baseline-duration 1s --interval 100ms --max-non-sut-cpu-percent 100 \
	--out "$work/att.json" -- sh -c "$busy" >/dev/null || no "fak bench system-baseline exited $?"
kill "$smi" 2>/dev/null
wait "$smi" 2>/dev/null
"$fak" bench system-baseline --verify "$work/att.json" >/dev/null || no "the attestation does not verify"

status=$(jq -r .gpu.status "$work/att.json")
[ "$status" = observed ] || no "gpu.status is $status: $(jq -r '.gpu.reason // ""' "$work/att.json")"
ndev=$(jq '.gpu.devices | length' "$work/att.json")
nsmi=$(cut -d, -f1 "$work/smi.csv" | sort -u | wc -l)
[ "$ndev" = "$nsmi" ] || no "fak read $ndev device(s), nvidia-smi lists $nsmi"

i=0
while [ "$i" -lt "$ndev" ]; do
	d=".gpu.devices[$i]"
	name=$(jq -r "$d.name" "$work/att.json")
	idx=$(jq -r "$d.index" "$work/att.json")
	smi_name=$(awk -F', ' -v i="$idx" '$1 == i { print $2; exit }' "$work/smi.csv")
	[ "$name" = "$smi_name" ] || no "device $idx: fak says \"$name\", nvidia-smi \"$smi_name\""
	# the ranges nvidia-smi saw during the window must overlap fak's, within 5 %
	for col in "3 sm_clock_mhz" "4 memory_clock_mhz"; do
		set -- $col
		lo=$(awk -F', ' -v i="$idx" -v c="$1" '$1 == i { print $c }' "$work/smi.csv" | sort -n | head -1)
		hi=$(awk -F', ' -v i="$idx" -v c="$1" '$1 == i { print $c }' "$work/smi.csv" | sort -n | tail -1)
		flo=$(jq "$d.summary.$2.min" "$work/att.json")
		fhi=$(jq "$d.summary.$2.max" "$work/att.json")
		awk -v a="$flo" -v b="$fhi" -v c="$lo" -v e="$hi" 'BEGIN { exit !(a <= e * 1.05 && c <= b * 1.05) }' ||
			no "device $idx $2: fak $flo..$fhi MHz, nvidia-smi $lo..$hi MHz"
		echo "device $idx $2: fak $flo..$fhi MHz, nvidia-smi $lo..$hi MHz"
	done
	mode=$(jq -r "$d.state.persistence_mode" "$work/att.json")
	smi_mode=$(awk -F', ' -v i="$idx" '$1 == i { print tolower($9); exit }' "$work/smi.csv")
	[ "$mode" = "$smi_mode" ] || no "device $idx persistence: fak $mode, nvidia-smi $smi_mode"
	jq -r "\"device $idx reasons: \" + ($d.summary.clocks_event_reasons | join(\" \"))" "$work/att.json"
	i=$((i + 1))
done
[ $fail = 0 ] && echo "nvidia.sh: fak's GPU readings agree with nvidia-smi"
exit $fail
