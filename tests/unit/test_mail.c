#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mail.h"
#include "test.h"

TEST(test_mail__people_of_a_commit_each_once)
{
	static const char msg[] =
		"namei: pace file creation\n"
		"\n"
		"Signed-off-by: in the body is not a trailer, but counts like one\n"
		"Reviewed-by: Grace Hopper <grace@example.org>\n"
		"Acked-by:Linus T <LINUS@example.org>\n"
		"Tested-by: Nobody Without Address\n"
		"Reported-by: Eve <eve@example.org>\r\n"
		"Signed-off-by: Ada Lovelace <ADA@example.org>\n"
		"Cc: not-a-tag <cc@example.org>\n"
		"reviewed-BY: Alan <alan@example.org>   \n"
		"Signed-off-by: Mallory <m@example.org>, Bcc: <x@example.org>\n"
		"Acked-by: Linus Again <linus@example.org>";
	struct kb_strv v = KB_STRV_INIT;
	int n = kb_mail_people("Ada Lovelace <ada@example.org>", msg, NULL, &v);

	CHECK_MSG(n == 5, "%d", n);
	CHECK(v.n == 5);
	CHECK(!strcmp(v.v[0], "Ada Lovelace <ada@example.org>"));
	CHECK(!strcmp(v.v[1], "Grace Hopper <grace@example.org>"));
	CHECK(!strcmp(v.v[2], "Linus T <LINUS@example.org>"));
	/* a CRLF line ending is not part of the value */
	CHECK(!strcmp(v.v[3], "Eve <eve@example.org>"));
	CHECK(!strcmp(v.v[4], "Alan <alan@example.org>"));
	/* again: all known, nothing added */
	CHECK(kb_mail_people(NULL, msg, NULL, &v) == 0 && v.n == 5);
	kb_strv_clear(&v);
}

TEST(test_mail__nothing_that_breaks_a_header)
{
	struct kb_strv v = KB_STRV_INIT;

	CHECK(kb_mail_people("Bad\rName <b@example.org>", NULL, NULL, &v) == 0);
	CHECK(kb_mail_people("Tab\tName <t@example.org>", "", NULL, &v) == 0);
	CHECK(kb_mail_people("No Address <>", "x\n\nAcked-by: <no-at-sign>\n", NULL, &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: A <a@example.org> trailing\n", NULL, &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: M <m@example.org>, B <b@example.org>\n", NULL,
			     &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: \"Q\"R <q@example.org>\n", NULL, &v) == 0);
	/* an address that would end early or add one, a name that hides one */
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: C <c,bcc@example.org>\n", NULL, &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: C <c\"@example.org>\n", NULL, &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: Ev<il> <e@example.org>\n", NULL, &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: \"Open <o@example.org>\n", NULL, &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: \"Q\\\" <q@example.org>\n", NULL, &v) == 0);
	CHECK(v.n == 0);
	kb_strv_clear(&v);
}

TEST(test_mail__people_of_the_trailer_block_only)
{
	static const char msg[] =
		"pwm: revert the faster timer\n"
		"\n"
		"The change it reverts ended in\n"
		"Signed-off-by: Someone <someone@example.net>\n"
		"Reviewed-by: Quoted Too <quoted@example.net>\n"
		"and broke the timer.\n"
		"\n"
		"Link: https://lore.example.org/r/1\n"
		"Signed-off-by: Ada <ada@example.org>\n"
		"Acked-by: Alan <alan@example.org>\n"
		"Cc: Not A Tag <cc@example.org>\n";
	struct kb_strv v = KB_STRV_INIT;

	CHECK(kb_mail_people("Ada <ada@example.org>", msg, NULL, &v) == 2);
	CHECK(v.n == 2 && !strcmp(v.v[1], "Alan <alan@example.org>"));
	kb_strv_clear(&v);
	/* a last paragraph of prose with a tag in it is no trailer block */
	CHECK(kb_mail_people(NULL, "x\n\nWe saw\nSigned-off-by: S <s@example.org>\nin the\n"
			     "old message, as\nquoted.\n", NULL, &v) == 0);
	/* nor a subject alone, nor the patch after "---" */
	CHECK(kb_mail_people(NULL, "Signed-off-by: S <s@example.org>\n", NULL, &v) == 0);
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: A <a@example.org>\n---\n\n"
			     "Signed-off-by: P <p@example.org>\n", NULL, &v) == 1);
	CHECK(v.n == 1 && !strcmp(v.v[0], "A <a@example.org>"));
	/* a trailer that goes on on the next line is not one header line */
	CHECK(kb_mail_people(NULL, "x\n\nReviewed-by: Multi\n Line <m@example.org>\n", NULL,
			     &v) == 0);
	kb_strv_clear(&v);
}

