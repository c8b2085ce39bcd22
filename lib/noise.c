#include "noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

double kb_noise_within(const double *x, const size_t *len, size_t nboots)
{
	double *d = NULL, s;
	size_t n = 0, alloc = 0, off = 0, b, i, j;

	for (b = 0; b < nboots; off += len[b], b++)
		for (i = 0; i < len[b]; i++)
			for (j = i + 1; j < len[b]; j++) {
				KB_ALLOC_GROW(d, n + 1, alloc);
				d[n++] = fabs(x[off + i] - x[off + j]);
			}
	/* |x_i - x_j| of two normal runs is half-normal with scale sigma
	 * sqrt(2): its median is 0.6745 sqrt(2) sigma */
	s = n ? kb_median(d, n) / 0.95387 : 0;
	free(d);
	return s;
}

double kb_huber_location(const double *x, const double *sd, size_t n, double scale)
{
	double mu, num, den;
	int iter;
	size_t i;

	if (!n)
		return NAN;
	if (!sd && !(scale > 0))
		return kb_mean(x, n);
	mu = kb_median(x, n);
	for (iter = 0; iter < 30; iter++) {
		double prev = mu;

		num = den = 0;
		for (i = 0; i < n; i++) {
			double s = sd ? sd[i] : scale, r, w;

			if (!(s > 0))
				s = 1e-12;
			r = fabs(x[i] - mu) / s;
			w = (r > 1.5 ? 1.5 / r : 1) / (s * s);
			num += w * x[i];
			den += w;
		}
		mu = num / den;
		if (fabs(mu - prev) < 1e-12 * (1 + fabs(mu)))
			break;
	}
	return mu;
}

double kb_biweight_location(const double *x, size_t n, double scale)
{
	double mu;

	if (!n)
		return NAN;
	mu = kb_median(x, n);
	if (!(scale > 0) || n < 3)
		return n < 3 ? kb_mean(x, n) : mu;
	for (int iter = 0; iter < 30; iter++) {
		double num = 0, den = 0, prev = mu;

		for (size_t i = 0; i < n; i++) {
			double u = (x[i] - mu) / (4.685 * scale), w;

			if (fabs(u) >= 1)
				continue;
			w = (1 - u * u) * (1 - u * u);
			num += w * x[i];
			den += w;
		}
		if (!(den > 0))
			break;
		mu = num / den;
		if (fabs(mu - prev) < 1e-12 * (1 + fabs(mu)))
			break;
	}
	return mu;
}

double kb_chi2_quantile(double p, double k)
{
	double z = kb_normal_quantile(p), a;

	a = 1 - 2 / (9 * k) + z * sqrt(2 / (9 * k));
	return k * a * a * a;
}

double kb_noise_boots(const double *d, const double *e, size_t n, double pool_p, int *df)
{
	double stat = 0, sum_d2 = 0, sum_e = 0, *r2, cap;
	size_t i;

	*df = -1;
	if (!n)
		return 0;
	/* a pair with an outlying boot weighs no more than nine times the
	 * typical pair (from five pairs on) */
	r2 = kb_malloc(n * sizeof(*r2));
	for (i = 0; i < n; i++)
		r2[i] = d[i] * d[i] / (e[i] > 0 ? e[i] : 1e-300);
	cap = n >= 5 ? 9 * kb_median(r2, n) / 0.4549 : INFINITY;
	for (i = 0; i < n; i++) {
		double ri = fmin(r2[i], cap);

		stat += ri;
		sum_d2 += ri * e[i];
		sum_e += e[i];
	}
	free(r2);
	if (stat <= kb_chi2_quantile(1 - pool_p, (double)n))
		return 0;
	*df = (int)n;
	/* E[d^2] = 2 tau^2 + e */
	return fmax(0, (sum_d2 - sum_e) / (2 * (double)n));
}

/* The log likelihood of the walk with step variance q, and (when d is
 * set) its smoothed drift.  The walk starts anywhere: at the first
 * observation, and again at every observation marked 'reset' (a jump of
 * the machine's speed), which carry no likelihood.  innov[i] (when set):
 * observation i's innovation over its standard deviation (0 where the
 * walk starts), pred[i] the walk's level predicted for it. */
