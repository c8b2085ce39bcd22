/*
 * A bisection on a pool of machines.  Each machine's work runs in a
 * process of its own that writes its runs (and marks) to the database like
 * any test, and what comes back chooses the next work.  Pass/fail: each
 * free machine gets a commit of a multisection of the candidates
 * (kb_bisect_multi).  Performance: each free machine gets a boot of what
 * the decision code (lib/perf.c) gives it beside the boots under way.  A
 * machine whose harness fails is retired from the pool, and its work goes
 * to another.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf.h"
#include "session_int.h"

struct slot {
	pid_t pid;     /* the process testing on it, or 0 when it is free */
	size_t node;   /* pass/fail: the commit it tests */
	char sha[41];  /* the commit it tests or measures */
	int runs;      /* performance: the runs of its boot */
	double since;  /* when it started */
	int retired;
};

/* How long a test took, on average, and when the last round began. */
static double took_sum, round_start;
static int took_n;

static const struct kb_progress *parent_progress;
static int worker_slot;

/* A worker's lines carry the name of its machine. */
static void worker_say(void *ctx, enum kb_say_level level, const char *msg)
{
	char *m = kb_asprintf("[machine %d] %s", worker_slot, msg);

	parent_progress->say(parent_progress->ctx, level, m);
	free(m);
}

static const struct kb_progress worker_progress = { worker_say, NULL, NULL };

/* The process that tests 'node' on machine 'slot': it dies with kbisect,
 * leaves a stop request to kbisect (which stops once the tests at work are
 * done), and exits 0 when the commit is marked, 2 when the machine failed
 * (KB_EINFRA), 1 for any other error, which it records as an event. */
static void __attribute__((noreturn)) worker(struct kb_session *s, int slot,
					     const struct slot *work)
{
	struct kb_store *store = NULL;
	struct kb_target *t = NULL;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	worker_slot = slot;
	parent_progress = s->progress;
	if (parent_progress && parent_progress->say)
		s->progress = &worker_progress;
	s->slot = slot;
	/* a connection of its own: the parent's is the parent's */
	if ((ret = kb_store_open(&store, kb_store_path(s->store), 0)) < 0) {
		kb_session_say(s, KB_SAY_WARN, "%s", kb_error_last());
		_exit(1);
	}
	s->store = store;
	kb_store_set_machine(store, slot);
	if ((ret = kb_session_refresh(s)) == 0 &&
	    (ret = kb_session_open_slot(s, slot, &t)) == 0)
		ret = s->spec.bench.has_metric ?
		      kb_perf_measure_boot(s, t, work->sha, work->runs) :
		      kb_session_test_commit(s, t, work->node);
	if (ret < 0)
		kb_store_event(store, s->row.id, "machine", "%d failed %s\n%s", slot,
			       work->sha, kb_error_last());
	if (t)
		kb_target_close(t);
	kb_store_close(store);
	_exit(ret >= 0 ? 0 : kb_error_code() == KB_EINFRA ? 2 : 1);
}

/* The message a worker of 'slot' left when it failed. */
static char *failure_of(struct kb_session *s, int slot)
{
	struct kb_event_row *ev;
	size_t n, i;
	char *msg = NULL, prefix[32];

	snprintf(prefix, sizeof(prefix), "%d failed ", slot);
	if (kb_store_events(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return kb_strdup("(no message)");
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ev[i].kind, "machine") && !strncmp(ev[i].detail, prefix,
							       strlen(prefix))) {
			const char *nl = strchr(ev[i].detail, '\n');

			free(msg);
			msg = kb_strdup(nl ? nl + 1 : ev[i].detail);
		}
	kb_event_rows_free(ev, n);
	return msg ? msg : kb_strdup("(no message)");
}

