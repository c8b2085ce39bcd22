#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'a pool of machines: several commits at once, the same answer, a machine that dies'

# The test: appends "START commit" and "END commit" to a log around a
# short sleep, so that the log shows which tests ran at the same time,
# and exits by the culprit rule.
cat >probe.sh <<'EOF'
log=$1
path=$2
echo "START $KBISECT_COMMIT" >>"$log"
sleep 0.3
echo "END $KBISECT_COMMIT" >>"$log"
test ! -e "$path"
EOF

# most_at_once LOG: the largest number of tests between START and END at
# one time
most_at_once () {
	awk '$1 == "START" { n++; if (n > m) m = n } $1 == "END" { n-- } END { print m + 0 }' "$1"
}

pool4="--target local --target local --target local --target local"

test_expect_success 'four machines find what one finds, on histories with merges' '
	for seed in 31 32 33; do
		gen_repo h$seed --seed $seed --commits 150 --merge-rate 0.15 &&
		C=$(gen_field h$seed culprit) && P=$(gen_field h$seed culprit_path) &&
		(cd h$seed &&
		 "$KBISECT" start good bad $pool4 \
			--command "sh $TRASH_DIRECTORY/probe.sh $TRASH_DIRECTORY/h$seed.log $P" \
			>../h$seed.out 2>../h$seed.err &&
		 "$KBISECT" report --json >../h$seed.json) &&
		test "$(json_get h$seed.json culprits[0].commit)" = $C &&
		test "$(json_get h$seed.json verdict)" = culprit &&
		test "$(most_at_once h$seed.log)" -ge 2 &&
		grep -q "^Bisecting: [0-9]* revisions left, 4 machines" h$seed.err ||
		return 1
	done
'

test_expect_success 'each commit tested once, each on one machine at a time' '
	for seed in 31 32 33; do
		test -z "$(grep "^START" h$seed.log | sort | uniq -d)" &&
		db=h$seed/.git/kbisect.db &&
		test "$(sqlite3 $db "select count(*) from runs where state = '"'"'done'"'"'")" = \
		     "$(sqlite3 $db "select count(distinct sha) from runs where state = '"'"'done'"'"'")" &&
		test "$(grep -c "^START" h$seed.log)" = \
		     "$(sqlite3 $db "select count(*) from marks")" &&
		# each run is recorded with the machine it was given to
		test "$(sqlite3 $db "select count(distinct machine) from runs")" -ge 2 &&
		sqlite3 $db "select machine || '"' testing '"' || sha from runs" | sort >ran &&
		sqlite3 $db "select detail from events where kind = '"'machine'"' and
			detail like '"'% testing %'"'" | sort >assigned &&
		test_cmp assigned ran || return 1
	done
'

test_expect_success 'status lists every machine of the pool' '
	cd h31 &&
	"$KBISECT" status >../st.txt &&
	"$KBISECT" status --json >../st.json &&
	cd .. &&
	test "$(grep -c "^machine [0-3]: local, idle" st.txt)" = 4 &&
	test "$(json_get st.json machines[3].target)" = local &&
	test "$(json_get st.json machines[3].state)" = idle
'

test_expect_success 'a machine whose test process dies is retired; the answer stands' '
	gen_repo k --seed 41 --commits 200 --merge-rate 0.1 &&
	C=$(gen_field k culprit) && P=$(gen_field k culprit_path) &&
	cat >slow.sh <<-EOF &&
	echo "START \$KBISECT_COMMIT" >>"$TRASH_DIRECTORY/k.log"
	sleep 2
	test ! -e "$P"
	EOF
	cd k || return 1
	"$KBISECT" start good bad --target local --target local --target local \
		--command "sh $TRASH_DIRECTORY/slow.sh" >../k.out 2>../k.err &
	kb=$!
	# the three test processes have started
	n=0 && while test "$(cat ../k.log 2>/dev/null | grep -c START)" -lt 3 && test $n -lt 100; do
		sleep 0.1; n=$((n + 1)); done &&
	victim=$(pgrep -P $kb | head -n 1) &&
	test -n "$victim" &&
	kill -9 $victim &&
	wait $kb &&
	"$KBISECT" report --json >../k.json &&
	"$KBISECT" status --json >../kst.json &&
	cd .. &&
	test "$(json_get k.json culprits[0].commit)" = $C &&
	grep -q "^warning: machine [0-2] is out of the pool: the process testing on it was killed" k.err &&
	json_list kst.json machines .state >states &&
	test "$(grep -c retired states)" = 1 &&
	test "$(sqlite3 k/.git/kbisect.db "select count(*) from runs where state = '"'"'interrupted'"'"'")" = 1 &&
	test "$(sqlite3 k/.git/kbisect.db "select count(*) from runs where state = '"'"'done'"'"'")" = \
	     "$(sqlite3 k/.git/kbisect.db "select count(distinct sha) from runs where state = '"'"'done'"'"'")"
