# Where the command runs is checked before the first run: --cpus on a host
# without a writable cpuset, and --attribution cgroup without a cgroup v2 of
# fak's own, refuse the experiment with the sampler's own message before the
# out dir is made or the attempt recorded (they used to fail the first run,
# leaving a folder that could not be used again). The host decides which
# refusals this script sees: where the cgroup hierarchy is writable, a mount
# namespace of our own (unshare -rm) hides it under a tmpfs; the script
# says what it checked.
set -eu
if [ -z "${FAK_TEST_IN_NS:-}" ] && unshare -rm true 2>/dev/null; then
	# a tmpfs over the cgroup hierarchy: no cgroup of fak's own can be made
	FAK_TEST_IN_NS=1 exec unshare -rm sh -c \
		'mount -t tmpfs -o size=1m tmpfs /sys/fs/cgroup && exec sh "$0"' "$0"
fi
if [ -z "${FAK_TEST_IN_NS:-}" ] &&
	"$FAK" bench system-baseline --baseline-duration 20ms --interval 10ms --cpus 0 \
		--max-non-sut-cpu-percent 100 --max-psi-stall-percent 100 -- true >/dev/null 2>&1; then
	echo "experiment-placement: a writable cpuset and no unshare -rm: nothing checked" >&2
	exit 77
fi
. "$FIX/experiment/lib.sh"

refused() {	# refused FLAG... : the experiment is refused for where it runs, nothing left
	expect_code 1 xp --baseline ./bench.sh --candidate ./bench.sh --out-dir new/run "$@"
	expect_grep '^fak bench experiment: cannot start; nothing ran (1 finding):$' err.txt
	[ ! -e new ] || fail "$*: a refused experiment left new/ behind"
	[ ! -e wit ] || fail "$*: a refused experiment was recorded in the ledger"
}
refused --cpus 0
expect_grep '^  --cpus\( needs a cgroup v2 of its own for the command, and there is none: .*\|: no writable cpuset controller: .*, or drop --cpus\)$' err.txt
# the same words as the sampler's, which the first run printed before
"$FAK" bench system-baseline --baseline-duration 20ms --interval 10ms --cpus 0 -- true \
	>/dev/null 2>sb.txt && fail "system-baseline --cpus 0 ran where the experiment refused it"
expect_equal "$(sed 's/^fak bench system-baseline: /  /' sb.txt)" "$(sed -n 2p err.txt)" \
	"the experiment's --cpus refusal differs from the sampler's"
if [ -n "${FAK_TEST_IN_NS:-}" ]; then
	refused --attribution cgroup
	expect_grep '^  cgroup attribution was requested but is unavailable: ' err.txt
	echo "experiment-placement: no cgroup hierarchy: --cpus and --attribution cgroup refused"
else
	echo "experiment-placement: no writable cpuset on this host: --cpus refused"
fi
