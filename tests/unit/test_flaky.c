/*
 * The flaky bisection (lib/flaky.c): its rates and posterior on small
 * graphs, its steps, and its figures on simulated histories (tests/sim,
 * fixed seeds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim.h"
#include "flaky.h"
#include "graph.h"
#include "test.h"

/* A line of commits: node 0 is BAD, node n-1 the oldest, GOOD below it. */
static void chain(struct kb_graph *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		kb_graph_add_node(g);
		if (i + 1 < n)
			kb_graph_add_parent(g, i + 1);
	}
}

static void setup(struct kb_flaky_in *in, const struct kb_graph *g,
		  const struct kb_flaky_count *c, size_t nc)
{
	memset(in, 0, sizeof(*in));
	in->g = g;
	in->bad = 0;
	in->c = c;
	in->nc = nc;
	in->revert_of = -1;
	kb_flaky_params_default(&in->p);
}

TEST(test_flaky__beta_quantiles)
{
	CHECK(fabs(kb_beta_quantile(0.3, 1, 1) - 0.3) < 1e-9);
	CHECK(fabs(kb_beta_quantile(0.25, 2, 1) - 0.5) < 1e-9);
	CHECK(fabs(kb_beta_quantile(0.75, 1, 2) - 0.5) < 1e-9);
	/* Jeffreys' prior is arcsine: F(x) = 2/pi asin(sqrt(x)) */
	CHECK(fabs(kb_beta_quantile(0.5, 0.5, 0.5) - 0.5) < 1e-9);
	CHECK(fabs(kb_beta_quantile(1.0 / 3, 0.5, 0.5) - 0.25) < 1e-7);
	CHECK(kb_flaky_bad_runs(0.1) == 29);
	CHECK(kb_flaky_bad_runs(0.5) == 5);
}

TEST(test_flaky__posterior_of_a_deterministic_test)
{
	struct kb_graph g = KB_GRAPH_INIT;
	struct kb_flaky_count c[] = { { 0, 1, 1 }, { -1, 1, 0 }, { 5, 1, 1 }, { 6, 8, 0 } };
	struct kb_flaky_in in;
	double post[10], sum = 0, above = 0;
	size_t i;

	chain(&g, 10);
	setup(&in, &g, c, 4);
	CHECK(kb_flaky_posterior(&in, post) == 0);
	for (i = 0; i < 10; i++) {
		sum += post[i];
		if (i > 5)
			above += post[i];
	}
	CHECK(fabs(sum - 1) < 1e-9);
	/* 5 failed and 6 passed eight times: 5 is the culprit */
	CHECK_MSG(post[5] > 0.8, "post[5] %.3f", post[5]);
	CHECK_MSG(above < 0.02, "older %.3f", above);
	/* the failure at 3 instead: 3, 4 and 5 alike, and 2 only as far as a
	 * false alarm at 3 goes */
	c[2].node = 3;
	CHECK(kb_flaky_posterior(&in, post) == 0);
	CHECK_MSG(post[3] + post[4] + post[5] > 0.8 && fabs(post[3] - post[4]) < 1e-9,
		  "%.3f %.3f %.3f", post[3], post[4], post[5]);
	CHECK_MSG(post[2] < post[3] / 10, "%.3f %.3f", post[2], post[3]);
	kb_graph_release(&g);
}

TEST(test_flaky__bad_that_never_fails_is_no_regression)
{
	struct kb_graph g = KB_GRAPH_INIT;
	struct kb_flaky_count c[] = { { 0, 0, 0 } };
	struct kb_flaky_in in;
	struct kb_flaky_out out;

	chain(&g, 8);
	setup(&in, &g, c, 1);
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_RUN && out.node == 0 && !strcmp(out.role, "bad"));
	c[0].runs = 28;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_RUN && out.node == 0);
	c[0].runs = 29;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_DONE && !strcmp(out.verdict, "no-regression"));
	CHECK_MSG(strstr(out.reason, "did not reproduce on BAD in 29 runs"), "%s", out.reason);
	/* a lower rate looked for: more runs */
	in.p.min_rate = 0.05;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_RUN && out.node == 0);
	/* counts that cannot be */
	c[0].fails = 30;
	CHECK(kb_flaky_decide(&in, &out) < 0);
	kb_graph_release(&g);
}

TEST(test_flaky__good_runs_once_then_probes)
{
	struct kb_graph g = KB_GRAPH_INIT;
	struct kb_flaky_count c[] = { { 0, 1, 1 }, { -1, 0, 0 } };
	struct kb_flaky_in in;
	struct kb_flaky_out out;
	double e0;

	chain(&g, 16);
	setup(&in, &g, c, 2);
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_RUN && out.node == -1 && !strcmp(out.role, "good"));
	c[1].runs = 1;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	/* a probe inside the range, not an endpoint */
	CHECK(out.kind == KB_FLAKY_RUN && out.node > 0 && out.node < 16 &&
	      !strcmp(out.role, "probe"));
	/* GOOD that failed: the false alarms' rate goes up, and it is said */
	c[1].runs = 4;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(!out.good_failed);
	e0 = out.e;
	c[1].fails = 3;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK_MSG(out.good_failed && out.e > 3 * e0, "%.4f %.4f", out.e, e0);
	kb_graph_release(&g);
}

