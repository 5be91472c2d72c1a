# Your own engine in ten commands (README "Your own engine", issue 27): from
# an empty folder to a verified witness for an engine fak has never seen,
# with fak commands and a scripted benchmark only, no JSON written by hand.
# The engine is bench.sh below: it reads the model file it is given as
# $FAK_ARTIFACT (a GGUF-like file: magic, then weights), checks it against the
# checksum it was built for (its quality score), and decodes the envelope's
# 8 tokens at the rate its arm names, taking that long, and states its engine
# (what the envelope names, so the identity is observed): the candidate is
# twice as fast, so the decision is `faster` however busy the machine is
# (the graph's host policy lets other work use every core). The promotion's
# dry run must change only the lever's lines of the graph, which fak writes
# in one layout.
set -u
. "$ROOT/tests/lib.sh"

# the newcomer's own files: a model and the engine's benchmark script
{ printf 'GGUF'; head -c 262144 /dev/urandom; } >model.gguf
sum=$(cksum <model.gguf | cut -d' ' -f1)
cat >bench.sh <<EOF
#!/bin/sh
# bench.sh TPS: decode 8 tokens of the model in \$FAK_ARTIFACT at TPS tokens/s
# like an engine, it holds its model open while it runs (fak checks that)
exec 3<"\$FAK_ARTIFACT"
[ "\$(head -c 4 "\$FAK_ARTIFACT")" = GGUF ] || { echo "bench.sh: not a GGUF file" >&2; exit 1; }
score=0
[ "\$(cksum <"\$FAK_ARTIFACT" | cut -d' ' -f1)" = $sum ] && score=1
ms=\$(awk -v t="\$1" 'BEGIN { printf "%.3f", 8000 / t }')
sleep "\$(awk -v m="\$ms" 'BEGIN { printf "%.3f", m / 1000 + 0.002 }')"
printf '{"engine": "my-engine", "tokens_per_second": %s, "end_to_end_milliseconds": %s, "quality": {"name": "exact_match", "score": %d, "higher_is_better": true}}\n' "\$1" "\$ms" "\$score"
EOF
chmod +x bench.sh
# /etc/machine-id is missing in some containers: the test brings its own
printf '0123456789abcdef0123456789abcdef\n' >machine-id
expect_equal "bench.sh machine-id model.gguf" "$(ls -A | sort | tr '\n' ' ' | sed 's/ $//')" \
	"the folder holds only the newcomer's own files"

np() { "$FAK" native-performance "$@"; }
ncmd=0
run() {	# run NAME CMD...: one of the newcomer's commands, its output in NAME.txt
	name=$1
	shift
	ncmd=$((ncmd + 1))
	"$@" >"$name.txt" 2>"$name.err" || { cat "$name.txt" "$name.err"; fail "$name: $*"; }
}

# 1-3: the graph and its index, an envelope pinning the model, a lever
run new np --new-graph graph.json --index index.json --title "My engine"
run envelope np --graph graph.json --add-envelope my-engine-cpu-p4-t8 --artifact model.gguf \
	--model "my model" --engine my-engine --prompt-tokens 4 --decode-tokens 8 \
	--repetitions 3 --required-evidence none --host-policy 100,100,100
run lever np --graph graph.json --add-lever my.fast-kernel --name "Fast kernel" \
	--expected "the fast kernel doubles decode tok/s" --issue https://example.org/me/engine/issues/1
# 4: the A/B
run xp "$FAK" bench experiment my.fast-kernel --graph graph.json --artifact model.gguf \
	--baseline './bench.sh 100' --candidate './bench.sh 200' --out-dir run \
	--revision v1 --witness-root witnesses --machine-id-file machine-id --baseline-duration 100ms \
	--interval 20ms
