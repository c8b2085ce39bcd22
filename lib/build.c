#include "build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dag.h"
#include "run.h"
#include "signature.h"
#include "util.h"
#include "worktree.h"

void kb_build_localversion(char out[20], const char *sha)
{
	snprintf(out, 20, "-kb%.12s", sha);
}

int kb_is_kernel_tree(git_repository *repo, const git_oid *commit)
{
	return kb_repo_has_path(repo, commit, "arch/x86/Kconfig") &&
	       kb_repo_has_path(repo, commit, "scripts/kconfig/Makefile");
}

static void hash_hex(char out[41], const char *data, size_t len)
{
	git_oid oid;

	git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB);
	git_oid_tostr(out, 41, &oid);
}

/* First line of 'cc --version', which names the compiler and its version. */
static void compiler_version(const char *tmpdir, struct kb_buf *out)
{
	const char *argv[] = { "cc", "--version", NULL };
	struct kb_run_spec rs = { argv, NULL, NULL, 30 };
	struct kb_run_result res;
	char *log = kb_asprintf("%s/cc-version", tmpdir);

	unlink(log);
	if (kb_run_simple(&rs, log, &res) == 0)
		kb_read_file(log, out, 1 << 16);
	kb_error_clear();
	out->len = strcspn(out->ptr, "\n");
	if (out->alloc)
		out->ptr[out->len] = '\0';
	unlink(log);
	free(log);
}

/* The fragments merged into every build, in order. */
static void fragments(const struct kb_build_opts *o, struct kb_strv *out)
{
	char *p;

	p = kb_asprintf("%s/kbisect.config", o->fragments_dir);
	if (access(p, R_OK) == 0)
		kb_strv_push(out, p);
	free(p);
	if (o->target) {
		p = kb_asprintf("%s/%s.config", o->fragments_dir, o->target);
		if (access(p, R_OK) == 0)
			kb_strv_push(out, p);
		free(p);
	}
}

static int cache_key(git_repository *repo, const git_oid *commit,
		     const struct kb_build_opts *o, const struct kb_strv *extra, char key[41])
{
	struct kb_buf in = KB_BUF_INIT, cc = KB_BUF_INIT;
	struct kb_strv frags = KB_STRV_INIT;
	git_commit *c;
	char tree[41];
	size_t i;
	int ret = 0;

	if (git_commit_lookup(&c, repo, commit) < 0)
		return kb_error(KB_ERROR, "cannot read the commit to build");
	git_oid_tostr(tree, sizeof(tree), git_commit_tree_id(c));
	git_commit_free(c);
	kb_buf_addf(&in, "tree %s\nbase %s\n", tree,
		    strrchr(o->kconfig, '/') ? strrchr(o->kconfig, '/') + 1 : o->kconfig);
	if (strchr(o->kconfig, '/') && (ret = kb_read_file(o->kconfig, &in, 64 << 20)) < 0)
		goto out;
	fragments(o, &frags);
	for (i = 0; i < frags.n; i++) {
		/* its name and text, not where it is: another checkout of
		 * kbisect builds the same kernel */
		const char *slash = strrchr(frags.v[i], '/');

		kb_buf_addf(&in, "\nfragment %s\n", slash ? slash + 1 : frags.v[i]);
		if ((ret = kb_read_file(frags.v[i], &in, 1 << 20)) < 0)
			goto out;
	}
	for (i = 0; i < extra->n; i++)
		kb_buf_addf(&in, "\nconfig %s", extra->v[i]);
	compiler_version(o->log_dir, &cc);
	kb_buf_addf(&in, "\ncompiler %s\n", cc.ptr);
	hash_hex(key, in.ptr, in.len);
out:
	kb_strv_clear(&frags);
	kb_buf_release(&in);
	kb_buf_release(&cc);
	return ret;
}

