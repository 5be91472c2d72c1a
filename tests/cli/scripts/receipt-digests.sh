# The receipt tests' digest vectors come from an independent RFC 8785
# implementation (the npm package "canonicalize" in tests/node): both criterion
# digests in tests/unit/test_receipt.c, and the digest every recorded
# attestation and every attestation embedded in a receipt fixture carries.
# fak-test: slow once
set -eu
peer="$ROOT/tests/node/node_modules/canonicalize"
[ -d "$peer" ] || { echo "missing $peer: run the set-up command (npm install --prefix tests/node)"; exit 1; }
digest() {	# digest FILE JS-EXPRESSION-OVER-d -> lines "sha256:<hex>"
	node -e '
const c = require(process.argv[1]), fs = require("fs"), h = require("crypto");
const d = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const sum = (v) => "sha256:" + h.createHash("sha256").update(c(v)).digest("hex");
const strip = (v) => { const o = Object.assign({}, v); delete o.digest; return o; };
for (const v of eval(process.argv[3])) console.log(v);' "$peer" "$1" "$2"
}
graph="$ROOT/data/native-performance-graph.json"
for env in qwen38-27b-q4km-m3pro-p32-t64 qwen38-27b-q4k-a100-p1-decode; do
	want=$(digest "$graph" "[sum(d.criteria[\"$env\"])]")
	grep -q "\"$want\"" "$ROOT/tests/unit/test_receipt.c" || { echo "no vector $want for $env"; exit 1; }
	grep -rq "$want" "$ROOT/tests/fixtures/receipts" || { echo "no fixture carries $want"; exit 1; }
done
n=0
for f in "$ROOT"/tests/fixtures/receipts/att-*.json; do
	[ -f "$f" ] || continue
	case "$f" in *tampered*) continue ;; esac
	[ "$(digest "$f" '[sum(strip(d))]')" = "$(digest "$f" '[d.digest]')" ] ||
		{ echo "$f: recorded digest is not the peer's"; exit 1; }
	n=$((n + 1))
done
for f in "$ROOT"/tests/fixtures/receipts/*.json "$ROOT"/tests/fixtures/gate/*.json; do
	case "$f" in *reject-*|*tampered*) continue ;; esac
	ours=$(digest "$f" '[].concat(...[d, d.last_accepted || {}, d.candidate || {}].map(r => (r.system_baselines || []).map(a => sum(strip(a)) + " " + a.digest)))')
	[ -n "$ours" ] || continue
	echo "$ours" | while read -r a b; do
		[ "$a" = "$b" ] || { echo "$f: embedded attestation digest $b, peer $a"; exit 1; }
	done
	n=$((n + 1))
done
[ $n -ge 4 ] || { echo "only $n attestation documents checked"; exit 1; }
echo "$n attestation documents agree"
