#include "builder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "util.h"

static void say(struct kb_builder *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct kb_builder *b, const char *fmt, ...)
{
	struct kb_buf m = KB_BUF_INIT;
	va_list ap;

	if (!b->cb.say)
		return;
	va_start(ap, fmt);
	kb_buf_vaddf(&m, fmt, ap);
	va_end(ap);
	b->cb.say(b->cb.ctx, m.ptr);
	kb_buf_release(&m);
}

void kb_builder_init(struct kb_builder *b, const struct kb_paths *paths)
{
	memset(b, 0, sizeof(*b));
	b->paths = paths;
	b->ahead = 'n';
}

void kb_builder_release(struct kb_builder *b)
{
	memset(b, 0, sizeof(*b));
}

/* The options of a build; 'ahead': the child's (no callbacks). */
static void build_opts(const struct kb_builder *b, int ahead, struct kb_build_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->kconfig = b->kconfig ? b->kconfig : "tinyconfig";
	o->fragments_dir = b->fragments_dir ? b->fragments_dir : "/nonexistent";
	o->target = b->target;
	o->workdir = b->paths->src;
	o->builddir = b->paths->kbuild;
	o->cache_dir = b->paths->cache;
	o->log_dir = b->paths->logs;
	o->cache_limit = 4ULL << 30;
	o->cc_wrapper = b->cc_wrapper;
	o->jobs = b->jobs;
	if (!ahead) {
		o->progress = b->cb.progress;
		o->say = b->cb.say;
		o->ctx = b->cb.ctx;
	}
}

int kb_builder_build(struct kb_builder *b, git_repository *repo, const char *sha,
		     struct kb_build_result *res)
{
	struct kb_build_opts o;
	git_oid oid;
	int ret, fd = -1;

	kb_builder_ahead_wait(b, sha);
	if (b->shared) {
		/* the processes that share the tree build one at a time */
		fd = open(b->paths->build_lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			return kb_error_errno(KB_ERROR, "cannot open the build lock");
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	}
	build_opts(b, 0, &o);
	git_oid_fromstr(&oid, sha);
	say(b, "building %.12s", sha);
	ret = kb_build_kernel(repo, &oid, &o, res);
	if (fd >= 0)
		close(fd);
	return ret;
}

int kb_build_ahead_jobs(char mode, long test_cpus)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN), spare;

	if (mode == 'n')
		return 0;
	spare = (cores > 0 ? cores : 1) - test_cpus;
	if (mode == 'y')
		return spare > 1 ? (int)spare : 1;
	/* auto: only with cores to spare beside the test and this process */
	return spare >= 2 ? (int)spare : 0;
}

int kb_builder_ahead_jobs(const struct kb_builder *b)
{
	return kb_build_ahead_jobs(b->ahead, b->test_cpus);
}

static char *result_path(struct kb_builder *b, const char *sha)
{
	return kb_asprintf("%s/%s", b->paths->ahead, sha);
}

static void __attribute__((noreturn)) child(struct kb_builder *b, int jobs)
{
	git_repository *repo = NULL;
	size_t i;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* make and the compilers stay in this group: stopping it stops them */
	setpgid(0, 0);
	kb_run_same_group = 1;
	if (setpriority(PRIO_PROCESS, 0, 10) < 0) {}
	if (git_repository_open(&repo, b->repo_path) < 0)
		_exit(1);
	for (i = 0; i < b->ahead_n; i++) {
		struct kb_build_result res;
		struct kb_build_opts o;
		char *out = result_path(b, b->ahead_shas[i]), *text;
		git_oid oid;
		int ret;

		/* the builder's own build directory: no other build of the
		 * parent runs beside this one (see builder.h) */
		build_opts(b, 1, &o);
		o.jobs = jobs;
		git_oid_fromstr(&oid, b->ahead_shas[i]);
		ret = kb_build_kernel(repo, &oid, &o, &res);
		text = ret < 0 ? kb_asprintf("error %s\n", kb_error_last()) :
		       kb_asprintf("%s %.1f %s\n", res.cached ? "cached" : res.failed ? "failed" :
				   "built", res.seconds, res.failed ? "-" : res.release);
		kb_write_file_atomic(out, text, strlen(text), 0600);
		free(text);
		free(out);
		if (ret < 0)
			break;
	}
	git_repository_free(repo);
	_exit(0);
}

