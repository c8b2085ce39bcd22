#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'path limiting (-- PATH) and --first-parent, compared with git bisect'

# find_history NAME CONDITION GENREPO-OPTIONS...: generate histories with
# seeds 1, 2, ... until CONDITION (shell code; $C $P $G $B are set, cwd is
# the repository) holds; keep that one as NAME.  Deterministic: the same
# seed is found every time.
find_history () {
	fh_name=$1
	fh_cond=$2
	shift 2
	fh_seed=0
	while test $fh_seed -lt 60; do
		fh_seed=$((fh_seed + 1))
		rm -rf $fh_name $fh_name.gen
		gen_repo $fh_name --seed $fh_seed "$@" || return 1
		C=$(gen_field $fh_name culprit)
		P=$(gen_field $fh_name culprit_path)
		G=$(gen_field $fh_name good)
		B=$(gen_field $fh_name bad)
		if (cd $fh_name && eval "$fh_cond"); then
			echo "$fh_name: seed $fh_seed"
			return 0
		fi
	done
	echo "no seed up to $fh_seed gives a history where: $fh_cond"
	return 1
}

# git_bisect_run NAME [START-OPTIONS] -- [PATHS]: git bisect run on a
# clone of NAME with the culprit test; prints the first bad commit.
git_bisect_run () {
	gb_name=$1
	shift
	rm -rf $gb_name.clone
	git clone -q $gb_name $gb_name.clone || return 1
	(
		cd $gb_name.clone &&
		git bisect start "$@" >/dev/null &&
		git bisect run sh -c "test ! -e $P" >../$gb_name.git.out 2>&1 &&
		git bisect reset >/dev/null 2>&1
	) || { cat $gb_name.git.out; return 1; }
	sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' $gb_name.git.out
}

test_expect_success 'setup: a history whose culprit is in a/' '
	find_history pa "case \$P in a/*) true ;; *) false ;; esac" \
		--commits 80 --paths a,b --merge-rate 0.2 &&
	echo "$C $P $G $B" >pa.vars
'

test_expect_success 'kbisect -- a names the culprit, as git bisect -- a does' '
	read C P G B <pa.vars &&
	(
		cd pa &&
		"$KBISECT" start $G $B --command "test ! -e $P" --seed 1 -- a >../pa.out 2>../pa.err &&
		"$KBISECT" report --json >../pa.report &&
		"$KBISECT" log >../pa.log
	) &&
	test "$(json_get pa.report culprits[0].commit)" = $C &&
	test "$(git_bisect_run pa $B $G -- a)" = $C
'

test_expect_success 'the range of -- a is what git rev-list -- a gives, plus BAD' '
	read C P G B <pa.vars &&
	(cd pa && git rev-list $B --not $G -- a) >pa.git-range &&
	(cd pa && git rev-list $B --not $G) >pa.full-range &&
	n=$(wc -l <pa.git-range) &&
	grep -x $B pa.git-range || n=$((n + 1)) &&
	echo "range: git $n, kbisect $(json_get pa.report range), unlimited $(wc -l <pa.full-range)" &&
	test "$(json_get pa.report range)" = $n &&
	test $n -lt $(wc -l <pa.full-range)
'

test_expect_success 'every commit kbisect tested touches a/ (or is BAD)' '
	read C P G B <pa.vars &&
	echo $B >>pa.git-range &&
	sed -n -E "s/^(good|bad|skip) ([0-9a-f]{40}).*/\2/p" pa.log >pa.tested &&
	test -s pa.tested &&
	while read sha; do
		grep -x $sha pa.git-range >/dev/null || {
			echo "$sha does not touch a/"; exit 1; }
	done <pa.tested
'

test_expect_success 'the log records the paths and replays to the same answer' '
	read C P G B <pa.vars &&
	grep "^start .* -- a\$" pa.log &&
	(
		cd pa &&
		"$KBISECT" replay ../pa.log --db ../pa-replay.db 2>../replay.err &&
		"$KBISECT" report --json --db ../pa-replay.db >../pa-replay.report
	) &&
	test "$(json_get pa-replay.report culprits[0].commit)" = $C &&
	test "$(json_get pa-replay.report range)" = "$(json_get pa.report range)"
'