TEST(test_mail__people_as_the_mailmap_has_them)
{
	static const char map[] =
		"Uwe Kleine-K\xc3\xb6nig <u.kleine-koenig@new.example.org> <ukl@old.example.org>\n"
		"<grace@new.example.org> <grace@old.example.org>\n"
		"Proper Name <proper@example.org> Nick <nick@example.org>\n"
		"<jane@example.org> <jane@old.example.org>\n"
		"Evil\rBcc: x@example.org <e@example.org> <evil@example.org>\n";
	static const char msg[] =
		"pwm: x\n"
		"\n"
		"Signed-off-by: Uwe Kleine-Koenig <ukl@old.example.org>\n"
		"Reviewed-by: Grace Hopper <Grace@Old.Example.org>\n"
		"Acked-by: Nick <nick@example.org>\n"
		"Tested-by: Other <nick@example.org>\n"
		"Reported-by: Doe, Jane <jane@old.example.org>\n"
		"Signed-off-by: Ev <evil@example.org>\n";
	struct kb_strv v = KB_STRV_INIT;
	git_mailmap *mm;

	CHECK(git_mailmap_from_buffer(&mm, map, sizeof(map) - 1) == 0);
	CHECK_MSG(kb_mail_people("Uwe <UKL@old.example.org>", msg, mm, &v) == 5, "%zu", v.n);
	CHECK_MSG(!strcmp(v.v[0], "Uwe Kleine-K\xc3\xb6nig <u.kleine-koenig@new.example.org>"),
		  "%s", v.v[0]);
	/* the same person again, by the address the mailmap gives */
	CHECK_MSG(!strcmp(v.v[1], "Grace Hopper <grace@new.example.org>"), "%s", v.v[1]);
	CHECK_MSG(!strcmp(v.v[2], "Proper Name <proper@example.org>"), "%s", v.v[2]);
	/* the entry is for the name Nick only */
	CHECK_MSG(!strcmp(v.v[3], "Other <nick@example.org>"), "%s", v.v[3]);
	CHECK_MSG(!strcmp(v.v[4], "\"Doe, Jane\" <jane@example.org>"), "%s", v.v[4]);
	/* what a mailmap says is checked as what a commit says: the name that
	 * would add a recipient keeps its person out */
	CHECK(kb_mail_people(NULL, "x\n\nAcked-by: Ev <evil@example.org>\n", mm, &v) == 0);
	kb_strv_clear(&v);
	git_mailmap_free(mm);
}

/* The text of a header value as a reader gets it: unfolded, its encoded
 * words decoded, the blanks between two of them dropped. */
static char *decoded(const char *v)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct kb_buf b = KB_BUF_INIT;
	size_t pending = 0;
	int after_word = 0;

	while (*v) {
		const char *end;

		if (*v == '\n' || *v == '\r') {
			v++;
			continue;
		}
		if (*v == ' ') {
			pending++;
			v++;
			continue;
		}
		if (!strncmp(v, "=?UTF-8?", 8) && (v[8] == 'Q' || v[8] == 'B') && v[9] == '?' &&
		    (end = strstr(v + 10, "?="))) {
			const char *p = v + 10;
			unsigned long acc = 0;
			int bits = 0;

			for (; pending && !after_word; pending--)
				kb_buf_addch(&b, ' ');
			for (; p < end; p++) {
				if (v[8] == 'Q') {
					unsigned int c;

					if (*p == '_')
						kb_buf_addch(&b, ' ');
					else if (*p == '=' && sscanf(p + 1, "%2x", &c) == 1 && (p += 2))
						kb_buf_addch(&b, (char)c);
					else
						kb_buf_addch(&b, *p);
				} else if (*p != '=') {
					acc = acc << 6 | (unsigned long)(strchr(abc, *p) - abc);
					if ((bits += 6) >= 8) {
						bits -= 8;
						kb_buf_addch(&b, (char)(acc >> bits & 0xff));
					}
				}
			}
			pending = 0;
			after_word = 1;
			v = end + 2;
			continue;
		}
		while (pending) {
			kb_buf_addch(&b, ' ');
			pending--;
		}
		after_word = 0;
		kb_buf_addch(&b, *v++);
	}
	return kb_buf_detach(&b);
}

