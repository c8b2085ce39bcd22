#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void kb_graph_add_node(struct kb_graph *g)
{
	size_t nparents = g->poff ? g->poff[g->n] : 0;

	g->poff = kb_realloc(g->poff, (g->n + 2) * sizeof(*g->poff));
	g->poff[g->n] = nparents;
	g->n++;
	g->poff[g->n] = nparents;
}

void kb_graph_add_parent(struct kb_graph *g, size_t parent)
{
	size_t at = g->poff[g->n];

	KB_ALLOC_GROW(g->par, at + 1, g->npar_alloc);
	g->par[at] = parent;
	g->poff[g->n] = at + 1;
}

void kb_graph_release(struct kb_graph *g)
{
	free(g->poff);
	free(g->par);
	memset(g, 0, sizeof(*g));
}

size_t kb_graph_mark_ancestors(const struct kb_graph *g, size_t from,
			       const unsigned char *alive, unsigned char *mark,
			       unsigned char bit)
{
	size_t *stack, sp = 0, count = 0, i, k;
	unsigned char *seen;

	if (alive && !alive[from])
		return 0;
	/* one block: the stack, then what was seen */
	stack = kb_malloc(g->n * (sizeof(*stack) + 1));
	seen = (unsigned char *)(stack + g->n);
	memset(seen, 0, g->n);

	stack[sp++] = from;
	seen[from] = 1;
	while (sp) {
		i = stack[--sp];
		mark[i] |= bit;
		count++;
		for (k = 0; k < kb_graph_nparents(g, i); k++) {
			size_t p = kb_graph_parent(g, i, k);

			if (seen[p] || (alive && !alive[p]))
				continue;
			seen[p] = 1;
			stack[sp++] = p;
		}
	}
	free(stack);
	return count;
}

/*
 * A node with one alive parent reaches exactly what its parent reaches plus
 * itself; only merges need a walk.  Walks use a generation-stamped visit
 * array so that no clearing is needed between them.
 */
void kb_graph_reach(const struct kb_graph *g, const unsigned char *alive,
		    const double *mass, double *out)
{
	size_t *stack = kb_malloc((g->n + 1) * sizeof(*stack));
	unsigned *visit = kb_calloc(g->n ? g->n : 1, sizeof(*visit));
	unsigned gen = 0;
	size_t i, k, sp;

	for (i = g->n; i-- > 0;) {
		size_t nalive = 0, only = 0;

		out[i] = 0;
		if (alive && !alive[i])
			continue;
		for (k = 0; k < kb_graph_nparents(g, i); k++) {
			size_t p = kb_graph_parent(g, i, k);

			if (!alive || alive[p]) {
				nalive++;
				only = p;
			}
		}
		if (nalive <= 1) {
			out[i] = (mass ? mass[i] : 1.0) + (nalive ? out[only] : 0);
			continue;
		}
		gen++;
		sp = 0;
		stack[sp++] = i;
		visit[i] = gen;
		while (sp) {
			size_t j = stack[--sp];

			out[i] += mass ? mass[j] : 1.0;
			for (k = 0; k < kb_graph_nparents(g, j); k++) {
				size_t p = kb_graph_parent(g, j, k);

				if (visit[p] == gen || (alive && !alive[p]))
					continue;
				visit[p] = gen;
				stack[sp++] = p;
			}
		}
	}
	free(visit);
	free(stack);
}
