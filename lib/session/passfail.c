/*
 * The pass/fail mode: 'git bisect run'.  One run a commit, whose exit
 * status is its mark; the next commit is the one the marks say
 * (bisect.c), or on a pool a multisection of the candidates, one commit
 * for each free machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mode.h"

static void hex_of(char out[GIT_OID_HEXSZ + 1], const git_oid *oid)
{
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, oid);
}

/* The mark a pass/fail run's outcome stands for; 0 when it stops the
 * bisection instead (with the reason in 'why'). */
static char classify(const struct kb_run_result *res, char *why, size_t len)
{
	switch (res->outcome) {
	case KB_RUN_EXITED:
		if (res->exit_status == 0)
			return KB_MARK_GOOD;
		if (res->exit_status == 125)
			return KB_MARK_SKIP;
		if (kb_session_cannot_run(res, why, len))
			return 0;
		if (res->exit_status < 128)
			return KB_MARK_BAD;
		snprintf(why, len, "the test exited with %d (128 and above stop a "
			 "bisection)", res->exit_status);
		return 0;
	case KB_RUN_SIGNALED:
		snprintf(why, len, "the test was killed by signal %d (%s)",
			 res->term_signal, strsignal(res->term_signal));
		return 0;
	case KB_RUN_TIMEOUT:
		snprintf(why, len, "the test %s", res->message);
		return 0;
	case KB_RUN_EXEC_FAILED:
		snprintf(why, len, "%s", res->message);
		return 0;
	case KB_RUN_CRASHED:
		/* the kernel under test died or hung: its fault */
		return KB_MARK_SKIP;
	}
	return 0;
}

/* Record a run's outcome and the mark it decides, in one transaction. */
static int record_run(struct kb_session *s, const struct kb_run_row *started,
		      const struct kb_run_result *res)
{
	struct kb_run_row r = *started;
	struct kb_buf head = KB_BUF_INIT, tail = KB_BUF_INIT;
	char why[1400] = "", *dir = kb_session_run_dir(s, started->id), *out, *last;
	char mark = classify(res, why, sizeof(why));
	int ret;

	out = kb_asprintf("%s/output", dir);
	kb_output_read(out, &head, &tail);
	kb_error_clear();
	last = kb_session_output_last(&head, &tail);
	kb_session_run_outcome(&r, res);
	r.state = mark ? KB_RUN_DONE : KB_RUN_ABORTED;
	r.output_tail = last;
	if ((ret = kb_session_record_run(s, &r, res, mark, mark ? NULL : why)) < 0)
		goto out;
	if (mark && res->outcome == KB_RUN_CRASHED) {
		kb_session_say(s, KB_SAY_WARN, "%.12s is skip: %s", r.sha, res->message);
	} else if (mark) {
		kb_session_say(s, KB_SAY_INFO, "%.12s is %s (exit status %d)", r.sha,
			       mark == 'g' || mark == 'b' ? kb_spec_term(&s->spec, mark) :
			       kb_mark_name(mark), r.exit_status);
	} else {
		ret = kb_error(KB_EABORT, "%s at commit %.12s; see %s, fix the test and "
			       "run 'kbisect resume'", why, r.sha, out);
	}
	kb_session_run_tidy(s, &r, !mark);
out:
	kb_buf_release(&head);
	kb_buf_release(&tail);
	free(last);
	free(dir);
	free(out);
	return ret;
}

/* The commits tested after 'node' if it is good, and if it is bad. */
static void candidates(struct kb_session *s, size_t node)
{
	char *marks = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, 1), m[2] = { KB_MARK_BAD,
									  KB_MARK_GOOD };
	int i;

	s->n_next = 0;
	for (i = 0; i < 2; i++) {
		struct kb_next next;

		memcpy(marks, s->marks, s->dag.g.n);
		marks[node] = m[i];
		if (kb_bisect_next(&s->dag.g, s->dag.bad, marks, s->spec.seed, &next) == 0 &&
		    next.kind == KB_NEXT_TEST)
			hex_of(s->next_shas[s->n_next++], &s->dag.oid[next.commit]);
		kb_error_clear();
		kb_next_release(&next);
	}
	free(marks);
}

