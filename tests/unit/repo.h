/* Build small repositories with libgit2 for tests. */
#ifndef KB_TEST_REPO_H
#define KB_TEST_REPO_H

#include <git2.h>

/* A new repository at 'path' with a work tree. */
git_repository *trepo_init(const char *path);
/*
 * Commit a tree made of the parents' first tree plus 'path' = 'content'
 * (path NULL: no change; content NULL: delete path).  Returns the id in
 * *out; parents may be NULL/0.  Time increases with each call.
 */
int trepo_commit(git_repository *r, git_oid *out, const git_oid *parents,
		 size_t nparents, const char *path, const char *content,
		 const char *subject);

#endif
