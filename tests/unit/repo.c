#include <stdio.h>
#include <string.h>

#include "repo.h"

git_repository *trepo_init(const char *path)
{
	git_repository *r = NULL;

	if (git_repository_init(&r, path, 0) < 0)
		return NULL;
	return r;
}

int trepo_commit(git_repository *r, git_oid *out, const git_oid *parents,
		 size_t nparents, const char *path, const char *content,
		 const char *subject)
{
	static long clock = 1600000000;
	const git_commit *pc[4] = { NULL };
	git_commit *owned[4] = { NULL };
	git_tree *base = NULL, *tree = NULL;
	git_index *idx = NULL;
	git_signature *sig = NULL;
	git_oid tree_id, blob;
	size_t i;
	int ret = -1;

	for (i = 0; i < nparents; i++) {
		if (git_commit_lookup(&owned[i], r, &parents[i]) < 0)
			goto out;
		pc[i] = owned[i];
	}
	if (git_index_new(&idx) < 0)
		goto out;
	if (nparents && (git_commit_tree(&base, owned[0]) < 0 || git_index_read_tree(idx, base) < 0))
		goto out;
	if (path && content) {
		git_index_entry e;

		if (git_blob_create_from_buffer(&blob, r, content, strlen(content)) < 0)
			goto out;
		memset(&e, 0, sizeof(e));
		e.path = path;
		e.mode = GIT_FILEMODE_BLOB;
		e.id = blob;
		if (git_index_add(idx, &e) < 0)
			goto out;
	} else if (path) {
		git_index_remove(idx, path, 0);
	}
	if (git_index_write_tree_to(&tree_id, idx, r) < 0 ||
	    git_tree_lookup(&tree, r, &tree_id) < 0 ||
	    git_signature_new(&sig, "T Tester", "t@example.org", clock++, 0) < 0 ||
	    git_commit_create(out, r, NULL, sig, sig, NULL, subject, tree, nparents, pc) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < nparents; i++)
		git_commit_free(owned[i]);
	git_signature_free(sig);
	git_tree_free(tree);
	git_tree_free(base);
	git_index_free(idx);
	return ret;
}
