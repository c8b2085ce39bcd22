#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder.h"
#include "cmd.h"

static const struct kb_cmd_help help = {
	"build", "REV [--kconfig FILE|NAME] [options]",
	"Build the kernel of a commit, or find it in the cache.",
	"The commit is checked out into a work tree of kbisect's own and built\n"
	"out of tree in a build directory kept between builds (ccache is used when\n"
	"installed); the base config (--kconfig, tinyconfig by default) is merged\n"
	"with configs/kernel/kbisect.config and the target's fragment, and\n"
	"CONFIG_LOCALVERSION is set to -kb<commit> so that the running kernel says\n"
	"which commit it is.  Finished builds (bzImage, config, System.map, the\n"
	"build log) are cached by tree, config and compiler: building the same\n"
	"commit again runs no make at all.\n"
	"Exit status: 0 built or cached, 3 the build failed (the commit's fault),\n"
	"1 an error, 2 a usage error."
};

int cmd_build(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_strv args = KB_STRV_INIT;
	const char *kconfig = "tinyconfig", *target = "local", *cc_wrapper = NULL;
	long long jobs = 0;
	struct kb_opt opts[] = {
		{ "cc-wrapper", OPT_STRING, &cc_wrapper, "PROG",
		  "compile through PROG (distcc, icecc), after ccache" },
		{ "build-jobs", OPT_INT, &jobs, "N",
		  "make -jN (default: the processors of this machine)", 1, 4096 },
		{ "kconfig", OPT_STRING, &kconfig, "FILE|NAME",
		  "base config: a file, or a make target (default tinyconfig)" },
		{ "target", OPT_STRING, &target, "SPEC",
		  "the target whose config fragment is merged in: local (default), "
		  "libvirt[:URI] or a machine file" },
		KB_CTX_OPTS(&c), { 0 }
	};
	struct kb_builder b;
	struct kb_build_result res;
	git_oid oid;
	struct kb_spec ts;
	char *frag = NULL, sha[GIT_OID_HEXSZ + 1];
	char backend[64];
	int ret;

	kb_spec_init(&ts);
	if ((ret = kb_parse_opts(&help, opts, argc, argv, &args, NULL))) {
		ret = ret == 1 ? 0 : ret;
		goto out;
	}
	if (args.n != 1) {
		ret = kb_usage_error(&help, "needs one REV");
		goto out;
	}
	if (kb_set_target(&ts, target) < 0 ||
	    (cc_wrapper && kb_build_check_wrapper(cc_wrapper) < 0))
		goto fail;
	/* the fragment is the backend's: "libvirt" for libvirt:URI */
	snprintf(backend, sizeof(backend), "%.*s",
		 (int)strcspn(kb_spec_target(&ts, 0), ":"), kb_spec_target(&ts, 0));
	if (kb_repo_open(&c.repo, c.repo_opt ? c.repo_opt : ".") < 0 ||
	    kb_repo_resolve(c.repo, args.v[0], &oid) < 0 ||
	    kb_ctx_open(&c, KB_STORE_CREATE | KB_STORE_LOCK) < 0)
		goto fail;
	if (!kb_is_kernel_tree(c.repo, &oid)) {
		kb_error(KB_EINVAL, "%s is not a Linux kernel tree", args.v[0]);
		goto fail;
	}
	frag = kb_fragments_dir();
	kb_builder_init(&b, &c.paths);
	b.kconfig = kconfig;
	b.fragments_dir = frag;
	b.target = backend;
	b.cc_wrapper = cc_wrapper;
	b.jobs = (int)jobs;
	git_oid_tostr(sha, sizeof(sha), &oid);
	ret = kb_mkdir_p(c.statedir, 0700);
	if (!ret)
		ret = kb_builder_build(&b, c.repo, sha, &res);
	kb_builder_release(&b);
	if (ret < 0)
		goto fail;
	if (res.failed) {
		fprintf(stderr, "kbisect build: the build of %s fails%s:\n%s\n", args.v[0],
			res.cached ? " (a failure kept in the cache)" : "", res.error);
		ret = KB_EXIT_NO_CULPRIT;
		goto out;
	}
	printf("%s %s\nrelease %s\nartifacts %s\n", res.cached ? "cached" : "built",
	       args.v[0], res.release, res.dir);
	if (res.signature[0])
		printf("signature %s\n", res.signature);
	if (!res.cached)
		printf("seconds %.1f\n", res.seconds);
	ret = 0;
	goto out;
fail:
	ret = kb_fail("build");
out:
	kb_spec_release(&ts);
	free(frag);
	kb_strv_clear(&args);
	kb_ctx_release(&c);
	return ret;
}
