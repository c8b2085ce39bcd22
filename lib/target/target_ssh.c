/*
 * The ssh target: a real machine, reached over SSH, that boots each
 * kernel under test and runs the benchmark.
 *
 * Each boot uploads the built bzImage (SFTP) into a directory of its own
 * under the host's work directory (the directories of earlier boots go),
 * and the kernel's modules, when its config has them, into modules_dir
 * (/lib/modules), then switches the host to it - kexec by
 * default ("kexec -l IMAGE --reuse-cmdline", then "kexec -e"), or a
 * command of the machine file (e.g. grub-reboot and reboot) - and waits
 * for the host to go away and come back: it is back when it answers over
 * SSH with another boot id (/proc/sys/kernel/random/boot_id) than before.
 * Then it must run the kernel built for the commit (uname -r ends in
 * -kb<commit>); the benchmark's setup and runs are commands over SSH, with
 * every word quoted, in that directory.
 *
 * A host that does not come back within boot_timeout is power-cycled with
 * the machine's power_cycle command (run on this machine), and waited for
 * again (power_cycle_timeout: a cold boot takes longer than a kexec),
 * power_cycle_tries times.  A host that comes back from that on
 * another kernel is switched once more: a kernel that fails twice is the
 * kernel's fault (a skip, or bad with --boot-failure bad).  A host that
 * never comes back is down: the session stops with KB_EINFRA and nothing
 * is marked.
 *
 * A connection that drops in the middle of a run is not yet the kernel's
 * fault: kbisect connects again, and when the host answers on the same
 * boot (its boot id unchanged), the run runs again, RUN_DROPS times at
 * most; a host that keeps dropping the connection is down.  A host that
 * booted meanwhile, or does not answer, lost the run with its kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "machine.h"
#include "ssh.h"
#include "target.h"
#include "util.h"

#define RUN_TIMEOUT_DEFAULT 3600.0
#define RECONNECT_PAUSE 2
#define OUTPUT_MAX (4u << 20)
#define RUN_DROPS 2
#define DROP_WAIT 30.0

struct ssh_target {
	struct kb_target base;
	struct kb_ssh_opts opts;
	char *host, *user, *key_file, *known_hosts;
	char *workdir, *prefix, *power_cycle_log;
	char *switch_how;          /* "kexec" or "command" */
	char *kexec_cmdline;       /* NULL: --reuse-cmdline */
	char **boot_command;       /* argv run on the host, "command" */
	char **power_cycle;        /* argv run here, or NULL */
	char *scratch_dev, *scratch_dir;
	char *modules_dir;         /* where the host's modules are: /lib/modules */
	int power_cycle_tries;
	double boot_timeout;       /* after a switch */
	double cycle_timeout;      /* after a power cycle: a cold boot */

	struct kb_ssh *conn;
	/* the boot in progress */
	char *name, *dir;          /* "<session>-<commit>-b<boot>", its directory */
	char **env;                /* the job's environment, NULL-terminated */
	char **argv;
	char *booted_id;           /* the host's boot id on this boot */
	int runs, next_run;
	double timeout;
};

static void strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static char **strv_dup(const char *const *v)
{
	size_t n = 0, i;
	char **out;

	while (v && v[n])
		n++;
	out = kb_calloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = kb_strdup(v[i]);
	return out;
}

static char **json_strv(json_t *a)
{
	size_t i, n = json_is_array(a) ? json_array_size(a) : 0;
	char **out;

	if (!n)
		return NULL;
	out = kb_calloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = kb_strdup(json_string_value(json_array_get(a, i)) ?
				   json_string_value(json_array_get(a, i)) : "");
	return out;
}

static char *json_str(json_t *m, const char *key, const char *def)
{
	json_t *v = m ? json_object_get(m, key) : NULL;

	return json_is_string(v) ? kb_strdup(json_string_value(v)) : def ? kb_strdup(def) : NULL;
}

