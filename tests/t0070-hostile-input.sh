#!/bin/sh
. "$(dirname "$0")/lib.sh"
. "$TEST_DIR/lib-smtpd.sh"
test_description 'text from commits, refs, paths, benchmarks and config goes through every report and mail as data: never run, never breaking the format'

# Every string below would run "touch $PW" if a shell ever read it as
# code; the test looks for that file at the end, everywhere it could land.
PW=pwned-$$
EVIL='$(touch '$PW') `touch '$PW'` ; '"'sq' \"dq\" <a> & |"
# the same for a ref name: no blank, no control character
REFEVIL='$(touch${IFS}'$PW');`touch${IFS}'$PW'`'"'\"<&>|"
GOOD="good-$REFEVIL"
BAD="bad-$REFEVIL"
REPO="$TRASH_DIRECTORY/re po $EVIL"
STATE="$TRASH_DIRECTORY/st ate $EVIL"
DB="$STATE/k.db"
ODD="odd $EVIL"
AUTHOR='Evil "Q" O'"'"'Neil, $(touch '$PW') `touch '$PW'` & Co'
SENDER='Sender "S", $(touch '$PW') Box'
CR=$(printf '\r')
SQ="'"
export PW EVIL REFEVIL GOOD BAD REPO STATE DB ODD AUTHOR SENDER

command -v python3 >/dev/null 2>&1 ||
	test_skip_all 'python3 is needed to read the JSON, SVG and mail back'

# a history of ten commits: GOOD, eight steps, the fifth 12% slower
# (its message, author and trailers as hostile as git lets them be), and
# BAD, a commit written by hand whose author name and subject hold a CR
make_repo () {
	git init -q "$REPO" && (
		cd "$REPO" &&
		git config user.name "$SENDER" &&
		git config user.email sender@example.org &&
		mkdir a b "$ODD" && echo 0 >a/base && echo 0 >"$ODD/readme" &&
		git add . &&
		git commit -q -m "base $EVIL" -m "body $EVIL" &&
		git tag "$GOOD" &&
		for i in 1 2 3 4 5 6 7 8; do
			echo "$i" >"$ODD/readme"
			if test $i = 5; then
				echo 0.12 >b/f$i &&
				git add . &&
				printf '%s\r%s\n%s\n\n%s\n%s\n%s\n\n%s\n' \
					"fs/namei: take the \"slow\" path <always> & \$(touch $PW); \`touch $PW\` 'q'" \
					"Bcc: cr@example.org" "X-Injected: subject" \
					"Body $EVIL" "From the body" "Bcc: body@example.org" \
					"Signed-off-by: \"Evil \$(touch $PW)\" <evil1@example.org>" >../msg &&
				printf '%s\n' \
					"Signed-off-by: Evil, \"JJ\" Doe <evil2@example.org>" \
					"Reviewed-by: Multi" \
					" Line <evil3@example.org>" \
					"Acked-by: Evil${CR}Bcc: acked@example.org <evil4@example.org>" \
					"Tested-by: Ev<il> <evil5@example.org>" \
					"Signed-off-by: Evil; Group: <evil6@example.org>" \
					"Reported-by: Comma <evil7,bcc@example.org>" \
					"Reported-by: Angle <evil8@example.org>, Bcc: <x@example.org>" >>../msg &&
				GIT_AUTHOR_NAME=$AUTHOR GIT_AUTHOR_EMAIL=author@example.org \
				GIT_COMMITTER_NAME="Committer $EVIL" \
				git commit -q --cleanup=verbatim -F ../msg
			else
				echo 0 >b/f$i && git add . && git commit -q -m "lib: step $i $EVIL"
			fi || return 1
		done &&
		git cat-file commit HEAD |
			sed -e "s/^author [^<]*/author Evil${CR}X-Injected: author /" \
			    -e "s/^lib: step 8 /lib: step 8${CR}X-Injected: yes /" >../bad.commit &&
		sha=$(git hash-object -t commit -w --literally ../bad.commit) &&
		git update-ref "refs/heads/$BAD" $sha &&
		git reset -q --hard $sha
	)
}

