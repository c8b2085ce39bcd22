# The demo kernel history and the compiler's cache, shared by the tests
# that build its kernels (t0200, t0201, t0210); sourced after lib.sh.
# Skips the whole script where the kernel source or build tools are missing.

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
