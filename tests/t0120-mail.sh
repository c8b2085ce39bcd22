#!/bin/sh
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-smtpd.sh"
test_description 'the report as text for every verdict, as a mail in an mbox and over SMTP, and progress on a terminal'

PASSWORD=kbisect-test-password

# A history of nine commits; the sixth makes the benchmark 12% slower. Its
# message has trailers, its author a name that needs quotes in a header.
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
				GIT_AUTHOR_NAME="Doe, Jane" GIT_AUTHOR_EMAIL=jane@example.org \
				git commit -q -F - <<-'EOF'
				fs/namei: take the "slow" path <always> $(touch pwned); `true`

				Both paths end the same way.

				Signed-off-by: Doe, Jane <jane@example.org>
				Reviewed-by: Grace Hopper <grace@example.org>
				Acked-by: Alan Turing <ALAN@example.org>
				Signed-off-by: Grace Hopper <grace@example.org>
				Cc: Not A Tag <cc@example.org>
				EOF
			else
				echo 0 >b/f$i && git add b && git commit -q -m "lib: step $i"
			fi || return 1
		done &&
		git tag bad
	)
}

mail_config () {
	printf '{"smtp": "%s", "user": "%s", "password": "%s", "ca_file": "%s",\n "to": %s}\n' \
		"$1" "$SMTPD_USER" "$2" "$SMTPD_CA" "$3" >"$4" &&
	chmod 600 "$4"
}

# the headers of a delivered message, without the server's own
header () {
	sed -n '/^$/q;p' "$2" | grep -v '^\(Return-path\|Envelope-to\|Received\):\|^[ 	]' |
		sed -n "s/^$1: //p"
}

# the headers of a message, each on one line: a line folded at 78
# characters joined again (RFC 5322 unfolding)
unfolded () {
	sed -n '/^$/q;p' "$1" |
		awk '/^[ \t]/ { line = line $0; next } NR > 1 { print line } { line = $0 } END { print line }'
}

# started here: the tests use the ports it sets
smtpd_start "$TRASH_DIRECTORY/smtpd" >smtpd.out 2>&1 || cat smtpd.out >&2

test_expect_success 'setup: the history, a performance bisection, the mail server' '
	make_repo repo &&
	noisy_bench noisy.json &&
	cd repo &&
	"$KBISECT" start good bad --bench ../noisy.json --seed 3 >../report.txt 2>../err &&
	C=$(git rev-parse bad~3) &&
	"$KBISECT" report --json >../r.json &&
	test "$(json_get ../r.json culprits[0].commit)" = $C &&
	test -n "$SMTPD_PORT"
'

test_expect_success 'the text report: verdict, table, checks, setup, how to reproduce' '
	C=$(git -C repo rev-parse bad~3) &&
	G=$(git -C repo rev-parse good) && B=$(git -C repo rev-parse bad) &&
	grep "^commit $C\$" report.txt &&
	grep "^Author: Doe, Jane <jane@example.org>\$" report.txt &&
	grep "^probability: " report.txt &&
	grep "^checks: parent vs culprit pass, revert on BAD pass" report.txt &&
	grep "^good  *parent  *culprit  *bad\$" report.txt &&
	grep "^$(echo $G | cut -c1-16) " report.txt &&
	grep " latency\$" report.txt &&
	grep "^  benchmark: noisy\$" report.txt &&
	grep "^  metric:    latency (ms) from the output.s text matching" report.txt &&
	grep "^  kbisect start [0-9a-f]\{12\} [0-9a-f]\{12\} --bench .*/noisy.json --target local --seed 3  # GOOD good, BAD bad\$" report.txt &&
	grep "^#regzbot introduced: $(echo $C | cut -c1-12)\$" report.txt
'

test_expect_success 'report --mbox: headers, the culprit'"'"'s people in Cc, the body' '
	cd repo &&
	"$KBISECT" report --mbox ../r.mbox --to "Lists <list@example.org>" \
		--to regressions@example.org 2>err &&
	cd .. &&
	head -n 1 r.mbox | grep -q "^From kbisect " &&
	grep "^From: Report Sender <sender@example.org>\$" r.mbox &&
	grep "^To: Lists <list@example.org>,\$" r.mbox &&
	grep "^ <regressions@example.org>\$" r.mbox &&
	grep "^Cc: \"Doe, Jane\" <jane@example.org>,\$" r.mbox &&
	grep "^ Grace Hopper <grace@example.org>,\$" r.mbox &&
	grep "^ Alan Turing <ALAN@example.org>\$" r.mbox &&
	! grep "cc@example.org" r.mbox &&
	! sed -n "/^\$/q;p" r.mbox | grep ".\{79\}" &&
	unfolded r.mbox | grep "^Subject: \[REGRESSION\] fs/namei: take the \"slow\" path <always> \$(touch pwned); \`true\`: noisy.latency +[0-9.]*%\$" &&
	grep "^Message-ID: <[0-9]\{14\}\.[0-9a-f]\{16\}\.kbisect@example.org>\$" r.mbox &&
	! grep "^In-Reply-To:" r.mbox &&
	grep "^#regzbot introduced: " r.mbox &&
	! test -e pwned && ! test -e repo/pwned
