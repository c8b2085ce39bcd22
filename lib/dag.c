#include "dag.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();

	return kb_error(code, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

int kb_repo_open(git_repository **out, const char *path)
{
	if (git_repository_open_ext(out, path, 0, NULL) < 0)
		return kb_error(KB_ENOTFOUND,
				"%s is not inside a git repository (give one with --repo DIR)",
				path);
	return 0;
}

int kb_repo_resolve(git_repository *repo, const char *spec, git_oid *out)
{
	git_object *obj = NULL, *peeled = NULL;
	int ret = 0;

	if (!*spec)
		return kb_error(KB_EINVAL, "empty revision");
	if (git_revparse_single(&obj, repo, spec) < 0)
		return kb_error(KB_ENOTFOUND, "unknown revision '%s' in %s",
				spec, git_repository_path(repo));
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0)
		ret = kb_error(KB_EINVAL, "revision '%s' does not name a commit", spec);
	else
		git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	return ret;
}

int kb_repo_commit_info(git_repository *repo, const git_oid *oid,
			struct kb_commit_info *out)
{
	git_commit *c;
	const git_signature *a;
	const char *s;

	if (git_commit_lookup(&c, repo, oid) < 0)
		return git_fail(KB_ENOTFOUND, "cannot read commit");
	s = git_commit_summary(c);
	a = git_commit_author(c);
	out->subject = kb_strdup(s ? s : "");
	out->author = kb_asprintf("%s <%s>", a->name, a->email);
	s = git_commit_message(c);
	out->message = kb_strdup(s ? s : "");
	out->time = (long long)a->when.time;
	git_commit_free(c);
	return 0;
}

char *kb_repo_user(git_repository *repo)
{
	git_config *cfg;
	const char *name = NULL, *email = NULL;
	char *out = NULL;

	if (git_repository_config_snapshot(&cfg, repo) < 0) {
		git_error_clear();
		return NULL;
	}
	if (git_config_get_string(&name, cfg, "user.name") == 0 &&
	    git_config_get_string(&email, cfg, "user.email") == 0 && *email)
		out = kb_asprintf("%s <%s>", name, email);
	git_error_clear();
	git_config_free(cfg);
	return out;
}

void kb_commit_info_release(struct kb_commit_info *info)
{
	free(info->subject);
	free(info->author);
	free(info->message);
	memset(info, 0, sizeof(*info));
}

static size_t oid_hash(const git_oid *oid)
{
	size_t h;

	memcpy(&h, oid->id, sizeof(h));
	return h;
}

static void hash_build(size_t **table, size_t *size, const git_oid *oid, size_t n)
{
	size_t i, sz = 16;

	while (sz < 2 * n)
		sz *= 2;
	*table = kb_calloc(sz, sizeof(**table));
	*size = sz;
	for (i = 0; i < n; i++) {
		size_t h = oid_hash(&oid[i]) & (sz - 1);

		while ((*table)[h])
			h = (h + 1) & (sz - 1);
		(*table)[h] = i + 1;
	}
}

static long hash_find(const size_t *table, size_t size, const git_oid *all,
		      const git_oid *oid)
{
	size_t h = oid_hash(oid) & (size - 1);

	while (table[h]) {
		if (git_oid_equal(&all[table[h] - 1], oid))
			return (long)(table[h] - 1);
		h = (h + 1) & (size - 1);
	}
	return -1;
}

long kb_dag_find(const struct kb_dag *dag, const git_oid *oid)
{
	return hash_find(dag->hash, dag->hash_size, dag->oid, oid);
}

/* The walked range before simplification: ids and followed parents. */
struct walk {
	size_t n;
	git_oid *oid;
	size_t *poff;      /* parents of i: pid[poff[i]..poff[i+1]) */
	git_oid *pid;      /* parent ids (inside the range or not) */
	long *pix;         /* their node index, -1 outside the range */
	size_t *hash, hash_size;
};

static void walk_release(struct walk *w)
{
	free(w->oid);
	free(w->poff);
	free(w->pid);
	free(w->pix);
	free(w->hash);
}

