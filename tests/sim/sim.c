#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "flaky.h"
#include "graph.h"
#include "perf.h"
#include "stats.h"
#include "util.h"
#include "../unit/rand.h"

struct world {
	const struct sim_scenario *sc;
	struct kb_graph g;
	size_t n;
	size_t culprit[4];
	double *level;        /* log level of each node; GOOD is level 0 */
	char (*sha)[41];
	char (*psha)[41];
	char good[41];
	/* the reverts made on BAD, each of a likely culprit */
	char revert[KB_REVERTS_MAX][41], revert_of[KB_REVERTS_MAX][41];
	struct kb_perf_revert rev[KB_REVERTS_MAX];
	size_t nrevert;
	/* the rebuild check's aligned builds of a culprit and of its parent:
	 * each with the steps of its commit and a layout offset of its own
	 * (alignment taken to move the layout, not to take it away) */
	char align_of[41], align_parent[41], align_sha[41], align_parent_of[41];
	int align_made;
	/* a merge culprit's other parents built aligned too */
	char other_of[8][41], other_v[8][41];
	struct kb_perf_variant others[8];
	size_t nothers;
	char aligned_made[KB_REVERTS_MAX][41];
	size_t naligned_made;
	/* GOOD and BAD built aligned, each a build of its own */
	char end_good[41], end_bad[41];
	int ends_made;
	uint64_t rng;
	long clock;           /* runs so far, for drift and the machine's speed */
	int boot;             /* global boot counter */
	/* the noise added on top of the scenario's model, each from a stream
	 * of its own so that the samples of 'model' stay as they are */
	uint64_t rng_boot;    /* boot offsets */
	double boot_off;      /* the offset of the boot under way */
	uint64_t layout_seed; /* commits' layout offsets */
};

static void world_init(struct world *w, const struct sim_scenario *sc, uint64_t seed)
{
	unsigned char *m;
	size_t i, k;
	int e;

	memset(w, 0, sizeof(*w));
	w->sc = sc;
	w->rng = seed * 7919 + 17;
	w->rng_boot = seed * 104729 + 31;
	w->layout_seed = seed * 1299709 + 43;
	w->n = random_dag(&w->g, sc->commits, 10, seed);
	w->level = kb_calloc(w->n, sizeof(*w->level));
	w->sha = kb_calloc(w->n, sizeof(*w->sha));
	w->psha = kb_calloc(w->n, sizeof(*w->psha));
	m = kb_calloc(w->n, 1);
	snprintf(w->good, sizeof(w->good), "%040d", 0);
	for (i = 0; i < w->n; i++)
		snprintf(w->sha[i], sizeof(w->sha[i]), "%040zx", i + 1);
	for (i = 0; i < w->n; i++) {
		if (kb_graph_nparents(&w->g, i))
			memcpy(w->psha[i], w->sha[kb_graph_parent(&w->g, i, 0)], 41);
		else
			memcpy(w->psha[i], w->good, 41);
	}
	/* culprits: distinct non-merge... any node but BAD's own tip */
	for (e = 0; e < sc->neffects; e++) {
		size_t c;

		do {
			/* a history of one commit: that commit */
			c = w->n > 1 ? 1 + kb_rand_next(&w->rng) % (w->n - 1) : 0;
			for (k = 0; k < (size_t)e && w->culprit[k] != c; k++)
				;
		} while (k < (size_t)e);
		w->culprit[e] = c;
		memset(m, 0, w->n);
		/* every descendant of c (c is among its ancestors) gets the step */
		for (i = 0; i < w->n; i++) {
			memset(m, 0, w->n);
			kb_graph_mark_ancestors(&w->g, i, NULL, m, 1);
			if (m[c])
				w->level[i] += log1p(sc->effects[e]);
		}
	}
	free(m);
}

static void world_free(struct world *w)
{
	kb_graph_release(&w->g);
	free(w->level);
	free(w->sha);
	free(w->psha);
}

/* The layout offset of the build of 'sha': a function of the trial's
 * seed and the commit alone, the same every time the commit is built. */
