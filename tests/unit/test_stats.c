#include <math.h>

#include "stats.h"
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
