#!/bin/sh
# Make the demo kernel history: Debian's linux-source-6.1 as the base
# commit, then 22 small commits with fixed authors and dates (so the ids
# come out the same on every machine).  The 13th makes file creation slower
# (a delay in the create path of open(2)); the 11th breaks the build - it
# splits the range in two halves of 11, so it is the first commit a
# bisection of the whole range tests - and the 12th repairs it.  Tags: demo-good (the base), demo-bad (the tip),
# demo-slow (the culprit), demo-broken (the commit that does not build).
# Two more commits on top of demo-bad, each on its own branch with one more
# commit after it (demo-panic-tip, demo-hang-tip), make kernels that fail
# at boot: demo-panic panics before init, demo-hang never starts init.
# A third branch on demo-bad (demo-flaky-tip, three commits) has
# demo-warn, a warning in about half of the boots, then demo-flaky, a
# kernel that panics in about half of its boots; the tip drops the warning.
#
#   sh tests/kernel/demo-history.sh DIR
#
# DIR is left alone when it already holds the finished history; an older
# version of the history is made again.
set -eu

tarball=${KBISECT_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
dir=$1

# one maker at a time: a second one waits, then finds the history made
mkdir -p "$(dirname "$dir")"
exec 7>>"$dir.lock"
flock 7

commits=22
if git -C "$dir" rev-parse -q --verify refs/tags/demo-flaky-tip >/dev/null 2>&1 &&
   [ "$(git -C "$dir" rev-list --count demo-bad..demo-flaky-tip)" = 3 ]; then
	if [ "$(git -C "$dir" rev-list --count demo-good..demo-bad)" = $commits ]; then
		echo "demo history already in $dir"
		exit 0
	fi
	echo "$dir holds an older demo history: making it again"
fi
if ! test -r "$tarball"; then
	echo "no kernel source at $tarball: apt-get install linux-source-6.1" >&2
	exit 1
fi
export GIT_CONFIG_NOSYSTEM=1 HOME="$dir/.demo-home"
n=0
when () {
	n=$((n + 1))
	GIT_AUTHOR_DATE=$(date -u -d "2023-03-01 10:00:00 UTC + $((n * 7)) hours" +%Y-%m-%dT%H:%M:%S+0000)
	GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}
commit () {
	# commit AUTHOR-NAME AUTHOR-EMAIL SUBJECT [BODY]
	when
	GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=$2 \
	GIT_COMMITTER_NAME="Demo Maintainer" GIT_COMMITTER_EMAIL=maintainer@example.org \
		git commit -q -a -m "$3" -m "${4:-$3.}" -m "Signed-off-by: $1 <$2>"
}
note () {
	# note FILE TEXT: a comment at the end of a C file
	printf '\n/* %s */\n' "$2" >>"$1"
}
# the kernels that do not boot, on top of demo-bad
boot_failures () {
	n=100
	git checkout -q -b demo-panic-branch demo-bad
	sed -i '0,/^\tif (ramdisk_execute_command) {$/s//\tpanic("demo: this kernel stops before init");\n\n&/' init/main.c
	grep -q 'demo: this kernel stops' init/main.c
	commit "Alan Turing" alan@example.org "init: stop before init (demo of a boot panic)"
	git tag demo-panic
	note init/version.c "the banner is printed once, early"
	commit "Grace Hopper" grace@example.org "init: note when the banner is printed"
	git tag demo-panic-tip
	git checkout -q -b demo-hang-branch demo-bad
	sed -i '0,/^\tif (ramdisk_execute_command) {$/s//\tfor (;;)\n\t\tmsleep(1000);\n\n&/' init/main.c
	grep -q 'msleep(1000);' init/main.c
	commit "Alan Turing" alan@example.org "init: wait forever before init (demo of a hang)"
	git tag demo-hang
	note init/version.c "the banner is printed once, early"
	commit "Grace Hopper" grace@example.org "init: note when the banner is printed"
	git tag demo-hang-tip
	git checkout -q master
}
# three commits: a warning in about half of the boots (demo-warn), then a
# kernel that panics in about half of its boots (demo-flaky, the panic a
# few lines before the warning, so that its revert applies once the
# warning is gone), then the warning taken out again (demo-flaky-tip):
# with panic_on_warn, the warning is a failure of another kind
warn_subject="init: warn in half of the boots (demo of another failure)"
flaky_subject="init: panic in about half of the boots (demo of a flaky bug)"
flaky_failures () {
	n=200
	git branch -q -D demo-flaky-branch 2>/dev/null || :
	git tag -d demo-flaky demo-warn demo-flaky-tip >/dev/null 2>&1 || :
	git checkout -q -b demo-flaky-branch demo-bad
	sed -i '0,/^\tif (ramdisk_execute_command) {$/s//\tWARN(get_random_u32() \& 1, "demo: a warning in about half of the boots");\n\n&/' init/main.c
	grep -q 'a warning in about half' init/main.c
	commit "Barbara Liskov" barbara@example.org "$warn_subject"
	git tag demo-warn
	sed -i '0,/^\trcu_end_inkernel_boot();$/s//\tif (get_random_u32() \& 1)\n\t\tpanic("demo: this kernel panics in about half of its boots");\n\n&/' init/main.c
	grep -q 'panics in about half' init/main.c
	commit "Alan Turing" alan@example.org "$flaky_subject"
	git tag demo-flaky
	sed -i '/^\tWARN(get_random_u32() & 1, "demo: a warning in about half of the boots");$/,+1d' init/main.c
	! grep -q 'a warning in about half' init/main.c
	commit "Barbara Liskov" barbara@example.org "init: drop the boot warning"
	git tag demo-flaky-tip
	git checkout -q master
}

if git -C "$dir" rev-parse -q --verify refs/tags/demo-bad >/dev/null 2>&1 &&
   [ "$(git -C "$dir" rev-list --count demo-good..demo-bad)" = $commits ]; then
	cd "$dir"
	git checkout -q master
	if ! git rev-parse -q --verify refs/tags/demo-hang-tip >/dev/null; then
		boot_failures
		echo "demo history: added demo-panic and demo-hang"
	fi
	flaky_failures
	echo "demo history: added demo-flaky and demo-warn"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
echo "unpacking $tarball into $dir ..."
tar -xJf "$tarball" -C "$dir" --strip-components=1
cd "$dir"
# The tarball's .gitignore ends with a block of Debian's packaging that
# ignores everything at the top level: restore upstream's.
sed -i '/^# Debian packaging/,$d' .gitignore
sed -i '${/^#$/d}' .gitignore

mkdir -p "$HOME"

git init -q -b master
git add -A
when
GIT_AUTHOR_NAME="Demo Maintainer" GIT_AUTHOR_EMAIL=maintainer@example.org \
GIT_COMMITTER_NAME="Demo Maintainer" GIT_COMMITTER_EMAIL=maintainer@example.org \
	git commit -q -m "Linux $(make -s kernelversion 2>/dev/null || echo 6.1) (Debian source)"
git tag demo-good

note kernel/sys.c "prctl: the options above are kept in numeric order"
commit "Ada Lovelace" ada@example.org "kernel/sys: note the order of prctl options"
note mm/mmap.c "vma merging is tried before a new vma is allocated"
commit "Grace Hopper" grace@example.org "mm/mmap: document the merge-first policy"
note lib/string.c "the generic versions above are used when the arch has none"
commit "Alan Turing" alan@example.org "lib/string: say when the generic helpers apply"
note fs/open.c "do_sys_open() is the common path of open(2) and openat(2)"
commit "Ada Lovelace" ada@example.org "fs/open: point at the common open path"
note kernel/fork.c "copy_process() does the work; kernel_clone() decides what to copy"
commit "Edsger Dijkstra" edsger@example.org "fork: describe the split between copy and clone"
note init/main.c "rest_init() runs once the boot CPU is set up"
commit "Grace Hopper" grace@example.org "init: note when rest_init() runs"
note fs/dcache.c "d_alloc() takes a reference on the parent"
commit "Barbara Liskov" barbara@example.org "dcache: note the parent reference of d_alloc()"
note fs/inode.c "new_inode() returns an inode that is not hashed"
commit "Edsger Dijkstra" edsger@example.org "fs/inode: note that new inodes are unhashed"
note kernel/exit.c "do_exit() never returns"
commit "Barbara Liskov" barbara@example.org "exit: state that do_exit() does not return"
note mm/page_alloc.c "the fast path is tried before the slow path and reclaim"
commit "Grace Hopper" grace@example.org "mm/page_alloc: outline the allocation paths"
printf '\nint sys_demo_limit = DEMO_LIMIT_UNDEFINED;\n' >>kernel/sys.c
commit "Alan Turing" alan@example.org "kernel/sys: add a limit for the demo knob" \
	"Add the variable that will hold the limit of the demo knob."
git tag demo-broken
sed -i 's/^int sys_demo_limit = DEMO_LIMIT_UNDEFINED;$/int sys_demo_limit = 16;/' kernel/sys.c
commit "Alan Turing" alan@example.org "kernel/sys: define the demo knob's default" \
	"The previous commit used a name that is defined nowhere; give the limit its value."
# the regression: a delay in the create path of open(2)
sed -i 's|^#include <linux/uaccess.h>$|#include <linux/uaccess.h>\n#include <linux/delay.h>|' fs/namei.c
sed -i 's|^static struct dentry \*lookup_open(struct nameidata \*nd, struct file \*file,$|/*\n * Give the dentry cache a moment between creations: it smooths bursts of\n * creates on slow media.\n */\nstatic noinline void namei_create_throttle(void)\n{\n\tudelay(200);\n}\n\n&|' fs/namei.c
sed -i 's|^\t\terror = dir_inode->i_op->create(mnt_userns, dir_inode, dentry,$|\t\tnamei_create_throttle();\n&|' fs/namei.c
grep -q namei_create_throttle fs/namei.c
commit "Ada Lovelace" ada@example.org "namei: pace file creation in lookup_open()" \
	"Bursts of creates can overrun the dentry cache on slow media; pace them."
git tag demo-slow
note fs/read_write.c "vfs_read() checks the file mode before calling the driver"
commit "Alan Turing" alan@example.org "fs/read_write: note the mode check of vfs_read()"
note kernel/time/timer.c "timers are kept per CPU in wheels of increasing granularity"
commit "Edsger Dijkstra" edsger@example.org "timers: describe the timer wheel in a line"
note lib/sort.c "the sort is a heapsort: no recursion, no extra memory"
commit "Barbara Liskov" barbara@example.org "lib/sort: say which sort it is"
note fs/super.c "sget() finds or creates a superblock"
commit "Grace Hopper" grace@example.org "fs/super: note what sget() does"
note kernel/signal.c "signals are queued per thread and per process"
commit "Ada Lovelace" ada@example.org "signal: note the two pending queues"
note mm/slab_common.c "the kmalloc caches are created early in boot"
commit "Alan Turing" alan@example.org "slab: note when the kmalloc caches appear"
note fs/file_table.c "files are freed from a work item when the last reference goes"
commit "Barbara Liskov" barbara@example.org "file_table: note the deferred free"
note kernel/panic.c "panic() tries to flush the console before it stops"
commit "Edsger Dijkstra" edsger@example.org "panic: note the console flush"
note kernel/reboot.c "kernel_restart() stops the other CPUs before the restart"
commit "Grace Hopper" grace@example.org "reboot: note what kernel_restart() stops"
git tag demo-bad
boot_failures
flaky_failures
git log --oneline demo-good..demo-bad | wc -l | xargs echo "demo history: commits after the base:"
