#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'manual marks, status, log and replay, reset, tests that stop the bisection'

gen_repo repo --seed 9 --commits 80 --merge-rate 0.2
C=$(gen_field repo culprit)
P=$(gen_field repo culprit_path)
G=$(gen_field repo good)
B=$(gen_field repo bad)

# is_bad SHA: what the test says of SHA, by hand (no checkout)
is_bad () {
	(cd "$TRASH_DIRECTORY/repo" && git cat-file -e "$1:$P" 2>/dev/null)
}

test_expect_success 'setup' '
	test -n "$C" && test -n "$P" && test -n "$G" && test -n "$B"
'

test_expect_success 'start --no-run records the session and tests nothing' '
	cd repo &&
	"$KBISECT" start $G $B --command "test ! -e $P" --no-run >out 2>err &&
	test ! -s out &&
	first=$(sed -n "s/^kbisect: first commit to test: \([0-9a-f]\{40\}\)$/\1/p" err) &&
	test -n "$first" &&
	"$KBISECT" status --json >st &&
	test "$(json_get st state)" = active &&
	test "$(json_get st next.commit)" = $first &&
	test "$(json_get st candidates)" = $(git rev-list $B --not $G | wc -l) &&
	test "$(json_get st range)" = "$(json_get st candidates)" &&
	test "$(json_get st tested)" = 0 &&
	test "$(json_get st running)" = "[]" &&
	test "$(json_get st bad.sha)" = $B &&
	test "$(json_get st good[0].sha)" = $G &&
	test ! -e .git/kbisect.db.d
'

test_expect_success 'status text names the next commit' '
	cd repo &&
	"$KBISECT" status --json >st &&
	next=$(json_get st next.commit) &&
	"$KBISECT" status >st.txt &&
	grep "^session 1: active$" st.txt &&
	grep "^next: $next " st.txt
'

# (no "&&" after the loop: set -e would be off inside it)
test_expect_success 'good/bad by hand, with and without REV, to the answer' '
	cd repo
	goods=$G bad=$B i=0 prev=999999
	while :; do
		i=$((i + 1))
		test $i -le 20
		"$KBISECT" status --json >st
		next=$(json_get st next.commit)
		cand=$(json_get st candidates)
		want=$(git rev-list $bad --not $goods | wc -l)
		test "$cand" = "$want" || { echo "status says $cand candidates, git $want"; exit 1; }
		test "$cand" -lt "$prev" || { echo "candidates did not shrink: $prev -> $cand"; exit 1; }
		prev=$cand
		if is_bad $next; then mark=bad; else mark=good; fi
		# odd steps name the commit (abbreviated), even ones let kbisect take the next
		if test $((i % 2)) = 1; then
			"$KBISECT" $mark $(echo $next | cut -c1-10) >out 2>err
		else
			"$KBISECT" $mark >out 2>err
		fi
		grep "^marked $next $mark$" out
		if test $mark = bad; then bad=$next; else goods="$goods $next"; fi
		if grep "has its answer" out; then
			break
		fi
		n=$(sed -n "s/^next: \([0-9a-f]\{40\}\) .*/\1/p" out)
		"$KBISECT" status --json >st2
		test "$(json_get st2 next.commit)" = "$n"
	done
	echo "$i manual steps"
	"$KBISECT" status --json >st
	test "$(json_get st next)" = null
	test "$(json_get st verdict)" = culprit
	test "$(json_get st culprit)" = $C
	test_expect_code 0 "$KBISECT" report --json >report
	test "$(json_get report verdict)" = culprit
	test "$(json_get report culprits[0].commit)" = $C
	test "$(json_get report runs_total)" = 0
	test "$(json_get report steps[0].source)" = manual
	test "$(json_list report steps .commit | wc -l)" = $i
	git status --porcelain --untracked-files=no >gs
	test ! -s gs
'