static void skipped(struct kb_session *s, const char *sha)
{
	struct kb_next next;

	s->n_next = 0;
	if (kb_session_next(s, &next) == 0 && next.kind == KB_NEXT_TEST)
		hex_of(s->next_shas[s->n_next++], &s->dag.oid[next.commit]);
	kb_next_release(&next);
}

/* Build, boot and test one commit, and mark it. */
static int work(struct kb_session *s, struct kb_target *t, const struct kb_job *job)
{
	int boot, ret;

	candidates(s, job->node);
	if ((ret = kb_session_boot(s, t, job->sha, 1, &boot)) != 0)
		return ret < 0 ? ret : 0;
	return kb_session_run_once(s, t, job->sha, boot, 1);
}

/* One machine: the commit the marks say, as 'git bisect' does. */
static int plan_one(struct kb_session *s, struct kb_job *out)
{
	struct kb_next next;
	char *subject;
	int ret;

	if ((ret = kb_session_next(s, &next)) < 0)
		return ret;
	if (next.kind != KB_NEXT_TEST) {
		kb_next_release(&next);
		return KB_PLAN_FINISH;
	}
	memset(out, 0, sizeof(*out));
	out->node = next.commit;
	out->runs = 1;
	hex_of(out->sha, &s->dag.oid[next.commit]);
	subject = kb_session_subject(s, out->sha);
	kb_session_say(s, KB_SAY_STEP, "Bisecting: %zu revision%s left to test after this "
		       "(roughly %d step%s)", next.nleft - 1 - next.split,
		       next.nleft - 1 - next.split == 1 ? "" : "s", next.steps_left,
		       next.steps_left == 1 ? "" : "s");
	kb_session_say(s, KB_SAY_INFO, "[%s] %s", out->sha, subject);
	free(subject);
	s->steps_after = next.steps_left;
	kb_next_release(&next);
	return KB_PLAN_WORK;
}

/* When the last round of a pool began. */
static double round_start;

/*
 * Is a test of the current round still at work on a commit that is a
 * candidate?  Then its answer, due about when the others' came, cuts the
 * candidates again: new commits wait for it, as they would be chosen on
 * what is about to change.  A test whose commit is out of the candidates
 * already is not waited for, and a machine that comes free early in a
 * round (in its first quarter) joins it.
 */
static int round_open(struct kb_session *s, const struct kb_plan_in *in,
		      unsigned char *alive)
{
	size_t nalive, i;

	kb_bisect_alive(&s->dag.g, s->dag.bad, s->marks, alive, &nalive);
	for (i = 0; i < in->nbusy; i++)
		if (alive[in->busy[i].node])
			break;
	if (i == in->nbusy) {
		/* a new round */
		round_start = kb_now();
		return 0;
	}
	return !(in->took > 0 && kb_now() - round_start < 0.25 * in->took);
}