/* "ssh://[user@]host[:port]" */
static int parse_spec(struct ssh_target *t, const char *spec)
{
	const char *p = spec + 6, *at = strchr(p, '@'), *h, *colon, *end;

	if (strncmp(spec, "ssh://", 6) || !*p)
		return kb_error(KB_EINVAL, "bad ssh target '%s': ssh://[user@]host[:port]", spec);
	end = p + strcspn(p, "/");
	if (*end && end[1])
		return kb_error(KB_EINVAL, "bad ssh target '%s': ssh://[user@]host[:port], "
				"no path", spec);
	if (at && at < end) {
		t->user = kb_strndup(p, (size_t)(at - p));
		h = at + 1;
	} else {
		h = p;
	}
	if (*h == '[') {
		const char *close = strchr(h, ']');

		if (!close || close > end)
			return kb_error(KB_EINVAL, "bad ssh target '%s': unclosed [", spec);
		t->host = kb_strndup(h + 1, (size_t)(close - h - 1));
		colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
		t->host = kb_strndup(h, (size_t)((colon ? colon : end) - h));
	}
	if (!*t->host)
		return kb_error(KB_EINVAL, "bad ssh target '%s': no host", spec);
	t->opts.port = 22;
	if (colon) {
		char *e;
		long port = strtol(colon + 1, &e, 10);

		if (e != end || port < 1 || port > 65535)
			return kb_error(KB_EINVAL, "bad ssh target '%s': bad port", spec);
		t->opts.port = (int)port;
	}
	return 0;
}

static void ssh_close(struct kb_target *base);

static int ssh_open(struct kb_target **out, const char *spec, const struct kb_target_env *env,
		    json_t *m)
{
	struct ssh_target *t = kb_calloc(1, sizeof(*t));
	int ret;

	kb_target_init(&t->base, &kb_target_ssh, spec, env);
	if ((ret = parse_spec(t, spec)) < 0)
		goto fail;
	t->key_file = json_str(m, "key_file", NULL);
	t->known_hosts = json_str(m, "known_hosts", NULL);
	t->workdir = json_str(m, "workdir", "/var/tmp/kbisect");
	t->switch_how = json_str(m, "switch", "kexec");
	t->kexec_cmdline = json_str(m, "kexec_cmdline", NULL);
	t->boot_command = json_strv(m ? json_object_get(m, "boot_command") : NULL);
	t->power_cycle = json_strv(m ? json_object_get(m, "power_cycle") : NULL);
	t->scratch_dev = json_str(m, "scratch_dev", NULL);
	t->scratch_dir = json_str(m, "scratch_dir", NULL);
	t->modules_dir = json_str(m, "modules_dir", "/lib/modules");
	t->power_cycle_tries = (int)kb_machine_int(m, "power_cycle_tries", 2);
	t->boot_timeout = (double)kb_machine_int(m, "boot_timeout", 300);
	t->cycle_timeout = (double)kb_machine_int(m, "power_cycle_timeout",
						  (long)t->boot_timeout);
	if (strcmp(t->switch_how, "kexec") && strcmp(t->switch_how, "command")) {
		ret = kb_error(KB_EINVAL, "bad machine description: switch is \"kexec\" or "
			       "\"command\", not \"%s\"", t->switch_how);
		goto fail;
	}
	if (!strcmp(t->switch_how, "command") && !t->boot_command) {
		ret = kb_error(KB_EINVAL, "bad machine description: switch \"command\" needs "
			       "a boot_command");
		goto fail;
	}
	if (t->workdir[0] != '/' || t->modules_dir[0] != '/') {
		ret = kb_error(KB_EINVAL, "bad machine description: %s must be an "
			       "absolute path on the host",
			       t->workdir[0] != '/' ? "workdir" : "modules_dir");
		goto fail;
	}
	if (t->boot_timeout < 5 || t->cycle_timeout < 5 || t->power_cycle_tries < 0) {
		ret = kb_error(KB_EINVAL, "bad machine description: boot_timeout >= 5, "
			       "power_cycle_timeout >= 5, power_cycle_tries >= 0");
		goto fail;
	}
	if (!kb_host_is_here(t->host, strlen(t->host)))
		t->base.flags |= KB_TARGET_REMOTE;
	t->prefix = kb_asprintf("%s-", env->session_name);
	t->power_cycle_log = kb_strdup(env->paths->power_cycle_log);
	t->opts.host = t->host;
	t->opts.user = t->user;
	t->opts.key_file = t->key_file;
	t->opts.known_hosts = t->known_hosts;
	t->opts.accept_new_host_key = env->accept_new_host_key;
	t->opts.timeout = 20;
	/* the host must be there, its key known, the login work: say so now */
	if ((ret = kb_ssh_connect(&t->conn, &t->opts)) < 0) {
		if (kb_error_code() == KB_EINFRA && !strstr(kb_error_last(), "HOST KEY") &&
		    !strstr(kb_error_last(), "host key is not known") && t->power_cycle)
			/* maybe hung by a kernel of an earlier session: boot brings it back */
			kb_error_clear();
		else
			goto fail;
		ret = 0;
	}
	/* accepted once is enough: a later reconnect checks against the file */
	t->opts.accept_new_host_key = 0;
	*out = &t->base;
	return 0;
fail:
	{
		int code = kb_error_code();
		char *msg = kb_strdup(kb_error_last());

		ssh_close(&t->base);
		kb_error(code, "%s", msg);
		free(msg);
	}
	return ret;
}

