#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rand.h"
#include "test.h"
#include "util.h"

TEST(test_graph__reach_linear)
{
	struct kb_graph g = KB_GRAPH_INIT;
	double w[10];
	size_t i;

	linear_graph(&g, 10);
	kb_graph_reach(&g, NULL, NULL, w);
	for (i = 0; i < 10; i++)
		CHECK(w[i] == (double)(10 - i));
	kb_graph_release(&g);
}

TEST(test_graph__reach_diamond)
{
	/* 0 merges 1 and 2, both children of 3 */
	struct kb_graph g = KB_GRAPH_INIT;
	double w[4];

	kb_graph_add_node(&g);
	kb_graph_add_parent(&g, 1);
	kb_graph_add_parent(&g, 2);
	kb_graph_add_node(&g);
	kb_graph_add_parent(&g, 3);
	kb_graph_add_node(&g);
	kb_graph_add_parent(&g, 3);
	kb_graph_add_node(&g);
	kb_graph_reach(&g, NULL, NULL, w);
	CHECK(w[0] == 4 && w[1] == 2 && w[2] == 2 && w[3] == 1);
	kb_graph_release(&g);
}

/* The fast reach sums agree with counting ancestors one by one, on random
 * histories with merges and with a part cut away as a GOOD mark would. */
TEST(test_graph__reach_matches_brute_force)
{
	uint64_t seed;

	for (seed = 1; seed <= 30; seed++) {
		struct kb_graph g = KB_GRAPH_INIT;
		size_t n = random_dag(&g, 150, 20, seed), i, j, good;
		unsigned char *alive = kb_calloc(n, 1), *m = kb_calloc(n, 1);
		double *w = kb_calloc(n, sizeof(*w)), *mass = kb_calloc(n, sizeof(*mass));
		double *wm = kb_calloc(n, sizeof(*wm));
		uint64_t s = seed;

		for (i = 0; i < n; i++) {
			alive[i] = 1;
			mass[i] = (double)(trand(&s) % 1000) / 1000.0;
		}
		good = n / 2 + trand(&s) % (n / 2);
		kb_graph_mark_ancestors(&g, good, NULL, m, 1);
		for (i = 0; i < n; i++)
			if (m[i])
				alive[i] = 0;
		kb_graph_reach(&g, alive, NULL, w);
		kb_graph_reach(&g, alive, mass, wm);
		for (i = 0; i < n; i++) {
			double count = 0, sum = 0;

			if (!alive[i]) {
				CHECK(w[i] == 0);
				continue;
			}
			memset(m, 0, n);
			kb_graph_mark_ancestors(&g, i, alive, m, 1);
			for (j = 0; j < n; j++)
				if (m[j]) {
					count++;
					sum += mass[j];
				}
			CHECK_MSG(w[i] == count, "seed %llu node %zu: %g != %g",
				  (unsigned long long)seed, i, w[i], count);
			CHECK(wm[i] > sum - 1e-9 && wm[i] < sum + 1e-9);
		}
		free(alive);
		free(m);
		free(w);
		free(mass);
		free(wm);
		kb_graph_release(&g);
	}
}