/* Every line of 'v' (the lines of a header, "\n" between them) at most
 * 78 characters from 'col' on, ASCII, and each encoded word at most 75;
 * every line after the first starts with a blank. */
static int fit(const char *v, size_t col)
{
	const char *p = v, *w;
	size_t n;

	for (; *p; p++)
		if ((unsigned char)*p >= 0x80 || *p == '\r')
			return 0;
	for (p = v; *p; p += n + (p[n] == '\n'), col = 0) {
		n = strcspn(p, "\n");
		if (col + n > 78 || (p != v && *p != ' '))
			return 0;
	}
	for (w = strstr(v, "=?"); w; w = strstr(w + 2, "=?"))
		if (strcspn(w, " \n") > 75)
			return 0;
	return 1;
}

TEST(test_mail__names_and_subjects_in_encoded_words)
{
	static const struct {
		const char *in, *out;
	} people[] = {
		{ "Ada <ada@example.org>", "Ada <ada@example.org>" },
		{ "\"Doe, Jane\" <jane@example.org>", "\"Doe, Jane\" <jane@example.org>" },
		{ "Uwe Kleine-K\xc3\xb6nig <ukl@example.org>",
		  "Uwe =?UTF-8?Q?Kleine-K=C3=B6nig?= <ukl@example.org>" },
		/* quoted: the name whole, its quotes and escapes off */
		{ "\"K\xc3\xb6nig, \\\"U\\\"\" <u@example.org>",
		  "=?UTF-8?Q?K=C3=B6nig=2C_=22U=22?= <u@example.org>" },
		/* a phrase with a '.' is encoded whole */
		{ "J. M\xc3\xbcller <j@example.org>", "=?UTF-8?Q?J=2E_M=C3=BCller?= <j@example.org>" },
		/* most bytes above 0x7f: "B" */
		{ "\xe5\xb1\xb1\xe7\x94\xb0\xe5\xa4\xaa\xe9\x83\x8e <yamada@example.org>",
		  "=?UTF-8?B?5bGx55Sw5aSq6YOO?= <yamada@example.org>" },
		/* what a reader would take for an encoded word is one */
		{ "=?UTF-8?Q?Bcc=3A?= <e@example.org>",
		  "=?UTF-8?Q?=3D=3FUTF-8=3FQ=3FBcc=3D3A=3F=3D?= <e@example.org>" },
	};
	static const char subject[] =
		"[REGRESSION] pwm: \xc3\x9c" "berarbeite die Zeitmessung f\xc3\xbcr Ger\xc3\xa4te mit "
		"langsamen Taktgebern, damit die Messung wieder stimmt (\xe2\x89\x88 135 Zeichen): "
		"noisy.latency +12.3%";
	struct kb_buf b = KB_BUF_INIT;
	char *d;
	size_t i;

	for (i = 0; i < sizeof(people) / sizeof(people[0]); i++) {
		kb_buf_reset(&b);
		kb_mail_header_value(&b, people[i].in, 1, 4, "\n");
		CHECK_MSG(!strcmp(b.ptr, people[i].out), "%s", b.ptr);
	}
	/* a long subject: ASCII words as they are, the others encoded, every
	 * line within 78 */
	kb_buf_reset(&b);
	kb_mail_header_value(&b, subject, 0, 9, "\n");
	CHECK_MSG(fit(b.ptr, 9), "%s", b.ptr);
	CHECK_MSG(!strcmp(b.ptr, "[REGRESSION] pwm: =?UTF-8?Q?=C3=9Cberarbeite?= die Zeitmessung\n"
			  " =?UTF-8?Q?f=C3=BCr_Ger=C3=A4te?= mit langsamen Taktgebern, damit die "
			  "Messung\n wieder stimmt =?UTF-8?B?KOKJiA==?= 135 Zeichen): "
			  "noisy.latency +12.3%"), "%s", b.ptr);
	d = decoded(b.ptr);
	CHECK_MSG(!strcmp(d, subject), "%s", d);
	free(d);
	/* a long name, in many words, none of them cutting a character */
	{
		struct kb_buf name = KB_BUF_INIT;

		for (i = 0; i < 40; i++)
			kb_buf_adds(&name, "\xe5\xb1\xb1");
		kb_buf_adds(&name, " <y@example.org>");
		kb_buf_reset(&b);
		kb_mail_header_value(&b, name.ptr, 1, 4, "\n");
		CHECK_MSG(fit(b.ptr, 4) && strchr(b.ptr, '\n'), "%s", b.ptr);
		d = decoded(b.ptr);
		CHECK_MSG(!strcmp(d, name.ptr), "%s", d);
		free(d);
		kb_buf_release(&name);
	}
	kb_buf_release(&b);
}

