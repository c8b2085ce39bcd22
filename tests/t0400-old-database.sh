#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'databases of schema 2, saved: they open, resume and report as the kbisect of schema 2 did'

# tests/fixtures/schema2/ holds sessions written by the kbisect of schema
# version 2 (see make.sh there: it is not run again): each as an SQL dump,
# with the genrepo history it was run on and what that kbisect printed for
# it.  Here each history is made again, the dump loaded into a new
# database, and this kbisect must print the same, byte for byte; the
# unfinished sessions must go on to the end as they did.  A finished
# session keeps the verdict it ended with; what an unfinished performance
# session does next is the engine's, and perf-unfinished.want and
# perf-unfinished.resumed.want hold what this kbisect's engine (boots as
# the unit of evidence, pairs measured together) does with the saved
# samples: the same culprit, in more runs.  The reports of performance
# sessions say besides why their rebuild check was not made (perf.want,
# perf-unfinished.resumed.want).

command -v sqlite3 >/dev/null 2>&1 || test_skip_all 'sqlite3 is not installed'

# paths as kbisect records them, without symbolic links
TOP=$(cd "$TEST_DIR/.." && pwd -P)
FIX=$TOP/tests/fixtures/schema2
HERE=$(pwd -P)

# The time now minus a time stored (a machine's "for N s", a run's
# "seconds" in status) differs from one run of the same code to the next:
# written as @SECONDS@, as make.sh wrote it.  Nothing else is changed.
normalise () {
	sed -e '/^machine [0-9]*: \|^running: /s/ for [0-9]* s/ for @SECONDS@ s/' \
	    -e 's/^\( *"seconds": \)[-0-9.e+]*/\1@SECONDS@/'
}

# show ARGS...: what kbisect ARGS prints, with its exit status, in the form
# of make.sh
show () {
	echo "\$ kbisect $*"
	show_code_=0
	"$KBISECT" "$@" >"$TRASH_DIRECTORY/show.out" 2>"$TRASH_DIRECTORY/show.err" ||
		show_code_=$?
	cat "$TRASH_DIRECTORY/show.out"
	if test -s "$TRASH_DIRECTORY/show.err"; then
		echo "--- stderr"
		cat "$TRASH_DIRECTORY/show.err"
	fi
	echo "--- exit $show_code_"
}

outputs () {
	show report --json
	show report
	show status --json
	show status
	show log
}

# schema2_log NAME: the output of outputs() for NAME as the kbisect of
# schema 2 wrote its log.  Its log of a pool named the first machine only
# and not the machine of each run, and so replayed as one machine; this
# kbisect writes every machine in 'start', the machine after each 'run'
# and the machines' verification pairs.  Those are taken out here (and
# checked against the database in the test after); everything else must
# be the same.
schema2_log () {
	case $1 in
	pool)	sed -e '/^start /s/\( --build [^ ]*\)\( --target [^ ]*\)*/\1/' \
		    -e '/^pairs /d' -e 's/^\(run .*\) [0-9][0-9]*$/\1/' ;;
	*)	cat ;;
	esac
}

# want NAME FILE: the saved FILE of NAME with the paths of this run
want () {
	sed -e "s|@REPO@|$HERE/$1|g" -e "s|@TOP@|$TOP|g" "$FIX/$2"
}

# make_revert DIR FILE: write the revert commit saved in FILE, and its tree
# (BAD's, without the file the culprit added), into the repository DIR, as
# kbisect wrote it into the repository the session ran in; prints its id
make_revert () {
	(
		cd "$1" &&
		tree=$(sed -n '1s/^tree //p' "$2") &&
		parent=$(sed -n '2s/^parent //p' "$2") &&
		culprit=$(sed -n 's/^This reverts commit \([0-9a-f]*\) on top of .*/\1/p' "$2") &&
		GIT_INDEX_FILE=$1/.git/revert-index &&
		export GIT_INDEX_FILE &&
		git read-tree "$parent" &&
		git diff-tree -r --no-commit-id --name-only --diff-filter=A "$culprit" >../paths &&
		xargs git update-index --force-remove <../paths &&
		test "$(git write-tree)" = "$tree" &&
		rm -f "$GIT_INDEX_FILE" &&
		git hash-object -t commit -w --stdin <"$2"
	)
}

# load NAME: the history of NAME made again in NAME/, the revert commit of
# its session, and the saved database as NAME/.git/kbisect.db
load () {
	"$GENREPO" "$1" $(sed -n "s/^$1 //p" "$FIX/repos") >"$1.gen" &&
	test_cmp "$FIX/$1.gen" "$1.gen" &&
	if test -f "$FIX/$1.revert"; then
		rev=$(sed -n "s/.*,'revert','[0-9a-f]* \([0-9a-f]\{40\}\)');\$/\1/p" "$FIX/$1.sql") &&
		test -n "$rev" &&
		test "$(make_revert "$HERE/$1" "$FIX/$1.revert")" = "$rev"
	fi &&
	want "$1" "$1.sql" | sqlite3 "$1/.git/kbisect.db" &&
	test "$(sqlite3 "$1/.git/kbisect.db" "PRAGMA user_version")" = 2 &&
	test "$(sqlite3 "$1/.git/kbisect.db" "PRAGMA integrity_check")" = ok
}

