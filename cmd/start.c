#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "cmd.h"

static const struct kb_cmd_help help = {
	"start",
	"[GOOD... BAD] [--bench NAME|FILE | --command CMD | --no-run] [options] [-- PATH...]",
	"Start a bisection of the commits between GOOD and BAD, and run it.",
	"The range is every commit that BAD contains and no GOOD does.  Each\n"
	"candidate is checked out into a work tree kbisect owns (your work tree\n"
	"and index are never touched) and tested there.  A benchmark without a\n"
	"metric, or --command, decides by exit status as 'git bisect run' does:\n"
	"0 good, 125 skip, 1-124 bad; 126 and 127 (the command could not be run)\n"
	"and 128 and above stop the bisection.  A benchmark with a metric is a\n"
	"performance bisection: each commit is booted and measured as often as the\n"
	"statistics need, and a run that exits 1-125 skips the commit.  With\n"
	"--flaky, a pass/fail test that fails only some of the time: each commit\n"
	"is run as often as the evidence needs, and the culprit is named only\n"
	"once it fails itself and its parent and its revert on BAD pass often\n"
	"enough to be clean.\n"
	"Everything is recorded in the state database before it is acted on:\n"
	"after a crash, 'kbisect resume' continues.\n"
	"Without revisions, as 'git bisect start': 'kbisect bad [REV]' and\n"
	"'kbisect good REV' give them, and the session begins once it has both.\n"
	"Exit status: 0 a culprit was named, 3 a verdict without one, 1 an error,\n"
	"2 a usage error."
};

static int set_repo_path(struct kb_ctx *c, struct kb_spec *spec)
{
	const char *wd = git_repository_workdir(c->repo);
	char real[PATH_MAX];

	if (!realpath(wd ? wd : git_repository_path(c->repo), real))
		return kb_error_errno(KB_ERROR, "cannot resolve the repository path");
	spec->repo = kb_strdup(real);
	return 0;
}

/* --build: 'kernel' in a kernel tree, 'none' elsewhere. */
static int default_build(struct kb_ctx *c, struct kb_spec *spec)
{
	git_oid bad;
	int ret;

	if (spec->build)
		return 0;
	if ((ret = kb_repo_resolve(c->repo, spec->bad_spec, &bad)) < 0)
		return ret;
	spec->build = kb_strdup(kb_is_kernel_tree(c->repo, &bad) ? "kernel" : "none");
	return 0;
}

/*
 * The target when --target is not given.  Where kernels are built (a
 * kernel tree): the one configured, by "git config kbisect.target" in
 * the repository, then by "target" in $XDG_CONFIG_HOME/kbisect/config.json
 * (~/.config/...), else the built-in machine vm: a benchmark run on this
 * machine's own kernel would measure nothing of the commits.  Elsewhere
 * local.  *from says where it came from (NULL: local, nothing to say).
 */
static int default_target(struct kb_ctx *c, const struct kb_spec *spec, char **target,
			  char **from)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	git_config *cfg = NULL;
	git_buf buf = { 0 };
	json_error_t jerr;
	json_t *o;
	char *path;

	*target = NULL;
	*from = NULL;
	if (strcmp(spec->build, "kernel"))
		return 0;
	if (git_repository_config_snapshot(&cfg, c->repo) == 0 &&
	    git_config_get_string_buf(&buf, cfg, "kbisect.target") == 0 && buf.size) {
		*target = kb_strdup(buf.ptr);
		*from = kb_strdup("git config kbisect.target");
	}
	git_buf_dispose(&buf);
	git_config_free(cfg);
	if (*target)
		return 0;
	path = xdg && *xdg ? kb_asprintf("%s/kbisect/config.json", xdg) :
	       kb_asprintf("%s/.config/kbisect/config.json", home ? home : "");
	if (access(path, F_OK) == 0) {
		if (!(o = json_load_file(path, 0, &jerr)) || !json_is_object(o)) {
			int ret = kb_error(KB_EINVAL, "%s: line %d: %s", path, jerr.line,
					   o ? "not a JSON object" : jerr.text);

			json_decref(o);
			free(path);
			return ret;
		}
		if (json_object_get(o, "target") && !json_is_string(json_object_get(o, "target"))) {
			int ret = kb_error(KB_EINVAL, "%s: \"target\" must be a string: a "
					   "target, as --target takes it", path);

			json_decref(o);
			free(path);
			return ret;
		}
		if (json_is_string(json_object_get(o, "target"))) {
			*target = kb_strdup(json_string_value(json_object_get(o, "target")));
			*from = kb_asprintf("\"target\" in %s", path);
		}
		json_decref(o);
	}
	free(path);
	if (!*target) {
		*target = kb_strdup("vm");
		*from = kb_strdup("the default in a kernel tree");
	}
	return 0;
}

