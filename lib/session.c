#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "session_int.h"
#include "worktree.h"

void kb_session_say(struct kb_session *s, enum kb_say_level level, const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;
	size_t i;

	if (!s->progress || !s->progress->say)
		return;
	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	/* a commit subject's CR or escape sequence must not reach the terminal */
	for (i = 0; i < b.len; i++)
		if (((unsigned char)b.ptr[i] < 0x20 && b.ptr[i] != '\n') || b.ptr[i] == 0x7f)
			b.ptr[i] = ' ';
	s->progress->say(s->progress->ctx, level, b.ptr);
	kb_buf_release(&b);
}

/* Commits with a finished run, and those among them other than 'sha';
 * the runs done at 'sha'. */
static int measured(struct kb_session *s, const char *sha, int *runs_at)
{
	int n = 0;
	size_t i, j;

	*runs_at = 0;
	for (i = 0; i < s->nruns; i++) {
		if (s->runs[i].state != KB_RUN_DONE)
			continue;
		if (sha && !strcmp(s->runs[i].sha, sha))
			(*runs_at)++;
		for (j = 0; j < i; j++)
			if (s->runs[j].state == KB_RUN_DONE &&
			    !strcmp(s->runs[j].sha, s->runs[i].sha))
				break;
		n += j == i;
	}
	return n;
}

void kb_session_progress(struct kb_session *s, const char *sha, const char *what,
			 int run, int runs)
{
	struct kb_status st = { sha, what, 0, 0, run, runs, 0, 0, -1 };
	double now = kb_now();
	int done;

	if (!s->progress || !s->progress->status)
		return;
	done = measured(s, sha, &st.commit_runs);
	if (!s->t0) {
		s->t0 = now;
		s->measured_t0 = done;
	}
	if (strcmp(s->cur_sha, sha)) {
		snprintf(s->cur_sha, sizeof(s->cur_sha), "%s", sha);
		s->cur_since = now;
	}
	/* this commit counts once it is at work */
	st.step = done + !st.commit_runs;
	st.steps = s->steps_after >= 0 ? st.step + s->steps_after : 0;
	st.elapsed = now - s->t0;
	/* the time a commit took in this process, for each one left */
	if (st.steps && st.step - 1 > s->measured_t0) {
		double per = (s->cur_since - s->t0) / (st.step - 1 - s->measured_t0);

		st.eta = per * (st.steps - st.step + 1) - (now - s->cur_since);
		if (st.eta < 0)
			st.eta = 0;
	}
	s->progress->status(s->progress->ctx, &st);
}

static void hex_of(char out[GIT_OID_HEXSZ + 1], const git_oid *oid)
{
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, oid);
}

static int resolve_all(git_repository *repo, struct kb_spec *spec, git_oid *bad,
		       git_oid **goods)
{
	char hex[GIT_OID_HEXSZ + 1];
	size_t i;
	int ret;

	*goods = kb_calloc(spec->good_specs.n, sizeof(**goods));
	if ((ret = kb_repo_resolve(repo, spec->bad_spec, bad)) < 0)
		return ret;
	hex_of(hex, bad);
	free(spec->bad_sha);
	spec->bad_sha = kb_strdup(hex);
	kb_strv_clear(&spec->good_shas);
	for (i = 0; i < spec->good_specs.n; i++) {
		if ((ret = kb_repo_resolve(repo, spec->good_specs.v[i], &(*goods)[i])) < 0)
			return ret;
		hex_of(hex, &(*goods)[i]);
		kb_strv_push(&spec->good_shas, hex);
	}
	return 0;
}

static int build_dag(struct kb_dag *dag, git_repository *repo, const struct kb_spec *spec)
{
	struct kb_range_opts opts = { NULL, spec->first_parent };
	git_oid bad, *goods = kb_calloc(spec->good_shas.n, sizeof(*goods));
	size_t i;
	int ret;

	opts.paths = spec->paths.n ? (const char *const *)spec->paths.v : NULL;
	git_oid_fromstr(&bad, spec->bad_sha);
	for (i = 0; i < spec->good_shas.n; i++)
		git_oid_fromstr(&goods[i], spec->good_shas.v[i]);
	ret = kb_dag_build(dag, repo, &bad, goods, spec->good_shas.n, &opts);
	free(goods);
	return ret;
}

static int refuse_if_active(struct kb_store *store)
{
	struct kb_session_row row;

	if (kb_store_session_active(store, &row) < 0) {
		kb_error_clear();
		return 0;
	}
	kb_session_row_release(&row);
	return kb_error(KB_EINVAL,
			"a session is already in progress in %s: continue it with "
			"'kbisect resume' or end it with 'kbisect reset'",
			kb_store_path(store));
}

