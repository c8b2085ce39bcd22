#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "json.h"
#include "machine.h"
#include "mode.h"
#include "signature.h"
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
	if ((ret = kb_store_session_create(store, json, id)) == 0) {
		char *range = kb_asprintf("%s..%s", spec->good_specs.v[0], spec->bad_spec);
		struct kb_event e = { .kind = KB_EV_START, .text = range };

		ret = kb_event_add(store, *id, &e);
		free(range);
	}
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

int kb_session_load_row(struct kb_session *s, struct kb_store *store, const char *statedir,
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
	return kb_session_load_row(s, store, statedir, &row);
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

void kb_session_run_outcome(struct kb_run_row *r, const struct kb_run_result *res)
{
	r->finished = kb_now();
	r->exit_status = res->outcome == KB_RUN_EXITED ? res->exit_status : -1;
	r->term_signal = res->outcome == KB_RUN_SIGNALED ? res->term_signal : 0;
	r->timed_out = res->outcome == KB_RUN_TIMEOUT;
}

int kb_session_record(struct kb_session *s, const struct kb_run_row *run,
		      const struct kb_event *ev, size_t nev, const char *sha, char mark,
		      const char *source)
{
	size_t i;
	int ret;

	if ((ret = kb_store_begin(s->store)) < 0)
		return ret;
	if (run && (ret = kb_store_run_finish(s->store, run)) < 0)
		goto fail;
	for (i = 0; i < nev; i++)
		if ((ret = kb_event_add(s->store, s->row.id, &ev[i])) < 0)
			goto fail;
	if (mark && (ret = kb_store_mark_add(s->store, s->row.id, sha, mark, source,
					     run ? run->id : 0)) < 0)
		goto fail;
	if ((ret = kb_store_commit(s->store)) == 0)
		return 0;
fail:
	kb_store_rollback(s->store);
	return ret;
}

int kb_session_record_run(struct kb_session *s, const struct kb_run_row *r,
			  const struct kb_run_result *res, char mark, const char *why)
{
	struct kb_event ev[2];
	size_t n = 0;

	memset(ev, 0, sizeof(ev));
	if (res->outcome == KB_RUN_CRASHED) {
		/* the kernel under test died or hung in the run */
		ev[n].kind = KB_EV_BOOT;
		ev[n].result = KB_EV_FAILED;
		memcpy(ev[n].sha, r->sha, 41);
		ev[n++].text = res->message;
	}
	if (why) {
		ev[n].kind = KB_EV_ABORT;
		memcpy(ev[n].sha, r->sha, 41);
		ev[n++].text = why;
	}
	return kb_session_record(s, r, ev, n, r->sha, mark, "test");
}

char *kb_session_output_last(const struct kb_buf *head, const struct kb_buf *tail)
{
	const struct kb_buf *b = tail->len ? tail : head;
	size_t n = b->len > 2048 ? 2048 : b->len;

	return kb_strndup(b->ptr + b->len - n, n);
}

int kb_session_cannot_run(const struct kb_run_result *res, char *why, size_t len)
{
	if (res->outcome != KB_RUN_EXITED || (res->exit_status != 126 && res->exit_status != 127))
		return 0;
	snprintf(why, len, "the test exited with %d: the command was not found or could "
		 "not be executed (126 and 127 stop a bisection); it runs in kbisect's own "
		 "work tree of the commit, not in yours: a script the commits do not have "
		 "goes by its absolute path", res->exit_status);
	return 1;
}

void kb_session_run_tidy(struct kb_session *s, const struct kb_run_row *r, int keep)
{
	char *dir;

	if (keep)
		return;
	dir = kb_session_run_dir(s, r->id);
	kb_remove_tree(dir);
	kb_error_clear();
	free(dir);
}

/* Is the directory of the finished run 'r' one a message named (see
 * kb_session_run_tidy())? */
static int run_kept(struct kb_session *s, const struct kb_run_row *r)
{
	return r->state == KB_RUN_ABORTED ||
	       (r->state == KB_RUN_DONE && s->spec.bench.has_metric && !r->has_value &&
		r->exit_status > 0 && r->exit_status < 126);
}

static void on_wait(void *ctx)
{
	kb_session_say(ctx, KB_SAY_INFO, "waiting for a test left running by an earlier kbisect");
}

int kb_session_recover(struct kb_session *s, struct kb_target *t)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nruns; i++) {
		struct kb_run_row *r = &s->runs[i];
		struct kb_run_result res;
		char *dir;
		int found = 0;

		if (r->state != KB_RUN_STARTED) {
			/* the directory of a run recorded just before a crash */
			kb_session_run_tidy(s, r, run_kept(s, r));
			continue;
		}
		dir = kb_session_run_dir(s, r->id);
		ret = kb_runner_wait(dir, &res, &found, on_wait, s);
		free(dir);
		if (ret < 0)
			return ret;
		if (found) {
			kb_session_say(s, KB_SAY_INFO, "collected the result of run %lld at %.12s, "
			    "finished while kbisect was down", (long long)r->id, r->sha);
			if ((ret = s->mode->record_run(s, r, &res)) < 0)
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
	{
		struct kb_event e = { .kind = KB_EV_INTERRUPTED, .run = r->id };

		memcpy(e.sha, r->sha, 41);
		kb_event_add(s->store, s->row.id, &e);
	}
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
	while (kb_spec_nmachines(&s->spec) > 1 &&
	       boot % (int)kb_spec_nmachines(&s->spec) != s->slot)
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
	struct kb_event e = { .kind = KB_EV_BUILD, .ahead = 1, .seconds = seconds };

	e.result = !strcmp(what, "failed") ? KB_EV_FAILED : KB_EV_BUILT;
	snprintf(e.sha, sizeof(e.sha), "%s", sha);
	snprintf(e.release, sizeof(e.release), "%s", release);
	kb_event_add(s->store, s->row.id, &e);
}

/* This machine's CPUs the test takes: the guest's vCPUs, 1 for a
 * benchmark that runs here, none when it runs on another machine. */
static long test_cpus(struct kb_session *s, struct kb_target *t)
{
	long vcpus = 2;

	if (!kb_target_is_guest(t))
		return 1;
	/* a host over SSH, a remote hypervisor: this machine's cores are free */
	if (kb_target_is_remote(t))
		return 0;
	return kb_machine_int(kb_target_machine(t), "vcpus", vcpus);
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
		b->shared = kb_spec_nmachines(&s->spec) > 1;
		b->ahead = s->spec.build_ahead;
		b->cb.say = build_say;
		b->cb.progress = build_progress;
		b->cb.built_ahead = built_ahead;
		b->cb.ctx = s;
	}
	b->target = kb_target_name(t);
	b->test_cpus = test_cpus(s, t);
	return b;
}

