#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'secondary metrics: recorded in every run, tabled beside the primary metric, marked when they moved'

# tests/fixtures/metrics-bench.sh prints four numbers a run: the metrics
# named in $MOVING follow the culprit, the others stay where they are.
gen_repo repo --seed 31 --commits 60 --culprits random:0.1
C=$(gen_field repo culprit)
G=$(gen_field repo good)
B=$(gen_field repo bad)

test_expect_success 'setup' '
	test -n "$C" &&
	cat >multi.json <<-JSON
	{"name": "multi", "command": ["sh", "$TEST_DIR/fixtures/metrics-bench.sh"],
	 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower",
	            "unit": "ms"},
	 "metrics": [
	   {"name": "p50", "json_path": "lat.p50", "direction": "lower", "unit": "ms"},
	   {"name": "p99", "regex": "p99: ([0-9.]+)", "direction": "lower", "unit": "ms"},
	   {"name": "iops", "json_path": "iops", "direction": "higher"},
	   {"name": "absent", "json_path": "nothing.here", "direction": "lower", "unit": "ms"}],
	 "runs_per_boot": 5}
	JSON
'

# in_range VALUE LOW HIGH: LOW < VALUE < HIGH
in_range () {
	awk -v v="$1" -v lo="$2" -v hi="$3" "BEGIN { exit !(v > lo && v < hi) }"
}

test_expect_success 'one secondary metric moves at the culprit: its rows, and only it moved' '
	cd repo &&
	MOVING="latency p99" MISSING_RUN=3 &&
	export MOVING MISSING_RUN &&
	"$KBISECT" start good bad --bench ../multi.json --seed 4 >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	json_list r.json metrics .name >names &&
	printf "p50\np99\niops\nabsent\n" >want && test_cmp want names &&
	json_list r.json metrics .moved >moved &&
	printf "false\ntrue\nfalse\nfalse\n" >want && test_cmp want moved &&
	test "$(json_get r.json metrics[1].unit)" = ms &&
	test "$(json_get r.json metrics[2].direction)" = higher &&
	test "$(json_get r.json metrics[1].basis)" = boots &&
	in_range "$(json_get r.json metrics[1].p)" 0 0.01 &&
	in_range "$(json_get r.json metrics[0].p)" 0.01 1.01 &&
	# the rows of the primary table, for each metric
	json_list r.json table .label >labels &&
	printf "good\nparent\nculprit\nbad\n" >want && test_cmp want labels &&
	for m in 0 1 2 3; do
		json_list r.json metrics[$m].rows .label >l &&
		test_cmp labels l &&
		json_list r.json metrics[$m].rows .commit >c &&
		json_list r.json table .commit >tc &&
		test_cmp tc c || return 1
	done &&
	test "$(json_get r.json metrics[1].rows[2].commit)" = $C &&
	# p99 steps at the culprit, not before it; p50 does not step
	in_range "$(json_get r.json metrics[1].rows[1].change_pct)" -4 4 &&
	in_range "$(json_get r.json metrics[1].rows[2].change_pct)" 5 15 &&
	in_range "$(json_get r.json metrics[1].rows[3].change_pct)" 5 15 &&
	in_range "$(json_get r.json metrics[0].rows[2].change_pct)" -4 4 &&
	in_range "$(json_get r.json metrics[0].rows[0].mean)" 45 55 &&
	in_range "$(json_get r.json metrics[0].rows[0].stddev_pct)" 1 6 &&
	test "$(json_get r.json metrics[0].rows[0].change_pct)" = 0.0 &&
	# what the primary counted, every metric with a value in each run counts
	test "$(json_get r.json metrics[0].rows[0].n)" = "$(json_get r.json table[0].n)" &&
	# iops is not in run 3 of any boot
	"$KBISECT" log >log &&
	awk -v g=$G "\$1 == \"run\" && \$2 == g && \$5 == \"done\" { n++; if (\$4 != 3) k++ }
		END { print n, k }" log >counts &&
	test "$(json_get r.json metrics[0].rows[0].n) $(json_get r.json metrics[2].rows[0].n)" = \
		"$(cat counts)" &&
	# a metric in no run: no level, not tested; the runs went on all the same
	test "$(json_get r.json metrics[3].rows[0].n)" = 0 &&
	! json_get r.json metrics[3].rows[0].mean &&
	! json_get r.json metrics[3].p &&
	# a primary and a secondary moved together: nothing to warn of
	json_list r.json warnings .kind >kinds &&
	! grep "only-primary\|secondary-moved" kinds
