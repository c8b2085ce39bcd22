/*
 * store.h - the state database (sqlite).
 *
 * One database holds sessions; at most one session is active.  A session's
 * settings are one JSON document (spec) written when it starts; everything
 * that happens after is rows: marks, runs (one per execution of the test,
 * written as 'started' before it begins and completed after, with the
 * values of the benchmark's secondary metrics), events
 * (event.h), the reverts made, the aligned builds and the verification
 * pairs of a pool.
 * Each change is one transaction, so a crash at any moment leaves the
 * database as it was before or after a step, never between.
 *
 * The database is in WAL mode with full sync and mode 0600.  An orchestrator
 * (anything that runs tests or writes marks) opens it with KB_STORE_LOCK:
 * a lock on "<db>.lock" that a second orchestrator cannot take; the kernel
 * drops it when the holder dies, even by SIGKILL.
 */
#ifndef KB_STORE_H
#define KB_STORE_H

#include <stdint.h>

#include "util.h"

#define KB_STORE_SCHEMA 6

enum {
	KB_STORE_CREATE = 1, /* create the file when missing */
	KB_STORE_LOCK = 2,   /* take the orchestrator lock */
};

struct kb_store;

int kb_store_open(struct kb_store **out, const char *path, int flags);
void kb_store_close(struct kb_store *s);
const char *kb_store_path(const struct kb_store *s);

int kb_store_begin(struct kb_store *s);
int kb_store_commit(struct kb_store *s);
void kb_store_rollback(struct kb_store *s);

struct kb_session_row {
	int64_t id;
	double created;
	char *state;   /* "active", "done", "ended", "compare" */
	char *spec;    /* JSON */
	char *verdict; /* JSON or NULL */
};
void kb_session_row_release(struct kb_session_row *r);

/* The active session (KB_ENOSESSION when there is none). */
int kb_store_session_active(struct kb_store *s, struct kb_session_row *out);
/* The newest bisection, active or not, comparisons left out
 * (KB_ENOSESSION when there is none). */
int kb_store_session_latest(struct kb_store *s, struct kb_session_row *out);
int kb_store_session_create(struct kb_store *s, const char *spec, int64_t *id);
/* A session in another state: "compare" for 'kbisect compare', which does
 * not count as the active session. */
int kb_store_session_create_as(struct kb_store *s, const char *spec, const char *state,
			       int64_t *id);
/* The newest unfinished comparison (KB_ENOSESSION when there is none). */
int kb_store_session_compare(struct kb_store *s, struct kb_session_row *out);
int kb_store_session_finish(struct kb_store *s, int64_t id, const char *state,
			    const char *verdict);
/* Replace the settings (JSON) of session 'id'. */
int kb_store_session_set_spec(struct kb_store *s, int64_t id, const char *spec);

struct kb_mark_row {
	int64_t id;
	char sha[41];
	char mark;          /* 'g', 'b', 's' */
	char source[16];    /* "test", "manual", "replay" */
	double created;
	int64_t run;        /* the run that decided it, 0 if none */
};
int kb_store_mark_add(struct kb_store *s, int64_t session, const char *sha,
		      char mark, const char *source, int64_t run);
/* Remove the marks of 'sha' from 'source'; returns how many, or negative. */
int kb_store_marks_remove(struct kb_store *s, int64_t session, const char *sha,
			  const char *source);
int kb_store_marks(struct kb_store *s, int64_t session, struct kb_mark_row **out,
		   size_t *n);

enum kb_run_state {
	KB_RUN_STARTED,     /* written before the test began */
	KB_RUN_DONE,        /* result recorded */
	KB_RUN_INTERRUPTED, /* the orchestrator died and the result was lost */
	KB_RUN_ABORTED,     /* the test asked to stop, or the harness failed */
};

/* The value of one of the benchmark's secondary metrics in a run. */
struct kb_run_metric {
	char *name;
	int has_value;      /* 0: the run's output did not have it */
	double value;
};

