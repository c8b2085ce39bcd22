#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "dag.h"
#include "repo.h"
#include "test.h"
#include "util.h"

/*
 *   r - a1 - a2 ------- m - a4        (main)
 *         \            /
 *          b1 - b2 - b3               (side; b2 touches dir/)
 * a2 touches dir/ too; a1 and a4 touch other/.
 */
struct hist {
	git_repository *r;
	git_oid root, a1, a2, b1, b2, b3, m, a4;
};

static int make_hist(struct hist *h)
{
	char *p = kb_asprintf("%s/repo", kb_test_dir());

	h->r = trepo_init(p);
	free(p);
	if (!h->r)
		return -1;
	return trepo_commit(h->r, &h->root, NULL, 0, "README", "x\n", "root") ||
	       trepo_commit(h->r, &h->a1, &h->root, 1, "other/a1", "1\n", "a1") ||
	       trepo_commit(h->r, &h->a2, &h->a1, 1, "dir/a2", "2\n", "a2") ||
	       trepo_commit(h->r, &h->b1, &h->a1, 1, "side/b1", "1\n", "b1") ||
	       trepo_commit(h->r, &h->b2, &h->b1, 1, "dir/b2", "2\n", "b2") ||
	       trepo_commit(h->r, &h->b3, &h->b2, 1, "side/b3", "3\n", "b3") ||
	       trepo_commit(h->r, &h->m, (git_oid[]){ h->a2, h->b3 }, 2, "dir/b2", "2\n",
			    "merge") ||
	       trepo_commit(h->r, &h->a4, &h->m, 1, "other/a4", "4\n", "a4") ? -1 : 0;
}

static int has(const struct kb_dag *d, const git_oid *o)
{
	return kb_dag_find(d, o) >= 0;
}

TEST(test_dag__range_and_parents)
{
	struct hist h;
	struct kb_dag d;
	long m, a2, b3;

	CHECK(make_hist(&h) == 0);
	CHECK(kb_dag_build(&d, h.r, &h.a4, &h.a1, 1, NULL) == 0);
	/* a2 b1 b2 b3 m a4 */
	CHECK(d.g.n == 6);
	CHECK(!has(&d, &h.a1) && !has(&d, &h.root));
	CHECK(git_oid_equal(&d.oid[d.bad], &h.a4));
	m = kb_dag_find(&d, &h.m);
	a2 = kb_dag_find(&d, &h.a2);
	b3 = kb_dag_find(&d, &h.b3);
	CHECK(m >= 0 && kb_graph_nparents(&d.g, (size_t)m) == 2);
	CHECK(kb_graph_parent(&d.g, (size_t)m, 0) == (size_t)a2);
	CHECK(kb_graph_parent(&d.g, (size_t)m, 1) == (size_t)b3);
	/* parents come after children */
	for (size_t i = 0; i < d.g.n; i++)
		for (size_t k = 0; k < kb_graph_nparents(&d.g, i); k++)
			CHECK(kb_graph_parent(&d.g, i, k) > i);
	kb_dag_release(&d);
	/* two GOODs */
	CHECK(kb_dag_build(&d, h.r, &h.a4, (git_oid[]){ h.a2, h.b2 }, 2, NULL) == 0);
	CHECK(d.g.n == 3 && has(&d, &h.b3) && has(&d, &h.m) && !has(&d, &h.b1));
	kb_dag_release(&d);
	git_repository_free(h.r);
}

TEST(test_dag__bad_ranges)
{
	struct hist h;
	struct kb_dag d;

	CHECK(make_hist(&h) == 0);
	CHECK(kb_dag_build(&d, h.r, &h.a2, &h.b1, 1, NULL) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "is not an ancestor of BAD"));
	CHECK(kb_dag_build(&d, h.r, &h.a1, &h.a4, 1, NULL) == KB_EINVAL);
	CHECK(kb_dag_build(&d, h.r, &h.a1, &h.a1, 1, NULL) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "same commit"));
	git_repository_free(h.r);
}

