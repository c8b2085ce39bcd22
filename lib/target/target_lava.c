/*
 * The lava target: each boot is a job of a LAVA lab, on a device of the
 * machine's device type that LAVA's scheduler picks.
 *
 * The boot's kernel goes into a directory of its own under the machine's
 * publish_dir, which a web server the lab's dispatchers reach serves at
 * publish_url (a root file system given as a path goes there once, and so
 * does the scratch disk of the QEMU template).  The job is the machine's
 * job template (a YAML file with {{name}} values, configs/lava/qemu.yaml
 * by default) with those URLs and the boot's test step filled in, each as
 * a quoted YAML string.  The step is guests/lava-job, with a function in
 * front of it that writes the files of the job (base64, so that no byte
 * of the job is YAML or shell syntax on the way), run by LAVA's test
 * shell in the booted kernel: the setup commands, then the runs, each a
 * test case of LAVA's ("run-N", its time as the measurement), and
 * everything kbisect reads back as lines of the console, which is the
 * job's log.
 *
 * kbisect submits the job through the REST API (api/v0.2) with the
 * token in a header of its own process, follows its state, and once it
 * has finished reads its test cases and its log: the log is kept beside
 * the session's other logs, and the console in it is where a panic is
 * found, as for a VM.  boot() waits for the whole job; the runs are then
 * handed out one by one.
 *
 * Faults: a job LAVA canceled or ended with an infrastructure error, and a
 * server that does not answer for server_timeout seconds, are errors of
 * the harness (KB_EINFRA): nothing is marked, and 'kbisect resume' submits
 * the boot again.  A kernel that starts and then panics, hangs or never
 * gives LAVA a shell is the kernel's fault (boot returns 1).  A crashed
 * kbisect's jobs still queued or running are canceled by cleanup.
 */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lava.h"
#include "machine.h"
#include "output.h"
#include "target.h"
#include "util.h"

#define RUN_TIMEOUT_DEFAULT 3600.0
#define POLL_SECONDS 2
#define TOKEN_MAX 4096

struct lava_target {
	struct kb_target base;
	char *server;              /* no trailing slash */
	char *device_type, *user, *token;
	char *template_path, *template_text;
	char *publish_dir, *publish_url;
	char *ramdisk;             /* a URL, or a path published once */
	char *scratch_dev;
	char *logs, *prefix, *guest_job;
	long scratch_mib, boot_timeout, server_timeout;

	/* the boot in progress, read back from its finished job */
	char *name, *dir;
	long job_id;
	char job_url[512];
	char device[128];
	char nonce[17];
	struct kb_lava_said said;
	struct kb_lava_case *cases;
	size_t ncases;
	char *console_kept;
	char crash[1024];          /* why runs that did not end ended */
	int infra_after;           /* a run that did not end is the lab's fault */
	int runs, next_run;
	double timeout;
};

/* ---- HTTP ------------------------------------------------------------- */

static size_t collect(char *p, size_t size, size_t n, void *ctx)
{
	kb_buf_add(ctx, p, size * n);
	return size * n;
}

static int curl_started;

/*
 * One request to the server: 'path' under /api/v0.2/ (or a whole URL),
 * 'body' JSON for a POST (NULL: a GET).  0 with *status and the answer in
 * 'out', or KB_EINFRA when the server did not answer.
 */
static int http(struct lava_target *t, const char *path, const char *body, long timeout,
		struct kb_buf *out, long *status)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *h = NULL;
	char *url = strstr(path, "://") ? kb_strdup(path) :
		    kb_asprintf("%s/api/v0.2/%s", t->server, path);
	char *auth = NULL;
	CURL *c;
	CURLcode rc;
	int ret = 0;

	kb_buf_reset(out);
	*status = 0;
	if (!curl_started) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
			free(url);
			return kb_error(KB_ERROR, "libcurl did not start");
		}
		curl_started = 1;
	}
	if (!(c = curl_easy_init())) {
		free(url);
		return kb_error(KB_ERROR, "libcurl did not start");
	}
	/* the token goes in a header of this process, never anywhere else */
	if (t->token) {
		auth = kb_asprintf("Authorization: Token %s", t->token);
		h = curl_slist_append(h, auth);
	}
	h = curl_slist_append(h, "Accept: application/json");
	if (body) {
		h = curl_slist_append(h, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "kbisect");
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK)
		ret = kb_error(KB_EINFRA, "the LAVA server at %s does not answer: %s", t->server,
			       errbuf[0] ? errbuf : curl_easy_strerror(rc));
	else
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	free(url);
	if (!out->ptr)
		kb_buf_adds(out, "");
	return ret;
}

/* What the server said, for a message: its "message" or "detail", or the
 * start of its text. */
static char *server_said(const struct kb_buf *b)
{
	json_t *o = json_loads(b->ptr, 0, NULL);
	const char *m = json_string_value(json_object_get(o, "message"));
	char *s;

	if (!m)
		m = json_string_value(json_object_get(o, "detail"));
	s = m ? kb_strdup(m) : kb_asprintf("%.300s", b->ptr);
	json_decref(o);
	s[strcspn(s, "\n")] = '\0';
	return s;
}

/* kb_error() with the last error's message in it: copied first, as
 * kb_error() writes where kb_error_last() points. */
