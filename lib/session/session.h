/*
 * session.h - a bisection session: its settings, its state rebuilt from
 * the database, and the loop that tests commits until there is a verdict.
 *
 * The state is never kept anywhere but the database: kb_session_load()
 * rebuilds the range from the repository and the marks and runs from the
 * store, so that loading after a crash gives exactly the state before it.
 */
#ifndef KB_SESSION_H
#define KB_SESSION_H

#include <jansson.h>

#include "bench.h"
#include "bisect.h"
#include "builder.h"
#include "dag.h"
#include "paths.h"
#include "store.h"
#include "target.h"

/* The test of a session that has none: its commits are marked by hand. */
#define KB_MANUAL_COMMAND "echo 'this session has no test: mark commits with kbisect " \
			  "good|bad|skip' >&2; exit 200"

/* What 'kbisect start' was asked to do; stored as JSON in the database. */
struct kb_spec {
	char *kind;             /* "bisect", or "compare" (GOOD = A, BAD = B) */
	int compare_boots;      /* compare: boots of each side */
	char *repo;             /* repository path as opened */
	struct kb_strv good_specs, good_shas;
	char *bad_spec, *bad_sha;
	struct kb_strv paths;
	int first_parent;
	double confidence;
	char *build;            /* "none", "kernel" or a shell command */
	char *kconfig;          /* kernel: base config, a file or a make target */
	char *fragments;        /* kernel: directory of config fragments */
	char *cc_wrapper;       /* kernel: distcc, icecc... or NULL */
	int build_jobs;         /* kernel: make -j (0: the processors here) */
	json_t *machines;       /* the machines it tests on, in order, several
				 * for a pool: each the object of a machine file,
				 * or {"target": SPEC} for a plain target */
	double scale;           /* KBISECT_SCALE: shrink benchmarks (1) */
	char boot_fail;         /* mark of a kernel that fails to boot: 's' or 'b' */
	char build_ahead;       /* 'a' auto (cores to spare), 'y' on, 'n' off */
	char rebuild_check;     /* kernel: a culprit and its parent built again
				 * with 64-byte function alignment: 'y', 'n' */
	struct kb_bench bench;
	unsigned long long seed;
	/* as given, for the report's "how to reproduce": --bench (a file's
	 * absolute path, or a name) and each --target (the same) */
	char *bench_arg;
	struct kb_strv target_args;
	/* git's terms: the words of the old (GOOD) and the new (BAD) state,
	 * NULL for good and bad; with others, a performance bisection finds
	 * the change from GOOD's level to BAD's whichever way it goes */
	char *term_old, *term_new;
};

/* The word of a mark ('g' or 'b') in the session's terms. */
const char *kb_spec_term(const struct kb_spec *spec, char mark);

void kb_spec_init(struct kb_spec *spec);
void kb_spec_release(struct kb_spec *spec);

/* The machines of a spec: how many (0 before one is set, more than one
 * for a pool); the target of machine 'i' ("local", "libvirt:URI",
 * "ssh://host"...); its object (borrowed); and that object when it came
 * from a machine file, NULL for a plain target. */
size_t kb_spec_nmachines(const struct kb_spec *spec);
const char *kb_spec_target(const struct kb_spec *spec, size_t i);
json_t *kb_spec_machine(const struct kb_spec *spec, size_t i);
json_t *kb_spec_machine_file(const struct kb_spec *spec, size_t i);
/* Add a machine: a machine object with its "target" (taken over), or a
 * plain target when 'm' is NULL. */
void kb_spec_add_machine(struct kb_spec *spec, json_t *m, const char *target);
/* Forget every machine. */
void kb_spec_clear_machines(struct kb_spec *spec);
/* Compact JSON text of a spec (malloc'd). */
char *kb_spec_to_json(const struct kb_spec *spec);
int kb_spec_from_json(struct kb_spec *spec, const char *text);

/* Where the engine says what it does; the command layer prints it. */
enum kb_say_level { KB_SAY_INFO, KB_SAY_STEP, KB_SAY_WARN };
/* Where a running session stands, for a live progress line. */
struct kb_status {
	const char *sha;        /* the commit at work */
	const char *what;       /* "build", "boot" or "run" */
	int step, steps;        /* its number among the commits measured, and the
				 * estimated number in all (0: not known) */
	int run, runs;          /* "run": the run of this boot and runs planned */
	int commit_runs;        /* runs done at this commit before this one */
	double elapsed;         /* seconds since this process started testing */
	double eta;             /* estimated seconds left; < 0: not known yet */
};
struct kb_progress {
	void (*say)(void *ctx, enum kb_say_level level, const char *msg);
	void *ctx;
	void (*status)(void *ctx, const struct kb_status *st); /* may be NULL */
};

struct kb_mode_ops;

