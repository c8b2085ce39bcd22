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
 * A backend that boots kernels (KB_TARGET_GUEST) runs the job inside the
 * booted kernel: the setup commands, then the runs in order.
 * run_start/run_wait then follow those runs; a backend without a guest
 * runs each command on this machine, and the engine runs the setup
 * commands itself.
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
#include <jansson.h>
#include <sys/types.h>

#include "paths.h"
#include "run.h"
#include "util.h"

/* A job of a test lab (the lava target): one boot of a commit. */
struct kb_lab_job {
	const char *sha;
	int boot;
	long id;
	const char *url;     /* the job's page */
	const char *device;  /* the device it ran on, "" while not known */
	const char *state;   /* "submitted", then "complete", "incomplete",
			      * "canceled", or "lost" (the server went away) */
};

struct kb_target_env {
	git_repository *repo;
	const struct kb_paths *paths; /* the session's files (its state directory) */
	const char *session_name; /* names leftovers, e.g. "kbisect-1f2e3d4c-3" */
	json_t *machine;          /* the machine's object ({"target": SPEC} or a
				   machine file's), or NULL; borrowed: the
				   target keeps a reference */
	const char *guest_init;   /* path of guests/init on this machine */
	int accept_new_host_key;  /* ssh: add an unknown host key to known_hosts */
	int slot;                 /* the machine's place in a pool (0: the first):
				   the local target's work tree is its own */
	void (*say)(void *ctx, const char *msg); /* progress, may be NULL */
	void *say_ctx;
	/* a job of a lab that a boot submitted, or whose state changed;
	 * called with say_ctx, may be NULL */
	void (*lab_job)(void *ctx, const struct kb_lab_job *job);
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
	/* the benchmark's metric, for a target that reports it itself (a
	 * lab's test cases): its json_path, or NULL; its unit, or NULL */
	const char *metric_path;
	const char *metric_unit;
};

struct kb_target;

/* The ops of a backend that boots a kernel and runs the job in it. */
#define KB_TARGET_GUEST 0x1u
/* A target whose test runs on another machine (a host over SSH, a libvirt
 * of another host): it takes none of this machine's CPUs.  The instance
 * says it (struct kb_target.flags), not the ops: a libvirt at
 * qemu+ssh://localhost/ is this machine. */
#define KB_TARGET_REMOTE 0x2u

/*
 * A key a backend reads from a machine file, and the type of its value:
 * 's' a string, 'n' a positive integer, 'z' a non-negative one, 'a' a
 * command (a non-empty list of strings: its argv).  A table of them ends
 * with { NULL }.
 */
struct kb_machine_key {
	const char *key;
	char type;
};

/*
 * One backend.  open and close, run_start and run_wait are required;
 * prepare, boot, cleanup and describe may be NULL (nothing to do, or to
 * say).  Callers go through the kb_target_*() functions below, never the
 * hooks.
 */
struct kb_target_ops {
	const char *name;  /* the start of its specs: "libvirt" of "libvirt:URI" */
	unsigned flags;    /* KB_TARGET_GUEST */
	/* its keys in a machine file (name, description and target, which
	 * every machine has, are machine.c's); see machine.h */
	const struct kb_machine_key *keys;
	/* 'machine' is the machine file's object, or NULL: borrowed for the
	 * call (kb_target_open() keeps it in the target afterwards) */
	int (*open)(struct kb_target **out, const char *spec,
		    const struct kb_target_env *env, json_t *machine);
	int (*prepare)(struct kb_target *t, const git_oid *commit);
	int (*boot)(struct kb_target *t, const struct kb_boot_job *job);
	int (*run_start)(struct kb_target *t, const struct kb_run_spec *spec,
			 const char *rundir, pid_t *pid);
	int (*run_wait)(struct kb_target *t, const char *rundir,
			struct kb_run_result *res, int *found);
	int (*cleanup)(struct kb_target *t);
	/* frees the target and its spec (the machine object is
	 * kb_target_close()'s) */
	void (*close)(struct kb_target *t);
	/* What the target is, for 'kbisect target': lines of text */
	int (*describe)(struct kb_target *t, struct kb_buf *out);
};

