#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
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

/*
 * The output of a runner's command, through a pipe: what is kept of it
 * (output.h), and the file that shows it, the head as it comes and what
 * follows at most once a second, and once more at the end.
 */
struct pump {
	int rfd, outfd;
	struct kb_output kept;
	size_t written;    /* bytes of the head in the file */
	double synced;     /* when what follows the head was written */
	int dirty;         /* ... and whether it changed since */
};

static void write_at(int fd, const char *p, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* a full disk: the outcome still counts */
		p += n;
		len -= (size_t)n;
		off += n;
	}
}

static void pump_sync(struct pump *p, int force)
{
	struct kb_buf b = KB_BUF_INIT;

	if (p->written < p->kept.head.len) {
		write_at(p->outfd, p->kept.head.ptr + p->written,
			 p->kept.head.len - p->written, (off_t)p->written);
		p->written = p->kept.head.len;
	}
	if (!p->dirty || p->kept.total == p->kept.head.len ||
	    (!force && kb_now() - p->synced < 1))
		return;
	kb_output_render_after_head(&p->kept, &b);
	write_at(p->outfd, b.ptr, b.len, (off_t)p->written);
	if (ftruncate(p->outfd, (off_t)(p->written + b.len))) {}
	kb_buf_release(&b);
	p->synced = kb_now();
	p->dirty = 0;
}

/* Take what the pipe holds (up to 'most' reads); 0 at its end. */
static int pump_read(struct pump *p, int most)
{
	char buf[65536];
	int more = 1;

	while (most-- > 0) {
		ssize_t n = read(p->rfd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			more = n < 0 && errno == EAGAIN;
			break;
		}
		kb_output_add(&p->kept, buf, (size_t)n);
		p->dirty = 1;
	}
	pump_sync(p, 0);
	return more;
}

/* Wait for pid, killing its process group after the timeout; its output
 * (through 'pump', or NULL) taken as it comes. */
static void supervise_tick(pid_t pid, double timeout, struct kb_run_result *res,
			   struct tick *tick, struct pump *pump)
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
		if (pump && pump->rfd >= 0) {
			struct pollfd pf = { pump->rfd, POLLIN, 0 };

			if (poll(&pf, 1, 10) > 0 && !pump_read(pump, 16)) {
				close(pump->rfd);
				pump->rfd = -1;
			}
			continue;
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
	/* what it wrote before it ended; not what a process that left its
	 * group writes on, which is cut off with the pipe */
	if (pump && pump->rfd >= 0)
		pump_read(pump, 1024);
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
	outfd = open(outp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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
		struct pump pump = { -1, outfd };
		int pfd[2] = { -1, -1 };
		pid_t cmd = -1;

		memset(&res, 0, sizeof(res));
		kb_output_init(&pump.kept, 0, 0);
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
		/* the output comes through a pipe, to keep its head and tail */
		if (pipe2(pfd, O_CLOEXEC) < 0)
			snprintf(res.message, sizeof(res.message), "pipe: %s", strerror(errno));
		else
			cmd = spawn(spec, pfd[1], &res);
		if (pfd[1] >= 0)
			close(pfd[1]);
		pump.rfd = pfd[0];
		if (pump.rfd >= 0)
			fcntl(pump.rfd, F_SETFL, O_NONBLOCK);
		if (cmd > 0) {
			char *pg = kb_asprintf("%s/pgid", dir), num[32];
			int n = snprintf(num, sizeof(num), "%ld\n", (long)cmd);

			kb_write_file_atomic(pg, num, (size_t)n, 0600);
			free(pg);
		}
		if (cmd < 0) {
			res.outcome = KB_RUN_EXEC_FAILED;
			kb_output_add(&pump.kept, res.message, strlen(res.message));
			pump.dirty = 1;
		} else {
			supervise_tick(cmd, spec->timeout, &res, NULL, &pump);
		}
		/* the output is whole before the outcome says the run ended */
		pump_sync(&pump, 1);
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
	supervise_tick(pid, spec->timeout, res, every > 0 ? &tick : NULL, NULL);
	close(outfd);
	return 0;
}
