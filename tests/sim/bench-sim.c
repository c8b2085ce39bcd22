/*
 * The simulation suite: per scenario, the rate of exact culprits, of
 * confident wrong culprits and of no-regression verdicts, and the mean
 * number of runs and of boots, for kbisect and for a plain bisection with
 * k = 1 and k = 5 runs per commit.  Then the
 * same bisections on a pool: the wall time and accuracy of 1 machine, of
 * 4 alike, and of 4 that measure 2% apart each, every run taking the same
 * time and every boot as long as a run.
 *
 * After the first nine scenarios come those of kernel-shaped noise: a
 * machine whose speed changes once or twice during the session (named by
 * the runs it covers, in the session's count of runs), boots whose own
 * offsets are larger than the run noise, and a layout offset per commit.
 *
 *   bench-sim [TRIALS] [SCENARIO-SUBSTRING]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static const struct sim_scenario scenarios[] = {
	{ "5% step, 3% lognormal noise", 200, { 0.05 }, 1, 0.03, NOISE_LOGNORMAL, 5 },
	{ "3% step, 3% noise, 5% outliers at 3x", 200, { 0.03 }, 1, 0.03, NOISE_OUTLIERS, 5 },
	{ "no change, 3% noise", 200, { 0 }, 0, 0.03, NOISE_LOGNORMAL, 5 },
	{ "3% + 2% steps, 1% noise", 200, { 0.03, 0.02 }, 2, 0.01, NOISE_LOGNORMAL, 5 },
	{ "warm-up on the good side only", 200, { 0.05 }, 0, 0.01, NOISE_WARMUP, 10 },
	{ "10% step, 5% noise", 200, { 0.10 }, 1, 0.05, NOISE_LOGNORMAL, 5 },
	{ "1% step, 1% noise", 200, { 0.01 }, 1, 0.01, NOISE_LOGNORMAL, 5 },
	{ "5% step, 3% noise, drift", 200, { 0.05 }, 1, 0.03, NOISE_DRIFT, 5 },
	{ "5% step, bimodal 2% noise", 200, { 0.05 }, 1, 0.02, NOISE_BIMODAL, 5 },

	/*
	 * Kernel-shaped noise.  A machine whose speed changes: with 5 runs a
	 * boot, the calibration takes about the first 20 to 35 runs, the
	 * probes run from there to about run 65 (8% step) or 95 (5%), the
	 * verification follows (bench-sim prints where each begins, "cal"
	 * and "ver@").
	 */