# 5-6: the promotion, first as a dry run
cp graph.json old.json	# (the test's own copy, to check the diff below)
run dry np --graph graph.json --index index.json --witness-root witnesses --promote run --dry-run
run promote np --graph graph.json --index index.json --witness-root witnesses --promote run
# 7-8: the witness verified, the front-door page
run verify np --graph graph.json --index index.json --verify-witnesses witnesses
run page np --graph graph.json --index index.json --frontdoor-md
[ $ncmd -le 10 ] || fail "$ncmd commands, want at most 10"

# what each command printed
expect_grep '^wrote graph.json: a new graph with no envelope yet' new.txt
expect_grep '^wrote index.json: the front-door index "My engine" with no result yet' new.txt
sha=$(sha256sum model.gguf | cut -c1-64)
expect_grep "^+      \"artifact_sha256\": \"$sha\",$" envelope.txt "the artifact's sha256"
expect_grep '^wrote graph.json: lever "my.fast-kernel" in envelope "my-engine-cpu-p4-t8"$' lever.txt
# the platform and the memory ceiling are this machine's
case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
expect_equal "linux/$arch" "$(jq -r '.envelopes[0].platform' graph.json)" "the platform"
gib=$(awk -v b="$(($(getconf _PHYS_PAGES) * $(getconf PAGE_SIZE)))" \
	'BEGIN { g = b / 1073741824; printf "%d", g == int(g) ? g : int(g) + 1 }')
expect_equal "$gib" "$(jq -r '.envelopes[0].memory_gib' graph.json)" "the memory ceiling"
expect_grep '^decision   faster: +100.0%' xp.txt "the decision"
expect_grep '^promoted my.fast-kernel in my-engine-cpu-p4-t8: faster: median 100 -> 200 tok/s' \
	promote.txt
expect_grep '^VERIFIED 1 witness folder under witnesses; ' verify.txt
expect_grep '^# My engine$' page.txt "the page has the user's title"
expect_grep '^| \*\*CURRENT\*\* | `my-engine-cpu-p4-t8` |' page.txt "the CURRENT row"
expect_no_grep '[Qq]wen\|[Ee]xample' index.json "the index carries seeded boilerplate"

# a graph written by fak has no legacy blocks and is in --json's layout,
# before and after the promotion
for k in envelope comparison rungs features; do
	jq -e --arg k "$k" 'has($k) | not' graph.json >/dev/null || fail "the graph has a legacy '$k'"
done
np --graph graph.json --json >json.txt || fail "--json"
expect_file graph.json json.txt
# witnessed (the source's step 5), not enabled: that is --enable's step 6,
# once the engine's default path uses the lever
jq -e '.levers[0] | (.enabled | not) and .witnessed.classification == "witnessed"' \
	graph.json >/dev/null || fail "the lever is not witnessed, or enabled by the promotion"

# the dry run's graph diff touches only the lever's lines: every changed line
# of the old graph lies in the lever's block
sed -n '/^--- a\/graph.json$/,/^--- a\/index.json$/p' dry.txt >graph.diff
[ -s graph.diff ] || { cat dry.txt; fail "the dry run shows no graph diff"; }
start=$(grep -n '^    {$' old.json | sed -n 2p | cut -d: -f1)	# levers[0]
end=$(awk -v s="$start" 'NR > s && /^    }/ { print NR; exit }' old.json)
expect_equal '      "id": "my.fast-kernel",' "$(sed -n "$((start + 1))p" old.json)" "the lever's block"
awk -v s="$start" -v e="$end" '
	/^@@ / { split($2, a, ","); old = -a[1]; next }
	/^(---|\+\+\+) / { next }
	/^-/ { if (old < s || old > e) bad = bad " " old; old++; next }
	/^\+/ { if (old <= s || old > e + 1) bad = bad " +" old; next }
	{ old++ }
	END { if (bad != "") { print "changed outside the lever (lines " s ".." e "):" bad; exit 1 } }
' graph.diff || { cat graph.diff; fail "the promotion's diff touches more than the lever"; }
echo ok
