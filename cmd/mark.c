#include <stdio.h>
#include <string.h>

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
