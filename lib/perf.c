#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "stats.h"
#include "util.h"

#define NU 4.0               /* tails of the sample model */
#define DECIDE 4.59511985    /* log(99): a probe is decided at 99:1 */
#define CLAMP 15.0           /* no one commit's evidence counts beyond this */
#define VERIFY_ALPHA 0.005
#define VERIFY_BOOTS 3
#define VERIFY_MAX_BOOTS 16
#define MIN_SPLIT 0.02

void kb_perf_params_default(struct kb_perf_params *p)
{
	memset(p, 0, sizeof(*p));
	p->warmup = 0;
	p->runs_per_boot = 5;
	p->confidence = 0.95;
	p->alpha = 0.001;
	p->min_cal_boots = 2;
	p->max_cal_boots = 20;
	p->min_probe = 5;
	p->max_probe = 40;
	p->max_runs = 2000;
	p->seed = 1;
}

struct kb_perf_obs *kb_perf_obs_get(struct kb_perf_obs **obs, size_t *nobs,
				    size_t *alloc, const char *sha, long node)
{
	size_t i;

	for (i = 0; i < *nobs; i++)
		if (!strcmp((*obs)[i].sha, sha))
			return &(*obs)[i];
	KB_ALLOC_GROW(*obs, *nobs + 1, *alloc);
	memset(&(*obs)[*nobs], 0, sizeof(**obs));
	snprintf((*obs)[*nobs].sha, sizeof((*obs)[*nobs].sha), "%s", sha);
	(*obs)[*nobs].node = node;
	return &(*obs)[(*nobs)++];
}

void kb_perf_obs_add_on(struct kb_perf_obs *o, int machine, int boot, int run,
			double value, size_t order)
{
	KB_ALLOC_GROW(o->s, o->n + 1, o->alloc);
	o->s[o->n++] = (struct kb_sample){ boot, run, value, machine };
	if (o->n == 1)
		o->first = order;
	o->last = order;
}

void kb_perf_obs_add(struct kb_perf_obs *o, int boot, int run, double value, size_t order)
{
	kb_perf_obs_add_on(o, 0, boot, run, value, order);
}

void kb_perf_obs_free(struct kb_perf_obs *obs, size_t nobs)
{
	size_t i;

	for (i = 0; i < nobs; i++)
		free(obs[i].s);
	free(obs);
}

/* The working state of one decision. */
struct ctx {
	const struct kb_perf_in *in;
	int use_log;
	int warm;            /* runs dropped after each boot, detected included */
	int warm_detected;
	double mu_g, mu_b, sigma;
	size_t total;        /* samples taken */
	json_t *warnings;
	unsigned char *anc;  /* scratch, g->n */
	long known;          /* a culprit already found, -1 if none */
	double known_step;   /* its step, in z units */
	unsigned char *known_in; /* known_in[i]: the known culprit is in node i */
	/* a pool: the machines whose samples are scaled, and 1/n summed over
	 * the four sample sets their scale comes from */
	int nmachines;
	unsigned char *scaled;
	double *scale_inv_n;
};

/* A finding of one range bisection. */
struct found {
	long node;           /* -1: none */
	double prob;
	const char *parent_check, *revert_check;
	double share, share_lo, share_hi;
	char why[200];
};

enum { DECIDED, ACTION, NOTHING };

static double zval(const struct ctx *c, double v)
{
	double y = c->use_log ? log(v) : v;

	return c->in->p.higher_is_better ? -y : y;
}

static const struct kb_perf_obs *find(const struct ctx *c, const char *sha)
{
	size_t i;

	for (i = 0; sha && i < c->in->nobs; i++)
		if (!strcmp(c->in->obs[i].sha, sha))
			return &c->in->obs[i];
	return NULL;
}

static const struct kb_perf_obs *find_node(const struct ctx *c, long node)
{
	size_t i;

	for (i = 0; i < c->in->nobs; i++)
		if (c->in->obs[i].node == node)
			return &c->in->obs[i];
	return NULL;
}

static int nboots(const struct kb_perf_obs *o)
{
	int n = 0, last = -1;
	size_t i;

	for (i = 0; o && i < o->n; i++)
		if (o->s[i].boot != last) {
			n++;
			last = o->s[i].boot;
		}
	return n;
}

/*
 * The boots of 'o' that ran all their runs.  A boot cut short (kbisect
 * killed in its middle, its machine retired) keeps its samples, but is not
 * one of the boots that calibration asks for: a few such boots would leave
 * too few samples to judge GOOD and BAD by.
 */
static int full_boots(const struct ctx *c, const struct kb_perf_obs *o)
{
	int n = 0, runs = 0, last = -1;
	size_t i;

	for (i = 0; o && i <= o->n; i++) {
		if (i == o->n || o->s[i].boot != last) {
			if (last >= 0 && runs >= c->in->p.runs_per_boot)
				n++;
			if (i == o->n)
				break;
			last = o->s[i].boot;
			runs = 0;
		}
		runs++;
	}
	return n;
}

/* The steady z-values of an observation (malloc'd, count in *n). */
static double *steady(const struct ctx *c, const struct kb_perf_obs *o, size_t *n)
{
	double *z = kb_malloc(((o ? o->n : 0) + 1) * sizeof(*z));
	size_t i;

	*n = 0;
	for (i = 0; o && i < o->n; i++)
		if (o->s[i].run > c->warm)
			z[(*n)++] = zval(c, o->s[i].value);
	return z;
}

