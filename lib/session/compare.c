/*
 * The compare mode ('kbisect compare A B'): boots of A and B in turn, the
 * same number of each, then the change from A to B with its interval and
 * two rank tests.  Each boot is measured as in performance mode.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mode.h"
#include "stats.h"

extern const struct kb_mode_ops kb_mode_compare;

static int boots_of(struct kb_session *s, const char *sha)
{
	int n = 0, last = -1;
	size_t i;

	for (i = 0; i < s->nruns; i++)
		if (s->runs[i].state == KB_RUN_DONE && !strcmp(s->runs[i].sha, sha) &&
		    s->runs[i].boot != last) {
			n++;
			last = s->runs[i].boot;
		}
	return n;
}

static int open_row(struct kb_session *s, struct kb_store *store, const char *statedir,
		    struct kb_session_row *row)
{
	int ret = kb_session_load_row(s, store, statedir, row);

	if (ret == 0)
		s->mode = &kb_mode_compare;
	return ret;
}

int kb_compare_open(struct kb_session *s, struct kb_store *store, const char *statedir,
		    struct kb_spec *spec, git_repository *repo)
{
	struct kb_session_row row;
	git_oid oid;
	char hex[GIT_OID_HEXSZ + 1], *json;
	int64_t id;
	int ret;

	memset(s, 0, sizeof(*s));
	if ((ret = kb_repo_resolve(repo, spec->good_specs.v[0], &oid)) < 0)
		return ret;
	git_oid_tostr(hex, sizeof(hex), &oid);
	kb_strv_clear(&spec->good_shas);
	kb_strv_push(&spec->good_shas, hex);
	if ((ret = kb_repo_resolve(repo, spec->bad_spec, &oid)) < 0)
		return ret;
	git_oid_tostr(hex, sizeof(hex), &oid);
	free(spec->bad_sha);
	spec->bad_sha = kb_strdup(hex);
	if (!strcmp(spec->bad_sha, spec->good_shas.v[0]))
		return kb_error(KB_EINVAL, "A and B are the same commit %.12s", hex);
	if (kb_store_session_compare(store, &row) == 0) {
		struct kb_spec old;

		if (kb_spec_from_json(&old, row.spec) == 0) {
			int same = !strcmp(old.bad_sha, spec->bad_sha) &&
				   !strcmp(old.good_shas.v[0], spec->good_shas.v[0]) &&
				   !strcmp(old.bench.json, spec->bench.json) &&
				   old.compare_boots == spec->compare_boots &&
				   old.scale == spec->scale &&
				   json_equal(old.machines, spec->machines);

			kb_spec_release(&old);
			if (same)
				return open_row(s, store, statedir, &row);
		}
		kb_session_row_release(&row);
	}
	kb_error_clear();
	json = kb_spec_to_json(spec);
	ret = kb_store_session_create_as(store, json, "compare", &id);
	free(json);
	if (ret < 0 || (ret = kb_store_session_compare(store, &row)) < 0)
		return ret;
	return open_row(s, store, statedir, &row);
}

/* The side with fewer boots gets the next one, until each has its boots. */
static int plan(struct kb_session *s, struct kb_job *out)
{
	const char *a = s->spec.good_shas.v[0], *b = s->spec.bad_sha, *next;
	int want = s->spec.compare_boots ? s->spec.compare_boots : 3, na, nb;
	size_t i;

	for (i = 0; i < s->nmark_rows; i++)
		if (s->mark_rows[i].mark == 's')
			return kb_error(KB_EINVAL, "the benchmark fails at %.12s: "
					"nothing to compare", s->mark_rows[i].sha);
	na = boots_of(s, a);
	nb = boots_of(s, b);
	if (na >= want && nb >= want)
		return KB_PLAN_FINISH;
	next = na <= nb ? a : b;
	s->steps_after = -1;
	kb_session_say(s, KB_SAY_STEP, "[%.12s] %s, boot %d of %d", next,
		       next == a ? "A" : "B", (next == a ? na : nb) + 1, want);
	memset(out, 0, sizeof(*out));
	snprintf(out->sha, sizeof(out->sha), "%s", next);
	out->runs = s->spec.bench.runs_per_boot;
	return KB_PLAN_WORK;
}

static int work(struct kb_session *s, struct kb_target *t, const struct kb_job *job)
{
	return kb_perf_measure_boot(s, t, job->sha, job->runs);
}

