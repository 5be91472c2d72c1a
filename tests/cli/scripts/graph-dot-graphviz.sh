# Graphviz itself must accept every DOT we emit: the default graph and every
# valid graph fixture. Also checks the clusters and edges it renders.
set -eu
command -v dot >/dev/null || { echo "graphviz 'dot' is not installed"; exit 1; }
n=0
for g in "" "$ROOT"/tests/fixtures/graphs/valid-*.json; do
	if [ -n "$g" ]; then "$FAK" native-performance --graph "$g" --dot >g.dot; else "$FAK" native-performance --dot >g.dot; fi
	dot -Tsvg g.dot >g.svg
	dot -Tcanon g.dot >canon.dot
	grep -q 'subgraph cluster_qwen38_27b_q4km_m3pro_p32_t64' canon.dot
	grep -q 'subgraph cluster_qwen38_27b_q4k_a100_p1_decode' canon.dot
	grep -q 'cuda.q8_1-activation-quant".*->.*"cuda.scalar-f32-activation-baseline"' canon.dot
	# each conflict pair is drawn once
	test "$(grep -c 'label=conflicts' canon.dot)" -eq 1
	grep -q '<svg' g.svg
	n=$((n + 1))
done
echo "dot accepted $n graphs"