static double walk(const size_t *t, const double *y, const double *v, const unsigned char *reset,
		   size_t n, size_t nt, double q, double big, double *d, double *pvar,
		   double *innov, double *pred)
{
	double *af = kb_malloc(nt * sizeof(*af)), *pf = kb_malloc(nt * sizeof(*pf));
	double a = 0, p = big, ll = 0;
	size_t i = 0, k;
	int seen = 0;

	for (k = 0; k < nt; k++) {
		if (k)
			p += q;
		for (; i < n && t[i] == k; i++) {
			double s, e, g;

			if (reset[i])
				p = big;
			s = p + v[i];
			e = y[i] - a;
			g = p / s;
			if (innov) {
				innov[i] = seen && !reset[i] ? e / sqrt(s) : 0;
				pred[i] = a;
			}
			if (seen && !reset[i])
				ll -= 0.5 * (log(s) + e * e / s);
			seen = 1;
			a += g * e;
			p -= g * p;
		}
		af[k] = a;
		pf[k] = p;
	}
	if (d) {
		/* Rauch-Tung-Striebel, backwards; a jump's reset makes the
		 * walk after it ignore what came before (the gain is 0) */
		d[nt - 1] = af[nt - 1];
		pvar[nt - 1] = pf[nt - 1];
		for (k = nt - 1; k-- > 0;) {
			double pp = pf[k] + q, j;

			for (i = 0; i < n; i++)
				if (reset[i] && t[i] == k + 1)
					pp = big;
			j = pp > 0 ? pf[k] / pp : 0;
			d[k] = af[k] + j * (d[k + 1] - af[k]);
			pvar[k] = pf[k] + j * j * (pvar[k + 1] - pp);
		}
	}
	free(af);
	free(pf);
	return ll;
}

static double best_q(const size_t *t, const double *y, const double *v, const unsigned char *reset,
		     size_t n, size_t nt, double vbar, double big)
{
	static const double grid[] = { 0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3 };
	double best_ll = -INFINITY, q = 0;

	for (size_t i = 0; i < sizeof(grid) / sizeof(grid[0]); i++) {
		double ll = walk(t, y, v, reset, n, nt, grid[i] * vbar, big, NULL, NULL, NULL, NULL);

		/* a larger step must earn its place: one unit of log
		 * likelihood */
		if (ll > best_ll + (i ? 1.0 : 0)) {
			best_ll = ll;
			q = grid[i] * vbar;
		}
	}
	return q;
}

/*
 * The steady machine's (q = 0) likeliest jump: the observation where the
 * walk starting anew raises the likelihood most, when it raises it by
 * more than one observation 4.9 standard deviations off would (12, a
 * chance of about one in a million at each); else 0.
 */
static size_t best_jump(const size_t *t, const double *y, const double *v,
			unsigned char *reset, size_t n, size_t nt, double big)
{
	double l0 = walk(t, y, v, reset, n, nt, 0, big, NULL, NULL, NULL, NULL), gain = 12;
	size_t best = 0;

	for (size_t j = 1; j < n; j++) {
		double l;

		if (reset[j])
			continue;
		reset[j] = 1;
		l = walk(t, y, v, reset, n, nt, 0, big, NULL, NULL, NULL, NULL);
		reset[j] = 0;
		if (l - l0 > gain) {
			gain = l - l0;
			best = j;
		}
	}
	return best;
}

/*
 * A machine's speed wanders slowly (the walk) and jumps now and then
 * (other work starts or stops).  An observation far off the walk's
 * prediction (4.5 standard deviations) is a jump when the next one stays
 * with it, an outlying boot (its variance made large) when the next one
 * comes back.  A jump is also where the walk starting anew fits a steady
 * machine far better (best_jump()), though no one observation is that far
 * off.  The largest surprise can come one observation late, where the
 * first after the jump pulled the walk part of the way: the jump is
 * before the earliest of those leading up to it that stand nearer its
 * level than the walk's.  Between a jump's two observations the drift is
 * either level: the boots there get the midpoint, with the jump's half
 * squared added to their variance.
 */
