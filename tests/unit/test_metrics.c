#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "test.h"

static int near(double x, double want, double tol)
{
	return fabs(x - want) <= tol * fabs(want);
}

/* The p-values of R's t.test (Welch) and of the t distribution
 * integrated numerically, to 1e-6. */
TEST(test_metrics__welch)
{
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	const double c[] = { 10.1, 9.8, 10.3 }, d[] = { 11.0, 12.5 };
	const double e[] = { 100, 101, 99, 100.5 }, f[] = { 100.2, 99.9, 100.4, 100.1, 99.7, 100.3 };
	const double same[] = { 4, 4, 4 }, other[] = { 5, 5 };

	CHECK(near(kb_welch_p(a, 5, b, 5), 0.0010528257933674, 1e-6));
	CHECK(near(kb_welch_p(b, 5, a, 5), 0.0010528257933674, 1e-6));
	/* a fractional number of degrees of freedom (1.08) */
	CHECK(near(kb_welch_p(c, 3, d, 2), 0.2570493008260525, 1e-6));
	CHECK(near(kb_welch_p(e, 4, f, 6), 0.9578911318341157, 1e-6));
	CHECK(kb_welch_p(a, 5, a, 5) == 1);
	/* too few to have a spread; no spread at all */
	CHECK(kb_welch_p(a, 1, b, 5) == 1 && kb_welch_p(a, 5, b, 0) == 1);
	CHECK(kb_welch_p(same, 3, same, 2) == 1);
	CHECK(kb_welch_p(same, 3, other, 2) == 0);
}

/* Samples of commit 'sha': 'boots' boots of 'runs' runs each, the value
 * of boot k run r: level * (1 + spread * pattern) with a pattern that
 * is the same for every commit. */
static size_t add(struct kb_msample *v, size_t n, const char *sha, int first_boot, int boots,
		  int runs, double level, double spread)
{
	static const double pattern[] = { 0.3, -0.5, 0.9, -0.1, -0.6, 0.4, 0.2, -0.8 };
	int k, r;

	for (k = 0; k < boots; k++)
		for (r = 1; r <= runs; r++) {
			v[n].sha = sha;
			v[n].boot = first_boot + k;
			v[n].run = r;
			v[n].value = level * (1 + spread * pattern[(k * runs + r) % 8]);
			n++;
		}
	return n;
}

TEST(test_metrics__moved_on_boot_means)
{
	struct kb_msample v[200];
	struct kb_moved m;
	size_t n = 0;

	/* 3% run noise, a 10% step: moved, with boots as the basis */
	n = add(v, n, "g", 1, 3, 5, 100, 0.03);
	n = add(v, n, "b", 1, 3, 5, 110, 0.03);
	kb_metric_moved(v, n, "g", "b", 0, KB_MOVED_ALPHA, &m);
	CHECK(m.tested && m.moved && m.p < 0.001 && !strcmp(m.basis, "boots"));
	CHECK(m.boots_good == 3 && m.boots_bad == 3);
	CHECK(near(m.change_pct, 10, 1e-9));
	/* the same level on both sides: not moved */
	n = 0;
	n = add(v, n, "g", 1, 3, 5, 100, 0.03);
	n = add(v, n, "b", 1, 4, 5, 100, 0.03);
	kb_metric_moved(v, n, "g", "b", 0, KB_MOVED_ALPHA, &m);
	CHECK(m.tested && !m.moved && m.p > 0.1);
	/* boots that are apart count once each: a step as large as the
	 * spread of the boots does not move, however many runs each had */
	n = 0;
	n = add(v, n, "g", 1, 1, 20, 100, 0.001);
	n = add(v, n, "g", 2, 1, 20, 104, 0.001);
	n = add(v, n, "b", 1, 1, 20, 102, 0.001);
	n = add(v, n, "b", 2, 1, 20, 106, 0.001);
	kb_metric_moved(v, n, "g", "b", 0, KB_MOVED_ALPHA, &m);
	CHECK(m.tested && !m.moved && !strcmp(m.basis, "boots"));
	/* one boot of BAD: its runs stand in */
	n = 0;
	n = add(v, n, "g", 1, 3, 5, 100, 0.03);
	n = add(v, n, "b", 7, 1, 5, 120, 0.03);
	kb_metric_moved(v, n, "g", "b", 0, KB_MOVED_ALPHA, &m);
	CHECK(m.tested && m.moved && !strcmp(m.basis, "runs") && m.boots_bad == 1);
	/* no value at BAD: nothing to test */
	kb_metric_moved(v, n, "g", "x", 0, KB_MOVED_ALPHA, &m);
	CHECK(!m.tested && !m.moved && m.p == 1 && m.change_pct == 0);
}

