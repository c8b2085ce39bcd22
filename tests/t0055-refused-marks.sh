#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'a mark that is refused leaves the session as it was; unmark takes a manual mark back'

gen_repo repo --seed 12 --commits 60 --merge-rate 0.2
G=$(gen_field repo good)
B=$(gen_field repo bad)

# state FILE: every row of the session the database holds, as text
state () {
	sqlite3 "$TRASH_DIRECTORY/repo/.git/kbisect.db" \
		"select sha, mark, source, run from marks order by id;
		 select kind, detail from events order by id;
		 select id, state, verdict is null from sessions order by id" >"$1"
}

test_expect_success 'setup: a session by hand, one commit on the first-parent line marked good' '
	cd repo &&
	"$KBISECT" start $G $B --command true --no-run 2>err &&
	A=$(git rev-parse $B~10) && echo $A >../A &&
	Z=$(git rev-parse $B~20) && echo $Z >../Z &&
	"$KBISECT" good $A >out &&
	grep "^marked $A good$" out
'

test_expect_success 'bad on an ancestor of a good commit is refused, and nothing of it is kept' '
	cd repo &&
	state ../before &&
	"$KBISECT" log >../log.before &&
	test_expect_code 1 "$KBISECT" bad $(cat ../Z) 2>err &&
	grep "marks contradict" err &&
	grep "may fail only some of the time: bisect it with .kbisect start --flaky." err &&
	state ../after &&
	test_cmp ../before ../after &&
	"$KBISECT" log >../log.after &&
	test_cmp ../log.before ../log.after &&
	"$KBISECT" status >st &&
	grep "^next: " st
'

test_expect_success 'good on a descendant of a bad commit is refused too' '
	cd repo &&
	"$KBISECT" bad $(git rev-parse $B~5) >out &&
	state ../before &&
	test_expect_code 1 "$KBISECT" good $(git rev-parse $B~2) 2>err &&
	grep "marks contradict" err &&
	state ../after &&
	test_cmp ../before ../after
'

test_expect_success 'a mark of a commit out of the range, or of no commit, changes nothing' '
	cd repo &&
	state ../before &&
	test_expect_code 1 "$KBISECT" skip $G 2>err &&
	grep "not in the range" err &&
	test_expect_code 1 "$KBISECT" good no-such-rev 2>err &&
	test_expect_code 1 "$KBISECT" bad $G 2>err &&
	grep "not in the range" err &&
	state ../after &&
	test_cmp ../before ../after
'

test_expect_success 'unmark takes a manual mark back, and the event says so' '
	cd repo &&
	"$KBISECT" status --json >st1 &&
	"$KBISECT" unmark $(cat ../A) >out &&
	grep "^unmarked $(cat ../A)$" out &&
	test -z "$(sqlite3 .git/kbisect.db "select 1 from marks where sha = '"'"'$(cat ../A)'"'"'")" &&
	test "$(sqlite3 .git/kbisect.db "select detail from events where kind = '"'"'unmark'"'"'")" = $(cat ../A) &&
	"$KBISECT" status --json >st2 &&
	test "$(json_get st2 candidates)" -gt "$(json_get st1 candidates)" &&
	"$KBISECT" log >log &&
	! grep "^good $(cat ../A)" log
'

test_expect_success 'now the mark refused before is taken, as git bisect would' '
	cd repo &&
	"$KBISECT" bad $(cat ../Z) >out &&
	grep "^marked $(cat ../Z) bad$" out
'

test_expect_success 'unmark of a commit with no manual mark is refused and changes nothing' '
	cd repo &&
	state ../before &&
	test_expect_code 1 "$KBISECT" unmark $(cat ../A) 2>err &&
	grep "has no mark of yours" err &&
	test_expect_code 2 "$KBISECT" unmark 2>err &&
	state ../after &&
	test_cmp ../before ../after
'

test_expect_success 'the marks a test gave are not taken back' '
	gen_repo r2 --seed 5 --commits 30 &&
	cd r2 &&
	"$KBISECT" start $(gen_field ../r2 good) $(gen_field ../r2 bad) \
		--command "test ! -e $(gen_field ../r2 culprit_path)" >out 2>err &&
	sha=$(sqlite3 .git/kbisect.db "select sha from marks where source = '"'"'test'"'"' limit 1") &&
	test -n "$sha" &&
	n=$(sqlite3 .git/kbisect.db "select count(*) from marks") &&
	test_expect_code 1 "$KBISECT" unmark $sha 2>err &&
	grep "has no mark of yours" err &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from marks")" = $n
'

test_expect_success 'after the answer, a refused mark leaves the session done' '
	cd r2 &&
	"$KBISECT" status --json >st &&
	test "$(json_get st state)" = done &&
	state_r2() { sqlite3 .git/kbisect.db "select * from marks; select id, state from sessions"; } &&
	state_r2 >../before &&
	test_expect_code 1 "$KBISECT" good $(gen_field ../r2 bad) 2>err &&
	grep "marks contradict" err &&
	state_r2 >../after &&
	test_cmp ../before ../after &&
	"$KBISECT" status --json >st &&
	test "$(json_get st state)" = done
'

test_expect_success 'several revisions in one mark, as git bisect good A B C takes them' '
	gen_repo r3 --seed 8 --commits 60 --merge-rate 0.2 &&
	cd r3 &&
	G3=$(gen_field ../r3 good) && B3=$(gen_field ../r3 bad) &&
	"$KBISECT" start $G3 $B3 --no-run 2>/dev/null &&
	x=$(git rev-parse $B3~12) && y=$(git rev-parse $B3~14) &&
	"$KBISECT" good $x $y >out &&
	grep "^marked $x good$" out && grep "^marked $y good$" out &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from marks")" = 2
'

test_expect_success 'a list with one mark refused records none of it' '
	cd r3 &&
	B3=$(gen_field ../r3 bad) &&
	sqlite3 .git/kbisect.db "select sha, mark from marks order by id" >../m.before &&
	test_expect_code 1 "$KBISECT" bad $(git rev-parse $B3~3) $(git rev-parse $B3~20) 2>err &&
	grep "marks contradict" err &&
	sqlite3 .git/kbisect.db "select sha, mark from marks order by id" >../m.after &&
	test_cmp ../m.before ../m.after
'

test_expect_success 'skip A..B marks the commits of the range that B has and A has not' '
	cd r3 &&
	G3=$(gen_field ../r3 good) && B3=$(gen_field ../r3 bad) &&
	a=$(git rev-parse $B3~8) && b=$(git rev-parse $B3~4) &&
	want=$(git rev-list $a..$b --not $G3 | wc -l) &&
	test "$want" -ge 1 &&
	"$KBISECT" skip $a..$b >out &&
	test "$(grep -c "^marked [0-9a-f]* skip$" out)" = $want &&
	git rev-list $a..$b --not $G3 | sort >../want &&
	sed -n "s/^marked \([0-9a-f]*\) skip$/\1/p" out | sort >../got &&
	test_cmp ../want ../got
'

test_expect_success 'a range with no commit of the session is refused' '
	cd r3 &&
	B3=$(gen_field ../r3 bad) &&
	test_expect_code 1 "$KBISECT" skip $B3..$B3 2>err &&
	grep "has no commit of the range" err
'

test_done
