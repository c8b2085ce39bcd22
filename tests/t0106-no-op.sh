#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'builds compared by their signatures: a probe built as a commit measured already takes its samples, a culprit built as its parent is no culprit'

command -v cc >/dev/null 2>&1 || test_skip_all 'no C compiler'

# A history with one culprit: the level the benchmark measures (the
# effects of the files under a/ and b/, tests/fixtures/noisy-bench.sh) is
# what each commit builds, so most commits build what their parent does.
gen_repo repo --seed 21 --commits 100 --culprits random:0.05
C=$(gen_field repo culprit)
G=$(gen_field repo good)
B=$(gen_field repo bad)
# A linear history with no culprit, in which commit 0020's file plays no
# part in the build (as a comment does) but the benchmark keys on the
# commit: 5% slower from that commit on.
gen_repo flat --seed 22 --commits 40 --culprits none --merge-rate 0 --branch-rate 0
N=$(git -C flat rev-list --reverse good..bad | sed -n 20p)

# The --build command of the first history: an object file that holds the
# level its effect files add up to, and a version string naming the
# commit, in KBISECT_ARTIFACT
cat >build.sh <<'EOF'
set -e
lvl=$(cat a/* b/* 2>/dev/null | awk '{ s += log(1 + $1) } END { printf "%.9g", s }')
src=$KBISECT_ARTIFACT.c
printf 'const char version[] = "prog kb-%s";\nconst double level = %s;\n' \
	"$KBISECT_COMMIT" "$lvl" >"$src"
cc -c -o "$KBISECT_ARTIFACT" "$src"
rm -f "$src"
EOF
# ... and of the second: an object file that lists every file but commit
# 0020's
cat >build-list.sh <<'EOF'
set -e
src=$KBISECT_ARTIFACT.c
printf 'const char version[] = "prog kb-%s";\nconst char files[] = "%s";\n' "$KBISECT_COMMIT" \
	"$(ls a b 2>/dev/null | grep -vx 0020 | tr '\n' ' ')" >"$src"
cc -c -o "$KBISECT_ARTIFACT" "$src"
rm -f "$src"
EOF
# 5% slower at the commits listed in slow-commits, with 3% noise
cat >keyed.sh <<EOF
seed=\$(printf '%s' "\$KBISECT_COMMIT\$KBISECT_BOOT.\$KBISECT_RUN" | cksum | cut -d' ' -f1)
grep -qx "\$KBISECT_COMMIT" "$TRASH_DIRECTORY/slow-commits" && level=0.05 || level=0
mawk -v seed="\$seed" -v l="\$level" 'BEGIN { srand(seed % 2147483647); u1 = rand(); u2 = rand()
	if (u1 < 1e-12) u1 = 1e-12; z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)
	printf "latency: %.4f ms\n", 100 * exp(log(1 + l) + 0.03 * z) }'
EOF
cat >keyed.json <<EOF
{"name": "keyed", "command": ["sh", "$TRASH_DIRECTORY/keyed.sh"],
 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower"},
 "runs_per_boot": 5}
EOF
BUILD="sh $TRASH_DIRECTORY/build.sh"

test_expect_success 'setup' '
	test -n "$C" && test -n "$N" &&
	noisy_bench "$TRASH_DIRECTORY/noisy.json" &&
	git -C flat rev-list $N^..bad >slow-commits &&
	test "$(wc -l <slow-commits)" = 21
'

test_expect_success 'a --build command without KBISECT_ARTIFACT: the no-op check is n/a' '
	cd repo &&
	"$KBISECT" start good bad --bench ../noisy.json --build true --seed 4 >out 2>err &&
	"$KBISECT" report --json >../plain.json &&
	test "$(json_get ../plain.json verdict)" = culprit &&
	test "$(json_get ../plain.json culprits[0].checks.no_op)" = n/a &&
	grep "^checks: .*rebuild n/a, no-op n/a, warm-up" out &&
	! grep "takes that commit" err &&
	"$KBISECT" reset 2>/dev/null
'

test_expect_success 'probes built as GOOD or BAD take their samples: the culprit, with fewer runs' '
	cd repo &&
	"$KBISECT" start good bad --bench ../noisy.json --build "$BUILD" --seed 4 >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	test "$(json_get r.json culprits[0].checks.no_op)" = pass &&
	test "$(json_get r.json culprits[0].checks.parent_vs_culprit)" = pass &&
	test "$(json_get r.json culprits[0].checks.revert)" = pass &&
	grep "^checks: .*rebuild n/a, no-op pass, warm-up" out &&
	grep "^#regzbot introduced: $(echo $C | cut -c1-12)\$" out &&
	grep "^  [0-9a-f]\{12\}: its build is the same as that of \($(echo $G | cut -c1-12)\|$(echo $B | cut -c1-12)\) (apart from version strings): it takes that commit.s [0-9]* samples instead of a boot\$" err &&
	json_flat r.json >flat.txt &&
	grep "^steps\[[0-9]*\]\.same_as	\($G\|$B\)\$" flat.txt &&
	grep "; the samples of [0-9a-f]\{12\}, built the same)\$" out &&
	runs=$(json_get r.json runs_total) && plain=$(json_get ../plain.json runs_total) &&
	test $runs -lt $plain
'

test_expect_success SQLITE3 'the samples taken are in the database once, as their commit'"'"'s' '
	cd repo &&
	# this session only: the database keeps the one before
	sq () { sqlite3 .git/kbisect.db "$1 and session = (select max(id) from sessions)"; } &&
	test "$(sq "select count(*) from events where kind = '"'"'same'"'"'")" -ge 1 &&
	test "$(sq "select count(*) from events where kind = '"'"'signature'"'"'")" -ge 4 &&
	# a commit that took samples was never run, unless it was asked for
	# again (the verification measures the culprit and its parent
	# themselves)
	c=$(json_get r.json culprits[0].commit) && p=$(json_get r.json culprits[0].parent) &&
	for x in $(sq "select substr(detail, 1, 40) from events where kind = '"'"'same'"'"'"); do
		test $x = $c || test $x = $p ||
		test "$(sq "select count(*) from runs where sha = '"'"'$x'"'"'")" = 0 || return 1
	done &&
	test "$(json_get r.json runs_total)" = "$(sq "select count(*) from runs where state = '"'"'done'"'"'")"
'

test_expect_success 'log and replay in a fresh clone: signatures and samples taken, the same report' '
	cd repo &&
	"$KBISECT" log >../same.log &&
	grep "^signature $G [0-9a-f]\{40\}\$" ../same.log &&
	grep "^same [0-9a-f]\{40\} \($G\|$B\)\$" ../same.log &&
	git clone -q . ../clone &&
	cd ../clone &&
	"$KBISECT" replay ../same.log 2>err &&
	"$KBISECT" report --json >r2.json &&
	json_flat ../repo/r.json | grep -v "^state	\|^setup\.\|^builds_total	" >r1.txt &&
	json_flat r2.json | grep -v "^state	\|^setup\.\|^builds_total	" >r2.txt &&
	test_cmp r1.txt r2.txt &&
	"$KBISECT" reset 2>/dev/null &&
	{ sed -n "1,/^bench/p" ../same.log; echo "same $G 12345"; } >bad.log &&
	test_expect_code 1 "$KBISECT" replay bad.log 2>err &&
	grep "bad.log:5: .signature. and .same. take a commit and 40 hex digits" err
'

test_expect_success SQLITE3 'kill -9 twice, resume: the same culprit, every run once' '
	rm -rf again && cp -r repo again && cd again && rm -rf .git/kbisect.db* || return 1
	"$KBISECT" start good bad --bench ../noisy.json --build "$BUILD" --seed 4 >out 2>err &
	pid=$!
	test_wait_for "test_run_started 15" 400 &&
	kill -9 $pid && { wait $pid; true; } &&
	{ "$KBISECT" resume >out2 2>err2 & pid=$!; } &&
	test_wait_for "test_run_started 45" 400 &&
	kill -9 $pid && { wait $pid; true; } &&
	"$KBISECT" resume >out3 2>err3 &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	test "$(json_get r.json culprits[0].checks.no_op)" = pass &&
	test "$(sqlite3 .git/kbisect.db "select count(*) from (select sha, boot, run from runs where state = '"'"'done'"'"' group by sha, boot, run having count(*) > 1)")" = 0 &&
	test "$(sqlite3 .git/kbisect.db "pragma integrity_check")" = ok
'

test_expect_success 'a culprit built as its parent: inconclusive, a no-op warning, no commit for regzbot' '
	cd flat &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../keyed.json \
		--build "sh $TRASH_DIRECTORY/build-list.sh" --seed 4 >out 2>err &&
	test_expect_code 3 "$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = inconclusive &&
	test "$(json_get r.json culprits[0].commit)" = $N &&
	test "$(json_get r.json culprits[0].checks.no_op)" = warning &&
	test "$(json_get r.json reason)" = "the culprit'"'"'s build is identical to its parent'"'"'s apart from version strings" &&
	json_flat r.json >flat.txt &&
	grep "^warnings\[[0-9]*\]\.kind	no-op\$" flat.txt &&
	grep "^  no-op: $(echo $N | cut -c1-12): the culprit.s build is identical to its parent.s apart from version strings: the change cannot have moved the benchmark\$" out &&
	grep "^Inconclusive: the culprit.s build is identical" out &&
	grep "^checks: .*no-op warning" out &&
	grep "^#regzbot introduced: [0-9a-f]\{12\}\.\.[0-9a-f]\{12\}\$" out &&
	! grep "^#regzbot introduced: $(echo $N | cut -c1-12)" out &&
	"$KBISECT" status --json >st.json &&
	test "$(json_get st.json verdict)" = inconclusive &&
	! json_get st.json culprit
'

test_done