double kb_drift_smooth(const size_t *t, const double *y, const double *v, size_t n,
		       size_t nt, double *d, double *pvar)
{
	double vbar = 0, q, big, *vv, *innov, *pred;
	unsigned char *reset;
	size_t i, k;

	if (!nt)
		return 0;
	if (!n) {
		for (i = 0; i < nt; i++) {
			d[i] = 0;
			pvar[i] = 1e12;
		}
		return 0;
	}
	for (i = 0; i < n; i++)
		vbar += v[i] / (double)n;
	big = 1e8 * (vbar > 0 ? vbar : 1);
	vv = kb_malloc(n * sizeof(*vv));
	memcpy(vv, v, n * sizeof(*vv));
	innov = kb_calloc(n, sizeof(*innov));
	pred = kb_calloc(n, sizeof(*pred));
	reset = kb_calloc(n, 1);
	/* jumps and outliers first, seen against a steady machine; then
	 * the walk's step, by likelihood, with them set apart */
	q = 0;
	for (int iter = 0; iter < 12; iter++) {
		size_t worst = 0, jump;
		double wz = 0, nq;

		walk(t, y, vv, reset, n, nt, q, big, NULL, NULL, innov, pred);
		for (i = 0; i < n; i++)
			if (fabs(innov[i]) > wz) {
				wz = fabs(innov[i]);
				worst = i;
			}
		/* a jump no one observation shows: where the boots after
		 * it are few standard deviations off each (a large boot
		 * spread, a gap of probes between the endpoints), but
		 * together far off a steady machine */
		if (wz < 4.5 && q == 0 && (jump = best_jump(t, y, vv, reset, n, nt, big)) > 0) {
			reset[jump] = 1;
			continue;
		}
		if (wz < 4.5) {
			nq = best_q(t, y, vv, reset, n, nt, vbar, big);
			if (nq == q)
				break;
			q = nq;
			continue;
		}
		if (worst + 1 < n && !reset[worst + 1] &&
		    fabs(y[worst + 1] - pred[worst]) < fabs(y[worst + 1] - y[worst]))
			vv[worst] *= 1e4;
		else {
			/* where the jump came: the walk, pulled part of the
			 * way by the first observations after it, shows the
			 * largest surprise one or more later; those before
			 * that stand nearer the level after it than the
			 * walk's prediction are after it too */
			size_t j = worst;

			while (j > 1 && !reset[j - 1] &&
			       fabs(y[j - 1] - y[worst]) < fabs(y[j - 1] - pred[j - 1]))
				j--;
			reset[j] = 1;
		}
	}
	walk(t, y, vv, reset, n, nt, q, big, d, pvar, NULL, NULL);
	for (i = 1; i < n; i++) {
		size_t a = t[i - 1], b = t[i];
		double mid, half;

		if (!reset[i] || b <= a + 1)
			continue;
		mid = (d[a] + d[b]) / 2;
		half = (d[b] - d[a]) / 2;
		for (k = a + 1; k < b; k++) {
			pvar[k] = fmax(pvar[k], (pvar[a] + pvar[b]) / 2) + half * half;
			d[k] = mid;
		}
	}
	/* an observation set apart may be a stretch of another speed that
	 * no other endpoint saw (the machine busy for a while, then not):
	 * between its neighbours, the boots measured there are known no
	 * better than its distance from the walk.  Taken for noise, such a
	 * stretch made every probe measured in it look a step away */
	for (i = 0; i + 1 < n; i++) {
		size_t a, b;
		double dev;

		if (!(vv[i] > v[i]))
			continue;
		dev = y[i] - d[t[i]];
		a = i && t[i - 1] < t[i] ? t[i - 1] + 1 : t[i];
		b = t[i + 1] > t[i] ? t[i + 1] : t[i] + 1;
		for (k = a; k < b && k < nt; k++)
			pvar[k] += dev * dev;
	}
	free(vv);
	free(innov);
	free(pred);
	free(reset);
	return q;
}

/*
 * What the 'k' - 'drop' smallest of k draws of a chi-square with one
 * degree of freedom come to together (Blom's scores): the largest are
 * left out where a culprit's step may show in one or two of them.
 */
static double kept_expect(size_t k, size_t drop)
{
	/* asked for the same k and drop again and again while the offsets'
	 * spread is fitted: the last answers kept */
	static __thread struct {
		size_t k, drop;
		double expect;
	} seen[16];
	static __thread int nseen, next;
	double expect = 0;

	for (int j = 0; j < nseen; j++)
		if (seen[j].k == k && seen[j].drop == drop)
			return seen[j].expect;
	for (size_t i = 0; i + drop < k; i++) {
		double z = kb_normal_quantile((1 + ((double)i + 1 - 0.375) / ((double)k + 0.25)) / 2);

		expect += z * z;
	}
	seen[next].k = k;
	seen[next].drop = drop;
	seen[next].expect = expect;
	next = (next + 1) % 16;
	if (nseen < 16)
		nseen++;
	return expect;
}