/* A target that boots kernels needs kernels to boot. */
static int check_target(const struct kb_spec *spec)
{
	if (!strcmp(kb_spec_target(spec, 0), "local") || !strcmp(spec->build, "kernel"))
		return 0;
	return kb_error(KB_EINVAL, "target %s boots the kernel of each commit: it needs "
			"--build kernel (the default in a kernel tree), not --build %s",
			kb_spec_target(spec, 0), spec->build);
}

/* An argument as the report's "how to reproduce" gives it: a file's
 * absolute path when it names a file (it has a '/' or ends in .json),
 * else as given (a name). */
static char *as_given(const char *arg)
{
	size_t n = strlen(arg);
	char *p;

	if ((strchr(arg, '/') || (n > 5 && !strcmp(arg + n - 5, ".json"))) &&
	    (p = realpath(arg, NULL)))
		return p;
	return kb_strdup(arg);
}

int cmd_start(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_strv args = KB_STRV_INIT, paths = KB_STRV_INIT;
	struct kb_strv targets = KB_STRV_INIT;
	const char *bench = NULL, *command = NULL, *build = NULL,
		   *kconfig = NULL, *boot_failure = "skip",
		   *build_ahead = "auto", *cc_wrapper = NULL, *rebuild_check = "on",
		   *signature = NULL, *metric = NULL, *term_old = NULL, *term_new = NULL;
	double confidence = 0.95, scale = 1, min_rate = 0, min_effect = NAN;
	long long seed = 0, build_jobs = 0;
	int first_parent = 0, no_run = 0, accept_new = 0, flaky = 0, ret;
	struct kb_opt opts[] = {
		{ "bench", OPT_STRING, &bench, "NAME|FILE",
		  "benchmark: a name from configs/benchmarks/ or a JSON file" },
		{ "command", OPT_STRING, &command, "CMD",
		  "pass/fail test: a shell command run in each commit's tree" },
		{ "metric", OPT_STRING, &metric, "NAME",
		  "bisect on this metric of the benchmark (one of its secondary metrics) "
		  "instead of its primary one" },
		{ "min-effect", OPT_NUMBER, &min_effect, "PCT",
		  "performance: the smallest change of interest, in percent (default 5, "
		  "or the benchmark's min_effect); no-regression is said only once a change "
		  "this large would have been seen, else the verdict is inconclusive" },
		KB_CTX_OPTS(&c),
		{ "target", OPT_LIST, &targets, "SPEC",
		  "where to test: local (this machine, no boot: the default outside a "
		  "kernel tree; in one, git config kbisect.target, else \"target\" in "
		  "~/.config/kbisect/config.json, else vm), libvirt[:URI] "
		  "(a VM per boot, default URI qemu:///system), ssh://[user@]host[:port] "
		  "(a real machine, switched to each kernel), or a machine file from "
		  "configs/machines/; more than one makes a pool that tests several "
		  "commits at once" },
		{ "accept-new-host-key", OPT_FLAG, &accept_new, NULL,
		  "ssh target: accept the key of a host that is not in known_hosts yet "
		  "(never a changed key) and add it there" },
		{ "build", OPT_STRING, &build, "SPEC",
		  "kernel (the default in a kernel tree), none (elsewhere), or a shell "
		  "command run before each test; a failed build skips the commit; what it "
		  "leaves at $KBISECT_ARTIFACT is compared with the builds of other commits" },
		{ "build-ahead", OPT_STRING, &build_ahead, "auto|on|off",
		  "build the likely next kernels while one is tested: auto (default: "
		  "when there are 2 processors to spare beside the test), on, off" },
		{ "rebuild-check", OPT_STRING, &rebuild_check, "on|off",
		  "kernel builds, performance: build a likely culprit and its parent "
		  "again with 64-byte function alignment, where the tree can, and see "
		  "that its step stays (on, the default), or not (off)" },
		{ "cc-wrapper", OPT_STRING, &cc_wrapper, "PROG",
		  "kernel builds: compile through PROG (distcc, icecc), after ccache" },
		{ "build-jobs", OPT_INT, &build_jobs, "N",
		  "kernel builds: make -jN (default: the processors of this machine)",
		  1, 4096 },
		{ "scale", OPT_NUMBER, &scale, "F",
		  "shrink (F < 1) or grow the built-in benchmarks (KBISECT_SCALE, default 1)" },
		{ "boot-failure", OPT_STRING, &boot_failure, "skip|bad",
		  "what a kernel that panics or hangs is: skip (default), or bad when the "
		  "boot failure is what is bisected" },
		{ "kconfig", OPT_STRING, &kconfig, "FILE|NAME",
		  "base kernel config: a file, or a make target such as tinyconfig "
		  "(default) or defconfig" },
		{ "flaky", OPT_FLAG, &flaky, NULL,
		  "pass/fail: the test fails only some of the time; each commit is run as "
		  "often as its runs need, under a model of the failure rate from the "
		  "culprit on and of false alarms before it (also \"flaky\": true in a "
		  "benchmark file)" },
		{ "min-rate", OPT_NUMBER, &min_rate, "R",
		  "--flaky: the lowest failure rate looked for (default 0.1): BAD is run "
		  "until it fails, at most the runs in which such a rate shows at 95% "
		  "(29 for 0.1), else the verdict is no-regression" },
		{ "signature", OPT_STRING, &signature, "REGEX",
		  "--flaky: a failure is the bug's only when its output matches REGEX "
		  "(POSIX extended); other failures are listed, never counted "
		  "(also \"signature\" in a benchmark file); without it, on a target "
		  "that boots kernels, the bug's failure is how BAD's kernel died first" },
		{ "confidence", OPT_NUMBER, &confidence, "P",
		  "stop when the culprit's probability reaches P (default 0.95)" },
		{ "first-parent", OPT_FLAG, &first_parent, NULL,
		  "follow only the first parent of merges" },
		{ "term-old", OPT_STRING, &term_old, "WORD",
		  "as git: the word for GOOD's state (default good; 'kbisect WORD' marks "
		  "with it); other terms than good and bad make a performance bisection "
		  "find the change from GOOD's level to BAD's either way (a fix, a speedup)" },
		{ "term-good", OPT_STRING, &term_old, "WORD", "the same as --term-old" },
		{ "term-new", OPT_STRING, &term_new, "WORD",
		  "as git: the word for BAD's state (default bad)" },
		{ "term-bad", OPT_STRING, &term_new, "WORD", "the same as --term-new" },
		{ "no-run", OPT_FLAG, &no_run, NULL,
		  "record the session, do not start testing" },
		{ "seed", OPT_INT, &seed, "N",
		  "seed for reproducible choices (default: from the clock)", 0, LLONG_MAX },
		{ 0 }
	};
	struct kb_spec spec;
	struct kb_session s;
	int64_t id;
	size_t i;

	kb_spec_init(&spec);
	if ((ret = kb_parse_opts(&help, opts, argc, argv, &args, &paths)))
		goto out_usage;
	if ((term_old || term_new) &&
	    (ret = kb_check_terms(&help, term_old ? term_old : "good",
				  term_new ? term_new : "bad")))
		goto out_usage;
	if (!args.n) {
		/* as 'git bisect start': the revisions come with bad and good */
		struct kb_session s0;

		if (kb_ctx_open(&c, KB_STORE_CREATE | KB_STORE_LOCK) < 0)
			goto fail;
		if (kb_session_open(&s0, c.store, c.statedir, 0) == 0) {
			kb_session_release(&s0);
			kb_error(KB_EINVAL, "a session is already in progress in %s: continue it "
				 "with 'kbisect resume' or end it with 'kbisect reset'", c.db_path);
			goto fail;
		}
		kb_error_clear();
		if (kb_pending_start(&c, argc, argv) < 0)
			goto fail;
		ret = 0;
		goto out;
	}
	if (args.n < 2) {
		ret = kb_usage_error(&help, "needs a GOOD and a BAD revision, or none (then "
				     "'kbisect bad' and 'kbisect good' give them)");
		goto out_usage;
	}
	if (bench && command) {
		ret = kb_usage_error(&help, "takes one of --bench and --command, not both");
		goto out_usage;
	}
	if (!bench && !command && !no_run) {
		ret = kb_usage_error(&help, "needs --bench or --command (or --no-run, to "
				     "mark commits by hand)");
		goto out_usage;
	}
	if (!bench && !command)
		command = KB_MANUAL_COMMAND;
	if (strcmp(build_ahead, "auto") && strcmp(build_ahead, "on") && strcmp(build_ahead, "off")) {
		ret = kb_usage_error(&help, "--build-ahead is auto, on or off");
		goto out_usage;
	}
	if (strcmp(rebuild_check, "on") && strcmp(rebuild_check, "off")) {
		ret = kb_usage_error(&help, "--rebuild-check is on or off");
		goto out_usage;
	}
	if (strcmp(boot_failure, "skip") && strcmp(boot_failure, "bad")) {
		ret = kb_usage_error(&help, "--boot-failure is skip or bad");
		goto out_usage;
	}
	if (!(scale > 0 && scale <= 1000)) {
		ret = kb_usage_error(&help, "--scale must be above 0 (and at most 1000)");
		goto out_usage;
	}
	if (confidence <= 0 || confidence >= 1) {
		ret = kb_usage_error(&help, "--confidence must be between 0 and 1");
		goto out_usage;
	}
	/* NAN: not given */
	if (!isnan(min_effect) && !(min_effect > 0 && min_effect <= 1000)) {
		ret = kb_usage_error(&help, "--min-effect is a percent above 0 (and at most 1000)");
		goto out_usage;
	}
	if ((metric || min_effect > 0) && !bench) {
		ret = kb_usage_error(&help, "--metric and --min-effect go with --bench: "
				     "a --command test passes or fails");
		goto out_usage;
	}
	if (min_rate && !(min_rate > 0 && min_rate < 1)) {
		ret = kb_usage_error(&help, "--min-rate must be above 0 and below 1");
		goto out_usage;
	}
	ret = bench ? kb_bench_load(&spec.bench, bench, kb_bench_dirs()) :
		      kb_bench_from_command(&spec.bench, command);
	if (ret < 0)
		goto fail;
	if (metric || min_effect > 0) {
		char *origin = kb_asprintf("%s (with %s)", spec.bench.name,
					   metric ? "--metric" : "--min-effect");

		ret = kb_bench_set_metric(&spec.bench, metric, min_effect, origin);
		free(origin);
		if (ret < 0)
			goto fail;
	}
	if ((min_rate || signature) && !flaky && !spec.bench.flaky) {
		ret = kb_usage_error(&help, "--min-rate and --signature go with --flaky");
		goto out_usage;
	}
	if ((flaky || min_rate || signature) &&
	    (ret = kb_bench_set_flaky(&spec.bench, flaky, min_rate, signature,
				      "(with --flaky)")) < 0)
		goto fail;
	for (i = 0; i + 1 < args.n; i++)
		kb_strv_push(&spec.good_specs, args.v[i]);
	spec.bad_spec = kb_strdup(args.v[args.n - 1]);
	for (i = 0; i < paths.n; i++)
		kb_strv_push(&spec.paths, paths.v[i]);
	spec.first_parent = first_parent;
	if (term_old || term_new) {
		spec.term_old = kb_strdup(term_old ? term_old : "good");
		spec.term_new = kb_strdup(term_new ? term_new : "bad");
	}
	spec.confidence = confidence;
	spec.scale = scale;
	spec.boot_fail = !strcmp(boot_failure, "bad") ? 'b' : 's';
	spec.build_ahead = !strcmp(build_ahead, "on") ? 'y' : !strcmp(build_ahead, "off") ? 'n' : 'a';
	spec.rebuild_check = !strcmp(rebuild_check, "off") ? 'n' : 'y';
	spec.build = build ? kb_strdup(build) : NULL;
	spec.kconfig = kconfig ? kb_strdup(kconfig) : NULL;
	spec.fragments = kb_fragments_dir();
	spec.build_jobs = (int)build_jobs;
	if (cc_wrapper && kb_build_check_wrapper(cc_wrapper) < 0)
		goto fail;
	spec.cc_wrapper = cc_wrapper ? kb_strdup(cc_wrapper) : NULL;
	spec.seed = (unsigned long long)seed;
	if (bench)
		spec.bench_arg = as_given(bench);
	for (i = 0; i < targets.n; i++) {
		char *t = as_given(targets.v[i]);

		kb_strv_push(&spec.target_args, t);
		free(t);
	}
	if ((targets.n && (ret = kb_set_targets(&spec, &targets)) < 0) ||
	    (ret = kb_repo_open(&c.repo, c.repo_opt ? c.repo_opt : ".")) < 0 ||
	    (ret = set_repo_path(&c, &spec)) < 0 ||
	    (!bench && !no_run && (ret = kb_local_script(&c, &spec, command)) < 0) ||
	    (ret = default_build(&c, &spec)) < 0)
		goto fail;
	if (!targets.n) {
		char *target, *from;

		if ((ret = default_target(&c, &spec, &target, &from)) < 0)
			goto fail;
		if (target) {
			fprintf(stderr, "kbisect: target %s (%s; --target local tests on this "
				"machine, git config kbisect.target TARGET sets another)\n",
				target, from);
			kb_strv_push(&targets, target);
			kb_strv_push(&spec.target_args, target);
		}
		free(target);
		free(from);
		if ((ret = kb_set_targets(&spec, &targets)) < 0)
			goto fail;
	}
	if ((ret = check_target(&spec)) < 0 ||
	    /* a range that is no good leaves no database behind */
	    (ret = kb_spec_check(&spec, c.repo)) < 0 ||
	    (ret = kb_ctx_open(&c, KB_STORE_CREATE | KB_STORE_LOCK)) < 0 ||
	    (ret = kb_session_create(c.store, &spec, c.repo, &id)) < 0)
		goto fail;
	if ((ret = kb_session_open(&s, c.store, c.statedir, 0)) < 0)
		goto fail;
	kb_pending_forget(&c);
	s.accept_new_host_key = accept_new;
	fprintf(stderr, "kbisect: session %lld, %zu commits in range, database %s\n",
		(long long)id, s.dag.g.n, c.db_path);
	if (no_run) {
		json_t *st, *next;

		ret = 0;
		if (kb_session_status(&s, &st) == 0) {
			next = json_object_get(st, "next");
			if (json_is_object(next)) {
				fprintf(stderr, "kbisect: first commit to test: %s\n",
					json_string_value(json_object_get(next, "commit")));
				if (kb_print_next_kernel(&s, json_string_value(json_object_get(next,
							 "commit")), stdout) < 0)
					ret = kb_fail("start");
			}
			json_decref(st);
		}
	} else {
		ret = kb_run_session(&s, "start");
	}
	kb_session_release(&s);
	goto out;
fail:
	ret = kb_fail("start");
	goto out;
out_usage:
	if (ret == 1)
		ret = 0;
out:
	kb_spec_release(&spec);
	kb_strv_clear(&args);
	kb_strv_clear(&paths);
	kb_strv_clear(&targets);
	kb_ctx_release(&c);
	return ret;
}