int kb_spec_check(struct kb_spec *spec, git_repository *repo)
{
	struct kb_dag dag;
	git_oid bad, *goods = NULL;
	int ret;

	if (!spec->good_specs.n)
		return kb_error(KB_EINVAL, "no GOOD revision given");
	ret = resolve_all(repo, spec, &bad, &goods);
	free(goods);
	if (ret < 0)
		return ret;
	if ((ret = build_dag(&dag, repo, spec)) < 0)
		return ret;
	kb_dag_release(&dag);
	if (!spec->seed)
		spec->seed = ((unsigned long long)time(NULL) << 20) ^ (unsigned long long)getpid();
	return 0;
}

int kb_session_insert(struct kb_store *store, const struct kb_spec *spec, int64_t *id)
{
	char *json;
	int ret;

	if ((ret = refuse_if_active(store)) < 0)
		return ret;
	json = kb_spec_to_json(spec);
	if ((ret = kb_store_session_create(store, json, id)) == 0)
		ret = kb_store_event(store, *id, "start", "%s..%s",
				     spec->good_specs.v[0], spec->bad_spec);
	free(json);
	return ret;
}

int kb_session_create(struct kb_store *store, struct kb_spec *spec,
		      git_repository *repo, int64_t *id)
{
	int ret;

	if ((ret = refuse_if_active(store)) < 0 || (ret = kb_spec_check(spec, repo)) < 0)
		return ret;
	if ((ret = kb_store_begin(store)) < 0)
		return ret;
	if ((ret = kb_session_insert(store, spec, id)) < 0 ||
	    (ret = kb_store_commit(store)) < 0)
		kb_store_rollback(store);
	return ret;
}

/* Load the session of 'row' (taken over by the session). */
static int load_row(struct kb_session *s, struct kb_store *store, const char *statedir,
		    struct kb_session_row *row)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->store = store;
	s->statedir = kb_strdup(statedir);
	kb_paths_init(&s->paths, kb_store_path(store));
	s->row = *row;
	memset(row, 0, sizeof(*row));
	if ((ret = kb_spec_from_json(&s->spec, s->row.spec)) < 0)
		goto fail;
	if ((ret = kb_repo_open(&s->repo, s->spec.repo)) < 0)
		goto fail;
	if (!strcmp(s->spec.kind, "compare")) {
		git_oid two[2];

		git_oid_fromstr(&two[0], s->spec.bad_sha);
		git_oid_fromstr(&two[1], s->spec.good_shas.v[0]);
		ret = kb_dag_from_commits(&s->dag, s->repo, two, 2);
	} else {
		ret = build_dag(&s->dag, s->repo, &s->spec);
	}
	if (ret < 0 || (ret = kb_session_refresh(s)) < 0)
		goto fail;
	return 0;
fail:
	kb_session_release(s);
	return ret;
}

int kb_session_load(struct kb_session *s, struct kb_store *store,
		    const char *statedir, int any)
{
	struct kb_session_row row;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = any ? kb_store_session_latest(store, &row) :
		    kb_store_session_active(store, &row);
	if (ret < 0)
		return ret;
	return load_row(s, store, statedir, &row);
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
				   !strcmp(old.target, spec->target) &&
				   !strcmp(old.machine ? old.machine : "",
					   spec->machine ? spec->machine : "");

			kb_spec_release(&old);
			if (same)
				return load_row(s, store, statedir, &row);
		}
		kb_session_row_release(&row);
	}
	kb_error_clear();
	json = kb_spec_to_json(spec);
	ret = kb_store_session_create_as(store, json, "compare", &id);
	free(json);
	if (ret < 0 || (ret = kb_store_session_compare(store, &row)) < 0)
		return ret;
	return load_row(s, store, statedir, &row);
}

void kb_session_release(struct kb_session *s)
{
	kb_session_row_release(&s->row);
	kb_spec_release(&s->spec);
	kb_dag_release(&s->dag);
	git_repository_free(s->repo);
	free(s->statedir);
	kb_paths_release(&s->paths);
	kb_builder_release(&s->builder);
	free(s->marks);
	free(s->mark_rows);
	kb_run_rows_free(s->runs, s->nruns);
	free(s->node_sha);
	free(s->parent_sha);
	free(s->run_order);
	free(s->build_dir);
	free(s->build_release);
	memset(s, 0, sizeof(*s));
}

