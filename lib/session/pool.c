/*
 * A bisection on a pool of machines.  Each machine's work runs in a
 * process of its own that writes its runs (and marks) to the database like
 * any test, and what comes back chooses the next work: the session's mode
 * plans the jobs of the free machines beside those under way (pass/fail: a
 * multisection of the candidates; performance: what the decision code
 * gives each machine), and does each job in the machine's process.  A
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

#include "mode.h"

struct slot {
	pid_t pid;          /* the process testing on it, or 0 when it is free */
	struct kb_job job;  /* what it does */
	double since;       /* when it started */
	int retired;
};

/* How long a job took, on average. */
static double took_sum;
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

static int machine_event(struct kb_store *store, int64_t session, int slot,
			 enum kb_event_result what, const char *sha, const char *text)
{
	struct kb_event e = { .kind = KB_EV_MACHINE, .result = what, .machine = slot,
			      .text = text };

	snprintf(e.sha, sizeof(e.sha), "%s", sha ? sha : "");
	return kb_event_add(store, session, &e);
}

/* The process that tests 'node' on machine 'slot': it dies with kbisect,
 * leaves a stop request to kbisect (which stops once the tests at work are
 * done), and exits 0 when the commit is marked, 2 when the machine failed
 * (KB_EINFRA), 1 for any other error, which it records as an event. */
static void __attribute__((noreturn)) worker(struct kb_session *s, int slot,
					     const struct kb_job *job, pid_t parent)
{
	struct kb_store *store = NULL;
	struct kb_target *t = NULL;
	int ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* kbisect killed before the line above: no one would ever stop this
	 * process, and a resumed session would test beside it */
	if (getppid() != parent)
		_exit(1);
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
		ret = s->mode->work(s, t, job);
	if (ret < 0)
		machine_event(store, s->row.id, slot, KB_EV_FAILED, job->sha, kb_error_last());
	if (t)
		kb_target_close(t);
	kb_store_close(store);
	_exit(ret >= 0 ? 0 : kb_error_code() == KB_EINFRA ? 2 : 1);
}

/* The message a worker of 'slot' left when it failed. */
static char *failure_of(struct kb_session *s, int slot)
{
	struct kb_event *ev;
	size_t n, i;
	char *msg = NULL;

	if (kb_events_read(s->store, s->row.id, &ev, &n) < 0) {
		kb_error_clear();
		return kb_strdup("(no message)");
	}
	for (i = 0; i < n; i++)
		if (ev[i].kind == KB_EV_MACHINE && ev[i].result == KB_EV_FAILED &&
		    ev[i].machine == slot) {
			free(msg);
			msg = kb_strdup(ev[i].text);
		}
	kb_events_free(ev, n);
	return msg ? msg : kb_strdup("(no message)");
}

/* Start the job of 'sl' on machine 'slot'. */
static int start(struct kb_session *s, struct slot *sl, int slot)
{
	pid_t pid, self = getpid();

	machine_event(s->store, s->row.id, slot, KB_EV_TESTING, sl->job.sha, NULL);
	fflush(NULL);
	if ((pid = fork()) < 0)
		return kb_error_errno(KB_ERROR, "cannot start a process for machine %d", slot);
	if (pid == 0)
		worker(s, slot, &sl->job, self);
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
		return machine_event(s->store, s->row.id, i, KB_EV_DONE, sl[i].job.sha, NULL);
	*failed_slot = i;
	if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 2)) {
		char *why = WIFSIGNALED(st) ? kb_asprintf("the process testing on it was "
			"killed (signal %d)", WTERMSIG(st)) : failure_of(s, i);
		size_t r;

		/* what it left running is cut short, and runs again elsewhere */
		if (kb_session_refresh(s) == 0)
			for (r = 0; r < s->nruns; r++)
				if (s->runs[r].state == KB_RUN_STARTED &&
				    s->runs[r].machine == i && !strcmp(s->runs[r].sha, sl[i].job.sha))
					kb_session_interrupt_run(s, &s->runs[r]);
		kb_error_clear();
		sl[i].retired = 1;
		machine_event(s->store, s->row.id, i, KB_EV_RETIRED, NULL, why);
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

/* Ask the mode for the jobs of the free machines, and start them. */
static int plan(struct kb_session *s, struct slot *sl, int n, int active)
{
	struct kb_job *busy = kb_calloc((size_t)n, sizeof(*busy)),
		      *jobs = kb_calloc((size_t)n, sizeof(*jobs));
	int *free_ = kb_calloc((size_t)n, sizeof(*free_)), i, ret;
	struct kb_plan_in in = { busy, 0, free_, 0, active, 0 };
	size_t njobs = 0, j;

	for (i = 0; i < n; i++) {
		if (sl[i].pid)
			busy[in.nbusy++] = sl[i].job;
		else if (!sl[i].retired)
			free_[in.nfree++] = i;
	}
	in.took = took_n ? took_sum / took_n : 0;
	ret = s->mode->plan_pool(s, &in, jobs, &njobs);
	/* start() gives 0, KB_PLAN_WORK, or an error */
	for (j = 0; ret == KB_PLAN_WORK && j < njobs; j++) {
		sl[jobs[j].machine].job = jobs[j];
		ret = start(s, &sl[jobs[j].machine], jobs[j].machine);
	}
	free(busy);
	free(jobs);
	free(free_);
	return ret;
}

int kb_pool_loop(struct kb_session *s)
{
	int n = (int)kb_spec_nmachines(&s->spec), i, ret = 0, failed;
	struct slot *sl = kb_calloc((size_t)n, sizeof(*sl));

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
		ret = plan(s, sl, n, active);
		if (ret == KB_PLAN_FINISH) {
			ret = kb_session_finish(s);
			break;
		}
		if (ret == KB_PLAN_STOP) {
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
	return ret;
}
