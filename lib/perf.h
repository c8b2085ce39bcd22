/*
 * perf.h - performance bisection: a pure function from every sample taken
 * so far to the next thing to measure, or to a verdict.
 *
 * The model (noise.h): a run's value (log of the metric, signed so that
 * larger is worse) is its commit's level, plus its boot's offset, plus the
 * run's noise; the machine's speed drifts and jumps with time; each
 * commit's build has an offset of its own (code layout).  A commit's
 * level is the GOOD level before a culprit and the BAD level from it on.
 * A boot, not a run, is the unit of evidence.  The steps:
 *
 *  1. Calibrate: GOOD and BAD in turn, each boot compared with the boot of
 *     the other measured next to it, until the pairs tell them apart at
 *     'alpha' (a sequential test) or exclude, at 95%, a change of half
 *     the noise of one run on a boot of its own (boot spread included):
 *     the more boots differ, the more pairs that takes.  Once boots are
 *     seen to differ more than runs do, boots of fewer runs.
 *  2. Probe: a posterior over "commit k is the culprit" for every candidate
 *     of the range.  Each commit's evidence is its boots' values with the
 *     machine's drift at their times taken off (a random walk with jumps,
 *     fitted to the endpoints' boots), weighed by the variance of a boot,
 *     of the drift there and of the commit's own offset.  Probe the commit
 *     that splits the posterior mass best, boot after boot until its odds
 *     are 19:1 either way (the posterior keeps them: a probe that says
 *     less than it seemed brings the search back) or more boots would
 *     tell no more (its cap: the boots
 *     a commit at either level needs to be decided, from the boots'
 *     noise against the change).  When the drift
 *     since the endpoints were last measured blurs a probe, or a probe's
 *     boot measures beyond both levels (as no commit of the range should:
 *     the machine's speed has moved), the endpoints are measured again
 *     first.
 *  3. Stop when one commit holds 'confidence' of the posterior (or, when
 *     no probe can narrow it further, is the clear favourite).
 *  4. Verify, from boots measured together only: GOOD and BAD again, then
 *     parent and culprit in pairs of boots next to each other, then BAD
 *     and the culprit reverted on top of it, in pairs (each check up to
 *     the pairs in which a step of the change, as small as it could be,
 *     passes at 97.5%, when that is more than 16); then the parent
 *     and the culprit built with 64-byte function alignment, in pairs (a
 *     step that vanishes there is one of code layout; a step the
 *     culprit's own builds show but cannot tell from two builds' layout
 *     offsets must stand beyond them there, where the offsets are not
 *     those the search picked the culprit by); the share of
 *     GOOD->BAD that the step explains; a partial share starts a search
 *     for the rest of the change.
 *  5. Warm-up (samples that trend with the run number after a boot) is
 *     detected and the affected runs dropped; a shift of the endpoints
 *     across the session beyond their noise gives the drift warning.
 *
 * Runs per boot, after calibration, trade the boots' spread against the
 * runs' and what a boot costs against a run (kb_perf_params boot_cost
 * and run_cost), unless the benchmark sets them.
 *
 * Samples of verification runs feed the posterior too, so a culprit whose
 * direct measurement disagrees loses its probability and probing resumes.
 *
 * On a pool, each machine measures GOOD and BAD before anything else (its
 * baseline); a machine whose levels differ from the first machine's has
 * its samples scaled onto them, and the samples of a machine without a
 * baseline wait.  Each machine's drift is its own, and pairs are of one
 * machine.  Each free machine gets what best complements the boots under
 * way: calibration boots balanced, a probe that splits the posterior mass
 * left between the probes in flight, and each pair of the verification on
 * one machine of its own.
 */
#ifndef KB_PERF_H
#define KB_PERF_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

struct kb_sample {
	int boot, run;
	double value;
	int machine;          /* the machine of a pool it was taken on */
	size_t order;         /* its place among all samples, in time */
};

/* Every sample of one commit, in the order taken. */
struct kb_perf_obs {
	char sha[41];
	long node;            /* graph node, -1 outside the range */
	struct kb_sample *s;
	size_t n, alloc;
	size_t first, last;   /* order of its first and latest sample */
};

struct kb_perf_params {
	int higher_is_better;
	int warmup;           /* runs dropped after each boot, as configured */
	int runs_per_boot;
	double confidence;    /* 0.95 */
	double alpha;         /* calibration test level, 0.001 */
	int min_cal_boots;    /* 2 */
	int max_cal_boots;    /* 20 */
	int min_probe;        /* samples before a probe may be decided, 5 */
	int max_probe;        /* samples after which a probe is unknown, 40 */
	int max_runs;         /* a budget for the whole session */
	int either;           /* the change GOOD -> BAD either way: one that
			       * is better is looked for as one that is worse
			       * (git's old and new terms) */
	double min_effect;    /* the smallest change of interest, relative:
			       * 0.05.  "no-regression" only once a change
			       * this large would have been seen */
	int runs_fixed;       /* runs_per_boot is the user's choice: keep it */
	double boot_cost;     /* what a boot costs beside a run (seconds; 0: */
	double run_cost;      /* unknown, taken as alike) */
	uint64_t seed;
};

void kb_perf_params_default(struct kb_perf_params *p);

/* A boot under way on a machine of a pool: its samples are not in yet. */
struct kb_perf_job {
	char sha[41];
	int machine;
};

