#!/bin/sh
# A demonstration of kbisect on a generated history, from a fresh checkout:
#
#   sh tests/demo-generated.sh
#
# installs the build dependencies (tests/install-deps.sh; set
# KBISECT_DEMO_NO_DEPS=1 to skip that), builds, generates a 300-commit
# history with merges and one planted culprit (tests/gen/genrepo, fixed
# seed), bisects it with a pass/fail test, and checks that kbisect names
# the planted commit.  Exit status 0 when it does, 1 when it does not.
set -eu

cd "$(dirname "$0")/.."
top=$(pwd)
demo=${TMPDIR:-/tmp}/kbisect-demo

if [ "${KBISECT_DEMO_NO_DEPS:-}" != 1 ]; then
	echo "== installing build dependencies (tests/install-deps.sh)"
	sh tests/install-deps.sh >/dev/null
fi

echo "== building"
make

echo "== generating a history in $demo"
rm -rf "$demo"
gen=$(tests/gen/genrepo "$demo" --seed 1 --commits 300 --culprits random:1)
echo "$gen"
planted=$(echo "$gen" | awk '$1 == "culprit" { print $2; exit }')
path=$(echo "$gen" | awk '$1 == "culprit" { print $3; exit }')
merges=$(git -C "$demo" rev-list --merges --count bad)
echo "$(git -C "$demo" rev-list --count good..bad) commits in good..bad, $merges of them merges"

echo "== kbisect start good bad --repo $demo --command 'test ! -e $path'"
set +e
"$top/kbisect" start good bad --repo "$demo" --command "test ! -e $path"
status=$?
set -e
echo "kbisect start exited with $status"

found=$("$top/kbisect" status --json --repo "$demo" |
	sed -n 's/^ *"culprit": "\([0-9a-f]*\)".*/\1/p')
tested=$("$top/kbisect" status --json --repo "$demo" |
	sed -n 's/^ *"tested": \([0-9]*\).*/\1/p')

echo
echo "== result"
echo "genrepo planted: ${planted:-nothing} (the commit that adds $path)"
echo "kbisect found:   ${found:-nothing} (after testing $tested commits)"
echo "(the history stays in $demo: try '$top/kbisect report --repo $demo')"
if [ "$status" -eq 0 ] && [ -n "$planted" ] && [ "$found" = "$planted" ]; then
	echo "OK: kbisect found the planted commit"
	exit 0
fi
echo "FAILED: kbisect did not find the planted commit"
exit 1
