#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "json.h"
#include "machine.h"

/*
 * A --db path made absolute: the state directory next to the database is
 * derived from it, and the work tree in it must have an absolute path (a
 * relative --db made 'start' fail with "work tree path ... is not
 * absolute").  The file itself may not exist yet; its directory should.
 */
static char *absolute_path(const char *path)
{
	char dir[PATH_MAX], *copy, *slash, *ret;
	const char *base;

	if (path[0] == '/')
		return kb_strdup(path);
	copy = kb_strdup(path);
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		base = slash + 1;
	} else {
		base = copy;
	}
	if (realpath(slash ? (*copy ? copy : "/") : ".", dir))
		ret = kb_asprintf("%s/%s", strcmp(dir, "/") ? dir : "", base);
	else if (getcwd(dir, sizeof(dir)))
		ret = kb_asprintf("%s/%s", dir, path);
	else
		ret = kb_strdup(path);
	free(copy);
	return ret;
}

int kb_ctx_open(struct kb_ctx *c, int flags)
{
	int ret;

	if (c->db_opt) {
		c->db_path = absolute_path(c->db_opt);
	} else {
		if (!c->repo && (ret = kb_repo_open(&c->repo, c->repo_opt ?
						    c->repo_opt : ".")) < 0)
			return ret;
		/* git_repository_path() ends in '/' */
		c->db_path = kb_asprintf("%skbisect.db", git_repository_path(c->repo));
	}
	kb_paths_init(&c->paths, c->db_path);
	c->statedir = c->paths.statedir;
	return kb_store_open(&c->store, c->db_path, flags);
}

void kb_ctx_release(struct kb_ctx *c)
{
	kb_store_close(c->store);
	git_repository_free(c->repo);
	free(c->db_path);
	kb_paths_release(&c->paths);
	c->store = NULL;
	c->repo = NULL;
	c->db_path = NULL;
	c->statedir = NULL;
}

int kb_open_session(struct kb_ctx *c, struct kb_session *s, int flags, int any,
		    const char *cmd)
{
	if (kb_ctx_open(c, flags) < 0 || kb_session_open(s, c->store, c->statedir, any) < 0) {
		kb_ctx_release(c);
		return kb_fail(cmd);
	}
	s->guest_init = kb_guest_init();
	return 0;
}

int kb_verdict_exit(json_t *report)
{
	const char *v = json_string_value(json_object_get(report, "verdict"));

	return v && (!strcmp(v, "culprit") || !strcmp(v, "multiple")) ?
		KB_EXIT_CULPRIT : KB_EXIT_NO_CULPRIT;
}

void kb_print_json(json_t *o)
{
	kb_json_dumpf(o, stdout, JSON_INDENT(2));
	printf("\n");
}

int kb_fail(const char *cmd)
{
	const char *msg = kb_error_last();
	int code = kb_error_code();

	fprintf(stderr, "kbisect %s: %s\n", cmd, *msg ? msg : "failed");
	(void)code;
	return KB_EXIT_ERROR;
}

static int tty_columns(void)
{
	struct winsize ws;

	return ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20 && ws.ws_col < 256 ?
		ws.ws_col : 80;
}

/* The progress line on a terminal: drawn on stderr's last line, cleared
 * before a log line is printed, drawn again after it. */
static char status_line[256];

static void clear_status(void)
{
	if (status_line[0])
		fputs("\r\033[K", stderr);
}

static void draw_status(void)
{
	if (status_line[0]) {
		fputs(status_line, stderr);
		fflush(stderr);
	}
}

static void say_stderr(void *ctx, enum kb_say_level level, const char *msg)
{
	(void)ctx;
	clear_status();
	if (level == KB_SAY_STEP)
		fprintf(stderr, "%s\n", msg);
	else if (level == KB_SAY_WARN)
		fprintf(stderr, "warning: %s\n", msg);
	else
		fprintf(stderr, "  %s\n", msg);
	draw_status();
}

static void duration(char *buf, size_t size, double s)
{
	if (s < 90)
		snprintf(buf, size, "%.0f s", s);
	else if (s < 5400)
		snprintf(buf, size, "%.0f min", s / 60);
	else
		snprintf(buf, size, "%.0f h %02.0f min", floor(s / 3600),
			 floor(fmod(s, 3600) / 60));
}

