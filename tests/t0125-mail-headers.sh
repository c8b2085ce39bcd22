#!/bin/sh
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-smtpd.sh"
test_description 'the report mail'"'"'s headers as the lists expect them: encoded words, lines folded at 78, the people of the trailer block, the .mailmap; read back by python'"'"'s email in its strict policy and by git mailinfo'

# Debian's python3 first: the one tests/install-deps.sh installs
if test -x /usr/bin/python3; then
	PYTHON=/usr/bin/python3
elif command -v python3 >/dev/null 2>&1; then
	PYTHON=python3
else
	test_skip_all 'python3 is needed to read the mail back'
fi

SENDER='Jörg Rödel <sender@example.org>'
SUBJECT='pwm: Überarbeite die Zeitmessung für Geräte mit langsamen Taktgebern, damit die Messung wieder stimmt'
export SENDER SUBJECT

# A history of nine commits; the sixth makes the benchmark 12% slower.
# Its author and some of its trailers have names beyond ASCII, its
# subject is long, its body quotes a Signed-off-by of another commit, and
# two of its people have moved to another address (the .mailmap the tests
# write says so).
make_repo () {
	git init -q "$1" && (
		cd "$1" &&
		git config user.name "Report Sender" &&
		git config user.email sender@example.org &&
		mkdir a b && echo 0 >a/base && git add a &&
		git commit -q -m "base" &&
		git tag good &&
		for i in 1 2 3 4 5 6 7 8; do
			if test $i = 5; then
				echo 0.12 >b/f$i
				git add b &&
				printf '%s\n' "$SUBJECT" "" \
					"This reverts the change whose message ended in" \
					"Signed-off-by: Someone Quoted <someone@example.net>" \
					"and which broke the timer." "" \
					"Signed-off-by: Uwe Kleine-König <ukl@old.example.org>" \
					"Reviewed-by: Jérôme Glisse <jglisse@example.org>" \
					"Tested-by: 山田太郎 <yamada@example.org>" \
					"Acked-by: Grace Hopper <grace@old.example.org>" >../msg &&
				GIT_AUTHOR_NAME="Uwe Kleine-König" GIT_AUTHOR_EMAIL=ukl@old.example.org \
				git commit -q -F ../msg
			else
				echo 0 >b/f$i && git add b && git commit -q -m "lib: step $i"
			fi || return 1
		done &&
		git tag bad
	)
}

# check-mail.py FILE mbox|smtp [mailmap]: the message parses in the strict
# policy without a defect; our header lines are ASCII and at most 78
# characters; the names, the addresses and the subject come back as
# written; with "mailmap", the addresses the .mailmap gives
write_check () {
	cat >check-mail.py <<-\PY
	import email, email.policy, os, re, sys
	e = os.environ
	raw = open(sys.argv[1], "rb").read()
	if sys.argv[2] == "mbox":
	    assert raw.startswith(b"From kbisect "), raw[:40]
	    raw = raw.split(b"\n", 1)[1]
	    eol = b"\n"
	else:
	    eol = b"\r\n" if raw.find(b"\r\n\r\n") >= 0 else b"\n"
	head = raw.split(eol + eol, 1)[0].split(eol)
	# ours: from From: on (the server puts its own first)
	ours = head[[i for i, l in enumerate(head) if l.startswith(b"From: ")][0]:]
	for line in ours:
	    line.decode("ascii")
	    assert len(line) <= 78, (len(line), line)
	    assert line[:1] in (b" ", b"\t") or re.match(rb"[A-Za-z-]+: ", line), line
	assert len(ours) > 8, ours
	msg = email.message_from_bytes(raw, policy=email.policy.strict)
	assert not msg.defects, msg.defects
	for h in ("From", "To", "Cc", "Subject", "Date", "Message-ID"):
	    assert not msg[h].defects, (h, msg[h].defects)
	def people(h):
	    return [(a.display_name, a.addr_spec) for a in msg[h].addresses]
	old = len(sys.argv) < 4
	want = [("Uwe Kleine-König", "ukl@old.example.org" if old else
	         "u.kleine-koenig@new.example.org"),
	        ("Jérôme Glisse", "jglisse@example.org"),
	        ("山田太郎", "yamada@example.org"),
	        ("Grace Hopper", "grace@old.example.org" if old else "grace@new.example.org")]
	assert people("Cc") == want, people("Cc")
	assert people("To") == [("Linux Kernel Mailing List", "list@example.org")], people("To")
	assert people("From") == [("Jörg Rödel", "sender@example.org")], people("From")
	subject = str(msg["Subject"])
	assert re.fullmatch(re.escape("[REGRESSION] " + e["SUBJECT"] + ": noisy.latency +") +
	                    r"[0-9.]+%", subject), subject
	assert len(subject) > 130, len(subject)
	text = msg.get_content()
	assert "\nAuthor: Uwe Kleine-König <ukl@old.example.org>\n" in text
	assert "\n    " + e["SUBJECT"] + "\n" in text
	PY
}

