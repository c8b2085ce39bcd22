/*
 * noise.h - the noise of a benchmark on a kernel, in three layers, and the
 * estimates performance bisection takes them from.  Pure functions.
 *
 * A run's value (on the log scale) is its commit's level, plus the offset
 * of the boot it ran in (memory layout, page cache, frequency: shared by
 * the runs of a boot, drawn afresh at every boot), plus the run's own
 * noise; and the machine's speed moves with time (other work, thermal
 * limits, a neighbour), which every commit measured at that time shares.
 * So:
 *
 *  - the runs of one boot tell the boot's value, not the commit's: a boot
 *    is the unit of evidence, its variance tau^2 + sigma^2 / n;
 *  - sigma, the run noise, comes from the spread within boots;
 *  - tau, the boot spread, from boots of one commit measured close
 *    together (their difference holds two boot offsets and little time);
 *  - the machine's drift, from the endpoints measured again and again,
 *    as a random walk whose step variance is chosen by likelihood: a
 *    commit measured an hour after the last endpoint is compared with the
 *    endpoints' level then, with the uncertainty the gap gives it.
 */
#ifndef KB_NOISE_H
#define KB_NOISE_H

#include <stddef.h>

/*
 * The run noise sigma from the runs of many boots: the median of the
 * absolute differences of the runs within each boot, over all boots with
 * two runs or more, scaled to a normal sigma (robust to outlying runs, and
 * free of the boots' own offsets).  x holds the boots' runs one boot after
 * another, len[i] runs in boot i.  0 when no boot has two runs.
 */
double kb_noise_within(const double *x, const size_t *len, size_t nboots);

/* A robust location (Huber's M-estimate, k = 1.5 standard deviations) of
 * x, where x[i] has the standard deviation sd[i] (NULL: 'scale' for all);
 * the mean when sd is NULL and scale <= 0. */
double kb_huber_location(const double *x, const double *sd, size_t n, double scale);

/*
 * The boot spread from pairs of boots of one commit measured close
 * together: d[i] the difference of the two boots' means, e[i] the
 * variance their runs' noise alone gives it (sigma^2 (1/n1 + 1/n2)).
 * When the differences are no larger than the run noise explains (a
 * chi-square test at 'pool_p'), tau^2 is 0 and the run noise alone counts
 * (*df = -1: as many degrees of freedom as the runs give); otherwise tau^2
 * is the excess, with one degree of freedom per pair.  Returns tau^2.
 */
double kb_noise_boots(const double *d, const double *e, size_t n, double pool_p, int *df);

/* A robust location of runs that may hold an outlying one: Tukey's
 * biweight (c = 4.685 scales, from the median), which gives a run far
 * off no weight at all; the median when scale <= 0. */
double kb_biweight_location(const double *x, size_t n, double scale);

/* The quantile p of a chi-square with k degrees of freedom (the
 * Wilson-Hilferty approximation). */
double kb_chi2_quantile(double p, double k);

/*
 * The machine's drift: a random walk over time steps 0 .. nt-1, seen
 * through observations y[i] at time t[i] with variance v[i] (t sorted,
 * several at one time allowed).  Each step adds q to the walk's variance;
 * q is chosen by likelihood among multiples of the mean observation
 * variance.  Fills d[0..nt-1] (the smoothed drift) and pvar[0..nt-1] (its
 * variance) and returns q.  Without observations, d is 0 and pvar large.
 * An observation far off the walk is a jump where those after it stay
 * off, else it is set apart, and the drift between its neighbours is
 * known no better than its distance from the walk.
 */
double kb_drift_smooth(const size_t *t, const double *y, const double *v, size_t n,
		       size_t nt, double *d, double *pvar);

/*
 * Each commit's own offset: the code layout of its build, the same in
 * every boot of it.  Its variance L comes from 'k' differences of two
 * builds each, d the difference (d2 its square), e the variance their
 * boots give it: d^2 is (e + 2 L) times a chi-square with one degree of
 * freedom.  A culprit's step shows in one or two of the differences, so
 * the 'drop' largest are left out (one, and one more for every ten, where
 * it is not given), and the rest are compared with what as many smallest
 * of k such draws come to (Blom's scores).
 */
/* L, fitted: each difference weighed by the inverse of its variance
 * squared (those of commits measured on few boots tell little). */
double kb_offsets_fit(const double *d2, const double *e, size_t k, size_t drop);
/* A bound at 90% on L; 0 where the differences are no larger than their
 * boots make them at that bound. */
double kb_offsets_bound(const double *d2, const double *e, size_t k, size_t drop);
/* The kept differences' scale (1: no offsets) over a chi-square's point
 * 'q' over its degrees of freedom: above 1 at q = 0.90, the differences
 * show offsets at 90%; at q = 0.10, (scale - 1) e / 2 is a bound at 90%
 * on L. */
double kb_offsets_scale(const double *d, const double *e, size_t k, double q);
/* Whether the differences show offsets at all: kb_offsets_scale() at
 * 0.90 above 1, as the boots' spread is tested (kb_noise_boots()). */
int kb_offsets_shown(const double *d, const double *e, size_t k);

#endif
