#!/bin/sh
# The demo: a real kernel bisection in VMs, from a fresh checkout.
#
#   sh tests/demo.sh
#
# installs what it needs (tests/install-deps.sh, which also starts libvirt's
# daemons where no init system does; set KBISECT_DEMO_NO_DEPS=1 to skip
# that), builds kbisect, makes the demo kernel history from Debian's
# linux-source-6.1 (tests/kernel/demo-history.sh: 22 commits, one of which
# makes file creation slower and one of which does not build), and runs
#
#   kbisect start demo-good demo-bad --bench demo-create --target vm-small
#
# which builds each kernel it needs, boots it in a libvirt VM (KVM where it
# works, TCG where it does not), measures file creation with fio in the
# guest, and ends with a report.  Exit status 0 when kbisect names the
# injected culprit (demo-slow) with verdict "culprit", 1 otherwise.
#
# KBISECT_DEMO_DIR (default /var/tmp/kbisect-demo) keeps the history, the
# database and the compiler cache, so that a second run is quick.
#
#   sh tests/demo.sh ssh
#
# runs the same bisection on a "bare-metal" host over SSH instead: a QEMU
# machine started here (tests/kernel/host-vm.sh, in /tmp/kbisect-demo-host,
# booted from the demo-good
# kernel, this machine's root over 9p, a real sshd on a forwarded loopback
# port), which kbisect switches to each kernel with kexec; the machine file
# is KBISECT_DEMO_DIR/host.json.
#
#   sh tests/demo.sh pool
#
# runs it on a pool of two VMs (--target vm-small --target vm-small): two
# kernels booted and measured at once, each VM with its own baseline.
#
#   sh tests/demo.sh lava
#
# runs it in a LAVA lab started here (tests/lib-lava.sh: lava-server on
# PostgreSQL, its scheduler, a lava-worker with a QEMU device, in
# KBISECT_DEMO_DIR/lava-lab): each boot is a LAVA job, the machine file is
# KBISECT_DEMO_DIR/lava.json.
set -eu

cd "$(dirname "$0")/.."
top=$(pwd)
base=${KBISECT_DEMO_DIR:-/var/tmp/kbisect-demo}
demo=$base/linux
db=$base/demo.db
target=vm-small
pool=
case ${1:-} in
ssh) target=ssh ;;
pool) pool="--target vm-small" ;;
lava) target=lava ;;
'') ;;
*) echo "usage: sh tests/demo.sh [ssh|pool|lava]" >&2; exit 2 ;;
esac

if [ "${KBISECT_DEMO_NO_DEPS:-}" != 1 ]; then
	echo "== installing what the demo needs (tests/install-deps.sh)"
	if [ $target = lava ]; then
		sh tests/install-deps.sh lava >/dev/null
	else
		sh tests/install-deps.sh >/dev/null
	fi
fi

echo "== building kbisect"
make

echo "== the demo kernel history in $demo"
mkdir -p "$base"
sh tests/kernel/demo-history.sh "$demo"
slow=$(git -C "$demo" rev-parse demo-slow)

CCACHE_DIR=${CCACHE_DIR:-$base/ccache}
export CCACHE_DIR

# a new bisection each time; the builds stay in the cache
"$top/kbisect" reset --repo "$demo" --db "$db" >/dev/null 2>&1 || true

if [ $target = ssh ]; then
	# not under /var/tmp, which the test host has a tmpfs of its own on
	host=/tmp/kbisect-demo-host
	echo "== the test host: a QEMU machine in $host, booted from demo-good"
	"$top/kbisect" build demo-good --target ssh://host --repo "$demo" --db "$db" >"$base/host.build"
	kernel=$(sed -n 's/^artifacts //p' "$base/host.build")/bzImage
	port=$(sh tests/kernel/host-vm.sh start "$host" "$kernel")
	trap 'sh "$top/tests/kernel/host-vm.sh" stop "$host"' EXIT
	cat >"$base/host.json" <<-EOF
	{ "target": "ssh://root@127.0.0.1:$port", "key_file": "$host/id",
	  "known_hosts": "$host/known_hosts", "boot_timeout": 90,
	  "scratch_dev": "/dev/vda", "modules_dir": "/srv/lib/modules",
	  "power_cycle": ["sh", "$top/tests/kernel/host-vm.sh", "cycle", "$host"] }
	EOF
	rm -f "$host/known_hosts"
	n=0
	until "$top/kbisect" target "$base/host.json" --accept-new-host-key; do
		n=$((n + 1))
		if [ $n -ge 60 ]; then
			echo "the test host did not start: see $host/console.new" >&2
			exit 1
		fi
		sleep 5
	done 2>/dev/null
	target=$base/host.json
fi

if [ $target = lava ]; then
	. "$top/tests/lib-lava.sh"
	if ! lava_have; then
		echo "no LAVA here (missing:$LAVA_MISSING): sh tests/install-deps.sh lava" >&2
		exit 1
	fi
	echo "== the root file system of the LAVA devices: busybox, fio, mkfs.ext4"
	sh tests/lava/ramdisk.sh "$base/lava-ramdisk.cpio"
	echo "== a LAVA lab in $base/lava-lab: lava-server, its scheduler, a worker, a QEMU device"
	# a lab of its own, beside the tests' (t0210)
	LAVA_DB=kbisect_demo LAVA_JOB_IDS=100000 LAVA_PORT=29080
	export LAVA_DB LAVA_JOB_IDS LAVA_PORT
	lava_start "$base/lava-lab"
	trap 'lava_stop' EXIT
	lava_device kbisect-demo-qemu
	cat >"$base/lava.json" <<-EOF
	{ "type": "lava", "server": "$LAVA_URL", "device_type": "qemu",
	  "user": "kbisect-test", "token_file": "$LAVA_TOKEN_FILE",
	  "publish_dir": "$LAVA_PUBLISH_DIR", "publish_url": "$LAVA_PUBLISH_URL",
	  "ramdisk": "$base/lava-ramdisk.cpio", "boot_timeout": 180 }
	EOF
	"$top/kbisect" target "$base/lava.json"
	target=$base/lava.json
fi

echo "== kbisect start demo-good demo-bad --bench demo-create --target $target $pool"
start=$(date +%s)
set +e
# shellcheck disable=SC2086 # $pool is empty or two words
"$top/kbisect" start demo-good demo-bad --repo "$demo" --db "$db" \
	--bench demo-create --target "$target" $pool
status=$?
set -e
echo "kbisect start exited with $status after $(( $(date +%s) - start )) s"

verdict=$("$top/kbisect" report --json --repo "$demo" --db "$db" |
	sed -n 's/^  "verdict": "\([a-z-]*\)".*/\1/p')
found=$("$top/kbisect" report --json --repo "$demo" --db "$db" |
	awk '/"culprits"/ { c = 1 } c && /"commit"/ { gsub(/[",]/, "", $2); print $2; exit }')

echo
echo "== result"
echo "injected: $slow (demo-slow: a delay in the create path of open(2))"
echo "kbisect:  ${found:-nothing}, verdict ${verdict:-none}"
echo "(the session stays in $db: kbisect report --repo $demo --db $db)"
if [ "$verdict" = culprit ] && [ "$found" = "$slow" ]; then
	echo "OK: kbisect found the injected culprit"
	exit 0
fi
echo "FAILED: kbisect did not name the injected culprit"
exit 1