'

test_expect_success 'report --mail over STARTTLS with a password: the message as received' '
	mail_config "smtp://127.0.0.1:$SMTPD_PORT" $PASSWORD "[\"list@example.org\"]" mail.json &&
	cd repo &&
	"$KBISECT" report --mail --mail-config ../mail.json --in-reply-to "orig.1@example.net" \
		>../out 2>../err &&
	cd .. &&
	! test -s out &&
	grep "^kbisect: the report went to 4 recipients through smtp://127.0.0.1:$SMTPD_PORT" err &&
	id=$(sed -n "s/.*(Message-ID \(<[^>]*>\))\$/\1/p" err) &&
	test -n "$id" &&
	smtpd_messages "$TRASH_DIRECTORY/smtpd" >msgs &&
	test_line_count = 1 msgs &&
	m=$(cat msgs) &&
	test "$(header From "$m")" = "Report Sender <sender@example.org>" &&
	test "$(header To "$m")" = "<list@example.org>" &&
	test "$(header Cc "$m")" = "\"Doe, Jane\" <jane@example.org>," &&
	test "$(header Message-ID "$m")" = "$id" &&
	test "$(header In-Reply-To "$m")" = "<orig.1@example.net>" &&
	test "$(header References "$m")" = "<orig.1@example.net>" &&
	header Subject "$m" | grep "^\[REGRESSION\] fs/namei: take the \"slow\" path" &&
	grep "^Envelope-to: list@example.org,\$" "$m" &&
	grep "grace@example.org" "$m" | grep -v "^Cc:" &&
	grep "^Link: https://lore.kernel.org/r/orig.1@example.net\$" "$m" &&
	grep "^#regzbot introduced: $(git -C repo rev-parse --short=12 bad~3)\$" "$m" &&
	grep "^good  *parent  *culprit  *bad\$" "$m" &&
	grep "esmtpsa.*TLS" "$m"
'

test_expect_success 'smtps, the credentials from the environment, --no-cc, --to' '
	printf "{\"smtp\": \"smtps://127.0.0.1:%s\", \"ca_file\": \"%s\"}\n" $SMTPS_PORT \
		"$SMTPD_CA" >env.json &&
	chmod 644 env.json &&
	cd repo &&
	KBISECT_SMTP_USER=$SMTPD_USER KBISECT_SMTP_PASSWORD=$PASSWORD \
	"$KBISECT" report --mail --mail-config ../env.json --no-cc \
		--to "Two <two@example.org>" 2>../err &&
	cd .. &&
	grep "went to 1 recipient through smtps" err &&
	m=$(smtpd_messages "$TRASH_DIRECTORY/smtpd" | tail -n 1) &&
	test "$(header To "$m")" = "Two <two@example.org>" &&
	test -z "$(header Cc "$m")" &&
	grep "^Envelope-to: two@example.org\$" "$m"
'

test_expect_success 'a wrong password, a readable config, a password on a plain line: refused' '
	n=$(smtpd_messages "$TRASH_DIRECTORY/smtpd" | wc -l) &&
	mail_config "smtp://127.0.0.1:$SMTPD_PORT" wrong-secret "[\"list@example.org\"]" bad.json &&
	cd repo &&
	test_expect_code 1 "$KBISECT" report --mail --mail-config ../bad.json 2>../err1 &&
	grep "refused the login of .kbisect.: check the password" ../err1 &&
	! grep wrong-secret ../err1 &&
	chmod 644 ../mail.json &&
	test_expect_code 1 "$KBISECT" report --mail --mail-config ../mail.json 2>../err2 &&
	grep "holds a password and others can read it: .chmod 600" ../err2 &&
	chmod 600 ../mail.json &&
	test_expect_code 1 "$KBISECT" report --mail --mail-config ../mail.json \
		--smtp "smtp://127.0.0.1:$SMTPD_OPEN_PORT" 2>../err3 &&
	grep "does not offer STARTTLS, and a password is only sent over TLS" ../err3 &&
	test_expect_code 1 "$KBISECT" report --mail --mail-config ../mail.json \
		--smtp "smtp://u:$PASSWORD@127.0.0.1:$SMTPD_PORT" 2>../err4 &&
	grep "must not hold a user or password" ../err4 &&
	! grep "$PASSWORD" ../err4 &&
	test_expect_code 2 "$KBISECT" report --to x@example.org 2>../err5 &&
	grep "go with --mbox FILE or --mail" ../err5 &&
	test_expect_code 1 "$KBISECT" report --mbox ../x.mbox --to "a@example.org, b@example.org" \
		2>../err6 &&
	grep "not a mail address for To" ../err6 &&
	! test -e ../x.mbox &&
	cd .. &&
	test "$(smtpd_messages "$TRASH_DIRECTORY/smtpd" | wc -l)" = $n
