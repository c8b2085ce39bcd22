#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'the command line: help, version, usage errors (exit 2)'

commands='start resume status log replay good bad skip unmark run report reset compare build target'

test_expect_success '--help of every subcommand exits 0 with its usage on stdout' '
	for cmd in $commands; do
		"$KBISECT" $cmd --help >out 2>err || {
			echo "kbisect $cmd --help failed"; exit 1; }
		head -n 1 out >first &&
		grep "^usage: kbisect $cmd " first || {
			echo "kbisect $cmd --help:"; cat out; exit 1; }
		test ! -s err || { echo "kbisect $cmd --help wrote to stderr:"; cat err; exit 1; }
		grep "^  --help " out
	done
'

test_expect_success '-h and "kbisect help CMD" are --help too' '
	"$KBISECT" status -h >out &&
	grep "^usage: kbisect status " out &&
	"$KBISECT" help report >out &&
	grep "^usage: kbisect report " out
'

test_expect_success '--help works in any position and takes no session' '
	"$KBISECT" start --command true --help >out &&
	grep "^usage: kbisect start " out &&
	"$KBISECT" good HEAD --help >out &&
	grep "^usage: kbisect good " out &&
	test ! -e .git/kbisect.db
'

test_expect_success 'kbisect --help and -h list every command' '
	"$KBISECT" --help >out &&
	grep "^usage: kbisect " out &&
	for cmd in $commands; do
		grep "^  $cmd " out || { echo "--help does not list $cmd"; exit 1; }
	done &&
	"$KBISECT" -h >out2 &&
	test_cmp out out2
'

test_expect_success 'kbisect --version' '
	"$KBISECT" --version >out 2>err &&
	test_line_count = 1 out &&
	grep "^kbisect [0-9][0-9.]*" out &&
	test ! -s err
'

test_expect_success 'no command at all is a usage error' '
	test_expect_code 2 "$KBISECT" >out 2>err &&
	test ! -s out &&
	grep "^usage: kbisect " err
'

test_expect_success 'an unknown subcommand exits 2 and says so on stderr' '
	test_expect_code 2 "$KBISECT" frobnicate >out 2>err &&
	test ! -s out &&
	grep "frobnicate" err &&
	test_expect_code 2 "$KBISECT" --frobnicate 2>err &&
	grep -e "--frobnicate" err
'

test_expect_success 'an unknown option exits 2 for every subcommand' '
	for cmd in $commands; do
		test_expect_code 2 "$KBISECT" $cmd --no-such-option >out 2>err || exit 1
		test ! -s out || { echo "$cmd printed on stdout"; exit 1; }
		grep "^kbisect $cmd: unknown option .--no-such-option." err || {
			cat err; exit 1; }
		grep "^usage: kbisect $cmd " err || { cat err; exit 1; }
	done &&
	test_expect_code 2 "$KBISECT" start -q a b --command true 2>err &&
	grep "unknown option" err &&
	test ! -e .git/kbisect.db
'

test_expect_success 'an option given a value it does not take, or missing its value' '
	test_expect_code 2 "$KBISECT" status --json=yes 2>err &&
	grep "takes no value" err &&
	test_expect_code 2 "$KBISECT" start a b --command 2>err &&
	grep "needs a value" err &&
	test_expect_code 2 "$KBISECT" start a b --command true --confidence high 2>err &&
	grep "needs a number" err &&
	test_expect_code 2 "$KBISECT" start a b --command true --confidence 1.5 2>err &&
	grep "between 0 and 1" err &&
	test_expect_code 2 "$KBISECT" start a b --command true --seed x1 2>err &&
	grep "option .--seed. needs a whole number from 0 to [0-9]*, not .x1." err &&
	# integers are integers, in their range: not logged as 2^64 - 5
	test_expect_code 2 "$KBISECT" start a b --command true --seed -5 2>err &&
	grep "option .--seed. needs a whole number from 0 to [0-9]*, not .-5." err &&
	test_expect_code 2 "$KBISECT" start a b --command true --seed 1.5 2>err &&
	grep "needs a whole number" err &&
	test_expect_code 2 "$KBISECT" start a b --command true --build-jobs 0 2>err &&
	grep "option .--build-jobs. needs a whole number from 1 to 4096, not .0." err &&
	test_expect_code 2 "$KBISECT" compare a b --bench x -n1 2>err &&
	grep "option .-n. needs a whole number from 2 to 1000, not .1." err
'

test_expect_success 'options as getopt_long reads them: prefixes, -n5, values glued or apart, --' '
	git init -q pfx && (cd pfx && git commit -q --allow-empty -m one &&
		git commit -q --allow-empty -m two && git commit -q --allow-empty -m three) &&
	cd pfx &&
	# an unambiguous prefix names its option
	"$KBISECT" start HEAD~2 HEAD --comm true --no-r --se=7 2>err &&
	"$KBISECT" status --js >st.json &&
	test "$(json_get st.json state)" = active &&
	"$KBISECT" log >l.log &&
	grep -- "--seed 7\b" l.log &&
	"$KBISECT" reset 2>/dev/null &&
	# an ambiguous one is refused, with the options it could be
	test_expect_code 2 "$KBISECT" start HEAD~2 HEAD --b x 2>err &&
	grep "option .--b. could be any of --bench, --build, --build-ahead, --build-jobs, --boot-failure" err &&
	test_expect_code 2 "$KBISECT" start HEAD~2 HEAD --frob 2>err &&
	grep "unknown option .--frob." err &&
	# after --, words are paths, even those that look like options
	"$KBISECT" start HEAD~2 HEAD --command true --no-run -- --odd-path 2>err &&
	"$KBISECT" log >l2.log &&
	grep -- "-- --odd-path\$" l2.log &&
	"$KBISECT" reset 2>/dev/null &&
	test_expect_code 2 "$KBISECT" log -- x 2>err &&
	grep "is not used by this command" err &&
	# a one-letter option takes its value glued: -n5 gets as far as the
	# benchmark
	test_expect_code 1 "$KBISECT" compare HEAD~2 HEAD --bench no-such -n5 2>err &&
	grep "no benchmark named .no-such." err
'

test_expect_success 'missing or extra arguments exit 2' '
	test_expect_code 2 "$KBISECT" start onlyone --command true 2>err &&
	grep "^kbisect start: needs a GOOD and a BAD revision, or none" err &&
	test_expect_code 2 "$KBISECT" start a b 2>err &&
	grep "^kbisect start: needs --bench or --command (or --no-run" err &&
	test_expect_code 2 "$KBISECT" start a b --bench x --command true 2>err &&
	grep "^kbisect start: takes one of --bench and --command, not both" err &&
	test_expect_code 2 "$KBISECT" replay 2>err &&
	grep "^kbisect replay: needs one FILE" err &&
	test_expect_code 2 "$KBISECT" replay a b 2>err &&
	test_expect_code 2 "$KBISECT" unmark a b 2>err &&
	grep "^kbisect unmark: needs one REV" err &&
	test_expect_code 2 "$KBISECT" status extra 2>err &&
	grep "^kbisect status: unexpected argument" err &&
	test_expect_code 2 "$KBISECT" reset -- x 2>err &&
	grep "^kbisect reset: .--. is not used" err
'

test_expect_success 'usage errors write nothing: no database, no state directory' '
	test ! -e .git/kbisect.db &&
	test ! -e .git/kbisect.db.d &&
	test ! -e .git/kbisect.db.lock
'

test_done