smtpd_start "$TRASH_DIRECTORY/smtpd" >smtpd.out 2>&1 && test_set_prereq SMTPD

test_expect_success 'setup: the history, a performance bisection' '
	make_repo repo &&
	noisy_bench noisy.json &&
	write_check &&
	cd repo &&
	"$KBISECT" start good bad --bench ../noisy.json --seed 3 >../report.txt 2>../err &&
	"$KBISECT" report --json >../r.json &&
	test "$(json_get ../r.json culprits[0].commit)" = "$(git rev-parse bad~3)"
'

test_expect_success 'report --mbox: names and subject in encoded words, lines folded at 78' '
	cd repo &&
	"$KBISECT" report --mbox ../r.mbox --from "$SENDER" \
		--to "Linux Kernel Mailing List <list@example.org>" 2>../err &&
	cd .. &&
	grep "^Cc: Uwe =?UTF-8?Q?Kleine-K=C3=B6nig?= <ukl@old.example.org>,\$" r.mbox &&
	grep "^ =?UTF-8?Q?J=C3=A9r=C3=B4me?= Glisse <jglisse@example.org>,\$" r.mbox &&
	grep "^ =?UTF-8?B?5bGx55Sw5aSq6YOO?= <yamada@example.org>,\$" r.mbox &&
	grep "^From: =?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <sender@example.org>\$" r.mbox &&
	grep "^Subject: \[REGRESSION\] pwm: =?UTF-8?Q?=C3=9Cberarbeite?= die Zeitmessung\$" r.mbox &&
	sed -n "/^Subject:/,/^Date:/p" r.mbox >subject &&
	test_line_count -gt 2 subject &&
	! grep -v "^[ -~]*\$" subject &&
	"$PYTHON" check-mail.py r.mbox mbox
'

test_expect_success 'the trailer block only: a Signed-off-by quoted in the body is no recipient' '
	git -C repo log -1 --format=%B bad~3 >message &&
	grep "^Signed-off-by: Someone Quoted <someone@example.net>\$" message &&
	! grep "someone@example.net" r.mbox &&
	test "$(json_get r.json culprits[0].people[1])" = "Jérôme Glisse <jglisse@example.org>" &&
	! grep -q someone@example.net r.json
'

test_expect_success 'the .mailmap: the author and a trailer at the address it gives' '
	cat >repo/.mailmap <<-\EOF &&
	Uwe Kleine-König <u.kleine-koenig@new.example.org> <ukl@old.example.org>
	<grace@new.example.org> <grace@old.example.org>
	EOF
	cd repo &&
	"$KBISECT" report --mbox ../m.mbox --from "$SENDER" \
		--to "Linux Kernel Mailing List <list@example.org>" 2>../err &&
	cd .. &&
	grep "^Cc: Uwe =?UTF-8?Q?Kleine-K=C3=B6nig?= <u.kleine-koenig@new.example.org>,\$" m.mbox &&
	grep "^ Grace Hopper <grace@new.example.org>\$" m.mbox &&
	! sed -n "/^\$/q;p" m.mbox | grep "old.example.org" &&
	"$PYTHON" check-mail.py m.mbox mbox mailmap
'

test_expect_success SMTPD 'report --mail: the message as received, strict python, the envelope' '
	printf "{\"smtp\": \"smtp://127.0.0.1:%s\"}\n" $SMTPD_OPEN_PORT >open.json &&
	cd repo &&
	"$KBISECT" report --mail --mail-config ../open.json --from "$SENDER" \
		--to "Linux Kernel Mailing List <list@example.org>" 2>../err &&
	cd .. &&
	grep "went to 5 recipients" err &&
	m=$(smtpd_messages "$TRASH_DIRECTORY/smtpd" | tail -n 1) &&
	cp "$m" received.eml &&
	sed -n "/^Envelope-to:/,/^[^ 	]/p" received.eml | sed "\$d; s/^Envelope-to://" |
		tr -d " ,	" | sort >got &&
	printf "%s\n" grace@new.example.org jglisse@example.org list@example.org \
		u.kleine-koenig@new.example.org yamada@example.org >want &&
	test_cmp want got &&
	"$PYTHON" check-mail.py received.eml smtp mailmap
'

test_expect_success SMTPD 'git mailinfo reads the message as received: the sender and the subject decoded' '
	git -C repo mailinfo -k ../msg.out ../patch.out <received.eml >info &&
	grep "^Author: Jörg Rödel\$" info &&
	grep "^Email: sender@example.org\$" info &&
	grep "^Subject: \[REGRESSION\] $SUBJECT: noisy.latency +[0-9.]*%\$" info &&
	grep "^Author: Uwe Kleine-König <ukl@old.example.org>\$" msg.out
'

test_expect_success SMTPD 'stop the mail server' '
	smtpd_stop "$TRASH_DIRECTORY/smtpd"
'

test_done
