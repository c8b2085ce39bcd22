/*
 * The performance strategy on simulated histories (tests/sim): fixed seeds,
 * so these are exact regressions tests of its decisions; tests/bench/sim.sh
 * prints the full figures.
 */
#include <string.h>

#include "../sim/sim.h"
#include "test.h"

static void rates(const struct sim_scenario *sc, int trials, int *ok, int *wrong,
		  int *warned)
{
	int t;

	*ok = *wrong = *warned = 0;
	for (t = 1; t <= trials; t++) {
		struct sim_result r;

		sim_trial(sc, (uint64_t)t, &r);
		*ok += r.verdict_ok;
		*wrong += r.wrong_confident;
		*warned += sc->model == NOISE_WARMUP ? r.warmup_warned : r.partial_or_multiple;
	}
}

TEST(test_perf__finds_a_5pct_step_in_3pct_noise)
{
	struct sim_scenario sc = { "5/3", 200, { 0.05 }, 1, 0.03, NOISE_LOGNORMAL, 5 };
	int ok, wrong, warned;

	rates(&sc, 20, &ok, &wrong, &warned);
	CHECK_MSG(ok >= 19 && wrong == 0, "ok %d wrong %d of 20", ok, wrong);
}

TEST(test_perf__outliers_never_a_wrong_culprit)
{
	struct sim_scenario sc = { "3/3o", 150, { 0.03 }, 1, 0.03, NOISE_OUTLIERS, 5 };
	int ok, wrong, warned;

	rates(&sc, 15, &ok, &wrong, &warned);
	CHECK_MSG(ok >= 13 && wrong == 0, "ok %d wrong %d of 15", ok, wrong);
}

TEST(test_perf__no_change_is_no_regression)
{
	struct sim_scenario sc = { "none", 200, { 0 }, 0, 0.03, NOISE_LOGNORMAL, 5 };
	int ok, wrong, warned;

	rates(&sc, 20, &ok, &wrong, &warned);
	CHECK_MSG(ok >= 19 && wrong == 0, "no-regression %d of 20", ok);
}

TEST(test_perf__two_steps_are_both_or_partial)
{
	struct sim_scenario sc = { "3+2", 150, { 0.03, 0.02 }, 2, 0.01, NOISE_LOGNORMAL, 5 };
	int ok, wrong, warned;

	rates(&sc, 12, &ok, &wrong, &warned);
	CHECK_MSG(ok >= 11 && warned >= 11 && wrong <= 1, "ok %d warned %d wrong %d of 12",
		  ok, warned, wrong);
}

TEST(test_perf__warm_up_is_flagged_and_blames_nobody)
{
	struct sim_scenario sc = { "warm", 150, { 0.05 }, 0, 0.01, NOISE_WARMUP, 10 };
	int t;

	for (t = 1; t <= 10; t++) {
		struct sim_result r;

		sim_trial(&sc, (uint64_t)t, &r);
		CHECK_MSG(strcmp(r.verdict, "culprit") || r.warmup_warned,
			  "seed %d: a culprit without a warm-up warning", t);
		CHECK_MSG(r.warmup_warned, "seed %d: warm-up not seen", t);
	}
}
