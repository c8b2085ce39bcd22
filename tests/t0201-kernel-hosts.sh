#!/bin/sh
. "$(dirname "$0")/lib.sh"
# run-tests: first
test_description 'kernels that fail and hosts far away: a bare-metal test host over SSH (kexec, power cycles, dropped connections), kernels that panic, hang or crash some of the time in VMs, a libvirt over SSH'
. "$TEST_DIR/lib-kernel.sh"

the_demo_history

# The ssh target: a QEMU machine plays a bare-metal host (tests/kernel/
# host-vm.sh): it boots a kernel built here with this machine's root over
# 9p and runs sshd on a forwarded loopback port; kbisect switches it to
# each kernel with a real kexec and power-cycles it by restarting QEMU.
# Its kernels are built with configs/kernel/ssh.config, whose options are
# those of libvirt.config: the build directory of k.db serves both.
SSHHOST=yes
for tool in qemu-system-x86_64 ssh-keygen kexec nc ip sshd; do
	if ! command -v $tool >/dev/null && ! test -x /usr/sbin/$tool && ! test -x /sbin/$tool; then
		SSHHOST=
	fi
done
test -n "$SSHHOST" && test_set_prereq SSHHOST

HOSTVM="$TEST_DIR/kernel/host-vm.sh"
H=$TRASH_DIRECTORY/host
# the host's work directory, with a blank, a quote and shell syntax in it:
# every command that names it must quote it
WORKDIR="/var/tmp/kb it's \$(touch /run/pwned); \"x\""

# machine FILE [KEY: VALUE...]: the machine file of the test host
machine () {
	f=$1
	shift
	{
		printf '{ "target": "ssh://root@127.0.0.1:%s", "key_file": "%s",\n' \
			"$(cat "$H/port")" "$H/id"
		printf '  "known_hosts": "%s", "boot_timeout": 45,\n' "$TRASH_DIRECTORY/known_hosts"
		printf '  "workdir": "%s", "scratch_dev": "/dev/vda", "modules_dir": "/srv/lib/modules",\n' \
			"$(printf '%s' "$WORKDIR" | sed 's/["\\]/\\&/g')"
		printf '  "power_cycle": ["sh", "%s", "cycle", "%s"]' "$HOSTVM" "$H"
		for kv in "$@"; do
			printf ',\n  %s' "$kv"
		done
		printf ' }\n'
	} >"$f"
}

test_expect_success SSHHOST 'the test host boots its installed kernel and runs sshd' '
	"$KBISECT" build demo-good --target ssh://x --repo "$DEMO" --db k.db >b1 &&
	art=$(sed -n "s/^artifacts //p" b1) &&
	grep "^CONFIG_KEXEC=y" "$art/config" &&
	# the build installed its modules beside the image
	test -f "$art/modules/lib/modules/$(cat "$art/release")/kernel/lib/crc-itu-t.ko" &&
	test -f "$art/modules/lib/modules/$(cat "$art/release")/modules.dep" &&
	! test -L "$art/modules/lib/modules/$(cat "$art/release")/source" &&
	sh "$HOSTVM" start "$H" "$(sed -n "s/^artifacts //p" b1)/bzImage" >port &&
	machine m.json &&
	test_wait_for "grep -q \"sshd started (0)\" \"$H/console.new\"" 2400
'

test_expect_success SSHHOST 'an unknown host key is refused, with what to do' '
	test_expect_code 1 "$KBISECT" target m.json >out 2>err &&
	grep "the host key is not known" err &&
	grep -- "--accept-new-host-key" err &&
	grep "$(ssh-keygen -lf "$H/host_key.pub" | cut -d" " -f2)" err &&
	! test -e known_hosts &&
	test_expect_code 1 "$KBISECT" start demo-slow~1 demo-slow --repo "$DEMO" --db k.db \
		--target m.json --command true 2>err &&
	grep "the host key is not known" err &&
	end_session
'

test_expect_success SSHHOST 'the key is accepted with --accept-new-host-key, and kept' '
	"$KBISECT" target m.json --accept-new-host-key >out &&
	grep "host key known" out &&
	grep "kernel 6\.1\.[0-9]*-kb$(git -C "$DEMO" rev-parse --short=12 demo-good)" out &&
	grep "kexec /" out &&
	grep "^\[127.0.0.1\]:$(cat "$H/port") ssh-ed25519 " known_hosts &&
	"$KBISECT" target m.json >out
'