'

test_expect_success 'the text report: a block a metric, with its mark' '
	cd repo &&
	grep "^latency (ms), lower is better; the mean of the runs" out &&
	grep "^Secondary metrics, from the same runs (latency alone decides); moved: " out &&
	grep "^p50 (ms), lower is better:\$" out &&
	grep "^p99 (ms), lower is better:\$" out &&
	grep "^iops, higher is better:\$" out &&
	grep " p50  within noise (p = [0-9.e-]*)\$" out &&
	grep " p99  moved (p = [0-9.e-]*)\$" out &&
	grep " iops  within noise (p = [0-9.e-]*)\$" out &&
	grep "^absent (ms): no value in the output of any run\$" out &&
	grep "^  secondary: p50 (ms), p99 (ms), iops, absent (ms)\$" out &&
	test "$(grep -c "^good  *parent  *culprit  *bad\$" out)" = 4 &&
	test "$(grep -c "^$(echo $G | cut -c1-16) [0-9a-f]\{27\} $(echo $C | cut -c1-27) $(echo $B | cut -c1-27)\$" out)" = 4 &&
	# the blocks come after the primary table, before the warnings and the log
	sed -n "/^latency (ms)/,/^Bisection log:/p" out >blocks &&
	grep "^Secondary metrics" blocks && grep " p99  moved" blocks &&
	"$KBISECT" report >again &&
	test_cmp out again
'

test_expect_success SQLITE3 'every run records every secondary metric, a missing one as missing' '
	cd repo &&
	db=.git/kbisect.db &&
	test "$(sqlite3 $db "pragma user_version")" = 6 &&
	runs=$(sqlite3 $db "select count(*) from runs where state = '"'"'done'"'"'") &&
	test "$(sqlite3 $db "select count(*) from run_metrics")" = $((runs * 4)) &&
	test "$(sqlite3 $db "select count(*) from run_metrics where name = '"'"'absent'"'"' and value is null")" = $runs &&
	test "$(sqlite3 $db "select count(*) from run_metrics m join runs r on r.id = m.run where m.name = '"'"'iops'"'"' and m.value is null")" = \
		"$(sqlite3 $db "select count(*) from runs where state = '"'"'done'"'"' and run = 3")" &&
	test "$(sqlite3 $db "select count(*) from run_metrics m join runs r on r.id = m.run where m.name = '"'"'iops'"'"' and m.value is null and r.run != 3")" = 0 &&
	test "$(sqlite3 $db "select count(*) from run_metrics where name = '"'"'p99'"'"' and value is null")" = 0
'

test_expect_success 'log and replay carry the values: the same report' '
	cd repo &&
	"$KBISECT" log >../multi.log &&
	grep "^values p50 [0-9.]* p99 [0-9.]* iops [0-9.]* absent -\$" ../multi.log &&
	grep "^values p50 [0-9.]* p99 [0-9.]* iops - absent -\$" ../multi.log &&
	test "$(grep -c "^values " ../multi.log)" = "$(grep -c "^run .* done " ../multi.log)" &&
	rm -rf ../clone && git clone -q . ../clone &&
	cd ../clone &&
	"$KBISECT" replay ../multi.log 2>err &&
	"$KBISECT" report --json >r2.json &&
	json_flat ../repo/r.json | grep -v "^state	\|^setup\." >r1.txt &&
	json_flat r2.json | grep -v "^state	\|^setup\." >r2.txt &&
	test_cmp r1.txt r2.txt
'

test_expect_success 'a values line that does not follow its run is refused' '
	cd clone &&
	sed -n "1,/^run /p" ../multi.log >bad.log &&
	echo "good $G" >>bad.log &&
	grep "^values " ../multi.log | head -n 1 >>bad.log &&
	test_expect_code 1 "$KBISECT" replay bad.log --db bad.db 2>err &&
	grep "bad.log:[0-9]*: .values. must follow the .run. it is of" err &&
	sed -n "1,/^run /p" ../multi.log >odd.log &&
	echo "values p50" >>odd.log &&
	test_expect_code 1 "$KBISECT" replay odd.log --db odd.db 2>err &&
	grep "pairs of a name and a value" err
