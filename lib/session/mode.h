/*
 * mode.h - the ways a session decides what to test: one ops struct, one
 * file each (passfail.c, flaky.c, performance.c, compare.c), listed in one table
 * (mode.c).
 *
 * The session core (session.c) opens, loads, boots, runs and records; it
 * calls a mode only through s->mode.  A mode asks the core to boot, run
 * and record.  The loop that drives a mode on one machine (loop.c) and the
 * pool scheduler (pool.c) ask the mode's plan() what to do next and hand
 * each job to its work(), in this process or in a process of a machine of
 * the pool.
 */
#ifndef KB_MODE_H
#define KB_MODE_H

#include "session_int.h"

/* One piece of work for one machine: a commit to test (pass/fail), or a
 * boot of a commit with 'runs' runs (performance, compare). */
struct kb_job {
	char sha[41];
	size_t node;        /* pass/fail: the commit's node */
	int runs;           /* runs of the boot */
	char role[16];      /* performance: what it is measured as ("probe"...) */
	int machine;        /* the machine of the pool it is for (0: the first) */
};

/* What plan() is told: the jobs under way, the machines free for more,
 * and how the pool fares. */
struct kb_plan_in {
	const struct kb_job *busy;
	size_t nbusy;
	const int *free;    /* the free machines, in order; one (0) without a pool */
	size_t nfree;
	int active;         /* machines in service */
	double took;        /* the mean time a job took on the pool (0: none yet) */
};

enum kb_plan {
	KB_PLAN_WORK,       /* 'out' holds the jobs to start (possibly none) */
	KB_PLAN_FINISH,     /* the session has its verdict */
	KB_PLAN_STOP,       /* a stop was asked for and nothing is under way */
};

struct kb_mode_ops {
	const char *name;
	const char *resume;  /* how a stopped session goes on */
	/* Does this mode run the session of 'spec'?  The table is tried in
	 * order; the first that says yes runs it. */
	int (*wants)(const struct kb_spec *spec);
	/* One machine: the next job, in 'job'.  KB_PLAN_WORK or _FINISH, or
	 * negative for an error.  It may record what it decides on the way
	 * (a revert it makes). */
	int (*plan)(struct kb_session *s, struct kb_job *job);
	/* A pool: the jobs for the free machines (at most in->nfree, in 'out',
	 * their number in *nout), as plan() does.  NULL: the mode runs on one
	 * machine only. */
	int (*plan_pool)(struct kb_session *s, const struct kb_plan_in *in,
			 struct kb_job *out, size_t *nout);
	/* Do one job on 't': build, boot, run and record.  0, or negative. */
	int (*work)(struct kb_session *s, struct kb_target *t, const struct kb_job *job);
	/* Record the outcome of a run recorded as started (and what it
	 * decides); 0, 1 when it made the commit a skip, or negative. */
	int (*record_run)(struct kb_session *s, const struct kb_run_row *started,
			  const struct kb_run_result *res);
	/* The kernel of 'sha' did not come up for boot 'boot' (why in
	 * t->fault), through no fault of a setup command.  NULL: the commit
	 * is marked as --boot-failure says.  Else the mode records it and
	 * returns 2, which kb_session_boot() passes on (nothing to run on
	 * this boot), or negative. */
	int (*boot_failed)(struct kb_session *s, struct kb_target *t, const char *sha,
			   int boot);
	/* 'sha' was skipped before it was measured: the commits likely
	 * wanted next, into s->next_shas (for building ahead). */
	void (*skipped)(struct kb_session *s, const char *sha);
	/* The report object (version 1), and the mode's part of the status. */
	int (*report)(struct kb_session *s, json_t **out);
	int (*status)(struct kb_session *s, json_t *st);
};

/* The mode that runs the session of 'spec' (mode.c, where the table of
 * modes is). */
const struct kb_mode_ops *kb_mode_for(const struct kb_spec *spec);

/* Shared by the performance and compare modes (performance.c): a run's
 * metric recorded, one boot measured, and the status of the posterior. */
int kb_perf_record_run(struct kb_session *s, const struct kb_run_row *started,
		       const struct kb_run_result *res);
/* Build, boot and measure 'sha' for 'runs' runs; a commit that fails to
 * build or set up is skipped (0), at an endpoint that is an error. */
int kb_perf_measure_boot(struct kb_session *s, struct kb_target *t, const char *sha,
			 int runs);
int kb_perf_status(struct kb_session *s, json_t *status);
/* Revert 'culprit' on top of BAD into a commit object of its own (no ref,
 * no work tree, no index of the user's is touched), and record it, or
 * that it does not apply. */
int kb_perf_make_revert(struct kb_session *s, const char *culprit);

/* Test commits on the pool's machines at once (pool.c). */
int kb_pool_loop(struct kb_session *s);

#endif