static double layout_of(const struct world *w, const char *sha)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ w->layout_seed;

	if (!w->sc->layout_noise)
		return 0;
	for (const char *p = sha; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return kb_rand_normal(&h) * w->sc->layout_noise;
}

/* The machine's speed, as a log factor, for the run at 't' in the
 * session's running count of runs. */
static double speed_at(const struct sim_scenario *sc, long t)
{
	double z = 0;

	for (int k = 0; k < 2; k++) {
		const struct sim_speed *sp = &sc->speed[k];

		if (sp->change && t >= sp->from && (!sp->to || t < sp->to))
			z += log1p(sp->change);
	}
	return z;
}

/* A new boot: its own offset. */
static void boot_start(struct world *w)
{
	w->boot_off = w->sc->boot_noise ? kb_rand_normal(&w->rng_boot) * w->sc->boot_noise : 0;
}

/* The level of the commit 'sha': its steps, without its layout offset. */
static double steps_of(struct world *w, const char *sha)
{
	size_t i;

	if (!strcmp(sha, w->good))
		return 0;
	if (w->ends_made && !strcmp(sha, w->end_good))
		return 0;
	if (w->ends_made && !strcmp(sha, w->end_bad))
		return w->level[0];
	if (w->align_made && !strcmp(sha, w->align_sha))
		return steps_of(w, w->align_of);
	if (w->align_made && !strcmp(sha, w->align_parent))
		return steps_of(w, w->align_parent_of);
	for (i = 0; w->align_made && i < w->nothers; i++)
		if (!strcmp(sha, w->other_v[i]))
			return steps_of(w, w->other_of[i]);
	for (size_t r = 0; r < w->nrevert; r++) {
		/* BAD without the reverted commit's step */
		double l = w->level[0];

		if (strcmp(sha, w->revert[r]))
			continue;
		for (int e = 0; e < w->sc->neffects; e++)
			if (!strcmp(w->sha[w->culprit[e]], w->revert_of[r]))
				l -= log1p(w->sc->effects[e]);
		return l;
	}
	for (i = 0; i < w->n; i++)
		if (!strcmp(w->sha[i], sha))
			return w->level[i];
	/* a parent outside the range: an ancestor of GOOD */
	return 0;
}

/* The true log level of the commit 'sha', its layout offset included. */
static double level_of(struct world *w, const char *sha)
{
	return steps_of(w, sha) + layout_of(w, sha);
}

/* One run's value: base 100 * exp(level + noise), in the boot begun by
 * the latest boot_start(). */
static double sample(struct world *w, const char *sha, int run)
{
	const struct sim_scenario *sc = w->sc;
	double l = steps_of(w, sha), z = kb_rand_normal(&w->rng) * sc->noise, v;

	/* the noise on top of the model */
	z += layout_of(w, sha) + w->boot_off + speed_at(sc, w->clock);
	w->clock++;
	switch (sc->model) {
	case NOISE_OUTLIERS:
		if (kb_rand_unit(&w->rng) < 0.05)
			z += log(3.0);
		break;
	case NOISE_WARMUP:
		/* fast for the first runs after a boot, on the good side only:
		 * the whole GOOD->BAD difference is warm-up */
		if (l < log1p(sc->effects[0]) / 2 && run <= 3)
			z -= log1p(sc->effects[0]);
		break;
	case NOISE_DRIFT:
		z += 0.00005 * (double)w->clock;
		break;
	case NOISE_BIMODAL:
		if (kb_rand_unit(&w->rng) < 0.5)
			z += 2 * sc->noise;
		break;
	default:
		break;
	}
	v = 100.0 * exp(l + z);
	return v;
}

static int is_culprit(const struct world *w, const char *sha)
{
	for (int e = 0; e < w->sc->neffects; e++)
		if (!strcmp(w->sha[w->culprit[e]], sha))
			return e + 1;
	return 0;
}

static size_t largest(const struct sim_scenario *sc)
{
	size_t best = 0;

	for (int e = 1; e < sc->neffects; e++)
		if (sc->effects[e] > sc->effects[best])
			best = (size_t)e;
	return best;
}