TEST(test_dag__first_parent)
{
	struct hist h;
	struct kb_dag d;
	struct kb_range_opts o = { NULL, 1 };

	CHECK(make_hist(&h) == 0);
	CHECK(kb_dag_build(&d, h.r, &h.a4, &h.a1, 1, &o) == 0);
	CHECK(d.g.n == 3 && has(&d, &h.a2) && has(&d, &h.m) && !has(&d, &h.b2));
	kb_dag_release(&d);
	git_repository_free(h.r);
}

TEST(test_dag__paths)
{
	struct hist h;
	struct kb_dag d;
	const char *dir[] = { "dir", NULL }, *other[] = { "other", NULL };
	struct kb_range_opts o = { dir, 0 };
	long m, a2, b2;

	CHECK(make_hist(&h) == 0);
	CHECK(kb_dag_build(&d, h.r, &h.a4, &h.root, 1, &o) == 0);
	/* a2 and b2 change dir/, the merge m differs from both parents there,
	 * a4 is BAD and always kept */
	CHECK(has(&d, &h.a2) && has(&d, &h.b2) && has(&d, &h.m) && has(&d, &h.a4));
	CHECK(!has(&d, &h.b1) && !has(&d, &h.b3) && !has(&d, &h.a1));
	CHECK(d.g.n == 4);
	m = kb_dag_find(&d, &h.m);
	a2 = kb_dag_find(&d, &h.a2);
	b2 = kb_dag_find(&d, &h.b2);
	/* the merge's parents are rewritten to the nearest kept commits */
	CHECK(kb_graph_nparents(&d.g, (size_t)m) == 2);
	CHECK(kb_graph_parent(&d.g, (size_t)m, 0) == (size_t)a2);
	CHECK(kb_graph_parent(&d.g, (size_t)m, 1) == (size_t)b2);
	kb_dag_release(&d);
	/* other/: the merge is TREESAME to its first parent there and follows
	 * only it, so the side branch drops out */
	o.paths = other;
	CHECK(kb_dag_build(&d, h.r, &h.a4, &h.root, 1, &o) == 0);
	CHECK(has(&d, &h.a4) && has(&d, &h.a1) && !has(&d, &h.m) && !has(&d, &h.b1));
	CHECK(d.g.n == 2);
	kb_dag_release(&d);
	git_repository_free(h.r);
}

TEST(test_dag__resolve)
{
	struct hist h;
	git_oid o;
	char hex[GIT_OID_HEXSZ + 1];
	git_reference *ref;

	CHECK(make_hist(&h) == 0);
	CHECK(git_reference_create(&ref, h.r, "refs/tags/v5.15", &h.a2, 0, NULL) == 0);
	git_reference_free(ref);
	CHECK(kb_repo_resolve(h.r, "v5.15", &o) == 0 && git_oid_equal(&o, &h.a2));
	git_oid_tostr(hex, 9, &h.b3);
	CHECK(kb_repo_resolve(h.r, hex, &o) == 0 && git_oid_equal(&o, &h.b3));
	CHECK(kb_repo_resolve(h.r, "v9.99", &o) == KB_ENOTFOUND);
	CHECK(strstr(kb_error_last(), "unknown revision 'v9.99'"));
	CHECK(kb_repo_resolve(h.r, "", &o) == KB_EINVAL);
	git_repository_free(h.r);
}

