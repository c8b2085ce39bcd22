/*
 * metrics.h - a benchmark's secondary metrics in a report: the level of
 * each at the commits of the report's table, and whether it moved from
 * GOOD to BAD beyond its noise.  Pure functions: no I/O.
 *
 * Only the primary metric decides a bisection; the others are measured
 * in the same runs and shown beside it, so that a change the primary
 * metric does not see (or a change only the primary metric sees) is not
 * missed.
 *
 * The runs of one boot share its state (caches, the layout of memory,
 * the speed of the machine at the time), so they are not independent
 * pieces of evidence: whether a metric moved is tested on the means of
 * the boots, with Welch's t test of GOOD's boot means against BAD's (on
 * the log of the values when all are positive, so that the test is of
 * the relative change).  A side measured in one boot only has no spread
 * of boot means: then the runs stand in for the boots ("basis" "runs").
 */
#ifndef KB_METRICS_H
#define KB_METRICS_H

#include <jansson.h>
#include <stddef.h>

/* The level at which a metric has moved: a p-value of the test below it. */
#define KB_MOVED_ALPHA 0.01

/* One value of a metric: the commit, the boot and the run (from 1 in its
 * boot) it came from. */
struct kb_msample {
	const char *sha;        /* borrowed */
	int boot, run;
	double value;
};

/*
 * A row of a table of levels, as the primary metric's rows in a report:
 * {label, commit, n, mean, stddev_pct, change_pct}, from the values of
 * 'sha' in runs after the first 'warmup' of their boot; mean and
 * stddev_pct only when n > 0, change_pct (in percent, against
 * 'base_mean') only when 'base_mean' is a number other than 0.
 */
json_t *kb_level_row(const struct kb_msample *v, size_t n, const char *label,
		     const char *sha, int warmup, double base_mean);
/* The mean of those values of 'sha'; NAN when there is none. */
double kb_level_mean(const struct kb_msample *v, size_t n, const char *sha, int warmup);

struct kb_moved {
	int tested;             /* both sides had values enough to test */
	int moved;              /* tested, and p < alpha */
	double p;               /* the two-sided p-value (1 when not tested) */
	double change_pct;      /* BAD's mean against GOOD's (0 when not known) */
	size_t boots_good, boots_bad;
	const char *basis;      /* "boots", or "runs" for a side of one boot */
};

/* Did the metric of the values 'v' move from 'good' to 'bad' (runs after
 * the first 'warmup' of their boot) at level 'alpha'? */
void kb_metric_moved(const struct kb_msample *v, size_t n, const char *good,
		     const char *bad, int warmup, double alpha, struct kb_moved *out);

/* Two-sided p-value of Welch's t test that the means of 'a' and 'b' are
 * the same; 1 when either has fewer than two values.  When neither
 * spreads at all: 1 for equal means, else 0. */
double kb_welch_p(const double *a, size_t na, const double *b, size_t nb);

#endif
