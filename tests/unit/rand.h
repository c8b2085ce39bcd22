/* A reproducible generator for tests, and random DAGs in kb_graph form. */
#ifndef KB_TEST_RAND_H
#define KB_TEST_RAND_H

#include <stdint.h>

#include <stdlib.h>

#include "graph.h"
#include "util.h"

static inline uint64_t trand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A straight history 0 <- 1 <- ... <- n-1: node 0 is the tip. */
static inline void linear_graph(struct kb_graph *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		kb_graph_add_node(g);
		if (i + 1 < n)
			kb_graph_add_parent(g, i + 1);
	}
}

/*
 * A random history in kb_graph order (children first), about n nodes:
 * built oldest first with up to four branch heads that grow, fork and
 * merge, then merged into one tip, node 0.  Every node is an ancestor of
 * node 0.  Returns the node count.
 */
static inline size_t random_dag(struct kb_graph *g, size_t n, int merge_pct, uint64_t seed)
{
	size_t heads[4], nheads = 1, total, i, k;
	size_t (*par)[2] = kb_calloc(n + 8, sizeof(*par));
	int *np = kb_calloc(n + 8, sizeof(*np));
	uint64_t s = seed;

	heads[0] = 0; /* creation index 0 is the root */
	for (total = 1; total < n || nheads > 1; total++) {
		uint64_t r = trand(&s) % 100;

		if (total >= n || (nheads > 1 && (int)r < merge_pct)) {
			/* merge the last head into the first */
			par[total][0] = heads[0];
			par[total][1] = heads[nheads - 1];
			np[total] = 2;
			heads[0] = total;
			nheads--;
		} else if (nheads < 4 && r > 85) {
			/* fork from a recent commit */
			par[total][0] = total - 1 - trand(&s) % (total < 6 ? total : 6);
			np[total] = 1;
			heads[nheads++] = total;
		} else {
			k = trand(&s) % nheads;
			par[total][0] = heads[k];
			np[total] = 1;
			heads[k] = total;
		}
	}
	/* creation index c becomes graph node total-1-c */
	for (i = 0; i < total; i++) {
		size_t c = total - 1 - i;

		kb_graph_add_node(g);
		for (k = 0; k < (size_t)np[c]; k++)
			kb_graph_add_parent(g, total - 1 - par[c][k]);
	}
	free(par);
	free(np);
	return total;
}

#endif