/* Start the work set in 'sl' (sha, and node or runs) on machine 'slot'. */
static int start(struct kb_session *s, struct slot *sl, int slot)
{
	pid_t pid;

	kb_store_event(s->store, s->row.id, "machine", "%d testing %s", slot, sl->sha);
	fflush(NULL);
	if ((pid = fork()) < 0)
		return kb_error_errno(KB_ERROR, "cannot start a process for machine %d", slot);
	if (pid == 0)
		worker(s, slot, sl);
	sl->pid = pid;
	sl->since = kb_now();
	return 0;
}

/* Wait for one worker; what it did is in the database. */
static int reap(struct kb_session *s, struct slot *sl, int n, int *failed_slot)
{
	int st, i;
	pid_t pid;

	*failed_slot = -1;
	while ((pid = waitpid(-1, &st, 0)) < 0)
		if (errno != EINTR)
			return kb_error_errno(KB_ERROR, "waiting for the machines' tests");
	for (i = 0; i < n; i++)
		if (sl[i].pid == pid)
			break;
	if (i == n)
		return 0; /* a process of another part (a runner) */
	sl[i].pid = 0;
	took_sum += kb_now() - sl[i].since;
	took_n++;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return kb_store_event(s->store, s->row.id, "machine", "%d done %s", i, sl[i].sha);
	*failed_slot = i;
	if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 2)) {
		char *why = WIFSIGNALED(st) ? kb_asprintf("the process testing on it was "
			"killed (signal %d)", WTERMSIG(st)) : failure_of(s, i);
		size_t r;

		/* what it left running is cut short, and runs again elsewhere */
		if (kb_session_refresh(s) == 0)
			for (r = 0; r < s->nruns; r++)
				if (s->runs[r].state == KB_RUN_STARTED &&
				    s->runs[r].machine == i && !strcmp(s->runs[r].sha, sl[i].sha))
					kb_session_interrupt_run(s, &s->runs[r]);
		kb_error_clear();
		sl[i].retired = 1;
		kb_store_event(s->store, s->row.id, "machine", "%d retired\n%s", i, why);
		kb_session_say(s, KB_SAY_WARN, "machine %d is out of the pool: %s", i, why);
		free(why);
		return 0;
	}
	{
		char *why = failure_of(s, i);
		int ret = kb_error(KB_ERROR, "machine %d: %s", i, why);

		free(why);
		return ret;
	}
}

static int busy_count(const struct slot *sl, int n)
{
	int i, b = 0;

	for (i = 0; i < n; i++)
		b += sl[i].pid != 0;
	return b;
}

/*
 * Is a test of the current round still at work on a commit that is a
 * candidate?  Then its answer, due about when the others' came, cuts the
 * candidates again: new commits wait for it, as they would be chosen on
 * what is about to change.  A test whose commit is out of the candidates
 * already is not waited for, and a machine that comes free early in a
 * round (in its first quarter) joins it.
 */
static int round_open(struct kb_session *s, const struct slot *sl, int n,
		      unsigned char *alive)
{
	size_t nalive;
	int i;

	kb_bisect_alive(&s->dag.g, s->dag.bad, s->marks, alive, &nalive);
	for (i = 0; i < n; i++)
		if (sl[i].pid && alive[sl[i].node])
			break;
	if (i == n) {
		/* a new round */
		round_start = kb_now();
		return 0;
	}
	return !(took_n && kb_now() - round_start < 0.25 * took_sum / took_n);
}

enum { PLAN_WORK, PLAN_FINISH, PLAN_STOP };

