/*
 * session_int.h - what the session's files share and nothing else uses:
 * the pass/fail loop in session.c and the performance loop in
 * perf_session.c.
 */
#ifndef KB_SESSION_INT_H
#define KB_SESSION_INT_H

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
/* Open the target of machine 'slot' (0: --target, then the pool's). */
int kb_session_open_slot(struct kb_session *s, int slot, struct kb_target **t);
/* Build, boot and test one commit of a pass/fail bisection, and mark it. */
int kb_session_test_commit(struct kb_session *s, struct kb_target *t, size_t node);
/* The subject of a commit (malloc'd; "" when it cannot be read). */
char *kb_session_subject(struct kb_session *s, const char *sha);
/* A run whose test died with the process that ran it: its leftovers
 * killed, recorded as cut short (it runs again). */
int kb_session_interrupt_run(struct kb_session *s, struct kb_run_row *r);
/* A pass/fail bisection on the machines of the pool at once. */
int kb_pool_loop(struct kb_session *s);
void kb_session_setup_info(struct kb_session *s, json_t *o);
void kb_session_culprit_people(struct kb_session *s, json_t *o);

/* How many builds ran (cache hits left out). */
size_t kb_session_builds_total(struct kb_session *s);

/* The builder of the session's kernels for target 't': its options from
 * the spec, one build at a time among a pool's machines, building ahead
 * with the processors of this machine the test on 't' leaves. */
struct kb_builder *kb_session_builder(struct kb_session *s, struct kb_target *t);

/* Put 'sha' in place on the target and start a boot of it for 'runs' runs:
 * build, boot, benchmark setup.  0 ok (*boot set), 1 the commit was skipped (its build
 * or setup failed), negative for an error. */
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

/* Performance mode (perf_session.c). */
/* The commits likely measured after 'sha' (role "probe" or a calibration),
 * into s->next_shas. */
void kb_perf_next_candidates(struct kb_session *s, const char *sha, const char *role);
int kb_perf_loop(struct kb_session *s, struct kb_target *t);
struct kb_perf_job;
struct kb_perf_out;
/* What machine 'machine' of a pool measures next (-1: the whole), with
 * 'busy' under way elsewhere and the verification pair of each machine in
 * 'pairs' (NULL: as recorded). */
int kb_perf_decide_on(struct kb_session *s, int machine, const struct kb_perf_job *busy,
		      size_t nbusy, const signed char *pairs, struct kb_perf_out *out);
/* The verification pair each machine of a pool measures (see struct
 * kb_perf_in; recorded as events of kind "verify", machine m measures
 * pair m % 2 until then); malloc'd, one per machine. */
signed char *kb_perf_pairs(struct kb_session *s);
/* Build, boot and measure 'sha' for 'runs' runs; a commit that fails to
 * build or set up is skipped (0), at an endpoint that is an error. */
int kb_perf_measure_boot(struct kb_session *s, struct kb_target *t, const char *sha,
			 int runs);
/* Revert 'culprit' on top of BAD and record it. */
int kb_perf_make_revert(struct kb_session *s, const char *culprit);
/* A guess at the commits still to measure after the one 'out' asks for. */
int kb_perf_steps_after(const struct kb_perf_out *out);
int kb_perf_record_run(struct kb_session *s, const struct kb_run_row *started,
		       const struct kb_run_result *res);
int kb_perf_report(struct kb_session *s, json_t **out);
int kb_perf_status(struct kb_session *s, json_t *status);
/* 'kbisect compare' (perf_session.c). */
int kb_compare_loop(struct kb_session *s, struct kb_target *t);
int kb_compare_report(struct kb_session *s, json_t **out);

#endif