/* Set (or add) "CONFIG_X=..." / "# CONFIG_X is not set" lines. */
static void config_set(struct kb_buf *cfg, const char *line)
{
	char name[256];
	struct kb_buf out = KB_BUF_INIT;
	const char *p = cfg->ptr;

	if (sscanf(line, "# %255[A-Za-z0-9_] is not set", name) != 1 &&
	    sscanf(line, "%255[A-Za-z0-9_]=", name) != 1)
		return;
	if (strncmp(name, "CONFIG_", 7))
		return;
	while (*p) {
		size_t len = strcspn(p, "\n");
		size_t nl = strlen(name);
		int same = (len > nl && !strncmp(p, name, nl) && p[nl] == '=') ||
			   (len > nl + 2 && !strncmp(p, "# ", 2) && !strncmp(p + 2, name, nl) &&
			    p[nl + 2] == ' ');

		if (!same) {
			kb_buf_add(&out, p, len);
			kb_buf_addch(&out, '\n');
		}
		p += len + (p[len] == '\n');
	}
	kb_buf_adds(&out, line);
	kb_buf_addch(&out, '\n');
	kb_buf_release(cfg);
	*cfg = out;
}

int kb_build_check_wrapper(const char *wrapper)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save = NULL;
	int found = 0;

	if (!*wrapper || strspn(wrapper, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				"0123456789._/+-") != strlen(wrapper))
		return kb_error(KB_EINVAL, "compiler wrapper '%s': give a program such as "
				"distcc or icecc (its name or path, no arguments)", wrapper);
	if (strchr(wrapper, '/'))
		found = access(wrapper, X_OK) == 0;
	dirs = kb_strdup(path ? path : "/usr/bin:/bin");
	for (d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = kb_asprintf("%s/%s", d, wrapper);

		found = !strchr(wrapper, '/') && access(p, X_OK) == 0;
		free(p);
	}
	free(dirs);
	if (!found)
		return kb_error(KB_EINVAL, "compiler wrapper '%s' is not installed here (not "
				"in PATH): install it (distcc, icecc) or give its path", wrapper);
	return 0;
}

static int run_make(const struct kb_build_opts *o, const char *log, const char *sha,
		    const char *const *targets, struct kb_run_result *res)
{
	struct kb_strv argv = KB_STRV_INIT, env = KB_STRV_INIT;
	struct kb_run_spec rs;
	int jobs = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	kb_strv_push(&argv, "make");
	kb_strv_push(&argv, "-C");
	kb_strv_push(&argv, o->workdir);
	kb_strv_pushf(&argv, "O=%s", o->builddir);
	kb_strv_pushf(&argv, "-j%d", jobs > 0 ? jobs : 1);
	/* set, even empty: no "+" for a source tree that is not a git tree */
	kb_strv_push(&argv, "LOCALVERSION=");
	if (access("/usr/bin/ccache", X_OK) == 0) {
		kb_strv_push(&argv, "CC=ccache gcc");
		/* ccache hands what it does not have to the wrapper */
		if (o->cc_wrapper)
			kb_strv_pushf(&env, "CCACHE_PREFIX=%s", o->cc_wrapper);
	} else if (o->cc_wrapper) {
		kb_strv_pushf(&argv, "CC=%s gcc", o->cc_wrapper);
	}
	while (*targets)
		kb_strv_push(&argv, *targets++);
	kb_strv_push(&env, "KBUILD_BUILD_USER=kbisect");
	kb_strv_push(&env, "KBUILD_BUILD_HOST=kbisect");
	kb_strv_push(&env, "KBUILD_BUILD_TIMESTAMP=1970-01-01");
	/* not the count of links of the build directory: the same banner
	 * for every build, so that signatures compare (uname -v is #1) */
	kb_strv_push(&env, "KBUILD_BUILD_VERSION=1");
	kb_strv_push(&env, "LC_ALL=C");
	/* the same objects from any work tree: paths relative to it */
	kb_strv_pushf(&env, "CCACHE_BASEDIR=%s", o->workdir);
	kb_strv_push(&env, "CCACHE_NOHASHDIR=1");
	memset(&rs, 0, sizeof(rs));
	rs.argv = (const char *const *)argv.v;
	rs.env = (const char *const *)env.v;
	ret = kb_run_simple_progress(&rs, log, res, o->progress ? 3.0 : 0,
				     o->progress, o->ctx, sha);
	kb_strv_clear(&argv);
	kb_strv_clear(&env);
	return ret;
}

