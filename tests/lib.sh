# tests/lib.sh - the library of kbisect's shell integration tests.
#
# In the style of git's t/test-lib.sh, for POSIX sh (dash).  A test script
# tests/tNNNN-name.sh looks like:
#
#	#!/bin/sh
#	. "$(dirname "$0")/lib.sh"
#	test_description 'what this script covers'
#
#	test_expect_success 'title' '
#		$KBISECT --version >out &&
#		grep "^kbisect " out
#	'
#	test_done
#
# Each test's code runs in a subshell under 'set -e' (so both "&&" chains
# and plain command lists fail at the first failing command), with stdin
# from /dev/null and its output kept aside: printed only with -v, or under
# the "not ok" line when the test fails.  Being a subshell, a test cannot
# change the variables or the directory of the script or of later tests:
# keep state in files of the trash directory.  Call test_expect_success as
# a plain command, never after "&&" or inside "if": the shell switches
# 'set -e' off in those places, even inside the subshell.
#
# A test that runs longer than $KBISECT_TEST_TIMEOUT seconds (1200 unless
# set; 0: no limit; test_time_limit raises it for the next test) is
# stopped - its processes get SIGTERM, its cleanup runs, what is left
# 10 s later gets SIGKILL - and fails, so that one hang cannot hold up
# the whole run.
#
# Output is TAP: "ok N - title", "not ok N - title",
# "ok N # skip title (missing PREREQ)", diagnostics as "# ..." lines, and
# the plan "1..N" from test_done.
#
# Options of every test script:
#   -v, --verbose    show each test's code and output
#   -x               trace each test's commands (set -x), implies -v
#   -i, --immediate  stop at the first failing test
#   -d, --debug      keep the trash directory even when all tests pass
#   -h, --help       show the description of the script
#
# Available to tests:
#   $KBISECT          absolute path of the kbisect binary under test
#   $GENREPO          absolute path of tests/gen/genrepo
#   $TEST_DIR         absolute path of tests/
#   $TRASH_DIRECTORY  the fresh directory the script runs in
#                     (tests/trash/tNNNN, a git repository of its own so
#                     that nothing ever finds the kbisect source tree's)
# and the helpers defined below (test_cmp, test_expect_code, json_get, ...).

# ---- where things are --------------------------------------------------

TEST_DIR=$(cd "$(dirname "$0")" && pwd) || exit 1
TEST_NAME=$(basename "$0" .sh)
KBISECT=$(cd "$TEST_DIR/.." && pwd)/kbisect
GENREPO=$TEST_DIR/gen/genrepo
export TEST_DIR KBISECT GENREPO

# ---- options -------------------------------------------------------------

verbose=
immediate=
debug=
trace=
test_help_=
for test_arg_ in "$@"; do
	case $test_arg_ in
	-v|--verbose) verbose=t ;;
	-x) trace=t verbose=t ;;
	-i|--immediate) immediate=t ;;
	-d|--debug) debug=t ;;
	-h|--help) test_help_=t ;;
	*)
		echo "Bail out! $TEST_NAME: unknown option '$test_arg_'"
		exit 1
		;;
	esac
done

# ---- a clean, predictable environment ----------------------------------

LC_ALL=C
LANG=C
TZ=UTC
export LC_ALL LANG TZ
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_CEILING_DIRECTORIES \
	GIT_NAMESPACE GIT_PREFIX GIT_CONFIG GIT_CONFIG_PARAMETERS \
	GIT_CONFIG_COUNT GIT_TRACE KBISECT_BENCHMARKS KBISECT_COMMIT \
	KBISECT_BOOT KBISECT_RUN KBISECT_SCRATCH KBISECT_REPO KBISECT_MACHINE
GIT_CONFIG_NOSYSTEM=1
GIT_AUTHOR_NAME='A U Thor'
GIT_AUTHOR_EMAIL=author@example.org
GIT_COMMITTER_NAME='C O Mitter'
GIT_COMMITTER_EMAIL=committer@example.org
GIT_AUTHOR_DATE='1600000000 +0000'
GIT_COMMITTER_DATE='1600000000 +0000'
GIT_MERGE_AUTOEDIT=no
export GIT_CONFIG_NOSYSTEM GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE \
	GIT_COMMITTER_DATE GIT_MERGE_AUTOEDIT