struct kb_session {
	const struct kb_mode_ops *mode;  /* how it decides what to test */
	struct kb_store *store;          /* borrowed */
	struct kb_session_row row;
	struct kb_spec spec;
	git_repository *repo;
	struct kb_dag dag;
	char *statedir;
	struct kb_paths paths;           /* every path derived from the database */
	char *marks;                     /* kb_mark per node */
	struct kb_mark_row *mark_rows;
	size_t nmark_rows;
	struct kb_run_row *runs;
	size_t nruns;
	const struct kb_progress *progress;
	volatile int *stop;              /* set by a signal handler: stop soon */
	char (*node_sha)[41];            /* performance mode: ids of the nodes */
	char (*parent_sha)[41];          /* and of their first parents */
	size_t *run_order;               /* performance mode: runs by boot */
	char *build_dir;                 /* artifacts of the kernel booted now */
	char *build_release;             /* and its 'uname -r' */
	const char *guest_init;          /* guests/init, for targets that boot */
	int accept_new_host_key;         /* ssh: this once, accept an unknown host key */
	struct kb_builder builder;       /* its kernel builds (kb_session_builder()) */
	char next_shas[KB_AHEAD_MAX][41]; /* likely next commits: built ahead */
	size_t n_next;
	/* progress: the loop's estimate of the commits left after the current
	 * one, and what this process has done, for the time left */
	int steps_after;
	double t0;
	int measured_t0;
	char cur_sha[41];
	double cur_since;
	int boot_runs;                   /* runs planned in the boot at work */
	struct kb_target *built_on;      /* the commit built last on this target, */
	char built_sha[41];              /* not to be built again for its boot, */
	char built_sig[41];              /* and its build's signature ("": none) */
	int slot;                        /* pool: the machine this process tests on */
};

/* Tell the progress callback where the session stands (nothing when it
 * has no status callback). */
void kb_session_progress(struct kb_session *s, const char *sha, const char *what,
			 int run, int runs);

/*
 * Resolve the revisions of 'spec' (filling the shas), read the range to
 * check it, and record a new active session.  KB_EINVAL if another session
 * is active.
 */
int kb_session_create(struct kb_store *store, struct kb_spec *spec,
		      git_repository *repo, int64_t *id);

/* Start or continue 'kbisect compare': an unfinished comparison of the
 * same commits and benchmark is continued, otherwise a new one made. */
int kb_compare_open(struct kb_session *s, struct kb_store *store, const char *statedir,
		    struct kb_spec *spec, git_repository *repo);

/* Resolve the revisions of 'spec' and check the range (no database). */
int kb_spec_check(struct kb_spec *spec, git_repository *repo);
/* Insert a checked spec as the new active session, inside the caller's
 * transaction. */
int kb_session_insert(struct kb_store *store, const struct kb_spec *spec, int64_t *id);

/* Load the active session (or, with 'any', the newest one), with no
 * mode: enough to read, mark and end it.  'statedir' is the state
 * directory of the store's database (struct kb_paths). */
int kb_session_load(struct kb_session *s, struct kb_store *store,
		    const char *statedir, int any);
/* The same, with the mode that runs it: to run, report or show it. */
int kb_session_open(struct kb_session *s, struct kb_store *store,
		    const char *statedir, int any);
/* Give a session marked by hand its test (taken over from 'bench'), so
 * that it runs on from its marks; its mode is the one of that test.
 * KB_EINVAL when the session has a test of its own already. */
int kb_session_set_test(struct kb_session *s, struct kb_bench *bench);
void kb_session_release(struct kb_session *s);

/* Re-read marks and runs from the store into the session. */
int kb_session_refresh(struct kb_session *s);

/* What the marks say now. */
int kb_session_next(struct kb_session *s, struct kb_next *next);

/*
 * Test commits until a verdict (KB_OK), an error, a stop request or a test
 * that asks to stop (KB_EABORT).  Runs left behind by a crash are collected
 * first.  On a verdict the session becomes "done".
 */
int kb_session_run(struct kb_session *s);

/* Manual marks ('g', 'b' or 's') of revisions, each a commit or a range
 * A..B (the commits of the session's range it has); none: the commit to
 * test next.  The ids marked are added to 'marked'.  All are recorded, or
 * none: marks that contradict the others are refused (KB_EINVAL), and the
 * database is left as it was. */
int kb_session_mark_revs(struct kb_session *s, const char *const *revs, size_t n, char mark,
			 struct kb_strv *marked);
/* Take back the manual marks of a revision (recorded as an event); the
 * marks of tests are not taken back.  KB_EINVAL when it has none. */
int kb_session_unmark(struct kb_session *s, const char *rev, char *unmarked_sha);

struct kb_build_result;
/* Build (or find in the cache) the kernel of 'sha' for target 't', with the
 * session's builder (kb_builder_build()). */
int kb_session_build(struct kb_session *s, struct kb_target *t, const char *sha,
		     struct kb_build_result *res);

/* The same for the session's own target (its first machine): the kernel
 * a commit marked by hand is tested with. */
int kb_session_build_for_hand(struct kb_session *s, const char *sha,
			      struct kb_build_result *res);

/* Record the verdict and mark the session done. */
int kb_session_finish(struct kb_session *s);

/* End the session and remove its work trees and run directories. */
int kb_session_end(struct kb_session *s);

/* The report object (version 1; its fields are in REPORT of kbisect(1)). */
int kb_session_report(struct kb_session *s, json_t **out);

/* Status: where the session stands, as JSON (version 1). */
int kb_session_status(struct kb_session *s, json_t **out);

/* Split a line into words, quoted as in a POSIX shell; "#" starts a
 * comment.  Nothing is expanded or executed. */
int kb_split_words(const char *line, struct kb_strv *out);

/* The replayable log as text. */
int kb_session_log(struct kb_session *s, struct kb_buf *out);
/* The session as a log of 'git bisect log' ('git bisect replay' takes it):
 * the start with the range, every mark, and the first bad commit once
 * the marks say it. */
int kb_session_log_git(struct kb_session *s, struct kb_buf *out);

/* Rebuild a session from a log's text (a new active session): a log of
 * 'kbisect log', or one of 'git bisect log' (its start and marks, for
 * marking by hand; comments and 'terms' lines are passed over). */
int kb_session_replay(struct kb_store *store, git_repository *repo,
		      const char *repo_path, const char *text, const char *origin,
		      int64_t *id);

#endif