static void end_boot(struct ssh_target *t)
{
	free(t->name);
	free(t->dir);
	strv_free(t->env);
	strv_free(t->argv);
	free(t->booted_id);
	t->booted_id = NULL;
	t->name = t->dir = NULL;
	t->env = t->argv = NULL;
	t->runs = t->next_run = 0;
}

static void ssh_close(struct kb_target *base)
{
	struct ssh_target *t = (struct ssh_target *)base;

	end_boot(t);
	kb_ssh_close(t->conn);
	free(t->host);
	free(t->user);
	free(t->key_file);
	free(t->known_hosts);
	free(t->workdir);
	free(t->prefix);
	free(t->power_cycle_log);
	free(t->switch_how);
	free(t->kexec_cmdline);
	strv_free(t->boot_command);
	strv_free(t->power_cycle);
	free(t->scratch_dev);
	free(t->scratch_dir);
	free(t->modules_dir);
	free(base->spec);
	free(t);
}

/* Run argv on the host; its output in 'out' (may be NULL), its errors in
 * 'err' (NULL: in 'out').  0 with *status, 1 on a timeout, <0 when the
 * connection failed. */
static int host_run2(struct ssh_target *t, const char *dir, const char *const *env,
		     const char *const *argv, double timeout, struct kb_buf *out,
		     struct kb_buf *err, int *status)
{
	char *cmd = kb_ssh_command(dir, env, argv);
	int ret;

	ret = kb_ssh_run(t->conn, cmd, timeout, out, err, OUTPUT_MAX, status);
	free(cmd);
	return ret;
}

static int host_run(struct ssh_target *t, const char *dir, const char *const *env,
		    const char *const *argv, double timeout, struct kb_buf *out, int *status)
{
	return host_run2(t, dir, env, argv, timeout, out, NULL, status);
}

/* The text a short command prints, its last newline cut; NULL on failure. */
static char *host_text(struct ssh_target *t, const char *const *argv)
{
	struct kb_buf out = KB_BUF_INIT, err = KB_BUF_INIT;
	/* what the shell's start-up files print goes to stderr: not taken */
	int st, ret = host_run2(t, NULL, NULL, argv, 60, &out, &err, &st);

	if (ret != 0 || st != 0) {
		if (ret == 0 || ret == 1)
			kb_error(KB_EINFRA, "%s: '%s' failed on the host (exit %d): %.300s",
				 kb_ssh_name(t->conn), argv[0], st, err.ptr);
		kb_buf_release(&out);
		kb_buf_release(&err);
		return NULL;
	}
	kb_buf_release(&err);
	while (out.len && (out.ptr[out.len - 1] == '\n' || out.ptr[out.len - 1] == '\r'))
		out.ptr[--out.len] = '\0';
	return kb_buf_detach(&out);
}

static char *boot_id(struct ssh_target *t)
{
	static const char *const argv[] = { "cat", "/proc/sys/kernel/random/boot_id", NULL };

	return host_text(t, argv);
}

static void disconnect(struct ssh_target *t)
{
	kb_ssh_close(t->conn);
	t->conn = NULL;
}

/*
 * Wait up to 'seconds' for the host to answer with a boot id other than
 * 'old' (NULL: any).  1 when it is back (connected), 0 when not.  A host
 * key that does not match is an error (<0) at once.
 */
static int wait_back(struct ssh_target *t, const char *old, double seconds)
{
	double until = kb_now() + seconds;

	disconnect(t);
	while (kb_now() < until) {
		struct kb_ssh_opts o = t->opts;
		double left = until - kb_now();

		o.timeout = left < 10 ? (left < 1 ? 1 : left) : 10;
		if (kb_ssh_connect(&t->conn, &o) == 0) {
			char *id = boot_id(t);

			if (id && (!old || strcmp(id, old))) {
				free(id);
				return 1;
			}
			free(id);
			disconnect(t);
		} else if (strstr(kb_error_last(), "HOST KEY") ||
			   strstr(kb_error_last(), "host key is not known")) {
			return -1;
		}
		kb_error_clear();
		sleep(RECONNECT_PAUSE);
	}
	return 0;
}

