#!/bin/sh
# A small root file system for the QEMU devices of the tests' LAVA lab:
# busybox, with fio and mkfs.ext4 and the libraries they load copied from
# this machine, as an uncompressed initramfs (cpio "newc").  Its /init
# mounts what a shell needs, names the disks by UUID (LAVA's test shell
# mounts its overlay disk as /dev/disk/by-uuid/UUID, and there is no udev),
# and runs a root shell on the console, whose prompt the job waits for.
#
#   sh tests/lava/ramdisk.sh OUT
#
# A lab's own root file systems (KernelCI's, a vendor's) do the same for
# its boards; any with a POSIX shell and the benchmark's tools will do.
set -eu

out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/lib" \
	"$root/lib64" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/run" \
	"$root/mnt" "$root/root" "$root/etc"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
# programs with their libraries, where this machine has them
for prog in fio mkfs.ext4 mke2fs; do
	path=$(command -v "$prog" 2>/dev/null) || continue
	cp "$path" "$root/usr/bin/$prog"
	ldd "$path" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
cat >"$root/init" <<'INIT'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# the UUID of an ext2/3/4 file system, read from its superblock (busybox
# has no blkid here)
mkdir -p /dev/disk/by-uuid
for dev in /dev/vd? /dev/sd? /dev/hd?; do
	[ -b "$dev" ] || continue
	magic=$(dd if="$dev" bs=1 skip=1080 count=2 2>/dev/null | od -An -tx1 | tr -d ' \n')
	[ "$magic" = 53ef ] || continue
	uuid=$(dd if="$dev" bs=1 skip=1128 count=16 2>/dev/null | od -An -tx1 | tr -d ' \n' |
		sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)\(.\{12\}\)$/\1-\2-\3-\4-\5/')
	[ -n "$uuid" ] && ln -sf "$dev" "/dev/disk/by-uuid/$uuid"
done
echo "kbisect test ramdisk: $(uname -r)"
cd /
while :; do
	setsid cttyhack sh -l
done
INIT
chmod 755 "$root/init"
echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
printf 'export PS1="/ # "\n' >"$root/etc/profile"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$out.new"
mv "$out.new" "$out"
