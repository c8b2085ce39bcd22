#include <stdio.h>

#include "cmd.h"

static const struct kb_cmd_help help = {
	"reset", "[options]",
	"End the session and remove its work trees and run directories.",
	"The database keeps the ended session's runs and marks for the record."
};

int cmd_reset(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_opt opts[] = { KB_CTX_OPTS(&c), { 0 } };
	struct kb_session s;
	int ret;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if ((ret = kb_open_session(&c, &s, KB_STORE_LOCK, 0, "reset")))
		return ret;
	/* say what is cleaned up: VMs, volumes, files on a host */
	s.progress = &kb_stderr_progress;
	if (kb_session_end(&s) < 0)
		ret = kb_fail("reset");
	else
		fprintf(stderr, "kbisect: session %lld ended\n", (long long)s.row.id);
	kb_session_release(&s);
	kb_ctx_release(&c);
	return ret;
}
