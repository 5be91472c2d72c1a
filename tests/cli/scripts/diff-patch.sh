# base/diff against real consumers: GNU patch applies every diff we write
# and turns the old text into the new one exactly, and where GNU diff finds
# no change we print nothing. 300 generated pairs: small edits of a long
# text, unrelated texts, empty files and missing final line breaks. The
# udiff driver is the one of the build under test (beside $FAK).
set -u
. "$ROOT/tests/lib.sh"
udiff=$(dirname "$FAK")/tests/tools/udiff
[ -x "$udiff" ] || fail "$udiff is not built"
python3 - <<'PY'
import random
rnd = random.Random(20261201)
words = ["alpha", "beta", "gamma", "delta", "x", "", "  indented", "{", "}", '"key": 1,']
for i in range(300):
    kind = i % 5
    a = [rnd.choice(words) + str(rnd.randrange(8)) for _ in range(rnd.randrange(0, 60))]
    if kind == 0:
        b = list(a)
        for _ in range(rnd.randrange(1, 4)):
            op = rnd.randrange(3)
            pos = rnd.randrange(len(b) + 1)
            if op == 0:
                b.insert(pos, rnd.choice(words))
            elif b and op == 1:
                del b[min(pos, len(b) - 1)]
            elif b:
                b[min(pos, len(b) - 1)] = "changed"
    elif kind == 1:
        b = [rnd.choice(words) for _ in range(rnd.randrange(0, 30))]
    elif kind == 2:
        b = list(a)
    elif kind == 3:
        b = a[: len(a) // 2] + ["mid"] + a[len(a) // 2 :]
    else:
        b = []
    ta = "\n".join(a) + ("\n" if a and rnd.random() < 0.8 else "")
    tb = "\n".join(b) + ("\n" if b and rnd.random() < 0.8 else "")
    open("a%d.txt" % i, "w").write(ta)
    open("b%d.txt" % i, "w").write(tb)
PY
i=0
while [ $i -lt 300 ]; do
	"$udiff" a$i.txt b$i.txt f.txt >d$i.diff || { echo "udiff failed on pair $i"; exit 1; }
	if cmp -s a$i.txt b$i.txt; then
		[ ! -s d$i.diff ] || { echo "pair $i: equal files, non-empty diff"; exit 1; }
	else
		cp a$i.txt f.txt
		patch -s -p1 --no-backup-if-mismatch f.txt <d$i.diff >patch.log 2>&1 ||
			{ echo "pair $i: patch refused our diff"; cat patch.log d$i.diff; exit 1; }
		cmp -s f.txt b$i.txt || { echo "pair $i: patched text differs"; cat d$i.diff; exit 1; }
	fi
	i=$((i + 1))
done
echo ok
