#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "session_int.h"
#include "ssh.h"
#include "target.h"
#include "test.h"

/* Run a command line with the host's kind of shell; its output. */
static char *sh_output(const char *cmdline)
{
	struct kb_buf out = KB_BUF_INIT;
	char buf[4096];
	size_t n;
	FILE *p;
	char *quoted;
	struct kb_buf c = KB_BUF_INIT;

	kb_buf_adds(&c, "/bin/sh -c ");
	kb_buf_add_quoted(&c, cmdline, 0);
	quoted = kb_buf_detach(&c);
	p = popen(quoted, "r");
	free(quoted);
	if (!p)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		kb_buf_add(&out, buf, n);
	pclose(p);
	return kb_buf_detach(&out);
}

TEST(test_ssh__command_words_arrive_as_they_are)
{
	static const char *const odd[] = {
		"plain", "with space", "it's", "$(touch pwned)", "`touch pwned`", "a;b", "\"q\"",
		"back\\slash", "new\nline", "*", "", "--", "-e", NULL
	};
	char tmpl[] = "/tmp/kbisect-unit-ssh-XXXXXX";
	char *dir, *odddir, *cmd, *out, *pw;
	const char *argv[20];
	const char *env[] = { "KB_A=$(touch pwned) 'x'", "KB_B=", NULL };
	struct kb_buf want = KB_BUF_INIT;
	size_t i, n = 0;

	dir = mkdtemp(tmpl);
	CHECK(dir != NULL);
	if (!dir)
		return;
	odddir = kb_asprintf("%s/it's $(x) dir", dir);
	CHECK(mkdir(odddir, 0700) == 0);
	argv[n++] = "printf";
	argv[n++] = "[%s]\\n";
	for (i = 0; odd[i]; i++) {
		argv[n++] = odd[i];
		kb_buf_addf(&want, "[%s]\n", odd[i]);
	}
	argv[n] = NULL;
	cmd = kb_ssh_command(odddir, env, argv);
	out = sh_output(cmd);
	CHECK_MSG(out && !strcmp(out, want.ptr), "command: %s\noutput: %s", cmd, out);
	free(out);
	free(cmd);

	/* the environment arrives too, and the directory is the one named */
	{
		const char *argv2[] = { "sh", "-c", "printf '%s|%s|%s' \"$KB_A\" \"$KB_B\" \"$PWD\"", NULL };

		cmd = kb_ssh_command(odddir, env, argv2);
		out = sh_output(cmd);
		kb_buf_release(&want);
		kb_buf_addf(&want, "$(touch pwned) 'x'||%s", odddir);
		CHECK_MSG(out && !strcmp(out, want.ptr), "output: %s", out);
		free(out);
		free(cmd);
	}
	/* nothing was run: no file appeared */
	pw = kb_asprintf("%s/pwned", odddir);
	CHECK(access(pw, F_OK) != 0);
	free(pw);
	pw = kb_asprintf("rm -rf '%s'", dir);
	CHECK(system(pw) == 0);
	free(pw);
	free(odddir);
	kb_buf_release(&want);
}

TEST(test_ssh__program_with_equals_is_not_a_variable)
{
	const char *env[] = { "A=1", NULL };
	const char *argv[] = { "x=y", NULL };
	char *cmd = kb_ssh_command(NULL, env, argv);

	CHECK_MSG(strstr(cmd, "'A=1' ./'x=y'") != NULL, "%s", cmd);
	free(cmd);
}

TEST(test_ssh__which_hosts_are_this_machine)
{
	static const char *const here[] = { "localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]" };
	static const char *const there[] = { "lab1", "10.0.2.15", "localhost.example.org",
					     "127", "::2", "" };
	size_t i;

	for (i = 0; i < sizeof(here) / sizeof(here[0]); i++)
		CHECK_MSG(kb_host_is_here(here[i], strlen(here[i])), "%s", here[i]);
	for (i = 0; i < sizeof(there) / sizeof(there[0]); i++)
		CHECK_MSG(!kb_host_is_here(there[i], strlen(there[i])), "%s", there[i]);
	CHECK(kb_uri_host_is_here("qemu+ssh://root@127.0.0.1:2222/system?keyfile=/k"));
	CHECK(kb_uri_host_is_here("qemu+ssh://localhost/system"));
	CHECK(kb_uri_host_is_here("qemu+ssh://[::1]:22/system"));
	CHECK(!kb_uri_host_is_here("qemu+ssh://me@lab1.example.org/system"));
	CHECK(!kb_uri_host_is_here("qemu+tcp://10.0.0.7:16509/system"));
	/* an '@' after the host is not a user's */
	CHECK(!kb_uri_host_is_here("qemu+ssh://lab1/system?keyfile=/k@127.0.0.1"));
	/* a name cut from a longer text: only its length counts */
	CHECK(kb_host_is_here("localhost:22/system", 9));
	CHECK(!kb_host_is_here("localhostx", 10));
}

TEST(test_ssh__a_test_on_another_machine_leaves_this_one_to_builds)
{
	struct kb_session *s = kb_calloc(1, sizeof(*s));
	struct kb_target t = { 0 };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	s->spec.build = "kernel";
	s->spec.build_ahead = 'a';
	t.ops = &kb_target_ssh;
	/* on this machine, a guest's two vCPUs come first */
	CHECK(kb_session_ahead_jobs(s, &t) == (cores - 2 >= 2 ? cores - 2 : 0));
	t.flags |= KB_TARGET_REMOTE;
	CHECK_MSG(kb_session_ahead_jobs(s, &t) == (cores >= 2 ? cores : 0), "%d",
		  kb_session_ahead_jobs(s, &t));
	s->spec.build_ahead = 'n';
	CHECK(kb_session_ahead_jobs(s, &t) == 0);
	free(s);
}

