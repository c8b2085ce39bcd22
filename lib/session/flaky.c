/*
 * The flaky mode: a pass/fail test that fails only some of the time.  It
 * asks the decision code (lib/flaky.c) which commit to run next, runs it
 * once on a boot of its own (on a pool, on every free machine at once),
 * makes the revert of a likely culprit it asks for (as the performance
 * mode does), and reports the verdict with the failure rate and the
 * checks.
 *
 * A run passes (exit 0), fails the bug's way (exit 1-124 or 128 and above,
 * killed by a signal, timed out, or a kernel that died, with the output
 * matching the benchmark's signature when it has one), or fails another
 * way (no match): that one counts neither way, and the report lists it.
 * Exit 125 skips the commit; 126 and 127 (the command could not be run)
 * stop the session, as in the pass/fail mode.  What a run was is its
 * value in the database: 0 passed, 1 failed the bug's way, none another
 * failure.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flaky.h"
#include "mode.h"

/* What the runs say, for the decision code. */
struct input {
	struct kb_flaky_in in;
	struct kb_flaky_count *c;
	size_t nc;
	unsigned char *skip;
	char revert_of[41], revert_sha[41];
	int revert_made;    /* a revert was asked for: 1 applied, 0 not */
	size_t other;       /* runs that failed another way */
};

static void hex_of(char out[GIT_OID_HEXSZ + 1], const git_oid *oid)
{
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, oid);
}

/* The node of 'sha' in the range, or -1. */
static long node_of(struct kb_session *s, const char *sha)
{
	git_oid oid;
	size_t i;

	if (git_oid_fromstr(&oid, sha) < 0)
		return -1;
	for (i = 0; i < s->dag.g.n; i++)
		if (!git_oid_cmp(&oid, &s->dag.oid[i]))
			return (long)i;
	return -1;
}

static struct kb_flaky_count *count_for(struct input *x, long node)
{
	size_t i;

	for (i = 0; i < x->nc; i++)
		if (x->c[i].node == node)
			return &x->c[i];
	x->c = kb_realloc(x->c, (x->nc + 1) * sizeof(*x->c));
	memset(&x->c[x->nc], 0, sizeof(x->c[x->nc]));
	x->c[x->nc].node = node;
	return &x->c[x->nc++];
}

/* The latest revert made, as performance mode records them. */
static void revert_load(struct kb_session *s, struct input *x)
{
	struct kb_revert_row *r;
	size_t n;

	x->in.revert_of = -1;
	if (kb_store_reverts(s->store, s->row.id, &r, &n) < 0) {
		kb_error_clear();
		return;
	}
	if (n) {
		memcpy(x->revert_of, r[n - 1].culprit, 41);
		memcpy(x->revert_sha, r[n - 1].sha, 41);
		x->in.revert_of = node_of(s, x->revert_of);
		x->in.revert_made = x->revert_sha[0] != '\0';
	}
	free(r);
}

static void input_release(struct input *x)
{
	free(x->c);
	free(x->skip);
}

static void input_build(struct kb_session *s, struct input *x)
{
	const char *good = s->spec.good_shas.v[0];
	char (*shas)[41] = NULL;
	long *nodes = NULL;
	size_t nshas = 0, i, j;

	memset(x, 0, sizeof(*x));
	x->skip = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, 1);
	for (i = 0; i < s->dag.g.n; i++)
		x->skip[i] = s->marks[i] == KB_MARK_SKIP;
	revert_load(s, x);
	count_for(x, (long)s->dag.bad);
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];
		struct kb_flaky_count *c;
		long node;

		if (r->state != KB_RUN_DONE)
			continue;
		if (!r->has_value)
			x->other++;
		if (x->in.revert_made && !strcmp(r->sha, x->revert_sha)) {
			if (!r->has_value)
				x->in.revert_other++;
			x->in.revert_runs += r->has_value;
			x->in.revert_fails += r->has_value && r->value > 0.5;
			continue;
		}
		/* each commit looked up once */
		for (j = 0; j < nshas && strcmp(shas[j], r->sha); j++)
			;
		if (j == nshas) {
			shas = kb_realloc(shas, (nshas + 1) * sizeof(*shas));
			nodes = kb_realloc(nodes, (nshas + 1) * sizeof(*nodes));
			memcpy(shas[nshas], r->sha, 41);
			nodes[nshas] = !strcmp(r->sha, good) ? -1 : node_of(s, r->sha);
			/* GOOD's other ids, and commits out of the range: not counted */
			if (nodes[nshas] < 0 && strcmp(r->sha, good))
				nodes[nshas] = -2;
			nshas++;
		}
		node = nodes[j];
		if (node == -2)
			continue;
		c = count_for(x, node);
		if (!r->has_value) {
			c->other++;
			continue;
		}
		c->runs++;
		c->fails += r->value > 0.5;
	}
	free(shas);
	free(nodes);
	x->in.g = &s->dag.g;
	x->in.bad = s->dag.bad;
	x->in.c = x->c;
	x->in.nc = x->nc;
	x->in.skip = x->skip;
	kb_flaky_params_default(&x->in.p);
	x->in.p.confidence = s->spec.confidence;
	if (s->spec.bench.min_rate > 0)
		x->in.p.min_rate = s->spec.bench.min_rate;
}

