#!/bin/sh
. "$(dirname "$0")/lib.sh"
# run-tests: first
test_description 'kernel builds and boots: config, out-of-tree builds, the cache, libvirt VMs: bisections, kill -9, libvirtd stopped, built-in benchmarks, the rebuild check, noise, KVM, building ahead, no-op culprits'

. "$TEST_DIR/lib-kernel.sh"

the_demo_history

# In a kernel tree a benchmark goes to a machine that boots the commit's
# kernel: the target configured, else the built-in machine vm.
test_expect_success 'the target when none is given, in a kernel tree: configured, else vm; it says which and how to change it' '
	cd "$TRASH_DIRECTORY" && { "$KBISECT" reset --db k.db 2>/dev/null || true; } &&
	test_when_finished "git -C \"$DEMO\" config --unset kbisect.target; rm -rf cfg" &&
	"$KBISECT" start demo-slow~1 demo-slow --repo "$DEMO" --db k.db --bench demo-create \
		--no-run 2>err &&
	grep "^kbisect: target vm (the default in a kernel tree; --target local tests on this machine, git config kbisect.target TARGET sets another)\$" err &&
	"$KBISECT" log --db k.db >l && grep "^start .* --machine .*\"name\":\"vm\"" l &&
	{ "$KBISECT" reset --db k.db 2>/dev/null || true; } &&
	git -C "$DEMO" config kbisect.target vm-small &&
	"$KBISECT" start demo-slow~1 demo-slow --repo "$DEMO" --db k.db --bench demo-create \
		--no-run 2>err &&
	grep "^kbisect: target vm-small (git config kbisect.target; " err &&
	"$KBISECT" log --db k.db >l && grep "^start .* --machine .*\"name\":\"vm-small\"" l &&
	{ "$KBISECT" reset --db k.db 2>/dev/null || true; } &&
	git -C "$DEMO" config --unset kbisect.target &&
	mkdir -p cfg/kbisect && echo "{\"target\": \"local\"}" >cfg/kbisect/config.json &&
	XDG_CONFIG_HOME=$TRASH_DIRECTORY/cfg "$KBISECT" start demo-slow~1 demo-slow --repo "$DEMO" \
		--db k.db --bench demo-create --no-run 2>err &&
	grep "^kbisect: target local (\"target\" in $TRASH_DIRECTORY/cfg/kbisect/config.json; " err &&
	"$KBISECT" log --db k.db >l && grep "^start .* --target local " l &&
	{ "$KBISECT" reset --db k.db 2>/dev/null || true; } &&
	echo "{\"target\": 3}" >cfg/kbisect/config.json &&
	test_expect_code 1 env XDG_CONFIG_HOME=$TRASH_DIRECTORY/cfg "$KBISECT" start demo-slow~1 \
		demo-slow --repo "$DEMO" --db k.db --bench demo-create --no-run 2>err &&
	grep "cfg/kbisect/config.json: \"target\" must be a string" err &&
	# given, it is what is used, and nothing is said
	"$KBISECT" start demo-slow~1 demo-slow --repo "$DEMO" --db k.db --bench demo-create \
		--target "$VM" --no-run 2>err &&
	! grep "^kbisect: target" err &&
	{ "$KBISECT" reset --db k.db 2>/dev/null || true; }
'

# The first build of the run is from scratch: 3.5-6 minutes alone here,
# 20 beside the unit tests of the other lane with nothing in the compiler
# cache; the limit that catches a hang would take it for one.
test_time_limit 3600
test_expect_success 'build a commit: its release names the commit' '
	cd "$DEMO" &&
	sha=$(git rev-parse demo-good) &&
	"$KBISECT" build demo-good --target libvirt --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/b1" &&
	cd "$TRASH_DIRECTORY" &&
	grep "^release .*-kb$(echo $sha | cut -c1-12)\$" b1 &&
	dir=$(sed -n "s/^artifacts //p" b1) &&
	test -s "$dir/bzImage" && test -s "$dir/System.map" && test -s "$dir/build.log" &&
	grep "^CONFIG_LOCALVERSION=\"-kb$(echo $sha | cut -c1-12)\"\$" "$dir/config" &&
	grep "^CONFIG_64BIT=y" "$dir/config" &&
	grep "^CONFIG_9P_FS=y" "$dir/config" &&
	test -z "$(git -C "$DEMO" status --porcelain --untracked-files=no)"
'

test_expect_success 'the next commit builds on the previous build' '
	cd "$DEMO" &&
	next=$(git rev-list --reverse demo-good..demo-bad | head -n 1) &&
	"$KBISECT" build $next --target libvirt --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/b3" &&
	grep "^built $next" "$TRASH_DIRECTORY/b3" &&
	grep "^release .*-kb$(echo $next | cut -c1-12)\$" "$TRASH_DIRECTORY/b3"
'

if command -v distccd >/dev/null && command -v distcc >/dev/null; then
	test_set_prereq DISTCC
fi

