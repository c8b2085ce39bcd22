/*
 * bench.h - benchmark definitions.
 *
 * A benchmark is a JSON object (configs/benchmarks/NAME.json or any file):
 *
 *   name         string, required
 *   description  string
 *   setup        string or array of strings: commands run once per boot
 *   command      string (run by /bin/sh -c) or array (argv), required
 *   metric       object; absent = pass/fail by exit status, as git bisect run:
 *                0 good, 125 skip, 1..124 bad; 126, 127 (the command
 *                could not be run) and 128 and above stop
 *     name       string, required
 *     json_path  "a.b[0].c" into the command's JSON output, or
 *     regex      POSIX extended regex; its first group (or whole match)
 *     direction  "lower" or "higher": which way is better, required
 *     unit       string
 *   metrics      array of objects with the keys of 'metric': secondary
 *                metrics, needs 'metric'; each run records them all, but
 *                only 'metric' decides.  Names unique, none the primary's.
 *   use_metric   the name of one of 'metrics': bisect on it instead, 'metric'
 *                becoming a secondary metric (as --metric)
 *   min_effect   the smallest change of interest, percent (default 5): a
 *                "no regression" only once a change this large would have
 *                been seen (as --min-effect)
 *   warmup       runs dropped after each boot (default 0)
 *   runs_per_boot  runs per boot (default 5 with a metric, else 1)
 *   timeout      seconds per run (default 0: none)
 *
 * Unknown keys are an error, so a typo never silently changes a benchmark.
 */
#ifndef KB_BENCH_H
#define KB_BENCH_H

#include "util.h"

enum kb_direction {
	KB_LOWER_IS_BETTER = -1,
	KB_HIGHER_IS_BETTER = 1,
};

struct kb_metric {
	char *name, *json_path, *regex, *unit;
	enum kb_direction direction;
};

/* Secondary metrics a benchmark may have at most. */
#define KB_BENCH_MAX_METRICS 32

struct kb_bench {
	char *name, *description;
	struct kb_strv setup;   /* shell command strings */
	struct kb_strv argv;    /* the command */
	int has_metric;
	struct kb_metric metric;
	struct kb_metric *metrics; /* the secondary metrics, in the file's order */
	size_t nmetrics;
	int warmup, runs_per_boot;
	int runs_per_boot_set;  /* the definition names it: a fixed choice */
	double timeout;
	int flaky;              /* "flaky": it fails only some of the time */
	char *signature;        /* "signature": the regex a failure of the bug
				 * matches in its output (NULL: any failure) */
	double min_rate;        /* "min_rate": the lowest rate of failure looked
				 * for (0: the default, 0.1) */
	char *use_metric;       /* "use_metric": the metric chosen, or NULL */
	double min_effect;      /* "min_effect", percent (0: the default) */
	char *json;             /* the definition, compact, for the database */
};

/* A regex of a benchmark (a metric's, a signature) that is safe to
 * compile and valid: 0, or KB_EINVAL naming 'field' of 'origin'. */
int kb_regex_check(const char *regex, const char *origin, const char *field);

/* Parse a definition; 'origin' names it in error messages. */
int kb_bench_parse(struct kb_bench *b, const char *text, const char *origin);
/*
 * Load by name or path: a name without '/' and without ".json" is looked up
 * as DIR/NAME.json in each directory of 'dirs' (colon-separated); anything
 * else is read as a file.
 */
int kb_bench_load(struct kb_bench *b, const char *name, const char *dirs);
/* A pass/fail benchmark running one shell command string. */
int kb_bench_from_command(struct kb_bench *b, const char *shell_command);
void kb_bench_release(struct kb_bench *b);
/* The same benchmark, flaky (when 'flaky'), with 'min_rate' (when above 0)
 * and 'signature' (when not NULL): checked as a definition that says so
 * is ('origin' names what asked for it in errors). */
int kb_bench_set_flaky(struct kb_bench *b, int flaky, double min_rate, const char *signature,
		       const char *origin);

/* The same benchmark bisected on its metric 'metric' (when not NULL) and
 * with 'min_effect' percent (when above 0): checked as a definition that
 * says so is ('origin' names what asked for it in errors). */
int kb_bench_set_metric(struct kb_bench *b, const char *metric, double min_effect,
			const char *origin);

/*
 * Extract the metric from a run's output.  KB_EINVAL with a message naming
 * the benchmark and quoting the output when the value is not there, and
 * for a benchmark with no metric.
 */
int kb_metric_extract(const struct kb_bench *b, const char *output, double *value);
/*
 * Extract metric 'm' (the primary or one of b->metrics) from a run's
 * output; the errors of kb_metric_extract(), those of a secondary metric
 * naming it.
 */
int kb_metric_extract_one(const struct kb_bench *b, const struct kb_metric *m,
			  const char *output, double *value);
/*
 * The same from an output kept in two parts (output.h): its head, then its
 * tail (NULL or "" when the output was kept whole) when the head does not
 * have the value.  m is NULL for the primary metric.
 */
int kb_metric_extract_kept(const struct kb_bench *b, const struct kb_metric *m,
			   const char *head, const char *tail, double *value);

#endif