/* Pass/fail: a multisection of the candidates on the free machines. */
static int plan_tests(struct kb_session *s, struct slot *sl, int n, int active,
		      unsigned char *busy, unsigned char *alive, size_t *pick)
{
	struct kb_next next;
	int nbusy = busy_count(sl, n), i, ret;
	size_t k, npick = 0, j;

	if ((ret = kb_session_next(s, &next)) < 0)
		return ret;
	if (next.kind != KB_NEXT_TEST && !nbusy) {
		kb_next_release(&next);
		return PLAN_FINISH;
	}
	if (s->stop && *s->stop) {
		kb_next_release(&next);
		return nbusy ? PLAN_WORK : PLAN_STOP;
	}
	if (next.kind == KB_NEXT_TEST && nbusy < active && !round_open(s, sl, n, alive)) {
		memset(busy, 0, s->dag.g.n);
		for (i = 0; i < n; i++)
			if (sl[i].pid)
				busy[sl[i].node] = 1;
		k = (size_t)active;
		npick = kb_bisect_multi(&s->dag.g, s->dag.bad, s->marks, busy, k, pick);
		/* the only commits left are skipped neighbours: the
		 * single-machine choice knows how to step away */
		if (!npick && !nbusy)
			pick[npick++] = next.commit;
	}
	if (npick)
		kb_session_say(s, KB_SAY_STEP, "Bisecting: %zu revision%s left, "
			       "%d machine%s (roughly %d round%s)", next.nleft,
			       next.nleft == 1 ? "" : "s", active, active == 1 ? "" : "s",
			       kb_bisect_rounds(next.nleft, (size_t)active),
			       kb_bisect_rounds(next.nleft, (size_t)active) == 1 ? "" : "s");
	kb_next_release(&next);
	for (j = 0, i = 0; j < npick && i < n; i++) {
		char *subject;

		if (sl[i].pid || sl[i].retired)
			continue;
		sl[i].node = pick[j++];
		git_oid_tostr(sl[i].sha, sizeof(sl[i].sha), &s->dag.oid[sl[i].node]);
		subject = kb_session_subject(s, sl[i].sha);
		kb_session_say(s, KB_SAY_INFO, "[machine %d] [%s] %s", i, sl[i].sha, subject);
		free(subject);
		if ((ret = start(s, &sl[i], i)) < 0)
			return ret;
	}
	return PLAN_WORK;
}

/* Performance: for each free machine, the boot the decision code gives it
 * beside the boots under way. */
static int plan_boots(struct kb_session *s, struct slot *sl, int n)
{
	struct kb_perf_job *busy = kb_calloc((size_t)n, sizeof(*busy));
	struct kb_perf_out out;
	size_t nbusy = 0;
	signed char *pairs = kb_perf_pairs(s), *was = kb_calloc((size_t)n, 1);
	int i, k, ret = PLAN_WORK;

	for (i = 0; i < n; i++)
		if (sl[i].pid) {
			memcpy(busy[nbusy].sha, sl[i].sha, 41);
			busy[nbusy++].machine = i;
		}
	/* the pairs of the verification: the machines in service take
	 * turns, the first parent and culprit, the second BAD and its revert */
	memcpy(was, pairs, (size_t)n);
	for (i = 0, k = 0; i < n; i++)
		pairs[i] = sl[i].retired ? -1 : (signed char)(k++ % 2);
	if (memcmp(was, pairs, (size_t)n)) {
		struct kb_buf b = KB_BUF_INIT;

		for (i = 0; i < n; i++)
			kb_buf_addf(&b, "%s%d", i ? " " : "", pairs[i]);
		ret = kb_store_event(s->store, s->row.id, "verify", "%s", b.ptr);
		kb_buf_release(&b);
		if (ret < 0)
			goto out;
	}
	/* the whole first: finished, or a revert to make */
	for (;;) {
		if ((ret = kb_perf_decide_on(s, -1, busy, nbusy, pairs, &out)) < 0)
			goto out;
		if (out.kind != KB_PERF_REVERT)
			break;
		if ((ret = kb_perf_make_revert(s, out.sha)) < 0 ||
		    (ret = kb_session_refresh(s)) < 0)
			goto out;
	}
	if (out.kind == KB_PERF_DONE) {
		json_decref(out.verdict);
		ret = nbusy ? PLAN_WORK : PLAN_FINISH;
		goto out;
	}
	if (s->stop && *s->stop) {
		ret = nbusy ? PLAN_WORK : PLAN_STOP;
		goto out;
	}
	s->steps_after = out.kind == KB_PERF_RUN ? kb_perf_steps_after(&out) : -1;
	for (i = 0; i < n; i++) {
		if (sl[i].pid || sl[i].retired)
			continue;
		if ((ret = kb_perf_decide_on(s, i, busy, nbusy, pairs, &out)) < 0)
			goto out;
		if (out.kind == KB_PERF_REVERT) {
			if ((ret = kb_perf_make_revert(s, out.sha)) < 0 ||
			    (ret = kb_session_refresh(s)) < 0)
				goto out;
			i--;
			continue;
		}
		if (out.kind == KB_PERF_DONE)
			json_decref(out.verdict);
		if (out.kind != KB_PERF_RUN)
			continue;
		kb_session_say(s, KB_SAY_STEP, "[machine %d] [%.12s] %s: %s (likeliest "
			       "culprit %.0f%%)", i, out.sha, out.role, out.note,
			       100 * out.best_prob);
		memcpy(sl[i].sha, out.sha, 41);
		sl[i].runs = out.runs;
		if ((ret = start(s, &sl[i], i)) < 0)
			goto out;
		memcpy(busy[nbusy].sha, out.sha, 41);
		busy[nbusy++].machine = i;
	}
	ret = PLAN_WORK;
out:
	free(busy);
	free(pairs);
	free(was);
	return ret;
}

