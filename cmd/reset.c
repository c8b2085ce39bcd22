#include <stdio.h>

#include "cmd.h"

static const struct kb_cmd_help help = {
	"reset", "[options]",
	"End the session and remove its work trees and run directories.",
	"The database keeps the ended session's runs and marks for the record.\n"
	"Once the session has ended there is nothing to do, and it exits with 0."
};

int cmd_reset(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_opt opts[] = { KB_CTX_OPTS(&c), { 0 } };
	struct kb_session s;
	int ret;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	/* a session ended already: as 'git bisect reset' does when there is
	 * no bisection, nothing to do, and no error */
	if (kb_ctx_open(&c, KB_STORE_LOCK) == 0 && kb_pending_exists(&c)) {
		kb_pending_forget(&c);
		fprintf(stderr, "kbisect: the start without revisions is forgotten\n");
		kb_ctx_release(&c);
		return 0;
	}
	if (!c.store || kb_session_open(&s, c.store, c.statedir, 0) < 0) {
		if (c.store && kb_error_code() == KB_ENOSESSION) {
			fprintf(stderr, "kbisect: no session in progress: nothing to reset\n");
			kb_error_clear();
			kb_ctx_release(&c);
			return 0;
		}
		kb_ctx_release(&c);
		return kb_fail("reset");
	}
	s.guest_init = kb_guest_init();
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
