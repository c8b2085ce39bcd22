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

/*
 * A stretch of the session during which the machine runs at another speed:
 * every run whose place in the session's running count of runs (all
 * commits, all machines, counted from 0: the wall time) is in [from, to)
 * measures 'change' more, relatively (worse is larger: 0.20 is 20% slower,
 * -0.15 15% faster).  to 0: to the end of the session.  change 0: none.
 * The first speed change is at 'from' (none when it is 0), the second at
 * 'to'.
 */
struct sim_speed {
	double change;
	long from, to;
};

/*
 * A scenario.  'model' is one of the noise models above; the fields after
 * runs_per_boot add noise of other kinds on top of it, each independently
 * of the others and of 'model', so that any of them may be combined (left
 * 0, they add nothing, and the samples are those of 'model' alone).  Each
 * is drawn from a random stream of its own, seeded by the trial's seed.
 */
struct sim_scenario {
	const char *name;
	size_t commits;
	double effects[4];   /* relative level steps, worse is larger: 0.05 = 5% */
	int neffects;
	double noise;        /* lognormal sigma of each run: 0.03 = 3% */
	enum sim_noise model;
	int runs_per_boot;
	/* each boot's own offset (memory layout, page cache, frequency, the
	 * state a reboot leaves): lognormal sigma, shared by the runs of the
	 * boot, drawn afresh for every boot */
	double boot_noise;
	/* the machine's speed changing with time: up to two stretches */
	struct sim_speed speed[2];
	/* each commit's own build (code layout): a lognormal offset with this
	 * sigma, fixed for the commit over the whole session and not
	 * inherited by its children, so that a commit that changes nothing
	 * may measure apart from its parent; GOOD and the revert have one
	 * of their own too */
	double layout_noise;
	/* the rebuild check on where there are no layout offsets too, as a
	 * kernel bisection makes it (it is on wherever there are) */
	int rebuild_check;
};

struct sim_result {
	int exact;           /* named exactly the (largest) culprit */
	int all_found;       /* named every culprit */
	int wrong_confident; /* named a commit that is no culprit */
	int wrong_merge;     /* that commit is a merge */
	int named;           /* the (largest) culprit among the verdict's
			      * culprits, confirmed or not (inconclusive) */
	int verdict_ok;      /* the verdict kind expected for the scenario */
	int warmup_warned;
	int partial_or_multiple;
	int machines_warned; /* a pool: machines measured apart, scaled */
	long runs;
	long boots;          /* boots per bisection */
	long cal_runs;       /* runs before the first probe (-1: none) */
	long verify_at;      /* runs before the first boot of the verification
			      * (parent or culprit; -1: none) */
	int aligned_steps;   /* measured builds the report calls "aligned" */
	int aligned_ends;    /* the culprit named with GOOD and BAD aligned */
	int reverts;         /* reverts made on BAD */
	int went_on;         /* a likely culprit left for a revert that did
			      * not recover, and the search went on */
	double time;         /* wall time: a boot takes its runs and one more */
	char verdict[32];
	char reason[400];   /* why, when the verdict names no culprit */
};

/* One trial of kbisect's strategy. */
void sim_trial(const struct sim_scenario *sc, uint64_t seed, struct sim_result *r);
/* The same on a pool of 'machines', machine m measuring exp(m * spread)
 * times the level of machine 0. */
void sim_trial_pool(const struct sim_scenario *sc, uint64_t seed, int machines,
		    double spread, struct sim_result *r);
/* One trial of a plain bisection: k runs per commit, a midpoint threshold. */
void sim_naive(const struct sim_scenario *sc, uint64_t seed, int k, struct sim_result *r);

/*
 * A flaky failure: from the culprit on, a run fails with 'rate'; before
 * it (GOOD too), with 'false_rate'.  A run of the culprit reverted on BAD
 * fails as the commits before it do.
 */
struct sim_flaky {
	const char *name;
	size_t commits;
	double rate, false_rate;
};

struct sim_flaky_result {
	int exact;           /* the verdict culprit, naming the culprit */
	int wrong;           /* the verdict culprit, naming another commit */
	int noreg;           /* the verdict no-regression */
	long runs;
	long commits;        /* commits run (builds), the revert included */
	char verdict[32];
};

/* One trial of kbisect's flaky mode (lib/flaky.c). */
void sim_flaky_trial(const struct sim_flaky *sc, uint64_t seed, struct sim_flaky_result *r);
/* One trial of a plain bisection that runs each commit up to 'tries'
 * times, bad at its first failure, good after 'tries' passes (ktest's
 * BISECT_TRIES; 1: git bisect run). */
void sim_flaky_tries(const struct sim_flaky *sc, uint64_t seed, int tries,
		     struct sim_flaky_result *r);

#endif
