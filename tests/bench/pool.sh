#!/bin/sh
# Wall time of bisections on 1, 2 and 4 local machines, on generated
# histories with merges, each culprit found once per pool size: pass/fail
# with a test that takes a fixed time, and performance (a 5% step in 3%
# noise) with a benchmark whose every run takes a fixed time.  Prints, per
# mode and pool size, the answers that were right, the mean tests (runs)
# and the mean wall time, and the time against one machine.
#
#   sh tests/bench/pool.sh [HISTORIES] [COMMITS] [SECONDS] [passfail|perf|both]
set -e
cd "$(dirname "$0")/../.."
make -s kbisect tests/gen/genrepo
histories=${1:-5}
commits=${2:-1000}
per=${3:-1}
top=$(pwd)
dir=$(mktemp -d /tmp/kbisect-pool-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT

mode=${4:-both}

# targets K: K local machines as --target words
targets () {
	i=0
	while [ $i -lt "$1" ]; do
		printf ' --target local'
		i=$((i + 1))
	done
}

# row K RIGHT COUNT WALL: a line of the table, the wall time against the
# first size's ($base, set by the first row)
row () {
	mean=$(awk -v w="$4" -v n="$histories" 'BEGIN { printf "%.1f", w / n }')
	[ -n "$base" ] || base=$mean
	printf '%-9s %4d/%-2d %7.1f %9s %8.2fx\n' "$1" "$2" "$histories" \
		"$(awk -v t="$3" -v n="$histories" 'BEGIN { print t / n }')" "$mean" \
		"$(awk -v m="$mean" -v b="$base" 'BEGIN { print m / b }')"
}

passfail () {
echo "pass/fail, $histories histories of $commits commits, $per s a test"
printf '%-9s %7s %7s %9s %9s\n' machines right tests "wall s" "vs 1"
base=
for k in 1 2 4; do
	right=0 tests=0 wall=0
	h=1
	while [ $h -le "$histories" ]; do
		repo=$dir/h$h-$k
		"$top/tests/gen/genrepo" "$repo" --seed $((500 + h)) --commits "$commits" \
			--merge-rate 0.1 >"$repo.gen"
		culprit=$(sed -n 's/^culprit \([0-9a-f]*\) .*/\1/p' "$repo.gen" | head -n 1)
		path=$(sed -n 's/^culprit [0-9a-f]* \([^ ]*\) .*/\1/p' "$repo.gen" | head -n 1)
		targets=$(targets "$k")
		start=$(date +%s.%N)
		# shellcheck disable=SC2086 # $targets is a word list
		(cd "$repo" && "$top/kbisect" start good bad $targets \
			--command "sleep $per; test ! -e $path" >"$repo.out" 2>"$repo.err") || true
		end=$(date +%s.%N)
		found=$(sed -n 's/^commit \([0-9a-f]*\)$/\1/p' "$repo.out" | head -n 1)
		[ "$found" = "$culprit" ] && right=$((right + 1))
		n=$(sqlite3 "$repo/.git/kbisect.db" "select count(*) from marks")
		tests=$((tests + n))
		wall=$(awk -v a="$wall" -v s="$start" -v e="$end" 'BEGIN { print a + e - s }')
		h=$((h + 1))
	done
	row "$k" "$right" "$tests" "$wall"
done
}

perf () {
cat >"$dir/bench.json" <<EOF
{"name": "timed", "command": ["sh", "-c", "sleep $per && exec sh $top/tests/fixtures/noisy-bench.sh"],
 "metric": {"name": "latency", "regex": "latency: ([0-9.]+)", "direction": "lower"},
 "runs_per_boot": 5}
EOF
echo "performance, a 5% step in 3% noise, $histories histories of $commits commits, $per s a run"
printf '%-9s %7s %7s %9s %9s\n' machines right runs "wall s" "vs 1"
base=
for k in 1 2 4; do
	right=0 runs=0 wall=0
	h=1
	while [ $h -le "$histories" ]; do
		repo=$dir/p$h-$k
		"$top/tests/gen/genrepo" "$repo" --seed $((600 + h)) --commits "$commits" \
			--merge-rate 0.1 --culprits random:0.05 >"$repo.gen"
		culprit=$(sed -n 's/^culprit \([0-9a-f]*\) .*/\1/p' "$repo.gen" | head -n 1)
		targets=$(targets "$k")
		start=$(date +%s.%N)
		# shellcheck disable=SC2086 # $targets is a word list
		(cd "$repo" && "$top/kbisect" start good bad $targets --bench "$dir/bench.json" \
			>"$repo.out" 2>"$repo.err") || true
		end=$(date +%s.%N)
		found=$(sed -n 's/^commit \([0-9a-f]*\)$/\1/p' "$repo.out" | head -n 1)
		[ "$found" = "$culprit" ] && right=$((right + 1))
		n=$(sqlite3 "$repo/.git/kbisect.db" "select count(*) from runs where state = 'done'")
		runs=$((runs + n))
		wall=$(awk -v a="$wall" -v s="$start" -v e="$end" 'BEGIN { print a + e - s }')
		h=$((h + 1))
	done
	row "$k" "$right" "$runs" "$wall"
done
}

case $mode in
passfail) passfail ;;
perf) perf ;;
both) passfail; perf ;;
*) echo "usage: $0 [HISTORIES] [COMMITS] [SECONDS] [passfail|perf|both]" >&2; exit 2 ;;
esac
