/*
 * Building ahead: while one commit is booted and measured, the commits
 * likely to be tested next are built in a child process, so that the
 * bisection does not wait on the compiler.
 *
 * The child builds in the session's own work tree and build directory,
 * which the main loop does not use while it boots and measures, so every
 * build stays incremental; it runs at a lower priority, and puts what it
 * builds in the cache of finished builds, where the main loop finds it.
 * A build holds a lock on its build directory (build.c), so a child left
 * behind by a kbisect that died and a new build never share one.  Before
 * the main loop builds anything itself, it waits for the child when the
 * child builds the commit it needs and stops it otherwise; it writes one
 * event per commit built ahead.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "session_int.h"

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

int kb_ahead_jobs(struct kb_session *s, struct kb_target *t)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN), spare;

	if (strcmp(s->spec.build, "kernel") || s->spec.build_ahead == 'n')
		return 0;
	spare = (cores > 0 ? cores : 1) - test_cpus(s, t);
	if (s->spec.build_ahead == 'y')
		return spare > 1 ? (int)spare : 1;
	/* auto: only with cores to spare beside the test and this process */
	return spare >= 2 ? (int)spare : 0;
}

static char *result_path(struct kb_session *s, const char *sha)
{
	return kb_asprintf("%s/%s", s->paths.ahead, sha);
}

static void child(struct kb_session *s, struct kb_target *t, char (*shas)[41], size_t n,
		  int jobs)
{
	git_repository *repo = NULL;
	size_t i;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* make and the compilers stay in this group: stopping it stops them */
	setpgid(0, 0);
	kb_run_same_group = 1;
	if (setpriority(PRIO_PROCESS, 0, 10) < 0) {}
	if (git_repository_open(&repo, s->spec.repo) < 0)
		_exit(1);
	for (i = 0; i < n; i++) {
		struct kb_build_result res;
		struct kb_build_opts o;
		char *out = result_path(s, shas[i]), *text;
		git_oid oid;
		int ret;

		/* the session's own build directory: no build of the main loop
		 * runs beside this one (see the top of this file) */
		kb_session_build_opts(s, t, &o);
		o.jobs = jobs;
		git_oid_fromstr(&oid, shas[i]);
		ret = kb_build_kernel(repo, &oid, &o, &res);
		text = ret < 0 ? kb_asprintf("error %s\n", kb_error_last()) :
		       kb_asprintf("%s %.1f %s\n", res.cached ? "cached" : res.failed ? "failed" :
				   "built", res.seconds, res.failed ? "-" : res.release);
		kb_write_file_atomic(out, text, strlen(text), 0600);
		free(text);
		free(out);
		kb_session_build_opts_release(&o);
		if (ret < 0)
			break;
	}
	git_repository_free(repo);
	_exit(0);
}

/* Record what a finished child built. */
static void collect(struct kb_session *s)
{
	size_t i;

	for (i = 0; i < s->ahead_n; i++) {
		char *p = result_path(s, s->ahead_shas[i]);
		struct kb_buf b = KB_BUF_INIT;
		char what[16], rel[256];
		double secs;

		if (kb_read_file(p, &b, 4096) == 0 &&
		    sscanf(b.ptr, "%15s %lf %255s", what, &secs, rel) == 3 &&
		    strcmp(what, "cached")) {
			kb_store_event(s->store, s->row.id, "build", "%s ahead %s %.1f %s",
				       s->ahead_shas[i], what, secs, rel);
			if (!strcmp(what, "built"))
				kb_session_say(s, KB_SAY_INFO, "built %.12s ahead (%.0f s)",
					       s->ahead_shas[i], secs);
		}
		kb_error_clear();
		unlink(p);
		free(p);
		kb_buf_release(&b);
	}
	s->ahead_n = 0;
	s->ahead_pid = 0;
}

void kb_ahead_poll(struct kb_session *s)
{
	if (s->ahead_pid > 0 && waitpid(s->ahead_pid, NULL, WNOHANG) == s->ahead_pid)
		collect(s);
}

void kb_ahead_wait(struct kb_session *s, const char *sha)
{
	size_t i;
	int wanted = 0;

	if (s->ahead_pid <= 0)
		return;
	kb_ahead_poll(s);
	if (s->ahead_pid <= 0)
		return;
	for (i = 0; i < s->ahead_n; i++)
		wanted |= !strcmp(s->ahead_shas[i], sha);
	if (!wanted) {
		/* a guess that did not come true: the build needed now goes first */
		kb_session_say(s, KB_SAY_INFO, "stopping the build ahead: %.12s is needed "
			       "first", sha);
		kb_ahead_stop(s);
		return;
	}
	kb_session_say(s, KB_SAY_INFO, "waiting for the build ahead to finish before "
		       "building %.12s", sha);
	while (waitpid(s->ahead_pid, NULL, 0) < 0 && errno == EINTR)
		;
	collect(s);
}

void kb_ahead_stop(struct kb_session *s)
{
	if (s->ahead_pid <= 0)
		return;
	kill(-s->ahead_pid, SIGTERM);
	while (waitpid(s->ahead_pid, NULL, 0) < 0 && errno == EINTR)
		;
	collect(s);
}

void kb_ahead_start(struct kb_session *s, struct kb_target *t, const char (*shas)[41],
		    size_t n)
{
	size_t i, k = 0;
	int jobs = kb_ahead_jobs(s, t);
	pid_t pid;

	kb_ahead_poll(s);
	if (!jobs || s->ahead_pid > 0 || !n)
		return;
	for (i = 0; i < n && k < KB_AHEAD_MAX; i++) {
		size_t j;
		int dup = 0;

		for (j = 0; j < k; j++)
			dup |= !strcmp(s->ahead_shas[j], shas[i]);
		if (!dup && shas[i][0])
			memcpy(s->ahead_shas[k++], shas[i], 41);
	}
	if (!k)
		return;
	kb_mkdir_p(s->paths.ahead, 0700);
	kb_error_clear();
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0)
		child(s, t, s->ahead_shas, k, jobs);
	setpgid(pid, pid);
	s->ahead_pid = pid;
	s->ahead_n = k;
	kb_session_say(s, KB_SAY_INFO, "building ahead: %.12s%s%.12s", s->ahead_shas[0],
		       k > 1 ? ", " : "", k > 1 ? s->ahead_shas[1] : "");
}
