#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void kb_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = kb_malloc((n ? n : 1) * sizeof(*s));

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/*
 * Put the k-th smallest of s[0..n-1] at s[k], the smaller ones before it
 * and the larger ones after: Hoare's selection, with a three-way partition
 * so that many equal values cost no more than distinct ones.
 */
static void select_kth(double *s, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		double a = s[lo], b = s[lo + (hi - lo) / 2], c = s[hi - 1], p, t;
		size_t lt = lo, i = lo, gt = hi;

		p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		while (i < gt) {
			if (s[i] < p) {
				t = s[lt], s[lt++] = s[i], s[i++] = t;
			} else if (s[i] > p) {
				t = s[--gt], s[gt] = s[i], s[i] = t;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

double kb_quantile(const double *v, size_t n, double q)
{
	double small[256], *s, pos, r, next;
	size_t i, j;

	if (!n)
		return NAN;
	s = n <= sizeof(small) / sizeof(small[0]) ? small : kb_malloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	if (i + 1 >= n) {
		i = n - 1;
		select_kth(s, n, i);
		r = s[i];
	} else {
		/* the order statistics i and i + 1, without sorting the rest */
		select_kth(s, n, i);
		next = s[i + 1];
		for (j = i + 2; j < n; j++)
			if (s[j] < next)
				next = s[j];
		r = s[i] + (pos - (double)i) * (next - s[i]);
	}
	if (s != small)
		free(s);
	return r;
}

double kb_median(const double *v, size_t n)
{
	return kb_quantile(v, n, 0.5);
}

double kb_mad(const double *v, size_t n)
{
	double m = kb_median(v, n), *d, r;
	size_t i;

	if (!n)
		return NAN;
	d = kb_malloc(n * sizeof(*d));
	for (i = 0; i < n; i++)
		d[i] = fabs(v[i] - m);
	r = 1.4826 * kb_median(d, n);
	free(d);
	return r;
}

double kb_mean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

double kb_stddev(const double *v, size_t n)
{
	double m = kb_mean(v, n), s = 0;
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)(n - 1));
}

double kb_normal_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double kb_normal_quantile(double p)
{
	/* the few levels the decisions use, asked for again and again (a
	 * bisection asks hundreds of thousands of times): the last ones
	 * answered, kept by the exact p */
	static __thread struct {
		double p, z;
	} seen[8];
	static __thread int nseen, next;
	/* bisection of the upper tail, which keeps its precision where p is
	 * near 1; it ends once the midpoint is one of the ends, where every
	 * step after would leave it */
	double lo = -40, hi = 40, z = 0, q = 1 - p;
	int i;

	for (i = 0; i < nseen; i++)
		if (seen[i].p == p)
			return seen[i].z;
	for (i = 0; i < 100; i++) {
		z = (lo + hi) / 2;
		if (z == lo || z == hi)
			break;
		if (0.5 * erfc(z / M_SQRT2) > q)
			lo = z;
		else
			hi = z;
	}
	if (i == 100)
		z = (lo + hi) / 2;
	seen[next].p = p;
	seen[next].z = z;
	next = (next + 1) % 8;
	if (nseen < 8)
		nseen++;
	return z;
}

double kb_test_power(double d, double se, double alpha)
{
	double z = kb_normal_quantile(1 - alpha / 2), x;

	if (!(se > 0))
		return d != 0;
	x = fabs(d) / se;
	return kb_normal_cdf(x - z) + kb_normal_cdf(-x - z);
}

double kb_detectable(double se, double alpha, double power)
{
	double lo = 0, hi, z = kb_normal_quantile(1 - alpha / 2);

	if (!(se > 0))
		return 0;
	/* the far tail adds little: z + z_power standard errors is an upper
	 * bound, the root is below it */
	hi = (z + kb_normal_quantile(power) + 1) * se;
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (kb_test_power(mid, se, alpha) < power)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

struct ranked {
	double v;
	int group;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/* Ranks with ties averaged; returns the tie correction sum (t^3 - t). */
static double rank_all(struct ranked *r, size_t n, double *rank)
{
	size_t i = 0, j, k;
	double ties = 0;

	qsort(r, n, sizeof(*r), cmp_ranked);
	while (i < n) {
		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		for (k = i; k < j; k++)
			rank[k] = (double)(i + j + 1) / 2.0;
		ties += pow((double)(j - i), 3) - (double)(j - i);
		i = j;
	}
	return ties;
}

/* Exact two-sided p for small samples without ties: count rank sums. */
static double mw_exact(size_t na, size_t nb, double u)
{
	/* f[k][s]: ways to pick k of the first m ranks with sum s */
	size_t n = na + nb, maxs = na * n, m, k, s;
	double *f = kb_calloc((na + 1) * (maxs + 1), sizeof(*f)), total = 0, le = 0, ge = 0;
	double umin = (double)na * (double)(na + 1) / 2.0;

	f[0] = 1;
	for (m = 1; m <= n; m++)
		for (k = m < na ? m : na; k >= 1; k--)
			for (s = maxs; s >= m; s--)
				f[k * (maxs + 1) + s] += f[(k - 1) * (maxs + 1) + s - m];
	for (s = 0; s <= maxs; s++) {
		double w = f[na * (maxs + 1) + s], us = (double)s - umin;

		total += w;
		if (us <= u + 1e-9)
			le += w;
		if (us >= u - 1e-9)
			ge += w;
	}
	free(f);
	return fmin(1.0, 2.0 * fmin(le, ge) / total);
}

double kb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb, i;
	struct ranked *r;
	double *rank, ra = 0, u, mu, var, ties, z;

	if (!na || !nb)
		return 1.0;
	r = kb_malloc(n * sizeof(*r));
	rank = kb_malloc(n * sizeof(*rank));
	for (i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0 };
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1 };
	ties = rank_all(r, n, rank);
	for (i = 0; i < n; i++)
		if (r[i].group == 0)
			ra += rank[i];
	free(r);
	free(rank);
	u = ra - (double)na * (double)(na + 1) / 2.0;
	if (na <= 8 && nb <= 8 && ties == 0)
		return mw_exact(na, nb, u);
	mu = (double)na * (double)nb / 2.0;
	var = (double)na * (double)nb / 12.0 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (var <= 0)
		return 1.0;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return fmin(1.0, 2.0 * (1.0 - kb_normal_cdf(z)));
}

double kb_ks_p(const double *a, size_t na, const double *b, size_t nb)
{
	double *sa, *sb, d = 0, en, lambda, p = 0;
	size_t i = 0, j = 0;
	int k;

	if (!na || !nb)
		return 1.0;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	while (i < na && j < nb) {
		double x = sa[i] < sb[j] ? sa[i] : sb[j];

		while (i < na && sa[i] == x)
			i++;
		while (j < nb && sb[j] == x)
			j++;
		d = fmax(d, fabs((double)i / (double)na - (double)j / (double)nb));
	}
	free(sa);
	free(sb);
	en = sqrt((double)na * (double)nb / (double)(na + nb));
	lambda = (en + 0.12 + 0.11 / en) * d;
	if (lambda < 0.2)
		return 1.0;
	for (k = 1; k <= 100; k++)
		p += 2.0 * ((k & 1) ? 1 : -1) * exp(-2.0 * lambda * lambda * k * k);
	return fmin(1.0, fmax(0.0, p));
}

double kb_spearman(const double *x, const double *y, size_t n, double *p)
{
	struct ranked *r = kb_malloc((n ? n : 1) * sizeof(*r));
	double *rx = kb_malloc((n ? n : 1) * sizeof(*rx)), *ry = kb_malloc((n ? n : 1) * sizeof(*ry));
	double *tmp = kb_malloc((n ? n : 1) * sizeof(*tmp));
	double mx, my, sxy = 0, sxx = 0, syy = 0, rho, t;
	size_t i;

	/* rank x, keeping the index in 'group' */
	for (i = 0; i < n; i++)
		r[i] = (struct ranked){ x[i], (int)i };
	rank_all(r, n, tmp);
	for (i = 0; i < n; i++)
		rx[r[i].group] = tmp[i];
	for (i = 0; i < n; i++)
		r[i] = (struct ranked){ y[i], (int)i };
	rank_all(r, n, tmp);
	for (i = 0; i < n; i++)
		ry[r[i].group] = tmp[i];
	mx = kb_mean(rx, n);
	my = kb_mean(ry, n);
	for (i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - my) * (ry[i] - my);
	}
	rho = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
	if (p) {
		if (n < 4 || fabs(rho) >= 1) {
			*p = n < 4 ? 1.0 : 0.0;
		} else {
			/* t with n - 2 degrees of freedom, normal for the tail */
			t = rho * sqrt((double)(n - 2) / (1 - rho * rho));
			*p = 2.0 * (1.0 - kb_normal_cdf(fabs(t) * (1 - 1.0 / (4.0 * (double)n))));
		}
	}
	free(r);
	free(rx);
	free(ry);
	free(tmp);
	return rho;
}