'

test_expect_success 'no password anywhere: not in the database, its files or the logs' '
	! grep -r -a -l -e "$PASSWORD" -e wrong-secret repo/.git/kbisect.db repo/.git/kbisect.db.d \
		out err report.txt
'

test_expect_success 'without credentials, a plain server takes the mail' '
	printf "{\"smtp\": \"smtp://127.0.0.1:%s\", \"to\": \"list@example.org\", \"from\": \"Lab <lab@example.com>\"}\n" \
		$SMTPD_OPEN_PORT >open.json &&
	cd repo &&
	"$KBISECT" report --mail --mail-config ../open.json --no-cc 2>../err &&
	cd .. &&
	m=$(smtpd_messages "$TRASH_DIRECTORY/smtpd" | tail -n 1) &&
	test "$(header From "$m")" = "Lab <lab@example.com>" &&
	header Message-ID "$m" | grep "kbisect@example.com>\$"
'

test_expect_success 'no regression: said plainly, nobody blamed, no Cc' '
	gen_repo flat --seed 22 --commits 40 --culprits none &&
	cd flat &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../noisy.json --seed 1 >../flat.txt 2>/dev/null &&
	test_expect_code 3 "$KBISECT" report --mbox ../flat.mbox --to list@example.org --from "L <l@example.org>" &&
	cd .. &&
	grep "^No regression: .*No commit is blamed\.\$" flat.txt &&
	! grep "^The first bad commit" flat.txt &&
	! grep "^commit " flat.txt &&
	! grep "^#regzbot" flat.txt &&
	! grep "^#regzbot" flat.mbox &&
	unfolded flat.mbox | grep "^Subject: kbisect: no regression between [0-9a-f]\{12\} and [0-9a-f]\{12\}, no commit blamed: noisy.latency\$" &&
	! grep "^Cc:" flat.mbox
'

test_expect_success 'inconclusive (not finished): said plainly, nobody blamed' '
	cd repo &&
	"$KBISECT" reset >/dev/null 2>&1 &&
	"$KBISECT" start good bad --bench ../noisy.json --no-run 2>/dev/null &&
	test_expect_code 3 "$KBISECT" report >../unfinished.txt &&
	cd .. &&
	grep "^Inconclusive: .*No commit is blamed\.\$" unfinished.txt &&
	! grep "^The first bad commit" unfinished.txt &&
	grep "^#regzbot introduced: [0-9a-f]\{12\}\.\.[0-9a-f]\{12\}\$" unfinished.txt
'

test_expect_success 'a range given as tags is the regzbot range' '
	cd repo &&
	git tag v5.15 good && git tag v5.16-rc1 bad &&
	"$KBISECT" reset >/dev/null 2>&1 &&
	"$KBISECT" start v5.15 v5.16-rc1 --bench ../noisy.json --no-run 2>/dev/null &&
	test_expect_code 3 "$KBISECT" report >../tags.txt &&
	grep "^#regzbot introduced: v5.15..v5.16-rc1\$" ../tags.txt
'

test_expect_success 'progress: a live line on a terminal, none in a file' '
	cd repo &&
	"$KBISECT" reset >/dev/null 2>&1 &&
	TERM=xterm script -qec "\"$KBISECT\" start good bad --bench ../noisy.json --seed 3 >/dev/null" \
		../typescript >/dev/null 2>&1 &&
	tr "\r" "\n" <../typescript >../tty.txt &&
	grep -q -a "^\[commit 1/~[0-9]*\] [0-9a-f]\{12\} booting | 0 s\$" ../tty.txt &&
	grep -q -a "\[commit [0-9]*/~[0-9]*\] [0-9a-f]\{12\} run [0-9]/5, [0-9]* before | [0-9]* s, ~[0-9]* s left" ../tty.txt &&
	"$KBISECT" reset >/dev/null 2>&1 &&
	"$KBISECT" start good bad --bench ../noisy.json --seed 3 >/dev/null 2>../notty.txt &&
	! grep -a "$(printf "\r")" ../notty.txt &&
	! grep -a "\[commit " ../notty.txt
'

test_expect_success 'stop the mail server' '
	smtpd_stop "$TRASH_DIRECTORY/smtpd"
'

test_done
