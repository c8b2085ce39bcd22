/*
 * run.h - run a test command so that its result survives the orchestrator.
 *
 * kb_runner_start() forks a small runner process that starts the command in
 * a process group of its own (stdin from /dev/null, stdout and stderr to a
 * pipe the runner reads), enforces the timeout, and writes the outcome to
 * DIR/status atomically before it exits.  DIR/output holds what is kept of
 * the output (output.h: its first and its last MiB): the head as it comes,
 * the tail at most a second late, and all of it before the outcome.  The runner holds a lock on DIR/lock for its
 * whole life.  kb_runner_wait() takes that lock, so it returns when the
 * runner is gone, whether the runner is a child of this process or was
 * left behind by an orchestrator that died: a finished command's result is
 * never lost and never has to be run again.
 *
 * The argv is executed directly, never through a shell built from data.
 */
#ifndef KB_RUN_H
#define KB_RUN_H

#include <sys/types.h>

struct kb_run_spec {
	const char *const *argv; /* argv[0] is looked up in PATH */
	const char *const *env;  /* "NAME=VALUE" added to the environment */
	const char *cwd;         /* NULL: stay */
	double timeout;          /* seconds; 0 = none */
};

enum kb_run_outcome {
	KB_RUN_EXITED,      /* exit_status is valid */
	KB_RUN_SIGNALED,    /* term_signal is valid */
	KB_RUN_TIMEOUT,     /* killed after the timeout */
	KB_RUN_EXEC_FAILED, /* the command could not be started (message) */
	KB_RUN_CRASHED,     /* the kernel under test died or hung (message) */
};

struct kb_run_result {
	enum kb_run_outcome outcome;
	int exit_status;
	int term_signal;
	double seconds;
	char message[1100];
};

/* Start the runner for 'spec' in 'dir' (created 0700).  *pid is the
 * runner's pid, a child of the caller. */
int kb_runner_start(const char *dir, const struct kb_run_spec *spec, pid_t *pid);

/*
 * Wait until the runner of 'dir' is gone and read its outcome.  Returns 0
 * with *found = 1 and *res filled, or 0 with *found = 0 when no outcome was
 * written (the runner died, or never started).  'on_wait' (may be NULL) is
 * called once if the wait blocks.
 */
int kb_runner_wait(const char *dir, struct kb_run_result *res, int *found,
		   void (*on_wait)(void *ctx), void *ctx);

/* After a runner died without an outcome: kill what is left of its
 * command (its process group), so that a new run does not share the work
 * tree with an orphan. */
void kb_runner_kill_leftovers(const char *dir);

/* Reap the runner child, if it is ours, without blocking for long. */
void kb_runner_reap(pid_t pid);

/* Set in a process whose commands must die with its process group (a
 * child building ahead): commands are not given a group of their own. */
extern int kb_run_same_group;

/* Run a command to completion in the foreground, output to 'log' (NULL:
 * /dev/null).  For short helper commands, not for tests. */
int kb_run_simple(const struct kb_run_spec *spec, const char *log,
		  struct kb_run_result *res);

/* The same, calling fn(ctx, what, seconds, lines of the log so far)
 * every 'every' seconds while the command runs. */
int kb_run_simple_progress(const struct kb_run_spec *spec, const char *log,
			   struct kb_run_result *res, double every,
			   void (*fn)(void *ctx, const char *what, double seconds, long lines),
			   void *ctx, const char *what);

#endif
