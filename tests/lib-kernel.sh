# The setup and helpers of the tests that build and boot kernels of the
# demo history (t0200, t0201); sourced after lib.sh.

. "$TEST_DIR/lib-demo.sh"

# Every kernel is built with the fragment of the libvirt target, so that
# one build tree serves the build tests and the VMs.  TCG, unless a test
# says otherwise: the KVM probe has a test of its own.
KBISECT_ACCEL=tcg
export KBISECT_ACCEL
VM=$TEST_DIR/fixtures/vm-test.json
if virsh -c qemu:///system version >/dev/null 2>&1 && command -v fio >/dev/null; then
	test_set_prereq LIBVIRT
fi

# The longest bisections in VMs (the rebuild check, too-noisy, the CPU
# hog, the flaky kernel, building ahead: 5 to 20 minutes each here) run
# with KBISECT_TEST_LONG=1, so that the whole test run stays well within
# its time limit; README gives what each costs.
test "${KBISECT_TEST_LONG:-0}" = 1 && test_set_prereq LONG

# libvirtd is the machine's: the tests that boot VMs share it, those that
# stop it or take /dev/kvm away have it alone (tests/lib.sh)
test_lock_with LIBVIRT shared libvirtd
test_lock_with REMOTE shared libvirtd
test_lock_with RESTART_LIBVIRTD exclusive libvirtd
test_lock_with KVMNODE exclusive libvirtd

# keyed_bench NAME LEVEL LIST: the benchmark $TRASH_DIRECTORY/NAME.json,
# whose runs print "t: V", V about 100 with 1% noise drawn from the
# commit, the boot and the run, and LEVEL (0.05: 5%) more on the commits
# named in the file LIST of $TRASH_DIRECTORY; its script keyed.sh there
# takes LEVEL and LIST as its arguments.
keyed_bench () {
	cat >"$TRASH_DIRECTORY/keyed.sh" <<-\EOF &&
	seed=$(printf "%s" "$KBISECT_COMMIT$KBISECT_BOOT.$KBISECT_RUN" | cksum | cut -d" " -f1)
	grep -qx "$KBISECT_COMMIT" "$(dirname "$0")/$2" && level=$1 || level=0
	awk -v seed="$seed" -v l="$level" "BEGIN { srand(seed % 2147483647); u1 = rand(); u2 = rand()
		if (u1 < 1e-12) u1 = 1e-12; z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)
		printf \"t: %.4f\\n\", 100 * exp(log(1 + l) + 0.01 * z) }"
	EOF
	cat >"$TRASH_DIRECTORY/$1.json" <<-EOF
	{"name": "$1", "command": ["sh", "$TRASH_DIRECTORY/keyed.sh", "$2", "$3"],
	 "metric": {"name": "t", "regex": "t: ([0-9.]+)", "direction": "lower"},
	 "runs_per_boot": 5}
	EOF
}

# the VMs of the session of database $1 that are still there
vms_left () {
	virsh -c qemu:///system list --all --name | grep "^$(vm_prefix "$1")" || true
}
vm_prefix () {
	sed -n 's/.*VM \(kbisect-[0-9a-f]*-[0-9]*-\).*/\1/p' "$1" | head -n 1
}

# commit_edit BASE FILE SED-SCRIPT SUBJECT: a commit (no ref) on top of BASE
# with FILE edited; prints its id
commit_edit () {
	(
		cd "$DEMO" &&
		blob=$(git show "$1:$2" | sed "$3" | git hash-object -w --stdin) &&
		idx="$TRASH_DIRECTORY/edit.index" &&
		GIT_INDEX_FILE=$idx git read-tree "$1" &&
		GIT_INDEX_FILE=$idx git update-index --cacheinfo "100644,$blob,$2" &&
		tree=$(GIT_INDEX_FILE=$idx git write-tree) &&
		rm -f "$idx" &&
		echo "$4" | GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
			GIT_AUTHOR_DATE=@1700000000 GIT_COMMITTER_NAME=t \
			GIT_COMMITTER_EMAIL=t@example.org GIT_COMMITTER_DATE=@1700000000 \
			git commit-tree "$tree" -p "$1"
	)
}

# In the guest: stop (exit 200) unless the booted kernel is the commit's,
# then fail where the culprit's function is in the kernel.
GUEST_TEST='c=$(echo "$KBISECT_COMMIT" | cut -c1-12); case "$(uname -r)" in *-kb$c) ;; *) echo "booted $(uname -r)"; exit 200 ;; esac; sleep 3; ! grep -q namei_create_throttle "$KBISECT_BUILD/System.map"'

# end the session of k.db, if one is in progress
end_session () {
	"$KBISECT" reset --db k.db 2>/dev/null || true
}

# quoted_runs DB: the runs of DB whose output has the line of
# quote-bench.want, one id a line (the end of each output is in the
# database: the directories of finished runs are gone)
quoted_runs () {
	for id in $(sqlite3 -batch "$1" "SELECT id FROM runs"); do
		sqlite3 -batch "$1" "SELECT output_tail FROM runs WHERE id = $id" |
			grep -q -F -x -f "$TEST_DIR/fixtures/quote-bench.want" && echo $id
	done
	true
}

# the report of k.db's session in r.json (report exits with 3 without a culprit)
report_json () {
	"$KBISECT" report --json --db k.db >r.json || test $? = 3
}

# no VM of commit $1 (a tag of the demo history) is left: of this script's
# kbisect (its files are under the trash directory), not the other lane's
no_vm_of () {
	for no_vm_ in $(virsh -c qemu:///system list --all --name |
			grep "kbisect-.*-$(git -C "$DEMO" rev-parse --short=12 "$1")-b"); do
		virsh -c qemu:///system dumpxml "$no_vm_" 2>/dev/null |
			grep -q -F "$TRASH_DIRECTORY/" && return 1
	done
	return 0
}

# the_demo_history: the test that makes it (once per machine; the other
# scripts wait for the one that makes it)
the_demo_history () {
	test_expect_success 'the demo history' '
		sh "$TEST_DIR/kernel/demo-history.sh" "$DEMO" >out &&
		test "$(git -C "$DEMO" rev-list --count demo-good..demo-bad)" -ge 20 &&
		git -C "$DEMO" rev-parse demo-slow demo-broken demo-panic demo-hang demo-flaky \
			demo-warn demo-flaky-tip >/dev/null
	'
}
