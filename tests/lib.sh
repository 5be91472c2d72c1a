# Shared helpers for the test scripts (tests/cli/scripts/*.sh); git's
# t/test-lib.sh is the model. A script starts with
#
#   . "$ROOT/tests/lib.sh"
#
# tests/cli/run.sh runs each script with sh, in a fresh empty folder that it
# removes afterwards, with FAK (the binary under test), ROOT (the checkout)
# and FIX (tests/fixtures) exported, under LC_ALL=C and TZ=UTC. A script
# passes when it exits 0; whatever it prints is shown when it fails.
#
# Sourcing changes no shell option (set -e/-u stay the script's choice) and
# defines nothing a script has already defined: a script that still has its
# own fail() keeps it, whether it defines it before or after this line.
#
#   fail MSG...                 print "FAIL: MSG" and exit 1
#   expect_equal WANT GOT WHAT  fail unless the two strings are equal, showing both
#   expect_file WANT GOT        fail unless two files are byte for byte equal, showing diff -u
#   expect_grep PATTERN FILE [WHAT]
#                               fail unless grep finds PATTERN (a basic regex) in FILE,
#                               showing FILE; expect_no_grep is the opposite
#   expect_code N CMD...        run CMD; fail unless it exits N (stdout and stderr are
#                               left in ./out.txt and ./err.txt for further checks)
#   expect_failure CMD...       the same for any status other than 0 (git's test_must_fail)
#   test_tmp                    set TEST_TMP to a private temporary folder (made on first
#                               call), removed when the script exits; call it as a
#                               statement, not in $(...)
#   at_exit CMD                 run the shell command CMD when the script exits (last
#                               registered runs first); use it instead of `trap ... EXIT`,
#                               which would replace the library's clean-up
#   busy_host_flags             sampler policy flags that accept a busy host (below)
#   quiet_host                  from here on, fak's sampler sees a fake /proc of a quiet host
#                               (FAK_PROC_ROOT, below)
#   serve_stub NAME ARGS...     start tests/tools/serve_stub.py on 127.0.0.1 (an OS-chosen port;
#                               its stderr in NAME.err), stopped when the script exits; sets
#                               STUB_PORT and STUB_PID
#
# Quiet hosts. Tests about something other than the host must pass while
# other work shares the machine (CI runners, other developers, a CPU
# burner). A test of what `fak bench system-baseline` writes calls
# quiet_host: the sampler reads a fake /proc (tests/tools/quiet_proc.py)
# whose only busy time is the CPU time of the test script's own processes, so
# the attestations are clean under the default policy whatever the load. They
# are sealed as `simulated` (FAK_PROC_ROOT), so no reader of receipts accepts
# them as evidence (tests/cli/scripts/simulated-host.sh), and `fak bench
# experiment` refuses FAK_PROC_ROOT (an experiment measures this machine).
# A test that gates attestations (receipt-e2e.sh) measures the real host
# under a criterion's host policy, as the runner's tests do.
# They use an explicit policy instead, one that lets other work use every
# core and the sampler's own census take as long as it must (on a loaded
# machine the default 10% duty ends runs with SAMPLER_COVERAGE_LIMITED):
# with the fixture graph (tests/fixtures/experiment) it is the criterion's
# host policy, so the gate judges against it and passes (promote-* need
# that); with a graph without one (the examples), $busy_host_flags, and the
# gate then investigates ("sealed under a looser policy"), always. Only the
# tests of the sampler's own judgement of a quiet host use the real host
# under the defaults; each says so in its header.
#
# A script's helpers of its own stay in the script; helpers two scripts
# share belong here (with a case in tests/cli/scripts/test-lib.sh).

busy_host_flags="--max-non-sut-cpu-percent 100 --max-sampler-duty-percent 100 --max-psi-stall-percent 100"

if ! command -v fail >/dev/null 2>&1; then
	fail() {
		echo "FAIL: $*"
		exit 1
	}
fi

if ! command -v expect_equal >/dev/null 2>&1; then
	expect_equal() {	# expect_equal WANT GOT WHAT
		[ "$1" = "$2" ] && return 0
		printf 'want: %s\ngot:  %s\n' "$1" "$2"
		fail "$3"
	}
fi

if ! command -v expect_file >/dev/null 2>&1; then
	expect_file() {	# expect_file WANT-FILE GOT-FILE
		cmp -s "$1" "$2" && return 0
		diff -u "$1" "$2" | head -60
		fail "$2 differs from $1"
	}
fi

