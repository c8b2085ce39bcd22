#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'a session marked by hand becomes an automatic one: kbisect run, resume --command'

gen_repo repo --seed 41 --commits 60 --merge-rate 0.2
C=$(gen_field repo culprit)
P=$(gen_field repo culprit_path)
G=$(gen_field repo good)
B=$(gen_field repo bad)

printf '#!/bin/sh\ntest ! -e %s\n' "$P" >repo/test.sh
chmod +x repo/test.sh

test_expect_success 'kbisect run ./test.sh on a session marked by hand: on from the marks to the culprit' '
	cd repo &&
	"$KBISECT" start $G $B --no-run --db ../a.db 2>/dev/null &&
	next=$("$KBISECT" status --json --db ../a.db | sed -n "s/^ *\"commit\": \"\\([0-9a-f]*\\)\".*/\\1/p" | head -n 1) &&
	test -n "$next" &&
	if git cat-file -e $next:$P 2>/dev/null; then
		"$KBISECT" bad --db ../a.db >/dev/null
	else
		"$KBISECT" good --db ../a.db >/dev/null
	fi &&
	"$KBISECT" run ./test.sh --db ../a.db >out 2>err &&
	grep "test.sh is not in the commits" err &&
	"$KBISECT" report --json --db ../a.db >../a.json &&
	test "$(json_get ../a.json verdict)" = culprit &&
	test "$(json_get ../a.json culprits[0].commit)" = $C &&
	test "$(sqlite3 ../a.db "select count(*) from marks where source = '"'"'manual'"'"'")" = 1 &&
	test "$(sqlite3 ../a.db "select count(*) from marks where source = '"'"'test'"'"'")" -ge 1
'

test_expect_success 'resume --command does the same with a shell command' '
	cd repo &&
	"$KBISECT" start $G $B --no-run --db ../b.db 2>/dev/null &&
	"$KBISECT" resume --command "test ! -e $P" --db ../b.db >out 2>err &&
	"$KBISECT" report --json --db ../b.db >../b.json &&
	test "$(json_get ../b.json culprits[0].commit)" = $C &&
	"$KBISECT" log --db ../b.db >../b.log &&
	grep "^bench .*test ! -e $P" ../b.log
'

test_expect_success 'a session that has its test already keeps it' '
	cd repo &&
	"$KBISECT" start $G $B --command "test ! -e $P" --db ../c.db >/dev/null 2>&1 &&
	test_expect_code 1 "$KBISECT" run true --db ../c.db 2>err &&
	grep "has its test already" err &&
	test_expect_code 2 "$KBISECT" run --db ../c.db 2>err &&
	grep "needs a CMD" err &&
	test_expect_code 2 "$KBISECT" resume --bench x --command y --db ../c.db 2>err
'

test_done