TEST(test_mail__long_lines_folded_at_blanks)
{
	static const char subject[] =
		"[REGRESSION] fs/namei: take the \"slow\" path <always> $(touch x); `true`: "
		"noisy.latency +12.3%";
	static const char *const to[] = { "LKML <linux-kernel@vger.example.org>", NULL };
	static const char *const cc[] = {
		"\"Evil \\\"Q\\\" O'Neil, $(touch pwned-12345) `touch pwned-12345` & Co\" "
		"<author@example.org>",
		"Uwe Kleine-K\xc3\xb6nig <ukl@example.org>", NULL };
	struct kb_mail m = {
		.from = "kbisect <kbisect@example.org>", .to = to, .cc = cc,
		.subject = "[REGRESSION] pwm: schneller f\xc3\xbcr alle: m +1.0%",
		.message_id = "<kbisect-1@example.org>", .date = 86400, .body = "b",
	};
	struct kb_buf b = KB_BUF_INIT;
	char *word;

	kb_mail_header_value(&b, subject, 0, 9, "\r\n");
	CHECK_MSG(!strcmp(b.ptr, "[REGRESSION] fs/namei: take the \"slow\" path <always> "
			  "$(touch x);\r\n `true`: noisy.latency +12.3%"), "%s", b.ptr);
	/* a quoted name is folded around, not in */
	kb_buf_reset(&b);
	kb_mail_header_value(&b, cc[0], 1, 4, "\n");
	CHECK_MSG(!strcmp(b.ptr, "\"Evil \\\"Q\\\" O'Neil, $(touch pwned-12345) `touch "
			  "pwned-12345` & Co\"\n <author@example.org>"), "%s", b.ptr);
	/* no blank, no fold: the word whole */
	word = kb_asprintf("%0100d", 0);
	kb_buf_reset(&b);
	kb_mail_header_value(&b, word, 0, 9, "\n");
	CHECK(!strcmp(b.ptr, word));
	free(word);
	kb_buf_reset(&b);
	CHECK(kb_mail_format(&m, 0, &b) == 0);
	CHECK_MSG(strstr(b.ptr, "\r\nCc: \"Evil \\\"Q\\\" O'Neil, $(touch pwned-12345) `touch "
			 "pwned-12345` & Co\"\r\n <author@example.org>,\r\n Uwe "
			 "=?UTF-8?Q?Kleine-K=C3=B6nig?= <ukl@example.org>\r\nSubject: "
			 "[REGRESSION] pwm: schneller =?UTF-8?Q?f=C3=BCr?= alle: m +1.0%\r\n"),
		  "%s", b.ptr);
	kb_buf_release(&b);
}