TEST(test_metrics__warmup_and_values_below_zero)
{
	struct kb_msample v[100];
	struct kb_moved m;
	size_t n = 0, i;

	n = add(v, n, "g", 1, 3, 5, 100, 0.01);
	n = add(v, n, "b", 1, 3, 5, 100, 0.01);
	/* the first run of each boot of BAD is far off: warm-up */
	for (i = 0; i < n; i++)
		if (!strcmp(v[i].sha, "b") && v[i].run == 1)
			v[i].value = 300;
	kb_metric_moved(v, n, "g", "b", 1, KB_MOVED_ALPHA, &m);
	CHECK(m.tested && !m.moved);
	kb_metric_moved(v, n, "g", "b", 0, KB_MOVED_ALPHA, &m);
	CHECK(m.tested && m.moved);
	/* a metric that crosses 0 is tested on its values, not their log */
	n = 0;
	n = add(v, n, "g", 1, 3, 5, -1, 0.5);
	n = add(v, n, "b", 1, 3, 5, 1, 0.5);
	kb_metric_moved(v, n, "g", "b", 0, KB_MOVED_ALPHA, &m);
	CHECK(m.tested && m.moved && near(m.change_pct, -200, 1e-9));
}

TEST(test_metrics__level_rows)
{
	struct kb_msample v[4] = {
		{ "g", 1, 1, 1000 }, { "g", 1, 2, 10 }, { "g", 1, 3, 20 }, { "b", 2, 2, 45 },
	};
	json_t *r;

	CHECK(near(kb_level_mean(v, 4, "g", 1), 15, 1e-12));
	CHECK(isnan(kb_level_mean(v, 4, "x", 0)));
	r = kb_level_row(v, 4, "good", "g", 1, 15);
	CHECK(!strcmp(json_string_value(json_object_get(r, "label")), "good"));
	CHECK(!strcmp(json_string_value(json_object_get(r, "commit")), "g"));
	CHECK(json_integer_value(json_object_get(r, "n")) == 2);
	CHECK(near(json_real_value(json_object_get(r, "mean")), 15, 1e-12));
	/* the sample standard deviation, 7.07, is 47% of the mean */
	CHECK(near(json_real_value(json_object_get(r, "stddev_pct")), 100 * sqrt(50) / 15, 1e-9));
	CHECK(fabs(json_real_value(json_object_get(r, "change_pct"))) < 1e-9);
	json_decref(r);
	r = kb_level_row(v, 4, "bad", "b", 1, 15);
	CHECK(json_integer_value(json_object_get(r, "n")) == 1);
	CHECK(json_real_value(json_object_get(r, "stddev_pct")) == 0);
	CHECK(near(json_real_value(json_object_get(r, "change_pct")), 200, 1e-9));
	json_decref(r);
	/* no value: no mean, no change; no base: no change */
	r = kb_level_row(v, 4, "culprit", "x", 0, 15);
	CHECK(json_integer_value(json_object_get(r, "n")) == 0 && !json_object_get(r, "mean") &&
	      !json_object_get(r, "change_pct"));
	json_decref(r);
	r = kb_level_row(v, 4, "good", "g", 0, NAN);
	CHECK(json_object_get(r, "mean") && !json_object_get(r, "change_pct"));
	json_decref(r);
	r = kb_level_row(v, 4, "good", NULL, 0, 1);
	CHECK(!strcmp(json_string_value(json_object_get(r, "commit")), "") &&
	      json_integer_value(json_object_get(r, "n")) == 0);
	json_decref(r);
}