static int check_goods(git_repository *repo, const git_oid *bad,
		       const git_oid *goods, size_t ngoods)
{
	char b[GIT_OID_HEXSZ + 1], g[GIT_OID_HEXSZ + 1];
	size_t i;

	git_oid_tostr(b, sizeof(b), bad);
	for (i = 0; i < ngoods; i++) {
		git_oid_tostr(g, sizeof(g), &goods[i]);
		if (git_oid_equal(&goods[i], bad))
			return kb_error(KB_EINVAL,
					"GOOD and BAD are the same commit %.12s: nothing to bisect", b);
		int r = git_graph_descendant_of(repo, bad, &goods[i]);

		if (r < 0)
			return git_fail(KB_ERROR, "cannot compare commits");
		if (!r && git_graph_descendant_of(repo, &goods[i], bad) == 1)
			return kb_error(KB_EINVAL,
					"BAD %.12s is an ancestor of GOOD %.12s: swapped? "
					"the order is 'kbisect start GOOD BAD'", b, g);
		if (!r)
			return kb_error(KB_EINVAL,
					"GOOD %.12s is not an ancestor of BAD %.12s: "
					"give a GOOD that BAD contains (git merge-base finds one)",
					g, b);
	}
	return 0;
}

static int walk_range(struct walk *w, git_repository *repo, const git_oid *bad,
		      const git_oid *goods, size_t ngoods, int first_parent)
{
	git_revwalk *rw = NULL;
	git_oid oid;
	size_t alloc = 0, palloc = 0, np = 0, i, k;
	int ret = 0, r;

	memset(w, 0, sizeof(*w));
	if (git_revwalk_new(&rw, repo) < 0)
		return git_fail(KB_ERROR, "cannot walk history");
	git_revwalk_sorting(rw, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
	if (first_parent)
		git_revwalk_simplify_first_parent(rw);
	if (git_revwalk_push(rw, bad) < 0) {
		ret = git_fail(KB_ERROR, "cannot walk history");
		goto out;
	}
	for (i = 0; i < ngoods; i++)
		if (git_revwalk_hide(rw, &goods[i]) < 0) {
			ret = git_fail(KB_ERROR, "cannot walk history");
			goto out;
		}
	while ((r = git_revwalk_next(&oid, rw)) == 0) {
		KB_ALLOC_GROW(w->oid, w->n + 1, alloc);
		git_oid_cpy(&w->oid[w->n++], &oid);
	}
	if (r != GIT_ITEROVER) {
		ret = git_fail(KB_ERROR, "cannot walk history");
		goto out;
	}
	hash_build(&w->hash, &w->hash_size, w->oid, w->n);
	w->poff = kb_malloc((w->n + 1) * sizeof(*w->poff));
	for (i = 0; i < w->n; i++) {
		git_commit *c;
		unsigned nparents;

		if (git_commit_lookup(&c, repo, &w->oid[i]) < 0) {
			ret = git_fail(KB_ERROR, "cannot read commit");
			goto out;
		}
		nparents = git_commit_parentcount(c);
		if (first_parent && nparents > 1)
			nparents = 1;
		w->poff[i] = np;
		KB_ALLOC_GROW(w->pid, np + nparents, palloc);
		for (k = 0; k < nparents; k++)
			git_oid_cpy(&w->pid[np++], git_commit_parent_id(c, (unsigned)k));
		git_commit_free(c);
	}
	w->poff[w->n] = np;
	w->pix = kb_malloc((np ? np : 1) * sizeof(*w->pix));
	for (k = 0; k < np; k++)
		w->pix[k] = hash_find(w->hash, w->hash_size, w->oid, &w->pid[k]);
out:
	git_revwalk_free(rw);
	if (ret)
		walk_release(w);
	return ret;
}

/* The ids of the given paths in a commit's tree (zero when absent). */
static int path_ids(git_repository *repo, const git_oid *commit,
		    const char *const *paths, size_t npaths, git_oid *out)
{
	git_commit *c;
	git_tree *t;
	size_t i;

	if (git_commit_lookup(&c, repo, commit) < 0)
		return git_fail(KB_ERROR, "cannot read commit");
	if (git_commit_tree(&t, c) < 0) {
		git_commit_free(c);
		return git_fail(KB_ERROR, "cannot read tree");
	}
	for (i = 0; i < npaths; i++) {
		git_tree_entry *e;

		memset(&out[i], 0, sizeof(out[i]));
		if (git_tree_entry_bypath(&e, t, paths[i]) == 0) {
			git_oid_cpy(&out[i], git_tree_entry_id(e));
			git_tree_entry_free(e);
		}
	}
	git_tree_free(t);
	git_commit_free(c);
	return 0;
}

struct idlist {
	size_t *v, n, alloc;
};

static void idlist_add(struct idlist *l, size_t x)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == x)
			return;
	KB_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = x;
}

