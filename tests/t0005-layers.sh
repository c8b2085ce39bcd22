#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'the layers of the engine: nothing below calls what is built on it'

SRC=$TEST_DIR/..

# FILE must be empty; else show what is in it
nothing_in () {
	test ! -s "$1" || { cat "$1"; return 1; }
}

# The entry points of what stands on the session core: the modes (each
# mode's ops and the perf/compare helpers), the loop and the pool, the
# report model.
above='kb_mode_[a-z_]*|kb_perf_[a-z_]*|kb_compare_[a-z_]*|kb_pool_[a-z_]*|kb_session_report|kb_session_status|kb_session_run\b|kb_report_[a-z_]*|kb_session_open\b'

test_expect_success 'the session core calls no mode, no loop, no pool and no report by name' '
	grep -nE "$above" "$SRC/lib/session/session.c" >found || true
	nothing_in found
'

test_expect_success 'the session core reaches a mode only through its ops' '
	grep -c "s->mode->" "$SRC/lib/session/session.c" >n &&
	test "$(cat n)" -ge 3
'

test_expect_success 'below the session layer nothing knows of sessions' '
	grep -lE "#include \"(session|session_int|mode|event)\.h\"" "$SRC"/lib/*.c \
		"$SRC"/lib/*.h "$SRC"/lib/target/*.c "$SRC"/lib/target/*.h >found || true
	nothing_in found
'

test_expect_success 'the flat part of lib/ knows no target backend' '
	grep -lE "#include \"(target|ssh|machine)\.h\"" "$SRC"/lib/*.c "$SRC"/lib/*.h >found || true
	nothing_in found
'

test_expect_success 'the engine prints nothing and never exits' '
	grep -nE "(^|[^a-z_])(printf|puts|putchar|exit|perror)\(|[^a-z_]stdout" \
		"$SRC"/lib/*.c "$SRC"/lib/target/*.c "$SRC"/lib/session/*.c >found || true
	nothing_in found
'

test_expect_success 'callers reach a target only through the kb_target_*() wrappers' '
	grep -n "ops->" "$SRC"/lib/*.c "$SRC"/lib/session/*.c "$SRC"/cmd/*.c |
		grep -v "mode->" >found || true
	nothing_in found
'

test_expect_success 'no subcommand file is called but through the table of main.c' '
	for f in "$SRC"/cmd/*.c; do
		case ${f##*/} in
		main.c|common.c|opt.c|render.c|mail.c|pending.c) continue ;;
		esac
		nm "${f%.c}.o" | awk "\$2 == \"T\" { print \$3 }" | { grep -v "^cmd_" || true; } >>found
	done
	nothing_in found
'

test_done
