#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "rand.h"
#include "test.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

TEST(test_stats__location_and_spread)
{
	double v[] = { 5, 1, 4, 2, 3, 100 };

	CHECK(NEAR(kb_median(v, 6), 3.5, 1e-12));
	CHECK(NEAR(kb_median(v, 5), 3, 1e-12));
	CHECK(NEAR(kb_mean(v, 5), 3, 1e-12));
	CHECK(NEAR(kb_stddev(v, 5), sqrt(2.5), 1e-12));
	/* MAD of 1..5 around 3: |d| = 2 1 0 1 2, median 1 */
	CHECK(NEAR(kb_mad(v, 5), 1.4826, 1e-9));
	CHECK(NEAR(kb_quantile(v, 5, 0.25), 2, 1e-12));
}

static int cmp_ref(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The quantile found without sorting is the sorted sample's, interpolated,
 * on samples with and without ties, small and large, in any order. */
TEST(test_stats__quantile_is_the_sorted_samples)
{
	static const double qs[] = { 0, 0.05, 0.25, 0.5, 0.7, 0.95, 1 };
	uint64_t seed = 17;
	double v[700], s[700];
	size_t n, t, k, i;

	for (t = 0; t < 400; t++) {
		n = 1 + trand(&seed) % 700;
		k = t % 4;
		for (i = 0; i < n; i++)
			v[i] = k == 0 ? (double)(trand(&seed) % 1000) / 7 :
			       k == 1 ? (double)(trand(&seed) % 3) :
			       k == 2 ? (double)i : (double)(n - i);
		memcpy(s, v, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_ref);
		for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
			double pos = qs[i] * (double)(n - 1), want;
			size_t j = (size_t)pos;

			want = j + 1 < n ? s[j] + (pos - (double)j) * (s[j + 1] - s[j]) : s[n - 1];
			CHECK(kb_quantile(v, n, qs[i]) == want);
		}
	}
}

TEST(test_stats__mann_whitney_exact_small)
{
	/* complete separation of 4 and 4: two-sided p = 2 / C(8,4) */
	double a[] = { 1, 2, 3, 4 }, b[] = { 5, 6, 7, 8 };
	double c[] = { 1, 3, 5, 7 }, d[] = { 2, 4, 6, 8 };

	CHECK(NEAR(kb_mann_whitney_p(a, 4, b, 4), 2.0 / 70.0, 1e-12));
	CHECK(NEAR(kb_mann_whitney_p(b, 4, a, 4), 2.0 / 70.0, 1e-12));
	CHECK(kb_mann_whitney_p(c, 4, d, 4) > 0.5);
}

TEST(test_stats__mann_whitney_and_ks_power_and_level)
{
	uint64_t st = 42;
	int reject_null = 0, reject_alt = 0, ks_null = 0, r, i;

	for (r = 0; r < 400; r++) {
		double a[30], b[30], c[30];

		for (i = 0; i < 30; i++) {
			a[i] = kb_rand_normal(&st);
			b[i] = kb_rand_normal(&st);
			c[i] = kb_rand_normal(&st) + 1.5;
		}
		reject_null += kb_mann_whitney_p(a, 30, b, 30) < 0.05;
		ks_null += kb_ks_p(a, 30, b, 30) < 0.05;
		reject_alt += kb_mann_whitney_p(a, 30, c, 30) < 0.001;
	}
	/* about 5% false rejections, and a 1.5 sigma shift found nearly always */
	CHECK_MSG(reject_null >= 8 && reject_null <= 36, "null rejections %d/400", reject_null);
	CHECK_MSG(ks_null <= 36, "KS null rejections %d/400", ks_null);
	CHECK_MSG(reject_alt >= 390, "shift found %d/400", reject_alt);
}

