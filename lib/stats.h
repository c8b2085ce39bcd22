/*
 * stats.h - robust statistics for noisy benchmarks.  Pure functions: no
 * I/O, no global state; random resampling takes an explicit seed.
 */
#ifndef KB_STATS_H
#define KB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v[0..n-1] in increasing order. */
void kb_sort_doubles(double *v, size_t n);
double kb_median(const double *v, size_t n);
/* Median absolute deviation, scaled to estimate a normal sigma. */
double kb_mad(const double *v, size_t n);
double kb_mean(const double *v, size_t n);
/* Sample standard deviation (n - 1). */
double kb_stddev(const double *v, size_t n);
/* Quantile q in [0, 1] with linear interpolation. */
double kb_quantile(const double *v, size_t n, double q);

double kb_normal_cdf(double x);
/* Its inverse: the z below which a standard normal falls with
 * probability p (0 < p < 1). */
double kb_normal_quantile(double p);
/* The regularised incomplete beta function I_x(a, b): P(X <= x) for X
 * of Beta(a, b). */
double kb_beta_inc(double a, double b, double x);

/*
 * The power of a two-sided normal test at level 'alpha' (|estimate| / se
 * beyond the normal quantile of 1 - alpha / 2) when the true difference
 * is 'd': the chance it is found.
 */
double kb_test_power(double d, double se, double alpha);
/* The smallest difference that test finds with probability 'power'
 * (alpha / 2 < power < 1): the detectable size, in the units of se. */
double kb_detectable(double se, double alpha, double power);

/* Two-sided p-value of the Mann-Whitney U test (normal approximation with
 * tie and continuity corrections; exact enumeration when both n <= 8). */
double kb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);
/* Two-sided p-value of the two-sample Kolmogorov-Smirnov test. */
double kb_ks_p(const double *a, size_t na, const double *b, size_t nb);
/* Spearman's rank correlation of (x, y) and its two-sided p-value. */
double kb_spearman(const double *x, const double *y, size_t n, double *p);

/* A small reproducible generator (splitmix64). */
uint64_t kb_rand_next(uint64_t *state);
double kb_rand_unit(uint64_t *state);          /* [0, 1) */
double kb_rand_normal(uint64_t *state);         /* N(0, 1) */

/* Percentile bootstrap interval of median(b) - median(a). */
void kb_diff_ci(const double *a, size_t na, const double *b, size_t nb,
		double level, int reps, uint64_t seed, double *lo, double *hi);

#endif
