#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'errors the user can cause: one line on stderr, exit 1, no half-written session'

# expect_error CMD WHAT KBISECT-ARGS...: kbisect fails with exit 1, prints
# nothing on stdout and exactly one line on stderr, "kbisect CMD: ...",
# that contains the fixed string WHAT.
expect_error () {
	ee_cmd=$1
	ee_what=$2
	shift 2
	test_expect_code 1 "$KBISECT" "$@" >ee.out 2>ee.err || return 1
	if test -s ee.out; then
		echo "kbisect $* wrote to stdout:"
		cat ee.out
		return 1
	fi
	test_line_count = 1 ee.err || return 1
	if ! grep "^kbisect $ee_cmd: " ee.err >/dev/null; then
		echo "the error does not start with 'kbisect $ee_cmd: ':"
		cat ee.err
		return 1
	fi
	if ! grep -F -e "$ee_what" ee.err >/dev/null; then
		echo "the error does not say '$ee_what':"
		cat ee.err
		return 1
	fi
	cat ee.err
}

# no_session [DB]: the database (default repo/.git/kbisect.db) holds no
# session in progress (none at all, or only ended ones) and there is no
# state directory next to it.
no_session () {
	ns_db=${1:-.git/kbisect.db}
	test_expect_code 1 "$KBISECT" resume --db "$ns_db" 2>ns.err || return 1
	grep "no kbisect session" ns.err >/dev/null || { cat ns.err; return 1; }
	if test -e "$ns_db"; then
		if "$KBISECT" status --json --db "$ns_db" >ns.out 2>ns.err; then
			test "$(json_get ns.out state)" = ended || {
				echo "a session is left in $ns_db:"; cat ns.out; return 1; }
		else
			grep "no kbisect session" ns.err >/dev/null || { cat ns.err; return 1; }
		fi
	fi
	if test -e "$ns_db.d"; then
		echo "$ns_db.d exists"
		return 1
	fi
}

gen_repo repo --seed 5 --commits 20
G=$(gen_field repo good)
B=$(gen_field repo bad)
C=$(gen_field repo culprit)
P=$(gen_field repo culprit_path)

test_expect_success 'setup' '
	test -n "$G" && test -n "$B" && test -n "$C" &&
	cd repo &&
	git rev-parse --verify $B^{commit} &&
	git rev-parse --verify $G^{commit}
'

test_expect_success 'status, resume and report in a repository never bisected' '
	cd repo &&
	expect_error status "no kbisect session" status &&
	expect_error resume "no kbisect session" resume &&
	expect_error report "no kbisect session" report &&
	expect_error log "no kbisect session" log &&
	expect_error good "no kbisect session" good &&
	expect_error reset "no kbisect session" reset &&
	test ! -e .git/kbisect.db &&
	test ! -e .git/kbisect.db.d
'

test_expect_success 'a --repo that is not a repository' '
	expect_error start "is not inside a git repository" \
		start $G $B --command true --repo /nonexistent/dir
'

test_expect_success 'unknown revision' '
	cd repo &&
	expect_error start "unknown revision '\''nosuchrev'\''" start nosuchrev $B --command true &&
	no_session &&
	expect_error start "unknown revision '\''v9.9'\''" start $G v9.9 --command true &&
	no_session
'

test_expect_success 'GOOD that is not an ancestor of BAD' '
	cd repo &&
	X=$(git commit-tree -p $G -m "off the range" $G^{tree}) &&
	expect_error start "is not an ancestor of BAD" start $X $B --command true &&
	git rev-parse --short=12 $X >short &&
	grep -F "$(cat short)" ee.err &&
	no_session
'

test_expect_success 'GOOD == BAD' '
	cd repo &&
	expect_error start "same commit" start $B $B --command true &&
	no_session &&
	expect_error start "same commit" start HEAD $B --command true &&
	no_session
'

test_expect_success 'BAD an ancestor of GOOD (GOOD and BAD swapped)' '
	cd repo &&
	rm -f .git/kbisect.db* &&
	expect_error start "is an ancestor of GOOD" start $B $G --command true &&
	grep "swapped? the order is .kbisect start GOOD BAD." ee.err &&
	test ! -e .git/kbisect.db &&
	no_session
'

