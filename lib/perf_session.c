/*
 * Performance mode of a session: the loop that asks lib/perf.c what to
 * measure next and measures it (boots of a commit, each with several runs
 * of the benchmark), the revert of a likely culprit made with libgit2, and
 * the report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"
#include "session_int.h"
#include "stats.h"

static const char zero_sha[41] = "0000000000000000000000000000000000000000";

/* The ids of every node and of its first parent, once per session. */
static int load_shas(struct kb_session *s)
{
	size_t i, n = s->dag.g.n;

	if (s->node_sha)
		return 0;
	s->node_sha = kb_calloc(n ? n : 1, sizeof(*s->node_sha));
	s->parent_sha = kb_calloc(n ? n : 1, sizeof(*s->parent_sha));
	for (i = 0; i < n; i++) {
		git_commit *c;

		git_oid_tostr(s->node_sha[i], 41, &s->dag.oid[i]);
		if (git_commit_lookup(&c, s->repo, &s->dag.oid[i]) < 0)
			return kb_error(KB_ERROR, "cannot read commit %s", s->node_sha[i]);
		if (git_commit_parentcount(c))
			git_oid_tostr(s->parent_sha[i], 41, git_commit_parent_id(c, 0));
		else
			memcpy(s->parent_sha[i], zero_sha, 41);
		git_commit_free(c);
	}
	return 0;
}

/* The latest revert made: of which culprit, and its id ("" if it did not
 * apply).  Returns 0 if none was made. */
static int revert_info(struct kb_session *s, char of[41], char sha[41])
{
	struct kb_event_row *ev;
	size_t n, i;
	int found = 0;

	if (kb_store_events(s->store, s->row.id, &ev, &n) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		char a[41], b[41];

		if (strcmp(ev[i].kind, "revert") ||
		    sscanf(ev[i].detail, "%40s %40s", a, b) != 2)
			continue;
		snprintf(of, 41, "%s", a);
		snprintf(sha, 41, "%s", strcmp(b, "-") ? b : "");
		found = 1;
	}
	kb_event_rows_free(ev, n);
	return found;
}

/* The key of a run: the id of the first run of its boot, then the run. */
struct run_key {
	int64_t boot_start;
	int run;
	size_t i;
};

static struct kb_session *sort_session;