test_expect_success DISTCC 'a compiler wrapper: the compiles of a build go through distcc' '
	cd "$DEMO" &&
	# a commit (no ref) on top of what the build tree holds, with one file
	# changed; every compile is done again (CCACHE_RECACHE), not taken
	# from ccache
	base=$(git rev-list --reverse demo-good..demo-bad | head -n 1) &&
	blob=$({ git show $base:init/version.c; echo "/* built through a wrapper */"; } |
		git hash-object -w --stdin) &&
	idx="$TRASH_DIRECTORY/wrap.index" &&
	GIT_INDEX_FILE=$idx git read-tree $base &&
	GIT_INDEX_FILE=$idx git update-index --cacheinfo 100644,$blob,init/version.c &&
	tree=$(GIT_INDEX_FILE=$idx git write-tree) &&
	c=$(echo "init: a build through a compiler wrapper" |
		GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_AUTHOR_DATE=@1700000000 \
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org \
		GIT_COMMITTER_DATE=@1700000000 git commit-tree $tree -p $base) &&
	mkdir -p "$TRASH_DIRECTORY/distcc" && chmod 777 "$TRASH_DIRECTORY/distcc" &&
	port=$((30000 + $$ % 20000)) &&
	distccd --daemon --allow 127.0.0.1 --listen 127.0.0.1 --port $port \
		--pid-file "$TRASH_DIRECTORY/distcc/pid" \
		--log-file "$TRASH_DIRECTORY/distcc/log" --log-level info 9>&- &&
	test_wait_for "test -s \"$TRASH_DIRECTORY/distcc/pid\"" 100 &&
	{
		DISTCC_HOSTS=127.0.0.1:$port DISTCC_FALLBACK=0 CCACHE_RECACHE=1 \
			"$KBISECT" build $c --target libvirt --db "$TRASH_DIRECTORY/k.db" \
			--cc-wrapper distcc --build-jobs 4 >"$TRASH_DIRECTORY/b4"
		rc=$?
		kill "$(cat "$TRASH_DIRECTORY/distcc/pid")"
		test $rc = 0
	} &&
	grep "^built $c" "$TRASH_DIRECTORY/b4" &&
	grep "COMPILE_OK.*version\.c" "$TRASH_DIRECTORY/distcc/log" &&
	test_expect_code 1 "$KBISECT" build $c --db "$TRASH_DIRECTORY/k.db" --cc-wrapper "distcc -j" 2>"$TRASH_DIRECTORY/e4" &&
	grep "no arguments" "$TRASH_DIRECTORY/e4" &&
	test_expect_code 1 "$KBISECT" build $c --db "$TRASH_DIRECTORY/k.db" --cc-wrapper no-such-wrapper 2>"$TRASH_DIRECTORY/e5" &&
	grep "is not installed here" "$TRASH_DIRECTORY/e5"
'

test_expect_success 'the same commit again is a cache hit: no make at all' '
	cd "$DEMO" &&
	touch "$TRASH_DIRECTORY/before" &&
	sleep 1 &&
	"$KBISECT" build demo-good --target libvirt --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/b2" &&
	grep "^cached demo-good" "$TRASH_DIRECTORY/b2" &&
	test -z "$(find "$TRASH_DIRECTORY/k.db.d/kbuild" -newer "$TRASH_DIRECTORY/before" | head -n 1)"
'

test_expect_success 'a commit that does not build: exit 3 and its error' '
	cd "$DEMO" &&
	test_expect_code 3 "$KBISECT" build demo-broken --target libvirt --db "$TRASH_DIRECTORY/k.db" \
		>/dev/null 2>"$TRASH_DIRECTORY/e" &&
	grep "DEMO_LIMIT_UNDEFINED" "$TRASH_DIRECTORY/e"
'

# A full disk: a small file system mounted over the build directory.
if test "$(id -u)" = 0 && mkdir -p tmpfs-probe && mount -t tmpfs -o size=1m tmpfs tmpfs-probe 2>/dev/null
then
	umount tmpfs-probe && test_set_prereq MOUNT
fi

test_expect_success MOUNT 'a full disk while building: an error that says so, nothing marked; with space the build goes on' '
	cd "$TRASH_DIRECTORY" &&
	mount -t tmpfs -o size=12m tmpfs k.db.d/kbuild &&
	test_when_finished "umount -l \"$TRASH_DIRECTORY/k.db.d/kbuild\"" &&
	test_expect_code 1 "$KBISECT" build demo-slow~1 --repo "$DEMO" --target libvirt \
		--db k.db >full.out 2>full.err &&
	grep "the disk is full while building [0-9a-f]\{12\} (see .*): free some space, then .kbisect resume." full.err &&
	! grep "does not build" full.err &&
	umount k.db.d/kbuild &&
	"$KBISECT" build demo-slow~1 --repo "$DEMO" --target libvirt --db k.db >full2.out 2>full2.err &&
	grep "^artifacts " full2.out
'

# make stopped from outside (here its sub-makes, with SIGTERM): no fault of
# the commit, so no build failure is kept for it; the next try builds it
test_expect_success 'a build killed from outside: an error, not kept as the commit'"'"'s failure' '
	cd "$TRASH_DIRECTORY" &&
	c=$(commit_edit demo-slow~1 init/version.c "\$a/* built again after a kill */" \
		"init: a build that is killed") &&
	ls k.db.cache | grep -c "\.failed\$" >failed0 || : &&
	{ CCACHE_RECACHE=1 "$KBISECT" build $c --repo "$DEMO" --target libvirt --db k.db \
		>kill-b.out 2>kill-b.err & pid=$!; } &&
	# the sub-makes of this build directory only: the other lane may build too
	sub="$TRASH_DIRECTORY/k.db.d/src/scripts/Makefile.build obj=" &&
	test_wait_for "pkill -TERM -f \"\$sub\"" 6000 &&
	test_expect_code 1 wait $pid &&
	cat kill-b.err &&
	grep "the build of $(echo $c | cut -c1-12) was killed from outside (see .*): nothing is marked" kill-b.err &&
	! grep "does not build" kill-b.err &&
	ls k.db.cache | grep -c "\.failed\$" >failed1 || : &&
	test_cmp failed0 failed1 &&
	"$KBISECT" build $c --repo "$DEMO" --target libvirt --db k.db >kill-b2.out &&
	grep "^built $c" kill-b2.out
'


# The bisections in VMs take six commits of the demo history: from three
# before demo-broken to the one after demo-slow.
AFTER_SLOW=$(git -C "$DEMO" rev-list --reverse demo-slow..demo-bad 2>/dev/null | head -n 1)