static void warn(struct ctx *c, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(struct ctx *c, const char *kind, const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	json_t *w;
	size_t i;
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	json_array_foreach(c->warnings, i, w)
		if (!strcmp(json_string_value(json_object_get(w, "kind")), kind)) {
			kb_buf_release(&b);
			return;
		}
	json_array_append_new(c->warnings, json_pack("{s:s, s:s}", "kind", kind,
						     "message", b.ptr));
	kb_buf_release(&b);
}

/*
 * Trend of the samples with the run number after a boot, on commits with
 * enough runs: each sample's distance from its boot's median against its
 * run number.  Returns the p-value of Spearman's test.
 */
static double trend_p(const struct ctx *c, int drop)
{
	double *x = NULL, *y = NULL, p = 1;
	size_t n = 0, alloc = 0, i, j, k;

	for (i = 0; i < c->in->nobs; i++) {
		const struct kb_perf_obs *o = &c->in->obs[i];

		for (j = 0; j < o->n;) {
			double vals[1024];
			size_t m = 0, start = j;

			for (k = j; k < o->n && o->s[k].boot == o->s[j].boot; k++)
				if (o->s[k].run > drop && m < 1024)
					vals[m++] = zval(c, o->s[k].value);
			if (m >= 4) {
				double med = kb_median(vals, m);

				for (size_t q = start; q < k; q++) {
					if (o->s[q].run <= drop)
						continue;
					KB_ALLOC_GROW(x, n + 1, alloc);
					y = kb_realloc(y, alloc * sizeof(*y));
					x[n] = o->s[q].run;
					y[n++] = zval(c, o->s[q].value) - med;
				}
			}
			j = k;
		}
	}
	if (n >= 12)
		kb_spearman(x, y, n, &p);
	free(x);
	free(y);
	return p;
}

/* Find warm-up: runs after a boot that trend.  Sets c->warm. */
static void detect_warmup(struct ctx *c)
{
	int base = c->in->p.warmup, extra, max = c->in->p.runs_per_boot / 2;

	c->warm = base;
	if (c->in->p.runs_per_boot - base < 4 || trend_p(c, base) >= 1e-3)
		return;
	for (extra = 1; extra <= max; extra++)
		if (trend_p(c, base + extra) > 0.05)
			break;
	if (extra > max)
		extra = max;
	c->warm = base + extra;
	c->warm_detected = extra;
	warn(c, "warm-up", "samples trend with the run number after each boot: the "
	     "first %d run%s after a boot differ from the rest; they are left out "
	     "(set \"warmup\": %d in the benchmark to do so from the start)",
	     c->warm, c->warm == 1 ? "" : "s", c->warm);
}

static void run_action(struct kb_perf_out *out, const char *sha, const char *role,
		       int runs, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void run_action(struct kb_perf_out *out, const char *sha, const char *role,
		       int runs, const char *fmt, ...)
{
	va_list ap;

	out->kind = KB_PERF_RUN;
	snprintf(out->sha, sizeof(out->sha), "%s", sha);
	out->role = role;
	out->runs = runs;
	va_start(ap, fmt);
	vsnprintf(out->note, sizeof(out->note), fmt, ap);
	va_end(ap);
}

/* Was 'sha' marked skip (it could not be built or measured)? */
static int skipped(const struct ctx *c, const char *sha)
{
	size_t k;

	for (k = 0; c->in->marks && k < c->in->g->n; k++)
		if (c->in->marks[k] == 's' && !strcmp(c->in->node_sha[k], sha))
			return 1;
	return 0;
}

/* A pool: is more than one machine measuring? */
static int pooled(const struct ctx *c)
{
	return c->in->machines > 1;
}

/* How many boots of 'sha' are under way on other machines. */
static int busy_n(const struct ctx *c, const char *sha)
{
	int n = 0;

	for (size_t i = 0; i < c->in->nbusy; i++)
		n += !strcmp(c->in->busy[i].sha, sha);
	return n;
}

/* The verification pair machine 'm' measures. */
static int pair_of(const struct ctx *c, int m)
{
	if (m < 0 || m >= c->in->machines)
		return -1;
	return c->in->pair_of ? c->in->pair_of[m] : m % 2;
}

/* Does the asking machine measure verification pair 'pair'? */
static int owns(const struct ctx *c, int pair)
{
	return !pooled(c) || c->in->machine < 0 || pair_of(c, c->in->machine) == pair;
}

/* The boots of 'o' on the asking machine of a pool, else all its boots. */
static int boots_here(const struct ctx *c, const struct kb_perf_obs *o)
{
	int n = 0, last = -1;
	size_t i;

	if (!pooled(c) || c->in->machine < 0)
		return nboots(o);
	for (i = 0; o && i < o->n; i++)
		if (o->s[i].machine == c->in->machine && o->s[i].boot != last) {
			n++;
			last = o->s[i].boot;
		}
	return n;
}

static void wait_action(const struct ctx *c, struct kb_perf_out *out, const char *why)
{
	out->kind = KB_PERF_WAIT;
	out->role = "wait";
	snprintf(out->note, sizeof(out->note), "machine %d waits: %s", c->in->machine, why);
}

/* log likelihood ratio (BAD level : GOOD level) of a commit's samples */
static double llr_of(const struct ctx *c, const double *z, size_t n, double lo, double hi)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += kb_t_logpdf(z[i], hi, c->sigma, NU) - kb_t_logpdf(z[i], lo, c->sigma, NU);
	return s;
}

struct probe_state {
	double llr;
	size_t n;
	int decided;       /* -1 good, 1 bad, 0 open */
	int capped;
	int between;       /* level firmly between the two */
};

static void probe_state(const struct ctx *c, const struct kb_perf_obs *o, double lo,
			double hi, struct probe_state *ps)
{
	int min = c->in->p.min_probe;
	double *z;

	memset(ps, 0, sizeof(*ps));
	z = steady(c, o, &ps->n);
	if (c->known >= 0 && o->node >= 0 && c->known_in[o->node]) {
		/* this commit has the known culprit's step already */
		lo += c->known_step;
		hi += c->known_step;
	}
	ps->llr = llr_of(c, z, ps->n, lo, hi);
	if ((size_t)min <= ps->n) {
		if (ps->llr >= DECIDE)
			ps->decided = 1;
		else if (ps->llr <= -DECIDE)
			ps->decided = -1;
		/* is the level firmly between GOOD and BAD? */
		double med = kb_median(z, ps->n), se = 1.2533 * c->sigma / sqrt((double)ps->n);
		double f_lo = (med - 2.5 * se - lo) / (hi - lo), f_hi = (med + 2.5 * se - lo) / (hi - lo);

		if (ps->n >= (size_t)3 * min && f_lo > 0.25 && f_hi < 0.75)
			ps->between = 1;
	}
	if (ps->n >= (size_t)c->in->p.max_probe)
		ps->capped = 1;
	free(z);
}

static int budget_left(const struct ctx *c)
{
	return (int)c->total < c->in->p.max_runs;
}

/* The steady z-values of the first 'boots' boots of an observation. */
static double *steady_boots(const struct ctx *c, const struct kb_perf_obs *o, int boots,
			    size_t *n)
{
	double *z = kb_malloc(((o ? o->n : 0) + 1) * sizeof(*z));
	int seen = 0, last = -1;
	size_t i;

	*n = 0;
	for (i = 0; o && i < o->n; i++) {
		if (o->s[i].boot != last) {
			if (++seen > boots)
				break;
			last = o->s[i].boot;
		}
		if (o->s[i].run > c->warm)
			z[(*n)++] = zval(c, o->s[i].value);
	}
	return z;
}

/* A sequential two-sample test over growing prefixes of interleaved boots:
 * DIFFER at the first prefix where the rank tests reject at 'alpha', SAME
 * at the first (from 'same_from' boots on) where p exceeds 'same_p', MORE
 * when neither has happened and more boots are allowed, SAME at the cap. */
enum { CAL_MORE, CAL_SAME, CAL_DIFFER };

static int seq_test(const struct ctx *c, const struct kb_perf_obs *a,
		    const struct kb_perf_obs *b, int min, int max, int same_from,
		    double same_p, double alpha, double *p_out, double *eff_out)
{
	int have = nboots(a) < nboots(b) ? nboots(a) : nboots(b), k;

	*p_out = 1;
	*eff_out = 0;
	for (k = min; k <= have && k <= max; k++) {
		size_t na, nb;
		double *za = steady_boots(c, a, k, &na), *zb = steady_boots(c, b, k, &nb);
		double p = kb_mann_whitney_p(za, na, zb, nb), pks = kb_ks_p(za, na, zb, nb);

		*eff_out = kb_median(zb, nb) - kb_median(za, na);
		*p_out = p;
		free(za);
		free(zb);
		if (p < alpha || pks < alpha / 10)
			return CAL_DIFFER;
		if (k >= same_from && p > same_p)
			return CAL_SAME;
	}
	return have >= max ? CAL_SAME : CAL_MORE;
}

static int calibrate(const struct ctx *c, const struct kb_perf_obs *go,
		     const struct kb_perf_obs *bo, double *p, double *eff)
{
	return seq_test(c, go, bo, c->in->p.min_cal_boots, c->in->p.max_cal_boots, 8, 0.5,
			c->in->p.alpha, p, eff);
}

/*
 * The posterior over the culprit among 'alive' given levels lo and hi:
 * post[k] for every node (0 when not alive).  Returns the most recently
 * measured commit of the range other than 'bad' (the current probe).
 */
static const struct kb_perf_obs *posterior(struct ctx *c, const unsigned char *alive,
					   size_t bad, double lo, double hi, double *post)
{
	const struct kb_graph *g = c->in->g;
	double *logp = kb_calloc(g->n, sizeof(*logp)), maxl = -INFINITY, sum = 0;
	const struct kb_perf_obs *cur = NULL;
	size_t i, k;

	for (i = 0; i < c->in->nobs; i++) {
		const struct kb_perf_obs *o = &c->in->obs[i];
		struct probe_state ps;
		double l;

		if (o->node < 0 || !alive[o->node])
			continue;
		probe_state(c, o, lo, hi, &ps);
		if (!ps.n)
			continue;
		l = fmax(-CLAMP, fmin(CLAMP, ps.llr));
		memset(c->anc, 0, g->n);
		kb_graph_mark_ancestors(g, (size_t)o->node, alive, c->anc, 1);
		for (k = 0; k < g->n; k++)
			if (c->anc[k])
				logp[k] += l;
		if ((size_t)o->node != bad && (!cur || o->last > cur->last))
			cur = o;
	}
	for (k = 0; k < g->n; k++)
		if (alive[k])
			maxl = fmax(maxl, logp[k]);
	for (k = 0; k < g->n; k++) {
		/* the culprit already found stays in the graph (paths run
		 * through it) but is no candidate */
		post[k] = alive[k] && (long)k != c->known ? exp(logp[k] - maxl) : 0;
		sum += post[k];
	}
	for (k = 0; k < g->n; k++)
		post[k] /= sum;
	free(logp);
	return cur;
}

/*
 * Better levels: GOOD's samples with those of every commit the posterior
 * puts firmly on the good side, BAD's with those firmly on the bad side.
 */
static void refine_levels(struct ctx *c, const unsigned char *alive)
{
	const struct kb_graph *g = c->in->g;
	double *post = kb_calloc(g->n, sizeof(*post)), *w = kb_calloc(g->n, sizeof(*w));
	double *zg = NULL, *zb = NULL, *res;
	size_t ng = 0, nb = 0, ag = 0, ab = 0, i, j, n;
	int iter;

	for (iter = 0; iter < 3; iter++) {
		posterior(c, alive, c->in->bad, c->mu_g, c->mu_b, post);
		kb_graph_reach(g, alive, post, w);
		ng = nb = 0;
		for (i = 0; i < c->in->nobs; i++) {
			const struct kb_perf_obs *o = &c->in->obs[i];
			int side = 0;
			double *z;

			if (!strcmp(o->sha, c->in->good_sha))
				side = -1;
			else if (o->node == (long)c->in->bad)
				side = 1;
			else if (o->node >= 0 && alive[o->node] && w[o->node] < 0.1)
				side = -1;
			else if (o->node >= 0 && alive[o->node] && w[o->node] > 0.9)
				side = 1;
			if (!side)
				continue;
			z = steady(c, o, &n);
			for (j = 0; j < n; j++) {
				if (side < 0) {
					KB_ALLOC_GROW(zg, ng + 1, ag);
					zg[ng++] = z[j];
				} else {
					KB_ALLOC_GROW(zb, nb + 1, ab);
					zb[nb++] = z[j];
				}
			}
			free(z);
		}
		if (ng < 3 || nb < 3)
			break;
		c->mu_g = kb_median(zg, ng);
		c->mu_b = kb_median(zb, nb);
		res = kb_malloc((ng + nb) * sizeof(*res));
		for (i = 0; i < ng; i++)
			res[i] = zg[i] - c->mu_g;
		for (i = 0; i < nb; i++)
			res[ng + i] = zb[i] - c->mu_b;
		if (kb_mad(res, ng + nb) > 0)
			c->sigma = kb_mad(res, ng + nb);
		free(res);
	}
	free(zg);
	free(zb);
	free(post);
	free(w);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The probability mass expected to be left once probes at the cut points
 * 'cut' (each commit's share of the posterior on its bad side) are
 * decided: the squared gaps between them, 0 and 1 included.  Sorts 'cut'. */
static double mass_left(double *cut, size_t n)
{
	double sum = 0, prev = 0;
	size_t i;

	qsort(cut, n, sizeof(*cut), cmp_double);
	for (i = 0; i < n; i++) {
		sum += (cut[i] - prev) * (cut[i] - prev);
		prev = cut[i];
	}
	return sum + (1 - prev) * (1 - prev);
}

/*
 * A probe for a free machine of a pool, given the posterior's bad-side
 * shares 'w': a probe left open that no machine measures, else the commit
 * that with the probes under way leaves the least mass, else one at its
 * cap given another cap's worth.  ACTION (out set), or NOTHING.
 */
static int pool_probe(struct ctx *c, const unsigned char *alive, size_t bad, double lo,
		      double hi, const double *w, struct kb_perf_out *out)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_graph *g = in->g;
	const struct kb_perf_obs *open = NULL, *o;
	double *cut = kb_calloc(in->nbusy + 1, sizeof(*cut)), *tmp, best = INFINITY, split;
	struct probe_state ps;
	size_t ncut = 0, i, k;
	long pick = -1;
	int ret = NOTHING;

	tmp = kb_calloc(in->nbusy + 1, sizeof(*tmp));
	for (i = 0; i < in->nobs; i++) {
		o = &in->obs[i];
		if (o->node < 0 || !alive[o->node] || (size_t)o->node == bad ||
		    o->node == c->known || busy_n(c, o->sha) ||
		    (in->marks && in->marks[o->node] == 's'))
			continue;
		probe_state(c, o, lo, hi, &ps);
		if (ps.between)
			warn(c, "multiple", "commit %.12s measures between the GOOD and "
			     "BAD levels: the change is spread over more than one commit",
			     o->sha);
		if (!ps.n || ps.decided || ps.capped ||
		    fmin(w[o->node], 1 - w[o->node]) < MIN_SPLIT)
			continue;
		if (!open || o->last > open->last)
			open = o;
	}
	if (open) {
		probe_state(c, open, lo, hi, &ps);
		run_action(out, open->sha, "probe", in->p.runs_per_boot,
			   "probe, %zu samples so far, log-odds %.1f", ps.n, ps.llr);
		ret = ACTION;
		goto out;
	}
	for (i = 0; i < in->nbusy; i++)
		for (k = 0; k < g->n; k++)
			if (alive[k] && !strcmp(in->node_sha[k], in->busy[i].sha)) {
				cut[ncut++] = w[k];
				break;
			}
	for (k = 0; k < g->n; k++) {
		double left;

		if (!alive[k] || k == bad || (long)k == c->known ||
		    (in->marks && in->marks[k] == 's') || busy_n(c, in->node_sha[k]))
			continue;
		split = fmin(w[k], 1 - w[k]);
		if (split < MIN_SPLIT)
			continue;
		if ((o = find_node(c, (long)k))) {
			probe_state(c, o, lo, hi, &ps);
			if (ps.capped || ps.decided)
				continue;
		}
		memcpy(tmp, cut, ncut * sizeof(*cut));
		tmp[ncut] = w[k];
		left = mass_left(tmp, ncut + 1);
		if (left < best - 1e-12) {
			best = left;
			pick = (long)k;
		}
	}
	if (pick < 0) {
		double pick_split = 0;

		/* only probes at their cap are left */
		for (k = 0; k < g->n; k++) {
			o = find_node(c, (long)k);
			if (!alive[k] || k == bad || !o || o->n >= (size_t)(2 * in->p.max_probe) ||
			    (in->marks && in->marks[k] == 's') || busy_n(c, o->sha))
				continue;
			split = fmin(w[k], 1 - w[k]);
			if (split >= MIN_SPLIT && split > pick_split) {
				pick = (long)k;
				pick_split = split;
			}
		}
	}
	if (pick >= 0) {
		run_action(out, in->node_sha[pick], "probe", in->p.runs_per_boot,
			   "probe splitting %.0f%%/%.0f%% of the probability",
			   100 * w[pick], 100 * (1 - w[pick]));
		ret = ACTION;
	} else if (in->nbusy) {
		wait_action(c, out, "the probes under way decide what comes next");
		ret = ACTION;
	}
out:
	free(cut);
	free(tmp);
	return ret;
}

/* The value on the scale levels are compared on. */
static double yval(const struct ctx *c, double v)
{
	return c->use_log ? log(v) : v;
}

/*
 * The samples of 'a' and 'b' for verification pair 'pair' on a pool: those
 * of the pair's machines that have measured both, each machine's moved so
 * that the median of its samples of the two is the median of all of them.
 * The two are so compared within each machine, never across machines.
 * Into keep[0] and keep[1] (whose samples the caller frees); without a
 * pool, 'a' and 'b' themselves.
 */
static void pair_samples(const struct ctx *c, const struct kb_perf_obs *a,
			 const struct kb_perf_obs *b, int pair, struct kb_perf_obs *keep,
			 const struct kb_perf_obs **oa, const struct kb_perf_obs **ob)
{
	const struct kb_perf_obs *src[2] = { a, b };
	double *all, *mine, mid;
	size_t nall = 0, nmine, i, k;
	int m;

	*oa = a;
	*ob = b;
	if (!pooled(c) || !a || !b)
		return;
	all = kb_malloc((a->n + b->n + 1) * sizeof(*all));
	mine = kb_malloc((a->n + b->n + 1) * sizeof(*mine));
	for (k = 0; k < 2; k++) {
		free(keep[k].s);
		keep[k] = *src[k];
		keep[k].s = kb_malloc((src[k]->n + 1) * sizeof(*keep[k].s));
		keep[k].alloc = src[k]->n + 1;
		keep[k].n = 0;
		for (i = 0; i < src[k]->n; i++)
			if (pair_of(c, src[k]->s[i].machine) == pair)
				all[nall++] = yval(c, src[k]->s[i].value);
	}
	mid = nall ? kb_median(all, nall) : 0;
	for (m = 0; m < c->in->machines; m++) {
		int both = 1;

		if (pair_of(c, m) != pair)
			continue;
		nmine = 0;
		for (k = 0; k < 2; k++) {
			size_t before = nmine;

			for (i = 0; i < src[k]->n; i++)
				if (src[k]->s[i].machine == m)
					mine[nmine++] = yval(c, src[k]->s[i].value);
			both &= nmine > before;
		}
		if (!both)
			continue;
		double shift = mid - kb_median(mine, nmine);

		for (k = 0; k < 2; k++)
			for (i = 0; i < src[k]->n; i++) {
				struct kb_sample x = src[k]->s[i];

				if (x.machine != m)
					continue;
				x.value = c->use_log ? x.value * exp(shift) : x.value + shift;
				keep[k].s[keep[k].n++] = x;
			}
	}
	/* in the order taken: each boot's samples together */
	free(all);
	free(mine);
	*oa = &keep[0];
	*ob = &keep[1];
}

/*
 * Bisect the candidates in 'alive' (which contain 'bad'), with the levels
 * lo (GOOD side) and hi (BAD side).  ACTION with 'out' set, DECIDED with
 * 'f' set (f->node -1 when there is no culprit), never NOTHING.
 */
static int bisect_range(struct ctx *c, const unsigned char *alive, size_t bad,
			double lo, double hi, int do_revert, struct found *f,
			struct kb_perf_out *out)
{
	const struct kb_graph *g = c->in->g;
	const struct kb_perf_in *in = c->in;
	double *post = kb_calloc(g->n, sizeof(*post));
	double *w = kb_calloc(g->n, sizeof(*w)), best = 0;
	const struct kb_perf_obs *cur;
	struct probe_state cur_ps;
	struct kb_perf_obs keep[4];
	size_t k, nalive = 0;
	long best_node = -1, pick = -1;
	double pick_split = 0;
	int ret = DECIDED;

	memset(f, 0, sizeof(*f));
	memset(keep, 0, sizeof(keep));
	f->node = -1;
	cur = posterior(c, alive, bad, lo, hi, post);
	for (k = 0; k < g->n; k++) {
		nalive += alive[k];
		if (alive[k] && post[k] > best) {
			best = post[k];
			best_node = (long)k;
		}
	}
	out->best_prob = best;
	out->best_node = best_node;
	{
		double h = 0;

		for (k = 0; k < g->n; k++)
			if (alive[k] && post[k] > 0)
				h -= post[k] * log(post[k]);
		out->candidates = exp(h);
	}
	if (best >= in->p.confidence || nalive == 1)
		goto verify;
	if (!budget_left(c)) {
		snprintf(f->why, sizeof(f->why), "the run budget (%d) is spent", in->p.max_runs);
		goto out;
	}
	if (pooled(c)) {
		kb_graph_reach(g, alive, post, w);
		if ((ret = pool_probe(c, alive, bad, lo, hi, w, out)) == ACTION)
			goto out;
		ret = DECIDED;
		snprintf(f->why, sizeof(f->why), "no commit left whose test could narrow it "
			 "down (the most likely, %.12s, has %.0f%%)",
			 best_node >= 0 ? in->node_sha[best_node] : "?", 100 * best);
		goto out;
	}
	if (cur) {
		probe_state(c, cur, lo, hi, &cur_ps);
		if (!cur_ps.decided && (!cur_ps.capped ||
		    (cur->n < (size_t)(2 * in->p.max_probe) && cur->n > (size_t)in->p.max_probe))) {
			run_action(out, cur->sha, "probe", in->p.runs_per_boot,
				   "probe, %zu samples so far, log-odds %.1f", cur_ps.n, cur_ps.llr);
			ret = ACTION;
			goto out;
		}
		if (cur_ps.between) {
			warn(c, "multiple", "commit %.12s measures between the GOOD and "
			     "BAD levels: the change is spread over more than one commit",
			     cur->sha);
		}
	}
	/* a new probe: the commit that splits the posterior mass best */
	kb_graph_reach(g, alive, post, w);
	for (k = 0; k < g->n; k++) {
		const struct kb_perf_obs *o;
		struct probe_state ps;
		double split;

		if (!alive[k] || k == bad || (long)k == c->known)
			continue;
		if (in->marks && in->marks[k] == 's')
			continue;
		split = fmin(w[k], 1 - w[k]);
		if (split <= pick_split)
			continue;
		if ((o = find_node(c, (long)k))) {
			probe_state(c, o, lo, hi, &ps);
			if (ps.capped)
				continue;
		}
		pick = (long)k;
		pick_split = split;
	}
	if (pick < 0 || pick_split < MIN_SPLIT) {
		/* only probes at their cap are left: give the best of them
		 * another cap's worth rather than giving up */
		for (k = 0; k < g->n; k++) {
			const struct kb_perf_obs *o = find_node(c, (long)k);
			double split;

			if (!alive[k] || k == bad || !o || o->n >= (size_t)(2 * in->p.max_probe) ||
			    (in->marks && in->marks[k] == 's'))
				continue;
			split = fmin(w[k], 1 - w[k]);
			if (split > pick_split) {
				pick = (long)k;
				pick_split = split;
			}
		}
	}
	if (pick >= 0 && pick_split >= MIN_SPLIT) {
		run_action(out, in->node_sha[pick], "probe", in->p.runs_per_boot,
			   "probe splitting %.0f%%/%.0f%% of the probability",
			   100 * w[pick], 100 * (1 - w[pick]));
		ret = ACTION;
		goto out;
	}
	snprintf(f->why, sizeof(f->why), "no commit left whose test could narrow it "
		 "down (the most likely, %.12s, has %.0f%%)",
		 best_node >= 0 ? in->node_sha[best_node] : "?", 100 * best);
	goto out;
verify:
	{
		const struct kb_perf_obs *po, *co, *go = find(c, in->good_sha),
			*bo = find(c, in->node_sha[bad]);
		const char *psha = in->parent_sha[best_node], *csha = in->node_sha[best_node];
		double *zp, *zc, *zg, *zb, pv, eff;
		size_t np, nc, ng, nb;
		int bp, bc, parent_open = 0;

		f->node = best_node;
		f->prob = best;
		/* each pair compared within its machines only */
		pair_samples(c, find(c, psha), find(c, csha), 0, &keep[0], &po, &co);
		bp = boots_here(c, find(c, psha));
		bc = boots_here(c, find(c, csha));
		if (skipped(c, psha) || skipped(c, csha)) {
			/* the benchmark failed there since: no direct comparison */
			f->parent_check = "fail";
			f->revert_check = "n/a";
			goto out;
		}
		switch (seq_test(c, po, co, VERIFY_BOOTS, VERIFY_MAX_BOOTS, VERIFY_MAX_BOOTS + 1,
				 2, VERIFY_ALPHA, &pv, &eff)) {
		case CAL_MORE:
			if (!budget_left(c))
				break;
			if (!owns(c, 0)) {
				/* another machine measures the pair: on to the revert */
				parent_open = 1;
				break;
			}
			if (bp <= bc)
				run_action(out, psha, "parent", in->p.runs_per_boot,
					   "verify: the parent of the likely culprit (p=%.3g)", pv);
			else
				run_action(out, csha, "culprit", in->p.runs_per_boot,
					   "verify: the likely culprit, %.0f%% (p=%.3g)",
					   100 * best, pv);
			ret = ACTION;
			goto out;
		case CAL_DIFFER:
			break;
		default:
			pv = 1;
		}
		if (parent_open)
			goto revert;
		zp = steady(c, po, &np);
		zc = steady(c, co, &nc);
		f->parent_check = pv < VERIFY_ALPHA && eff > 0 ? "pass" : "fail";
		zg = steady(c, go, &ng);
		zb = steady(c, bo, &nb);
		f->share = eff / (hi - lo);
		if (zg && zb)
			kb_share_ci(zg, ng, zb, nb, zp, np, zc, nc, 0.90, 300,
				    in->p.seed + (uint64_t)best_node, &f->share_lo, &f->share_hi);
		if (lo != c->mu_g || hi != c->mu_b) {
			/* a sub-range: its share of the whole change */
			f->share = eff / (c->mu_b - c->mu_g);
		}
		free(zg);
		free(zb);
		free(zp);
		free(zc);
revert:
		f->revert_check = "n/a";
		if (do_revert) {
			const struct kb_perf_obs *ro;

			if (!in->revert_of || strcmp(in->revert_of, csha)) {
				out->kind = KB_PERF_REVERT;
				snprintf(out->sha, sizeof(out->sha), "%s", csha);
				snprintf(out->note, sizeof(out->note),
					 "verify: revert the likely culprit on top of BAD");
				ret = ACTION;
				goto out;
			}
			if (*in->revert_sha) {
				double rec;

				const struct kb_perf_obs *bo1;

				pair_samples(c, find(c, in->revert_sha), bo, 1, &keep[2], &ro,
					     &bo1);
				switch (seq_test(c, ro, bo1, VERIFY_BOOTS, VERIFY_MAX_BOOTS,
						 VERIFY_MAX_BOOTS, 2, VERIFY_ALPHA, &pv, &rec)) {
				case CAL_MORE:
					if (!budget_left(c))
						break;
					if (!owns(c, 1)) {
						wait_action(c, out, "the revert check is "
							    "measured on another machine");
						ret = ACTION;
						goto out;
					}
					if (boots_here(c, find(c, in->revert_sha)) <=
					    boots_here(c, bo))
						run_action(out, in->revert_sha, "revert",
							   in->p.runs_per_boot, "verify: BAD with "
							   "the culprit reverted (p=%.3g)", pv);
					else
						run_action(out, in->node_sha[bad], "bad",
							   in->p.runs_per_boot, "verify: BAD, beside "
							   "its revert (p=%.3g)", pv);
					ret = ACTION;
					goto out;
				case CAL_DIFFER:
					break;
				default:
					pv = 1;
				}
				/* rec: how much worse BAD is than the revert */
				f->revert_check = pv < VERIFY_ALPHA &&
					rec >= 0.25 * f->share * (c->mu_b - c->mu_g) ? "pass" : "fail";
			}
		}
		if (parent_open) {
			wait_action(c, out, "the culprit's parent check is measured on "
				    "another machine");
			ret = ACTION;
		}
	}
out:
	for (k = 0; k < 4; k++)
		free(keep[k].s);
	free(post);
	free(w);
	return ret;
}

static json_t *level_row(const struct ctx *c, const char *label, const char *sha,
			 double base_mean)
{
	const struct kb_perf_obs *o = find(c, sha);
	double *v = kb_malloc(((o ? o->n : 0) + 1) * sizeof(*v)), mean, sd;
	size_t n = 0, i;
	json_t *r;

	for (i = 0; o && i < o->n; i++)
		if (o->s[i].run > c->warm)
			v[n++] = o->s[i].value;
	mean = kb_mean(v, n);
	sd = kb_stddev(v, n);
	r = json_pack("{s:s, s:s, s:i}", "label", label, "commit", sha ? sha : "", "n", (int)n);
	if (n) {
		json_object_set_new(r, "mean", json_real(mean));
		json_object_set_new(r, "stddev_pct", json_real(n > 1 && mean ? 100 * sd / fabs(mean) : 0));
		if (base_mean && !isnan(base_mean))
			json_object_set_new(r, "change_pct", json_real(100 * (mean / base_mean - 1)));
	}
	free(v);
	return r;
}

static double raw_mean(const struct ctx *c, const char *sha)
{
	const struct kb_perf_obs *o = find(c, sha);
	double s = 0;
	size_t n = 0, i;

	for (i = 0; o && i < o->n; i++)
		if (o->s[i].run > c->warm) {
			s += o->s[i].value;
			n++;
		}
	return n ? s / (double)n : NAN;
}

/* The samples and decision of every measured commit, in the order met. */
static json_t *steps_json(const struct ctx *c)
{
	json_t *steps = json_array();
	size_t i, j;

	for (i = 0; i < c->in->nobs; i++) {
		const struct kb_perf_obs *o = &c->in->obs[i];
		struct probe_state ps;
		json_t *samples = json_array(), *st;
		const char *decision = "unknown", *role = "probe";

		for (j = 0; j < o->n; j++)
			json_array_append_new(samples, json_real(o->s[j].value));
		if (!strcmp(o->sha, c->in->good_sha)) {
			role = "good";
			decision = "good";
		} else if (o->node == (long)c->in->bad) {
			role = "bad";
			decision = "bad";
		} else if (c->in->revert_sha && !strcmp(o->sha, c->in->revert_sha)) {
			role = "revert";
		} else if (o->node < 0) {
			role = "parent";
		}
		if (!strcmp(role, "probe") || !strcmp(role, "revert") || !strcmp(role, "parent")) {
			probe_state(c, o, c->mu_g, c->mu_b, &ps);
			decision = ps.llr >= DECIDE ? "bad" : ps.llr <= -DECIDE ? "good" : "unknown";
		}
		st = json_pack("{s:s, s:s, s:s, s:o, s:i}", "commit", o->sha, "role", role,
			       "decision", decision, "samples", samples, "boots", nboots(o));
		json_array_append_new(steps, st);
	}
	/* commits that could not be built or measured */
	for (i = 0; c->in->marks && i < c->in->g->n; i++)
		if (c->in->marks[i] == 's')
			json_array_append_new(steps, json_pack("{s:s, s:s, s:s, s:[], s:i}",
				"commit", c->in->node_sha[i], "role", "probe", "decision", "skip",
				"samples", "boots", 0));
	return steps;
}

static json_t *culprit_json(const struct ctx *c, const struct found *f)
{
	const struct kb_perf_in *in = c->in;
	const char *sha = in->node_sha[f->node], *psha = in->parent_sha[f->node];
	double pm = raw_mean(c, psha), cm = raw_mean(c, sha), lo, hi;
	const struct kb_perf_obs *po = find(c, psha), *co = find(c, sha);
	double *zp, *zc;
	size_t np, nc;
	json_t *j;

	zp = steady(c, po, &np);
	zc = steady(c, co, &nc);
	kb_diff_ci(zp, np, zc, nc, 0.90, 300, in->p.seed, &lo, &hi);
	free(zp);
	free(zc);
	if (in->p.higher_is_better) {
		double t = -lo;

		lo = -hi;
		hi = t;
	}
	if (c->use_log) {
		lo = 100 * (exp(lo) - 1);
		hi = 100 * (exp(hi) - 1);
	} else {
		lo = 100 * lo / fabs(pm);
		hi = 100 * hi / fabs(pm);
	}
	/* the culprit accounts for the change from GOOD to BAD when the upper
	 * end of its share's interval reaches 3/4 (as the search for a second
	 * culprit takes it) */
	j = json_pack("{s:s, s:s, s:f, s:f, s:[f, f], s:f, s:[f, f], "
		      "s:{s:s, s:s, s:s, s:s, s:s}}",
		      "commit", sha, "parent", psha, "probability", f->prob,
		      "delta_pct", 100 * (cm / pm - 1), "delta_ci_pct", lo, hi,
		      "explained", f->share, "explained_ci", f->share_lo, f->share_hi,
		      "checks", "parent_vs_culprit", f->parent_check,
		      "revert", f->revert_check, "rebuild", "n/a",
		      "warm_up", c->warm_detected ? "warning" : "pass",
		      "explained", f->share_hi >= 0.75 ? "pass" : "warning");
	return j;
}

static void finish(struct ctx *c, struct kb_perf_out *out, const char *verdict,
		   json_t *culprits, const char *why)
{
	const struct kb_perf_in *in = c->in;
	json_t *v, *table = json_array();
	double gm = raw_mean(c, in->good_sha);
	size_t i, nskip = 0;

	for (i = 0; in->marks && i < in->g->n; i++)
		nskip += in->marks[i] == 's';
	if (nskip)
		warn(c, "skipped", "%zu commit%s could not be built or measured and %s "
		     "skipped", nskip, nskip == 1 ? "" : "s", nskip == 1 ? "was" : "were");

	json_array_append_new(table, level_row(c, "good", in->good_sha, gm));
	if (json_array_size(culprits)) {
		json_t *first = json_array_get(culprits, 0);

		json_array_append_new(table, level_row(c, "parent",
			json_string_value(json_object_get(first, "parent")), gm));
		json_array_append_new(table, level_row(c, "culprit",
			json_string_value(json_object_get(first, "commit")), gm));
		if (json_array_size(culprits) > 1) {
			json_t *second = json_array_get(culprits, 1);

			json_array_append_new(table, level_row(c, "parent2",
				json_string_value(json_object_get(second, "parent")), gm));
			json_array_append_new(table, level_row(c, "culprit2",
				json_string_value(json_object_get(second, "commit")), gm));
		}
	}
	json_array_append_new(table, level_row(c, "bad", in->node_sha[in->bad], gm));
	v = json_pack("{s:s, s:o, s:O, s:o, s:o, s:i, s:i, s:f}",
		      "verdict", verdict, "culprits", culprits, "warnings", c->warnings,
		      "table", table, "steps", steps_json(c), "runs_total", (int)c->total,
		      "warmup_used", c->warm, "noise_pct",
		      c->use_log ? 100 * (exp(c->sigma) - 1) : c->sigma);
	if (why)
		json_object_set_new(v, "reason", json_string(why));
	out->kind = KB_PERF_DONE;
	out->verdict = v;
	snprintf(out->note, sizeof(out->note), "%s", verdict);
}

/* Is there a change left before the culprit's parent or after it? */
static int residual(const struct ctx *c, const struct found *f)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *po = find(c, in->parent_sha[f->node]),
		*co = find(c, in->node_sha[f->node]), *go = find(c, in->good_sha),
		*bo = find(c, in->node_sha[in->bad]);
	double *zp, *zc, *zg, *zb;
	size_t np, nc, ng, nb;
	int r;

	if (po == go)
		po = NULL;
	zp = steady(c, po, &np);
	zc = steady(c, co, &nc);
	zg = steady(c, go, &ng);
	zb = steady(c, bo, &nb);
	r = (nc >= 5 && nb >= 5 && kb_mann_whitney_p(zc, nc, zb, nb) < VERIFY_ALPHA &&
	     kb_median(zb, nb) > kb_median(zc, nc)) ||
	    (np >= 5 && ng >= 5 && kb_mann_whitney_p(zg, ng, zp, np) < VERIFY_ALPHA &&
	     kb_median(zp, np) > kb_median(zg, ng));
	free(zp);
	free(zc);
	free(zg);
	free(zb);
	return r;
}

/*
 * The rest of the change, when a culprit explains only part of it: a second
 * culprit anywhere in the range, with the first one's step added to every
 * commit that contains it (steps add up, also across merges).
 */
static int rest_of_change(struct ctx *c, const struct found *f, unsigned char *alive_main,
			  struct found *f2, struct kb_perf_out *out)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_graph *g = in->g;
	const struct kb_perf_obs *po = find(c, in->parent_sha[f->node]),
		*co = find(c, in->node_sha[f->node]);
	double *zp, *zc, step;
	size_t np, nc, k;
	unsigned char *alive = kb_calloc(g->n, 1);
	int ret = NOTHING;

	zp = steady(c, po, &np);
	zc = steady(c, co, &nc);
	step = kb_median(zc, nc) - kb_median(zp, np);
	free(zp);
	free(zc);
	if (step <= 0 || step >= c->mu_b - c->mu_g) {
		free(alive);
		return NOTHING;
	}
	c->known = f->node;
	c->known_step = step;
	c->known_in = kb_calloc(g->n, 1);
	for (k = 0; k < g->n; k++) {
		memset(c->anc, 0, g->n);
		kb_graph_mark_ancestors(g, k, NULL, c->anc, 1);
		c->known_in[k] = c->anc[f->node];
		alive[k] = alive_main[k];
	}
	{
		/* the endpoints' own levels: the refined ones mix in commits that
		 * hold the other step */
		const struct kb_perf_obs *go = find(c, in->good_sha), *bo = find(c, in->node_sha[in->bad]);
		double *zg = steady(c, go, &np), lo = kb_median(zg, np);
		double *zb = steady(c, bo, &nc), hi = kb_median(zb, nc);

		free(zg);
		free(zb);
		if (hi - step > lo)
			ret = bisect_range(c, alive, in->bad, lo, hi - step, 0, f2, out);
	}
	free(c->known_in);
	c->known_in = NULL;
	c->known = -1;
	free(alive);
	return ret;
}

