#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'flaky failures: --flaky runs each commit as often as its runs need'

# flaky.sh BUG [WARN]: a test of the history's culprit paths.  Where BUG
# is, about half the runs print a BUG line and fail; where WARN is (a
# second, unrelated change), the runs that do not fail the bug's way
# print a WARNING line and fail one time in three.  Which runs fail comes
# from a count of
# the runs so far, kept out of the work tree, one count a machine (the
# machines of a pool run at once: with one count between them, two runs
# read the same number and its sequence is the timing's).
cat >flaky.sh <<'EOF'
count=$TRASH_DIRECTORY/count.$(basename "$(git rev-parse --git-common-dir 2>/dev/null || pwd)").${KBISECT_MACHINE:-0}
n=$(cat "$count" 2>/dev/null || echo 0)
echo $((n + 1)) >"$count"
bit=$(( (n * 1103515245 + 12345) % 2147483648 / 65536 % 2 ))
if test -e "$1" && test $bit = 1; then
	echo "BUG: unable to handle page fault in $1"
	exit 1
fi
if test -n "$2" && test -e "$2" && test $((n % 3)) = 0; then
	echo "WARNING: CPU: 0 PID: 1 at unrelated.c:12 other_thing+0x1/0x2"
	exit 1
fi
exit 0
EOF

test_expect_success 'setup: a history, and a plain bisection of it' '
	gen_repo h1 --seed 3 --commits 60 &&
	C=$(gen_field h1 culprit) && P=$(gen_field h1 culprit_path) &&
	G=$(gen_field h1 good) && B=$(gen_field h1 bad) &&
	echo "$C $P $G $B" >h1.fields &&
	(cd h1 && test_expect_code 0 "$KBISECT" start $G $B --command "test ! -e $P" \
		--seed 1 --db ../plain.db >../plain.out 2>&1) &&
	(cd h1 && "$KBISECT" report --json --db ../plain.db) >plain.json
'

read C P G B <h1.fields 2>/dev/null || true

test_expect_success 'a test that always fails: the same commit as the plain bisection, in at most twice its runs' '
	(cd h1 && test_expect_code 0 "$KBISECT" start $G $B --command "test ! -e $P" \
		--flaky --seed 1 --db ../det.db >../det.out 2>&1) &&
	(cd h1 && "$KBISECT" report --json --db ../det.db) >det.json &&
	test "$(json_get det.json mode)" = flaky &&
	test "$(json_get det.json verdict)" = culprit &&
	test "$(json_get det.json culprits[0].commit)" = "$C" &&
	test "$(json_get plain.json culprits[0].commit)" = "$C" &&
	test "$(json_get det.json culprits[0].checks.fails_itself)" = pass &&
	test "$(json_get det.json culprits[0].checks.parent_clean)" = pass &&
	test "$(json_get det.json culprits[0].checks.revert)" = pass &&
	plain=$(json_get plain.json runs_total) && det=$(json_get det.json runs_total) &&
	say "# a test that always fails: $det runs with --flaky, $plain without" &&
	test "$det" -le $((2 * plain)) &&
	(cd h1 && "$KBISECT" report --db ../det.db) >det.txt &&
	test_grep "^checks: fails itself pass, parent clean pass, revert on BAD pass" det.txt &&
	test_grep "^#regzbot introduced: $(echo $C | cut -c1-12)" det.txt &&
	test_grep -- "--flaky --target local" det.txt
'

test_expect_success 'a test that fails in half the runs: the culprit, and its rate' '
	(cd h1 && test_expect_code 0 "$KBISECT" start $G $B --flaky --seed 1 --db ../half.db \
		--command "sh $TRASH_DIRECTORY/flaky.sh $P" >../half.out 2>&1) &&
	(cd h1 && "$KBISECT" report --json --db ../half.db) >half.json &&
	test "$(json_get half.json verdict)" = culprit &&
	test "$(json_get half.json culprits[0].commit)" = "$C" &&
	rate=$(json_get half.json culprits[0].rate.estimate) &&
	awk -v r="$rate" "BEGIN { exit !(r > 0.2 && r < 0.8) }" &&
	runs=$(json_get half.json runs_total) &&
	say "# half the runs fail: $runs runs" &&
	# some commit was run more than once
	json_list half.json steps .runs >steps &&
	test "$(sort -n steps | tail -n 1)" -gt 1 &&
	(cd h1 && "$KBISECT" report --db ../half.db) >half.txt &&
	test_grep "^fails in [0-9]*% of runs from it on (90% interval" half.txt &&
	test_grep "runs, [0-9]* failed)" half.txt
'

test_expect_success 'the log replays into the same report' '
	(cd h1 && "$KBISECT" log --db ../half.db) >half.log &&
	(cd h1 && "$KBISECT" replay --db ../half-replay.db ../half.log) >/dev/null 2>&1 &&
	(cd h1 && "$KBISECT" report --db ../half-replay.db) >half-replay.txt &&
	test_cmp half.txt half-replay.txt
'