# On a pool of two VMs: two kernels at once.
test_expect_success LIBVIRT 'bisect in a pool of two VMs: kill -9 during a VM run, resume destroys the VMs left behind' '
	cd "$DEMO" &&
	broken=$(git rev-parse demo-broken) &&
	# the broken commit is the middle of the range: the first one tested
	# on one machine (a pool of two splits the range in three)
	"$KBISECT" start demo-broken~3 $AFTER_SLOW --db "$TRASH_DIRECTORY/k.db" --no-run \
		--target "$VM" --target "$VM" --command "$GUEST_TEST" 2>"$TRASH_DIRECTORY/first" &&
	grep "first commit to test: $broken" "$TRASH_DIRECTORY/first" &&
	cd "$TRASH_DIRECTORY" &&
	{ "$KBISECT" resume --db k.db >rep1 2>err1 & pid=$!; } &&
	test_wait_for "grep -q RUN-BEGIN k.db.d/vm/*/data.log 2>/dev/null && grep -q \" booted \" err1" 12000 &&
	kill -9 $pid && { wait $pid || true; } &&
	vms_left err1 >left && test -s left &&
	for vm in $(cat left); do
		test "$(virsh -c qemu:///system domstate $vm)" = running || return 1
	done &&
	"$KBISECT" status --json --db k.db >st.json &&
	test "$(json_get st.json running[0].commit)" != "" &&
	"$KBISECT" resume --db k.db >rep 2>err &&
	for vm in $(cat left); do
		grep "destroying VM $vm" err || return 1
	done &&
	test -z "$(vms_left err1)" &&
	grep -q "^Bisecting: [0-9]* revisions left, 2 machines" err1 err &&
	grep -q "^  \[machine 1\] .*booted 6\.1\.[0-9]*-kb[0-9a-f]\{12\} in" err1 err &&
	grep -q "^  \[machine 0\] .*booted 6\.1\.[0-9]*-kb[0-9a-f]\{12\} in" err1 err
'

test_expect_success LIBVIRT 'the bisection ends at the culprit' '
	cd "$TRASH_DIRECTORY" &&
	slow=$(git -C "$DEMO" rev-parse demo-slow) &&
	"$KBISECT" report --json --db k.db >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $slow &&
	test "$(json_get r.json accel)" = tcg &&
	grep "target .*vm-test.json\|target libvirt" rep &&
	grep "(TCG, no KVM)" rep &&
	test "$(json_get r.json builds_total)" -ge 1
'

test_expect_success LIBVIRT 'every booted kernel said it was its commit' '
	# GUEST_TEST stops the bisection on a wrong kernel; kbisect checks too
	grep -c "booted 6\.1\.[0-9]*-kb[0-9a-f]\{12\} in" err >n &&
	test "$(cat n)" -ge 3 &&
	! grep "booted kernel" err
'

# kill -9 at chosen moments of a bisection in VMs: while a kernel builds,
# while a VM boots, while the test runs in it, each a random bit later than
# the moment is seen.  The cache of finished kernels is emptied first, so
# that each build is a real make (incremental, in the same build tree).
# phase_now: which of those is under way for the session of k.db
phase_now () {
	if test -n "$(ls k.db.d/vm 2>/dev/null)"; then
		if grep -q RUN-BEGIN k.db.d/vm/*/data.log 2>/dev/null; then
			echo run
		else
			echo boot
		fi
	elif pgrep -f "O=$TRASH_DIRECTORY/k.db.d/kbuild" >/dev/null; then
		echo build
	fi
}

test_expect_success LIBVIRT,SQLITE3 'kill -9 while building, booting and running, resume each time: the same culprit, each run once' '
	cd "$TRASH_DIRECTORY" && end_session &&
	rm -rf k.db.cache && : >phases &&
	(cd "$DEMO" && "$KBISECT" start demo-broken~3 $AFTER_SLOW --db "$TRASH_DIRECTORY/k.db" \
		--no-run --target "$VM" --command "$GUEST_TEST" 2>/dev/null) &&
	i=0 && done= &&
	while test $i -lt 6 && test -z "$done"; do
		case $((i % 3)) in 0) want=build ;; 1) want=boot ;; 2) want=run ;; esac
		{ "$KBISECT" resume --db k.db >>kill.out 2>>kill.err & pid=$!; } &&
		while kill -0 $pid 2>/dev/null && test "$(phase_now)" != $want; do
			sleep 0.2
		done &&
		sleep $(awk -v s=$i "BEGIN { srand(s); printf \"%.2f\", rand() }") &&
		if kill -9 $pid 2>/dev/null; then
			echo "$want $(phase_now)" >>phases
			echo "--- killed ($want)" >>kill.err
		else
			done=yes
		fi &&
		{ wait $pid || true; } &&
		test "$(sqlite3 k.db "PRAGMA integrity_check")" = ok &&
		i=$((i + 1))
	done &&
	cat phases &&
	# every phase was hit at least once
	grep "^build" phases && grep "^boot" phases && grep "^run" phases &&
	grep "waiting for another build in the same build directory" kill.err &&
	if test -z "$done"; then "$KBISECT" resume --db k.db >>kill.out 2>>kill.err; fi &&
	report_json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = "$(git -C "$DEMO" rev-parse demo-slow)" &&
	test "$(json_get r.json steps[0].commit)" = "$(git -C "$DEMO" rev-parse demo-broken)" &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	json_get r.json steps[0].build_error | grep DEMO_LIMIT_UNDEFINED &&
	grep "DEMO_LIMIT_UNDEFINED" kill.out &&
	# the runs and marks of this session only (the database keeps the earlier ones)
	sq () { sqlite3 -batch k.db "$1 AND session = (SELECT max(id) FROM sessions) $2"; } &&
	test "$(sq "SELECT count(*) FROM runs WHERE state = '\''started'\''")" = 0 &&
	test -z "$(sq "SELECT sha FROM runs WHERE state = '\''done'\''" "GROUP BY sha HAVING count(*) != 1")" &&
	test -z "$(sq "SELECT sha FROM marks WHERE 1" "GROUP BY sha HAVING count(*) != 1")" &&
	# the marks any path takes (after the skip, the next probe is drawn
	# at random: demo-slow~1 at once, or a commit before it first)
	mark_of () { sq "SELECT mark FROM marks WHERE sha = '\''$(git -C "$DEMO" rev-parse "$1")'\''"; } &&
	test "$(mark_of demo-broken)" = skip &&
	test "$(mark_of demo-slow~1)" = good &&
	test "$(mark_of demo-slow)" = bad &&
	test -z "$(vms_left kill.err)"
'

# ktest's manual bisection: marked by hand, kbisect builds the kernel to
# test next and says where it is.
test_expect_success LIBVIRT 'marked by hand in a kernel tree: the kernel to test next is built, and where it is said' '
	cd "$TRASH_DIRECTORY" && end_session &&
	bad=$(git -C "$DEMO" rev-list --reverse --ancestry-path demo-slow..demo-bad | sed -n 2p) &&
	"$KBISECT" start demo-slow~1 $bad --repo "$DEMO" --db k.db --no-run --target "$VM" \
		>hs 2>he &&
	first=$(sed -n "s/^kbisect: first commit to test: //p" he) && test -n "$first" &&
	grep "^its kernel (6\.[0-9.]*-kb$(echo $first | cut -c1-12), \(built\|from the cache\)): .*/bzImage\$" hs &&
	test -f "$(sed -n "s/^its kernel ([^)]*): //p" hs)" &&
	grep "^its modules: " hs &&
	"$KBISECT" bad --db k.db >m1 &&
	grep "^marked $first bad\$" m1 &&
	next=$(sed -n "s/^next: \([0-9a-f]*\) .*/\1/p" m1) && test -n "$next" &&
	grep "^its kernel (6\.[0-9.]*-kb$(echo $next | cut -c1-12), " m1 &&
	"$KBISECT" status --db k.db >st &&
	grep "^its kernel (6\.[0-9.]*-kb$(echo $next | cut -c1-12), from the cache): " st &&
	"$KBISECT" status --json --db k.db >st.json &&
	! grep "its kernel" st.json &&
	end_session &&
	# the next commit does not build: what to do
	"$KBISECT" start demo-slow~3 demo-slow --repo "$DEMO" --db k.db --no-run --target "$VM" \
		>hs 2>he &&
	"$KBISECT" bad --db k.db >m2 &&
	grep "^next: $(git -C "$DEMO" rev-parse demo-broken) " m2 &&
	grep "^its kernel does not build: skip it (.kbisect skip.)" m2 &&
	grep "error: .DEMO_LIMIT_UNDEFINED. undeclared" m2 &&
	end_session