umask 022

# ---- counters and prerequisites ------------------------------------------

test_count=0
test_success=0
test_failure=0
test_skipped=0
test_fixed=0
test_broken=0
test_description_=
satisfied_prereq_=' '
missing_prereq_=

test_description () {
	test_description_=$1
	if test -n "${test_help_:-}"; then
		printf '%s: %s\n' "$TEST_NAME" "$1"
		cd "$TEST_DIR" && test_rm_trash_
		exit 0
	fi
}

say () {
	printf '%s\n' "$*"
}

# Print each line of a file (or of stdin) as a TAP comment.
say_comment_ () {
	sed -e 's/^/#	/' "$@"
}

test_set_prereq () {
	case " $satisfied_prereq_ " in
	*" $1 "*) ;;
	*) satisfied_prereq_="$satisfied_prereq_$1 " ;;
	esac
}

# test_have_prereq A,!B,...: true when A is set and B is not.  Sets
# $missing_prereq_ to the first one that is not as asked.
test_have_prereq () {
	test_prereqs_=$(printf '%s' "$1" | tr ',' ' ')
	missing_prereq_=
	for test_p_ in $test_prereqs_; do
		case $test_p_ in
		!*)
			case "$satisfied_prereq_" in
			*" ${test_p_#!} "*) missing_prereq_=$test_p_; return 1 ;;
			esac
			;;
		*)
			case "$satisfied_prereq_" in
			*" $test_p_ "*) ;;
			*) missing_prereq_=$test_p_; return 1 ;;
			esac
			;;
		esac
	done
	return 0
}

# Prerequisites every script can use.
command -v sqlite3 >/dev/null 2>&1 && test_set_prereq SQLITE3
command -v jq >/dev/null 2>&1 && test_set_prereq JQ
test_git_major_=$(git --version 2>/dev/null | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\1/p')
test_git_minor_=$(git --version 2>/dev/null | sed -n 's/^git version \([0-9]*\)\.\([0-9]*\).*/\2/p')
if test -n "$test_git_major_"; then
	test_set_prereq GIT
	# git bisect --first-parent: git 2.29
	if test "$test_git_major_" -gt 2 ||
	   { test "$test_git_major_" -eq 2 && test "$test_git_minor_" -ge 29; }; then
		test_set_prereq GIT_BISECT_FIRST_PARENT
	fi
fi

# ---- the trash directory ---------------------------------------------------

case $TEST_NAME in
t[0-9][0-9][0-9][0-9]*) test_trash_name_=$(printf '%s' "$TEST_NAME" | cut -c1-5) ;;
*) test_trash_name_=$TEST_NAME ;;
esac
TRASH_DIRECTORY=$TEST_DIR/trash/$test_trash_name_
test_out_=$TEST_DIR/trash/$test_trash_name_.out
export TRASH_DIRECTORY

if ! test -x "$KBISECT"; then
	say "Bail out! $KBISECT is not built (run 'make')"
	exit 1
fi
if ! test -x "$GENREPO"; then
	say "Bail out! $GENREPO is not built (run 'make')"
	exit 1
fi

test_rm_trash_ () {
	chmod -R u+rwx "$TRASH_DIRECTORY" 2>/dev/null
	rm -rf "$TRASH_DIRECTORY" "$test_out_"
}

mkdir -p "$TEST_DIR/trash" || exit 1
# Two runs of the same script (two developers' 'make check') would share
# the trash directory: the second waits for the first.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$TEST_DIR/trash/$test_trash_name_.lock"
	if ! flock -n 9; then
		say "# waiting for another run of $TEST_NAME to finish"
		flock 9
	fi
fi
test_rm_trash_
if ! mkdir -p "$TRASH_DIRECTORY"; then
	say "Bail out! cannot create $TRASH_DIRECTORY"
	exit 1
fi
# A repository of its own: kbisect and git, run in the trash directory or
# below it outside a generated repository, must never find the kbisect
# source tree's .git (and write a database into it).
git init -q "$TRASH_DIRECTORY" || { say "Bail out! git init failed"; exit 1; }
HOME=$TRASH_DIRECTORY
export HOME
# and the files kbisect keeps under it: not where the caller's own
# settings point
unset XDG_CACHE_HOME XDG_CONFIG_HOME
cd "$TRASH_DIRECTORY" || exit 1