/* Does 'o' have a sample taken on machine 'm'? */
static int taken_on(const struct kb_perf_obs *o, int m)
{
	for (size_t i = 0; o && i < o->n; i++)
		if (o->s[i].machine == m)
			return 1;
	return 0;
}

/* The values of 'o' taken on machine 'm' after the configured warm-up, on
 * the scale levels are compared on (log when every value is positive). */
static double *values_on(const struct ctx *c, const struct kb_perf_obs *o, int m, size_t *n)
{
	double *y = kb_malloc(((o ? o->n : 0) + 1) * sizeof(*y));

	*n = 0;
	for (size_t i = 0; o && i < o->n; i++)
		if (o->s[i].machine == m && o->s[i].run > c->in->p.warmup)
			y[(*n)++] = yval(c, o->s[i].value);
	return y;
}

/*
 * A pool: every sample brought onto the levels of the reference machine
 * (the first with samples of GOOD and of BAD).  A machine whose GOOD or
 * BAD differs from the reference's (rank test, p < 0.01) is shifted by the
 * mean of the two differences of medians; the samples of a machine without
 * both wait.  NULL when every sample is from machine 0.
 */
static struct kb_perf_obs *one_scale(struct ctx *c, size_t *nout)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *go = find(c, in->good_sha), *bo = find(c, in->node_sha[in->bad]);
	struct kb_perf_obs *out = NULL;
	struct kb_buf msg = KB_BUF_INIT;
	double *shift, *gr = NULL, *br = NULL;
	unsigned char *has;
	size_t i, j, ngr = 0, nbr = 0, alloc = 0;
	int maxm = 0, m, ref = -1;

	for (i = 0; i < in->nobs; i++)
		for (j = 0; j < in->obs[i].n; j++)
			if (in->obs[i].s[j].machine > maxm)
				maxm = in->obs[i].s[j].machine;
	*nout = 0;
	if (!maxm)
		return NULL;
	shift = kb_calloc((size_t)maxm + 1, sizeof(*shift));
	has = kb_calloc((size_t)maxm + 1, 1);
	c->nmachines = maxm + 1;
	c->scaled = kb_calloc((size_t)maxm + 1, 1);
	c->scale_inv_n = kb_calloc((size_t)maxm + 1, sizeof(*c->scale_inv_n));
	for (m = 0; m <= maxm; m++) {
		size_t ng, nb;
		double *g = values_on(c, go, m, &ng), *b = values_on(c, bo, m, &nb);

		has[m] = ng && nb;
		if (has[m] && ref < 0) {
			ref = m;
			gr = g;
			ngr = ng;
			br = b;
			nbr = nb;
			continue;
		}
		if (has[m] && (kb_mann_whitney_p(g, ng, gr, ngr) < 0.01 ||
			       kb_mann_whitney_p(b, nb, br, nbr) < 0.01)) {
			shift[m] = (kb_median(g, ng) - kb_median(gr, ngr) +
				    kb_median(b, nb) - kb_median(br, nbr)) / 2;
			c->scaled[m] = 1;
			c->scale_inv_n[m] = 1.0 / (double)ng + 1.0 / (double)ngr +
					    1.0 / (double)nb + 1.0 / (double)nbr;
			kb_buf_addf(&msg, "%smachine %d measures %+.1f%s against machine %d",
				    msg.len ? "; " : "", m, c->use_log ?
				    100 * (exp(shift[m]) - 1) : shift[m], c->use_log ? "%" : "",
				    ref);
		}
		free(g);
		free(b);
	}
	if (msg.len)
		warn(c, "machines", "%s at GOOD and BAD: its samples are scaled onto machine "
		     "%d's levels", msg.ptr, ref);
	for (i = 0; i < in->nobs; i++) {
		const struct kb_perf_obs *o = &in->obs[i];
		struct kb_perf_obs *n = NULL;

		for (j = 0; j < o->n; j++) {
			struct kb_sample x = o->s[j];

			if (ref >= 0 && !has[x.machine])
				continue;
			if (!n) {
				KB_ALLOC_GROW(out, *nout + 1, alloc);
				n = &out[(*nout)++];
				memset(n, 0, sizeof(*n));
				memcpy(n->sha, o->sha, sizeof(n->sha));
				n->node = o->node;
				n->first = o->first;
				n->last = o->last;
			}
			if (shift[x.machine] != 0)
				x.value = c->use_log ? x.value * exp(-shift[x.machine]) :
					  x.value - shift[x.machine];
			KB_ALLOC_GROW(n->s, n->n + 1, n->alloc);
			n->s[n->n++] = x;
		}
	}
	free(gr);
	free(br);
	free(shift);
	free(has);
	kb_buf_release(&msg);
	return out ? out : kb_calloc(1, sizeof(*out));
}