int kb_session_build(struct kb_session *s, struct kb_target *t, const char *sha,
		     struct kb_build_result *res)
{
	return kb_builder_build(kb_session_builder(s, t), s->repo, sha, res);
}

int kb_session_build_for_hand(struct kb_session *s, const char *sha,
			      struct kb_build_result *res)
{
	struct kb_target *t = NULL;
	int ret;

	if ((ret = kb_session_open_slot(s, 0, &t)) < 0)
		return ret;
	ret = kb_session_build(s, t, sha, res);
	kb_target_close(t);
	return ret;
}

/* Record the signature of the build of 'sha' (nothing when it has none). */
static int record_signature(struct kb_session *s, const char *sha, const char *sig)
{
	struct kb_event e = { .kind = KB_EV_SIGNATURE };

	snprintf(s->built_sig, sizeof(s->built_sig), "%s", sig);
	if (!*sig)
		return 0;
	snprintf(e.sha, sizeof(e.sha), "%s", sha);
	snprintf(e.signature, sizeof(e.signature), "%s", sig);
	return kb_event_add(s->store, s->row.id, &e);
}

/* Build the kernel of 'sha': 0 built or cached, 1 it failed (skipped). */
static int kernel_build(struct kb_session *s, struct kb_target *t, const char *sha)
{
	struct kb_build_result res;
	struct kb_event e;
	int ret;

	ret = kb_session_build(s, t, sha, &res);
	if (ret < 0)
		return ret;
	memset(&e, 0, sizeof(e));
	e.kind = KB_EV_BUILD;
	snprintf(e.sha, sizeof(e.sha), "%s", sha);
	e.seconds = res.seconds;
	if (res.failed) {
		kb_session_say(s, KB_SAY_WARN, "the build fails at %.12s: skipping it\n%s",
			       sha, res.error);
		e.result = KB_EV_FAILED;
		e.text = res.error;
		ret = kb_session_record(s, NULL, &e, 1, sha, KB_MARK_SKIP, "build");
		return ret < 0 ? ret : 1;
	}
	kb_session_say(s, KB_SAY_INFO, "%s %.12s as %s%s", res.cached ? "found" : "built",
		       sha, res.release, res.cached ? " in the cache" : "");
	free(s->build_dir);
	free(s->build_release);
	s->build_dir = kb_strdup(res.dir);
	s->build_release = kb_strdup(res.release);
	t->kernel_dir = s->build_dir;
	e.result = res.cached ? KB_EV_CACHED : KB_EV_BUILT;
	snprintf(e.release, sizeof(e.release), "%s", res.release);
	if ((ret = kb_event_add(s->store, s->row.id, &e)) < 0)
		return ret;
	return record_signature(s, sha, res.signature);
}

