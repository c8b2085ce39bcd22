# A LAVA lab of the tests, on this machine and its loopback: Debian's
# lava-server (its web process under gunicorn, and its scheduler) on
# PostgreSQL, a lava-worker with QEMU devices of LAVA's device type
# "qemu" (TCG: no KVM), and a web server that serves the directory
# kbisect publishes the kernels in.  Sourced by the tests that boot in
# LAVA; nothing of it is a system service (no systemd).
#
#   lava_have              0 when the packages are there (else LAVA_MISSING says)
#   lava_start DIR         start it all; sets LAVA_URL, LAVA_TOKEN_FILE (the
#                          API token of user kbisect-test, mode 600),
#                          LAVA_PUBLISH_DIR, LAVA_PUBLISH_URL
#   lava_device NAME       a QEMU device of the worker, in service
#   lava_server_stop       stop the web process (the API) / start it again
#   lava_server_start
#   lava_jobs_json         every job, as the API lists them
#   lava_stop              stop what lava_start started
#
# The lab has a database of its own, LAVA_DB (default kbisect_test), and
# its own directory of job outputs: it never touches the lab of the
# machine's own lava-server, if there is one (its settings come from the
# environment, LAVA_YAML_SETTINGS_*).  The database, its user and the
# devices persist in PostgreSQL between runs; the first start on a machine
# makes the database (LAVA's migrations: see LAVA_FIRST_START_SECONDS).

lava_have () {
	LAVA_MISSING=
	for c in pg_ctlcluster pg_lsclusters gunicorn3 lava-server lava-worker \
		qemu-system-x86_64 curl python3; do
		command -v $c >/dev/null 2>&1 || LAVA_MISSING="$LAVA_MISSING $c"
	done
	test -f /usr/share/lava-server/device-types/qemu.jinja2 ||
		LAVA_MISSING="$LAVA_MISSING lava-server's device types"
	test -z "$LAVA_MISSING"
}

# lava_wait_for TIMEOUT_SECONDS COMMAND...
lava_wait_for () {
	lava_w_until=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		if test "$(date +%s)" -ge $lava_w_until; then
			return 1
		fi
		sleep 0.5
	done
}

lava_api_up () {
	curl -sf "$LAVA_URL/api/v0.2/system/version/"
}

lava_manage () {
	lava-server manage "$@" </dev/null
}

# the settings of the lab's own database and job outputs, for every
# process of lava-server
lava_settings () {
	LAVA_DB=${LAVA_DB:-kbisect_test}
	LAVA_YAML_SETTINGS_DATABASES="{default: {ENGINE: django.db.backends.postgresql, \
NAME: $LAVA_DB, USER: $LAVA_DB, PASSWORD: $LAVA_DB, HOST: localhost, PORT: 5432}}"
	LAVA_SETTINGS_MEDIA_ROOT=/var/lib/lava-server/$LAVA_DB/media
	export LAVA_YAML_SETTINGS_DATABASES LAVA_SETTINGS_MEDIA_ROOT
}