TEST(test_dag__variant)
{
	static const char *const lines[] = { "CONFIG_EXPERT=y",
					     "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y", NULL };
	struct hist h;
	struct kb_strv cfg = KB_STRV_INIT;
	struct kb_buf text = KB_BUF_INIT;
	git_commit *v, *c;
	git_oid o, o2, fake;

	CHECK(make_hist(&h) == 0);
	CHECK(kb_repo_variant(h.r, &h.b2, "64-byte function alignment", lines, &o) == 0);
	/* the same tree, on top of the commit, its lines as trailers */
	CHECK(git_commit_lookup(&v, h.r, &o) == 0 && git_commit_lookup(&c, h.r, &h.b2) == 0);
	CHECK(git_oid_equal(git_commit_tree_id(v), git_commit_tree_id(c)));
	CHECK(git_commit_parentcount(v) == 1 && git_oid_equal(git_commit_parent_id(v, 0), &h.b2));
	CHECK(strstr(git_commit_summary(v), "b2 (64-byte function alignment)"));
	git_commit_free(v);
	git_commit_free(c);
	CHECK(kb_repo_variant_config(h.r, &o, &cfg) == 0 && cfg.n == 2);
	CHECK(!strcmp(cfg.v[0], lines[0]) && !strcmp(cfg.v[1], lines[1]));
	kb_strv_clear(&cfg);
	/* the same again, in any clone */
	CHECK(kb_repo_variant(h.r, &h.b2, "64-byte function alignment", lines, &o2) == 0 &&
	      git_oid_equal(&o, &o2));
	/* a commit of the history is built as it is, trailers or not */
	CHECK(kb_repo_variant_config(h.r, &h.b2, &cfg) == 0 && cfg.n == 0);
	CHECK(trepo_commit(h.r, &fake, &h.a4, 1, "x", "y\n",
			   "x\n\nKbisect-Config: CONFIG_EXPERT=y") == 0);
	CHECK(kb_repo_variant_config(h.r, &fake, &cfg) == 0 && cfg.n == 0);
	/* a path's text */
	CHECK(kb_repo_read_path(h.r, &h.b2, "dir/b2", &text, 100) == 0 && !strcmp(text.ptr, "2\n"));
	CHECK(kb_repo_read_path(h.r, &h.b2, "dir/none", &text, 100) == 1);
	kb_buf_release(&text);
	git_repository_free(h.r);
}

/* GOOD and BAD built aligned: variants of the two, as a culprit's and its
 * parent's are made, and the very commits those are where GOOD is the
 * culprit's parent; none, and why, where a tree lacks the option. */
TEST(test_dag__aligned_ends)
{
	git_repository *r;
	git_oid a, b, c, gv, bv, pv, cv, none;
	git_commit *v;
	struct kb_strv cfg = KB_STRV_INIT;
	char *dir = kb_asprintf("%s/ends", kb_test_dir()), why[256] = "";

	r = trepo_init(dir);
	CHECK(r != NULL);
	CHECK(trepo_commit(r, &none, NULL, 0, "README", "x\n", "base") == 0);
	CHECK(trepo_commit(r, &a, &none, 1, "lib/Kconfig.debug",
			   "config DEBUG_X\n\tbool\n\nconfig DEBUG_FORCE_FUNCTION_ALIGN_64B\n"
			   "\tbool \"Force all function address 64B aligned\"\n", "good") == 0);
	CHECK(trepo_commit(r, &b, &a, 1, "mm/x.c", "int x;\n", "middle") == 0);
	CHECK(trepo_commit(r, &c, &b, 1, "mm/x.c", "int x, y;\n", "bad") == 0);
	CHECK(kb_build_aligned_ends(r, &a, &c, &gv, &bv, why, sizeof(why)) == 0);
	CHECK(git_commit_lookup(&v, r, &gv) == 0);
	CHECK(git_commit_parentcount(v) == 1 && git_oid_equal(git_commit_parent_id(v, 0), &a));
	git_commit_free(v);
	CHECK(git_commit_lookup(&v, r, &bv) == 0);
	CHECK(git_commit_parentcount(v) == 1 && git_oid_equal(git_commit_parent_id(v, 0), &c));
	git_commit_free(v);
	CHECK(kb_repo_variant_config(r, &bv, &cfg) == 0 && cfg.n == 2 &&
	      !strcmp(cfg.v[1], "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y"));
	kb_strv_clear(&cfg);
	/* GOOD's variant is the aligned parent of a culprit whose parent it is */
	CHECK(kb_build_aligned(r, &b, &pv, &cv, why, sizeof(why)) == 0);
	CHECK(git_oid_equal(&pv, &gv) && !git_oid_equal(&cv, &bv));
	/* a GOOD whose tree has no such option */
	CHECK(kb_build_aligned_ends(r, &none, &c, &gv, &bv, why, sizeof(why)) == 1);
	CHECK_MSG(strstr(why, "the tree of GOOD has no CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B"),
		  "%s", why);
	git_repository_free(r);
	free(dir);
}
