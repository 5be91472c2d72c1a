# --out is checked before the run, but the command itself can take its
# folder away: fak then fails (exit 1) and says so, and the sealed
# attestation is still on standard output, never lost.
set -u
mkdir out
$FAK bench system-baseline --baseline-duration 20ms --interval 10ms --out out/a.json -- rm -r out >att.json 2>err
rc=$?
[ $rc = 1 ] || { echo "exit $rc, want 1"; cat err; exit 1; }
grep -qx "fak bench system-baseline: cannot write 'out/a.json': folder 'out' does not exist; create it first; the attestation is on standard output" err ||
	{ echo "wrong message:"; cat err; exit 1; }
$FAK bench system-baseline --verify att.json >/dev/null || { echo "no valid attestation on stdout"; exit 1; }
exit 0
