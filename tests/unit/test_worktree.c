#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "repo.h"
#include "test.h"
#include "util.h"
#include "worktree.h"

static int file_is(const char *dir, const char *name, const char *want)
{
	char *p = kb_asprintf("%s/%s", dir, name);
	struct kb_buf b = KB_BUF_INIT;
	int r = kb_read_file(p, &b, 0);

	kb_error_clear();
	r = want ? (r == 0 && !strcmp(b.ptr, want)) : r == KB_ENOTFOUND;
	kb_buf_release(&b);
	free(p);
	return r;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = kb_asprintf("%s/%s", dir, name);

	kb_write_file_atomic(p, text, strlen(text), 0644);
	free(p);
}

TEST(test_worktree__switch_restore_and_keep_untracked)
{
	char *rp = kb_asprintf("%s/repo", kb_test_dir());
	char *wt = kb_asprintf("%s/wt", kb_test_dir());
	char *idx = kb_asprintf("%s/.git/index", rp);
	git_repository *r = trepo_init(rp);
	git_oid c1, c2;
	struct stat st1, st2;

	CHECK(r);
	CHECK(trepo_commit(r, &c1, NULL, 0, "f1", "one\n", "c1") == 0);
	CHECK(trepo_commit(r, &c1, &c1, 1, "keep", "same\n", "c1b") == 0);
	CHECK(trepo_commit(r, &c2, &c1, 1, "f1", NULL, "c2") == 0);
	CHECK(trepo_commit(r, &c2, &c2, 1, "f2", "two\n", "c2b") == 0);
	CHECK(kb_worktree_checkout(r, wt, &c1) == 0);
	CHECK(file_is(wt, "f1", "one\n") && file_is(wt, "keep", "same\n") &&
	      file_is(wt, "f2", NULL));
	CHECK(kb_worktree_checkout(r, wt, &c2) == 0);
	CHECK(file_is(wt, "f1", NULL) && file_is(wt, "f2", "two\n"));
	/* the test changed a file, removed one, added one */
	{
		char *k = kb_asprintf("%s/keep", wt);

		CHECK(stat(k, &st1) == 0);
		free(k);
	}
	put(wt, "f2", "changed\n");
	{
		char *k = kb_asprintf("%s/keep", wt);

		unlink(k);
		free(k);
	}
	put(wt, "build.o", "artifact\n");
	CHECK(kb_worktree_checkout(r, wt, &c2) == 0);
	CHECK(file_is(wt, "f2", "two\n") && file_is(wt, "keep", "same\n"));
	CHECK(file_is(wt, "build.o", "artifact\n"));
	/* an unchanged file is not rewritten (incremental builds) */
	{
		char *k = kb_asprintf("%s/keep", wt);

		CHECK(stat(k, &st1) == 0);
		CHECK(kb_worktree_checkout(r, wt, &c1) == 0);
		CHECK(kb_worktree_checkout(r, wt, &c2) == 0);
		CHECK(stat(k, &st2) == 0);
		CHECK(st1.st_ino == st2.st_ino && st1.st_mtim.tv_sec == st2.st_mtim.tv_sec &&
		      st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec);
		free(k);
	}
	/* the user's index and work tree are untouched */
	CHECK(access(idx, F_OK) != 0);
	CHECK(file_is(rp, "f1", NULL) && file_is(rp, "f2", NULL));
	git_repository_free(r);
	free(rp);
	free(wt);
	free(idx);
}

TEST(test_worktree__relative_path_refused)
{
	char *rp = kb_asprintf("%s/repo", kb_test_dir());
	git_repository *r = trepo_init(rp);
	git_oid c1;

	CHECK(r && trepo_commit(r, &c1, NULL, 0, "f1", "one\n", "c1") == 0);
	CHECK(kb_worktree_checkout(r, "relative/wt", &c1) < 0);
	git_repository_free(r);
	free(rp);
}