lava_start () {
	LAVA_DIR=$1
	mkdir -p "$LAVA_DIR" "$LAVA_DIR/publish" "$LAVA_DIR/worker" || return 1
	# PostgreSQL's cluster, started by hand where no init system did
	LAVA_PG_STARTED=
	lava_pg=$(pg_lsclusters -h | head -n 1)
	if test -z "$lava_pg"; then
		pg_createcluster 15 main >/dev/null || return 1
		lava_pg=$(pg_lsclusters -h | head -n 1)
	fi
	set -- $lava_pg
	LAVA_PG="$1 $2"
	if test "$4" != online; then
		pg_ctlcluster $LAVA_PG start || return 1
		LAVA_PG_STARTED=yes
	fi
	lava_wait_for 60 pg_isready -q || return 1
	# lava-server's own configuration (its secret key), once
	if ! test -f /etc/lava-server/settings.d/00-secret-key.yaml; then
		python3 /usr/share/lava-server/postinst.py --config --fixup \
			>"$LAVA_DIR/config.log" 2>&1 || return 1
	fi
	# the lab's database: made, and LAVA's migrations run, the first time
	lava_settings
	mkdir -p "$LAVA_SETTINGS_MEDIA_ROOT/job-output" &&
	chown -R lavaserver:lavaserver "/var/lib/lava-server/$LAVA_DB" || return 1
	if ! lava_manage showmigrations lava_scheduler_app >"$LAVA_DIR/migrations" 2>&1 ||
		grep -q '\[ \]' "$LAVA_DIR/migrations"; then
		lava_t0=$(date +%s)
		su postgres -c "psql -q" >"$LAVA_DIR/first-start.log" 2>&1 <<-EOF
		CREATE ROLE $LAVA_DB LOGIN PASSWORD '$LAVA_DB';
		CREATE DATABASE $LAVA_DB OWNER $LAVA_DB ENCODING 'UTF-8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0;
		EOF
		lava_manage migrate --noinput >>"$LAVA_DIR/first-start.log" 2>&1 || {
			tail -n 20 "$LAVA_DIR/first-start.log" >&2
			return 1
		}
		# the jobs of two labs of this machine must not share ids: the
		# dispatcher's temporary directories are named by them
		if test -n "${LAVA_JOB_IDS:-}"; then
			su postgres -c "psql -q -d $LAVA_DB -c \"SELECT setval('lava_scheduler_app_testjob_id_seq', $LAVA_JOB_IDS)\"" \
				>>"$LAVA_DIR/first-start.log" 2>&1 || return 1
		fi
		LAVA_FIRST_START_SECONDS=$(($(date +%s) - lava_t0))
		echo "# LAVA's first start (its database and migrations): $LAVA_FIRST_START_SECONDS s"
	fi
	lava_port=${LAVA_PORT:-$((30000 + $$ % 5000))}
	LAVA_URL=http://127.0.0.1:$lava_port
	gunicorn3 lava_server.wsgi --bind 127.0.0.1:$lava_port --workers 2 \
		--worker-class eventlet --timeout 120 -u lavaserver -g lavaserver \
		--pid "$LAVA_DIR/gunicorn.pid" --log-file "$LAVA_DIR/gunicorn.log" --daemon ||
		return 1
	lava_wait_for 120 lava_api_up || {
		echo "lava-server's web process did not answer at $LAVA_URL" >&2
		tail -n 20 "$LAVA_DIR/gunicorn.log" >&2
		return 1
	}
	# the user of the tests and its API token (a new one each time)
	lava_manage users add kbisect-test --superuser --staff --passwd "kb$$" \
		>/dev/null 2>&1 || true
	LAVA_TOKEN_FILE=$LAVA_DIR/token
	(umask 077 && lava_manage tokens add --user kbisect-test | tail -n 1 >"$LAVA_TOKEN_FILE") ||
		return 1
	# the worker, its token, and the environment of its jobs: libguestfs
	# (which makes the disk of LAVA's test overlay) under TCG here
	LAVA_WORKER=kbisect-test-worker
	lava_manage workers add "$LAVA_WORKER" >/dev/null 2>&1 || true
	(umask 077 && lava_manage shell -c "from lava_scheduler_app.models import Worker; \
print(Worker.objects.get(hostname='$LAVA_WORKER').token)" | tail -n 1 \
		>"$LAVA_DIR/worker-token") || return 1
	mkdir -p "/etc/lava-server/dispatcher.d/$LAVA_WORKER"
	cat >"/etc/lava-server/dispatcher.d/$LAVA_WORKER/env.yaml" <<-EOF
	purge: true
	overrides:
	  LC_ALL: C.UTF-8
	  LANG: C
	  PATH: /usr/local/bin:/usr/local/sbin:/bin:/usr/bin:/usr/sbin:/sbin
	  LIBGUESTFS_BACKEND: direct
	  LIBGUESTFS_BACKEND_SETTINGS: force_tcg
	EOF
	lava_manage device-types add qemu >/dev/null 2>&1 || true
	# what an earlier run left queued or running, and its devices: the
	# tests put in service the devices they use (lava_device)
	lava_manage shell -c "from lava_scheduler_app.models import TestJob, Device; \
TestJob.objects.exclude(state=TestJob.STATE_FINISHED).update(\
state=TestJob.STATE_FINISHED, health=TestJob.HEALTH_CANCELED); \
Device.objects.all().update(state=Device.STATE_IDLE, health=Device.HEALTH_RETIRED)" \
		>/dev/null || return 1
	lava-server manage lava-scheduler --log-file "$LAVA_DIR/scheduler.log" \
		</dev/null >>"$LAVA_DIR/scheduler.out" 2>&1 &
	echo $! >"$LAVA_DIR/scheduler.pid"
	# lava-worker runs its jobs under nice (10 more than itself): at -10,
	# they run as the other processes here do
	nice -n -10 lava-worker --name "$LAVA_WORKER" --url "$LAVA_URL/" \
		--token-file "$LAVA_DIR/worker-token" --worker-dir "$LAVA_DIR/worker" \
		--log-file "$LAVA_DIR/worker.log" </dev/null >>"$LAVA_DIR/worker.out" 2>&1 &
	echo $! >"$LAVA_DIR/worker.pid"
	# the web server of the published kernels: any serves (nginx, Apache)
	LAVA_PUBLISH_DIR=$LAVA_DIR/publish
	lava_http_port=$((lava_port + 5000))
	LAVA_PUBLISH_URL=http://127.0.0.1:$lava_http_port
	python3 -m http.server $lava_http_port --bind 127.0.0.1 \
		--directory "$LAVA_PUBLISH_DIR" </dev/null >"$LAVA_DIR/http.log" 2>&1 &
	echo $! >"$LAVA_DIR/http.pid"
	lava_wait_for 30 curl -sf "$LAVA_PUBLISH_URL/" || return 1
	# the worker is online once the server has heard from it
	lava_wait_for 60 lava_worker_online || {
		echo "lava-worker did not come online" >&2
		tail -n 20 "$LAVA_DIR/worker.log" >&2
		return 1
	}
	return 0
}

