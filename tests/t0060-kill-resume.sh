#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'kill -9 at random moments, resume: the answer, no run lost, none run twice'

# The test command: sleeps 0.05-0.3 s, then (just before it exits) appends
# the commit to an external log, and exits by the culprit rule.  Its result
# is only ever known from the runner kbisect forked, which a kill -9 of
# kbisect leaves running on purpose.
cat >slow.sh <<'EOF'
ran=$1
path=$2
d=$(awk -v s="$$" 'BEGIN { srand(s); printf "%.2f", 0.05 + rand() * 0.25 }')
sleep "$d"
echo "$KBISECT_COMMIT" >>"$ran"
test ! -e "$path"
EOF

echo 0 >kills.total
echo 0 >interrupted.total

# rand_delay N: a reproducible pseudo-random delay in [0, 0.4) s, more
# often short than long, so that kills also land while kbisect starts up
# (opens the database, collects left-over runs, checks out)
rand_delay () {
	awk -v s="$1" 'BEGIN { srand(s); r = rand(); printf "%.3f", r * r * 0.4 }'
}

# crash_history N: generate history hN, then start kbisect in the
# background, kill -9 it after a random delay, resume, kill, ... until a
# run of kbisect finishes before its kill.  After every kill the database
# must pass PRAGMA integrity_check.
crash_history () {
	ch=h$1
	gen_repo $ch --seed $((100 + $1)) --commits 80 --merge-rate 0.15 || return 1
	C=$(gen_field $ch culprit)
	P=$(gen_field $ch culprit_path)
	G=$(gen_field $ch good)
	B=$(gen_field $ch bad)
	cd $ch || return 1
	: >../$ch.ran
	kills=0
	iter=0
	rc=
	while test $iter -lt 200; do
		iter=$((iter + 1))
		# start until a session exists (a kill can land before it does)
		if "$KBISECT" status >/dev/null 2>&1; then
			"$KBISECT" resume >>../$ch.out 2>>../$ch.err &
		else
			"$KBISECT" start $G $B --seed 1 \
				--command "sh $TRASH_DIRECTORY/slow.sh $TRASH_DIRECTORY/$ch.ran $P" \
				>>../$ch.out 2>>../$ch.err &
		fi
		pid=$!
		if test $kills -lt 40; then
			sleep $(rand_delay $(($1 * 1000 + iter)))
			# only kbisect itself: the runner it forked is meant to survive
			kill -9 $pid 2>/dev/null || true
		fi
		rc=0
		wait $pid || rc=$?
		if test $rc != 137; then
			break
		fi
		kills=$((kills + 1))
		echo "--- killed" >>../$ch.err
		if test_have_prereq SQLITE3 && test -s .git/kbisect.db; then
			ok=$(sqlite3 .git/kbisect.db "PRAGMA integrity_check" 2>&1) || true
			if test "$ok" != ok; then
				echo "integrity_check after kill $kills: $ok"
				return 1
			fi
		fi
	done
	echo "$ch: $kills kills, kbisect exited $rc at last"
	echo $(($(cat ../kills.total) + kills)) >../kills.total
	if test "$rc" != 0; then
		echo "the last kbisect exited with $rc:"
		tail -n 20 ../$ch.err
		return 1
	fi
	echo "$C $P $G $B" >../$ch.vars
}

# check_history N: the verdict, and that every commit was tested once.
check_history () {
	ch=h$1
	read C P G B <$ch.vars || return 1
	cd $ch || return 1
	test_expect_code 0 "$KBISECT" report --json >../$ch.report || return 1
	"$KBISECT" log >../$ch.log || return 1
	cd .. || return 1
	test "$(json_get $ch.report verdict)" = culprit || return 1
	test "$(json_get $ch.report culprits[0].commit)" = $C || {
		echo "kbisect blames $(json_get $ch.report culprits[0].commit), the culprit is $C"
		return 1
	}
	# the external log: each command that ran, once per commit
	sort $ch.ran >$ch.ran.sorted
	uniq -d $ch.ran.sorted >$ch.ran.twice
	if test -s $ch.ran.twice; then
		echo "tests that ran twice:"
		cat $ch.ran.twice
		return 1
	fi
	# ... and exactly the commits that have a mark
	sed -n -E "s/^(good|bad|skip) ([0-9a-f]{40}).*/\2/p" $ch.log | sort >$ch.marked
	test_cmp $ch.marked $ch.ran.sorted || return 1
	test "$(json_get $ch.report runs_total)" = $(wc -l <$ch.ran) || return 1
	n=$(grep -c "cut short by a crash" $ch.err || true)
	echo "$ch: $n runs cut short and run again," \
		"$(grep -c "collected the result" $ch.err || true) collected after a crash"
	echo $(($(cat interrupted.total) + n)) >interrupted.total
}