/*
 * Keep the commits that change the paths (and BAD), with each kept
 * commit's parents rewritten to its nearest kept ancestors along the
 * followed edges.  keep[] and the parent lists come back in 'near'.
 */
static int simplify(struct walk *w, git_repository *repo, const char *const *paths,
		    unsigned char *keep, struct idlist *follow, struct idlist *near)
{
	size_t npaths = 0, i, k;
	git_oid *ids, *pids;
	unsigned char *relevant, *reach;
	int ret = 0;

	while (paths[npaths])
		npaths++;
	ids = kb_calloc(w->n * npaths, sizeof(*ids));
	pids = kb_calloc(npaths, sizeof(*pids));
	relevant = kb_calloc(w->n, 1);
	reach = kb_calloc(w->n, 1);
	for (i = 0; i < w->n && !ret; i++)
		ret = path_ids(repo, &w->oid[i], paths, npaths, &ids[i * npaths]);
	for (i = 0; i < w->n && !ret; i++) {
		size_t np = w->poff[i + 1] - w->poff[i];
		long same = -1;

		if (!np) {
			git_oid zero;

			memset(&zero, 0, sizeof(zero));
			for (k = 0; k < npaths; k++)
				if (!git_oid_equal(&ids[i * npaths + k], &zero))
					relevant[i] = 1;
			continue;
		}
		for (k = 0; k < np && same < 0 && !ret; k++) {
			size_t at = w->poff[i] + k;
			const git_oid *p;

			if (w->pix[at] >= 0) {
				p = &ids[(size_t)w->pix[at] * npaths];
			} else {
				ret = path_ids(repo, &w->pid[at], paths, npaths, pids);
				p = pids;
			}
			if (!memcmp(p, &ids[i * npaths], npaths * sizeof(*p)))
				same = (long)k;
		}
		if (same >= 0) {
			long pi = w->pix[w->poff[i] + (size_t)same];

			if (pi >= 0)
				idlist_add(&follow[i], (size_t)pi);
			continue;
		}
		relevant[i] = 1;
		for (k = 0; k < np; k++)
			if (w->pix[w->poff[i] + k] >= 0)
				idlist_add(&follow[i], (size_t)w->pix[w->poff[i] + k]);
	}
	if (ret)
		goto out;
	reach[0] = 1; /* BAD comes first in topological order */
	for (i = 0; i < w->n; i++) {
		if (!reach[i])
			continue;
		keep[i] = relevant[i] || i == 0;
		for (k = 0; k < follow[i].n; k++)
			reach[follow[i].v[k]] = 1;
	}
	for (i = w->n; i-- > 0;) {
		if (!reach[i])
			continue;
		if (keep[i]) {
			idlist_add(&near[i], i);
			continue;
		}
		for (k = 0; k < follow[i].n; k++) {
			struct idlist *up = &near[follow[i].v[k]];
			size_t j;

			for (j = 0; j < up->n; j++)
				idlist_add(&near[i], up->v[j]);
		}
	}
out:
	free(ids);
	free(pids);
	free(relevant);
	free(reach);
	return ret;
}

