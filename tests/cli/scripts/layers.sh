# tests/layers.sh, the floors of src/, on a copy of the sources: the tree as
# committed passes; an include upward, one to a folder of the same floor and
# a folder with no floor each fail with their finding, and so do a header that
# declares a command's handler or its spec.
# fak-test: once
set -u
. "$ROOT/tests/lib.sh"
mkdir -p t/tests
cp -R "$ROOT/src" t/
cp "$ROOT/tests/layers.sh" t/tests/
t/tests/layers.sh >out.txt || { cat out.txt; fail "the committed tree does not pass"; }
refused() {	# refused FINDING: the check fails with exactly FINDING
	if t/tests/layers.sh >out.txt; then fail "passed: $1"; fi
	grep -qxF "$1" out.txt || { cat out.txt; fail "the finding: $1"; }
}
cp t/src/attestation/attest.c attest.c
sed -i '1a #include "receipt/receipt.h"' t/src/attestation/attest.c
refused 'src/attestation/attest.c: includes receipt/ (floor 3) from attestation/ (floor 2): an include points down only'
# the attestation document does not depend on the sampler that fills it
sed -i '1a #include "sampler/run.h"' t/src/attestation/attest.c
refused 'src/attestation/attest.c: includes sampler/ (floor 3) from attestation/ (floor 2): an include points down only'
cp attest.c t/src/attestation/attest.c
sed -i '1a #include "render/chart.h"' t/src/experiment/assemble.c
refused 'src/experiment/assemble.c: includes render/ (floor 4) from experiment/ (floor 4): an include points down only'
sed -i '2d' t/src/experiment/assemble.c
t/tests/layers.sh >/dev/null || fail "restored tree"
mkdir t/src/extra && echo 'int x;' >t/src/extra/x.c
refused 'src/extra/: no floor (add it to tests/layers.sh)'
rm -r t/src/extra
t/tests/layers.sh >/dev/null || fail "restored tree"
cp t/src/cli/cli.h cli.h
printf 'int bench_new(int argc, char **argv);\n' >>t/src/cli/cli.h
refused "src/cli/cli.h:$(wc -l <t/src/cli/cli.h): declares a command's handler or spec: only its table entry (src/cli/cli.c) and its file may (src/cli/command.h)"
cp cli.h t/src/cli/cli.h
printf 'extern const struct cmd_spec bench_new_spec;\n' >>t/src/cli/command.h
refused "src/cli/command.h:$(wc -l <t/src/cli/command.h): declares a command's handler or spec: only its table entry (src/cli/cli.c) and its file may (src/cli/command.h)"