/* By commit, boot and id: each boot's runs together, its first run first. */
static int cmp_by_boot(const void *a, const void *b)
{
	const struct kb_run_row *x = &sort_session->runs[*(const size_t *)a],
		*y = &sort_session->runs[*(const size_t *)b];
	int c = strcmp(x->sha, y->sha);

	if (c)
		return c;
	if (x->boot != y->boot)
		return x->boot < y->boot ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_run_key(const void *a, const void *b)
{
	const struct run_key *x = a, *y = b;

	if (x->boot_start != y->boot_start)
		return x->boot_start < y->boot_start ? -1 : 1;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* s->run_order: the runs in order of their boots' first runs, each boot's
 * runs together (the machines of a pool boot the same commit at once). */
static void order_runs(struct kb_session *s)
{
	size_t n = s->nruns, i, *byboot = kb_calloc(n ? n : 1, sizeof(*byboot));
	struct run_key *k = kb_calloc(n ? n : 1, sizeof(*k));
	int64_t start = 0;

	for (i = 0; i < n; i++)
		byboot[i] = i;
	sort_session = s;
	qsort(byboot, n, sizeof(*byboot), cmp_by_boot);
	for (i = 0; i < n; i++) {
		const struct kb_run_row *r = &s->runs[byboot[i]];

		if (!i || strcmp(s->runs[byboot[i - 1]].sha, r->sha) ||
		    s->runs[byboot[i - 1]].boot != r->boot)
			start = r->id;
		k[i].boot_start = start;
		k[i].run = r->run;
		k[i].i = byboot[i];
	}
	qsort(k, n, sizeof(*k), cmp_run_key);
	free(s->run_order);
	s->run_order = kb_calloc(n ? n : 1, sizeof(*s->run_order));
	for (i = 0; i < n; i++)
		s->run_order[i] = k[i].i;
	free(k);
	free(byboot);
}

signed char *kb_perf_pairs(struct kb_session *s)
{
	size_t n = s->spec.pool.n + 1, i;
	signed char *pair = kb_calloc(n, 1);
	struct kb_event_row *ev;
	size_t nev;

	for (i = 0; i < n; i++)
		pair[i] = (signed char)(i % 2);
	if (kb_store_events(s->store, s->row.id, &ev, &nev) < 0) {
		kb_error_clear();
		return pair;
	}
	for (i = 0; i < nev; i++) {
		const char *p = ev[i].detail;
		size_t m;

		if (strcmp(ev[i].kind, "verify"))
			continue;
		for (m = 0; m < n && *p; m++) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			pair[m] = (signed char)(v < 0 ? -1 : v > 1 ? 1 : v);
			p = end;
		}
	}
	kb_event_rows_free(ev, nev);
	return pair;
}

struct input {
	struct kb_perf_in in;
	struct kb_perf_obs *obs;
	size_t nobs, alloc;
	char revert_of[41], revert_sha[41];
	signed char *pairs;
};

static int build_input(struct kb_session *s, struct input *x)
{
	size_t i, order = 0;
	int ret;

	memset(x, 0, sizeof(*x));
	if ((ret = load_shas(s)) < 0)
		return ret;
	x->in.g = &s->dag.g;
	x->in.bad = s->dag.bad;
	x->in.node_sha = (const char (*)[41])s->node_sha;
	x->in.parent_sha = (const char (*)[41])s->parent_sha;
	x->in.good_sha = s->spec.good_shas.v[0];
	x->in.marks = s->marks;
	kb_perf_params_default(&x->in.p);
	x->in.p.higher_is_better = s->spec.bench.metric.direction == KB_HIGHER_IS_BETTER;
	x->in.p.warmup = s->spec.bench.warmup;
	x->in.p.runs_per_boot = s->spec.bench.runs_per_boot;
	x->in.p.confidence = s->spec.confidence;
	x->in.p.seed = s->spec.seed ? s->spec.seed : 1;
	x->in.machines = s->spec.pool.n ? (int)s->spec.pool.n + 1 : 0;
	x->in.machine = -1;
	if (s->spec.pool.n)
		x->in.pair_of = x->pairs = kb_perf_pairs(s);
	order_runs(s);
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[s->run_order[i]];
		struct kb_perf_obs *o;
		git_oid oid;
		long node = -1;

		if (r->state != KB_RUN_DONE || !r->has_value)
			continue;
		if (git_oid_fromstr(&oid, r->sha) == 0)
			node = kb_dag_find(&s->dag, &oid);
		o = kb_perf_obs_get(&x->obs, &x->nobs, &x->alloc, r->sha, node);
		kb_perf_obs_add_on(o, r->machine, r->boot, r->run, r->value, order++);
	}
	x->in.obs = x->obs;
	x->in.nobs = x->nobs;
	if (revert_info(s, x->revert_of, x->revert_sha)) {
		x->in.revert_of = x->revert_of;
		x->in.revert_sha = x->revert_sha;
	}
	return 0;
}

int kb_perf_decide_on(struct kb_session *s, int machine, const struct kb_perf_job *busy,
		      size_t nbusy, const signed char *pairs, struct kb_perf_out *out)
{
	struct input x;
	int ret;

	if ((ret = build_input(s, &x)) < 0)
		return ret;
	x.in.machine = machine;
	x.in.busy = busy;
	x.in.nbusy = nbusy;
	if (pairs)
		x.in.pair_of = pairs;
	ret = kb_perf_decide(&x.in, out);
	kb_perf_obs_free(x.obs, x.nobs);
	free(x.pairs);
	return ret;
}

static int decide(struct kb_session *s, struct kb_perf_out *out, int summary)
{
	struct input x;
	int ret;

	if ((ret = build_input(s, &x)) < 0)
		return ret;
	x.in.summary = summary;
	ret = kb_perf_decide(&x.in, out);
	kb_perf_obs_free(x.obs, x.nobs);
	free(x.pairs);
	return ret;
}

static int is_node(struct kb_session *s, const char *sha, long *node)
{
	git_oid oid;

	*node = -1;
	if (git_oid_fromstr(&oid, sha) == 0)
		*node = kb_dag_find(&s->dag, &oid);
	return *node >= 0 && (size_t)*node != s->dag.bad;
}

