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