# ---- running tests -------------------------------------------------------

# test_when_finished CODE: run CODE when the current test ends, however it
# ends (only inside a test).
test_when_finished () {
	test_cleanup_="$1
${test_cleanup_:-}"
}

# test_kill_tree_ SIGNAL PID...: send SIGNAL to the processes and to all
# their descendants, those first found all at once.
test_kill_tree_ () {
	test_sig_=$1
	shift
	test_tree_=
	test_more_="$*"
	while test -n "$test_more_"; do
		test_tree_="$test_tree_ $test_more_"
		test_more_=$(ps -o pid= --ppid "$(echo $test_more_ | tr ' ' ,)" 2>/dev/null |
			tr -d ' ' | tr '\n' ' ')
		test_more_=$(echo $test_more_)
	done
	kill "-$test_sig_" $test_tree_ 2>/dev/null
	echo "$test_tree_"
}

# test_watchdog_ SECONDS: in the background, stop the test that runs now
# (every other child of this script) once it has run SECONDS.
test_watchdog_ () {
	sleep "$1"
	test_me_=$(cat "$test_out_.watchdog" 2>/dev/null)
	test_kids_=$(ps -o pid= --ppid $test_script_pid_ | tr -d ' ' | grep -v -x "$test_me_")
	test -n "$test_kids_" || exit 0
	echo "$1" >"$test_out_.timedout"
	test_tree_=$(test_kill_tree_ TERM $test_kids_)
	sleep 10
	kill -KILL $test_tree_ 2>/dev/null
	exit 0
}
test_script_pid_=$$

# test_time_limit N: the next test (run or skipped) may run for N
# seconds before it is stopped, where that is longer than
# $KBISECT_TEST_TIMEOUT (for a test whose time is known to be long, such
# as a first build from scratch, so that the others keep the limit that
# catches a hang)
test_next_limit_=
test_time_limit () {
	test_next_limit_=$1
}

