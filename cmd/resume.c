#include "cmd.h"

static const struct kb_cmd_help help = {
	"resume", "[options]",
	"Continue the session in the database, after a crash or a stop.",
	"Runs left behind are collected first: a test that finished while\n"
	"kbisect was down keeps its result; one that was cut short runs again.\n"
	"--command or --bench gives a session marked by hand (started with\n"
	"--no-run) its test, which then runs on from the marks.\n"
	"Exit status as for 'kbisect start'."
};

int cmd_resume(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	int accept_new = 0;
	const char *bench = NULL, *command = NULL;
	struct kb_opt opts[] = {
		KB_CTX_OPTS(&c),
		{ "bench", OPT_STRING, &bench, "NAME|FILE",
		  "a session marked by hand: the benchmark to run from now on" },
		{ "command", OPT_STRING, &command, "CMD",
		  "a session marked by hand: the shell command to test with from now on" },
		{ "accept-new-host-key", OPT_FLAG, &accept_new, NULL,
		  "ssh target: accept the key of a host that is not in known_hosts yet "
		  "(never a changed key) and add it there" },
		{ 0 }
	};
	struct kb_session s;
	int ret;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if (bench && command)
		return kb_usage_error(&help, "takes one of --bench and --command, not both");
	if ((ret = kb_open_session(&c, &s, KB_STORE_LOCK, 0, "resume")))
		return ret;
	if ((bench || command) && kb_set_test(&c, &s, bench, command) < 0) {
		ret = kb_fail("resume");
		kb_session_release(&s);
		kb_ctx_release(&c);
		return ret;
	}
	s.accept_new_host_key = accept_new;
	ret = kb_run_session(&s, "resume");
	kb_session_release(&s);
	kb_ctx_release(&c);
	return ret;
}