# db_ok NAME: after kbisect opened it, the database is of schema 2 or later
# and undamaged
db_ok () {
	v=$(sqlite3 "$1/.git/kbisect.db" "PRAGMA user_version") &&
	test "$v" -ge 2 &&
	test "$(sqlite3 "$1/.git/kbisect.db" "PRAGMA integrity_check")" = ok
}

test_expect_success 'setup: six sessions saved' '
	test "$(cut -d" " -f1 "$FIX/repos" | tr "\n" " ")" = \
		"passfail perf passfail-unfinished perf-unfinished compare pool "
'

for name in passfail perf passfail-unfinished perf-unfinished compare pool; do
	test_expect_success "$name: genrepo makes the same commits; the dump loads as schema 2" "
		load $name
	"

	test_expect_success "$name: report, status and log print what the kbisect of schema 2 printed" "
		(cd $name && outputs) | normalise | schema2_log $name >$name.got &&
		want $name $name.want >$name.want &&
		test_cmp $name.want $name.got &&
		db_ok $name
	"
done

test_expect_success 'pool: its log names both machines and the machine of each run' '
	(cd pool && "$KBISECT" log) >pool.log &&
	test "$(grep "^start " pool.log | grep -o -- "--target local" | wc -l)" = 2 &&
	grep -q "^pairs [01] [01]$" pool.log &&
	awk "\$1 == \"run\" { print \$2, \$3, \$4, \$10 }" pool.log | sort >log.machines &&
	sqlite3 -separator " " pool/.git/kbisect.db "select sha, boot, run, machine from runs" |
		sort >db.machines &&
	test_cmp db.machines log.machines
'

# The unfinished sessions go on to the end: the same runs, the same
# report as the kbisect of schema 2 gave when it resumed the same dump,
# and the verdict and the culprit of the same bisection never stopped.

test_expect_success 'passfail-unfinished: resume goes on to the end as it did' '
	(cd passfail-unfinished && show resume && outputs) | normalise >pf-resumed.got &&
	want passfail-unfinished passfail-unfinished.resumed.want >pf-resumed.want &&
	test_cmp pf-resumed.want pf-resumed.got &&
	db_ok passfail-unfinished &&
	cd passfail-unfinished &&
	"$KBISECT" report --json >../r.json &&
	test "$(json_get ../r.json verdict)" = culprit &&
	test "$(json_get ../r.json culprits[0].commit)" = "$(gen_field ../passfail-unfinished culprit)"
'

test_expect_success 'passfail-unfinished: the same bisection from the start names the same culprit' '
	P=$(gen_field passfail-unfinished culprit_path) &&
	cd passfail-unfinished &&
	"$KBISECT" start good bad --seed 5 --command "test ! -e $P" --db ../fresh-pf.db \
		>/dev/null 2>&1 &&
	"$KBISECT" report --json --db ../fresh-pf.db >../fresh.json &&
	test "$(json_get ../fresh.json verdict)" = "$(json_get ../r.json verdict)" &&
	test "$(json_get ../fresh.json culprits[0].commit)" = "$(json_get ../r.json culprits[0].commit)"
'

test_expect_success 'perf-unfinished: resume runs the run cut short again and goes on to the end as it did' '
	(cd perf-unfinished && show resume && outputs) | normalise >resumed.got &&
	want perf-unfinished perf-unfinished.resumed.want >resumed.want &&
	test_cmp resumed.want resumed.got &&
	db_ok perf-unfinished &&
	cd perf-unfinished &&
	"$KBISECT" report --json >../r.json &&
	test "$(json_get ../r.json verdict)" = culprit &&
	test "$(json_get ../r.json culprits[0].commit)" = "$(gen_field ../perf-unfinished culprit)"
'

test_expect_success 'perf-unfinished: the same bisection from the start names the same culprit' '
	cd perf-unfinished &&
	"$KBISECT" start good bad --seed 6 --bench "$FIX/bench.json" --db ../fresh-perf.db \
		>/dev/null 2>&1 &&
	"$KBISECT" report --json --db ../fresh-perf.db >../fresh.json &&
	test "$(json_get ../fresh.json verdict)" = "$(json_get ../r.json verdict)" &&
	test "$(json_get ../fresh.json culprits[0].commit)" = "$(json_get ../r.json culprits[0].commit)"
'

test_expect_success 'compare: the compare killed part way goes on where it was, as it did' '
	(cd compare && show compare good bad --bench "$FIX/bench.json" -n 4 --json && outputs) |
		normalise >cmp4.got &&
	want compare compare.cmp4.want >cmp4.want &&
	test_cmp cmp4.want cmp4.got &&
	db_ok compare &&
	grep "^  \"verdict\": \"regression\",\$" cmp4.got
'

# A finished compare is not taken up again: the same compare measures anew,
# in a session of its own, and prints what the finished one printed.
test_expect_success 'compare: the finished compare stays as it was; the same compare again prints the same' '
	(cd compare && show compare good bad --bench "$FIX/bench.json" -n 3) | normalise >cmp3.got &&
	want compare compare.cmp3.want >cmp3.want &&
	test_cmp cmp3.want cmp3.got &&
	(cd compare && outputs) | normalise >after.got &&
	sed -n "/^\\\$ kbisect report --json\$/,\$p" cmp4.want >after.want &&
	test_cmp after.want after.got &&
	db_ok compare
'

test_done