static int decide(struct kb_session *s, struct input *x, struct kb_flaky_out *out)
{
	input_build(s, x);
	return kb_flaky_decide(&x->in, out);
}

/* The id of what 'out' asks to run. */
static void sha_of(struct kb_session *s, const struct input *x,
		   const struct kb_flaky_out *out, char sha[41])
{
	if (out->kind == KB_FLAKY_RUN_REVERT)
		memcpy(sha, x->revert_sha, 41);
	else if (out->node < 0)
		snprintf(sha, 41, "%s", s->spec.good_shas.v[0]);
	else
		hex_of(sha, &s->dag.oid[out->node]);
}

/* Does the output of a failed run (its head, its tail, what the runner
 * said of it) match the benchmark's signature?  Always, without one. */
static int matches(struct kb_session *s, const char *head, const char *tail,
		   const char *message)
{
	regex_t re;
	int hit;

	if (!s->spec.bench.signature)
		return 1;
	if (regcomp(&re, s->spec.bench.signature, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	hit = (head && !regexec(&re, head, 0, NULL, 0)) ||
	      (tail && !regexec(&re, tail, 0, NULL, 0)) ||
	      (message && !regexec(&re, message, 0, NULL, 0));
	regfree(&re);
	return hit;
}

/* A run's outcome: 'p' passed, 'f' failed, 's' skips the commit, or 0
 * when it stops the session (why in 'why'). */
static char classify(const struct kb_run_result *res, char *why, size_t len)
{
	switch (res->outcome) {
	case KB_RUN_EXITED:
		if (res->exit_status == 0)
			return 'p';
		if (res->exit_status == 125)
			return 's';
		if (kb_session_cannot_run(res, why, len))
			return 0;
		return 'f';
	case KB_RUN_SIGNALED:
	case KB_RUN_TIMEOUT:
	case KB_RUN_CRASHED:
		/* a crash, a hang, a kernel that died: what flaky bugs do */
		return 'f';
	case KB_RUN_EXEC_FAILED:
		snprintf(why, len, "%s", res->message);
		return 0;
	}
	return 0;
}

/* Did the kernel die in run 'r' (its console says how)? */
static int crashed(const struct kb_run_row *r)
{
	return r->exit_status == -1 && !r->term_signal && !r->timed_out;
}

/* Without a signature, on a target that boots kernels: the key of the
 * title of BAD's first failure, when the kernel died in it and its console
 * says how (an oops, a BUG, a WARNING, a panic), into 'key' (its title into
 * 'title').  0 when there is none: every failure is the bug's. */
static int default_key(struct kb_session *s, char *key, char *title, size_t len)
{
	size_t i;

	if (s->spec.bench.signature)
		return 0;
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];

		if (r->state != KB_RUN_DONE || !r->has_value || r->value < 0.5 ||
		    strcmp(r->sha, s->spec.bad_sha))
			continue;
		if (!crashed(r) || !kb_flaky_title(r->output_tail, title, len))
			return 0;
		kb_flaky_title_key(title, key, len);
		return 1;
	}
	return 0;
}

/* Does a failure fail the way BAD's first failure did, when that is how
 * the bug is told by default (default_key())?  Always, when it is not. */