/* After a --build command that succeeded at 'sha': the signature of what
 * it left at 'artifact' (none when it left nothing), and the file gone. */
static int artifact_signature(struct kb_session *s, const char *sha, const char *artifact)
{
	char sig[41] = "", abbrev[13];
	const char *mask[] = { sha, abbrev, NULL };
	struct stat st;
	int ret;

	kb_short_id(abbrev, sha);
	if (lstat(artifact, &st) < 0)
		return record_signature(s, sha, "");
	if (kb_file_signature(artifact, mask, sig) < 0) {
		kb_session_say(s, KB_SAY_WARN, "what the build of %.12s left in KBISECT_ARTIFACT "
			       "has no signature: %s", sha, kb_error_last());
		kb_error_clear();
		sig[0] = '\0';
	}
	ret = record_signature(s, sha, sig);
	unlink(artifact);
	return ret;
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
	struct kb_event e = { .kind = KB_EV_HOOK, .result = KB_EV_OK };
	char *artifact = NULL;
	int ret;

	snprintf(e.sha, sizeof(e.sha), "%s", sha);
	snprintf(e.hook, sizeof(e.hook), "%s", kind);
	kb_session_env(&env, s, sha, boot, 0);
	if (!strcmp(kind, "build")) {
		/* where the command may leave what it built, for its signature */
		artifact = kb_paths_artifact(&s->paths, s->slot);
		kb_remove_tree(artifact);
		kb_strv_pushf(&env, "KBISECT_ARTIFACT=%s", artifact);
	}
	rs.env = (const char *const *)env.v;
	if (!strcmp(kind, "setup"))
		rs.timeout = s->spec.bench.timeout;
	unlink(log);
	if ((ret = kb_mkdir_p(dir, 0700)) < 0 || (ret = kb_run_simple(&rs, log, &res)) < 0)
		goto out;
	kb_read_tail(log, &tail, 1024);
	kb_error_clear();
	if (res.outcome == KB_RUN_EXITED && !res.exit_status) {
		kb_event_add(s->store, s->row.id, &e);
		if (artifact)
			ret = artifact_signature(s, sha, artifact);
		goto out;
	}
	kb_session_say(s, KB_SAY_WARN, "%s failed at %.12s: skipping it (log: %s)", kind, sha, log);
	e.result = KB_EV_FAILED;
	e.text = tail.ptr;
	if ((ret = kb_session_record(s, NULL, &e, 1, sha, KB_MARK_SKIP, kind)) == 0)
		ret = 1;
out:
	if (artifact)
		kb_remove_tree(artifact);
	kb_strv_clear(&env);
	kb_buf_release(&tail);
	free(artifact);
	free(dir);
	free(log);
	return ret;
}

