/* The local target: the commit's tree checked out in a work tree kbisect
 * owns, commands run there on this machine.  No kernel is booted; a "boot"
 * is a fresh start of the runner. */
#include <stdlib.h>
#include <string.h>

#include "target.h"
#include "util.h"
#include "worktree.h"

struct local_target {
	struct kb_target base;
	git_repository *repo;
};

static int local_open(struct kb_target **out, const char *spec,
		      const struct kb_target_env *env, json_t *machine)
{
	struct local_target *t;

	if (strcmp(spec, "local"))
		return kb_error(KB_EINVAL, "target 'local' takes no options (got '%s')", spec);
	t = kb_calloc(1, sizeof(*t));
	kb_target_init(&t->base, &kb_target_local, spec, env);
	t->base.workdir = kb_paths_worktree(env->paths, env->slot);
	t->repo = env->repo;
	*out = &t->base;
	return 0;
}

static int local_prepare(struct kb_target *base, const git_oid *commit)
{
	struct local_target *t = (struct local_target *)base;

	return kb_worktree_checkout(t->repo, base->workdir, commit);
}

static int local_run_start(struct kb_target *base, const struct kb_run_spec *spec,
			   const char *rundir, pid_t *pid)
{
	struct kb_run_spec s = *spec;

	s.cwd = base->workdir;
	return kb_runner_start(rundir, &s, pid);
}

static int local_run_wait(struct kb_target *base, const char *rundir,
			  struct kb_run_result *res, int *found)
{
	return kb_runner_wait(rundir, res, found, NULL, NULL);
}

static void local_close(struct kb_target *base)
{
	free(base->spec);
	free(base->workdir);
	free(base);
}

const struct kb_target_ops kb_target_local = {
	.name = "local",
	.keys = kb_target_local_keys,
	.open = local_open,
	.prepare = local_prepare,
	.run_start = local_run_start,
	.run_wait = local_run_wait,
	.close = local_close,
};
