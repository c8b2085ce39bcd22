#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct kb_cmd_help help = {
	"run", "CMD [ARG...] [options]",
	"Give a session marked by hand its test, and run it from its marks.",
	"As 'git bisect run': the command and its arguments are run as given (no\n"
	"shell; put a shell command line in 'sh -c'), in kbisect's work tree of\n"
	"each commit; its exit status is the mark (0 good, 125 skip, 1-124 bad).\n"
	"A script of the directory kbisect runs in that the commits do not have\n"
	"goes by its absolute path.  'kbisect resume --command' or '--bench' does\n"
	"the same with a shell command or a benchmark.  Exit status as for\n"
	"'kbisect start'."
};

int cmd_run(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_strv args = KB_STRV_INIT;
	struct kb_buf cmd = KB_BUF_INIT;
	int accept_new = 0;
	struct kb_opt opts[] = {
		KB_CTX_OPTS(&c),
		{ "accept-new-host-key", OPT_FLAG, &accept_new, NULL,
		  "ssh target: accept the key of a host that is not in known_hosts yet "
		  "(never a changed key) and add it there" },
		{ 0 }
	};
	struct kb_session s;
	size_t i;
	int ret;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, &args, NULL))) {
		ret = ret == 1 ? 0 : ret;
		goto out;
	}
	if (!args.n) {
		ret = kb_usage_error(&help, "needs a CMD");
		goto out;
	}
	/* the words as given, each one word for the shell */
	for (i = 0; i < args.n; i++) {
		if (i)
			kb_buf_addch(&cmd, ' ');
		kb_buf_add_quoted(&cmd, args.v[i], KB_QUOTE_BARE);
	}
	if ((ret = kb_open_session(&c, &s, KB_STORE_LOCK, 0, "run")))
		goto out;
	ret = kb_set_test(&c, &s, NULL, cmd.ptr);
	if (ret == 0) {
		s.accept_new_host_key = accept_new;
		ret = kb_run_session(&s, "run");
	} else {
		ret = kb_fail("run");
	}
	kb_session_release(&s);
out:
	kb_buf_release(&cmd);
	kb_strv_clear(&args);
	kb_ctx_release(&c);
	return ret;
}