test_expect_success 'a mark without REV when nothing is left to test is an error' '
	cd repo &&
	test_expect_code 1 "$KBISECT" good >out 2>err &&
	test_line_count = 1 err &&
	grep "^kbisect good: nothing left to test" err
'

test_expect_success 'log, then replay into a fresh --db: the same verdict and culprit' '
	cd repo &&
	"$KBISECT" log >../manual.log &&
	grep "^start --good $G --bad $B " ../manual.log &&
	grep "^bench " ../manual.log &&
	"$KBISECT" replay ../manual.log --db ../fresh.db 2>err &&
	grep "replayed" err &&
	test_expect_code 0 "$KBISECT" report --json --db ../fresh.db >../fresh.report &&
	test "$(json_get ../fresh.report verdict)" = "$(json_get report verdict)" &&
	test "$(json_get ../fresh.report culprits[0].commit)" = $C &&
	json_list report steps .commit >steps.a &&
	json_list ../fresh.report steps .commit >steps.b &&
	test_cmp steps.a steps.b &&
	json_list report steps .decision >steps.a &&
	json_list ../fresh.report steps .decision >steps.b &&
	test_cmp steps.a steps.b &&
	"$KBISECT" log --db ../fresh.db >../fresh.log &&
	test_cmp ../manual.log ../fresh.log
'

test_expect_success 'replay from stdin, and into a database with a session in progress' '
	cd repo &&
	"$KBISECT" replay - --db ../stdin.db <../manual.log 2>err &&
	"$KBISECT" report --json --db ../stdin.db >r &&
	test "$(json_get r culprits[0].commit)" = $C &&
	test_expect_code 1 "$KBISECT" replay ../manual.log --db ../stdin.db 2>err &&
	grep "already in progress" err
'

test_expect_success 'resume after the manual answer completes the session' '
	cd repo &&
	test_expect_code 0 "$KBISECT" resume >out 2>err &&
	grep "^#regzbot introduced: $(echo $C | cut -c1-12)$" out &&
	"$KBISECT" status --json >st &&
	test "$(json_get st state)" = done &&
	test -d .git/kbisect.db.d
'

test_expect_success 'reset ends the session and removes <db>.d' '
	cd repo &&
	"$KBISECT" reset >out 2>err &&
	grep "session 1 ended" err &&
	test ! -e .git/kbisect.db.d &&
	test -f .git/kbisect.db &&
	"$KBISECT" status --json >st &&
	test "$(json_get st state)" = ended &&
	test_expect_code 1 "$KBISECT" resume 2>err &&
	grep "no kbisect session in progress" err &&
	test_expect_code 0 "$KBISECT" reset 2>err &&
	grep "no session in progress: nothing to reset" err &&
	test_expect_code 1 "$KBISECT" good 2>err &&
	grep "no kbisect session in progress" err
'

test_expect_success 'a new session after reset; reset also removes <db>.d of a --db' '
	cd repo &&
	"$KBISECT" start $G $B --command "test ! -e $P" --seed 1 --db ../other.db >out 2>err &&
	test -d ../other.db.d &&
	"$KBISECT" reset --db ../other.db 2>err &&
	test ! -e ../other.db.d &&
	test -f ../other.db
'

test_expect_success 'a session marked by hand: a skip marked again is no longer a skip, and how to reproduce it is --no-run' '
	cd repo &&
	"$KBISECT" start $G $B --no-run --db ../hand.db 2>err &&
	x=$(git rev-list $B --not $G | sed -n 5p) &&
	"$KBISECT" skip $x --db ../hand.db 2>err &&
	"$KBISECT" report --db ../hand.db >../hand1.txt || test $? = 3 &&
	grep "skipped: 1 commit could not be tested and was skipped" ../hand1.txt &&
	if is_bad $x; then m=bad; else m=good; fi &&
	"$KBISECT" $m $x --db ../hand.db 2>err &&
	"$KBISECT" report --db ../hand.db >../hand2.txt || test $? = 3 &&
	! grep "could not be tested" ../hand2.txt &&
	grep "^  kbisect start $(echo $G | cut -c1-12) $(echo $B | cut -c1-12) --no-run --target local --seed [0-9]*\$" ../hand2.txt &&
	! grep "  # GOOD" ../hand2.txt &&
	! grep "this session has no test" ../hand2.txt
