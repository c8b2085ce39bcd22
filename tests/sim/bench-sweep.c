/*
 * Scenarios drawn at random, to look for the cases the fixed suite
 * (bench-sim) does not hold: ranges of 1 to 500 commits, no change or one
 * or two steps of 2-10%, run noise of 0.5-5% under any noise model, 3, 5
 * or 10 runs a boot, boot spread up to three times the run noise, layout
 * offsets of 0.3-1%, a machine whose speed changes by 5-25% once or for a
 * stretch, one machine or a pool of 2-4.  Each is drawn independently of
 * the others, so that any of them may meet.  Prints a line per scenario
 * (its exact culprits, wrong ones and no-regression verdicts, and its
 * runs), the seed of every wrong culprit so that it can be run again, and
 * the totals.
 *
 *   bench-sweep [SCENARIOS] [TRIALS] [SEED]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "stats.h"

static const size_t commits[] = { 1, 2, 5, 20, 100, 200, 500 };

/* A scenario drawn from 'rng', on a pool of *pool machines (0: one
 * machine) that measure *spread apart. */
static void draw(uint64_t *rng, struct sim_scenario *sc, int *pool, double *spread)
{
	double u;

	memset(sc, 0, sizeof(*sc));
	sc->name = "sweep";
	sc->commits = commits[(int)(kb_rand_unit(rng) * 7)];
	u = kb_rand_unit(rng);
	sc->neffects = u < 0.25 ? 0 : u < 0.9 || sc->commits < 5 ? 1 : 2;
	for (int k = 0; k < sc->neffects; k++)
		sc->effects[k] = 0.02 + 0.08 * kb_rand_unit(rng);
	sc->noise = 0.005 + 0.045 * kb_rand_unit(rng);
	sc->model = kb_rand_unit(rng) < 0.6 ? NOISE_LOGNORMAL :
		(enum sim_noise)(1 + (int)(kb_rand_unit(rng) * 4));
	sc->runs_per_boot = (int[]){ 3, 5, 10 }[(int)(kb_rand_unit(rng) * 3)];
	if (kb_rand_unit(rng) < 0.5)
		sc->boot_noise = sc->noise * (0.5 + 2.5 * kb_rand_unit(rng));
	if (kb_rand_unit(rng) < 0.35)
		sc->layout_noise = 0.003 + 0.007 * kb_rand_unit(rng);
	if (kb_rand_unit(rng) < 0.4) {
		sc->speed[0].change = (kb_rand_unit(rng) < 0.5 ? -1 : 1) *
			(0.05 + 0.2 * kb_rand_unit(rng));
		sc->speed[0].from = (long)(20 + 400 * kb_rand_unit(rng));
		if (kb_rand_unit(rng) < 0.5)
			sc->speed[0].to = sc->speed[0].from + (long)(50 + 300 * kb_rand_unit(rng));
	}
	*pool = 0;
	*spread = 0;
	if (kb_rand_unit(rng) < 0.25) {
		*pool = 2 + (int)(kb_rand_unit(rng) * 3);
		if (kb_rand_unit(rng) < 0.5)
			*spread = 0.05 * kb_rand_unit(rng);
	}
}

int main(int argc, char **argv)
{
	int nsc = argc > 1 ? atoi(argv[1]) : 100, trials = argc > 2 ? atoi(argv[2]) : 40;
	long seed = argc > 3 ? atol(argv[3]) : 1;
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)seed * 0x2545f4914f6cdd1dULL;
	long all = 0, exact = 0, wrong = 0, bad_sc = 0;

	if (nsc <= 0 || trials <= 0) {
		fprintf(stderr, "usage: bench-sweep [SCENARIOS] [TRIALS] [SEED]\n");
		return 2;
	}
	for (int i = 0; i < nsc; i++) {
		struct sim_scenario sc;
		int pool, ex = 0, wr = 0, nr = 0;
		double spread;
		long runs = 0;

		draw(&rng, &sc, &pool, &spread);
		for (int t = 1; t <= trials; t++) {
			uint64_t s = (uint64_t)seed * 1000000 + (uint64_t)i * 1000 + (uint64_t)t;
			struct sim_result r;

			if (pool)
				sim_trial_pool(&sc, s, pool, spread, &r);
			else
				sim_trial(&sc, s, &r);
			ex += r.exact;
			wr += r.wrong_confident;
			nr += !strcmp(r.verdict, "no-regression");
			runs += r.runs;
			if (r.wrong_confident)
				printf("  wrong culprit: seed %llu, verdict %s\n",
				       (unsigned long long)s, r.verdict);
		}
		printf("%3d: %3zu commits, steps %.1f%% %.1f%%, noise %.1f%% (model %d, %d a "
		       "boot), boots %.1f%%, layout %.2f%%, speed %+.0f%% runs %ld-%ld, "
		       "machines %d (%.1f%% apart): exact %d, wrong %d, no-regression %d "
		       "of %d, %.0f runs\n", i, sc.commits, 100 * sc.effects[0],
		       100 * sc.effects[1], 100 * sc.noise, (int)sc.model, sc.runs_per_boot,
		       100 * sc.boot_noise, 100 * sc.layout_noise, 100 * sc.speed[0].change,
		       sc.speed[0].from, sc.speed[0].to, pool ? pool : 1, 100 * spread, ex, wr,
		       nr, trials, (double)runs / trials);
		fflush(stdout);
		all += trials;
		exact += ex;
		wrong += wr;
		bad_sc += wr > 0;
	}
	printf("total: %ld bisections in %d scenarios, %ld exact, %ld wrong culprits "
	       "(%.2f%%), in %ld scenarios\n", all, nsc, exact, wrong, 100.0 * wrong / all,
	       bad_sc);
	return 0;
}
