/*
 * The noise estimates of performance bisection: the run noise, the boot
 * spread, the builds' offsets and the machine's drift, each recovered
 * from simulated boots of known spreads; and one boot never decisive when
 * boots differ as much as the step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "noise.h"
#include "perf.h"
#include "stats.h"
#include "test.h"
#include "util.h"

/* nboots boots of 'runs' runs: boot offsets of sd 'tau', run noise 'sigma' */
static void boots(uint64_t seed, size_t nboots, size_t runs, double tau, double sigma,
		  double *x, size_t *len, double *mean)
{
	uint64_t s = seed;

	for (size_t b = 0; b < nboots; b++) {
		double off = tau * kb_rand_normal(&s), sum = 0;

		len[b] = runs;
		for (size_t r = 0; r < runs; r++) {
			x[b * runs + r] = off + sigma * kb_rand_normal(&s);
			sum += x[b * runs + r];
		}
		if (mean)
			mean[b] = sum / (double)runs;
	}
}

TEST(test_noise__run_noise_recovered_free_of_boot_offsets)
{
	double x[60 * 5], m[60];
	size_t len[60];

	for (uint64_t seed = 1; seed <= 5; seed++) {
		/* boots ten times noisier than runs: the run noise must not
		 * see them */
		boots(seed, 60, 5, 0.10, 0.01, x, len, m);
		double s = kb_noise_within(x, len, 60);

		CHECK_MSG(fabs(s / 0.01 - 1) < 0.15, "seed %d: run noise %.4f, not 0.01",
			  (int)seed, s);
	}
}

TEST(test_noise__boot_spread_recovered_and_zero_when_absent)
{
	double x[80 * 5], m[80], d[40], e[40];
	size_t len[80];
	int df, zero = 0;

	for (uint64_t seed = 1; seed <= 5; seed++) {
		boots(seed, 80, 5, 0.03, 0.01, x, len, m);
		for (size_t i = 0; i < 40; i++) {
			d[i] = m[2 * i + 1] - m[2 * i];
			e[i] = 0.01 * 0.01 * (1.0 / 5 + 1.0 / 5);
		}
		double t2 = kb_noise_boots(d, e, 40, 0.10, &df);

		CHECK_MSG(fabs(sqrt(t2) / 0.03 - 1) < 0.25 && df == 40,
			  "seed %d: boot spread %.4f (df %d), not 0.03", (int)seed, sqrt(t2), df);
	}
	for (uint64_t seed = 1; seed <= 20; seed++) {
		boots(seed, 80, 5, 0, 0.01, x, len, m);
		for (size_t i = 0; i < 40; i++) {
			d[i] = m[2 * i + 1] - m[2 * i];
			e[i] = 0.01 * 0.01 * (1.0 / 5 + 1.0 / 5);
		}
		zero += kb_noise_boots(d, e, 40, 0.10, &df) == 0 && df < 0;
	}
	/* the test pools at 10%: most trials without boot spread find none */
	CHECK_MSG(zero >= 15, "no boot spread, but one found in %d of 20", 20 - zero);
}

/*
 * A line of 'k' + 1 commits, each with an offset of its own of sd 'lay'
 * (its build's code layout), each measured over two boots of five runs
 * (boot spread and run noise 1%): d[i], the difference of commit i + 1
 * from commit i, d2 its square, e the variance its boots give it.
 */
static void offsets(uint64_t seed, size_t k, double lay, double *d, double *d2, double *e)
{
	uint64_t s = seed;
	double prev = 0, one = 0.01 * 0.01 / 2 + 0.01 * 0.01 / 10;

	for (size_t i = 0; i <= k; i++) {
		double z = lay * kb_rand_normal(&s);

		for (int b = 0; b < 2; b++) {
			z += 0.01 * kb_rand_normal(&s) / 2;
			for (int r = 0; r < 5; r++)
				z += 0.01 * kb_rand_normal(&s) / 10;
		}
		if (i) {
			d[i - 1] = z - prev;
			d2[i - 1] = d[i - 1] * d[i - 1];
			e[i - 1] = 2 * one;
		}
		prev = z;
	}
}

