/*
 * sim.h - simulated performance bisections: generated histories with
 * merges, a benchmark whose level steps at known commits, and noise models.
 * Drives the same decision code as kbisect (lib/perf.c), in process.
 */
#ifndef KB_SIM_H
#define KB_SIM_H

#include <stddef.h>
#include <stdint.h>

enum sim_noise {
	NOISE_LOGNORMAL,
	NOISE_OUTLIERS,   /* 5% of runs at 3x */
	NOISE_WARMUP,     /* the first runs after a boot fast, on the good side only */
	NOISE_DRIFT,      /* the machine slows down over the session */
	NOISE_BIMODAL,    /* two modes, 50/50, 2 noise widths apart */
};

struct sim_scenario {
	const char *name;
	size_t commits;
	double effects[4];   /* relative level steps, worse is larger: 0.05 = 5% */
	int neffects;
	double noise;        /* lognormal sigma: 0.03 = 3% */
	enum sim_noise model;
	int runs_per_boot;
};

struct sim_result {
	int exact;           /* named exactly the (largest) culprit */
	int all_found;       /* named every culprit */
	int wrong_confident; /* named a commit that is no culprit */
	int verdict_ok;      /* the verdict kind expected for the scenario */
	int warmup_warned;
	int partial_or_multiple;
	int machines_warned; /* a pool: machines measured apart, scaled */
	long runs;
	double time;         /* wall time: a boot takes its runs and one more */
	char verdict[32];
	char reason[200];   /* why, when the verdict names no culprit */
};

/* One trial of kbisect's strategy. */
void sim_trial(const struct sim_scenario *sc, uint64_t seed, struct sim_result *r);
/* The same on a pool of 'machines', machine m measuring exp(m * spread)
 * times the level of machine 0. */
void sim_trial_pool(const struct sim_scenario *sc, uint64_t seed, int machines,
		    double spread, struct sim_result *r);
/* One trial of a plain bisection: k runs per commit, a midpoint threshold. */
void sim_naive(const struct sim_scenario *sc, uint64_t seed, int k, struct sim_result *r);

#endif