/* A pool: a multisection of the candidates on the free machines. */
static int plan_pool(struct kb_session *s, const struct kb_plan_in *in, struct kb_job *out,
		     size_t *nout)
{
	struct kb_next next;
	size_t n = s->dag.g.n ? s->dag.g.n : 1, npick = 0, j, *pick;
	unsigned char *busy, *alive;
	int ret;

	*nout = 0;
	if ((ret = kb_session_next(s, &next)) < 0)
		return ret;
	if (next.kind != KB_NEXT_TEST && !in->nbusy) {
		kb_next_release(&next);
		return KB_PLAN_FINISH;
	}
	if (s->stop && *s->stop) {
		kb_next_release(&next);
		return in->nbusy ? KB_PLAN_WORK : KB_PLAN_STOP;
	}
	busy = kb_calloc(n, 1);
	alive = kb_calloc(n, 1);
	pick = kb_calloc((size_t)in->active + 1, sizeof(*pick));
	if (next.kind == KB_NEXT_TEST && in->nbusy < (size_t)in->active &&
	    !round_open(s, in, alive)) {
		for (j = 0; j < in->nbusy; j++)
			busy[in->busy[j].node] = 1;
		npick = kb_bisect_multi(&s->dag.g, s->dag.bad, s->marks, busy,
					(size_t)in->active, pick);
		/* the only commits left are skipped neighbours: the
		 * single-machine choice knows how to step away */
		if (!npick && !in->nbusy)
			pick[npick++] = next.commit;
	}
	if (npick)
		kb_session_say(s, KB_SAY_STEP, "Bisecting: %zu revision%s left, "
			       "%d machine%s (roughly %d round%s)", next.nleft,
			       next.nleft == 1 ? "" : "s", in->active, in->active == 1 ? "" : "s",
			       kb_bisect_rounds(next.nleft, (size_t)in->active),
			       kb_bisect_rounds(next.nleft, (size_t)in->active) == 1 ? "" : "s");
	kb_next_release(&next);
	for (j = 0; j < npick && j < in->nfree; j++) {
		char *subject;

		memset(&out[j], 0, sizeof(out[j]));
		out[j].machine = in->free[j];
		out[j].node = pick[j];
		out[j].runs = 1;
		hex_of(out[j].sha, &s->dag.oid[pick[j]]);
		subject = kb_session_subject(s, out[j].sha);
		kb_session_say(s, KB_SAY_INFO, "[machine %d] [%s] %s", out[j].machine,
			       out[j].sha, subject);
		free(subject);
	}
	*nout = j;
	free(busy);
	free(alive);
	free(pick);
	return KB_PLAN_WORK;
}

static json_t *step_json(struct kb_session *s, const struct kb_mark_row *m)
{
	json_t *o, *samples = json_array();
	git_oid oid;
	int boots = 0, last_boot = -1, exit_status = -1;
	size_t i;

	git_oid_fromstr(&oid, m->sha);
	o = kb_session_commit_json(s, &oid);
	for (i = 0; i < s->nruns; i++) {
		const struct kb_run_row *r = &s->runs[i];

		if (strcmp(r->sha, m->sha) || r->state != KB_RUN_DONE)
			continue;
		if (r->boot != last_boot) {
			boots++;
			last_boot = r->boot;
		}
		if (r->has_value)
			json_array_append_new(samples, json_real(r->value));
		if (r->id == m->run)
			exit_status = r->exit_status;
	}
	json_object_set_new(o, "decision", json_string(kb_mark_name(m->mark)));
	json_object_set_new(o, "source", json_string(m->source));
	json_object_set_new(o, "samples", samples);
	json_object_set_new(o, "boots", json_integer(boots));
	if (exit_status >= 0)
		json_object_set_new(o, "exit_status", json_integer(exit_status));
	if (m->mark == KB_MARK_SKIP)
		kb_session_build_error(s, m->sha, o);
	return o;
}

