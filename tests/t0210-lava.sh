#!/bin/sh
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-lava.sh"
test_description 'kernels booted as jobs of a real LAVA lab (lava-server, its scheduler, a lava-worker with QEMU devices): target checks, a bisection with a job canceled and the server stopped, two jobs at once, panics and hangs skipped, the token nowhere'

# The demo history and the compiler's cache are t0200's (the same kernel
# options: LAVA's qemu devices boot what libvirt's VMs boot).
. "$TEST_DIR/lib-demo.sh"
# A lab, its jobs and a cold kernel build cost about 15 minutes on a
# machine of its own: run where asked for (README, Boards in a LAVA lab)
if test "${KBISECT_TEST_LAVA:-}" != 1; then
	test_skip_all 'the LAVA lab tests run with KBISECT_TEST_LAVA=1 (sh tests/install-deps.sh lava installs LAVA)'
fi
if ! lava_have; then
	test_skip_all "no LAVA here (missing:$LAVA_MISSING; tests/install-deps.sh installs it)"
fi
if test "$(id -u)" != 0; then
	test_skip_all 'LAVA is started as root (its worker runs QEMU, its server its own user)'
fi
unset KBISECT_LAVA_TOKEN

test_expect_success 'the demo history' '
	sh "$TEST_DIR/kernel/demo-history.sh" "$DEMO" >out &&
	git -C "$DEMO" rev-parse demo-slow demo-panic demo-hang >/dev/null
'

# the root file system of the QEMU devices: busybox, fio, mkfs.ext4
RAMDISK=${KBISECT_DEMO_DIR:-/var/tmp/kbisect-demo}/lava-ramdisk.cpio
test_expect_success 'the root file system of the devices' '
	sh "$TEST_DIR/lava/ramdisk.sh" "$RAMDISK" &&
	test -s "$RAMDISK"
'

# The lab, started once for the whole script (the tests run in subshells)
if ! lava_start "$TRASH_DIRECTORY/lab" >lab.out 2>&1; then
	cat lab.out
	lava_stop
	test_skip_all 'the LAVA lab did not start (see above)'
fi
cat lab.out
trap 'lava_stop' EXIT
lava_device kbisect-qemu-1

# machine NAME [KEY VALUE...]: a machine file of the lab, with numbers as
# they are and strings quoted
machine () {
	m=$1
	shift
	{
		printf '{ "type": "lava", "server": "%s/", "device_type": "qemu",\n' "$LAVA_URL"
		printf '  "user": "kbisect-test", "token_file": "%s",\n' "$LAVA_TOKEN_FILE"
		printf '  "publish_dir": "%s", "publish_url": "%s",\n' "$LAVA_PUBLISH_DIR" \
			"$LAVA_PUBLISH_URL"
		printf '  "ramdisk": "%s", "boot_timeout": 90, "server_timeout": 20' "$RAMDISK"
		while test $# -ge 2; do
			printf ',\n  "%s": %s' "$1" "$2"
			shift 2
		done
		printf ' }\n'
	} >"$m"
}
machine lava.json
machine lava2.json parallel 2

test_expect_success 'kbisect target: the server, the token, the device type, the template' '
	"$KBISECT" target lava.json >out 2>err &&
	grep "^target lava: ok" out &&
	grep "^LAVA 2023.01 at $LAVA_URL\$" out &&
	grep "^token of user kbisect-test: accepted\$" out &&
	grep "^device type qemu: 1 device(s), 1 idle, 0 busy, 0 out of service\$" out &&
	grep "^job template .*configs/lava/qemu.yaml: renders, and the server takes the job\$" out &&
	grep "^publish_dir $LAVA_PUBLISH_DIR, served at $LAVA_PUBLISH_URL" out
'

test_expect_success 'kbisect target: a token file others may read, no token, a wrong token, no such device type' '
	cp "$LAVA_TOKEN_FILE" tok && chmod 644 tok &&
	sed "s|$LAVA_TOKEN_FILE|$TRASH_DIRECTORY/tok|" lava.json >open.json &&
	test_expect_code 1 "$KBISECT" target open.json 2>err &&
	grep "the token file $TRASH_DIRECTORY/tok may be read by others (mode 644): .chmod 600 $TRASH_DIRECTORY/tok." err &&
	grep -v token_file lava.json >none.json &&
	test_expect_code 1 "$KBISECT" target none.json 2>err &&
	grep "set KBISECT_LAVA_TOKEN, or name a file" err &&
	test_expect_code 1 env KBISECT_LAVA_TOKEN=not-a-token "$KBISECT" target none.json 2>err &&
	grep "answered 403 to system/version/: Invalid token. (is the token right?)" err &&
	sed "s|\"device_type\": \"qemu\"|\"device_type\": \"nosuch\"|" lava.json >nosuch.json &&
	test_expect_code 1 "$KBISECT" target nosuch.json 2>err &&
	grep "no device type .nosuch. on $LAVA_URL" err
