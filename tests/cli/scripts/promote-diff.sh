# --promote --dry-run's diff is the lever's lines (issue 27): on a graph fak
# wrote (--new-graph, --add-envelope, --add-lever), a one-lever promotion's
# graph diff is one hunk that replaces the lever's `"witnessed": null` with
# its witness (1 line out, 7 in) and the index diff adds the one results
# row (the first: 1 line out, 19 in), nothing else. A graph in another layout (keys sorted, as jq -S
# writes it) is rewritten by the change: the dry run says so and how to
# normalise it once, and so does the promotion itself; the normalised file
# gives the one-lever diff again.
set -u
. "$ROOT/tests/lib.sh"

{ printf 'GGUF'; head -c 4096 /dev/urandom; } >model.gguf
cat >bench.sh <<'EOF'
#!/bin/sh
# bench.sh TPS: decode 8 tokens at TPS tokens/s, holding the model open
exec 3<"$FAK_ARTIFACT"
ms=$(awk -v t="$1" 'BEGIN { printf "%.3f", 8000 / t }')
sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 + 0.002 }')"
printf '{"engine": "my-engine", "tokens_per_second": %s, "end_to_end_milliseconds": %s, "quality": {"name": "exact_match", "score": 1, "higher_is_better": true}}\n' "$1" "$ms"
EOF
chmod +x bench.sh
printf '0123456789abcdef0123456789abcdef\n' >machine-id
np() { "$FAK" native-performance "$@"; }
np --new-graph graph.json --index index.json --title "My engine" >/dev/null || fail "--new-graph"
np --graph graph.json --add-envelope my-engine-cpu-p4-t8 --artifact model.gguf --model "my model" \
	--engine my-engine --prompt-tokens 4 --decode-tokens 8 --repetitions 3 \
	--required-evidence none --host-policy 100,100,100 >/dev/null || fail "--add-envelope"
for l in my.first my.fast-kernel my.last; do
	np --graph graph.json --add-lever "$l" --name "$l" --expected "the $l hypothesis" \
		--issue https://example.org/me/engine/issues/1 >/dev/null || fail "--add-lever $l"
done
"$FAK" bench experiment my.fast-kernel --graph graph.json --artifact model.gguf \
	--baseline './bench.sh 100' --candidate './bench.sh 200' --out-dir run --revision v1 \
	--witness-root witnesses --machine-id-file machine-id --baseline-duration 100ms \
	--interval 20ms >xp.txt 2>&1 || { cat xp.txt; fail "the experiment"; }

# dry FILE: the dry run's graph diff and index diff into FILE.graph, FILE.index
dry() {
	np --graph graph.json --index index.json --witness-root witnesses --promote run --dry-run \
		>"$1" 2>&1 || { cat "$1"; fail "$1: the dry run"; }
	sed -n '/^--- a\/graph.json$/,/^--- a\/index.json$/p' "$1" | sed '$d' >"$1.graph"
	sed -n '/^--- a\/index.json$/,/^new witness folder/p' "$1" | sed '$d' >"$1.index"
}
# count FILE: "hunks removed added" of a unified diff
count() {
	printf '%s %s %s' "$(grep -c '^@@ ' "$1")" "$(grep -c '^-[^-]' "$1")" \
		"$(grep -c '^+[^+]' "$1")"
}

# 1. the graph as fak wrote it
dry fak.txt
expect_equal "1 1 7" "$(count fak.txt.graph)" "the graph diff of one lever (hunks, lines out, in)"
expect_grep '^-      "witnessed": null,$' fak.txt.graph
expect_grep '^+        "receipt": "witness my-engine-cpu-p4-t8/my.fast-kernel/' fak.txt.graph
# the first row: "results": [] becomes the array of the row's 17 members
expect_equal "1 1 19" "$(count fak.txt.index)" "the index diff: its results row"
expect_grep '^-  "results": \[\],$' fak.txt.index
expect_no_grep '^  layout ' fak.txt "a note on the layout of a graph fak wrote"

# 2. the same graph with its keys sorted: the dry run says what it rewrites
cp graph.json fak.json
jq -S . fak.json >graph.json
dry sorted.txt
expect_grep "^  layout   graph.json is not in fak's layout (that of --json), so this change also rewrites the rest of it into that layout; to see only the lever's lines, normalise it once, in a change of its own: fak native-performance --graph graph.json --json >graph.json.new && mv graph.json.new graph.json$" \
	sorted.txt
[ "$(grep -c '^[-+][^-+]' sorted.txt.graph)" -gt 20 ] ||
	{ cat sorted.txt.graph; fail "the sorted graph's diff is not a rewrite"; }
# the normalisation it names gives the graph fak wrote, and the one-lever diff again
np --graph graph.json --json >graph.json.new && mv graph.json.new graph.json
expect_file fak.json graph.json
dry again.txt
expect_equal "1 1 7" "$(count again.txt.graph)" "the graph diff once normalised"

# 3. the promotion itself says it too, for a file in another layout
jq -S . fak.json >graph.json
np --graph graph.json --index index.json --witness-root witnesses --promote run >promote.txt 2>&1 ||
	{ cat promote.txt; fail "the promotion"; }
expect_grep "^  layout   graph.json is not in fak's layout" promote.txt
np --graph graph.json --json | cmp -s - graph.json || fail "the promoted graph is not in fak's layout"
echo ok
