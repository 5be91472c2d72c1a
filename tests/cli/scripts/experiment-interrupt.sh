# SIGINT or SIGTERM during fak bench experiment: the running command is
# stopped as the sampler does, no receipt is written, the finished runs'
# evidence stays, and fak exits 128+N. The long run execs sleep, so the
# signal fak forwards ends it at once (a shell would wait for its sleep):
# fak must be gone well before the sleep's 20 s are over. The attempt
# still counts: its ledger's ended line says "interrupted".
set -u
. "$FIX/experiment/lib.sh"
# Background jobs of a script ignore SIGINT: start fak with it restored.
run() { exec /usr/bin/python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
await() { i=0; while [ ! -e "$1" ]; do sleep 0.05; i=$((i + 1)); [ $i -lt 400 ] || fail "no $1"; done; }

for sig in INT TERM; do
	rm -rf run runs.count started
	# the fourth run (candidate repetition 1) takes long enough to be interrupted
	(run "$FAK" bench experiment cpu.fast --graph graph.json --artifact model.bin --revision r1 \
		--module bench@1 --profile-artifact profile.txt --machine-id-file machine-id \
		--baseline-duration 20ms --interval 10ms --baseline './bench.sh' \
		--candidate '[ "$(cat runs.count)" = 3 ] && { touch started; exec sleep 20; }; ./bench.sh' \
		--out-dir run --witness-root wit >out.txt 2>err.txt) &
	pid=$!
	await started
	t0=$(date +%s)
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $(($(date +%s) - t0)) -lt 15 ] || fail "SIG$sig: the command was not stopped; fak waited for it"
	want=$([ $sig = INT ] && echo 130 || echo 143)
	[ $rc = "$want" ] || { cat err.txt; fail "SIG$sig: exit $rc, want $want"; }
	[ ! -s out.txt ] || fail "SIG$sig: a summary was printed"
	for f in baseline.json candidate.json comparison.json gate-request.json gate.json; do
		[ ! -e run/$f ] || fail "SIG$sig: $f was written"
	done
	[ "$(ls run/attestations)" = "$(printf 'baseline-1.json\nbaseline-warmup-1.json\ncandidate-warmup-1.json')" ] ||
		{ ls run/attestations; fail "SIG$sig: the finished runs' attestations must stay, the stopped one not be written"; }
	grep -q "^fak bench experiment: interrupted by .*; no receipt written (the finished runs' evidence is in run)$" \
		err.txt || { cat err.txt; fail "SIG$sig: message"; }
	[ -z "$(ls -a run | grep fak-tmp)" ] || fail "SIG$sig: a temporary file was left"
	# the attempt counts, and its end says how it ended
	tail -1 wit/attempts.jsonl | jq -e '.event == "ended" and .verdict == "interrupted"
		and .gate == "none"' >/dev/null || { tail -1 wit/attempts.jsonl; fail "SIG$sig: the ended line"; }
	jq -e '.ended_seq == .started_seq + 1' run/attempt.json >/dev/null || fail "SIG$sig: attempt.json"
	grep -q "^fak bench experiment: attempt [12] of [12] of lever cpu.fast in this envelope, recorded as interrupted (ledger wit/attempts.jsonl)$" \
		err.txt || { cat err.txt; fail "SIG$sig: the attempt message"; }
done
[ "$(jq -s 'map(select(.event == "started")) | length' wit/attempts.jsonl)" = 2 ] ||
	fail "both interrupted attempts count"
echo ok
