# fak exits with the command's status: its exit code, 128+N after signal N,
# 124 after --timeout; the attestation is written every time and verifies.
set -u
O="--baseline-duration 50ms --interval 20ms"
check() {	# check FILE PYTHON-ASSERTIONS
	$FAK bench system-baseline --verify "$1" >/dev/null || exit 1
	/usr/bin/python3 -c "import json; d = json.load(open('$1')); f = [(x['code'], x['detail']) for x in d['findings']]; $2" || exit 1
}
$FAK bench system-baseline $O -- sh -c 'exit 7' >a.json 2>/dev/null
[ $? = 7 ] || { echo "exit 7 not passed on"; exit 1; }
check a.json "assert d['verdict'] == 'invalid' and ('COMMAND_FAILED', 'child command exited 7') in f and d['command_signal'] == 0, f"

$FAK bench system-baseline $O -- sh -c 'kill -KILL $$' >b.json 2>/dev/null
[ $? = 137 ] || { echo "signal 9 not passed on as 137"; exit 1; }
check b.json "assert d['command_exit_code'] == 137 and d['command_signal'] == 9 and ('COMMAND_FAILED', 'child command was terminated by signal 9') in f, f"

start=$(date +%s)
$FAK bench system-baseline $O --timeout 200ms -- sleep 30 >c.json 2>/dev/null
[ $? = 124 ] || { echo "timeout did not exit 124"; exit 1; }
[ $(($(date +%s) - start)) -lt 10 ] || { echo "timeout took too long"; exit 1; }
check c.json "assert d['timed_out'] and d['command_exit_code'] == 124 and d['verdict'] == 'invalid' and ('COMMAND_TIMEOUT', 'child command exceeded the configured timeout') in f, f"