/* Run the power-cycle command here.  <0 when there is none or it failed. */
static int power_cycle(struct ssh_target *t)
{
	struct kb_run_spec spec = { 0 };
	struct kb_run_result res;
	char *log = kb_strdup(t->power_cycle_log);
	int ret;

	if (!t->power_cycle) {
		free(log);
		return kb_error(KB_EINFRA, "%s does not answer, and its machine file has no "
				"power_cycle command to bring it back", t->host);
	}
	kb_target_say(&t->base, "power-cycling %s: %s", t->host, t->power_cycle[0]);
	spec.argv = (const char *const *)t->power_cycle;
	spec.timeout = 300;
	ret = kb_run_simple(&spec, log, &res);
	if (ret == 0 && (res.outcome != KB_RUN_EXITED || res.exit_status != 0))
		ret = kb_error(KB_EINFRA, "the power_cycle command of %s failed (see %s)",
			       t->host, log);
	free(log);
	return ret;
}

/*
 * Bring a host that does not answer back: power-cycle it and wait, up to
 * power_cycle_tries times.  1 when back, <0 when the host is down.
 */
static int recover(struct ssh_target *t, const char *why)
{
	int i, r;

	for (i = 1; i <= t->power_cycle_tries; i++) {
		if ((r = power_cycle(t)) < 0)
			return r;
		if ((r = wait_back(t, NULL, t->cycle_timeout)) != 0)
			return r;
	}
	return kb_error(KB_EINFRA, "host %s is down: %s, and it did not come back after "
			"%d power cycle(s) of %.0f s each.  Nothing is marked; bring the "
			"host back and run 'kbisect resume'", t->host, why, t->power_cycle_tries,
			t->cycle_timeout);
}

/* Connected to the host, or brought back with power cycles. */
static int ensure_host(struct ssh_target *t)
{
	char *id;
	int r;

	if (t->conn && (id = boot_id(t))) {
		free(id);
		return 0;
	}
	kb_error_clear();
	if ((r = wait_back(t, NULL, 20)) != 0)
		return r < 0 ? r : 0;
	r = recover(t, "it does not answer over SSH");
	return r < 0 ? r : 0;
}

/* Switch the running host to the kernel at 'image' (on the host). */
static int switch_kernel(struct ssh_target *t, const char *image, const char *release)
{
	struct kb_buf out = KB_BUF_INIT;
	int st, ret;

	if (!strcmp(t->switch_how, "kexec")) {
		const char *argv[6];
		char *cl = NULL;
		int n = 0;

		argv[n++] = "kexec";
		argv[n++] = "-l";
		argv[n++] = image;
		if (t->kexec_cmdline)
			argv[n++] = cl = kb_asprintf("--command-line=%s", t->kexec_cmdline);
		else
			argv[n++] = "--reuse-cmdline";
		argv[n] = NULL;
		ret = host_run(t, NULL, NULL, argv, 120, &out, &st);
		free(cl);
		if (ret == 0 && st != 0)
			ret = kb_error(KB_EINFRA, "%s: kexec -l failed on the host (exit %d): "
				       "%.400s (is kexec-tools installed, and does the running "
				       "kernel have CONFIG_KEXEC?)", kb_ssh_name(t->conn), st, out.ptr);
		else if (ret == 1)
			ret = kb_error(KB_EINFRA, "%s: kexec -l did not finish in 120 s",
				       kb_ssh_name(t->conn));
		if (ret < 0)
			goto out;
		/* a fixed command line: nothing of it comes from data */
		kb_ssh_run(t->conn, "nohup sh -c 'sleep 1; sync; kexec -e' >/dev/null 2>&1 "
			   "</dev/null &", 30, NULL, NULL, 0, &st);
		kb_error_clear();
	} else {
		char *e1 = kb_asprintf("KBISECT_KERNEL_IMAGE=%s", image);
		char *e2 = kb_asprintf("KBISECT_KERNEL_RELEASE=%s", release);
		const char *env[] = { e1, e2, NULL };

		/* the connection may end with the host: the status may not come */
		ret = host_run(t, NULL, env, (const char *const *)t->boot_command, 300, &out, &st);
		if (ret == 0 && st != 0)
			ret = kb_error(KB_EINFRA, "%s: the boot_command failed on the host "
				       "(exit %d): %.400s", kb_ssh_name(t->conn), st, out.ptr);
		else
			ret = 0;
		kb_error_clear();
		free(e1);
		free(e2);
	}
out:
	kb_buf_release(&out);
	return ret;
}