# test_lock_with PREREQ shared|exclusive NAME: a test with PREREQ holds
# the machine-wide lock NAME while it runs - shared by the tests that use
# something of the machine (libvirtd), exclusive by those that take it
# away (stop it, or make it unusable), so that the scripts of the other
# lane of tests/run-tests.sh never see it gone in the middle of a test
test_locks_=
test_lock_with () {
	test_locks_="$test_locks_ $1:$2:$3"
}
# test_lock_ PREREQS: take the strongest lock the prereqs ask for (fd 5)
test_lock_=
test_lock_ () {
	test_lock_mode_=
	for test_l_ in $test_locks_; do
		case ",$1," in
		*",${test_l_%%:*},"*)
			test_l_=${test_l_#*:}
			test_lock_name_=${test_l_#*:}
			test "$test_lock_mode_" = exclusive || test_lock_mode_=${test_l_%%:*}
			;;
		esac
	done
	test -n "$test_lock_mode_" && command -v flock >/dev/null || return 0
	exec 5>>"${TMPDIR:-/var/tmp}/kbisect-test-$test_lock_name_.lock" || return 0
	if test "$test_lock_mode_" = exclusive; then
		flock -x 5
	else
		flock -s 5
	fi
	test_lock_=t
}
test_unlock_ () {
	test -n "$test_lock_" || return 0
	# the open file of the lock, not this descriptor: a daemon the test
	# started may hold a copy of it
	flock -u 5
	exec 5>&-
	test_lock_=
}

test_run_ () {
	test_cleanup_=
	test_lock_ "$test_prereq_"
	if test -n "$verbose"; then
		say "# expecting ${test_expecting_}:"
		printf '%s\n' "$1" | say_comment_
	fi
	test_start_=$(date +%s)
	rm -f "$test_out_.timedout" "$test_out_.watchdog"
	test_watch_=
	test_limit_=${KBISECT_TEST_TIMEOUT:-1200}
	if test "$test_limit_" != 0 && test -n "$test_next_limit_" &&
	   test "$test_next_limit_" -gt "$test_limit_"; then
		test_limit_=$test_next_limit_
	fi
	test_next_limit_=
	if test "$test_limit_" != 0; then
		test_watchdog_ "$test_limit_" </dev/null >/dev/null 2>&1 &
		test_watch_=$!
		echo "$test_watch_" >"$test_out_.watchdog"
	fi
	(
		trap 'test_status_=$?; set +e; eval "$test_cleanup_" >/dev/null 2>&1; exit $test_status_' EXIT
		trap 'exit 124' TERM
		test -n "$trace" && set -x
		set -e
		eval "$1"
	) >"$test_out_" 2>&1 </dev/null
	test_status_=$?
	if test -n "$test_watch_"; then
		test_kill_tree_ TERM "$test_watch_" >/dev/null
		wait "$test_watch_" 2>/dev/null
	fi
	if test -f "$test_out_.timedout"; then
		echo "the test ran longer than $(cat "$test_out_.timedout") s: stopped" >>"$test_out_"
		test "$test_status_" != 0 || test_status_=124
	fi
	rm -f "$test_out_.timedout" "$test_out_.watchdog"
	test_unlock_
	test_took_=$(($(date +%s) - test_start_))
	cd "$TRASH_DIRECTORY" || exit 1
	if test -n "$verbose"; then
		say_comment_ "$test_out_"
	fi
}

test_failure_ () {
	say "not ok $test_count - $1"
	if test -z "$verbose"; then
		printf '%s\n' "$2" | say_comment_
		test_lines_=$(wc -l <"$test_out_")
		if test "$test_lines_" -gt 200; then
			say "#	(exit status $test_status_; output, last 200 of $test_lines_ lines:)"
			tail -n 200 "$test_out_" | say_comment_
		else
			say "#	(exit status $test_status_; output:)"
			say_comment_ "$test_out_"
		fi
	fi
	test_failure=$((test_failure + 1))
	if test -n "$immediate"; then
		say "# stopping at the first failure (-i); trash kept in $TRASH_DIRECTORY"
		say "1..$test_count"
		exit 1
	fi
}

# test_begin_ FUNCTION [PREREQ] 'title' 'code': count the test and set
# test_title_ and test_code_; returns 1 when a missing PREREQ skips it.
test_begin_ () {
	test_fn_=$1
	shift
	test_prereq_=
	if test $# = 3; then
		test_prereq_=$1
		shift
	fi
	if test $# != 2; then
		say "Bail out! bug in $TEST_NAME: $test_fn_ needs 2 or 3 arguments"
		exit 1
	fi
	test_title_=$1
	test_code_=$2
	test_count=$((test_count + 1))
	# KBISECT_TEST_RUN="1 2 9": run only these tests of the script
	case " ${KBISECT_TEST_RUN:-$test_count} " in
	*" $test_count "*) ;;
	*)
		say "ok $test_count # skip $1 (not in KBISECT_TEST_RUN)"
		test_skipped=$((test_skipped + 1))
		test_next_limit_=
		return 1 ;;
	esac
	if test -n "$test_prereq_" && ! test_have_prereq "$test_prereq_"; then
		say "ok $test_count # skip $1 (missing $missing_prereq_)"
		test_skipped=$((test_skipped + 1))
		test_next_limit_=
		return 1
	fi
	return 0
}

# test_expect_success [PREREQ] 'title' 'code'
test_expect_success () {
	test_begin_ test_expect_success "$@" || return 0
	test_expecting_=success
	# not "if test_run_": that would switch set -e off inside the test
	test_run_ "$test_code_"
	if test "$test_status_" = 0; then
		say "ok $test_count - $test_title_"
		test_success=$((test_success + 1))
	else
		test_failure_ "$test_title_" "$test_code_"
	fi
	# where the time goes, for the slow ones
	test "$test_took_" -lt 10 || say "# $test_took_ s"
	return 0
}

# test_expect_failure [PREREQ] 'title' 'code': a known breakage, reported
# with TAP's TODO directive (not counted as a failure).
test_expect_failure () {
	test_begin_ test_expect_failure "$@" || return 0
	test_expecting_=failure
	test_run_ "$test_code_"
	if test "$test_status_" = 0; then
		say "ok $test_count - $test_title_ # TODO known breakage vanished"
		test_fixed=$((test_fixed + 1))
	else
		say "not ok $test_count - $test_title_ # TODO known breakage"
		test_broken=$((test_broken + 1))
	fi
	return 0
}