'

test_expect_success LIBVIRT 'a VM that cannot start: tried again, then an error, nothing marked' '
	end_session &&
	sed "s/\"memory_mib\": [0-9]*/\"memory_mib\": 900000000/" "$VM" >huge.json &&
	test_expect_code 1 "$KBISECT" start demo-slow~2 demo-slow --repo "$DEMO" --db k.db \
		--target "$TRASH_DIRECTORY/huge.json" --command true >rep 2>err &&
	grep "did not start" err &&
	grep "kbisect start: cannot start the VM kbisect-.*-$(git -C "$DEMO" rev-parse --short=12 demo-slow~1)-b1" err &&
	"$KBISECT" status --json --db k.db >st.json &&
	test "$(json_get st.json tested)" = 0 &&
	no_vm_of demo-slow~1
'

# libvirtd itself stops in the middle of a run, and comes back later.  It is
# restarted the way the tests' machines start it (libvirtd -d), so not where
# a service manager looks after it.
if test_have_prereq LIBVIRT && test "$(id -u)" = 0 && pgrep -x libvirtd >/dev/null &&
   ! test -d /run/systemd/system; then
	test_set_prereq RESTART_LIBVIRTD
fi
libvirtd_up () {
	# one that was told to stop may take a while to go
	test_wait_for "! pgrep -x libvirtd >/dev/null || virsh -c qemu:///system version \
		>/dev/null 2>&1" 1200 &&
	# not holding the lock of this script, nor its output
	{ pgrep -x libvirtd >/dev/null || libvirtd -d </dev/null >/dev/null 2>&1 9>&-; } &&
	test_wait_for "virsh -c qemu:///system version >/dev/null 2>&1" 1200
}

test_expect_success RESTART_LIBVIRTD 'libvirtd stops in the middle of a run: an error, nothing marked; resume goes on once it is back' '
	end_session &&
	test_when_finished "libvirtd_up" &&
	"$KBISECT" start demo-slow~2 demo-slow --repo "$DEMO" --db k.db --no-run \
		--target "$VM" --command "sleep 15" 2>/dev/null &&
	{ "$KBISECT" resume --db k.db >rep1 2>err1 & pid=$!; } &&
	test_wait_for "grep -q RUN-BEGIN k.db.d/vm/*/data.log 2>/dev/null && grep -q \" booted \" err1" 12000 &&
	pkill -TERM -x libvirtd &&
	test_expect_code 1 wait $pid &&
	grep "lost the connection to libvirt at qemu:///system during the boot of" err1 &&
	grep "nothing is marked; once libvirtd runs again, \"kbisect resume\" goes on" err1 &&
	# while it is away: what to do
	test_expect_code 1 "$KBISECT" resume --db k.db >rep2 2>err2 &&
	grep "cannot connect to libvirt at qemu:///system: .*is libvirtd running" err2 &&
	"$KBISECT" status --json --db k.db >st.json &&
	test "$(json_get st.json tested)" = 0 &&
	libvirtd_up &&
	"$KBISECT" resume --db k.db >rep 2>err &&
	report_json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = "$(git -C "$DEMO" rev-parse demo-slow)" &&
	test "$(json_get r.json steps[0].decision)" = good &&
	# the run that libvirtd left was cut short, and ran again
	grep "run [0-9]* at [0-9a-f]* was cut short" err &&
	test -z "$(vms_left err1)"
'