test_expect_success SSHHOST 'a changed host key is refused, even with --accept-new-host-key' '
	cp known_hosts known_hosts.good &&
	ssh-keygen -q -t ed25519 -N "" -f other &&
	sed "s|ssh-ed25519 [^ ]*|$(cut -d" " -f1-2 other.pub)|" known_hosts.good >known_hosts &&
	test_expect_code 1 "$KBISECT" target m.json --accept-new-host-key 2>err &&
	grep "THE HOST KEY HAS CHANGED" err &&
	grep "ssh-keygen -R" err &&
	# the file was left as it was
	grep -F "$(cut -d" " -f2 other.pub)" known_hosts &&
	cp known_hosts.good known_hosts
'

test_expect_success SSHHOST 'bisect over ssh: every kernel switched to with kexec, checked, tested' '
	end_session &&
	slow=$(git -C "$DEMO" rev-parse demo-slow) &&
	after=$(git -C "$DEMO" rev-list --reverse demo-slow..demo-bad | sed -n 2p) &&
	"$KBISECT" start demo-slow~1 $after --repo "$DEMO" --db k.db --target m.json \
		--command "$GUEST_TEST" >rep 2>err &&
	"$KBISECT" report --json --db k.db >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $slow &&
	grep -c "switching 127.0.0.1 to 6\.1\.[0-9]*-kb[0-9a-f]\{12\} (kexec)" err >n &&
	test "$(cat n)" -ge 1 &&
	grep "127.0.0.1 is back on 6\.1\.[0-9]*-kb" err &&
	grep "ssh://root@127.0.0.1" rep
'

test_expect_success SSHHOST 'the modules of each kernel are installed on the host with it' '
	grep "modules of 6\.1\.[0-9]*-kb[0-9a-f]* installed in /srv/lib/modules" err &&
	ssh -i "$H/id" -p "$(cat "$H/port")" -o UserKnownHostsFile="$TRASH_DIRECTORY/known_hosts" \
		-o BatchMode=yes root@127.0.0.1 \
		"modprobe -d /srv crc-itu-t && grep crc_itu_t /proc/modules && uname -r" >mod.out &&
	grep "^crc_itu_t " mod.out &&
	test -f "$H/modules/lib/modules/$(tail -n 1 mod.out)/.kbisect" &&
	# those of earlier kernels went: the running one and at most one more
	ls "$H/modules/lib/modules" >trees &&
	test_line_count -le 2 trees &&
	! grep kbisect-new trees
'

test_expect_success SSHHOST,SQLITE3 'commands on the host are quoted: arguments arrive as they are' '
	"$KBISECT" compare demo-slow~1 demo-slow --repo "$DEMO" --db k.db -n 2 \
		--target m.json --bench "$TEST_DIR/fixtures/quote-bench.json" --json \
		>q.out 2>q.err || test $? = 3 &&
	test "$(json_get q.out runs_total)" = 8 &&
	quoted_runs k.db >quoted &&
	test_line_count -ge 2 quoted &&
	"$KBISECT" target m.json >out &&
	# the work directory with its odd name was made, and nothing ran
	ssh -i "$H/id" -p "$(cat "$H/port")" -o UserKnownHostsFile="$TRASH_DIRECTORY/known_hosts" \
		-o BatchMode=yes root@127.0.0.1 "ls -d /var/tmp/kb*; test ! -e /run/pwned" >ls.out &&
	grep -F "/var/tmp/kb it'"'"'s" ls.out
'

test_expect_success SSHHOST 'a host that hangs after the switch: power-cycled, switched again, then a skip' '
	end_session &&
	# a cold boot of the host on a loaded machine can take longer than the
	# 45 s given to a switch: the power cycle has a timeout of its own
	machine hang.json "\"power_cycle_tries\": 1" "\"power_cycle_timeout\": 300" &&
	"$KBISECT" start demo-bad demo-hang-tip --repo "$DEMO" --db k.db --target hang.json \
		--command true >rep 2>err || test $? = 3 &&
	test "$(grep -c "power-cycling 127.0.0.1" err)" = 2 &&
	grep "did not come back in 45 s after the switch to 6\.1\.[0-9]*-kb[0-9a-f]*; trying once more" err &&
	"$KBISECT" report --json --db k.db >r.json || test $? = 3 &&
	hang=$(git -C "$DEMO" rev-parse demo-hang) &&
	test "$(json_get r.json steps[0].commit)" = $hang &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	json_get r.json steps[0].boot_error | grep "did not come back" &&
	# the host runs its installed kernel again
	"$KBISECT" target hang.json >out &&
	grep "kernel 6\.1\.[0-9]*-kb$(git -C "$DEMO" rev-parse --short=12 demo-good)" out &&
	grep "boot timeout 45 s, power cycle sh (300 s)" out
