/*
 * target.h - where a commit is tested: one ops struct, one backend each.
 *
 * A backend's private state embeds struct kb_target first.  The engine
 * calls, per commit: prepare (put the commit in place: check out, build,
 * upload), boot (start boot number N of it), run_start/run_wait (one run
 * of a command, crash-safe: see run.h), and cleanup once per session start
 * or resume to remove what a crashed orchestrator left behind.
 *
 * Errors: a failure of the harness (VM would not start, host unreachable,
 * disk full) returns KB_EINFRA and never becomes a mark on the commit.
 */
#ifndef KB_TARGET_H
#define KB_TARGET_H

#include <git2.h>
#include <sys/types.h>

#include "run.h"

struct kb_target_env {
	git_repository *repo;
	const char *statedir;     /* private directory of the session */
	const char *session_name; /* names leftovers, e.g. "kbisect-3" */
};

struct kb_target;

struct kb_target_ops {
	const char *name;
	int (*open)(struct kb_target **out, const char *spec,
		    const struct kb_target_env *env);
	int (*prepare)(struct kb_target *t, const git_oid *commit);
	int (*boot)(struct kb_target *t, const git_oid *commit, int boot);
	int (*run_start)(struct kb_target *t, const struct kb_run_spec *spec,
			 const char *rundir, pid_t *pid);
	int (*run_wait)(struct kb_target *t, const char *rundir,
			struct kb_run_result *res, int *found);
	int (*cleanup)(struct kb_target *t);
	void (*close)(struct kb_target *t);
};

struct kb_target {
	const struct kb_target_ops *ops;
	char *spec;
	char *workdir; /* where commands run on this machine, or NULL */
	const char *kernel_dir; /* the build to boot: bzImage, config, release */
};

extern const struct kb_target_ops kb_target_local;

/* Open the backend that 'spec' names ("local", ...). */
int kb_target_open(struct kb_target **out, const char *spec,
		   const struct kb_target_env *env);
void kb_target_close(struct kb_target *t);

#endif