int kb_build_log_killed(const char *tail)
{
	/* make's line for a job that a signal ended, and the compiler
	 * driver's for a compiler the kernel's OOM killer ended */
	static const char *const signals[] = { "Terminated", "Killed", "Interrupt",
					       "Hangup", "Quit", NULL };
	const char *p;

	for (p = tail; *p;) {
		size_t len = strcspn(p, "\n");
		const char *end = p + len;

		if (memmem(p, len, "Killed signal terminated program", 32))
			return 1;
		if (len > 8 && !strncmp(p, "make", 4) && memmem(p, len, ": *** ", 6)) {
			const char *const *s;

			for (s = signals; *s; s++) {
				size_t n = strlen(*s);

				if (len > n + 2 && !memcmp(end - n, *s, n) && end[-n - 1] == ' ' &&
				    end[-n - 2] == ']')
					return 1;
			}
		}
		p = end + (*end == '\n');
	}
	return 0;
}

/* The last lines of the log that say "error" (or its last lines). */
static void last_errors(const char *log, char *out, size_t size)
{
	struct kb_buf b = KB_BUF_INIT, e = KB_BUF_INIT;
	const char *p;

	kb_read_tail(log, &b, 64 << 10);
	for (p = b.ptr; *p;) {
		size_t len = strcspn(p, "\n");

		if (memmem(p, len, "error", 5) || memmem(p, len, "Error", 5)) {
			kb_buf_add(&e, p, len);
			kb_buf_addch(&e, '\n');
		}
		p += len + (p[len] == '\n');
	}
	if (!e.len)
		kb_buf_adds(&e, b.len > 800 ? b.ptr + b.len - 800 : b.ptr);
	snprintf(out, size, "%s", e.len > size - 1 ? e.ptr + e.len - (size - 1) : e.ptr);
	kb_buf_release(&b);
	kb_buf_release(&e);
}

static int copy_file(const char *from, const char *to)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret = kb_read_file(from, &b, 0);

	if (!ret)
		ret = kb_write_file_atomic(to, b.ptr, b.len, 0644);
	kb_buf_release(&b);
	return ret;
}

static unsigned long long dir_size(const char *dir)
{
	unsigned long long total = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = kb_asprintf("%s/%s", dir, de->d_name);
		/* not through a symbolic link: that is not the cache's */
		if (lstat(p, &st) == 0)
			total += S_ISDIR(st.st_mode) ? dir_size(p) : (unsigned long long)st.st_size;
		free(p);
	}
	if (d)
		closedir(d);
	return total;
}

/* Remove the least recently used builds until the cache fits its limit. */
static void evict(const struct kb_build_opts *o, const char *keep)
{
	while (o->cache_limit && dir_size(o->cache_dir) > o->cache_limit) {
		DIR *d = opendir(o->cache_dir);
		struct dirent *de;
		char *oldest = NULL;
		time_t when = 0;

		while (d && (de = readdir(d))) {
			struct stat st;
			char *p;

			if (de->d_name[0] == '.' || !strcmp(de->d_name, keep))
				continue;
			p = kb_asprintf("%s/%s/used", o->cache_dir, de->d_name);
			if (stat(p, &st) == 0 && (!oldest || st.st_mtime < when)) {
				free(oldest);
				oldest = kb_strdup(de->d_name);
				when = st.st_mtime;
			}
			free(p);
		}
		if (d)
			closedir(d);
		if (!oldest)
			break;
		{
			char *p = kb_asprintf("%s/%s", o->cache_dir, oldest);

			kb_remove_tree(p);
			free(p);
		}
		free(oldest);
	}
}

static void touch_used(const char *dir)
{
	char *p = kb_asprintf("%s/used", dir);
	char stamp[32];
	int n = snprintf(stamp, sizeof(stamp), "%ld\n", (long)time(NULL));

	kb_write_file_atomic(p, stamp, (size_t)n, 0644);
	free(p);
}

/* The modules under 'dir', their paths from 'top', into 'out'. */
static void find_modules(const char *top, const char *dir, struct kb_strv *out)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = kb_asprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st) < 0)
			;
		else if (S_ISDIR(st.st_mode))
			find_modules(top, p, out);
		else if (S_ISREG(st.st_mode) && strstr(de->d_name, ".ko"))
			kb_strv_push(out, p + strlen(top) + 1);
		free(p);
	}
	if (d)
		closedir(d);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kb_kernel_signature(const char *vmlinux, const char *modules, const char *release,
			char out[41])
{
	struct kb_buf man = KB_BUF_INIT;
	struct kb_strv mods = KB_STRV_INIT;
	const char *lv = strstr(release, "-kb");
	const char *mask[] = { release, lv ? lv : release, NULL };
	char hex[41];
	size_t i;
	int ret;

	if ((ret = kb_elf_signature(vmlinux, mask, hex)) != 0)
		goto out;
	kb_buf_addf(&man, "vmlinux %s\n", hex);
	if (modules)
		find_modules(modules, modules, &mods);
	if (mods.n)
		qsort(mods.v, mods.n, sizeof(*mods.v), by_string);
	for (i = 0; i < mods.n; i++) {
		char *p = kb_asprintf("%s/%s", modules, mods.v[i]);

		ret = kb_file_signature(p, mask, hex);
		free(p);
		if (ret < 0)
			goto out;
		kb_buf_addf(&man, "module %s %s\n", mods.v[i], hex);
	}
	kb_signature_hash(man.ptr, man.len, out);
out:
	if (ret > 0)
		ret = kb_error(KB_EINVAL, "%s is no ELF file", vmlinux);
	kb_strv_clear(&mods);
	kb_buf_release(&man);
	return ret;
}

