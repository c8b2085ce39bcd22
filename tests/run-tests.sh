#!/bin/sh
# tests/run-tests.sh [unit] [tNNNN-name.sh | tNNNN ...]
#
# Runs the C unit tests (tests/unit/run-unit, when built) and the shell
# tests tests/t[0-9]*.sh in order, or only those named as arguments.  Every
# TAP line is echoed with the name of its script in front; the last line is
# the tally, "N passed, N failed" or "N passed, N failed, N skipped",
# after the list of what failed, if anything did.
# Exit status 1 when anything failed, including a script that crashed,
# bailed out, printed no plan or ran another number of tests than its plan
# says; else 0.  Works from any directory.
#
# With two processors or more, two lanes take the scripts in turn, so that
# the long ones (kernels built and booted: most of their time is spent
# waiting for a guest, which keeps one processor busy) run beside the
# others; those that say "# run-tests: first" on a line of their own are
# taken first.  KBISECT_TEST_JOBS=1 runs every script one after the other.

TEST_DIR=$(cd "$(dirname "$0")" && pwd) || exit 1
TOP_DIR=$(cd "$TEST_DIR/.." && pwd) || exit 1
UNIT=$TEST_DIR/unit/run-unit

mkdir -p "$TEST_DIR/trash" || exit 1
tally=$TEST_DIR/trash/.run-tests.$$
failed=$TEST_DIR/trash/.run-tests-failed.$$
: >"$tally" && : >"$failed" || exit 1
trap 'rm -f "$tally" "$tally.lane" "$failed" "$queue" "$queue.lock"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_tap NAME COMMAND...: run a TAP producer, echo and tally its lines.
run_tap () {
	run_name_=$1
	shift
	run_before_=$(wc -l <"$tally")
	run_tap_ "$@"
	if test "$(wc -l <"$tally")" = "$run_before_"; then
		# the reader itself was killed: the script's results are lost
		echo "$run_name_: not ok - the script was killed, or its output lost" |
			tee -a "$failed"
		echo "0 1 0" >>"$tally"
	fi
}

# mawk reads a pipe in blocks: each line as it comes, so that a long
# script's results show while it runs
awk_line=
if awk -W version 2>/dev/null | grep -q mawk; then
	awk_line="-W interactive"
fi

run_tap_ () {
	{
		"$@" 2>&1 </dev/null
		echo "#RUN-TESTS-EXIT $?"
	} | awk $awk_line -v name="$run_name_" -v tally="$tally" -v failed="$failed" '
	/^#RUN-TESTS-EXIT [0-9]+$/ { code = $2 + 0; got_code = 1; next }
	{ print name ": " $0; fflush() }
	# the list gets the last lines of what a failed test printed, not
	# its code, which is in the script
	/^#/ && keep == 1 && /^#[ \t]*\(exit status/ { keep = 2; nbuf = 0 }
	/^#/ && keep == 2 { buf[nbuf++ % 20] = $0; next }
	/^#/ && keep == 1 { next }
	keep { flush_kept() }
	/^ok [0-9]+/ {
		ran++
		if ($0 ~ /^ok [0-9]+ *# *[Ss][Kk][Ii][Pp]/) skip++
		else pass++
		next
	}
	/^not ok [0-9]+/ {
		ran++
		if ($0 ~ /# TODO/) skip++   # a known breakage
		else {
			fail++
			print name ": " $0 >> failed
			keep = 1
		}
		next
	}
	/^1\.\.[0-9]+/ {
		plans++
		plan = substr($1, 4) + 0
		if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) skip_all = 1
		next
	}
	/^Bail out!/ { bailed = 1 }
	function flush_kept(  i) {
		for (i = (nbuf > 20 ? nbuf - 20 : 0); i < nbuf; i++)
			print name ": " buf[i % 20] >> failed
		keep = 0; nbuf = 0
	}
	END {
		if (keep)
			flush_kept()
		problem = ""
		if (bailed)
			problem = "bailed out"
		else if (plans != 1)
			problem = plans ? "printed more than one plan" : "printed no plan"
		else if (ran != plan)
			problem = "planned " plan " tests but ran " ran
		else if (!got_code)
			problem = "vanished"
		else if (code != 0 && !fail)
			problem = "exited with status " code " without a failed test"
		if (problem != "") {
			print name ": not ok - the script " problem
			print name ": not ok - the script " problem >> failed
			fail++
		} else if (skip_all && plan == 0) {
			skip++
		}
		fflush()
		printf "%d %d %d\n", pass, fail, skip >> tally
	}'
}

if test $# = 0; then
	want_unit=t
	set -- "$TEST_DIR"/t[0-9]*.sh
	test -e "$1" || shift
else
	want_unit=
	for arg; do
		shift
		case $arg in
		unit) want_unit=t; continue ;;
		esac
		if test -f "$arg"; then
			set -- "$@" "$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg")"
		elif test -f "$TEST_DIR/$arg"; then
			set -- "$@" "$TEST_DIR/$arg"
		else
			found=
			for f in "$TEST_DIR/$arg"*.sh; do
				test -f "$f" || continue
				set -- "$@" "$f"
				found=t
			done
			if test -z "$found"; then
				echo "run-tests: no test script '$arg'" >&2
				echo "0 1 0" >>"$tally"
			fi
		fi
	done
fi


# lane: run the scripts of the queue, the first one left each time,
# until it is empty
queue=$TEST_DIR/trash/.run-tests-queue.$$
take_script () {
	(
		flock 8 || exit 1
		first=$(head -n 1 "$queue")
		test -n "$first" || exit 1
		sed -i 1d "$queue" || exit 1
		printf '%s\n' "$first"
	) 8>>"$queue.lock"
}
lane () {
	while script=$(take_script); do
		name=$(basename "$script")
		(cd "$TEST_DIR" && run_tap "$name" sh "$script")
	done
}

jobs=${KBISECT_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
command -v flock >/dev/null || jobs=1
# the queue: the scripts that say so first, then the others in order
: >"$queue" || exit 1
for script; do
	grep -q -x "# run-tests: first" "$script" && printf '%s\n' "$script" >>"$queue"
done
for script; do
	grep -q -x "# run-tests: first" "$script" || printf '%s\n' "$script" >>"$queue"
done
other=
if test "$jobs" -gt 1 && test "$(wc -l <"$queue")" -ge 1; then
	# a second lane, with a tally of its own: run_tap counts its lines
	(tally=$tally.lane && : >"$tally" && lane) &
	other=$!
	trap 'kill $other 2>/dev/null; exit 130' INT
	trap 'kill $other 2>/dev/null; exit 143' TERM
fi

if test -n "$want_unit"; then
	if test -x "$UNIT"; then
		(cd "$TOP_DIR" && run_tap unit "$UNIT")
	else
		echo "unit: # skip: tests/unit/run-unit is not built (make tests/unit/run-unit)"
		echo "0 0 1" >>"$tally"
	fi
fi
lane
if test -n "$other"; then
	wait $other
	cat "$tally.lane" >>"$tally"
fi

# the failures again at the end, where a log's tail shows them
if test -s "$failed"; then
	echo "failed:"
	sed 's/^/	/' "$failed"
fi
awk '
	{ p += $1; f += $2; s += $3 }
	END {
		if (s)
			printf "%d passed, %d failed, %d skipped\n", p, f, s
		else
			printf "%d passed, %d failed\n", p, f
		exit f ? 1 : 0
	}' "$tally"