# Built-in benchmarks, made small, in the guest: two boots of two commits,
# and a number from every run.  Two of them (file creation with fio, and
# untar, whose file the KVM test below takes too), to keep the whole test
# run under its time limit; fio-randwrite-fsync and creat-clo are left out
# here (about 90 s and 55 s when they ran).
for b in emptyfiles500k untar
do
	test_expect_success LIBVIRT "built-in benchmark $b runs in the guest" '
		sed -e "/\"runs_per_boot\"/d" -e "0,/{/s//{ \"runs_per_boot\": 2,/" \
			"$TEST_DIR/../configs/benchmarks/$b.json" >$b.json &&
		"$KBISECT" compare demo-slow~1 demo-slow --repo "$DEMO" --db k.db -n 2 \
			--target "$VM" --bench "$TRASH_DIRECTORY/$b.json" --scale 0.01 --json \
			>$b.out 2>$b.err || test $? = 3 &&
		test "$(json_get $b.out runs_total)" = 8 &&
		test "$(json_get $b.out accel)" = tcg &&
		test "$(json_get $b.out bench)" = $b
	'
done

# The rebuild check: a performance bisection of demo-slow and the commit
# after it (GOOD demo-slow's parent) in VMs makes the culprit and its
# parent again as variants built with 64-byte function alignment, builds
# them (the option in their configs, not in the others') and measures them
# in pairs: the delay in the create path is no layout effect, so the step
# stays.  A range this short cannot tell the builds' offsets by its
# commits, so BAD is built so too (GOOD's variant is the parent's), and
# the step stands in GOOD and BAD aligned before the culprit is named.
# The report gives both and their cost, and the log the variants.
# its aligned builds are from scratch: 20 minutes beside the other lane
test_time_limit 3600
test_expect_success LIBVIRT,LONG,SQLITE3 'the rebuild check: culprit and parent built with 64-byte function alignment, in pairs; the step stays, in GOOD and BAD so built too' '
	cd "$TRASH_DIRECTORY" && end_session &&
	slow=$(git -C "$DEMO" rev-parse demo-slow) &&
	bad=$(git -C "$DEMO" rev-list --ancestry-path demo-slow..demo-bad | tail -n 1) &&
	test "$(git -C "$DEMO" rev-parse $bad^)" = $slow &&
	{ (cd "$DEMO" && "$KBISECT" start demo-slow~1 $bad --db "$TRASH_DIRECTORY/k.db" \
		--target "$VM" --bench demo-create >"$TRASH_DIRECTORY/al.out" \
		2>"$TRASH_DIRECTORY/al.err") || test $? = 3; } &&
	report_json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $slow &&
	test "$(json_get r.json culprits[0].checks.rebuild)" = pass &&
	test "$(json_get r.json culprits[0].aligned.pairs)" -ge 2 &&
	test "$(json_get r.json culprits[0].rebuild.boots)" -ge 4 &&
	pv=$(json_get r.json culprits[0].rebuild.commits[0]) &&
	cv=$(json_get r.json culprits[0].rebuild.commits[1]) &&
	# the variants: the trees of the two, each on top of its commit
	test "$(git -C "$DEMO" rev-parse $cv^)" = $slow &&
	test "$(git -C "$DEMO" rev-parse $pv^)" = "$(git -C "$DEMO" rev-parse demo-slow~1)" &&
	test "$(git -C "$DEMO" rev-parse $cv^{tree})" = "$(git -C "$DEMO" rev-parse demo-slow^{tree})" &&
	test "$(git -C "$DEMO" rev-parse $pv^{tree})" = "$(git -C "$DEMO" rev-parse demo-slow~1^{tree})" &&
	# their kernels have the option, the commits their own do not
	for v in $pv $cv; do
		"$KBISECT" build $v --repo "$DEMO" --db k.db --target "$VM" >bv &&
		grep "^cached" bv &&
		grep -x "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y" "$(sed -n "s/^artifacts //p" bv)/config" ||
		return 1
	done &&
	"$KBISECT" build $slow --repo "$DEMO" --db k.db --target "$VM" >bs &&
	grep "^cached" bs &&
	! grep "^CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y" "$(sed -n "s/^artifacts //p" bs)/config" &&
	"$KBISECT" report --db k.db >r.txt &&
	grep "^checks: parent vs culprit pass, revert on BAD pass, rebuild pass," r.txt &&
	grep "^rebuild with CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y: +[0-9.]*% (90% interval +[0-9.]*% \.\. +[0-9.]*%), from [0-9]* pairs; it cost 2 builds ([0-9]* s), [0-9]* boots*, [0-9]* runs*\$" r.txt &&
	"$KBISECT" log --db k.db >al.log &&
	grep -x "aligned $slow $pv $cv" al.log &&
	# BAD aligned, on top of BAD, measured in pairs beside GOOD'"'"'s (the
	# parent'"'"'s): the step stands in them too
	bv=$(sed -n "s/^aligned-ends $(git -C "$DEMO" rev-parse demo-slow~1) $bad $pv \([0-9a-f]*\)\$/\1/p" al.log) &&
	test -n "$bv" &&
	test "$(git -C "$DEMO" rev-parse $bv^)" = $bad &&
	test "$(git -C "$DEMO" rev-parse $bv^{tree})" = "$(git -C "$DEMO" rev-parse $bad^{tree})" &&
	grep "verify: BAD built with 64-byte function alignment, beside GOOD" al.err &&
	test "$(sqlite3 -batch k.db "SELECT count(DISTINCT boot) FROM runs WHERE sha = '"'"'$bv'"'"' AND state = '"'"'done'"'"'")" -ge 2 &&
	test "$(json_get r.json culprits[0].aligned_ends.pairs)" -ge 2 &&
	grep "^GOOD and BAD with CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y: [-+][0-9.]*% (90% interval [-+][0-9.]*% \.\. [-+][0-9.]*%), from [0-9]* pairs\$" r.txt &&
	# replay makes the variants again, and they must come out the same
	rm -f al2.db && "$KBISECT" replay al.log --repo "$DEMO" --db al2.db &&
	"$KBISECT" report --json --db al2.db >r2.json &&
	test "$(json_get r2.json culprits[0].checks.rebuild)" = pass &&
	test "$(json_get r2.json culprits[0].rebuild.commits[1])" = $cv &&
	sed "s/^aligned $slow $pv .*/aligned $slow $pv $pv/" al.log >al-bad.log &&
	rm -f al3.db && test_must_fail "$KBISECT" replay al-bad.log --repo "$DEMO" --db al3.db 2>al3.err &&
	grep "the aligned builds do not come out as recorded" al3.err &&
	test -z "$(vms_left al.err)"
