#include "machine.h"

#include <stdlib.h>
#include <string.h>

/* Every key of a machine, its type and its target: 's' a string, 'n' a
 * positive integer, 'z' a non-negative one, 'a' a command (argv). */
static const struct {
	const char *key;
	char type;
} machine_keys[] = {
	{ "name", 's' }, { "description", 's' }, { "target", 's' },
	{ "memory_mib", 'n' }, { "vcpus", 'n' }, { "scratch_mib", 'n' },
	{ "boot_timeout", 'n' }, { "pool", 's' },
	{ "key_file", 's' }, { "known_hosts", 's' }, { "workdir", 's' },
	{ "switch", 's' }, { "kexec_cmdline", 's' }, { "boot_command", 'a' },
	{ "power_cycle", 'a' }, { "power_cycle_tries", 'z' },
	{ "scratch_dev", 's' }, { "scratch_dir", 's' }, { "modules_dir", 's' },
};
#define NKEYS (sizeof(machine_keys) / sizeof(machine_keys[0]))

static int unknown_key(const char *origin, const char *key)
{
	struct kb_buf known = KB_BUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < NKEYS; i++)
		kb_buf_addf(&known, "%s%s", i ? ", " : "", machine_keys[i].key);
	ret = kb_error(KB_EINVAL, "machine %s: unknown key \"%s\" (known: %s)",
		       origin, key, known.ptr);
	kb_buf_release(&known);
	return ret;
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
	const char *key, *t;
	json_t *v;
	size_t k;

	if (!json_is_object(m) || !json_is_string(json_object_get(m, "target")))
		return kb_error(KB_EINVAL, "machine %s has no \"target\" (e.g. \"libvirt\")",
				origin);
	json_object_foreach(m, key, v) {
		for (k = 0; k < NKEYS; k++)
			if (!strcmp(key, machine_keys[k].key))
				break;
		if (k == NKEYS)
			return unknown_key(origin, key);
		switch (machine_keys[k].type) {
		case 's':
			if (!json_is_string(v))
				return kb_error(KB_EINVAL, "machine %s: %s must be a string",
						origin, key);
			break;
		case 'n':
		case 'z':
			if (!json_is_integer(v) ||
			    json_integer_value(v) < (machine_keys[k].type == 'n'))
				return kb_error(KB_EINVAL, "machine %s: %s must be a %s integer",
						origin, key, machine_keys[k].type == 'n' ?
						"positive" : "non-negative");
			break;
		case 'a':
			if (!is_command(v))
				return kb_error(KB_EINVAL, "machine %s: %s must be a command: a "
						"list of strings (its argv)", origin, key);
			break;
		}
	}
	t = json_string_value(json_object_get(m, "target"));
	if (strcmp(t, "local") && strcmp(t, "libvirt") && strncmp(t, "libvirt:", 8) &&
	    strncmp(t, "ssh://", 6))
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