int kb_session_refresh(struct kb_session *s)
{
	git_oid oid;
	size_t i;
	int ret;

	free(s->mark_rows);
	kb_run_rows_free(s->runs, s->nruns);
	s->runs = NULL;
	s->nruns = 0;
	if ((ret = kb_store_marks(s->store, s->row.id, &s->mark_rows, &s->nmark_rows)) < 0 ||
	    (ret = kb_store_runs(s->store, s->row.id, &s->runs, &s->nruns)) < 0)
		return ret;
	free(s->marks);
	s->marks = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, 1);
	for (i = 0; i < s->nmark_rows; i++) {
		long node;

		if (git_oid_fromstr(&oid, s->mark_rows[i].sha) < 0)
			continue;
		node = kb_dag_find(&s->dag, &oid);
		if (node >= 0)
			s->marks[node] = s->mark_rows[i].mark;
	}
	return 0;
}

int kb_session_next(struct kb_session *s, struct kb_next *next)
{
	return kb_bisect_next(&s->dag.g, s->dag.bad, s->marks, s->spec.seed, next);
}

char *kb_session_run_dir(struct kb_session *s, int64_t id)
{
	return kb_paths_run_dir(&s->paths, id);
}

static void subject_of(struct kb_session *s, const char *sha, char *out, size_t len)
{
	struct kb_commit_info info;
	git_oid oid;

	out[0] = '\0';
	if (git_oid_fromstr(&oid, sha) < 0 || kb_repo_commit_info(s->repo, &oid, &info) < 0) {
		kb_error_clear();
		return;
	}
	snprintf(out, len, "%s", info.subject);
	kb_commit_info_release(&info);
}

char *kb_session_subject(struct kb_session *s, const char *sha)
{
	char buf[256];

	subject_of(s, sha, buf, sizeof(buf));
	return kb_strdup(buf);
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
		if (res->exit_status == 126 || res->exit_status == 127) {
			/* The shell could not find or execute the command: a
			 * typo would otherwise mark every commit bad and blame
			 * the first one (git bisect run refuses it too). */
			snprintf(why, len, "the test exited with %d: the command "
				 "was not found or could not be executed (126 and "
				 "127 stop a bisection)", res->exit_status);
			return 0;
		}
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

static const char *mark_word(char m)
{
	return m == KB_MARK_GOOD ? "good" : m == KB_MARK_BAD ? "bad" : "skip";
}

/* Record a run's outcome and the mark it decides, in one transaction. */
static int finish_run(struct kb_session *s, const struct kb_run_row *started,
		      const struct kb_run_result *res)
{
	if (s->spec.bench.has_metric)
		return kb_perf_record_run(s, started, res);

	struct kb_run_row r = *started;
	struct kb_buf tail = KB_BUF_INIT;
	char why[1400] = "", *dir = kb_session_run_dir(s, started->id), *out;
	char mark = classify(res, why, sizeof(why));
	int ret;

	out = kb_asprintf("%s/output", dir);
	kb_read_tail(out, &tail, 2048);
	kb_error_clear();
	r.state = mark ? KB_RUN_DONE : KB_RUN_ABORTED;
	r.finished = kb_now();
	r.exit_status = res->outcome == KB_RUN_EXITED ? res->exit_status : -1;
	r.term_signal = res->outcome == KB_RUN_SIGNALED ? res->term_signal : 0;
	r.timed_out = res->outcome == KB_RUN_TIMEOUT;
	r.output_tail = tail.ptr;
	if ((ret = kb_store_begin(s->store)) < 0)
		goto out;
	if ((ret = kb_store_run_finish(s->store, &r)) < 0 ||
	    (res->outcome == KB_RUN_CRASHED &&
	     (ret = kb_store_event(s->store, s->row.id, "boot", "%s failed -\n%s", r.sha,
				   res->message)) < 0) ||
	    (mark && (ret = kb_store_mark_add(s->store, s->row.id, r.sha, mark,
					      "test", r.id)) < 0) ||
	    (!mark && (ret = kb_store_event(s->store, s->row.id, "abort", "%s: %s",
					    r.sha, why)) < 0) ||
	    (ret = kb_store_commit(s->store)) < 0) {
		kb_store_rollback(s->store);
		goto out;
	}
	if (mark && res->outcome == KB_RUN_CRASHED) {
		kb_session_say(s, KB_SAY_WARN, "%.12s is skip: %s", r.sha, res->message);
	} else if (mark) {
		kb_session_say(s, KB_SAY_INFO, "%.12s is %s (exit status %d)", r.sha,
		    mark_word(mark), r.exit_status);
	} else {
		ret = kb_error(KB_EABORT, "%s at commit %.12s; see %s, fix the test and "
			       "run 'kbisect resume'", why, r.sha, out);
	}
out:
	kb_buf_release(&tail);
	free(dir);
	free(out);
	return ret;
}

static void on_wait(void *ctx)
{
	kb_session_say(ctx, KB_SAY_INFO, "waiting for a test left running by an earlier kbisect");
}

/* Collect the runs an orchestrator that died left in state 'started'. */
static int recover(struct kb_session *s, struct kb_target *t)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nruns; i++) {
		struct kb_run_row *r = &s->runs[i];
		struct kb_run_result res;
		char *dir;
		int found = 0;

		if (r->state != KB_RUN_STARTED)
			continue;
		dir = kb_session_run_dir(s, r->id);
		ret = kb_runner_wait(dir, &res, &found, on_wait, s);
		free(dir);
		if (ret < 0)
			return ret;
		if (found) {
			kb_session_say(s, KB_SAY_INFO, "collected the result of run %lld at %.12s, "
			    "finished while kbisect was down", (long long)r->id, r->sha);
			if ((ret = finish_run(s, r, &res)) < 0)
				return ret;
			continue;
		}
		if ((ret = kb_session_interrupt_run(s, r)) < 0)
			return ret;
	}
	return kb_session_refresh(s);
}

