#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "paths.h"
#include "target.h"
#include "test.h"

static int check_says(const char *text, const char *needle)
{
	json_t *m = json_loads(text, 0, NULL);
	int r = kb_machine_check(m, "m");

	json_decref(m);
	return r == KB_EINVAL && strstr(kb_error_last(), needle);
}

TEST(test_target__machine_keys_are_those_of_its_backend)
{
	CHECK(check_says("{\"target\":\"local\",\"cpus\":2}",
			 "unknown key \"cpus\" (known: name, description, target)"));
	CHECK(check_says("{\"target\":\"libvirt:qemu:///system\",\"cpus\":2}",
			 "(known: name, description, target, memory_mib, vcpus, scratch_mib, "
			 "boot_timeout, pool, cmdline)"));
	CHECK(check_says("{\"target\":\"ssh://h\",\"cpus\":2}", "target, key_file, "));
	CHECK(!strstr(kb_error_last(), "memory_mib"));
	/* a target no backend takes: every key, each once */
	CHECK(check_says("{\"target\":\"vm\",\"cpus\":2}", "pool, cmdline, key_file, known_hosts"));
	CHECK(!strstr(strstr(kb_error_last(), "boot_timeout") + 1, "boot_timeout"));
	CHECK(check_says("{\"target\":\"ssh:h\"}", "unknown target 'ssh:h'"));
	CHECK(check_says("{\"target\":\"local:x\"}", "unknown target 'local:x'"));
}

TEST(test_target__backends_found_by_their_specs)
{
	CHECK(kb_target_find("libvirt:qemu+ssh://h/system") == &kb_target_libvirt);
	CHECK(kb_target_find("ssh://root@h:22") == &kb_target_ssh);
	CHECK(kb_target_find("vm") == NULL);
	CHECK(kb_target_of_spec("local") == &kb_target_local);
	CHECK(kb_target_of_spec("local:x") == NULL && kb_target_of_spec("ssh:h") == NULL);
	CHECK(kb_target_ssh.keys == kb_target_ssh_keys &&
	      kb_target_libvirt.keys == kb_target_libvirt_keys &&
	      kb_target_local.keys == kb_target_local_keys);
	CHECK((kb_target_ssh.flags & KB_TARGET_GUEST) &&
	      (kb_target_libvirt.flags & KB_TARGET_GUEST) &&
	      !(kb_target_local.flags & KB_TARGET_GUEST));
}

TEST(test_target__local_from_a_machine_file)
{
	struct kb_target_env env = { 0 };
	struct kb_target *t = NULL;
	struct kb_buf out = KB_BUF_INIT;
	json_t *no_target = json_pack("{s:s}", "name", "x"), *not_object = json_string("{");
	json_t *m = json_pack("{s:s, s:s}", "target", "local", "name", "here");
	struct kb_paths paths;

	kb_paths_init_statedir(&paths, kb_test_dir());
	env.paths = &paths;
	env.session_name = "kbisect-unit";

	env.machine = m;
	/* no spec: the machine file's target */
	CHECK(kb_target_open(&t, NULL, &env) == 0 && t);
	CHECK(!strcmp(kb_target_name(t), "local"));
	CHECK(!kb_target_is_guest(t) && !kb_target_is_remote(t));
	CHECK(!strcmp(json_string_value(json_object_get(kb_target_machine(t), "name")), "here"));
	/* hooks it has not: nothing to do, nothing to say */
	CHECK(kb_target_boot(t, NULL) == 0 && kb_target_cleanup(t) == 0);
	CHECK(kb_target_describe(t, &out) == 0 && out.len == 0);
	kb_target_close(t);
	/* the target keeps its own reference to the machine */
	json_decref(m);
	env.machine = no_target;
	CHECK(kb_target_open(&t, NULL, &env) == KB_EINVAL && !t);
	env.machine = not_object;
	CHECK(kb_target_open(&t, "local", &env) == KB_EINVAL && !t);
	CHECK(strstr(kb_error_last(), "bad machine description"));
	kb_error_clear();
	json_decref(no_target);
	json_decref(not_object);
	kb_paths_release(&paths);
}

TEST(test_target__console_fault_is_the_first_sign)
{
	char *f;

	f = kb_console_fault("[ 1.0] booting\n[ 1.2] WARNING: CPU: 0 PID: 1 at init/main.c:9 x\r\n"
			     "[ 1.3] Kernel panic - not syncing: panic_on_warn set ...\n");
	CHECK_MSG(f && !strcmp(f, "WARNING: CPU: 0 PID: 1 at init/main.c:9 x"), "'%s'", f);
	free(f);
	f = kb_console_fault("Oops: 0002\nKernel panic - not syncing: Fatal exception\n");
	CHECK_MSG(f && !strcmp(f, "Oops: 0002"), "'%s'", f);
	free(f);
	CHECK(kb_console_fault("all well\n") == NULL && kb_console_fault(NULL) == NULL);
}