/*
 * One try at booting 'image': 0 when the host came back on 'release', 1
 * when it did not come back in time or came back on another kernel (it
 * was brought back by power cycles: connected), <0 for a harness error.
 */
static int try_boot(struct ssh_target *t, const char *image, const char *release,
		    double *seconds, char *why, size_t whylen)
{
	char *old = boot_id(t), *now;
	double started;
	int r;

	if (!old)
		return -1;
	if ((r = switch_kernel(t, image, release)) < 0) {
		free(old);
		return r;
	}
	started = kb_now();
	r = wait_back(t, old, t->boot_timeout);
	free(old);
	*seconds = kb_now() - started;
	if (r < 0)
		return r;
	if (r == 0) {
		snprintf(why, whylen, "the host did not come back in %.0f s after the "
			 "switch to %s", t->boot_timeout, release);
		if ((r = recover(t, why)) < 0)
			return r;
		return 1;
	}
	{
		static const char *const argv[] = { "uname", "-r", NULL };

		now = host_text(t, argv);
	}
	if (!now)
		return -1;
	if (strcmp(now, release)) {
		snprintf(why, whylen, "the host came back running %s, not %s", now, release);
		free(now);
		return 1;
	}
	free(now);
	return 0;
}

/* The job's environment, with what the host adds. */
static char **job_env(struct ssh_target *t, const struct kb_boot_job *job)
{
	struct kb_strv v = KB_STRV_INIT;
	size_t i;
	char **out;

	for (i = 0; job->env && job->env[i]; i++)
		kb_strv_push(&v, job->env[i]);
	kb_strv_pushf(&v, "KBISECT_RUNS=%d", job->runs);
	if (t->scratch_dir)
		kb_strv_pushf(&v, "KBISECT_SCRATCH=%s", t->scratch_dir);
	else
		kb_strv_pushf(&v, "KBISECT_SCRATCH=%s/scratch", t->dir);
	if (t->scratch_dev)
		kb_strv_pushf(&v, "KBISECT_SCRATCH_DEV=%s", t->scratch_dev);
	kb_strv_pushf(&v, "KBISECT_HOST_DIR=%s", t->dir);
	out = strv_dup((const char *const *)v.v);
	kb_strv_clear(&v);
	return out;
}

/* The boot's directory on the host, and its scratch directory. */
static int make_dirs(struct ssh_target *t)
{
	char *scratch = kb_asprintf("%s/scratch", t->dir);
	const char *argv[] = { "mkdir", "-p", t->dir, scratch, NULL };
	struct kb_buf out = KB_BUF_INIT;
	int st, ret;

	ret = host_run(t, NULL, NULL, argv, 60, &out, &st);
	if (ret == 0 && st != 0)
		ret = kb_error(KB_EINFRA, "%s: cannot make %s on the host: %.300s",
			       kb_ssh_name(t->conn), t->dir, out.ptr);
	else if (ret == 1)
		ret = kb_error(KB_EINFRA, "%s: mkdir did not finish in 60 s", kb_ssh_name(t->conn));
	kb_buf_release(&out);
	free(scratch);
	return ret;
}

/* The boot's directory and its kernel image. */
static int put_image(struct ssh_target *t, const char *image, const struct kb_buf *img)
{
	int ret = make_dirs(t);

	return ret < 0 ? ret : kb_ssh_upload(t->conn, image, img->ptr, img->len, 0644);
}

/*
 * The modules of the build (modules/lib/modules/RELEASE in its directory,
 * when its config has them) into modules_dir/RELEASE on the host, before
 * the switch: uploaded beside it and renamed when complete.  A file
 * .kbisect marks the trees kbisect installed: those of earlier kernels go,
 * except the running kernel's; the host's own are never touched.  The
 * scripts are fixed text: the paths are their arguments.
 */