int kb_session_interrupt_run(struct kb_session *s, struct kb_run_row *r)
{
	char *dir = kb_session_run_dir(s, r->id);
	int ret;

	kb_runner_kill_leftovers(dir);
	free(dir);
	r->state = KB_RUN_INTERRUPTED;
	r->exit_status = -1;
	if ((ret = kb_store_run_finish(s->store, r)) < 0)
		return ret;
	kb_store_event(s->store, s->row.id, "interrupted",
		       "run %lld at %s was cut short; it runs again",
		       (long long)r->id, r->sha);
	kb_session_say(s, KB_SAY_WARN, "run %lld at %.12s was cut short by a crash; "
		       "running it again", (long long)r->id, r->sha);
	return 0;
}

int kb_session_next_boot(struct kb_session *s, const char *sha)
{
	int boot = 0;
	size_t i;

	for (i = 0; i < s->nruns; i++)
		if (!strcmp(s->runs[i].sha, sha) && s->runs[i].boot > boot)
			boot = s->runs[i].boot;
	boot++;
	/* the machines of a pool may boot one commit at once: each numbers
	 * its boots in a class of its own */
	while (s->spec.pool.n && boot % (int)(s->spec.pool.n + 1) != s->slot)
		boot++;
	return boot;
}

void kb_session_env(struct kb_strv *env, struct kb_session *s, const char *sha,
		     int boot, int run)
{
	kb_strv_pushf(env, "KBISECT_COMMIT=%s", sha);
	kb_strv_pushf(env, "KBISECT_BOOT=%d", boot);
	kb_strv_pushf(env, "KBISECT_RUN=%d", run);
	kb_strv_pushf(env, "KBISECT_MACHINE=%d", s->slot);
	kb_strv_pushf(env, "KBISECT_SCRATCH=%s", s->paths.scratch);
	kb_strv_pushf(env, "KBISECT_REPO=%s", s->spec.repo);
	kb_strv_pushf(env, "KBISECT_SCALE=%g", s->spec.scale > 0 ? s->spec.scale : 1.0);
	if (s->build_dir) {
		kb_strv_pushf(env, "KBISECT_BUILD=%s", s->build_dir);
		kb_strv_pushf(env, "KBISECT_KERNEL=%s/bzImage", s->build_dir);
		kb_strv_pushf(env, "KBISECT_KERNEL_RELEASE=%s", s->build_release);
	}
}

static void build_progress(void *ctx, const char *what, double seconds, long lines)
{
	if (what)
		kb_session_say(ctx, KB_SAY_INFO, "building %.12s: %ld lines of make output, "
			       "%.0f s", what, lines, seconds);
}

static void build_say(void *ctx, const char *msg)
{
	kb_session_say(ctx, KB_SAY_INFO, "%s", msg);
}

static void built_ahead(void *ctx, const char *sha, const char *what, double seconds,
			const char *release)
{
	struct kb_session *s = ctx;

	kb_store_event(s->store, s->row.id, "build", "%s ahead %s %.1f %s", sha, what,
		       seconds, release);
}

/* This machine's CPUs the test takes: the guest's vCPUs, 1 for a
 * benchmark that runs here, none when it runs on another machine. */
static long test_cpus(struct kb_session *s, struct kb_target *t)
{
	long vcpus = 2;

	if (!t->ops->guest)
		return 1;
	/* a host over SSH, a remote hypervisor: this machine's cores are free */
	if (t->elsewhere)
		return 0;
	if (s->spec.machine) {
		json_error_t jerr;
		json_t *m = json_loads(s->spec.machine, 0, &jerr);

		if (m && json_is_integer(json_object_get(m, "vcpus")))
			vcpus = (long)json_integer_value(json_object_get(m, "vcpus"));
		json_decref(m);
	}
	return vcpus;
}