/* A boot under way on a machine of the simulated pool. */
struct job {
	struct kb_perf_job j;
	int runs;
	double end;
};

/* The verdict into 'r'. */
static void score(struct world *w, json_t *v, struct sim_result *r)
{
	const struct sim_scenario *sc = w->sc;
	json_t *c;
	size_t i;
	int named[4] = { 0 };

	snprintf(r->verdict, sizeof(r->verdict), "%s",
		 json_string_value(json_object_get(v, "verdict")));
	if (json_object_get(v, "reason"))
		snprintf(r->reason, sizeof(r->reason), "%s",
			 json_string_value(json_object_get(v, "reason")));
	json_array_foreach(json_object_get(v, "culprits"), i, c) {
		const char *s = json_string_value(json_object_get(c, "commit"));
		int e = is_culprit(w, s);

		if (!e && (!strcmp(r->verdict, "culprit") || !strcmp(r->verdict, "multiple"))) {
			r->wrong_confident = 1;
			for (size_t k = 0; s && k < w->n; k++)
				if (!strcmp(w->sha[k], s) && kb_graph_nparents(&w->g, k) > 1)
					r->wrong_merge = 1;
		}
		if (e)
			named[e - 1] = 1;
	}
	if (sc->neffects && named[largest(sc)] &&
	    (!strcmp(r->verdict, "culprit") || !strcmp(r->verdict, "multiple")))
		r->exact = 1;
	r->named = sc->neffects && named[largest(sc)];
	r->all_found = sc->neffects > 0;
	for (int e = 0; e < sc->neffects; e++)
		if (!named[e])
			r->all_found = 0;
	json_array_foreach(json_object_get(v, "steps"), i, c)
		r->aligned_steps += !strcmp(json_string_value(json_object_get(c, "role")), "aligned");
	r->aligned_ends = json_object_get(json_array_get(json_object_get(v, "culprits"), 0),
					  "aligned_ends") != NULL;
	json_array_foreach(json_object_get(v, "warnings"), i, c) {
		const char *k = json_string_value(json_object_get(c, "kind"));

		if (!strcmp(k, "warm-up"))
			r->warmup_warned = 1;
		if (!strcmp(k, "partial") || !strcmp(k, "multiple"))
			r->partial_or_multiple = 1;
		if (!strcmp(k, "machines"))
			r->machines_warned = 1;
		if (!strcmp(k, "reverted"))
			r->went_on = 1;
	}
}

void sim_trial(const struct sim_scenario *sc, uint64_t seed, struct sim_result *r)
{
	sim_trial_pool(sc, seed, 1, 0, r);
}

