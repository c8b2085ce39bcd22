#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'the output of a run: its first and last MiB kept, the disk use bounded however much a test prints, the metrics read from either, the directory gone once the outcome is recorded'

gen_repo repo --seed 41 --commits 8
C=$(gen_field repo culprit)
P=$(gen_field repo culprit_path)
G=$(gen_field repo good)
B=$(gen_field repo bad)
T=$TRASH_DIRECTORY

# chatty.sh: a test that prints 300 MB, then writes down how much the run
# directories take while it runs, then passes or fails
cat >chatty.sh <<EOF
#!/bin/sh
echo "first line"
yes "a line of a verbose benchmark, printed over and over" | head -c 314572800
echo
du -sk "$T/repo/.git/kbisect.db.d/runs" >>"$T/du"
echo "last line"
test ! -e "$P"
EOF
chmod +x chatty.sh

test_expect_success SQLITE3 'a test that prints 300 MB a run: the runs take 2 MiB each while they run, nothing once recorded' '
	cd repo &&
	"$KBISECT" start $G $B --command "$T/chatty.sh" >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	runs=$(sqlite3 .git/kbisect.db "select count(*) from runs") &&
	test "$runs" -ge 2 &&
	test_line_count = $runs ../du &&
	# the first and the last MiB, and a line: no more than 3 MiB (in KiB)
	while read kib dir; do
		test "$kib" -lt 3072 || { echo "runs/ took $kib KiB"; return 1; }
	done <../du &&
	# every run recorded, with the end of its output, and its directory gone
	test "$(sqlite3 .git/kbisect.db "select count(*) from runs where output_tail like '"'"'%last line%'"'"'")" = $runs &&
	ls -A .git/kbisect.db.d/runs >left &&
	test_line_count = 0 left
'

# bench.sh MODE: a benchmark of 3 MiB of output, its value at its start
# (first), at its end (latency) or (middle) in the part that is cut
cat >bench.sh <<\EOF
#!/bin/sh
noise () { yes "a chatty console line" | head -c "$1"; echo; }
case $MODE in
middle) noise 2097152; echo "latency: 7 ms"; noise 2097152 ;;
*) echo "first: 42"; noise 3145728; echo "latency: 7 ms" ;;
esac
EOF

test_expect_success 'setup: the benchmark' '
	cat >b.json <<-JSON
	{"name": "chatty", "command": ["sh", "$T/bench.sh"],
	 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower",
	            "unit": "ms"},
	 "metrics": [{"name": "first", "regex": "first: ([0-9]+)", "direction": "lower"}],
	 "runs_per_boot": 2}
	JSON
'

test_expect_success SQLITE3 'performance: the metric at the end of a long output, a secondary one at its start' '
	cd repo &&
	MODE=ends && export MODE &&
	{ "$KBISECT" compare $G $B --bench ../b.json -n 2 --db ../p.db >out 2>err || test $? = 3; } &&
	runs=$(sqlite3 ../p.db "select count(*) from runs") &&
	test "$runs" -ge 4 &&
	test "$(sqlite3 ../p.db "select count(*) from runs where value = 7")" = $runs &&
	test "$(sqlite3 ../p.db "select count(*) from run_metrics where name = '"'"'first'"'"' and value = 42")" = $runs &&
	ls -A ../p.db.d/runs >left &&
	test_line_count = 0 left
'

test_expect_success SQLITE3 'a value in the part that is cut: the run stops the session, and its output is kept, bounded' '
	cd repo &&
	MODE=middle && export MODE &&
	test_expect_code 1 "$KBISECT" compare $G $B --bench ../b.json -n 2 --db ../m.db >out 2>err &&
	grep "metric regex did not match in the output .*; see .*/m.db.d/runs/1/output" err &&
	test "$(sqlite3 ../m.db "select state from runs where id = 1")" = aborted &&
	out=../m.db.d/runs/1/output &&
	test "$(wc -c <$out)" -lt 2101248 &&
	grep -c "^\[kbisect: [0-9]* bytes of output cut here\]$" $out >n &&
	test "$(cat n)" = 1 &&
	! grep "latency" $out
'

test_done
