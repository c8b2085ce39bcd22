/*
 * lava.h - the pure parts of the lava target (target_lava.c): the job
 * template and its values, the job log and what the guest said in it, the
 * test cases of the results.  No I/O: the unit tests call them on text.
 */
#ifndef KB_LAVA_H
#define KB_LAVA_H

#include <jansson.h>
#include <stddef.h>

#include "util.h"

/*
 * Append 's' to 'out' as a YAML double-quoted scalar: a quote, a
 * backslash, every control character and the characters YAML takes for
 * line breaks escaped, so that the value is one string whatever it holds.
 */
void kb_yaml_quote(struct kb_buf *out, const char *s);

/* A value of a job template: a string (quoted) or a whole number. */
struct kb_lava_var {
	const char *name;
	const char *text;   /* NULL: the number */
	long number;
};

/*
 * Render the job template 'tmpl': each "{{name}}" (blanks inside the
 * braces allowed) is replaced by the value 'name' of 'vars'.  A
 * placeholder must be a whole YAML value: after "key:", "- " or a flow
 * "[" / "," / "{", and the last thing on its line but a comment.  An
 * unknown name, or a placeholder inside other text, is KB_EINVAL with a
 * message naming 'origin' and the line.
 */
int kb_lava_render(const char *tmpl, const char *origin, const struct kb_lava_var *vars,
		   size_t nvars, struct kb_buf *out);

/*
 * The text the device printed, from LAVA's job log (YAML: one entry a
 * line, "- {"dt": ..., "lvl": ..., "msg": ...}"): the "msg" of each entry
 * of level "target" or "feedback", a line each, without the backslash
 * that LAVA puts before each quote (\" is ", \\" is \").  The rest of the log
 * (LAVA's own lines) is appended to 'lava' when it is not NULL.
 */
void kb_lava_log_console(const char *log, size_t len, struct kb_buf *console,
			 struct kb_buf *lava);

/* One run of the job as the console tells it. */
struct kb_lava_run {
	int begun, ended;
	int status;          /* its exit status, when ended */
	double seconds;      /* how long it ran, when the guest said it */
	struct kb_buf output;
};

/* What the guest said of the job (guests/lava-job) on the console. */
struct kb_lava_said {
	char identity[256];  /* uname -r; "" when it never said it */
	int setups;          /* setup commands that began */
	int setup_failed;    /* the number of the one that failed, or 0 */
	int setup_status;
	struct kb_buf setup_output; /* what the last setup command printed */
	int nruns;           /* runs[0..nruns-1] are runs 1..nruns */
	struct kb_lava_run *runs;
	int done;
};

/*
 * Read the lines "KBISECT-<nonce> ..." of 'console' for a job of 'runs'
 * runs.  The output of a run is the text between its RUN-BEGIN and its
 * RUN-END (the newline the guest puts before a line of ours is not the
 * run's).
 */
void kb_lava_said_parse(const char *console, const char *nonce, int runs,
			struct kb_lava_said *said);
void kb_lava_said_release(struct kb_lava_said *said);

/* A test case of a job, from the results API (/api/v0.2/jobs/N/tests/). */
struct kb_lava_case {
	char suite[128], name[128], result[16];
	int has_measurement;
	double measurement;
	char unit[32];
	char error_type[64];  /* the "lava" suite's "job" case: LAVA's word for
			       * what failed (Infrastructure, Job, Test, ...) */
	char error_msg[512];
};

/*
 * The test cases of one page of results ({"results": [...]} or a bare
 * list), appended to *cases.  KB_EINVAL for JSON of another shape.
 */
int kb_lava_cases_parse(json_t *page, struct kb_lava_case **cases, size_t *n);

/* The cases of 'tests' that name their suite by id ("suite": 7) are given
 * its name from 'suites' (the job's list of suites, {"id", "name"}). */
void kb_lava_cases_name_suites(json_t *tests, json_t *suites);

/* The case 'name' of a suite whose name ends in "_SUITE" or is SUITE, or
 * NULL. */
const struct kb_lava_case *kb_lava_case_find(const struct kb_lava_case *cases, size_t n,
					     const char *suite, const char *name);

/*
 * A benchmark's json_path ("jobs[0].write.clat_ns.percentile[\"50.0\"]",
 * as bench.h reads it) in the form guests/lava-job compares the paths of
 * a run's JSON output with: ".LEN:KEY" for a key of LEN bytes, "[N]" for
 * an index ("jobs[0].write" is ".4:jobs[0].5:write").  KB_EINVAL for a
 * path that is not of that grammar.
 */
int kb_lava_json_path(const char *path, struct kb_buf *out);

#endif