'

test_expect_success 'the primary metric moved and no other: an only-primary warning' '
	cd repo &&
	"$KBISECT" reset 2>/dev/null &&
	MOVING=latency &&
	export MOVING &&
	"$KBISECT" start good bad --bench ../multi.json --seed 4 >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	json_list r.json metrics .moved >moved &&
	printf "false\nfalse\nfalse\nfalse\n" >want && test_cmp want moved &&
	json_flat r.json >flat &&
	grep "^warnings\[[0-9]*\]\.kind	only-primary\$" flat &&
	! grep "secondary-moved" flat &&
	grep "^  only-primary: only latency moved from GOOD to BAD: p50, p99 and iops did not move beyond their noise, so the change is in latency alone\$" out
'

test_expect_success 'another metric moved and the primary did not: a secondary-moved note' '
	cd repo &&
	"$KBISECT" reset 2>/dev/null &&
	MOVING=p99 &&
	export MOVING &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../multi.json --seed 4 >out 2>err &&
	test_expect_code 3 "$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = no-regression &&
	json_list r.json metrics .moved >moved &&
	printf "false\ntrue\nfalse\nfalse\n" >want && test_cmp want moved &&
	in_range "$(json_get r.json metrics[1].change_pct)" 5 15 &&
	json_flat r.json >flat &&
	grep "^warnings\[[0-9]*\]\.kind	secondary-moved\$" flat &&
	! grep "only-primary" flat &&
	grep "^  secondary-moved: p99 (+[0-9.]*%, p = [0-9.e-]*) moved from GOOD to BAD, but latency did not: the bisection looks at latency only; to find where p99 moved, bisect again with --metric p99\$" out &&
	# in no-regression the secondary tables have GOOD and BAD
	grep " p99  moved (p = " out &&
	# what it could have missed
	grep "^No regression: GOOD and BAD do not differ: no change larger than [0-9.]*% (GOOD -> BAD [-+][0-9.e-]*%, 90% interval [-+][0-9.e-]*% \.\. [-+][0-9.e-]*%)\. No commit is blamed\.\$" out &&
	in_range "$(json_get r.json calibration.detectable_pct)" 0 5 &&
	in_range "$(json_get r.json calibration.min_effect_pct)" 4.99 5.01 &&
	! grep "^#regzbot" out &&
	"$KBISECT" reset 2>/dev/null
'

test_expect_success '--metric: the bisection on a secondary metric, the primary one secondary; the reproduce line keeps it' '
	cd repo &&
	MOVING=p99 &&
	export MOVING &&
	"$KBISECT" start good bad --bench ../multi.json --metric p99 --min-effect 3 \
		--seed 4 --scale 0.5 >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	json_list r.json metrics .name >names &&
	printf "p50\nlatency\niops\nabsent\n" >want && test_cmp want names &&
	test "$(json_get r.json setup.benchmark.use_metric)" = p99 &&
	grep "^  kbisect start $(echo $G | cut -c1-12) $(echo $B | cut -c1-12) --bench .*/multi.json --metric p99 --min-effect 3 --target local --scale 0.5 --seed 4  # GOOD good, BAD bad\$" out &&
	"$KBISECT" reset 2>/dev/null
'

# The line of "how to reproduce", run as printed from another directory
# of the checkout, with the revisions' names moved: the same bisection.
test_expect_success 'how to reproduce: the printed line, run as it is, gives the same bisection' '
	cd repo &&
	MOVING=p99 &&
	export MOVING &&
	git branch -f repro-good good && git branch -f repro-bad bad &&
	"$KBISECT" start repro-good repro-bad --bench ../multi.json --metric p99 --min-effect 4 \
		--scale 0.5 --seed 11 --confidence 0.9 >first.txt 2>err &&
	line=$(sed -n "s/^  kbisect start /start /p" first.txt) &&
	echo "$line" &&
	grep "^  kbisect start .*  # GOOD repro-good, BAD repro-bad\$" first.txt &&
	"$KBISECT" reset 2>/dev/null &&
	git branch -f repro-good bad~1 && git branch -f repro-bad bad~1 &&
	mkdir -p sub && cd sub &&
	eval "\"\$KBISECT\" $line" >../second.txt 2>../err2 &&
	cd .. &&
	for f in first second; do
		sed -n "/^Bisection log:/,/^\$/p" $f.txt >$f.log &&
		sed -n "/^How to reproduce:/,/^\$/p" $f.txt >$f.repro || return 1
	done &&
	test -s first.log && test_cmp first.log second.log &&
	sed "s/  # GOOD .*//" first.repro >first.r && cp second.repro second.r &&
	test_cmp first.r second.r &&
	test "$(sed -n 1,5p first.txt)" = "$(sed -n 1,5p second.txt)" &&
	"$KBISECT" reset 2>/dev/null && git branch -D repro-good repro-bad
