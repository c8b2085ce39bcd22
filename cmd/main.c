#include <git2.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

#define KB_VERSION "0.1"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "start", cmd_start, "start a bisection between GOOD and BAD and run it" },
	{ "resume", cmd_resume, "continue the session after a crash or a stop" },
	{ "run", cmd_run, "give a session marked by hand its test, and run it" },
	{ "status", cmd_status, "where the session stands, what runs now" },
	{ "log", cmd_log, "print the session as a replayable log" },
	{ "replay", cmd_replay, "rebuild a session from a log" },
	{ "good", cmd_mark, "mark a commit good" },
	{ "bad", cmd_mark, "mark a commit bad" },
	{ "skip", cmd_mark, "mark a commit untestable" },
	{ "unmark", cmd_mark, "take back the marks you gave a commit" },
	{ "old", cmd_mark, "mark a commit old (good), as git's terms have it" },
	{ "new", cmd_mark, "mark a commit new (bad), as git's terms have it" },
	{ "terms", cmd_terms, "the words of the session's two states" },
	{ "build", cmd_build, "build (or find in the cache) the kernel of a commit" },
	{ "compare", cmd_compare, "measure two commits side by side" },
	{ "report", cmd_report, "the verdict, the culprit and the evidence" },
	{ "reset", cmd_reset, "end the session and clean up" },
	{ "target", cmd_target, "check that a target answers (host key, login, libvirt)" },
};

static void usage(FILE *to)
{
	size_t i;

	fprintf(to, "usage: kbisect COMMAND [options]\n\n"
		"Find the commit that made a kernel (or anything in git) slower or broken.\n\n"
		"commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(to, "\n'kbisect COMMAND --help' describes a command; 'man kbisect' all of them.\n");
}

/* A command that is not kbisect's: one of the open session's terms?
 * Marks with it (an exit status), or -1 when it is none. */
static int term_command(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_session s;
	char *word = kb_strdup(argv[0]), *nargv0 = NULL;
	int i, ret = -1;

	/* --repo and --db, as every command takes them */
	for (i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--db"))
			c.db_opt = argv[i + 1];
		else if (!strcmp(argv[i], "--repo"))
			c.repo_opt = argv[i + 1];
	}
	if (kb_ctx_open(&c, 0) == 0 && kb_session_open(&s, c.store, c.statedir, 0) == 0) {
		if (s.spec.term_old && !strcmp(word, s.spec.term_old))
			nargv0 = "old";
		else if (s.spec.term_new && !strcmp(word, s.spec.term_new))
			nargv0 = "new";
		kb_session_release(&s);
	}
	kb_error_clear();
	kb_ctx_release(&c);
	if (nargv0) {
		argv[0] = nargv0;
		ret = cmd_mark(argc, argv);
	}
	free(word);
	return ret;
}

int main(int argc, char **argv)
{
	size_t i;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return KB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char *hargv[] = { argv[2], "--help", NULL };

			for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(commands[i].name, argv[2])) {
					git_libgit2_init();
					return commands[i].fn(2, hargv);
				}
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kbisect %s\n", KB_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].name, argv[1]))
			continue;
		git_libgit2_init();
		ret = commands[i].fn(argc - 1, argv + 1);
		git_libgit2_shutdown();
		return ret;
	}
	git_libgit2_init();
	ret = term_command(argc - 1, argv + 1);
	git_libgit2_shutdown();
	if (ret >= 0)
		return ret;
	fprintf(stderr, "kbisect: '%s' is not a command (see 'kbisect --help')\n", argv[1]);
	return KB_EXIT_USAGE;
}
