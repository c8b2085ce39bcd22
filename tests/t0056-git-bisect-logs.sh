#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'logs of git bisect: kbisect replays one, and writes one git bisect replay takes'

gen_repo repo --seed 21 --commits 70 --merge-rate 0.2
C=$(gen_field repo culprit)
P=$(gen_field repo culprit_path)
G=$(gen_field repo good)
B=$(gen_field repo bad)

printf 'test ! -e %s\n' "$P" >is-good.sh

test_expect_success 'setup: the real git bisects the history' '
	git clone -q repo gitrepo &&
	cd gitrepo &&
	git bisect start $B $G >/dev/null &&
	git bisect run sh ../is-good.sh >../git-run.out 2>&1 &&
	grep "^$C is the first bad commit" ../git-run.out &&
	git bisect log >../git.log &&
	grep "^git bisect start " ../git.log &&
	git bisect reset >/dev/null 2>&1
'

test_expect_success 'kbisect replay takes the log of git bisect and names its first bad commit' '
	cd repo &&
	"$KBISECT" replay ../git.log --db ../from-git.db 2>err &&
	grep "replayed ../git.log" err &&
	"$KBISECT" report --json --db ../from-git.db >../r.json &&
	test "$(json_get ../r.json verdict)" = culprit &&
	test "$(json_get ../r.json culprits[0].commit)" = $C &&
	test "$(json_get ../r.json good)" = "$(git rev-parse $G)" &&
	test "$(json_get ../r.json bad)" = "$(git rev-parse $B)" &&
	# every mark of the log is a mark of the session
	test "$(grep -c "^git bisect \(good\|bad\|skip\) " ../git.log)" = \
	     "$(sqlite3 ../from-git.db "select count(*) from marks where source = '"'"'replay'"'"'")"
'

test_expect_success 'a git log whose start names no revision: the range from its first marks' '
	cd repo &&
	{
		echo "git bisect start"
		echo "# status: waiting for both good and bad commits"
		echo "git bisect bad $(git rev-parse $B)"
		echo "git bisect good $(git rev-parse $G)"
		grep "^git bisect \(good\|bad\|skip\) " ../git.log
	} >../bare.log &&
	"$KBISECT" replay ../bare.log --db ../bare.db 2>err &&
	"$KBISECT" report --json --db ../bare.db >../r2.json &&
	test "$(json_get ../r2.json culprits[0].commit)" = $C &&
	test "$(json_get ../r2.json bad)" = "$(git rev-parse $B)"
'

test_expect_success 'terms of their own (--term-old, --term-new), as git writes them' '
	cd repo &&
	{
		echo "git bisect start '"'"'--term-old=fast'"'"' '"'"'--term-new=slow'"'"'"
		echo "git bisect slow $(git rev-parse $B)"
		echo "git bisect fast $(git rev-parse $G)"
		sed -n "s/^git bisect good /git bisect fast /p; s/^git bisect bad /git bisect slow /p" ../git.log
	} >../terms.log &&
	"$KBISECT" replay ../terms.log --db ../terms.db 2>err &&
	"$KBISECT" report --json --db ../terms.db >../r3.json &&
	test "$(json_get ../r3.json culprits[0].commit)" = $C
'

test_expect_success 'a line that is no git bisect command is refused, and nothing is recorded' '
	cd repo &&
	{ echo "git bisect start $B $G"; echo "git bisect frobnicate $B"; } >../bad.log &&
	test_expect_code 1 "$KBISECT" replay ../bad.log --db ../bad.db 2>err &&
	grep "bad.log:2:" err &&
	{ test ! -e ../bad.db ||
	  test "$(sqlite3 ../bad.db "select count(*) from sessions")" = 0; }
'

test_expect_success 'kbisect log --git: git bisect replay takes it and finds the same commit' '
	cd repo &&
	"$KBISECT" start $G $B --command "sh $TRASH_DIRECTORY/is-good.sh" --db ../kb.db >../kb.out 2>../kb.err &&
	"$KBISECT" log --git --db ../kb.db >../kb-git.log &&
	head -n 1 ../kb-git.log | grep "^git bisect start '"'"'$(git rev-parse $B)'"'"' '"'"'$(git rev-parse $G)'"'"'\$" &&
	grep "^# first bad commit: \[$C\] " ../kb-git.log &&
	cd ../gitrepo &&
	git bisect replay ../kb-git.log >../replay.out 2>&1 &&
	grep "^$C is the first bad commit" ../replay.out &&
	git bisect reset >/dev/null 2>&1
'

test_expect_success 'kbisect log --git of a session with paths and --first-parent' '
	cd repo &&
	"$KBISECT" start $G $B --command "sh $TRASH_DIRECTORY/is-good.sh" --first-parent --db ../fp.db \
		-- $P >../fp.out 2>../fp.err &&
	"$KBISECT" log --git --db ../fp.db >../fp-git.log &&
	head -n 1 ../fp-git.log | grep "^git bisect start '"'"'--first-parent'"'"' .* '"'"'--'"'"' '"'"'$P'"'"'\$" &&
	cd ../gitrepo &&
	git bisect replay ../fp-git.log >../fp-replay.out 2>&1 &&
	git bisect log >../fp-back.log &&
	grep "^git bisect start '"'"'--first-parent'"'"'" ../fp-back.log &&
	git bisect reset >/dev/null 2>&1
'

test_done