/* Tell what a finished child built. */
static void collect(struct kb_builder *b)
{
	size_t i;

	for (i = 0; i < b->ahead_n; i++) {
		char *p = result_path(b, b->ahead_shas[i]);
		struct kb_buf r = KB_BUF_INIT;
		char what[16], rel[256];
		double secs;

		if (kb_read_file(p, &r, 4096) == 0 &&
		    sscanf(r.ptr, "%15s %lf %255s", what, &secs, rel) == 3 &&
		    strcmp(what, "cached")) {
			if (b->cb.built_ahead)
				b->cb.built_ahead(b->cb.ctx, b->ahead_shas[i], what, secs, rel);
			if (!strcmp(what, "built"))
				say(b, "built %.12s ahead (%.0f s)", b->ahead_shas[i], secs);
		}
		kb_error_clear();
		unlink(p);
		free(p);
		kb_buf_release(&r);
	}
	b->ahead_n = 0;
	b->ahead_pid = 0;
}

void kb_builder_ahead_poll(struct kb_builder *b)
{
	if (b->ahead_pid > 0 && waitpid(b->ahead_pid, NULL, WNOHANG) == b->ahead_pid)
		collect(b);
}

void kb_builder_ahead_wait(struct kb_builder *b, const char *sha)
{
	size_t i;
	int wanted = 0;

	if (b->ahead_pid <= 0)
		return;
	kb_builder_ahead_poll(b);
	if (b->ahead_pid <= 0)
		return;
	for (i = 0; i < b->ahead_n; i++)
		wanted |= !strcmp(b->ahead_shas[i], sha);
	if (!wanted) {
		/* a guess that did not come true: the build needed now goes first */
		say(b, "stopping the build ahead: %.12s is needed first", sha);
		kb_builder_ahead_stop(b);
		return;
	}
	say(b, "waiting for the build ahead to finish before building %.12s", sha);
	while (waitpid(b->ahead_pid, NULL, 0) < 0 && errno == EINTR)
		;
	collect(b);
}

void kb_builder_ahead_stop(struct kb_builder *b)
{
	if (b->ahead_pid <= 0)
		return;
	kill(-b->ahead_pid, SIGTERM);
	while (waitpid(b->ahead_pid, NULL, 0) < 0 && errno == EINTR)
		;
	collect(b);
}

void kb_builder_ahead_start(struct kb_builder *b, const char (*shas)[41], size_t n)
{
	size_t i, k = 0;
	int jobs = kb_builder_ahead_jobs(b);
	pid_t pid;

	kb_builder_ahead_poll(b);
	if (!jobs || b->ahead_pid > 0 || !n)
		return;
	for (i = 0; i < n && k < KB_AHEAD_MAX; i++) {
		size_t j;
		int dup = 0;

		for (j = 0; j < k; j++)
			dup |= !strcmp(b->ahead_shas[j], shas[i]);
		if (!dup && shas[i][0])
			memcpy(b->ahead_shas[k++], shas[i], 41);
	}
	if (!k)
		return;
	b->ahead_n = k;
	kb_mkdir_p(b->paths->ahead, 0700);
	kb_error_clear();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		b->ahead_n = 0;
		return;
	}
	if (pid == 0)
		child(b, jobs);
	setpgid(pid, pid);
	b->ahead_pid = pid;
	say(b, "building ahead: %.12s%s%.12s", b->ahead_shas[0], k > 1 ? ", " : "",
	    k > 1 ? b->ahead_shas[1] : "");
}
