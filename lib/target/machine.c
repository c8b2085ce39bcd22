#include "machine.h"

#include <stdlib.h>
#include <string.h>

#include "target.h"

/* The keys of every machine; each backend has its own besides (its ops'
 * keys, in target_keys.c).  Types as in struct kb_machine_key. */
static const struct kb_machine_key common_keys[] = {
	{ "name", 's' }, { "description", 's' }, { "target", 's' },
	{ NULL, 0 },
};

static const struct kb_machine_key *find_key(const struct kb_machine_key *keys,
					     const char *key)
{
	for (; keys && keys->key; keys++)
		if (!strcmp(keys->key, key))
			return keys;
	return NULL;
}

/* A key of another backend than the machine's (or of any backend, when
 * its target is unknown), or NULL. */
static const struct kb_machine_key *any_backend_key(const char *key)
{
	const struct kb_target_ops *b;
	const struct kb_machine_key *k = NULL;
	size_t i;

	for (i = 0; !k && (b = kb_target_backend(i)); i++)
		k = find_key(b->keys, key);
	return k;
}

static void add_keys(struct kb_buf *known, const struct kb_machine_key *keys)
{
	for (; keys && keys->key; keys++) {
		size_t n = strlen(keys->key);
		const char *p;

		/* a key two backends read is named once */
		for (p = known->ptr; (p = strstr(p, keys->key)); p += n)
			if ((p == known->ptr || p[-1] == ' ') && (p[n] == ',' || !p[n]))
				break;
		if (!p)
			kb_buf_addf(known, "%s%s", known->len ? ", " : "", keys->key);
	}
}

/* 'backend' NULL: the target is unknown, every backend's keys are named. */
static int unknown_key(const char *origin, const char *key,
		       const struct kb_target_ops *backend)
{
	struct kb_buf known = KB_BUF_INIT;
	const struct kb_target_ops *b;
	size_t i;
	int ret;

	add_keys(&known, common_keys);
	if (backend)
		add_keys(&known, backend->keys);
	for (i = 0; !backend && (b = kb_target_backend(i)); i++)
		add_keys(&known, b->keys);
	ret = kb_error(KB_EINVAL, "machine %s: unknown key \"%s\" (known: %s)",
		       origin, key, known.ptr);
	kb_buf_release(&known);
	return ret;
}

long kb_machine_int(json_t *m, const char *key, long def)
{
	json_t *v = m ? json_object_get(m, key) : NULL;

	return json_is_integer(v) ? (long)json_integer_value(v) : def;
}

static int is_command(json_t *v)
{
	size_t i;

	if (!json_is_array(v) || !json_array_size(v))
		return 0;
	for (i = 0; i < json_array_size(v); i++)
		if (!json_is_string(json_array_get(v, i)))
			return 0;
	return 1;
}

int kb_machine_check(json_t *m, const char *origin)
{
	const struct kb_target_ops *backend;
	const struct kb_machine_key *k;
	const char *key, *t;
	json_t *v;

	/* "type" is another name of "target" ("type": "lava"): made "target" */
	if (json_is_object(m) && !json_object_get(m, "target") &&
	    json_is_string(json_object_get(m, "type"))) {
		json_object_set(m, "target", json_object_get(m, "type"));
		json_object_del(m, "type");
	}
	if (!json_is_object(m) || !json_is_string(json_object_get(m, "target")))
		return kb_error(KB_EINVAL, "machine %s has no \"target\" (e.g. \"libvirt\")",
				origin);
	t = json_string_value(json_object_get(m, "target"));
	backend = kb_target_of_spec(t);
	json_object_foreach(m, key, v) {
		/* the keys of another backend are taken (and ignored) as they
		 * always were, but named only for theirs */
		if (!(k = find_key(common_keys, key)) &&
		    !(k = backend ? find_key(backend->keys, key) : NULL) &&
		    !(k = any_backend_key(key)))
			return unknown_key(origin, key, backend);
		switch (k->type) {
		case 's':
			if (!json_is_string(v))
				return kb_error(KB_EINVAL, "machine %s: %s must be a string",
						origin, key);
			break;
		case 'n':
		case 'z':
			if (!json_is_integer(v) || json_integer_value(v) < (k->type == 'n'))
				return kb_error(KB_EINVAL, "machine %s: %s must be a %s integer",
						origin, key, k->type == 'n' ?
						"positive" : "non-negative");
			break;
		case 'a':
			if (!is_command(v))
				return kb_error(KB_EINVAL, "machine %s: %s must be a command: a "
						"list of strings (its argv)", origin, key);
			break;
		}
	}
	if (!backend)
		return kb_error(KB_EINVAL, "machine %s: unknown target '%s'", origin, t);
	return 0;
}

int kb_machine_parse(const char *text, const char *path, json_t **out, int *list)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	*out = NULL;
	*list = 0;
	if (!(root = json_loads(text, 0, &jerr)))
		return kb_error(KB_EINVAL, "machine file %s: %s (line %d)", path, jerr.text,
				jerr.line);
	if (json_is_object(root) && json_object_get(root, "machines") &&
	    !json_object_get(root, "target")) {
		json_t *machines = json_object_get(root, "machines");

		*list = 1;
		ret = 0;
		if (json_object_size(root) != 1 || !json_is_array(machines) ||
		    !json_array_size(machines))
			ret = kb_error(KB_EINVAL, "machines file %s: one key, \"machines\": a "
				       "list of targets and machines", path);
	} else {
		char *origin = kb_asprintf("file %s", path);

		ret = kb_machine_check(root, origin);
		free(origin);
	}
	if (ret < 0) {
		json_decref(root);
		*list = 0;
		return ret;
	}
	*out = root;
	return 0;
}

int kb_machine_check_list(json_t *list, const char *name)
{
	json_t *e;
	size_t i;
	int ret = 0;

	json_array_foreach(json_object_get(list, "machines"), i, e) {
		char *origin;

		if (json_is_string(e))
			continue;
		origin = kb_asprintf("%zu of %s", i + 1, name);
		ret = kb_machine_check(e, origin);
		free(origin);
		if (ret < 0)
			break;
	}
	return ret;
}
