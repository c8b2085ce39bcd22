#include <stdlib.h>
#include <string.h>

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
	int n = kb_mail_people("Ada Lovelace <ada@example.org>", msg, &v);

	CHECK_MSG(n == 5, "%d", n);
	CHECK(v.n == 5);
	CHECK(!strcmp(v.v[0], "Ada Lovelace <ada@example.org>"));
	CHECK(!strcmp(v.v[1], "Grace Hopper <grace@example.org>"));
	CHECK(!strcmp(v.v[2], "Linus T <LINUS@example.org>"));
	/* a CRLF line ending is not part of the value */
	CHECK(!strcmp(v.v[3], "Eve <eve@example.org>"));
	CHECK(!strcmp(v.v[4], "Alan <alan@example.org>"));
	/* again: all known, nothing added */
	CHECK(kb_mail_people(NULL, msg, &v) == 0 && v.n == 5);
	kb_strv_clear(&v);
}

TEST(test_mail__nothing_that_breaks_a_header)
{
	struct kb_strv v = KB_STRV_INIT;

	CHECK(kb_mail_people("Bad\rName <b@example.org>", NULL, &v) == 0);
	CHECK(kb_mail_people("Tab\tName <t@example.org>", "", &v) == 0);
	CHECK(kb_mail_people("No Address <>", "Acked-by: <no-at-sign>\n", &v) == 0);
	CHECK(kb_mail_people(NULL, "Acked-by: A <a@example.org> trailing\n", &v) == 0);
	CHECK(kb_mail_people(NULL, "Acked-by: M <m@example.org>, B <b@example.org>\n", &v) == 0);
	CHECK(kb_mail_people(NULL, "Acked-by: \"Q\" <q@example.org>\n", &v) == 0);
	CHECK(v.n == 0);
	kb_strv_clear(&v);
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