TEST(test_noise__offsets_recovered_and_their_bound_above_them)
{
	double d[60], d2[60], e[60], fit[20];
	int covered = 0, shown = 0;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		/* offsets of 1%: each difference holds two of them beside
		 * its boots' 0.8% */
		offsets(seed, 60, 0.01, d, d2, e);
		fit[seed - 1] = sqrt(kb_offsets_fit(d2, e, 60, 7));
		covered += kb_offsets_bound(d2, e, 60, 7) >= 0.01 * 0.01;
		CHECK_MSG(kb_offsets_bound(d2, e, 60, 7) >= kb_offsets_fit(d2, e, 60, 7),
			  "seed %d: the bound below the fit", (int)seed);
		shown += kb_offsets_shown(d, e, 60);
	}
	kb_sort_doubles(fit, 20);
	CHECK_MSG(fabs((fit[9] + fit[10]) / 2 / 0.01 - 1) < 0.15,
		  "offsets of 1%% fitted at %.4f (median of 20)", (fit[9] + fit[10]) / 2);
	/* a bound at 90%: below the truth in about 2 of 20 */
	CHECK_MSG(covered >= 15, "the bound above the offsets in %d of 20", covered);
	CHECK_MSG(shown >= 19, "offsets of 1%% shown in %d of 20", shown);
}

/*
 * Without offsets the differences are their boots' alone: offsets are
 * seen at about the test's 10% (6 of 40 here).  A culprit's step in one
 * of them (5%, six times its boots) is among those left out, so it is not
 * taken for offsets; but the rest are then the smallest of fewer draws
 * than the test counts, and offsets are seen more often (11 of 40 here),
 * where the step left in would show them every time.
 */
TEST(test_noise__offsets_not_seen_where_there_are_none)
{
	double d[24], d2[24], e[24];
	int shown = 0, shown_step = 0, fitted = 0, fitted_step = 0;

	for (uint64_t seed = 1; seed <= 40; seed++) {
		offsets(seed, 24, 0, d, d2, e);
		shown += kb_offsets_shown(d, e, 24);
		fitted += sqrt(kb_offsets_fit(d2, e, 24, 3)) > 0.005;
		d[9] += 0.05;
		d2[9] = d[9] * d[9];
		shown_step += kb_offsets_shown(d, e, 24);
		fitted_step += sqrt(kb_offsets_fit(d2, e, 24, 3)) > 0.005;
	}
	CHECK_MSG(shown <= 8, "offsets seen where there are none in %d of 40", shown);
	CHECK_MSG(fitted <= 8, "offsets above 0.5%% fitted where there are none in %d of 40",
		  fitted);
	CHECK_MSG(shown_step <= 16 && fitted_step <= 16,
		  "a step taken for offsets: seen in %d of 40, above 0.5%% in %d", shown_step,
		  fitted_step);
}

TEST(test_noise__outlying_run_ignored)
{
	double x[5] = { 1.00, 1.01, 0.99, 1.005, 3.0 };

	CHECK(fabs(kb_biweight_location(x, 5, 0.01) - 1.0012) < 0.005);
	CHECK(kb_huber_location(x, NULL, 5, 0.01) < 1.05);
}

TEST(test_noise__drift_jump_found_and_its_gap_uncertain)
{
	/* endpoint boots at times 0..9 at level 0, none in 10..19, then at
	 * 20..29 at level 0.2: the walk jumps, and the boots of the gap
	 * cannot say which level they had */
	size_t t[20], nt = 30;
	double y[20], v[20], d[30], pv[30];
	uint64_t s = 7;
	int k = 0;

	for (int i = 0; i < 30; i++) {
		if (i >= 10 && i < 20)
			continue;
		t[k] = (size_t)i;
		y[k] = (i < 10 ? 0 : 0.2) + 0.01 * kb_rand_normal(&s);
		v[k++] = 0.01 * 0.01;
	}
	kb_drift_smooth(t, y, v, 20, nt, d, pv);
	CHECK_MSG(fabs(d[5]) < 0.01 && fabs(d[25] - 0.2) < 0.01, "levels %.3f %.3f", d[5], d[25]);
	CHECK_MSG(pv[5] < 0.0001 && pv[25] < 0.0001, "variance %.2g %.2g", pv[5], pv[25]);
	CHECK_MSG(sqrt(pv[15]) > 0.05, "in the gap the drift is known to %.3f", sqrt(pv[15]));

	/* a steady machine: no drift, and little variance anywhere */
	for (k = 0; k < 20; k++)
		y[k] = 0.01 * kb_rand_normal(&s);
	double q = kb_drift_smooth(t, y, v, 20, nt, d, pv);

	CHECK_MSG(q < 0.001 * 0.01 * 0.01 + 1e-15 || sqrt(pv[15]) < 0.01,
		  "a steady machine drifts: q %.2g, gap %.3f", q, sqrt(pv[15]));
}