'

test_expect_success 'the options of start survive log and replay' '
	cd repo &&
	"$KBISECT" start $G $B --command "test ! -e $P" --no-run --db ../opts.db \
		--scale 0.25 --boot-failure bad --build-ahead off --kconfig defconfig \
		--target "$TEST_DIR/fixtures/vm-test.json" --build kernel 2>err &&
	"$KBISECT" log --db ../opts.db >../opts.log &&
	grep -- "--target libvirt --build kernel --kconfig defconfig --machine .*\"vcpus\":1" ../opts.log &&
	grep -- "--scale 0.25 --boot-failure bad --build-ahead off --seed" ../opts.log &&
	"$KBISECT" replay ../opts.log --db ../opts2.db 2>err &&
	"$KBISECT" log --db ../opts2.db >../opts2.log &&
	test_cmp ../opts.log ../opts2.log
'

test_expect_success 'a target that boots kernels needs kernel builds' '
	cd repo &&
	test_expect_code 1 "$KBISECT" start $G $B --command true --no-run --db ../vm.db \
		--target libvirt --build none 2>err &&
	grep "needs --build kernel" err &&
	test_expect_code 1 "$KBISECT" start $G $B --command true --no-run --db ../vm.db \
		--target nosuchmachine 2>err &&
	grep "unknown target .nosuchmachine." err &&
	echo "{\"target\": \"libvirt\", \"vcpu\": 2}" >../typo.json &&
	test_expect_code 1 "$KBISECT" start $G $B --command true --no-run --db ../vm.db \
		--target ../typo.json 2>err &&
	grep "unknown key .vcpu." err &&
	test_expect_code 2 "$KBISECT" start $G $B --command true --build-ahead maybe 2>err &&
	test_expect_code 2 "$KBISECT" start $G $B --command true --boot-failure never 2>err &&
	test_expect_code 2 "$KBISECT" start $G $B --command true --scale 0 2>err
'

