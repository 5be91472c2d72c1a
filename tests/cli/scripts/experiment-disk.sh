# The disk the out dir is on. Before the first run: a filesystem with less
# free space than the runs' logs and attestations may keep (each run's two
# logs at --max-log-bytes) refuses the experiment with the figures, and no
# folder is left behind. During a run: a command whose output filled the disk
# (its writes failed with ENOSPC) fails its run with "no space left on
# device" and the folder, not with what its cut output looks like ("metrics
# line is longer than 65535 bytes"). Small filesystems are tmpfs mounts in a
# mount namespace of our own (unshare -rm, no root needed); where the host
# allows none, the script says so and checks nothing.
set -eu
if [ -z "${FAK_TEST_IN_NS:-}" ]; then
	if ! unshare -rm true 2>/dev/null; then
		echo "experiment-disk: unshare -rm is not allowed here: no tmpfs, nothing checked" >&2
		exit 77
	fi
	FAK_TEST_IN_NS=1 exec unshare -rm sh "$0"
fi
. "$FIX/experiment/lib.sh"

# 2 MiB free, 8 runs of up to 2 x 16 MiB of logs: refused, nothing made
mkdir small
mount -t tmpfs -o size=2m tmpfs small
expect_code 1 xp --baseline ./bench.sh --candidate ./bench.sh --out-dir small/a/run
expect_equal "fak bench experiment: cannot start; nothing ran (1 finding):
  --out-dir 'small/a/run': its filesystem (at 'small') has 2.0 MiB free; the 8 runs may keep up to 262.0 MiB of logs and attestations (each run's stdout and stderr up to 16.0 MiB, --max-log-bytes): free space, name a folder on another filesystem, or give a smaller --max-log-bytes (at least 1M)" \
	"$(cat err.txt)" "too little space: the refusal"
[ -z "$(ls -A small)" ] || fail "a refused experiment left $(ls -A small) behind"
[ ! -e wit ] || fail "a refused experiment was recorded in the ledger"
# an existing empty folder is measured where it is
mkdir small/run
expect_code 1 xp --baseline ./bench.sh --candidate ./bench.sh --out-dir small/run --max-log-bytes 1M
expect_grep "^  --out-dir 'small/run': its filesystem has 2.0 MiB free; the 8 runs may keep up to 22.0 MiB" err.txt
[ -z "$(ls -A small/run)" ] || fail "a refused experiment wrote into its empty folder"

# 30 MiB: room for 8 runs with 1 MiB logs; the candidate's output fills it,
# and it ignores the failed writes and exits 0
mkdir big
mount -t tmpfs -o size=30m tmpfs big
cat >fill.sh <<'SH'
#!/bin/sh
yes | tr -d '\n' | head -c 40000000 2>/dev/null
./bench.sh
exit 0
SH
chmod +x fill.sh
expect_code 1 xp --baseline ./bench.sh --candidate ./fill.sh --out-dir big/run --max-log-bytes 1M
expect_equal "fak bench experiment: no receipt written (1 finding):
  candidate warm-up 1 failed: no space left on device: the filesystem of 'big/run/logs' was full when the command ended, so what it wrote may be cut short; free space there or name an --out-dir on another filesystem; see big/run/logs/candidate-warmup-1.stderr
fak bench experiment: attempt 1 of 1 of lever cpu.fast in this envelope, recorded as failed (ledger wit/attempts.jsonl)" \
	"$(cat err.txt)" "a full disk: the finding"
expect_no_grep 'longer than' err.txt