/* The machine 9% slower from some time in a gap between endpoint boots
 * (boot spread 2%): the first boot after it is 4 standard deviations off,
 * the next one more, for the walk moved a little towards the first.  The
 * jump is before the first, and the gap's boots (the probes measured
 * there) have either level, not the one before. */
TEST(test_noise__drift_jump_placed_at_its_first_boot)
{
	static const double pre[10] = { 0.025, -0.017, -0.030, 0, 0.001, 0.027, -0.036,
					-0.023, -0.038, 0.011 };
	static const double post[10] = { 0.082, 0.122, 0.080, 0.064, 0.118, 0.078, 0.095,
					 0.070, 0.100, 0.101 };
	size_t t[20], nt = 40;
	double y[20], v[20], d[40], pv[40];

	for (int i = 0; i < 10; i++) {
		t[i] = (size_t)i;
		y[i] = pre[i];
		t[10 + i] = (size_t)(23 + i);
		y[10 + i] = post[i];
		v[i] = v[10 + i] = 0.0216 * 0.0216;
	}
	kb_drift_smooth(t, y, v, 20, nt, d, pv);
	CHECK_MSG(fabs(d[23] - 0.09) < 0.02, "the first boot after the jump has drift %.3f",
		  d[23]);
	CHECK_MSG(sqrt(pv[15]) > 0.03, "in the gap the drift is %.3f, known to %.3f", d[15],
		  sqrt(pv[15]));
}

/* The same jump where the boots differ as much (2.3%) and the gap is
 * wider: no one boot after it is 4.5 standard deviations off the
 * walk's prediction, but together the boots after it are far off a
 * steady machine. */
TEST(test_noise__drift_jump_seen_from_the_boots_together)
{
	static const double pre[14] = { 0.006, 0.040, 0.023, -0.030, -0.018, 0.066, 0.026,
					0.002, -0.020, 0.002, 0.004, 0.002, -0.020, 0.042 };
	size_t t[44], nt = 80;
	double y[44], v[44], d[80], pv[80];
	uint64_t s = 11;

	for (int i = 0; i < 44; i++) {
		t[i] = (size_t)(i < 14 ? i : 27 + (i - 14) * 2);
		y[i] = i < 14 ? pre[i] : 0.09 + 0.02 * fmax(-1.5, fmin(1.5, kb_rand_normal(&s)));
		v[i] = 0.0234 * 0.0234;
	}
	y[14] = 0.080;
	kb_drift_smooth(t, y, v, 44, nt, d, pv);
	CHECK_MSG(fabs(d[5] - 0.01) < 0.02 && fabs(d[50] - 0.09) < 0.02, "levels %.3f %.3f",
		  d[5], d[50]);
	CHECK_MSG(sqrt(pv[20]) > 0.03, "in the gap the drift is %.3f, known to %.3f", d[20],
		  sqrt(pv[20]));
}

/* The machine 17% slower for a stretch that one endpoint boot saw (time
 * 7), the next one (time 18) back at the level before: the walk sets the
 * one apart, and the boots measured between its neighbours (probes)
 * cannot say which speed they had.  Elsewhere the drift is still known
 * well. */