static int error_with_last(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int error_with_last(int code, const char *fmt, ...)
{
	char *last = kb_strdup(kb_error_last()), *p;
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	/* "%L" in the text stands for the last error */
	while ((p = strstr(b.ptr, "%L"))) {
		struct kb_buf n = KB_BUF_INIT;

		kb_buf_add(&n, b.ptr, (size_t)(p - b.ptr));
		kb_buf_adds(&n, last);
		kb_buf_adds(&n, p + 2);
		kb_buf_release(&b);
		b = n;
	}
	ret = kb_error(code, "%s", b.ptr);
	kb_buf_release(&b);
	free(last);
	return ret;
}

/* A GET whose answer is JSON: *out, or an error (KB_EINFRA, or 'code'
 * for an answer other than 200, with what the server said). */
static int get_json(struct lava_target *t, const char *path, int code, json_t **out)
{
	struct kb_buf b = KB_BUF_INIT;
	json_error_t jerr;
	long st;
	int ret;

	*out = NULL;
	if ((ret = http(t, path, NULL, 60, &b, &st)) < 0)
		goto done;
	if (st != 200) {
		char *said = server_said(&b);

		ret = kb_error(code, "the LAVA server at %s answered %ld to %s: %s%s", t->server,
			       st, path, said, st == 401 || st == 403 ? " (is the token right?)" : "");
		free(said);
		goto done;
	}
	if (!(*out = json_loads(b.ptr, 0, &jerr)))
		ret = kb_error(KB_EINFRA, "the LAVA server at %s answered %s with something "
			       "other than JSON (is it a LAVA server?)", t->server, path);
done:
	kb_buf_release(&b);
	return ret;
}

/* ---- opening ---------------------------------------------------------- */

static char *json_str(json_t *m, const char *key, const char *def)
{
	json_t *v = m ? json_object_get(m, key) : NULL;

	return json_is_string(v) ? kb_strdup(json_string_value(v)) : def ? kb_strdup(def) : NULL;
}

static void lava_close(struct kb_target *base);

static void end_boot(struct lava_target *t)
{
	free(t->name);
	free(t->dir);
	free(t->console_kept);
	t->name = t->dir = t->console_kept = NULL;
	kb_lava_said_release(&t->said);
	free(t->cases);
	t->cases = NULL;
	t->ncases = 0;
	t->runs = t->next_run = 0;
	t->crash[0] = '\0';
	t->infra_after = 0;
}

/* The token: KBISECT_LAVA_TOKEN, else the machine's token_file, which
 * only its owner may read. */
static int read_token(struct lava_target *t, json_t *m)
{
	const char *env = getenv("KBISECT_LAVA_TOKEN");
	char *file;
	struct kb_buf b = KB_BUF_INIT;
	struct stat st;
	int fd, ret;

	if (env && *env) {
		t->token = kb_strdup(env);
		return 0;
	}
	if (!(file = json_str(m, "token_file", NULL)))
		return kb_error(KB_EINVAL, "the lava machine needs the API token of its user: "
				"set KBISECT_LAVA_TOKEN, or name a file that holds it in the "
				"machine file's \"token_file\" (mode 600)");
	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = kb_error_errno(KB_EINVAL, "cannot read the token file %s", file);
		free(file);
		return ret;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		ret = kb_error(KB_EINVAL, "the token file %s may be read by others (mode %03o): "
			       "'chmod 600 %s', and make a new token if others could read it",
			       file, (unsigned)(st.st_mode & 0777), file);
		close(fd);
		free(file);
		return ret;
	}
	ret = kb_read_fd(fd, &b, TOKEN_MAX, file);
	close(fd);
	if (ret == 0) {
		while (b.len && (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r' ||
				 b.ptr[b.len - 1] == ' '))
			b.ptr[--b.len] = '\0';
		if (!b.len || strpbrk(b.ptr, "\r\n \t"))
			ret = kb_error(KB_EINVAL, "the token file %s must hold the token alone, "
				       "on one line", file);
		else
			t->token = kb_buf_detach(&b);
	}
	if (b.ptr)
		memset(b.ptr, 0, b.alloc);
	kb_buf_release(&b);
	free(file);
	return ret;
}

/* The job template: an absolute path, or the name of one of kbisect's
 * (configs/lava/NAME.yaml beside guests/). */
static int find_template(struct lava_target *t, const char *name, const char *guest_init)
{
	char *top, *slash;

	if (name[0] == '/') {
		t->template_path = kb_strdup(name);
		return 0;
	}
	if (strchr(name, '/') || !guest_init)
		return kb_error(KB_EINVAL, "bad machine description: job_template is an "
				"absolute path, or the name of one of kbisect's templates "
				"(qemu), not '%s'", name);
	top = kb_strdup(guest_init);
	if ((slash = strrchr(top, '/')))
		*slash = '\0';
	if ((slash = strrchr(top, '/')))
		*slash = '\0';
	t->template_path = kb_asprintf("%s/configs/lava/%s.yaml", top, name);
	if (access(t->template_path, R_OK) < 0) {
		free(t->template_path);
		t->template_path = kb_asprintf("%s/lava/%s.yaml", top, name);
	}
	free(top);
	if (access(t->template_path, R_OK) < 0)
		return kb_error(KB_EINVAL, "no job template '%s' among kbisect's (%s)", name,
				t->template_path);
	return 0;
}

static int lava_open(struct kb_target **out, const char *spec, const struct kb_target_env *env,
		     json_t *m)
{
	struct lava_target *t = kb_calloc(1, sizeof(*t));
	char *tmpl;
	int ret = 0;

	kb_target_init(&t->base, &kb_target_lava, spec, env);
	if (strcmp(spec, "lava")) {
		ret = kb_error(KB_EINVAL, "bad lava target '%s': \"target\": \"lava\", with the "
			       "server in \"server\"", spec);
		goto fail;
	}
	t->server = json_str(m, "server", NULL);
	t->device_type = json_str(m, "device_type", NULL);
	t->user = json_str(m, "user", NULL);
	t->publish_dir = json_str(m, "publish_dir", NULL);
	t->publish_url = json_str(m, "publish_url", NULL);
	t->ramdisk = json_str(m, "ramdisk", NULL);
	t->scratch_dev = json_str(m, "scratch_dev", "/dev/vda");
	t->scratch_mib = kb_machine_int(m, "scratch_mib", 64);
	t->boot_timeout = kb_machine_int(m, "boot_timeout", 300);
	t->server_timeout = kb_machine_int(m, "server_timeout", 300);
	if (!t->server || !t->device_type || !t->publish_dir || !t->publish_url) {
		ret = kb_error(KB_EINVAL, "bad machine description: a lava machine needs "
			       "\"server\" (its URL), \"device_type\", \"publish_dir\" and "
			       "\"publish_url\" (a directory kbisect writes the kernels into, and "
			       "the URL a web server serves it at for the lab's dispatchers)");
		goto fail;
	}
	if (strncmp(t->server, "http://", 7) && strncmp(t->server, "https://", 8)) {
		ret = kb_error(KB_EINVAL, "bad machine description: server is an http:// or "
			       "https:// URL, not '%s'", t->server);
		goto fail;
	}
	while (strlen(t->server) > 8 && t->server[strlen(t->server) - 1] == '/')
		t->server[strlen(t->server) - 1] = '\0';
	while (strlen(t->publish_url) > 8 && t->publish_url[strlen(t->publish_url) - 1] == '/')
		t->publish_url[strlen(t->publish_url) - 1] = '\0';
	if (t->publish_dir[0] != '/') {
		ret = kb_error(KB_EINVAL, "bad machine description: publish_dir must be an "
			       "absolute path");
		goto fail;
	}
	if (t->boot_timeout < 5 || t->server_timeout < 5 || t->scratch_mib < 1) {
		ret = kb_error(KB_EINVAL, "bad machine description: boot_timeout >= 5, "
			       "server_timeout >= 5, scratch_mib >= 1");
		goto fail;
	}
	tmpl = json_str(m, "job_template", "qemu");
	ret = find_template(t, tmpl, env->guest_init);
	free(tmpl);
	if (ret < 0)
		goto fail;
	{
		struct kb_buf b = KB_BUF_INIT;

		if ((ret = kb_read_file(t->template_path, &b, 1 << 20)) < 0) {
			kb_buf_release(&b);
			goto fail;
		}
		t->template_text = kb_buf_detach(&b);
	}
	if (env->guest_init) {
		const char *slash = strrchr(env->guest_init, '/');

		if (slash)
			t->guest_job = kb_asprintf("%.*s/lava-job", (int)(slash - env->guest_init),
						   env->guest_init);
	}
	if (!t->guest_job || access(t->guest_job, R_OK) < 0) {
		ret = kb_error(KB_EINVAL, "the guest job of kbisect (guests/lava-job) is "
			       "missing: %s", t->guest_job ? t->guest_job : "no guests/");
		goto fail;
	}
	if ((ret = read_token(t, m)) < 0)
		goto fail;
	t->logs = kb_strdup(env->paths->logs);
	t->prefix = kb_asprintf("%s-", env->session_name);
	/* the lab's boards are not this machine's */
	t->base.flags |= KB_TARGET_REMOTE;
	*out = &t->base;
	return 0;
fail:
	{
		int code = kb_error_code();
		char *msg = kb_strdup(kb_error_last());

		lava_close(&t->base);
		kb_error(code, "%s", msg);
		free(msg);
	}
	return ret < 0 ? ret : -1;
}

