# An OpenSSH server of the tests, on a loopback port, that lets in one
# key: sourced by the tests that reach a host over SSH.
#
#   sshd_start DIR    start it; sets SSHD_PORT, SSHD_KEY (the client's
#                     private key), SSHD_HOST_KEY (the server's public key)
#   sshd_stop DIR     stop it
#
# It runs as the user running the tests (root on the machines the tests
# run on, for libvirt), with the keys, the configuration and the log in
# DIR.

sshd_start () {
	sshd_dir=$1
	mkdir -p "$sshd_dir" &&
	rm -f "$sshd_dir/host_key" "$sshd_dir/id" &&
	ssh-keygen -q -t ed25519 -N '' -C kbisect-test-host -f "$sshd_dir/host_key" &&
	ssh-keygen -q -t ed25519 -N '' -C kbisect-test -f "$sshd_dir/id" &&
	cp "$sshd_dir/id.pub" "$sshd_dir/authorized_keys" &&
	chmod 600 "$sshd_dir/authorized_keys" || return 1
	# privilege separation wants this directory
	mkdir -p /run/sshd 2>/dev/null
	for sshd_port in $(seq $((20000 + $$ % 20000)) $((20019 + $$ % 20000)))
	do
		cat >"$sshd_dir/sshd_config" <<-EOF
		Port $sshd_port
		ListenAddress 127.0.0.1
		HostKey $sshd_dir/host_key
		PidFile $sshd_dir/sshd.pid
		AuthorizedKeysFile $sshd_dir/authorized_keys
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		PermitRootLogin prohibit-password
		StrictModes no
		UsePAM no
		EOF
		if /usr/sbin/sshd -f "$sshd_dir/sshd_config" -E "$sshd_dir/sshd.log" 9>&-; then
			SSHD_PORT=$sshd_port
			SSHD_KEY=$sshd_dir/id
			SSHD_HOST_KEY=$sshd_dir/host_key.pub
			return 0
		fi
	done
	echo "no sshd could listen on a loopback port: $(tail -n 3 "$sshd_dir/sshd.log")" >&2
	return 1
}

sshd_stop () {
	if test -f "$1/sshd.pid"; then
		kill "$(cat "$1/sshd.pid")" 2>/dev/null
		rm -f "$1/sshd.pid"
	fi
	return 0
}
