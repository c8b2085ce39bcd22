#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "test.h"
#include "util.h"

TEST(test_paths__every_path_from_the_database)
{
	struct kb_paths p;
	char *run, *wt0, *wt2;

	kb_paths_init(&p, "/r/.git/kbisect.db");
	CHECK(!strcmp(p.db, "/r/.git/kbisect.db"));
	CHECK(!strcmp(p.db_lock, "/r/.git/kbisect.db.lock"));
	CHECK(!strcmp(p.cache, "/r/.git/kbisect.db.cache"));
	CHECK(!strcmp(p.statedir, "/r/.git/kbisect.db.d"));
	CHECK(!strcmp(p.src, "/r/.git/kbisect.db.d/src"));
	CHECK(!strcmp(p.kbuild, "/r/.git/kbisect.db.d/kbuild"));
	CHECK(!strcmp(p.build_lock, "/r/.git/kbisect.db.d/build.lock"));
	CHECK(!strcmp(p.ahead, "/r/.git/kbisect.db.d/ahead"));
	CHECK(!strcmp(p.logs, "/r/.git/kbisect.db.d/logs"));
	CHECK(!strcmp(p.worktree_index, "/r/.git/kbisect.db.d/worktree.index"));
	CHECK(!strcmp(p.scratch, "/r/.git/kbisect.db.d/scratch"));
	CHECK(!strcmp(p.vm, "/r/.git/kbisect.db.d/vm"));
	CHECK(!strcmp(p.power_cycle_log, "/r/.git/kbisect.db.d/power-cycle.log"));
	run = kb_paths_run_dir(&p, 42);
	wt0 = kb_paths_worktree(&p, 0);
	wt2 = kb_paths_worktree(&p, 2);
	CHECK(!strcmp(run, "/r/.git/kbisect.db.d/runs/42"));
	CHECK(!strcmp(wt0, "/r/.git/kbisect.db.d/worktree"));
	CHECK(!strcmp(wt2, "/r/.git/kbisect.db.d/worktree-2"));
	free(run);
	free(wt0);
	free(wt2);
	wt0 = kb_paths_artifact(&p, 0);
	wt2 = kb_paths_artifact(&p, 2);
	CHECK(!strcmp(wt0, "/r/.git/kbisect.db.d/artifact"));
	CHECK(!strcmp(wt2, "/r/.git/kbisect.db.d/artifact-2"));
	free(wt0);
	free(wt2);
	kb_paths_release(&p);
	/* a state directory of no database has no cache */
	kb_paths_init_statedir(&p, "/tmp/k");
	CHECK(!p.db && !p.cache && !strcmp(p.vm, "/tmp/k/vm"));
	kb_paths_release(&p);
}
