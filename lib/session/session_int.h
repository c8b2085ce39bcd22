/*
 * session_int.h - what the session core (session.c), the report model
 * (report.c) and the modes above them (mode.h) share, and nothing else
 * uses.
 */
#ifndef KB_SESSION_INT_H
#define KB_SESSION_INT_H

#include "event.h"
#include "output.h"
#include "run.h"
#include "session.h"

/* Give the progress callback a message, its control characters other than
 * line ends (a CR in a commit subject) turned into spaces. */
void kb_session_say(struct kb_session *s, enum kb_say_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The directory of run 'id' (runner files: output, status, lock). */
char *kb_session_run_dir(struct kb_session *s, int64_t id);
/* The number of the next boot of a commit. */
int kb_session_next_boot(struct kb_session *s, const char *sha);
/* The KBISECT_* environment of a run. */
void kb_session_env(struct kb_strv *env, struct kb_session *s, const char *sha,
		    int boot, int run);
/* A build or setup command: 0 ok, 1 failed (the commit is marked skip),
 * negative for a harness error. */
int kb_session_run_hook(struct kb_session *s, struct kb_target *t, const char *sha,
			int boot, const char *kind, const char *cmd);
/* Add "build_error" or "boot_error" to a step of 'sha' whose kernel build
 * or boot failed. */
void kb_session_build_error(struct kb_session *s, const char *sha, json_t *step);
/* Add "accel" (kvm or tcg, once a VM booted) and "machine" to a report. */
void kb_session_target_info(struct kb_session *s, json_t *o);
/* Open the target of machine 'slot' of the spec's machines (0: the first). */
int kb_session_open_slot(struct kb_session *s, int slot, struct kb_target **t);
/* The subject of a commit (malloc'd; "" when it cannot be read). */
char *kb_session_subject(struct kb_session *s, const char *sha);
/* Load the session of 'row' (taken over by the session); no mode is set. */
int kb_session_load_row(struct kb_session *s, struct kb_store *store, const char *statedir,
			struct kb_session_row *row);
/* Collect the runs an orchestrator that died left in state 'started'. */
int kb_session_recover(struct kb_session *s, struct kb_target *t);
/* Fill the end, exit status, signal and timeout of run 'r' from 'res'. */
void kb_session_run_outcome(struct kb_run_row *r, const struct kb_run_result *res);
/* Record in one transaction: the finished run 'run' (NULL: none), the
 * events 'ev', and the mark 'mark' (0: none) of 'sha' from 'source' (its
 * run is 'run'). */
int kb_session_record(struct kb_session *s, const struct kb_run_row *run,
		      const struct kb_event *ev, size_t nev, const char *sha, char mark,
		      const char *source);
/* Record a finished run in one transaction: the run, the boot failure a
 * crash stands for, the mark 'mark' (0: none) it decides, and the reason
 * 'why' (NULL: none) it stops the session. */
int kb_session_record_run(struct kb_session *s, const struct kb_run_row *r,
			  const struct kb_run_result *res, char mark, const char *why);
/* The last bytes of a run's output read by kb_output_read() (its tail, or
 * its head when it was kept whole), for the database (malloc'd). */
char *kb_session_output_last(const struct kb_buf *head, const struct kb_buf *tail);
/* A test that exited 126 or 127: the shell could not find or execute the
 * command.  Every mode stops there instead of taking it for the commit's
 * answer (a typo would mark every commit bad, or skip every one); the
 * reason goes in 'why'.  1 when it is so, else 0. */
int kb_session_cannot_run(const struct kb_run_result *res, char *why, size_t len);
/*
 * Once the outcome of run 'r' is in the database: remove its directory,
 * unless 'keep' (a message names its output, for the user to read: a run
 * that stopped the session, a benchmark that failed at a commit).
 */
void kb_session_run_tidy(struct kb_session *s, const struct kb_run_row *r, int keep);
/* Add a warning {kind, message} to a report's array. */
void kb_report_warn(json_t *warnings, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The benchmark's secondary metrics in report 'o' (nothing when it has
 * none): "metrics", for each {name, unit, direction, rows, moved, and when
 * it could be tested p, basis and change_pct}, its rows those of o's
 * "table" (label, commit) from the runs' stored values, the first
 * 'warmup' runs of each boot left out; then, when o has "warnings", a
 * warning "only-primary" when the primary metric moved and no secondary
 * one did, "secondary-moved" when one did and the primary did not.  'primary_moved': 1 or 0 as the
 * verdict says, -1 to test the primary metric as the others.
 */
void kb_report_metrics(struct kb_session *s, json_t *o, int warmup, int primary_moved);
/* A run whose test died with the process that ran it: its leftovers
 * killed, recorded as cut short (it runs again). */
int kb_session_interrupt_run(struct kb_session *s, struct kb_run_row *r);
void kb_session_setup_info(struct kb_session *s, json_t *o);
/* The verification pair each machine of a pool measures (see struct
 * kb_perf_in): as recorded, else machine m measures pair m % 2; malloc'd,
 * one per machine. */
signed char *kb_session_pairs(struct kb_session *s);
/* What a pass/fail or flaky report ends with: the runs ('runs' of them
 * done) and builds, the benchmark, the target and its setup, the range
 * and the session's state. */
void kb_report_common(struct kb_session *s, json_t *o, size_t runs);
void kb_session_culprit_people(struct kb_session *s, json_t *o);

/* How many builds ran (cache hits left out). */
size_t kb_session_builds_total(struct kb_session *s);

/* The builder of the session's kernels for target 't': its options from
 * the spec, one build at a time among a pool's machines, building ahead
 * with the processors of this machine the test on 't' leaves. */
struct kb_builder *kb_session_builder(struct kb_session *s, struct kb_target *t);

/* Put 'sha' in place on the target and build it (its kernel, or the
 * --build command) for a boot of 'runs' runs, recording the build and its
 * signature: 0 ok, with the signature in 'sig' (may be NULL; "" when the
 * build has none), 1 the commit was skipped (its build failed), negative
 * for an error.  The next kb_session_boot() of 'sha' on 't' does not
 * build it again. */
int kb_session_build_commit(struct kb_session *s, struct kb_target *t, const char *sha,
			    int runs, char sig[41]);
/* Put 'sha' in place on the target and start a boot of it for 'runs' runs:
 * build, boot, benchmark setup.  0 ok (*boot set), 1 the commit was
 * skipped (its build or setup failed, or its kernel did not come up), 2
 * the kernel did not come up and the mode recorded that as a run of its
 * own (its boot_failed), negative for an error. */
int kb_session_boot(struct kb_session *s, struct kb_target *t, const char *sha, int runs,
		    int *boot);
/* One run of the benchmark in the current boot, recorded before it starts
 * and after it ends.  0, 1 when it made the commit a skip, or negative. */
int kb_session_run_once(struct kb_session *s, struct kb_target *t, const char *sha,
			int boot, int run);
/* A commit as report JSON: commit, subject, author, date. */
json_t *kb_session_commit_json(struct kb_session *s, const git_oid *oid);

/* The make jobs a child building ahead may use while 't' tests (0: none
 * is built ahead). */
int kb_session_ahead_jobs(struct kb_session *s, struct kb_target *t);

#endif
