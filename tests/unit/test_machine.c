#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "test.h"

TEST(test_machine__parse_one)
{
	json_t *m;
	int list = -1;

	CHECK(kb_machine_parse("{\"name\":\"vm\",\"target\":\"libvirt\",\"vcpus\":2,"
			       "\"power_cycle\":[\"ipmitool\",\"on\"]}", "vm.json", &m, &list) == 0);
	CHECK(m && list == 0);
	CHECK(!strcmp(json_string_value(json_object_get(m, "target")), "libvirt"));
	json_decref(m);
}

static int fails_with(const char *text, const char *needle)
{
	json_t *m = (json_t *)1;
	int list = -1, r = kb_machine_parse(text, "m.json", &m, &list);

	return r == KB_EINVAL && !m && !list && strstr(kb_error_last(), needle);
}

TEST(test_machine__errors_name_the_key)
{
	CHECK(fails_with("{\"target\":\"local\",\n\"name\":", "machine file m.json: "));
	CHECK(fails_with("{\"target\":\"local\",\n\"name\":", "(line 2)"));
	CHECK(fails_with("{\"name\":\"x\"}", "machine file m.json has no \"target\""));
	CHECK(fails_with("{\"target\":\"local\",\"cpus\":2}", "unknown key \"cpus\" (known: name,"));
	CHECK(fails_with("{\"target\":\"local\",\"vcpus\":0}", "vcpus must be a positive integer"));
	CHECK(fails_with("{\"target\":\"ssh://h\",\"power_cycle_tries\":-1}",
			 "power_cycle_tries must be a non-negative integer"));
	CHECK(fails_with("{\"target\":\"ssh://h\",\"power_cycle_timeout\":0}",
			 "power_cycle_timeout must be a positive integer"));
	CHECK(fails_with("{\"target\":\"ssh://h\",\"boot_command\":[\"a\",1]}",
			 "boot_command must be a command"));
	CHECK(fails_with("{\"target\":\"local\",\"pool\":5}", "pool must be a string"));
	CHECK(fails_with("{\"target\":\"vm\"}", "unknown target 'vm'"));
	CHECK(fails_with("{\"machines\":[]}", "machines file m.json: one key"));
	CHECK(fails_with("{\"machines\":[\"local\"],\"x\":1}", "machines file m.json"));
}

TEST(test_machine__list_entries_checked_apart)
{
	json_t *m;
	int list = 0;

	/* the file's shape is checked at once, its machines when it is used */
	CHECK(kb_machine_parse("{\"machines\":[\"local\",{\"target\":\"local\"},"
			       "{\"target\":\"local\",\"cpus\":2}]}", "lab.json", &m, &list) == 0);
	CHECK(m && list == 1);
	CHECK(kb_machine_check_list(m, "../lab.json") == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "machine 3 of ../lab.json: unknown key \"cpus\""));
	json_decref(m);
	CHECK(kb_machine_parse("{\"machines\":[\"vm-small\",{\"target\":\"ssh://h\"}]}",
			       "lab.json", &m, &list) == 0 && list == 1);
	CHECK(kb_machine_check_list(m, "lab") == 0);
	json_decref(m);
	CHECK(kb_machine_parse("{\"machines\":[7]}", "lab.json", &m, &list) == 0);
	CHECK(kb_machine_check_list(m, "lab") == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "machine 1 of lab has no \"target\""));
	json_decref(m);
}