static void lava_close(struct kb_target *base)
{
	struct lava_target *t = (struct lava_target *)base;

	end_boot(t);
	if (t->token) {
		memset(t->token, 0, strlen(t->token));
		free(t->token);
	}
	free(t->server);
	free(t->device_type);
	free(t->user);
	free(t->template_path);
	free(t->template_text);
	free(t->publish_dir);
	free(t->publish_url);
	free(t->ramdisk);
	free(t->scratch_dev);
	free(t->logs);
	free(t->prefix);
	free(t->guest_job);
	free(base->spec);
	free(t);
}

/* ---- the files of a boot ---------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	if ((ret = kb_read_file(from, &b, 0)) == 0)
		ret = kb_write_file_atomic(to, b.ptr, b.len, 0644);
	kb_buf_release(&b);
	return ret;
}

/* Is 'name' one of this target's boot names, "<prefix><12 hex>-b<N>"? */
static int is_boot_name(const struct lava_target *t, const char *name)
{
	size_t pl = strlen(t->prefix), i;
	const char *p;

	if (strncmp(name, t->prefix, pl))
		return 0;
	for (i = 0; i < 12; i++) {
		char c = name[pl + i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
	}
	p = name + pl + 12;
	if (strncmp(p, "-b", 2) || !p[2])
		return 0;
	for (p += 2; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* The directories of this target's earlier boots in publish_dir. */
static void remove_published(struct lava_target *t, const char *keep)
{
	struct kb_strv names = KB_STRV_INIT;
	struct dirent *d;
	DIR *dir = opendir(t->publish_dir);
	size_t i;

	if (!dir)
		return;
	while ((d = readdir(dir)))
		kb_strv_push(&names, d->d_name);
	closedir(dir);
	for (i = 0; i < names.n; i++) {
		if (!is_boot_name(t, names.v[i]) || (keep && !strcmp(names.v[i], keep)))
			continue;
		{
			char *p = kb_asprintf("%s/%s", t->publish_dir, names.v[i]);

			kb_remove_tree(p);
			free(p);
		}
	}
	kb_error_clear();
	kb_strv_clear(&names);
}

/* The root file system's URL: as given, or published once (named by the
 * file's size and time, so a new one is published again). */
static int ramdisk_url(struct lava_target *t, char **url)
{
	struct stat st;
	const char *base;
	char *name, *path;
	int ret = 0;

	*url = NULL;
	if (!t->ramdisk) {
		*url = kb_strdup("");
		return 0;
	}
	if (strstr(t->ramdisk, "://")) {
		*url = kb_strdup(t->ramdisk);
		return 0;
	}
	if (stat(t->ramdisk, &st) < 0)
		return kb_error_errno(KB_EINVAL, "the machine's ramdisk %s", t->ramdisk);
	base = strrchr(t->ramdisk, '/') ? strrchr(t->ramdisk, '/') + 1 : t->ramdisk;
	name = kb_asprintf("kbisect-rootfs-%llx-%llx-%s", (unsigned long long)st.st_size,
			   (unsigned long long)st.st_mtime, base);
	path = kb_asprintf("%s/%s", t->publish_dir, name);
	if (access(path, R_OK) < 0) {
		kb_target_say(&t->base, "publishing the root file system %s (%lld MiB) in %s",
			      t->ramdisk, (long long)(st.st_size >> 20), t->publish_dir);
		ret = copy_file(t->ramdisk, path);
	}
	if (ret == 0)
		*url = kb_asprintf("%s/%s", t->publish_url, name);
	free(name);
	free(path);
	return ret;
}

/* A sparse scratch disk of scratch_mib, published once. */
static int scratch_url(struct lava_target *t, char **url)
{
	char *name = kb_asprintf("kbisect-scratch-%ldM.img", t->scratch_mib);
	char *path = kb_asprintf("%s/%s", t->publish_dir, name);
	struct stat st;
	int ret = 0;

	*url = NULL;
	if (stat(path, &st) < 0 || st.st_size != (off_t)t->scratch_mib << 20) {
		char *tmp = kb_asprintf("%s.%d", path, (int)getpid());
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || ftruncate(fd, (off_t)t->scratch_mib << 20) < 0 ||
		    rename(tmp, path) < 0)
			ret = kb_error_errno(KB_EINFRA, "cannot make the scratch disk %s", path);
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		free(tmp);
	}
	if (ret == 0)
		*url = kb_asprintf("%s/%s", t->publish_url, name);
	free(name);
	free(path);
	return ret;
}

static void base64(struct kb_buf *out, const unsigned char *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];

		kb_buf_addch(out, tab[v >> 18 & 63]);
		kb_buf_addch(out, tab[v >> 12 & 63]);
		kb_buf_addch(out, tab[v >> 6 & 63]);
		kb_buf_addch(out, tab[v & 63]);
	}
	if (n - i == 1) {
		unsigned v = (unsigned)p[i] << 16;

		kb_buf_addch(out, tab[v >> 18 & 63]);
		kb_buf_addch(out, tab[v >> 12 & 63]);
		kb_buf_adds(out, "==");
	} else if (n - i == 2) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;

		kb_buf_addch(out, tab[v >> 18 & 63]);
		kb_buf_addch(out, tab[v >> 12 & 63]);
		kb_buf_addch(out, tab[v >> 6 & 63]);
		kb_buf_addch(out, '=');
	}
}

