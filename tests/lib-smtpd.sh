# A mail server of the tests, on loopback ports, that takes mail for any
# address from one account and keeps each message in a file: sourced by
# the tests of what kbisect sends by mail.
#
#   smtpd_start DIR     start it; sets
#       SMTPD_PORT       SMTP that offers STARTTLS, and AUTH after it
#       SMTPS_PORT       SMTP over TLS from the first byte (smtps), AUTH
#       SMTPD_OPEN_PORT  SMTP without TLS that takes mail without AUTH
#       SMTPD_USER, SMTPD_PASSWORD  the one account (AUTH PLAIN, LOGIN)
#       SMTPD_CA         the server's self-signed certificate, for
#                        localhost and 127.0.0.1, that clients must trust
#   smtpd_messages DIR  print the file of each message delivered so far,
#                       oldest first: the message as received, headers and
#                       body, after the server's own headers (Return-path:,
#                       Envelope-to: with every recipient of the envelope,
#                       Received:); one file per message, whatever its
#                       number of recipients
#   smtpd_stop DIR      stop it, and whatever it started
#
# The server is Exim (Debian's exim4-daemon-light), with its own
# configuration, spool, logs (DIR/log/mainlog) and mail (DIR/mail) in DIR,
# beside any system instance.  It must be started as root, and its user
# (Debian-exim) must be able to reach DIR.  No AUTH is offered before TLS,
# and none is taken then.  The functions can run under set -e (as in
# test_expect_success).

# shellcheck disable=SC2034 # the SMTPD_* it sets are for the tests
SMTPD_EXIM=/usr/sbin/exim4
SMTPD_EXIM_USER=Debian-exim

smtpd_start () {
	if ! test -x "$SMTPD_EXIM"; then
		echo "smtpd_start: no $SMTPD_EXIM: install exim4-daemon-light" >&2
		return 1
	fi
	smtpd_dir=$(mkdir -p "$1" && cd "$1" && pwd) || return 1
	case $smtpd_dir in
	*[!A-Za-z0-9._/+-]*)
		echo "smtpd_start: $smtpd_dir: a path of letters, digits and ._/+- only, please" >&2
		return 1 ;;
	esac
	smtpd_stop "$smtpd_dir" || return 1
	rm -rf "$smtpd_dir/spool" "$smtpd_dir/log" "$smtpd_dir/mail" &&
	mkdir "$smtpd_dir/spool" "$smtpd_dir/log" "$smtpd_dir/mail" &&
	chown "$SMTPD_EXIM_USER:" "$smtpd_dir/spool" "$smtpd_dir/log" "$smtpd_dir/mail" &&
	chmod 755 "$smtpd_dir/mail" || return 1
	if ! setpriv --reuid="$SMTPD_EXIM_USER" --regid="$SMTPD_EXIM_USER" --clear-groups \
	    test -w "$smtpd_dir/mail" 2>/dev/null; then
		echo "smtpd_start: $SMTPD_EXIM_USER cannot reach $smtpd_dir" >&2
		return 1
	fi
	# the certificate, for the names a client may use to reach it
	rm -f "$smtpd_dir/key.pem" "$smtpd_dir/cert.pem"
	if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-nodes -days 30 -subj /CN=localhost \
		-addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' \
		-keyout "$smtpd_dir/key.pem" -out "$smtpd_dir/cert.pem" \
		>"$smtpd_dir/openssl.log" 2>&1; then
		echo "smtpd_start: no certificate: $(tail -n 3 "$smtpd_dir/openssl.log")" >&2
		return 1
	fi
	# read by the processes that take mail, as Debian-exim
	chgrp "$SMTPD_EXIM_USER" "$smtpd_dir/key.pem" &&
	chmod 640 "$smtpd_dir/key.pem" || return 1
	smtpd_user=kbisect
	smtpd_password=kbisect-test-password
	smtpd_base=$((41000 + $$ % 7000 * 3))
	for smtpd_try in $(seq 0 19)
	do
		smtpd_port=$((smtpd_base + 3 * smtpd_try))
		smtpd_write_conf_ "$smtpd_dir" "$smtpd_port" $((smtpd_port + 1)) \
			$((smtpd_port + 2)) "$smtpd_user" "$smtpd_password" || return 1
		rm -f "$smtpd_dir/exim.pid" "$smtpd_dir/log/mainlog" "$smtpd_dir/log/paniclog"
		# -bdf: a daemon in the foreground, whose process id is $!
		"$SMTPD_EXIM" -C "$smtpd_dir/exim.conf" -bdf \
			</dev/null >"$smtpd_dir/exim.out" 2>&1 9>&- &
		smtpd_pid=$!
		# it logs its start once it listens on every port, and it
		# exits when a port is taken
		smtpd_i=0
		while [ $smtpd_i -lt 100 ] && smtpd_alive_ "$smtpd_pid"; do
			if grep -qs "daemon started: pid=$smtpd_pid," "$smtpd_dir/log/mainlog"; then
				echo "$smtpd_pid" >"$smtpd_dir/exim.pid"
				SMTPD_PORT=$smtpd_port
				SMTPS_PORT=$((smtpd_port + 1))
				SMTPD_OPEN_PORT=$((smtpd_port + 2))
				SMTPD_USER=$smtpd_user
				SMTPD_PASSWORD=$smtpd_password
				SMTPD_CA=$smtpd_dir/cert.pem
				return 0
			fi
			sleep 0.05
			smtpd_i=$((smtpd_i + 1))
		done
		kill "$smtpd_pid" 2>/dev/null || :
		wait "$smtpd_pid" 2>/dev/null || :
		# another reason than a port in use: no use trying others
		grep -qs 'Address already in use' "$smtpd_dir/log/paniclog" \
			"$smtpd_dir/exim.out" || break
	done
	echo "smtpd_start: no exim could listen on loopback ports:" \
		"$(cat "$smtpd_dir/exim.out" "$smtpd_dir/log/paniclog" 2>/dev/null | tail -n 3)" >&2
	return 1
}