struct kb_target {
	const struct kb_target_ops *ops;
	char *spec;
	char *workdir; /* where commands run on this machine, or NULL */
	const char *kernel_dir; /* the build to boot: bzImage, config, release */
	char fault[1024];       /* why the last boot failed (boot returned 1) */
	int fault_setup;        /* ... and that it was a setup command, not the
				 * kernel (a panic, a hang, the machine lost) */
	char accel[16];         /* how the guest runs: "kvm", "tcg", or "" */
	unsigned flags;         /* KB_TARGET_REMOTE, set by the backend's open */
	json_t *machine;        /* the machine file's object, or NULL */
	char device[128];       /* the device of a lab the last boot ran on, or "" */
	void (*say)(void *ctx, const char *msg); /* the env's, may be NULL */
	void *say_ctx;
	void (*lab_job)(void *ctx, const struct kb_lab_job *job);
};

extern const struct kb_target_ops kb_target_local;
extern const struct kb_target_ops kb_target_libvirt;
extern const struct kb_target_ops kb_target_ssh;
extern const struct kb_target_ops kb_target_lava;
/* their keys in a machine file (target_keys.c) */
extern const struct kb_machine_key kb_target_local_keys[];
extern const struct kb_machine_key kb_target_libvirt_keys[];
extern const struct kb_machine_key kb_target_ssh_keys[];
extern const struct kb_machine_key kb_target_lava_keys[];

/* The release (uname -r) of the build in 'kernel_dir', its newline cut. */
int kb_target_release(const char *kernel_dir, struct kb_buf *rel);

/* Is the host named by the 'len' bytes at 'host' this machine (localhost,
 * 127.x.y.z, ::1)? */
int kb_host_is_here(const char *host, size_t len);

/* Does the host of a URI ("qemu+ssh://[user@]host[:port]/system") name
 * this machine?  A URI without "://" is this machine's. */
int kb_uri_host_is_here(const char *uri);

/*
 * Open the backend that 'spec' names ("local", "libvirt:URI", ...), with
 * the machine env->machine.  A NULL 'spec' is the machine's "target".
 * KB_EINVAL for a spec no backend takes.
 */
int kb_target_open(struct kb_target **out, const char *spec,
		   const struct kb_target_env *env);
void kb_target_close(struct kb_target *t);

/* The backend whose name 'spec' starts with (up to a ':'), or NULL. */
const struct kb_target_ops *kb_target_find(const char *spec);
/* The backend of a spec written out in full: "local", "libvirt",
 * "libvirt:URI", "ssh://...".  NULL for anything else, which on the
 * command line is the name of a machine file. */
const struct kb_target_ops *kb_target_of_spec(const char *spec);
/* The backends, one by one: number 'i' (from 0), NULL past the last. */
const struct kb_target_ops *kb_target_backend(size_t i);

/* For a backend's open: the fields of 'base' every target has (ops, a
 * copy of 'spec', the env's say callback). */
void kb_target_init(struct kb_target *base, const struct kb_target_ops *ops,
		    const char *spec, const struct kb_target_env *env);

/* The hooks of the backend; an optional one that is not there does
 * nothing and returns 0.  See the top of this file for what each does. */
int kb_target_prepare(struct kb_target *t, const git_oid *commit);
int kb_target_boot(struct kb_target *t, const struct kb_boot_job *job);
int kb_target_run_start(struct kb_target *t, const struct kb_run_spec *spec,
			const char *rundir, pid_t *pid);
int kb_target_run_wait(struct kb_target *t, const char *rundir,
		       struct kb_run_result *res, int *found);
int kb_target_cleanup(struct kb_target *t);
/* Append what the target is to 'out' (nothing for a backend with nothing
 * to say). */
int kb_target_describe(struct kb_target *t, struct kb_buf *out);

/* The backend's name: "local", "libvirt", "ssh". */
const char *kb_target_name(const struct kb_target *t);
/* The first line of a kernel's console that says why it died (an oops, a
 * BUG, a WARNING that panic_on_warn made fatal, a panic, no init), or NULL;
 * the caller frees it. */
char *kb_console_fault(const char *console);

/* Does it boot a kernel and run the job in it (KB_TARGET_GUEST)? */
int kb_target_is_guest(const struct kb_target *t);
/* Does the test run on another machine (KB_TARGET_REMOTE)? */
int kb_target_is_remote(const struct kb_target *t);
/* The machine file's object (borrowed), or NULL. */
json_t *kb_target_machine(const struct kb_target *t);

/* Tell the env's lab_job callback, if any, of a job of a lab. */
void kb_target_lab_job(struct kb_target *t, const struct kb_lab_job *job);

/* Say a line of progress through the env's callback, if any. */
void kb_target_say(struct kb_target *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
