#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static const struct kb_cmd_help help = {
	"replay", "FILE [options]",
	"Rebuild a session from a log written by 'kbisect log' or 'git bisect log'.",
	"The runs and marks of the log are recorded as they were; nothing is\n"
	"run.  'kbisect report' shows the result, 'kbisect resume' continues.\n"
	"A log of 'git bisect log' (its start, good, bad and skip lines, with its\n"
	"terms; comments are passed over) becomes a session to mark by hand.\n"
	"FILE - reads the log from standard input."
};

int cmd_replay(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_opt opts[] = { KB_CTX_OPTS(&c), { 0 } };
	struct kb_strv args = KB_STRV_INIT;
	struct kb_buf text = KB_BUF_INIT;
	const char *wd;
	char real[PATH_MAX];
	int64_t id;
	int ret;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, &args, NULL)))
		goto out;
	if (args.n != 1) {
		ret = kb_usage_error(&help, "needs one FILE");
		goto out;
	}
	ret = kb_read_file(strcmp(args.v[0], "-") ? args.v[0] : "/dev/stdin", &text, 64 << 20);
	if (ret < 0 || (ret = kb_repo_open(&c.repo, c.repo_opt ? c.repo_opt : ".")) < 0)
		goto fail;
	wd = git_repository_workdir(c.repo);
	if (!realpath(wd ? wd : git_repository_path(c.repo), real)) {
		kb_error_errno(KB_ERROR, "cannot resolve the repository path");
		goto fail;
	}
	if ((ret = kb_ctx_open(&c, KB_STORE_CREATE | KB_STORE_LOCK)) < 0 ||
	    (ret = kb_session_replay(c.store, c.repo, real, text.ptr, args.v[0], &id)) < 0)
		goto fail;
	fprintf(stderr, "kbisect: replayed %s into session %lld of %s\n", args.v[0],
		(long long)id, c.db_path);
	ret = 0;
	goto out;
fail:
	ret = kb_fail("replay");
out:
	if (ret == 1 && !kb_error_code())
		ret = 0;
	kb_buf_release(&text);
	kb_strv_clear(&args);
	kb_ctx_release(&c);
	return ret;
}