/* A name the guest's shell can export. */
static int env_name_ok(const char *s, const char *eq)
{
	const char *c;

	if (!eq || eq == s || (*s >= '0' && *s <= '9'))
		return 0;
	for (c = s; c < eq; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return 0;
	return 1;
}

/*
 * The test step: guests/lava-job with the function that writes the job's
 * files in front of it (every text single-quoted), as base64 that the
 * step decodes and runs.
 */
static int job_step(struct lava_target *t, const struct kb_boot_job *job, struct kb_buf *step)
{
	struct kb_buf s = KB_BUF_INIT, init = KB_BUF_INIT;
	size_t i;
	int ret;

	if ((ret = kb_read_file(t->guest_job, &init, 1 << 20)) < 0)
		return ret;
	kb_buf_adds(&s, "#!/bin/sh\n# the job of ");
	kb_buf_adds(&s, t->name);
	kb_buf_adds(&s, "\nkbisect_job() {\n\tmkdir -p \"$1/env\" || return\n");
#define FILE_LINE(NAME_FMT, NAME_ARG, TEXT) do { \
		kb_buf_adds(&s, "\tprintf %s "); \
		kb_buf_add_quoted(&s, (TEXT), 0); \
		kb_buf_addf(&s, " >\"$1/" NAME_FMT "\" || return\n", NAME_ARG); \
	} while (0)
	for (i = 0; job->env && job->env[i]; i++) {
		const char *eq = strchr(job->env[i], '=');
		char *name;

		if (!env_name_ok(job->env[i], eq))
			continue;
		name = kb_strndup(job->env[i], (size_t)(eq - job->env[i]));
		FILE_LINE("env/%s", name, eq + 1);
		free(name);
	}
	{
		char runs[16];

		snprintf(runs, sizeof(runs), "%d", job->runs);
		FILE_LINE("env/%s", "KBISECT_NONCE", t->nonce);
		FILE_LINE("env/%s", "KBISECT_RUNS", runs);
		FILE_LINE("env/%s", "KBISECT_SCRATCH", "/tmp/kbisect/scratch");
		FILE_LINE("env/%s", "KBISECT_SCRATCH_DEV", t->scratch_dev);
	}
	if (job->metric_path) {
		struct kb_buf mp = KB_BUF_INIT;

		if ((ret = kb_lava_json_path(job->metric_path, &mp)) == 0) {
			FILE_LINE("%s", "metric.path", mp.ptr);
			FILE_LINE("%s", "metric.unit", job->metric_unit ? job->metric_unit : "");
		}
		kb_buf_release(&mp);
		if (ret < 0) {
			kb_buf_release(&s);
			kb_buf_release(&init);
			return ret;
		}
	}
	for (i = 0; job->setup && job->setup[i]; i++)
		FILE_LINE("setup.%zu", i + 1, job->setup[i]);
	for (i = 0; job->argv && job->argv[i]; i++)
		FILE_LINE("argv.%zu", i, job->argv[i]);
#undef FILE_LINE
	kb_buf_adds(&s, "}\n");
	kb_buf_add(&s, init.ptr, init.len);
	kb_buf_adds(step, "echo ");
	base64(step, (const unsigned char *)s.ptr, s.len);
	kb_buf_adds(step, " | base64 -d >/tmp/kbisect-job.sh && sh /tmp/kbisect-job.sh");
	kb_buf_release(&s);
	kb_buf_release(&init);
	return 0;
}

static void make_nonce(char out[17])
{
	unsigned char r[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), i;

	if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
		unsigned long long x = (unsigned long long)time(NULL) ^
				       ((unsigned long long)getpid() << 32);

		memcpy(r, &x, sizeof(r));
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < 8; i++)
		sprintf(out + 2 * i, "%02x", r[i]);
}

/* The job of this boot, rendered: 'kernel', 'ramdisk' and 'scratch' are
 * URLs, 'step' the test step. */
static int render(struct lava_target *t, const struct kb_boot_job *job, const char *name,
		  const char *kernel, const char *ramdisk, const char *scratch,
		  const char *step, const char *release, struct kb_buf *out)
{
	long runs = job ? job->runs : 1, setups = 0, per = job && job->timeout > 0 ?
		    (long)job->timeout : (long)RUN_TIMEOUT_DEFAULT;
	long test;

	while (job && job->setup && job->setup[setups])
		setups++;
	test = (runs + setups) * per + 120;
	{
		struct kb_lava_var vars[] = {
			{ "device_type", t->device_type, 0 },
			{ "job_name", name, 0 },
			{ "kernel_url", kernel, 0 },
			{ "ramdisk_url", ramdisk, 0 },
			{ "scratch_url", scratch, 0 },
			{ "job_step", step, 0 },
			{ "release", release, 0 },
			{ "commit", job ? job->sha : "0000000000000000000000000000000000000000", 0 },
			{ "boot_timeout", NULL, t->boot_timeout },
			{ "test_timeout", NULL, test },
			{ "job_timeout", NULL, t->boot_timeout + test + 900 },
		};

		return kb_lava_render(t->template_text, t->template_path, vars,
				      sizeof(vars) / sizeof(vars[0]), out);
	}
}

/* ---- following a job -------------------------------------------------- */

static void report_job(struct lava_target *t, const struct kb_boot_job *job, const char *state)
{
	struct kb_lab_job j = { job->sha, job->boot, t->job_id, t->job_url, t->device, state };

	kb_target_lab_job(&t->base, &j);
}

