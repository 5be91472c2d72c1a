# --cpus on this machine. Where fak's cgroup can have the cpuset controller,
# the command runs on CPU 0 only (its Cpus_allowed_list says so) and the
# attestation records the list, judges host CPU on it and keeps the whole
# host as information. Where it cannot, the run is refused before the quiet
# window with the message that says what is missing, and nothing is written.
# Either way this test checks one of the two; it says which.
set -u
fail() { echo "FAIL: $*"; exit 1; }

"$FAK" bench system-baseline --baseline-duration 50ms --interval 10ms \
	--max-non-sut-cpu-percent 100 --max-psi-stall-percent 100 --cpus 0 --out a.json -- \
	sh -c 'grep Cpus_allowed_list /proc/self/status' >out.json 2>err.txt
rc=$?
if [ $rc = 0 ]; then
	grep -q '^Cpus_allowed_list:[[:space:]]*0$' err.txt ||
		fail "the command was not confined to CPU 0: $(cat err.txt)"
	"$FAK" bench system-baseline --verify a.json >/dev/null ||
		fail "the attestation does not verify"
	jq -e '.cpus.list == "0" and .cpus.count == 1 and .cpus.command_all_cpus_percent.available
		and (.host_totals.cpu_percent.source | test("--cpus"))
		and .cgroup_v2.state == "measured"' a.json >/dev/null ||
		fail "the attestation does not record --cpus: $(jq -c .cpus a.json)"
	echo "bench-cpus: a writable cpuset: the command ran on CPU 0"
else
	[ $rc = 1 ] || fail "exit $rc: $(cat err.txt)"
	[ ! -s out.json ] && [ ! -e a.json ] || fail "a refused run wrote an attestation"
	no_cgroup='needs a cgroup v2 of its own for the command, and there is none: .+'
	no_cpuset=': no writable cpuset controller: cgroup v2 "cpuset" is not enabled below the'
	no_cpuset="$no_cpuset cgroup fak runs in; add it to that cgroup.s cgroup.subtree_control"
	no_cpuset="$no_cpuset \\(\\+cpuset\\), or drop --cpus"
	grep -Eq "^fak bench system-baseline: --cpus( $no_cgroup|$no_cpuset)\$" err.txt ||
		fail "unexpected refusal: $(cat err.txt)"
	echo "bench-cpus: no writable cpuset here: refused with $(cat err.txt)"
fi