int kb_session_ahead_jobs(struct kb_session *s, struct kb_target *t)
{
	if (strcmp(s->spec.build, "kernel"))
		return 0;
	return kb_build_ahead_jobs(s->spec.build_ahead, test_cpus(s, t));
}

struct kb_builder *kb_session_builder(struct kb_session *s, struct kb_target *t)
{
	struct kb_builder *b = &s->builder;

	if (!b->paths) {
		kb_builder_init(b, &s->paths);
		b->repo_path = s->spec.repo;
		b->kconfig = s->spec.kconfig;
		b->fragments_dir = s->spec.fragments;
		b->cc_wrapper = s->spec.cc_wrapper;
		b->jobs = s->spec.build_jobs;
		/* the machines of a pool build in one tree, one at a time */
		b->shared = s->spec.pool.n > 0;
		b->ahead = s->spec.build_ahead;
		b->cb.say = build_say;
		b->cb.progress = build_progress;
		b->cb.built_ahead = built_ahead;
		b->cb.ctx = s;
	}
	b->target = t->ops->name;
	b->test_cpus = test_cpus(s, t);
	return b;
}

int kb_session_build(struct kb_session *s, struct kb_target *t, const char *sha,
		     struct kb_build_result *res)
{
	return kb_builder_build(kb_session_builder(s, t), s->repo, sha, res);
}

/* Build the kernel of 'sha': 0 built or cached, 1 it failed (skipped). */
static int kernel_build(struct kb_session *s, struct kb_target *t, const char *sha)
{
	struct kb_build_result res;
	int ret;

	ret = kb_session_build(s, t, sha, &res);
	if (ret < 0)
		return ret;
	if (res.failed) {
		kb_session_say(s, KB_SAY_WARN, "the build fails at %.12s: skipping it\n%s",
			       sha, res.error);
		if ((ret = kb_store_begin(s->store)) < 0)
			return ret;
		if ((ret = kb_store_event(s->store, s->row.id, "build", "%s failed %.1f\n%s",
					  sha, res.seconds, res.error)) < 0 ||
		    (ret = kb_store_mark_add(s->store, s->row.id, sha, KB_MARK_SKIP, "build",
					     0)) < 0 ||
		    (ret = kb_store_commit(s->store)) < 0) {
			kb_store_rollback(s->store);
			return ret;
		}
		return 1;
	}
	kb_session_say(s, KB_SAY_INFO, "%s %.12s as %s%s", res.cached ? "found" : "built",
		       sha, res.release, res.cached ? " in the cache" : "");
	free(s->build_dir);
	free(s->build_release);
	s->build_dir = kb_strdup(res.dir);
	s->build_release = kb_strdup(res.release);
	t->kernel_dir = s->build_dir;
	return kb_store_event(s->store, s->row.id, "build", "%s %s %.1f %s", sha,
			      res.cached ? "cached" : "built", res.seconds, res.release);
}

/*
 * Run a shell command of the user's (a build, a benchmark setup) in the
 * work tree: 0 when it succeeded, 1 when it failed (the commit's fault: a
 * skip, recorded with the end of its log), negative for a harness error.
 */
int kb_session_run_hook(struct kb_session *s, struct kb_target *t, const char *sha,
		    int boot, const char *kind, const char *cmd)
{
	struct kb_strv env = KB_STRV_INIT;
	struct kb_buf tail = KB_BUF_INIT;
	char *dir = kb_strdup(s->paths.logs);
	char *log = kb_asprintf("%s/%s-%.12s.log", dir, kind, sha);
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct kb_run_spec rs = { argv, NULL, t->workdir, 0 };
	struct kb_run_result res;
	int ret;

	kb_session_env(&env, s, sha, boot, 0);
	rs.env = (const char *const *)env.v;
	if (!strcmp(kind, "setup"))
		rs.timeout = s->spec.bench.timeout;
	unlink(log);
	if ((ret = kb_mkdir_p(dir, 0700)) < 0 || (ret = kb_run_simple(&rs, log, &res)) < 0)
		goto out;
	kb_read_tail(log, &tail, 1024);
	kb_error_clear();
	if (res.outcome == KB_RUN_EXITED && !res.exit_status) {
		kb_store_event(s->store, s->row.id, kind, "%s ok", sha);
		goto out;
	}
	ret = 1;
	kb_session_say(s, KB_SAY_WARN, "%s failed at %.12s: skipping it (log: %s)", kind, sha, log);
	if ((ret = kb_store_begin(s->store)) < 0)
		goto out;
	if ((ret = kb_store_event(s->store, s->row.id, kind, "%s failed: %s", sha,
				  tail.ptr)) < 0 ||
	    (ret = kb_store_mark_add(s->store, s->row.id, sha, KB_MARK_SKIP, kind, 0)) < 0 ||
	    (ret = kb_store_commit(s->store)) < 0) {
		kb_store_rollback(s->store);
		goto out;
	}
	ret = 1;
out:
	kb_strv_clear(&env);
	kb_buf_release(&tail);
	free(dir);
	free(log);
	return ret;
}

