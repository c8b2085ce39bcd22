#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "noise.h"
#include "stats.h"
#include "util.h"

#define DECIDE 4.59511985    /* log(99): a probe is decided at 99:1 */
#define LEAVE 2.94443898     /* log(19): a probe is left at 19:1 either way; the
			      * posterior keeps its odds, and the next probe goes
			      * where the mass splits best */
#define CLAMP 15.0           /* no one commit's evidence counts beyond this */
#define Z_VERIFY 2.807       /* a check passes at 0.005, two-sided */
#define VERIFY_MIN_PAIRS 2   /* pairs before a check may pass */
#define SHORT_RANGE 4        /* commits in a range that calibration all but
			      * searches by itself ... */
#define SHORT_CAL_PAIRS 4    /* ... and the pairs it decides from there */
#define VERIFY_BOOTS 3       /* pairs before a check may fail early */
#define VERIFY_MAX_BOOTS 16  /* pairs after which a check fails */
#define SHARE_PAIRS 8        /* pairs to tell a partial share */
#define ROBUST_RUNS 3        /* steady runs a boot whose robust mean sees
			      * through one outlying run */
#define SAME_SHARE 0.5       /* calibration's no-regression: no change of half */
#define Z_SAME 1.645         /* the noise of one run (boot spread included) at 95% */
#define Z_POWER 1.96         /* caps: where a real change is told at 97.5% */
#define Z_INTEREST 2.576     /* a step put below the change of interest: at 99.5% */
#define Z_FRESH3 1.96        /* three builds' steps stand out of their offsets: at 97.5% */
#define MIN_SPLIT 0.02
#define REFINE_BOOTS 3       /* boots of each measured commit before an
			      * ending the offsets' spread left open */
#define LAY_OWN_MIN 5        /* differences the offsets' spread is fitted
			      * from, at least (fewer of the range's own:
			      * from the builds of the same code alone) */
#define UNPICKED_DIFFS 24    /* differences the offsets' spread is told by
			      * before a culprit below the change of interest */
#define POWER 0.90           /* a change "could have been seen": found at 90% */
#define FUTILE 0.15          /* calibration gives up below this chance of a
			      * difference by its cap */

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
	p->min_effect = 0.05;
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
	o->s[o->n++] = (struct kb_sample){ boot, run, value, machine, order };
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
struct kb_boot {
	int o;               /* its commit: index into in->obs */
	int machine, id;
	size_t order;        /* the order of its first sample */
	size_t t;            /* its place among its machine's boots */
	int n;               /* steady runs */
	double m;            /* its value: a robust mean of its steady runs, z */
	double v;            /* the variance of m: boot spread and run noise */
	double z;            /* m less the machine's drift at its time */
	double pd;           /* the variance of that drift */
	long dup;            /* the same boot as boot 'dup' of another commit
			      * (one built the same takes its samples), -1 */
};

struct machine_drift {
	size_t nt;           /* boots on the machine */
	double *d, *pvar;    /* drift and its variance per boot time */
	double q;            /* the walk's variance per boot */
	long first_end, last_end; /* times of its first and last endpoint boot */
};

struct ctx {
	const struct kb_perf_in *in;
	int use_log;
	int warm;            /* runs dropped after each boot, detected included */
	int warm_detected;
	double mu_g, mu_b;   /* the levels, drift removed: 0 and the change */
	double sides_d;      /* the levels of the commits placed on each side
			      * apart (estimate_layout()); 0 where not told */
	double delta_se;     /* the change's standard error */
	size_t cal_n;        /* the calibration pairs it is from */
	double sigma;        /* run noise */
	double tau2;         /* boot spread, squared; */
	int tau_df;          /* and its degrees of freedom (-1: none needed) */
	size_t tau_n;        /* the pairs of boots of one commit it is from: with
			      * none, the boot spread is not known at all */
	double lay2;         /* each commit's own offset (code layout), squared */
	double lay2_up;      /* its bound at 90%, from the sides' pairs */
	int lay_told;        /* five of the sides' pairs or more told it */
	double lay2_second;  /* the larger of that and the bound from every
			      * difference that tells it: what a second
			      * culprit must stand out of */
	double lay2_other;   /* the spread from all but the culprit's builds
			      * of the same code: what its aligned step is
			      * held to, where it may be what it vanished by */
	size_t lay_k;        /* the range's own differences it is fitted from;
			      * fewer than LAY_OWN_MIN: from the builds of the
			      * same code alone */
	double min_eff;      /* the smallest change of interest, z units */
	size_t total;        /* samples taken */
	int runs;            /* runs a boot, as chosen */
	json_t *warnings;
	unsigned char *anc;  /* scratch, g->n */
	long known;          /* a culprit already found, -1 if none */
	double known_step;   /* its step, in z units */
	double known_se;     /* and its standard error */
	unsigned char *known_in; /* known_in[i]: the known culprit is in node i */
	unsigned char *ruled_out; /* per node: a likely culprit whose revert did
			      * not recover, no candidate now (paths run
			      * through it, as through the known one) */
	int nruled;          /* how many */
	/* the boots, by commit (each commit's in the order taken) */
	struct kb_boot *boot;
	size_t nboot;
	size_t *ob_first, *ob_n; /* per obs: its boots */
	size_t **tl;         /* per machine: its boots (indices) in time order */
	int nmach;           /* machines with boots */
	struct machine_drift *drift;
	/* a pool: the machines whose samples are scaled, and 1/n summed over
	 * the four sample sets their scale comes from; the reference
	 * machine's two of them */
	int nmachines;
	unsigned char *scaled;
	double *scale_inv_n;
	double scale_ref_inv_n;
};

/* A paired comparison: boots of two commits measured next to each other
 * on one machine. */
struct pairs {
	size_t n;
	double mean, se;     /* of b's boot less a's, z */
	long first_t;        /* the time of the first pair's boots on the
			      * asking machine, -1 none */
};