'

test_expect_success SSHHOST 'a host that never comes back is down: the session stops, nothing is marked' '
	end_session &&
	machine down.json "\"power_cycle_tries\": 1" &&
	sed "s|\"cycle\"|\"hang\"|" down.json >down2.json &&
	test_expect_code 1 "$KBISECT" start demo-bad demo-hang-tip --repo "$DEMO" --db k.db \
		--target down2.json --command true >rep 2>err &&
	grep "host 127.0.0.1 is down" err &&
	grep "Nothing is marked" err &&
	"$KBISECT" status --json --db k.db >st.json &&
	test "$(json_get st.json tested)" = 0 &&
	sh "$HOSTVM" cycle "$H" &&
	test_wait_for "\"$KBISECT\" target m.json >/dev/null 2>&1" 2400
'

# A command that drops its own connection: it kills the sshd of its session
# (the first time only, with "once").
DROP='p=$$; while test "$(cat /proc/$p/comm)" != sshd; do p=$(awk "{ print \$4 }" /proc/$p/stat); done; kill -9 $p; sleep 5'

test_expect_success SSHHOST 'the connection drops in the middle of a run: connected again, the run runs again' '
	end_session &&
	"$KBISECT" start demo-slow~2 demo-slow --repo "$DEMO" --db k.db --target m.json \
		--command "if ! test -e dropped; then touch dropped; $DROP; fi; exit 0" >rep 2>err &&
	grep "the connection to 127.0.0.1 dropped in run 1" err &&
	grep "127.0.0.1 is still on the same boot: run 1 runs again" err &&
	report_json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = "$(git -C "$DEMO" rev-parse demo-slow)" &&
	test "$(json_get r.json steps[0].decision)" = good
'

test_expect_success SSHHOST 'a host that keeps dropping the connection is down: nothing is marked' '
	end_session &&
	test_expect_code 1 "$KBISECT" start demo-slow~2 demo-slow --repo "$DEMO" --db k.db \
		--target m.json --command "$DROP" >rep 2>err &&
	test "$(grep -c "the connection to 127.0.0.1 dropped in run 1" err)" = 3 &&
	grep "host 127.0.0.1 is down: it dropped the connection in run 1 3 times" err &&
	"$KBISECT" status --json --db k.db >st.json &&
	test "$(json_get st.json tested)" = 0
'

test_expect_success SSHHOST 'the test host goes away' '
	end_session &&
	sh "$HOSTVM" stop "$H"
'

# Kernels that fail at boot, in VMs of this machine's libvirt.
test_expect_success LIBVIRT 'a kernel that panics at boot: a skip, its panic in the report, no VM left' '
	end_session &&
	test_expect_code 3 "$KBISECT" start demo-bad demo-panic-tip --repo "$DEMO" --db k.db \
		--target "$VM" --command true >rep 2>err &&
	panic=$(git -C "$DEMO" rev-parse demo-panic) &&
	report_json &&
	test "$(json_get r.json verdict)" = inconclusive &&
	test "$(json_get r.json steps[0].commit)" = $panic &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	test "$(json_get r.json steps[0].source)" = boot &&
	json_get r.json steps[0].boot_error | grep "Kernel panic.*demo: this kernel stops before init" &&
	grep "the boot failed" rep &&
	no_vm_of demo-panic
'

test_expect_success LIBVIRT 'bisecting a boot failure: --boot-failure bad names the panicking commit' '
	end_session &&
	"$KBISECT" start demo-bad demo-panic-tip --repo "$DEMO" --db k.db --target "$VM" \
		--command true --boot-failure bad >rep 2>err &&
	report_json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = "$(git -C "$DEMO" rev-parse demo-panic)" &&
	no_vm_of demo-panic
'