/* Record that the kernel of 'sha' did not boot or run its setup: the
 * kernel's fault, a skip (or bad, when a boot failure is what is bisected). */
static int boot_failed(struct kb_session *s, struct kb_target *t, const char *sha)
{
	char mark = s->spec.boot_fail == 'b' ? KB_MARK_BAD : KB_MARK_SKIP;
	int ret;

	kb_session_say(s, KB_SAY_WARN, "%.12s: %s: marking it %s", sha, t->fault,
		       mark == KB_MARK_BAD ? "bad" : "skip");
	if ((ret = kb_store_begin(s->store)) < 0)
		return ret;
	if ((ret = kb_store_event(s->store, s->row.id, "boot", "%s failed %s\n%s", sha,
				  t->accel[0] ? t->accel : "-", t->fault)) < 0 ||
	    (ret = kb_store_mark_add(s->store, s->row.id, sha, mark, "boot", 0)) < 0 ||
	    (ret = kb_store_commit(s->store)) < 0) {
		kb_store_rollback(s->store);
		return ret;
	}
	return 1;
}

int kb_session_boot(struct kb_session *s, struct kb_target *t, const char *sha, int runs,
		    int *boot)
{
	struct kb_strv env = KB_STRV_INIT;
	struct kb_boot_job job;
	git_oid oid;
	int ret;
	size_t i;

	if (git_oid_fromstr(&oid, sha) < 0)
		return kb_error(KB_ERROR, "bad commit id %s", sha);
	if ((ret = t->ops->prepare(t, &oid)) < 0)
		return ret;
	*boot = kb_session_next_boot(s, sha);
	s->boot_runs = runs;
	if (!strcmp(s->spec.build, "kernel")) {
		kb_session_progress(s, sha, "build", 0, runs);
		ret = kernel_build(s, t, sha);
		if (ret == 1 && s->n_next && kb_session_refresh(s) == 0) {
			/* skipped: what comes next is known now */
			if (s->spec.bench.has_metric) {
				kb_perf_next_candidates(s, sha, "skipped");
			} else {
				struct kb_next next;

				s->n_next = 0;
				if (kb_session_next(s, &next) == 0 && next.kind == KB_NEXT_TEST)
					hex_of(s->next_shas[s->n_next++], &s->dag.oid[next.commit]);
				kb_next_release(&next);
			}
			kb_error_clear();
		}
		/* while this one is tested, build the next ones (a pool
		 * builds on its machines' turns instead) */
		if (!s->spec.pool.n)
			kb_builder_ahead_start(kb_session_builder(s, t),
					       (const char (*)[41])s->next_shas, s->n_next);
		s->n_next = 0;
		if (ret != 0)
			return ret;
	} else if (strcmp(s->spec.build, "none") &&
		   (ret = kb_session_run_hook(s, t, sha, *boot, "build", s->spec.build)) != 0) {
		return ret;
	}
	kb_session_progress(s, sha, "boot", 0, runs);
	kb_session_env(&env, s, sha, *boot, 0);
	memset(&job, 0, sizeof(job));
	job.sha = sha;
	job.boot = *boot;
	job.runs = runs;
	job.argv = (const char *const *)s->spec.bench.argv.v;
	job.env = (const char *const *)env.v;
	job.setup = (const char *const *)s->spec.bench.setup.v;
	job.timeout = s->spec.bench.timeout;
	ret = t->ops->boot(t, &job);
	kb_strv_clear(&env);
	if (ret > 0)
		return boot_failed(s, t, sha);
	if (ret < 0)
		return ret;
	if (t->accel[0])
		kb_store_event(s->store, s->row.id, "boot", "%s ok %s", sha, t->accel);
	if (t->ops->guest)
		return 0;
	for (i = 0; i < s->spec.bench.setup.n; i++)
		if ((ret = kb_session_run_hook(s, t, sha, *boot, "setup",
					       s->spec.bench.setup.v[i])) != 0)
			return ret;
	return 0;
}

