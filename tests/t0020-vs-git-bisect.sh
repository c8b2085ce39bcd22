#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'pass/fail bisection agrees with git bisect and picks best splits'

# check_best_splits LOG GOOD BAD: replay the marks of a kbisect log in order;
# before each one, the commit kbisect chose must have the largest dist= that
# git rev-list --bisect-all gives for the candidates at that point (the
# marks must be those of a fully automatic run without skips).
check_best_splits () {
	cbs_goods=$2
	cbs_bad=$3
	grep -E '^(good|bad|skip) [0-9a-f]{40}' "$1" | cut -d' ' -f1,2 >marks || return 1
	test -s marks || { echo "no marks in $1"; return 1; }
	while read cbs_mark cbs_sha; do
		git rev-list --bisect-all $cbs_bad --not $cbs_goods >bisect-all || return 1
		cbs_max=$(sed -n 's/.*(dist=\([0-9]*\)).*/\1/p' bisect-all | sort -n | tail -n 1)
		cbs_mine=$(sed -n "s/^$cbs_sha (dist=\([0-9]*\)).*/\1/p" bisect-all)
		if test -z "$cbs_mine"; then
			echo "$cbs_sha was tested but is not a candidate (bad $cbs_bad, goods $cbs_goods)"
			return 1
		fi
		if test "$cbs_mine" != "$cbs_max"; then
			echo "$cbs_sha has dist=$cbs_mine, the best split has dist=$cbs_max"
			return 1
		fi
		case $cbs_mark in
		good) cbs_goods="$cbs_goods $cbs_sha" ;;
		bad) cbs_bad=$cbs_sha ;;
		*) echo "unexpected $cbs_mark mark"; return 1 ;;
		esac
	done <marks
}

# bisect_both NAME GENREPO-OPTIONS...: generate a history, bisect it with
# kbisect and with git bisect run (on a clone), and compare.
bisect_both () {
	bb_name=$1
	shift
	gen_repo $bb_name "$@" || return 1
	C=$(gen_field $bb_name culprit)
	P=$(gen_field $bb_name culprit_path)
	G=$(gen_field $bb_name good)
	B=$(gen_field $bb_name bad)
	test -n "$C" && test -n "$P" && test -n "$G" && test -n "$B" || return 1
	git clone -q $bb_name $bb_name.clone || return 1

	# kbisect, in the user's repository (every command checked: this
	# must work whether or not set -e is in force where it is called)
	cd $bb_name || return 1
	bb_head=$(git rev-parse HEAD) || return 1
	bb_ref=$(git symbolic-ref HEAD) || return 1
	test_expect_code 0 "$KBISECT" start $G $B --command "test ! -e $P" --seed 1 \
		>../$bb_name.kb.out 2>../$bb_name.kb.err || { cat ../$bb_name.kb.err; return 1; }
	"$KBISECT" report --json >../$bb_name.report || return 1
	"$KBISECT" log >../$bb_name.log || return 1
	# the user's work tree, index and HEAD are untouched
	git status --porcelain >../$bb_name.status || return 1
	test ! -s ../$bb_name.status || { cat ../$bb_name.status; return 1; }
	git diff --cached --quiet || return 1
	test "$(git rev-parse HEAD)" = "$bb_head" || return 1
	test "$(git symbolic-ref HEAD)" = "$bb_ref" || return 1
	check_best_splits ../$bb_name.log $G $B || return 1
	cd .. || return 1
	test "$(json_get $bb_name.report verdict)" = culprit || return 1
	test "$(json_get $bb_name.report culprits[0].commit)" = $C || {
		echo "kbisect blames $(json_get $bb_name.report culprits[0].commit), the culprit is $C"
		return 1
	}
	grep "^#regzbot introduced: $(echo $C | cut -c1-12)\$" $bb_name.kb.out >/dev/null || return 1
	kb_runs=$(json_get $bb_name.report runs_total) || return 1

	# git bisect run, on a clone
	cd $bb_name.clone || return 1
	git bisect start $B $G >/dev/null || return 1
	git bisect run sh -c "echo step >>../$bb_name.git-steps; test ! -e $P" \
		>../$bb_name.git.out 2>&1 || { cat ../$bb_name.git.out; return 1; }
	git bisect reset >/dev/null 2>&1 || return 1
	cd .. || return 1
	grep "^$C is the first bad commit" $bb_name.git.out >/dev/null || {
		echo "git bisect does not name $C:"; cat $bb_name.git.out; return 1; }
	git_steps=$(wc -l <$bb_name.git-steps)
	echo "$bb_name: kbisect $kb_runs runs, git bisect $git_steps steps"
	if test "$kb_runs" -gt $((git_steps + 1)); then
		echo "kbisect needed $kb_runs runs, git bisect $git_steps steps"
		return 1
	fi
	# every step of kbisect's report is a run of the test, none repeated
	json_list $bb_name.report steps .commit | sort >$bb_name.steps || return 1
	test "$(wc -l <$bb_name.steps)" -eq "$kb_runs" || return 1
	test "$(uniq $bb_name.steps | wc -l)" -eq "$kb_runs" || return 1
}

i=0
for conf in \
	"30 1 0.1" "30 2 0.3" "30 3 0.05" "30 4 0.5" \
	"100 11 0.1" "100 12 0.25" "100 13 0.4" "100 14 0.02" \
	"250 21 0.1" "250 22 0.3" "250 23 0.15" "250 24 0.45"
do
	set -- $conf
	i=$((i + 1))
	test_expect_success "history $i: $1 commits, seed $2, merge rate $3" "
		bisect_both h$i --commits $1 --seed $2 --merge-rate $3 --culprits random:1
	"
done

test_expect_success 'a culprit that is BAD itself, and one right after GOOD' '
	gen_repo lin --seed 7 --commits 40 --merge-rate 0 --branch-rate 0 \
		--culprits 40:1 &&
	C=$(gen_field lin culprit) && P=$(gen_field lin culprit_path) &&
	G=$(gen_field lin good) && B=$(gen_field lin bad) &&
	test $C = $B &&
	cd lin &&
	"$KBISECT" start $G $B --command "test ! -e $P" --seed 1 >out 2>err &&
	"$KBISECT" report --json >report &&
	test "$(json_get report culprits[0].commit)" = $B &&
	"$KBISECT" reset 2>err &&
	first=$(git rev-list --reverse $B --not $G | head -n 1) &&
	P1=$(git diff-tree --no-commit-id --name-only -r $first) &&
	"$KBISECT" start $G $B --command "test ! -e $P1" --seed 1 >out 2>err &&
	"$KBISECT" report --json >report &&
	test "$(json_get report culprits[0].commit)" = $first &&
	"$KBISECT" log >log &&
	check_best_splits log $G $B
'

test_done
