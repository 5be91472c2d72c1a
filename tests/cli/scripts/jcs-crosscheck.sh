# Our RFC 8785 canonical form and digests must agree byte for byte with an
# independent implementation (the npm package "canonicalize", installed into
# tests/node by the set-up command), on the JCS vectors, every committed graph
# criterion and every JSON fixture that parses. One jcs process and one node
# process serve every file (node starts in 40 ms; once per file it was 30 s).
set -eu
. "$ROOT/tests/lib.sh"
peer="$ROOT/tests/node/node_modules/canonicalize"
[ -d "$peer" ] || fail "missing $peer: run the set-up command (npm install --prefix tests/node)"
jcs="$(dirname "$FAK")/tests/tools/jcs"
: >files.txt
for f in "$ROOT"/tests/fixtures/jcs/*.json "$ROOT"/data/*.json "$ROOT"/tests/fixtures/*/*.json; do
	[ -f "$f" ] && echo "$f" >>files.txt
done
# one line per file, in the order of files.txt: the canonical form, or "!"
# and the reason when the file does not parse
xargs "$jcs" -k <files.txt >ours.txt || fail "jcs -k failed"
node -e '
const c = require(process.argv[1]), fs = require("fs");
for (const f of fs.readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean)) {
	let line;
	try { line = c(JSON.parse(fs.readFileSync(f, "utf8"))); } catch (e) { line = "!" + e.message; }
	process.stdout.write(line.replace(/\n/g, " ") + "\n");
}' "$peer" files.txt >theirs.txt || fail "node failed"
expect_equal "$(wc -l <files.txt)" "$(wc -l <ours.txt)" "jcs printed one line per file"
expect_equal "$(wc -l <files.txt)" "$(wc -l <theirs.txt)" "node printed one line per file"
n=0
exec 3<ours.txt 4<theirs.txt
while read -r f; do
	IFS= read -r ours <&3
	IFS= read -r theirs <&4
	case "$f:$ours" in
	*/fixtures/jcs/*:!*) fail "the vector $f does not parse: $ours" ;;
	*:!*) continue ;;	# reject fixtures may not parse
	esac
	if [ "$ours" != "$theirs" ]; then
		echo "ours:   $ours" | cut -c1-300
		echo "theirs: $theirs" | cut -c1-300
		fail "canonical forms differ for $f"
	fi
	n=$((n + 1))
done <files.txt
[ $n -ge 10 ] || fail "only $n documents compared"
# the Metal criterion digest in the unit tests is the peer's
theirs=$(node -e 'const c=require(process.argv[1]);const fs=require("fs");const g=JSON.parse(fs.readFileSync(process.argv[2],"utf8"));process.stdout.write(require("crypto").createHash("sha256").update(c(g.criteria["qwen38-27b-q4km-m3pro-p32-t64"])).digest("hex"))' "$peer" "$ROOT/data/native-performance-graph.json")
grep -q "sha256:$theirs" "$ROOT/tests/unit/test_graph.c" || fail "unit test vector is not sha256:$theirs"
# the envelope digest (graph_envelope_digest) in the unit tests is the peer's, over the
# envelope exactly as `fak native-performance --json` writes it
"$FAK" native-performance --json >graph.json || fail "--json"
theirs=$(node -e 'const c=require(process.argv[1]);const fs=require("fs");const g=JSON.parse(fs.readFileSync(process.argv[2],"utf8"));process.stdout.write(require("crypto").createHash("sha256").update(c(g.envelopes[0])).digest("hex"))' "$peer" graph.json)
grep -q "sha256:$theirs" "$ROOT/tests/unit/test_ledger.c" || fail "envelope digest vector is not sha256:$theirs"
# a receipt binds its envelope by that digest (envelope_state): the peer's digest of
# the envelope it records, which is the graph's
"$FAK" native-performance --baseline metal.command-buffer-amortization >tpl.json || fail "template"
node -e 'const c=require(process.argv[1]),fs=require("fs"),h=require("crypto");
const d=(v)=>"sha256:"+h.createHash("sha256").update(c(v)).digest("hex");
const s=JSON.parse(fs.readFileSync(process.argv[2],"utf8")).envelope_state;
const g=JSON.parse(fs.readFileSync(process.argv[3],"utf8"));
if (s.envelope_digest !== d(s.envelope) || s.envelope_digest !== d(g.envelopes[0])) process.exit(1);' \
	"$peer" tpl.json graph.json || fail "the receipt's envelope_digest is not the peer's"
echo "$n documents agree"
