#!/bin/sh
# What reading the GPU costs the sampler: the same `fak bench system-baseline`
# run (sleep, 50 ms census interval) with the test double of NVML on the
# library path and without it (where fak only records "unreadable: no
# libnvidia-ml.so.1"), alternated RUNS times. Figures: fak's own CPU over the
# command window (command_sampler.process_cpu_ns, which includes the NVML
# reads), the census duty, and the time spent in NVML per reading. Prints
# medians and the with/without ratio.
#
#   bench/gpu.sh build/fak [RUNS] [SECONDS]
# Needs build/tests/nvml/libnvidia-ml.so.1 (make test builds it) and jq.
# The double answers from memory: a real driver's NVML calls cost more (an
# ioctl each), so on a GPU machine run tests/device/nvidia.sh instead.
set -eu
fak=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
runs=${2:-7}
secs=${3:-2}
lib=$(dirname "$fak")/tests/nvml
[ -f "$lib/libnvidia-ml.so.1" ] || { echo "build $lib/libnvidia-ml.so.1 first (make test)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

one() {	# one OUT [LIBRARY_PATH]
	LD_LIBRARY_PATH=${2:-} "$fak" bench system-baseline --baseline-duration 100ms --interval 50ms \
		--max-non-sut-cpu-percent 100 --out "$1" -- sleep "$secs" >/dev/null
}
i=0
while [ $i -lt "$runs" ]; do
	one "$work/without-$i.json"
	one "$work/with-$i.json" "$lib"
	i=$((i + 1))
done

median() {	# median JQ-FILTER FILES...: median of one figure over the files
	f=$1
	shift
	jq -s "[.[] | $f] | sort | .[length / 2 | floor]" "$@"
}
cpu_without=$(median '.command_sampler.process_cpu_ns' "$work"/without-*.json)
cpu_with=$(median '.command_sampler.process_cpu_ns' "$work"/with-*.json)
duty_without=$(median '.command_sampler.duty_percent.value' "$work"/without-*.json)
duty_with=$(median '.command_sampler.duty_percent.value' "$work"/with-*.json)
per_reading=$(median '.gpu.sampler_wall_ns / ([.gpu.devices[].summary.readings] | add)' \
	"$work"/with-*.json)
status=$(jq -r .gpu.status "$work/with-0.json")
[ "$status" = observed ] || { echo "the double was not read: gpu.status $status" >&2; exit 1; }
echo "fak bench system-baseline -- sleep $secs, 50 ms interval, $runs runs each, medians"
printf '%-44s %12s %12s %8s\n' "" "without NVML" "fake NVML" "ratio"
awk -v a="$cpu_without" -v b="$cpu_with" 'BEGIN {
	printf "%-44s %9.2f ms %9.2f ms %7.2fx\n", "fak CPU over the command window", a / 1e6, b / 1e6, b / a }'
awk -v a="$duty_without" -v b="$duty_with" 'BEGIN {
	printf "%-44s %10.3f %% %10.3f %% %7.2fx\n", "census duty (NVML reads are outside it)", a, b, b / a }'
awk -v p="$per_reading" 'BEGIN { printf "%-44s %25.1f us\n", "time in NVML per device reading", p / 1e3 }'