'

# The test in the guest: is creating a file slow?  Creating 2000 files
# with the culprit's throttle (200 us each) takes far longer than opening
# them again, which does not create; without it, about as long.
GUEST_TEST='c=$(echo "$KBISECT_COMMIT" | cut -c1-12); case "$(uname -r)" in *-kb$c) ;; *) exit 200 ;; esac; mkdir -p "$KBISECT_SCRATCH/c" && cd "$KBISECT_SCRATCH/c" && t0=$(cut -d " " -f 1 /proc/uptime) && i=0 && while [ $i -lt 2000 ]; do : >f$i; i=$((i + 1)); done && t1=$(cut -d " " -f 1 /proc/uptime) && i=0 && while [ $i -lt 2000 ]; do : >f$i; i=$((i + 1)); done && t2=$(cut -d " " -f 1 /proc/uptime) && awk -v a=$t0 -v b=$t1 -v c=$t2 "BEGIN { printf \"create %.2f s, open %.2f s\\n\", b - a, c - b; exit !(b - a < 3 * (c - b) + 0.1) }"'

# the state of LAVA job $1
job_state () {
	curl -sf "$LAVA_URL/api/v0.2/jobs/$1/" | sed -n 's/.*"state":"\([A-Za-z]*\)".*/\1/p'
}
# the id of the newest job of the lab
newest_job () {
	lava_jobs_json | sed 's/"id":/\n&/g' | sed -n 's/^"id":\([0-9]*\),.*/\1/p' | sort -n | tail -n 1
}
# a job newer than $1 that runs
job_running_after () {
	j=$(newest_job) && test -n "$j" && test "$j" -gt "$1" && test "$(job_state $j)" = Running
}
# the token in a command line of a process: every process, while jobs run
token_in_argv () {
	tok=$(cat "$LAVA_TOKEN_FILE")
	for f in /proc/[0-9]*/cmdline; do
		if { tr "\\0" " " <"$f"; } 2>/dev/null | grep -q -F -e "$tok"; then
			echo "the token is in the command line of ${f%/cmdline}"
			return 0
		fi
	done
	return 1
}

end_session () {
	"$KBISECT" reset --db k.db 2>/dev/null || true
}

test_expect_success 'a bisection in LAVA: a job canceled from outside, the server stopped in a job, resume: the culprit, each time nothing marked' '
	end_session &&
	slow=$(git -C "$DEMO" rev-parse demo-slow) &&
	after=$(git -C "$DEMO" rev-list --reverse demo-slow..demo-bad | head -n 1) &&
	first=$(newest_job) && first=${first:-0} &&
	(cd "$DEMO" && "$KBISECT" start demo-slow~3 $after --db "$TRASH_DIRECTORY/k.db" \
		--no-run --target "$TRASH_DIRECTORY/lava.json" --command "$GUEST_TEST" 2>/dev/null) &&
	{ "$KBISECT" resume --db k.db >rep1 2>err1 & pid=$!; } &&
	test_wait_for "job_running_after $first" 12000 &&
	! token_in_argv &&
	job=$(newest_job) &&
	curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" \
		"$LAVA_URL/api/v0.2/jobs/$job/cancel/" >/dev/null &&
	st=0 && { wait $pid || st=$?; } && test $st = 1 &&
	grep "job $job (.*/scheduler/job/$job) was canceled: nothing is marked" err1 &&
	test "$(sqlite3 k.db "SELECT count(*) FROM marks")" = 0 &&
	"$KBISECT" status --db k.db >st &&
	grep "^LAVA job $job: [0-9a-f]\{12\} boot 1, canceled.*, $LAVA_URL/scheduler/job/$job\$" st &&
	{ "$KBISECT" resume --db k.db >rep2 2>err2 & pid=$!; } &&
	test_wait_for "job_running_after $job" 12000 &&
	job2=$(newest_job) &&
	lava_server_stop &&
	st=0 && { wait $pid || st=$?; } && test $st = 1 &&
	grep "does not answer.*for 20 s, in job $job2 .*nothing is marked" err2 &&
	test "$(sqlite3 k.db "SELECT count(*) FROM marks")" = 0 &&
	lava_server_start &&
	"$KBISECT" resume --db k.db >rep3 2>err3 &&
	"$KBISECT" report --json --db k.db >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $slow &&
	json_list r.json lab_jobs .url | grep "^$LAVA_URL/scheduler/job/[0-9]*\$" &&
	test "$(json_list r.json lab_jobs .state | grep -c complete)" -ge 2 &&
	"$KBISECT" report --db k.db >rep &&
	grep "boot 1: LAVA job $job, canceled" rep
