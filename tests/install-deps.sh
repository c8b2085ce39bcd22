#!/bin/sh
# Install the Debian 12 packages needed to build and test kbisect.
# Runs as root, or through sudo otherwise.  'make deps' runs it.
set -eu

PACKAGES="build-essential pkg-config libgit2-dev libvirt-dev libssh2-1-dev
libsqlite3-dev libjansson-dev libcurl4-openssl-dev git sqlite3 groff-base
man-db mawk"
# kernel builds, and the demo kernel history made from Debian's source
PACKAGES="$PACKAGES linux-source-6.1 xz-utils flex bison bc libelf-dev libssl-dev
ccache cpio kmod"
# VMs: libvirt with QEMU, and what the guests use from the host's root
PACKAGES="$PACKAGES libvirt-daemon-system libvirt-clients qemu-system-x86 fio
e2fsprogs busybox-static procps"
# hosts over SSH: the test host's sshd and kexec, a remote libvirt over ssh
PACKAGES="$PACKAGES openssh-server openssh-client kexec-tools iproute2
netcat-openbsd"
# report --svg: t0110 renders the plot headless and reads the screenshot
PACKAGES="$PACKAGES chromium python3"
# mail: the tests' SMTP server (tests/lib-smtpd.sh), Exim, and its
# certificate; takes the place of any other MTA package
PACKAGES="$PACKAGES exim4-daemon-light openssl util-linux"
# builds through a compiler wrapper: a distcc server on loopback
PACKAGES="$PACKAGES distcc"
# a LAVA lab (t0210, tests/lib-lava.sh, sh tests/demo.sh lava), with
# 'install-deps.sh lava' or KBISECT_TEST_LAVA=1: lava-server on
# PostgreSQL, a lava-worker; libguestfs (the disk of LAVA's test overlay)
# boots the distribution's kernel, which only a Recommends would bring
if [ "${1:-}" = lava ] || [ "${KBISECT_TEST_LAVA:-}" = 1 ]; then
	PACKAGES="$PACKAGES lava-server lava-dispatcher lavacli postgresql linux-image-amd64"
fi
# the fuzzers of tests/fuzz/ (t0300): clang with libFuzzer
PACKAGES="$PACKAGES clang libclang-rt-14-dev"

if [ "$(id -u)" -eq 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1; then
	SUDO=sudo
else
	echo "install-deps.sh: run as root, or install sudo" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # $SUDO and $PACKAGES are word lists
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends $PACKAGES

# /dev/kvm as udev leaves it (group kvm, mode 660) where no udev ran:
# libvirt's QEMU runs as libvirt-qemu, and with a /dev/kvm only root may
# open, libvirt probes QEMU again before every VM start
if [ -c /dev/kvm ] && getent group kvm >/dev/null &&
	[ "$(stat -c %a /dev/kvm)" = 600 ]; then
	$SUDO chgrp kvm /dev/kvm
	$SUDO chmod 660 /dev/kvm
fi

# libvirt's daemons: started by the init system where there is one, by
# hand where there is none (containers, CI machines)
if ! virsh -c qemu:///system version >/dev/null 2>&1; then
	pgrep -x virtlogd >/dev/null || $SUDO virtlogd -d
	pgrep -x libvirtd >/dev/null || $SUDO libvirtd -d
	i=0
	while ! virsh -c qemu:///system version >/dev/null 2>&1 && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
fi
