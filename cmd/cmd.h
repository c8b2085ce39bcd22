/*
 * cmd.h - the command layer: option tables, the shared context of a
 * subcommand, and the mapping from engine errors to output and exit codes.
 */
#ifndef KB_CMD_H
#define KB_CMD_H

#include "paths.h"
#include "session.h"

/* Exit codes (EXIT STATUS of kbisect(1)): verdict with culprit, error, usage,
 * no culprit. */
enum {
	KB_EXIT_CULPRIT = 0,
	KB_EXIT_ERROR = 1,
	KB_EXIT_USAGE = 2,
	KB_EXIT_NO_CULPRIT = 3,
};

enum kb_opt_type { OPT_FLAG, OPT_STRING, OPT_NUMBER, OPT_LIST, OPT_INT };

struct kb_opt {
	const char *name;     /* long name without "--" */
	enum kb_opt_type type;
	void *value;          /* int*, const char**, double*, struct kb_strv*,
			       * long long* */
	const char *arg;      /* placeholder in the help, e.g. "DIR" */
	const char *help;
	long long min, max;   /* OPT_INT: the values allowed */
};

struct kb_cmd_help {
	const char *name;     /* "start" */
	const char *usage;    /* "GOOD... BAD --bench NAME|FILE [options] [-- PATH...]" */
	const char *summary;  /* one line */
	const char *text;     /* a paragraph after the usage, or NULL */
};

/*
 * Parse argv (argv[0] is the subcommand) against the table (ended by a
 * zeroed entry), as getopt_long() does: a long option may be given by
 * any prefix that names it alone (--comm), with its value as the next
 * word or after '='; a one-letter one as -n 5 or -n5.  Positional words
 * go to 'args', wherever they are; words after "--" to 'dashdash' (NULL:
 * "--" not allowed).  An OPT_INT is a whole number from its min to its
 * max.  Returns 0, 1 when --help was shown (exit 0), or KB_EXIT_USAGE
 * after printing the problem.
 */
int kb_parse_opts(const struct kb_cmd_help *h, const struct kb_opt *opts,
		  int argc, char **argv, struct kb_strv *args, struct kb_strv *dashdash);
