#include "paths.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void kb_paths_init_statedir(struct kb_paths *p, const char *statedir)
{
	memset(p, 0, sizeof(*p));
	p->statedir = kb_strdup(statedir);
	p->src = kb_asprintf("%s/src", statedir);
	p->kbuild = kb_asprintf("%s/kbuild", statedir);
	p->build_lock = kb_asprintf("%s/build.lock", statedir);
	p->ahead = kb_asprintf("%s/ahead", statedir);
	p->logs = kb_asprintf("%s/logs", statedir);
	p->runs = kb_asprintf("%s/runs", statedir);
	p->worktree = kb_asprintf("%s/worktree", statedir);
	p->worktree_index = kb_asprintf("%s/worktree.index", statedir);
	p->scratch = kb_asprintf("%s/scratch", statedir);
	p->setup_log = kb_asprintf("%s/setup.log", statedir);
	p->vm = kb_asprintf("%s/vm", statedir);
	p->power_cycle_log = kb_asprintf("%s/power-cycle.log", statedir);
}

void kb_paths_init(struct kb_paths *p, const char *db_path)
{
	char *statedir = kb_asprintf("%s.d", db_path);

	kb_paths_init_statedir(p, statedir);
	free(statedir);
	p->db = kb_strdup(db_path);
	p->db_lock = kb_asprintf("%s.lock", db_path);
	p->cache = kb_asprintf("%s.cache", db_path);
}

void kb_paths_release(struct kb_paths *p)
{
	free(p->db);
	free(p->db_lock);
	free(p->cache);
	free(p->statedir);
	free(p->src);
	free(p->kbuild);
	free(p->build_lock);
	free(p->ahead);
	free(p->logs);
	free(p->runs);
	free(p->worktree);
	free(p->worktree_index);
	free(p->scratch);
	free(p->setup_log);
	free(p->vm);
	free(p->power_cycle_log);
	memset(p, 0, sizeof(*p));
}

char *kb_paths_run_dir(const struct kb_paths *p, int64_t id)
{
	return kb_asprintf("%s/%lld", p->runs, (long long)id);
}

char *kb_paths_worktree(const struct kb_paths *p, int slot)
{
	return slot ? kb_asprintf("%s-%d", p->worktree, slot) : kb_strdup(p->worktree);
}

char *kb_paths_artifact(const struct kb_paths *p, int slot)
{
	return slot ? kb_asprintf("%s/artifact-%d", p->statedir, slot) :
		      kb_asprintf("%s/artifact", p->statedir);
}