void sim_trial_pool(const struct sim_scenario *sc, uint64_t seed, int machines,
		    double spread, struct sim_result *r)
{
	struct world w;
	struct kb_perf_in in;
	struct kb_perf_out out;
	struct kb_perf_obs *obs = NULL;
	struct job *jobs = kb_calloc((size_t)machines, sizeof(*jobs));
	struct kb_perf_job *busy = kb_calloc((size_t)machines, sizeof(*busy));
	size_t nobs = 0, alloc = 0, order = 0, njobs = 0;
	unsigned char *working = kb_calloc((size_t)machines, 1);
	int guard = 0;

	memset(r, 0, sizeof(*r));
	r->cal_runs = r->verify_at = -1;
	world_init(&w, sc, seed);
	memset(&in, 0, sizeof(in));
	in.g = &w.g;
	in.bad = 0;
	in.node_sha = (const char (*)[41])w.sha;
	in.parent_sha = (const char (*)[41])w.psha;
	in.good_sha = w.good;
	kb_perf_params_default(&in.p);
	in.p.runs_per_boot = sc->runs_per_boot;
	in.p.seed = seed;
	/* the rebuild check where builds have layout offsets, as a kernel
	 * bisection makes it; elsewhere as with --rebuild-check off, so that
	 * those figures stay comparable with the engine's before */
	in.align = sc->layout_noise > 0 || sc->rebuild_check;
	/* GOOD and BAD built aligned too, where the ending asks for them
	 * (SIM_NO_ENDS=1: a session that cannot make them) */
	in.align_ends = in.align && !getenv("SIM_NO_ENDS");
	in.machines = machines;
	in.busy = busy;
	if (getenv("SIM_TRACE"))
		for (int e = 0; e < sc->neffects; e++)
			fprintf(stderr, "culprit node %zu (sha %.6s), level of BAD %.4f\n",
				w.culprit[e], w.sha[w.culprit[e]] + 34, w.level[0]);
	for (;;) {
		int m, done = 0;

		for (size_t i = 0; i < njobs; i++)
			busy[i] = jobs[i].j;
		in.nbusy = njobs;
		/* the whole first (a single machine's decision), then each
		 * free machine of a pool */
		for (m = -1; m < machines; m++) {
			if (m >= 0 && (working[m] || machines == 1 || done))
				continue;
			in.machine = m;
			if (++guard > 20000 || kb_perf_decide(&in, &out) < 0) {
				snprintf(r->verdict, sizeof(r->verdict), "error");
				goto out;
			}
			if (getenv("SIM_TRACE") && out.kind != KB_PERF_DONE &&
			    out.kind != KB_PERF_WAIT)
				fprintf(stderr, "  %5.0f m%d %-7s %.6s best=%.3f@%ld [%.4f %.4f "
					"%.4f w%d] %s\n", r->time, m, out.role ? out.role : "revert",
					out.sha + 34, out.best_prob, out.best_node, out.level_good,
					out.level_bad, out.noise, out.warmup_used, out.note);
			if (out.kind == KB_PERF_ALIGN_ENDS) {
				/* a commit's variant is the same commit however
				 * asked for: GOOD's is the aligned parent's
				 * where GOOD is the culprit's parent */
				if (w.align_made && !strcmp(w.align_parent_of, w.good))
					memcpy(w.end_good, w.align_parent, 41);
				else
					snprintf(w.end_good, sizeof(w.end_good), "g%039d", guard);
				if (w.align_made && !strcmp(w.align_of, w.sha[0]))
					memcpy(w.end_bad, w.align_sha, 41);
				else
					snprintf(w.end_bad, sizeof(w.end_bad), "h%039d", guard);
				w.ends_made = 1;
				in.align_good_sha = w.end_good;
				in.align_bad_sha = w.end_bad;
				m--;
				continue;
			}
			if (out.kind == KB_PERF_ALIGN) {
				size_t i;

				snprintf(w.align_of, sizeof(w.align_of), "%s", out.sha);
				memcpy(w.align_parent_of, w.good, 41);
				w.nothers = 0;
				for (i = 0; i < w.n; i++) {
					if (strcmp(w.sha[i], out.sha))
						continue;
					memcpy(w.align_parent_of, w.psha[i], 41);
					/* a merge: its other parents too */
					for (size_t k = 1; k < kb_graph_nparents(&w.g, i) &&
					     w.nothers < 8; k++) {
						size_t o = w.nothers++;

						memcpy(w.other_of[o],
						       w.sha[kb_graph_parent(&w.g, i, k)], 41);
						snprintf(w.other_v[o], 41, "o%02zu%037d", o, guard);
						w.others[o].of = w.other_of[o];
						w.others[o].sha = w.other_v[o];
					}
				}
				in.align_others = w.others;
				in.nalign_others = w.nothers;
				snprintf(w.align_parent, sizeof(w.align_parent), "p%039d", guard);
				snprintf(w.align_sha, sizeof(w.align_sha), "q%039d", guard);
				w.align_made = 1;
				if (w.naligned_made < KB_REVERTS_MAX)
					memcpy(w.aligned_made[w.naligned_made++], out.sha, 41);
				in.aligned_made = (const char (*)[41])w.aligned_made;
				in.naligned_made = w.naligned_made;
				in.align_of = w.align_of;
				in.align_parent_sha = w.align_parent;
				in.align_sha = w.align_sha;
				m--;
				continue;
			}
			if (out.kind == KB_PERF_REVERT) {
				size_t nr = w.nrevert < KB_REVERTS_MAX ? w.nrevert++ :
					    KB_REVERTS_MAX - 1;

				snprintf(w.revert_of[nr], 41, "%s", out.sha);
				snprintf(w.revert[nr], 41, "r%039d", guard);
				w.rev[nr].of = w.revert_of[nr];
				w.rev[nr].sha = w.revert[nr];
				in.reverts = w.rev;
				in.nreverts = w.nrevert;
				in.revert_of = w.revert_of[nr];
				in.revert_sha = w.revert[nr];
				m--;
				continue;
			}
			if (out.kind == KB_PERF_DONE) {
				if (m < 0 && !njobs) {
					if (getenv("SIM_TRACE") && getenv("SIM_TRACE")[0] == '2')
						json_dumpf(out.verdict, stderr, JSON_INDENT(1));
					score(&w, out.verdict, r);
					json_decref(out.verdict);
					goto out;
				}
				json_decref(out.verdict);
				done = m < 0;
				continue;
			}
			if (out.kind == KB_PERF_WAIT || (m < 0 && machines > 1))
				continue;
			/* where the phases begin, in runs taken */
			if (r->cal_runs < 0 && out.role && !strcmp(out.role, "probe"))
				r->cal_runs = r->runs;
			if (r->verify_at < 0 && out.role && (!strcmp(out.role, "parent") ||
							     !strcmp(out.role, "culprit")))
				r->verify_at = r->runs;
			/* the machine starts a boot: it ends after its runs and as
			 * long again as one run for the boot */
			m = m < 0 ? 0 : m;
			jobs[njobs].j.machine = m;
			memcpy(jobs[njobs].j.sha, out.sha, 41);
			jobs[njobs].runs = out.runs;
			jobs[njobs].end = r->time + out.runs + 1;
			busy[njobs] = jobs[njobs].j;
			in.nbusy = ++njobs;
			working[m] = 1;
			if (machines == 1)
				break;
		}
		if (!njobs) {
			snprintf(r->verdict, sizeof(r->verdict), "error");
			snprintf(r->reason, sizeof(r->reason), "no machine at work and no verdict");
			break;
		}
		/* the next boot to end delivers its samples */
		{
			size_t first = 0, i;
			struct kb_perf_obs *o;
			long node = -1;
			struct job jb;

			for (i = 1; i < njobs; i++)
				if (jobs[i].end < jobs[first].end)
					first = i;
			jb = jobs[first];
			jobs[first] = jobs[--njobs];
			working[jb.j.machine] = 0;
			r->time = jb.end;
			for (i = 0; i < w.n; i++)
				if (!strcmp(w.sha[i], jb.j.sha))
					node = (long)i;
			o = kb_perf_obs_get(&obs, &nobs, &alloc, jb.j.sha, node);
			w.boot++;
			boot_start(&w);
			if (getenv("SIM_TRACE") && (sc->boot_noise || sc->speed[0].change))
				fprintf(stderr, "  boot %d %.6s runs %ld..%ld offset %.4f speed "
					"%.4f..%.4f\n", w.boot, jb.j.sha + 34, w.clock,
					w.clock + jb.runs - 1, w.boot_off, speed_at(sc, w.clock),
					speed_at(sc, w.clock + jb.runs - 1));
			for (int run = 1; run <= jb.runs; run++)
				kb_perf_obs_add_on(o, jb.j.machine, w.boot, run,
						   sample(&w, jb.j.sha, run) *
						   exp(spread * jb.j.machine), order++);
			r->runs += jb.runs;
			r->boots++;
			in.obs = obs;
			in.nobs = nobs;
		}
	}
out:
	r->reverts = (int)w.nrevert;
	if (getenv("SIM_TRACE"))
		for (size_t i = 0; i < nobs; i++) {
			double z[4096];
			size_t m = 0;

			for (size_t j = 0; j < obs[i].n && m < 4096; j++)
				z[m++] = log(obs[i].s[j].value);
			fprintf(stderr, "obs %.6s node %ld n=%zu median %.4f true %.4f\n",
				obs[i].sha + 34, obs[i].node, obs[i].n, kb_median(z, m),
				log(100) + level_of(&w, obs[i].sha));
		}
	if (!sc->neffects)
		r->verdict_ok = !strcmp(r->verdict, "no-regression");
	else
		r->verdict_ok = r->exact;
	kb_perf_obs_free(obs, nobs);
	world_free(&w);
	free(jobs);
	free(busy);
	free(working);
}