# check_db N: the database agrees (one 'done' run and one mark per commit)
check_db () {
	db=h$1/.git/kbisect.db
	sq () {
		sqlite3 -batch "$db" "$1"
	}
	test "$(sq "PRAGMA integrity_check")" = ok || return 1
	test "$(sq "SELECT count(*) FROM runs WHERE state = 'started'")" = 0 || return 1
	sq "SELECT sha FROM runs WHERE state = 'done' GROUP BY sha HAVING count(*) != 1" >twice
	test ! -s twice || { echo "commits with more than one done run:"; cat twice; return 1; }
	sq "SELECT sha FROM marks GROUP BY sha HAVING count(*) != 1" >twice
	test ! -s twice || { echo "commits with more than one mark:"; cat twice; return 1; }
	sq "SELECT sha FROM runs WHERE state = 'done' ORDER BY sha" >done.shas
	sq "SELECT sha FROM marks ORDER BY sha" >mark.shas
	test_cmp done.shas mark.shas || return 1
	sort h$1.ran | test_cmp - done.shas || return 1
	# each mark came from the run that recorded it
	test "$(sq "SELECT count(*) FROM marks m JOIN runs r ON m.run = r.id
		    WHERE r.sha = m.sha AND r.state = 'done' AND m.source = 'test'")" = \
		"$(sq "SELECT count(*) FROM marks")" || return 1
	# runs that were not done were cut short before their command started
	test "$(sq "SELECT count(*) FROM runs WHERE state NOT IN ('done', 'interrupted')")" = 0 ||
		return 1
	test "$(sq "SELECT state FROM sessions")" = done || return 1
}

h=0
while test "$(cat kills.total)" -lt 50 && test $h -lt 15; do
	h=$((h + 1))
	test_expect_success "history $h: kill -9 at random moments until a resume completes" "
		crash_history $h
	"
	test_expect_success "history $h: the culprit; each test ran once, its result kept" "
		check_history $h
	"
	test_expect_success SQLITE3 "history $h: one 'done' run and one mark per commit" "
		check_db $h
	"
done

# A performance bisection, killed the same way: boots of 3 runs with a
# setup command, a benchmark that logs every sample it gives (commit, boot,
# run, value) outside kbisect just before it prints it.  The verdict must be
# that of the same bisection never killed, and the samples in the database
# exactly those logged: none lost, none taken twice.
cat >perfbench.sh <<'EOF'
sleep $(awk -v s="$$" 'BEGIN { srand(s); printf "%.2f", 0.02 + rand() * 0.08 }')
out=$(sh "$TEST_DIR/fixtures/noisy-bench.sh") || exit 1
echo "$KBISECT_COMMIT $KBISECT_BOOT $KBISECT_RUN $(echo "$out" | sed 's/[^0-9.]//g')" >>"$1"
echo "$out"
EOF

# perf_bench FILE LOG: the benchmark that logs into LOG
perf_bench () {
	cat >"$1" <<-JSON
	{"name": "logged", "command": ["sh", "$TRASH_DIRECTORY/perfbench.sh", "$2"],
	 "setup": "sleep 0.05",
	 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower"},
	 "runs_per_boot": 3}
	JSON
}