test_expect_success 'a path that no commit in the range touches: BAD is the answer' '
	read C P G B <pa.vars &&
	(
		cd pa &&
		"$KBISECT" reset 2>/dev/null &&
		"$KBISECT" start $G $B --command "test ! -e $P" --seed 1 -- nowhere >../pn.out 2>../pn.err &&
		"$KBISECT" report --json >../pn.report
	) &&
	test "$(json_get pn.report range)" = 1 &&
	test "$(json_get pn.report culprits[0].commit)" = $B &&
	test "$(json_get pn.report runs_total)" = 0
'

test_expect_success 'more histories: -- a agrees with git on the range and the culprit' '
	for seed in 10 11 12 13 14 15 16 17 18 19; do
		gen_repo m$seed --seed $seed --commits 60 --paths a,b,c/d \
			--merge-rate 0.3 --branch-rate 0.3
		C=$(gen_field m$seed culprit)
		P=$(gen_field m$seed culprit_path)
		G=$(gen_field m$seed good)
		B=$(gen_field m$seed bad)
		case $P in
		a/*) ;;
		*) continue ;;
		esac
		echo $seed >>m.used
		(cd m$seed && "$KBISECT" start $G $B --command "test ! -e $P" --seed 3 -- a \
			>../m$seed.out 2>../m$seed.err)
		(cd m$seed && "$KBISECT" report --json) >m$seed.report
		test "$(json_get m$seed.report culprits[0].commit)" = $C
		n=$(cd m$seed && git rev-list $B --not $G -- a | grep -v -x $B | wc -l)
		test "$(json_get m$seed.report range)" = $((n + 1))
		test "$(git_bisect_run m$seed $B $G -- a)" = $C
	done
	test $(wc -l <m.used) -ge 3
'

test_expect_success 'setup: a history whose culprit is on a side branch' '
	find_history fp "! git rev-list --first-parent \$B | grep -x \$C >/dev/null" \
		--commits 80 --merge-rate 0.15 --branch-rate 0.3 &&
	echo "$C $P $G $B" >fp.vars &&
	cd fp &&
	# the first-parent commit that brought the culprit in
	for c in $(git rev-list --first-parent --reverse $B --not $G); do
		if git merge-base --is-ancestor $C $c; then
			echo $c >../fp.expect
			break
		fi
	done &&
	test -s ../fp.expect &&
	test "$(cat ../fp.expect)" != $C &&
	git rev-list --parents -n 1 $(cat ../fp.expect) >../fp.parents &&
	test $(wc -w <../fp.parents) = 3
'

test_expect_success '--first-parent names the merge that brought the culprit in' '
	read C P G B <fp.vars &&
	E=$(cat fp.expect) &&
	(
		cd fp &&
		"$KBISECT" start --first-parent $G $B --command "test ! -e $P" --seed 1 \
			>../fp.out 2>../fp.err &&
		"$KBISECT" report --json >../fp.report &&
		"$KBISECT" log >../fp.log
	) &&
	test "$(json_get fp.report culprits[0].commit)" = $E &&
	grep "^start .*--first-parent" fp.log
'

test_expect_success GIT_BISECT_FIRST_PARENT 'git bisect --first-parent agrees' '
	read C P G B <fp.vars &&
	test "$(git_bisect_run fp --first-parent $B $G)" = "$(cat fp.expect)"
'

test_expect_success '--first-parent tests only first-parent commits; its range is that chain' '
	read C P G B <fp.vars &&
	(cd fp && git rev-list --first-parent $B --not $G) >fp.chain &&
	test "$(json_get fp.report range)" = $(wc -l <fp.chain) &&
	sed -n -E "s/^(good|bad|skip) ([0-9a-f]{40}).*/\2/p" fp.log >fp.tested &&
	test -s fp.tested &&
	while read sha; do
		grep -x $sha fp.chain >/dev/null || {
			echo "$sha is not on the first-parent chain"; exit 1; }
	done <fp.tested
'

test_expect_success 'without --first-parent the same history gives the culprit itself' '
	read C P G B <fp.vars &&
	(
		cd fp &&
		"$KBISECT" reset 2>/dev/null &&
		"$KBISECT" start $G $B --command "test ! -e $P" --seed 1 >../fp2.out 2>../fp2.err &&
		"$KBISECT" report --json >../fp2.report
	) &&
	test "$(json_get fp2.report culprits[0].commit)" = $C
'

test_done
