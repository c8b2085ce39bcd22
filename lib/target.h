/*
 * target.h - where a commit is tested: one ops struct, one backend each.
 *
 * A backend's private state embeds struct kb_target first.  The engine
 * calls, per commit: prepare (put the commit in place: check out, build,
 * upload), boot (start boot number N of it with the job of that boot),
 * run_start/run_wait (one run of the benchmark, crash-safe: see run.h), and
 * cleanup once per session start or resume, and on reset, to remove what a
 * crashed orchestrator left behind (work directories, VMs).
 *
 * A backend that boots kernels ("guest" set) runs the job inside the booted
 * kernel: the setup commands, then the runs in order.  run_start/run_wait
 * then follow those runs; a backend without a guest runs each command on
 * this machine, and the engine runs the setup commands itself.
 *
 * Errors: a failure of the harness (VM would not start, host unreachable,
 * disk full) returns KB_EINFRA and never becomes a mark on the commit.  A
 * failure of the kernel under test (panic, oops, hang, a setup command
 * that fails in the guest) is boot's return value 1, with the reason in
 * t->fault: the engine marks the commit.
 */
#ifndef KB_TARGET_H
#define KB_TARGET_H

#include <git2.h>
#include <sys/types.h>

#include "paths.h"
#include "run.h"
#include "util.h"

struct kb_target_env {
	git_repository *repo;
	const struct kb_paths *paths; /* the session's files (its state directory) */
	const char *session_name; /* names leftovers, e.g. "kbisect-1f2e3d4c-3" */
	const char *machine;      /* JSON of the machine file, or NULL */
	const char *guest_init;   /* path of guests/init on this machine */
	int accept_new_host_key;  /* ssh: add an unknown host key to known_hosts */
	int slot;                 /* the machine's place in a pool (0: the first):
				   the local target's work tree is its own */
	void (*say)(void *ctx, const char *msg); /* progress, may be NULL */
	void *say_ctx;
};

/* What one boot does: the job the guest runs, or (no guest) the commit. */
struct kb_boot_job {
	const char *sha;
	int boot;                  /* boot number of this commit */
	int runs;                  /* runs of the benchmark in this boot */
	const char *const *argv;   /* the benchmark command */
	const char *const *env;    /* KBISECT_* of the boot */
	const char *const *setup;  /* shell command strings, run once */
	double timeout;            /* seconds per run; 0 = the default */
};

struct kb_target;

struct kb_target_ops {
	const char *name;
	int guest; /* boots a kernel and runs the job in it */
	int (*open)(struct kb_target **out, const char *spec,
		    const struct kb_target_env *env);
	int (*prepare)(struct kb_target *t, const git_oid *commit);
	int (*boot)(struct kb_target *t, const struct kb_boot_job *job);
	int (*run_start)(struct kb_target *t, const struct kb_run_spec *spec,
			 const char *rundir, pid_t *pid);
	int (*run_wait)(struct kb_target *t, const char *rundir,
			struct kb_run_result *res, int *found);
	int (*cleanup)(struct kb_target *t);
	void (*close)(struct kb_target *t);
	/* What the target is, for 'kbisect target': lines of text (may be NULL) */
	int (*describe)(struct kb_target *t, struct kb_buf *out);
};

struct kb_target {
	const struct kb_target_ops *ops;
	char *spec;
	char *workdir; /* where commands run on this machine, or NULL */
	const char *kernel_dir; /* the build to boot: bzImage, config, release */
	char fault[1024];       /* why the last boot failed (boot returned 1) */
	char accel[16];         /* how the guest runs: "kvm", "tcg", or "" */
	int elsewhere;          /* the test runs on another machine: it takes
				   none of this one's CPUs */
};

extern const struct kb_target_ops kb_target_local;
extern const struct kb_target_ops kb_target_libvirt;
extern const struct kb_target_ops kb_target_ssh;

/* The release (uname -r) of the build in 'kernel_dir', its newline cut. */
int kb_target_release(const char *kernel_dir, struct kb_buf *rel);

/* Is the host named by the 'len' bytes at 'host' this machine (localhost,
 * 127.x.y.z, ::1)? */
int kb_host_is_here(const char *host, size_t len);

/* Does the host of a URI ("qemu+ssh://[user@]host[:port]/system") name
 * this machine?  A URI without "://" is this machine's. */
int kb_uri_host_is_here(const char *uri);

/* Open the backend that 'spec' names ("local", ...). */
int kb_target_open(struct kb_target **out, const char *spec,
		   const struct kb_target_env *env);
void kb_target_close(struct kb_target *t);

#endif