static json_t *side_json(struct kb_session *s, const char *sha, double **vals, size_t *n)
{
	size_t i, alloc = 0;
	int boots = 0, last = -1;
	double mean, sd;
	git_oid oid;
	json_t *o;

	*vals = NULL;
	*n = 0;
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];

		if (r->state != KB_RUN_DONE || !r->has_value || strcmp(r->sha, sha) ||
		    r->run <= s->spec.bench.warmup)
			continue;
		if (r->boot != last) {
			boots++;
			last = r->boot;
		}
		KB_ALLOC_GROW(*vals, *n + 1, alloc);
		(*vals)[(*n)++] = r->value;
	}
	git_oid_fromstr(&oid, sha);
	o = kb_session_commit_json(s, &oid);
	mean = kb_mean(*vals, *n);
	sd = kb_stddev(*vals, *n);
	json_object_set_new(o, "n", json_integer((json_int_t)*n));
	json_object_set_new(o, "boots", json_integer(boots));
	if (*n) {
		json_object_set_new(o, "mean", json_real(mean));
		json_object_set_new(o, "median", json_real(kb_median(*vals, *n)));
		json_object_set_new(o, "stddev_pct", json_real(*n > 1 && mean ?
			100 * sd / fabs(mean) : 0));
	}
	return o;
}

/* The secondary metrics of comparison 'o' (report.c): rows "a" and "b",
 * moved or not from A to B. */
static void add_metrics(struct kb_session *s, json_t *o)
{
	const char *v = json_string_value(json_object_get(o, "verdict"));

	json_object_set_new(o, "table", json_pack("[{s:s, s:s}, {s:s, s:s}]", "label", "a",
		"commit", s->spec.good_shas.v[0], "label", "b", "commit", s->spec.bad_sha));
	kb_report_metrics(s, o, s->spec.bench.warmup, !strcmp(v, "no-difference") ? 0 :
			  !strcmp(v, "unfinished") ? -1 : 1);
	json_object_del(o, "table");
}

static int report(struct kb_session *s, json_t **out)
{
	double *va, *vb, pmw, pks, lo = 0, hi = 0, ma, mb;
	size_t na, nb, i;
	json_t *o, *a, *b;
	int worse, positive = 1;
	const char *verdict;

	a = side_json(s, s->spec.good_shas.v[0], &va, &na);
	b = side_json(s, s->spec.bad_sha, &vb, &nb);
	for (i = 0; i < na; i++)
		positive &= va[i] > 0;
	for (i = 0; i < nb; i++)
		positive &= vb[i] > 0;
	pmw = kb_mann_whitney_p(va, na, vb, nb);
	pks = kb_ks_p(va, na, vb, nb);
	ma = kb_mean(va, na);
	mb = kb_mean(vb, nb);
	if (na && nb && positive) {
		double *la = kb_malloc(na * sizeof(*la)), *lb = kb_malloc(nb * sizeof(*lb));

		for (i = 0; i < na; i++)
			la[i] = log(va[i]);
		for (i = 0; i < nb; i++)
			lb[i] = log(vb[i]);
		kb_diff_ci(la, na, lb, nb, 0.90, 500, s->spec.seed, &lo, &hi);
		lo = 100 * (exp(lo) - 1);
		hi = 100 * (exp(hi) - 1);
		free(la);
		free(lb);
	}
	worse = s->spec.bench.metric.direction == KB_HIGHER_IS_BETTER ? mb < ma : mb > ma;
	verdict = na < 3 || nb < 3 ? "unfinished" :
		  pmw >= 0.001 && pks >= 0.001 ? "no-difference" :
		  worse ? "regression" : "improvement";
	o = json_pack("{s:i, s:s, s:o, s:o, s:f, s:[f, f], s:f, s:f, s:s, s:s, s:s, s:i}",
		      "version", 1, "mode", "compare", "a", a, "b", b,
		      "change_pct", na && nb && ma ? 100 * (mb / ma - 1) : 0.0,
		      "change_ci_pct", lo, hi, "p_mann_whitney", pmw, "p_ks", pks,
		      "verdict", verdict, "bench", s->spec.bench.name,
		      "target", kb_spec_target(&s->spec, 0), "runs_total", (int)(na + nb));
	kb_session_target_info(s, o);
	json_object_set_new(o, "metric", json_pack("{s:s, s:s, s:s}",
		"name", s->spec.bench.metric.name, "unit", s->spec.bench.metric.unit,
		"direction", s->spec.bench.metric.direction == KB_HIGHER_IS_BETTER ?
		"higher" : "lower"));
	add_metrics(s, o);
	free(va);
	free(vb);
	*out = o;
	return 0;
}

static int wants(const struct kb_spec *spec)
{
	return !strcmp(spec->kind, "compare");
}

const struct kb_mode_ops kb_mode_compare = {
	.name = "compare",
	.resume = "run the same 'kbisect compare' again to continue",
	.wants = wants,
	.plan = plan,
	.plan_pool = NULL,
	.work = work,
	.record_run = kb_perf_record_run,
	.skipped = NULL,
	.report = report,
	.status = kb_perf_status,
};