test_expect_success 'performance: the bisection never killed' '
	gen_repo p --seed 61 --commits 60 --culprits random:0.06 &&
	cp -R p p0 &&
	perf_bench p0.json "$TRASH_DIRECTORY/p0.ran" &&
	echo "$(gen_field p good) $(gen_field p bad)" >p.vars &&
	read PG PB <p.vars &&
	(cd p0 && "$KBISECT" start $PG $PB --bench ../p0.json --seed 2 >../p0.out 2>../p0.err) &&
	(cd p0 && "$KBISECT" report --json >../p0.report) &&
	test "$(json_get p0.report verdict)" = culprit &&
	test "$(json_get p0.report culprits[0].commit)" = "$(gen_field p culprit)"
'

test_expect_success SQLITE3 'performance: kill -9 at random moments: the same verdict, every sample once' '
	perf_bench p.json "$TRASH_DIRECTORY/p.ran" &&
	: >p.ran && kills=0 && iter=0 && rc= &&
	read PG PB <p.vars &&
	cd p &&
	while test $iter -lt 300; do
		iter=$((iter + 1))
		if "$KBISECT" status >/dev/null 2>&1; then
			"$KBISECT" resume >>../p.out 2>>../p.err &
		else
			"$KBISECT" start $PG $PB --bench ../p.json --seed 2 \
				>>../p.out 2>>../p.err &
		fi
		pid=$!
		if test $kills -lt 30; then
			sleep $(rand_delay $((7000 + iter)))
			kill -9 $pid 2>/dev/null || true
		fi
		rc=0
		wait $pid || rc=$?
		test $rc = 137 || break
		kills=$((kills + 1))
		if test -s .git/kbisect.db &&
		   test "$(sqlite3 .git/kbisect.db "PRAGMA integrity_check")" != ok; then
			echo "integrity_check failed after kill $kills" >>../p.bad
		fi
	done &&
	test ! -e ../p.bad &&
	echo "$kills kills, kbisect exited $rc at last" &&
	test $rc = 0 &&
	echo $(($(cat ../kills.total) + kills)) >../kills.total &&
	"$KBISECT" report --json >../p.report &&
	cd .. &&
	test "$(json_get p.report verdict)" = "$(json_get p0.report verdict)" &&
	test "$(json_get p.report culprits[0].commit)" = "$(json_get p0.report culprits[0].commit)" &&
	sort p.ran >p.ran.sorted &&
	test -z "$(cut -d" " -f1-3 p.ran.sorted | uniq -d)" &&
	sqlite3 -batch p/.git/kbisect.db "SELECT sha || '"' '"' || boot || '"' '"' || run || '"' '"' ||
		printf('"'%.4f'"', value) FROM runs WHERE state = '"'done'"'" | sort >p.db &&
	test_cmp p.ran.sorted p.db &&
	test "$(sqlite3 p/.git/kbisect.db "SELECT count(*) FROM runs WHERE state = '"'started'"'")" = 0 &&
	n=$(grep -c "cut short by a crash" p.err || true) &&
	echo "$n runs cut short and run again, $(grep -c "collected the result" p.err || true) collected after a crash"
'

# The gated test: waits until the file "gate" exists, so that the test
# decides when a run ends, not the clock.
cat >gated.sh <<'EOF'
while ! test -e "$TRASH_DIRECTORY/gate"; do
	sleep 0.02
done
echo "$KBISECT_COMMIT" >>"$1"
test ! -e "$2"
EOF
command -v setsid >/dev/null 2>&1 && test -r /proc/self/stat && test_set_prereq SETSID

test_expect_success 'setup gated runs' '
	gen_repo g --seed 7 --commits 40 &&
	echo "$(gen_field g culprit) $(gen_field g culprit_path) $(gen_field g good) $(gen_field g bad)" >g.vars
'