test_expect_success 'a failure of another kind: listed, never counted' '
	gen_repo h2 --seed 5 --commits 60 --culprits random:1:2 &&
	P1=$(sed -n "1s/^culprit [0-9a-f]* \([^ ]*\) .*/\1/p" h2.gen) &&
	C1=$(sed -n "1s/^culprit \([0-9a-f]*\) .*/\1/p" h2.gen) &&
	P2=$(sed -n "2s/^culprit [0-9a-f]* \([^ ]*\) .*/\1/p" h2.gen) &&
	test -n "$P2" &&
	G2=$(gen_field h2 good) && B2=$(gen_field h2 bad) &&
	(cd h2 && test_expect_code 0 "$KBISECT" start $G2 $B2 --flaky --seed 2 \
		--signature "BUG: unable to handle" \
		--command "sh $TRASH_DIRECTORY/flaky.sh $P1 $P2" >../sig.out 2>&1) &&
	(cd h2 && "$KBISECT" report --json) >sig.json &&
	test "$(json_get sig.json verdict)" = culprit &&
	test "$(json_get sig.json culprits[0].commit)" = "$C1" &&
	(cd h2 && "$KBISECT" report) >sig.txt &&
	test_grep "other-failure: [0-9]* runs* failed another way, not counted: WARNING: CPU: 0 PID: 1 at unrelated.c:12" sig.txt &&
	test_grep -- "--signature .BUG: unable to handle." sig.txt
'

test_expect_success 'BAD that never fails: no-regression after 29 runs, exit 3' '
	(cd h1 && test_expect_code 3 "$KBISECT" start $G $B --flaky --seed 1 --db ../none.db \
		--command true >../none.out 2>&1) &&
	(cd h1 && test_expect_code 3 "$KBISECT" report --json --db ../none.db) >none.json &&
	test "$(json_get none.json verdict)" = no-regression &&
	test "$(json_get none.json runs_total)" = 29 &&
	test_grep "did not reproduce on BAD in 29 runs" none.json &&
	(cd h1 && test_expect_code 3 "$KBISECT" start $G $B --flaky --min-rate 0.3 \
		--seed 1 --db ../none3.db --command true >/dev/null 2>&1) &&
	(cd h1 && test_expect_code 3 "$KBISECT" report --json --db ../none3.db) >none3.json &&
	test "$(json_get none3.json runs_total)" = 9
'

test_expect_success 'kill -9 in the middle, resume: no wrong culprit, nothing lost' '
	rm -f count.* &&
	cat >slow.sh <<-EOF &&
	sleep 0.2
	exec sh $TRASH_DIRECTORY/flaky.sh "\$@"
	EOF
	cd h1 &&
	{ "$KBISECT" start $G $B --flaky --seed 1 --db ../kill.db \
		--command "sh $TRASH_DIRECTORY/slow.sh $P" >../kill.out 2>&1 & } &&
	pid=$! &&
	sleep 3 && kill -9 $pid && { wait $pid || true; } &&
	test_expect_code 0 "$KBISECT" resume --db ../kill.db >>../kill.out 2>&1 &&
	"$KBISECT" report --json --db ../kill.db >../kill.json &&
	cd .. &&
	# where the kill lands changes which runs fail: the culprit, or (in a
	# few percent of such histories) no verdict, never another commit
	v=$(json_get kill.json verdict) &&
	if test "$v" = culprit; then
		test "$(json_get kill.json culprits[0].commit)" = "$C"
	else
		test "$v" = inconclusive
	fi &&
	# no run was lost or left: every run started has its outcome
	(cd h1 && "$KBISECT" status --db ../kill.db) >kill.status &&
	! grep "^running" kill.status
'

command -v sqlite3 >/dev/null 2>&1 && test_set_prereq SQLITE3

test_expect_success SQLITE3 'a pool of three: runs at once on every machine, the culprit' '
	rm -f count.* &&
	# which commit each machine runs depends on timing: the culprit, or
	# inconclusive (exit 3) when its checks are not met, never another
	(cd h1 && "$KBISECT" start $G $B --flaky --seed 1 --db ../pool.db \
		--target local --target local --target local \
		--command "sleep 0.2; sh $TRASH_DIRECTORY/flaky.sh $P" >../pool.out 2>&1
	 echo $? >../pool.rc) &&
	(cd h1 && "$KBISECT" report --json --db ../pool.db) >pool.json &&
	v=$(json_get pool.json verdict) &&
	say "# a pool of three: $v, exit $(cat pool.rc)" &&
	if test "$v" = culprit; then
		test "$(json_get pool.json culprits[0].commit)" = "$C" &&
		test "$(cat pool.rc)" = 0
	else
		test "$v" = inconclusive &&
		test "$(cat pool.rc)" = 3
	fi &&
	test "$(sqlite3 pool.db "select count(distinct machine) from runs")" = 3
'

test_expect_success 'bad options are refused with what to do' '
	(cd h1 && test_expect_code 2 "$KBISECT" start $G $B --command true --signature x) 2>err &&
	test_grep "go with --flaky" err &&
	(cd h1 && test_expect_code 2 "$KBISECT" start $G $B --command true --flaky \
		--min-rate 1.5) 2>err &&
	test_grep "min-rate must be above 0 and below 1" err &&
	(cd h1 && test_must_fail "$KBISECT" start $G $B --command true --flaky \
		--signature "a{1\\,9}" --db ../bad.db) 2>err &&
	test_grep "signature" err && ! test -e bad.db &&
	noisy_bench metric.json &&
	(cd h1 && test_must_fail "$KBISECT" start $G $B --bench ../metric.json --flaky \
		--db ../bad.db) 2>err &&
	test_grep "has a metric" err &&
	(cd h1 && test_expect_code 1 "$KBISECT" good HEAD~3 --db ../det.db) 2>err &&
	test_grep "decides from the runs of each commit, not from marks" err &&
	"$KBISECT" start --help >help &&
	test_grep -- "--flaky" help && test_grep -- "--min-rate" help &&
	test_grep -- "--signature" help
'

test_done