static int put_modules(struct ssh_target *t, const char *kernel_dir, const char *release)
{
	static const char before[] =
		"mkdir -p -- \"$1\" && cd -- \"$1\" || exit 1\n"
		"for d in */; do\n"
		"\td=${d%/}\n"
		"\tif test -f \"$d/.kbisect\" && test \"$d\" != \"$(uname -r)\"; then\n"
		"\t\trm -rf -- \"$d\"\n"
		"\tfi\n"
		"done\n"
		"rm -rf -- \"$2.kbisect-new\"\n";
	static const char after[] =
		"cd -- \"$1\" && : >\"$2.kbisect-new/.kbisect\" && rm -rf -- \"$2\" && "
		"mv -- \"$2.kbisect-new\" \"$2\"\n";
	char *local = kb_asprintf("%s/modules/lib/modules/%s", kernel_dir, release);
	char *tmp = kb_asprintf("%s/%s.kbisect-new", t->modules_dir, release);
	struct kb_buf out = KB_BUF_INIT;
	struct kb_ssh_tree n;
	struct stat st;
	double start = kb_now();
	int ret = 0, status;

	if (stat(local, &st) < 0 || !S_ISDIR(st.st_mode))
		goto out;
	{
		const char *argv[] = { "sh", "-c", before, "sh", t->modules_dir, release, NULL };

		ret = host_run(t, NULL, NULL, argv, 300, &out, &status);
	}
	if (ret == 0 && status == 0 && (ret = kb_ssh_upload_tree(t->conn, local, tmp, &n)) == 0) {
		const char *argv[] = { "sh", "-c", after, "sh", t->modules_dir, release, NULL };

		kb_buf_release(&out);
		ret = host_run(t, NULL, NULL, argv, 300, &out, &status);
	}
	if (ret == 1 || (ret == 0 && status != 0))
		ret = kb_error(KB_EINFRA, "%s: cannot install the modules of %s in %s on the "
			       "host: %.300s", kb_ssh_name(t->conn), release, t->modules_dir,
			       ret == 1 ? "no answer in 300 s" : out.ptr);
	else if (ret == 0)
		kb_target_say(&t->base, "modules of %s installed in %s/%s: %u files, %zu KiB "
			      "in %.1f s", release, t->modules_dir, release, n.files,
			      n.bytes >> 10, kb_now() - start);
out:
	kb_buf_release(&out);
	free(local);
	free(tmp);
	return ret;
}

/* The directories of earlier boots of this session on the host. */
static void remove_boot_dirs(struct ssh_target *t)
{
	struct kb_buf cmd = KB_BUF_INIT;
	int st;

	kb_buf_adds(&cmd, "rm -rf -- ");
	kb_buf_add_quoted(&cmd, t->workdir, 0);
	kb_buf_addch(&cmd, '/');
	kb_buf_add_quoted(&cmd, t->prefix, 0);
	kb_buf_addch(&cmd, '*');
	if (kb_ssh_run(t->conn, cmd.ptr, 120, NULL, NULL, 0, &st) != 0)
		kb_error_clear();
	kb_buf_release(&cmd);
}