test_expect_success 'SIGTERM stops kbisect after the current run; resume continues' '
	read C P G B <g.vars
	cd g
	rm -f ../gate
	"$KBISECT" start $G $B --seed 1 \
		--command "sh $TRASH_DIRECTORY/gated.sh $TRASH_DIRECTORY/term.ran $P" \
		>../term.out 2>../term.err &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null; touch $TRASH_DIRECTORY/gate"
	test_wait_for "\"\$KBISECT\" status --json >st && json_get st running[0].commit >/dev/null"
	kill -TERM $pid
	test_wait_for "grep \"stopping after the current run\" ../term.err >/dev/null"
	touch ../gate
	rc=0
	wait $pid || rc=$?
	test $rc = 1
	tail -n 1 ../term.err | grep "^kbisect start: stopped; continue with .kbisect resume."
	"$KBISECT" status --json >st
	test "$(json_get st tested)" = 1
	test "$(json_get st running)" = "[]"
	test_expect_code 0 "$KBISECT" resume >../term2.out 2>../term2.err
	"$KBISECT" report --json >../term.report
	test "$(json_get ../term.report culprits[0].commit)" = $C
	test "$(sort ../term.ran | uniq -d)" = ""
	test "$(json_get ../term.report runs_total)" = $(wc -l <../term.ran)
	"$KBISECT" reset 2>/dev/null
'

test_expect_success SETSID 'Ctrl-C twice (SIGINT to the process group) kills kbisect, not the runner' '
	read C P G B <g.vars
	cd g
	rm -f ../gate
	# a process group of its own, as in a terminal
	setsid "$KBISECT" start $G $B --seed 1 \
		--command "sh $TRASH_DIRECTORY/gated.sh $TRASH_DIRECTORY/int.ran $P" \
		>../int.out 2>../int.err &
	pid=$!
	test_when_finished "kill -9 $pid 2>/dev/null; touch $TRASH_DIRECTORY/gate"
	test_wait_for "\"\$KBISECT\" status --json >st && json_get st running[0].commit >/dev/null"
	run=$(json_get st running[0].run)
	pgrp=$(sed "s/^.*) [A-Z] [0-9]* \([0-9]*\) .*/\1/" /proc/$pid/stat)
	test "$pgrp" = $pid
	kill -INT -$pgrp
	test_wait_for "grep \"stopping after the current run\" ../int.err >/dev/null"
	kill -INT -$pgrp
	rc=0
	wait $pid || rc=$?
	test $rc = 130
	# one message: the runner did not print it too
	test "$(grep -c "stopping after the current run" ../int.err)" = 1
	# the runner is alive and holds its run: the test ends when it is let to
	test ! -e .git/kbisect.db.d/runs/$run/status
	touch ../gate
	test_expect_code 0 "$KBISECT" resume >../int2.out 2>../int2.err
	grep "collected the result of run $run " ../int2.err
	if grep "cut short" ../int2.err; then exit 1; fi
	"$KBISECT" report --json >../int.report
	test "$(json_get ../int.report culprits[0].commit)" = $C
	test "$(sort ../int.ran | uniq -d)" = ""
	test "$(json_get ../int.report runs_total)" = $(wc -l <../int.ran)
'

test_expect_success SQLITE3 'kill -9 in and after a refused mark: the database as it was' '
	gen_repo m --seed 77 --commits 60 &&
	G=$(gen_field m good) && B=$(gen_field m bad) &&
	cd m &&
	"$KBISECT" start $G $B --command true --no-run 2>/dev/null &&
	"$KBISECT" good $(git rev-parse $B~10) >/dev/null &&
	rows () { sqlite3 .git/kbisect.db "select * from marks; select id, session, kind,
		detail from events; select id, state, verdict from sessions"; } &&
	rows >../m.before &&
	i=0 &&
	while test $i -lt 10; do
		i=$((i + 1))
		"$KBISECT" bad $(git rev-parse $B~20) 2>/dev/null &
		pid=$! &&
		sleep "$(rand_delay $((i + 500)))" &&
		{ kill -9 $pid 2>/dev/null || true; } &&
		{ wait $pid || true; } &&
		echo $(($(cat ../kills.total) + 1)) >../kills.total &&
		test "$(sqlite3 .git/kbisect.db "PRAGMA integrity_check")" = ok &&
		rows >../m.after &&
		test_cmp ../m.before ../m.after &&
		"$KBISECT" status >/dev/null || return 1
	done
'

test_expect_success 'at least 50 kills in all' '
	echo "$(cat kills.total) kills, $(cat interrupted.total) runs cut short in all" &&
	test "$(cat kills.total)" -ge 50
'

test_done
