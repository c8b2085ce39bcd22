/*
 * dag.h - the bisection range read from a git repository with libgit2.
 *
 * The range is every commit reachable from BAD and not from any GOOD,
 * optionally simplified to the commits that touch some paths (merges that
 * leave the paths as one parent had them follow that parent only, as git's
 * default history simplification does) or to BAD's first-parent chain.
 * The result is a kb_graph plus the commit id of each node.
 */
#ifndef KB_DAG_H
#define KB_DAG_H

#include <git2.h>

#include "graph.h"

struct kb_buf;
struct kb_strv;

struct kb_range_opts {
	const char *const *paths; /* literal paths, NULL-terminated, or NULL */
	int first_parent;
};

struct kb_dag {
	git_repository *repo; /* borrowed */
	struct kb_graph g;
	git_oid *oid;         /* oid[i] of node i */
	size_t bad;           /* node of BAD (always in the graph) */
	size_t *hash;         /* open addressing: node index + 1, 0 = empty */
	size_t hash_size;
};

/* Open the repository that contains 'path' (a work tree or a .git). */
int kb_repo_open(git_repository **out, const char *path);

/*
 * Resolve a revision (tag, branch, abbreviated or full id, "v5.15",
 * "HEAD~3", ...) to a commit id.  KB_ENOTFOUND with a message that names
 * the revision and the repository when it does not name a commit.
 */
int kb_repo_resolve(git_repository *repo, const char *spec, git_oid *out);

/* Does the tree of 'commit' have 'path' (relative to its top)?  0 when it
 * does not or cannot be read. */
int kb_repo_has_path(git_repository *repo, const git_oid *commit, const char *path);

/* One-line facts about a commit, for reports.  Strings are malloc'd. */
struct kb_commit_info {
	char *subject;
	char *author;   /* "Name <email>" */
	char *message;  /* the whole message, trailers included */
	long long time; /* author time, seconds since the epoch */
};
int kb_repo_commit_info(git_repository *repo, const git_oid *oid,
			struct kb_commit_info *out);
void kb_commit_info_release(struct kb_commit_info *info);

/* "user.name <user.email>" of the repository's git config, or NULL. */
char *kb_repo_user(git_repository *repo);

/*
 * Read the range.  Every GOOD must be an ancestor of BAD, and the range
 * must hold at least one commit other than... BAD itself counts: a range of
 * BAD alone is valid (BAD is then the answer).  KB_EINVAL with a clear
 * message when a GOOD is not an ancestor of BAD or equals it.
 */
int kb_dag_build(struct kb_dag *dag, git_repository *repo, const git_oid *bad,
		 const git_oid *goods, size_t ngoods,
		 const struct kb_range_opts *opts);
void kb_dag_release(struct kb_dag *dag);

/*
 * A build variant of 'commit': a new commit object (no ref is touched) with
 * the same tree, 'commit' as its parent, and the config lines 'lines'
 * (NULL-terminated, "CONFIG_X=y") as "Kbisect-Config:" trailers, which a
 * kernel build of it merges into its config last (kb_build_kernel()).
 * 'what' says in its subject what the variant is for.  The same inputs
 * give the same commit id in any clone.
 */
int kb_repo_variant(git_repository *repo, const git_oid *commit, const char *what,
		    const char *const *lines, git_oid *out);
/* The "Kbisect-Config:" lines of a variant made by kb_repo_variant() (none
 * for any other commit), appended to 'out'. */
int kb_repo_variant_config(git_repository *repo, const git_oid *commit, struct kb_strv *out);
/* The text of the blob at 'path' in the tree of 'commit' (at most 'max'
 * bytes read): 0, or 1 when it has none. */
int kb_repo_read_path(git_repository *repo, const git_oid *commit, const char *path,
		      struct kb_buf *out, size_t max);

/*
 * Revert 'culprit' on top of 'onto' into a new commit object (no ref, no
 * work tree, no index is touched).  The same inputs give the same commit
 * id in any clone.  *applied = 0 when the revert does not apply cleanly.
 */
int kb_repo_revert(git_repository *repo, const git_oid *culprit, const git_oid *onto,
		   git_oid *out, int *applied);

/* A graph of the given commits only, with no edges; node 0 is 'BAD'. */
int kb_dag_from_commits(struct kb_dag *dag, git_repository *repo, const git_oid *oids,
			size_t n);

/* Node index of a commit, or -1 when it is not in the range. */
long kb_dag_find(const struct kb_dag *dag, const git_oid *oid);

#endif