'

# git's terms for a change that is no regression: latency read as higher
# is better, so that the culprit makes it better.
test_expect_success 'terms: a speedup, bisected with --term-old slow --term-new fast; good and bad would see none' '
	cd repo &&
	MOVING=latency &&
	export MOVING &&
	sed "2s/\"direction\": \"lower\"/\"direction\": \"higher\"/" ../multi.json >../faster.json &&
	sed -n 2p ../faster.json | grep "\"latency\".*\"higher\"" &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../faster.json --seed 4 >out 2>err &&
	grep "^No regression: BAD measures better than GOOD" out &&
	"$KBISECT" reset 2>/dev/null &&
	"$KBISECT" start good bad --bench ../faster.json --seed 4 --term-old slow \
		--term-new fast >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	grep "^The first fast commit:\$" out &&
	grep "^  kbisect start .* --term-old slow --term-new fast --seed 4  # GOOD good, BAD bad\$" out &&
	"$KBISECT" terms >t &&
	printf "Your current terms are slow for the old state\nand fast for the new state.\n" >want &&
	test_cmp want t &&
	"$KBISECT" log >l && grep "^start .* --term-old slow --term-new fast" l &&
	"$KBISECT" reset 2>/dev/null
'

test_expect_success 'terms: marks by hand with the words, old and new, and git bisect terms' '
	cd repo &&
	"$KBISECT" start good bad --no-run --term-old fixed --term-new broken 2>err &&
	"$KBISECT" terms --term-new >t && test "$(cat t)" = broken &&
	"$KBISECT" terms --term-good >t && test "$(cat t)" = fixed &&
	"$KBISECT" broken >m && grep "^marked [0-9a-f]* broken\$" m &&
	"$KBISECT" fixed >m && grep "^marked [0-9a-f]* fixed\$" m &&
	"$KBISECT" old >m && grep "^marked [0-9a-f]* fixed\$" m &&
	"$KBISECT" reset 2>/dev/null &&
	test_expect_code 2 "$KBISECT" start good bad --no-run --term-new good 2>err &&
	grep "is the old state.s word" err &&
	test_expect_code 2 "$KBISECT" start good bad --no-run --term-old report 2>err &&
	grep "the name of a command" err &&
	test_expect_code 2 "$KBISECT" start good bad --no-run --term-old "Two words" 2>err &&
	grep "is not a word" err &&
	test_expect_code 2 "$KBISECT" frobnicate 2>err &&
	grep "not a command" err
'

test_expect_success '--metric and --min-effect refused where they cannot be: with what there is' '
	cd repo &&
	test_expect_code 1 "$KBISECT" start good bad --bench ../multi.json --metric p98 --no-run 2>err &&
	grep "benchmark multi (with --metric) has no metric named .p98.: it has latency, p50, p99, iops and absent\$" err &&
	test_expect_code 2 "$KBISECT" start good bad --command true --metric p99 2>err &&
	grep "go with --bench" err &&
	test_expect_code 2 "$KBISECT" start good bad --bench ../multi.json --min-effect 0 2>err &&
	test_expect_code 2 "$KBISECT" start good bad --bench ../multi.json --min-effect -3 2>err &&
	grep "min-effect is a percent above 0" err &&
	sed "s/\"runs_per_boot\": 5/\"runs_per_boot\": 5, \"min_effect\": \"big\"/" ../multi.json >bad.json &&
	test_expect_code 1 "$KBISECT" start good bad --bench bad.json --no-run 2>err &&
	grep "min_effect.* must be a percent above 0" err &&
	! test -e .kbisect/kbisect.db || ! "$KBISECT" status >/dev/null 2>&1
'