/* Submit the job: its id in t->job_id. */
static int submit(struct lava_target *t, const char *yaml)
{
	json_t *req = json_pack("{s:s}", "definition", yaml), *ans, *ids;
	char *body = json_dumps(req, JSON_COMPACT);
	struct kb_buf b = KB_BUF_INIT;
	long st;
	int ret;

	json_decref(req);
	ret = http(t, "jobs/", body, 120, &b, &st);
	free(body);
	if (ret < 0)
		goto out;
	if (st != 201 && st != 200) {
		char *said = server_said(&b);

		ret = kb_error(st == 400 ? KB_EINVAL : KB_EINFRA, "the LAVA server at %s "
			       "refused the job (HTTP %ld): %s%s", t->server, st, said,
			       st == 401 || st == 403 ? " (is the token right, and may its user "
			       "submit jobs?)" : "");
		free(said);
		goto out;
	}
	ans = json_loads(b.ptr, 0, NULL);
	ids = json_object_get(ans, "job_ids");
	if (!json_is_integer(json_array_get(ids, 0))) {
		ret = kb_error(KB_EINFRA, "the LAVA server at %s took the job but gave no job "
			       "id: %.200s", t->server, b.ptr);
	} else {
		t->job_id = (long)json_integer_value(json_array_get(ids, 0));
		snprintf(t->job_url, sizeof(t->job_url), "%s/scheduler/job/%ld", t->server,
			 t->job_id);
	}
	json_decref(ans);
out:
	kb_buf_release(&b);
	return ret;
}

/*
 * Wait until the job has finished: its health ("Complete", "Incomplete",
 * "Canceled") in 'health', its failure comment in 'comment'.  KB_EINFRA
 * when the server does not answer for server_timeout seconds.
 */
static int wait_job(struct lava_target *t, char *health, size_t hlen, char *comment,
		    size_t clen)
{
	char path[64], last_state[32] = "";
	double answered = kb_now(), said_at = 0, started = kb_now();

	snprintf(path, sizeof(path), "jobs/%ld/", t->job_id);
	for (;;) {
		json_t *o;
		const char *state, *dev;

		if (get_json(t, path, KB_EINFRA, &o) < 0) {
			if (kb_now() - answered > (double)t->server_timeout)
				return error_with_last(KB_EINFRA, "%%L, for %ld s, in job %ld (%s): "
						       "nothing is marked; once the server "
						       "answers, 'kbisect resume' cancels that "
						       "job and submits the boot again",
						       t->server_timeout, t->job_id, t->job_url);
			kb_error_clear();
			sleep(POLL_SECONDS);
			continue;
		}
		answered = kb_now();
		state = json_string_value(json_object_get(o, "state"));
		dev = json_string_value(json_object_get(o, "actual_device"));
		if (dev && !t->device[0])
			snprintf(t->device, sizeof(t->device), "%s", dev);
		if (state && strcmp(state, last_state)) {
			if (!strcmp(state, "Running"))
				kb_target_say(&t->base, "job %ld runs on %s", t->job_id,
					      t->device[0] ? t->device : "a device");
			else if (strcmp(state, "Finished"))
				kb_target_say(&t->base, "job %ld: %s", t->job_id, state);
			snprintf(last_state, sizeof(last_state), "%s", state);
			said_at = kb_now();
		} else if (kb_now() - said_at >= 60) {
			kb_target_say(&t->base, "job %ld still %s after %.0f s", t->job_id,
				      state ? state : "?", kb_now() - started);
			said_at = kb_now();
		}
		if (state && !strcmp(state, "Finished")) {
			const char *h = json_string_value(json_object_get(o, "health"));
			const char *c = json_string_value(json_object_get(o, "failure_comment"));

			snprintf(health, hlen, "%s", h ? h : "Unknown");
			snprintf(comment, clen, "%s", c ? c : "");
			json_decref(o);
			return 0;
		}
		json_decref(o);
		sleep(POLL_SECONDS);
	}
}

/* Every page of a list of the API. */
static int get_all(struct lava_target *t, const char *path, json_t *into)
{
	char *next = kb_strdup(path);
	int ret = 0;

	while (next && ret == 0) {
		json_t *page, *res, *e;
		size_t i;

		ret = get_json(t, next, KB_EINFRA, &page);
		free(next);
		next = NULL;
		if (ret < 0)
			break;
		res = json_is_array(page) ? page : json_object_get(page, "results");
		json_array_foreach(res, i, e)
			json_array_append(into, e);
		if (json_is_string(json_object_get(page, "next")))
			next = kb_strdup(json_string_value(json_object_get(page, "next")));
		json_decref(page);
	}
	free(next);
	return ret;
}

/* The test cases of the finished job, each with its suite's name. */
static int read_cases(struct lava_target *t)
{
	json_t *suites = json_array(), *tests = json_array();
	char path[96];
	int ret;

	snprintf(path, sizeof(path), "jobs/%ld/suites/", t->job_id);
	if ((ret = get_all(t, path, suites)) < 0)
		goto out;
	snprintf(path, sizeof(path), "jobs/%ld/tests/", t->job_id);
	if ((ret = get_all(t, path, tests)) < 0)
		goto out;
	kb_lava_cases_name_suites(tests, suites);
	ret = kb_lava_cases_parse(tests, &t->cases, &t->ncases);
	if (ret < 0)
		ret = error_with_last(KB_EINFRA, "job %ld: %%L", t->job_id);
out:
	json_decref(suites);
	json_decref(tests);
	return ret;
}

/* The job's log: kept in the session's logs (the whole of it, and the
 * console alone), and the console in 'console'. */
static int read_log(struct lava_target *t, struct kb_buf *console)
{
	struct kb_buf b = KB_BUF_INIT;
	char path[64];
	char *p;
	long st;
	int ret;

	snprintf(path, sizeof(path), "jobs/%ld/logs/", t->job_id);
	if ((ret = http(t, path, NULL, 300, &b, &st)) < 0)
		goto out;
	if (st != 200 && st != 404) {
		char *said = server_said(&b);

		ret = kb_error(KB_EINFRA, "the LAVA server at %s answered %ld for the log of "
			       "job %ld: %s", t->server, st, t->job_id, said);
		free(said);
		goto out;
	}
	if (st == 404)
		kb_buf_reset(&b);
	kb_lava_log_console(b.ptr, b.len, console, NULL);
	if (kb_mkdir_p(t->logs, 0700) == 0) {
		p = kb_asprintf("%s/lava-job-%ld.yaml", t->logs, t->job_id);
		kb_write_file_atomic(p, b.ptr, b.len, 0644);
		free(p);
		kb_write_file_atomic(t->console_kept, console->ptr, console->len, 0644);
	}
	kb_error_clear();
out:
	kb_buf_release(&b);
	return ret;
}

/* LAVA's own word for what ended the job (the "lava" suite's "job"
 * case): "Infrastructure", "Job", "Test", "Bug", ... or "". */
static const char *error_type(const struct lava_target *t)
{
	const struct kb_lava_case *c = kb_lava_case_find(t->cases, t->ncases, "lava", "job");

	return c ? c->error_type : "";
}

