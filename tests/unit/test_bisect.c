#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "rand.h"
#include "test.h"
#include "util.h"

/* Is 'culprit' an ancestor of (or equal to) 'node'? */
static int contains(const struct kb_graph *g, size_t node, size_t culprit)
{
	unsigned char *m = kb_calloc(g->n, 1);
	int r;

	kb_graph_mark_ancestors(g, node, NULL, m, 1);
	r = m[culprit];
	free(m);
	return r;
}

/* The best split any unskipped candidate offers, counted the slow way. */
static size_t best_split(const struct kb_graph *g, size_t bad, const char *marks)
{
	unsigned char *alive = kb_calloc(g->n, 1), *m = kb_calloc(g->n, 1);
	size_t n, i, j, best = 0;
	size_t cur = kb_bisect_alive(g, bad, marks, alive, &n);

	for (i = 0; i < g->n; i++) {
		size_t w = 0, split;

		if (!alive[i] || i == cur || marks[i] == KB_MARK_SKIP)
			continue;
		memset(m, 0, g->n);
		kb_graph_mark_ancestors(g, i, alive, m, 1);
		for (j = 0; j < g->n; j++)
			w += m[j];
		split = w < n - w ? w : n - w;
		if (split > best)
			best = split;
	}
	free(alive);
	free(m);
	return best;
}

/* Bisect with a deterministic oracle; returns the steps, or -1. */
static int simulate(const struct kb_graph *g, size_t culprit, size_t *found,
		    int check_splits)
{
	char *marks = kb_calloc(g->n, 1);
	struct kb_next next;
	int steps = 0;

	for (;;) {
		if (kb_bisect_next(g, 0, marks, 7, &next) < 0)
			return -1;
		if (next.kind != KB_NEXT_TEST)
			break;
		if (check_splits && next.split != best_split(g, 0, marks)) {
			kb_next_release(&next);
			free(marks);
			return -2;
		}
		marks[next.commit] = contains(g, next.commit, culprit) ?
			KB_MARK_BAD : KB_MARK_GOOD;
		kb_next_release(&next);
		steps++;
	}
	*found = next.kind == KB_NEXT_FOUND ? next.commit : (size_t)-1;
	kb_next_release(&next);
	free(marks);
	return steps;
}

TEST(test_bisect__linear_every_culprit)
{
	struct kb_graph g = KB_GRAPH_INIT;
	size_t i, n = 64, found;

	linear_graph(&g, n);
	for (i = 0; i < n; i++) {
		int steps = simulate(&g, i, &found, 1);

		CHECK_MSG(steps >= 0, "culprit %zu: error %d", i, steps);
		CHECK_MSG(found == i, "culprit %zu: found %zu", i, found);
		/* 64 candidates: 6 tests, at most 7 */
		CHECK_MSG(steps <= 7, "culprit %zu: %d steps", i, steps);
	}
	kb_graph_release(&g);
}

TEST(test_bisect__random_histories_best_split)
{
	uint64_t seed;

	for (seed = 1; seed <= 40; seed++) {
		struct kb_graph g = KB_GRAPH_INIT;
		size_t n = random_dag(&g, 60 + seed * 5, 15, seed), found;
		uint64_t s = seed * 31;
		size_t culprit = trand(&s) % n;
		int steps = simulate(&g, culprit, &found, 1);

		CHECK_MSG(steps != -2, "seed %llu: a step was not the best split",
			  (unsigned long long)seed);
		CHECK(steps >= 0);
		CHECK_MSG(found == culprit, "seed %llu: found %zu, culprit %zu",
			  (unsigned long long)seed, found, culprit);
		CHECK(steps <= (int)ceil(log2((double)n)) + 3);
		kb_graph_release(&g);
	}
}

TEST(test_bisect__skips_bordering_give_suspects)
{
	struct kb_graph g = KB_GRAPH_INIT;
	char marks[10] = { 0 };
	struct kb_next next;

	linear_graph(&g, 10);
	/* 9 is the oldest in range; culprit 5; 4 and 5 skipped, 6 good,
	 * 3 bad: the answer is one of 3, 4, 5 */
	marks[6] = KB_MARK_GOOD;
	marks[3] = KB_MARK_BAD;
	marks[4] = marks[5] = KB_MARK_SKIP;
	CHECK(kb_bisect_next(&g, 0, marks, 1, &next) == 0);
	CHECK(next.kind == KB_NEXT_SUSPECTS);
	CHECK(next.nsuspects == 3);
	CHECK(next.suspects[0] == 3 && next.suspects[1] == 4 && next.suspects[2] == 5);
	kb_next_release(&next);
	kb_graph_release(&g);
}