int kb_perf_decide(const struct kb_perf_in *in, struct kb_perf_out *out)
{
	struct kb_perf_in scaled_in;
	struct kb_perf_obs *scaled = NULL;
	size_t nscaled = 0;
	struct ctx c;
	const struct kb_perf_obs *go, *bo;
	double *zg = NULL, *zb = NULL, pmw, eff, *res;
	size_t ng, nb, i, j, n;
	int bg, bb, ret = 0, r;
	unsigned char *alive = NULL;
	char *marks;
	struct found f, f2;

	memset(out, 0, sizeof(*out));
	out->best_node = -1;
	memset(&c, 0, sizeof(c));
	c.in = in;
	c.use_log = 1;
	c.warnings = json_array();
	c.anc = kb_calloc(in->g->n ? in->g->n : 1, 1);
	c.known = -1;
	for (i = 0; i < in->nobs; i++) {
		c.total += in->obs[i].n;
		for (j = 0; j < in->obs[i].n; j++)
			if (!(in->obs[i].s[j].value > 0))
				c.use_log = 0;
	}
	go = find(&c, in->good_sha);
	bo = find(&c, in->node_sha[in->bad]);
	/* 0. a machine of a pool measures its own GOOD and BAD first */
	if (pooled(&c) && in->machine >= 0 && (!taken_on(go, in->machine) ||
					       !taken_on(bo, in->machine))) {
		if (!taken_on(go, in->machine))
			run_action(out, in->good_sha, "good", in->p.runs_per_boot,
				   "the baseline of machine %d: GOOD", in->machine);
		else
			run_action(out, in->node_sha[in->bad], "bad", in->p.runs_per_boot,
				   "the baseline of machine %d: BAD", in->machine);
		goto out;
	}
	if ((scaled = one_scale(&c, &nscaled))) {
		scaled_in = *in;
		scaled_in.obs = scaled;
		scaled_in.nobs = nscaled;
		c.in = in = &scaled_in;
		go = find(&c, in->good_sha);
		bo = find(&c, in->node_sha[in->bad]);
	}
	/* boots under way elsewhere count for the balance of GOOD and BAD;
	 * a machine of a pool keeps its own GOOD and BAD in balance first,
	 * so that no machine measures only one of them */
	bg = full_boots(&c, go) + busy_n(&c, in->good_sha);
	bb = full_boots(&c, bo) + busy_n(&c, in->node_sha[in->bad]);
	if (pooled(&c) && in->machine >= 0 && boots_here(&c, go) != boots_here(&c, bo)) {
		bg = boots_here(&c, go);
		bb = boots_here(&c, bo);
	}
	/* 1. calibrate */
	if (full_boots(&c, go) < in->p.min_cal_boots || full_boots(&c, bo) < in->p.min_cal_boots) {
		if (bg <= bb)
			run_action(out, in->good_sha, "good", in->p.runs_per_boot,
				   "calibrate: GOOD, boot %d", bg + 1);
		else
			run_action(out, in->node_sha[in->bad], "bad", in->p.runs_per_boot,
				   "calibrate: BAD, boot %d", bb + 1);
		goto out;
	}
	detect_warmup(&c);
	zg = steady(&c, go, &ng);
	zb = steady(&c, bo, &nb);
	if (ng < 3 || nb < 3) {
		finish(&c, out, "inconclusive", json_array(),
		       "too few samples after the warm-up runs: raise runs_per_boot");
		goto out;
	}
	switch (calibrate(&c, go, bo, &pmw, &eff)) {
	case CAL_MORE:
		if (!budget_left(&c))
			goto no_difference;
		if (bg <= bb)
			run_action(out, in->good_sha, "good", in->p.runs_per_boot,
				   "calibrate: GOOD and BAD do not differ yet (p=%.3g)", pmw);
		else
			run_action(out, in->node_sha[in->bad], "bad", in->p.runs_per_boot,
				   "calibrate: GOOD and BAD do not differ yet (p=%.3g)", pmw);
		goto out;
	case CAL_SAME:
no_difference:
		finish(&c, out, "no-regression", json_array(),
		       c.warm_detected ? "GOOD and BAD do not differ once the warm-up "
		       "runs after each boot are left out" : "GOOD and BAD do not differ");
		goto out;
	default:
		break;
	}
	c.mu_g = kb_median(zg, ng);
	c.mu_b = kb_median(zb, nb);
	eff = c.mu_b - c.mu_g;
	res = kb_malloc((ng + nb) * sizeof(*res));
	for (i = 0; i < ng; i++)
		res[i] = zg[i] - c.mu_g;
	for (i = 0; i < nb; i++)
		res[ng + i] = zb[i] - c.mu_b;
	c.sigma = kb_mad(res, ng + nb);
	if (!(c.sigma > 0))
		c.sigma = kb_stddev(res, ng + nb);
	if (!(c.sigma > 0))
		c.sigma = fmax(fabs(eff) / 20, 1e-9);
	free(res);
	if (eff <= 0) {
		finish(&c, out, "no-regression", json_array(),
		       "BAD measures better than GOOD");
		goto out;
	}
	if (c.sigma > eff)
		warn(&c, "noisy", "the run-to-run noise (%.2g) is larger than the change "
		     "(%.2g): many runs are needed", c.sigma, eff);
	/* a machine that measures apart: its scale known to a quarter of the
	 * change before its samples count for much (the standard error of a
	 * median is 1.25 sigma / sqrt(n); the scale is a mean of two
	 * differences of medians) */
	if (pooled(&c) && in->machine >= 0 && in->machine < c.nmachines &&
	    c.scaled[in->machine] && budget_left(&c) &&
	    0.5 * 1.2533 * c.sigma * sqrt(c.scale_inv_n[in->machine]) > 0.25 * eff) {
		int m = in->machine;

		if (boots_here(&c, go) <= boots_here(&c, bo))
			run_action(out, in->good_sha, "good", in->p.runs_per_boot,
				   "the baseline of machine %d, which measures apart: GOOD", m);
		else
			run_action(out, in->node_sha[in->bad], "bad", in->p.runs_per_boot,
				   "the baseline of machine %d, which measures apart: BAD", m);
		goto out;
	}
	/* 2-4. bisect the range, verify */
	alive = kb_calloc(in->g->n, 1);
	marks = kb_calloc(in->g->n, 1);
	for (i = 0; in->marks && i < in->g->n; i++)
		marks[i] = in->marks[i] == 's' ? 0 : in->marks[i];
	kb_bisect_alive(in->g, in->bad, marks, alive, &n);
	free(marks);
	if (c.mu_b > c.mu_g)
		refine_levels(&c, alive);
	r = bisect_range(&c, alive, in->bad, c.mu_g, c.mu_b, 1, &f, out);
	if (r == ACTION && out->kind == KB_PERF_WAIT && f.node >= 0 && budget_left(&c)) {
		/* a machine left out of the verification measures the
		 * endpoints again now rather than at the end */
		const struct kb_perf_obs *co = find(&c, in->node_sha[f.node]);

		if (co && go->last < co->first && !busy_n(&c, in->good_sha))
			run_action(out, in->good_sha, "good", in->p.runs_per_boot,
				   "measure GOOD again, to see drift");
		else if (co && bo->last < co->first && !busy_n(&c, in->node_sha[in->bad]))
			run_action(out, in->node_sha[in->bad], "bad", in->p.runs_per_boot,
				   "measure BAD again, to see drift");
	}
	if (r == ACTION)
		goto out;
	if (f.node < 0) {
		finish(&c, out, "inconclusive", json_array(), f.why);
		goto out;
	}
	/* a culprit; does it explain the whole change? */
	json_t *culprits = json_array();

	json_array_append_new(culprits, culprit_json(&c, &f));
	if (!strcmp(f.parent_check, "fail")) {
		warn(&c, "unconfirmed", "%.12s holds %.0f%% of the probability, but measured "
		     "directly against its parent the step is not significant",
		     in->node_sha[f.node], 100 * f.prob);
		finish(&c, out, "inconclusive", culprits, "the likely culprit failed its check");
		goto out;
	}
	if (!strcmp(f.revert_check, "fail")) {
		warn(&c, "unconfirmed", "%.12s holds %.0f%% of the probability, but BAD "
		     "with it reverted does not measure better", in->node_sha[f.node],
		     100 * f.prob);
		finish(&c, out, "inconclusive", culprits, "reverting the likely culprit "
		       "does not recover");
		goto out;
	}
	if (f.share_hi < 0.75 || residual(&c, &f)) {
		r = rest_of_change(&c, &f, alive, &f2, out);
		if (r == ACTION) {
			json_decref(culprits);
			goto out;
		}
		if (r == DECIDED && f2.node >= 0 && !strcmp(f2.parent_check, "pass")) {
			json_array_append_new(culprits, culprit_json(&c, &f2));
			warn(&c, "multiple", "the change is spread over %zu commits",
			     json_array_size(culprits));
		} else {
			warn(&c, "partial", "the culprit explains %.0f%% (%.0f%%..%.0f%%) of "
			     "the change from GOOD to BAD: more than one commit is involved",
			     100 * f.share, 100 * f.share_lo, 100 * f.share_hi);
		}
	}
	/* 5. the endpoints once more, to see drift */
	{
		const struct kb_perf_obs *co = find(&c, in->node_sha[f.node]);
		int last_good_late = go->last > co->first, last_bad_late = bo->last > co->first;
		int good_busy = busy_n(&c, in->good_sha), bad_busy = busy_n(&c, in->node_sha[in->bad]);

		if (!last_good_late && !good_busy && budget_left(&c)) {
			run_action(out, in->good_sha, "good", in->p.runs_per_boot,
				   "measure GOOD again, to see drift");
			json_decref(culprits);
			goto out;
		}
		if (!last_bad_late && !bad_busy && budget_left(&c)) {
			run_action(out, in->node_sha[in->bad], "bad", in->p.runs_per_boot,
				   "measure BAD again, to see drift");
			json_decref(culprits);
			goto out;
		}
		if ((!last_good_late && good_busy) || (!last_bad_late && bad_busy)) {
			wait_action(&c, out, "the endpoints are measured again");
			json_decref(culprits);
			goto out;
		}
		for (int e = 0; e < 2; e++) {
			const struct kb_perf_obs *o = e ? bo : go;
			double early[4096], late[4096];
			size_t ne = 0, nl = 0;
			int lastboot = o->s[o->n - 1].boot, firstboot = o->s[0].boot;

			for (i = 0; i < o->n; i++) {
				if (o->s[i].run <= c.warm)
					continue;
				if (o->s[i].boot == lastboot && ne < 4096 && nl < 4096)
					late[nl++] = zval(&c, o->s[i].value);
				else if (o->s[i].boot != lastboot && o->s[i].boot >= firstboot &&
					 ne < 4096)
					early[ne++] = zval(&c, o->s[i].value);
			}
			if (ne >= 3 && nl >= 3 &&
			    kb_mann_whitney_p(early, ne, late, nl) < in->p.alpha &&
			    fabs(kb_median(late, nl) - kb_median(early, ne)) > 0.5 * eff)
				warn(&c, "drift", "%s measured again at the end differs from "
				     "its first measurements: the machine drifted", e ? "BAD" : "GOOD");
		}
	}
	finish(&c, out, json_array_size(culprits) > 1 ? "multiple" : "culprit", culprits, NULL);
out:
	if (in->summary && !out->verdict) {
		json_t *table = json_array();
		double gm = raw_mean(&c, in->good_sha);

		json_array_append_new(table, level_row(&c, "good", in->good_sha, gm));
		json_array_append_new(table, level_row(&c, "bad", in->node_sha[in->bad], gm));
		out->summary = json_pack("{s:o, s:o, s:O}", "steps", steps_json(&c),
					 "table", table, "warnings", c.warnings);
	}
	out->level_good = c.mu_g;
	out->level_bad = c.mu_b;
	out->noise = c.sigma;
	out->warmup_used = c.warm;
	if (ret == 0 && out->kind == KB_PERF_DONE && !out->verdict)
		ret = kb_error(KB_ERROR, "no verdict");
	json_decref(c.warnings);
	free(alive);
	free(zg);
	free(zb);
	free(c.anc);
	kb_perf_obs_free(scaled, nscaled);
	free(c.scaled);
	free(c.scale_inv_n);
	return ret;
}
