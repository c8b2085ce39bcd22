#!/bin/sh
# Kernel build times on the demo history: a first build from scratch, the
# next commit (a one-file change) on top of it, and the first commit again
# (a cache hit: no make at all).  Prints the three times.
#
#   sh tests/bench/kbuild.sh [DEMO-DIR]
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
demo=${1:-${KBISECT_DEMO_DIR:-/var/tmp/kbisect-demo}/linux}
make -s -C "$top" kbisect
sh "$top/tests/kernel/demo-history.sh" "$demo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$demo"
next=$(git rev-list --reverse demo-good..demo-bad | head -n 1)
for rev in demo-good "$next" demo-good; do
	start=$(date +%s.%N)
	"$top/kbisect" build "$rev" --db "$work/k.db" >"$work/out" 2>&1
	end=$(date +%s.%N)
	printf '%-8s %-12s %8.1f s\n' "$(head -n 1 "$work/out" | cut -d' ' -f1)" \
		"$(git rev-parse --short=12 "$rev")" "$(echo "$end - $start" | bc)"
done