test_expect_success 'benchmark file or name missing' '
	cd repo &&
	expect_error start "does not exist" start $G $B --bench ./nope.json &&
	grep -F "nope.json" ee.err &&
	no_session &&
	expect_error start "no benchmark named '\''nope'\''" start $G $B --bench nope &&
	no_session
'

test_expect_success 'benchmark JSON that is not JSON' '
	cd repo &&
	printf "{\"name\": \"x\", \"command\": \n" >broken.json &&
	expect_error start "broken.json" start $G $B --bench ./broken.json &&
	no_session
'

test_expect_success 'benchmark JSON with an unknown field names the field' '
	cd repo &&
	cat >typo.json <<-\EOF &&
	{ "name": "typo", "command": "true", "runs_per_bot": 3 }
	EOF
	expect_error start "unknown field '\''runs_per_bot'\''" start $G $B --bench ./typo.json &&
	no_session &&
	cat >typo2.json <<-\EOF &&
	{ "name": "typo", "command": "true",
	  "metric": { "name": "t", "regex": "([0-9]+)", "direction": "lower",
		      "units": "s" } }
	EOF
	expect_error start "metric.units" start $G $B --bench ./typo2.json &&
	no_session
'

test_expect_success 'a benchmark field of the wrong type' '
	cd repo &&
	echo "{ \"name\": \"x\", \"command\": \"true\", \"warmup\": \"two\" }" >type.json &&
	expect_error start "warmup" start $G $B --bench ./type.json &&
	no_session
'

test_expect_success 'a metric regex the C library takes minutes to compile is refused' '
	cd repo &&
	cat >anchors.json <<-\EOF &&
	{ "name": "anchors", "command": "true",
	  "metric": { "name": "t", "regex": "(\\b\\B\\b\\B\\b\\B\\b\\B\\b\\B)*",
		      "direction": "lower" } }
	EOF
	expect_error start "does not compile in 250 ms of CPU" start $G $B --bench ./anchors.json &&
	grep "metric.regex" ee.err &&
	no_session
'

test_expect_success 'the database is created with mode 0600, its state directory 0700' '
	cd repo &&
	umask 022 &&
	"$KBISECT" start $G $B --command "test ! -e $P" --no-run 2>err &&
	ls -l .git/kbisect.db >mode &&
	grep "^-rw------- " mode &&
	ls -l .git/kbisect.db.lock >mode &&
	grep "^-rw------- " mode &&
	"$KBISECT" resume >out 2>err &&
	ls -ld .git/kbisect.db.d >mode &&
	grep "^drwx------ " mode &&
	"$KBISECT" reset 2>err
'

test_expect_success 'a second session while one is in progress' '
	cd repo &&
	"$KBISECT" start $G $B --command true --no-run 2>err &&
	cp .git/kbisect.db before.db &&
	expect_error start "already in progress" start $G $B --command false &&
	grep "kbisect resume" ee.err &&
	"$KBISECT" status --json >st &&
	test "$(json_get st session)" = 2 &&
	test "$(json_get st state)" = active &&
	"$KBISECT" log >log &&
	grep "^bench .*\"command\":\"true\"" log &&
	"$KBISECT" reset 2>err
'

test_expect_success 'marks that make no sense' '
	cd repo &&
	"$KBISECT" start $G $B --command true --no-run 2>err &&
	expect_error good "unknown revision" good nosuchrev &&
	expect_error bad "not in the range" bad $G &&
	X=$(git commit-tree -p $G -m "off the range" $G^{tree}) &&
	expect_error skip "not in the range" skip $X &&
	"$KBISECT" status --json >st &&
	test "$(json_get st tested)" = 0 &&
	"$KBISECT" reset 2>err
'