TEST(test_noise__drift_of_a_stretch_one_boot_saw_is_unknown_around_it)
{
	static const size_t t[8] = { 0, 1, 2, 3, 7, 18, 23, 24 };
	static const double y[8] = { 0.005, 0.012, 0.002, -0.005, 0.160, -0.007, 0, -0.003 };
	size_t nt = 26;
	double v[8], d[26], pv[26];

	for (int i = 0; i < 8; i++)
		v[i] = 0.012 * 0.012;
	kb_drift_smooth(t, y, v, 8, nt, d, pv);
	CHECK_MSG(fabs(d[12]) < 0.04, "the drift at 12 is %.3f", d[12]);
	for (size_t k = 4; k < 18; k++)
		CHECK_MSG(sqrt(pv[k]) > 0.1, "at %zu the drift is %.3f, known to %.3f", k, d[k],
			  sqrt(pv[k]));
	CHECK_MSG(sqrt(pv[1]) < 0.02 && sqrt(pv[23]) < 0.02, "known to %.3f and %.3f away "
		  "from it", sqrt(pv[1]), sqrt(pv[23]));
}

/* A line of commits; GOOD and BAD measured over many boots whose own
 * offsets are as large as the step; one boot of five runs of a probe at
 * exactly BAD's level is no decision. */
TEST(test_noise__one_boot_never_decisive_when_boots_differ_as_much_as_the_step)
{
	struct kb_graph g = { 0 };
	char sha[20][41], psha[20][41], good[41];
	struct kb_perf_obs *obs = NULL;
	size_t nobs = 0, alloc = 0, order = 0;
	struct kb_perf_in in;
	struct kb_perf_out out;
	uint64_t s = 3;
	int boot = 0, undecided = 0, trials = 20;

	snprintf(good, sizeof(good), "%040d", 0);
	for (int i = 0; i < 20; i++) {
		kb_graph_add_node(&g);
		if (i + 1 < 20)
			kb_graph_add_parent(&g, (size_t)i + 1);
		snprintf(sha[i], 41, "%040x", i + 1);
	}
	for (int i = 0; i < 20; i++)
		memcpy(psha[i], i + 1 < 20 ? sha[i + 1] : good, 41);
	for (int t = 0; t < trials; t++) {
		json_t *st, *x;
		size_t i;
		const char *decision = "?";

		kb_perf_obs_free(obs, nobs);
		obs = NULL;
		nobs = alloc = 0;
		/* GOOD and BAD in turn, 30 boots each: step 5%, boots 5%, runs 1% */
		for (int b = 0; b < 60; b++) {
			int bad = b % 2;
			struct kb_perf_obs *o = kb_perf_obs_get(&obs, &nobs, &alloc, bad ? sha[0] : good,
								bad ? 0 : -1);
			double off = 0.05 * kb_rand_normal(&s);

			boot++;
			for (int r = 1; r <= 5; r++)
				kb_perf_obs_add(o, boot, r, 100 * exp((bad ? 0.05 : 0) + off +
							  0.01 * kb_rand_normal(&s)), order++);
		}
		/* the probe: one boot at BAD's level, its own offset 0 */
		struct kb_perf_obs *p = kb_perf_obs_get(&obs, &nobs, &alloc, sha[10], 10);

		boot++;
		for (int r = 1; r <= 5; r++)
			kb_perf_obs_add(p, boot, r, 100 * exp(0.05 + 0.01 * kb_rand_normal(&s)), order++);
		memset(&in, 0, sizeof(in));
		in.g = &g;
		in.node_sha = (const char (*)[41])sha;
		in.parent_sha = (const char (*)[41])psha;
		in.good_sha = good;
		in.obs = obs;
		in.nobs = nobs;
		in.summary = 1;
		kb_perf_params_default(&in.p);
		CHECK(kb_perf_decide(&in, &out) == 0);
		st = out.verdict ? json_object_get(out.verdict, "steps") :
			out.summary ? json_object_get(out.summary, "steps") : NULL;
		json_array_foreach(st, i, x)
			if (!strcmp(json_string_value(json_object_get(x, "commit")), sha[10]))
				decision = json_string_value(json_object_get(x, "decision"));
		undecided += !strcmp(decision, "unknown");
		CHECK_MSG(strcmp(decision, "?"), "trial %d: the probe is not among the steps", t);
		CHECK_MSG(out.boot_spread > 0.02, "trial %d: boot spread %.3f unseen", t,
			  out.boot_spread);
		json_decref(out.verdict);
		json_decref(out.summary);
	}
	CHECK_MSG(undecided == trials, "one boot decided a probe in %d of %d trials",
		  trials - undecided, trials);
	kb_perf_obs_free(obs, nobs);
	kb_graph_release(&g);
}
