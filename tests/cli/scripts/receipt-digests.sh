# The receipt tests' digest vectors come from an independent RFC 8785
# implementation (the npm package "canonicalize" in tests/node): both criterion
# digests in tests/unit/test_receipt.c, and the digest every recorded
# attestation and every attestation embedded in a receipt fixture carries.
# The questions are gathered first and one node process answers them all.
# fak-test: once
set -eu
. "$ROOT/tests/lib.sh"
peer="$ROOT/tests/node/node_modules/canonicalize"
[ -d "$peer" ] || fail "missing $peer: run the set-up command (npm install --prefix tests/node)"
: >questions.txt
ask() {	# ask KEY FILE JS-EXPRESSION-OVER-d: its values ("sha256:<hex>") are answer KEY's lines
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>questions.txt
}
answer() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' answers.txt; }
graph="$ROOT/data/native-performance-graph.json"
envs="qwen38-27b-q4km-m3pro-p32-t64 qwen38-27b-q4k-a100-p1-decode"
for env in $envs; do
	ask "criterion $env" "$graph" "[sum(d.criteria[\"$env\"])]"
done
for f in "$ROOT"/tests/fixtures/receipts/att-*.json; do
	[ -f "$f" ] || continue
	case "$f" in *tampered*) continue ;; esac
	ask "att-peer $f" "$f" '[sum(strip(d))]'
	ask "att-recorded $f" "$f" '[d.digest]'
done
for f in "$ROOT"/tests/fixtures/receipts/*.json "$ROOT"/tests/fixtures/gate/*.json; do
	case "$f" in *reject-*|*tampered*) continue ;; esac
	ask "embedded $f" "$f" '[].concat(...[d, d.last_accepted || {}, d.candidate || {}].map(r => (r.system_baselines || []).map(a => sum(strip(a)) + " " + a.digest)))'
done
node -e '
const c = require(process.argv[1]), fs = require("fs"), h = require("crypto");
const sum = (v) => "sha256:" + h.createHash("sha256").update(c(v)).digest("hex");
const strip = (v) => { const o = Object.assign({}, v); delete o.digest; return o; };
for (const q of fs.readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean)) {
	const [key, file, expr] = q.split("\t");
	const d = JSON.parse(fs.readFileSync(file, "utf8"));
	for (const v of eval(expr)) console.log(key + "\t" + v);
}' "$peer" questions.txt >answers.txt || fail "node failed"

for env in $envs; do
	want=$(answer "criterion $env")
	[ -n "$want" ] || fail "no digest for $env"
	grep -q "\"$want\"" "$ROOT/tests/unit/test_receipt.c" || fail "no vector $want for $env"
	grep -rq "$want" "$ROOT/tests/fixtures/receipts" || fail "no fixture carries $want"
done
n=0
for f in "$ROOT"/tests/fixtures/receipts/att-*.json; do
	[ -f "$f" ] || continue
	case "$f" in *tampered*) continue ;; esac
	peer_sum=$(answer "att-peer $f")
	[ -n "$peer_sum" ] && [ "$peer_sum" = "$(answer "att-recorded $f")" ] ||
		fail "$f: recorded digest is not the peer's"
	n=$((n + 1))
done
for f in "$ROOT"/tests/fixtures/receipts/*.json "$ROOT"/tests/fixtures/gate/*.json; do
	case "$f" in *reject-*|*tampered*) continue ;; esac
	ours=$(answer "embedded $f")
	[ -n "$ours" ] || continue
	echo "$ours" | while read -r a b; do
		[ "$a" = "$b" ] || fail "$f: embedded attestation digest $b, peer $a"
	done || exit 1
	n=$((n + 1))
done
[ $n -ge 4 ] || fail "only $n attestation documents checked"
echo "$n attestation documents agree"
