#include "target.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct kb_target_ops *const backends[] = {
	&kb_target_local,
	&kb_target_libvirt,
	&kb_target_ssh,
	&kb_target_lava,
};

const struct kb_target_ops *kb_target_find(const char *spec)
{
	size_t i, len = strcspn(spec, ":");

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strlen(backends[i]->name) == len &&
		    !strncmp(backends[i]->name, spec, len))
			return backends[i];
	return NULL;
}

const struct kb_target_ops *kb_target_of_spec(const char *spec)
{
	if (strcmp(spec, "local") && strcmp(spec, "libvirt") && strncmp(spec, "libvirt:", 8) &&
	    strncmp(spec, "ssh://", 6) && strcmp(spec, "lava"))
		return NULL;
	return kb_target_find(spec);
}

const struct kb_target_ops *kb_target_backend(size_t i)
{
	return i < sizeof(backends) / sizeof(backends[0]) ? backends[i] : NULL;
}

int kb_target_open(struct kb_target **out, const char *spec,
		   const struct kb_target_env *env)
{
	const struct kb_target_ops *ops;
	json_t *m = NULL;
	int ret;

	*out = NULL;
	if (env->machine && !json_is_object(env->machine))
		return kb_error(KB_EINVAL, "bad machine description: not an object");
	m = json_incref(env->machine);
	if (!spec && !(spec = json_string_value(json_object_get(m, "target")))) {
		json_decref(m);
		return kb_error(KB_EINVAL, "bad machine description: no \"target\"");
	}
	if (!(ops = kb_target_find(spec))) {
		ret = kb_error(KB_EINVAL, "unknown target '%s' (this kbisect knows: local, libvirt[:URI], ssh://[user@]host[:port], lava (in a machine file), or a machine file)", spec);
		json_decref(m);
		return ret;
	}
	if ((ret = ops->open(out, spec, env, m)) < 0) {
		json_decref(m);
		*out = NULL;
		return ret;
	}
	(*out)->machine = m;
	return 0;
}

void kb_target_init(struct kb_target *base, const struct kb_target_ops *ops,
		    const char *spec, const struct kb_target_env *env)
{
	base->ops = ops;
	base->spec = kb_strdup(spec);
	base->say = env->say;
	base->say_ctx = env->say_ctx;
	base->lab_job = env->lab_job;
}

void kb_target_lab_job(struct kb_target *t, const struct kb_lab_job *job)
{
	if (t->lab_job)
		t->lab_job(t->say_ctx, job);
}

int kb_target_release(const char *kernel_dir, struct kb_buf *rel)
{
	char *p = kb_asprintf("%s/release", kernel_dir);
	int ret = kb_read_file(p, rel, 4096);

	free(p);
	if (ret == 0)
		rel->ptr[strcspn(rel->ptr, "\n")] = '\0';
	return ret;
}

void kb_target_close(struct kb_target *t)
{
	json_t *m;

	if (!t)
		return;
	m = t->machine;
	t->ops->close(t);
	json_decref(m);
}

int kb_target_prepare(struct kb_target *t, const git_oid *commit)
{
	return t->ops->prepare ? t->ops->prepare(t, commit) : 0;
}

int kb_target_boot(struct kb_target *t, const struct kb_boot_job *job)
{
	return t->ops->boot ? t->ops->boot(t, job) : 0;
}

int kb_target_run_start(struct kb_target *t, const struct kb_run_spec *spec,
			const char *rundir, pid_t *pid)
{
	return t->ops->run_start(t, spec, rundir, pid);
}

int kb_target_run_wait(struct kb_target *t, const char *rundir,
		       struct kb_run_result *res, int *found)
{
	return t->ops->run_wait(t, rundir, res, found);
}

int kb_target_cleanup(struct kb_target *t)
{
	return t->ops->cleanup ? t->ops->cleanup(t) : 0;
}

int kb_target_describe(struct kb_target *t, struct kb_buf *out)
{
	return t->ops->describe ? t->ops->describe(t, out) : 0;
}

const char *kb_target_name(const struct kb_target *t)
{
	return t->ops->name;
}

char *kb_console_fault(const char *console)
{
	static const char *const signs[] = { "Kernel panic", "Oops:", "BUG:", "WARNING:",
					     "general protection fault", "KASAN:", "UBSAN:",
					     "Unable to mount root", "No working init found",
					     "Attempted to kill init" };
	const char *first = NULL;
	size_t i;

	for (i = 0; console && i < sizeof(signs) / sizeof(signs[0]); i++) {
		const char *p = strstr(console, signs[i]);

		if (p && (!first || p < first))
			first = p;
	}
	return first ? kb_strndup(first, strcspn(first, "\r\n")) : NULL;
}

int kb_target_is_guest(const struct kb_target *t)
{
	return !!(t->ops->flags & KB_TARGET_GUEST);
}

int kb_target_is_remote(const struct kb_target *t)
{
	return !!(t->flags & KB_TARGET_REMOTE);
}

json_t *kb_target_machine(const struct kb_target *t)
{
	return t->machine;
}

void kb_target_say(struct kb_target *t, const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;

	if (!t->say)
		return;
	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	t->say(t->say_ctx, b.ptr);
	kb_buf_release(&b);
}

int kb_host_is_here(const char *host, size_t len)
{
	static const char *const here[] = { "localhost", "::1", "[::1]" };
	size_t i;

	if (len >= 4 && !strncmp(host, "127.", 4))
		return 1;
	for (i = 0; i < sizeof(here) / sizeof(here[0]); i++)
		if (strlen(here[i]) == len && !strncmp(host, here[i], len))
			return 1;
	return 0;
}

int kb_uri_host_is_here(const char *uri)
{
	const char *h = strstr(uri, "://"), *at;

	if (!h)
		return 1;
	h += 3;
	at = strchr(h, '@');
	if (at && at < h + strcspn(h, "/?"))
		h = at + 1;
	return kb_host_is_here(h, h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/?"));
}