/* Record that the kernel of 'sha' did not boot or run its setup: the
 * kernel's fault, a skip (or bad, when a boot failure is what is bisected). */
static int boot_failed(struct kb_session *s, struct kb_target *t, const char *sha)
{
	char mark = s->spec.boot_fail == 'b' ? KB_MARK_BAD : KB_MARK_SKIP;
	struct kb_event e = { .kind = KB_EV_BOOT, .result = KB_EV_FAILED, .text = t->fault };
	int ret;

	kb_session_say(s, KB_SAY_WARN, "%.12s: %s: marking it %s", sha, t->fault,
		       kb_mark_name(mark));
	snprintf(e.sha, sizeof(e.sha), "%s", sha);
	snprintf(e.accel, sizeof(e.accel), "%s", t->accel);
	ret = kb_session_record(s, NULL, &e, 1, sha, mark, "boot");
	return ret < 0 ? ret : 1;
}

int kb_session_build_commit(struct kb_session *s, struct kb_target *t, const char *sha,
			    int runs, char sig[41])
{
	git_oid oid;
	int ret, boot;

	s->built_on = NULL;
	s->built_sig[0] = '\0';
	if (git_oid_fromstr(&oid, sha) < 0)
		return kb_error(KB_ERROR, "bad commit id %s", sha);
	if ((ret = kb_target_prepare(t, &oid)) < 0)
		return ret;
	boot = kb_session_next_boot(s, sha);
	s->boot_runs = runs;
	if (!strcmp(s->spec.build, "kernel")) {
		kb_session_progress(s, sha, "build", 0, runs);
		ret = kernel_build(s, t, sha);
		if (ret == 1 && s->n_next && s->mode->skipped && kb_session_refresh(s) == 0) {
			/* skipped: what comes next is known now */
			s->mode->skipped(s, sha);
			kb_error_clear();
		}
		/* while this one is tested, build the next ones (a pool
		 * builds on its machines' turns instead) */
		if (kb_spec_nmachines(&s->spec) == 1)
			kb_builder_ahead_start(kb_session_builder(s, t),
					       (const char (*)[41])s->next_shas, s->n_next);
		s->n_next = 0;
	} else if (strcmp(s->spec.build, "none")) {
		ret = kb_session_run_hook(s, t, sha, boot, "build", s->spec.build);
	}
	if (ret == 0) {
		s->built_on = t;
		snprintf(s->built_sha, sizeof(s->built_sha), "%s", sha);
	}
	if (sig)
		snprintf(sig, 41, "%s", ret == 0 ? s->built_sig : "");
	return ret;
}