int kb_dag_build(struct kb_dag *dag, git_repository *repo, const git_oid *bad,
		 const git_oid *goods, size_t ngoods,
		 const struct kb_range_opts *opts)
{
	struct walk w;
	size_t i, k, n = 0;
	int ret;

	memset(dag, 0, sizeof(*dag));
	dag->repo = repo;
	if ((ret = check_goods(repo, bad, goods, ngoods)) < 0)
		return ret;
	if ((ret = walk_range(&w, repo, bad, goods, ngoods,
			      opts && opts->first_parent)) < 0)
		return ret;
	if (!w.n || !git_oid_equal(&w.oid[0], bad)) {
		walk_release(&w);
		return kb_error(KB_EINVAL, "empty range: BAD is an ancestor of a GOOD");
	}
	if (!opts || !opts->paths || !opts->paths[0]) {
		dag->oid = w.oid;
		w.oid = NULL;
		for (i = 0; i < w.n; i++) {
			kb_graph_add_node(&dag->g);
			for (k = w.poff[i]; k < w.poff[i + 1]; k++)
				if (w.pix[k] >= 0)
					kb_graph_add_parent(&dag->g, (size_t)w.pix[k]);
		}
	} else {
		unsigned char *keep = kb_calloc(w.n, 1);
		struct idlist *follow = kb_calloc(w.n, sizeof(*follow));
		struct idlist *near = kb_calloc(w.n, sizeof(*near));
		size_t *newix = kb_malloc(w.n * sizeof(*newix));

		ret = simplify(&w, repo, opts->paths, keep, follow, near);
		dag->oid = kb_malloc(w.n * sizeof(*dag->oid));
		for (i = 0; i < w.n && !ret; i++)
			if (keep[i]) {
				newix[i] = n;
				git_oid_cpy(&dag->oid[n++], &w.oid[i]);
			}
		for (i = 0; i < w.n && !ret; i++) {
			struct idlist parents = { NULL, 0, 0 };
			size_t j;

			if (!keep[i])
				continue;
			for (k = 0; k < follow[i].n; k++) {
				struct idlist *up = &near[follow[i].v[k]];

				for (j = 0; j < up->n; j++)
					idlist_add(&parents, newix[up->v[j]]);
			}
			kb_graph_add_node(&dag->g);
			for (j = 0; j < parents.n; j++)
				kb_graph_add_parent(&dag->g, parents.v[j]);
			free(parents.v);
		}
		for (i = 0; i < w.n; i++) {
			free(follow[i].v);
			free(near[i].v);
		}
		free(keep);
		free(follow);
		free(near);
		free(newix);
	}
	walk_release(&w);
	if (ret) {
		kb_dag_release(dag);
		return ret;
	}
	dag->bad = 0;
	hash_build(&dag->hash, &dag->hash_size, dag->oid, dag->g.n);
	return 0;
}

int kb_dag_from_commits(struct kb_dag *dag, git_repository *repo, const git_oid *oids,
			size_t n)
{
	size_t i;

	memset(dag, 0, sizeof(*dag));
	dag->repo = repo;
	dag->oid = kb_malloc((n ? n : 1) * sizeof(*dag->oid));
	for (i = 0; i < n; i++) {
		git_oid_cpy(&dag->oid[i], &oids[i]);
		kb_graph_add_node(&dag->g);
	}
	hash_build(&dag->hash, &dag->hash_size, dag->oid, n);
	return 0;
}

void kb_dag_release(struct kb_dag *dag)
{
	kb_graph_release(&dag->g);
	free(dag->oid);
	free(dag->hash);
	memset(dag, 0, sizeof(*dag));
}