TEST(test_bisect__skip_moves_away_and_still_finds)
{
	struct kb_graph g = KB_GRAPH_INIT;
	char *marks = kb_calloc(101, 1);
	struct kb_next next;
	size_t culprit = 30;
	int guard = 0;

	linear_graph(&g, 101);
	/* commits 45..55 do not build: the tester answers skip */
	for (;;) {
		CHECK(kb_bisect_next(&g, 0, marks, 3, &next) == 0);
		if (next.kind != KB_NEXT_TEST)
			break;
		CHECK(marks[next.commit] == KB_MARK_NONE);
		if (next.commit >= 45 && next.commit <= 55)
			marks[next.commit] = KB_MARK_SKIP;
		else
			marks[next.commit] = next.commit <= culprit ? KB_MARK_BAD : KB_MARK_GOOD;
		kb_next_release(&next);
		CHECK(++guard < 60);
	}
	CHECK(next.kind == KB_NEXT_FOUND && next.commit == culprit);
	kb_next_release(&next);
	free(marks);
	kb_graph_release(&g);
}

TEST(test_bisect__contradictory_marks)
{
	struct kb_graph g = KB_GRAPH_INIT;
	char marks[5] = { 0 };
	struct kb_next next;

	linear_graph(&g, 5);
	marks[3] = KB_MARK_BAD;
	marks[1] = KB_MARK_GOOD; /* a descendant of a bad commit */
	CHECK(kb_bisect_next(&g, 0, marks, 1, &next) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "contradict"));
	kb_graph_release(&g);
}

TEST(test_bisect__good_off_the_range_cuts_shared_ancestors)
{
	/* 0 merges 1 (side) and 2 (main); 1 and 2 both descend from 3, 4 */
	struct kb_graph g = KB_GRAPH_INIT;
	char marks[5] = { 0 };
	unsigned char alive[5];
	size_t n;

	kb_graph_add_node(&g);
	kb_graph_add_parent(&g, 1);
	kb_graph_add_parent(&g, 2);
	kb_graph_add_node(&g);
	kb_graph_add_parent(&g, 3);
	kb_graph_add_node(&g);
	kb_graph_add_parent(&g, 3);
	kb_graph_add_node(&g);
	kb_graph_add_parent(&g, 4);
	kb_graph_add_node(&g);
	marks[1] = KB_MARK_BAD;
	marks[2] = KB_MARK_GOOD; /* not an ancestor of 1, but shares 3 and 4 */
	kb_bisect_alive(&g, 0, marks, alive, &n);
	CHECK(n == 1 && alive[1]);
	kb_graph_release(&g);
}

/* Candidate ancestors of each node (itself included), the slow way. */
static size_t weight(const struct kb_graph *g, size_t bad, const char *marks, size_t node)
{
	unsigned char *alive = kb_calloc(g->n, 1), *m = kb_calloc(g->n, 1);
	size_t n, j, w = 0;

	kb_bisect_alive(g, bad, marks, alive, &n);
	kb_graph_mark_ancestors(g, node, alive, m, 1);
	for (j = 0; j < g->n; j++)
		w += m[j];
	free(alive);
	free(m);
	return w;
}

