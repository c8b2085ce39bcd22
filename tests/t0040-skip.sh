#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'skipped commits (exit 125): suspects when they border the culprit, the culprit when not'

# The test: exit 125 for the commits listed in the file $1, else the culprit
# rule.  The commit comes from $KBISECT_COMMIT under kbisect (its work tree
# has no .git), from HEAD under git bisect run.
cat >skiptest.sh <<'EOF'
skipset=$1
path=$2
c=${KBISECT_COMMIT:-$(git rev-parse HEAD)}
echo $c >>"$skipset.$3.ran"
if grep -x "$c" "$skipset" >/dev/null; then
	exit 125
fi
test ! -e "$path"
EOF

# children SHA: the children of SHA in the range
children () {
	(cd h && git rev-list --children $B --not $G) | awk -v c=$1 '$1 == c { $1 = ""; print }'
}

# A history where the culprit C is an ordinary commit whose parent P is in
# the range and has no other child, C's only child D is ordinary and has
# one child too, so that the commits a bisection can end between are the
# same whoever bisects (when D had two children, either could end up as the
# first bad commit after the skips, depending on the order of the tests).
seed=0
while test $seed -lt 100; do
	seed=$((seed + 1))
	rm -rf h h.gen
	gen_repo h --seed $seed --commits 60 --merge-rate 0.15 || break
	C=$(gen_field h culprit)
	P=$(gen_field h culprit_path)
	G=$(gen_field h good)
	B=$(gen_field h bad)
	parents=$(cd h && git rev-list --parents -n 1 $C | cut -d' ' -f2-)
	case $parents in *' '*) continue ;; esac
	test "$parents" != $G || continue
	test "$(children $parents | wc -w)" = 1 || continue
	kids=$(children $C)
	test "$(echo $kids | wc -w)" = 1 || continue
	kid_parents=$(cd h && git rev-list --parents -n 1 $kids | wc -w)
	test "$kid_parents" = 2 || continue
	test "$(children $kids | wc -w)" = 1 || continue
	CP=$parents
	CD=$(echo $kids)
	break
done

test_expect_success 'setup' '
	test -n "$CP" && test -n "$CD" &&
	echo "seed $seed: culprit $C, parent $CP, child $CD" &&
	git clone -q h h.clone
'

# kb_skip NAME SKIPFILE: kbisect with the skip test; exit status in NAME.rc
kb_skip () {
	(cd h && "$KBISECT" reset >/dev/null 2>&1) || true
	ks_rc=0
	(
		cd h &&
		"$KBISECT" start $G $B --seed 5 \
			--command "sh $TRASH_DIRECTORY/skiptest.sh $TRASH_DIRECTORY/$2 $P kb" \
			>../$1.out 2>../$1.err
	) || ks_rc=$?
	echo $ks_rc >$1.rc
	ks_rc=0
	(cd h && "$KBISECT" report --json >../$1.report) || ks_rc=$?
	test $ks_rc = 0 || test $ks_rc = 3 || return 1
	(cd h && "$KBISECT" log >../$1.log) || return 1
}

# git_skip NAME SKIPFILE: git bisect run with the skip test
git_skip () {
	(
		cd h.clone &&
		git bisect start $B $G >/dev/null &&
		{ git bisect run sh "$TRASH_DIRECTORY/skiptest.sh" "$TRASH_DIRECTORY/$2" $P git \
			>../$1.git.out 2>&1; true; } &&
		git bisect reset >/dev/null 2>&1
	)
}

# git's "could be any of" list, sorted
git_suspects () {
	sed -n "/could be any of:/,/cannot bisect more/p" $1.git.out |
	grep -x "[0-9a-f]\{40\}" | sort
}

