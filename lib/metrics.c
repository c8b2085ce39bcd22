#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* The values of 'sha' after the warm-up, in *out (malloc'd); their boots
 * in *boots when asked for. */
static size_t values_of(const struct kb_msample *v, size_t n, const char *sha, int warmup,
			double **out, int **boots)
{
	size_t i, k = 0;

	*out = kb_malloc((n + 1) * sizeof(**out));
	if (boots)
		*boots = kb_malloc((n + 1) * sizeof(**boots));
	for (i = 0; i < n; i++) {
		if (!sha || strcmp(v[i].sha, sha) || v[i].run <= warmup)
			continue;
		if (boots)
			(*boots)[k] = v[i].boot;
		(*out)[k++] = v[i].value;
	}
	return k;
}

double kb_level_mean(const struct kb_msample *v, size_t n, const char *sha, int warmup)
{
	double *x, m;
	size_t k = values_of(v, n, sha, warmup, &x, NULL);

	m = k ? kb_mean(x, k) : NAN;
	free(x);
	return m;
}

json_t *kb_level_row(const struct kb_msample *v, size_t n, const char *label,
		     const char *sha, int warmup, double base_mean)
{
	double *x, mean, sd;
	size_t k = values_of(v, n, sha, warmup, &x, NULL);
	json_t *r = json_pack("{s:s, s:s, s:i}", "label", label, "commit", sha ? sha : "",
			      "n", (int)k);

	if (k) {
		mean = kb_mean(x, k);
		sd = kb_stddev(x, k);
		json_object_set_new(r, "mean", json_real(mean));
		json_object_set_new(r, "stddev_pct", json_real(k > 1 && mean ?
							       100 * sd / fabs(mean) : 0));
		if (base_mean && !isnan(base_mean))
			json_object_set_new(r, "change_pct",
					    json_real(100 * (mean / base_mean - 1)));
	}
	free(x);
	return r;
}

double kb_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, mb, va, vb, se2, t, df, p;

	if (na < 2 || nb < 2)
		return 1;
	ma = kb_mean(a, na);
	mb = kb_mean(b, nb);
	va = kb_stddev(a, na);
	vb = kb_stddev(b, nb);
	va = va * va / (double)na;
	vb = vb * vb / (double)nb;
	se2 = va + vb;
	if (!(se2 > 0))
		return ma == mb ? 1 : 0;
	t = (mb - ma) / sqrt(se2);
	df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	p = kb_beta_inc(df / 2, 0.5, df / (df + t * t));
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

static int cmp_boot(const void *x, const void *y)
{
	const double *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The means of the boots of the values 'x' (boot 'boot[i]'), in place in
 * 'x'; returns how many boots. */
static size_t boot_means(double *x, const int *boot, size_t n)
{
	double *pair = kb_malloc((2 * n + 1) * sizeof(*pair));
	size_t i, k = 0, start;

	for (i = 0; i < n; i++) {
		pair[2 * i] = boot[i];
		pair[2 * i + 1] = x[i];
	}
	qsort(pair, n, 2 * sizeof(*pair), cmp_boot);
	for (start = 0; start < n; k++) {
		double sum = 0;

		for (i = start; i < n && pair[2 * i] == pair[2 * start]; i++)
			sum += pair[2 * i + 1];
		x[k] = sum / (double)(i - start);
		start = i;
	}
	free(pair);
	return k;
}

void kb_metric_moved(const struct kb_msample *v, size_t n, const char *good,
		     const char *bad, int warmup, double alpha, struct kb_moved *out)
{
	double *g, *b, mg, mb;
	int *bg, *bb, positive = 1;
	size_t ng = values_of(v, n, good, warmup, &g, &bg), nb = values_of(v, n, bad, warmup,
									   &b, &bb), i;

	memset(out, 0, sizeof(*out));
	out->p = 1;
	out->basis = "boots";
	mg = ng ? kb_mean(g, ng) : NAN;
	mb = nb ? kb_mean(b, nb) : NAN;
	if (ng && nb && mg)
		out->change_pct = 100 * (mb / mg - 1);
	for (i = 0; i < ng; i++)
		positive &= g[i] > 0;
	for (i = 0; i < nb; i++)
		positive &= b[i] > 0;
	if (positive) {
		for (i = 0; i < ng; i++)
			g[i] = log(g[i]);
		for (i = 0; i < nb; i++)
			b[i] = log(b[i]);
	}
	{
		double *gm = kb_malloc((ng + 1) * sizeof(*gm)), *bm = kb_malloc((nb + 1) * sizeof(*bm));
		size_t kg, kb;

		memcpy(gm, g, ng * sizeof(*g));
		memcpy(bm, b, nb * sizeof(*b));
		kg = boot_means(gm, bg, ng);
		kb = boot_means(bm, bb, nb);
		out->boots_good = kg;
		out->boots_bad = kb;
		if (kg >= 2 && kb >= 2) {
			out->tested = 1;
			out->p = kb_welch_p(gm, kg, bm, kb);
		} else if (ng >= 2 && nb >= 2) {
			/* a side of one boot: its runs are all there is */
			out->tested = 1;
			out->basis = "runs";
			out->p = kb_welch_p(g, ng, b, nb);
		}
		free(gm);
		free(bm);
	}
	out->moved = out->tested && out->p < alpha;
	free(g);
	free(b);
	free(bg);
	free(bb);
}
