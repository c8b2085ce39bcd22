/*
 * builder.h - the builder of a state directory's kernels: the options of
 * its builds, one build at a time when several processes share its build
 * tree, and a child that builds the kernels likely needed next.
 *
 * It knows nothing of sessions: what a build tells (notes for the user,
 * progress, the kernels built ahead) goes to callbacks.
 *
 * Building ahead: while one commit is booted and measured, the commits
 * likely to be tested next are built in a child process, so that the
 * bisection does not wait on the compiler.  The child builds in the same
 * work tree and build directory, which the caller does not use while it
 * boots and measures, so every build stays incremental; it runs at a
 * lower priority, and puts what it builds in the cache of finished builds,
 * where the next kb_builder_build() finds it.  A build holds a lock on its
 * build directory (build.c), so a child left behind by a kbisect that died
 * and a new build never share one.  Before it builds anything itself, the
 * builder waits for the child when the child builds the commit it needs,
 * and stops it otherwise.
 */
#ifndef KB_BUILDER_H
#define KB_BUILDER_H

#include <git2.h>
#include <sys/types.h>

#include "build.h"
#include "paths.h"

/* The most commits one child builds ahead. */
#define KB_AHEAD_MAX 4

struct kb_builder_cb {
	/* a note for the user (may be NULL) */
	void (*say)(void *ctx, const char *msg);
	/* called every few seconds while make runs (may be NULL) */
	void (*progress)(void *ctx, const char *what, double seconds, long lines);
	/* a kernel the child built ahead (what "built") or failed to build
	 * ("failed", release "-"), in 'seconds'; one found in the cache is
	 * not told (may be NULL) */
	void (*built_ahead)(void *ctx, const char *sha, const char *what, double seconds,
			    const char *release);
	void *ctx;
};

struct kb_builder {
	/* the options, set after kb_builder_init() */
	const struct kb_paths *paths; /* work tree, build dir, cache, logs (borrowed) */
	const char *repo_path;    /* the repository, opened again by the child */
	const char *kconfig;      /* base config: a file or a make target;
				   * NULL: tinyconfig */
	const char *fragments_dir; /* kbisect.config and <target>.config; NULL: none */
	const char *target;       /* the target backend's name, for its fragment */
	const char *cc_wrapper;   /* distcc, icecc... or NULL */
	int jobs;                 /* make -j; 0: the processors of this machine */
	int shared;               /* several processes build in this tree (a
				   * pool's): one build at a time among them */
	char ahead;               /* build ahead: 'a' auto, 'y' on, 'n' off */
	long test_cpus;           /* this machine's processors the test takes */
	struct kb_builder_cb cb;
	/* the child building ahead */
	pid_t ahead_pid;          /* 0: none */
	char ahead_shas[KB_AHEAD_MAX][41];
	size_t ahead_n;
};

/* A builder of the kernels of 'paths' with no options set, building
 * nothing ahead. */
void kb_builder_init(struct kb_builder *b, const struct kb_paths *paths);
/* Forget a child building ahead without stopping it
 * (kb_builder_ahead_stop() stops it). */
void kb_builder_release(struct kb_builder *b);

/*
 * Build the kernel of 'sha' from 'repo' (or find it in the cache): the
 * child building ahead is waited for when it builds 'sha' and stopped
 * otherwise, then the build waits for its turn in a shared tree.  Returns
 * as kb_build_kernel().
 */
int kb_builder_build(struct kb_builder *b, git_repository *repo, const char *sha,
		     struct kb_build_result *res);

/* The make jobs a child building ahead may use beside a test that takes
 * 'test_cpus' of this machine's processors (0: no building ahead): 'n'
 * none, 'y' what is left (at least 1), 'a' what is left when that is two
 * or more. */
int kb_build_ahead_jobs(char mode, long test_cpus);
/* The same for the builder's options. */
int kb_builder_ahead_jobs(const struct kb_builder *b);

/* Start a child on the commits in 'shas' (duplicates and empty ones left
 * out, at most KB_AHEAD_MAX), unless it gets no jobs or one still runs. */
void kb_builder_ahead_start(struct kb_builder *b, const char (*shas)[41], size_t n);
/* Collect a child that has finished (its kernels told to built_ahead). */
void kb_builder_ahead_poll(struct kb_builder *b);
/* Before a build of 'sha' here: wait for the child when it builds 'sha',
 * stop it otherwise. */
void kb_builder_ahead_wait(struct kb_builder *b, const char *sha);
/* Stop the child (and its make) and collect what it finished. */
void kb_builder_ahead_stop(struct kb_builder *b);

#endif
