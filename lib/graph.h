/*
 * graph.h - the candidate history as a plain graph, and the pure functions
 * on it that a bisection needs.
 *
 * Nodes are numbered 0..n-1 in topological order, children before parents
 * (the order a revision walk gives).  Each node lists its parents inside the
 * graph; parents outside it (ancestors of a GOOD) are not listed.  Nothing
 * here touches a repository, so strategies are testable on hand-made graphs.
 */
#ifndef KB_GRAPH_H
#define KB_GRAPH_H

#include <stddef.h>

struct kb_graph {
	size_t n;
	size_t *poff; /* parents of node i: par[poff[i] .. poff[i+1]) */
	size_t *par;
	size_t npar_alloc;
};

#define KB_GRAPH_INIT { 0, NULL, NULL, 0 }

/* Build a graph from per-node parent lists given one node at a time:
 * kb_graph_add_node() appends node n, then its parents with
 * kb_graph_add_parent() (each parent index must be > the node's index). */
void kb_graph_add_node(struct kb_graph *g);
void kb_graph_add_parent(struct kb_graph *g, size_t parent);
void kb_graph_release(struct kb_graph *g);

static inline size_t kb_graph_nparents(const struct kb_graph *g, size_t i)
{
	return g->poff[i + 1] - g->poff[i];
}

static inline size_t kb_graph_parent(const struct kb_graph *g, size_t i, size_t k)
{
	return g->par[g->poff[i] + k];
}

/* mark[i] |= bit for every ancestor of 'from' (inclusive) with alive[i]
 * set (alive may be NULL: all nodes).  Returns the number of nodes marked
 * now or before. */
size_t kb_graph_mark_ancestors(const struct kb_graph *g, size_t from,
			       const unsigned char *alive, unsigned char *mark,
			       unsigned char bit);

/*
 * For every alive node i: out[i] = sum of mass[j] over the alive ancestors j
 * of i, i inclusive (mass NULL counts nodes).  out[i] is left 0 for nodes
 * that are not alive.  Parents of an alive node that are not alive must have
 * no alive ancestors (true of any set cut by GOOD marks).
 */
void kb_graph_reach(const struct kb_graph *g, const unsigned char *alive,
		    const double *mass, double *out);

#endif