TEST(test_stats__spearman)
{
	double x[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[] = { 2, 4, 5, 9, 10, 30, 31, 40 };
	double z[] = { 8, 7, 6, 5, 4, 3, 2, 1 }, p;

	CHECK(NEAR(kb_spearman(x, y, 8, &p), 1.0, 1e-12) && p < 1e-3);
	CHECK(NEAR(kb_spearman(x, z, 8, &p), -1.0, 1e-12));
}

TEST(test_stats__intervals)
{
	uint64_t st = 7;
	double a[200], b[200], lo, hi;
	int i;

	for (i = 0; i < 200; i++) {
		a[i] = kb_rand_normal(&st);
		b[i] = kb_rand_normal(&st) + 2;
	}
	kb_diff_ci(a, 200, b, 200, 0.90, 500, 1, &lo, &hi);
	CHECK_MSG(fabs((lo + hi) / 2 - 2) < 0.4 && hi - lo > 0.1 && hi - lo < 1, "[%g, %g]", lo, hi);
}

TEST(test_stats__normal_quantile)
{
	CHECK(fabs(kb_normal_quantile(0.5)) < 1e-9);
	CHECK(fabs(kb_normal_quantile(0.975) - 1.959964) < 1e-5);
	CHECK(fabs(kb_normal_quantile(0.025) + 1.959964) < 1e-5);
	CHECK(fabs(kb_normal_quantile(1 - 0.0005) - 3.290527) < 1e-5);
	/* far in the tail, where 1 - p keeps few digits */
	CHECK(fabs(kb_normal_quantile(1 - 2.5e-6) - 4.564788) < 1e-4);
	CHECK(fabs(kb_normal_cdf(kb_normal_quantile(0.3)) - 0.3) < 1e-12);
}

/* The detectable size against the textbook figures (two-sided 5%, 80%:
 * 2.80 standard errors; 0.1%, 90%: 4.57), and its power against a
 * simulation of the test it is for: GOOD and BAD booted in pairs, each
 * boot with its own offset (boot spread tau) and r runs (run noise
 * sigma), the change told from the mean of the pairs' differences. */
TEST(test_stats__detectable_size)
{
	const double tau = 0.03, sigma = 0.02, alpha = 0.001;
	const int r = 5, pairs = 12, trials = 4000;
	double se = sqrt(2 * (tau * tau + sigma * sigma / r) / pairs), d, z;
	uint64_t seed = 7;
	int found = 0, found_half = 0;

	CHECK(NEAR(kb_detectable(1, 0.05, 0.80), 1.95996 + 0.84162, 1e-3));
	CHECK(NEAR(kb_detectable(1, 0.001, 0.90), 3.29053 + 1.28155, 1e-3));
	CHECK(NEAR(kb_detectable(0.5, 0.05, 0.80), 0.5 * (1.95996 + 0.84162), 1e-3));
	CHECK(NEAR(kb_test_power(kb_detectable(2, 0.01, 0.9), 2, 0.01), 0.9, 1e-6));
	/* the far tail counts: at d = 0 the power is the level */
	CHECK(NEAR(kb_test_power(0, 1, 0.05), 0.05, 1e-6));
	d = kb_detectable(se, alpha, 0.90);
	z = kb_normal_quantile(1 - alpha / 2);
	for (int t = 0; t < trials; t++) {
		double sum = 0, sum_half = 0;

		for (int p = 0; p < pairs; p++) {
			double g = tau * kb_rand_normal(&seed), b = tau * kb_rand_normal(&seed);

			for (int k = 0; k < r; k++) {
				g += sigma * kb_rand_normal(&seed) / r;
				b += sigma * kb_rand_normal(&seed) / r;
			}
			sum += b + d - g;
			sum_half += b + d / 2 - g;
		}
		found += fabs(sum / pairs) / se > z;
		found_half += fabs(sum_half / pairs) / se > z;
	}
	/* 90% of 4000: 3600, binomial sd 19 */
	CHECK_MSG(found > 3520 && found < 3680, "found %d of %d", found, trials);
	/* half the size is found far less often */
	CHECK_MSG(found_half < 0.4 * trials, "half found %d of %d", found_half, trials);
}