test_expect_success 'skips bordering the culprit (its parent and itself): inconclusive, exit 3' '
	printf "%s\n" $CP $C >skip1 &&
	kb_skip s1 skip1 &&
	test "$(cat s1.rc)" = 3 &&
	test "$(json_get s1.report verdict)" = inconclusive &&
	json_list s1.report suspects .commit | sort >s1.suspects &&
	printf "%s\n" $CP $C $CD | sort >s1.expect &&
	test_cmp s1.expect s1.suspects &&
	test "$(json_get s1.report culprits)" = "[]" &&
	grep "could be any of" s1.out &&
	grep -F $C s1.out &&
	grep "^#regzbot introduced: [0-9a-f]*\.\.[0-9a-f]*$" s1.out
'

test_expect_success 'git bisect run lists the same suspects' '
	git_skip s1 skip1 &&
	grep "only .skip.ped commits left" s1.git.out &&
	git_suspects s1 >s1.git-suspects &&
	test_cmp s1.suspects s1.git-suspects
'

test_expect_success 'the report shows the skips as steps with exit status 125' '
	json_flat s1.report >s1.flat &&
	n=$(grep -c "^steps\[[0-9]*\]\.decision	skip$" s1.flat) &&
	test "$n" -ge 1 &&
	grep "^steps\[[0-9]*\]\.exit_status	125$" s1.flat &&
	test "$(json_get s1.report runs_total)" = $(wc -l <skip1.kb.ran)
'

test_expect_success 'status agrees: nothing left to test' '
	(cd h && "$KBISECT" status --json) >s1.status &&
	test "$(json_get s1.status next)" = null &&
	test "$(json_get s1.status verdict)" = inconclusive
'

test_expect_success 'a longer run of skips around the culprit (parent, culprit, child)' '
	printf "%s\n" $CP $C $CD >skip2 &&
	kb_skip s2 skip2 &&
	test "$(cat s2.rc)" = 3 &&
	json_list s2.report suspects .commit | sort >s2.suspects &&
	grep -x $CP s2.suspects && grep -x $C s2.suspects && grep -x $CD s2.suspects &&
	test $(wc -l <s2.suspects) = 4 &&
	git_skip s2 skip2 &&
	git_suspects s2 >s2.git-suspects &&
	test_cmp s2.suspects s2.git-suspects
'

test_expect_success 'skips away from the culprit (the best splits): the culprit is still found' '
	(cd h && git rev-list --bisect-all $B --not $G) |
	sed -n "s/^\([0-9a-f]*\) (dist=\([0-9]*\)).*/\2 \1/p" | sort -rn |
	cut -d" " -f2 | grep -v -x -e $C -e $CP -e $B | head -n 6 >skip3 &&
	test $(wc -l <skip3) = 6 &&
	kb_skip s3 skip3 &&
	test "$(cat s3.rc)" = 0 &&
	test "$(json_get s3.report verdict)" = culprit &&
	test "$(json_get s3.report culprits[0].commit)" = $C &&
	json_flat s3.report >s3.flat &&
	grep "^steps\[[0-9]*\]\.decision	skip$" s3.flat &&
	grep "^warnings\[[0-9]*\]\.kind	skipped$" s3.flat &&
	git_skip s3 skip3 &&
	grep "^$C is the first bad commit" s3.git.out
'

test_expect_success 'every commit was run once, and skipped commits were never marked otherwise' '
	for f in skip[123].*.ran; do
		test "$(sort $f | uniq -d)" = "" || { echo "$f has repeats"; exit 1; }
	done &&
	sed -n -E "s/^(good|bad) ([0-9a-f]{40}).*/\2/p" s3.log >s3.marked &&
	! grep -x -f skip3 s3.marked
'

test_expect_success 'the same skips in a replayed log give the same suspects' '
	(cd h && "$KBISECT" reset 2>/dev/null) &&
	(cd h && "$KBISECT" replay ../s1.log --db ../replay.db 2>../replay.err) &&
	(cd h && test_expect_code 3 "$KBISECT" report --json --db ../replay.db) >r1.report &&
	json_list r1.report suspects .commit | sort >r1.suspects &&
	test_cmp s1.suspects r1.suspects
'

test_done