static int lab_fault(const char *type)
{
	return !strcmp(type, "Infrastructure") || !strcmp(type, "Bug") ||
	       !strcmp(type, "Configuration") || !strcmp(type, "Canceled") ||
	       !strcmp(type, "ObjectNotPersisted");
}

static int lava_boot(struct kb_target *base, const struct kb_boot_job *job)
{
	struct lava_target *t = (struct lava_target *)base;
	struct kb_buf rel = KB_BUF_INIT, yaml = KB_BUF_INIT, step = KB_BUF_INIT,
		      console = KB_BUF_INIT;
	char *kernel_path = NULL, *kernel_url = NULL, *rd = NULL, *scratch = NULL, *why = NULL;
	char health[32] = "", comment[600] = "";
	const char *type;
	double started;
	int ret;

	end_boot(t);
	base->fault[0] = '\0';
	base->fault_setup = 0;
	t->device[0] = '\0';
	t->job_id = 0;
	t->job_url[0] = '\0';
	if (!base->kernel_dir)
		return kb_error(KB_EINVAL, "the lava target boots a kernel: use '--build kernel' "
				"in a kernel tree");
	if ((ret = kb_target_release(base->kernel_dir, &rel)) < 0)
		return ret;
	t->name = kb_asprintf("%s%.12s-b%d", t->prefix, job->sha, job->boot);
	t->dir = kb_asprintf("%s/%s", t->publish_dir, t->name);
	t->console_kept = kb_asprintf("%s/console-%s.log", t->logs, t->name);
	t->runs = job->runs;
	t->next_run = 1;
	t->timeout = job->timeout > 0 ? job->timeout : RUN_TIMEOUT_DEFAULT;
	make_nonce(t->nonce);
	/* the files the dispatcher downloads */
	remove_published(t, NULL);
	kernel_path = kb_asprintf("%s/bzImage", base->kernel_dir);
	{
		char *to = kb_asprintf("%s/bzImage", t->dir);

		if ((ret = kb_mkdir_p(t->dir, 0755)) == 0)
			ret = copy_file(kernel_path, to);
		free(to);
		if (ret < 0) {
			ret = error_with_last(KB_EINFRA, "cannot publish the kernel in %s: %%L",
					      t->dir);
			goto out;
		}
	}
	kernel_url = kb_asprintf("%s/%s/bzImage", t->publish_url, t->name);
	if ((ret = ramdisk_url(t, &rd)) < 0 || (ret = scratch_url(t, &scratch)) < 0 ||
	    (ret = job_step(t, job, &step)) < 0 ||
	    (ret = render(t, job, t->name, kernel_url, rd, scratch, step.ptr, rel.ptr,
			  &yaml)) < 0)
		goto out;
	if ((ret = submit(t, yaml.ptr)) < 0)
		goto out;
	kb_target_say(&t->base, "job %ld submitted for %s: %s", t->job_id, rel.ptr, t->job_url);
	report_job(t, job, "submitted");
	started = kb_now();
	if ((ret = wait_job(t, health, sizeof(health), comment, sizeof(comment))) < 0) {
		report_job(t, job, "lost");
		goto out;
	}
	if ((ret = read_cases(t)) < 0 || (ret = read_log(t, &console)) < 0) {
		report_job(t, job, "lost");
		goto out;
	}
	{
		char h[32];
		size_t i;

		for (i = 0; health[i] && i < sizeof(h) - 1; i++)
			h[i] = (char)(health[i] >= 'A' && health[i] <= 'Z' ? health[i] + 32 : health[i]);
		h[i] = '\0';
		report_job(t, job, h);
	}
	type = error_type(t);
	/* a complete job's comment is LAVA's notes (metadata it cut short) */
	if (!strcmp(health, "Complete"))
		comment[0] = '\0';
	kb_target_say(&t->base, "job %ld ended %s after %.0f s on %s%s%.300s%s", t->job_id,
		      health, kb_now() - started, t->device[0] ? t->device : "no device",
		      comment[0] ? " (" : "", comment, comment[0] ? ")" : "");
	if (!strcmp(health, "Canceled")) {
		ret = kb_error(KB_EINFRA, "job %ld (%s) was canceled: nothing is marked; "
			       "'kbisect resume' submits the boot again", t->job_id, t->job_url);
		goto out;
	}
	kb_lava_said_parse(console.ptr, t->nonce, job->runs, &t->said);
	why = kb_console_fault(console.ptr);
	if (!t->said.identity[0]) {
		/* the kernel did not run the job: did it start at all? */
		int started_kernel = strstr(console.ptr, "Linux version ") != NULL;

		if (why) {
			snprintf(base->fault, sizeof(base->fault), "the kernel failed at boot: %s "
				 "(LAVA job %ld, %s; console: %s)", why, t->job_id, t->job_url,
				 t->console_kept);
			ret = 1;
		} else if (started_kernel && !lab_fault(type)) {
			snprintf(base->fault, sizeof(base->fault), "the kernel started but gave "
				 "LAVA no shell to test in within %ld s (LAVA job %ld, %s: %s; "
				 "console: %s)", t->boot_timeout, t->job_id, t->job_url,
				 comment[0] ? comment : health, t->console_kept);
			ret = 1;
		} else if (started_kernel && !strcmp(type, "Infrastructure") &&
			   (strstr(comment, "timed out") || strstr(comment, "timeout"))) {
			/* LAVA calls a boot that never reaches the prompt an error of its
			 * own; the kernel printed, so it is the kernel that hung */
			snprintf(base->fault, sizeof(base->fault), "the kernel hung at boot: no "
				 "shell in %ld s (LAVA job %ld, %s: %s; console: %s)",
				 t->boot_timeout, t->job_id, t->job_url, comment, t->console_kept);
			ret = 1;
		} else {
			ret = kb_error(KB_EINFRA, "LAVA job %ld (%s) ended %s before the kernel "
				       "ran the test%s%s%s%s: nothing is marked; fix the lab, then "
				       "'kbisect resume'", t->job_id, t->job_url, health,
				       type[0] ? ", an error of type " : "", type,
				       comment[0] ? ": " : "", comment);
		}
		goto out;
	}
	if (strcmp(t->said.identity, rel.ptr)) {
		ret = kb_error(KB_EINFRA, "LAVA job %ld (%s) booted kernel %s, not the %s that was "
			       "built: the wrong kernel ran, nothing is marked", t->job_id,
			       t->job_url, t->said.identity, rel.ptr);
		goto out;
	}
	if (t->said.setup_failed) {
		snprintf(base->fault, sizeof(base->fault), "setup command %d failed in the LAVA "
			 "job %ld (exit %d): %.600s", t->said.setup_failed, t->job_id,
			 t->said.setup_status, t->said.setup_output.ptr);
		base->fault_setup = 1;
		ret = 1;
		goto out;
	}
	/* why runs that did not end ended: the kernel, unless the lab says it */
	if (lab_fault(type) && !why) {
		t->infra_after = 1;
		snprintf(t->crash, sizeof(t->crash), "LAVA job %ld (%s) ended %s in the middle "
			 "of the runs, an error of type %.40s%s%.300s: nothing is marked for "
			 "that run", t->job_id, t->job_url, health, type, comment[0] ? ": " : "",
			 comment);
	} else if (why) {
		snprintf(t->crash, sizeof(t->crash), "the kernel failed: %s (LAVA job %ld, %s; "
			 "console: %s)", why, t->job_id, t->job_url, t->console_kept);
	} else {
		snprintf(t->crash, sizeof(t->crash), "the job ended %s before the run did (LAVA "
			 "job %ld, %s%s%s; console: %s)", health, t->job_id, t->job_url,
			 comment[0] ? ": " : "", comment, t->console_kept);
	}
	ret = 0;
out:
	snprintf(base->device, sizeof(base->device), "%s", t->device);
	if (ret != 0)
		end_boot(t);
	free(why);
	free(kernel_path);
	free(kernel_url);
	free(rd);
	free(scratch);
	kb_buf_release(&rel);
	kb_buf_release(&yaml);
	kb_buf_release(&step);
	kb_buf_release(&console);
	return ret;
}