uint64_t kb_rand_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double kb_rand_unit(uint64_t *state)
{
	return (double)(kb_rand_next(state) >> 11) / 9007199254740992.0;
}

double kb_rand_normal(uint64_t *state)
{
	double u1 = kb_rand_unit(state), u2 = kb_rand_unit(state);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double resampled_median(const double *v, size_t n, double *buf, uint64_t *st)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = v[kb_rand_next(st) % n];
	return kb_median(buf, n);
}

static void interval(double *vals, int reps, double level, double *lo, double *hi)
{
	qsort(vals, (size_t)reps, sizeof(*vals), cmp_double);
	*lo = vals[(int)floor((1 - level) / 2 * (reps - 1))];
	*hi = vals[(int)ceil((1 + level) / 2 * (reps - 1))];
}

void kb_diff_ci(const double *a, size_t na, const double *b, size_t nb,
		double level, int reps, uint64_t seed, double *lo, double *hi)
{
	double *buf = kb_malloc(((na > nb ? na : nb) + 1) * sizeof(*buf));
	double *vals = kb_malloc((size_t)reps * sizeof(*vals));
	uint64_t st = seed;
	int i;

	for (i = 0; i < reps; i++)
		vals[i] = resampled_median(b, nb, buf, &st) - resampled_median(a, na, buf, &st);
	interval(vals, reps, level, lo, hi);
	free(buf);
	free(vals);
}

/* The continued fraction of the incomplete beta function (modified
 * Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 500; m++) {
		double aa = m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)), del;

		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularised incomplete beta function I_x(a, b). */
double kb_beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}