int kb_repo_revert(git_repository *repo, const git_oid *culprit, const git_oid *onto,
		   git_oid *out, int *applied)
{
	git_commit *c = NULL, *bad = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id;
	char hex[GIT_OID_HEXSZ + 1], bhex[GIT_OID_HEXSZ + 1], *msg = NULL;
	int ret = 0;

	*applied = 0;
	if (git_commit_lookup(&c, repo, culprit) < 0 ||
	    git_commit_lookup(&bad, repo, onto) < 0) {
		ret = kb_error(KB_ERROR, "cannot read the commits to revert");
		goto out;
	}
	if (git_revert_commit(&index, repo, c, bad,
			      git_commit_parentcount(c) > 1 ? 1 : 0, NULL) < 0 ||
	    git_index_has_conflicts(index)) {
		kb_error_clear();
		goto out;
	}
	git_oid_tostr(hex, sizeof(hex), culprit);
	git_oid_tostr(bhex, sizeof(bhex), onto);
	/* the same inputs give the same commit, in any clone */
	msg = kb_asprintf("Revert \"%s\"\n\nThis reverts commit %s on top of %s,\n"
			  "to check that the regression goes with it.\n",
			  git_commit_summary(c), hex, bhex);
	if (git_index_write_tree_to(&tree_id, index, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_signature_new(&sig, "kbisect", "kbisect@localhost",
			      git_commit_time(bad), 0) < 0 ||
	    git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, 1,
			      (const git_commit **)&bad) < 0) {
		ret = kb_error(KB_ERROR, "cannot write the revert commit: %s",
			       git_error_last() ? git_error_last()->message : "?");
		goto out;
	}
	*applied = 1;
out:
	free(msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_commit_free(c);
	git_commit_free(bad);
	return ret;
}

int kb_repo_has_path(git_repository *repo, const git_oid *commit, const char *path)
{
	git_commit *c;
	git_tree *t;
	git_tree_entry *e;
	int yes = 0;

	if (git_commit_lookup(&c, repo, commit) < 0) {
		git_error_clear();
		return 0;
	}
	if (git_commit_tree(&t, c) == 0) {
		if (git_tree_entry_bypath(&e, t, path) == 0) {
			git_tree_entry_free(e);
			yes = 1;
		}
		git_tree_free(t);
	}
	git_commit_free(c);
	git_error_clear();
	return yes;
}

#define VARIANT_NAME "kbisect"
#define VARIANT_EMAIL "kbisect@localhost"
#define VARIANT_TRAILER "Kbisect-Config"

int kb_repo_variant(git_repository *repo, const git_oid *commit, const char *what,
		    const char *const *lines, git_oid *out)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	struct kb_buf msg = KB_BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	size_t i;
	int ret = 0;

	if (git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&tree, c) < 0) {
		ret = kb_error(KB_ERROR, "cannot read the commit to make a variant of");
		goto out;
	}
	git_oid_tostr(hex, sizeof(hex), commit);
	kb_buf_addf(&msg, "%s (%s)\n\nThe tree of %s, built with", git_commit_summary(c),
		    what, hex);
	for (i = 0; lines[i]; i++)
		kb_buf_addf(&msg, "%s %s", i ? "," : "", lines[i]);
	kb_buf_adds(&msg, ".\n\n");
	for (i = 0; lines[i]; i++)
		kb_buf_addf(&msg, VARIANT_TRAILER ": %s\n", lines[i]);
	/* the same inputs give the same commit, in any clone */
	if (git_signature_new(&sig, VARIANT_NAME, VARIANT_EMAIL, git_commit_time(c), 0) < 0 ||
	    git_commit_create(out, repo, NULL, sig, sig, NULL, msg.ptr, tree, 1,
			      (const git_commit **)&c) < 0)
		ret = kb_error(KB_ERROR, "cannot write the variant commit: %s",
			       git_error_last() ? git_error_last()->message : "?");
out:
	kb_buf_release(&msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(c);
	return ret;
}

int kb_repo_variant_config(git_repository *repo, const git_oid *commit, struct kb_strv *out)
{
	git_message_trailer_array tr = { 0 };
	const git_signature *who;
	git_commit *c;
	size_t i;

	if (git_commit_lookup(&c, repo, commit) < 0)
		return kb_error(KB_ERROR, "cannot read the commit to build");
	who = git_commit_committer(c);
	/* only a variant of kbisect's own: a commit of the history that
	 * happens to carry such a trailer is built as it is */
	if (git_commit_parentcount(c) == 1 && who && !strcmp(who->name, VARIANT_NAME) &&
	    !strcmp(who->email, VARIANT_EMAIL) &&
	    git_message_trailers(&tr, git_commit_message(c)) == 0) {
		for (i = 0; i < tr.count; i++)
			if (!strcmp(tr.trailers[i].key, VARIANT_TRAILER))
				kb_strv_push(out, tr.trailers[i].value);
		git_message_trailer_array_free(&tr);
	}
	git_error_clear();
	git_commit_free(c);
	return 0;
}

int kb_repo_read_path(git_repository *repo, const git_oid *commit, const char *path,
		      struct kb_buf *out, size_t max)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	int ret = 1;

	if (git_commit_lookup(&c, repo, commit) < 0 || git_commit_tree(&t, c) < 0) {
		ret = kb_error(KB_ERROR, "cannot read the tree of a commit");
		goto out;
	}
	if (git_tree_entry_bypath(&e, t, path) < 0 || git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		goto out;
	if (git_blob_lookup(&b, repo, git_tree_entry_id(e)) < 0) {
		ret = kb_error(KB_ERROR, "cannot read %s", path);
		goto out;
	}
	{
		size_t n = (size_t)git_blob_rawsize(b);

		kb_buf_add(out, git_blob_rawcontent(b), n < max ? n : max);
	}
	ret = 0;
out:
	git_error_clear();
	git_blob_free(b);
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return ret;
}