static int ssh_boot(struct kb_target *base, const struct kb_boot_job *job)
{
	struct ssh_target *t = (struct ssh_target *)base;
	struct kb_buf rel = KB_BUF_INIT, img = KB_BUF_INIT, out = KB_BUF_INIT;
	char *image = NULL, why[512] = "";
	double seconds = 0;
	int ret, attempt, n;

	end_boot(t);
	base->fault[0] = '\0';
	base->fault_setup = 0;
	if (!base->kernel_dir)
		return kb_error(KB_EINVAL, "the ssh target boots a kernel: use "
				"'--build kernel' in a kernel tree");
	if ((ret = kb_target_release(base->kernel_dir, &rel)) < 0)
		return ret;
	t->name = kb_asprintf("%s%.12s-b%d", t->prefix, job->sha, job->boot);
	t->dir = kb_asprintf("%s/%s", t->workdir, t->name);
	t->env = job_env(t, job);
	t->argv = strv_dup(job->argv);
	t->runs = job->runs;
	t->next_run = 1;
	t->timeout = job->timeout > 0 ? job->timeout : RUN_TIMEOUT_DEFAULT;
	image = kb_asprintf("%s/bzImage", t->dir);
	{
		char *p = kb_asprintf("%s/bzImage", base->kernel_dir);

		ret = kb_read_file(p, &img, 256 << 20);
		free(p);
		if (ret < 0)
			goto out;
	}
	if ((ret = ensure_host(t)) < 0)
		goto out;
	remove_boot_dirs(t);
	kb_target_say(&t->base, "uploading %s to %s:%s", rel.ptr, t->host, image);
	if ((ret = put_image(t, image, &img)) < 0 ||
	    (ret = put_modules(t, base->kernel_dir, rel.ptr)) < 0)
		goto out;
	for (attempt = 1; attempt <= 2; attempt++) {
		kb_target_say(&t->base, "switching %s to %s (%s)", t->host, rel.ptr,
			      t->switch_how);
		ret = try_boot(t, image, rel.ptr, &seconds, why, sizeof(why));
		if (ret <= 0)
			break;
		kb_target_say(&t->base, "%s%s", why,
			      attempt < 2 ? "; trying once more" : "");
		/* a power cycle may have taken the image with it (a tmpfs) */
		if (attempt < 2 && (ret = put_image(t, image, &img)) < 0)
			break;
	}
	if (ret < 0)
		goto out;
	if (ret > 0) {
		snprintf(base->fault, sizeof(base->fault), "the kernel failed at boot on %s: "
			 "%s, twice", t->host, why);
		goto out;
	}
	kb_target_say(&t->base, "%s is back on %s after %.1f s", t->host, rel.ptr, seconds);
	if (!(t->booted_id = boot_id(t)))
		kb_error_clear();
	/* the directory again: /var/tmp may not outlive a boot */
	if ((ret = make_dirs(t)) < 0)
		goto out;
	for (n = 1; job->setup && job->setup[n - 1]; n++) {
		const char *argv[] = { "sh", "-c", job->setup[n - 1], NULL };
		char *cmd = kb_ssh_command(t->dir, (const char *const *)t->env, argv);
		struct kb_output kept;
		int st;

		/* the end of what it printed, however much */
		kb_output_init(&kept, 0, 0);
		ret = kb_ssh_run_kept(t->conn, cmd, t->timeout, &kept, &st);
		free(cmd);
		kb_buf_release(&out);
		kb_output_last(&kept, 600, &out);
		kb_output_release(&kept);
		if (ret < 0) {
			snprintf(base->fault, sizeof(base->fault), "the host was lost during "
				 "the benchmark's setup: %s", kb_error_last());
			kb_error_clear();
			disconnect(t);
			ret = 1;
			goto out;
		}
		if (ret == 1 || st != 0) {
			const char *o = out.ptr;

			if (ret == 1)
				snprintf(base->fault, sizeof(base->fault), "setup command %d did "
					 "not finish in %.0f s on the host: %s", n, t->timeout, o);
			else
				snprintf(base->fault, sizeof(base->fault), "setup command %d failed "
					 "on the host (exit %d): %s", n, st, o);
			base->fault_setup = 1;
			ret = 1;
			goto out;
		}
	}
	ret = 0;
out:
	if (ret != 0)
		end_boot(t);
	free(image);
	kb_buf_release(&rel);
	kb_buf_release(&img);
	kb_buf_release(&out);
	return ret;
}

static int ssh_run_start(struct kb_target *base, const struct kb_run_spec *spec,
			 const char *rundir, pid_t *pid)
{
	struct ssh_target *t = (struct ssh_target *)base;

	*pid = 0;
	if (!t->name || t->next_run > t->runs)
		return kb_error(KB_ERROR, "no booted host has a run left to follow");
	if (spec->timeout > 0)
		t->timeout = spec->timeout;
	return kb_mkdir_p(rundir, 0700);
}

/* After a dropped connection: 1 when the host answers again within
 * 'seconds' on the boot it was on, else 0 (it booted since, or is away). */
static int same_boot(struct ssh_target *t, double seconds)
{
	char *id;
	int same;

	if (!t->booted_id || wait_back(t, NULL, seconds) != 1) {
		kb_error_clear();
		return 0;
	}
	id = boot_id(t);
	same = id && !strcmp(id, t->booted_id);
	free(id);
	kb_error_clear();
	return same;
}

static int ssh_run_wait(struct kb_target *base, const char *rundir,
			struct kb_run_result *res, int *found)
{
	struct ssh_target *t = (struct ssh_target *)base;
	struct kb_output out;
	struct kb_strv env = KB_STRV_INIT;
	char *path, *cmd;
	double start = kb_now();
	size_t i;
	int st = -1, ret, drops;