static int same_way(struct kb_session *s, const struct kb_run_result *res, const char *text)
{
	char key[160], title[160], k[160], t[160];

	if (!default_key(s, key, title, sizeof(key)))
		return 1;
	if (res->outcome != KB_RUN_CRASHED || !kb_flaky_title(text, t, sizeof(t)))
		return 0;
	kb_flaky_title_key(t, k, sizeof(k));
	return !strcmp(k, key);
}

static int record_run(struct kb_session *s, const struct kb_run_row *started,
		      const struct kb_run_result *res)
{
	struct kb_run_row r = *started;
	struct kb_buf head = KB_BUF_INIT, tail = KB_BUF_INIT;
	char why[1400] = "", *dir = kb_session_run_dir(s, started->id), *out, *last;
	char kind = classify(res, why, sizeof(why)), mark = 0;
	int ret, endpoint;

	out = kb_asprintf("%s/output", dir);
	kb_output_read(out, &head, &tail);
	kb_error_clear();
	last = kb_session_output_last(&head, &tail);
	if (res->outcome == KB_RUN_CRASHED) {
		/* how the kernel died first: the failure's title */
		char *both = kb_asprintf("%s\n%s", res->message, last);

		free(last);
		last = both;
	}
	kb_session_run_outcome(&r, res);
	r.state = kind ? KB_RUN_DONE : KB_RUN_ABORTED;
	r.output_tail = last;
	endpoint = !strcmp(r.sha, s->spec.bad_sha) || !strcmp(r.sha, s->spec.good_shas.v[0]);
	if (kind == 'p') {
		r.has_value = 1;
		r.value = 0;
	} else if (kind == 'f' && matches(s, head.ptr, tail.ptr, res->message) &&
		   same_way(s, res, last)) {
		r.has_value = 1;
		r.value = 1;
	} else if (kind == 's' && endpoint) {
		snprintf(why, sizeof(why), "the test cannot run (exit 125) at %s, which "
			 "every check needs", !strcmp(r.sha, s->spec.bad_sha) ? "BAD" : "GOOD");
		r.state = KB_RUN_ABORTED;
		kind = 0;
	} else if (kind == 's') {
		mark = KB_MARK_SKIP;
	}
	if ((ret = kb_session_record_run(s, &r, res, mark, kind ? NULL : why)) < 0)
		goto out;
	if (!kind) {
		ret = kb_error(KB_EABORT, "%s at commit %.12s; see %s, fix the test and run "
			       "'kbisect resume'", why, r.sha, out);
	} else if (kind == 'p') {
		kb_session_say(s, KB_SAY_INFO, "%.12s passed", r.sha);
	} else if (kind == 's') {
		kb_session_say(s, KB_SAY_WARN, "%.12s is skip (exit 125)", r.sha);
		ret = 1;
	} else {
		char title[160];

		kb_flaky_title(res->outcome == KB_RUN_CRASHED ? res->message : last, title,
			 sizeof(title));
		if (!*title && res->outcome == KB_RUN_EXITED)
			snprintf(title, sizeof(title), "exit %d", res->exit_status);
		else if (!*title)
			snprintf(title, sizeof(title), "%.150s", res->message);
		if (r.has_value)
			kb_session_say(s, KB_SAY_INFO, "%.12s failed: %s", r.sha, title);
		else
			kb_session_say(s, KB_SAY_WARN, "%.12s failed another way, not counted: "
				       "%s (output: %s)", r.sha, title, out);
	}
	/* a failure's output stays for the developer to read */
	kb_session_run_tidy(s, &r, !kind || kind == 'f');
out:
	kb_buf_release(&head);
	kb_buf_release(&tail);
	free(last);
	free(dir);
	free(out);
	return ret;
}

/* A kernel that panicked or hung at boot: a failed run of its own, as a
 * crash in the test is (the bug's when the signature matches the fault),
 * not a skip: a commit that dies in one boot of two is what this mode is
 * for. */
static int boot_failed(struct kb_session *s, struct kb_target *t, const char *sha, int boot)
{
	struct kb_run_row row;
	struct kb_run_result res;
	int ret;

	memset(&row, 0, sizeof(row));
	snprintf(row.sha, sizeof(row.sha), "%s", sha);
	row.boot = boot;
	row.run = 1;
	if ((ret = kb_store_run_start(s->store, s->row.id, sha, boot, 1, NULL, &row.id)) < 0)
		return ret;
	memset(&res, 0, sizeof(res));
	res.outcome = KB_RUN_CRASHED;
	snprintf(res.message, sizeof(res.message), "%s", t->fault);
	ret = record_run(s, &row, &res);
	return ret < 0 ? ret : 2;
}