test_skip_all () {
	say "1..0 # SKIP $1"
	cd "$TEST_DIR" && test_rm_trash_
	exit 0
}

test_done () {
	say "1..$test_count"
	if test "$test_fixed" -gt 0; then
		say "# $test_fixed known breakage(s) vanished"
	fi
	if test "$test_broken" -gt 0; then
		say "# still have $test_broken known breakage(s)"
	fi
	if test "$test_failure" -gt 0; then
		say "# failed $test_failure among $test_count test(s); trash kept in $TRASH_DIRECTORY"
		exit 1
	fi
	if test -z "$debug"; then
		cd "$TEST_DIR" && test_rm_trash_
	fi
	exit 0
}

# ---- helpers for test code -------------------------------------------------

# test_cmp EXPECTED ACTUAL
test_cmp () {
	diff -u "$@"
}

# test_expect_code CODE COMMAND [ARGS...]: COMMAND must exit with CODE.
test_expect_code () {
	test_want_=$1
	shift
	test_got_=0
	"$@" || test_got_=$?
	if test "$test_got_" = "$test_want_"; then
		return 0
	fi
	echo >&2 "test_expect_code: command exited with $test_got_, not $test_want_: $*"
	return 1
}

# test_must_fail COMMAND [ARGS...]: fails in a controlled way (exit 1..125).
test_must_fail () {
	test_got_=0
	"$@" || test_got_=$?
	if test "$test_got_" -ge 1 && test "$test_got_" -le 125; then
		return 0
	fi
	echo >&2 "test_must_fail: command exited with $test_got_: $*"
	return 1
}

# test_line_count OP N FILE: e.g. test_line_count = 1 err
test_line_count () {
	test_lc_=$(wc -l <"$3" | tr -d ' ')
	if test "$test_lc_" "$1" "$2"; then
		return 0
	fi
	echo >&2 "test_line_count: $3 has $test_lc_ lines, want $1 $2:"
	cat >&2 "$3"
	return 1
}

# test_grep [grep options] PATTERN FILE: grep that shows the file when the
# pattern is not there.
test_grep () {
	if grep "$@"; then
		return 0
	fi
	eval "test_last_=\${$#}"
	echo >&2 "test_grep: no match for '$*'; $test_last_ holds:"
	cat >&2 "$test_last_"
	return 1
}

# test_run_started ID [DB]: run ID of the database DB (default
# .git/kbisect.db) has started.  Its directory is there while it runs only,
# so the database says it.
test_run_started () {
	test -d "${2:-.git/kbisect.db}.d/runs/$1" ||
	test "$(sqlite3 "${2:-.git/kbisect.db}" "select count(*) > 0 from runs where id >= $1" \
		2>/dev/null)" = 1
}

# test_wait_for CODE [TRIES]: evaluate CODE every 0.05 s until it succeeds;
# give up (return 1) after TRIES tries, default 400 (20 s).  For waiting on
# background processes, never for asserting how long something takes.
test_wait_for () {
	test_wait_i_=0
	until eval "$1"; do
		test_wait_i_=$((test_wait_i_ + 1))
		if test "$test_wait_i_" -ge "${2:-400}"; then
			echo >&2 "test_wait_for: gave up waiting for: $1"
			return 1
		fi
		sleep 0.05
	done
}

