/*
 * flaky.h - bisection of a failure that shows only some of the time: a
 * pure function from the runs so far (how many of each commit's runs
 * failed this bug's way) to the next commit to run, or to a verdict.
 *
 * The model: from the culprit on, every commit fails a run with a rate q;
 * every other commit with a false-alarm rate e.  Neither is known: each
 * has a Beta prior (q Jeffreys', cut at the lowest rate looked for; e
 * small unless GOOD is seen to fail), and
 * for each possible culprit both integrate out in closed form, so the
 * posterior over "commit k is the culprit" is exact for the runs seen.
 * The steps:
 *
 *  1. BAD until it fails, or until a rate of 'min_rate' would have shown
 *     at 95% (no failure: the verdict no-regression).
 *  2. GOOD until it is clean with 'confidence' against a rate as low as
 *     BAD's could be; a failure there is evidence for e, and a warning.
 *  3. The commit whose next run is worth the most: the largest expected
 *     fall of the posterior's entropy, so a commit is run again while its
 *     runs are the best evidence to be had (a pass says little when q is
 *     small) and left when another is worth more.
 *  4. When one commit holds 'confidence', each check on the commit's own
 *     runs, at a fifth of the posterior's risk (0.99 for 0.95), with the
 *     rate of BAD's and the culprit's runs (BAD is run again when a check
 *     needs more runs than BAD has had): the culprit must fail often
 *     enough to hold the bug, not by a false alarm; each parent in the
 *     range (GOOD when there is none) and the culprit reverted on BAD must
 *     pass often enough to be clean.  A check that does not get there in
 *     the runs a rate of 'min_rate' would need, three times over, or a
 *     revert that fails this bug's way, fails: the verdict inconclusive.
 *
 * Failures of another kind (another signature) are not counted as runs;
 * only their number is passed, so that a commit that fails another way
 * most of the time is left (a probe), or its check given up (n/a for the
 * revert, a failed check for the culprit and its parent).
 */
#ifndef KB_FLAKY_H
#define KB_FLAKY_H

#include <stddef.h>

#include "graph.h"

/* The runs of one commit: 'node' in the graph, or -1 for GOOD. */
struct kb_flaky_count {
	long node;
	int runs, fails;
	int other;          /* runs that failed another way: not in 'runs' */
};

struct kb_flaky_params {
	double confidence;  /* 0.95 */
	double min_rate;    /* the lowest failure rate BAD is run for: 0.1 */
	int max_runs;       /* the session's budget: 2000 */
	double q_a, q_b;    /* Beta prior of the rate from the culprit on: 0.5, 0.5
			     * (Jeffreys': tests that fail always and those that
			     * fail rarely alike), cut at min_rate */
	double e_a, e_b;    /* and of the false-alarm rate: 1, 99 */
	double solid;       /* the prior weight of a failure that, once in,
			     * shows in every run (the Beta prior has the rest):
			     * 0.5 */
	double build_cost;  /* what a commit not run yet costs beside a run,
			     * in runs (its build and first boot): 0 */
};

void kb_flaky_params_default(struct kb_flaky_params *p);

struct kb_flaky_in {
	const struct kb_graph *g;
	size_t bad;                       /* node of BAD */
	const struct kb_flaky_count *c;   /* one per commit run, GOOD's too */
	size_t nc;
	const unsigned char *skip;        /* per node: cannot be tested (NULL: none) */
	/* the culprit 'revert_of' (a node) reverted on BAD, once made: -1
	 * before; revert_made 0 when it could not be made */
	long revert_of;
	int revert_made;
	int revert_runs, revert_fails, revert_other;
	struct kb_flaky_params p;
};

enum kb_flaky_kind {
	KB_FLAKY_RUN,     /* run 'node' (-1: GOOD) once more */
	KB_FLAKY_REVERT,  /* make the revert of 'node' on BAD (then run it) */
	KB_FLAKY_RUN_REVERT, /* run the revert once more */
	KB_FLAKY_DONE,
};

struct kb_flaky_out {
	enum kb_flaky_kind kind;
	long node;
	const char *role;       /* "bad", "good", "probe", "culprit", "parent", "revert" */
	char note[160];         /* why, for the progress line */
	/* the state of the evidence, always */
	long best;              /* the likeliest culprit, -1 none */
	double prob;            /* its probability */
	double q, q_lo, q_hi;   /* the rate from it on: mean and 90% interval */
	double e, e_hi;         /* the false-alarm rate: mean and 95% bound */
	/* DONE: */
	const char *verdict;    /* "culprit", "no-regression", "inconclusive" */
	const char *culprit_check, *parent_check, *revert_check; /* pass fail n/a */
	int good_failed;        /* GOOD failed this bug's way */
	char reason[200];       /* why, for no-regression and inconclusive */
};

/* The next step.  0, or negative with kb_error() set (bad input). */
int kb_flaky_decide(const struct kb_flaky_in *in, struct kb_flaky_out *out);

/* The posterior over the culprit: post[i] for every node of the graph. */
int kb_flaky_posterior(const struct kb_flaky_in *in, double *post);

/* The runs BAD takes at most to fail once at 'rate' with 95%. */
int kb_flaky_bad_runs(double rate);

/* The title of a failure, into 'out': the first line of 'text' that says
 * what went wrong (an oops, a BUG, a WARNING, a panic), up to the
 * " (console: ...)" a target adds to it; or, without one, the last line
 * that is not empty.  1 when it is a kernel's (such a line was found). */
int kb_flaky_title(const char *text, char *out, size_t len);

/* The key of a title, by which two failures are the same: its numbers
 * (decimal, 0x..., runs of 8 hex digits or more: addresses, offsets, line
 * numbers, pids) each made '#'. */
void kb_flaky_title_key(const char *title, char *out, size_t len);

/* The p quantile of Beta(a, b). */
double kb_beta_quantile(double p, double a, double b);

#endif
