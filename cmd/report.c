#include <stdio.h>

#include "cmd.h"
#include "svg.h"

static const struct kb_cmd_help help = {
	"report", "[--json] [--svg FILE] [--mbox FILE] [--mail] [options]",
	"Print the result of the session: the verdict, the culprit, the log.",
	"--json prints one object (format version 1, see kbisect(1)).  --svg,\n"
	"--mbox and --mail write the plot or the mail instead of printing the text.\n"
	"The mail goes To the lists of --to or of the mail config, with the\n"
	"culprit's author and the people in its tags in Cc; the SMTP password comes\n"
	"from the mail config (mode 600) or KBISECT_SMTP_PASSWORD, never from the\n"
	"command line, and is stored nowhere.\n"
	"Exit status: 0 the report names a culprit, 3 it does not, 1 an error."
};

/* The plot, written whole or not at all. */
static int write_svg(json_t *r, const char *path)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	if ((ret = kb_svg_report(r, &b)) == 0)
		ret = kb_write_file_atomic(path, b.ptr, b.len, 0644);
	kb_buf_release(&b);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_strv to = KB_STRV_INIT, cc = KB_STRV_INIT;
	struct kb_mail_opts mo = { .to = &to, .cc = &cc };
	const char *svg = NULL;
	int as_json = 0, ret;
	struct kb_opt opts[] = {
		{ "json", OPT_FLAG, &as_json, NULL, "print one JSON object" },
		{ "svg", OPT_STRING, &svg, "FILE", "write the plot of the metric to FILE" },
		{ "mbox", OPT_STRING, &mo.mbox, "FILE", "write the report mail to FILE (mbox)" },
		{ "mail", OPT_FLAG, &mo.send, NULL, "send the report mail over SMTP" },
		{ "to", OPT_LIST, &to, "ADDRESS", "send to ADDRESS instead of the config's 'to'" },
		{ "cc", OPT_LIST, &cc, "ADDRESS", "send a copy to ADDRESS" },
		{ "no-cc", OPT_FLAG, &mo.no_cc, NULL,
		  "do not copy the culprit's author and the people in its tags" },
		{ "in-reply-to", OPT_STRING, &mo.in_reply_to, "MSGID",
		  "thread the mail under the report MSGID (In-Reply-To, References, Link:)" },
		{ "from", OPT_STRING, &mo.from, "ADDRESS",
		  "sender (default: the config's 'from', else git's user.name and user.email)" },
		{ "smtp", OPT_STRING, &mo.smtp, "URL",
		  "SMTP server: smtp://HOST[:PORT] (STARTTLS) or smtps://HOST[:PORT]" },
		{ "mail-config", OPT_STRING, &mo.config, "FILE",
		  "mail config (default: ~/.config/kbisect/mail.json)" },
		KB_CTX_OPTS(&c), { 0 }
	};
	struct kb_session s;
	json_t *r;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL))) {
		kb_strv_clear(&to);
		kb_strv_clear(&cc);
		return ret == 1 ? 0 : ret;
	}
	if (!mo.mbox && !mo.send && (to.n || cc.n || mo.no_cc || mo.in_reply_to || mo.from ||
				     mo.smtp || mo.config)) {
		kb_strv_clear(&to);
		kb_strv_clear(&cc);
		return kb_usage_error(&help, "the mail options go with --mbox FILE or --mail");
	}
	if ((ret = kb_open_session(&c, &s, 0, 1, "report"))) {
		kb_strv_clear(&to);
		kb_strv_clear(&cc);
		return ret;
	}
	if (kb_session_report(&s, &r) < 0) {
		ret = kb_fail("report");
	} else {
		ret = kb_verdict_exit(r);
		if (svg && write_svg(r, svg) < 0)
			ret = kb_fail("report");
		else if ((mo.mbox || mo.send) && kb_report_mail(r, s.repo, &mo) < 0)
			ret = kb_fail("report");
		else if (as_json)
			kb_print_json(r);
		else if (!svg && !mo.mbox && !mo.send)
			kb_print_report(r, stdout, NULL);
		json_decref(r);
	}
	kb_session_release(&s);
	kb_ctx_release(&c);
	kb_strv_clear(&to);
	kb_strv_clear(&cc);
	return ret;
}