static int lava_run_start(struct kb_target *base, const struct kb_run_spec *spec,
			  const char *rundir, pid_t *pid)
{
	struct lava_target *t = (struct lava_target *)base;

	*pid = 0;
	if (!t->name || t->next_run > t->runs)
		return kb_error(KB_ERROR, "no finished LAVA job has a run left to hand out");
	return kb_mkdir_p(rundir, 0700);
}

static int lava_run_wait(struct kb_target *base, const char *rundir,
			 struct kb_run_result *res, int *found)
{
	struct lava_target *t = (struct lava_target *)base;
	struct kb_lava_run *r;
	const struct kb_lava_case *c;
	char name[32], *path;
	int n = t->next_run, ret;

	memset(res, 0, sizeof(*res));
	*found = 1;
	if (!t->name || n > t->runs || n > t->said.nruns)
		return kb_error(KB_ERROR, "no finished LAVA job has a run left to hand out");
	r = &t->said.runs[n - 1];
	snprintf(name, sizeof(name), "run-%d", n);
	c = kb_lava_case_find(t->cases, t->ncases, "kbisect", name);
	if (!r->ended && t->infra_after) {
		ret = kb_error(KB_EINFRA, "%s", t->crash);
		end_boot(t);
		return ret;
	}
	path = kb_asprintf("%s/output", rundir);
	ret = kb_write_file_atomic(path, r->output.ptr, r->output.len, 0644);
	free(path);
	if (ret < 0)
		return ret;
	if (!r->ended) {
		res->outcome = KB_RUN_CRASHED;
		snprintf(res->message, sizeof(res->message), "run %d: %s", n, t->crash);
		end_boot(t);
		return 0;
	}
	res->outcome = KB_RUN_EXITED;
	res->exit_status = r->status;
	/* the test case LAVA recorded says the same, or the job is odd */
	if (!c)
		kb_target_say(&t->base, "warning: LAVA job %ld has no test case %s", t->job_id,
			      name);
	else if (!strcmp(c->result, "pass") != (r->status == 0))
		kb_target_say(&t->base, "warning: LAVA job %ld says %s of %s, which exited "
			      "with %d", t->job_id, c->result, name, r->status);
	res->seconds = r->seconds;
	if (!res->seconds && c && c->has_measurement && !strcmp(c->unit, "seconds"))
		res->seconds = c->measurement;
	if (++t->next_run > t->runs)
		end_boot(t);
	return 0;
}

/* Cancel the jobs of this target's boots still queued or running (a
 * crashed kbisect's), and remove their files. */
static int lava_cleanup(struct kb_target *base)
{
	struct lava_target *t = (struct lava_target *)base;
	json_t *jobs = json_array(), *e;
	struct kb_buf q = KB_BUF_INIT;
	char *esc;
	size_t i;
	int ret;

	remove_published(t, NULL);
	esc = curl_easy_escape(NULL, t->prefix, 0);
	kb_buf_addf(&q, "jobs/?description__startswith=%s&state__in=Submitted,Scheduling,"
		    "Scheduled,Running", esc ? esc : "");
	curl_free(esc);
	ret = get_all(t, q.ptr, jobs);
	kb_buf_release(&q);
	if (ret < 0) {
		json_decref(jobs);
		return ret;
	}
	json_array_foreach(jobs, i, e) {
		const char *d = json_string_value(json_object_get(e, "description"));
		json_t *id = json_object_get(e, "id");
		char path[64];
		struct kb_buf b = KB_BUF_INIT;
		long st;

		if (!d || !json_is_integer(id) || !is_boot_name(t, d))
			continue;
		kb_target_say(&t->base, "canceling LAVA job %lld (%s), left behind by an earlier "
			      "kbisect", (long long)json_integer_value(id), d);
		snprintf(path, sizeof(path), "jobs/%lld/cancel/", (long long)json_integer_value(id));
		if (http(t, path, NULL, 60, &b, &st) < 0 || st != 200)
			kb_target_say(&t->base, "could not cancel LAVA job %lld",
				      (long long)json_integer_value(id));
		kb_error_clear();
		kb_buf_release(&b);
	}
	json_decref(jobs);
	return 0;
}

/* Is publish_url serving publish_dir?  A file written there must come
 * back over HTTP. */
