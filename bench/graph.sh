#!/bin/sh
# Graph benchmarks, run side by side with their peers on one machine in one
# run; prints ratios (absolute times on shared machines mean little).
#  (a) fak native-performance --json vs jq . on the committed graph
#  (b) load + validate + --next on generated graphs vs tsort(1) on the same
#      edges, at 10k, 100k and 1M levers (~3 edges each), with peak RSS;
#      plus a 1,000,000-lever dependency chain (no recursion, no overflow)
# usage: bench/graph.sh BUILD/fak
set -eu
fak=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# best of R runs: CPU time (user + system, in microseconds: steadier than
# wall time on a shared machine) and peak RSS (KiB), as "cpu rss"
best() {
	r=$1
	shift
	b=
	m=0
	for _ in $(seq "$r"); do
		set -- "$@"
		o=$(/usr/bin/time -f '%U %S %M' "$@" 2>&1 >/dev/null | tail -1)
		t=$(echo "$o" | awk '{ printf "%d", ($1 + $2) * 1000000 }')
		m=$(echo "$o" | awk '{ print $3 }')
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b $m"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) b = 1; printf "%.3f", a / b }'; }

echo "(a) committed graph: 200 runs in a loop, best of 3 loops, CPU time per run"
set -- $(best 3 sh -c 'for i in $(seq 200); do "$0" native-performance --json; done' "$fak")
f=$(($1 / 200))
set -- $(best 3 sh -c 'for i in $(seq 200); do jq . "$0"; done' "$root/data/native-performance-graph.json")
j=$(($1 / 200))
echo "    fak --json: $f us   jq .: $j us   ratio fak/jq = $(ratio "$f" "$j")  (target <= 0.1)"

echo "(b) load + validate + --next vs tsort on the same edges, best of 3, CPU time and peak RSS"
for n in 10000 100000 1000000; do
	python3 "$root/bench/gen_graph.py" "$n" "$tmp/g.json" "$tmp/e.txt"
	set -- $(best 3 "$fak" native-performance --graph "$tmp/g.json" --next)
	f=$1 fm=$2
	set -- $(best 3 tsort "$tmp/e.txt")
	t=$1 tm=$2
	echo "    $n levers, $(wc -l <"$tmp/e.txt") edges, $(($(wc -c <"$tmp/g.json") / 1048576)) MiB:" \
		"fak $((f / 1000)) ms, $((fm / 1024)) MiB;  tsort $((t / 1000)) ms, $((tm / 1024)) MiB;" \
		"fak/tsort = $(ratio "$f" "$t")  (target <= 1); fak ns per lever $((f * 1000 / n))"
done
python3 "$root/bench/gen_graph.py" 1000000 "$tmp/g.json" "$tmp/e.txt" --chain
set -- $(best 1 "$fak" native-performance --graph "$tmp/g.json" --next)
f=$1 fm=$2
set -- $(best 1 tsort "$tmp/e.txt")
t=$1
echo "    1000000-lever chain: fak $((f / 1000)) ms, $((fm / 1024)) MiB; tsort $((t / 1000)) ms; fak/tsort = $(ratio "$f" "$t")"