int kb_perf_record_run(struct kb_session *s, const struct kb_run_row *started,
		       const struct kb_run_result *res)
{
	struct kb_run_row r = *started;
	struct kb_buf out = KB_BUF_INIT, tail = KB_BUF_INIT;
	char *dir = kb_session_run_dir(s, started->id), *path = kb_asprintf("%s/output", dir);
	char why[1400] = "";
	long node;
	int ret, skip = 0;

	kb_read_tail(path, &out, 1 << 20);
	kb_read_tail(path, &tail, 2048);
	kb_error_clear();
	r.state = KB_RUN_DONE;
	r.finished = kb_now();
	r.exit_status = res->outcome == KB_RUN_EXITED ? res->exit_status : -1;
	r.term_signal = res->outcome == KB_RUN_SIGNALED ? res->term_signal : 0;
	r.timed_out = res->outcome == KB_RUN_TIMEOUT;
	r.output_tail = tail.ptr;
	if (res->outcome == KB_RUN_EXITED && res->exit_status == 0) {
		if (kb_metric_extract(&s->spec.bench, out.ptr, &r.value) < 0) {
			snprintf(why, sizeof(why), "%s", kb_error_last());
			r.state = KB_RUN_ABORTED;
		} else {
			r.has_value = 1;
		}
	} else if (res->outcome == KB_RUN_EXITED && res->exit_status < 126) {
		/* the benchmark could not run on this commit */
		skip = 1;
	} else if (res->outcome == KB_RUN_CRASHED) {
		/* the kernel under test died or hung */
		skip = 1;
	} else if (res->outcome == KB_RUN_EXITED) {
		snprintf(why, sizeof(why), "benchmark %s: exited with %d", s->spec.bench.name,
			 res->exit_status);
		r.state = KB_RUN_ABORTED;
	} else if (res->outcome == KB_RUN_SIGNALED) {
		snprintf(why, sizeof(why), "benchmark %s: killed by signal %d",
			 s->spec.bench.name, res->term_signal);
		r.state = KB_RUN_ABORTED;
	} else {
		snprintf(why, sizeof(why), "benchmark %s: %s", s->spec.bench.name, res->message);
		r.state = KB_RUN_ABORTED;
	}
	if (skip && !is_node(s, r.sha, &node) && res->outcome == KB_RUN_CRASHED) {
		snprintf(why, sizeof(why), "%s, at %s, which every comparison needs",
			 res->message, !strcmp(r.sha, s->spec.good_shas.v[0]) ? "GOOD" :
			 !strcmp(r.sha, s->spec.bad_sha) ? "BAD" : "a reference commit");
		r.state = KB_RUN_ABORTED;
		skip = 0;
	} else if (skip && !is_node(s, r.sha, &node)) {
		snprintf(why, sizeof(why), "the benchmark failed (exit %d) at %s, which "
			 "every comparison needs", res->exit_status,
			 !strcmp(r.sha, s->spec.good_shas.v[0]) ? "GOOD" :
			 !strcmp(r.sha, s->spec.bad_sha) ? "BAD" : "a reference commit");
		r.state = KB_RUN_ABORTED;
		skip = 0;
	}
	if ((ret = kb_store_begin(s->store)) < 0)
		goto out;
	if ((ret = kb_store_run_finish(s->store, &r)) < 0 ||
	    (res->outcome == KB_RUN_CRASHED &&
	     (ret = kb_store_event(s->store, s->row.id, "boot", "%s failed -\n%s", r.sha,
				   res->message)) < 0) ||
	    (skip && (ret = kb_store_mark_add(s->store, s->row.id, r.sha, 's', "test",
					      r.id)) < 0) ||
	    (*why && (ret = kb_store_event(s->store, s->row.id, "abort", "%s: %s",
					   r.sha, why)) < 0) ||
	    (ret = kb_store_commit(s->store)) < 0) {
		kb_store_rollback(s->store);
		goto out;
	}
	if (skip && res->outcome == KB_RUN_CRASHED)
		kb_session_say(s, KB_SAY_WARN, "%.12s: %s: skipping it", r.sha, res->message);
	else if (skip)
		kb_session_say(s, KB_SAY_WARN, "the benchmark failed (exit %d) at %.12s: "
			       "skipping it (output: %s)", res->exit_status, r.sha, path);
	if (*why)
		ret = kb_error(KB_EABORT, "%s at commit %.12s; see %s, fix it and run "
			       "'kbisect resume'", why, r.sha, path);
	else
		ret = skip;
out:
	kb_buf_release(&out);
	kb_buf_release(&tail);
	free(dir);
	free(path);
	return ret;
}