/* the most reverts a session makes: a likely culprit, and two more after
 * reverts that did not recover, BAD's own, and room to spare */
#define KB_REVERTS_MAX 8

struct kb_perf_revert {
	const char *of;                   /* the culprit reverted */
	const char *sha;                  /* BAD with it reverted, "" if it does not apply */
};

/* A commit built another way (kb_repo_variant()). */
struct kb_perf_variant {
	const char *of;                   /* the commit */
	const char *sha;                  /* its variant, "" if not made */
};

struct kb_perf_in {
	const struct kb_graph *g;
	size_t bad;                       /* node of BAD */
	const char (*node_sha)[41];       /* per node */
	const char (*parent_sha)[41];     /* first parent of each node */
	const char *good_sha;
	const char *metric;               /* its name, for messages (NULL: "the metric") */
	const char *marks;                /* hard marks per node (kb_mark), or NULL */
	const struct kb_perf_obs *obs;
	size_t nobs;
	/* the revert of a culprit on top of BAD, once made: */
	const char *revert_of;            /* culprit sha, or NULL */
	const char *revert_sha;           /* its revert, "" if it does not apply */
	/* every revert made, in order, the latest (the one above) last: a
	 * likely culprit whose revert did not recover is left out, and the
	 * search goes on with its revert kept */
	const struct kb_perf_revert *reverts;
	size_t nreverts;
	/*
	 * The rebuild check (align 1: the builds are kernels whose tree can
	 * force 64-byte function alignment): the culprit and its parent built
	 * with it, once made, as variants of their own (kb_repo_variant()):
	 */
	int align;
	const char *align_of;             /* culprit sha, or NULL */
	const char *align_parent_sha;     /* its parent's variant, "" if not made */
	const char *align_sha;            /* the culprit's, "" if not made */
	/* a merge culprit's other parents, the second on, built the same
	 * way: git names a merge only when every parent is good, and the
	 * step must stay against each of them in the range too */
	const struct kb_perf_variant *align_others;
	size_t nalign_others;
	/* every culprit whose aligned builds were made, the latest last (at
	 * most KB_REVERTS_MAX) */
	const char (*aligned_made)[41];
	size_t naligned_made;
	/*
	 * GOOD and BAD built with it too (align_ends 1: the session can make
	 * them), where an ending with no culprit confirmed asks whether the
	 * change from one to the other is more than the builds' code layout:
	 * NULL while not asked for, "" where they could not be made.
	 */
	int align_ends;
	const char *align_good_sha, *align_bad_sha;
	struct kb_perf_params p;
	int summary;                      /* fill 'summary' whatever the outcome */
	/*
	 * A pool (machines > 1): the free machine that asks what to measure
	 * (-1: the state of the whole, for status and the end), the boots the
	 * others have under way, and the pair of the verification each
	 * machine measures: 0 parent and culprit, 1 BAD and its revert, -1
	 * none (NULL: machine m measures pair m % 2).  Each machine of a pair
	 * measures both of its commits in turn, and the two are compared
	 * within each machine.
	 */
	int machines;
	int machine;
	const struct kb_perf_job *busy;
	size_t nbusy;
	const signed char *pair_of;
};

enum kb_perf_kind {
	KB_PERF_RUN,     /* boot 'sha' and run the benchmark 'runs' times */
	KB_PERF_REVERT,  /* make the revert of 'sha' on BAD, then ask again */
	KB_PERF_ALIGN,   /* make the aligned variants of 'sha' (a likely culprit)
			  * and of its parent, then ask again */
	KB_PERF_ALIGN_ENDS, /* make the aligned variants of GOOD and of BAD
			     * ('sha'), then ask again */
	KB_PERF_DONE,    /* 'verdict' holds the result */
	KB_PERF_WAIT,    /* a pool: nothing for this machine until a boot under
			  * way elsewhere is in */
};

struct kb_perf_out {
	enum kb_perf_kind kind;
	char sha[41];
	int runs;
	const char *role;   /* "good", "bad", "probe", "parent", "culprit", "revert",
			     * "aligned" */
	char note[256];     /* why, for progress lines */
	double best_prob;   /* the posterior's largest mass, and where */
	long best_node;
	double candidates;  /* how many commits the posterior spreads over:
			     * exp(its entropy), 1 when it is sure */
	double level_good, level_bad, noise; /* z levels and noise in use */
	int warmup_used;
	double boot_spread;  /* the boots' own spread, z units */
	json_t *verdict;    /* DONE: verdict, culprits, warnings, table, steps */
	json_t *summary;    /* with in->summary: steps, table, warnings so far */
};

/* Decide; out->verdict must be released with json_decref when set. */
int kb_perf_decide(const struct kb_perf_in *in, struct kb_perf_out *out);

/* Add a sample to an observation list (grows 'obs'). */
struct kb_perf_obs *kb_perf_obs_get(struct kb_perf_obs **obs, size_t *nobs,
				    size_t *alloc, const char *sha, long node);
void kb_perf_obs_add(struct kb_perf_obs *o, int boot, int run, double value,
		     size_t order);
/* The same, for a sample taken on machine 'machine' of a pool.  The
 * samples of one boot must be added together. */
void kb_perf_obs_add_on(struct kb_perf_obs *o, int machine, int boot, int run,
			double value, size_t order);
void kb_perf_obs_free(struct kb_perf_obs *obs, size_t nobs);

#endif