/* The signature kept with a build in the cache, "" when there is none. */
static void read_signature(const char *dir, char out[41])
{
	char *p = kb_asprintf("%s/signature", dir);
	struct kb_buf b = KB_BUF_INIT;

	out[0] = '\0';
	if (kb_read_file(p, &b, 4096) == 0 && strspn(b.ptr, "0123456789abcdef") == 40)
		snprintf(out, 41, "%.40s", b.ptr);
	kb_error_clear();
	kb_buf_release(&b);
	free(p);
}

static int read_release(const char *dir, char *out, size_t size)
{
	char *p = kb_asprintf("%s/release", dir);
	struct kb_buf b = KB_BUF_INIT;
	int ret = kb_read_file(p, &b, 4096);

	if (!ret)
		snprintf(out, size, "%.*s", (int)strcspn(b.ptr, "\n"), b.ptr);
	kb_buf_release(&b);
	free(p);
	return ret;
}

/* Does the .config in 'builddir' have the line 'line'? */
static int config_has(const char *builddir, const char *line)
{
	char *path = kb_asprintf("%s/.config", builddir);
	struct kb_buf b = KB_BUF_INIT;
	size_t n = strlen(line);
	const char *p;
	int found = 0;

	if (kb_read_file(path, &b, 64 << 20) == 0)
		for (p = b.ptr; *p && !found; p += strcspn(p, "\n"), p += *p == '\n')
			found = !strncmp(p, line, n) && (p[n] == '\n' || !p[n]);
	kb_error_clear();
	kb_buf_release(&b);
	free(path);
	return found;
}

/*
 * Write the build directory's .config: the base, the fragments, the
 * variant's own lines 'extra' (kb_repo_variant()), the LOCALVERSION.  1
 * when make fails, or when a line of 'extra' does not hold in the result
 * ('why' says which).
 */
static int configure(const struct kb_build_opts *o, const char *sha,
		     const struct kb_strv *extra, const char *log, char *why, size_t whysize)
{
	struct kb_strv frags = KB_STRV_INIT;
	struct kb_buf cfg = KB_BUF_INIT;
	struct kb_run_result res;
	char *path = kb_asprintf("%s/.config", o->builddir), lv[20];
	char *line = NULL;
	size_t i;
	int ret;

	if (strchr(o->kconfig, '/')) {
		if ((ret = kb_read_file(o->kconfig, &cfg, 64 << 20)) < 0)
			goto out;
	} else {
		const char *t[] = { o->kconfig, NULL };

		if ((ret = run_make(o, log, NULL, t, &res)) < 0)
			goto out;
		if (res.outcome != KB_RUN_EXITED || res.exit_status) {
			ret = 1;
			goto out;
		}
		if ((ret = kb_read_file(path, &cfg, 64 << 20)) < 0)
			goto out;
	}
	fragments(o, &frags);
	for (i = 0; i < frags.n; i++) {
		struct kb_buf f = KB_BUF_INIT;
		const char *p;

		if ((ret = kb_read_file(frags.v[i], &f, 1 << 20)) < 0)
			goto out;
		for (p = f.ptr; *p;) {
			size_t len = strcspn(p, "\n");

			free(line);
			line = kb_strndup(p, len);
			config_set(&cfg, line);
			p += len + (p[len] == '\n');
		}
		kb_buf_release(&f);
	}
	for (i = 0; i < extra->n; i++)
		config_set(&cfg, extra->v[i]);
	kb_build_localversion(lv, sha);
	free(line);
	line = kb_asprintf("CONFIG_LOCALVERSION=\"%s\"", lv);
	config_set(&cfg, line);
	config_set(&cfg, "# CONFIG_LOCALVERSION_AUTO is not set");
	if ((ret = kb_write_file_atomic(path, cfg.ptr, cfg.len, 0644)) < 0)
		goto out;
	{
		const char *t[] = { "olddefconfig", NULL };

		if ((ret = run_make(o, log, NULL, t, &res)) < 0)
			goto out;
		ret = res.outcome == KB_RUN_EXITED && !res.exit_status ? 0 : 1;
	}
	/* what a variant is for must hold: an option whose dependencies the
	 * config does not meet is dropped by olddefconfig */
	for (i = 0; !ret && i < extra->n; i++)
		if (!config_has(o->builddir, extra->v[i])) {
			snprintf(why, whysize, "%s does not hold in this config (olddefconfig "
				 "drops it: its dependencies are not met)", extra->v[i]);
			ret = 1;
		}
out:
	free(line);
	free(path);
	kb_buf_release(&cfg);
	kb_strv_clear(&frags);
	return ret;
}

