/* The keys each backend reads from a machine file (see machine.h), apart
 * from the backends' code: the checks of machine files, and their fuzzer,
 * use them without libvirt or libssh2. */
#include "target.h"

const struct kb_machine_key kb_target_local_keys[] = {
	{ NULL, 0 },
};

const struct kb_machine_key kb_target_libvirt_keys[] = {
	{ "memory_mib", 'n' }, { "vcpus", 'n' }, { "scratch_mib", 'n' },
	{ "boot_timeout", 'n' }, { "pool", 's' }, { "cmdline", 's' },
	{ NULL, 0 },
};

const struct kb_machine_key kb_target_ssh_keys[] = {
	{ "key_file", 's' }, { "known_hosts", 's' }, { "workdir", 's' },
	{ "switch", 's' }, { "kexec_cmdline", 's' }, { "boot_command", 'a' },
	{ "power_cycle", 'a' }, { "power_cycle_tries", 'z' },
	{ "scratch_dev", 's' }, { "scratch_dir", 's' }, { "modules_dir", 's' },
	{ "boot_timeout", 'n' }, { "power_cycle_timeout", 'n' },
	{ NULL, 0 },
};

const struct kb_machine_key kb_target_lava_keys[] = {
	{ "server", 's' }, { "device_type", 's' }, { "user", 's' }, { "token_file", 's' },
	{ "job_template", 's' }, { "publish_dir", 's' }, { "publish_url", 's' },
	{ "ramdisk", 's' }, { "parallel", 'n' }, { "boot_timeout", 'n' },
	{ "server_timeout", 'n' }, { "scratch_mib", 'n' }, { "scratch_dev", 's' },
	{ NULL, 0 },
};