/* The mean of k runs of 'sha', in one boot of its own. */
static double mean_of(struct world *w, const char *sha, int k)
{
	double s = 0;

	boot_start(w);
	for (int i = 0; i < k; i++)
		s += sample(w, sha, i + 1);
	return s / k;
}

void sim_naive(const struct sim_scenario *sc, uint64_t seed, int k, struct sim_result *r)
{
	struct world w;
	char *marks;
	struct kb_next next;
	double thr;

	memset(r, 0, sizeof(*r));
	world_init(&w, sc, seed);
	marks = kb_calloc(w.n, 1);
	thr = (mean_of(&w, w.good, k) + mean_of(&w, w.sha[0], k)) / 2;
	r->runs = 2 * k;
	r->boots = 2;
	r->cal_runs = r->verify_at = -1;
	for (;;) {
		if (kb_bisect_next(&w.g, 0, marks, seed, &next) < 0)
			break;
		if (next.kind != KB_NEXT_TEST)
			break;
		marks[next.commit] = mean_of(&w, w.sha[next.commit], k) > thr ?
			KB_MARK_BAD : KB_MARK_GOOD;
		r->runs += k;
		r->boots++;
		kb_next_release(&next);
	}
	snprintf(r->verdict, sizeof(r->verdict), "culprit");
	if (next.kind == KB_NEXT_FOUND) {
		int e = is_culprit(&w, w.sha[next.commit]);

		r->exact = sc->neffects && e == (int)largest(sc) + 1;
		r->wrong_confident = !e;
	}
	r->verdict_ok = sc->neffects ? r->exact : 0;
	kb_next_release(&next);
	free(marks);
	world_free(&w);
}