int kb_build_kernel(git_repository *repo, const git_oid *commit,
		    const struct kb_build_opts *o, struct kb_build_result *res)
{
	char sha[41], *log = NULL, *tmp = NULL, *p = NULL, *q = NULL, *lockp = NULL;
	char why[512] = "", *vdir = NULL;
	struct kb_strv extra = KB_STRV_INIT;
	struct kb_build_opts vo;
	struct kb_run_result rr;
	double start = kb_now();
	int ret, lockfd = -1, modules = 0, i;

	memset(res, 0, sizeof(*res));
	git_oid_tostr(sha, sizeof(sha), commit);
	if ((ret = kb_mkdir_p(o->cache_dir, 0755)) < 0 || (ret = kb_mkdir_p(o->log_dir, 0700)) < 0)
		return ret;
	if ((ret = kb_repo_variant_config(repo, commit, &extra)) < 0 ||
	    (ret = cache_key(repo, commit, o, &extra, res->key)) < 0) {
		kb_strv_clear(&extra);
		return ret;
	}
	snprintf(res->dir, sizeof(res->dir), "%s/%s", o->cache_dir, res->key);
	p = kb_asprintf("%s/complete", res->dir);
	if (access(p, F_OK) == 0 && read_release(res->dir, res->release, sizeof(res->release)) == 0) {
		res->cached = 1;
		read_signature(res->dir, res->signature);
		touch_used(res->dir);
		goto out;
	}
	kb_error_clear();
	/* a build that failed fails again with the same inputs */
	q = kb_asprintf("%s.failed", res->dir);
	{
		struct kb_buf b = KB_BUF_INIT;

		if (kb_read_file(q, &b, sizeof(res->error) - 1) == 0) {
			res->cached = 1;
			res->failed = 1;
			snprintf(res->error, sizeof(res->error), "%s", b.ptr);
			kb_buf_release(&b);
			goto out;
		}
		kb_error_clear();
	}
	/*
	 * One build at a time in a build directory: a build ahead, a build of
	 * the main loop, a 'kbisect build'.  The processes of the build hold
	 * the lock too (the descriptor is theirs as well), so that the make
	 * a killed kbisect left running is waited for, never run beside.
	 */
	lockp = kb_asprintf("%s.lock", o->builddir);
	lockfd = open(lockp, O_RDWR | O_CREAT, 0600);
	if (lockfd < 0) {
		ret = kb_error_errno(KB_EINFRA, "cannot open %s", lockp);
		goto out;
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB) < 0) {
		if (o->say)
			o->say(o->ctx, "waiting for another build in the same build "
			       "directory to end (one a stopped kbisect left running ends "
			       "on its own)");
		while (flock(lockfd, LOCK_EX) < 0 && errno == EINTR)
			;
	}
	/* a variant's config (kb_repo_variant()) has a build directory of its
	 * own, so that neither it nor the commits' builds start from scratch
	 * each time one follows the other; the lock stays the one above, for
	 * the source work tree is shared */
	if (extra.n) {
		vo = *o;
		vo.builddir = vdir = kb_asprintf("%s.variant", o->builddir);
		o = &vo;
	}
	if ((ret = kb_worktree_checkout(repo, o->workdir, commit)) < 0 ||
	    (ret = kb_mkdir_p(o->builddir, 0755)) < 0)
		goto out;
	log = kb_asprintf("%s/kbuild-%.12s.log", o->log_dir, sha);
	unlink(log);
	memset(&rr, 0, sizeof(rr));
	rr.outcome = KB_RUN_EXITED;
	ret = configure(o, sha, &extra, log, why, sizeof(why));
	if (ret == 0) {
		const char *t[] = { "bzImage", NULL, NULL };

		if ((modules = config_has(o->builddir, "CONFIG_MODULES=y")))
			t[1] = "modules";
		if ((ret = run_make(o, log, sha, t, &rr)) < 0)
			goto out;
		ret = rr.outcome == KB_RUN_EXITED && !rr.exit_status ? 0 : 1;
	}
	if (ret < 0)
		goto out;
	res->seconds = kb_now() - start;
	if (ret) {
		struct kb_buf tail = KB_BUF_INIT;

		kb_read_tail(log, &tail, 16 << 10);
		if (strstr(tail.ptr, "No space left on device")) {
			ret = kb_error(KB_EINFRA, "the disk is full while building %.12s "
				       "(see %s): free some space, then 'kbisect resume'", sha, log);
			kb_buf_release(&tail);
			goto out;
		}
		/* stopped from outside: no fault of the commit, and not kept as one */
		if (rr.outcome == KB_RUN_SIGNALED || kb_build_log_killed(tail.ptr)) {
			ret = kb_error(KB_EINFRA, "the build of %.12s was killed from outside "
				       "(see %s): nothing is marked; 'kbisect resume' builds it "
				       "again", sha, log);
			kb_buf_release(&tail);
			goto out;
		}
		kb_buf_release(&tail);
		res->failed = 1;
		if (*why)
			snprintf(res->error, sizeof(res->error), "%s", why);
		else
			last_errors(log, res->error, sizeof(res->error));
		kb_write_file_atomic(q, res->error, strlen(res->error), 0644);
		kb_error_clear();
		ret = 0;
		goto out;
	}
	/* keep the artifacts: a temporary directory renamed when complete */
	tmp = kb_asprintf("%s.tmp.%ld", res->dir, (long)getpid());
	kb_remove_tree(tmp);
	if ((ret = kb_mkdir_p(tmp, 0755)) < 0)
		goto out;
	free(q);
	q = kb_asprintf("%s/include/config/kernel.release", o->builddir);
	{
		struct kb_buf b = KB_BUF_INIT;

		if ((ret = kb_read_file(q, &b, 4096)) < 0) {
			kb_buf_release(&b);
			goto out;
		}
		snprintf(res->release, sizeof(res->release), "%.*s",
			 (int)strcspn(b.ptr, "\n"), b.ptr);
		kb_buf_release(&b);
	}
	if (modules) {
		/* the modules as a host wants them: modules/lib/modules/RELEASE */
		char *dest = kb_asprintf("INSTALL_MOD_PATH=%s/modules", tmp);
		const char *t[] = { "modules_install", dest, "INSTALL_MOD_STRIP=1", NULL };

		ret = run_make(o, log, sha, t, &rr);
		free(dest);
		if (ret < 0)
			goto out;
		if (rr.outcome != KB_RUN_EXITED || rr.exit_status) {
			ret = kb_error(KB_EINFRA, "installing the modules of %.12s failed "
				       "(see %s)", sha, log);
			goto out;
		}
		/* links to this machine's source and build trees: no use elsewhere */
		for (i = 0; i < 2; i++) {
			char *link = kb_asprintf("%s/modules/lib/modules/%s/%s", tmp, res->release,
						 i ? "build" : "source");

			unlink(link);
			free(link);
		}
	}
	{
		/* what the kernel loads, for the comparisons of kernels; a
		 * kernel without one is built all the same */
		char *vmlinux = kb_asprintf("%s/vmlinux", o->builddir);
		char *mods = kb_asprintf("%s/modules/lib/modules/%s", tmp, res->release);

		if (kb_kernel_signature(vmlinux, modules ? mods : NULL, res->release,
					res->signature) == 0) {
			char *sp = kb_asprintf("%s/signature", tmp), *line;

			line = kb_asprintf("%s\n", res->signature);
			if (kb_write_file_atomic(sp, line, strlen(line), 0644) < 0)
				res->signature[0] = '\0';
			free(line);
			free(sp);
		}
		kb_error_clear();
		free(vmlinux);
		free(mods);
	}
	{
		static const char *const files[][2] = {
			{ "arch/x86/boot/bzImage", "bzImage" }, { ".config", "config" },
			{ "System.map", "System.map" },
		};
		size_t i;

		for (i = 0; i < 3 && !ret; i++) {
			char *from = kb_asprintf("%s/%s", o->builddir, files[i][0]);
			char *to = kb_asprintf("%s/%s", tmp, files[i][1]);

			ret = copy_file(from, to);
			free(from);
			free(to);
		}
		if (!ret) {
			char *to = kb_asprintf("%s/build.log", tmp), *rel = kb_asprintf("%s/release", tmp);
			char *line = kb_asprintf("%s\n", res->release);

			ret = copy_file(log, to);
			if (!ret)
				ret = kb_write_file_atomic(rel, line, strlen(line), 0644);
			free(to);
			free(rel);
			free(line);
		}
	}
	if (ret < 0)
		goto out;
	kb_remove_tree(res->dir);
	if (rename(tmp, res->dir) < 0) {
		ret = kb_error_errno(KB_EINFRA, "cannot store the build in %s", res->dir);
		goto out;
	}
	touch_used(res->dir);
	if ((ret = kb_write_file_atomic(p, "1\n", 2, 0644)) < 0)
		goto out;
	evict(o, res->key);
