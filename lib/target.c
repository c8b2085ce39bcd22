#include "target.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct kb_target_ops *const backends[] = {
	&kb_target_local,
	&kb_target_libvirt,
	&kb_target_ssh,
};

int kb_target_open(struct kb_target **out, const char *spec,
		   const struct kb_target_env *env)
{
	size_t i, len = strcspn(spec, ":");

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strlen(backends[i]->name) == len &&
		    !strncmp(backends[i]->name, spec, len))
			return backends[i]->open(out, spec, env);
	return kb_error(KB_EINVAL, "unknown target '%s' (this kbisect knows: local, libvirt[:URI], ssh://[user@]host[:port], or a machine file)", spec);
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
	if (t)
		t->ops->close(t);
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
