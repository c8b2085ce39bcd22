/*
 * build.h - kernel builds: a work tree and a build directory of kbisect's
 * own, out-of-tree builds kept between commits (so a one-file change
 * rebuilds in seconds), ccache when it is there, and a cache of finished
 * builds keyed by (tree, config, compiler) with a size limit.
 *
 * A build that fails is the kernel's fault (the commit is skipped, with the
 * last error lines); a build that cannot run at all (no make, no compiler,
 * a full disk) is the harness's: KB_EINFRA.
 */
#ifndef KB_BUILD_H
#define KB_BUILD_H

#include <git2.h>
#include <limits.h>

struct kb_build_opts {
	const char *kconfig;        /* base config: a file, or a make target such
				     * as "tinyconfig" or "defconfig" */
	const char *fragments_dir;  /* configs/kernel: kbisect.config and
				     * <target>.config are merged in */
	const char *target;         /* the target's name, for its fragment */
	const char *workdir;        /* where the source is checked out */
	const char *builddir;       /* make O= */
	const char *cache_dir;      /* finished builds */
	const char *log_dir;
	unsigned long long cache_limit; /* bytes; 0 = no limit */
	int jobs;                   /* 0 = the number of processors */
	const char *cc_wrapper;     /* distcc, icecc...: compiles go through it
				     * (after ccache, when there is one) */
	/* called every few seconds while make runs */
	void (*progress)(void *ctx, const char *what, double seconds, long lines);
	/* a note for the user (may be NULL) */
	void (*say)(void *ctx, const char *msg);
	void *ctx;
};

struct kb_build_result {
	char dir[PATH_MAX];         /* bzImage, config, System.map, build.log,
				       modules/lib/modules/RELEASE with modules */
	char release[256];          /* the kernel's 'uname -r' */
	char key[41];               /* the cache key */
	char signature[41];         /* what the kernel loads, its version strings
				     * masked (kb_kernel_signature()): "" when
				     * not known (a build of an older kbisect) */
	int cached;                 /* 1: found in the cache, make not run */
	int failed;                 /* 1: the build failed (the commit's fault) */
	char error[1024];           /* its last error lines */
	double seconds;
};

/* Is the tree of 'commit' a Linux kernel source tree? */
int kb_is_kernel_tree(git_repository *repo, const git_oid *commit);

/* A compiler wrapper fit for CC: a program name or path (no blanks or
 * shell characters), found in PATH.  KB_EINVAL with what to do. */
int kb_build_check_wrapper(const char *wrapper);

int kb_build_kernel(git_repository *repo, const git_oid *commit,
		    const struct kb_build_opts *o, struct kb_build_result *res);

/*
 * Does the end of a build's log say that make or the compiler was killed
 * by a signal ("make[2]: *** [...] Terminated", a compiler the OOM killer
 * ended) rather than that the code does not build?  Such a build is no
 * fault of its commit: it is not kept as a failure.
 */
int kb_build_log_killed(const char *tail);

/* The LOCALVERSION a build of 'sha' gets: "-kb" and 12 hex digits. */
void kb_build_localversion(char out[20], const char *sha);

/*
 * The signature of a kernel (signature.h): of 'vmlinux' and of every module
 * (*.ko*) under 'modules' (the directory of its release, NULL: none), with
 * its release and LOCALVERSION masked, so that the kernels of two commits
 * that build the same code and data have the same signature.  The build's
 * other stamps are fixed (KBUILD_BUILD_VERSION, _TIMESTAMP, _USER, _HOST).
 * A kernel whose release has another length (a commit that changes the
 * version), or that holds its config compressed (CONFIG_IKCONFIG: the
 * LOCALVERSION is in it), has a signature of its own.  A build keeps it in
 * the file 'signature' of its directory in the cache.
 */
int kb_kernel_signature(const char *vmlinux, const char *modules, const char *release,
			char out[41]);

/*
 * The rebuild check: the kernel's own option that aligns every function
 * to 64 bytes, so that a change elsewhere does not move the code of a hot
 * path (a step of code layout, not of what the code does, vanishes with
 * it).
 */
#define KB_ALIGN_OPTION "CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B"

/*
 * The variants of 'culprit' and of its first parent built with
 * KB_ALIGN_OPTION (and CONFIG_EXPERT, which it needs), as commits of their
 * own (kb_repo_variant()).  1, with 'why', when the trees do not have the
 * option.
 */
int kb_build_aligned(git_repository *repo, const git_oid *culprit, git_oid *parent_variant,
		     git_oid *variant, char *why, size_t whysize);
/* The same for GOOD and BAD: the variants of 'good' and of 'bad'. */
int kb_build_aligned_ends(git_repository *repo, const git_oid *good, const git_oid *bad,
			  git_oid *good_variant, git_oid *bad_variant, char *why, size_t whysize);
/* The same for one commit, named 'name' in 'why'. */
int kb_build_aligned_one(git_repository *repo, const git_oid *commit, const char *name,
			 git_oid *variant, char *why, size_t whysize);

#endif
