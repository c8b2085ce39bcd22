/*
 * bisect.h - pass/fail bisection on a kb_graph: which commit to test next,
 * and when the answer is known.  A pure function of the graph and the marks,
 * as git bisect is of the revision graph and refs/bisect/.
 */
#ifndef KB_BISECT_H
#define KB_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"

enum kb_mark {
	KB_MARK_NONE = 0,
	KB_MARK_GOOD = 'g',
	KB_MARK_BAD = 'b',
	KB_MARK_SKIP = 's',
};

/* "good", "bad" or "skip": the word of a mark, as git bisect says it. */
const char *kb_mark_name(char mark);

enum kb_next_kind {
	KB_NEXT_TEST,     /* test 'commit' */
	KB_NEXT_FOUND,    /* 'commit' is the first bad commit */
	KB_NEXT_SUSPECTS, /* only skipped commits are left: one of 'suspects' */
};

struct kb_next {
	enum kb_next_kind kind;
	size_t commit;
	size_t nleft;     /* candidates still possible, BAD included */
	size_t split;     /* min(w, nleft - w) of the chosen commit */
	size_t best;      /* the best split any candidate offers */
	int steps_left;   /* roughly how many tests remain after this one */
	size_t *suspects; /* KB_NEXT_SUSPECTS: node indices, malloc'd */
	size_t nsuspects;
};

/*
 * Decide the next step.  'bad' is the node of the BAD endpoint; marks[i] is
 * a kb_mark for every node.  'seed' makes the choice among skipped
 * neighbours reproducible.  Returns 0, or KB_EINVAL when the marks
 * contradict each other (a GOOD mark on a descendant of a BAD one).
 */
int kb_bisect_next(const struct kb_graph *g, size_t bad, const char *marks,
		   uint64_t seed, struct kb_next *out);
void kb_next_release(struct kb_next *next);

/*
 * Commits to test at once on 'k' machines: chosen so that their results
 * cut the candidates into k + 1 parts as equal as the graph allows (the
 * commit whose count of candidate ancestors, itself included, is nearest
 * j * n / (k + 1) for j = 1..k; with k = 1 the best split of
 * kb_bisect_next()).  Commits with busy[i] set (may be NULL) are being
 * tested already: each takes the place nearest it, and only the places
 * left are filled, so out[] holds new commits only, at most k minus the
 * busy ones.  Skipped commits are never chosen.  Returns how many were
 * written; 0 when there is nothing to test (see kb_bisect_next()).
 */
size_t kb_bisect_multi(const struct kb_graph *g, size_t bad, const char *marks,
		       const unsigned char *busy, size_t k, size_t *out);

/* Rounds of k tests at once that n candidates take, roughly:
 * log_{k+1}(n), rounded up. */
int kb_bisect_rounds(size_t n, size_t k);

/* The candidate set under the marks: alive[i] = 1 for possible culprits.
 * Returns the node of the lowest BAD (the current bad). */
size_t kb_bisect_alive(const struct kb_graph *g, size_t bad, const char *marks,
		       unsigned char *alive, size_t *nalive);

#endif