#define SLOW(pct, from, to) .speed = { { (pct) / 100.0, from, to } }
	{ "5% step, 3% noise, 10% slower for the first 40 runs", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 0, 40) },
	{ "5% step, 3% noise, 20% slower for the first 40 runs", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 0, 40) },
	{ "8% step, 3% noise, 10% slower for the first 40 runs", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 0, 40) },
	{ "8% step, 3% noise, 20% slower for the first 40 runs", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 0, 40) },
	{ "8% step, 3% noise, 15% slower for the first 70 runs", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(15, 0, 70) },
	{ "8% step, 3% noise, 15% faster for the first 70 runs", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(-15, 0, 70) },
	{ "5% step, 3% noise, 10% slower from run 50 on", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 50, 0) },
	{ "5% step, 3% noise, 20% slower from run 50 on", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 50, 0) },
	{ "8% step, 3% noise, 10% slower from run 50 on", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 50, 0) },
	{ "8% step, 3% noise, 20% slower from run 50 on", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 50, 0) },
	{ "5% step, 3% noise, 10% slower from run 90 on", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 90, 0) },
	{ "5% step, 3% noise, 20% slower from run 90 on", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 90, 0) },
	{ "8% step, 3% noise, 10% slower from run 90 on", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 90, 0) },
	{ "8% step, 3% noise, 20% slower from run 90 on", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 90, 0) },
	/* on a pool, during every machine's second pair of calibration */
	{ "3% step, 2% noise, 10% slower from run 60 on", 200, { 0.03 }, 1, 0.02,
	  NOISE_LOGNORMAL, 5, SLOW(10, 60, 0) },
	{ "5% step, 3% noise, 10% slower for runs 30-90", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 30, 90) },
	{ "5% step, 3% noise, 20% slower for runs 30-90", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 30, 90) },
	{ "8% step, 3% noise, 10% slower for runs 30-90", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(10, 30, 90) },
	{ "8% step, 3% noise, 20% slower for runs 30-90", 200, { 0.08 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, SLOW(20, 30, 90) },
	{ "8% step, 3% noise, 10% slower to run 40, 10% faster from 90", 200, { 0.08 }, 1,
	  0.03, NOISE_LOGNORMAL, 5, .speed = { { 0.10, 0, 40 }, { -0.10, 90, 0 } } },
#undef SLOW
	/* a benchmark whose boots differ more than its runs do */
	{ "3% step, 1% run noise, 1% boot spread", 200, { 0.03 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.01 },
	{ "3% step, 1% run noise, 2% boot spread", 200, { 0.03 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.02 },
	{ "3% step, 1% run noise, 3% boot spread", 200, { 0.03 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.03 },
	{ "5% step, 1% run noise, 1% boot spread", 200, { 0.05 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.01 },
	{ "5% step, 1% run noise, 2% boot spread", 200, { 0.05 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.02 },
	{ "5% step, 1% run noise, 3% boot spread", 200, { 0.05 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.03 },
	{ "8% step, 1% run noise, 1% boot spread", 200, { 0.08 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.01 },
	{ "8% step, 1% run noise, 2% boot spread", 200, { 0.08 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.02 },
	{ "8% step, 1% run noise, 3% boot spread", 200, { 0.08 }, 1, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.03 },
	{ "no change, 1% run noise, 2% boot spread", 200, { 0 }, 0, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.02 },
	{ "no change, 1% run noise, 3% boot spread", 200, { 0 }, 0, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.03 },
	/* every commit's build with its own code layout */
	{ "5% step, 1% noise, 1% layout offset per commit", 200, { 0.05 }, 1, 0.01,
	  NOISE_LOGNORMAL, 5, .layout_noise = 0.01 },
	{ "5% step, 3% noise, 1% layout offset per commit", 200, { 0.05 }, 1, 0.03,
	  NOISE_LOGNORMAL, 5, .layout_noise = 0.01 },
	/* no change, where every build measures apart from its parent */
	{ "no change, 1% noise, 1% layout offset per commit", 200, { 0 }, 0, 0.01,
	  NOISE_LOGNORMAL, 5, .layout_noise = 0.01 },
	/* a change smaller than the noise lets calibration see: inconclusive,
	 * never no-regression */
	{ "2% step, 3% run noise, 15% boot spread", 200, { 0.02 }, 1, 0.03, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.15 },
	{ "2% step, 15% noise", 200, { 0.02 }, 1, 0.15, NOISE_LOGNORMAL, 5 },
	{ "no change, 1% run noise, 1% boot spread", 200, { 0 }, 0, 0.01, NOISE_LOGNORMAL, 5,
	  .boot_noise = 0.01 },
	/* two at a time */
	{ "5% step, 1% noise, 2% boots, 1% layout offset per commit", 200, { 0.05 }, 1, 0.01,
	  NOISE_LOGNORMAL, 5, .boot_noise = 0.02, .layout_noise = 0.01 },
	{ "5% step, 1% noise, 1% layout, 10% slower from 50", 200, { 0.05 }, 1, 0.01,
	  NOISE_LOGNORMAL, 5, .speed = { { 0.10, 50, 0 } }, .layout_noise = 0.01 },
	/* all of it at once */
	{ "5% step, 1% noise, 2% boots, 1% layout, 10% slower from 50", 200, { 0.05 }, 1, 0.01,
	  NOISE_LOGNORMAL, 5, .boot_noise = 0.02, .speed = { { 0.10, 50, 0 } },
	  .layout_noise = 0.01 },
};

/* Flaky failures, on 200-commit histories with merges. */
static const struct sim_flaky flaky[] = {
	{ "flaky: fails always (a deterministic test)", 200, 1.0, 0 },
	{ "flaky: fails in 90% of runs", 200, 0.9, 0 },
	{ "flaky: 90%, 2% false alarms", 200, 0.9, 0.02 },
	{ "flaky: fails in 50% of runs", 200, 0.5, 0 },
	{ "flaky: 50%, 2% false alarms", 200, 0.5, 0.02 },
	{ "flaky: fails in 30% of runs", 200, 0.3, 0 },
	{ "flaky: 30%, 2% false alarms", 200, 0.3, 0.02 },
	{ "flaky: fails in 10% of runs", 200, 0.1, 0 },
	{ "flaky: 10%, 2% false alarms", 200, 0.1, 0.02 },
	{ "flaky: never fails (no regression)", 200, 0, 0 },
};

/* SIM_SEED=N: other histories and runs than the tables of the README */
static uint64_t seed_base;

static int wanted(int argc, char **argv, const char *name)
{
	return argc <= 2 || strstr(name, argv[2]);
}

/* kbisect's flaky mode against a plain bisection and ktest's
 * BISECT_TRIES=5, on the same histories and the same runs' chances. */
static void flaky_table(int trials, int argc, char **argv)
{
	size_t s;
	int any = 0;

	for (s = 0; s < sizeof(flaky) / sizeof(flaky[0]); s++) {
		double acc[3][4] = { { 0 } };
		static const int tries[3] = { 0, 1, 5 };
		int t, k;

		if (!wanted(argc, argv, flaky[s].name))
			continue;
		if (!any++)
			printf("\n%-44s %6s %6s %6s %6s %6s | %7s %7s %6s | %7s %7s %6s\n",
			       "flaky failures", "exact", "wrong", "noreg", "runs", "builds",
			       "1 exact", "1 wrong", "1 runs", "5 exact", "5 wrong", "5 runs");
		for (t = 1; t <= trials; t++)
			for (k = 0; k < 3; k++) {
				struct sim_flaky_result r;

				if (!k)
					sim_flaky_trial(&flaky[s], (uint64_t)t + seed_base, &r);
				else
					sim_flaky_tries(&flaky[s], (uint64_t)t + seed_base, tries[k], &r);
				acc[k][0] += flaky[s].rate > 0 ? r.exact : r.noreg;
				acc[k][1] += r.wrong;
				acc[k][2] += r.runs;
				acc[k][3] += r.commits;
			}
		printf("%-44s %5.0f%% %5.0f%% %5.0f%% %6.1f %6.1f | %6.0f%% %6.0f%% %6.1f | "
		       "%6.0f%% %6.0f%% %6.1f\n", flaky[s].name,
		       100 * acc[0][0] / trials, 100 * acc[0][1] / trials,
		       flaky[s].rate > 0 ? 0.0 : 100 * acc[0][0] / trials,
		       acc[0][2] / trials, acc[0][3] / trials,
		       100 * acc[1][0] / trials, 100 * acc[1][1] / trials, acc[1][2] / trials,
		       100 * acc[2][0] / trials, 100 * acc[2][1] / trials, acc[2][2] / trials);
		fflush(stdout);
	}
	if (any)
		printf("exact: the culprit named (no-regression where BAD never fails); wrong: "
		       "another commit named as the culprit;\nruns, builds: mean runs and "
		       "commits run per bisection; 1: a plain bisection, one run a commit;\n"
		       "5: ktest's BISECT_TRIES=5 (bad at the first failure, good after "
		       "5 passes)\n");
}

/* The size a verdict states it could see: "no change larger than X%"
 * or "changes under X% cannot be seen"; -1 when it states none. */
static double stated_size(const char *reason)
{
	const char *p;
	double x;

	if ((p = strstr(reason, "no change larger than ")) &&
	    sscanf(p, "no change larger than %lf", &x) == 1)
		return x;
	if ((p = strstr(reason, "changes under ")) && sscanf(p, "changes under %lf", &x) == 1)
		return x;
	return -1;
}

/* The scenarios of no change or of a change too small to see: how often
 * the verdict is no-regression and how often "too noisy to tell", and
 * the sizes they state (the mean, and the largest for no-regression). */
static void detect_table(int trials, int nw, int argc, char **argv)
{
	int any = 0;

	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct sim_scenario *sc = &scenarios[s];
		double noreg = 0, noisy = 0, other = 0, sn = 0, sx = 0, snoisy = 0, runs = 0;
		char a[16] = "-", b[16] = "-", d[16] = "-";

		if ((argc > 2 && !strstr(sc->name, argv[2])) || sc->effects[0] > 0.02)
			continue;
		if (!any++)
			printf("\n%-*s %6s %6s %6s %8s %8s %8s %6s\n", nw, "what it could see",
			       "noreg", "noisy", "other", "noreg@", "max", "noisy@", "runs");
		for (int t = 0; t < trials; t++) {
			struct sim_result r;
			double x;

			sim_trial(sc, (uint64_t)t + 1 + seed_base, &r);
			x = stated_size(r.reason);
			runs += r.runs;
			if (!strcmp(r.verdict, "no-regression")) {
				noreg++;
				if (x >= 0) {
					sn += x;
					if (x > sx)
						sx = x;
				}
			} else if (!strcmp(r.verdict, "inconclusive") &&
				   strstr(r.reason, "too noisy to tell")) {
				noisy++;
				snoisy += x >= 0 ? x : 0;
			} else {
				other++;
			}
		}
		if (noreg)
			snprintf(a, sizeof(a), "%.2g%%", sn / noreg);
		if (noreg)
			snprintf(b, sizeof(b), "%.2g%%", sx);
		if (noisy)
			snprintf(d, sizeof(d), "%.2g%%", snoisy / noisy);
		printf("%-*s %5.0f%% %5.0f%% %5.0f%% %8s %8s %8s %6.0f\n", nw, sc->name,
		       100 * noreg / trials, 100 * noisy / trials, 100 * other / trials, a, b, d,
		       runs / trials);
		fflush(stdout);
	}
	if (any)
		printf("noreg: no-regression; noisy: inconclusive, too noisy to tell; other: "
		       "any other verdict;\nnoreg@, max: the mean and largest size a "
		       "no-regression says it would have seen;\nnoisy@: the mean size a "
		       "too-noisy verdict says it could not see; runs: mean runs\n");
}

/* The width of the scenario column: the longest name shown. */
static int name_width(int argc, char **argv)
{
	int w = 24;

	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		if ((argc <= 2 || strstr(scenarios[s].name, argv[2])) &&
		    (int)strlen(scenarios[s].name) > w)
			w = (int)strlen(scenarios[s].name);
	return w;
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 100, nw = name_width(argc, argv);
	size_t s;

	if (getenv("SIM_SEED"))
		seed_base = strtoull(getenv("SIM_SEED"), NULL, 10);
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		if (wanted(argc, argv, scenarios[s].name))
			break;
	if (s == sizeof(scenarios) / sizeof(scenarios[0])) {
		flaky_table(trials, argc, argv);
		return 0;
	}

	printf("%-*s %6s %6s %6s %6s %6s %5s %5s %6s %6s | %8s %8s %8s | %8s %8s %8s\n", nw,
	       "scenario", "exact", "wrong", "noreg", "runs", "boots", "cal", "ver@", "warn",
	       "all", "k1 exact", "k1 wrong", "k1 runs", "k5 exact", "k5 wrong", "k5 runs");
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct sim_scenario *sc = &scenarios[s];
		double ok = 0, wrong = 0, noreg = 0, runs = 0, boots = 0, cal = 0, ver = 0,
		       warned = 0, all = 0, n1[3] = { 0 }, n5[3] = { 0 };
		int t, ncal = 0, nver = 0;
		char cbuf[16], vbuf[16];

		if (argc > 2 && !strstr(sc->name, argv[2]))
			continue;
		for (t = 0; t < trials; t++) {
			struct sim_result r;

			sim_trial(sc, (uint64_t)t + 1 + seed_base, &r);
			ok += r.verdict_ok;
			all += r.all_found;
			wrong += r.wrong_confident;
			noreg += !strcmp(r.verdict, "no-regression");
			runs += r.runs;
			boots += r.boots;
			if (r.cal_runs >= 0) {
				cal += r.cal_runs;
				ncal++;
			}
			if (r.verify_at >= 0) {
				ver += r.verify_at;
				nver++;
			}
			warned += sc->model == NOISE_WARMUP ? r.warmup_warned :
				  sc->neffects > 1 ? r.partial_or_multiple : 0;
			sim_naive(sc, (uint64_t)t + 1 + seed_base, 1, &r);
			n1[0] += r.verdict_ok;
			n1[1] += r.wrong_confident;
			n1[2] += r.runs;
			sim_naive(sc, (uint64_t)t + 1 + seed_base, 5, &r);
			n5[0] += r.verdict_ok;
			n5[1] += r.wrong_confident;
			n5[2] += r.runs;
		}
		printf("%-*s %5.0f%% %5.0f%% %5.0f%% %6.0f %6.1f %5s %5s %5.0f%% %5.0f%% | "
		       "%7.0f%% %7.0f%% %8.0f | %7.0f%% %7.0f%% %8.0f\n", nw,
		       sc->name, 100 * ok / trials, 100 * wrong / trials, 100 * noreg / trials,
		       runs / trials, boots / trials,
		       ncal ? (snprintf(cbuf, sizeof(cbuf), "%.0f", cal / ncal), cbuf) : "-",
		       nver ? (snprintf(vbuf, sizeof(vbuf), "%.0f", ver / nver), vbuf) : "-",
		       100 * warned / trials, 100 * all / trials,
		       100 * n1[0] / trials, 100 * n1[1] / trials, n1[2] / trials,
		       100 * n5[0] / trials, 100 * n5[1] / trials, n5[2] / trials);
		fflush(stdout);
	}
	printf("\n%-*s %8s %8s %8s | %8s %8s %8s %6s | %8s %8s %8s %6s\n", nw, "on a pool",
	       "1 exact", "1 wrong", "1 time", "4 exact", "4 wrong", "4 time", "4/1",
	       "4x exact", "4x wrong", "4x time", "4x/1");
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct sim_scenario *sc = &scenarios[s];
		double acc[3][3] = { { 0 } };
		static const int machines[3] = { 1, 4, 4 };
		static const double spread[3] = { 0, 0, 0.02 };
		int t, k;

		if (argc > 2 && !strstr(sc->name, argv[2]))
			continue;
		for (t = 0; t < trials; t++)
			for (k = 0; k < 3; k++) {
				struct sim_result r;

				sim_trial_pool(sc, (uint64_t)t + 1 + seed_base, machines[k], spread[k], &r);
				acc[k][0] += r.verdict_ok;
				acc[k][1] += r.wrong_confident;
				acc[k][2] += r.time;
			}
		printf("%-*s %7.0f%% %7.0f%% %8.0f | %7.0f%% %7.0f%% %8.0f %6.2f | %7.0f%% "
		       "%7.0f%% %8.0f %6.2f\n", nw, sc->name,
		       100 * acc[0][0] / trials, 100 * acc[0][1] / trials, acc[0][2] / trials,
		       100 * acc[1][0] / trials, 100 * acc[1][1] / trials, acc[1][2] / trials,
		       acc[0][2] ? acc[1][2] / acc[0][2] : 0,
		       100 * acc[2][0] / trials, 100 * acc[2][1] / trials, acc[2][2] / trials,
		       acc[0][2] ? acc[2][2] / acc[0][2] : 0);
		fflush(stdout);
	}
	printf("exact: the verdict named the (largest) culprit, or no-regression when "
	       "there is none; wrong: a culprit named that is not one;\nnoreg: a "
	       "no-regression verdict; runs, boots: mean runs and boots per bisection;\n"
	       "cal: mean runs before the first probe; ver@: mean runs before the "
	       "verification of a culprit\n(over the trials that got there); warn: a warm-up warning (warm-up scenario) or a partial/"
	       "multiple\nwarning (two steps); all: every culprit named; k1, k5: a plain "
	       "bisection with 1 or 5 runs\nper commit and a threshold halfway between "
	       "GOOD and BAD;\n1, 4: one machine, four alike; 4x: four, machine m measuring "
	       "2%% x m more than machine 0;\ntime: mean wall time in runs (a boot takes "
	       "as long as a run); 4/1: the time of 4 over that of 1\n");
	detect_table(trials, nw, argc, argv);
	flaky_table(trials, argc, argv);
	return 0;
}