int kb_session_boot(struct kb_session *s, struct kb_target *t, const char *sha, int runs,
		    int *boot)
{
	struct kb_strv env = KB_STRV_INIT;
	struct kb_boot_job job;
	int ret;
	size_t i;

	/* built just before, by kb_session_build_commit(): not again */
	if ((s->built_on != t || strcmp(s->built_sha, sha)) &&
	    (ret = kb_session_build_commit(s, t, sha, runs, NULL)) != 0)
		return ret;
	s->built_on = NULL;
	*boot = kb_session_next_boot(s, sha);
	s->boot_runs = runs;
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
	if (s->spec.bench.has_metric) {
		job.metric_path = s->spec.bench.metric.json_path;
		job.metric_unit = s->spec.bench.metric.unit;
	}
	ret = kb_target_boot(t, &job);
	kb_strv_clear(&env);
	if (ret > 0 && s->mode->boot_failed && !t->fault_setup)
		return s->mode->boot_failed(s, t, sha, *boot);
	if (ret > 0)
		return boot_failed(s, t, sha);
	if (ret < 0)
		return ret;
	if (t->accel[0]) {
		struct kb_event e = { .kind = KB_EV_BOOT, .result = KB_EV_OK };

		snprintf(e.sha, sizeof(e.sha), "%s", sha);
		snprintf(e.accel, sizeof(e.accel), "%s", t->accel);
		kb_event_add(s->store, s->row.id, &e);
	}
	if (kb_target_is_guest(t))
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

		ret = kb_target_run_start(t, &rs, dir, &pid);
	}
	if (!ret)
		ret = kb_target_run_wait(t, dir, &res, &found);
	kb_runner_reap(pid);
	if (!ret && !found)
		ret = kb_error(KB_EINFRA, "the runner of run %lld died without a result",
			       (long long)row.id);
	if (!ret)
		ret = s->mode->record_run(s, &row, &res);
	kb_strv_clear(&env);
	free(dir);
	return ret;
}