/* A flaky world: the history and its culprit as a perf trial's, and what
 * each node holds. */
struct fworld {
	struct world w;
	unsigned char *holds;   /* per node: the culprit is among its ancestors */
	uint64_t rng;
};

static void fworld_init(struct fworld *f, const struct sim_flaky *sc, uint64_t seed)
{
	static struct sim_scenario one;
	unsigned char *m;
	size_t i;

	memset(&one, 0, sizeof(one));
	one.commits = sc->commits;
	one.effects[0] = 0.05;
	one.neffects = 1;
	world_init(&f->w, &one, seed);
	f->holds = kb_calloc(f->w.n, 1);
	m = kb_calloc(f->w.n, 1);
	for (i = 0; i < f->w.n; i++) {
		memset(m, 0, f->w.n);
		kb_graph_mark_ancestors(&f->w.g, i, NULL, m, 1);
		f->holds[i] = m[f->w.culprit[0]];
	}
	free(m);
	f->rng = seed * 15485863 + 7;
}

static void fworld_free(struct fworld *f)
{
	world_free(&f->w);
	free(f->holds);
}

/* One run of 'node' (-1: GOOD; -2: BAD with 'reverted' reverted): 1 when
 * it fails. */
static int frun(struct fworld *f, const struct sim_flaky *sc, long node, long reverted)
{
	int holds;

	if (node == -2)
		holds = reverted != (long)f->w.culprit[0];
	else
		holds = node >= 0 && f->holds[node];
	return kb_rand_unit(&f->rng) < (holds ? sc->rate : sc->false_rate);
}

static struct kb_flaky_count *fcount(struct kb_flaky_count **c, size_t *nc, long node)
{
	size_t i;