/* Build, boot, set up and run one boot of 'sha'.  A commit that fails to
 * build or set up is skipped; at an endpoint that is an error. */
int kb_perf_measure_boot(struct kb_session *s, struct kb_target *t, const char *sha,
			 int runs)
{
	long node;
	int boot = 0, ret, run;

	ret = kb_session_boot(s, t, sha, runs, &boot);
	if (ret > 0 && !is_node(s, sha, &node))
		return kb_error(KB_EINVAL, "the build or setup fails at %s %.12s, which "
				"every comparison needs: see the logs in %s",
				!strcmp(sha, s->spec.good_shas.v[0]) ?
				(strcmp(s->spec.kind, "compare") ? "GOOD" : "A") :
				!strcmp(sha, s->spec.bad_sha) ?
				(strcmp(s->spec.kind, "compare") ? "BAD" : "B") :
				"the parent or the revert of the likely culprit,", sha,
				s->paths.logs);
	if (ret)
		return ret < 0 ? ret : 0;
	for (run = 1; run <= runs; run++)
		if ((ret = kb_session_run_once(s, t, sha, boot, run)) != 0)
			break;
	return ret < 0 ? ret : 0;
}

int kb_repo_revert(git_repository *repo, const git_oid *culprit, const git_oid *onto,
		   git_oid *out, int *applied)
{
	git_commit *c = NULL, *bad = NULL;
	git_index *index = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_oid tree_id;
	char hex[GIT_OID_HEXSZ + 1], bhex[GIT_OID_HEXSZ + 1], *msg = NULL;
	int ret = 0;

	*applied = 0;
	if (git_commit_lookup(&c, repo, culprit) < 0 ||
	    git_commit_lookup(&bad, repo, onto) < 0) {
		ret = kb_error(KB_ERROR, "cannot read the commits to revert");
		goto out;
	}
	if (git_revert_commit(&index, repo, c, bad,
			      git_commit_parentcount(c) > 1 ? 1 : 0, NULL) < 0 ||
	    git_index_has_conflicts(index)) {
		kb_error_clear();
		goto out;
	}
	git_oid_tostr(hex, sizeof(hex), culprit);
	git_oid_tostr(bhex, sizeof(bhex), onto);
	/* the same inputs give the same commit, in any clone */
	msg = kb_asprintf("Revert \"%s\"\n\nThis reverts commit %s on top of %s,\n"
			  "to check that the regression goes with it.\n",
			  git_commit_summary(c), hex, bhex);
	if (git_index_write_tree_to(&tree_id, index, repo) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_signature_new(&sig, "kbisect", "kbisect@localhost",
			      git_commit_time(bad), 0) < 0 ||
	    git_commit_create(out, repo, NULL, sig, sig, NULL, msg, tree, 1,
			      (const git_commit **)&bad) < 0) {
		ret = kb_error(KB_ERROR, "cannot write the revert commit: %s",
			       git_error_last() ? git_error_last()->message : "?");
		goto out;
	}
	*applied = 1;
out:
	free(msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(index);
	git_commit_free(c);
	git_commit_free(bad);
	return ret;
}

/* Revert 'culprit' on top of BAD into a commit object (no ref, no work
 * tree, no index of the user's is touched) and record it. */
int kb_perf_make_revert(struct kb_session *s, const char *culprit)
{
	git_oid oid, rev;
	char hex[GIT_OID_HEXSZ + 1] = "-";
	int applied, ret;

	git_oid_fromstr(&oid, culprit);
	if ((ret = kb_repo_revert(s->repo, &oid, &s->dag.oid[s->dag.bad], &rev, &applied)) < 0)
		return ret;
	if (applied) {
		git_oid_tostr(hex, sizeof(hex), &rev);
		kb_session_say(s, KB_SAY_INFO, "reverted %.12s on top of BAD as %.12s",
			       culprit, hex);
	} else {
		kb_session_say(s, KB_SAY_INFO, "the revert of %.12s does not apply on BAD: "
			       "no revert check", culprit);
	}
	return kb_store_event(s->store, s->row.id, "revert", "%s %s", culprit, hex);
}

/* The probe's next commit if its samples come out at 'value'. */
static void next_if(struct kb_session *s, const char *sha, double value)
{
	struct input x;
	struct kb_perf_out out;
	struct kb_perf_obs *o;
	long node;
	int i;

	if (s->n_next >= KB_AHEAD_MAX || build_input(s, &x) < 0) {
		kb_error_clear();
		return;
	}
	is_node(s, sha, &node);
	o = kb_perf_obs_get(&x.obs, &x.nobs, &x.alloc, sha, node);
	for (i = 0; i < x.in.p.max_probe; i++)
		kb_perf_obs_add(o, 100000 + i / 5, 1 + i % 5, value, 1000000 + (size_t)i);
	x.in.obs = x.obs;
	x.in.nobs = x.nobs;
	if (kb_perf_decide(&x.in, &out) == 0) {
		if (out.kind == KB_PERF_RUN && strcmp(out.sha, sha))
			memcpy(s->next_shas[s->n_next++], out.sha, 41);
		json_decref(out.verdict);
		json_decref(out.summary);
	}
	kb_error_clear();
	kb_perf_obs_free(x.obs, x.nobs);
	free(x.pairs);
}

/* The median of the samples of 'sha' (0 when there are none). */
static double median_of(struct kb_session *s, const char *sha)
{
	double *v = kb_calloc(s->nruns ? s->nruns : 1, sizeof(*v)), m;
	size_t i, n = 0;

	for (i = 0; i < s->nruns; i++)
		if (s->runs[i].has_value && !strcmp(s->runs[i].sha, sha))
			v[n++] = s->runs[i].value;
	m = n ? kb_median(v, n) : 0;
	free(v);
	return m;
}

void kb_perf_next_candidates(struct kb_session *s, const char *sha, const char *role)
{
	s->n_next = 0;
	if (!strcmp(role, "good") || !strcmp(role, "bad")) {
		struct kb_next next;

		/* calibration: the first probe splits the range */
		if (kb_session_next(s, &next) == 0 && next.kind == KB_NEXT_TEST)
			git_oid_tostr(s->next_shas[s->n_next++], 41, &s->dag.oid[next.commit]);
		kb_error_clear();
		kb_next_release(&next);
	} else if (!strcmp(role, "skipped")) {
		struct kb_perf_out out;

		/* 'sha' did not build: the next thing to measure is known */
		if (decide(s, &out, 0) == 0) {
			if (out.kind == KB_PERF_RUN)
				memcpy(s->next_shas[s->n_next++], out.sha, 41);
			json_decref(out.verdict);
		}
		kb_error_clear();
	} else if (!strcmp(role, "probe")) {
		double g = median_of(s, s->spec.good_shas.v[0]), b = median_of(s, s->spec.bad_sha);

		if (g > 0 && b > 0) {
			next_if(s, sha, b);
			next_if(s, sha, g);
		}
	}
}

/* A guess at the commits still to measure after this one: halving the
 * candidates the posterior still spreads over, then the culprit's parent
 * and the revert. */
int kb_perf_steps_after(const struct kb_perf_out *out)
{
	int n = out->candidates > 1 ? (int)ceil(log2(out->candidates)) : 0;

	if (!strcmp(out->role, "good") || !strcmp(out->role, "bad"))
		return n + 2;
	if (!strcmp(out->role, "revert"))
		return 0;
	if (!strcmp(out->role, "parent") || !strcmp(out->role, "culprit"))
		return 1;
	return n ? n - 1 + 2 : 2;
}

int kb_perf_loop(struct kb_session *s, struct kb_target *t)
{
	int ret;

	for (;;) {
		struct kb_perf_out out;

		if (s->stop && *s->stop)
			return kb_error(KB_EINTR, "stopped; continue with 'kbisect resume'");
		if ((ret = kb_session_refresh(s)) < 0 || (ret = decide(s, &out, 0)) < 0)
			return ret;
		if (out.kind == KB_PERF_DONE) {
			json_decref(out.verdict);
			return kb_session_finish(s);
		}
		if (out.kind == KB_PERF_REVERT) {
			if ((ret = kb_perf_make_revert(s, out.sha)) < 0)
				return ret;
			continue;
		}
		kb_session_say(s, KB_SAY_STEP, "[%.12s] %s: %s (likeliest culprit %.0f%%)",
			       out.sha, out.role, out.note, 100 * out.best_prob);
		s->steps_after = kb_perf_steps_after(&out);
		if (kb_session_ahead_jobs(s, t))
			kb_perf_next_candidates(s, out.sha, out.role);
		if ((ret = kb_perf_measure_boot(s, t, out.sha, out.runs)) < 0)
			return ret;
	}
}

static void add_commit_info(struct kb_session *s, json_t *o)
{
	const char *sha = json_string_value(json_object_get(o, "commit"));
	json_t *c;
	git_oid oid;

	if (!sha || git_oid_fromstr(&oid, sha) < 0)
		return;
	c = kb_session_commit_json(s, &oid);
	json_object_update_missing(o, c);
	json_decref(c);
}

/* Where a measured commit stands in history: 0 for a GOOD, 1 for the
 * oldest commit of the range up to the range's size for BAD (the order is
 * topological, parents first).  A revert is not in history: no position. */
static void add_position(struct kb_session *s, json_t *o)
{
	const char *sha = json_string_value(json_object_get(o, "commit"));
	git_oid oid;
	long node;
	size_t i;

	if (!sha || git_oid_fromstr(&oid, sha) < 0)
		return;
	for (i = 0; i < s->spec.good_shas.n; i++)
		if (!strcmp(sha, s->spec.good_shas.v[i])) {
			json_object_set_new(o, "position", json_integer(0));
			return;
		}
	if ((node = kb_dag_find(&s->dag, &oid)) >= 0)
		json_object_set_new(o, "position",
				    json_integer((json_int_t)(s->dag.g.n - (size_t)node)));
}

int kb_perf_report(struct kb_session *s, json_t **out)
{
	struct kb_perf_out po;
	json_t *o, *v, *e, *goods = json_array();
	size_t i, runs = 0, builds;
	int ret;

	if ((ret = decide(s, &po, 1)) < 0) {
		json_decref(goods);
		return ret;
	}
	if (po.kind == KB_PERF_DONE) {
		o = po.verdict;
		json_decref(po.summary);
	} else {
		o = po.summary;
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		json_object_set_new(o, "culprits", json_array());
		json_array_append_new(json_object_get(o, "warnings"), json_pack(
			"{s:s, s:s}", "kind", "unfinished", "message",
			"the bisection has not finished"));
		if (po.best_node >= 0)
			json_object_set_new(o, "likeliest", json_pack("{s:s, s:f}", "commit",
				s->node_sha[po.best_node], "probability", po.best_prob));
	}
	for (i = 0; i < s->spec.good_shas.n; i++)
		json_array_append_new(goods, json_string(s->spec.good_shas.v[i]));
	for (i = 0; i < s->nruns; i++)
		runs += s->runs[i].state == KB_RUN_DONE;
	builds = kb_session_builds_total(s);
	json_object_set_new(o, "version", json_integer(1));
	json_object_set_new(o, "mode", json_string("performance"));
	json_object_set_new(o, "good", json_string(s->spec.good_shas.v[0]));
	json_object_set_new(o, "bad", json_string(s->spec.bad_sha));
	json_object_set_new(o, "goods", goods);
	json_object_set_new(o, "metric", json_pack("{s:s, s:s, s:s}",
		"name", s->spec.bench.metric.name, "unit", s->spec.bench.metric.unit,
		"direction", s->spec.bench.metric.direction == KB_HIGHER_IS_BETTER ?
		"higher" : "lower"));
	json_object_set_new(o, "confidence", json_real(s->spec.confidence));
	json_object_set_new(o, "runs_total", json_integer((json_int_t)runs));
	json_object_set_new(o, "builds_total", json_integer((json_int_t)builds));
	json_object_set_new(o, "bench", json_string(s->spec.bench.name));
	json_object_set_new(o, "target", json_string(s->spec.target));
	kb_session_target_info(s, o);
	kb_session_setup_info(s, o);
	json_object_set_new(o, "range", json_integer((json_int_t)s->dag.g.n));
	json_object_set_new(o, "state", json_string(s->row.state));
	json_array_foreach(json_object_get(o, "culprits"), i, e) {
		add_commit_info(s, e);
		kb_session_culprit_people(s, e);
	}
	json_array_foreach(json_object_get(o, "steps"), i, e) {
		add_commit_info(s, e);
		add_position(s, e);
		if (!strcmp(json_string_value(json_object_get(e, "decision")), "skip"))
			kb_session_build_error(s, json_string_value(json_object_get(e, "commit")), e);
	}
	if ((v = json_object_get(o, "likeliest")))
		add_commit_info(s, v);
	*out = o;
	return 0;
}

int kb_perf_status(struct kb_session *s, json_t *st)
{
	struct kb_perf_out po;
	int ret;

	if ((ret = decide(s, &po, 0)) < 0)
		return ret;
	if (po.kind == KB_PERF_DONE) {
		json_t *c = json_array_get(json_object_get(po.verdict, "culprits"), 0);

		json_object_set(st, "verdict", json_object_get(po.verdict, "verdict"));
		if (c && (!strcmp(json_string_value(json_object_get(po.verdict, "verdict")),
				  "culprit") ||
			  !strcmp(json_string_value(json_object_get(po.verdict, "verdict")),
				  "multiple")))
			json_object_set(st, "culprit", json_object_get(c, "commit"));
		json_object_set_new(st, "next", json_null());
		json_decref(po.verdict);
	} else {
		json_object_set_new(st, "next", po.kind == KB_PERF_RUN ?
			json_pack("{s:s, s:s, s:s}", "commit", po.sha, "role", po.role,
				  "why", po.note) : json_null());
	}
	json_object_set_new(st, "likeliest", po.best_node >= 0 ?
		json_pack("{s:s, s:f}", "commit", s->node_sha[po.best_node],
			  "probability", po.best_prob) : json_null());
	json_object_set_new(st, "warmup_used", json_integer(po.warmup_used));
	return 0;
}

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

int kb_compare_loop(struct kb_session *s, struct kb_target *t)
{
	const char *a = s->spec.good_shas.v[0], *b = s->spec.bad_sha;
	int ret, want = s->spec.compare_boots ? s->spec.compare_boots : 3;

	for (;;) {
		int na, nb;
		const char *next;

		if (s->stop && *s->stop)
			return kb_error(KB_EINTR, "stopped; run the same 'kbisect compare' "
					"again to continue");
		if ((ret = kb_session_refresh(s)) < 0)
			return ret;
		for (size_t i = 0; i < s->nmark_rows; i++)
			if (s->mark_rows[i].mark == 's')
				return kb_error(KB_EINVAL, "the benchmark fails at %.12s: "
						"nothing to compare", s->mark_rows[i].sha);
		na = boots_of(s, a);
		nb = boots_of(s, b);
		if (na >= want && nb >= want)
			return kb_session_finish(s);
		next = na <= nb ? a : b;
		s->steps_after = -1;
		kb_session_say(s, KB_SAY_STEP, "[%.12s] %s, boot %d of %d", next,
			       next == a ? "A" : "B", (next == a ? na : nb) + 1, want);
		if ((ret = kb_perf_measure_boot(s, t, next, s->spec.bench.runs_per_boot)) < 0)
			return ret;
	}
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

int kb_compare_report(struct kb_session *s, json_t **out)
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
		      "target", s->spec.target, "runs_total", (int)(na + nb));
	kb_session_target_info(s, o);
	json_object_set_new(o, "metric", json_pack("{s:s, s:s, s:s}",
		"name", s->spec.bench.metric.name, "unit", s->spec.bench.metric.unit,
		"direction", s->spec.bench.metric.direction == KB_HIGHER_IS_BETTER ?
		"higher" : "lower"));
	free(va);
	free(vb);
	*out = o;
	return 0;
}
