#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "test.h"
#include "util.h"

static int run_sh(const char *script, double timeout, struct kb_run_result *res,
		  const char *const *env, struct kb_buf *out)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct kb_run_spec spec = { argv, env, kb_test_dir(), timeout };
	char *dir = kb_asprintf("%s/run", kb_test_dir()), *o;
	pid_t pid;
	int found = 0, ret;

	kb_remove_tree(dir);
	ret = kb_runner_start(dir, &spec, &pid);
	if (!ret)
		ret = kb_runner_wait(dir, res, &found, NULL, NULL);
	kb_runner_reap(pid);
	o = kb_asprintf("%s/output", dir);
	if (out)
		kb_read_file(o, out, 0);
	free(o);
	free(dir);
	return ret ? ret : found ? 0 : -100;
}

TEST(test_run__exit_status_env_cwd_output)
{
	struct kb_run_result res;
	struct kb_buf out = KB_BUF_INIT;
	const char *env[] = { "KBISECT_COMMIT=abc; $(touch pwned)", NULL };

	CHECK(run_sh("echo \"$KBISECT_COMMIT\"; pwd; echo err >&2; exit 7", 0, &res, env,
		     &out) == 0);
	CHECK(res.outcome == KB_RUN_EXITED && res.exit_status == 7);
	CHECK(strstr(out.ptr, "abc; $(touch pwned)\n"));
	CHECK(strstr(out.ptr, kb_test_dir()));
	CHECK(strstr(out.ptr, "err\n"));
	{
		char *p = kb_asprintf("%s/pwned", kb_test_dir());

		CHECK(access(p, F_OK) != 0);
		free(p);
	}
	kb_buf_release(&out);
}

TEST(test_run__signal_timeout_and_exec_failure)
{
	struct kb_run_result res;
	const char *argv[] = { "/nonexistent/program", NULL };
	struct kb_run_spec spec = { argv, NULL, NULL, 0 };
	char *dir = kb_asprintf("%s/run2", kb_test_dir());
	pid_t pid;
	int found;

	CHECK(run_sh("kill -SEGV $$", 0, &res, NULL, NULL) == 0);
	CHECK(res.outcome == KB_RUN_SIGNALED && res.term_signal == SIGSEGV);
	CHECK(run_sh("sleep 30", 0.3, &res, NULL, NULL) == 0);
	CHECK(res.outcome == KB_RUN_TIMEOUT);
	CHECK(kb_runner_start(dir, &spec, &pid) == 0);
	CHECK(kb_runner_wait(dir, &res, &found, NULL, NULL) == 0 && found);
	kb_runner_reap(pid);
	CHECK(res.outcome == KB_RUN_EXEC_FAILED);
	CHECK(strstr(res.message, "/nonexistent/program"));
	free(dir);
}

static void note_wait(void *ctx)
{
	*(int *)ctx = 1;
}

/* The orchestrator dies while the runner works: a second one waits for the
 * runner through its lock and reads the result. */
TEST(test_run__result_survives_the_caller)
{
	char *dir = kb_asprintf("%s/run3", kb_test_dir());
	char *flag = kb_asprintf("%s/started", kb_test_dir());
	char *script = kb_asprintf("touch '%s'; sleep 0.5; exit 42", flag);
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct kb_run_result res;
	int pfd[2], found = 0, waited = 0;
	pid_t orch;
	char c;

	CHECK(pipe(pfd) == 0);
	orch = fork();
	if (orch == 0) {
		struct kb_run_spec spec = { argv, NULL, NULL, 0 };
		pid_t pid;

		if (kb_runner_start(dir, &spec, &pid) < 0)
			_exit(1);
		if (write(pfd[1], "x", 1)) {}
		pause();
		_exit(0);
	}
	CHECK(read(pfd[0], &c, 1) == 1);
	kill(orch, SIGKILL);
	waitpid(orch, NULL, 0);
	CHECK(kb_runner_wait(dir, &res, &found, note_wait, &waited) == 0);
	CHECK(found && waited);
	CHECK(res.outcome == KB_RUN_EXITED && res.exit_status == 42);
	free(dir);
	free(flag);
	free(script);
}

TEST(test_run__no_status_means_not_found)
{
	char *dir = kb_asprintf("%s/never", kb_test_dir());
	struct kb_run_result res;
	int found = 1;

	CHECK(kb_runner_wait(dir, &res, &found, NULL, NULL) == 0);
	CHECK(!found);
	free(dir);
}
