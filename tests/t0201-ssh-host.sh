#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'a bare-metal test host over SSH: its kernels switched with kexec, power-cycled when it hangs, its connection dropped'
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
	machine hang.json "\"power_cycle_tries\": 1" &&
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
	"$KBISECT" target m.json >out &&
	grep "kernel 6\.1\.[0-9]*-kb$(git -C "$DEMO" rev-parse --short=12 demo-good)" out
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

test_done
