#!/bin/sh
# A QEMU machine (TCG) that plays a bare-metal host for the ssh target:
# it boots KERNEL with tests/kernel/host-init, which runs sshd; port 22 is
# forwarded from a loopback port of this machine.
#
#   host-vm.sh start DIR KERNEL   make the host's keys and start it; prints
#                                 the port (also in DIR/port)
#   host-vm.sh cycle DIR          power cycle: stop QEMU, start it again
#                                 with KERNEL (the host's "installed" kernel)
#   host-vm.sh stop DIR           stop it
#   host-vm.sh hang DIR           stop its processor (it stops answering)
#
# DIR keeps the host key, the authorized key (DIR/id is the client's
# private key), the sshd configuration, the scratch disk, the host's
# /srv (DIR/modules, writable and kept across boots like a disk: the
# tests install modules in /srv/lib/modules)
# and the console (DIR/console.log, appended to across boots).
set -eu
cmd=$1
dir=$(cd "$2" 2>/dev/null && pwd || { mkdir -p "$2" && cd "$2" && pwd; })
here=$(cd "$(dirname "$0")" && pwd)

stop () {
	if test -f "$dir/qemu.pid"; then
		pid=$(cat "$dir/qemu.pid")
		kill "$pid" 2>/dev/null || true
		n=0
		while kill -0 "$pid" 2>/dev/null && test $n -lt 50; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$dir/qemu.pid"
	fi
}

run () {
	# run PORT: start QEMU, forwarding PORT; fails when the port is taken
	qemu-system-x86_64 -accel tcg -m 512 -smp 1 -nodefaults -display none \
		-kernel "$dir/kernel" \
		-append "console=ttyS0 root=kbroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144 ro init=$here/host-init kbhost=$dir panic=5 oops=panic tsc=reliable" \
		-fsdev local,id=root,path=/,security_model=passthrough,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=kbroot \
		-fsdev local,id=mods,path="$dir/modules",security_model=passthrough \
		-device virtio-9p-pci,fsdev=mods,mount_tag=kbmods \
		-netdev user,id=net,hostfwd=tcp:127.0.0.1:$1-:22 \
		-device virtio-net-pci,netdev=net \
		-object rng-random,id=rng,filename=/dev/urandom \
		-device virtio-rng-pci,rng=rng \
		-drive file="$dir/scratch.img",if=virtio,format=raw,cache=unsafe \
		-serial file:"$dir/console.new" \
		-monitor unix:"$dir/monitor",server=on,wait=off \
		-pidfile "$dir/qemu.pid" -daemonize 2>"$dir/qemu.err" 9>&-
}

start_again () {
	# the console of the boots before stays in console.log
	test -f "$dir/console.new" && cat "$dir/console.new" >>"$dir/console.log"
	rm -f "$dir/console.new"
	run "$(cat "$dir/port")"
}

case $cmd in
start)
	kernel=$3
	stop
	cp "$kernel" "$dir/kernel"
	rm -f "$dir/host_key" "$dir/host_key.pub" "$dir/id" "$dir/id.pub" "$dir/console.log" "$dir/console.new"
	ssh-keygen -q -t ed25519 -N '' -C kbisect-test-host -f "$dir/host_key"
	ssh-keygen -q -t ed25519 -N '' -C kbisect-test -f "$dir/id"
	cp "$dir/id.pub" "$dir/authorized_keys"
	cat >"$dir/guest_sshd_config" <<-EOC
	Port 22
	HostKey $dir/host_key
	PidFile /run/sshd.pid
	AuthorizedKeysFile $dir/authorized_keys
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	StrictModes no
	UsePAM no
	Subsystem sftp internal-sftp
	EOC
	truncate -s 256M "$dir/scratch.img"
	rm -rf "$dir/modules"
	mkdir -p "$dir/modules/lib/modules"
	for port in $(seq $((30000 + $$ % 20000)) $((30019 + $$ % 20000))); do
		if run "$port"; then
			echo "$port" >"$dir/port"
			echo "$port"
			exit 0
		fi
	done
	echo "QEMU did not start: $(cat "$dir/qemu.err")" >&2
	exit 1
	;;
cycle)
	stop
	start_again
	;;
hang)
	# a machine that stops: no more answers, until it is power-cycled
	echo stop | timeout 5 nc -U -q 1 "$dir/monitor" >/dev/null 2>&1
	;;
stop)
	stop
	;;
*)
	echo "usage: host-vm.sh start DIR KERNEL | cycle DIR | hang DIR | stop DIR" >&2
	exit 2
	;;
esac