TEST(test_mail__names_that_need_quotes_get_them)
{
	struct kb_strv v = KB_STRV_INIT;
	char *p;

	CHECK(kb_mail_people("Doe, Jane <jane@example.org>",
			     "x: y\n\n"
			     "Acked-by: \"Q. Public\" <q@example.org>\n"
			     "Reviewed-by: R (lab) <r@example.org>\n"
			     "Tested-by: J. Random <j@example.org>\n", NULL, &v) == 4);
	CHECK_MSG(!strcmp(v.v[0], "\"Doe, Jane\" <jane@example.org>"), "%s", v.v[0]);
	CHECK(!strcmp(v.v[1], "\"Q. Public\" <q@example.org>"));
	CHECK(!strcmp(v.v[2], "\"R (lab)\" <r@example.org>"));
	CHECK(!strcmp(v.v[3], "J. Random <j@example.org>"));
	p = kb_mail_address(v.v[0]);
	CHECK(p && !strcmp(p, "jane@example.org"));
	free(p);
	kb_strv_clear(&v);
}

TEST(test_mail__quotes_in_a_name_escaped)
{
	struct kb_strv v = KB_STRV_INIT;
	char *p;

	CHECK(kb_mail_people("Jane \"JJ\" Doe <jj@example.org>",
			     "x: y\n\nbody\n\n"
			     "Signed-off-by: Doe, \"JJ\" Jane <jd@example.org>\n"
			     "Acked-by: \"Q \\\" R\" <q@example.org>\n"
			     "Tested-by: Back\\slash; Co <b@example.org>\n"
			     "Reviewed-by: \"Evil $(touch x)\" <e@example.org>\n", NULL, &v) == 5);
	CHECK_MSG(!strcmp(v.v[0], "\"Jane \\\"JJ\\\" Doe\" <jj@example.org>"), "%s", v.v[0]);
	CHECK_MSG(!strcmp(v.v[1], "\"Doe, \\\"JJ\\\" Jane\" <jd@example.org>"), "%s", v.v[1]);
	/* quoted already: kept as written */
	CHECK_MSG(!strcmp(v.v[2], "\"Q \\\" R\" <q@example.org>"), "%s", v.v[2]);
	CHECK_MSG(!strcmp(v.v[3], "\"Back\\\\slash; Co\" <b@example.org>"), "%s", v.v[3]);
	CHECK_MSG(!strcmp(v.v[4], "\"Evil $(touch x)\" <e@example.org>"), "%s", v.v[4]);
	p = kb_mail_address(v.v[1]);
	CHECK(p && !strcmp(p, "jd@example.org"));
	free(p);
	kb_strv_clear(&v);
	p = kb_mail_person("Lists, \"L\" <list@example.org>");
	CHECK_MSG(p && !strcmp(p, "\"Lists, \\\"L\\\"\" <list@example.org>"), "%s", p);
	free(p);
	/* a name around a second address stays out */
	CHECK(!kb_mail_person("M <m@example.org>, \"B\" <b@example.org>"));
}

TEST(test_mail__subject_on_one_line)
{
	char *s = kb_mail_subject("namei: pace file creation in lookup_open()",
				  "create_clat_mean", 24.34);

	CHECK_MSG(!strcmp(s, "[REGRESSION] namei: pace file creation in lookup_open(): "
			  "create_clat_mean +24.3%"), "%s", s);
	free(s);
	s = kb_mail_subject("  fs: a\r\nBcc: x@example.org\t now ", "ops/s", -5.04);
	CHECK_MSG(!strcmp(s, "[REGRESSION] fs: a Bcc: x@example.org now: ops/s -5.0%"), "%s", s);
	CHECK(!strpbrk(s, "\r\n\t"));
	free(s);
}