'

# A merge culprit: GOOD demo-slow's parent, two commits on it that change
# nothing (their kernels are GOOD's), and BAD their merge with the tree of
# demo-slow: the delay comes in with the merge itself.  git names a merge
# only when every parent is good: its step stays against its first
# parent built aligned, and against its other parent built aligned too,
# in pairs.  Its database, and so its cache of builds, is its own: the
# aligned builds are from scratch, about 40 minutes here with the boots.
test_time_limit 3600
test_expect_success LIBVIRT,LONG,SQLITE3 'a merge culprit: its step stays against each of its parents built with 64-byte function alignment' '
	cd "$TRASH_DIRECTORY" && end_session &&
	g=$(git -C "$DEMO" rev-parse demo-slow~1) &&
	one=$(git -C "$DEMO" commit-tree -p $g -m "one side, no change" $g^{tree}) &&
	two=$(git -C "$DEMO" commit-tree -p $g -m "the other side, no change" $g^{tree}) &&
	m=$(git -C "$DEMO" commit-tree -p $one -p $two -m "merge, with the delay" demo-slow^{tree}) &&
	{ (cd "$DEMO" && "$KBISECT" start $g $m --db "$TRASH_DIRECTORY/mg.db" \
		--target "$VM" --bench demo-create >"$TRASH_DIRECTORY/mg.out" \
		2>"$TRASH_DIRECTORY/mg.err") || test $? = 3; } &&
	"$KBISECT" report --json --db mg.db >mg.json &&
	test "$(json_get mg.json verdict)" = culprit &&
	test "$(json_get mg.json culprits[0].commit)" = $m &&
	test "$(json_get mg.json culprits[0].checks.rebuild)" = pass &&
	test "$(json_get mg.json culprits[0].aligned_others[0].parent)" = $two &&
	test "$(json_get mg.json culprits[0].aligned_others[0].pairs)" -ge 2 &&
	# the other parent'"'"'s variant: its tree, on top of it
	tv=$(json_get mg.json culprits[0].rebuild.commits[2]) &&
	test "$(git -C "$DEMO" rev-parse $tv^)" = $two &&
	test "$(git -C "$DEMO" rev-parse $tv^{tree})" = "$(git -C "$DEMO" rev-parse $g^{tree})" &&
	grep "is a merge: its parent $(echo $two | cut -c1-12) too, $(echo $tv | cut -c1-12)" mg.err &&
	grep "verify: the merge.s other parent built with 64-byte function alignment" mg.err &&
	test "$(sqlite3 -batch mg.db "SELECT count(DISTINCT boot) FROM runs WHERE sha = '"'"'$tv'"'"' AND state = '"'"'done'"'"'")" -ge 2 &&
	"$KBISECT" report --db mg.db >mg.txt &&
	grep "^rebuild against its parent $(echo $two | cut -c1-12): +[0-9.]*% (90% interval +[0-9.]*% \.\. +[0-9.]*%), from [0-9]* pairs\$" mg.txt &&
	grep "; it cost 3 builds (" mg.txt &&
	! grep "^  merge: " mg.txt &&
	test -z "$(vms_left mg.err)"
'

# A primary metric that is noise alone (a random number in each run's
# output), a secondary one that demo-slow moves: no "no regression" on
# the noise, but the size it could not see and the metric that moved.
# (The bisection on that metric with --metric is t0105's, on this machine:
# it is the same in a VM.)
test_expect_success LIBVIRT,LONG 'too noisy to tell: inconclusive, the size it could see, the secondary metric that moved' '
	cd "$TRASH_DIRECTORY" && end_session &&
	nb="$TEST_DIR/fixtures/noisy-create.json" &&
	{ (cd "$DEMO" && "$KBISECT" start demo-slow~1 demo-slow --db "$TRASH_DIRECTORY/k.db" \
		--target "$VM" --bench "$nb" --scale 0.1 --rebuild-check off \
		>"$TRASH_DIRECTORY/nz.out" 2>"$TRASH_DIRECTORY/nz.err") || test $? = 3; } &&
	report_json &&
	test "$(json_get r.json verdict)" = inconclusive &&
	test "$(json_get r.json calibration.too_noisy)" = true &&
	{ "$KBISECT" report --db k.db >nz.txt || test $? = 3; } &&
	cat nz.txt &&
	grep "^Inconclusive: too noisy to tell: changes under [0-9.e+]*% cannot be seen with this benchmark here (GOOD -> BAD [-+][0-9.]*%, 90% interval [-+][0-9.]*% \.\. [-+][0-9.]*%)\. No commit is blamed\.\$" nz.txt &&
	grep "^  too-noisy: noise is too noisy for a change of 5%: " nz.txt &&
	grep "^  secondary-moved: create_clat_mean (+[0-9.]*%, p = [0-9.e-]*) moved from GOOD to BAD, but noise did not: .*bisect again with --metric create_clat_mean\$" nz.txt &&
	grep "^  noise:     [0-9.]*% run to run, [0-9.]*% boot to boot\$" nz.txt &&
	grep "^  kbisect start $(git -C "$DEMO" rev-parse --short=12 demo-slow~1) $(git -C "$DEMO" rev-parse --short=12 demo-slow) --bench .*/fixtures/noisy-create.json --target .*/fixtures/vm-test.json --scale 0.1 --rebuild-check off --seed [0-9]*  # GOOD .demo-slow~1., BAD demo-slow\$" nz.txt &&
	! grep "^#regzbot" nz.txt &&
	test -z "$(vms_left nz.err)" &&
	end_session
'