if ! command -v expect_grep >/dev/null 2>&1; then
	expect_grep() {	# expect_grep PATTERN FILE [WHAT]
		grep -q -e "$1" "$2" && return 0
		echo "--- $2:"
		head -40 "$2"
		fail "${3:-no line of $2 matches '$1'}"
	}
fi

if ! command -v expect_no_grep >/dev/null 2>&1; then
	expect_no_grep() {	# expect_no_grep PATTERN FILE [WHAT]
		grep -q -e "$1" "$2" || return 0
		echo "--- $2:"
		grep -n -e "$1" "$2" | head -20
		fail "${3:-a line of $2 matches '$1'}"
	}
fi

if ! command -v expect_code >/dev/null 2>&1; then
	expect_code() {	# expect_code N CMD...
		_lib_want=$1
		shift
		_lib_rc=0
		"$@" >out.txt 2>err.txt || _lib_rc=$?
		[ "$_lib_rc" = "$_lib_want" ] && return 0
		echo "--- stderr:"
		head -40 err.txt
		fail "exit $_lib_rc, want $_lib_want: $*"
	}
fi

if ! command -v expect_failure >/dev/null 2>&1; then
	expect_failure() {	# expect_failure CMD...
		_lib_rc=0
		"$@" >out.txt 2>err.txt || _lib_rc=$?
		[ "$_lib_rc" != 0 ] && return 0
		echo "--- stdout:"
		head -40 out.txt
		fail "succeeded, want a failure: $*"
	}
fi

# at_exit and test_tmp share one EXIT trap. The commands run in reverse
# order of registration; the script's exit status is kept.
_lib_at_exit=
if ! command -v at_exit >/dev/null 2>&1; then
	at_exit() {	# at_exit SHELL-COMMAND
		_lib_at_exit="$1
$_lib_at_exit"
		# set +e: under set -e, a failing clean-up command would replace
		# the script's status with its own
		trap '_lib_exit=$?; set +e; eval "$_lib_at_exit"; exit $_lib_exit' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
	}
fi

TEST_TMP=
if ! command -v test_tmp >/dev/null 2>&1; then
	test_tmp() {	# test_tmp: sets TEST_TMP
		[ -z "$TEST_TMP" ] || return 0
		TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/fak-test.XXXXXX") || fail "mktemp"
		at_exit 'rm -rf "$TEST_TMP"'
	}
fi

if ! command -v quiet_host >/dev/null 2>&1; then
	quiet_host() {	# quiet_host: export FAK_PROC_ROOT, a fake quiet /proc kept current
		[ -z "${FAK_PROC_ROOT:-}" ] || return 0
		test_tmp
		# the writer must not fall behind the clock on a loaded machine:
		# real-time priority where allowed (root in CI), else as it is
		_lib_prio=
		chrt -f 10 true 2>/dev/null && _lib_prio="chrt -f 10"
		$_lib_prio python3 "$ROOT/tests/tools/quiet_proc.py" "$TEST_TMP/proc" $$ &
		_lib_qp=$!
		at_exit "kill $_lib_qp 2>/dev/null; wait $_lib_qp 2>/dev/null"
		_lib_i=0
		while [ ! -e "$TEST_TMP/proc/ready" ]; do
			kill -0 $_lib_qp 2>/dev/null || fail "quiet_proc.py exited"
			_lib_i=$((_lib_i + 1))
			[ $_lib_i -lt 400 ] || fail "quiet_proc.py did not start in 20 s"
			sleep 0.05
		done
		FAK_PROC_ROOT=$TEST_TMP/proc
		export FAK_PROC_ROOT
	}
fi

if ! command -v serve_stub >/dev/null 2>&1; then
	serve_stub() {	# serve_stub NAME ARGS...
		_stub_name=$1
		shift
		rm -f "$_stub_name.port"
		python3 "$ROOT/tests/tools/serve_stub.py" --port-file "$_stub_name.port" "$@" \
			2>"$_stub_name.err" &
		STUB_PID=$!
		at_exit "kill $STUB_PID 2>/dev/null || true"
		_stub_i=0
		while [ ! -s "$_stub_name.port" ]; do
			_stub_i=$((_stub_i + 1))
			[ $_stub_i -lt 200 ] || fail "the stub $_stub_name did not start: $(cat "$_stub_name.err")"
			kill -0 $STUB_PID 2>/dev/null || fail "the stub $_stub_name exited: $(cat "$_stub_name.err")"
			sleep 0.05
		done
		STUB_PORT=$(cat "$_stub_name.port")
	}
fi