'

test_expect_success 'kill -9 of kbisect: its test processes go with it, resume ends it' '
	gen_repo r --seed 42 --commits 150 &&
	C=$(gen_field r culprit) && P=$(gen_field r culprit_path) &&
	cd r || return 1
	"$KBISECT" start good bad $pool4 \
		--command "sh $TRASH_DIRECTORY/probe.sh $TRASH_DIRECTORY/r.log $P" >../r.out 2>../r.err &
	kb=$!
	n=0 && while test "$(cat ../r.log 2>/dev/null | grep -c START)" -lt 5 && test $n -lt 100; do
		sleep 0.05; n=$((n + 1)); done &&
	kill -9 $kb &&
	{ wait $kb; true; } &&
	# no test of its pool is left behind (the runner of each may finish
	# its run: resume collects it)
	n=0 && while pgrep -f "kbisect start good bad --target local" >/dev/null && test $n -lt 50; do
		sleep 0.1; n=$((n + 1)); done &&
	! pgrep -f "kbisect start good bad --target local" &&
	"$KBISECT" resume >../r2.out 2>../r2.err &&
	"$KBISECT" report --json >../r.json &&
	cd .. &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	sqlite3 r/.git/kbisect.db "PRAGMA integrity_check" >ic &&
	test "$(cat ic)" = ok
'

test_expect_success 'a machines file: the pool in one file' '
	cat >lab.json <<-\JSON &&
	{"machines": ["local", {"target": "local", "name": "second"}, "local"]}
	JSON
	cd h32 &&
	"$KBISECT" reset >/dev/null 2>&1 &&
	"$KBISECT" start good bad --target ../lab.json \
		--command "sh $TRASH_DIRECTORY/probe.sh $TRASH_DIRECTORY/lab.log $(gen_field ../h32 culprit_path)" \
		>../lab.out 2>../lab.err &&
	"$KBISECT" report --json >../lab.r.json &&
	"$KBISECT" status --json >../lab.st.json &&
	cd .. &&
	test "$(json_get lab.r.json culprits[0].commit)" = "$(gen_field h32 culprit)" &&
	test "$(json_get lab.st.json machines[2].target)" = local &&
	! json_get lab.st.json machines[3].target &&
	grep -q "^Bisecting: [0-9]* revisions left, 3 machines" lab.err
'

test_expect_success 'a machines file with a bad machine: the machine and the key named' '
	echo "{\"machines\": [\"local\", {\"target\": \"local\", \"cpus\": 2}]}" >bad-lab.json &&
	cd h32 &&
	test_expect_code 1 "$KBISECT" start good bad --target ../bad-lab.json --command true \
		--db ../y.db 2>../e3 &&
	grep -q "machine 2 of ../bad-lab.json: unknown key \"cpus\"" ../e3 &&
	test_expect_code 1 "$KBISECT" target ../lab.json 2>../e4 &&
	grep -q "lists machines: it makes a pool" ../e4 &&
	! test -e ../y.db
'

test_expect_success 'pools that cannot be: local with VMs, one host twice' '
	cd h31 &&
	test_expect_code 1 "$KBISECT" start good bad --target local --target libvirt \
		--command true --db ../x.db 2>../e1 &&
	grep -q "do not mix" ../e1 &&
	test_expect_code 1 "$KBISECT" start good bad --target ssh://h1 --target ssh://h1 \
		--build "true" --command true --db ../x.db 2>../e2 &&
	grep -q "ssh://h1 is in the pool twice" ../e2 &&
	! test -e ../x.db
'

test_done