	memset(res, 0, sizeof(*res));
	*found = 1;
	if (!t->conn)
		return kb_error(KB_EINFRA, "no connection to %s", t->host);
	for (i = 0; t->env[i]; i++)
		kb_strv_push(&env, t->env[i]);
	kb_strv_pushf(&env, "KBISECT_RUN=%d", t->next_run);
	cmd = kb_ssh_command(t->dir, (const char *const *)env.v, (const char *const *)t->argv);
	kb_output_init(&out, 0, 0);
	for (drops = 0;; drops++) {
		char why[300];

		/* its head and its tail, however much it prints */
		ret = kb_ssh_run_kept(t->conn, cmd, t->timeout, &out, &st);
		if (ret >= 0)
			break;
		snprintf(why, sizeof(why), "%s", kb_error_last());
		kb_error_clear();
		kb_target_say(&t->base, "the connection to %s dropped in run %d (%s): "
			      "connecting again", t->host, t->next_run, why);
		if (!same_boot(t, DROP_WAIT)) {
			kb_error(KB_EINFRA, "%s", why);
			break;  /* lost with its kernel */
		}
		if (drops == RUN_DROPS) {
			ret = kb_error(KB_EINFRA, "host %s is down: it dropped the "
				       "connection in run %d %d times, though it kept "
				       "running.  Nothing is marked; check the network to "
				       "it, then 'kbisect resume'", t->host, t->next_run,
				       RUN_DROPS + 1);
			kb_strv_clear(&env);
			kb_output_release(&out);
			free(cmd);
			disconnect(t);
			end_boot(t);
			return ret;
		}
		kb_target_say(&t->base, "%s is still on the same boot: run %d runs again",
			      t->host, t->next_run);
		kb_output_release(&out);
		kb_output_init(&out, 0, 0);
		start = kb_now();
	}
	kb_strv_clear(&env);
	free(cmd);
	res->seconds = kb_now() - start;
	path = kb_asprintf("%s/output", rundir);
	if (kb_output_write(&out, path) < 0) {
		free(path);
		kb_output_release(&out);
		return -1;
	}
	free(path);
	kb_output_release(&out);
	if (ret < 0) {
		res->outcome = KB_RUN_CRASHED;
		snprintf(res->message, sizeof(res->message), "the host was lost in run %d: %s",
			 t->next_run, kb_error_last());
		kb_error_clear();
		disconnect(t);
		end_boot(t);
		return 0;
	}
	if (ret == 1) {
		res->outcome = KB_RUN_CRASHED;
		snprintf(res->message, sizeof(res->message), "run %d did not finish in %.0f s "
			 "on the host", t->next_run, t->timeout);
		/* the next boot starts with a host that may be stuck */
		disconnect(t);
		end_boot(t);
		return 0;
	}
	res->outcome = KB_RUN_EXITED;
	res->exit_status = st;
	if (++t->next_run > t->runs)
		end_boot(t);
	return 0;
}

/* What a crashed kbisect left on the host: the directories of its boots. */
static int ssh_cleanup(struct kb_target *base)
{
	struct ssh_target *t = (struct ssh_target *)base;

	if (t->conn)
		remove_boot_dirs(t);
	return 0;
}

static int ssh_describe(struct kb_target *base, struct kb_buf *out)
{
	struct ssh_target *t = (struct ssh_target *)base;
	static const char *const uname[] = { "uname", "-r", NULL };
	static const char *const kexec[] = { "sh", "-c", "command -v kexec || echo none", NULL };
	char *release, *k;

	/* the reason it does not answer, which open kept quiet about */
	if (!t->conn && kb_ssh_connect(&t->conn, &t->opts) < 0)
		return -1;
	if (!(release = host_text(t, uname)))
		return -1;
	k = host_text(t, kexec);
	kb_buf_addf(out, "host %s, user %s, host key known\nkernel %s\nkexec %s\n"
		    "switch %s, boot timeout %.0f s, power cycle %s (%.0f s)\n",
		    kb_ssh_name(t->conn), t->user ? t->user : "(login name)", release,
		    k ? k : "unknown", t->switch_how, t->boot_timeout,
		    t->power_cycle ? t->power_cycle[0] : "none", t->cycle_timeout);
	free(release);
	free(k);
	kb_error_clear();
	return 0;
}

const struct kb_target_ops kb_target_ssh = {
	.name = "ssh",
	.flags = KB_TARGET_GUEST,
	.keys = kb_target_ssh_keys,
	.open = ssh_open,
	.boot = ssh_boot,
	.run_start = ssh_run_start,
	.run_wait = ssh_run_wait,
	.cleanup = ssh_cleanup,
	.close = ssh_close,
	.describe = ssh_describe,
};