struct kb_run_row {
	int64_t id;
	char sha[41];
	int boot, run;
	enum kb_run_state state;
	double started, finished;
	int exit_status;    /* -1 if killed by a signal or not finished */
	int term_signal;
	int timed_out;
	int has_value;
	double value;
	char *output_tail;
	char *dir;          /* where the runner keeps its files */
	int machine;        /* the machine of the pool it ran on (0: --target) */
	/* its secondary metrics: written with the outcome, read back by
	 * kb_store_runs() (none for runs of a database before schema 4) */
	struct kb_run_metric *metrics;
	size_t nmetrics;
};
/* Free rows of kb_store_runs(), their metrics included. */
void kb_run_rows_free(struct kb_run_row *rows, size_t n);

int kb_store_run_start(struct kb_store *s, int64_t session, const char *sha,
		       int boot, int run, const char *dir, int64_t *id);
/* The machine of a pool that the runs started from now on run on. */
void kb_store_set_machine(struct kb_store *s, int machine);
/* Record the outcome of a started run (state, exit, value, tail, and the
 * secondary metrics r->metrics). */
int kb_store_run_finish(struct kb_store *s, const struct kb_run_row *r);
/* Record the values of secondary metrics of run 'run' (a metric recorded
 * already gets the value given). */
int kb_store_run_metrics_set(struct kb_store *s, int64_t run,
			     const struct kb_run_metric *m, size_t n);
int kb_store_runs(struct kb_store *s, int64_t session, struct kb_run_row **out,
		  size_t *n);

int kb_store_event(struct kb_store *s, int64_t session, const char *kind,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

struct kb_event_row {
	int64_t id;
	double ts;
	char *kind, *detail;
};
int kb_store_events(struct kb_store *s, int64_t session, struct kb_event_row **out,
		    size_t *n);
void kb_event_rows_free(struct kb_event_row *rows, size_t n);

const char *kb_run_state_name(enum kb_run_state st);

/* The reverts of likely culprits made on top of BAD, oldest first: of
 * which culprit, and the revert commit ("" when it did not apply). */
struct kb_revert_row {
	char culprit[41];
	char sha[41];
};
int kb_store_revert_add(struct kb_store *s, int64_t session, const char *culprit,
			const char *sha);
int kb_store_reverts(struct kb_store *s, int64_t session, struct kb_revert_row **out,
		     size_t *n);

/* The builds of likely culprits and their parents with 64-byte function
 * alignment (variants, kb_repo_variant()), oldest first: of which culprit,
 * and the two variants ("" when they could not be made, and why). */
struct kb_aligned_row {
	char culprit[41];
	char parent_sha[41];
	char sha[41];
	char why[256];        /* when they were not made */
};
int kb_store_aligned_add(struct kb_store *s, int64_t session, const char *culprit,
			 const char *parent_sha, const char *sha, const char *why);
int kb_store_aligned(struct kb_store *s, int64_t session, struct kb_aligned_row **out,
		     size_t *n);

/* GOOD and BAD built with 64-byte function alignment, where an ending with
 * no culprit confirmed asks whether their change is more than the code
 * layout of builds: the two variants ("" when they could not be made, and
 * why).  1 when they were asked for, into *out; 0 when not. */
struct kb_aligned_ends_row {
	char good_sha[41], bad_sha[41];   /* the commits */
	char good_variant[41], bad_variant[41];
	char why[256];
};
int kb_store_aligned_ends_add(struct kb_store *s, int64_t session,
			      const struct kb_aligned_ends_row *row);
int kb_store_aligned_ends(struct kb_store *s, int64_t session, struct kb_aligned_ends_row *out);

/* The verification pair each machine of a pool measures (see struct
 * kb_perf_in): set for machines 0 to n - 1 at once; read into 'pairs',
 * whose entries of machines with none recorded are left as they are. */
int kb_store_set_pairs(struct kb_store *s, int64_t session, const signed char *pairs,
		       size_t n);
int kb_store_pairs(struct kb_store *s, int64_t session, signed char *pairs, size_t n);

#endif