# A test that runs fine twice, then exits 200; fixed afterwards.
cat >stopper.sh <<EOF
n=\$(cat $TRASH_DIRECTORY/count 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >$TRASH_DIRECTORY/count
echo \$KBISECT_COMMIT >>$TRASH_DIRECTORY/stopper.ran
if test \$n -ge 3; then
	echo "something is wrong with the test machine" >&2
	exit 200
fi
test ! -e $P
EOF

test_expect_success 'a test exiting 128 or above stops the bisection: exit 1 and a message' '
	cd repo &&
	test_expect_code 1 "$KBISECT" start $G $B --command "sh $TRASH_DIRECTORY/stopper.sh" \
		--seed 2 >out 2>err &&
	tail -n 1 err >last &&
	grep "^kbisect start: the test exited with 200 " last &&
	grep "kbisect resume" last &&
	stopped_at=$(tail -n 1 ../stopper.ran) &&
	grep -F "$(echo $stopped_at | cut -c1-12)" last &&
	out=$(sed -n "s/.*see \([^ ,]*output\).*/\1/p" last) &&
	grep "something is wrong" "$out" &&
	"$KBISECT" status --json >st &&
	test "$(json_get st state)" = active &&
	test "$(json_get st tested)" = 2 &&
	test "$(json_get st next.commit)" = $stopped_at &&
	test "$(json_get st running)" = "[]"
'

test_expect_success SQLITE3 'the stopped run is recorded as aborted, with no mark' '
	cd repo &&
	test "$(sqlite3 .git/kbisect.db "SELECT count(*) FROM runs WHERE session = 2 AND state = '\''aborted'\''")" = 1 &&
	stopped_at=$(tail -n 1 ../stopper.ran) &&
	test "$(sqlite3 .git/kbisect.db "SELECT count(*) FROM marks WHERE sha = '\''$stopped_at'\'' AND session = 2")" = 0
'

test_expect_success 'resume after fixing the test continues to the right answer' '
	cd repo &&
	sed -i "s/-ge 3/-ge 1000/" ../stopper.sh &&
	test_expect_code 0 "$KBISECT" resume >out 2>err &&
	"$KBISECT" report --json >report &&
	test "$(json_get report culprits[0].commit)" = $C &&
	# the commit where it stopped was run again, and nothing else twice
	stopped_at=$(sed -n 3p ../stopper.ran) &&
	test "$(grep -c -x $stopped_at ../stopper.ran)" = 2 &&
	test "$(sort ../stopper.ran | uniq -d)" = $stopped_at &&
	test "$(json_get report runs_total)" = $(($(wc -l <../stopper.ran) - 1)) &&
	"$KBISECT" reset 2>err
'

# git bisect start; git bisect bad; git bisect good REV
test_expect_success 'start with no revisions: BAD and GOOD come with bad and good, then the session begins' '
	cd repo &&
	git checkout -q $B &&
	"$KBISECT" start --command "test ! -e $P" 2>err &&
	grep "started without revisions" err &&
	"$KBISECT" status >st &&
	grep "^started without revisions; BAD: none yet; GOOD: none yet\$" st &&
	test_expect_code 1 "$KBISECT" skip 2>err &&
	grep "the session has not begun" err &&
	test_expect_code 1 "$KBISECT" good 2>err &&
	grep "needs a REV before the session has begun" err &&
	"$KBISECT" bad >m1 &&
	grep "^marked $B bad\$" m1 &&
	grep "^next: mark a GOOD" m1 &&
	"$KBISECT" status >st &&
	grep "BAD: $B; GOOD: none yet" st &&
	"$KBISECT" good $G >m2 2>e2 &&
	grep "^marked $G good\$" m2 &&
	grep "first commit to test: " e2 &&
	grep "kbisect resume. runs the test" e2 &&
	"$KBISECT" status --json >st.json &&
	test "$(json_get st.json tested)" = 0 &&
	"$KBISECT" resume >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	test "$(json_get r.json setup.good_shas[0])" = $G &&
	"$KBISECT" reset 2>err &&
	# reset forgets a start that has no revisions yet; start again replaces it
	"$KBISECT" start --no-run 2>err &&
	"$KBISECT" reset 2>err && grep "start without revisions is forgotten" err &&
	"$KBISECT" status >st2 && ! grep "started without revisions" st2 &&
	git checkout -q -
'

test_expect_success 'a test killed by a signal stops the bisection' '
	cd repo &&
	test_expect_code 1 "$KBISECT" start $G $B --command "kill -9 \$\$" >out 2>err &&
	tail -n 1 err | grep "^kbisect start: the test was killed by signal 9" &&
	"$KBISECT" status --json >st &&
	test "$(json_get st tested)" = 0 &&
	"$KBISECT" reset 2>err
'

test_expect_success 'a test command that cannot be run stops the bisection instead of blaming a commit' '
	cd repo &&
	test_expect_code 1 "$KBISECT" start $G $B --command "no-such-test-program" >out 2>err &&
	tail -n 1 err | grep "^kbisect start: the test exited with 127: the command was not found" &&
	! grep "regzbot" out &&
	"$KBISECT" status --json >st &&
	test "$(json_get st tested)" = 0 &&
	"$KBISECT" reset 2>err &&
	chmod -x ../stopper.sh &&
	test_expect_code 1 "$KBISECT" start $G $B --command "$TRASH_DIRECTORY/stopper.sh" >out 2>err &&
	tail -n 1 err | grep "^kbisect start: the test exited with 126" &&
	"$KBISECT" reset 2>err
'

test_done
