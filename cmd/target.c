#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "target.h"

static const struct kb_cmd_help help = {
	"target", "SPEC [options]",
	"Check that a target can be used, before a long bisection needs it.",
	"SPEC is what --target takes: local, libvirt[:URI], ssh://[user@]host[:port]\n"
	"or a machine file.  For ssh, kbisect connects, checks the host key against\n"
	"known_hosts, logs in and says what the host runs; for libvirt, it connects\n"
	"(and for a remote URI finds the storage pool).  Nothing is booted.\n"
	"Exit status 0 when the target answers, 1 when not."
};

int cmd_target(int argc, char **argv)
{
	struct kb_strv args = KB_STRV_INIT;
	struct kb_spec spec;
	struct kb_target_env env;
	struct kb_target *t = NULL;
	struct kb_buf out = KB_BUF_INIT;
	struct kb_paths paths = { 0 };
	char dir[] = "/tmp/kbisect-target-XXXXXX";
	int accept_new = 0, ret;
	struct kb_opt opts[] = {
		{ "accept-new-host-key", OPT_FLAG, &accept_new, NULL,
		  "ssh target: accept the key of a host that is not in known_hosts yet "
		  "(never a changed key) and add it there" },
		{ 0 }
	};

	kb_spec_init(&spec);
	if ((ret = kb_parse_opts(&help, opts, argc, argv, &args, NULL))) {
		ret = ret == 1 ? 0 : ret;
		goto out;
	}
	if (args.n != 1) {
		ret = kb_usage_error(&help, "needs one target");
		goto out;
	}
	if (kb_set_target(&spec, args.v[0]) < 0) {
		ret = kb_fail("target");
		goto out;
	}
	if (!mkdtemp(dir)) {
		kb_error_errno(KB_ERROR, "cannot make a directory in /tmp");
		ret = kb_fail("target");
		goto out;
	}
	kb_paths_init_statedir(&paths, dir);
	memset(&env, 0, sizeof(env));
	env.paths = &paths;
	env.session_name = "kbisect-target-check";
	env.machine = kb_spec_machine(&spec, 0);
	env.guest_init = kb_guest_init();
	env.accept_new_host_key = accept_new;
	if (kb_target_open(&t, NULL, &env) < 0 ||
	    kb_target_describe(t, &out) < 0) {
		ret = kb_fail("target");
	} else {
		printf("target %s: ok\n%s", kb_spec_target(&spec, 0), out.ptr);
		ret = 0;
	}
	kb_target_close(t);
	kb_remove_tree(dir);
	kb_error_clear();
out:
	kb_paths_release(&paths);
	kb_buf_release(&out);
	kb_spec_release(&spec);
	kb_strv_clear(&args);
	return ret;
}