# smtpd_write_conf_ DIR PORT SMTPS_PORT OPEN_PORT USER PASSWORD
smtpd_write_conf_ () {
	cat >"$1/exim.conf" <<-EOF
	# the test server of lib-smtpd.sh
	primary_hostname = localhost
	local_interfaces = 127.0.0.1
	daemon_smtp_ports = $2 : $3 : $4
	tls_on_connect_ports = $3
	daemon_startup_retries = 0
	spool_directory = $1/spool
	log_file_path = $1/log/%slog
	pid_file_path = $1/exim.pid
	keep_environment =
	host_lookup =
	rfc1413_hosts =
	helo_accept_junk_hosts = *
	smtp_banner = localhost ESMTP kbisect test server
	tls_certificate = $1/cert.pem
	tls_privatekey = $1/key.pem
	tls_advertise_hosts = \${if =={\$received_port}{$4}{}{*}}
	acl_smtp_rcpt = rcpt
	acl_smtp_data = data

	begin acl
	rcpt:
	  accept condition = \${if =={\$received_port}{$4}}
	  accept authenticated = *
	  deny message = authentication required
	# the time it was taken, for the name of its file
	data:
	  accept set acl_m_taken = \${tod_epoch_l}

	begin routers
	everyone:
	  driver = accept
	  transport = store

	begin transports
	# one file a message, for every recipient at once, named so that
	# the names sort in the order the messages were taken
	store:
	  driver = appendfile
	  directory = $1/mail
	  directory_file = \${acl_m_taken}-\$message_exim_id.eml
	  create_directory = false
	  batch_max = 1000
	  user = $SMTPD_EXIM_USER
	  mode = 0644
	  message_prefix =
	  message_suffix =
	  check_string =
	  escape_string =
	  envelope_to_add
	  return_path_add

	begin retry
	* * F,1m,10s

	begin authenticators
	plain:
	  driver = plaintext
	  public_name = PLAIN
	  server_prompts = :
	  server_condition = \${if and {{eq{\$auth2}{$5}}{eq{\$auth3}{$6}}}}
	  server_set_id = \$auth2
	  server_advertise_condition = \${if def:tls_in_cipher}
	login:
	  driver = plaintext
	  public_name = LOGIN
	  server_prompts = Username:: : Password::
	  server_condition = \${if and {{eq{\$auth1}{$5}}{eq{\$auth2}{$6}}}}
	  server_set_id = \$auth1
	  server_advertise_condition = \${if def:tls_in_cipher}
	EOF
}

# smtpd_alive_ PID: is it running (not gone, nor a zombie)?
smtpd_alive_ () {
	kill -0 "$1" 2>/dev/null || return 1
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) in
	Z*|X*|'') return 1 ;;
	esac
	return 0
}

smtpd_messages () {
	# a message taken is in the spool until it is in a file: wait for
	# the deliveries under way
	smtpd_i=0
	while [ $smtpd_i -lt 100 ] &&
	    [ -n "$(ls "$1/spool/input" 2>/dev/null)" ]; do
		sleep 0.1
		smtpd_i=$((smtpd_i + 1))
	done
	for smtpd_f in "$1"/mail/*.eml; do
		test -f "$smtpd_f" && printf '%s\n' "$smtpd_f"
	done
	return 0
}

smtpd_stop () {
	smtpd_stop_dir=$(cd "$1" 2>/dev/null && pwd) || return 0
	smtpd_stop_pid=$(cat "$smtpd_stop_dir/exim.pid" 2>/dev/null) || :
	rm -f "$smtpd_stop_dir/exim.pid"
	# the daemon and what it started: the processes that run its
	# configuration (not a process that got the number of a daemon gone)
	smtpd_i=0
	while [ $smtpd_i -lt 50 ]; do
		smtpd_left=
		for smtpd_p in /proc/[0-9]*; do
			smtpd_p=${smtpd_p#/proc/}
			if grep -qsF -- "$smtpd_stop_dir/exim.conf" "/proc/$smtpd_p/cmdline" &&
			    test "$(readlink "/proc/$smtpd_p/exe")" = "$SMTPD_EXIM" &&
			    smtpd_alive_ "$smtpd_p"; then
				kill "$smtpd_p" 2>/dev/null || :
				smtpd_left="$smtpd_left $smtpd_p"
				# reap the daemon when this shell started it
				if [ "$smtpd_p" = "$smtpd_stop_pid" ]; then
					wait "$smtpd_p" 2>/dev/null || :
				fi
			fi
		done
		test -z "$smtpd_left" && return 0
		sleep 0.1
		smtpd_i=$((smtpd_i + 1))
	done
	echo "smtpd_stop: still running:$smtpd_left" >&2
	return 1
}
