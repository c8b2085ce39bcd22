#!/bin/sh
# Install the Debian 12 packages needed to build and test kbisect.
# Runs as root, or through sudo otherwise.  'make deps' runs it.
set -eu

PACKAGES="build-essential pkg-config libgit2-dev libvirt-dev libssh2-1-dev
libsqlite3-dev libjansson-dev libcurl4-openssl-dev git sqlite3 groff-base
man-db"
# kernel builds, and the demo kernel history made from Debian's source
PACKAGES="$PACKAGES linux-source-6.1 xz-utils flex bison bc libelf-dev libssl-dev
ccache cpio kmod"

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
