/*
 * backends.c - the backends as the fuzzer of machine files sees them: the
 * names, flags and keys (lib/target/target_keys.c) that kb_machine_check()
 * finds through the table of lib/target/target.c, and none of their code,
 * which needs libvirt, libssh2 and libcurl.  No hook of them is ever called.
 */
#include "target.h"

const struct kb_target_ops kb_target_local = {
	.name = "local",
	.keys = kb_target_local_keys,
};

const struct kb_target_ops kb_target_libvirt = {
	.name = "libvirt",
	.flags = KB_TARGET_GUEST,
	.keys = kb_target_libvirt_keys,
};

const struct kb_target_ops kb_target_ssh = {
	.name = "ssh",
	.flags = KB_TARGET_GUEST,
	.keys = kb_target_ssh_keys,
};

const struct kb_target_ops kb_target_lava = {
	.name = "lava",
	.flags = KB_TARGET_GUEST,
	.keys = kb_target_lava_keys,
};