/* Build, boot and run one commit once.  A commit that fails to build is
 * skipped; GOOD, BAD or the revert that fail to build stop the session. */
static int work(struct kb_session *s, struct kb_target *t, const struct kb_job *job)
{
	int boot = 0, ret;

	ret = kb_session_boot(s, t, job->sha, 1, &boot);
	if (ret == 2)
		return 0; /* the kernel died at boot: recorded as a run */
	if (ret > 0 && node_of(s, job->sha) < 0)
		return kb_error(KB_EINVAL, "the build or setup fails at %s %.12s, which the "
				"checks need: see the logs in %s",
				!strcmp(job->sha, s->spec.good_shas.v[0]) ? "GOOD" :
				!strcmp(job->sha, s->spec.bad_sha) ? "BAD" :
				"the revert of the likely culprit,", job->sha, s->paths.logs);
	if (ret)
		return ret < 0 ? ret : 0;
	return kb_session_run_once(s, t, job->sha, boot, 1);
}

static int plan_one(struct kb_session *s, struct kb_job *job)
{
	struct kb_flaky_out out;
	struct input x;
	int ret;

	for (;;) {
		if ((ret = decide(s, &x, &out)) < 0) {
			input_release(&x);
			return ret;
		}
		if (out.kind != KB_FLAKY_REVERT)
			break;
		{
			char sha[41];

			hex_of(sha, &s->dag.oid[out.node]);
			input_release(&x);
			if ((ret = kb_perf_make_revert(s, sha)) < 0)
				return ret;
		}
	}
	if (out.kind == KB_FLAKY_DONE) {
		input_release(&x);
		return KB_PLAN_FINISH;
	}
	memset(job, 0, sizeof(*job));
	sha_of(s, &x, &out, job->sha);
	job->runs = 1;
	snprintf(job->role, sizeof(job->role), "%s", out.role);
	kb_session_say(s, KB_SAY_STEP, "[%.12s] %s: %s", job->sha, out.role, out.note);
	s->n_next = 0;
	input_release(&x);
	return KB_PLAN_WORK;
}

/*
 * A pool: runs are independent, so every free machine runs what one
 * machine would run next (the same commit on several, or the next once
 * the answers of the ones under way are in).  The verdict waits for the
 * runs under way.
 */
static int plan_pool(struct kb_session *s, const struct kb_plan_in *in, struct kb_job *out,
		     size_t *nout)
{
	struct kb_job job;
	size_t j;
	int ret;

	*nout = 0;
	if (s->stop && *s->stop)
		return in->nbusy ? KB_PLAN_WORK : KB_PLAN_STOP;
	if (!in->nfree)
		return KB_PLAN_WORK;
	if ((ret = plan_one(s, &job)) < 0)
		return ret;
	if (ret == KB_PLAN_FINISH)
		return in->nbusy ? KB_PLAN_WORK : KB_PLAN_FINISH;
	for (j = 0; j < in->nfree; j++) {
		out[j] = job;
		out[j].machine = in->free[j];
	}
	*nout = in->nfree;
	return KB_PLAN_WORK;
}

static void skipped(struct kb_session *s, const char *sha)
{
	(void)sha;
	s->n_next = 0;
}

