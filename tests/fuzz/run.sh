#!/bin/sh
# tests/fuzz/run.sh [SECONDS]
#
# Builds the libFuzzer harnesses ('make fuzz') and runs each for SECONDS
# (60 unless given) on a copy of its corpus (tests/fuzz/corpus/NAME/) in a
# temporary directory under $TMPDIR, so that the inputs a run adds never
# land in the source tree.  Prints one line per harness; on a finding (a
# crash, a leak, undefined behaviour, a broken invariant, a timeout) it
# prints the end of the fuzzer's report and the file of the input that
# caused it, keeps the temporary directory, and exits with 1.  Else 0.

seconds=${1:-60}
case $seconds in
''|*[!0-9]*) echo "usage: tests/fuzz/run.sh [SECONDS]" >&2; exit 2 ;;
esac
dir=$(cd "$(dirname "$0")" && pwd) || exit 1
top=$(cd "$dir/../.." && pwd) || exit 1

make -C "$top" --no-print-directory fuzz >/dev/null || {
	echo "run.sh: 'make fuzz' failed" >&2
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbisect-fuzz.XXXXXX") || exit 1
status=0
for name in bench machine metric; do
	work=$tmp/$name
	mkdir -p "$work/corpus" "$work/found" || exit 1
	cp "$dir/corpus/$name/"* "$work/corpus/" || exit 1
	set -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/found/"
	if test -f "$dir/$name.dict"; then
		set -- "$@" -dict="$dir/$name.dict"
	fi
	"$dir/fuzz_$name" "$@" "$work/corpus" >"$work/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	found=$(ls "$work/found" 2>/dev/null)
	if test $rc = 0 && test -z "$found"; then
		echo "fuzz_$name: no finding in $seconds s (${runs:-?} inputs)"
		continue
	fi
	status=1
	echo "fuzz_$name: FINDING (exit status $rc)"
	# the input first, where the first lines of a failed test's output
	# show it
	for f in $found; do
		echo "fuzz_$name: the input is $work/found/$f, as bytes:"
		od -An -c "$work/found/$f" | head -n 8 | sed "s/^/	/"
		echo "	replay it: tests/fuzz/fuzz_$name $work/found/$f"
	done
	echo "fuzz_$name: the end of its report:"
	tail -n 40 "$work/log" | sed 's/^/	/'
done
if test $status = 0; then
	rm -rf "$tmp"
else
	echo "run.sh: logs and inputs kept in $tmp"
fi
exit $status
