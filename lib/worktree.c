#include "worktree.h"

#include <git2/sys/repository.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

static int git_fail(const char *what, const char *dir)
{
	const git_error *e = git_error_last();

	return kb_error(KB_EINFRA, "%s %s: %s", what, dir,
			e && e->message ? e->message : "libgit2 error");
}

int kb_worktree_checkout(git_repository *repo, const char *dir, const git_oid *commit)
{
	git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
	char *index_path = kb_asprintf("%s.index", dir);
	char *index_lock = kb_asprintf("%s.index.lock", dir);
	git_repository *wt = NULL;
	git_index *index = NULL;
	git_commit *c = NULL;
	int ret;

	if (dir[0] != '/') {
		ret = kb_error(KB_ERROR, "work tree path %s is not absolute", dir);
		goto out;
	}
	if ((ret = kb_mkdir_p(dir, 0755)) < 0)
		goto out;
	unlink(index_lock); /* left by a crash; we hold the database lock */
	if (git_repository_open(&wt, git_repository_path(repo)) < 0 ||
	    git_repository_set_workdir(wt, dir, 0) < 0 ||
	    git_index_open(&index, index_path) < 0) {
		ret = git_fail("cannot prepare the work tree", dir);
		goto out;
	}
	git_repository_set_index(wt, index);
	if (git_commit_lookup(&c, wt, commit) < 0) {
		ret = git_fail("cannot read the commit to check out into", dir);
		goto out;
	}
	opts.checkout_strategy = GIT_CHECKOUT_FORCE;
	opts.baseline_index = index;
	if (git_checkout_tree(wt, (git_object *)c, &opts) < 0 ||
	    git_index_write(index) < 0) {
		ret = git_fail("cannot check out into", dir);
		goto out;
	}
out:
	git_commit_free(c);
	git_index_free(index);
	git_repository_free(wt);
	free(index_path);
	free(index_lock);
	return ret;
}
