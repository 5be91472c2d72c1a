# Our RFC 8785 canonical form and digests must agree byte for byte with an
# independent implementation (the npm package "canonicalize", installed into
# tests/node by the set-up command), on the JCS vectors, every committed graph
# criterion and every JSON fixture that parses.
set -eu
peer="$ROOT/tests/node/node_modules/canonicalize"
[ -d "$peer" ] || { echo "missing $peer: run the set-up command (npm install --prefix tests/node)"; exit 1; }
jcs="$(dirname "$FAK")/tests/tools/jcs"
n=0
for f in "$ROOT"/tests/fixtures/jcs/*.json "$ROOT"/data/*.json "$ROOT"/tests/fixtures/*/*.json; do
	[ -f "$f" ] || continue
	case "$f" in
	*/fixtures/jcs/*) ours=$("$jcs" "$f") ;;	# the vectors must parse
	*) ours=$("$jcs" "$f" 2>/dev/null) || continue ;;	# reject fixtures may not
	esac
	theirs=$(node -e 'const c=require(process.argv[1]);const fs=require("fs");process.stdout.write(c(JSON.parse(fs.readFileSync(process.argv[2],"utf8"))))' "$peer" "$f")
	if [ "$ours" != "$theirs" ]; then
		echo "canonical forms differ for $f"
		echo "ours:   $ours" | cut -c1-300
		echo "theirs: $theirs" | cut -c1-300
		exit 1
	fi
	n=$((n + 1))
done
[ $n -ge 10 ] || { echo "only $n documents compared"; exit 1; }
# the Metal criterion digest in the unit tests is the peer's
theirs=$(node -e 'const c=require(process.argv[1]);const fs=require("fs");const g=JSON.parse(fs.readFileSync(process.argv[2],"utf8"));process.stdout.write(require("crypto").createHash("sha256").update(c(g.criteria["qwen38-27b-q4km-m3pro-p32-t64"])).digest("hex"))' "$peer" "$ROOT/data/native-performance-graph.json")
grep -q "sha256:$theirs" "$ROOT/tests/unit/test_graph.c" || { echo "unit test vector is not sha256:$theirs"; exit 1; }
echo "$n documents agree"