# With --flaky, a kernel that dies at boot is a failed run (a crash is
# what flaky bugs do), not a skip.  Without a signature the failure
# bisected is how BAD's kernel first died.
# demo-warn warns in about half of its boots, and so does demo-flaky
# after it; panic_on_warn (the machine's cmdline) makes that a failure of
# another kind: listed with its title, never counted, never a mark.
# demo-flaky panics in about half of its boots, before the warning.  On a
# pool of two VMs: two runs at once.
test_expect_success LIBVIRT,SQLITE3,LONG 'flaky: a kernel that panics in half its boots, a warning on other commits another failure' '
	end_session &&
	sed "s/\"boot_timeout\"/\"cmdline\": \"panic_on_warn=1\", &/" "$VM" >vm-warn.json &&
	"$KBISECT" start demo-bad demo-flaky-tip --repo "$DEMO" --db k.db \
		--target "$PWD/vm-warn.json" --target "$PWD/vm-warn.json" --command true \
		--flaky >rep 2>err &&
	flaky=$(git -C "$DEMO" rev-parse demo-flaky) &&
	report_json &&
	test "$(json_get r.json mode)" = flaky &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $flaky &&
	test "$(json_get r.json culprits[0].checks.fails_itself)" = pass &&
	test "$(json_get r.json culprits[0].checks.parent_clean)" = pass &&
	test "$(json_get r.json culprits[0].checks.revert)" = pass &&
	! grep "marking it skip" err &&
	title="Kernel panic - not syncing: demo: this kernel panics in about half of its boots" &&
	test "$(json_get r.json failure_title)" = "$title" &&
	grep "^the failure bisected: $title\$" rep &&
	grep "$(echo $flaky | cut -c1-12) failed: $title" err &&
	# the runs that failed another way: warnings, of the commits that warn
	last="session = (select max(id) from sessions) and state = '"'"'done'"'"'" &&
	warns=$(git -C "$DEMO" rev-list demo-warn~1..demo-flaky | sed "s/.*/'"'"'&'"'"'/" |
		paste -s -d, -) &&
	other=$(sqlite3 k.db "select count(*) from runs where $last and value is null
		and sha in ($warns)") &&
	test "$other" -ge 1 &&
	test "$(sqlite3 k.db "select count(*) from runs where $last and value is null")" = "$other" &&
	json_list r.json warnings .kind >kinds && grep -x other-failure kinds &&
	grep "^  other-failure: $other runs\? failed another way, not counted: WARNING: CPU: [0-9]* PID: [0-9]* at [^ ]*init/main.c:[0-9]* " rep &&
	grep "failed another way, not counted: WARNING: CPU: [0-9]* PID: [0-9]* at [^ ]*init/main.c:[0-9]* " err &&
	test "$(sqlite3 k.db "select count(*) from marks where
		session = (select max(id) from sessions)")" = 0 &&
	no_vm_of demo-flaky && no_vm_of demo-warn
'

test_expect_success LIBVIRT 'a kernel that hangs at boot: a skip after the boot timeout, no VM left' '
	end_session &&
	test_expect_code 3 "$KBISECT" start demo-bad demo-hang-tip --repo "$DEMO" --db k.db \
		--target "$VM" --command true >rep 2>err &&
	report_json &&
	test "$(json_get r.json steps[0].commit)" = "$(git -C "$DEMO" rev-parse demo-hang)" &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	json_get r.json steps[0].boot_error |
		grep "the guest hung at boot: no answer in 40 s" &&
	no_vm_of demo-hang
'

test_expect_success LIBVIRT 'a guest that hangs in the benchmark: stopped at its timeout, a skip' '
	end_session &&
	cat >bench-hang.json <<-\EOF &&
	{"name": "hang", "command": "echo started; exec sleep 100000", "timeout": 5}
	EOF
	# two commits: the first is tested
	test_expect_code 3 "$KBISECT" start demo-slow~2 demo-slow --repo "$DEMO" \
		--db k.db --target "$VM" --bench "$TRASH_DIRECTORY/bench-hang.json" >rep 2>err &&
	report_json &&
	test "$(json_get r.json steps[0].commit)" = "$(git -C "$DEMO" rev-parse demo-slow~1)" &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	grep "the guest hung in run 1: no answer in 5 s" err &&
	json_get r.json steps[0].boot_error | grep "the guest hung in run 1" &&
	no_vm_of demo-slow~1
'

# A remote libvirt: this machine's libvirtd, reached over SSH (qemu+ssh) on
# a loopback port, so that kbisect takes it for another host - kernel, job
# and scratch disk go to volumes of a storage pool, the serial ports are
# read through the connection.
if test_have_prereq LIBVIRT && test -x /usr/sbin/sshd && command -v ssh >/dev/null &&
   command -v virt-ssh-helper >/dev/null; then
	. "$TEST_DIR/lib-sshd.sh"
	if sshd_start "$TRASH_DIRECTORY/sshd" >sshd.out 2>&1; then
		test_set_prereq REMOTE
	fi
fi
POOL=kbisect-test-$$
REMOTE_URI="qemu+ssh://root@127.0.0.1:$SSHD_PORT/system?keyfile=$SSHD_KEY&no_verify=1"

test_expect_success REMOTE 'a remote libvirt without the storage pool: a message that says what to do' '
	end_session &&
	printf "{ \"target\": \"libvirt:%s\", \"pool\": \"%s\", \"memory_mib\": 384,\n" \
		"$REMOTE_URI" "$POOL" >remote.json &&
	printf "  \"vcpus\": 1, \"scratch_mib\": 64, \"boot_timeout\": 40 }\n" >>remote.json &&
	grep -F "qemu+ssh://root@127.0.0.1:$SSHD_PORT/system?keyfile=" remote.json &&
	test_expect_code 1 "$KBISECT" start demo-slow~1 demo-slow --repo "$DEMO" --db k.db \
		--target "$TRASH_DIRECTORY/remote.json" --command true >rep 2>err &&
	grep "has no storage pool .$POOL." err &&
	grep "pool-define-as $POOL dir" err &&
	end_session
'

test_expect_success REMOTE,SQLITE3 'a remote libvirt: kernels, jobs and disks go to volumes, consoles come back' '
	mkdir -p pool &&
	virsh -c qemu:///system pool-create-as "$POOL" dir --target "$TRASH_DIRECTORY/pool" &&
	"$KBISECT" compare demo-slow~1 demo-slow --repo "$DEMO" --db k.db -n 2 \
		--target "$TRASH_DIRECTORY/remote.json" --bench "$TEST_DIR/fixtures/quote-bench.json" \
		--json >remote.out 2>remote.err || test $? = 3 &&
	test "$(json_get remote.out runs_total)" = 8 &&
	test "$(json_get remote.out accel)" = tcg &&
	grep -c "booted 6\.1\.[0-9]*-kb[0-9a-f]\{12\} in" remote.err >n &&
	test "$(cat n)" = 4 &&
	# the argument came through as it is, not run by a shell
	quoted_runs k.db >quoted &&
	test_line_count -ge 4 quoted &&
	# the console of every boot came back through the connection
	for log in $(sed -n "s/.*VM \(kbisect-[^ ]*\) booted.*/\1/p" remote.err); do
		grep "reboot: Restarting system" k.db.d/logs/console-$log.log || exit 1
	done &&
	# no VM and no volume left
	test -z "$(vms_left remote.err)" &&
	test -z "$(virsh -c qemu:///system vol-list "$POOL" | grep kbisect)"
'

test_expect_success REMOTE 'a remote VM left behind by kill -9: its VM and volumes go at the next start' '
	end_session &&
	"$KBISECT" start demo-slow~2 demo-slow --repo "$DEMO" --db k.db --no-run \
		--target "$TRASH_DIRECTORY/remote.json" --command "sleep 600" 2>/dev/null &&
	{ "$KBISECT" resume --db k.db >rep1 2>err1 & pid=$!; } &&
	test_wait_for "grep -q RUN-BEGIN k.db.d/vm/*/data.log 2>/dev/null && grep -q \" booted \" err1" 6000 &&
	kill -9 $pid && { wait $pid || true; } &&
	left=$(vms_left err1) && test -n "$left" &&
	virsh -c qemu:///system vol-list "$POOL" | grep "$left\.kernel" &&
	"$KBISECT" reset --db k.db 2>err &&
	grep "destroying VM $left" err &&
	grep "deleting volume $left.scratch" err &&
	test -z "$(vms_left err1)" &&
	test -z "$(virsh -c qemu:///system vol-list "$POOL" | grep kbisect)"
'

test_expect_success REMOTE 'the remote test host goes away' '
	virsh -c qemu:///system pool-destroy "$POOL" &&
	sshd_stop "$TRASH_DIRECTORY/sshd"
'

# Kernels built while another is tested (last here: it empties the cache).
test_expect_success LIBVIRT,LONG 'build ahead: the likely next kernels are built while one is tested' '
	end_session &&
	# an empty cache; the build directory stays, so builds are incremental
	rm -rf k.db.cache &&
	"$KBISECT" start demo-slow~1 demo-bad --repo "$DEMO" --db k.db --target "$VM" \
		--command "$GUEST_TEST" --build-ahead on >rep 2>err &&
	"$KBISECT" report --json --db k.db >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = "$(git -C "$DEMO" rev-parse demo-slow)" &&
	grep "building ahead: " err &&
	ahead=$(sed -n "s/.*built \([0-9a-f]\{12\}\) ahead.*/\1/p" err) &&
	test -n "$ahead" &&
	hits=0 &&
	for a in $ahead; do
		if grep "found $a as .* in the cache" err; then hits=$((hits + 1)); fi
	done &&
	test $hits -ge 1
'

test_done