void kb_format_status(char *buf, size_t size, const struct kb_status *st)
{
	char left[48] = "", el[32], what[64], step[32];

	if (!strcmp(st->what, "run"))
		snprintf(what, sizeof(what), "run %d%s%.0d, %d before", st->run,
			 st->runs ? "/" : "", st->runs, st->commit_runs);
	else
		snprintf(what, sizeof(what), "%s", !strcmp(st->what, "build") ? "building" :
			 !strcmp(st->what, "boot") ? "booting" : st->what);
	duration(el, sizeof(el), st->elapsed);
	if (st->eta >= 0) {
		char d[32];

		duration(d, sizeof(d), st->eta);
		snprintf(left, sizeof(left), ", ~%s left", d);
	}
	if (st->steps)
		snprintf(step, sizeof(step), "%d/~%d", st->step, st->steps);
	else
		snprintf(step, sizeof(step), "%d", st->step);
	snprintf(buf, size, "[commit %s] %.12s %s | %s%s", step, st->sha, what, el, left);
}

static void status_tty(void *ctx, const struct kb_status *st)
{
	char line[200];

	(void)ctx;
	kb_format_status(line, sizeof(line), st);
	clear_status();
	/* one line of the terminal, never more: it is redrawn in place */
	snprintf(status_line, sizeof(status_line), "%.*s", tty_columns() - 1, line);
	draw_status();
}

/* Log lines always; the live progress line only on a terminal. */
const struct kb_progress kb_stderr_progress = { say_stderr, NULL, NULL };
static const struct kb_progress tty_progress = { say_stderr, NULL, status_tty };

const struct kb_progress *kb_progress_for_stderr(void)
{
	const char *term = getenv("TERM");

	return isatty(2) && term && strcmp(term, "dumb") ? &tty_progress :
		&kb_stderr_progress;
}

/* The progress line is not left behind by the output that follows it. */
void kb_progress_done(void)
{
	clear_status();
	status_line[0] = 0;
}

volatile int kb_stop_requested;

static void on_signal(int sig)
{
	static const char msg[] =
		"\nkbisect: stopping after the current run (again to stop now; "
		"'kbisect resume' continues)\n";

	if (kb_stop_requested) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	kb_stop_requested = 1;
	if (write(2, msg, sizeof(msg) - 1)) {}
}

void kb_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* "DIR/configs/SUB" beside the program (a source tree), or the installed
 * data directory. */
static char *data_dirs(const char *sub, const char *installed)
{
	char exe[PATH_MAX];
	ssize_t n;
	struct kb_buf b = KB_BUF_INIT;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		kb_buf_addf(&b, "%s/configs/%s:%s/../share/kbisect/%s:", exe, sub, exe, installed);
	}
	kb_buf_addf(&b, "%s/%s", KB_DATADIR, installed);
	return kb_buf_detach(&b);
}

const char *kb_bench_dirs(void)
{
	static char *dirs;
	const char *env = getenv("KBISECT_BENCHMARKS");

	if (!dirs) {
		char *d = data_dirs("benchmarks", "benchmarks");

		dirs = env && *env ? kb_asprintf("%s:%s", env, d) : kb_strdup(d);
		free(d);
	}
	return dirs;
}

char *kb_fragments_dir(void)
{
	char *dirs = data_dirs("kernel", "kernel"), *p = dirs, *found = NULL;

	while (*p && !found) {
		size_t len = strcspn(p, ":");
		char *d = kb_strndup(p, len), *f = kb_asprintf("%s/kbisect.config", d);
		char real[PATH_MAX];

		if (access(f, R_OK) == 0 && realpath(d, real))
			found = kb_strdup(real);
		free(d);
		free(f);
		p += len + (p[len] == ':');
	}
	free(dirs);
	return found;
}

const char *kb_machine_dirs(void)
{
	static char *dirs;

	if (!dirs)
		dirs = data_dirs("machines", "machines");
	return dirs;
}

const char *kb_guest_init(void)
{
	static char *found;
	char *dirs, *p;

	if (found)
		return found;
	dirs = data_dirs("../guests", "guests");
	p = dirs;
	while (*p && !found) {
		size_t len = strcspn(p, ":");
		char *f = kb_asprintf("%.*s/init", (int)len, p);
		char real[PATH_MAX];

		if (access(f, X_OK) == 0 && realpath(f, real))
			found = kb_strdup(real);
		free(f);
		p += len + (p[len] == ':');
	}
	free(dirs);
	return found;
}