lava_worker_online () {
	curl -sf "$LAVA_URL/api/v0.2/workers/$LAVA_WORKER/" | grep -q '"state":"Online"'
}

# lava_device NAME: a QEMU device of the worker, in service, of 1 GiB and
# without KVM
lava_device () {
	cat >"/etc/lava-server/dispatcher-config/devices/$1.jinja2" <<-EOF
	{% extends 'qemu.jinja2' %}
	{% set mac_addr = '52:54:00:12:34:$(printf %02x $(( $(echo "$1" | cksum | cut -d " " -f 1) % 200 + 16 )))' %}
	{% set memory = 1024 %}
	{% set no_kvm = True %}
	{% set guestfs_interface = 'virtio' %}
	EOF
	lava_manage devices add --device-type qemu --worker "$LAVA_WORKER" "$1" \
		>/dev/null 2>&1 || true
	lava_manage devices update --health GOOD --worker "$LAVA_WORKER" "$1" >/dev/null
}

# lava_device_retire NAME: out of service (no job goes to it)
lava_device_retire () {
	lava_manage devices update --health RETIRED "$1" >/dev/null
}

lava_server_stop () {
	if test -f "$LAVA_DIR/gunicorn.pid"; then
		lava_gpid=$(cat "$LAVA_DIR/gunicorn.pid")
		kill "$lava_gpid" 2>/dev/null
		lava_wait_for 30 sh -c "! kill -0 $lava_gpid"
		rm -f "$LAVA_DIR/gunicorn.pid"
	fi
	return 0
}

lava_server_start () {
	lava_settings
	lava_port=${LAVA_URL##*:}
	gunicorn3 lava_server.wsgi --bind 127.0.0.1:$lava_port --workers 2 \
		--worker-class eventlet --timeout 120 -u lavaserver -g lavaserver \
		--pid "$LAVA_DIR/gunicorn.pid" --log-file "$LAVA_DIR/gunicorn.log" --daemon &&
	lava_wait_for 120 lava_api_up
}

lava_jobs_json () {
	curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" \
		"$LAVA_URL/api/v0.2/jobs/?limit=1000&ordering=id"
}

lava_stop () {
	# the jobs the worker runs: lava-run ends its QEMU when it is stopped
	if test -f "$LAVA_DIR/worker.pid"; then
		for lava_c in $(pgrep -P "$(cat "$LAVA_DIR/worker.pid")"); do
			kill "$lava_c" 2>/dev/null
			lava_wait_for 30 sh -c "! kill -0 $lava_c 2>/dev/null"
		done
	fi
	for lava_p in worker scheduler http; do
		if test -f "$LAVA_DIR/$lava_p.pid"; then
			kill "$(cat "$LAVA_DIR/$lava_p.pid")" 2>/dev/null
			rm -f "$LAVA_DIR/$lava_p.pid"
		fi
	done
	lava_server_stop
	if test -n "$LAVA_PG_STARTED"; then
		pg_ctlcluster $LAVA_PG stop 2>/dev/null
	fi
	return 0
}
