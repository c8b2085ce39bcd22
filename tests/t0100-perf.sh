#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'performance bisection with a noisy benchmark on the local target'

gen_repo repo --seed 21 --commits 100 --culprits random:0.05
gen_repo flat --seed 22 --commits 60 --culprits none
C=$(gen_field repo culprit)
G=$(gen_field repo good)
B=$(gen_field repo bad)

bench () {
	noisy_bench "$TRASH_DIRECTORY/$1.json" "$2"
}

test_expect_success 'setup' '
	test -n "$C" && bench noisy && bench warm 10 &&
	cat >garbage.json <<-JSON
	{"name": "garbage", "command": "echo no numbers here",
	 "metric": {"name": "t", "regex": "t=([0-9.]+)", "direction": "lower"}}
	JSON
'

test_expect_success 'a 5% step in 3% noise: the culprit, with its checks' '
	cd repo &&
	"$KBISECT" start good bad --bench ../noisy.json --seed 4 >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json version)" = 1 &&
	test "$(json_get r.json mode)" = performance &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	test "$(json_get r.json culprits[0].checks.parent_vs_culprit)" = pass &&
	test "$(json_get r.json culprits[0].checks.revert)" = pass &&
	test "$(json_get r.json metric.name)" = latency &&
	test "$(json_get r.json metric.direction)" = lower &&
	awk -v p="$(json_get r.json culprits[0].probability)" "BEGIN { exit !(p >= 0.95) }" &&
	awk -v d="$(json_get r.json culprits[0].delta_pct)" "BEGIN { exit !(d > 1 && d < 10) }" &&
	json_get r.json culprits[0].explained >/dev/null &&
	json_get r.json culprits[0].delta_ci_pct[1] >/dev/null &&
	test "$(json_get r.json steps[0].commit)" = $G &&
	test "$(json_get r.json steps[0].boots)" -ge 2 &&
	json_get r.json steps[0].samples[9] >/dev/null &&
	# reals in their shortest exact form: 0.95, not 0.94999999999999996;
	# the benchmark prints its values with 4 decimals, and so do the
	# report and the log
	grep "^ *\"confidence\": 0.95,\$" r.json &&
	json_get r.json steps[0].samples[0] | grep -E "^[0-9]+(\.[0-9]{1,4})?\$" &&
	"$KBISECT" log >l.log &&
	grep "^run " l.log >l.runs &&
	! grep -E -v " [0-9]+(\.[0-9]{1,4})?\$" l.runs &&
	# progress names the likeliest culprit and the value measured last
	grep "^\[[0-9a-f]\{12\}\] probe: .* (likeliest culprit [0-9a-f]\{12\}, [0-9]*%; last value [0-9.]* [a-z]* at [0-9a-f]\{12\})\$" err &&
	# status of the finished session: the commits measured, one left
	"$KBISECT" status --json >st.json &&
	test "$(json_get st.json tested)" -ge 3 &&
	test "$(json_get st.json candidates)" = 1 &&
	"$KBISECT" status | grep "^range: [0-9]* commits, 1 candidate left, [1-9][0-9]* tested\$"
'

test_expect_success 'the text report: table, checks, regzbot line' '
	cd repo &&
	grep "^The first bad commit:" out &&
	grep "^commit $C" out &&
	grep "^good  *parent  *culprit  *bad\$" out &&
	grep "^$(echo $G | cut -c1-16) [0-9a-f]\{27\} $(echo $C | cut -c1-27) $(echo $B | cut -c1-27)\$" out &&
	grep "^         %stddev     %change         %stddev" out &&
	grep " latency\$" out &&
	grep "^Test setup:" out && grep "^  benchmark: noisy" out &&
	grep "^  kbisect start $(echo $G | cut -c1-12) $(echo $B | cut -c1-12) --bench .*/noisy.json --target local --seed 4  # GOOD good, BAD bad\$" out &&
	grep "^checks: parent vs culprit pass, revert on BAD pass" out &&
	grep "^#regzbot introduced: $(echo $C | cut -c1-12)\$" out
'

test_expect_success 'every sample is in the database, once, with boot and run' '
	cd repo &&
	runs=$(json_get r.json runs_total) &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from runs where state = '"'"'done'"'"' and value is not null")" = $runs &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from (select distinct sha, boot, run from runs where state = '"'"'done'"'"')")" = $runs &&
	test "$(sqlite3 .git/kbisect.db "select min(run) || '"'"' '"'"' || max(run) from runs")" = "1 5"
'

test_expect_success 'the revert of the culprit was tested and the user repository untouched' '
	cd repo &&
	rev=$(sqlite3 .git/kbisect.db "select sha from reverts") &&
	git cat-file -e $rev &&
	test "$(git log -1 --format=%P $rev)" = $B &&
	test -z "$(git status --porcelain --untracked-files=no)" &&
	test -z "$(git for-each-ref --contains $rev)"
'