/* Probes settled on 5 (the culprit) and 6 (its parent): the checks. */
TEST(test_flaky__verification_and_a_revert_that_fails)
{
	struct kb_graph g = KB_GRAPH_INIT;
	struct kb_flaky_count c[] = { { 0, 6, 6 }, { -1, 1, 0 }, { 5, 4, 4 }, { 6, 8, 0 },
				      { 4, 2, 2 }, { 7, 2, 0 } };
	struct kb_flaky_in in;
	struct kb_flaky_out out;

	chain(&g, 10);
	setup(&in, &g, c, 6);
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK_MSG(out.kind == KB_FLAKY_REVERT && out.node == 5, "kind %d node %ld %s",
		  out.kind, out.node, out.note);
	CHECK(!strcmp(out.culprit_check, "pass") && !strcmp(out.parent_check, "pass"));
	in.revert_of = 5;
	in.revert_made = 1;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_RUN_REVERT);
	/* clean: the culprit */
	in.revert_runs = 8;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK_MSG(out.kind == KB_FLAKY_DONE && !strcmp(out.verdict, "culprit") &&
		  out.best == 5 && !strcmp(out.revert_check, "pass"), "%d %s", out.kind,
		  out.note);
	CHECK(out.q > 0.8 && out.q_lo < out.q && out.q < out.q_hi);
	/* failing as BAD does: inconclusive */
	in.revert_fails = 4;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_DONE && !strcmp(out.verdict, "inconclusive") &&
	      !strcmp(out.revert_check, "fail"));
	CHECK(strstr(out.reason, "reverting the likely culprit does not stop the failure"));
	/* a revert that could not be made: its check n/a */
	in.revert_made = 0;
	in.revert_runs = in.revert_fails = 0;
	CHECK(kb_flaky_decide(&in, &out) == 0);
	CHECK(out.kind == KB_FLAKY_DONE && !strcmp(out.verdict, "culprit") &&
	      !strcmp(out.revert_check, "n/a"));
	kb_graph_release(&g);
}

/* Histories with merges (tests/sim): fixed seeds, so exact regressions
 * tests; tests/bench/sim.sh flaky prints the figures. */
static void flaky_rates(const struct sim_flaky *sc, int trials, int *exact, int *wrong,
			long *runs)
{
	int t;

	*exact = *wrong = 0;
	*runs = 0;
	for (t = 1; t <= trials; t++) {
		struct sim_flaky_result r;

		sim_flaky_trial(sc, (uint64_t)t, &r);
		*exact += sc->rate > 0 ? r.exact : r.noreg;
		*wrong += r.wrong;
		*runs += r.runs;
	}
}

TEST(test_flaky__half_the_runs_with_false_alarms)
{
	struct sim_flaky sc = { "0.5/0.02", 200, 0.5, 0.02 };
	int exact, wrong;
	long runs;

	flaky_rates(&sc, 20, &exact, &wrong, &runs);
	CHECK_MSG(exact >= 18 && wrong == 0, "exact %d wrong %d of 20", exact, wrong);
}

TEST(test_flaky__deterministic_and_never_failing)
{
	struct sim_flaky det = { "1/0", 200, 1.0, 0 }, none = { "0/0", 200, 0, 0 };
	int exact, wrong;
	long runs;

	flaky_rates(&det, 20, &exact, &wrong, &runs);
	CHECK_MSG(exact == 20 && wrong == 0, "exact %d wrong %d of 20", exact, wrong);
	flaky_rates(&none, 5, &exact, &wrong, &runs);
	CHECK_MSG(exact == 5 && wrong == 0 && runs == 5 * 29, "no-regression %d of 5, %ld runs",
		  exact, runs);
}