/* A machine file by name (configs/machines/NAME.json) or path, read and
 * checked; or, with 'list' set, a file of machines ({"machines": [...]}),
 * whose entries are not checked yet. */
static int load_machine(const char *name, json_t **out, int *list)
{
	char *dirs = kb_strdup(kb_machine_dirs()), *p = dirs, *path = NULL;
	struct kb_buf text = KB_BUF_INIT;
	int fd, ret;

	*out = NULL;
	*list = 0;
	if (strchr(name, '/') || strstr(name, ".json")) {
		path = kb_strdup(name);
	} else {
		while (*p && !path) {
			size_t len = strcspn(p, ":");
			char *f = kb_asprintf("%.*s/%s.json", (int)len, p, name);

			if (access(f, R_OK) == 0)
				path = f;
			else
				free(f);
			p += len + (p[len] == ':');
		}
	}
	free(dirs);
	if (!path)
		return kb_error(KB_EINVAL, "unknown target '%s': use local, libvirt[:URI], "
				"ssh://[user@]host[:port], or a machine file (a name in "
				"configs/machines/ or a path)", name);
	/* the words jansson's json_load_file() used for a file it cannot open */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = kb_error(KB_EINVAL, "machine file %s: unable to open %s: %s (line -1)",
			       path, path, strerror(errno));
		free(path);
		return ret;
	}
	ret = kb_read_fd(fd, &text, 0, path);
	close(fd);
	if (ret < 0) {
		char *why = kb_strdup(kb_error_last());

		ret = kb_error(KB_EINVAL, "machine file %s: %s", path, why);
		free(why);
	} else {
		ret = kb_machine_parse(text.ptr, path, out, list);
	}
	kb_buf_release(&text);
	free(path);
	return ret;
}

int kb_set_target(struct kb_spec *spec, const char *target)
{
	json_t *m = NULL;
	int ret, list;

	kb_spec_clear_machines(spec);
	if (kb_target_of_spec(target)) {
		kb_spec_add_machine(spec, NULL, target);
		return 0;
	}
	if ((ret = load_machine(target, &m, &list)) < 0)
		return ret;
	if (list) {
		json_decref(m);
		return kb_error(KB_EINVAL, "%s lists machines: it makes a pool, and 'start' "
				"is where a pool goes", target);
	}
	kb_spec_add_machine(spec, m, NULL);
	return 0;
}

/* The targets of one --target: itself, or each machine its file lists. */
static int expand_target(const char *target, struct kb_strv *specs, json_t *objs)
{
	json_t *m = NULL, *e;
	size_t i;
	int ret, list = 0;

	if (!kb_target_of_spec(target)) {
		if ((ret = load_machine(target, &m, &list)) < 0)
			return ret;
	}
	if (!list) {
		json_decref(m);
		kb_strv_push(specs, target);
		json_array_append_new(objs, json_null());
		return 0;
	}
	if ((ret = kb_machine_check_list(m, target)) < 0) {
		json_decref(m);
		return ret;
	}
	json_array_foreach(json_object_get(m, "machines"), i, e) {
		if (json_is_string(e)) {
			kb_strv_push(specs, json_string_value(e));
			json_array_append_new(objs, json_null());
		} else {
			kb_strv_push(specs, json_string_value(json_object_get(e, "target")));
			json_array_append(objs, e);
		}
	}
	json_decref(m);
	return 0;
}