# A performance bisection in VMs while the machine is made slower for a
# stretch of time: a CPU hog on the host (every processor busy), started
# during calibration and stopped 90 s later.  The culprit named
# must be demo-slow, or none; never another commit.  The secondary metrics
# of the benchmark are in the report.
hog_start () {
	: >hog.pids
	for i in $(seq "$(nproc)"); do
		sh -c "while :; do :; done" &
		echo $! >>hog.pids
	done
}
hog_stop () {
	test -f hog.pids && kill $(cat hog.pids) 2>/dev/null
	rm -f hog.pids
	return 0
}

test_expect_success LIBVIRT,LONG 'a machine slower for a stretch of the bisection: demo-slow or no culprit, never another' '
	cd "$TRASH_DIRECTORY" && end_session &&
	slow=$(git -C "$DEMO" rev-parse demo-slow) &&
	bad=$(git -C "$DEMO" rev-list --reverse --ancestry-path demo-slow..demo-bad | sed -n 2p) &&
	test -n "$bad" &&
	{ (cd "$DEMO" && "$KBISECT" start demo-slow~1 $bad --db "$TRASH_DIRECTORY/k.db" \
		--target "$VM" --bench demo-create --rebuild-check off \
		>"$TRASH_DIRECTORY/hog.out" 2>"$TRASH_DIRECTORY/hog.err") & pid=$!; } &&
	test_wait_for "grep -q \"calibrate: BAD, boot 2\" hog.err" 12000 &&
	hog_start && sleep 90 && hog_stop &&
	{ wait $pid || test $? = 3; } &&
	report_json &&
	verdict=$(json_get r.json verdict) &&
	echo "verdict $verdict" &&
	if test "$verdict" = culprit || test "$verdict" = multiple; then
		test "$(json_get r.json culprits[0].commit)" = $slow
	fi &&
	test "$(json_get r.json metrics[0].name)" != "" &&
	test "$(json_get r.json metrics[0].rows[0].n)" -gt 0 &&
	"$KBISECT" report --db k.db >r.txt || test $? = 3 &&
	grep "^Secondary metrics" r.txt &&
	grep "boot to boot" r.txt &&
	test -z "$(vms_left hog.err)"
'
hog_stop

# Where libvirt offers KVM (a /dev/kvm its QEMU can use) the first boot
# tries it; where it does not, there is nothing to try.  Either way the
# answer is kept for the host.
test_expect_success LIBVIRT 'KVM is tried once per host where libvirt offers it, and the answer kept' '
	end_session &&
	rm -rf .cache &&
	env -u KBISECT_ACCEL "$KBISECT" compare demo-slow~1 demo-slow --repo "$DEMO" \
		--db k.db -n 2 --target "$VM" --bench "$TRASH_DIRECTORY/untar.json" \
		--scale 0.02 --json >probe.out 2>probe.err || test $? = 3 &&
	accel=$(sed -n "s|^qemu:///system \([a-z]*\) [0-9]*\$|\1|p" .cache/kbisect/accel) &&
	{ test "$accel" = kvm || test "$accel" = tcg; } &&
	test "$(json_get probe.out accel)" = "$accel" &&
	if virsh -c qemu:///system domcapabilities --virttype kvm --arch x86_64 >/dev/null 2>&1
	then
		test "$(grep -c "trying KVM on this host" probe.err)" = 1
	else
		test "$accel" = tcg && ! grep "trying KVM" probe.err
	fi &&
	grep "booted .* (KVM)\|booted .* (TCG)" probe.err >boots &&
	test "$(grep -c "($(echo $accel | tr a-z A-Z))\$" boots)" = 4
'

# a /dev/kvm that only root may open, as where no udev set it up: the
# QEMU of libvirt cannot use it, and libvirt probes QEMU before every start
test "$(id -u)" = 0 && test -c /dev/kvm && test_set_prereq KVMNODE

test_expect_success LIBVIRT,KVMNODE 'a /dev/kvm only root may open: kbisect target says what to do' '
	mode=$(stat -c %a /dev/kvm) &&
	test_when_finished "chmod $mode /dev/kvm" &&
	chmod 600 /dev/kvm &&
	"$KBISECT" target libvirt >kvm600.out &&
	grep "^warning: /dev/kvm has mode 600: libvirt.s QEMU cannot open it" kvm600.out &&
	grep "chgrp kvm /dev/kvm && chmod 660 /dev/kvm" kvm600.out &&
	chmod 660 /dev/kvm &&
	"$KBISECT" target libvirt >kvm660.out &&
	grep "^target libvirt: ok" kvm660.out &&
	! grep "/dev/kvm" kvm660.out
'