test_expect_success 'log and replay in a fresh clone give the same report, revert included' '
	cd repo &&
	"$KBISECT" log >../perf.log &&
	grep "^revert $C [0-9a-f]\{40\}\$" ../perf.log &&
	git clone -q . ../clone &&
	cd ../clone &&
	"$KBISECT" replay ../perf.log 2>err &&
	"$KBISECT" report --json >r2.json &&
	json_flat ../repo/r.json | grep -v "^state	\|^setup\." >r1.txt &&
	json_flat r2.json | grep -v "^state	\|^setup\." >r2.txt &&
	test_cmp r1.txt r2.txt &&
	test "$(json_get r2.json setup.good_specs[0])" = $G
'

test_expect_success 'a benchmark that fails at the culprit'"'"'s parent: skipped, reported, nobody blamed' '
	cd repo &&
	"$KBISECT" reset 2>/dev/null &&
	P=$(git rev-parse $C^) &&
	cat >../failing.json <<-JSON &&
	{"name": "failing", "command": ["sh", "-c",
	  "test \\"\$KBISECT_COMMIT\\" != $P || exit 1; exec sh $TEST_DIR/fixtures/noisy-bench.sh"],
	 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower"}}
	JSON
	test_expect_code 3 "$KBISECT" start good bad --bench ../failing.json --seed 4 >out 2>err &&
	test_expect_code 3 "$KBISECT" report --json >f.json &&
	test "$(json_get f.json verdict)" = inconclusive &&
	json_flat f.json >flat &&
	grep "^warnings\\[[0-9]*\\]\\.kind	skipped\$" flat &&
	grep "^  skipped: 1 commit could not be built or measured" out &&
	grep "^steps\[[0-9]*\]\.commit	$P\$" flat &&
	i=$(sed -n "s/^steps\[\([0-9]*\)\]\.commit	$P\$/\1/p" flat) &&
	test "$(json_get f.json steps[$i].decision)" = skip &&
	grep "^#regzbot introduced: [0-9a-f]*\.\.[0-9a-f]*\$" out
'

test_expect_success 'no change at all: no-regression, exit 3, no commit blamed' '
	cd flat &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../noisy.json --seed 1 >out 2>err &&
	test_expect_code 3 "$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = no-regression &&
	test "$(json_get r.json culprits)" = "[]" &&
	grep "^No regression" out &&
	! grep "^#regzbot" out
'

test_expect_success 'warm-up on the good side only: flagged, nobody blamed' '
	cd flat &&
	"$KBISECT" reset 2>/dev/null &&
	WARMUP_RUNS=3 NOISE=0.01 &&
	export WARMUP_RUNS NOISE &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../warm.json --seed 2 >out 2>err &&
	test_expect_code 3 "$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" != culprit &&
	json_list r.json warnings >w &&
	grep "warm-up" out
'

test_expect_success 'kill -9 in the middle of a run, resume: same culprit, no sample twice' '
	rm -rf again && cp -r repo again && cd again && rm -rf .git/kbisect.db* || return 1
	# this kbisect only: another one on the machine may have the same words
	"$KBISECT" start good bad --bench ../noisy.json --seed 4 >out 2>err &
	pid=$!
	test_wait_for "test_run_started 30" 400 &&
	kill -9 $pid && { wait $pid; true; } &&
	"$KBISECT" resume >out2 2>err2 &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from (select sha, boot, run from runs where state = '"'"'done'"'"' group by sha, boot, run having count(*) > 1)")" = 0 &&
	test "$(sqlite3 .git/kbisect.db "pragma integrity_check")" = ok
'

test_expect_success 'compare: GOOD against BAD is a regression, exit 0' '
	cd repo &&
	"$KBISECT" compare good bad --bench ../noisy.json -n 4 >cmp 2>err &&
	grep "%stddev     %change         %stddev" cmp &&
	grep "^verdict: B is worse than A (regression)" cmp &&
	"$KBISECT" compare good bad --bench ../noisy.json -n 4 --json >cmp.json 2>err &&
	test "$(json_get cmp.json verdict)" = regression &&
	test "$(json_get cmp.json a.commit)" = $G &&
	test "$(json_get cmp.json a.n)" = 20
'

test_expect_success 'compare: two commits at the same level are no regression, exit 3' '
	cd flat &&
	test_expect_code 3 "$KBISECT" compare good bad --bench ../noisy.json >cmp 2>err &&
	grep "^verdict: no difference" cmp
'

test_expect_success 'compare needs a metric; and A and B must differ' '
	cd repo &&
	echo "{\"name\": \"pf\", \"command\": \"true\"}" >../pf.json &&
	test_expect_code 1 "$KBISECT" compare good bad --bench ../pf.json 2>err &&
	grep "has no metric" err &&
	test_expect_code 1 "$KBISECT" compare good good --bench ../noisy.json 2>err &&
	grep "same commit" err
'

test_expect_success 'output without the metric stops with the benchmark and its output named' '
	cd flat &&
	"$KBISECT" reset 2>/dev/null;
	test_expect_code 1 "$KBISECT" start good bad --bench ../garbage.json 2>err &&
	grep "benchmark garbage: metric regex did not match in the output .echo\\|no numbers here" err &&
	test_expect_code 1 "$KBISECT" resume 2>err2 &&
	grep "no numbers here" err2 &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from runs where state = '"'"'aborted'"'"'")" = 2
'

test_expect_success 'a benchmark whose command is not found: stopped with what to do, nothing marked' '
	cd flat &&
	"$KBISECT" reset 2>/dev/null;
	cat >../typo.json <<-JSON &&
	{"name": "typo", "command": "no-such-bench --quick",
	 "metric": {"name": "t", "regex": "t=([0-9.]+)", "direction": "lower"}}
	JSON
	test_expect_code 1 "$KBISECT" start good bad --bench ../typo.json 2>err &&
	grep "the test exited with 12[67]: the command was not found or could not be executed" err &&
	grep "a script the commits do not have goes by its absolute path" err &&
	"$KBISECT" status --json >st.json &&
	test "$(json_get st.json tested)" = 0 &&
	"$KBISECT" reset 2>/dev/null
'

test_expect_success 'a benchmark that hangs: stopped at its timeout, an error naming it, nothing marked' '
	cd flat &&
	"$KBISECT" reset 2>/dev/null;
	cat >../hang.json <<-JSON &&
	{"name": "hangs", "command": "echo started; sleep 100; echo t=1",
	 "metric": {"name": "t", "regex": "t=([0-9.]+)", "direction": "lower"}, "timeout": 2}
	JSON
	test_expect_code 1 "$KBISECT" start good bad --bench ../hang.json 2>err &&
	grep "benchmark hangs: timed out after 2 s at commit [0-9a-f]*; see .*/output" err &&
	"$KBISECT" status --json >st.json &&
	test "$(json_get st.json tested)" = 0 &&
	test "$(json_get st.json running)" = "[]" &&
	# nothing of the benchmark is left running
	! pgrep -f "sleep 100; echo t=1" &&
	"$KBISECT" reset 2>/dev/null
'

test_expect_success 'a likely culprit whose revert does not recover is left, and the search goes on' '
	git init -q lin &&
	(
		cd lin &&
		git config user.email t@example.org && git config user.name t &&
		echo 0 >f && git add f && git commit -q -m good && git tag good &&
		for i in 1 2 3 4 5 6 7 8; do
			echo $i >f$i &&
			if test $i = 3; then echo slow >slow; fi &&
			git add . && git commit -q -m "commit $i" || return 1
		done &&
		git tag bad
	) &&
	C3=$(git -C lin rev-list --reverse good..bad | sed -n 3p) &&
	C4=$(git -C lin rev-list --reverse good..bad | sed -n 4p) &&
	C5=$(git -C lin rev-list --reverse good..bad | sed -n 5p) &&
	# 10% slower from commit 3 on (its file "slow"), 1% noise; commit 4
	# measures as GOOD by its own build (a code-layout effect), so that
	# the search lands on commit 5, whose revert on BAD recovers nothing
	echo $C4 >offset-commit &&
	cat >laid.sh <<-EOF &&
	seed=\$(printf "%s" "\$KBISECT_COMMIT\$KBISECT_BOOT.\$KBISECT_RUN" | cksum | cut -d" " -f1)
	l=0; test -f slow && l=0.10
	grep -qx "\$KBISECT_COMMIT" "$TRASH_DIRECTORY/offset-commit" && l=0
	mawk -v seed="\$seed" -v l="\$l" "BEGIN { srand(seed % 2147483647); u1 = rand(); u2 = rand()
		if (u1 < 1e-12) u1 = 1e-12; z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)
		printf \"latency: %.4f ms\\n\", 100 * exp(log(1 + l) + 0.01 * z) }"
	EOF
	cat >laid.json <<-EOF &&
	{"name": "laid", "command": ["sh", "$TRASH_DIRECTORY/laid.sh"],
	 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower"},
	 "runs_per_boot": 5}
	EOF
	cd lin &&
	"$KBISECT" start good bad --bench ../laid.json --seed 4 >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $C3 &&
	test "$(json_get r.json culprits[0].checks.revert)" = pass &&
	json_flat r.json >flat.txt &&
	grep "^warnings\[[0-9]*\]\.kind	reverted\$" flat.txt &&
	grep "^warnings\[[0-9]*\]\.message	$(echo $C5 | cut -c1-12) was a likely culprit; BAD with it reverted measured [-+][0-9.]*% against BAD ([0-9]* pairs; GOOD to BAD +[0-9.]*%), and the search went on without it\$" flat.txt &&
	grep "reverted.*$(echo $C5 | cut -c1-12) was a likely culprit" out &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from reverts")" = 2 &&
	"$KBISECT" log >l.log &&
	grep "^revert $C5 [0-9a-f]\{40\}\$" l.log &&
	grep "^revert $C3 [0-9a-f]\{40\}\$" l.log
'

test_done
