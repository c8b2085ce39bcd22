#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

int kb_run_same_group;

/* In the forked child: set up and exec, or report why not on fd 'errfd'. */
static void exec_child(const struct kb_run_spec *spec, int outfd, int errfd)
{
	int devnull = open("/dev/null", O_RDONLY);
	size_t i;

	if (!kb_run_same_group)
		setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (devnull >= 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	dup2(outfd, 1);
	dup2(outfd, 2);
	for (i = 0; spec->env && spec->env[i]; i++)
		putenv((char *)spec->env[i]);
	if (spec->cwd && chdir(spec->cwd) < 0) {
		int e = errno;

		if (write(errfd, &e, sizeof(e))) {}
		_exit(127);
	}
	execvp(spec->argv[0], (char *const *)spec->argv);
	int e = errno;

	if (write(errfd, &e, sizeof(e))) {}
	_exit(127);
}

/*
 * Start the command; returns its pid, or -1 with res->message set when it
 * could not be started.  A close-on-exec pipe tells exec failure apart from
 * a command that exits 127.
 */
static pid_t spawn(const struct kb_run_spec *spec, int outfd, struct kb_run_result *res)
{
	int pfd[2], e = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(res->message, sizeof(res->message), "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(res->message, sizeof(res->message), "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		exec_child(spec, outfd, pfd[1]);
	}
	close(pfd[1]);
	if (!kb_run_same_group)
		setpgid(pid, pid);
	while ((n = read(pfd[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (n == sizeof(e)) {
		waitpid(pid, NULL, 0);
		snprintf(res->message, sizeof(res->message), "cannot run '%s'%s%s: %s",
			 spec->argv[0], spec->cwd && e == ENOENT ? " in " : "",
			 spec->cwd && e == ENOENT ? spec->cwd : "", strerror(e));
		return -1;
	}
	return pid;
}

struct tick {
	double every, next;
	const char *log;
	void (*fn)(void *ctx, const char *what, double seconds, long lines);
	void *ctx;
	const char *what;
};

static long count_lines(const char *path)
{
	char buf[65536];
	long n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	close(fd);
	return n;
}

/* Wait for pid, killing its process group after the timeout. */
static void supervise_tick(pid_t pid, double timeout, struct kb_run_result *res,
			   struct tick *tick)
{
	double start = kb_now(), deadline = timeout > 0 ? start + timeout : 0;
	int status, killed = 0;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			break;
		if (tick && tick->fn && kb_now() >= tick->next) {
			tick->next = kb_now() + tick->every;
			tick->fn(tick->ctx, tick->what, kb_now() - start,
				 tick->log ? count_lines(tick->log) : 0);
		}
		if (deadline && kb_now() > deadline) {
			kill(-pid, killed ? SIGKILL : SIGTERM);
			if (!killed)
				deadline = kb_now() + 5;
			killed++;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	res->seconds = kb_now() - start;
	if (killed) {
		res->outcome = KB_RUN_TIMEOUT;
		snprintf(res->message, sizeof(res->message),
			 "timed out after %.0f s", timeout);
	} else if (WIFSIGNALED(status)) {
		res->outcome = KB_RUN_SIGNALED;
		res->term_signal = WTERMSIG(status);
	} else {
		res->outcome = KB_RUN_EXITED;
		res->exit_status = WEXITSTATUS(status);
	}
	/* leave nothing of the command behind */
	kill(-pid, SIGKILL);
}

static void supervise(pid_t pid, double timeout, struct kb_run_result *res)
{
	supervise_tick(pid, timeout, res, NULL);
}

static void write_status(const char *dir, const struct kb_run_result *res)
{
	char *path = kb_asprintf("%s/status", dir);
	struct kb_buf b = KB_BUF_INIT;
	static const char *const names[] = { "exited", "signaled", "timeout", "exec-failed" };

	kb_buf_addf(&b, "%s %d %d %.6f\n%s\n", names[res->outcome], res->exit_status,
		    res->term_signal, res->seconds, res->message);
	kb_write_file_atomic(path, b.ptr, b.len, 0600);
	kb_buf_release(&b);
	free(path);
}

static int read_status(const char *dir, struct kb_run_result *res, int *found)
{
	char *path = kb_asprintf("%s/status", dir);
	struct kb_buf b = KB_BUF_INIT;
	char name[32];
	int ret = kb_read_file(path, &b, 1 << 16);
	char *nl;

	free(path);
	memset(res, 0, sizeof(*res));
	*found = 0;
	if (ret == KB_ENOTFOUND) {
		kb_error_clear();
		return 0;
	}
	if (ret < 0)
		return ret;
	if (sscanf(b.ptr, "%31s %d %d %lf", name, &res->exit_status,
		   &res->term_signal, &res->seconds) != 4) {
		kb_buf_release(&b);
		return kb_error(KB_ERROR, "%s/status is damaged", dir);
	}
	res->outcome = !strcmp(name, "exited") ? KB_RUN_EXITED :
		       !strcmp(name, "signaled") ? KB_RUN_SIGNALED :
		       !strcmp(name, "timeout") ? KB_RUN_TIMEOUT : KB_RUN_EXEC_FAILED;
	nl = strchr(b.ptr, '\n');
	if (nl) {
		snprintf(res->message, sizeof(res->message), "%s", nl + 1);
		res->message[strcspn(res->message, "\n")] = '\0';
	}
	*found = 1;
	kb_buf_release(&b);
	return 0;
}

int kb_runner_start(const char *dir, const struct kb_run_spec *spec, pid_t *pid)
{
	char *lockp, *outp;
	int lockfd, outfd, ret;
	pid_t p;

	if ((ret = kb_mkdir_p(dir, 0700)) < 0)
		return ret;
	lockp = kb_asprintf("%s/lock", dir);
	outp = kb_asprintf("%s/output", dir);
	lockfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	outfd = open(outp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	free(lockp);
	free(outp);
	if (lockfd < 0 || outfd < 0 || flock(lockfd, LOCK_EX) < 0) {
		ret = kb_error_errno(KB_EINFRA, "cannot prepare run directory %s", dir);
		goto out;
	}
	fflush(NULL);
	p = fork();
	if (p < 0) {
		ret = kb_error_errno(KB_EINFRA, "cannot start a runner");
		goto out;
	}
	if (p == 0) {
		/* the runner: it keeps lockfd (and so the lock) until it exits */
		struct kb_run_result res;
		pid_t cmd;

		memset(&res, 0, sizeof(res));
		/*
		 * A process group of its own: a Ctrl-C (or any signal sent to
		 * the orchestrator's group) must not kill the runner with
		 * kbisect, or the result of a test that then finishes would be
		 * lost and the test run again.  And not kbisect's handlers
		 * (inherited through fork), which would print its "stopping"
		 * message a second time.
		 */
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_IGN);
		cmd = spawn(spec, outfd, &res);
		if (cmd > 0) {
			char *pg = kb_asprintf("%s/pgid", dir), num[32];
			int n = snprintf(num, sizeof(num), "%ld\n", (long)cmd);

			kb_write_file_atomic(pg, num, (size_t)n, 0600);
			free(pg);
		}
		if (cmd < 0) {
			res.outcome = KB_RUN_EXEC_FAILED;
			if (write(outfd, res.message, strlen(res.message))) {}
		} else {
			supervise(cmd, spec->timeout, &res);
		}
		write_status(dir, &res);
		_exit(0);
	}
	setpgid(p, p); /* as the runner does, whichever runs first */
	*pid = p;
out:
	if (lockfd >= 0)
		close(lockfd);
	if (outfd >= 0)
		close(outfd);
	return ret;
}

int kb_runner_wait(const char *dir, struct kb_run_result *res, int *found,
		   void (*on_wait)(void *ctx), void *ctx)
{
	char *lockp = kb_asprintf("%s/lock", dir);
	int fd = open(lockp, O_RDWR | O_CLOEXEC);

	free(lockp);
	if (fd >= 0) {
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			if (on_wait)
				on_wait(ctx);
			while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
				;
		}
		close(fd);
	}
	return read_status(dir, res, found);
}

void kb_runner_kill_leftovers(const char *dir)
{
	char *pg = kb_asprintf("%s/pgid", dir);
	struct kb_buf b = KB_BUF_INIT;
	long pgid;

	if (kb_read_file(pg, &b, 64) == 0 && sscanf(b.ptr, "%ld", &pgid) == 1 && pgid > 1)
		kill(-(pid_t)pgid, SIGKILL);
	kb_error_clear();
	kb_buf_release(&b);
	free(pg);
}

void kb_runner_reap(pid_t pid)
{
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int kb_run_simple(const struct kb_run_spec *spec, const char *log,
		  struct kb_run_result *res)
{
	return kb_run_simple_progress(spec, log, res, 0, NULL, NULL, NULL);
}

int kb_run_simple_progress(const struct kb_run_spec *spec, const char *log,
			   struct kb_run_result *res, double every,
			   void (*fn)(void *ctx, const char *what, double seconds, long lines),
			   void *ctx, const char *what)
{
	int outfd = open(log ? log : "/dev/null",
			 O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	struct tick tick = { every, kb_now() + every, log, fn, ctx, what };
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (outfd < 0)
		return kb_error_errno(KB_EINFRA, "cannot open %s", log ? log : "/dev/null");
	pid = spawn(spec, outfd, res);
	if (pid < 0) {
		close(outfd);
		res->outcome = KB_RUN_EXEC_FAILED;
		return kb_error(KB_EINFRA, "%s", res->message);
	}
	supervise_tick(pid, spec->timeout, res, every > 0 ? &tick : NULL);
	close(outfd);
	return 0;
}