static int check_publish(struct lava_target *t, struct kb_buf *out)
{
	char name[64], *path, *url;
	struct kb_buf b = KB_BUF_INIT;
	long st;
	int ret;

	snprintf(name, sizeof(name), "kbisect-check-%d-%ld", (int)getpid(), (long)time(NULL));
	path = kb_asprintf("%s/%s", t->publish_dir, name);
	url = kb_asprintf("%s/%s", t->publish_url, name);
	if ((ret = kb_mkdir_p(t->publish_dir, 0755)) < 0 ||
	    (ret = kb_write_file_atomic(path, name, strlen(name), 0644)) < 0)
		goto out;
	{
		char *tok = t->token;

		t->token = NULL;        /* not for another server */
		ret = http(t, url, NULL, 30, &b, &st);
		t->token = tok;
	}
	if (ret == 0 && (st != 200 || strcmp(b.ptr, name)))
		ret = kb_error(KB_EINFRA, "%s does not serve %s: a file written there came "
			       "back from %s as HTTP %ld; the lab's dispatchers download the "
			       "kernels from there", t->publish_url, t->publish_dir, url, st);
	else if (ret < 0)
		ret = error_with_last(KB_EINFRA, "the web server of publish_url %s does not "
				      "answer here: %%L", t->publish_url);
	if (ret == 0)
		kb_buf_addf(out, "publish_dir %s, served at %s (checked from here; the "
			    "dispatchers must reach it too)\n", t->publish_dir, t->publish_url);
out:
	unlink(path);
	free(path);
	free(url);
	kb_buf_release(&b);
	return ret;
}

static int lava_describe(struct kb_target *base, struct kb_buf *out)
{
	struct lava_target *t = (struct lava_target *)base;
	json_t *o = NULL, *devs = json_array(), *e;
	struct kb_buf yaml = KB_BUF_INIT, b = KB_BUF_INIT;
	char *path = NULL, *esc;
	int ret, idle = 0, busy = 0, other = 0;
	size_t i;
	long st;

	if ((ret = get_json(t, "system/version/", KB_EINFRA, &o)) < 0)
		goto out;
	kb_buf_addf(out, "LAVA %s at %s\n",
		    json_string_value(json_object_get(o, "version")) ?
		    json_string_value(json_object_get(o, "version")) : "(version unknown)",
		    t->server);
	json_decref(o);
	o = NULL;
	if ((ret = get_json(t, "system/whoami/", KB_EINFRA, &o)) < 0)
		goto out;
	{
		const char *who = json_string_value(json_object_get(o, "user"));

		if (!who || !*who) {
			ret = kb_error(KB_EINVAL, "the LAVA server at %s does not know the token "
				       "(it answers as an anonymous user): make one in the "
				       "server's API tokens page", t->server);
			goto out;
		}
		if (t->user && strcmp(t->user, who)) {
			ret = kb_error(KB_EINVAL, "the token is of user %s on %s, not of %s (the "
				       "machine file's \"user\")", who, t->server, t->user);
			goto out;
		}
		kb_buf_addf(out, "token of user %s: accepted\n", who);
	}
	json_decref(o);
	o = NULL;
	esc = curl_easy_escape(NULL, t->device_type, 0);
	path = kb_asprintf("devicetypes/%s/", esc ? esc : "");
	curl_free(esc);
	if ((ret = get_json(t, path, KB_EINVAL, &o)) < 0) {
		char *why = kb_strdup(kb_error_last());

		ret = kb_error(KB_EINVAL, "no device type '%s' on %s (%s)", t->device_type,
			       t->server, why);
		free(why);
		goto out;
	}
	free(path);
	esc = curl_easy_escape(NULL, t->device_type, 0);
	path = kb_asprintf("devices/?device_type=%s", esc ? esc : "");
	curl_free(esc);
	if ((ret = get_all(t, path, devs)) < 0)
		goto out;
	json_array_foreach(devs, i, e) {
		const char *state = json_string_value(json_object_get(e, "state"));
		const char *health = json_string_value(json_object_get(e, "health"));

		if (health && (!strcmp(health, "Retired") || !strcmp(health, "Maintenance") ||
			       !strcmp(health, "Bad")))
			other++;
		else if (state && !strcmp(state, "Idle"))
			idle++;
		else
			busy++;
	}
	kb_buf_addf(out, "device type %s: %d device(s), %d idle, %d busy, %d out of service\n",
		    t->device_type, idle + busy + other, idle, busy, other);
	if (idle + busy == 0) {
		ret = kb_error(KB_EINFRA, "device type %s on %s has no device in service: no "
			       "job would ever run", t->device_type, t->server);
		goto out;
	}
	/* the template renders, and the server takes the job it makes */
	{
		struct kb_boot_job job = { 0 };
		const char *argv[] = { "true", NULL };

		job.sha = "0000000000000000000000000000000000000000";
		job.runs = 1;
		job.argv = argv;
		make_nonce(t->nonce);
		t->name = kb_asprintf("%scheck", t->prefix);
		kb_buf_reset(&b);
		ret = job_step(t, &job, &b);
		if (ret == 0)
			ret = render(t, &job, t->name, "http://example.invalid/bzImage",
				     "http://example.invalid/rootfs", "http://example.invalid/scratch",
				     b.ptr, "0.0.0", &yaml);
		free(t->name);
		t->name = NULL;
		if (ret < 0)
			goto out;
	}
	{
		json_t *req = json_pack("{s:s}", "definition", yaml.ptr);
		char *body = json_dumps(req, JSON_COMPACT);

		json_decref(req);
		ret = http(t, "jobs/validate/", body, 60, &b, &st);
		free(body);
		if (ret < 0)
			goto out;
		if (st != 200) {
			char *said = server_said(&b);

			ret = kb_error(KB_EINVAL, "the LAVA server does not take the job that the "
				       "template %s makes (HTTP %ld): %s", t->template_path, st,
				       said);
			free(said);
			goto out;
		}
		json_decref(o);
		o = json_loads(b.ptr, 0, NULL);
		if (json_is_object(json_object_get(o, "errors")) &&
		    json_object_size(json_object_get(o, "errors"))) {
			char *errs = json_dumps(json_object_get(o, "errors"), JSON_COMPACT);

			ret = kb_error(KB_EINVAL, "the job that the template %s makes is not "
				       "valid to the LAVA server: %s", t->template_path, errs);
			free(errs);
			goto out;
		}
		kb_buf_addf(out, "job template %s: renders, and the server takes the job\n",
			    t->template_path);
	}
	ret = check_publish(t, out);
	if (ret == 0 && t->ramdisk)
		kb_buf_addf(out, "root file system %s\n", t->ramdisk);
out:
	json_decref(o);
	json_decref(devs);
	free(path);
	kb_buf_release(&yaml);
	kb_buf_release(&b);
	return ret;
}

const struct kb_target_ops kb_target_lava = {
	.name = "lava",
	.flags = KB_TARGET_GUEST,
	.keys = kb_target_lava_keys,
	.open = lava_open,
	.boot = lava_boot,
	.run_start = lava_run_start,
	.run_wait = lava_run_wait,
	.cleanup = lava_cleanup,
	.close = lava_close,
	.describe = lava_describe,
};
