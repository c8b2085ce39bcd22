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
	const struct kb_cmd_help *h = &helps[argv[0][0] == 'g' ? 0 : argv[0][0] == 'b' ? 1 :
					     argv[0][0] == 's' ? 2 : 3];
	int unmark = argv[0][0] == 'u';
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
		ret = kb_pending_mark(&c, h->name[0], &args);
		if (ret < 0)
			ret = kb_fail(h->name);
		goto out;
	}
	if (kb_session_open(&s, c.store, c.statedir, 0) < 0) {
		ret = kb_fail(h->name);
		goto out;
	}
	if ((unmark ? kb_session_unmark(&s, args.v[0], sha) :
		      kb_session_mark_revs(&s, (const char *const *)args.v, args.n, h->name[0],
					   &marked)) < 0 ||
	    kb_session_next(&s, &next) < 0) {
		ret = kb_fail(h->name);
		kb_session_release(&s);
		goto out;
	}
	if (unmark)
		printf("unmarked %s\n", sha);
	for (i = 0; i < marked.n; i++)
		printf("marked %s %s\n", marked.v[i], h->name);
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