/* The scale of 'k' ratios each chi-square with one degree of freedom
 * times that scale, from all but the 'drop' largest.  Sorts 'ratio'. */
static double trimmed_scale(double *ratio, size_t k, size_t drop)
{
	double sum = 0, expect = kept_expect(k, drop);

	kb_sort_doubles(ratio, k);
	for (size_t i = 0; i + drop < k; i++)
		sum += ratio[i];
	return expect > 0 ? sum / expect : 0;
}

/* all but the 'drop' largest against their own variance, each weighed by
 * the inverse of its variance squared, until L settles */
double kb_offsets_fit(const double *d2, const double *e, size_t k, size_t drop)
{
	double l = 0, corr = kept_expect(k, drop) / (double)(k - drop);
	double *s = kb_malloc(k * sizeof(*s)), *t = kb_malloc(k * sizeof(*t));

	for (int iter = 0; iter < 100; iter++) {
		double num = 0, den = 0, thr, nl;
		size_t i;

		for (i = 0; i < k; i++)
			t[i] = s[i] = d2[i] / (e[i] + 2 * l);
		kb_sort_doubles(t, k);
		thr = t[k - drop - 1];
		for (i = 0; i < k; i++) {
			double v = e[i] + 2 * l;

			if (s[i] > thr)
				continue;
			num += (d2[i] / corr - e[i]) / (v * v);
			den += 2 / (v * v);
		}
		nl = den > 0 && num > 0 ? num / den : 0;
		if (fabs(nl - l) <= 1e-12 + 1e-6 * l) {
			l = nl;
			break;
		}
		l = nl;
	}
	free(s);
	free(t);
	return l;
}

/* trimmed_scale() of 'k' differences (d2 their squares, e their boots'
 * variance) against their variance with offsets of variance l, in t. */
static double scale_at(const double *d2, const double *e, size_t k, size_t drop, double l,
		       double *t)
{
	for (size_t i = 0; i < k; i++)
		t[i] = d2[i] / (e[i] + 2 * l);
	return trimmed_scale(t, k, drop);
}

/* the L at which the scale of the kept ones (scale_at()) comes down to a
 * chi-square's 10% point over its degrees of freedom */
double kb_offsets_bound(const double *d2, const double *e, size_t k, size_t drop)
{
	double *t = kb_malloc(k * sizeof(*t)), lo = 0, hi = 0, want;
	size_t i;

	want = kb_chi2_quantile(0.10, (double)(k - drop)) / (double)(k - drop);
	if (scale_at(d2, e, k, drop, 0, t) <= want) {
		free(t);
		return 0;
	}
	/* at hi every ratio is below 1/k of what the kept ones may sum to */
	for (i = 0; i < k; i++)
		hi += d2[i];
	hi = hi / (2 * want * kept_expect(k, drop)) * (double)k;
	for (int it = 0; it < 100; it++) {
		double l = (lo + hi) / 2;

		if (scale_at(d2, e, k, drop, l, t) > want)
			lo = l;
		else
			hi = l;
	}
	free(t);
	return (lo + hi) / 2;
}

/* each ratio d^2/e is chi-square with one degree of freedom times
 * 1 + 2 L/e: all but the largest against what as many smallest of k such
 * draws come to (trimmed_scale()), their sum taken as chi-square */
double kb_offsets_scale(const double *d, const double *e, size_t k, double q)
{
	double *ratio = kb_malloc(k * sizeof(*ratio)), scale;
	size_t drop = 1 + k / 10, i;

	for (i = 0; i < k; i++)
		ratio[i] = d[i] * d[i] / e[i];
	scale = trimmed_scale(ratio, k, drop);
	free(ratio);
	return scale / (kb_chi2_quantile(q, (double)(k - drop)) / (double)(k - drop));
}

int kb_offsets_shown(const double *d, const double *e, size_t k)
{
	return kb_offsets_scale(d, e, k, 0.90) > 1;
}