int kb_set_targets(struct kb_spec *spec, const struct kb_strv *targets)
{
	struct kb_strv seen = KB_STRV_INIT, specs = KB_STRV_INIT;
	json_t *objs = json_array();
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < targets->n; i++)
		ret = expand_target(targets->v[i], &specs, objs);
	if (!ret && !targets->n)
		ret = expand_target("local", &specs, objs);
	kb_spec_clear_machines(spec);
	for (i = 0; !ret && i < specs.n; i++) {
		struct kb_spec one;
		json_t *o = json_array_get(objs, i);
		const char *target;

		memset(&one, 0, sizeof(one));
		if (json_is_object(o))
			kb_spec_add_machine(&one, json_incref(o), NULL);
		else if ((ret = kb_set_target(&one, specs.v[i])) < 0)
			break;
		target = kb_spec_target(&one, 0);
		if (i && (!strcmp(target, "local")) != (!strcmp(seen.v[0], "local")))
			ret = kb_error(KB_EINVAL, "a pool is of machines that all boot kernels, or "
				       "all local: '%s' and '%s' do not mix", seen.v[0],
				       target);
		/* one host over ssh is one machine: it cannot test two kernels */
		for (j = 0; !ret && !strncmp(target, "ssh://", 6) && j < seen.n; j++)
			if (!strcmp(target, seen.v[j]))
				ret = kb_error(KB_EINVAL, "%s is in the pool twice", target);
		kb_strv_push(&seen, target);
		if (!ret) {
			json_t *m = kb_spec_machine(&one, 0);
			json_int_t k, par = !strcmp(target, "lava") ?
				json_integer_value(json_object_get(m, "parallel")) : 1;

			/* a lab's device type with "parallel": N is N machines of the
			 * pool: N jobs in flight, on whichever devices the lab picks */
			for (k = 1; k < par; k++)
				kb_spec_add_machine(spec, json_deep_copy(m), NULL);
			kb_spec_add_machine(spec, json_incref(m), NULL);
		}
		json_decref(one.machines);
	}
	kb_strv_clear(&seen);
	kb_strv_clear(&specs);
	json_decref(objs);
	return ret;
}

/* Where a word of a command ends: at a blank, or at what a shell would
 * make more of (quotes, $, globs, operators); 0 when it starts with one. */
static size_t plain_word(const char *p)
{
	return strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._/+-@%,:=");
}

static int is_interpreter(const char *w, size_t len)
{
	static const char *const names[] = { "sh", "bash", "dash", "ksh", "zsh", "python",
					     "python3", "perl" };
	const char *base = w;
	size_t i;

	for (i = 0; i < len; i++)
		if (w[i] == '/')
			base = w + i + 1;
	len -= (size_t)(base - w);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(base, names[i], len))
			return 1;
	return 0;
}

/*
 * 'git bisect run ./test.sh' runs the script of the user's work tree; the
 * test runs in kbisect's work tree, with the commit's files.  So the
 * script a --command starts (its first word, or what an interpreter
 * such as sh runs), when it is a file of the directory kbisect was
 * started from that BAD's tree does not have, is given by its absolute
 * path.  The command is changed in that one word only.
 */
int kb_local_script(struct kb_ctx *c, struct kb_spec *spec, const char *command)
{
	const char *p = command + strspn(command, " \t"), *w;
	char cwd[PATH_MAX], real[PATH_MAX], *file, *changed;
	struct kb_buf b = KB_BUF_INIT;
	struct stat st;
	size_t len, rl = strlen(spec->repo);
	git_oid bad;
	int ret;

	len = plain_word(p);
	w = p;
	if (len && (p[len] == ' ' || p[len] == '\t') && is_interpreter(p, len)) {
		w = p + len + strspn(p + len, " \t");
		len = plain_word(w);
	}
	if (!len || w[0] == '-' || w[0] == '/' || (w[len] && !strchr(" \t;&|", w[len])) ||
	    !getcwd(cwd, sizeof(cwd)))
		return 0;
	file = kb_asprintf("%s/%.*s", cwd, (int)len, w);
	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode) || !realpath(file, real)) {
		free(file);
		return 0;
	}
	free(file);
	if ((ret = kb_repo_resolve(c->repo, spec->bad_spec, &bad)) < 0)
		return ret;
	/* a file of the commit's tree is in the work tree the test runs in */
	if (!strncmp(real, spec->repo, rl) && real[rl] == '/' &&
	    kb_repo_has_path(c->repo, &bad, real + rl + 1))
		return 0;
	kb_buf_add(&b, command, (size_t)(w - command));
	kb_buf_add_quoted(&b, real, KB_QUOTE_BARE);
	kb_buf_adds(&b, w + len);
	changed = b.ptr;
	fprintf(stderr, "kbisect: %.*s is not in the commits' tree: the test runs it as %s\n",
		(int)len, w, real);
	kb_bench_release(&spec->bench);
	ret = kb_bench_from_command(&spec->bench, changed);
	kb_buf_release(&b);
	return ret;
}