/* Run 'argv' to completion; its exit status, -1 when it did not exit. */
static int run_words(const char *const *argv)
{
	struct kb_run_spec spec = { .argv = argv, .timeout = 60 };
	struct kb_run_result res;

	if (kb_run_simple(&spec, NULL, &res) < 0 || res.outcome != KB_RUN_EXITED)
		return -1;
	return res.exit_status;
}

/* An OpenSSH server on a loopback port, its files in 'dir': the port, or
 * 0 where one cannot run here (it wants root and /usr/sbin/sshd). */
static int start_sshd(const char *dir)
{
	char *hk = kb_asprintf("%s/host_key", dir), *id = kb_asprintf("%s/id", dir);
	char *conf = kb_asprintf("%s/sshd_config", dir), *log = kb_asprintf("%s/sshd.log", dir);
	const char *const keygen1[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hk,
					NULL };
	const char *const keygen2[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", id,
					NULL };
	/* A command's whole process group is killed when it ends, and the
	 * server's daemon child is in it until it makes a session of its own:
	 * started in a session of its own from the first, it is out of reach. */
	const char *const sshd[] = { "setsid", "-w", "/usr/sbin/sshd", "-f", conf, "-E", log,
				     NULL };
	int port = 0;

	if (geteuid() != 0 || access("/usr/sbin/sshd", X_OK) != 0 ||
	    run_words(keygen1) != 0 || run_words(keygen2) != 0)
		goto out;
	{
		char *pub = kb_asprintf("%s/id.pub", dir), *auth = kb_asprintf("%s/authorized_keys", dir);
		const char *const cp[] = { "cp", pub, auth, NULL };
		int ok = run_words(cp) == 0;

		free(pub);
		free(auth);
		if (!ok)
			goto out;
	}
	mkdir("/run/sshd", 0755);
	for (int p = 21000 + getpid() % 19000, n = 0; n < 20; n++, p++) {
		FILE *f = fopen(conf, "w");

		if (!f)
			goto out;
		fprintf(f, "Port %d\nListenAddress 127.0.0.1\nHostKey %s\nPidFile %s/sshd.pid\n"
			"AuthorizedKeysFile %s/authorized_keys\nPasswordAuthentication no\n"
			"KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
			"StrictModes no\nUsePAM no\n", p, hk, dir, dir);
		fclose(f);
		if (run_words(sshd) == 0) {
			port = p;
			break;
		}
	}
out:
	free(hk);
	free(id);
	free(conf);
	free(log);
	return port;
}

/* The pid in file 'dir'/'name', or 0. */
static pid_t pid_in(const char *dir, const char *name)
{
	char *path = kb_asprintf("%s/%s", dir, name);
	struct kb_buf b = KB_BUF_INIT;
	long pid = kb_read_file(path, &b, 64) < 0 ? 0 : atol(b.ptr);

	kb_error_clear();
	kb_buf_release(&b);
	free(path);
	return (pid_t)pid;
}

/*
 * A host that stops answering in the middle of a command (a kexec, a
 * machine that hangs): the command's channel is never closed by the other
 * end, and a session freed with it still open was kept, with its
 * channels.  Closing such a connection frees all of it (a real sshd whose
 * session process is stopped; under the leak checker, nothing is left).
 */
TEST(test_ssh__a_host_that_stops_answering_is_let_go_of_whole)
{
	const char *dir = kb_test_dir();
	struct kb_ssh_opts o = { 0 };
	struct kb_ssh *s = NULL;
	struct kb_buf out = KB_BUF_INIT;
	char *id = kb_asprintf("%s/id", dir), *kh = kb_asprintf("%s/known_hosts", dir);
	char *cmd, *why, *stopped_file = kb_asprintf("%s/stopped", dir);
	const char *const argv[] = { "sh", "-c", "echo $$ >\"$1.cmd\"; echo $PPID >\"$1\"; "
				     "kill -STOP $PPID; exec sleep 30",
				     "sh", stopped_file, NULL };
	int port = start_sshd(dir), r, st = -1;
	pid_t stopped, sleeper, listener;

	if (!port) {
		free(id);
		free(kh);
		free(stopped_file);
		SKIP("no sshd that can run here (root and /usr/sbin/sshd)");
	}
	o.host = "127.0.0.1";
	o.port = port;
	o.user = "root";
	o.key_file = id;
	o.known_hosts = kh;
	o.accept_new_host_key = 1;
	o.timeout = 5;
	/* the server listens a moment after it is started */
	for (int i = 0; (r = kb_ssh_connect(&s, &o)) < 0 && i < 100; i++) {
		kb_error_clear();
		usleep(100000);
	}
	cmd = kb_ssh_command(NULL, NULL, argv);
	if (r == 0)
		r = kb_ssh_run(s, cmd, 3, &out, NULL, 4096, &st);
	why = kb_strdup(kb_error_last());	/* pid_in() clears it */
	stopped = pid_in(dir, "stopped");
	kb_ssh_close(s);
	if (stopped > 0)
		kill(stopped, SIGKILL);
	if ((sleeper = pid_in(dir, "stopped.cmd")) > 0)
		kill(sleeper, SIGKILL);
	if ((listener = pid_in(dir, "sshd.pid")) > 0)
		kill(listener, SIGTERM);
	free(cmd);
	free(id);
	free(kh);
	free(stopped_file);
	kb_buf_release(&out);
	CHECK_MSG(r == 1, "the command ended with %d (%s), not at its timeout", r, why);
	CHECK(stopped > 0);
	free(why);
#ifdef __SANITIZE_ADDRESS__
	CHECK_MSG(!__lsan_do_recoverable_leak_check(), "the connection was not freed");
#endif
}