int kb_session_finish(struct kb_session *s)
{
	json_t *report;
	char *text;
	int ret;

	if ((ret = s->mode->report(s, &report)) < 0)
		return ret;
	text = kb_json_dumps(report, JSON_COMPACT);
	json_decref(report);
	if ((ret = kb_store_begin(s->store)) < 0)
		goto out;
	if ((ret = kb_store_session_finish(s->store, s->row.id,
					   strcmp(s->spec.kind, "compare") ? "done" : "compare",
					   text)) < 0 ||
	    (ret = kb_event_add(s->store, s->row.id, &(struct kb_event){ .kind = KB_EV_VERDICT,
								     .text = text })) < 0 ||
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

/* A job of a lab: an event of the session, for status and the report. */
static void target_lab_job(void *ctx, const struct kb_lab_job *j)
{
	struct kb_session *s = ctx;
	struct kb_event e = { .kind = KB_EV_JOB, .boot = j->boot, .job = j->id,
			      .machine = s->slot, .text = j->url };

	snprintf(e.sha, sizeof(e.sha), "%s", j->sha);
	snprintf(e.state, sizeof(e.state), "%s", j->state);
	/* a device's name is one word */
	snprintf(e.device, sizeof(e.device), "%.*s", (int)strcspn(j->device, " \t\n"),
		 j->device);
	if (kb_event_add(s->store, s->row.id, &e) < 0) {
		kb_session_say(s, KB_SAY_WARN, "could not record LAVA job %ld: %s", j->id,
			       kb_error_last());
		kb_error_clear();
	}
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
	char *name;
	int ret;

	if (slot < 0 || (size_t)slot >= kb_spec_nmachines(&s->spec))
		return kb_error(KB_EINVAL, "no machine %d in the pool", slot);
	for (p = s->statedir; *p; p++)
		h = (h * 33) ^ (unsigned char)*p;
	name = slot ? kb_asprintf("kbisect-%08lx-%lld-s%d", h & 0xffffffffUL,
				  (long long)s->row.id, slot) :
		kb_asprintf("kbisect-%08lx-%lld", h & 0xffffffffUL, (long long)s->row.id);
	memset(&tenv, 0, sizeof(tenv));
	tenv.repo = s->repo;
	tenv.paths = &s->paths;
	tenv.session_name = name;
	tenv.machine = kb_spec_machine(&s->spec, (size_t)slot);
	tenv.guest_init = s->guest_init;
	tenv.accept_new_host_key = s->accept_new_host_key;
	tenv.say = target_say;
	tenv.say_ctx = s;
	tenv.lab_job = target_lab_job;
	tenv.slot = slot;
	/* the target is the machine's "target" */
	ret = kb_target_open(t, NULL, &tenv);
	free(name);
	return ret;
}

/* Roll back the transaction of a change that is refused, and read the
 * session again as it is; the error stays the change's. */
static int undo(struct kb_session *s, int ret)
{
	int code = kb_error_code();
	char *msg = kb_strdup(kb_error_last());

	kb_store_rollback(s->store);
	kb_session_refresh(s);
	ret = kb_error(code ? code : ret, "%s", msg);
	free(msg);
	return ret;
}

/* The commits of the range a revision names: one commit, or those of a
 * range A..B that the session's range has (in 'out', as ids). */
static int revs_of(struct kb_session *s, const char *rev, struct kb_strv *out)
{
	const char *dots = strstr(rev, "..");
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	int ret;

	if (!dots) {
		if ((ret = kb_repo_resolve(s->repo, rev, &oid)) < 0)
			return ret;
		hex_of(hex, &oid);
		if (kb_dag_find(&s->dag, &oid) < 0)
			return kb_error(KB_EINVAL, "%.12s is not in the range being bisected", hex);
		kb_strv_push(out, hex);
	} else {
		git_revwalk *walk = NULL;
		char *a = kb_strndup(rev, (size_t)(dots - rev));
		const char *b = dots + 2;
		git_oid from, to;
		size_t before = out->n;

		if ((ret = kb_repo_resolve(s->repo, *a ? a : "HEAD", &from)) < 0 ||
		    (ret = kb_repo_resolve(s->repo, *b ? b : "HEAD", &to)) < 0) {
			free(a);
			return ret;
		}
		free(a);
		if (git_revwalk_new(&walk, s->repo) < 0 || git_revwalk_push(walk, &to) < 0 ||
		    git_revwalk_hide(walk, &from) < 0) {
			git_revwalk_free(walk);
			return kb_error(KB_ERROR, "cannot walk %s: %s", rev,
					git_error_last() ? git_error_last()->message : "?");
		}
		while (git_revwalk_next(&oid, walk) == 0)
			if (kb_dag_find(&s->dag, &oid) >= 0) {
				hex_of(hex, &oid);
				kb_strv_push(out, hex);
			}
		git_revwalk_free(walk);
		git_error_clear();
		if (out->n == before)
			return kb_error(KB_EINVAL, "%s has no commit of the range being bisected",
					rev);
	}
	return 0;
}

int kb_session_mark_revs(struct kb_session *s, const char *const *revs, size_t n, char mark,
			 struct kb_strv *marked)
{
	struct kb_next next;
	size_t i, first = marked->n;
	int ret = 0;

	/* a flaky session weighs runs, never a single answer */
	if (s->spec.bench.flaky && mark != KB_MARK_SKIP)
		return kb_error(KB_EINVAL, "a flaky bisection decides from the runs of each "
				"commit, not from marks: only skip marks a commit, one that "
				"cannot be tested");
	if (!n) {
		if ((ret = kb_session_next(s, &next)) < 0)
			return ret;
		if (next.kind != KB_NEXT_TEST) {
			kb_next_release(&next);
			return kb_error(KB_EINVAL, "nothing left to test: the session "
					"has its answer ('kbisect report')");
		}
		{
			char hex[GIT_OID_HEXSZ + 1];

			hex_of(hex, &s->dag.oid[next.commit]);
			kb_strv_push(marked, hex);
		}
		kb_next_release(&next);
	}
	for (i = 0; i < n && !ret; i++)
		ret = revs_of(s, revs[i], marked);
	if (ret < 0)
		return ret;
	/* checked before it is committed: marks refused leave the session as
	 * it was */
	if ((ret = kb_store_begin(s->store)) < 0)
		return ret;
	for (i = first; i < marked->n; i++)
		if ((ret = kb_store_mark_add(s->store, s->row.id, marked->v[i], mark,
					     "manual", 0)) < 0)
			return undo(s, ret);
	if ((!strcmp(s->row.state, "done") &&
	     (ret = kb_store_session_finish(s->store, s->row.id, "active", NULL)) < 0) ||
	    (ret = kb_session_refresh(s)) < 0)
		return undo(s, ret);
	if ((ret = kb_session_next(s, &next)) < 0) {
		/* a test that gave a commit and its ancestor answers that do not
		 * fit may be one that fails only some of the time */
		if (ret == KB_EINVAL && strstr(kb_error_last(), "contradict")) {
			char *msg = kb_strdup(kb_error_last());

			ret = kb_error(KB_EINVAL, "%s; when a test gives such answers, it "
				       "may fail only some of the time: bisect it with "
				       "'kbisect start --flaky'", msg);
			free(msg);
		}
		return undo(s, ret);
	}
	kb_next_release(&next);
	if ((ret = kb_store_commit(s->store)) < 0)
		return undo(s, ret);
	return 0;
}

int kb_session_unmark(struct kb_session *s, const char *rev, char *unmarked_sha)
{
	struct kb_event e = { .kind = KB_EV_UNMARK };
	git_oid oid;
	int ret, n;

	if ((ret = kb_repo_resolve(s->repo, rev, &oid)) < 0)
		return ret;
	hex_of(unmarked_sha, &oid);
	memcpy(e.sha, unmarked_sha, 41);
	if ((ret = kb_store_begin(s->store)) < 0)
		return ret;
	if ((n = ret = kb_store_marks_remove(s->store, s->row.id, unmarked_sha, "manual")) < 0)
		return undo(s, ret);
	if (!n)
		return undo(s, kb_error(KB_EINVAL, "%.12s has no mark of yours: only the marks "
					"of 'kbisect good', 'bad' and 'skip' can be taken back "
					"(a test's marks are its evidence; 'kbisect log', edit, "
					"'kbisect replay' rewrites any)", unmarked_sha));
	if ((ret = kb_event_add(s->store, s->row.id, &e)) < 0 ||
	    (!strcmp(s->row.state, "done") &&
	     (ret = kb_store_session_finish(s->store, s->row.id, "active", NULL)) < 0) ||
	    (ret = kb_store_commit(s->store)) < 0)
		return undo(s, ret);
	if (!strcmp(s->row.state, "done")) {
		free(s->row.state);
		s->row.state = kb_strdup("active");
	}
	return kb_session_refresh(s);
}

int kb_session_end(struct kb_session *s)
{
	const char *const parts[] = { s->paths.worktree, s->paths.worktree_index,
				      s->paths.runs, s->paths.logs, s->paths.scratch,
				      s->paths.setup_log, s->paths.vm, s->paths.ahead };
	size_t i;
	int ret;

	if (strcmp(kb_spec_target(&s->spec, 0), "local")) {
		struct kb_target *t = NULL;

		/* VMs and the like that a crash left behind; a host that does
		 * not answer keeps its files, and the session still ends */
		if ((ret = kb_session_open_slot(s, 0, &t)) < 0 || (ret = kb_target_cleanup(t)) < 0) {
			kb_target_close(t);
			if (strncmp(kb_spec_target(&s->spec, 0), "ssh://", 6) &&
			    strcmp(kb_spec_target(&s->spec, 0), "lava"))
				return ret;
			kb_session_say(s, KB_SAY_WARN, "the files of this session stay on the "
				       "%s (%s)", strcmp(kb_spec_target(&s->spec, 0), "lava") ?
				       "host" : "lab, and its jobs may still run there",
				       kb_error_last());
			kb_error_clear();
			t = NULL;
		}
		kb_target_close(t);
	}
	if ((ret = kb_store_session_finish(s->store, s->row.id, "ended", NULL)) < 0)
		return ret;
	kb_event_add(s->store, s->row.id, &(struct kb_event){ .kind = KB_EV_RESET });
	/* the kernel source and build directories stay, for the next
	 * session's incremental builds */
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if ((ret = kb_remove_tree(parts[i])) < 0)
			return ret;
	rmdir(s->statedir); /* when nothing is kept */
	return 0;
}