# A commit that changes a comment only (a word of it, no line moves) builds
# the kernel of its parent, apart from its version strings.  A benchmark
# that keys on the commit (5% slower at that commit and the next) makes it
# the likeliest culprit all the same; the no-op check says it cannot be.
# The commit after it changes a message: a kernel of its own.
test_expect_success LIBVIRT 'a culprit that changes a comment: its kernel is its parent'"'"'s, inconclusive, a no-op warning, no commit for regzbot' '
	end_session &&
	base=$(git -C "$DEMO" rev-parse demo-bad) &&
	c=$(commit_edit $base init/main.c "s/^ \* Debug helper: via this flag/ * A debug helper: with this flag/" \
		"init: reword a comment") &&
	d=$(commit_edit $c init/main.c "s/No working init found\./No working init was found./" \
		"init: reword a panic message") &&
	test "$(git -C "$DEMO" diff $base $c | grep -c "^[-+] ")" = 2 &&
	printf "%s\n%s\n" $c $d >slow-commits &&
	keyed_bench keyed 0.05 slow-commits &&
	KBISECT_COMMIT=$c KBISECT_BOOT=1 KBISECT_RUN=1 \
		sh "$TRASH_DIRECTORY/keyed.sh" 0.05 slow-commits >t1 &&
	KBISECT_COMMIT=$base KBISECT_BOOT=1 KBISECT_RUN=1 \
		sh "$TRASH_DIRECTORY/keyed.sh" 0.05 slow-commits >t0 &&
	grep "^t: 10[3-7]\.[0-9]*\$" t1 && grep "^t: \(9[7-9]\|10[0-2]\)\.[0-9]*\$" t0 &&
	test_expect_code 3 "$KBISECT" start $base $d --repo "$DEMO" --db k.db --target "$VM" \
		--bench "$TRASH_DIRECTORY/keyed.json" --seed 3 --rebuild-check off \
		>noop.out 2>noop.err &&
	grep "^rebuild: n/a, turned off (--rebuild-check off)\$" noop.out &&
	report_json &&
	test "$(json_get r.json verdict)" = inconclusive &&
	test "$(json_get r.json culprits[0].commit)" = $c &&
	test "$(json_get r.json culprits[0].checks.no_op)" = warning &&
	json_flat r.json >flat.txt &&
	grep "^warnings\[[0-9]*\]\.kind	no-op\$" flat.txt &&
	grep "^  no-op: $(echo $c | cut -c1-12): the culprit.s kernel is identical to its parent.s apart from version strings: the change cannot have moved the benchmark\$" noop.out &&
	grep "^checks: .*no-op warning" noop.out &&
	grep "^#regzbot introduced: [0-9a-f]\{12\}\.\.[0-9a-f]\{12\}\$" noop.out &&
	! grep "^#regzbot introduced: $(echo $c | cut -c1-12)" noop.out &&
	# the kernels: the comment changes nothing of what is built, the
	# message does
	"$KBISECT" build $base --repo "$DEMO" --db k.db --target "$VM" >s0 &&
	"$KBISECT" build $c --repo "$DEMO" --db k.db --target "$VM" >s1 &&
	"$KBISECT" build $d --repo "$DEMO" --db k.db --target "$VM" >s2 &&
	grep "^cached" s0 && grep "^cached" s1 && grep "^cached" s2 &&
	sig0=$(sed -n "s/^signature //p" s0) && sig2=$(sed -n "s/^signature //p" s2) &&
	test -n "$sig0" && test -n "$sig2" && test "$sig0" != "$sig2" &&
	test "$(sed -n "s/^signature //p" s1)" = "$sig0" &&
	test "$(cat "$(sed -n "s/^artifacts //p" s1)/signature")" = "$sig0" &&
	no_vm_of $c && end_session
'

# GOOD and BAD built with the code aligned: two commits on demo-bad that
# change messages (kernels of their own), and a benchmark keyed on the
# commit it runs on, 3% slower at BAD alone: every other build, the
# revert and the aligned variants among them, measures as GOOD does.
# The search ends at BAD, whose step vanishes in its aligned builds: no
# culprit is confirmed, and GOOD -> BAD, below --min-effect but more
# than calibration alone can put within two builds' code layout, asks
# for GOOD and BAD built aligned.  They are made (BAD's is the variant
# the rebuild check made), built with the option, measured in pairs and
# logged; replay makes them again, and fails where they differ.
test_time_limit 3600
test_expect_success LIBVIRT,LONG 'no culprit confirmed, a change below --min-effect: GOOD and BAD built with 64-byte function alignment, in pairs, logged and replayed' '
	cd "$TRASH_DIRECTORY" && end_session &&
	base=$(git -C "$DEMO" rev-parse demo-bad) &&
	c=$(commit_edit $base init/main.c "s/No working init found\./No working init was found./" \
		"init: reword a panic message") &&
	d=$(commit_edit $c init/main.c "s/Try passing init= option/Try passing an init= option/" \
		"init: reword the hint") &&
	echo $d >ends-slow &&
	keyed_bench ends 0.03 ends-slow &&
	{ "$KBISECT" start $base $d --repo "$DEMO" --db k.db --target "$VM" \
		--bench "$TRASH_DIRECTORY/ends.json" --seed 3 >ends.out 2>ends.err || test $? = 3; } &&
	report_json &&
	# no culprit; where no regression, its reason gives their step
	v=$(json_get r.json verdict) &&
	{ test $v = inconclusive ||
	  { test $v = no-regression && grep "built with the code aligned [-+][0-9.]*% in [0-9]* pairs" ends.out; }; } &&
	"$KBISECT" log --db k.db >ends.log &&
	cv=$(sed -n "s/^aligned $d [0-9a-f]* \([0-9a-f]*\)\$/\1/p" ends.log) &&
	test -n "$cv" &&
	gv=$(sed -n "s/^aligned-ends $base $d \([0-9a-f]*\) $cv\$/\1/p" ends.log) &&
	test -n "$gv" &&
	test "$(git -C "$DEMO" rev-parse $gv^)" = $base &&
	test "$(git -C "$DEMO" rev-parse $gv^{tree})" = "$(git -C "$DEMO" rev-parse $base^{tree})" &&
	"$KBISECT" build $gv --repo "$DEMO" --db k.db --target "$VM" >bg &&
	grep "^cached" bg &&
	grep -x "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y" "$(sed -n "s/^artifacts //p" bg)/config" &&
	# measured in pairs, each on boots of its own
	grep "verify: GOOD built with 64-byte function alignment, pair 2" ends.err &&
	grep "verify: BAD built with 64-byte function alignment, beside GOOD" ends.err &&
	test "$(sqlite3 -batch k.db "SELECT count(DISTINCT boot) FROM runs WHERE sha = '\''$gv'\'' AND state = '\''done'\''")" -ge 2 &&
	# replay makes them again, and they must come out the same
	rm -f e2.db && "$KBISECT" replay ends.log --repo "$DEMO" --db e2.db &&
	"$KBISECT" log --db e2.db | grep -x "aligned-ends $base $d $gv $cv" &&
	sed "s/^aligned-ends $base $d $gv /aligned-ends $base $d $cv /" ends.log >ends-bad.log &&
	rm -f e3.db && test_must_fail "$KBISECT" replay ends-bad.log --repo "$DEMO" --db e3.db 2>e3.err &&
	grep "GOOD and BAD aligned do not come out as recorded" e3.err &&
	test -z "$(vms_left ends.err)"
'

test_done