'

# jobs_overlap FIRST: two jobs after job FIRST ran at once on two devices,
# as LAVA's own records of them say
jobs_overlap () {
	lava_jobs_json >jobs.json &&
	python3 - "$1" jobs.json <<-\EOF
	import json, sys
	first = int(sys.argv[1])
	jobs = [j for j in json.load(open(sys.argv[2]))["results"] if j["id"] > first and j["start_time"]]
	for a in jobs:
	    for b in jobs:
	        if a["id"] < b["id"] and a["actual_device"] != b["actual_device"] and \
	           a["start_time"] < (b["end_time"] or "9") and b["start_time"] < (a["end_time"] or "9"):
	            print("jobs %d (%s) and %d (%s) ran at once" % (a["id"], a["actual_device"], b["id"], b["actual_device"]))
	            sys.exit(0)
	sys.exit(1)
	EOF
}

# four commits that all build (demo-broken is older): the first round
# of two machines is two jobs
test_expect_success 'two devices, "parallel": 2: two jobs at once (as LAVA records them), the same culprit' '
	end_session &&
	lava_device kbisect-qemu-2 &&
	slow=$(git -C "$DEMO" rev-parse demo-slow) &&
	after=$(git -C "$DEMO" rev-list --reverse demo-slow..demo-bad | sed -n 3p) &&
	first=$(newest_job) && first=${first:-0} &&
	(cd "$DEMO" && "$KBISECT" start demo-slow~1 $after --db "$TRASH_DIRECTORY/k.db" \
		--target "$TRASH_DIRECTORY/lava2.json" --command "$GUEST_TEST" \
		>"$TRASH_DIRECTORY/rep6" 2>"$TRASH_DIRECTORY/err6") &&
	grep "2 machines" err6 &&
	jobs_overlap $first &&
	"$KBISECT" report --json --db k.db >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $slow
'

test_expect_success 'a kernel that panics in LAVA is skipped, its panic and its job in the report' '
	end_session &&
	test_expect_code 3 "$KBISECT" start demo-bad demo-panic-tip --repo "$DEMO" --db k.db \
		--target lava.json --command true >rep 2>err &&
	panic=$(git -C "$DEMO" rev-parse demo-panic) &&
	{ "$KBISECT" report --json --db k.db >r.json || test $? = 3; } &&
	test "$(json_get r.json verdict)" = inconclusive &&
	test "$(json_get r.json steps[0].commit)" = $panic &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	test "$(json_get r.json steps[0].source)" = boot &&
	json_get r.json steps[0].boot_error | grep "Kernel panic.*demo: this kernel stops before init" &&
	json_get r.json steps[0].boot_error | grep "LAVA job [0-9]*, $LAVA_URL/scheduler/job/"
'

test_expect_success 'a kernel that hangs at boot in LAVA is skipped' '
	end_session &&
	test_expect_code 3 "$KBISECT" start demo-bad demo-hang-tip --repo "$DEMO" --db k.db \
		--target lava.json --command true >rep 2>err &&
	hang=$(git -C "$DEMO" rev-parse demo-hang) &&
	{ "$KBISECT" report --json --db k.db >r.json || test $? = 3; } &&
	test "$(json_get r.json verdict)" = inconclusive &&
	test "$(json_get r.json steps[0].commit)" = $hang &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	json_get r.json steps[0].boot_error | grep "hung at boot\|no shell"
'

test_expect_success 'the token is nowhere: not in the database, the logs, the report' '
	tok=$(cat "$LAVA_TOKEN_FILE") &&
	test -n "$tok" &&
	sqlite3 k.db .dump >dump &&
	grep -F "token_file" dump &&
	! grep -F -e "$tok" dump &&
	! grep -r -F -e "$tok" k.db.d &&
	{ "$KBISECT" report --db k.db >rep || test $? = 3; } &&
	{ "$KBISECT" report --json --db k.db >rep.json || test $? = 3; } &&
	"$KBISECT" log --db k.db >log &&
	! grep -F -e "$tok" rep rep.json log err1 err2 err3 &&
	! grep -r -F -e "$tok" "$LAVA_PUBLISH_DIR"
'

test_done