TEST(test_mail__message_headers_and_body)
{
	static const char *const to[] = { "LKML <linux-kernel@vger.example.org>", NULL };
	static const char *const cc[] = { "Ada <ada@example.org>", "Alan <alan@example.org>",
					  NULL };
	struct kb_mail m = {
		.from = "kbisect <kbisect@example.org>", .to = to, .cc = cc,
		.subject = "[REGRESSION] namei: x: m +1.0%",
		.message_id = "<kbisect-1@example.org>",
		.in_reply_to = "<orig@example.org>",
		.date = 86400,
		.body = "Hello\nFrom here on\r\n.\nend",
	};
	struct kb_buf b = KB_BUF_INIT;

	CHECK(kb_mail_format(&m, 0, &b) == 0);
	CHECK_MSG(!strcmp(b.ptr,
		"From: kbisect <kbisect@example.org>\r\n"
		"To: LKML <linux-kernel@vger.example.org>\r\n"
		"Cc: Ada <ada@example.org>,\r\n Alan <alan@example.org>\r\n"
		"Subject: [REGRESSION] namei: x: m +1.0%\r\n"
		"Date: Fri, 02 Jan 1970 00:00:00 +0000\r\n"
		"Message-ID: <kbisect-1@example.org>\r\n"
		"In-Reply-To: <orig@example.org>\r\n"
		"References: <orig@example.org>\r\n"
		"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n"
		"Content-Transfer-Encoding: 8bit\r\n\r\n"
		"Hello\r\nFrom here on\r\n.\r\nend\r\n"), "%s", b.ptr);
	kb_buf_release(&b);
	/* an mbox: its From line, "From " in the body quoted */
	m.in_reply_to = NULL;
	m.cc = NULL;
	CHECK(kb_mail_format(&m, 1, &b) == 0);
	{
		static const char head[] = "From kbisect Fri Jan  2 00:00:00 1970\n"
					   "From: kbisect <kbisect@example.org>\n";

		CHECK_MSG(!strncmp(b.ptr, head, sizeof(head) - 1), "%s", b.ptr);
	}
	CHECK(strstr(b.ptr, "\n>From here on\n") && !strstr(b.ptr, "\r"));
	CHECK(!strstr(b.ptr, "In-Reply-To") && !strstr(b.ptr, "Cc:"));
	kb_buf_release(&b);
}

TEST(test_mail__no_header_that_is_not_one_line)
{
	static const char *const to[] = { "L <l@example.org>", NULL };
	static const char *const bad[] = { "L <l@example.org>\r\nBcc: x@example.org", NULL };
	struct kb_mail m = {
		.from = "k <k@example.org>", .to = to, .subject = "s\r\nBcc: <x@example.org>",
		.message_id = "<1@example.org>", .date = 0, .body = "",
	};
	struct kb_buf b = KB_BUF_INIT;

	CHECK(kb_mail_format(&m, 0, &b) < 0 && b.len == 0);
	m.subject = "s";
	m.to = bad;
	CHECK(kb_mail_format(&m, 0, &b) < 0 && b.len == 0);
	m.to = to;
	m.in_reply_to = "<a@example.org>\nX: y";
	CHECK(kb_mail_format(&m, 0, &b) < 0 && b.len == 0);
	m.in_reply_to = NULL;
	CHECK(kb_mail_format(&m, 0, &b) == 0 && b.len > 0);
	kb_buf_release(&b);
}

TEST(test_mail__person_and_address)
{
	char *p;

	p = kb_mail_person("list@example.org");
	CHECK(p && !strcmp(p, "<list@example.org>"));
	free(p);
	p = kb_mail_person("Ada <ada@example.org>");
	CHECK(p && !strcmp(p, "Ada <ada@example.org>"));
	free(p);
	p = kb_mail_person("Doe, Jane <jane@example.org>");
	CHECK(p && !strcmp(p, "\"Doe, Jane\" <jane@example.org>"));
	free(p);
	CHECK(!kb_mail_person("two@example.org, three@example.org"));
	CHECK(!kb_mail_person("x@example.org\r\nBcc: y@example.org"));
	CHECK(!kb_mail_person("no address"));
	CHECK(!kb_mail_person(""));
	p = kb_mail_address("Ada <ada@example.org>");
	CHECK(p && !strcmp(p, "ada@example.org"));
	free(p);
	CHECK(!kb_mail_address("ada@example.org"));
}

TEST(test_mail__message_id_unique_in_the_senders_domain)
{
	char *a = kb_mail_message_id("Ada <ada@lab.example.org>", 1700000000),
	     *b = kb_mail_message_id("Ada <ada@lab.example.org>", 1700000000);

	CHECK_MSG(!strncmp(a, "<20231114221320.", 16), "%s", a);
	CHECK_MSG(strlen(a) > 24 && !strcmp(a + strlen(a) - 25, ".kbisect@lab.example.org>"),
		  "%s", a);
	CHECK(strcmp(a, b));
	free(a);
	free(b);
}

