/*
 * fuzz_machine.c - kb_machine_parse() on any text: a machine file.
 *
 * What parses is a checked machine, or a machines file of one non-empty
 * "machines" list whose entries kb_machine_check_list() then checks, as
 * 'start' does.  A checked machine is stored compact in the session and
 * read again by its backend: its compact text must parse and pass the
 * check again.  What does not parse is KB_EINVAL with a message naming
 * the file, and no object.
 */
#include "fuzz.h"
#include "machine.h"

static void check_again(json_t *m, const char *origin)
{
	char *dump = json_dumps(m, JSON_COMPACT);
	json_t *back;

	FUZZ_CHECK(dump);
	back = json_loads(dump, 0, NULL);
	FUZZ_CHECK(back && json_equal(back, m));
	FUZZ_CHECK(kb_machine_check(back, origin) == 0);
	json_decref(back);
	free(dump);
}

static void check_list(json_t *root)
{
	json_t *machines = json_object_get(root, "machines"), *e;
	size_t i;
	int ret;

	FUZZ_CHECK(json_object_size(root) == 1);
	FUZZ_CHECK(json_is_array(machines) && json_array_size(machines));
	ret = kb_machine_check_list(root, "fuzz.json");
	if (ret < 0) {
		FUZZ_CHECK_FAILED(ret);
		FUZZ_CHECK(strstr(kb_error_last(), " of fuzz.json"));
		return;
	}
	FUZZ_CHECK(!*kb_error_last());
	json_array_foreach(machines, i, e) {
		if (json_is_string(e))
			continue;
		FUZZ_CHECK(json_is_string(json_object_get(e, "target")));
		check_again(e, "entry");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	json_t *m = (json_t *)1;
	int ret, list = -1;

	ret = kb_machine_parse(text, "fuzz.json", &m, &list);
	if (ret == 0) {
		FUZZ_CHECK(m && json_is_object(m) && (list == 0 || list == 1));
		FUZZ_CHECK(!*kb_error_last());
		if (list) {
			check_list(m);
		} else {
			FUZZ_CHECK(json_is_string(json_object_get(m, "target")));
			check_again(m, "fuzz.json");
		}
		json_decref(m);
	} else {
		FUZZ_CHECK_FAILED(ret);
		FUZZ_CHECK(strstr(kb_error_last(), "fuzz.json"));
		FUZZ_CHECK(!m && !list);
	}
	kb_error_clear();
	free(text);
	return 0;
}