test_expect_success 'a metric too noisy for the change: inconclusive, the size it could not see, what to blame' '
	cd repo &&
	MOVING=latency NOISE=0.4 &&
	export MOVING NOISE &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../multi.json --seed 4 >out 2>err &&
	test_expect_code 3 "$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = inconclusive &&
	test "$(json_get r.json calibration.too_noisy)" = true &&
	in_range "$(json_get r.json calibration.detectable_pct)" 5 1000 &&
	grep "^Inconclusive: too noisy to tell: changes under [0-9.]*% cannot be seen with this benchmark here (GOOD -> BAD " out &&
	grep "^  too-noisy: latency is too noisy for a change of 5%: its runs differ by [0-9.]*% within a boot" out &&
	grep "^  noise:     [0-9.]*% run to run, [0-9.]*% boot to boot\$" out &&
	! grep "^#regzbot" out &&
	NOISE= && unset NOISE &&
	"$KBISECT" reset 2>/dev/null
'

test_expect_success 'compare: a line a secondary metric, marked, and in its JSON' '
	cd repo &&
	MOVING="latency p99" &&
	export MOVING &&
	"$KBISECT" compare good bad --bench ../multi.json -n 3 >cmp 2>err &&
	grep "^verdict: B is worse than A (regression)" cmp &&
	grep "^ *[0-9.]* ±  *[0-9]*%  *[-+][0-9.]*%  *[0-9.]* ±  *[0-9]*%  multi.p50 ms  within noise (p = [0-9.e-]*)\$" cmp &&
	grep "^ *[0-9.]* ±  *[0-9]*%  *+[0-9.]*%  *[0-9.]* ±  *[0-9]*%  multi.p99 ms  moved (p = [0-9.e-]*)\$" cmp &&
	grep "  multi.iops  within noise" cmp &&
	grep "^ *-  *-  *multi.absent ms  not tested: too few values\$" cmp &&
	"$KBISECT" compare good bad --bench ../multi.json -n 3 --json >cmp.json 2>err &&
	json_list cmp.json metrics .moved >moved &&
	printf "false\ntrue\nfalse\nfalse\n" >want && test_cmp want moved &&
	test "$(json_get cmp.json metrics[1].rows[0].label)" = a &&
	test "$(json_get cmp.json metrics[1].rows[1].commit)" = $B &&
	test "$(json_get cmp.json metrics[1].rows[1].n)" = "$(json_get cmp.json b.n)" &&
	in_range "$(json_get cmp.json metrics[1].change_pct)" 5 15 &&
	! json_get cmp.json table &&
	! json_get cmp.json warnings
'

test_expect_success 'a benchmark without secondary metrics reports none' '
	cd repo &&
	unset MOVING &&
	noisy_bench "$TRASH_DIRECTORY/plain.json" &&
	"$KBISECT" start good bad --bench ../plain.json --seed 4 >out 2>err || test $? = 3 &&
	"$KBISECT" report --json >r.json || test $? = 3 &&
	! json_get r.json metrics &&
	! grep "^Secondary metrics" out &&
	"$KBISECT" reset 2>/dev/null &&
	"$KBISECT" compare good bad --bench ../plain.json -n 2 --json >cmp.json 2>err ||
		test $? = 3 &&
	! json_get cmp.json metrics
'

test_expect_success 'secondary metrics as the primary is checked: errors name the field' '
	cd repo &&
	sed "s/\"p99: (\[0-9.\]+)\"/\"p99: ([0-9.]+\"/" ../multi.json >../badre.json &&
	! cmp ../multi.json ../badre.json &&
	test_expect_code 1 "$KBISECT" start good bad --bench ../badre.json 2>err &&
	grep "benchmark ../badre.json: field .metrics\[1\]\.regex. is not a valid regular expression" err &&
	sed "s/\"name\": \"iops\"/\"name\": \"p50\"/" ../multi.json >../twice.json &&
	test_expect_code 1 "$KBISECT" start good bad --bench ../twice.json 2>err &&
	grep "field .metrics\[2\]\.name. is \"p50\", as .metrics\[0\]\.name. is" err &&
	sed "s/\"name\": \"absent\"/\"name\": \"latency\"/" ../multi.json >../primary.json &&
	test_expect_code 1 "$KBISECT" start good bad --bench ../primary.json 2>err &&
	grep "field .metrics\[3\]\.name. is \"latency\", the name of the primary metric" err &&
	# none of them started a session
	"$KBISECT" status >st &&
	grep "benchmark: plain" st
'

test_done