int kb_pool_loop(struct kb_session *s)
{
	int n = (int)s->spec.pool.n + 1, i, ret = 0, failed;
	struct slot *sl = kb_calloc((size_t)n, sizeof(*sl));
	unsigned char *busy = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, 1),
		      *alive = kb_calloc(s->dag.g.n ? s->dag.g.n : 1, 1);
	size_t *pick = kb_calloc((size_t)n, sizeof(*pick));

	/* leftovers of an earlier kbisect on each machine */
	for (i = 1; i < n; i++) {
		struct kb_target *t;

		if ((ret = kb_session_open_slot(s, i, &t)) == 0) {
			ret = kb_target_cleanup(t);
			kb_target_close(t);
		}
		if (ret < 0) {
			kb_session_say(s, KB_SAY_WARN, "machine %d is out of the pool: %s", i,
				       kb_error_last());
			sl[i].retired = 1;
		}
	}
	ret = 0;
	for (;;) {
		int active = 0;

		for (i = 0; i < n; i++)
			active += !sl[i].retired;
		if (!active) {
			ret = kb_error(KB_EINFRA, "every machine of the pool failed; fix them and "
				       "'kbisect resume'");
			break;
		}
		if ((ret = kb_session_refresh(s)) < 0)
			break;
		ret = s->spec.bench.has_metric ? plan_boots(s, sl, n) :
		      plan_tests(s, sl, n, active, busy, alive, pick);
		if (ret == PLAN_FINISH) {
			ret = kb_session_finish(s);
			break;
		}
		if (ret == PLAN_STOP) {
			ret = kb_error(KB_EINTR, "stopped; continue with 'kbisect resume'");
			break;
		}
		if (ret < 0)
			break;
		if (!busy_count(sl, n)) {
			ret = kb_error(KB_ERROR, "nothing to test and nothing at work");
			break;
		}
		if ((ret = reap(s, sl, n, &failed)) < 0)
			break;
	}
	/* an error: the other machines finish what they do, then stop */
	if (busy_count(sl, n)) {
		char *msg = ret < 0 ? kb_strdup(kb_error_last()) : NULL;
		int code = ret < 0 ? kb_error_code() : 0;

		while (busy_count(sl, n))
			reap(s, sl, n, &failed);
		if (msg)
			ret = kb_error(code, "%s", msg);
		free(msg);
	}
	free(sl);
	free(busy);
	free(alive);
	free(pick);
	return ret;
}