TEST(test_flaky__titles_of_failures)
{
	char t[160], k1[160], k2[160];

	/* the first line with a mark, up to the console's path */
	CHECK(kb_flaky_title("the kernel failed during the run: Kernel panic - not syncing: "
			     "demo: it stops (console: /tmp/a/console.1)\nlater line\n",
			     t, sizeof(t)) == 1);
	CHECK_MSG(!strcmp(t, "Kernel panic - not syncing: demo: it stops"), "'%s'", t);
	CHECK(kb_flaky_title("[    1.5] ---[ cut here ]---\n[    1.5] WARNING: CPU: 0 PID: 1 at "
			     "init/main.c:1515 kernel_init+0x4b/0x120\n[    1.6] Kernel panic - "
			     "not syncing: panic_on_warn set\n", t, sizeof(t)) == 1);
	CHECK_MSG(!strcmp(t, "WARNING: CPU: 0 PID: 1 at init/main.c:1515 kernel_init+0x4b/0x120"),
		  "'%s'", t);
	/* no mark: the last line that is not empty, and 0 */
	CHECK(kb_flaky_title("started\nassertion failed: x == 2\n\n", t, sizeof(t)) == 0);
	CHECK_MSG(!strcmp(t, "assertion failed: x == 2"), "'%s'", t);
	CHECK(kb_flaky_title(NULL, t, sizeof(t)) == 0 && !*t);

	/* the same failure with other numbers has the same key */
	kb_flaky_title_key("WARNING: CPU: 1 PID: 214 at init/main.c:1515 kernel_init+0x4b/0x120",
			   k1, sizeof(k1));
	kb_flaky_title_key("WARNING: CPU: 0 PID: 1 at init/main.c:1516 kernel_init+0x4c/0x128",
			   k2, sizeof(k2));
	CHECK_MSG(!strcmp(k1, k2), "'%s' and '%s'", k1, k2);
	CHECK_MSG(!strcmp(k1, "WARNING: CPU: # PID: # at init/main.c:# kernel_init+#/#"), "'%s'",
		  k1);
	kb_flaky_title_key("BUG: unable to handle page fault for address: ffffffff81a00000", k1,
			   sizeof(k1));
	CHECK_MSG(!strcmp(k1, "BUG: unable to handle page fault for address: #"), "'%s'", k1);
	/* another function, another failure; words of hex letters stay */
	kb_flaky_title_key("WARNING: CPU: 0 PID: 1 at init/main.c:1515 do_one_initcall+0x4b/0x120",
			   k2, sizeof(k2));
	CHECK(strcmp(k1, k2) != 0);
	kb_flaky_title_key("BUG: bad deadbeef", k1, sizeof(k1));
	CHECK_MSG(!strcmp(k1, "BUG: bad #"), "'%s'", k1);
	kb_flaky_title_key("INFO: task added: blocked", k1, sizeof(k1));
	CHECK_MSG(!strcmp(k1, "INFO: task added: blocked"), "'%s'", k1);
	/* a key that does not fit is cut, never overrun */
	kb_flaky_title_key("Kernel panic - not syncing: 12345", k1, 8);
	CHECK_MSG(!strcmp(k1, "Kernel "), "'%s'", k1);
}

/* A line of 6 commits whose culprit (node 3) has a parent (node 4) that
 * fails another way in half its runs, as do the two commits after the
 * culprit when they do not fail the bug's way; the bug fails half the
 * runs.  Runs that fail another way tell nothing, so the parent is run
 * until its counted runs say it is clean.  The revert of a commit on BAD
 * fails as BAD does unless that commit is the culprit. */
static const char *other_ways(uint64_t seed, long *culprit, int *runs)
{
	struct kb_graph g;
	struct kb_flaky_in in;
	struct kb_flaky_count c[8];
	size_t nc = 0, i;
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	const char *verdict = "none";
	long revert_of = -1;
	int revert_runs = 0, revert_fails = 0;

	memset(&g, 0, sizeof(g));
	chain(&g, 6);
	memset(c, 0, sizeof(c));
	*runs = 0;
	*culprit = -1;
	for (;;) {
		struct kb_flaky_out out;
		struct kb_flaky_count *k = NULL;
		int fails, other;

		setup(&in, &g, c, nc);
		in.revert_of = revert_of;
		in.revert_made = revert_of >= 0;
		in.revert_runs = revert_runs;
		in.revert_fails = revert_fails;
		if (kb_flaky_decide(&in, &out) < 0 || *runs > 400)
			break;
		if (out.kind == KB_FLAKY_DONE) {
			verdict = out.verdict;
			*culprit = out.best;
			break;
		}
		if (out.kind == KB_FLAKY_REVERT) {
			revert_of = out.node;
			revert_runs = revert_fails = 0;
			continue;
		}
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		fails = (x >> 33) % 2;
		(*runs)++;
		if (out.kind == KB_FLAKY_RUN_REVERT) {
			revert_runs++;
			revert_fails += revert_of != 3 && fails;
			continue;
		}
		for (i = 0; i < nc; i++)
			if (c[i].node == out.node)
				k = &c[i];
		if (!k) {
			k = &c[nc++];
			k->node = out.node;
		}
		fails = fails && out.node >= 0 && out.node <= 3;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		other = !fails && out.node >= 1 && out.node <= 4 && out.node != 3 && (x >> 33) % 2;
		k->runs += !other;
		k->fails += fails;
		k->other += other;
	}
	kb_graph_release(&g);
	return verdict;
}

TEST(test_flaky__failures_another_way_beside_the_culprit)
{
	int seed, exact = 0, wrong = 0, runs;

	for (seed = 1; seed <= 30; seed++) {
		long culprit;
		const char *v = other_ways((uint64_t)seed, &culprit, &runs);

		/* the culprit, through every check, and never another */
		if (!strcmp(v, "culprit") && culprit == 3)
			exact++;
		else if (!strcmp(v, "culprit"))
			wrong++;
		CHECK_MSG(runs <= 400, "seed %d: %d runs", seed, runs);
		if (getenv("FLAKY_TRACE"))
			fprintf(stderr, "seed %d: %s %ld after %d runs\n", seed, v, culprit, runs);
	}
	CHECK_MSG(exact >= 27 && !wrong, "exact %d wrong %d of 30", exact, wrong);
}