# json_flat [FILE]: one line per scalar of a JSON document, "PATH<TAB>VALUE",
# where PATH is like  culprits[0].commit  and strings lose their quotes
# (escapes other than \" \\ \/ are left as they are).  Empty arrays and
# objects show as [] and {}.  Enough for kbisect's own output, no jq needed.
json_flat () {
	awk '
	BEGIN { RS = "\001" }
	{ s = s $0 }
	function ws() {
		while (pos <= n && index(" \t\r\n", substr(s, pos, 1)))
			pos++
	}
	function fail(what) {
		printf "json_flat: %s at offset %d\n", what, pos > "/dev/stderr"
		bad = 1
		exit 1
	}
	function str(   c, out) {
		if (substr(s, pos, 1) != "\"")
			fail("expected a string")
		pos++
		out = ""
		for (;;) {
			if (pos > n)
				fail("unterminated string")
			c = substr(s, pos, 1)
			if (c == "\"") {
				pos++
				return out
			}
			if (c == "\\") {
				c = substr(s, pos + 1, 1)
				if (c == "\"" || c == "\\" || c == "/")
					out = out c
				else
					out = out "\\" c
				pos += 2
				continue
			}
			out = out c
			pos++
		}
	}
	function value(path,   c, k, i, start) {
		ws()
		c = substr(s, pos, 1)
		if (c == "{") {
			pos++
			ws()
			if (substr(s, pos, 1) == "}") {
				pos++
				print path "\t{}"
				return
			}
			for (;;) {
				ws()
				k = str()
				ws()
				if (substr(s, pos, 1) != ":")
					fail("expected :")
				pos++
				value(path == "" ? k : path "." k)
				ws()
				c = substr(s, pos, 1)
				pos++
				if (c == "}")
					return
				if (c != ",")
					fail("expected , or }")
			}
		}
		if (c == "[") {
			pos++
			ws()
			if (substr(s, pos, 1) == "]") {
				pos++
				print path "\t[]"
				return
			}
			for (i = 0; ; i++) {
				value(path "[" i "]")
				ws()
				c = substr(s, pos, 1)
				pos++
				if (c == "]")
					return
				if (c != ",")
					fail("expected , or ]")
			}
		}
		if (c == "\"") {
			print path "\t" str()
			return
		}
		start = pos
		while (pos <= n && index("+-0123456789.eEtruefalsn", substr(s, pos, 1)))
			pos++
		if (pos == start)
			fail("unexpected character")
		print path "\t" substr(s, start, pos - start)
	}
	END {
		if (bad)
			exit 1
		n = length(s)
		pos = 1
		value("")
		ws()
		if (pos <= n)
			fail("trailing text")
	}' "$@"
}

# json_get FILE PATH: the value at PATH (see json_flat); fails when absent.
json_get () {
	json_flat "$1" >"$TRASH_DIRECTORY/.json_flat" || return 1
	awk -F '	' -v key="$2" '
		$1 == key { print substr($0, length(key) + 2); found = 1 }
		END { exit !found }' "$TRASH_DIRECTORY/.json_flat"
}

# json_list FILE PREFIX SUFFIX: the values at PREFIX[i]SUFFIX, one a line,
# e.g. json_list report suspects .commit
json_list () {
	json_flat "$1" >"$TRASH_DIRECTORY/.json_flat" || return 1
	awk -F '	' -v pre="$2" -v suf="$3" '
	{
		if (substr($1, 1, length(pre) + 1) != pre "[")
			next
		rest = substr($1, length(pre) + 2)
		i = index(rest, "]")
		if (i < 2 || substr(rest, i + 1) != suf)
			next
		print substr($0, length($1) + 2)
	}' "$TRASH_DIRECTORY/.json_flat"
}

# gen_repo DIR [genrepo options]: generate a history; its output is kept in
# DIR.gen, read back with gen_field.
gen_repo () {
	test_gen_dir_=$1
	shift
	"$GENREPO" "$test_gen_dir_" "$@" >"$test_gen_dir_.gen"
}

# noisy_bench FILE [RUNS]: the benchmark of tests/fixtures/noisy-bench.sh
# (metric "latency" in ms, lower is better, RUNS runs a boot, 5 by
# default), named after FILE without its .json
noisy_bench () {
	cat >"$1" <<-JSON
	{"name": "$(basename "$1" .json)", "command": ["sh", "$TEST_DIR/fixtures/noisy-bench.sh"],
	 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower",
	            "unit": "ms"},
	 "runs_per_boot": ${2:-5}}
	JSON
}

# gen_field DIR culprit|culprit_path|good|bad|commits
gen_field () {
	case $2 in
	culprit) sed -n 's/^culprit \([0-9a-f]*\) .*/\1/p' "$1.gen" | head -n 1 ;;
	culprit_path) sed -n 's/^culprit [0-9a-f]* \([^ ]*\) .*/\1/p' "$1.gen" | head -n 1 ;;
	*) sed -n "s/^$2 //p" "$1.gen" ;;
	esac
}