static int report(struct kb_session *s, json_t **out)
{
	struct kb_next next;
	json_t *o, *culprits, *warnings, *steps, *goods;
	size_t i, nskip = 0, runs = 0;
	unsigned char *skip_seen;
	int ret;

	if ((ret = kb_session_next(s, &next)) < 0)
		return ret;
	skip_seen = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, 1);
	culprits = json_array();
	warnings = json_array();
	steps = json_array();
	goods = json_array();
	for (i = 0; i < s->spec.good_shas.n; i++)
		json_array_append_new(goods, json_string(s->spec.good_shas.v[i]));
	for (i = 0; i < s->nmark_rows; i++) {
		const struct kb_mark_row *m = &s->mark_rows[i];
		git_oid oid;
		long node;

		json_array_append_new(steps, step_json(s, m));
		/* a commit skipped, and still so: one marked since is not */
		if (m->mark == KB_MARK_SKIP && git_oid_fromstr(&oid, m->sha) == 0 &&
		    (node = kb_dag_find(&s->dag, &oid)) >= 0 &&
		    s->marks[node] == KB_MARK_SKIP && !skip_seen[node]) {
			skip_seen[node] = 1;
			nskip++;
		}
	}
	free(skip_seen);
	for (i = 0; i < s->nruns; i++)
		runs += s->runs[i].state == KB_RUN_DONE;
	o = json_pack("{s:i, s:s, s:s, s:s, s:o, s:n}",
		      "version", 1, "mode", "pass-fail",
		      "good", s->spec.good_shas.v[0], "bad", s->spec.bad_sha,
		      "goods", goods, "metric");
	if (next.kind == KB_NEXT_FOUND) {
		json_t *c = kb_session_commit_json(s, &s->dag.oid[next.commit]);

		json_object_set_new(c, "probability", json_real(1.0));
		json_object_set_new(c, "checks", json_object());
		kb_session_culprit_people(s, c);
		json_array_append_new(culprits, c);
		json_object_set_new(o, "verdict", json_string("culprit"));
	} else if (next.kind == KB_NEXT_SUSPECTS) {
		json_t *sus = json_array();

		for (i = 0; i < next.nsuspects; i++)
			json_array_append_new(sus, kb_session_commit_json(s,
				&s->dag.oid[next.suspects[i]]));
		json_object_set_new(o, "suspects", sus);
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		kb_report_warn(warnings, "skipped", "only skipped commits are left to test: "
			       "the first bad commit could be any of %zu commits",
			       next.nsuspects);
	} else {
		json_object_set_new(o, "verdict", json_string("inconclusive"));
		kb_report_warn(warnings, "unfinished", "the bisection has not finished: %zu "
			       "candidate%s left, roughly %d step%s", next.nleft,
			       next.nleft == 1 ? "" : "s", next.steps_left + 1,
			       next.steps_left + 1 == 1 ? "" : "s");
	}
	if (nskip && next.kind != KB_NEXT_SUSPECTS)
		kb_report_warn(warnings, "skipped", "%zu commit%s could not be tested and %s "
			       "skipped", nskip, nskip == 1 ? "" : "s",
			       nskip == 1 ? "was" : "were");
	json_object_set_new(o, "culprits", culprits);
	json_object_set_new(o, "warnings", warnings);
	json_object_set_new(o, "steps", steps);
	kb_report_common(s, o, runs);
	kb_next_release(&next);
	*out = o;
	return 0;
}

static int status(struct kb_session *s, json_t *o)
{
	struct kb_next next;
	int ret;

	if ((ret = kb_session_next(s, &next)) < 0)
		return ret;
	if (next.kind == KB_NEXT_TEST) {
		json_t *c = kb_session_commit_json(s, &s->dag.oid[next.commit]);

		json_object_set_new(o, "next", c);
		json_object_set_new(o, "steps_left", json_integer(next.steps_left + 1));
	} else {
		json_object_set_new(o, "next", json_null());
		json_object_set_new(o, "steps_left", json_integer(0));
		json_object_set_new(o, "verdict", json_string(
			next.kind == KB_NEXT_FOUND ? "culprit" : "inconclusive"));
		if (next.kind == KB_NEXT_FOUND) {
			char hex[GIT_OID_HEXSZ + 1];

			hex_of(hex, &s->dag.oid[next.commit]);
			json_object_set_new(o, "culprit", json_string(hex));
		}
	}
	kb_next_release(&next);
	return 0;
}

static int wants(const struct kb_spec *spec)
{
	return !spec->bench.has_metric;
}

const struct kb_mode_ops kb_mode_passfail = {
	.name = "pass-fail",
	.resume = "continue with 'kbisect resume'",
	.wants = wants,
	.plan = plan_one,
	.plan_pool = plan_pool,
	.work = work,
	.record_run = record_run,
	.skipped = skipped,
	.report = report,
	.status = status,
};