void kb_print_help(const struct kb_cmd_help *h, const struct kb_opt *opts, FILE *to);
int kb_usage_error(const struct kb_cmd_help *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What every command that works on a session shares. */
struct kb_ctx {
	const char *repo_opt;    /* --repo */
	const char *db_opt;      /* --db */
	git_repository *repo;    /* opened when needed */
	char *db_path;
	struct kb_paths paths;   /* every path derived from db_path */
	const char *statedir;    /* paths.statedir */
	struct kb_store *store;
};

#define KB_CTX_OPTS(c) \
	{ "repo", OPT_STRING, &(c)->repo_opt, "DIR", \
	  "git repository (default: the one containing the current directory)" }, \
	{ "db", OPT_STRING, &(c)->db_opt, "FILE", \
	  "state database (default: <repo>/.git/kbisect.db)" }

/* Work out the database path and open the store (KB_STORE_* flags). */
int kb_ctx_open(struct kb_ctx *c, int flags);
void kb_ctx_release(struct kb_ctx *c);

/* kb_ctx_open() and kb_session_load(): 0, or the exit code after printing
 * the error (the context is released then). */
int kb_open_session(struct kb_ctx *c, struct kb_session *s, int flags, int any,
		    const char *cmd);
/* The exit code a report's verdict stands for. */
int kb_verdict_exit(json_t *report);
/* The string at 'key' of a report object, or "" when there is none. */
static inline const char *kb_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* One JSON object on stdout, indented. */
void kb_print_json(json_t *o);

/* Print the last engine error and return the exit code for it. */
int kb_fail(const char *cmd);
/* Terms fit for marking with: a word of lowercase letters, digits, '-'
 * and '_', no command's name, the two apart; 0, or a usage error (2). */
int kb_check_terms(const struct kb_cmd_help *h, const char *old_term, const char *new_term);
int cmd_terms(int argc, char **argv);
/* A start without revisions (pending.c): kept until BAD and a GOOD are
 * marked.  kb_pending_start() keeps start's words (argv[1..]);
 * kb_pending_mark() records revisions ('g' or 'b'; none: HEAD for BAD) and
 * starts the session once it has both: an exit status, or < 0 for an
 * error to report; kb_pending_status() prints where it stands. */
int kb_pending_exists(const struct kb_ctx *c);
int kb_pending_start(const struct kb_ctx *c, int argc, char **argv);
int kb_pending_mark(struct kb_ctx *c, char mark, const struct kb_strv *revs);
int kb_pending_status(const struct kb_ctx *c);
void kb_pending_forget(const struct kb_ctx *c);

/* A session marked by hand in a kernel tree: build (or find) the kernel
 * of 'sha', the commit to test next, and print where it and its modules
 * are (nothing for other sessions). */
int kb_print_next_kernel(struct kb_session *s, const char *sha, FILE *to);
/* Progress lines on stderr. */
extern const struct kb_progress kb_stderr_progress;
/* The same, with a live progress line when stderr is a terminal. */
const struct kb_progress *kb_progress_for_stderr(void);
/* Clear the live progress line for good. */
void kb_progress_done(void);
/* The text of the live progress line. */
void kb_format_status(char *buf, size_t size, const struct kb_status *st);
/* Stop requests from SIGINT/SIGTERM: the first asks the engine to stop
 * after the current run, the second kills kbisect (results are kept). */
extern volatile int kb_stop_requested;
void kb_install_signals(void);
/* Directories searched for benchmark definitions (colon-separated). */
const char *kb_bench_dirs(void);
/* The directory of kernel config fragments (malloc'd), or NULL. */
char *kb_fragments_dir(void);
/* configs/machines/ beside the program, or installed. */
const char *kb_machine_dirs(void);
/* guests/init beside the program, or installed (NULL: not found). */
const char *kb_guest_init(void);
/* --target: local, libvirt[:URI], or a machine file (name or path). */
int kb_set_target(struct kb_spec *spec, const char *target);
/* Each --target: the first is the target, the others the pool. */
int kb_set_targets(struct kb_spec *spec, const struct kb_strv *targets);

/* The test of a --command: when the script it starts is a file of the
 * directory kbisect was started from that BAD's tree lacks, the bench of
 * 'spec' is made again with the script's absolute path (as 'git bisect
 * run ./test.sh' runs the user's script), and that is said on stderr. */
int kb_local_script(struct kb_ctx *c, struct kb_spec *spec, const char *command);

/* Give a session marked by hand the test of 'bench' (a name or file) or
 * of the shell command 'command' (one of them NULL), its script resolved
 * as kb_local_script() does. */
int kb_set_test(struct kb_ctx *c, struct kb_session *s, const char *bench, const char *command);

/* Run a loaded session to its verdict and print its text report; returns
 * the exit code. */
int kb_run_session(struct kb_session *s, const char *cmd);

/*
 * The text of a report (cmd/render.c), for 'report', the end of a run
 * ('start', 'resume') and the body of the report mail: the mode, range and
 * counts; the verdict with the culprit (its commit, and for a performance
 * bisection its probability, step, share explained and checks) or the
 * suspects or the reason none is blamed; the LKP-style table of the means;
 * the warnings; the bisection log with each step's decision and its
 * samples, exit status or build/boot error; the test setup; the command
 * that reproduces the bisection; 'link' (or NULL) as a Link: line, the URL
 * of the report this one follows up; and the #regzbot line.  A control
 * character of any value (a CR in a commit subject) is printed as a space;
 * the values printed on lines of their own keep their line ends.
 */
void kb_print_report(json_t *report, FILE *to, const char *link);

/* What 'report' was asked to do with the mail. */
struct kb_mail_opts {
	const char *config;          /* --mail-config, or NULL: the default */
	const char *smtp, *from;     /* --smtp, --from */
	const struct kb_strv *to;    /* --to (replaces the config's) */
	const struct kb_strv *cc;    /* --cc (added to the config's) */
	int no_cc;                   /* --no-cc: not the culprit's people */
	const char *in_reply_to;     /* --in-reply-to */
	const char *mbox;            /* --mbox FILE */
	int send;                    /* --mail */
};
/* Write the report mail to an mbox file and/or send it; 0 or an engine
 * error (printed by the caller). */
int kb_report_mail(json_t *report, git_repository *repo, const struct kb_mail_opts *o);

int cmd_start(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_target(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_build(int argc, char **argv);

#endif
