#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'the test of git bisect run habits: a script of the directory kbisect was started from'

gen_repo repo --seed 33 --commits 50 --merge-rate 0.2
C=$(gen_field repo culprit)
P=$(gen_field repo culprit_path)
G=$(gen_field repo good)
B=$(gen_field repo bad)

test_expect_success 'setup: an untracked test script in the user work tree' '
	printf "#!/bin/sh\ntest ! -e %s\n" "$P" >repo/test.sh &&
	chmod +x repo/test.sh &&
	(cd repo && test -z "$(git ls-files test.sh)")
'

test_expect_success './test.sh, as git bisect run takes it: run from where kbisect started' '
	cd repo &&
	"$KBISECT" start $G $B --command ./test.sh --db ../a.db >out 2>err &&
	grep "^kbisect: ./test.sh is not in the commits'"'"' tree: the test runs it as $TRASH_DIRECTORY/repo/test.sh\$" err &&
	"$KBISECT" report --json --db ../a.db >../a.json &&
	test "$(json_get ../a.json culprits[0].commit)" = $C
'

test_expect_success 'sh test.sh: the script an interpreter runs, with its arguments kept' '
	cd repo &&
	"$KBISECT" start $G $B --command "sh test.sh --some-arg" --db ../b.db >out 2>err &&
	grep "test.sh is not in the commits'"'"' tree" err &&
	"$KBISECT" report --json --db ../b.db >../b.json &&
	test "$(json_get ../b.json culprits[0].commit)" = $C &&
	json_get ../b.json setup.benchmark.command >../b.cmd &&
	grep "^sh $TRASH_DIRECTORY/repo/test.sh --some-arg\$" ../b.cmd
'

test_expect_success 'from a subdirectory, a script there' '
	mkdir -p repo/sub &&
	cp repo/test.sh repo/sub/t.sh &&
	cd repo/sub &&
	"$KBISECT" start $G $B --command ./t.sh --db ../../c.db >out 2>err &&
	grep "runs it as $TRASH_DIRECTORY/repo/sub/t.sh\$" err &&
	"$KBISECT" report --json --db ../../c.db >../../c.json &&
	test "$(json_get ../../c.json culprits[0].commit)" = $C
'

test_expect_success 'a file the commits have is the commit'"'"'s own: left as it is' '
	cd repo &&
	f=$(git ls-tree --name-only $B | grep -v "^\." | head -n 1) &&
	test -f "$f" &&
	test_expect_code 1 "$KBISECT" start $G $B --command "./$f" --db ../d.db >out 2>err &&
	! grep "is not in the commits" err &&
	grep "the test exited with 126" err &&
	grep "kbisect'"'"'s own work tree of the commit, not in yours" err
'

test_expect_success 'a command of no file of here is left as it is' '
	cd repo &&
	"$KBISECT" start $G $B --command "test ! -e $P" --db ../e.db >out 2>err &&
	! grep "is not in the commits" err
'

test_done