static const char *write_config(const char *name, const char *text, int mode)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", kb_test_dir(), name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, (mode_t)mode);
	return path;
}

TEST(test_mail__config_file)
{
	struct kb_mail_config c;
	const char *p;

	kb_mail_config_init(&c);
	p = write_config("ok.json", "{\"smtp\": \"smtps://mail.example.org\", \"user\": \"ada\", "
			 "\"password\": \"s3cret\", \"to\": \"list@example.org\", "
			 "\"cc\": [\"a@example.org\", \"B <b@example.org>\"], \"timeout\": 30}", 0600);
	CHECK_MSG(kb_mail_config_read(&c, p) == 0, "%s", kb_error_last());
	CHECK(!strcmp(c.smtp, "smtps://mail.example.org") && !strcmp(c.user, "ada") &&
	      !strcmp(c.password, "s3cret"));
	CHECK(c.to.n == 1 && !strcmp(c.to.v[0], "list@example.org"));
	CHECK(c.cc.n == 2 && !strcmp(c.cc.v[1], "B <b@example.org>"));
	CHECK(c.timeout == 30 && !strcmp(c.link, "https://lore.kernel.org/r/"));
	kb_mail_config_release(&c);

	/* a password others can read is refused, and the message says how */
	kb_mail_config_init(&c);
	p = write_config("open.json", "{\"password\": \"s3cret\"}", 0644);
	CHECK(kb_mail_config_read(&c, p) == KB_EINVAL);
	CHECK_MSG(strstr(kb_error_last(), "chmod 600") && !strstr(kb_error_last(), "s3cret"),
		  "%s", kb_error_last());
	CHECK(!c.password);
	/* the same file without a password is fine */
	p = write_config("open2.json", "{\"from\": \"Ada <ada@example.org>\"}", 0644);
	CHECK(kb_mail_config_read(&c, p) == 0 && !strcmp(c.from, "Ada <ada@example.org>"));
	p = write_config("typo.json", "{\"smpt\": \"smtp://x\"}", 0600);
	CHECK(kb_mail_config_read(&c, p) == KB_EINVAL && strstr(kb_error_last(), "'smpt'"));
	p = write_config("type.json", "{\"to\": 3}", 0600);
	CHECK(kb_mail_config_read(&c, p) == KB_EINVAL && strstr(kb_error_last(), "'to'"));
	p = write_config("bad.json", "{\"to\": ", 0600);
	CHECK(kb_mail_config_read(&c, p) == KB_EINVAL);
	kb_mail_config_release(&c);
}

TEST(test_mail__smtp_refuses_before_connecting)
{
	struct kb_mail_config c;
	const char *rcpt[] = { "list@example.org", NULL }, *bad[] = { "a@b, c@d", NULL };

	kb_mail_config_init(&c);
	CHECK(kb_smtp_send(&c, "A <a@example.org>", rcpt, "x", 1) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "--smtp"));
	c.smtp = kb_strdup("smtp://ada:s3cret@127.0.0.1:1");
	CHECK(kb_smtp_send(&c, "A <a@example.org>", rcpt, "x", 1) == KB_EINVAL);
	CHECK_MSG(!strstr(kb_error_last(), "s3cret") && strstr(kb_error_last(), "KBISECT_SMTP"),
		  "%s", kb_error_last());
	free(c.smtp);
	c.smtp = kb_strdup("http://127.0.0.1:1");
	CHECK(kb_smtp_send(&c, "A <a@example.org>", rcpt, "x", 1) == KB_EINVAL);
	free(c.smtp);
	c.smtp = kb_strdup("smtp://127.0.0.1:1");
	c.user = kb_strdup("ada");
	CHECK(kb_smtp_send(&c, "A <a@example.org>", rcpt, "x", 1) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "without a password"));
	c.password = kb_strdup("s3cret");
	CHECK(kb_smtp_send(&c, "A <a@example.org>", bad, "x", 1) == KB_EINVAL);
	CHECK(kb_smtp_send(&c, "nobody", rcpt, "x", 1) == KB_EINVAL);
	kb_mail_config_release(&c);
}