out:
	kb_strv_clear(&extra);
	free(vdir);
	if (lockfd >= 0)
		close(lockfd);
	free(lockp);
	free(log);
	free(tmp);
	free(p);
	free(q);
	return ret;
}

static const char *const align_lines[] = { "CONFIG_EXPERT=y", KB_ALIGN_OPTION "=y", NULL };

/* The aligned variants of the 'n' commits 'ids' (named 'names' in 'why'). */
static int aligned_n(git_repository *repo, const git_oid *const *ids, const char *const *names,
		     git_oid *const *variants, int n, char *why, size_t whysize)
{
	struct kb_buf text = KB_BUF_INIT;
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		kb_buf_release(&text);
		if ((ret = kb_repo_read_path(repo, ids[i], "lib/Kconfig.debug", &text, 16 << 20)) < 0)
			goto out;
		if (ret || !strstr(text.ptr, "\nconfig DEBUG_FORCE_FUNCTION_ALIGN_64B")) {
			snprintf(why, whysize, "the tree of %s has no %s (Linux 5.9 and later "
				 "have it)", names[i], KB_ALIGN_OPTION);
			ret = 1;
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		if ((ret = kb_repo_variant(repo, ids[i], "64-byte function alignment", align_lines,
					   variants[i])) < 0)
			goto out;
out:
	kb_buf_release(&text);
	return ret;
}

int kb_build_aligned(git_repository *repo, const git_oid *culprit, git_oid *parent_variant,
		     git_oid *variant, char *why, size_t whysize)
{
	git_commit *c;
	git_oid parent;
	const git_oid *ids[2];
	const char *names[2] = { "its parent", "the likely culprit" };
	git_oid *variants[2] = { parent_variant, variant };

	if (git_commit_lookup(&c, repo, culprit) < 0)
		return kb_error(KB_ERROR, "cannot read the commit to build aligned");
	if (git_commit_parentcount(c) == 0) {
		git_commit_free(c);
		snprintf(why, whysize, "the likely culprit has no parent");
		return 1;
	}
	git_oid_cpy(&parent, git_commit_parent_id(c, 0));
	git_commit_free(c);
	ids[0] = &parent;
	ids[1] = culprit;
	return aligned_n(repo, ids, names, variants, 2, why, whysize);
}

int kb_build_aligned_ends(git_repository *repo, const git_oid *good, const git_oid *bad,
			  git_oid *good_variant, git_oid *bad_variant, char *why, size_t whysize)
{
	const git_oid *ids[2] = { good, bad };
	const char *names[2] = { "GOOD", "BAD" };
	git_oid *variants[2] = { good_variant, bad_variant };

	return aligned_n(repo, ids, names, variants, 2, why, whysize);
}

int kb_build_aligned_one(git_repository *repo, const git_oid *commit, const char *name,
			 git_oid *variant, char *why, size_t whysize)
{
	return aligned_n(repo, &commit, &name, &variant, 1, why, whysize);
}
