#include "bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *kb_mark_name(char mark)
{
	return mark == KB_MARK_GOOD ? "good" : mark == KB_MARK_BAD ? "bad" : "skip";
}

size_t kb_bisect_alive(const struct kb_graph *g, size_t bad, const char *marks,
		       unsigned char *alive, size_t *nalive)
{
	unsigned char *m = kb_calloc(g->n, 1);
	size_t i, cur = bad, count = 0;

	kb_graph_mark_ancestors(g, bad, NULL, m, 1);
	for (i = 0; i < g->n; i++)
		if (marks[i] == KB_MARK_BAD && (m[i] & 1)) {
			/* a lower BAD: keep only its ancestors */
			memset(alive, 0, g->n);
			kb_graph_mark_ancestors(g, i, m, alive, 1);
			for (size_t j = 0; j < g->n; j++)
				m[j] = alive[j];
			cur = i;
		}
	for (i = 0; i < g->n; i++)
		if (marks[i] == KB_MARK_GOOD) {
			/* a GOOD off the current range still clears the
			 * ancestors it shares with it */
			memset(alive, 0, g->n);
			kb_graph_mark_ancestors(g, i, NULL, alive, 1);
			for (size_t j = 0; j < g->n; j++)
				if (alive[j])
					m[j] = 0;
		}
	for (i = 0; i < g->n; i++) {
		alive[i] = m[i] ? 1 : 0;
		count += alive[i];
	}
	free(m);
	*nalive = count;
	return cur;
}

static int steps_for(size_t n)
{
	int s = 0;

	while (n > 1) {
		n /= 2;
		s++;
	}
	return s;
}

/* A reproducible number in [0, 1) from the seed and a counter. */
static double prn(uint64_t seed, uint64_t k)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (k + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

struct cand {
	size_t node, split;
};

static int by_split(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->split != y->split)
		return x->split > y->split ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

int kb_bisect_next(const struct kb_graph *g, size_t bad, const char *marks,
		   uint64_t seed, struct kb_next *out)
{
	unsigned char *alive = kb_calloc(g->n ? g->n : 1, 1);
	double *w = kb_calloc(g->n ? g->n : 1, sizeof(*w));
	struct cand *c = kb_malloc((g->n ? g->n : 1) * sizeof(*c));
	size_t i, n, nc = 0, nskip = 0, cur;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < g->n; i++)
		if (marks[i] == KB_MARK_GOOD) {
			unsigned char *m = kb_calloc(g->n, 1);
			size_t j;
			int bad_below = 0;

			kb_graph_mark_ancestors(g, i, NULL, m, 1);
			for (j = 0; j < g->n; j++)
				if (m[j] && marks[j] == KB_MARK_BAD)
					bad_below = 1;
			free(m);
			if (bad_below) {
				free(alive);
				free(w);
				free(c);
				return kb_error(KB_EINVAL,
						"a commit marked good descends from one marked bad: "
						"the marks contradict each other");
			}
		}
	cur = kb_bisect_alive(g, bad, marks, alive, &n);
	kb_graph_reach(g, alive, NULL, w);
	for (i = 0; i < g->n; i++) {
		size_t wi, split;

		if (!alive[i] || i == cur)
			continue;
		if (marks[i] == KB_MARK_SKIP) {
			nskip++;
		}
		wi = (size_t)w[i];
		split = wi < n - wi ? wi : n - wi;
		if (split > out->best)
			out->best = split;
		if (marks[i] != KB_MARK_SKIP) {
			c[nc].node = i;
			c[nc].split = split;
			nc++;
		}
	}
	out->nleft = n;
	if (!nc) {
		if (!nskip) {
			out->kind = KB_NEXT_FOUND;
			out->commit = cur;
		} else {
			out->kind = KB_NEXT_SUSPECTS;
			out->suspects = kb_malloc(n * sizeof(*out->suspects));
			for (i = 0; i < g->n; i++)
				if (alive[i])
					out->suspects[out->nsuspects++] = i;
		}
		goto done;
	}
	qsort(c, nc, sizeof(*c), by_split);
	out->kind = KB_NEXT_TEST;
	out->commit = c[0].node;
	out->split = c[0].split;
	if (c[0].split < out->best) {
		/*
		 * The best split is skipped.  Skipped commits come in runs (a
		 * broken build spans several), so the next best would likely fail
		 * too: jump a reproducible, front-weighted distance down the list
		 * of good splits instead, as git's skip_away does.
		 */
		double x = prn(seed, nskip);
		size_t k = (size_t)(nc * x * sqrt(x));

		if (k >= nc)
			k = nc - 1;
		out->commit = c[k].node;
		out->split = c[k].split;
	}
	out->steps_left = steps_for(n - out->split);
done:
	free(alive);
	free(w);
	free(c);
	return 0;
}

size_t kb_bisect_multi(const struct kb_graph *g, size_t bad, const char *marks,
		       const unsigned char *busy, size_t k, size_t *out)
{
	unsigned char *alive, *taken, *used;
	double *w;
	size_t i, j, n, cur, nout = 0;

	if (!g->n || !k)
		return 0;
	alive = kb_calloc(g->n, 1);
	taken = kb_calloc(k, 1);
	used = kb_calloc(g->n, 1);
	w = kb_calloc(g->n, sizeof(*w));
	cur = kb_bisect_alive(g, bad, marks, alive, &n);
	kb_graph_reach(g, alive, NULL, w);
	/* each commit under test takes the free place nearest it */
	for (i = 0; busy && i < g->n; i++) {
		size_t best = k;
		double d = 0;

		if (!busy[i] || !alive[i] || i == cur)
			continue;
		used[i] = 1;
		for (j = 0; j < k; j++) {
			double dj = fabs(w[i] - (double)(j + 1) * (double)n / (double)(k + 1));

			if (!taken[j] && (best == k || dj < d)) {
				best = j;
				d = dj;
			}
		}
		if (best < k)
			taken[best] = 1;
	}
	/* the other places: the nearest commit not skipped, busy or chosen */
	for (j = 0; j < k; j++) {
		double target = (double)(j + 1) * (double)n / (double)(k + 1), d = 0;
		size_t best = g->n;

		if (taken[j])
			continue;
		for (i = 0; i < g->n; i++) {
			double di;

			if (!alive[i] || i == cur || used[i] || marks[i] == KB_MARK_SKIP)
				continue;
			di = fabs(w[i] - target);
			if (best == g->n || di < d || (di == d && i < best)) {
				best = i;
				d = di;
			}
		}
		if (best == g->n)
			break;
		used[best] = 1;
		out[nout++] = best;
	}
	free(alive);
	free(taken);
	free(used);
	free(w);
	return nout;
}

int kb_bisect_rounds(size_t n, size_t k)
{
	int r = 0;

	while (n > 1) {
		n = (n + k) / (k + 1);
		r++;
	}
	return r;
}

void kb_next_release(struct kb_next *next)
{
	free(next->suspects);
	memset(next, 0, sizeof(*next));
}