	for (i = 0; i < *nc; i++)
		if ((*c)[i].node == node)
			return &(*c)[i];
	*c = realloc(*c, (*nc + 1) * sizeof(**c));
	(*c)[*nc].node = node;
	(*c)[*nc].runs = (*c)[*nc].fails = (*c)[*nc].other = 0;
	return &(*c)[(*nc)++];
}

void sim_flaky_trial(const struct sim_flaky *sc, uint64_t seed, struct sim_flaky_result *r)
{
	struct fworld f;
	struct kb_flaky_in in;
	struct kb_flaky_count *c = NULL;
	size_t nc = 0;
	int guard;

	memset(r, 0, sizeof(*r));
	fworld_init(&f, sc, seed);
	memset(&in, 0, sizeof(in));
	in.g = &f.w.g;
	in.bad = 0;
	in.revert_of = -1;
	kb_flaky_params_default(&in.p);
	for (guard = 0; guard < 100000; guard++) {
		struct kb_flaky_out out;

		in.c = c;
		in.nc = nc;
		if (kb_flaky_decide(&in, &out) < 0) {
			snprintf(r->verdict, sizeof(r->verdict), "error");
			break;
		}
		if (getenv("SIM_TRACE"))
			fprintf(stderr, "  %4ld %-7s %5ld best %ld %.3f q %.2f e %.3f  %s%s\n", r->runs,
				out.role ? out.role : "done", out.node, out.best, out.prob, out.q,
				out.e, out.note, out.reason);
		if (out.kind == KB_FLAKY_DONE) {
			snprintf(r->verdict, sizeof(r->verdict), "%s", out.verdict);
			if (!strcmp(out.verdict, "culprit")) {
				r->exact = out.best == (long)f.w.culprit[0];
				r->wrong = !r->exact;
			}
			r->noreg = !strcmp(out.verdict, "no-regression");
			break;
		}
		if (out.kind == KB_FLAKY_REVERT) {
			in.revert_of = out.node;
			in.revert_made = 1;
			in.revert_runs = in.revert_fails = 0;
			r->commits++;
			continue;
		}
		r->runs++;
		if (out.kind == KB_FLAKY_RUN_REVERT) {
			in.revert_runs++;
			in.revert_fails += frun(&f, sc, -2, in.revert_of);
			continue;
		}
		{
			struct kb_flaky_count *k = fcount(&c, &nc, out.node);

			r->commits += !k->runs;
			k->runs++;
			k->fails += frun(&f, sc, out.node, -1);
		}
	}
	if (getenv("SIM_TRACE"))
		fprintf(stderr, "culprit %zu: %s after %ld runs\n", f.w.culprit[0], r->verdict, r->runs);
	free(c);
	fworld_free(&f);
}

void sim_flaky_tries(const struct sim_flaky *sc, uint64_t seed, int tries,
		     struct sim_flaky_result *r)
{
	struct fworld f;
	char *marks;
	int guard;

	memset(r, 0, sizeof(*r));
	fworld_init(&f, sc, seed);
	marks = kb_calloc(f.w.n, 1);
	for (guard = 0; guard < 10000; guard++) {
		struct kb_next next;
		int k, failed = 0;

		if (kb_bisect_next(&f.w.g, 0, marks, seed, &next) < 0) {
			snprintf(r->verdict, sizeof(r->verdict), "error");
			break;
		}
		if (next.kind != KB_NEXT_TEST) {
			if (next.kind == KB_NEXT_FOUND) {
				snprintf(r->verdict, sizeof(r->verdict), "culprit");
				r->exact = next.commit == f.w.culprit[0];
				r->wrong = !r->exact;
			} else {
				snprintf(r->verdict, sizeof(r->verdict), "inconclusive");
			}
			kb_next_release(&next);
			break;
		}
		r->commits++;
		for (k = 0; k < tries && !failed; k++) {
			r->runs++;
			failed = frun(&f, sc, (long)next.commit, -1);
		}
		marks[next.commit] = failed ? KB_MARK_BAD : KB_MARK_GOOD;
		kb_next_release(&next);
	}
	free(marks);
	fworld_free(&f);
}