/* A finding of one range bisection. */
struct found {
	long node;           /* -1: none */
	double prob;
	const char *parent_check, *revert_check, *align_check;
	double step, step_se;    /* parent to culprit, measured together */
	double known_off, known_off_se; /* taken off that step: the culprit
				  * already found, where this commit holds it
				  * and its parent does not (a merge) */
	size_t npairs;
	double astep, astep_se;  /* the same, both built aligned */
	size_t napairs;
	double rstep, rstep_se;  /* BAD less its revert, measured together */
	size_t nrpairs;
	int align_unclear;   /* the aligned step failed, but the builds' offsets
			      * could make it as well as the step could */
	const char *other;   /* a merge's other parent the aligned step did
			      * not stand against, or NULL; its variant */
	const char *other_v;
	double ostep;        /* the step against it, both built aligned */
	size_t nopairs;
	double share, share_lo, share_hi;
	double share_hi0;    /* share_hi, the builds' offsets left out */
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

/* BAD with the commit 'sha' reverted, once made ("" where the revert does
 * not apply), or NULL. */
static const char *revert_for(const struct ctx *c, const char *sha)
{
	const struct kb_perf_in *in = c->in;
	size_t i;

	if (in->revert_of && !strcmp(in->revert_of, sha))
		return in->revert_sha ? in->revert_sha : "";
	for (i = in->nreverts; in->reverts && i-- > 0;)
		if (in->reverts[i].of && !strcmp(in->reverts[i].of, sha))
			return in->reverts[i].sha ? in->reverts[i].sha : "";
	return NULL;
}

/* Whether 'sha' is a revert made on BAD. */
static int is_revert(const struct ctx *c, const char *sha)
{
	const struct kb_perf_in *in = c->in;
	size_t i;

	if (in->revert_sha && *in->revert_sha && !strcmp(in->revert_sha, sha))
		return 1;
	for (i = 0; in->reverts && i < in->nreverts; i++)
		if (in->reverts[i].sha && *in->reverts[i].sha && !strcmp(in->reverts[i].sha, sha))
			return 1;
	return 0;
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
					size_t had = alloc;

					KB_ALLOC_GROW(x, n + 1, alloc);
					if (alloc != had)
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

static int budget_left(const struct ctx *c)
{
	return (int)c->total < c->in->p.max_runs;
}

static size_t obs_index(const struct ctx *c, const struct kb_perf_obs *o)
{
	return (size_t)(o - c->in->obs);
}

/* The inflation of a variance estimated on 'df' degrees of freedom (-1:
 * known), for a t's tails. */
static double inflate(int df)
{
	return df < 0 ? 1 : df > 3 ? (double)df / (df - 2) : 3;
}

/* The standard normal quantile of p, by bisection. */
static double z_of(double p)
{
	double lo = -10, hi = 10;

	for (int i = 0; i < 80; i++) {
		double z = (lo + hi) / 2;

		if (kb_normal_cdf(z) < p)
			lo = z;
		else
			hi = z;
	}
	return (lo + hi) / 2;
}

/* The variance of the value of a boot of n steady runs. */
static double boot_var(const struct ctx *c, int n)
{
	return c->tau2 * inflate(c->tau_df) + 1.05 * c->sigma * c->sigma / (n > 0 ? n : 1);
}

/* the boots being sorted by time, for qsort's comparison */
static const struct kb_boot *cmp_base;

static int cmp_tl_q(const void *a, const void *b)
{
	const struct kb_boot *x = &cmp_base[*(const size_t *)a], *y = &cmp_base[*(const size_t *)b];

	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Every boot's value, and the noise in its three layers: the run noise
 * from the spread within boots, each boot's value a robust mean of its
 * steady runs, the boot spread from boots of one commit measured close
 * together on one machine.  Fills c->boot, the per-commit and per-machine
 * indices, sigma and tau.
 */
#define NEAR 3        /* boots of one commit this close are measured together */

static void build_boots(struct ctx *c)
{
	const struct kb_perf_in *in = c->in;
	double *x = NULL, *d = NULL, *e = NULL;
	size_t *len = NULL, nx = 0, ax = 0, ab = 0, i, j, k, nd = 0, ad = 0, off, had;
	int m;

	c->ob_first = kb_calloc(in->nobs + 1, sizeof(*c->ob_first));
	c->ob_n = kb_calloc(in->nobs + 1, sizeof(*c->ob_n));
	for (i = 0; i < in->nobs; i++) {
		const struct kb_perf_obs *o = &in->obs[i];

		c->ob_first[i] = c->nboot;
		for (j = 0; j < o->n; j = k) {
			int n = 0;

			for (k = j; k < o->n && o->s[k].boot == o->s[j].boot &&
			     o->s[k].machine == o->s[j].machine; k++)
				if (o->s[k].run > c->warm) {
					KB_ALLOC_GROW(x, nx + 1, ax);
					x[nx++] = zval(c, o->s[k].value);
					n++;
				}
			if (!n)
				continue;
			had = ab;
			KB_ALLOC_GROW(c->boot, c->nboot + 1, ab);
			if (ab != had)
				len = kb_realloc(len, ab * sizeof(*len));
			c->boot[c->nboot] = (struct kb_boot){ .o = (int)i, .machine = o->s[j].machine,
				.id = o->s[j].boot, .order = o->s[j].order, .n = n, .dup = -1 };
			for (size_t q = 0; q < c->nboot; q++)
				if (c->boot[q].machine == o->s[j].machine && c->boot[q].id == o->s[j].boot &&
				    c->boot[q].order == o->s[j].order && c->boot[q].dup < 0) {
					c->boot[c->nboot].dup = (long)q;
					break;
				}
			len[c->nboot++] = (size_t)n;
			if (o->s[j].machine + 1 > c->nmach)
				c->nmach = o->s[j].machine + 1;
		}
		c->ob_n[i] = c->nboot - c->ob_first[i];
	}
	c->sigma = kb_noise_within(x, len, c->nboot);
	for (k = off = 0; k < c->nboot; off += len[k], k++)
		c->boot[k].m = kb_biweight_location(x + off, len[k], c->sigma);
	if (!(c->sigma > 0)) {
		/* one run a boot everywhere: the spread of the boots of each
		 * commit around its median, for a scale */
		double *r = kb_malloc((c->nboot + 1) * sizeof(*r)), *v = kb_malloc((c->nboot + 1) * sizeof(*v));
		size_t nr = 0;

		for (i = 0; i < in->nobs; i++) {
			for (k = 0; k < c->ob_n[i]; k++)
				v[k] = c->boot[c->ob_first[i] + k].m;
			double med = c->ob_n[i] ? kb_median(v, c->ob_n[i]) : 0;

			for (k = 0; c->ob_n[i] > 1 && k < c->ob_n[i]; k++)
				r[nr++] = v[k] - med;
		}
		c->sigma = nr > 1 ? kb_mad(r, nr) : 0;
		if (!(c->sigma > 0))
			c->sigma = 1e-9;
		free(r);
		free(v);
	}
	/* the machines' timelines */
	c->tl = kb_calloc((size_t)c->nmach + 1, sizeof(*c->tl));
	c->drift = kb_calloc((size_t)c->nmach + 1, sizeof(*c->drift));
	for (m = 0; m < c->nmach; m++) {
		size_t n = 0;

		c->tl[m] = kb_malloc((c->nboot + 1) * sizeof(**c->tl));
		for (k = 0; k < c->nboot; k++)
			if (c->boot[k].machine == m && c->boot[k].dup < 0)
				c->tl[m][n++] = k;
		cmp_base = c->boot;
		qsort(c->tl[m], n, sizeof(**c->tl), cmp_tl_q);
		for (k = 0; k < n; k++)
			c->boot[c->tl[m][k]].t = k;
		for (k = 0; k < c->nboot; k++)
			if (c->boot[k].machine == m && c->boot[k].dup >= 0)
				c->boot[k].t = c->boot[c->boot[k].dup].t;
		c->drift[m].nt = n;
		c->drift[m].first_end = c->drift[m].last_end = -1;
	}
	/* the boot spread: consecutive boots of one commit, close in time */
	for (i = 0; i < in->nobs; i++)
		for (k = 1; k < c->ob_n[i]; k++) {
			const struct kb_boot *a = &c->boot[c->ob_first[i] + k - 1], *b = a + 1;

			if (a->machine != b->machine || a->dup >= 0 || b->dup >= 0 ||
			    (b->t > a->t ? b->t - a->t : a->t - b->t) > NEAR)
				continue;
			had = ad;
			KB_ALLOC_GROW(d, nd + 1, ad);
			if (ad != had)
				e = kb_realloc(e, ad * sizeof(*e));
			d[nd] = b->m - a->m;
			e[nd++] = 1.05 * c->sigma * c->sigma * (1.0 / a->n + 1.0 / b->n);
		}
	c->tau2 = kb_noise_boots(d, e, nd, 0.10, &c->tau_df);
	c->tau_n = nd;
	for (k = 0; k < c->nboot; k++) {
		c->boot[k].v = boot_var(c, c->boot[k].n);
		c->boot[k].z = c->boot[k].m;
	}
	free(x);
	free(len);
	free(d);
	free(e);
}

/* Is boot k one of GOOD's (-1), BAD's (1), or neither (0)? */
static int endpoint(const struct ctx *c, const struct kb_boot *b)
{
	const struct kb_perf_obs *o = &c->in->obs[b->o];

	if (!strcmp(o->sha, c->in->good_sha))
		return -1;
	return o->node == (long)c->in->bad ? 1 : 0;
}

/*
 * The machines' drift, from their endpoint boots (GOOD as it is, BAD less
 * the change): every boot's value with the drift at its time taken off,
 * and the drift's variance there.
 */
static void fit_drift(struct ctx *c)
{
	for (int m = 0; m < c->nmach; m++) {
		struct machine_drift *md = &c->drift[m];
		size_t n = 0, k, nt = md->nt, *t = kb_malloc((nt + 1) * sizeof(*t));
		double *y = kb_malloc((nt + 1) * sizeof(*y)), *v = kb_malloc((nt + 1) * sizeof(*v));

		free(md->d);
		free(md->pvar);
		md->d = kb_malloc((nt + 1) * sizeof(*md->d));
		md->pvar = kb_malloc((nt + 1) * sizeof(*md->pvar));
		for (k = 0; k < nt; k++) {
			const struct kb_boot *b = &c->boot[c->tl[m][k]];
			int e = endpoint(c, b);

			if (!e)
				continue;
			t[n] = b->t;
			y[n] = b->m - (e > 0 ? c->mu_b : c->mu_g);
			v[n++] = b->v;
			if (md->first_end < 0)
				md->first_end = (long)b->t;
			md->last_end = (long)b->t;
		}
		md->q = kb_drift_smooth(t, y, v, n, nt, md->d, md->pvar);
		for (k = 0; k < nt; k++) {
			struct kb_boot *b = &c->boot[c->tl[m][k]];

			b->z = b->m - md->d[b->t];
			b->pd = md->pvar[b->t];
		}
		for (k = 0; k < c->nboot; k++)
			if (c->boot[k].machine == m && c->boot[k].dup >= 0) {
				c->boot[k].z = c->boot[c->boot[k].dup].z;
				c->boot[k].pd = c->boot[c->boot[k].dup].pd;
			}
		free(t);
		free(y);
		free(v);
	}
}

/* The variance of the drift at the next boot of machine m. */
static double drift_ahead(const struct ctx *c, int m)
{
	const struct machine_drift *md;

	if (m < 0 || m >= c->nmach || !c->drift[m].nt)
		return 0;
	md = &c->drift[m];
	return md->pvar[md->nt - 1] + md->q;
}

/*
 * The boots of 'a' and 'b' measured next to each other (at most PAIR_GAP
 * boots apart on one machine), each boot in one pair at most: the mean
 * of b's value less a's, weighed by their variance, robust to an outlying
 * pair, and its standard error (no smaller than the pairs' own scatter
 * says).  Only the machines of verification pair 'pair' on a pool (-1:
 * every machine), or machine 'only' alone (>= 0).
 */
#define PAIR_GAP 2

struct pair_list {
	double *d, *sd;      /* b less a, and its standard deviation */
	size_t *at;          /* the order of the pair's later boot */
	size_t n;
	long first_t;
};

static void collect_pairs(const struct ctx *c, const struct kb_perf_obs *a,
			  const struct kb_perf_obs *b, int pair, int only, struct pair_list *pl)
{
	size_t ia, ib, k, cap = c->nboot + 1;

	memset(pl, 0, sizeof(*pl));
	pl->first_t = -1;
	pl->d = kb_malloc(cap * sizeof(*pl->d));
	pl->sd = kb_malloc(cap * sizeof(*pl->sd));
	pl->at = kb_malloc(cap * sizeof(*pl->at));
	if (!a || !b || a == b)
		return;
	ia = obs_index(c, a);
	ib = obs_index(c, b);
	for (int m = 0; m < c->nmach; m++) {
		long pending = -1;

		if (only >= 0 && m != only)
			continue;
		if (only < 0 && pair >= 0 && c->in->machines > 1 && c->in->pair_of &&
		    c->in->pair_of[m] != pair)
			continue;
		if (only < 0 && pair >= 0 && c->in->machines > 1 && !c->in->pair_of &&
		    m % 2 != pair)
			continue;
		for (k = 0; k < c->drift[m].nt; k++) {
			const struct kb_boot *x = &c->boot[c->tl[m][k]];

			if ((size_t)x->o != ia && (size_t)x->o != ib)
				continue;
			if (pending >= 0) {
				const struct kb_boot *p = &c->boot[c->tl[m][pending]];

				if (p->o != x->o && x->t - p->t <= PAIR_GAP) {
					const struct kb_boot *xa = (size_t)x->o == ia ? x : p;
					const struct kb_boot *xb = (size_t)x->o == ib ? x : p;
					/* the drift between the two boots, where the
					 * endpoints show the machine's speed jumped
					 * near them: taken off, and as uncertain as
					 * it is large (where the jump fell among the
					 * boots no endpoint was measured in is not
					 * known) */
					double jd = c->drift[m].d ?
						c->drift[m].d[xb->t] - c->drift[m].d[xa->t] : 0;

					pl->d[pl->n] = xb->m - xa->m - jd;
					pl->sd[pl->n] = sqrt(xa->v + xb->v + jd * jd +
							     c->drift[m].q * (double)(x->t - p->t));
					pl->at[pl->n++] = x->order;
					if (pl->first_t < 0 && (only >= 0 || m == c->in->machine ||
								c->in->machine < 0))
						pl->first_t = (long)p->t;
					pending = -1;
					continue;
				}
			}
			pending = (long)k;
		}
	}
}

static void free_pairs(struct pair_list *pl)
{
	free(pl->d);
	free(pl->sd);
	free(pl->at);
}

/* The mean of the first n pairs, robust to an outlying pair, weighed by
 * their variance, and its standard error (no smaller than the pairs' own
 * scatter says).  Two pairs that differ far beyond their noise (99.9%)
 * tell no more than their midpoint, give or take half their difference:
 * one of them holds what the model does not know (the machine's speed
 * changing between its two boots, where no endpoint was measured to see
 * it), and the weights cannot say which (two pairs of 16% and 1.5%,
 * each +- 0.5%, were taken for 16% +- 0.4%, and named a second culprit). */
static void pairs_mean(const double *d, const double *sd, size_t n, struct pairs *ps)
{
	double w = 0, s2 = 0;
	size_t k;

	ps->n = n;
	ps->mean = ps->se = 0;
	if (!n)
		return;
	if (n == 2 && (d[0] - d[1]) * (d[0] - d[1]) >
	    kb_chi2_quantile(0.999, 1) * (sd[0] * sd[0] + sd[1] * sd[1])) {
		ps->mean = (d[0] + d[1]) / 2;
		ps->se = fabs(d[0] - d[1]) / 2;
		return;
	}
	for (k = 0; k < n; k++)
		w += 1 / (sd[k] * sd[k]);
	ps->mean = kb_huber_location(d, sd, n, 0);
	ps->se = sqrt(1 / w);
	if (n >= 3) {
		for (k = 0; k < n; k++)
			s2 += (d[k] - ps->mean) * (d[k] - ps->mean);
		s2 /= (double)(n - 1) * (double)n;
		if (sqrt(s2) > ps->se)
			ps->se = sqrt(s2);
	}
}

/*
 * The boots of 'a' and 'b' measured next to each other (at most PAIR_GAP
 * boots apart on one machine), each boot in one pair at most: b's value
 * less a's.  Only the machines of verification pair 'pair' on a pool (-1:
 * every machine), or machine 'only' alone (>= 0).
 */
static void pair_up(const struct ctx *c, const struct kb_perf_obs *a, const struct kb_perf_obs *b,
		    int pair, int only, struct pairs *ps)
{
	struct pair_list pl;

	collect_pairs(c, a, b, pair, only, &pl);
	pairs_mean(pl.d, pl.sd, pl.n, ps);
	ps->first_t = pl.first_t;
	free_pairs(&pl);
}

/* The last boot of 'o' on machine m: its time, or -1. */
static long last_on(const struct ctx *c, const struct kb_perf_obs *o, int m)
{
	long t = -1;

	if (!o || m < 0 || m >= c->nmach)
		return -1;
	for (size_t k = 0; k < c->ob_n[obs_index(c, o)]; k++) {
		const struct kb_boot *b = &c->boot[c->ob_first[obs_index(c, o)] + k];

		if (b->machine == m && (long)b->t > t)
			t = (long)b->t;
	}
	return t;
}

/* The commit of machine m's latest boot, or NULL. */
static const struct kb_perf_obs *latest_on(const struct ctx *c, int m)
{
	if (m < 0 || m >= c->nmach || !c->drift[m].nt)
		return NULL;
	return &c->in->obs[c->boot[c->tl[m][c->drift[m].nt - 1]].o];
}

/*
 * The evidence of a commit's boots: their values with the drift taken off,
 * a robust mean weighed by each boot's variance; its variance holds the
 * boots' (spread and run noise), the drift's at their times (shared by
 * boots close in time, so it does not shrink with more of them) and the
 * commit's own offset.  One boot can never tell more than one boot
 * offset allows.
 */
struct probe_state {
	double llr;
	double z, var;     /* the commit's value and its variance */
	size_t n;          /* boots */
	int decided;       /* -1 good, 1 bad, 0 open */
	int capped;
	int between;       /* level firmly between the two */
};

/*
 * The boots after which a probe is left open: the benchmark's max_probe
 * samples, or, when boots differ a lot against the change, the boots a
 * commit at either level needs to reach 99:1 at 97.5%.  Each boot adds
 * delta^2 / (2 v) to the log-odds on average and twice that to its
 * variance: b boots reach DECIDE at 97.5% when b delta^2 / (2 v) = x, x
 * the root of x - Z_POWER sqrt(2 x) = DECIDE.  v is the variance of a
 * boot of 'runs' steady runs; max_probe_boots() takes today's.
 */
static int max_probe_boots_with(const struct ctx *c, int runs)
{
	int steady = c->in->p.runs_per_boot - c->in->p.warmup;
	int b = c->in->p.max_probe / (steady > 0 ? steady : 1);
	double delta = c->mu_b - c->mu_g, r, x, need;

	if (b < 3)
		b = 3;
	if (!(delta > 0))
		return b;
	r = (Z_POWER * sqrt(2) + sqrt(2 * Z_POWER * Z_POWER + 4 * DECIDE)) / 2;
	x = r * r;
	need = ceil(2 * x * boot_var(c, runs) / (delta * delta));
	return need > b ? (int)fmin(need, 1000) : b;
}

static int max_probe_boots(const struct ctx *c)
{
	return max_probe_boots_with(c, c->runs - c->warm);
}

/* A commit's value from its boots (those on 'machine' only, or all with
 * -1), its variance, how many boots, and in *floor when set the variance
 * more of them cannot take away (the drift's, its own offset's). */
static void commit_value_floor(const struct ctx *c, const struct kb_perf_obs *o, int machine,
			       double *z, double *var, size_t *n, double *floor)
{
	size_t i, k, nb, kept = 0;
	double *v, *sd, w = 0, pd = 0;

	*z = 0;
	*var = INFINITY;
	*n = 0;
	if (!o || !c->ob_n)
		return;
	i = obs_index(c, o);
	nb = c->ob_n[i];
	if (!nb)
		return;
	v = kb_malloc(nb * sizeof(*v));
	sd = kb_malloc(nb * sizeof(*sd));
	for (k = 0; k < nb; k++) {
		const struct kb_boot *b = &c->boot[c->ob_first[i] + k];
		double u = b->v + b->pd;

		if (machine >= 0 && b->machine != machine)
			continue;
		v[kept] = b->z;
		sd[kept++] = sqrt(u);
		w += 1 / u;
		pd += b->pd / u;
	}
	if (kept) {
		/* a boot whose time's drift is uncertain (during a jump of
		 * the machine's speed) weighs little; the drift of the
		 * others, shared by boots close in time, does not shrink
		 * with more of them */
		*z = kb_huber_location(v, sd, kept, 0);
		*var = 1 / w + pd / w + c->lay2;
		if (floor)
			*floor = pd / w + c->lay2;
		*n = kept;
	}
	free(v);
	free(sd);
}

/* A commit's value, and the variance more of its boots cannot take away
 * (the drift's, its own offset's) in *floor when set. */
static void commit_value(const struct ctx *c, const struct kb_perf_obs *o, double *z,
			 double *var, size_t *n)
{
	commit_value_floor(c, o, -1, z, var, n, NULL);
}

static void probe_state(const struct ctx *c, const struct kb_perf_obs *o, double lo,
			double hi, struct probe_state *ps)
{
	double floor = 0;

	memset(ps, 0, sizeof(*ps));
	commit_value_floor(c, o, -1, &ps->z, &ps->var, &ps->n, &floor);
	if (!ps->n)
		return;
	if (c->known >= 0 && o->node >= 0 && c->known_in[o->node]) {
		/* this commit has the known culprit's step already */
		lo += c->known_step;
		hi += c->known_step;
	}
	ps->llr = ((ps->z - lo) * (ps->z - lo) - (ps->z - hi) * (ps->z - hi)) / (2 * ps->var);
	if (ps->llr >= DECIDE)
		ps->decided = 1;
	else if (ps->llr <= -DECIDE)
		ps->decided = -1;
	if (ps->n >= 3 && hi > lo) {
		double se = sqrt(ps->var);
		double f_lo = (ps->z - 2.5 * se - lo) / (hi - lo), f_hi = (ps->z + 2.5 * se - lo) / (hi - lo);

		if (f_lo > 0.25 && f_hi < 0.75)
			ps->between = 1;
	}
	/* at its cap, or where more boots would change little: what is
	 * left is the commit's own offset */
	if (ps->n >= (size_t)max_probe_boots(c) || (ps->n >= 3 && ps->var < 1.25 * floor))
		ps->capped = 1;
}

/*
 * The fewest steady runs a boot: 3, as a robust mean of three still sees
 * through one outlying run; 1 where boots differ 1.5 times as much as
 * runs do, told by 8 pairs of boots of one commit or more (an outlying
 * run is then not much further off than boots are; at twice, a 3% step
 * in 4% boots and 2% runs, whose spreads are told at either side of it,
 * was exact in 74 of 100 with 1030 runs, and is in 76 with 905), and the
 * 'share' of the run budget cannot hold 'boots' at three runs each
 * (with boots three times as noisy as runs at 2-3% run noise, a 3-5%
 * step took four to nine times the runs it takes at 1%).
 */
static int fewest_runs(const struct ctx *c, double boots, double share)
{
	if (c->tau_n >= 8 && c->tau2 >= 2.25 * c->sigma * c->sigma &&
	    boots * (ROBUST_RUNS + c->warm) > share * c->in->p.max_runs)
		return 1;
	return ROBUST_RUNS;
}

/*
 * Runs per boot, from the noise: the classic trade of cluster sampling,
 * sqrt(cost of a boot / cost of a run * sigma^2 / tau^2) steady runs,
 * and no more than a probe needs to be told apart in one boot.  Within
 * fewest_runs() for the boots the bisection is likely to take (a probe
 * at half its cap, one for every halving of the range and four for the
 * checks) and twice the benchmark's; the benchmark's own when the user
 * set it or the noise is not known yet.
 */
static int runs_for(const struct ctx *c, char *why, size_t whylen)
{
	const struct kb_perf_params *p = &c->in->p;
	int steady = p->runs_per_boot - c->warm, lo, hi, n;
	double ratio, opt, need, delta = c->mu_b - c->mu_g;

	if (why && whylen)
		*why = 0;
	if (p->runs_fixed || !(delta > 0) || steady < 1) {
		if (why && p->runs_fixed)
			snprintf(why, whylen, "set by the benchmark");
		return p->runs_per_boot;
	}
	hi = 2 * steady;
	lo = fewest_runs(c, max_probe_boots_with(c, ROBUST_RUNS) / 2.0 *
			 (log2((double)c->in->g->n + 1) + 4), 0.5);
	ratio = p->boot_cost > 0 && p->run_cost > 0 ? p->boot_cost / p->run_cost : 1;
	opt = c->tau2 > 0 ? sqrt(ratio * c->sigma * c->sigma / c->tau2) : INFINITY;
	/* a commit at BAD's level is decided in one boot at log-odds
	 * delta^2 / (2 var) >= DECIDE, with a margin */
	need = 1.2 * 2 * DECIDE * 1.05 * c->sigma * c->sigma / (delta * delta);
	/* beyond the benchmark's own only when a probe needs two of its
	 * boots anyway */
	if (need <= hi)
		hi = steady;
	n = (int)ceil(fmin(opt, fmax(need, 1)));
	if (n < lo)
		n = lo;
	if (n > hi)
		n = hi;
	if (why)
		snprintf(why, whylen, c->tau2 > 0 ? "boots differ by %.2g%%, runs by %.2g%%, "
			 "a boot costs %.2g runs: %d steady runs a boot%s" :
			 "boots differ no more than runs do (runs by %.2g%%, boots by %.2g%%, "
			 "a boot costs %.2g runs): %d steady runs a boot%s",
			 c->tau2 > 0 ? 100 * sqrt(c->tau2) : 100 * c->sigma,
			 c->tau2 > 0 ? 100 * c->sigma : 0.0, ratio, n,
			 n < ROBUST_RUNS ? " (fewer than 3: the run budget would not hold "
			 "the boots this change needs at 3)" : "");
	return n + c->warm;
}

/* The smallest change calibration looks for: half the noise of one run
 * on a boot of its own, the boot spread included, and never more than
 * the smallest change the user cares about.  It does not depend on the
 * runs a boot, and GOOD and BAD are said not to differ only once the
 * pairs exclude a change of this size. */
static double same_within(const struct ctx *c)
{
	double w = SAME_SHARE * sqrt(c->tau2 + c->sigma * c->sigma);

	return c->min_eff > 0 && c->min_eff < w ? c->min_eff : w;
}

/*
 * Runs per boot while GOOD and BAD are calibrated: once the boots are seen
 * to differ more than runs do, fewer runs a boot and more boots, by the
 * cost of each.  The cap of calibration pairs: the pairs after which the
 * sequential test ends either way (its standard error below
 * same_within() / (z_alpha + Z_SAME): a mean that does not differ at
 * alpha then excludes a change of that size), no fewer than
 * max_cal_boots and no more than a quarter of the run budget.
 */
static int cal_runs(const struct ctx *c, int *max_pairs)
{
	const struct kb_perf_params *p = &c->in->p;
	int steady = p->runs_per_boot - c->warm, n = steady, runs = p->runs_per_boot, lo;
	double ratio, z, need, tol = same_within(c);

	*max_pairs = p->max_cal_boots;
	if (!p->runs_fixed && c->tau2 > 0 && steady > 3) {
		ratio = p->boot_cost > 0 && p->run_cost > 0 ? p->boot_cost / p->run_cost : 1;
		/* the pairs that tell a change of the user's smallest size
		 * at the caps' power, at three runs a boot, against the
		 * quarter of the budget calibration may take */
		z = z_of(1 - p->alpha / 2) + Z_POWER;
		need = c->min_eff > 0 ?
			2 * boot_var(c, ROBUST_RUNS) * z * z / (c->min_eff * c->min_eff) : 0;
		lo = fewest_runs(c, 2 * need, 0.25);
		n = (int)ceil(sqrt(ratio * c->sigma * c->sigma / c->tau2));
		if (n < lo)
			n = lo;
		if (n < steady) {
			*max_pairs = p->max_cal_boots * steady / n;
			runs = n + c->warm;
		} else {
			n = steady;
		}
	}
	if (tol > 0 && n > 0) {
		z = z_of(1 - p->alpha / 2) + Z_SAME;
		need = ceil(2 * boot_var(c, n) * z * z / (tol * tol));
		need = fmin(need, (double)p->max_runs / (8 * runs));
		if (need > *max_pairs)
			*max_pairs = (int)need;
	}
	return runs;
}

/* A sequential test over pairs of boots measured together, taken in the
 * order measured: DIFFER at the first prefix (of 'min' pairs or more)
 * where b differs from a at 'alpha', SAME from 'same_from' pairs on when
 * the upper bound of b less a (at Z_SAME) is below 'within' and a change
 * of the user's smallest size would have been found (at POWER), MORE
 * when neither has happened below 'max' pairs, CAP at the cap.  The
 * noise model of each prefix is today's. */
enum { CAL_MORE, CAL_SAME, CAL_DIFFER, CAL_CAP };

static const size_t *sort_at;

static int cmp_at(const void *x, const void *y)
{
	size_t a = sort_at[*(const size_t *)x], b = sort_at[*(const size_t *)y];

	return a < b ? -1 : a > b;
}

static int paired_test(const struct ctx *c, const struct kb_perf_obs *a,
		       const struct kb_perf_obs *b, int min, int max, int same_from,
		       double within, double alpha, double *p_out)
{
	struct pair_list pl;
	struct pairs all;
	size_t *idx, k, n;
	double *d, *sd;
	int ret = CAL_MORE;

	*p_out = 1;
	collect_pairs(c, a, b, -1, -1, &pl);
	n = pl.n;
	idx = kb_malloc((n + 1) * sizeof(*idx));
	d = kb_malloc((n + 1) * sizeof(*d));
	sd = kb_malloc((n + 1) * sizeof(*sd));
	for (k = 0; k < n; k++)
		idx[k] = k;
	sort_at = pl.at;
	qsort(idx, n, sizeof(*idx), cmp_at);
	for (k = 0; k < n; k++) {
		d[k] = pl.d[idx[k]];
		sd[k] = pl.sd[idx[k]];
	}
	/* a prefix that differs (two pairs, say, of boots that happened to
	 * differ) decides only while all the pairs measured since still
	 * differ the same way at 5% */
	pairs_mean(d, sd, n, &all);
	for (k = (size_t)min; k <= n && k <= (size_t)max; k++) {
		struct pairs ps;
		double p;

		pairs_mean(d, sd, k, &ps);
		if (!(ps.se > 0))
			continue;
		p = 2 * (1 - kb_normal_cdf(fabs(ps.mean / ps.se)));
		if (!c->tau_n) {
			/* no two boots of one commit measured close together
			 * yet (a pool's machines each measure GOOD and BAD
			 * once): how much boots differ is not known, and the
			 * pairs' own scatter, as a t with its degrees of
			 * freedom, is all there is to go by */
			double m = 0, s2 = 0, t;

			if (k < 3)
				continue;
			for (size_t q = 0; q < k; q++)
				m += d[q] / (double)k;
			for (size_t q = 0; q < k; q++)
				s2 += (d[q] - m) * (d[q] - m) / (double)(k - 1);
			t = s2 > 0 ? m / sqrt(s2 / (double)k) : 0;
			p = t ? kb_beta_inc((double)(k - 1) / 2, 0.5,
					    (double)(k - 1) / ((double)(k - 1) + t * t)) : 1;
			ps.se = fmax(ps.se, sqrt(s2 / (double)k * inflate((int)k - 1)));
		}
		*p_out = p;
		if (p < alpha && all.se > 0 && (ps.mean > 0 ? all.mean : -all.mean) > Z_SAME * all.se) {
			ret = CAL_DIFFER;
			goto out;
		}
		if (k >= (size_t)same_from && ps.mean + Z_SAME * ps.se < within &&
		    !(c->min_eff > 0 && kb_detectable(ps.se, alpha, POWER) > c->min_eff)) {
			ret = CAL_SAME;
			goto out;
		}
	}
	ret = n >= (size_t)max ? CAL_CAP : CAL_MORE;
out:
	free(idx);
	free(d);
	free(sd);
	free_pairs(&pl);
	return ret;
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
		if (alive[k] && !c->ruled_out[k])
			maxl = fmax(maxl, logp[k]);
	for (k = 0; k < g->n; k++) {
		/* the culprit already found stays in the graph (paths run
		 * through it) but is no candidate */
		post[k] = alive[k] && (long)k != c->known && !c->ruled_out[k] ?
			  exp(logp[k] - maxl) : 0;
		sum += post[k];
	}
	for (k = 0; k < g->n; k++)
		post[k] = sum > 0 ? post[k] / sum : 0;
	free(logp);
	return cur;
}

/* The probability mass expected to be left once probes at the cut points
 * 'cut' (each commit's share of the posterior on its bad side) are
 * decided: the squared gaps between them, 0 and 1 included.  Sorts 'cut'. */
static double mass_left(double *cut, size_t n)
{
	double sum = 0, prev = 0;
	size_t i;

	kb_sort_doubles(cut, n);
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
		if (!ps.n || fabs(ps.llr) >= LEAVE || ps.capped ||
		    fmin(w[o->node], 1 - w[o->node]) < MIN_SPLIT)
			continue;
		if (!open || o->last > open->last)
			open = o;
	}
	if (open) {
		probe_state(c, open, lo, hi, &ps);
		run_action(out, open->sha, "probe", c->runs,
			   "probe, %zu boot%s so far, log-odds %.1f", ps.n, ps.n == 1 ? "" : "s",
			   ps.llr);
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
			if (ps.capped)
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
			if (!alive[k] || k == bad || !o ||
			    nboots(o) >= 2 * max_probe_boots(c) ||
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
		run_action(out, in->node_sha[pick], "probe", c->runs,
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

/*
 * Did machine m's latest boot, of a commit of the range, measure beyond
 * both levels by more than 3 of its standard deviations (its boot's
 * noise, the drift's, the commit's own offset)?  Every commit of the
 * range is at one of the two levels: one that is not says the machine's
 * speed has moved since the endpoints were measured.
 */
static int beyond_levels(const struct ctx *c, int m, double lo, double hi)
{
	const struct kb_boot *b;
	double sd;

	if (m < 0 || m >= c->nmach || !c->drift[m].nt)
		return 0;
	b = &c->boot[c->tl[m][c->drift[m].nt - 1]];
	if (endpoint(c, b) || c->in->obs[b->o].node < 0)
		return 0;
	sd = sqrt(b->v + b->pd + c->lay2);
	return b->z > hi + 3 * sd || b->z < lo - 3 * sd;
}

/*
 * Before the verification of a culprit on machine m (or, with 'ahead',
 * before its next probe when the drift has grown uncertain): the endpoint
 * to measure again, so that the endpoints' level is known near the boots
 * that decide.  NULL when both are recent enough.
 */
#define RECENT 4

static const char *endpoint_due(const struct ctx *c, int m, long before)
{
	const struct kb_perf_obs *go = find(c, c->in->good_sha), *bo = find(c, c->in->node_sha[c->in->bad]);
	long tg, tb;

	if (m < 0 || m >= c->nmach)
		return NULL;
	if (before < 0)
		before = (long)c->drift[m].nt;
	tg = last_on(c, go, m);
	tb = last_on(c, bo, m);
	if (tg >= before - RECENT && tb >= before - RECENT)
		return NULL;
	if (busy_n(c, c->in->good_sha) && tb >= before - RECENT)
		return NULL;
	return tg <= tb ? c->in->good_sha : c->in->node_sha[c->in->bad];
}

/*
 * One check of a verification: boots of a and b in pairs measured
 * together, b expected worse by 'expect' (z).  Two builds differ by their
 * own offsets (code layout) too, variance 'extra' beside the pairs' own
 * noise: the step between parent and culprit must stand out of the
 * pairs' noise at VERIFY_ALPHA and beyond what the offsets give by
 * 'beyond' standard deviations (0: not asked; 1.645 for a culprit; for
 * a second culprit, which the search picked for its step among every
 * commit of the range, 0.001 over the range: second_z(), beyond the
 * offsets at their bound at 90%); a revert, a
 * build of its own, must recover significantly
 * and by no clearly less than a quarter of what is expected.  PASS, FAIL
 * when the step is clearly below a quarter of what is expected (from
 * VERIFY_BOOTS pairs on) or the pairs reach their cap ('max'; check():
 * VERIFY_MAX_BOOTS), else MORE.  LAYOUT (with 'beyond' and offsets) where
 * the two builds' offsets could have made the step or hidden it: it
 * stands out of the pairs' noise, but not of the offsets, once more pairs
 * would not take their share away; or the pairs reached their cap with a
 * step not clearly below a quarter of what is expected, the offsets
 * counted.
 */
enum { CHECK_MORE, CHECK_PASS, CHECK_FAIL, CHECK_LAYOUT };

static int check_upto(const struct pairs *ps, double expect, double extra, double beyond,
		      size_t max, int later)
{
	double total = sqrt(ps->se * ps->se + extra);
	int strict = beyond > 0;

	if (ps->n >= VERIFY_MIN_PAIRS && ps->se > 0 && ps->mean / ps->se >= Z_VERIFY &&
	    (!strict || ps->mean / total >= beyond) && ps->mean + 2 * total >= 0.25 * expect)
		return CHECK_PASS;
	if (ps->n >= VERIFY_BOOTS && ps->mean + 2.5 * total < 0.25 * expect)
		return CHECK_FAIL;
	/* more pairs would not take the offsets' share away: the step is
	 * there, but whether it is more than the two builds' offsets these
	 * builds cannot tell (LAYOUT), or it is not there (FAIL) */
	if (strict && ps->n >= VERIFY_BOOTS && ps->se * ps->se < 0.2 * extra &&
	    ps->mean / total < beyond) {
		if (ps->mean / ps->se >= Z_VERIFY && ps->mean + 2 * total >= 0.25 * expect)
			return CHECK_LAYOUT;
		/* where other builds are to tell the offsets apart, the
		 * pairs go on until they show the step or its absence */
		if (!later)
			return CHECK_FAIL;
	}
	/* at the cap, a step that the two builds' offsets could have made
	 * smaller, and not clearly absent: a true culprit's step under 1%
	 * offsets measures +1.5% to +3% now and then, and the aligned
	 * builds, whose offsets are others, tell */
	if (ps->n >= max)
		return strict && extra > 0 && ps->mean + 2 * total >= 0.25 * expect ?
		       CHECK_LAYOUT : CHECK_FAIL;
	return CHECK_MORE;
}

/* How far beyond the builds' offsets the step of a second culprit must
 * stand: the search picked the largest of the steps of the 'n' commits it
 * could name, so its offsets alone reach 3.29 standard deviations (0.001,
 * two-sided) one time in 2000 / n. */
static double second_z(size_t n)
{
	return kb_normal_quantile(1 - 0.0005 / (double)(n ? n : 1));
}

/*
 * The pairs after which a check of a step 'expect' fails, 'done' pairs of
 * it measured: VERIFY_MAX_BOOTS, or, when the boots' noise is large
 * against it, the pairs at which such a step passes at Z_VERIFY with
 * 97.5% (each pair's variance that of two boots), no more than a quarter
 * of the run budget, or half of what was left of it when the check began
 * where that is more.  The step is no more than the change from GOOD to
 * BAD could be at 95% (calibration stops where the change looks large:
 * its estimate is high as often as not).
 */
static size_t verify_cap(const struct ctx *c, double expect, size_t done)
{
	double z = Z_VERIFY + Z_POWER, need, delta = c->mu_b - c->mu_g;
	double runs = c->runs > 0 ? c->runs : 1;
	double left = fmax(0, (double)c->in->p.max_runs - (double)c->total) + 2 * runs * (double)done;

	expect = fmin(expect, fmax(delta - Z_SAME * c->delta_se, delta / 2));
	if (!(expect > 0))
		return VERIFY_MAX_BOOTS;
	need = ceil(2 * boot_var(c, c->runs - c->warm) * z * z / (expect * expect));
	need = fmin(need, fmax((double)c->in->p.max_runs / (8 * runs), left / (4 * runs)));
	return need > VERIFY_MAX_BOOTS ? (size_t)need : VERIFY_MAX_BOOTS;
}

/* The next boot of a check on this machine: the commit its latest boot is
 * not, to make a pair; 'a' to begin one. */
static const char *check_next(const struct ctx *c, const struct kb_perf_obs *a,
			      const char *asha, const struct kb_perf_obs *b, const char *bsha)
{
	int m = c->in->machine < 0 ? 0 : c->in->machine;
	const struct kb_perf_obs *l = latest_on(c, m);

	if (l && a && l == a)
		return bsha;
	if (l && b && l == b)
		return asha;
	return asha;
}

/* A bound at 90% on the variance of each commit's own offset from the
 * sides' differences: the median of the ratios (estimate_layout()) is
 * robust but, from the few commits a bisection measures, low as often as
 * not, and a second culprit must stand out of the offsets as they could
 * be. */
static double layout_var_up(const double *d, const double *e, size_t k)
{
	double scale = kb_offsets_scale(d, e, k, 0.10);

	return scale > 1 ? (scale - 1) * kb_median(e, k) / 2 : 0;
}

/*
 * The measured commit nearest to node 'nd' among its ancestors: of[y] is
 * the observation of node y, -1 when y was not measured; with 'want' set,
 * only those of that side.  -1 when there is none.  'queue' and 'seen'
 * are scratch of g->n.
 */
static long nearest_measured(const struct kb_graph *g, const size_t *of, const signed char *side,
			     int want, size_t nd, size_t *queue, unsigned char *seen)
{
	size_t qh = 0, qt = 0;

	memset(seen, 0, g->n);
	queue[qt++] = nd;
	seen[nd] = 1;
	while (qh < qt) {
		size_t x = queue[qh++];

		for (size_t pi = 0; pi < kb_graph_nparents(g, x); pi++) {
			size_t y = kb_graph_parent(g, x, pi);

			if (seen[y])
				continue;
			seen[y] = 1;
			if (of[y] != (size_t)-1 && (!want || side[of[y]] == want))
				return (long)of[y];
			queue[qt++] = y;
		}
	}
	return -1;
}

/*
 * The squared difference of two observations, and its variance from
 * their boots, into d2[*k], e2[*k] when both were measured (zs, e, nb:
 * every observation's value, variance and boots, taken once).  On a pool,
 * from each machine both were measured on, those together: the
 * differences of commits measured on two machines hold how far those
 * machines' drifts were told apart, which their variance does not (with a
 * speed change during the session they came out at five times the
 * offsets' spread); none when no machine measured both.
 */
static void add_difference(const struct ctx *c, const struct kb_perf_obs *a,
			   const struct kb_perf_obs *b, const double *zs, const double *e,
			   const size_t *nb, double *d2, double *e2, size_t *k)
{
	double d, v;
	size_t i, j;

	if (!a || !b)
		return;
	i = obs_index(c, a);
	j = obs_index(c, b);
	if (!nb[i] || !nb[j])
		return;
	if (!pooled(c)) {
		d = zs[i] - zs[j];
		v = e[i] + e[j];
	} else {
		double sw = 0, sd = 0;

		for (int m = 0; m < c->nmach; m++) {
			double za, va, zb, vb;
			size_t na, nbm;

			commit_value_floor(c, a, m, &za, &va, &na, NULL);
			commit_value_floor(c, b, m, &zb, &vb, &nbm, NULL);
			if (!na || !nbm || !isfinite(va + vb) || !(va + vb > 0))
				continue;
			sw += 1 / (va + vb);
			sd += (za - zb) / (va + vb);
		}
		d = sw > 0 ? sd / sw : 0;
		v = sw > 0 ? 1 / sw : INFINITY;
	}
	if (!isfinite(v) || !(v > 0))
		return;
	d2[*k] = d * d;
	e2[*k] = v;
	(*k)++;
}

/*
 * The rebuild check's twins, the same code built two ways: tw[0] the
 * aligned culprit and the culprit, tw[1] the aligned parent and the
 * parent (NULL where one is not measured).  0 when there are no aligned
 * builds.
 */
static int twins(const struct ctx *c, const struct kb_perf_obs *tw[2][2])
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *co;

	if (!in->align || !in->align_of || !in->align_sha || !*in->align_sha ||
	    !in->align_parent_sha || !*in->align_parent_sha)
		return 0;
	co = find(c, in->align_of);
	tw[0][0] = find(c, in->align_sha);
	tw[0][1] = co;
	tw[1][0] = co && co->node >= 0 ? find(c, in->align_parent_sha) : NULL;
	tw[1][1] = co && co->node >= 0 ? find(c, in->parent_sha[co->node]) : NULL;
	return 1;
}

/*
 * GOOD and BAD built with the code aligned, each against itself built
 * plain: tw[0] GOOD's, tw[1] BAD's (NULL where one is not measured).  0
 * when they were not made.
 */
static int end_twins(const struct ctx *c, const struct kb_perf_obs *tw[2][2])
{
	const struct kb_perf_in *in = c->in;

	if (!in->align || !in->align_good_sha || !*in->align_good_sha || !in->align_bad_sha ||
	    !*in->align_bad_sha)
		return 0;
	tw[0][0] = find(c, in->align_good_sha);
	tw[0][1] = find(c, in->good_sha);
	tw[1][0] = find(c, in->align_bad_sha);
	tw[1][1] = find(c, in->node_sha[in->bad]);
	/* a variant is the same commit however asked for: GOOD's is the
	 * aligned parent where GOOD is the culprit's parent, a twin
	 * twins() has already */
	for (int i = 0; i < 2; i++) {
		const char *v = i ? in->align_bad_sha : in->align_good_sha;

		if (in->align_parent_sha && in->align_sha &&
		    (!strcmp(v, in->align_parent_sha) || !strcmp(v, in->align_sha)))
			tw[i][0] = NULL;
	}
	return 1;
}

/*
 * The variance of each commit's own offset from every measured commit
 * against its nearest measured ancestor (GOOD below them all), whatever
 * side it is placed on, and from the builds of the same code the rebuild
 * check made (the aligned parent against the parent, the aligned culprit
 * against the culprit).  Where GOOD and BAD are no further apart than
 * the offsets themselves, which side a commit lands on is decided by its
 * own offset, and the commits placed firmly on a side are those near its
 * level: their differences are small, and the spread estimate_layout()
 * finds from them a fraction of the true one.  These differences do not
 * depend on the sides.  The culprit's step shows in the few that span
 * it: those the posterior puts it between (w: each node's chance to have
 * it, kb_graph_reach()) are left out, and as many more of the largest as
 * layout_var_up() leaves out (kb_offsets_fit()).
 *
 * A range of a few commits gives fewer than five such differences, and
 * then the builds of the same code alone tell: the two pairs above, BAD
 * reverted on itself against BAD's parent (the same tree), and GOOD and
 * BAD aligned against themselves where they were made (end_twins()).  No step
 * can lie between those, so none are left out.  0 with fewer than five
 * differences and fewer than two of those.  (Without them, no change
 * under 1% offsets in a range of one to four commits named a commit in
 * 6-9% of bisections: the spread taken for 0, the checks weighed the
 * builds' steps against the boots alone.)
 *
 * In *own, how many the range's own differences are.
 *
 * In *up, a bound at 90% on the spread from the same differences
 * (kb_offsets_bound()), for a second culprit: a commit beside a real one
 * measures apart by its own offset, and from two or three differences
 * the spread can come out at nothing.
 *
 * Taken while c->lay2 is 0, so that each commit's variance is its boots'
 * alone.
 */
/* How many of 'k' differences kb_offsets_fit() leaves out: one, and one
 * more for every ten, less the 'spanned' already left out. */
static size_t layout_drop(size_t k, size_t spanned)
{
	return spanned > k / 10 ? 0 : 1 + k / 10 - spanned;
}

static double layout_var_all(const struct ctx *c, const double *w, double *up, double *other,
			     size_t *own)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_graph *g = in->g;
	size_t nobs = in->nobs, k = 0, spanned = 0, i;
	size_t *of = kb_malloc((g->n + 1) * sizeof(*of)), *queue = kb_malloc((g->n + 1) * sizeof(*queue));
	unsigned char *seen = kb_malloc(g->n + 1);
	double *d2 = kb_calloc(nobs + 5, sizeof(*d2)), *e2 = kb_calloc(nobs + 5, sizeof(*e2)), l2 = 0;
	double *zs = kb_calloc(nobs + 1, sizeof(*zs)), *e = kb_calloc(nobs + 1, sizeof(*e));
	size_t *nb = kb_calloc(nobs + 1, sizeof(*nb));
	const struct kb_perf_obs *go = NULL, *tw[2][2];
	double td2[5], te2[5];   /* the two twins, BAD's revert, GOOD's and BAD's twins */
	size_t kt = 0, k0;

	for (i = 0; i < g->n; i++)
		of[i] = (size_t)-1;
	for (i = 0; i < nobs; i++) {
		const struct kb_perf_obs *o = &in->obs[i];

		commit_value(c, o, &zs[i], &e[i], &nb[i]);
		if (c->ob_n[i] && o->node >= 0)
			of[o->node] = i;
		else if (c->ob_n[i] && !strcmp(o->sha, in->good_sha))
			go = o;
	}
	for (i = 0; i < nobs; i++) {
		long nd = in->obs[i].node, found;

		if (nd < 0 || of[nd] != i)
			continue;
		found = nearest_measured(g, of, NULL, 0, (size_t)nd, queue, seen);
		/* a pair the culprit lies between, as likely as not */
		if (w[nd] - (found >= 0 ? w[in->obs[found].node] : 0) > 0.5) {
			spanned++;
			continue;
		}
		add_difference(c, &in->obs[i], found >= 0 ? &in->obs[found] : go, zs, e, nb,
			       d2, e2, &k);
	}
	k0 = k;
	if (twins(c, tw)) {
		for (i = 0; i < 2; i++) {
			add_difference(c, tw[i][0], tw[i][1], zs, e, nb, d2, e2, &k);
			add_difference(c, tw[i][0], tw[i][1], zs, e, nb, td2, te2, &kt);
		}
		if (in->revert_of && !strcmp(in->revert_of, in->node_sha[in->bad]) &&
		    in->revert_sha && *in->revert_sha)
			add_difference(c, find(c, in->revert_sha), find(c, in->parent_sha[in->bad]),
				       zs, e, nb, td2, te2, &kt);
	}
	if (end_twins(c, tw))
		for (i = 0; i < 2; i++) {
			add_difference(c, tw[i][0], tw[i][1], zs, e, nb, d2, e2, &k);
			add_difference(c, tw[i][0], tw[i][1], zs, e, nb, td2, te2, &kt);
		}
	*up = *other = 0;
	*own = k0;
	if (k >= LAY_OWN_MIN) {
		size_t drop = layout_drop(k, spanned);

		l2 = kb_offsets_fit(d2, e2, k, drop);
		*up = kb_offsets_bound(d2, e2, k, drop);
		/* the range's own differences come first, the twins after */
		if (k0 == k)
			*other = l2;
		else if (k0 >= LAY_OWN_MIN)
			*other = kb_offsets_fit(d2, e2, k0, layout_drop(k0, spanned));
	} else if (kt >= 2) {
		l2 = kb_offsets_fit(td2, te2, kt, 0);
		*up = kb_offsets_bound(td2, te2, kt, 0);
	}
	free(of);
	free(queue);
	free(seen);
	free(d2);
	free(e2);
	free(zs);
	free(e);
	free(nb);
	return l2;
}

/*
 * Each commit's own offset (its build's code layout): commits placed
 * firmly on one side differ from their
 * nearest measured ancestors on that side by more than their boots
 * explain.  The
 * chi-square test of the boot spread, on commits instead of boots; 0
 * when they do not, or fewer than three pairs tell; no less than what
 * every measured commit tells (layout_var_all()).  With it, the levels the probes
 * are compared with: each side's commits together, weighed by what each
 * tells, so that GOOD's or BAD's own offset does not set a side's level.
 */
static void estimate_layout(struct ctx *c, const unsigned char *alive, double *lo, double *hi)
{
	const struct kb_graph *g = c->in->g;
	double *post = kb_calloc(g->n, sizeof(*post)), *w = kb_calloc(g->n, sizeof(*w));
	double *e = kb_calloc(c->in->nobs + 1, sizeof(*e)), *zs = kb_calloc(c->in->nobs + 1, sizeof(*zs));
	signed char *side = kb_calloc(c->in->nobs + 1, 1);
	double all = 0, all_up = 0, all_other = 0;
	size_t i;
	int iter;

	*lo = c->mu_g;
	*hi = c->mu_b;
	for (iter = 0; iter < 2; iter++) {
		double sw[2] = { 0, 0 }, sz[2] = { 0, 0 };
		int nside[2] = { 0, 0 };

		c->lay2 = c->lay2_up = c->lay2_second = c->lay2_other = 0;
		c->lay_told = 0;
		posterior(c, alive, c->in->bad, *lo, *hi, post);
		kb_graph_reach(g, alive, post, w);
		if (!iter)
			all = c->in->align ? layout_var_all(c, w, &all_up, &all_other,
							    &c->lay_k) : 0;
		for (i = 0; i < c->in->nobs; i++) {
			const struct kb_perf_obs *o = &c->in->obs[i];
			double z, var;
			size_t nb;

			side[i] = 0;
			if (!strcmp(o->sha, c->in->good_sha))
				side[i] = -1;
			else if (o->node == (long)c->in->bad)
				side[i] = 1;
			else if (o->node >= 0 && alive[o->node] && w[o->node] <= 0.02)
				side[i] = -1;
			else if (o->node >= 0 && alive[o->node] && w[o->node] >= 0.98)
				side[i] = 1;
			if (!side[i])
				continue;
			commit_value(c, o, &z, &var, &nb);
			zs[i] = z;
			e[i] = var;
		}
		{
			/* each commit and its nearest measured ancestor on its
			 * side (GOOD below them all): their difference holds two
			 * offsets; a second culprit shows in few such
			 * differences, so their median tells (chi-square with
			 * one degree of freedom: median 0.4549) */
			size_t nn = g->n, k = 0, *of = kb_malloc((nn + 1) * sizeof(*of));
			size_t *queue = kb_malloc((nn + 1) * sizeof(*queue));
			unsigned char *seen = kb_malloc(nn + 1);
			double *dd = kb_calloc(c->in->nobs + 1, sizeof(*dd));
			double *ee = kb_calloc(c->in->nobs + 1, sizeof(*ee));
			long gi = -1;

			for (i = 0; i < nn; i++)
				of[i] = (size_t)-1;
			for (i = 0; i < c->in->nobs; i++) {
				long nd = c->in->obs[i].node;

				if (side[i] && c->ob_n[i] >= 1 && nd >= 0)
					of[nd] = i;
				if (!strcmp(c->in->obs[i].sha, c->in->good_sha) && c->ob_n[i] >= 1)
					gi = (long)i;
			}
			for (i = 0; i < c->in->nobs; i++) {
				long nd = c->in->obs[i].node, found;

				if (!side[i] || c->ob_n[i] < 1 || nd < 0)
					continue;
				found = nearest_measured(g, of, side, side[i], (size_t)nd, queue, seen);
				if (found < 0 && side[i] < 0)
					found = gi;
				if (found < 0)
					continue;
				dd[k] = zs[i] - zs[found];
				ee[k] = e[i] + e[found];
				k++;
			}
			if (k >= 5) {
				/* medians: half the pairs must differ, not a few */
				double *ratio = kb_malloc(k * sizeof(*ratio)), mr, me;

				c->lay_told = 1;

				for (size_t q = 0; q < k; q++)
					ratio[q] = dd[q] * dd[q] / ee[q];
				mr = kb_median(ratio, k) / 0.4549;
				me = kb_median(ee, k);
				c->lay2 = mr > 1 ? (mr - 1) * me / 2 : 0;
				free(ratio);
				/* without builds made to check the layout, a
				 * spread only where the differences show one:
				 * the median of a dozen of them is above its
				 * chi-square's as often as not, and a real
				 * step was then weighed against offsets that
				 * were not there (a 5% step under 3% noise on
				 * a pool of four, its pairs' +4.3% told "no
				 * more than two builds' offsets", in about
				 * one bisection of fifteen) */
				if (!c->in->align && !kb_offsets_shown(dd, ee, k))
					c->lay2 = 0;
				c->lay2_up = fmax(layout_var_up(dd, ee, k), c->lay2);
			}
			/* where the builds are checked for their layout (the
			 * rebuild check on), the sides' pairs are not alone:
			 * they can tell a spread too small, never one too
			 * large, so the larger of the two */
			c->lay2_other = fmax(c->lay2, all_other);
			c->lay2 = fmax(c->lay2, all);
			c->lay2_up = fmax(c->lay2_up, c->lay2);
			c->lay2_second = fmax(c->lay2_up, all_up);
			free(dd);
			free(ee);
			free(of);
			free(queue);
			free(seen);
		}
		for (i = 0; i < c->in->nobs; i++) {
			int s2 = side[i] > 0;
			double wt;

			if (!side[i] || !c->ob_n[i])
				continue;
			wt = 1 / (e[i] + c->lay2);
			sw[s2] += wt;
			sz[s2] += wt * zs[i];
			nside[s2]++;
		}
		/* the sides' levels, once there are commits beside the
		 * endpoints on each: with the builds' own offsets, or boots
		 * that differ (calibration stops where GOOD and BAD look far
		 * apart, and its pairs are few against the boots' spread) */
		if ((c->lay2 > 0 || c->tau2 > 0) && nside[0] >= 3 && nside[1] >= 3 &&
		    sz[1] / sw[1] > sz[0] / sw[0]) {
			*lo = sz[0] / sw[0];
			*hi = sz[1] / sw[1];
			c->sides_d = *hi - *lo;
		}
		if (!(c->lay2 > 0))
			break;
	}
	free(post);
	free(w);
	free(e);
	free(zs);
	free(side);
}

/*
 * The next boot of a pair of builds made with the code aligned, 'a' before
 * 'b' (named 'a_name' and 'b_name' in the note; 'n' pairs so far): the
 * member not measured last on this machine, or a wait where the pair
 * belongs to another.
 */
static void aligned_next(const struct ctx *c, struct kb_perf_out *out, const char *what,
			 const struct kb_perf_obs *a, const char *a_sha, const char *a_name,
			 const struct kb_perf_obs *b, const char *b_sha, const char *b_name,
			 const char *beside, size_t n)
{
	char why[96];

	if (!owns(c, 0)) {
		snprintf(why, sizeof(why), "%s are measured on another machine", what);
		wait_action(c, out, why);
	} else if (!strcmp(check_next(c, a, a_sha, b, b_sha), a_sha)) {
		run_action(out, a_sha, "aligned", c->runs, "verify: %s built with 64-byte "
			   "function alignment, pair %zu", a_name, n + 1);
	} else {
		run_action(out, b_sha, "aligned", c->runs, "verify: %s built with 64-byte "
			   "function alignment, beside %s", b_name, beside);
	}
}

/* Whether 'sha' is the variant of a merge culprit's other parent. */
static int is_other_variant(const struct ctx *c, const char *sha)
{
	size_t i;

	for (i = 0; c->in->align_others && i < c->in->nalign_others; i++)
		if (c->in->align_others[i].sha && !strcmp(c->in->align_others[i].sha, sha))
			return 1;
	return 0;
}

/* Whether the commit 'sha' is in the range: a node of the graph. */
static int in_range(const struct ctx *c, const char *sha)
{
	size_t k;

	for (k = 0; sha && k < c->in->g->n; k++)
		if (!strcmp(c->in->node_sha[k], sha))
			return 1;
	return 0;
}

/*
 * A merge culprit against its other parents in the range, all built
 * aligned ('ac' the merge so built), after its step against its first
 * parent stayed.  git names a merge the first bad commit only when every
 * parent is good; the search may have placed the one that brought the
 * change in on the good side by its build's offset (a 3% step over 8
 * commits under 1% offsets: 4 of 5 wrong culprits were BAD, a merge,
 * beside such a parent), and the pairs against that parent, whose offset
 * the search picked, would pass for it.  Builds made for the check have
 * offsets of their own.  ACTION with 'out' set while a pair needs more;
 * else DECIDED, with f->other set where the step did not stand against
 * one of them.
 */
static int other_parents(struct ctx *c, struct found *f, const struct kb_perf_obs *ac,
			 struct kb_perf_out *out)
{
	const struct kb_perf_in *in = c->in;
	size_t i;

	for (i = 0; in->align_others && i < in->nalign_others; i++) {
		const struct kb_perf_variant *v = &in->align_others[i];
		const struct kb_perf_obs *ap;
		struct pairs ps;
		int r;

		if (!v->sha || !*v->sha || !in_range(c, v->of))
			continue;
		ap = find(c, v->sha);
		pair_up(c, ap, ac, 0, -1, &ps);
		/* the parent check of that parent, with builds of its own:
		 * beyond their offsets as a culprit's step against its
		 * parent (one that only the offsets tell apart is no more
		 * shown against it than one that is not there) */
		r = check_upto(&ps, fmax(f->step, 0), 2 * c->lay2, 1.645,
			       verify_cap(c, fmax(f->step, 0), ps.n), 0);
		if (r == CHECK_MORE && !budget_left(c))
			r = CHECK_FAIL;
		if (r == CHECK_LAYOUT)
			r = CHECK_FAIL;
		if (r == CHECK_MORE) {
			aligned_next(c, out, "the aligned builds", ap, v->sha,
				     "the merge's other parent", ac, in->align_sha,
				     "the likely culprit", "its other parent", ps.n);
			return ACTION;
		}
		if (r == CHECK_FAIL) {
			f->other = v->of;
			f->other_v = v->sha;
			f->ostep = ps.mean;
			f->nopairs = ps.n;
			return DECIDED;
		}
	}
	return DECIDED;
}

/*
 * The rebuild check of the culprit at 'node', whose parent check passed:
 * its parent and it built with 64-byte function alignment, in pairs of
 * boots measured together, on the machine of the parent check.  The step
 * must stay (check() against the step measured without): one that
 * vanishes is one of code layout.  ACTION with 'out' set while it needs
 * more, else DECIDED with f->align_check set.
 */
static int aligned(struct ctx *c, struct found *f, long node, struct kb_perf_out *out)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *ap, *ac;
	struct pairs ps;
	int r, layout;

	f->align_check = "n/a";
	if (!in->align || !in->align_of || strcmp(in->align_of, in->node_sha[node]) ||
	    !in->align_parent_sha || !*in->align_parent_sha || !in->align_sha ||
	    !*in->align_sha || !f->parent_check ||
	    (strcmp(f->parent_check, "pass") && strcmp(f->parent_check, "layout")))
		return DECIDED;
	ap = find(c, in->align_parent_sha);
	ac = find(c, in->align_sha);
	pair_up(c, ap, ac, 0, -1, &ps);
	f->astep = ps.mean;
	f->astep_se = ps.se;
	f->napairs = ps.n;
	/* a step the culprit's own builds could not tell from their offsets:
	 * the builds made to check it, whose offsets are not those the
	 * search picked the culprit by, tell, all of them together
	 * (fresh_builds_stand(): BAD against its revert as well as these);
	 * the aligned pair alone, two builds, is to show the step, not to
	 * stand out of the offsets by itself */
	layout = !strcmp(f->parent_check, "layout");
	r = check_upto(&ps, fmax(f->step, 0), 2 * c->lay2, 0, verify_cap(c, fmax(f->step, 0), ps.n), 0);
	if (r == CHECK_MORE && !budget_left(c))
		r = CHECK_FAIL;
	if (r != CHECK_MORE) {
		f->align_check = r == CHECK_PASS ? "pass" : "fail";
		/* a step that did not show in the aligned builds vanished
		 * only when it is clearly less than without, both steps'
		 * pairs and four builds' offsets counted.  The offsets'
		 * spread is the one the other builds tell: the culprit's
		 * builds of the same code hold what it may have vanished by,
		 * and would explain it away (a real 5% step
		 * under 1% offsets and 2% boots: its aligned step 1.2-2% in
		 * 16-40 pairs, 3.8-8.3% without, was told "one of code
		 * layout" in 2 bisections of 100 on one machine, 4 on a pool
		 * of four) */
		f->align_unclear = r == CHECK_FAIL &&
			!(f->step - ps.mean >= Z_VERIFY * sqrt(ps.se * ps.se + f->step_se * f->step_se +
								4 * c->lay2_other));
		if (layout && r == CHECK_PASS)
			f->parent_check = "pass";
		if (r == CHECK_PASS) {
			if (other_parents(c, f, ac, out) == ACTION)
				return ACTION;
			if (f->other)
				f->align_check = "fail";
		}
		return DECIDED;
	}
	aligned_next(c, out, "the aligned builds", ap, in->align_parent_sha, "the parent",
		     ac, in->align_sha, "the likely culprit", "its parent", ps.n);
	return ACTION;
}

/* Whether node 'node' holds the culprit already found (a second one is
 * looked for) and its parent 'po' does not: a merge that brings it in. */
static int holds_known_apart(const struct ctx *c, long node, const struct kb_perf_obs *po)
{
	if (c->known < 0 || !c->known_in || node < 0 || !c->known_in[node])
		return 0;
	return !(po && po->node >= 0 && c->known_in[po->node]);
}

/*
 * The step of the culprit in the builds made to check it, which the search
 * did not pick it by: BAD against BAD with it reverted, and the aligned
 * parent against the aligned culprit, each a build whose code layout is
 * its own.  Their mean, and in *var its variance with those builds'
 * offsets of variance 'l2' each; 0 and infinite when neither was measured.
 */
static double fresh_step_with(const struct ctx *c, const struct found *f, double l2, double *var)
{
	double m = 0, v = 0;
	int k = 0;

	if (f->nrpairs) {
		m += f->rstep;
		v += f->rstep_se * f->rstep_se + 2 * l2;
		k++;
	}
	if (f->napairs) {
		m += f->astep;
		v += f->astep_se * f->astep_se + 2 * l2;
		k++;
	}
	if (var)
		*var = k ? v / (k * k) : INFINITY;
	return k ? m / k : 0;
}

/* The same, with the offsets' spread as estimated. */
static double fresh_step(const struct ctx *c, const struct found *f, double *var)
{
	return fresh_step_with(c, f, c->lay2, var);
}

/*
 * Where commits' builds have offsets of their own (code layout), a commit
 * whose offset happens to be large can look like the step: the search
 * finds it, and its step against its parent stands out of what two
 * builds' offsets usually make because it was picked for being large.
 * The builds made to check it were not picked: their step must stand out
 * of their offsets (1.645 standard deviations).  True when it does, or
 * when there are no offsets, or no aligned builds (without them, the
 * offsets the model finds may be those of a second step's commits).
 */
static int fresh_builds_stand(const struct ctx *c, const struct found *f)
{
	double v, m;

	if (!(c->lay2 > 0) || !f->napairs)
		return 1;
	m = fresh_step(c, f, &v);
	return m / sqrt(v) >= 1.645;
}

/*
 * Whether the same code built two ways measures apart: the aligned
 * culprit against the culprit, the aligned parent against the parent,
 * GOOD and BAD aligned against themselves where they were made, their
 * differences against what their boots give them (chi-square at
 * 90%).  A benchmark that moves with the code's layout does; one that
 * does not, does only by chance, whatever spread of offsets the model
 * finds from commits that the search placed by their values.
 *
 * It switches on the stricter rule below, so it leans to on: with the
 * two or three twins of a short range, at 99% it missed offsets of 1%
 * about half the time, and a one-commit range without a change named
 * BAD in 8 of 300 bisections (2 at 90%).  Switched on wrongly, one time
 * in ten where the layout does not move the benchmark, it costs only
 * steps below --min-effect: without offsets, a 2% step over four commits
 * was exact in 198 of 200 bisections and is in 194 (5 "no regression"),
 * a 1% step over 200 commits in 98 of 100 and is in 97.
 */
static int twins_apart(const struct ctx *c)
{
	const struct kb_perf_obs *tw[4][2];
	double q = 0;
	int df = 0, have = twins(c, tw);

	if (!have)
		tw[0][0] = tw[0][1] = tw[1][0] = tw[1][1] = NULL;
	if (!end_twins(c, tw + 2)) {
		if (!have)
			return 0;
		tw[2][0] = tw[2][1] = tw[3][0] = tw[3][1] = NULL;
	}
	for (int i = 0; i < 4; i++) {
		double za, va, zb, vb;
		size_t na, nb;

		if (!tw[i][0] || !tw[i][1])
			continue;
		commit_value(c, tw[i][0], &za, &va, &na);
		commit_value(c, tw[i][1], &zb, &vb, &nb);
		/* their boots' variance, without the offsets' */
		va -= c->lay2;
		vb -= c->lay2;
		if (!na || !nb || !(va + vb > 0))
			continue;
		q += (za - zb) * (za - zb) / (va + vb);
		df++;
	}
	return df && q > kb_chi2_quantile(0.90, df);
}

/*
 * The test above lets one commit in twenty through on its offsets alone,
 * and more where the offsets' spread comes out low.  It does come out low
 * where there is no change: the commits the search places on a side are
 * those whose offsets fell on that side, and their differences are those
 * of a spread cut in two.  Where the same code built two ways measures
 * apart (twins_apart()), so that the benchmark is seen to move with the
 * layout, a step that the builds made to check the culprit put below
 * --min-effect, at 99.5% with the offsets' spread at its 90% bound, is
 * not told from the offsets: such a commit is not named.  True when its
 * step can be of interest, or when the layout is not seen to move the
 * benchmark, or there is no change of interest; else that step and its
 * bound in *step and *high.  (No change under 1%
 * offsets: 7 wrong culprits in 300 bisections without this, 1 with it;
 * steps of 2-5% under offsets of 0.3-1% as exact as before within a
 * bisection or two in 100.)
 */
static int fresh_step_of_interest(const struct ctx *c, const struct found *f, double *step,
				  double *high)
{
	double v;

	if (!(c->lay2 > 0) || !f->napairs || !(c->min_eff > 0) || !twins_apart(c))
		return 1;
	*step = fresh_step_with(c, f, c->lay2_up, &v);
	*high = *step + Z_INTEREST * sqrt(v);
	return *high >= c->min_eff;
}

/* Whether the change from GOOD to BAD is the change of interest
 * (--min-effect) or more: below it, the change may be one of code
 * layout.  As calibration measured it, or as the levels of the commits
 * placed on each side put it, where they do and put it higher: GOOD and
 * BAD are two builds, and their offsets are in their change whole, while
 * the sides' levels are each the mean of several builds' (a 5% step
 * under 1% offsets measures below 5% from GOOD to BAD half the time, and
 * a likely culprit next to it whose revert does not recover was then
 * the end: on a pool of four with 2% boots, 801 of 900 exact with
 * calibration's change alone, 807 with the sides'; without a change,
 * the same bisections, trial for trial). */
static int change_of_interest(const struct ctx *c)
{
	return !(c->min_eff > 0 && fmax(c->mu_b - c->mu_g, c->sides_d) < c->min_eff);
}

/*
 * The probability from which the favourite is verified once no probe
 * narrows the range down further, where the rest is split among others.
 * A commit and its neighbour can stay split near half and half, and the
 * likelier of them is checked from 40% on, its checks turning it down
 * where it is not the one:
 * - on one machine, where each build has an offset of its own that more
 *   boots cannot take away;
 * - on one machine without offsets, where boots differ more than runs
 *   do: a commit can measure between the levels at its cap, the levels
 *   themselves told by a few boots of GOOD and BAD and of the commits
 *   placed beside them (a 5% step in 4% boots and 2% runs: 6 of 100
 *   ended there with 44-50% on the likelier, and 1 now; 89 exact, 94
 *   now, none wrong);
 * - on a pool, where builds have none: a commit that measures at neither
 *   level within its cap, its few boots each on a machine of its own (a
 *   3% step in 3% boot spread: 4 of 100 ended there);
 * - on a pool under offsets, where the change from GOOD to BAD is of
 *   interest (change_of_interest()): a likely culprit turned down there
 *   for its revert is left, and the search goes on (search_on()).  Not
 *   where the change is below it: a likely culprit turned down there
 *   costs the "no regression" that GOOD and BAD within the offsets still
 *   give (no change under 1% offsets: 4 in 100 fewer, and a wrong
 *   culprit more).
 * Else from 50%.
 */
static double verify_from(const struct ctx *c)
{
	int offsets = c->in->align && c->lay2 > 0;

	if (pooled(c))
		return !offsets || change_of_interest(c) ? 0.4 : 0.5;
	return 0.4;
}

static int bisect_range(struct ctx *c, const unsigned char *alive, size_t bad,
			double lo, double hi, int do_revert, struct found *f,
			struct kb_perf_out *out);

/* The likely culprits left for a revert that did not recover, besides
 * the one being verified: no more than two. */
#define MAX_LEFT 2

/*
 * Whether a likely culprit whose revert does not recover is left for the
 * search to go on without it: a change of interest from GOOD to BAD (one
 * below it may be one of code layout, and its endings tell that), no more
 * than MAX_LEFT left before, and runs to go on with.  A commit that
 * measures apart from its parent by its build's own offset, or next to a
 * commit that does, can hold the probability where the change is not:
 * its revert on BAD, a build of its own, then shows no step, and the
 * commit is not the culprit.
 */
static int search_on(const struct ctx *c)
{
	return c->nruled < MAX_LEFT && c->in->nreverts <= MAX_LEFT && budget_left(c) &&
	       (change_of_interest(c) || (c->lay_told && !(c->lay2 > 0)));
}

/* The revert check: BAD with a commit reverted ('ro') against BAD, in
 * pairs ('rb'), BAD worse by 'expect' or not at all, the offsets of two
 * builds besides.  CHECK_PASS, CHECK_FAIL or CHECK_MORE. */
static int revert_check(const struct ctx *c, const struct kb_perf_obs *ro, double expect,
			struct pairs *rb)
{
	pair_up(c, ro, find(c, c->in->node_sha[c->in->bad]), 1, -1, rb);
	return check_upto(rb, expect, 2 * c->lay2, 0, verify_cap(c, expect, rb->n), 0);
}

/* Whether the revert of the commit 'sha' on BAD was made and measured, and
 * does not recover the change (as the verification decides, the whole
 * change expected back). */
static int revert_fails(const struct ctx *c, const char *sha)
{
	const char *rsha = revert_for(c, sha);
	struct pairs rb;

	return rsha && *rsha && revert_check(c, find(c, rsha), c->mu_b - c->mu_g, &rb) ==
				       CHECK_FAIL && rb.n;
}

/* Whether the commit 'sha' was a likely culprit once, and is left: the
 * search goes on without it (search_on()), its revert made and measured
 * not to recover the change, and the aligned builds of another made
 * since its own (they are not made again: the search would go back and
 * forth between the two). */
static int left_before(const struct ctx *c, const char *sha)
{
	const struct kb_perf_in *in = c->in;
	size_t i;
	int made = 0;

	if (!in->align_of || !strcmp(in->align_of, sha) || !search_on(c))
		return 0;
	for (i = 0; in->aligned_made && i < in->naligned_made; i++)
		made |= !strcmp(in->aligned_made[i], sha);
	return made && revert_fails(c, sha);
}

/*
 * The likely culprits of earlier steps whose reverts did not recover, left
 * out of the search from the start (as many as search_on() allows, the
 * earliest first): once the probability moves off such a commit it would
 * otherwise hold it again, measured apart from its parent as it is, and
 * the search would stop on it or between it and the culprit.
 */
static void rule_out_reverted(struct ctx *c)
{
	const struct kb_perf_in *in = c->in;
	size_t i;

	for (i = 0; in->reverts && i < in->nreverts; i++) {
		const struct kb_perf_obs *o = find(c, in->reverts[i].of);

		/* a likely culprit was measured, and is a node */
		if (!o || o->node < 0 || o->node == (long)in->bad || c->ruled_out[o->node] ||
		    !search_on(c) || !revert_fails(c, o->sha))
			continue;
		c->ruled_out[o->node] = 1;
		c->nruled++;
	}
}

/*
 * The search again without the likely culprit at 'node', whose revert did
 * not recover (its finding in 'f').  What it finds stands where it is
 * confirmed, its parent and revert checks passed; else the finding of
 * 'node' does (the commit left in again), and DECIDED.
 */
static int without(struct ctx *c, const unsigned char *alive, size_t bad, double lo,
		   double hi, long node, struct found *f, struct kb_perf_out *out)
{
	struct found was = *f;
	double best_prob = out->best_prob, candidates = out->candidates;
	long best_node = out->best_node;
	int ret;

	c->ruled_out[node] = 1;
	c->nruled++;
	ret = bisect_range(c, alive, bad, lo, hi, 1, f, out);
	if (ret == ACTION)
		return ret;
	if (f->node >= 0 && f->parent_check && !strcmp(f->parent_check, "pass") &&
	    f->revert_check && !strcmp(f->revert_check, "pass"))
		return ret;
	c->ruled_out[node] = 0;
	c->nruled--;
	*f = was;
	out->best_prob = best_prob;
	out->best_node = best_node;
	out->candidates = candidates;
	return DECIDED;
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
	size_t k, nalive = 0;
	long best_node = -1, pick = -1;
	double pick_split = 0;
	int ret = DECIDED, m = in->machine < 0 ? 0 : in->machine;
	const char *due;

	memset(f, 0, sizeof(*f));
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
	if (best_node >= 0 && (best >= in->p.confidence || nalive == 1))
		goto verify;
	if (!budget_left(c)) {
		snprintf(f->why, sizeof(f->why), "the run budget (%d) is spent", in->p.max_runs);
		goto out;
	}
	/* the machine's speed moves: the endpoints again before the drift
	 * since they were last measured blurs what a probe tells; or a
	 * probe's latest boot measured beyond both levels, as no commit of
	 * the range should: the speed moved since the endpoints were seen */
	if ((in->machine >= 0 || !pooled(c)) && hi > lo &&
	    (drift_ahead(c, m) > (hi - lo) * (hi - lo) / 16 || beyond_levels(c, m, lo, hi)) &&
	    (due = endpoint_due(c, m, -1))) {
		run_action(out, due, !strcmp(due, in->good_sha) ? "good" : "bad", c->runs,
			   "measure %s again: the machine's speed moves, and probes are "
			   "compared with the endpoints measured near them",
			   !strcmp(due, in->good_sha) ? "GOOD" : "BAD");
		ret = ACTION;
		goto out;
	}
	if (pooled(c)) {
		kb_graph_reach(g, alive, post, w);
		if ((ret = pool_probe(c, alive, bad, lo, hi, w, out)) == ACTION)
			goto out;
		ret = DECIDED;
		/* as on one machine: the clear favourite stands or falls by its
		 * checks */
		if (do_revert && best >= verify_from(c) && best_node >= 0)
			goto verify;
		snprintf(f->why, sizeof(f->why), "no commit left whose test could narrow it "
			 "down (the most likely, %.12s, has %.0f%%)",
			 best_node >= 0 ? in->node_sha[best_node] : "?", 100 * best);
		goto out;
	}
	if (cur) {
		probe_state(c, cur, lo, hi, &cur_ps);
		if (fabs(cur_ps.llr) < LEAVE && (!cur_ps.capped ||
		    (cur_ps.n < (size_t)(2 * max_probe_boots(c)) &&
		     cur_ps.n > (size_t)max_probe_boots(c)))) {
			run_action(out, cur->sha, "probe", c->runs,
				   "probe, %zu boot%s so far, log-odds %.1f", cur_ps.n,
				   cur_ps.n == 1 ? "" : "s", cur_ps.llr);
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
			struct probe_state ps;
			double split;

			if (!alive[k] || k == bad || !o || (in->marks && in->marks[k] == 's'))
				continue;
			probe_state(c, o, lo, hi, &ps);
			if (ps.n >= (size_t)(2 * max_probe_boots(c)))
				continue;
			split = fmin(w[k], 1 - w[k]);
			if (split > pick_split) {
				pick = (long)k;
				pick_split = split;
			}
		}
	}
	if (pick >= 0 && pick_split >= MIN_SPLIT) {
		run_action(out, in->node_sha[pick], "probe", c->runs,
			   "probe splitting %.0f%%/%.0f%% of the probability",
			   100 * w[pick], 100 * (1 - w[pick]));
		ret = ACTION;
		goto out;
	}
	/* no probe narrows it down further, and one commit is the clear
	 * favourite: measured against its parent, together, it stands or
	 * falls (its probability stays what the probes gave it) */
	if (do_revert && best >= verify_from(c) && best_node >= 0)
		goto verify;
	snprintf(f->why, sizeof(f->why), "no commit left whose test could narrow it "
		 "down (the most likely, %.12s, has %.0f%%)",
		 best_node >= 0 ? in->node_sha[best_node] : "?", 100 * best);
	goto out;
verify:
	{
		const struct kb_perf_obs *po, *co, *bo = find(c, in->node_sha[bad]);
		const struct kb_perf_obs *go = find(c, in->good_sha);
		const char *psha = in->parent_sha[best_node], *csha = in->node_sha[best_node];
		struct pairs pc, rb;
		int parent_open = 0, r, delta_vague = 0;

		f->node = best_node;
		f->prob = best;
		po = find(c, psha);
		co = find(c, csha);
		if (skipped(c, psha) || skipped(c, csha)) {
			/* the benchmark failed there since: no direct comparison */
			f->parent_check = "fail";
			f->revert_check = "n/a";
			goto out;
		}
		/* the aligned builds, to be built while the pairs are measured */
		f->align_check = "n/a";
		if (do_revert && in->align && (!in->align_of || strcmp(in->align_of, csha)) &&
		    !left_before(c, csha)) {
			out->kind = KB_PERF_ALIGN;
			snprintf(out->sha, sizeof(out->sha), "%s", csha);
			snprintf(out->note, sizeof(out->note), "verify: build the likely culprit "
				 "and its parent with 64-byte function alignment");
			ret = ACTION;
			goto out;
		}
		/* parent and culprit, each boot beside one of the other */
		pair_up(c, po, co, 0, -1, &pc);
		if (holds_known_apart(c, best_node, po)) {
			/* a merge that brings the culprit already found in
			 * beside a parent without it: its step is not this
			 * commit's (named a second culprit for it, a merge
			 * measured against its first parent) */
			f->known_off = c->known_step;
			f->known_off_se = c->known_se;
		}
		if (pc.n) {
			pc.mean -= f->known_off;
			pc.se = sqrt(pc.se * pc.se + f->known_off_se * f->known_off_se);
		}
		f->step = pc.mean;
		f->step_se = pc.se;
		f->npairs = pc.n;
		r = check_upto(&pc, hi - lo, 2 * (do_revert ? c->lay2 : c->lay2_second),
			       do_revert ? 1.645 : second_z(nalive),
			       verify_cap(c, hi - lo, pc.n), do_revert && in->align);
		if (r == CHECK_MORE) {
			if (!budget_left(c)) {
				r = CHECK_FAIL;
			} else if (!owns(c, 0)) {
				/* another machine measures the pair: on to the revert */
				parent_open = 1;
			} else {
				long first = -1;
				struct pairs mine;

				/* the endpoints measured near the pairs, first */
				pair_up(c, po, co, -1, m, &mine);
				first = mine.first_t;
				if ((due = endpoint_due(c, m, first)) && first < 0) {
					run_action(out, due, !strcmp(due, in->good_sha) ? "good" : "bad",
						   c->runs, "measure %s again before the verification, "
						   "to see drift", !strcmp(due, in->good_sha) ?
						   "GOOD" : "BAD");
				} else if (!strcmp(check_next(c, po, psha, co, csha), psha)) {
					run_action(out, psha, "parent", c->runs,
						   "verify: the parent of the likely culprit, pair %zu",
						   mine.n + 1);
				} else {
					run_action(out, csha, "culprit", c->runs,
						   "verify: the likely culprit, %.0f%%, beside its parent",
						   100 * best);
				}
				ret = ACTION;
				goto out;
			}
		}
		if (parent_open)
			goto revert;
		/* a step the offsets could explain: the aligned builds tell,
		 * when there are to be any (the culprit's, not a second one's) */
		if (r == CHECK_LAYOUT && !(do_revert && in->align))
			r = CHECK_FAIL;
		f->parent_check = r == CHECK_PASS ? "pass" : r == CHECK_LAYOUT ? "layout" : "fail";
		{
			/* the share of the change from GOOD to BAD: the step
			 * between the two commits' values (all their boots, the
			 * drift taken off) or that of their pairs, whichever
			 * tells it better, over the change; both steps hold the
			 * offsets of two builds besides */
			double delta = c->mu_b - c->mu_g, sh, se, zp, vp, zc, vc, st, l2 = c->lay2;
			size_t np, nc;

			commit_value(c, po, &zp, &vp, &np);
			commit_value(c, co, &zc, &vc, &nc);
			zc -= f->known_off;
			st = np && nc ? zc - zp : f->step;
			vp = np && nc ? vp + vc - 2 * l2 : INFINITY;
			if (f->npairs >= 2 && f->step_se * f->step_se < vp) {
				/* the pairs alone tell it better */
				st = f->step;
				vp = f->step_se * f->step_se;
			}
			/* neither measured, nor in pairs: no share to tell */
			sh = isfinite(vp) ? st / delta : NAN;
			se = sqrt(vp + 2 * l2 + sh * sh * (c->delta_se * c->delta_se + 2 * l2)) / delta;
			f->share = sh;
			f->share_lo = sh - 1.645 * se;
			f->share_hi = sh + 1.645 * se;
			/* the same without the offsets: whether to look for the
			 * rest of the change (a search that finds only offsets
			 * names nobody) */
			se = sqrt(vp + sh * sh * c->delta_se * c->delta_se) / delta;
			f->share_hi0 = sh + 1.645 * se;
			/* the change's own uncertainty, more than the step's */
			delta_vague = sh * sh * c->delta_se * c->delta_se > vp;
		}
		if (r == CHECK_FAIL)
			goto out;
		/* the step explains less than the whole, unless the share is
		 * still too vague to tell: more pairs, to tell */
		if (do_revert && f->share < 0.9 && f->share_hi0 >= 0.75 && pc.n < SHARE_PAIRS &&
		    budget_left(c) && owns(c, 0)) {
			struct pairs mine;

			pair_up(c, po, co, -1, m, &mine);
			if (!strcmp(check_next(c, po, psha, co, csha), psha))
				run_action(out, psha, "parent", c->runs, "verify: the parent of the "
					   "likely culprit, pair %zu, for the share of the change it "
					   "explains (%.0f%%)", mine.n + 1, 100 * f->share);
			else
				run_action(out, csha, "culprit", c->runs, "verify: the likely culprit, "
					   "for the share of the change it explains (%.0f%%)",
					   100 * f->share);
			ret = ACTION;
			goto out;
		}
		/* ... and GOOD and BAD, in pairs, when it is the change from
		 * one to the other that is known too vaguely to tell */
		if (do_revert && f->share < 0.9 && f->share_hi0 >= 0.75 && delta_vague &&
		    budget_left(c) && owns(c, 0)) {
			struct pairs gb;

			pair_up(c, go, bo, -1, -1, &gb);
			if (gb.n < SHARE_PAIRS) {
				const char *next = check_next(c, go, in->good_sha, bo,
							      in->node_sha[bad]);
				int g = !strcmp(next, in->good_sha);

				run_action(out, next, g ? "good" : "bad", c->runs, "verify: %s, "
					   "for the change the likely culprit's share is of "
					   "(%.0f%%)", g ? "GOOD" : "BAD", 100 * f->share);
				ret = ACTION;
				goto out;
			}
		}
revert:
		f->revert_check = "n/a";
		if (do_revert) {
			const struct kb_perf_obs *ro;
			const char *rsha = revert_for(c, csha);
			double expect;

			if (!rsha) {
				out->kind = KB_PERF_REVERT;
				snprintf(out->sha, sizeof(out->sha), "%s", csha);
				snprintf(out->note, sizeof(out->note),
					 "verify: revert the likely culprit on top of BAD");
				ret = ACTION;
				goto out;
			}
			if (*rsha) {
				ro = find(c, rsha);
				expect = (parent_open ? 1 : fmax(f->share, 0.25)) * (c->mu_b - c->mu_g);
				r = revert_check(c, ro, expect, &rb);
				if (r == CHECK_MORE && !budget_left(c))
					r = CHECK_FAIL;
				if (r == CHECK_MORE) {
					if (!owns(c, 1)) {
						/* the pair's machine measures the
						 * aligned builds meanwhile */
						if (owns(c, 0) && !parent_open &&
						    aligned(c, f, best_node, out) == ACTION) {
							ret = ACTION;
							goto out;
						}
						wait_action(c, out, "the revert check is "
							    "measured on another machine");
					} else if (!strcmp(check_next(c, ro, rsha, bo,
								      in->node_sha[bad]), rsha)) {
						run_action(out, rsha, "revert", c->runs,
							   "verify: BAD with the culprit reverted, "
							   "pair %zu", rb.n + 1);
					} else {
						run_action(out, in->node_sha[bad], "bad", c->runs,
							   "verify: BAD, beside its revert");
					}
					ret = ACTION;
					goto out;
				}
				/* how much worse BAD is than the revert */
				f->revert_check = r == CHECK_PASS ? "pass" : "fail";
				f->rstep = rb.mean;
				f->rstep_se = rb.se;
				f->nrpairs = rb.n;
				/* BAD itself is no commit to go on without: its
				 * revert is the check of a range of one */
				if (r == CHECK_FAIL && !parent_open && best_node != (long)bad &&
				    search_on(c)) {
					ret = without(c, alive, bad, lo, hi, best_node, f, out);
					if (ret == ACTION || f->node != best_node)
						goto out;
				}
			}
		}
		/* the aligned builds after a revert that does not recover
		 * too, where the change from GOOD to BAD is below the
		 * change of interest: then that change may be one of code
		 * layout, and builds of the same code are what tell the
		 * offsets' spread (finish_unconfirmed()).  A range of a few
		 * commits has no other: a revert that failed there left
		 * the spread untold, and the ending inconclusive (no change
		 * under 1% offsets, 1-16 commits: 217-247 of 300 said no
		 * regression without them, 246-268 with them) */
		if (!parent_open && (strcmp(f->revert_check, "fail") || !change_of_interest(c)) &&
		    aligned(c, f, best_node, out) == ACTION) {
			ret = ACTION;
			goto out;
		}
		if (parent_open) {
			wait_action(c, out, "the culprit's parent check is measured on "
				    "another machine");
			ret = ACTION;
		}
	}
out:
	free(post);
	free(w);
	return ret;
}

/* The value on the scale levels are compared on. */
static double yval(const struct ctx *c, double v)
{
	return c->use_log ? log(v) : v;
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
		} else if (is_revert(c, o->sha)) {
			role = "revert";
		} else if ((c->in->align_sha && !strcmp(o->sha, c->in->align_sha)) ||
			   (c->in->align_parent_sha && !strcmp(o->sha, c->in->align_parent_sha)) ||
			   is_other_variant(c, o->sha) ||
			   (c->in->align_good_sha && !strcmp(o->sha, c->in->align_good_sha)) ||
			   (c->in->align_bad_sha && !strcmp(o->sha, c->in->align_bad_sha))) {
			/* the rebuild check's variants, GOOD's and BAD's */
			role = "aligned";
		} else if (o->node < 0) {
			role = "parent";
		}
		if (!strcmp(role, "probe") || !strcmp(role, "revert") || !strcmp(role, "parent") ||
		    !strcmp(role, "aligned")) {
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

/* A change in z units as a relative change of the metric, in percent. */
static double pct_of(const struct ctx *c, double dz, double base)
{
	double d = c->in->p.higher_is_better ? -dz : dz;

	if (c->use_log)
		return 100 * (exp(d) - 1);
	return base ? 100 * d / fabs(base) : 0;
}

/* A number for JSON: null where there is none (a share of a change whose
 * step was never measured), which JSON cannot hold as a real. */
static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* A step measured in 'n' pairs, mean and standard error in z units, as
 * the report gives it: in percent of the level of 'base', with its 90%
 * interval. */
static json_t *pairs_json(const struct ctx *c, double mean, double se, size_t n,
			  const char *base)
{
	double bm = raw_mean(c, base);
	double lo = pct_of(c, mean - 1.645 * se, bm), hi = pct_of(c, mean + 1.645 * se, bm);

	return json_pack("{s:i, s:f, s:[f, f]}", "pairs", (int)n, "delta_pct", pct_of(c, mean, bm),
			 "delta_ci_pct", fmin(lo, hi), fmax(lo, hi));
}

static json_t *culprit_json(struct ctx *c, const struct found *f)
{
	const struct kb_perf_in *in = c->in;
	const char *sha = in->node_sha[f->node], *psha = in->parent_sha[f->node];
	double pm = raw_mean(c, psha), lo, hi, d;
	json_t *j;

	d = pct_of(c, f->step, pm);
	lo = pct_of(c, f->step - 1.645 * f->step_se, pm);
	hi = pct_of(c, f->step + 1.645 * f->step_se, pm);
	if (lo > hi) {
		double t = lo;

		lo = hi;
		hi = t;
	}
	/* the culprit accounts for the change from GOOD to BAD when the upper
	 * end of its share's interval reaches 3/4 (as the search for a second
	 * culprit takes it) */
	j = json_pack("{s:s, s:s, s:f, s:o, s:[o, o], s:i, s:o, s:[o, o], "
		      "s:{s:s, s:s, s:s, s:s, s:s}}",
		      "commit", sha, "parent", psha, "probability", f->prob,
		      "delta_pct", num(d), "delta_ci_pct", num(lo), num(hi), "pairs", (int)f->npairs,
		      "explained", num(f->share), "explained_ci", num(f->share_lo),
		      num(f->share_hi),
		      "checks", "parent_vs_culprit", f->parent_check,
		      "revert", f->revert_check, "rebuild", f->align_check ? f->align_check : "n/a",
		      "warm_up", c->warm_detected ? "warning" : "pass",
		      "explained", f->share_hi >= 0.75 ? "pass" : "warning");
	if (f->napairs)
		/* the step of the aligned builds */
		json_object_set_new(j, "aligned", pairs_json(c, f->astep, f->astep_se, f->napairs,
							     in->align_parent_sha));
	if (f->napairs && in->align_others) {
		/* a merge's step against its other parents, all built aligned */
		json_t *others = json_array();

		for (size_t i = 0; i < in->nalign_others; i++) {
			const struct kb_perf_variant *v = &in->align_others[i];
			struct pairs ps;
			json_t *o;

			if (!v->sha || !*v->sha)
				continue;
			pair_up(c, find(c, v->sha), find(c, in->align_sha), 0, -1, &ps);
			if (!ps.n)
				continue;
			o = pairs_json(c, ps.mean, ps.se, ps.n, v->sha);
			json_object_set_new(o, "parent", json_string(v->of));
			json_array_append_new(others, o);
		}
		if (json_array_size(others))
			json_object_set_new(j, "aligned_others", others);
		else
			json_decref(others);
	}
	if (pooled(c)) {
		/* the step on each machine that measured the pair */
		json_t *ms = json_array();
		const struct kb_perf_obs *po = find(c, psha), *co = find(c, sha);

		for (int m = 0; m < c->nmach; m++) {
			struct pairs ps;

			pair_up(c, po, co, -1, m, &ps);
			if (!ps.n)
				continue;
			ps.mean -= f->known_off;
			ps.se = sqrt(ps.se * ps.se + f->known_off_se * f->known_off_se);
			json_array_append_new(ms, json_pack("{s:i, s:i, s:f, s:f}", "machine", m,
				"pairs", (int)ps.n, "delta_pct", pct_of(c, ps.mean, pm),
				"se_pct", fabs(pct_of(c, ps.se, pm))));
			if (ps.n >= 2 && ps.mean + 2 * ps.se < 0.25 * f->step)
				warn(c, "machine-step", "machine %d measured no step from %.12s to "
				     "%.12s (%+.1f%%, %zu pairs), where the others did", m, psha, sha,
				     pct_of(c, ps.mean, pm), ps.n);
		}
		json_object_set_new(j, "machines", ms);
	}
	return j;
}

static void finish(struct ctx *c, struct kb_perf_out *out, const char *verdict,
		   json_t *culprits, const char *why)
{
	const struct kb_perf_in *in = c->in;
	json_t *v, *table = json_array();
	double gm = raw_mean(c, in->good_sha);
	size_t i, nskip = 0;
	char rwhy[200];
	int runs;

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
	runs = runs_for(c, rwhy, sizeof(rwhy));
	v = json_pack("{s:s, s:o, s:O, s:o, s:o, s:i, s:i, s:f, s:f, s:i, s:s}",
		      "verdict", verdict, "culprits", culprits, "warnings", c->warnings,
		      "table", table, "steps", steps_json(c), "runs_total", (int)c->total,
		      "warmup_used", c->warm, "noise_pct",
		      c->use_log ? 100 * (exp(c->sigma) - 1) : c->sigma,
		      "boot_spread_pct", c->use_log ? 100 * (exp(sqrt(c->tau2)) - 1) :
		      sqrt(c->tau2), "runs_per_boot", runs, "runs_per_boot_why", rwhy);
	json_object_set_new(v, "runs_per_boot_base", json_integer(in->p.runs_per_boot));
	{
		/* what the run-to-run noise rests on: the boots that kept two
		 * steady runs or more */
		size_t k, nb = 0;

		for (k = 0; k < c->nboot; k++)
			nb += c->boot[k].n >= 2 && c->boot[k].dup < 0;
		json_object_set_new(v, "noise_boots", json_integer((json_int_t)nb));
	}
	if (why)
		json_object_set_new(v, "reason", json_string(why));
	out->kind = KB_PERF_DONE;
	out->verdict = v;
	snprintf(out->note, sizeof(out->note), "%s", verdict);
}

/* Is there a change left before the culprit's parent or after it?  Each
 * side measured against its endpoint, the drift taken off, beyond the
 * noise of both and a tenth of the change. */
static int residual(const struct ctx *c, const struct found *f)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *po = find(c, in->parent_sha[f->node]),
		*co = find(c, in->node_sha[f->node]), *go = find(c, in->good_sha),
		*bo = find(c, in->node_sha[in->bad]);
	double zp, vp, zc, vc, zg, vg, zb, vb, delta = c->mu_b - c->mu_g;
	size_t np, nc, ng, nb;

	if (po == go)
		po = NULL;
	commit_value(c, po, &zp, &vp, &np);
	commit_value(c, co, &zc, &vc, &nc);
	commit_value(c, go, &zg, &vg, &ng);
	commit_value(c, bo, &zb, &vb, &nb);
	/* the builds' offsets left out: this only starts a search, which
	 * names nobody for offsets alone */
	vp -= c->lay2;
	vc -= c->lay2;
	vg -= c->lay2;
	vb -= c->lay2;
	if (co != bo && nc >= 2 && nb >= 2 && zb - zc > 0.1 * delta &&
	    (zb - zc) / sqrt(vb + vc) > 3)
		return 1;
	if (np >= 2 && ng >= 2 && zp - zg > 0.1 * delta &&
	    (zp - zg) / sqrt(vp + vg) > 3)
		return 1;
	return 0;
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
	double step = f->step;
	size_t k;
	unsigned char *alive;
	int ret = NOTHING;

	if (step <= 0 || step >= c->mu_b - c->mu_g)
		return NOTHING;
	alive = kb_calloc(g->n, 1);
	c->known = f->node;
	c->known_step = step;
	c->known_se = f->step_se;
	c->known_in = kb_calloc(g->n, 1);
	for (k = 0; k < g->n; k++) {
		memset(c->anc, 0, g->n);
		kb_graph_mark_ancestors(g, k, NULL, c->anc, 1);
		c->known_in[k] = c->anc[f->node];
		alive[k] = alive_main[k];
	}
	ret = bisect_range(c, alive, in->bad, c->mu_g, c->mu_b - step, 0, f2, out);
	free(c->known_in);
	c->known_in = NULL;
	c->known = -1;
	free(alive);
	return ret;
}

/* The warning for each likely culprit but 'node' (and BAD) whose revert
 * was made: the search went on from it, and how BAD with it reverted
 * measured. */
static void warn_left(struct ctx *c, long node)
{
	const struct kb_perf_in *in = c->in;
	const char *bad = in->node_sha[in->bad];
	size_t i, j;

	for (i = 0; in->reverts && i < in->nreverts; i++) {
		const char *of = in->reverts[i].of, *rsha = in->reverts[i].sha;
		struct pairs rb;

		for (j = 0; j < i && strcmp(in->reverts[j].of, of); j++)
			;
		if (j < i || (node >= 0 && !strcmp(of, in->node_sha[node])) || !strcmp(of, bad) ||
		    !rsha || !*rsha)
			continue;
		pair_up(c, find(c, rsha), find(c, bad), 1, -1, &rb);
		if (!rb.n)
			continue;
		warn(c, "reverted", "%.12s was a likely culprit; BAD with it reverted "
		     "measured %+.1f%% against BAD (%zu pairs; GOOD to BAD %+.1f%%), and the "
		     "search went on without it", of, pct_of(c, -rb.mean, raw_mean(c, bad)), rb.n,
		     pct_of(c, c->mu_b - c->mu_g, raw_mean(c, in->good_sha)));
	}
}

/* The endpoints measured again differ from their first measurements
 * beyond their noise: the machine drifted. */
static void drift_warning(struct ctx *c)
{
	double delta = c->mu_b - c->mu_g;

	for (int m = 0; m < c->nmach; m++) {
		const struct machine_drift *md = &c->drift[m];
		double shift, se;

		if (md->first_end < 0 || md->last_end <= md->first_end)
			continue;
		shift = md->d[md->last_end] - md->d[md->first_end];
		se = sqrt(md->pvar[md->last_end] + md->pvar[md->first_end]);
		if (fabs(shift) > 3 * se && fabs(shift) > 0.25 * delta) {
			warn(c, "drift", "GOOD and BAD measured again differ from their first "
			     "measurements by %+.1f%%%s: the machine's speed changed during the "
			     "session; every decision compared commits measured together or "
			     "allowed for the change", pct_of(c, shift, 1),
			     c->nmach > 1 ? " on a machine" : "");
			return;
		}
	}
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

/* The boots of GOOD and BAD on every machine of a pool, for telling the
 * machines apart: each boot's runs after the configured warm-up in x, one
 * boot after another. */
struct end_boots {
	double *x, *m;          /* the runs; each boot's location */
	size_t *len;            /* the runs of each boot */
	int *machine, *end;     /* its machine; 0 GOOD, 1 BAD */
	size_t nx, nb, ax, ab;
};

static void add_end_boots(const struct ctx *c, const struct kb_perf_obs *o, int end,
			  struct end_boots *e)
{
	for (size_t j = 0, k; o && j < o->n; j = k) {
		size_t n = 0, had = e->ab;

		for (k = j; k < o->n && o->s[k].boot == o->s[j].boot &&
		     o->s[k].machine == o->s[j].machine; k++)
			if (o->s[k].run > c->in->p.warmup) {
				KB_ALLOC_GROW(e->x, e->nx + 1, e->ax);
				e->x[e->nx++] = yval(c, o->s[k].value);
				n++;
			}
		if (!n)
			continue;
		KB_ALLOC_GROW(e->len, e->nb + 1, e->ab);
		if (e->ab != had) {
			e->machine = kb_realloc(e->machine, e->ab * sizeof(*e->machine));
			e->end = kb_realloc(e->end, e->ab * sizeof(*e->end));
		}
		e->len[e->nb] = n;
		e->machine[e->nb] = o->s[j].machine;
		e->end[e->nb++] = end;
	}
}

/*
 * Each boot of GOOD and BAD placed (its location in e->m) and given the
 * variance of its location in v: the boot spread, from consecutive boots
 * of one end on one machine, and the run noise within boots, as
 * everywhere else (boot_var()).  With one run a boot, the boots' own
 * scatter around their machine's median is the run noise.
 */
static double *end_boot_vars(struct end_boots *e)
{
	double *v = kb_malloc((e->nb + 1) * sizeof(*v)), *d = kb_malloc((e->nb + 1) * sizeof(*d));
	double *ev = kb_malloc((e->nb + 1) * sizeof(*ev)), sigma, tau2;
	size_t i, off, nd = 0;
	int df;

	e->m = kb_malloc((e->nb + 1) * sizeof(*e->m));
	sigma = kb_noise_within(e->x, e->len, e->nb);
	for (i = off = 0; i < e->nb; off += e->len[i], i++)
		e->m[i] = kb_biweight_location(e->x + off, e->len[i], sigma);
	if (!(sigma > 0)) {
		size_t nr = 0;

		for (i = 0; i < e->nb; i++) {
			size_t k = 0;

			for (size_t j = 0; j < e->nb; j++)
				if (e->machine[j] == e->machine[i] && e->end[j] == e->end[i])
					ev[k++] = e->m[j];
			if (k > 1)
				d[nr++] = e->m[i] - kb_median(ev, k);
		}
		sigma = nr > 1 ? kb_mad(d, nr) : 0;
	}
	for (i = 0; i < e->nb; i++)
		for (size_t j = i + 1; j < e->nb; j++)
			if (e->machine[j] == e->machine[i] && e->end[j] == e->end[i]) {
				d[nd] = e->m[j] - e->m[i];
				ev[nd++] = 1.05 * sigma * sigma *
					   (1.0 / (double)e->len[i] + 1.0 / (double)e->len[j]);
				break;
			}
	tau2 = kb_noise_boots(d, ev, nd, 0.10, &df);
	for (i = 0; i < e->nb; i++)
		v[i] = tau2 * inflate(df) + 1.05 * sigma * sigma / (double)e->len[i];
	free(d);
	free(ev);
	return v;
}

/* How far machine m's GOOD and BAD lie from machine ref's, together, in
 * standard errors of the boots (0 where it cannot be told). */
static double machine_apart_z(const struct end_boots *e, const double *v, int m, int ref)
{
	double diff = 0, var = 0;

	for (int end = 0; end < 2; end++) {
		double s[2] = { 0, 0 }, sv[2] = { 0, 0 };
		size_t k[2] = { 0, 0 };

		for (size_t i = 0; i < e->nb; i++) {
			int w = e->machine[i] == m ? 0 : e->machine[i] == ref ? 1 : -1;

			if (w < 0 || e->end[i] != end)
				continue;
			s[w] += e->m[i];
			sv[w] += v[i];
			k[w]++;
		}
		if (!k[0] || !k[1])
			return 0;
		diff += s[0] / (double)k[0] - s[1] / (double)k[1];
		var += sv[0] / ((double)k[0] * (double)k[0]) + sv[1] / ((double)k[1] * (double)k[1]);
	}
	return var > 0 ? diff / sqrt(var) : 0;
}

/*
 * A pool: every sample brought onto the levels of the reference machine
 * (the first with samples of GOOD and of BAD).  A machine whose GOOD and
 * BAD together lie apart from the reference's is shifted by the mean of
 * the two differences of medians; the samples of a machine without both
 * wait.  Apart is told with boots as the unit, where boots differ more
 * than runs do, at 1% for the pool as a whole: a machine is not named
 * apart, nor its samples moved, for a difference its boots explain.
 * NULL when every sample is from machine 0.
 */
static struct kb_perf_obs *one_scale(struct ctx *c, size_t *nout)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *go = find(c, in->good_sha), *bo = find(c, in->node_sha[in->bad]);
	struct kb_perf_obs *out = NULL;
	struct kb_buf msg = KB_BUF_INIT;
	struct end_boots eb = { 0 };
	double *shift, *gr = NULL, *br = NULL, *ev, zc;
	unsigned char *has;
	size_t i, j, ngr = 0, nbr = 0, alloc = 0;
	int maxm = 0, m, ref = -1, nboth = 0;

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
	for (m = 0; m <= maxm; m++)
		nboth += taken_on(go, m) && taken_on(bo, m);
	add_end_boots(c, go, 0, &eb);
	add_end_boots(c, bo, 1, &eb);
	ev = end_boot_vars(&eb);
	/* two-sided, 1% shared among the machines compared */
	zc = z_of(1 - 0.005 / (nboth > 2 ? nboth - 1 : 1));
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
			c->scale_ref_inv_n = 1.0 / (double)ngr + 1.0 / (double)nbr;
			continue;
		}
		if (has[m] && fabs(machine_apart_z(&eb, ev, m, ref)) > zc) {
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
	free(ev);
	free(eb.x);
	free(eb.m);
	free(eb.len);
	free(eb.machine);
	free(eb.end);
	kb_buf_release(&msg);
	return out ? out : kb_calloc(1, sizeof(*out));
}

static void free_ctx(struct ctx *c)
{
	for (int m = 0; m < c->nmach; m++) {
		free(c->tl[m]);
		free(c->drift[m].d);
		free(c->drift[m].pvar);
	}
	free(c->tl);
	free(c->drift);
	free(c->boot);
	free(c->ob_first);
	free(c->ob_n);
	json_decref(c->warnings);
	free(c->anc);
	free(c->ruled_out);
	free(c->scaled);
	free(c->scale_inv_n);
}

/* A change of d (z units) in the metric's own terms: percent, GOOD to BAD. */
static double metric_pct(const struct ctx *c, double d)
{
	double y = c->in->p.higher_is_better ? -d : d, g;

	if (c->use_log)
		return 100 * expm1(y);
	g = fabs(raw_mean(c, c->in->good_sha));
	return g > 0 ? 100 * y / g : NAN;
}

/* A size of change (z units) as a percent of GOOD's level. */
static double size_pct(const struct ctx *c, double d)
{
	double g;

	if (c->use_log)
		return 100 * expm1(d);
	g = fabs(raw_mean(c, c->in->good_sha));
	return g > 0 ? 100 * d / g : NAN;
}

/* The standard deviation of the calibration pairs (GOOD's and BAD's
 * boots measured together), from their own scatter; *n how many. */
static double pair_scatter(const struct ctx *c, size_t *n)
{
	struct pair_list pl;
	double sd;

	collect_pairs(c, find(c, c->in->good_sha), find(c, c->in->node_sha[c->in->bad]),
		      -1, -1, &pl);
	*n = pl.n;
	sd = pl.n >= 2 ? kb_stddev(pl.d, pl.n) : 0;
	if (pl.n >= 5) {
		/* a pair with an outlying boot counts no further out than three
		 * of the pairs' robust spreads (a boot of a few runs, two of
		 * them outlying, is beyond what the boot's robust mean sees
		 * through): "too noisy" is not said of one such pair */
		double med = kb_median(pl.d, pl.n), mad = kb_mad(pl.d, pl.n);

		if (mad > 0) {
			for (size_t k = 0; k < pl.n; k++)
				pl.d[k] = med + fmax(-3 * mad, fmin(3 * mad, pl.d[k] - med));
			sd = kb_stddev(pl.d, pl.n);
		}
	}
	free_pairs(&pl);
	return sd;
}

/*
 * Would the calibration pairs still to come (up to 'max' in all) show a
 * difference, at a chance of FUTILE or more?  Asked only once the
 * smallest change of interest cannot be excluded even at the cap: then
 * nothing is lost by stopping.  The mean at the cap is that of today's
 * pairs and of max - k more, each as noisy as today's are, around a
 * change known as well as today's pairs tell it (the predictive power of
 * the pairs to come).
 *
 * Asked from 8 pairs on, and on a pool from three pairs per machine on:
 * its machines measure their pairs at the same times, so that one change
 * of the speed of them all (the host they share, a lab's cron job) meets
 * a pair on every machine at once.  Two pairs each would be half of them
 * straddling it, a scatter that more pairs do not have (a 3% step in 2%
 * noise, all four machines 10% slower from their second pairs on: 12 of
 * 100 were "too noisy to tell", none is now).
 */
static int cal_futile(const struct ctx *c, const struct pairs *cal, int max)
{
	double sd, se_cap, z, rest, cp;
	size_t k = cal->n, np;

	if (k < 8 || k < (size_t)(3 * c->nmach) || !(cal->se > 0) || !(c->min_eff > 0) ||
	    (size_t)max <= k)
		return 0;
	/* the pairs' own scatter: the model's boot spread, from few boots,
	 * is an upper bound that more boots bring down */
	sd = pair_scatter(c, &np);
	if (np < 8)
		sd = cal->se * sqrt((double)k);
	if (!(sd > 0))
		return 0;
	se_cap = sd / sqrt((double)max);
	if (!(kb_detectable(se_cap, c->in->p.alpha, POWER) > c->min_eff))
		return 0;
	z = z_of(1 - c->in->p.alpha / 2);
	/* the mean at the cap, with the change as uncertain as today's
	 * pairs leave it (and each pair to come as noisy): taken at
	 * today's mean alone, few pairs of boots that differ measured a
	 * change short often enough that a 6% step (2% runs, 6% boots)
	 * was given up on from 9 pairs, at +1.4% to +3.4%, in 5 of 100
	 * trials */
	rest = sd * sqrt((double)(max - k) / ((double)max * (double)k));
	cp = 1 - kb_normal_cdf((z * se_cap - fabs(cal->mean)) / rest);
	return cp < FUTILE;
}

/*
 * The standard error of the change at the end of calibration, when there
 * are pairs enough to tell it by their own scatter (a t's tails put on
 * it): the model's boot spread, estimated from consecutive boots of one
 * commit, stays an upper bound where those are few (a pool alternates
 * its machines between GOOD and BAD).
 */
static double cal_se_end(const struct ctx *c, const struct pairs *cal)
{
	size_t n;
	double sd = pair_scatter(c, &n);

	return n >= 20 ? sd * sqrt(inflate((int)n - 1) / (double)n) : cal->se;
}

/* The pairs 'cal' leave a change of the user's smallest size out (their
 * upper bound at Z_SAME below it), and would have found one (at POWER);
 * or no such size was asked. */
static int excludes_min_effect(const struct ctx *c, const struct pairs *cal)
{
	return !(c->min_eff > 0) || (cal->mean + Z_SAME * cal->se < c->min_eff &&
				     !(kb_detectable(cal->se, c->in->p.alpha, POWER) > c->min_eff));
}

/* BAD measures better than GOOD, on at least the pairs a "same" takes:
 * firmly (at alpha, on all the pairs), or a change of the user's
 * smallest size is excluded and would have been seen. */
static int better_excludes(const struct ctx *c, const struct pairs *cal)
{
	if (cal->n < 8 || !(cal->se > 0))
		return 0;
	if (cal->mean + z_of(1 - c->in->p.alpha / 2) * cal->se < 0)
		return 1;
	return excludes_min_effect(c, cal);
}

/* What calibration found, in percent of GOOD's level: the change GOOD ->
 * BAD and its 90% interval, and the smallest change the pairs would have
 * found (NAN where not known). */
struct cal_figures {
	double change, low, high, detectable;
};

static struct cal_figures cal_figures(const struct ctx *c, const struct pairs *cal)
{
	struct cal_figures f;

	f.change = metric_pct(c, cal->mean);
	f.low = metric_pct(c, cal->mean - Z_SAME * cal->se);
	f.high = metric_pct(c, cal->mean + Z_SAME * cal->se);
	if (f.low > f.high) {
		double t = f.low;

		f.low = f.high;
		f.high = t;
	}
	f.detectable = cal->se > 0 ?
		size_pct(c, kb_detectable(cal->se, c->in->p.alpha, POWER)) : NAN;
	return f;
}

/* The calibration's finding for the report, and the smallest change the
 * user cares about. */
static json_t *cal_json(const struct ctx *c, const struct pairs *cal)
{
	struct cal_figures f = cal_figures(c, cal);
	json_t *j = json_object();

	json_object_set_new(j, "pairs", json_integer((json_int_t)cal->n));
	if (isfinite(f.change)) {
		json_object_set_new(j, "change_pct", json_real(f.change));
		json_object_set_new(j, "low_pct", json_real(f.low));
		json_object_set_new(j, "high_pct", json_real(f.high));
	}
	if (isfinite(f.detectable))
		json_object_set_new(j, "detectable_pct", json_real(f.detectable));
	json_object_set_new(j, "min_effect_pct", json_real(100 * c->in->p.min_effect));
	return j;
}

/* "no change larger than 2.1% (GOOD -> BAD +0.3%, 90% interval -1.2% ..
 * +1.8%)", or what of it is known. */
static void cal_words(const struct ctx *c, const struct pairs *cal, int too_noisy,
		      char *buf, size_t len)
{
	struct cal_figures f = cal_figures(c, cal);
	char size[64] = "", interval[128] = "";

	/* what would have been found, and no less than the interval's top:
	 * "no change larger than" it is a bound the interval keeps */
	if (isfinite(f.detectable))
		snprintf(size, sizeof(size), "%.3g%%", !too_noisy && cal->se > 0 &&
			 isfinite(f.high) && f.high > f.detectable ? f.high : f.detectable);
	if (isfinite(f.change) && cal->se > 0)
		snprintf(interval, sizeof(interval), " (GOOD -> BAD %+.3g%%, 90%% interval "
			 "%+.3g%% .. %+.3g%%)", f.change, f.low, f.high);
	if (too_noisy)
		snprintf(buf, len, "too noisy to tell: changes under %s cannot be seen with "
			 "this benchmark here%s", *size ? size : "the noise", interval);
	else if (*size)
		snprintf(buf, len, "no change larger than %s%s", size, interval);
	else
		snprintf(buf, len, "%s", *interval ? interval + 2 : "");
}

/*
 * Where builds have offsets of their own (the rebuild check on), GOOD and
 * BAD alike, or BAD the better, is a finding on these two builds: their
 * offsets can undo a change, and no build of the same code was made to
 * bound that (a 2% step under 1% offsets: a bound below it in 10-11% of
 * bisections).  The words that say so, for the end of a reason.
 */
static const char *of_these_builds(const struct ctx *c)
{
	return c->in->align ? "; that is of these two builds: each build's code layout can "
		"move it, and no build of the same code was measured to bound that" : "";
}

/* What to blame when calibration cannot tell, and what would help. */
static void warn_too_noisy(struct ctx *c)
{
	const char *m = c->in->metric ? c->in->metric : "the metric";
	int steady = c->runs - c->warm > 0 ? c->runs - c->warm : 1;
	double run = size_pct(c, c->sigma), boot = size_pct(c, sqrt(c->tau2));

	if (c->tau2 > c->sigma * c->sigma / steady)
		warn(c, "too-noisy", "%s is too noisy for a change of %.2g%%: its boots differ "
		     "by %.3g%% and its runs within a boot by %.3g%%; the boots are what to "
		     "blame, so more runs a boot do not help: a steadier metric, a target "
		     "whose boots differ less (a real machine rather than an emulated one), "
		     "or a larger --min-effect would", m, 100 * c->in->p.min_effect, boot, run);
	else
		warn(c, "too-noisy", "%s is too noisy for a change of %.2g%%: its runs "
		     "differ by %.3g%% within a boot and its boots by %.3g%%; more runs a "
		     "boot (runs_per_boot), a steadier metric, a quieter target or a larger "
		     "--min-effect would help", m, 100 * c->in->p.min_effect, run, boot);
}

/* Whether calibration's change 'cal' (its variance with the offsets in)
 * and the likely culprit's step f leave GOOD and BAD no further apart
 * than the code layout of builds makes them, and below the change of
 * interest. */
static int within_layout(const struct ctx *c, const struct pairs *cal, const struct found *f)
{
	if (fabs(cal->mean) >= z_of(1 - c->in->p.alpha / 2) * cal->se ||
	    !(cal->mean + Z_SAME * cal->se < c->min_eff))
		return 0;
	/* the culprit against its parent: the search picked that commit for
	 * measuring apart, and its offset with it; the same two commits
	 * built with the code aligned, where they were, have offsets that
	 * were not picked (no change under 1% offsets: 3 more no-regression
	 * in 100 on each of three seeds; the steps' exact bisections the
	 * same).  BAD against its revert is no stand-in: it measures what the
	 * commit did, not the level its boundary sits on */
	if (f->node >= 0 && (f->napairs || f->npairs)) {
		double step = f->napairs ? f->astep : f->step;
		double se = f->napairs ? f->astep_se : f->step_se;

		if (!(step + Z_SAME * sqrt(se * se + 2 * c->lay2) < c->min_eff))
			return 0;
	}
	return 1;
}

/*
 * GOOD and BAD built with the code aligned, measured in pairs: two builds
 * of their code whose offsets calibration did not pick.  Asked for (ask
 * 1) where a culprit is to be named under offsets (ends_stand()), or
 * where no culprit is confirmed and the change from GOOD to BAD is below
 * the change of interest and GOOD
 * and BAD alone do not show it to be within the offsets (from two builds,
 * one on each side, the offsets' spread puts a floor under the bound no
 * boots take away: 1.85 times it in a chance of 94%).  Then measured until
 * their pairs' own variance is no more than half the offsets' (a quarter
 * of what the two builds' offsets give their step), VERIFY_MIN_PAIRS to
 * VERIFY_MAX_BOOTS pairs, whatever they show; VERIFY_MIN_PAIRS where no
 * offsets are seen (their pairs against GOOD and BAD built plain are two
 * more differences to see them by).  Where GOOD is the likely
 * culprit's parent, or BAD the culprit, the variant is the one the
 * rebuild check made already.
 * ACTION with 'out' set while they are to be made or measured; else
 * DECIDED with their step in *ends (n 0 where there are none).
 */
static int ends_then(struct ctx *c, struct kb_perf_out *out, int ask, struct pairs *ends)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *ag, *ab;

	memset(ends, 0, sizeof(*ends));
	if (!in->align_ends)
		return DECIDED;
	if (!in->align_good_sha) {
		if (!ask || !budget_left(c))
			return DECIDED;
		out->kind = KB_PERF_ALIGN_ENDS;
		snprintf(out->sha, sizeof(out->sha), "%s", in->node_sha[in->bad]);
		snprintf(out->note, sizeof(out->note), "verify: build GOOD and BAD with "
			 "64-byte function alignment");
		return ACTION;
	}
	if (!*in->align_good_sha || !in->align_bad_sha || !*in->align_bad_sha)
		return DECIDED;
	ag = find(c, in->align_good_sha);
	ab = find(c, in->align_bad_sha);
	pair_up(c, ag, ab, 0, -1, ends);
	if ((ends->n < VERIFY_MIN_PAIRS ||
	     (c->lay2 > 0 && ends->se * ends->se > 0.5 * c->lay2 && ends->n < VERIFY_MAX_BOOTS)) &&
	    budget_left(c)) {
		aligned_next(c, out, "GOOD and BAD aligned", ag, in->align_good_sha, "GOOD",
			     ab, in->align_bad_sha, "BAD", "GOOD's", ends->n);
		return ACTION;
	}
	if (ends->n < VERIFY_MIN_PAIRS)
		ends->n = 0;
	return DECIDED;
}

/*
 * Whether the change from GOOD to BAD may be one of code layout: offsets
 * are seen, and the change is below the change of interest and no larger
 * than two builds' offsets make, at the spread's 90% bound, as a check
 * would tell (Z_VERIFY).  The calibration's own noise is not counted: it
 * is whether the offsets could make the change that is asked, not whether
 * the change is there.  (The spread can be seen where there is none:
 * with 3% run noise and no offsets, it came out at 1.3%, its bound 2.4%,
 * for a change of 5.6%.)
 */
static int change_in_layout(const struct ctx *c)
{
	double d = c->mu_b - c->mu_g;

	return c->lay2 > 0 && d < c->min_eff && d < Z_VERIFY * sqrt(2 * c->lay2_second);
}

/*
 * The culprit's step in every build made to check it, none of which a
 * search picked: BAD against its revert, the aligned parent against the
 * aligned culprit (fresh_step()), and GOOD and BAD aligned where they
 * were weighed ('ends', n 0 where not).  Their mean, and in *var its
 * variance, each step with two builds' offsets, and a variant the
 * rebuild check made (GOOD the culprit's parent, BAD the culprit)
 * counted in both steps it is in.  0 and infinite when there are none.
 */
static double fresh_with_ends(const struct ctx *c, const struct found *f,
			      const struct pairs *ends, double *var)
{
	const struct kb_perf_in *in = c->in;
	int k = !!f->nrpairs + !!f->napairs, shared;
	double m, v;

	m = fresh_step(c, f, &v);
	if (!ends->n) {
		*var = v;
		return m;
	}
	shared = !strcmp(in->align_good_sha, in->align_parent_sha) +
		!strcmp(in->align_bad_sha, in->align_sha);
	/* the mean of the k steps back to their sum, and its variance; the
	 * ends' step added to both */
	m = m * k + ends->mean;
	v = (k ? v * k * k : 0) + ends->se * ends->se + 2 * c->lay2 + 2 * shared * c->lay2;
	*var = v / ((k + 1) * (k + 1));
	return m / (k + 1);
}

/*
 * Whether the builds made to check the culprit (fresh_with_ends()) put
 * its step below the change of interest at 95%: their mean in *step and
 * that bound in *high.  0 where there are no aligned builds (without a
 * rebuild check the spread of offsets is the sides' alone, and no build
 * of the same code tells it) or no change of interest.
 */
static int fresh_below_interest(const struct ctx *c, const struct found *f,
				const struct pairs *ends, double *step, double *high)
{
	double v;

	if (!f->napairs || !(c->min_eff > 0))
		return 0;
	*step = fresh_with_ends(c, f, ends, &v);
	if (!isfinite(v))
		return 0;
	*high = *step + Z_SAME * sqrt(v);
	return *high < c->min_eff;
}

/*
 * Where every build has an offset of its own, the builds made to check a
 * culprit (fresh_builds_stand()) stand out at 95%, but BAD against its
 * revert shares BAD's build, which calibration picked for measuring apart
 * from GOOD: under no change that step leans the culprit's way by half
 * of what GOOD and BAD measure apart.  In a range too short to tell the
 * offsets' spread by its commits (c->lay_k), the spread from two or
 * three builds of the same code comes out at nothing or a fraction of
 * its truth often enough that one wrong culprit in thirty got through.
 * GOOD and BAD built with the code aligned are the change from GOOD to
 * BAD once more, on two builds that neither calibration nor the search
 * picked: their step joins the other two, and the three together must
 * stand out at 97.5% (Z_FRESH3); their pairs against GOOD and BAD built
 * plain are two more differences to tell the spread by.  Where a variant
 * is the rebuild check's (GOOD the culprit's parent, BAD the culprit),
 * its offset is counted in both steps; where both are, the ends add
 * nothing, and are not asked for.  (No change under 1% offsets over two
 * and four commits: 19 wrong culprits in 600 bisections without this, 6
 * with it; a 5% step as exact, 20-27 runs more.)
 * In a longer range, the same where the change may be one of layout
 * (change_in_layout()): there the spread is told by the range's commits,
 * but where GOOD and BAD are no further apart than their offsets, the
 * commits the search placed on a side are those whose offsets put them
 * there, and the spread comes out at a fraction of its truth; the change
 * itself, on two builds no one picked, does not depend on it.  (No change
 * under 1% offsets over 200 commits: 8 wrong culprits in 300 without
 * this, 1 with it; a 5% step under 1% offsets as exact, in 2-7% more
 * runs, 14% more with 3% run noise.)
 * ACTION with 'out' set while they are made or measured; else DECIDED,
 * *stand 0 where the three do not stand out, 1 where they do or there
 * are none; the ends' step in *ends where it was weighed (n 0 if not).
 */
static int ends_stand(struct ctx *c, struct kb_perf_out *out, const struct found *f,
		      struct pairs *ends, int *stand)
{
	const struct kb_perf_in *in = c->in;
	double m, v;

	*stand = 1;
	memset(ends, 0, sizeof(*ends));
	if (!in->align || !f->napairs || !(c->lay_k < LAY_OWN_MIN || change_in_layout(c)) ||
	    (f->node == (long)in->bad && !strcmp(in->parent_sha[f->node], in->good_sha)))
		return DECIDED;
	if (ends_then(c, out, 1, ends) == ACTION)
		return ACTION;
	if (!ends->n)
		return DECIDED;
	if (!strcmp(in->align_good_sha, in->align_parent_sha) &&
	    !strcmp(in->align_bad_sha, in->align_sha)) {
		memset(ends, 0, sizeof(*ends));
		return DECIDED;
	}
	m = fresh_with_ends(c, f, ends, &v);
	*stand = m / sqrt(v) >= Z_FRESH3;
	return DECIDED;
}

/*
 * Before an ending left inconclusive where every build has an offset of
 * its own: one boot more of the measured commit with the fewest, up to
 * REFINE_BOOTS each.  The offsets' spread is told by the differences of
 * the range's measured commits, and most were measured over a boot or
 * two: where boots differ more than the offsets, each difference is
 * mostly their boots', and the spread comes out anywhere from nothing to
 * two or three times its truth (a 5% step, 2% boots and 1% offsets on a
 * pool of four: at 1.5% or more in a third of the bisections that ended
 * inconclusive).  The checks weigh the culprit's builds against that
 * spread, so an ending it decided is made again once the commits it is
 * fitted from are measured better; the boots also tell those commits'
 * levels, and the search and its checks go on from there.  A boot on a
 * commit measured before is measured against its neighbours now
 * (fit_drift()), not against its samples of an hour ago.  Only where
 * the ending would be inconclusive: a no-regression stands as it is.
 * (Over 300 bisections a row: a 5% step, 2% boots, 1% offsets, a pool
 * of four, 268 exact before, 277 now, 3% more runs; a 5% step in 3% run
 * noise under 1% offsets, 270 -> 280, 5% more runs; no change under 1%
 * offsets over 4 to 200 commits, the same wrong culprits.)
 * ACTION with 'out' set where such a boot is due; else DECIDED.
 */
static int refine_offsets(const struct ctx *c, struct kb_perf_out *out)
{
	const struct kb_perf_in *in = c->in;
	const struct kb_perf_obs *pick = NULL;
	int fewest = REFINE_BOOTS;

	if (!in->align || !(c->lay2_second > 0) || !budget_left(c))
		return DECIDED;
	for (size_t i = 0; i < in->nobs; i++) {
		const struct kb_perf_obs *o = &in->obs[i];
		int nb;

		if (o->node < 0 || o->node == (long)in->bad || !c->ob_n[i] || skipped(c, o->sha))
			continue;
		nb = nboots(o) + busy_n(c, o->sha);
		if (nb < fewest) {
			fewest = nb;
			pick = o;
		}
	}
	if (!pick)
		return DECIDED;
	run_action(out, pick->sha, "probe", c->runs, "verify: %.12s, boot %d of %d, for the "
		   "builds' code layout", pick->sha, fewest + 1, REFINE_BOOTS);
	return ACTION;
}

/*
 * Whether the change from GOOD to BAD is clearly below the change of
 * interest, where every build has an offset of its own (the rebuild
 * check on): the larger of calibration's change and the sides' levels'
 * difference, with two builds' offsets and calibration's noise at 95%,
 * under --min-effect.  A true step of that size puts it above; such a
 * change may be the builds' layout alone.
 */
static int clearly_below(const struct ctx *c)
{
	return c->in->align && c->min_eff > 0 &&
		fmax(c->mu_b - c->mu_g, c->sides_d) +
		Z_SAME * sqrt(2 * c->lay2 + c->delta_se * c->delta_se) < c->min_eff;
}

/*
 * Before a culprit is named for a change clearly below the change of
 * interest, where every build has an offset of its own: a commit the
 * search did not pick, measured over one boot, until the offsets'
 * spread is fitted from UNPICKED_DIFFS of the range's own differences.
 * Such a change may be the builds' layout alone, and whether the
 * culprit's builds stand out of it is weighed against that spread.  A
 * search over 200 commits measures a dozen, and from 8-14 differences
 * the spread's fit comes out at 0 in 0.2-2% of bisections (their mean
 * square below the share of the noise in it), and well below its truth
 * more often: then a commit whose build, its aligned builds' and
 * GOOD's and BAD's happen to show 1.5-3% is named.  Clearly below:
 * clearly_below(); a true step of --min-effect puts the change above,
 * so the commits are measured only where the change is small or the
 * spread was fitted small.  The commit is the one farthest, in the
 * range's order, from every commit measured (GOOD at the far end): its
 * difference from its nearest measured ancestor is then one no search
 * picked.  In a range of a few commits, where every gap is one commit,
 * that is a neighbour of a measured one, until every commit is measured,
 * where offsets are seen (a spread above 0): without offsets, with the
 * rebuild check on, a 2% step over 8 and 16 commits took a third more
 * runs for them.  (No change under 1% offsets over 200 commits, one
 * machine, seeds 1-900: 14 wrong culprits before, 2 now, about 1% more
 * runs; a 5% step under 1% offsets with 3% noise or 2% boots as exact,
 * runs within 2%.  Over 4-16 commits, with the rule on --confidence
 * below: see there.)
 * ACTION with 'out' set where such a commit is due; else DECIDED.
 */
static int unpicked_commit(const struct ctx *c, struct kb_perf_out *out)
{
	const struct kb_perf_in *in = c->in;
	size_t n = in->g->n, best = 0, far = 0, i, j, *above;
	long last = -1;
	unsigned char *measured;

	if (c->lay_k >= UNPICKED_DIFFS || !budget_left(c) || !clearly_below(c))
		return DECIDED;
	measured = kb_calloc(n + 1, 1);
	above = kb_malloc((n + 1) * sizeof(*above));
	for (i = 0; i < in->nobs; i++)
		if (in->obs[i].node >= 0 && c->ob_n[i])
			measured[in->obs[i].node] = 1;
	measured[in->bad] = 1;
	/* the nearest measured commit past each, GOOD past the last */
	above[n] = n;
	for (j = n; j-- > 0;)
		above[j] = measured[j] ? j : above[j + 1];
	for (i = 0; i < n; i++) {
		size_t d = above[i] - i;

		if (measured[i]) {
			last = (long)i;
			continue;
		}
		if (last >= 0 && i - (size_t)last < d)
			d = i - (size_t)last;
		if (skipped(c, in->node_sha[i]) || busy_n(c, in->node_sha[i]))
			continue;
		if (d > far) {
			far = d;
			best = i;
		}
	}
	free(above);
	free(measured);
	if (!far || (far == 1 && !(c->lay2 > 0)))
		return DECIDED;
	run_action(out, in->node_sha[best], "probe", c->runs, "verify: a commit the search "
		   "did not pick, for the builds' code layout (%zu of %d differences)", c->lay_k,
		   UNPICKED_DIFFS);
	return ACTION;
}

/*
 * The ending where no culprit is confirmed, but every build has an offset
 * of its own (code layout, spread sqrt(lay2)): BAD's offset less GOOD's
 * is a difference the builds alone make, which no commit's code caused.
 * Only where the rebuild check is on: the aligned builds against their
 * twins are in that spread, and elsewhere commits that measure apart
 * could be noise the model does not know (outlying runs) as well.
 * Where the change GOOD -> BAD is no more than that, and its interval,
 * the two offsets' spread put on it, excludes a change of the user's
 * smallest size, the answer is no regression, and its reason says so
 * (the calibration's figures, with the offsets in; with GOOD and BAD
 * built aligned, where they were, their step too: ends_then()).  The
 * likely culprit f, where its step was measured, must exclude such a
 * change in the same way (within_layout()): calibration's few pairs can
 * measure a real step short, and the culprit's step is the evidence
 * nearest to it (from its aligned builds where there are any, else from
 * its pairs with its parent).  Otherwise inconclusive, for 'why'.
 */
static void finish_unconfirmed(struct ctx *c, struct kb_perf_out *out, json_t *culprits,
			       const char *why, const struct found *f)
{
	struct pairs cal = { c->cal_n, c->mu_b - c->mu_g, 0, -1 }, ends;
	struct cal_figures fig;
	char r[700], words[240], aligned[120] = "";

	if (!c->in->align || !(c->lay2 > 0) || !(c->min_eff > 0) || !(c->delta_se > 0))
		goto inconclusive;
	cal.se = sqrt(c->delta_se * c->delta_se + 2 * c->lay2);
	if (ends_then(c, out, !within_layout(c, &cal, f) && cal.mean < c->min_eff,
		      &ends) == ACTION) {
		json_decref(culprits);
		return;
	}
	if (ends.n) {
		double v1 = cal.se * cal.se, v2 = ends.se * ends.se + 2 * c->lay2;

		snprintf(aligned, sizeof(aligned), ", built with the code aligned %+.3g%% in "
			 "%zu pairs", pct_of(c, ends.mean, raw_mean(c, c->in->good_sha)), ends.n);
		cal.mean = (cal.mean / v1 + ends.mean / v2) / (1 / v1 + 1 / v2);
		cal.se = sqrt(1 / (1 / v1 + 1 / v2));
	}
	if (!within_layout(c, &cal, f))
		goto inconclusive;
	fig = cal_figures(c, &cal);
	snprintf(words, sizeof(words), "no change larger than %.3g%% (GOOD -> BAD %+.3g%%%s, "
		 "90%% interval %+.3g%% .. %+.3g%%)", size_pct(c, cal.mean + Z_SAME * cal.se),
		 fig.change, aligned, fig.low, fig.high);
	snprintf(r, sizeof(r), "GOOD and BAD differ by no more than the code layout of %s "
		 "can make them (offsets of %.2g%%): %s; no commit is confirmed: %s",
		 ends.n ? "their builds" : "two builds", size_pct(c, sqrt(c->lay2)), words, why);
	json_decref(culprits);
	finish(c, out, "no-regression", json_array(), r);
	json_object_set_new(out->verdict, "calibration", cal_json(c, &cal));
	json_object_set_new(json_object_get(out->verdict, "calibration"), "layout_pct",
			    json_real(size_pct(c, sqrt(c->lay2))));
	return;
inconclusive:
	if (refine_offsets(c, out) == ACTION) {
		json_decref(culprits);
		return;
	}
	finish(c, out, "inconclusive", culprits, why);
}

int kb_perf_decide(const struct kb_perf_in *in, struct kb_perf_out *out)
{
	struct kb_perf_in scaled_in;
	struct kb_perf_obs *scaled = NULL;
	size_t nscaled = 0;
	struct ctx c;
	const struct kb_perf_obs *go, *bo;
	struct pairs cal;
	double pmw = 1, eff, lev_g, lev_b, fs, fs_high;
	struct pairs ends;
	int stand, below;
	size_t i, j, n;
	int bg, bb, ret = 0, r, max_pairs, cal_min;
	unsigned char *alive = NULL;
	char *marks;
	struct found f, f2;
	const struct kb_perf_in *orig = in;
	int flip = 0;

	memset(out, 0, sizeof(*out));
	out->best_node = -1;
	memset(&c, 0, sizeof(c));
	c.in = in;
	c.use_log = 1;
	c.warnings = json_array();
	c.anc = kb_calloc(in->g->n ? in->g->n : 1, 1);
	c.ruled_out = kb_calloc(in->g->n ? in->g->n : 1, 1);
	c.known = -1;
	c.runs = in->p.runs_per_boot;
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
	bg = nboots(go) + busy_n(&c, in->good_sha);
	bb = nboots(bo) + busy_n(&c, in->node_sha[in->bad]);
	if (pooled(&c) && in->machine >= 0 && boots_here(&c, go) != boots_here(&c, bo)) {
		bg = boots_here(&c, go);
		bb = boots_here(&c, bo);
	}
	/* 1. calibrate: GOOD and BAD in turn, each boot of one compared with
	 * the boot of the other measured next to it */
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
	build_boots(&c);
	c.min_eff = in->p.min_effect > 0 ? (c.use_log ? log1p(in->p.min_effect) :
			in->p.min_effect * fabs(raw_mean(&c, in->good_sha))) : 0;
	out->noise = c.sigma;
	out->boot_spread = sqrt(c.tau2);
	pair_up(&c, go, bo, -1, -1, &cal);
	if (!c.ob_n[obs_index(&c, go)] || !c.ob_n[obs_index(&c, bo)]) {
		finish(&c, out, "inconclusive", json_array(),
		       "too few samples after the warm-up runs: raise runs_per_boot");
		goto out;
	}
	/* probes begin once GOOD and BAD differ: a noise model refined since
	 * does not take that back */
	for (i = 0, j = 0; i < in->nobs && !j; i++)
		j = in->obs[i].node >= 0 && in->obs[i].node != (long)in->bad && c.ob_n[i];
	c.runs = cal_runs(&c, &max_pairs);
	/* where the range is a few commits, calibration is most of the
	 * search: BAD's parent is GOOD, or two probes at most follow, and
	 * the verification measures what calibration did.  Its first two
	 * pairs cannot tell boots that differ (the spread is taken for 0
	 * until boots of one commit show it), and a difference they show
	 * by their offsets alone becomes a culprit: from 4 pairs on there
	 * (no change, 1% runs, 2% boots, one commit: 7 wrong culprits in
	 * 2000 before, 2 now; a 5% step in 3% noise over four commits, 11
	 * runs more) */
	cal_min = in->p.min_cal_boots;
	if (in->g->n <= SHORT_RANGE && cal_min < SHORT_CAL_PAIRS)
		cal_min = SHORT_CAL_PAIRS;
	switch (j ? CAL_DIFFER : paired_test(&c, go, bo, cal_min, max_pairs,
					     8, same_within(&c), in->p.alpha, &pmw)) {
	case CAL_MORE:
		if (!budget_left(&c))
			goto at_cap;
		if (cal_futile(&c, &cal, max_pairs))
			goto too_noisy;
more:
		if (bg <= bb)
			run_action(out, in->good_sha, "good", c.runs,
				   "calibrate: GOOD and BAD do not differ yet (p=%.3g)", pmw);
		else
			run_action(out, in->node_sha[in->bad], "bad", c.runs,
				   "calibrate: GOOD and BAD do not differ yet (p=%.3g)", pmw);
		goto out;
	case CAL_CAP:
at_cap:
		/* the pairs end here: no difference; a change of the size the
		 * user cares about is excluded, or it cannot be told */
		cal.se = cal_se_end(&c, &cal);
		/* the pairs' own scatter, where it decides the end, may show
		 * them apart where the model's spread did not: they differ */
		if (cal.se > 0 && fabs(cal.mean) / cal.se >= z_of(1 - in->p.alpha / 2))
			break;
		/* a change the pairs show at 95% but not at alpha, below the
		 * change of interest: more pairs, up to twice the cap and
		 * half the run budget, tell whether it is one (a 3% step in
		 * 4% boots and 2% runs ended "GOOD and BAD differ, but by
		 * less than the change of interest" in 5 of 100) */
		if (cal.se > 0 && cal.mean / cal.se >= 1.96 && cal.n < 2 * (size_t)max_pairs &&
		    c.total + 2 * (size_t)c.runs < (size_t)in->p.max_runs / 2)
			goto more;
		if (excludes_min_effect(&c, &cal))
			goto no_difference;
too_noisy:
		{
			char why[300];

			cal_words(&c, &cal, 1, why, sizeof(why));
			warn_too_noisy(&c);
			finish(&c, out, "inconclusive", json_array(), why);
			json_object_set_new(out->verdict, "calibration", cal_json(&c, &cal));
			json_object_set_new(json_object_get(out->verdict, "calibration"),
					    "too_noisy", json_true());
		}
		goto out;
	case CAL_SAME:
		/* the pairs' prefix that ended it may tell a change of
		 * --min-effect, or leave it out, where all the pairs, as
		 * the reason states them, fall just short: then one pair
		 * more */
		if (cal.se > 0 && !excludes_min_effect(&c, &cal) && budget_left(&c) &&
		    cal.n < (size_t)max_pairs)
			goto more;
no_difference:
		{
			char why[640], words[240], what[96];
			struct cal_figures cf = cal_figures(&c, &cal);

			/* a change below the one of interest that the pairs
			 * do show (their 90% interval leaves 0 out) is not
			 * "no difference" */
			if (cal.se > 0 && cf.low * cf.high > 0 && in->p.min_effect > 0)
				snprintf(what, sizeof(what), "GOOD and BAD differ, but by less than "
					 "the change of interest (%.2g%%)", 100 * in->p.min_effect);
			else
				snprintf(what, sizeof(what), "GOOD and BAD do not differ");
			cal_words(&c, &cal, 0, words, sizeof(words));
			snprintf(why, sizeof(why), "%s%s%s%s%s", what, c.warm_detected ?
				 " once the warm-up runs after each boot are left out" : "",
				 *words ? ": " : "", words, *words ? of_these_builds(&c) : "");
			finish(&c, out, "no-regression", json_array(), why);
			json_object_set_new(out->verdict, "calibration", cal_json(&c, &cal));
		}
		goto out;
	default:
		break;
	}
	eff = cal.mean;
	c.mu_g = 0;
	c.mu_b = eff;
	c.delta_se = cal.se;
	c.cal_n = cal.n;
	if (in->p.either && eff < 0) {
		/* BAD is better, and that change is the one looked for: the
		 * same decision with "better" as the direction of the change */
		flip = 1;
		goto out;
	}
	if (eff <= 0 && !better_excludes(&c, &cal)) {
		/* BAD better is a claim of no regression too: on as many pairs
		 * as one, and only once a regression of interest is excluded */
		if (budget_left(&c) && cal.n < (size_t)max_pairs && !cal_futile(&c, &cal, max_pairs))
			goto more;
		goto too_noisy;
	}
	if (eff <= 0) {
		char why[400], words[240];

		cal_words(&c, &cal, 0, words, sizeof(words));
		snprintf(why, sizeof(why), "BAD measures better than GOOD%s%s",
			 strchr(words, '(') ? strchr(words, '(') - 1 : "", of_these_builds(&c));
		finish(&c, out, "no-regression", json_array(), why);
		json_object_set_new(out->verdict, "calibration", cal_json(&c, &cal));
		goto out;
	}
	fit_drift(&c);
	c.runs = runs_for(&c, NULL, 0);
	if (sqrt(boot_var(&c, c.runs - c.warm)) > eff)
		warn(&c, "noisy", "the noise of one boot (%.2g) is larger than the change "
		     "(%.2g): many boots are needed", sqrt(boot_var(&c, c.runs - c.warm)), eff);
	/* a machine that measures apart: its scale known to a quarter of the
	 * change before its samples count for much (the standard error of a
	 * median is 1.25 sigma / sqrt(n); the scale is a mean of two
	 * differences of medians), as far as its own samples can make it:
	 * once they are twice as many as the reference machine's, more of
	 * them take off less than a third of what is left, and a machine
	 * that went on measuring its baseline would measure nothing else
	 * (with a step as small as the noise, until the budget was spent) */
	if (pooled(&c) && in->machine >= 0 && in->machine < c.nmachines &&
	    c.scaled[in->machine] && budget_left(&c) &&
	    0.5 * 1.2533 * c.sigma * sqrt(c.scale_inv_n[in->machine]) > 0.25 * eff &&
	    c.scale_inv_n[in->machine] - c.scale_ref_inv_n > 0.5 * c.scale_ref_inv_n) {
		int m = in->machine;

		if (boots_here(&c, go) <= boots_here(&c, bo))
			run_action(out, in->good_sha, "good", c.runs,
				   "the baseline of machine %d, which measures apart: GOOD", m);
		else
			run_action(out, in->node_sha[in->bad], "bad", c.runs,
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
	estimate_layout(&c, alive, &lev_g, &lev_b);
	rule_out_reverted(&c);
	r = bisect_range(&c, alive, in->bad, lev_g, lev_b, 1, &f, out);
	if (r == ACTION)
		goto out;
	warn_left(&c, f.node);
	if (f.node < 0) {
		drift_warning(&c);
		finish_unconfirmed(&c, out, json_array(), f.why, &f);
		goto out;
	}
	drift_warning(&c);
	/* a culprit; does it explain the whole change? */
	json_t *culprits = json_array();

	if (!strcmp(f.parent_check, "layout")) {
		/* no aligned builds told it apart from the builds' offsets */
		f.parent_check = "fail";
		warn(&c, "unconfirmed", "%.12s holds %.0f%% of the probability, and measures "
		     "%+.1f%% against its parent, but no more than the code layout of two "
		     "builds can make a commit measure", in->node_sha[f.node], 100 * f.prob,
		     pct_of(&c, f.step, raw_mean(&c, in->parent_sha[f.node])));
		json_array_append_new(culprits, culprit_json(&c, &f));
		finish_unconfirmed(&c, out, culprits, "the likely culprit's step cannot be "
		       "told from the builds' code layout", &f);
		goto out;
	}
	json_array_append_new(culprits, culprit_json(&c, &f));
	if (!strcmp(f.parent_check, "fail")) {
		warn(&c, "unconfirmed", "%.12s holds %.0f%% of the probability, but measured "
		     "directly against its parent the step is not significant",
		     in->node_sha[f.node], 100 * f.prob);
		finish_unconfirmed(&c, out, culprits, "the likely culprit failed its check", &f);
		goto out;
	}
	if (!strcmp(f.revert_check, "fail")) {
		warn(&c, "unconfirmed", "%.12s holds %.0f%% of the probability, but BAD "
		     "with it reverted does not measure better", in->node_sha[f.node],
		     100 * f.prob);
		finish_unconfirmed(&c, out, culprits, "reverting the likely culprit "
		       "does not recover", &f);
		goto out;
	}
	if (!strcmp(f.align_check, "fail") && f.other) {
		warn(&c, "merge", "%.12s is a merge: built with 64-byte function alignment, it "
		     "measures %+.1f%% against its parent %.12s (%zu pairs), where it measured "
		     "%+.1f%% against its first parent; git names a merge only when every "
		     "parent is good, and the change may have come in on that parent's side",
		     in->node_sha[f.node], pct_of(&c, f.ostep, raw_mean(&c, f.other_v)),
		     f.other, f.nopairs, pct_of(&c, f.astep, raw_mean(&c, in->align_parent_sha)));
		finish_unconfirmed(&c, out, culprits, "the likely culprit is a merge that does "
				   "not measure worse than each of its parents", &f);
		goto out;
	}
	if (!strcmp(f.align_check, "fail")) {
		json_t *cu = json_array_get(culprits, 0), *a = json_object_get(cu, "aligned");
		double adelta = json_real_value(json_object_get(a, "delta_pct"));
		double delta = json_real_value(json_object_get(cu, "delta_pct"));

		if (f.align_unclear) {
			char off[80] = "";

			if (c.lay2_other > 0)
				snprintf(off, sizeof(off), " and the builds' code layout (offsets "
					 "of %.2g%%)", size_pct(&c, sqrt(c.lay2_other)));
			warn(&c, "unconfirmed", "built with 64-byte function alignment, %.12s "
			     "measures %+.1f%% against its parent (%zu pairs), where it measured "
			     "%+.1f%% without: the step does not stand out, and is not clearly "
			     "less than without either; the boots%s can make both, so whether "
			     "the step is the commit's or one of code layout these builds do "
			     "not tell", in->node_sha[f.node], adelta, f.napairs, delta, off);
		} else {
			warn(&c, "alignment", "built with 64-byte function alignment, %.12s "
			     "measures %+.1f%% against its parent (%zu pairs), where it measured "
			     "%+.1f%% without: the step is one of code layout, not of what the "
			     "commit does", in->node_sha[f.node], adelta, f.napairs, delta);
		}
		finish_unconfirmed(&c, out, culprits, f.align_unclear ? "the likely culprit's "
				   "step, built with the code aligned, neither stays nor clearly "
				   "vanishes" : "the likely culprit's step vanishes with the code "
				   "aligned", &f);
		goto out;
	}
	if (!fresh_builds_stand(&c, &f)) {
		warn(&c, "layout", "%.12s measures %+.1f%% against its parent, but the builds "
		     "made to check it (%s) show %+.1f%%: no more than the code layout of "
		     "two builds can make a commit measure (offsets of %.2g%%)",
		     in->node_sha[f.node], pct_of(&c, f.step, raw_mean(&c, in->parent_sha[f.node])),
		     f.nrpairs && f.napairs ? "BAD and its revert, the aligned builds" :
		     f.nrpairs ? "BAD and its revert" : "the aligned builds",
		     pct_of(&c, fresh_step(&c, &f, NULL), raw_mean(&c, in->parent_sha[f.node])),
		     size_pct(&c, sqrt(c.lay2)));
		finish_unconfirmed(&c, out, culprits, "the likely culprit's step does not "
		       "stand out of the builds' code layout in the builds made to check it", &f);
		goto out;
	}
	if (!fresh_step_of_interest(&c, &f, &fs, &fs_high)) {
		warn(&c, "layout", "%.12s measures %+.1f%% against its parent, and the builds "
		     "made to check it show %+.1f%%, no more than %+.1f%%: below the change "
		     "of interest (--min-effect %g%%), and the builds' code layout (offsets "
		     "of %.2g%%) makes steps like it",
		     in->node_sha[f.node], pct_of(&c, f.step, raw_mean(&c, in->parent_sha[f.node])),
		     pct_of(&c, fs, raw_mean(&c, in->parent_sha[f.node])),
		     pct_of(&c, fs_high, raw_mean(&c, in->parent_sha[f.node])),
		     100 * in->p.min_effect, size_pct(&c, sqrt(c.lay2)));
		finish_unconfirmed(&c, out, culprits, "the likely culprit's step, in the builds "
		       "made to check it, is below the change of interest and no more than "
		       "the builds' code layout makes", &f);
		goto out;
	}
	if (ends_stand(&c, out, &f, &ends, &stand) == ACTION) {
		json_decref(culprits);
		goto out;
	}
	if (!stand) {
		warn(&c, "layout", "%.12s measures %+.1f%% against its parent, the builds "
		     "made to check it %+.1f%%, and GOOD and BAD built with the code aligned "
		     "%+.1f%% (%zu pairs): together they do not stand out of the builds' code "
		     "layout (offsets of %.2g%%)",
		     in->node_sha[f.node], pct_of(&c, f.step, raw_mean(&c, in->parent_sha[f.node])),
		     pct_of(&c, fresh_step(&c, &f, NULL), raw_mean(&c, in->parent_sha[f.node])),
		     pct_of(&c, ends.mean, raw_mean(&c, in->good_sha)), ends.n,
		     size_pct(&c, sqrt(c.lay2)));
		finish_unconfirmed(&c, out, culprits, "the likely culprit's step, in the builds "
		       "made to check it and in GOOD and BAD built with the code aligned, does "
		       "not stand out of the builds' code layout", &f);
		goto out;
	}
	if (ends.n)
		json_object_set_new(json_array_get(culprits, 0), "aligned_ends",
				    pairs_json(&c, ends.mean, ends.se, ends.n, in->align_good_sha));
	if (f.share_hi0 < 0.75 || residual(&c, &f)) {
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
	if (unpicked_commit(&c, out) == ACTION) {
		json_decref(culprits);
		goto out;
	}
	/* below the change of interest, where the builds' layout alone can
	 * make the change and is seen to move the benchmark (the same code
	 * built two ways measures apart), the probability asked for
	 * (--confidence), not less: checks that pass on a likely culprit
	 * the probes left near a neighbour are as often the layout of its
	 * builds as a step.  With the neighbours above (no change under 1%
	 * offsets over 4-16 commits, 1-3% run noise, 2% boots, a pool, 11
	 * rows of 300: 29 wrong culprits before, 19 now; a 3% step over 8
	 * and 16 commits, 29 fewer exact in 900, 51% -> 48%, one wrong
	 * fewer; without offsets, with the rebuild check on, a 1-2% step
	 * as exact).  The same where the builds made to check the culprit,
	 * which no search picked, put its step below the change of interest
	 * at 95% (fresh_below_interest()), whatever GOOD and BAD measured:
	 * calibration picked their builds for measuring apart */
	if (c.lay2 > 0 && f.prob < in->p.confidence &&
	    ((below = clearly_below(&c) && twins_apart(&c)) ||
	     fresh_below_interest(&c, &f, &ends, &fs, &fs_high))) {
		if (below)
			warn(&c, "unconfirmed", "%.12s holds %.0f%% of the probability, less "
			     "than the %.0f%% asked for (--confidence), and the change from GOOD "
			     "to BAD is below the change of interest (--min-effect %g%%), where "
			     "the builds' code layout (offsets of %.2g%%) makes steps like it",
			     in->node_sha[f.node], 100 * f.prob, 100 * in->p.confidence,
			     100 * in->p.min_effect, size_pct(&c, sqrt(c.lay2)));
		else
			warn(&c, "unconfirmed", "%.12s holds %.0f%% of the probability, less "
			     "than the %.0f%% asked for (--confidence), and the builds made to "
			     "check it show %+.1f%%, no more than %+.1f%%: below the change of "
			     "interest (--min-effect %g%%), where the builds' code layout "
			     "(offsets of %.2g%%) makes steps like it", in->node_sha[f.node],
			     100 * f.prob, 100 * in->p.confidence,
			     pct_of(&c, fs, raw_mean(&c, in->parent_sha[f.node])),
			     pct_of(&c, fs_high, raw_mean(&c, in->parent_sha[f.node])),
			     100 * in->p.min_effect, size_pct(&c, sqrt(c.lay2)));
		finish_unconfirmed(&c, out, culprits, "the likely culprit's probability is below "
				   "--confidence, for a change below the change of interest", &f);
		goto out;
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
	out->warmup_used = c.warm;
	if (ret == 0 && out->kind == KB_PERF_DONE && !out->verdict)
		ret = kb_error(KB_ERROR, "no verdict");
	free(alive);
	kb_perf_obs_free(scaled, nscaled);
	free_ctx(&c);
	if (flip) {
		struct kb_perf_in f = *orig;

		json_decref(out->summary);
		json_decref(out->verdict);
		f.p.higher_is_better = !f.p.higher_is_better;
		f.p.either = 0;
		return kb_perf_decide(&f, out);
	}
	return ret;
}