test_expect_success 'a locked database: the second orchestrator names the first' '
	cd repo
	rm -f cmd.pid
	# (a line of its own: "a && b &" would put all of "a && b" in the background)
	"$KBISECT" start $G $B --command "echo \$\$ >$TRASH_DIRECTORY/repo/cmd.pid; exec sleep 5" \
		>bg.out 2>bg.err &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null; test -s $TRASH_DIRECTORY/repo/cmd.pid && kill \$(cat $TRASH_DIRECTORY/repo/cmd.pid) 2>/dev/null" &&
	test_wait_for "test -s cmd.pid" &&
	test "$(cat .git/kbisect.db.lock)" = $pid &&
	expect_error good "pid $pid" good &&
	grep "in use by another kbisect" ee.err &&
	expect_error bad "pid $pid" bad $B &&
	expect_error resume "pid $pid" resume &&
	expect_error reset "pid $pid" reset &&
	expect_error start "pid $pid" start $G $B --command true &&
	"$KBISECT" status --json >st &&
	json_get st running[0].commit &&
	run=$(json_get st running[0].run) &&
	kill -9 $pid &&
	{ wait $pid; test $? = 137; } &&
	kill $(cat cmd.pid) &&
	test_wait_for "test -e .git/kbisect.db.d/runs/$run/status" &&
	rm cmd.pid &&
	test_expect_code 1 "$KBISECT" resume >out 2>err &&
	grep "collected the result of run $run " err &&
	grep "^kbisect resume: the test was killed by signal 15" err &&
	"$KBISECT" reset 2>err &&
	no_session
'

test_expect_success 'a --db that is not an sqlite database is left alone' '
	cd repo &&
	printf "my notes\nnot a database\n" >notes.txt &&
	cp notes.txt notes.orig &&
	expect_error status "not a kbisect database" status --db notes.txt &&
	expect_error start "not a kbisect database" start $G $B --command true --db notes.txt &&
	expect_error resume "not a kbisect database" resume --db notes.txt &&
	test_cmp notes.orig notes.txt &&
	test ! -e notes.txt.d
'

test_expect_success 'a damaged database (pages overwritten): a clear error, the file left as it was' '
	cd repo &&
	"$KBISECT" start $G $B --command "test ! -e $P" --db dmg.db >/dev/null 2>&1 &&
	size=$(wc -c <dmg.db) &&
	test "$size" -ge 8192 &&
	# garbage over the second half of the file, its header kept
	awk "BEGIN { for (i = 0; i < 4096; i++) printf \"%c\", 65 + i % 26 }" >junk &&
	dd if=junk of=dmg.db bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null &&
	cp dmg.db dmg.orig &&
	expect_error status "damaged" status --db dmg.db &&
	expect_error resume "damaged" resume --db dmg.db &&
	expect_error report "damaged" report --db dmg.db &&
	expect_error start "damaged" start $G $B --command true --db dmg.db &&
	test_cmp dmg.orig dmg.db
'

test_expect_success 'a --db that is a directory' '
	cd repo &&
	mkdir dir.db &&
	expect_error start "not a regular file" start $G $B --command true --db dir.db &&
	expect_error status "not a regular file" status --db dir.db
'

test_expect_success SQLITE3 'a database from a newer kbisect (user_version 99)' '
	cd repo &&
	sqlite3 new.db "PRAGMA user_version = 99" &&
	cp new.db new.orig &&
	expect_error status "schema version 99" status --db new.db &&
	expect_error start "schema version 99" start $G $B --command true --db new.db &&
	expect_error replay "schema version 99" replay /dev/null --db new.db &&
	test_cmp new.orig new.db &&
	test "$(sqlite3 new.db "PRAGMA user_version")" = 99
'

test_expect_success 'replay of a file that is not a kbisect log' '
	cd repo &&
	echo "hello" >notalog &&
	expect_error replay "notalog:1" replay notalog --db replay.db &&
	expect_error replay "nosuchfile" replay nosuchfile --db replay.db &&
	no_session replay.db
'

# Two kbisects opening a database that is being created raced: both
# created the schema ("table sessions already exists") or one failed to
# switch to WAL ("database is locked").  Not deterministic: the race is
# tried 30 times.
test_expect_success 'status while start creates the database: neither fails oddly' '
	cd repo
	i=0
	while test $i -lt 30; do
		i=$((i + 1))
		rm -f ../race.db ../race.db-wal ../race.db-shm ../race.db.lock
		"$KBISECT" start $G $B --command true --no-run --db ../race.db \
			>/dev/null 2>../race.err &
		pid=$!
		for j in 1 2 3 4 5; do
			if ! "$KBISECT" status --db ../race.db >/dev/null 2>../race2.err; then
				grep "no kbisect session" ../race2.err >/dev/null || {
					cat ../race2.err; exit 1; }
			fi
		done
		wait $pid || { cat ../race.err; exit 1; }
	done
'

test_expect_success 'after all these errors the repository is as it was' '
	cd repo &&
	git status --porcelain --untracked-files=no >st &&
	test ! -s st &&
	test "$(git rev-parse HEAD)" = $B
'

test_done
