#include "cmd.h"

static const struct kb_cmd_help help = {
	"resume", "[options]",
	"Continue the session in the database, after a crash or a stop.",
	"Runs left behind are collected first: a test that finished while\n"
	"kbisect was down keeps its result; one that was cut short runs again.\n"
	"Exit status as for 'kbisect start'."
};

int cmd_resume(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	int accept_new = 0;
	struct kb_opt opts[] = {
		KB_CTX_OPTS(&c),
		{ "accept-new-host-key", OPT_FLAG, &accept_new, NULL,
		  "ssh target: accept the key of a host that is not in known_hosts yet "
		  "(never a changed key) and add it there" },
		{ 0 }
	};
	struct kb_session s;
	int ret;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if ((ret = kb_open_session(&c, &s, KB_STORE_LOCK, 0, "resume")))
		return ret;
	s.accept_new_host_key = accept_new;
	ret = kb_run_session(&s, "resume");
	kb_session_release(&s);
	kb_ctx_release(&c);
	return ret;
}