/* What each commit run gave, in the order first run. */
static json_t *steps_json(struct kb_session *s, const struct input *x)
{
	json_t *steps = json_array();
	size_t i, j;
	char (*seen)[41] = kb_calloc(s->nruns + 1, sizeof(*seen));
	size_t nseen = 0;

	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];
		int runs = 0, fails = 0, other = 0;
		const char *role;
		json_t *o;
		git_oid oid;

		if (r->state != KB_RUN_DONE)
			continue;
		for (j = 0; j < nseen && strcmp(seen[j], r->sha); j++)
			;
		if (j < nseen)
			continue;
		memcpy(seen[nseen++], r->sha, 41);
		for (j = i; j < s->nruns; j++) {
			const struct kb_run_row *q = &s->runs[j];

			if (q->state != KB_RUN_DONE || strcmp(q->sha, r->sha))
				continue;
			runs++;
			if (!q->has_value)
				other++;
			else
				fails += q->value > 0.5;
		}
		role = !strcmp(r->sha, s->spec.bad_sha) ? "bad" :
		       !strcmp(r->sha, s->spec.good_shas.v[0]) ? "good" :
		       x->in.revert_made && !strcmp(r->sha, x->revert_sha) ? "revert" : "probe";
		git_oid_fromstr(&oid, r->sha);
		o = kb_session_commit_json(s, &oid);
		json_object_set_new(o, "decision", json_string(role));
		json_object_set_new(o, "runs", json_integer(runs));
		json_object_set_new(o, "fails", json_integer(fails));
		json_object_set_new(o, "other", json_integer(other));
		json_object_set_new(o, "samples", json_array());
		if (node_of(s, r->sha) >= 0 && s->marks[node_of(s, r->sha)] == KB_MARK_SKIP)
			kb_session_build_error(s, r->sha, o);
		json_array_append_new(steps, o);
	}
	free(seen);
	return steps;
}

/* The other failures, by title, as warnings. */
static void other_failures(struct kb_session *s, json_t *warnings)
{
	char (*titles)[160] = kb_calloc(s->nruns + 1, sizeof(*titles));
	char (*keys)[160] = kb_calloc(s->nruns + 1, sizeof(*keys));
	int *count = kb_calloc(s->nruns + 1, sizeof(*count));
	size_t n = 0, i, j;

	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];
		char t[160], k[160];

		if (r->state != KB_RUN_DONE || r->has_value)
			continue;
		kb_flaky_title(r->output_tail, t, sizeof(t));
		if (!*t)
			snprintf(t, sizeof(t), "exit %d", r->exit_status);
		kb_flaky_title_key(t, k, sizeof(k));
		for (j = 0; j < n && strcmp(keys[j], k); j++)
			;
		if (j == n) {
			memcpy(titles[n], t, sizeof(t));
			memcpy(keys[n++], k, sizeof(k));
		}
		count[j]++;
	}
	for (j = 0; j < n; j++)
		kb_report_warn(warnings, "other-failure", "%d run%s failed another way, not "
			       "counted: %s", count[j], count[j] == 1 ? "" : "s", titles[j]);
	free(titles);
	free(keys);
	free(count);
}

static int report(struct kb_session *s, json_t **res)
{
	struct kb_flaky_out out;
	struct input x;
	json_t *o, *culprits = json_array(), *warnings = json_array(), *goods = json_array();
	size_t i, runs = 0;
	int ret;

	if ((ret = decide(s, &x, &out)) < 0) {
		input_release(&x);
		json_decref(culprits);
		json_decref(warnings);
		json_decref(goods);
		return ret;
	}
	for (i = 0; i < s->spec.good_shas.n; i++)
		json_array_append_new(goods, json_string(s->spec.good_shas.v[i]));
	for (i = 0; i < s->nruns; i++)
		runs += s->runs[i].state == KB_RUN_DONE;
	o = json_pack("{s:i, s:s, s:s, s:s, s:o, s:n}", "version", 1, "mode", "flaky",
		      "good", s->spec.good_shas.v[0], "bad", s->spec.bad_sha, "goods", goods,
		      "metric");
	if (out.kind == KB_FLAKY_DONE) {
		json_object_set_new(o, "verdict", json_string(out.verdict));
		if (*out.reason)
			json_object_set_new(o, "reason", json_string(out.reason));
	} else {
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		json_object_set_new(o, "reason", json_string("the bisection has not finished"));
		kb_report_warn(warnings, "unfinished", "the bisection has not finished: the "
			       "likeliest culprit holds %.0f%%", 100 * out.prob);
	}
	if (out.best >= 0 && (out.kind != KB_FLAKY_DONE || strcmp(out.verdict, "no-regression"))) {
		json_t *c = kb_session_commit_json(s, &s->dag.oid[out.best]);

		json_object_set_new(c, "probability", json_real(out.prob));
		json_object_set_new(c, "checks", json_pack("{s:s, s:s, s:s}",
			"fails_itself", out.culprit_check, "parent_clean", out.parent_check,
			"revert", out.revert_check));
		json_object_set_new(c, "rate", json_pack("{s:f, s:[f, f]}", "estimate", out.q,
			"interval", out.q_lo, out.q_hi));
		json_object_set_new(c, "false_alarms", json_pack("{s:f, s:f}", "estimate", out.e,
			"upper", out.e_hi));
		if (x.in.revert_of == out.best) {
			json_object_set_new(c, "revert", json_string(x.in.revert_made ?
								   x.revert_sha : ""));
			json_object_set_new(c, "revert_runs", json_pack("{s:i, s:i}", "runs",
				x.in.revert_runs, "fails", x.in.revert_fails));
		}
		kb_session_culprit_people(s, c);
		json_array_append_new(culprits, c);
	}
	if (x.in.revert_of == out.best && x.in.revert_made && !strcmp(out.revert_check, "n/a"))
		kb_report_warn(warnings, "revert-other", "BAD with the likely culprit reverted "
			       "failed another way in %d of %d runs: no revert check",
			       x.in.revert_other, x.in.revert_other + x.in.revert_runs);
	if (out.good_failed)
		kb_report_warn(warnings, "good-fails", "GOOD failed the bug's way too: taken "
			       "as false alarms (%.1f%% of runs before the culprit, at most "
			       "%.1f%%)", 100 * out.e, 100 * out.e_hi);
	other_failures(s, warnings);
	json_object_set_new(o, "culprits", culprits);
	json_object_set_new(o, "warnings", warnings);
	json_object_set_new(o, "steps", steps_json(s, &x));
	json_object_set_new(o, "min_rate", json_real(x.in.p.min_rate));
	if (s->spec.bench.signature) {
		json_object_set_new(o, "signature", json_string(s->spec.bench.signature));
	} else {
		char key[160], title[160];

		if (default_key(s, key, title, sizeof(key)))
			json_object_set_new(o, "failure_title", json_string(title));
	}
	kb_report_common(s, o, runs);
	input_release(&x);
	*res = o;
	return 0;
}