# the noisy benchmark, with a name, description, argv and metric that are
# all hostile; the command prints the word it got, for the test to compare
write_bench () {
	python3 - "$1" <<-\PY
	import json, os, sys
	e = os.environ
	json.dump({
	    "name": "lat " + e["EVIL"],
	    "description": "desc " + e["EVIL"] + "\nsecond line\r" + e["EVIL"],
	    "command": ["sh", "-c", "printf 'arg: %s\\n' \"$1\"; exec sh \"$2\"", "bench",
	                "arg " + e["EVIL"], e["TEST_DIR"] + "/fixtures/noisy-bench.sh"],
	    "metric": {"name": "latency " + e["EVIL"],
	               "regex": "latency[$(`;'\"<>&| ]*: ([0-9.]+)",
	               "direction": "lower", "unit": "ms <&>"},
	    "runs_per_boot": 5}, open(sys.argv[1], "w"))
	PY
}

# shquote WORD: WORD quoted for sh
shquote () {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# the command line of the text report's "How to reproduce", kbisect
# replaced by printf, run by sh: one word a line
reproduce_words () {
	awk '/^  kbisect start / { on = 1; sub(/^  kbisect start/, "") }
	     /^  or, with every sample/ { on = 0 }
	     on' "$1" >cmdline &&
	sh -c "printf '%s\n' $(cat cmdline)"
}

# The checks that read the output back, in python3:
#   check-json.py FILE [replayed]   the report's strings are exactly the commits', refs'
#                        and benchmark's
#   check-svg.py FILE    XML, the strings in its text, no script
#   check-mail.py FILE mbox|smtp   headers well formed, the culprit's
#                        people quoted as they should be, nothing smuggled
#                        in, the subject in the body
write_checks () {
	cat >check-json.py <<-\PY
	import json, os, subprocess, sys
	e = os.environ
	r = json.load(open(sys.argv[1]))
	def git(*args):
	    return subprocess.run(["git", "-C", e["REPO"]] + list(args), check=True,
	                          capture_output=True).stdout.decode()
	def summary(sha):
	    # the first paragraph on one line, as libgit2 gives it
	    msg = git("cat-file", "commit", sha).split("\n\n", 1)[1]
	    return " ".join(msg.split("\n\n")[0].rstrip("\n").split("\n"))
	c = r["culprits"][0]
	assert c["commit"] == git("rev-parse", e["BAD"] + "~3").strip()
	assert c["subject"] == summary(c["commit"]), c["subject"]
	assert "\r" in c["subject"] and "X-Injected: subject" in c["subject"]
	assert c["author"] == e["AUTHOR"] + " <author@example.org>", c["author"]
	steps = {s["commit"]: s for s in r["steps"]}
	for rev in (e["GOOD"], e["BAD"]):
	    sha = git("rev-parse", rev + "^{commit}").strip()
	    assert steps[sha]["subject"] == summary(sha), steps[sha]["subject"]
	bad = steps[git("rev-parse", e["BAD"]).strip()]
	assert bad["author"].startswith("Evil\rX-Injected: author "), bad["author"]
	# a replayed session knows the revisions by their commit ids
	specs = [e["GOOD"], e["BAD"]]
	if len(sys.argv) > 2:
	    specs = [git("rev-parse", rev + "^{commit}").strip() for rev in specs]
	assert r["setup"]["good_specs"] == specs[:1], r["setup"]["good_specs"]
	assert r["setup"]["bad_spec"] == specs[1], r["setup"]["bad_spec"]
	assert r["setup"]["paths"] == ["b", e["ODD"]], r["setup"]["paths"]
	b = r["setup"]["benchmark"]
	assert r["bench"] == b["name"] == "lat " + e["EVIL"]
	assert b["command"][4] == "arg " + e["EVIL"]
	assert r["metric"]["name"] == "latency " + e["EVIL"], r["metric"]
	PY
	cat >check-svg.py <<-\PY
	import os, sys, xml.etree.ElementTree as ET
	e = os.environ
	root = ET.parse(sys.argv[1]).getroot()
	assert root.tag.endswith("svg"), root.tag
	text = ""
	for el in root.iter():
	    assert not el.tag.lower().endswith("script"), el.tag
	    assert not el.tag.lower().endswith("foreignobject"), el.tag
	    for k, v in el.attrib.items():
	        assert not k.lower().startswith("on"), k
	        assert "javascript:" not in v.lower(), v
	    text += "".join(el.itertext()) + "\n"
	# the longer strings are cut, with an ellipsis
	assert "lat $(touch %s) `touch %s` ;" % (e["PW"], e["PW"]) in text, text
	assert "fs/namei: take the \"slow\" path <always> & $(touch " + e["PW"] in text, text
	assert "(ms <&>)" in text, text
	PY
	cat >check-mail.py <<-\PY
	import email, email.policy, email.utils, mailbox, os, re, sys
	e = os.environ
	raw = open(sys.argv[1], "rb").read()
	if sys.argv[2] == "mbox":
	    msgs = list(mailbox.mbox(sys.argv[1]))
	    assert len(msgs) == 1, len(msgs)
	    raw = raw.split(b"\n", 1)[1]
	    eol = b"\n"
	else:
	    # as the server keeps it: its own line ends
	    eol = b"\r\n" if raw.find(b"\r\n\r\n") >= 0 else b"\n"
	head, body = raw.split(eol + eol, 1)
	assert b"\r" not in head.replace(eol, b""), "a CR in a header line"
	names = []
	for line in head.split(eol):
	    if line[:1] in (b" ", b"\t"):
	        continue
	    m = re.match(rb"([A-Za-z-]+): ", line)
	    assert m, "not a header line: %r" % line
	    names.append(m.group(1).decode().lower())
	for n in names:
	    assert n not in ("bcc", "x-injected"), names
	if sys.argv[2] == "smtp":
	    names = [n for n in names if n not in ("return-path", "envelope-to", "received")]
	assert names[:3] == ["from", "to", "cc"], names
	assert all(names.count(n) == 1 for n in names), names
	msg = email.message_from_bytes(raw, policy=email.policy.compat32)
	def people(h):
	    return email.utils.getaddresses([re.sub(r"\r?\n[ \t]", " ", msg[h])])
	want_cc = [(e["AUTHOR"], "author@example.org"),
	           ("Evil $(touch " + e["PW"] + ")", "evil1@example.org"),
	           ('Evil, "JJ" Doe', "evil2@example.org"),
	           ("Evil; Group:", "evil6@example.org")]
	assert people("Cc") == want_cc, people("Cc")
	assert people("To") == [('Lists, "L" $(touch ' + e["PW"] + ')', "list@example.org"),
	                        ("", "regressions@example.org")], people("To")
	assert people("From") == [(e["SENDER"], "sender@example.org")], people("From")
	people_text = " ".join(msg[h] for h in ("From", "To", "Cc"))
	for p in ("evil3", "evil4", "evil5", "evil7", "evil8", "bcc@", "cr@", "acked@", "x@example"):
	    assert p not in people_text, p
	subject = re.sub(r"\r?\n[ \t]", " ", msg["Subject"])
	want = ("[REGRESSION] fs/namei: take the \"slow\" path <always> & $(touch %s); "
	        "`touch %s` 'q' Bcc: cr@example.org X-Injected: subject: lat %s.latency %s +")
	assert subject.startswith(want % (e["PW"], e["PW"], e["EVIL"], e["EVIL"])), subject
	text = msg.get_payload(decode=True).decode()
	assert "\r" not in text.replace("\r\n", "\n"), "a CR in the body"
	assert "\n    fs/namei: take the \"slow\" path <always> & $(touch " + e["PW"] in text
	assert "\nAuthor: " + e["AUTHOR"] + " <author@example.org>\n" in text.replace("\r\n", "\n")
	PY
}

smtpd_start "$TRASH_DIRECTORY/smtpd" >smtpd.out 2>&1 && test_set_prereq SMTPD

test_expect_success 'setup: the history, the benchmark, a performance bisection' '
	make_repo &&
	write_checks &&
	write_bench bench.json &&
	mkdir "$STATE" &&
	"$KBISECT" start "$GOOD" "$BAD" --repo "$REPO" --db "$DB" --bench bench.json \
		--seed 3 -- b "$ODD" >report.txt 2>err &&
	test -f "$DB" &&
	C=$(git -C "$REPO" rev-parse "$BAD~3") &&
	"$KBISECT" report --db "$DB" --json >r.json &&
	python3 -c "import json, sys; sys.exit(json.load(open(\"r.json\"))[\"culprits\"][0][\"commit\"] != \"$C\")"
'

test_expect_success SQLITE3 'the benchmark got its argv word for word, in the work tree under the state directory' '
	printf "arg: arg %s\n" "$EVIL" >want &&
	# the end of the output of each run, in the database (its directory is gone)
	n=$(sqlite3 "$DB" "select output_tail from runs" | grep -c -F -x -f want) &&
	test "$n" = "$(python3 -c "import json; print(json.load(open(\"r.json\"))[\"runs_total\"])")" &&
	test "$n" -gt 10
'

test_expect_success 'report --json: the exact subjects, authors, revisions and paths' '
	python3 check-json.py r.json
'

test_expect_success 'the text report: each value on its line, no control character' '
	cp report.txt text.txt &&
	"$KBISECT" report --db "$DB" >text2.txt &&
	test_cmp text.txt text2.txt &&
	! grep -q "[$(printf "\001-\010\013-\037\177")]" text.txt &&
	C=$(git -C "$REPO" rev-parse "$BAD~3") &&
	grep -F -x "commit $C" text.txt &&
	grep -F -x "Author: $AUTHOR <author@example.org>" text.txt &&
	grep -F -x "    fs/namei: take the \"slow\" path <always> & \$(touch $PW); \`touch $PW\` ${SQ}q${SQ} Bcc: cr@example.org X-Injected: subject" text.txt &&
	grep -F -x "  benchmark: lat $EVIL: desc $EVIL second line $EVIL" text.txt &&
	! grep "^X-Injected\|^Bcc:\|^second line" text.txt
'

test_expect_success 'the text report: "How to reproduce" gives the shell the same words' '
	reproduce_words text.txt >got &&
	# the revisions as their ids, the names they were given in a comment
	printf "%s\n" "$(git -C "$REPO" rev-parse --short=12 "$GOOD")" \
		"$(git -C "$REPO" rev-parse --short=12 "$BAD")" --bench "$(pwd -P)/bench.json" \
		--target local --seed 3 -- b "$ODD" >want &&
	test_cmp want got
'

test_expect_success 'report --svg: XML that says the strings, escaped, and runs nothing' '
	"$KBISECT" report --db "$DB" --svg plot.svg &&
	python3 check-svg.py plot.svg
'

test_expect_success 'report --mbox: headers well formed, the Cc quoted, nothing injected' '
	"$KBISECT" report --db "$DB" --mbox r.mbox \
		--to "Lists, \"L\" \$(touch $PW) <list@example.org>" \
		--to regressions@example.org 2>err &&
	python3 check-mail.py r.mbox mbox
'

test_expect_success 'an address that would not be one header line is refused, nothing written' '
	test_expect_code 1 "$KBISECT" report --db "$DB" --mbox x.mbox \
		--to "List${CR}Bcc: x@example.org <list@example.org>" 2>err &&
	grep "not a mail address for To" err &&
	test_expect_code 1 "$KBISECT" report --db "$DB" --mbox x.mbox \
		--to "<list@example.org>, <x@example.org>" 2>err &&
	! test -e x.mbox
'

test_expect_success SMTPD 'report --mail: the message as received, the envelope' '
	printf "{\"smtp\": \"smtp://127.0.0.1:%s\"}\n" $SMTPD_OPEN_PORT >open.json &&
	"$KBISECT" report --db "$DB" --mail --mail-config open.json \
		--to "Lists, \"L\" \$(touch $PW) <list@example.org>" \
		--to regressions@example.org 2>err &&
	grep "went to 6 recipients" err &&
	m=$(smtpd_messages "$TRASH_DIRECTORY/smtpd" | tail -n 1) &&
	sed -n "s/^Envelope-to: //p; /^$/q" "$m" | tr -d " ," >envelope &&
	sed -n "/^Envelope-to:/,/^[^ ]/{/^ /p}" "$m" | tr -d " ," >>envelope &&
	sort envelope >got &&
	printf "%s\n" author@example.org evil1@example.org evil2@example.org \
		evil6@example.org list@example.org \
		regressions@example.org >want &&
	test_cmp want got &&
	python3 check-mail.py "$m" smtp
'

test_expect_success 'status, log and replay into another hostile path keep the words' '
	"$KBISECT" status --db "$DB" --json >status.json &&
	python3 -c "import json, os; s = json.load(open(\"status.json\")); assert s[\"repo\"] == os.environ[\"REPO\"], s[\"repo\"]; assert s[\"good\"][0][\"spec\"] == os.environ[\"GOOD\"]; assert s[\"bad\"][\"spec\"] == os.environ[\"BAD\"]" &&
	"$KBISECT" log --db "$DB" >bisect.log &&
	"$KBISECT" replay bisect.log --repo "$REPO" --db "$STATE/copy $EVIL.db" >/dev/null 2>&1 &&
	"$KBISECT" report --db "$STATE/copy $EVIL.db" --json >copy.json &&
	python3 check-json.py copy.json replayed
'

test_expect_success 'a --command and --build run as written, the values in their environment' '
	mkdir "$STATE/cmd" &&
	LOG="$STATE/cmd/seen $EVIL" &&
	cmd="printf \"%s\\n\" \"\$KBISECT_COMMIT\" >>\"\$LOG.sha\";
printf \"%s\\n\" \"\$KBISECT_REPO\" >>\"\$LOG.repo\";
printf \"%s\\n\" \"\$PWD\" >>\"\$LOG.pwd\";
printf \"%s\\n\" $(shquote "lit $EVIL") >>\"\$LOG.lit\";
! grep -q 0.12 b/*" &&
	build="test -d $(shquote "$ODD") # $EVIL" &&
	LOG=$LOG "$KBISECT" start "$GOOD" "$BAD" --repo "$REPO" --db "$STATE/cmd/p f.db" \
		--command "$cmd" --build "$build" >cmd.txt 2>err &&
	C=$(git -C "$REPO" rev-parse "$BAD~3") &&
	grep -F -x "commit $C" cmd.txt &&
	# the progress names the commits, without their CR
	grep -F "fs/namei: take the \"slow\" path" err &&
	! grep -q "$CR" err &&
	test "$(sort -u "$LOG.repo")" = "$REPO" &&
	test "$(sort -u "$LOG.lit")" = "lit $EVIL" &&
	test "$(sort -u "$LOG.pwd")" = "$STATE/cmd/p f.db.d/worktree" &&
	test "$(wc -l <"$LOG.sha")" -ge 3 &&
	while read -r sha; do
		git -C "$REPO" cat-file -e "$sha^{commit}" || exit 1
	done <"$LOG.sha" &&
	reproduce_words cmd.txt >got &&
	seed=$(sed -n "s/.* --seed \([0-9]*\).*/\1/p" cmdline) && test -n "$seed" &&
	printf "%s\n" "$(git -C "$REPO" rev-parse --short=12 "$GOOD")" \
		"$(git -C "$REPO" rev-parse --short=12 "$BAD")" --command "$cmd" --target local \
		--build "$build" --seed "$seed" >want &&
	test_cmp want got
'

test_expect_success SMTPD 'stop the mail server' '
	smtpd_stop "$TRASH_DIRECTORY/smtpd"
'

test_expect_success 'nothing ran: no file of the hostile strings anywhere' '
	find "$TRASH_DIRECTORY" /tmp "$TEST_DIR/.." -name "pwned*" >found 2>/dev/null || : &&
	! test -s found &&
	! test -e "/$PW" && ! test -e "$REPO/$PW" && ! test -e "$STATE/$PW"
'

test_done
