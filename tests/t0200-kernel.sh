#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'kernel builds: config, out-of-tree builds, the cache, skipped broken builds'

# The demo history is big (the whole kernel source): it is made once per
# machine and shared; every kbisect state of these tests lives in the trash.
DEMO=${KBISECT_DEMO_DIR:-/var/tmp/kbisect-demo}/linux
# HOME is the trash directory here: keep ccache's objects where the next
# run finds them
CCACHE_DIR=${CCACHE_DIR:-${KBISECT_DEMO_DIR:-/var/tmp/kbisect-demo}/ccache}
export CCACHE_DIR
if ! test -r "${KBISECT_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}" && ! test -d "$DEMO/.git"; then
	test_skip_all 'no kernel source (apt-get install linux-source-6.1)'
fi
if ! command -v flex >/dev/null || ! command -v bison >/dev/null || ! command -v bc >/dev/null; then
	test_skip_all 'no kernel build tools (flex, bison, bc: tests/install-deps.sh)'
fi

test_expect_success 'the demo history' '
	sh "$TEST_DIR/kernel/demo-history.sh" "$DEMO" >out &&
	test "$(git -C "$DEMO" rev-list --count demo-good..demo-bad)" -ge 20 &&
	git -C "$DEMO" rev-parse demo-slow demo-broken >/dev/null
'

test_expect_success 'build a commit: its release names the commit' '
	cd "$DEMO" &&
	sha=$(git rev-parse demo-good) &&
	"$KBISECT" build demo-good --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/b1" &&
	cd "$TRASH_DIRECTORY" &&
	grep "^release .*-kb$(echo $sha | cut -c1-12)\$" b1 &&
	dir=$(sed -n "s/^artifacts //p" b1) &&
	test -s "$dir/bzImage" && test -s "$dir/System.map" && test -s "$dir/build.log" &&
	grep "^CONFIG_LOCALVERSION=\"-kb$(echo $sha | cut -c1-12)\"\$" "$dir/config" &&
	grep "^CONFIG_64BIT=y" "$dir/config" &&
	test -z "$(git -C "$DEMO" status --porcelain --untracked-files=no)"
'

test_expect_success 'the next commit builds on the previous build' '
	cd "$DEMO" &&
	next=$(git rev-list --reverse demo-good..demo-bad | head -n 1) &&
	"$KBISECT" build $next --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/b3" &&
	grep "^built $next" "$TRASH_DIRECTORY/b3" &&
	grep "^release .*-kb$(echo $next | cut -c1-12)\$" "$TRASH_DIRECTORY/b3"
'

test_expect_success 'the same commit again is a cache hit: no make at all' '
	cd "$DEMO" &&
	touch "$TRASH_DIRECTORY/before" &&
	sleep 1 &&
	"$KBISECT" build demo-good --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/b2" &&
	grep "^cached demo-good" "$TRASH_DIRECTORY/b2" &&
	test -z "$(find "$TRASH_DIRECTORY/k.db.d/kbuild" -newer "$TRASH_DIRECTORY/before" | head -n 1)"
'

test_expect_success 'a commit that does not build: exit 3 and its error' '
	cd "$DEMO" &&
	test_expect_code 3 "$KBISECT" build demo-broken --db "$TRASH_DIRECTORY/k.db" \
		>/dev/null 2>"$TRASH_DIRECTORY/e" &&
	grep "DEMO_LIMIT_UNDEFINED" "$TRASH_DIRECTORY/e"
'

test_expect_success 'bisect with kernel builds: the broken commit skipped, the culprit found' '
	cd "$DEMO" &&
	slow=$(git rev-parse demo-slow) && broken=$(git rev-parse demo-broken) &&
	test_cmd="! grep -q namei_create_throttle \"\$KBISECT_BUILD/System.map\"" &&
	# the broken commit is the middle of the range: the first one tested
	"$KBISECT" start demo-good demo-bad --db "$TRASH_DIRECTORY/k.db" --no-run \
		--command "$test_cmd" 2>"$TRASH_DIRECTORY/first" &&
	grep "first commit to test: $broken" "$TRASH_DIRECTORY/first" &&
	"$KBISECT" resume --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/rep" 2>"$TRASH_DIRECTORY/err" &&
	"$KBISECT" report --json --db "$TRASH_DIRECTORY/k.db" >"$TRASH_DIRECTORY/r.json" &&
	cd "$TRASH_DIRECTORY" &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $slow &&
	test "$(json_get r.json steps[0].commit)" = $broken &&
	test "$(json_get r.json steps[0].decision)" = skip &&
	json_get r.json steps[0].build_error | grep DEMO_LIMIT_UNDEFINED &&
	grep "DEMO_LIMIT_UNDEFINED" rep &&
	test "$(json_get r.json builds_total)" -ge 1
'

test_done