static int status(struct kb_session *s, json_t *o)
{
	struct kb_flaky_out out;
	struct input x;
	int ret;

	if ((ret = decide(s, &x, &out)) < 0) {
		input_release(&x);
		return ret;
	}
	if (out.kind == KB_FLAKY_DONE) {
		json_object_set_new(o, "next", json_null());
		json_object_set_new(o, "verdict", json_string(out.verdict));
		if (!strcmp(out.verdict, "culprit")) {
			char hex[GIT_OID_HEXSZ + 1];

			hex_of(hex, &s->dag.oid[out.best]);
			json_object_set_new(o, "culprit", json_string(hex));
		}
	} else if (out.kind == KB_FLAKY_REVERT) {
		json_object_set_new(o, "next", json_pack("{s:s}", "role", "revert"));
	} else {
		char sha[41];
		git_oid oid;
		json_t *c;

		sha_of(s, &x, &out, sha);
		if (git_oid_fromstr(&oid, sha) == 0) {
			c = kb_session_commit_json(s, &oid);
			json_object_set_new(c, "role", json_string(out.role));
			json_object_set_new(o, "next", c);
		}
	}
	if (out.best >= 0) {
		char hex[GIT_OID_HEXSZ + 1];
		double *post = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, sizeof(*post));
		size_t i, left = 0, tested = 0;

		hex_of(hex, &s->dag.oid[out.best]);
		json_object_set_new(o, "likeliest", json_pack("{s:s, s:f}", "commit", hex,
							      "probability", out.prob));
		/* the candidates: the commits the posterior has not ruled out */
		if (kb_flaky_posterior(&x.in, post) == 0)
			for (i = 0; i < s->dag.g.n; i++)
				left += post[i] >= 0.001;
		for (i = 0; i < x.nc; i++)
			tested += x.c[i].node >= 0 && x.c[i].runs > 0;
		json_object_set_new(o, "candidates", json_integer((json_int_t)left));
		json_object_set_new(o, "tested", json_integer((json_int_t)tested));
		free(post);
	}
	input_release(&x);
	return 0;
}

static int wants(const struct kb_spec *spec)
{
	return spec->bench.flaky;
}

const struct kb_mode_ops kb_mode_flaky = {
	.name = "flaky",
	.resume = "continue with 'kbisect resume'",
	.wants = wants,
	.plan = plan_one,
	.plan_pool = plan_pool,
	.work = work,
	.record_run = record_run,
	.boot_failed = boot_failed,
	.skipped = skipped,
	.report = report,
	.status = status,
};