int kb_session_run_once(struct kb_session *s, struct kb_target *t, const char *sha,
			int boot, int run)
{
	struct kb_strv env = KB_STRV_INIT;
	struct kb_run_row row;
	struct kb_run_result res;
	char *dir;
	int found = 0, ret;
	pid_t pid = 0;

	kb_session_progress(s, sha, "run", run, s->boot_runs);
	memset(&row, 0, sizeof(row));
	snprintf(row.sha, sizeof(row.sha), "%s", sha);
	row.boot = boot;
	row.run = run;
	if ((ret = kb_store_run_start(s->store, s->row.id, sha, boot, run, NULL, &row.id)) < 0)
		return ret;
	dir = kb_session_run_dir(s, row.id);
	kb_session_env(&env, s, sha, boot, run);
	{
		struct kb_run_spec rs = { (const char *const *)s->spec.bench.argv.v,
					  (const char *const *)env.v, NULL,
					  s->spec.bench.timeout };

		ret = t->ops->run_start(t, &rs, dir, &pid);
	}
	if (!ret)
		ret = t->ops->run_wait(t, dir, &res, &found);
	kb_runner_reap(pid);
	if (!ret && !found)
		ret = kb_error(KB_EINFRA, "the runner of run %lld died without a result",
			       (long long)row.id);
	if (!ret)
		ret = finish_run(s, &row, &res);
	kb_strv_clear(&env);
	free(dir);
	return ret;
}

/* The commits tested after 'node' if it is good, and if it is bad. */
static void passfail_candidates(struct kb_session *s, size_t node)
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

int kb_session_test_commit(struct kb_session *s, struct kb_target *t, size_t node)
{
	char sha[GIT_OID_HEXSZ + 1];
	int boot, ret;

	hex_of(sha, &s->dag.oid[node]);
	passfail_candidates(s, node);
	if ((ret = kb_session_boot(s, t, sha, 1, &boot)) != 0)
		return ret < 0 ? ret : 0;
	return kb_session_run_once(s, t, sha, boot, 1);
}

int kb_session_finish(struct kb_session *s)
{
	json_t *report;
	char *text;
	int ret;

	if ((ret = kb_session_report(s, &report)) < 0)
		return ret;
	text = json_dumps(report, JSON_COMPACT);
	json_decref(report);
	if ((ret = kb_store_begin(s->store)) < 0)
		goto out;
	if ((ret = kb_store_session_finish(s->store, s->row.id,
					   strcmp(s->spec.kind, "compare") ? "done" : "compare",
					   text)) < 0 ||
	    (ret = kb_store_event(s->store, s->row.id, "verdict", "%s", text)) < 0 ||
	    (ret = kb_store_commit(s->store)) < 0)
		kb_store_rollback(s->store);
	if (strcmp(s->spec.kind, "compare")) {
		free(s->row.state);
		s->row.state = kb_strdup("done");
	}
out:
	free(text);
	return ret;
}

static void target_say(void *ctx, const char *msg)
{
	kb_session_say(ctx, KB_SAY_INFO, "%s", msg);
}

/* Open the target of machine 'slot' of the session (0: --target, then
 * the pool).  Its leftovers are named after the database, the session and
 * the slot, so that two repositories or two machines never touch each
 * other's. */
int kb_session_open_slot(struct kb_session *s, int slot, struct kb_target **t)
{
	struct kb_target_env tenv;
	unsigned long h = 5381;
	const char *p;
	char *name, *target = NULL, *machine = NULL;
	int ret;

	if (slot < 0 || (size_t)slot > s->spec.pool.n)
		return kb_error(KB_EINVAL, "no machine %d in the pool", slot);
	for (p = s->statedir; *p; p++)
		h = (h * 33) ^ (unsigned char)*p;
	name = slot ? kb_asprintf("kbisect-%08lx-%lld-s%d", h & 0xffffffffUL,
				  (long long)s->row.id, slot) :
		kb_asprintf("kbisect-%08lx-%lld", h & 0xffffffffUL, (long long)s->row.id);
	if (slot) {
		json_error_t jerr;
		json_t *m = json_loads(s->spec.pool.v[slot - 1], 0, &jerr);

		target = kb_strdup(json_string_value(json_object_get(m, "target")));
		if (json_object_size(m) > 1)
			machine = kb_strdup(s->spec.pool.v[slot - 1]);
		json_decref(m);
	}
	memset(&tenv, 0, sizeof(tenv));
	tenv.repo = s->repo;
	tenv.paths = &s->paths;
	tenv.session_name = name;
	tenv.machine = slot ? machine : s->spec.machine;
	tenv.guest_init = s->guest_init;
	tenv.accept_new_host_key = s->accept_new_host_key;
	tenv.say = target_say;
	tenv.say_ctx = s;
	tenv.slot = slot;
	ret = kb_target_open(t, slot ? target : s->spec.target, &tenv);
	free(name);
	free(target);
	free(machine);
	return ret;
}

static int open_target(struct kb_session *s, struct kb_target **t)
{
	return kb_session_open_slot(s, 0, t);
}

