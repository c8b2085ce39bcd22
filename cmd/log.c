#include <stdio.h>

#include "cmd.h"

static const struct kb_cmd_help help = {
	"log", "[--git] [options]",
	"Print the session as a replayable log: the start, every run and mark.",
	"'kbisect replay FILE' rebuilds the session from it, in another\n"
	"database or on another machine with the same repository.  With --git,\n"
	"the log is the one 'git bisect log' writes: the start and the marks, which\n"
	"'git bisect replay FILE' takes (the runs and samples are not in it)."
};

int cmd_log(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	int git = 0;
	struct kb_opt opts[] = {
		{ "git", OPT_FLAG, &git, NULL, "as 'git bisect log' writes it" },
		KB_CTX_OPTS(&c), { 0 }
	};
	struct kb_buf out = KB_BUF_INIT;
	struct kb_session s;
	int ret;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if ((ret = kb_open_session(&c, &s, 0, 1, "log")))
		return ret;
	if (git)
		kb_session_log_git(&s, &out);
	else
		kb_session_log(&s, &out);
	fwrite(out.ptr, 1, out.len, stdout);
	kb_buf_release(&out);
	kb_session_release(&s);
	kb_ctx_release(&c);
	return 0;
}
