#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "build.h"
#include "cmd.h"

static const struct kb_cmd_help helps[] = {
	{ "good", "[REV...] [options]",
	  "Mark commits good (default: the one to test next).",
	  "A REV is a commit, or a range A..B of the commits B has and A has not.\n"
	  "All of them are marked, or none when one is refused." },
	{ "bad", "[REV...] [options]",
	  "Mark commits bad (default: the one to test next).",
	  "A REV is a commit, or a range A..B of the commits B has and A has not.\n"
	  "All of them are marked, or none when one is refused." },
	{ "skip", "[REV...] [options]",
	  "Mark commits untestable (default: the one to test next).",
	  "A REV is a commit, or a range A..B of the commits B has and A has not\n"
	  "(git bisect skip v2.5..v2.6).  All of them are marked, or none." },
	{ "unmark", "REV [options]",
	  "Take back the marks you gave a commit with good, bad or skip.",
	  "The marks that tests gave stay: they are the session's evidence.  To\n"
	  "rewrite any mark, edit the output of 'kbisect log' and 'kbisect replay' it.\n"
	  "A mark that contradicts the others is refused by good, bad and skip, and\n"
	  "the session is left as it was." },
	{ "old", "[REV...] [options]",
	  "Mark commits old: good, in git's words for a change that is no regression.",
	  "The same as good.  A session started with --term-old WORD also takes\n"
	  "'kbisect WORD'." },
	{ "new", "[REV...] [options]",
	  "Mark commits new: bad, in git's words for a change that is no regression.",
	  "The same as bad.  A session started with --term-new WORD also takes\n"
	  "'kbisect WORD'." },
};

/*
 * A session marked by hand in a kernel tree: the kernel of the commit to
 * test next, built (or found in the cache) for the session's target, and
 * where it is, to boot by hand (ktest's manual bisection).  A build that
 * fails says so; the commit is not marked for it.
 */
int kb_print_next_kernel(struct kb_session *s, const char *sha, FILE *to)
{
	struct kb_build_result res;
	struct stat st;
	char *mods;
	int ret;

	if (strcmp(s->spec.build, "kernel") || !s->spec.bench.argv.n ||
	    strcmp(s->spec.bench.argv.v[s->spec.bench.argv.n - 1], KB_MANUAL_COMMAND))
		return 0;
	if (!s->guest_init)
		s->guest_init = kb_guest_init();
	if ((ret = kb_session_build_for_hand(s, sha, &res)) < 0)
		return ret;
	if (res.failed) {
		fprintf(to, "its kernel does not build: skip it ('kbisect skip')%s:\n%s\n",
			res.cached ? " (a failure kept in the cache)" : "", res.error);
		return 0;
	}
	mods = kb_asprintf("%s/modules/lib/modules/%s", res.dir, res.release);
	fprintf(to, "its kernel (%s, %s): %s/bzImage\n", res.release,
		res.cached ? "from the cache" : "built", res.dir);
	if (stat(mods, &st) == 0)
		fprintf(to, "its modules: %s\n", mods);
	else
		fprintf(to, "its modules: none (the config builds none)\n");
	free(mods);
	return 0;
}

