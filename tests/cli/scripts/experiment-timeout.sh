# Every run of fak bench experiment has a timeout (--timeout, 1h unless
# given; the default itself: tests/unit/test_command.c): a hung benchmark
# fails its run by name after it, with the limit and how to move it, instead
# of waiting for ever; --timeout 0 is none.
set -eu
. "$FIX/experiment/lib.sh"
expect_code 1 xp --baseline './bench.sh' --candidate 'exec sleep 60' --out-dir run --timeout 1s
expect_grep '^  candidate warm-up 1 failed: COMMAND_FAILED: child command exited 124; COMMAND_TIMEOUT: child command exceeded the configured timeout (after 1s, the --timeout of each run; give a longer one, or --timeout 0 for none); see run/logs/candidate-warmup-1.stdout' err.txt
jq -e '.timed_out and .command_exit_code == 124' run/attestations/candidate-warmup-1.json >/dev/null ||
	fail "the attestation does not seal the timeout"
expect_code 0 xp --baseline './bench.sh' --candidate './bench.sh' --out-dir none --timeout 0
