/* Bisection of a failure that shows only some of the time (flaky.h). */
#include "flaky.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

void kb_flaky_params_default(struct kb_flaky_params *p)
{
	memset(p, 0, sizeof(*p));
	p->confidence = 0.95;
	p->min_rate = 0.1;
	p->max_runs = 2000;
	p->build_cost = 0;
	p->q_a = 0.5;
	p->q_b = 0.5;
	p->e_a = 1;
	p->e_b = 99;
	p->solid = 0.5;
}

int kb_flaky_bad_runs(double rate)
{
	if (!(rate > 0) || rate >= 1)
		return 1;
	return (int)ceil(log(0.05) / log1p(-rate));
}

static double lbeta(double a, double b)
{
	return lgamma(a) + lgamma(b) - lgamma(a + b);
}

/* P(X <= x) for X of Beta(a, b). */
static double beta_cdf(double x, double a, double b)
{
	return kb_beta_inc(a, b, x);
}

double kb_beta_quantile(double p, double a, double b)
{
	double lo = 0, hi = 1;
	int i;

	for (i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (beta_cdf(mid, a, b) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* What the runs say, for every node: runs and failures of the commits
 * that hold it (the commits it is an ancestor of, itself included), and
 * over all. */
struct tally {
	double *n1, *f1;    /* per node */
	double n, f;        /* every run, GOOD's too */
};

static void tally_runs(const struct kb_flaky_in *in, struct tally *t)
{
	size_t n = in->g->n, i, j;
	unsigned char *mark = kb_calloc(n ? n : 1, 1);

	t->n1 = kb_calloc(n ? n : 1, sizeof(double));
	t->f1 = kb_calloc(n ? n : 1, sizeof(double));
	t->n = t->f = 0;
	for (i = 0; i < in->nc; i++) {
		const struct kb_flaky_count *c = &in->c[i];

		t->n += c->runs;
		t->f += c->fails;
		if (c->node < 0 || (size_t)c->node >= n || !c->runs)
			continue;
		memset(mark, 0, n);
		kb_graph_mark_ancestors(in->g, (size_t)c->node, NULL, mark, 1);
		for (j = 0; j < n; j++)
			if (mark[j]) {
				t->n1[j] += c->runs;
				t->f1[j] += c->fails;
			}
	}
	free(mark);
}

static void tally_release(struct tally *t)
{
	free(t->n1);
	free(t->f1);
}

/* The log of the chance of 'f' failures in 'n' runs (in a given order)
 * at a rate of Beta(a, b) cut to [lo, 1]. */
static double log_marginal(double a, double b, double f, double n, double lo)
{
	double l = lbeta(a + f, b + n - f) - lbeta(a, b);

	if (lo > 0)
		l += log1p(-beta_cdf(lo, a + f, b + n - f)) - log1p(-beta_cdf(lo, a, b));
	return l;
}

/* The same with weight 'w' on a failure that shows in every run (and
 * 1 - w on the rate of Beta(a, b) cut to [lo, 1]). */
static double log_marginal_q(double w, double a, double b, double f, double n, double lo)
{
	double l = log_marginal(a, b, f, n, lo);

	if (!(w > 0))
		return l;
	if (f < n)
		return log1p(-w) + l;
	return log(w + (1 - w) * exp(l));
}

/* The weight of a failure that shows in every run after 'f' failures in
 * 'n' runs, from 'w' before them. */
static double solid_post(double w, double a, double b, double f, double n, double lo)
{
	double m;

	if (!(w > 0) || f < n)
		return 0;
	m = exp(log_marginal(a, b, f, n, lo));
	return w / (w + (1 - w) * m);
}

/* The log of the runs' likelihood were 'k' the culprit, both rates
 * integrated out: the failure, once in, shows in every run (a test that
 * always fails; prior weight 'solid') or at a rate no less than
 * 'min_rate' (a culprit whose commits fail less often than that is not
 * looked for, and would pass for the false alarms). */
static double log_like(const struct kb_flaky_params *p, const struct tally *t, size_t k)
{
	double n1 = t->n1[k], f1 = t->f1[k], n0 = t->n - n1, f0 = t->f - f1;

	return log_marginal_q(p->solid, p->q_a, p->q_b, f1, n1, p->min_rate) +
	       log_marginal(p->e_a, p->e_b, f0, n0, 0);
}

/* The mean of Beta(a, b) cut to [lo, 1]. */
static double cut_mean(double a, double b, double lo)
{
	double tail;

	if (!(lo > 0))
		return a / (a + b);
	tail = 1 - beta_cdf(lo, a, b);
	if (!(tail > 1e-300))
		return lo;
	return a / (a + b) * (1 - beta_cdf(lo, a + 1, b)) / tail;
}

static void posterior(const struct kb_flaky_in *in, const struct tally *t, double *post)
{
	size_t n = in->g->n, i;
	double top = -INFINITY, sum = 0;

	for (i = 0; i < n; i++) {
		post[i] = log_like(&in->p, t, i);
		top = fmax(top, post[i]);
	}
	for (i = 0; i < n; i++) {
		post[i] = exp(post[i] - top);
		sum += post[i];
	}
	for (i = 0; i < n; i++)
		post[i] /= sum;
}

static int check_input(const struct kb_flaky_in *in)
{
	size_t i;

	if (!in->g || !in->g->n || in->bad >= in->g->n)
		return kb_error(KB_EINVAL, "flaky: no range to bisect");
	for (i = 0; i < in->nc; i++)
		if (in->c[i].runs < 0 || in->c[i].fails < 0 || in->c[i].fails > in->c[i].runs ||
		    in->c[i].node >= (long)in->g->n)
			return kb_error(KB_EINVAL, "flaky: bad counts for node %ld",
					in->c[i].node);
	return 0;
}

int kb_flaky_posterior(const struct kb_flaky_in *in, double *post)
{
	struct tally t;
	int ret;

	if ((ret = check_input(in)) < 0)
		return ret;
	tally_runs(in, &t);
	posterior(in, &t, post);
	tally_release(&t);
	return 0;
}

/* The runs and failures of 'node' (-1: GOOD). */
static void count_of(const struct kb_flaky_in *in, long node, int *runs, int *fails)
{
	size_t i;

	*runs = *fails = 0;
	for (i = 0; i < in->nc; i++)
		if (in->c[i].node == node) {
			*runs += in->c[i].runs;
			*fails += in->c[i].fails;
		}
}

/* The runs of 'node' that failed another way. */
static int other_of(const struct kb_flaky_in *in, long node)
{
	size_t i;
	int n = 0;

	for (i = 0; i < in->nc; i++)
		if (in->c[i].node == node)
			n += in->c[i].other;
	return n;
}

/* Most of its runs fail another way: the commit cannot be judged. */
static int masked(int runs, int other)
{
	return other >= 3 && other >= 2 * runs;
}

/*
 * How likely a commit of 'runs' runs and 'fails' failures is clean, on
 * its own runs: even odds before them, the rate of a commit that holds
 * the culprit from Beta(qa, qb) cut at 'lo' and the false-alarm rate from
 * Beta(ea, eb), each integrated out (what the other commits say of them).
 */
static double clean_prob(int runs, int fails, double qa, double qb, double lo, double ea,
			 double eb)
{
	double l_dirty = log_marginal(qa, qb, fails, runs, lo);
	double l_clean = log_marginal(ea, eb, fails, runs, 0);

	return 1 / (1 + exp(l_dirty - l_clean));
}

/* The p quantile of Beta(a, b) cut to [lo, 1]. */
static double cut_quantile(double p, double a, double b, double lo)
{
	double flo = lo > 0 ? beta_cdf(lo, a, b) : 0;

	return kb_beta_quantile(flo + p * (1 - flo), a, b);
}

/*
 * The expected fall of the posterior's entropy from one more run of each
 * node, over what that run costs ('build_cost' runs more for a commit not
 * run yet): the node with the most, -1 when none would tell anything.
 * The run fails at the rate of the culprits it holds, each at its own
 * estimate, or at that of the false alarms of those it does not.
 */
static long best_probe(const struct kb_flaky_in *in, const struct tally *t, const double *post)
{
	const struct kb_flaky_params *p = &in->p;
	size_t n = in->g->n, i;
	double *plogp = kb_calloc(n, sizeof(double)), *w = kb_calloc(n, sizeof(double));
	double *s = kb_calloc(n, sizeof(double)), *mq = kb_calloc(n, sizeof(double));
	double *me = kb_calloc(n, sizeof(double)), *wq = kb_calloc(n, sizeof(double));
	double *we = kb_calloc(n, sizeof(double));
	double h, stot = 0, etot = 0, top = 1e-9;
	int cap = kb_flaky_bad_runs(p->min_rate);
	long best = -1;

	for (i = 0; i < n; i++) {
		double n1 = t->n1[i], f1 = t->f1[i], ws;

		plogp[i] = post[i] > 0 ? post[i] * log(post[i]) : 0;
		stot += plogp[i];
		ws = solid_post(p->solid, p->q_a, p->q_b, f1, n1, p->min_rate);
		mq[i] = post[i] * (ws + (1 - ws) * cut_mean(p->q_a + f1, p->q_b + n1 - f1,
							      p->min_rate));
		me[i] = post[i] * (p->e_a + t->f - f1) / (p->e_a + p->e_b + t->n - n1);
		etot += me[i];
	}
	h = -stot;
	kb_graph_reach(in->g, NULL, post, w);
	kb_graph_reach(in->g, NULL, plogp, s);
	kb_graph_reach(in->g, NULL, mq, wq);
	kb_graph_reach(in->g, NULL, me, we);
	for (i = 0; i < n; i++) {
		double wa = fmin(fmax(w[i], 0), 1), sa = s[i], sb = stot - sa, gain = h;
		double q = wa > 1e-12 ? wq[i] / wa : 0;
		double e = wa < 1 - 1e-12 ? (etot - we[i]) / (1 - wa) : 0;
		double pf, pp;
		int k, r, f, o;

		q = fmin(fmax(q, 0), 1);
		e = fmin(fmax(e, 0), 1);
		pf = wa * q + (1 - wa) * e;
		pp = 1 - pf;
		for (k = 0; k < 2; k++) {
			double pr = k ? pf : pp, a, b, hk = 0;

			if (!(pr > 0))
				continue;
			a = (k ? q : 1 - q) / pr;
			b = (k ? e : 1 - e) / pr;
			if (a > 0)
				hk -= a * (sa + wa * log(a));
			if (b > 0)
				hk -= b * (sb + (1 - wa) * log(b));
			gain -= pr * hk;
		}
		if (in->skip && in->skip[i])
			continue;
		count_of(in, (long)i, &r, &f);
		o = other_of(in, (long)i);
		/* a run that fails another way tells nothing: the gain is had
		 * only as often as its runs count, and a commit is given up
		 * once it failed another way in as many runs as BAD may take
		 * to fail */
		if (o >= cap && masked(r, o))
			continue;
		gain *= (r + 1.0) / (r + o + 1.0);
		if (!r)
			gain /= 1 + p->build_cost;
		if (gain > top) {
			top = gain;
			best = (long)i;
		}
	}
	free(plogp);
	free(w);
	free(s);
	free(mq);
	free(me);
	free(wq);
	free(we);
	return best;
}

static void say(struct kb_flaky_out *out, enum kb_flaky_kind kind, long node, const char *role,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void say(struct kb_flaky_out *out, enum kb_flaky_kind kind, long node, const char *role,
		const char *fmt, ...)
{
	va_list ap;

	out->kind = kind;
	out->node = node;
	out->role = role;
	va_start(ap, fmt);
	vsnprintf(out->note, sizeof(out->note), fmt, ap);
	va_end(ap);
}

static void done(struct kb_flaky_out *out, const char *verdict, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void done(struct kb_flaky_out *out, const char *verdict, const char *fmt, ...)
{
	va_list ap;

	out->kind = KB_FLAKY_DONE;
	out->node = -1;
	out->role = NULL;
	out->verdict = verdict;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
		va_end(ap);
	}
}

int kb_flaky_decide(const struct kb_flaky_in *in, struct kb_flaky_out *out)
{
	const struct kb_flaky_params *p = &in->p;
	size_t n, i;
	struct tally t;
	double *post, qa, qb, ea, eb, conf = p->confidence, vqa, vqb, vcheck;
	/* a check that a commit is clean at a fifth of the posterior's risk
	 * unless the failure is seen to show in most runs: with few failures,
	 * or a low rate, a few failures in a row make the rate look higher
	 * than it is and passes tell more than they do (the confidence there
	 * let 1-2% of flaky bisections through); and a check is failed at
	 * that risk alone */
	double strict = 1 - (1 - conf) / 5;
	int bad_runs, bad_fails, good_runs, good_fails, cap = kb_flaky_bad_runs(p->min_rate);
	int ccap;
	int ret;
	long best = 0, probe;

	if ((ret = check_input(in)) < 0)
		return ret;
	ccap = 3 * (int)ceil(log(1 - strict) / log1p(-p->min_rate));
	memset(out, 0, sizeof(*out));
	out->best = -1;
	out->culprit_check = out->parent_check = out->revert_check = "n/a";
	n = in->g->n;
	count_of(in, (long)in->bad, &bad_runs, &bad_fails);
	count_of(in, -1, &good_runs, &good_fails);
	out->good_failed = good_fails > 0;
	tally_runs(in, &t);
	post = kb_calloc(n, sizeof(double));
	posterior(in, &t, post);
	for (i = 0; i < n; i++)
		if (post[i] > post[best])
			best = (long)i;
	qa = p->q_a + t.f1[best];
	qb = p->q_b + t.n1[best] - t.f1[best];
	ea = p->e_a + t.f - t.f1[best];
	eb = p->e_b + (t.n - t.n1[best]) - (t.f - t.f1[best]);
	out->best = best;
	out->prob = post[best];
	out->q = cut_mean(qa, qb, p->min_rate);
	out->q_lo = cut_quantile(0.05, qa, qb, p->min_rate);
	out->q_hi = cut_quantile(0.95, qa, qb, p->min_rate);
	out->e = ea / (ea + eb);
	out->e_hi = kb_beta_quantile(0.95, ea, eb);

	/* 1. BAD must fail */
	if (!bad_fails) {
		out->best = -1;
		if (bad_runs < cap)
			say(out, KB_FLAKY_RUN, (long)in->bad, "bad", "BAD until it fails: run %d "
			    "of at most %d (a failure rate of %g would show in as many at 95%%)",
			    bad_runs + 1, cap, p->min_rate);
		else
			done(out, "no-regression", "the failure did not reproduce on BAD in %d "
			     "run%s", bad_runs, bad_runs == 1 ? "" : "s");
		goto out;
	}
	/* 2. GOOD once: a GOOD that fails as often as BAD shows at once; its
	 * full check is the verification's when the culprit's parent is out
	 * of the range */
	if (!good_runs) {
		say(out, KB_FLAKY_RUN, -1, "good", "GOOD, to see that it does not fail");
		goto out;
	}
	if ((double)t.n >= p->max_runs) {
		done(out, "inconclusive", "the budget of %d runs is spent; the likeliest "
		     "culprit holds %.0f%%", p->max_runs, 100 * post[best]);
		goto out;
	}
	/* 3. probe until one commit holds the confidence */
	if (post[best] < conf) {
		probe = best_probe(in, &t, post);
		if (probe < 0) {
			done(out, "inconclusive", "no commit's runs would tell more; the "
			     "likeliest culprit holds %.0f%%", 100 * post[best]);
			goto out;
		}
		{
			int r, f;

			count_of(in, probe, &r, &f);
			say(out, KB_FLAKY_RUN, probe, "probe", "probe, %d run%s so far, %d "
			    "failed; the likeliest culprit holds %.0f%%", r, r == 1 ? "" : "s", f,
			    100 * post[best]);
		}
		goto out;
	}
	/*
	 * 4. verify, each commit on its own runs.  The rate they go by is
	 * BAD's and the culprit's own: the probes' say as much only through
	 * the culprit the posterior puts among them, and a few failures in
	 * a row there make a rate look higher than it is, and passes tell
	 * more than they do.  A check that needs more runs than BAD has had
	 * runs BAD first (a boot, no build).
	 */
	{
		int r, f;

		count_of(in, best, &r, &f);
		vqa = p->q_a + bad_fails + (best != (long)in->bad ? f : 0);
		vqb = p->q_b + (bad_runs - bad_fails) + (best != (long)in->bad ? r - f : 0);
		/* at the confidence where the failure shows in most runs (a
		 * test that always fails is checked in a few), at 'strict'
		 * where that is not yet seen */
		vcheck = kb_beta_quantile(0.1, vqa, vqb) >= 0.6 ? conf : strict;
	}
	/* the culprit fails itself, often enough to be seen as holding the
	 * bug on its own runs (a false alarm is not enough) */
	{
		int r, f;
		double pc;

		count_of(in, best, &r, &f);
		if (in->skip && in->skip[best]) {
			out->culprit_check = "fail";
			done(out, "inconclusive", "the likely culprit cannot be tested (it was "
			     "skipped)");
			goto out;
		}
		if (other_of(in, best) >= cap && masked(r, other_of(in, best))) {
			out->culprit_check = "fail";
			done(out, "inconclusive", "the likely culprit fails another way in %d "
			     "runs: whether it fails the bug's way cannot be told",
			     other_of(in, best));
			goto out;
		}
		pc = clean_prob(r, f, p->q_a + bad_fails, p->q_b + bad_runs - bad_fails,
				0, ea, eb);
		if (1 - pc < conf) {
			if (r >= ccap && !f) {
				out->culprit_check = "fail";
				done(out, "inconclusive", "the likely culprit did not fail in %d "
				     "runs", r);
			} else if (r >= 2 * ccap) {
				out->culprit_check = "fail";
				done(out, "inconclusive", "the likely culprit failed in %d of %d "
				     "runs only: no more than false alarms do", f, r);
			} else {
				say(out, KB_FLAKY_RUN, best, "culprit", "verify: the likely culprit, "
				    "%.0f%%, must fail itself (run %d)", 100 * post[best], r + 1);
			}
			goto out;
		}
		out->culprit_check = "pass";
	}
	/* each parent, GOOD when it has none in the range, clean on its own
	 * runs; the rates from what the other commits say */
	{
		size_t np = kb_graph_nparents(in->g, (size_t)best), k;

		for (k = 0; k < (np ? np : 1); k++) {
			long par = np ? (long)kb_graph_parent(in->g, (size_t)best, k) : -1;
			int r, f;
			double pc;

			count_of(in, par, &r, &f);
			if (par >= 0 && in->skip && in->skip[par]) {
				out->parent_check = "fail";
				done(out, "inconclusive", "the parent of the likely culprit cannot "
				     "be tested (it was skipped)");
				goto out;
			}
			if (other_of(in, par) >= cap && masked(r, other_of(in, par))) {
				out->parent_check = "fail";
				done(out, "inconclusive", "the parent of the likely culprit fails "
				     "another way in %d runs: whether it is clean cannot be told",
				     other_of(in, par));
				goto out;
			}
			pc = clean_prob(r, f, vqa, vqb, p->min_rate, ea - f, eb - (r - f));
			if (pc >= vcheck)
				continue;
			if (bad_runs <= r && bad_runs < ccap) {
				say(out, KB_FLAKY_RUN, (long)in->bad, "bad", "verify: BAD again, "
				    "for the rate the checks go by (%d of %d runs failed)",
				    bad_fails, bad_runs);
			} else if (r >= ccap) {
				out->parent_check = "fail";
				done(out, "inconclusive", "the parent of the likely culprit is not "
				     "seen clean in %d runs (%d failed)", r, f);
			} else {
				say(out, KB_FLAKY_RUN, par, par < 0 ? "good" : "parent",
				    "verify: %s of the likely culprit, %.0f%% clean so far, "
				    "run %d", par < 0 ? "GOOD, the parent" : "the parent",
				    100 * pc, r + 1);
			}
			goto out;
		}
		out->parent_check = "pass";
	}
	/* the culprit reverted on BAD, clean as the parent is */
	if (in->revert_of != best) {
		say(out, KB_FLAKY_REVERT, best, "revert", "verify: revert the likely culprit "
		    "on top of BAD");
		goto out;
	}
	if (in->revert_made && in->revert_other >= cap &&
	    masked(in->revert_runs, in->revert_other)) {
		/* like a revert that does not apply: no check */
		out->revert_check = "n/a";
	} else if (in->revert_made) {
		double pc = clean_prob(in->revert_runs, in->revert_fails, vqa, vqb, p->min_rate,
				       ea, eb);

		if (pc < vcheck) {
			if (bad_runs <= in->revert_runs && bad_runs < ccap &&
			    !(1 - pc >= strict)) {
				say(out, KB_FLAKY_RUN, (long)in->bad, "bad", "verify: BAD again, "
				    "for the rate the checks go by (%d of %d runs failed)",
				    bad_fails, bad_runs);
			} else if (in->revert_runs >= ccap || 1 - pc >= strict) {
				out->revert_check = "fail";
				done(out, "inconclusive", "reverting the likely culprit does not "
				     "stop the failure (%d of %d runs failed)", in->revert_fails,
				     in->revert_runs);
			} else {
				say(out, KB_FLAKY_RUN_REVERT, best, "revert", "verify: BAD with the "
				    "likely culprit reverted, %.0f%% clean so far, run %d",
				    100 * pc, in->revert_runs + 1);
			}
			goto out;
		}
		out->revert_check = "pass";
	}
	done(out, "culprit", NULL);
out:
	free(post);
	tally_release(&t);
	return 0;
}

/* The first line of 'text' that says what went wrong (an oops, a BUG, a
 * WARNING, a panic), up to the console's path a target adds to it; or,
 * without one, its last line that is not empty: a failure's title, into
 * 'out'.  1 when it is a kernel's (a mark was found). */
int kb_flaky_title(const char *text, char *out, size_t len)
{
	static const char *const marks[] = {
		"BUG:", "WARNING:", "Kernel panic", "Oops:", "general protection fault",
		"KASAN:", "UBSAN:", "INFO: task", "watchdog:", NULL
	};
	const char *p = text, *last = NULL;
	size_t n = 0;
	int i;

	*out = '\0';
	if (!text)
		return 0;
	while (*p) {
		size_t l = strcspn(p, "\n");

		for (i = 0; marks[i]; i++) {
			const char *m = strstr(p, marks[i]);

			if (m && m < p + l) {
				const char *c = strstr(m, " (console: ");

				snprintf(out, len, "%.*s",
					 (int)((c && c < p + l ? c : p + l) - m), m);
				return 1;
			}
		}
		if (l) {
			last = p;
			n = l;
		}
		p += l + (p[l] == '\n');
	}
	if (last)
		snprintf(out, len, "%.*s", (int)n, last);
	return 0;
}

/* The key of a title, by which two failures are the same: its numbers
 * (addresses, offsets, line numbers, pids, times) each made '#'. */
void kb_flaky_title_key(const char *t, char *out, size_t len)
{
	size_t o = 0;

	while (*t && o + 1 < len) {
		size_t w = 0, h = 0;

		while (isalnum((unsigned char)t[w]))
			w++;
		if (!w) {
			out[o++] = *t++;
			continue;
		}
		while (h < w && isxdigit((unsigned char)t[h]))
			h++;
		if (isdigit((unsigned char)*t) || (h == w && w >= 8)) {
			out[o++] = '#';   /* 42, 0x1c, ffffffff81000000 */
			t += w;
			continue;
		}
		while (w-- && o + 1 < len)
			out[o++] = *t++;
	}
	out[o] = '\0';
}