TEST(test_bisect__multi_cuts_a_line_in_equal_parts)
{
	struct kb_graph g = KB_GRAPH_INIT;
	char *marks;
	unsigned char *busy;
	size_t out[8], n;

	linear_graph(&g, 1000);
	marks = kb_calloc(g.n, 1);
	busy = kb_calloc(g.n, 1);
	n = kb_bisect_multi(&g, 0, marks, NULL, 3, out);
	CHECK(n == 3);
	CHECK_MSG(weight(&g, 0, marks, out[0]) == 250 && weight(&g, 0, marks, out[1]) == 500 &&
		  weight(&g, 0, marks, out[2]) == 750, "%zu %zu %zu",
		  weight(&g, 0, marks, out[0]), weight(&g, 0, marks, out[1]),
		  weight(&g, 0, marks, out[2]));
	/* the middle is under test: the two quarters are what is left */
	busy[out[1]] = 1;
	marks[out[0]] = KB_MARK_SKIP;
	n = kb_bisect_multi(&g, 0, marks, busy, 3, out);
	CHECK(n == 2);
	CHECK(!busy[out[0]] && !busy[out[1]] && marks[out[0]] != KB_MARK_SKIP);
	CHECK_MSG(weight(&g, 0, marks, out[0]) == 249 || weight(&g, 0, marks, out[0]) == 251,
		  "%zu", weight(&g, 0, marks, out[0]));
	CHECK(weight(&g, 0, marks, out[1]) == 750);
	/* more machines than commits to test */
	memset(marks, 0, g.n);
	memset(busy, 0, g.n);
	for (size_t i = 4; i < g.n; i++)
		marks[i] = KB_MARK_GOOD;
	n = kb_bisect_multi(&g, 0, marks, NULL, 8, out);
	CHECK_MSG(n == 3, "%zu", n);
	free(marks);
	free(busy);
	kb_graph_release(&g);
}

/* Rounds of k tests at once until the answer; -1 on a wrong answer. */
static int rounds_to_find(const struct kb_graph *g, size_t culprit, size_t k)
{
	char *marks = kb_calloc(g->n, 1);
	size_t out[16], n, i;
	struct kb_next next;
	int rounds = 0, ok;

	while ((n = kb_bisect_multi(g, 0, marks, NULL, k, out)) > 0) {
		for (i = 0; i < n; i++)
			marks[out[i]] = contains(g, out[i], culprit) ? KB_MARK_BAD : KB_MARK_GOOD;
		rounds++;
	}
	ok = kb_bisect_next(g, 0, marks, 1, &next) == 0 && next.kind == KB_NEXT_FOUND &&
		next.commit == culprit;
	kb_next_release(&next);
	free(marks);
	return ok ? rounds : -1;
}

TEST(test_bisect__multi_rounds_are_log_k_plus_1)
{
	struct kb_graph g = KB_GRAPH_INIT;
	uint64_t seed;
	size_t c;

	/* a line of 1000: 10 rounds of one test, 5 of three, 3 of nine */
	linear_graph(&g, 1000);
	for (c = 0; c < g.n; c += 37) {
		int r1 = rounds_to_find(&g, c, 1), r3 = rounds_to_find(&g, c, 3),
		    r9 = rounds_to_find(&g, c, 9);

		CHECK_MSG(r1 >= 0 && r3 >= 0 && r9 >= 0, "culprit %zu", c);
		CHECK_MSG(r1 <= 10 && r3 <= 6 && r9 <= 4, "culprit %zu: %d %d %d", c, r1, r3, r9);
	}
	kb_graph_release(&g);
	/* merges: always the right answer, and fewer rounds with more machines */
	for (seed = 1; seed <= 20; seed++) {
		size_t n = random_dag(&g, 200 + seed * 10, 15, seed);
		uint64_t s = seed * 17;
		size_t culprit = trand(&s) % n;
		int r1 = rounds_to_find(&g, culprit, 1), r4 = rounds_to_find(&g, culprit, 4);

		CHECK_MSG(r1 >= 0 && r4 >= 0, "seed %llu", (unsigned long long)seed);
		CHECK_MSG(r4 <= (int)ceil(log((double)n) / log(5.0)) + 3 && r4 <= r1,
			  "seed %llu: %d rounds of 4, %d of 1, n %zu", (unsigned long long)seed,
			  r4, r1, n);
		kb_graph_release(&g);
	}
}

TEST(test_bisect__rounds_estimate)
{
	CHECK(kb_bisect_rounds(1, 4) == 0);
	CHECK(kb_bisect_rounds(2, 1) == 1);
	CHECK_MSG(kb_bisect_rounds(1000, 1) == 10, "%d", kb_bisect_rounds(1000, 1));
	CHECK_MSG(kb_bisect_rounds(1000, 4) == 5, "%d", kb_bisect_rounds(1000, 4));
	CHECK(kb_bisect_rounds(25, 4) == 2 && kb_bisect_rounds(26, 4) == 3);
}