int kb_session_run(struct kb_session *s)
{
	struct kb_target *t = NULL;
	int ret;

	if ((ret = kb_mkdir_p(s->statedir, 0700)) < 0 ||
	    (ret = open_target(s, &t)) < 0 ||
	    (ret = t->ops->cleanup(t)) < 0 ||
	    (ret = recover(s, t)) < 0)
		goto out;
	if (!strcmp(s->spec.kind, "compare")) {
		ret = kb_compare_loop(s, t);
		goto out;
	}
	if (s->spec.bench.has_metric && !s->spec.pool.n) {
		ret = kb_perf_loop(s, t);
		goto out;
	}
	if (s->spec.pool.n) {
		ret = kb_pool_loop(s);
		goto out;
	}
	for (;;) {
		struct kb_next next;
		char sha[GIT_OID_HEXSZ + 1], subject[256];
		size_t node;

		if (s->stop && *s->stop) {
			ret = kb_error(KB_EINTR, "stopped; continue with 'kbisect resume'");
			break;
		}
		if ((ret = kb_session_refresh(s)) < 0 || (ret = kb_session_next(s, &next)) < 0)
			break;
		if (next.kind != KB_NEXT_TEST) {
			kb_next_release(&next);
			ret = kb_session_finish(s);
			break;
		}
		hex_of(sha, &s->dag.oid[next.commit]);
		subject_of(s, sha, subject, sizeof(subject));
		kb_session_say(s, KB_SAY_STEP, "Bisecting: %zu revision%s left to test after this "
		    "(roughly %d step%s)", next.nleft - 1 - next.split,
		    next.nleft - 1 - next.split == 1 ? "" : "s", next.steps_left,
		    next.steps_left == 1 ? "" : "s");
		kb_session_say(s, KB_SAY_INFO, "[%s] %s", sha, subject);
		s->steps_after = next.steps_left;
		node = next.commit;
		kb_next_release(&next);
		if ((ret = kb_session_test_commit(s, t, node)) < 0)
			break;
	}
out:
	kb_builder_ahead_stop(&s->builder);
	kb_target_close(t);
	return ret;
}

int kb_session_mark(struct kb_session *s, const char *rev, char mark, char *marked_sha)
{
	struct kb_next next;
	git_oid oid;
	long node;
	int ret;

	if (!rev) {
		if ((ret = kb_session_next(s, &next)) < 0)
			return ret;
		if (next.kind != KB_NEXT_TEST) {
			kb_next_release(&next);
			return kb_error(KB_EINVAL, "nothing left to test: the session "
					"has its answer ('kbisect report')");
		}
		git_oid_cpy(&oid, &s->dag.oid[next.commit]);
		kb_next_release(&next);
	} else if ((ret = kb_repo_resolve(s->repo, rev, &oid)) < 0) {
		return ret;
	}
	node = kb_dag_find(&s->dag, &oid);
	hex_of(marked_sha, &oid);
	if (node < 0)
		return kb_error(KB_EINVAL, "%.12s is not in the range being bisected",
				marked_sha);
	if ((ret = kb_store_mark_add(s->store, s->row.id, marked_sha, mark,
				     "manual", 0)) < 0)
		return ret;
	if (!strcmp(s->row.state, "done"))
		kb_store_session_finish(s->store, s->row.id, "active", NULL);
	return kb_session_refresh(s);
}

int kb_session_end(struct kb_session *s)
{
	const char *const parts[] = { s->paths.worktree, s->paths.worktree_index,
				      s->paths.runs, s->paths.logs, s->paths.scratch,
				      s->paths.setup_log, s->paths.vm, s->paths.ahead };
	size_t i;
	int ret;

	if (strcmp(s->spec.target, "local")) {
		struct kb_target *t = NULL;

		/* VMs and the like that a crash left behind; a host that does
		 * not answer keeps its files, and the session still ends */
		if ((ret = open_target(s, &t)) < 0 || (ret = t->ops->cleanup(t)) < 0) {
			kb_target_close(t);
			if (strncmp(s->spec.target, "ssh://", 6))
				return ret;
			kb_session_say(s, KB_SAY_WARN, "the files of this session stay on the "
				       "host (%s)", kb_error_last());
			kb_error_clear();
			t = NULL;
		}
		kb_target_close(t);
	}
	if ((ret = kb_store_session_finish(s->store, s->row.id, "ended", NULL)) < 0)
		return ret;
	kb_store_event(s->store, s->row.id, "reset", "session ended");
	/* the kernel source and build directories stay, for the next
	 * session's incremental builds */
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if ((ret = kb_remove_tree(parts[i])) < 0)
			return ret;
	rmdir(s->statedir); /* when nothing is kept */
	return 0;
}
