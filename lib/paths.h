/*
 * paths.h - where kbisect keeps its files, all derived in one place from
 * the path of the database:
 *
 *   <db>                 the database
 *   <db>.lock            held by the one orchestrator at work
 *   <db>.cache/          finished kernel builds, kept beyond a session
 *   <db>.d/              the state directory:
 *     src/                 the kernel source work tree of builds
 *     kbuild/              their build directory (make O=)
 *     kbuild.variant/      that of variants: the aligned builds of a culprit
 *                          and its parent (a config of their own)
 *     build.lock           one build at a time among a pool's processes
 *     ahead/               what a child building ahead built
 *     logs/                build, setup, console and power-cycle logs
 *     runs/<id>/           the runner files of a run under way (and of one
 *                          whose output a message names)
 *     worktree/, worktree.index, worktree-<slot>/
 *                          the work trees of tests here
 *     artifact, artifact-<slot>
 *                          KBISECT_ARTIFACT: what a --build command built
 *     scratch/             KBISECT_SCRATCH
 *     setup.log
 *     vm/                  the files of VMs
 *     power-cycle.log      the last power cycle of a host over SSH
 */
#ifndef KB_PATHS_H
#define KB_PATHS_H

#include <stdint.h>

struct kb_paths {
	char *db;             /* NULL for a state directory with no database */
	char *db_lock;
	char *cache;
	char *statedir;
	char *src;
	char *kbuild;
	char *build_lock;
	char *ahead;
	char *logs;
	char *runs;
	char *worktree;
	char *worktree_index;
	char *scratch;
	char *setup_log;
	char *vm;
	char *power_cycle_log;
};

/* Every path that belongs to the database 'db_path' (absolute, so that
 * the work trees have absolute paths).  Release them after. */
void kb_paths_init(struct kb_paths *p, const char *db_path);
/* The paths of a state directory of no database ('kbisect target'):
 * db, db_lock and cache are NULL. */
void kb_paths_init_statedir(struct kb_paths *p, const char *statedir);
void kb_paths_release(struct kb_paths *p);

/* The directory of run 'id' (malloc'd). */
char *kb_paths_run_dir(const struct kb_paths *p, int64_t id);
/* The work tree of machine 'slot' of a pool (0: the first; malloc'd). */
char *kb_paths_worktree(const struct kb_paths *p, int slot);
/* Where the --build command of machine 'slot' leaves what it built
 * (KBISECT_ARTIFACT; malloc'd). */
char *kb_paths_artifact(const struct kb_paths *p, int slot);

#endif
