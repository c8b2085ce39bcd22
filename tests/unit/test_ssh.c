#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