int cmd_mark(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_opt opts[] = { KB_CTX_OPTS(&c), { 0 } };
	struct kb_strv args = KB_STRV_INIT;
	const struct kb_cmd_help *h = &helps[!strcmp(argv[0], "good") ? 0 :
					     !strcmp(argv[0], "bad") ? 1 :
					     !strcmp(argv[0], "skip") ? 2 :
					     !strcmp(argv[0], "unmark") ? 3 :
					     !strcmp(argv[0], "old") ? 4 : 5];
	int unmark = h == &helps[3];
	/* the mark: old is good, new is bad */
	char mark = h == &helps[4] ? 'g' : h == &helps[5] ? 'b' : h->name[0];
	struct kb_strv marked = KB_STRV_INIT;
	size_t i;
	struct kb_session s;
	struct kb_next next;
	char sha[GIT_OID_HEXSZ + 1];
	int ret;

	if ((ret = kb_parse_opts(h, opts, argc, argv, &args, NULL))) {
		if (ret == 1) /* --help was shown */
			ret = 0;
		goto out;
	}
	if (unmark && args.n != 1) {
		ret = kb_usage_error(h, "needs one REV");
		goto out;
	}
	if (kb_ctx_open(&c, KB_STORE_LOCK) < 0) {
		ret = kb_fail(h->name);
		goto out;
	}
	if (!unmark && kb_pending_exists(&c)) {
		ret = kb_pending_mark(&c, mark, &args);
		if (ret < 0)
			ret = kb_fail(h->name);
		goto out;
	}
	if (kb_session_open(&s, c.store, c.statedir, 0) < 0) {
		ret = kb_fail(h->name);
		goto out;
	}
	if ((unmark ? kb_session_unmark(&s, args.v[0], sha) :
		      kb_session_mark_revs(&s, (const char *const *)args.v, args.n, mark,
					   &marked)) < 0 ||
	    kb_session_next(&s, &next) < 0) {
		ret = kb_fail(h->name);
		kb_session_release(&s);
		goto out;
	}
	if (unmark)
		printf("unmarked %s\n", sha);
	for (i = 0; i < marked.n; i++)
		printf("marked %s %s\n", marked.v[i], mark == 's' ? "skip" :
		       kb_spec_term(&s.spec, mark));
	if (next.kind == KB_NEXT_TEST) {
		git_oid_tostr(sha, sizeof(sha), &s.dag.oid[next.commit]);
		printf("next: %s (%zu candidate%s left, roughly %d step%s)\n", sha,
		       next.nleft, next.nleft == 1 ? "" : "s", next.steps_left + 1,
		       next.steps_left + 1 == 1 ? "" : "s");
		fflush(stdout);
		if (kb_print_next_kernel(&s, sha, stdout) < 0)
			ret = kb_fail(h->name);
	} else if (!s.spec.bench.has_metric && kb_session_finish(&s) < 0) {
		ret = kb_fail(h->name);
	} else {
		printf("the bisection has its answer: see 'kbisect report'\n");
	}
	kb_next_release(&next);
	kb_session_release(&s);
out:
	kb_strv_clear(&marked);
	kb_strv_clear(&args);
	kb_ctx_release(&c);
	return ret;
}

int kb_check_terms(const struct kb_cmd_help *h, const char *old_term, const char *new_term)
{
	static const char *const taken[] = {
		"start", "resume", "run", "status", "log", "replay", "skip", "unmark", "build",
		"compare", "report", "reset", "target", "terms", "help", "visualize", "view",
		NULL
	};
	const char *t[2] = { old_term, new_term };
	size_t i, k;

	for (k = 0; k < 2; k++) {
		if (!*t[k] || strspn(t[k], "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(t[k]) ||
		    t[k][0] == '-')
			return kb_usage_error(h, "the term '%s' is not a word of lowercase letters, "
					      "digits, '-' and '_'", t[k]);
		for (i = 0; taken[i]; i++)
			if (!strcmp(t[k], taken[i]))
				return kb_usage_error(h, "the term '%s' is the name of a command", t[k]);
		/* good, bad, old and new mean one state each */
		if ((!strcmp(t[k], "good") || !strcmp(t[k], "old")) && k == 1)
			return kb_usage_error(h, "'%s' is the old state's word: it cannot be the "
					      "new one's", t[k]);
		if ((!strcmp(t[k], "bad") || !strcmp(t[k], "new")) && k == 0)
			return kb_usage_error(h, "'%s' is the new state's word: it cannot be the "
					      "old one's", t[k]);
	}
	if (!strcmp(old_term, new_term))
		return kb_usage_error(h, "the two terms must differ (both are '%s')", old_term);
	return 0;
}

int kb_term_command(int argc, char **argv)
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

static const struct kb_cmd_help terms_help = {
	"terms", "[--term-old | --term-new] [options]",
	"The words of the session's two states, as 'git bisect terms'.",
	"good and bad unless the session was started with --term-old and\n"
	"--term-new; 'kbisect WORD' marks with either."
};

int cmd_terms(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	int only_old = 0, only_new = 0, ret;
	struct kb_opt opts[] = {
		{ "term-old", OPT_FLAG, &only_old, NULL, "print only the old state's word" },
		{ "term-good", OPT_FLAG, &only_old, NULL, "the same as --term-old" },
		{ "term-new", OPT_FLAG, &only_new, NULL, "print only the new state's word" },
		{ "term-bad", OPT_FLAG, &only_new, NULL, "the same as --term-new" },
		KB_CTX_OPTS(&c), { 0 }
	};
	struct kb_session s;

	if ((ret = kb_parse_opts(&terms_help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if ((ret = kb_open_session(&c, &s, 0, 0, "terms")))
		return ret;
	if (only_old)
		printf("%s\n", kb_spec_term(&s.spec, 'g'));
	else if (only_new)
		printf("%s\n", kb_spec_term(&s.spec, 'b'));
	else
		printf("Your current terms are %s for the old state\nand %s for the new state.\n",
		       kb_spec_term(&s.spec, 'g'), kb_spec_term(&s.spec, 'b'));
	kb_session_release(&s);
	kb_ctx_release(&c);
	return 0;
}
