/*
 * worktree.h - a directory of files of one commit, owned by kbisect.
 *
 * The user's work tree, index and HEAD are never touched: a second handle
 * on the repository gets 'dir' as its work tree and a private index
 * ("<dir>.index"), and libgit2 checks the commit out there.  The private
 * index remembers what was written, so only files that differ from the
 * previous checkout are rewritten (an out-of-tree build stays incremental),
 * files the test changed or deleted are restored, files it created are left
 * alone (as in git bisect), and a checkout cut short by a crash is simply
 * completed by the next one.
 */
#ifndef KB_WORKTREE_H
#define KB_WORKTREE_H

#include <git2.h>

int kb_worktree_checkout(git_repository *repo, const char *dir, const git_oid *commit);

#endif