int kb_set_test(struct kb_ctx *c, struct kb_session *s, const char *bench, const char *command)
{
	struct kb_spec t;
	int ret;

	/* the script's place is worked out against the session's range */
	memset(&t, 0, sizeof(t));
	t.repo = s->spec.repo;
	t.bad_spec = s->spec.bad_sha;
	ret = bench ? kb_bench_load(&t.bench, bench, kb_bench_dirs()) :
		      kb_bench_from_command(&t.bench, command);
	if (ret == 0 && !bench) {
		git_repository *keep = c->repo;

		c->repo = s->repo;
		ret = kb_local_script(c, &t, command);
		c->repo = keep;
	}
	if (ret == 0)
		ret = kb_session_set_test(s, &t.bench);
	kb_bench_release(&t.bench);
	return ret;
}

int kb_run_session(struct kb_session *s, const char *cmd)
{
	json_t *report;
	int ret;

	s->progress = kb_progress_for_stderr();
	s->guest_init = kb_guest_init();
	s->stop = &kb_stop_requested;
	kb_install_signals();
	ret = kb_session_run(s);
	kb_progress_done();
	if (ret < 0)
		return kb_fail(cmd);
	if (kb_session_report(s, &report) < 0)
		return kb_fail(cmd);
	kb_print_report(report, stdout, NULL);
	ret = kb_verdict_exit(report);
	json_decref(report);
	return ret;
}

/*
 * A session marked by hand in a kernel tree: the kernel of the commit to
 * test next, built (or found in the cache) for the session's target, and
 * where it is, to boot by hand (ktest's manual bisection).  A build that
 * fails says so; the commit is not marked for it.
 */
int kb_print_next_kernel(struct kb_session *s, const char *sha, FILE *to)
{
	struct kb_build_result res;
	struct stat st;
	char *mods;
	int ret;

	if (strcmp(s->spec.build, "kernel") || !s->spec.bench.argv.n ||
	    strcmp(s->spec.bench.argv.v[s->spec.bench.argv.n - 1], KB_MANUAL_COMMAND))
		return 0;
	if (!s->guest_init)
		s->guest_init = kb_guest_init();
	if ((ret = kb_session_build_for_hand(s, sha, &res)) < 0)
		return ret;
	if (res.failed) {
		fprintf(to, "its kernel does not build: skip it ('kbisect skip')%s:\n%s\n",
			res.cached ? " (a failure kept in the cache)" : "", res.error);
		return 0;
	}
	mods = kb_asprintf("%s/modules/lib/modules/%s", res.dir, res.release);
	fprintf(to, "its kernel (%s, %s): %s/bzImage\n", res.release,
		res.cached ? "from the cache" : "built", res.dir);
	if (stat(mods, &st) == 0)
		fprintf(to, "its modules: %s\n", mods);
	else
		fprintf(to, "its modules: none (the config builds none)\n");
	free(mods);
	return 0;
}

int kb_check_terms(const struct kb_cmd_help *h, const char *old_term, const char *new_term)
{
	static const char *const taken[] = {
		"start", "resume", "run", "status", "log", "replay", "skip", "unmark", "build",
		"compare", "report", "reset", "target", "terms", "help", "visualize", "view",
		NULL
	};
	const char *t[2] = { old_term, new_term };
	size_t i, k;

	for (k = 0; k < 2; k++) {
		size_t len = strspn(t[k], "abcdefghijklmnopqrstuvwxyz0123456789-_");

		if (!*t[k] || len != strlen(t[k]) || t[k][0] == '-')
			return kb_usage_error(h, "the term '%s' is not a word of lowercase "
					      "letters, digits, '-' and '_'", t[k]);
		for (i = 0; taken[i]; i++)
			if (!strcmp(t[k], taken[i]))
				return kb_usage_error(h, "the term '%s' is the name of a command",
						      t[k]);
		/* good, bad, old and new mean one state each */
		if ((!strcmp(t[k], "good") || !strcmp(t[k], "old")) && k == 1)
			return kb_usage_error(h, "'%s' is the old state's word: it cannot be the "
					      "new one's", t[k]);
		if ((!strcmp(t[k], "bad") || !strcmp(t[k], "new")) && k == 0)
			return kb_usage_error(h, "'%s' is the new state's word: it cannot be the "
					      "old one's", t[k]);
	}
	if (!strcmp(old_term, new_term))
		return kb_usage_error(h, "the two terms must differ (both are '%s')", old_term);
	return 0;
}
