#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "cmd.h"

static const struct kb_cmd_help help = {
	"compare", "A B --bench NAME|FILE [-n N] [options]",
	"Measure two commits side by side and say whether B is slower than A.",
	"The boots of A and B are interleaved (A, B, A, B, ...), N of each, with\n"
	"the benchmark's runs_per_boot runs each; every sample is recorded in the\n"
	"state database first, and running the same command again after a crash\n"
	"continues the comparison.  The table is in the style of LKP reports:\n"
	"mean and relative standard deviation of A and of B, the change, and the\n"
	"Mann-Whitney and Kolmogorov-Smirnov tests.\n"
	"Exit status: 0 B is worse than A (a regression), 3 no difference or an\n"
	"improvement, 1 an error, 2 a usage error."
};

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* A line for each secondary metric under the primary's, as LKP lists its
 * metrics, with whether it moved from A to B. */
static void print_secondary(json_t *r, FILE *to)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(r, "metrics"), i, m) {
		json_t *a = json_array_get(json_object_get(m, "rows"), 0);
		json_t *b = json_array_get(json_object_get(m, "rows"), 1);

		if (json_object_get(a, "mean") && json_object_get(b, "mean"))
			fprintf(to, "%12.6g \xc2\xb1%3.0f%%   %+8.1f%%  %12.6g \xc2\xb1%3.0f%%  ",
				num(a, "mean"), num(a, "stddev_pct"), num(b, "change_pct"),
				num(b, "mean"), num(b, "stddev_pct"));
		else
			fprintf(to, "%12s %5s   %9s  %12s %5s  ", "-", "", "", "-", "");
		fprintf(to, "%s.%s%s%s", kb_str(r, "bench"), kb_str(m, "name"),
			*kb_str(m, "unit") ? " " : "", kb_str(m, "unit"));
		if (json_object_get(m, "p"))
			fprintf(to, "  %s (p = %.2g%s)\n", json_is_true(json_object_get(m, "moved")) ?
				"moved" : "within noise", num(m, "p"),
				!strcmp(kb_str(m, "basis"), "runs") ? ", on runs" : "");
		else
			fprintf(to, "  not tested: too few values\n");
	}
}

static void print_compare(json_t *r, FILE *to)
{
	json_t *a = json_object_get(r, "a"), *b = json_object_get(r, "b");
	json_t *m = json_object_get(r, "metric"), *ci = json_object_get(r, "change_ci_pct");
	const char *v = kb_str(r, "verdict");

	fprintf(to, "commit:\n  %s %s\n  %s %s\n\n", kb_str(a, "commit"), kb_str(a, "subject"),
		kb_str(b, "commit"), kb_str(b, "subject"));
	fprintf(to, "%.16s %.16s\n", kb_str(a, "commit"), kb_str(b, "commit"));
	fprintf(to, "---------------- ---------------------------\n");
	fprintf(to, "         %%stddev     %%change         %%stddev\n");
	fprintf(to, "             \\          |                \\\n");
	fprintf(to, "%12.6g \xc2\xb1%3.0f%%   %+8.1f%%  %12.6g \xc2\xb1%3.0f%%  %s.%s%s%s\n",
		num(a, "mean"), num(a, "stddev_pct"), num(r, "change_pct"), num(b, "mean"),
		num(b, "stddev_pct"), kb_str(r, "bench"), kb_str(m, "name"),
		*kb_str(m, "unit") ? " " : "", kb_str(m, "unit"));
	print_secondary(r, to);
	fprintf(to, "\n%lld and %lld samples over %lld and %lld boots; %s is better\n",
		(long long)json_integer_value(json_object_get(a, "n")),
		(long long)json_integer_value(json_object_get(b, "n")),
		(long long)json_integer_value(json_object_get(a, "boots")),
		(long long)json_integer_value(json_object_get(b, "boots")), kb_str(m, "direction"));
	fprintf(to, "change %+.1f%% (90%% interval %+.1f%% .. %+.1f%%); Mann-Whitney p = %.3g, "
		"Kolmogorov-Smirnov p = %.3g\n", num(r, "change_pct"),
		json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
		num(r, "p_mann_whitney"), num(r, "p_ks"));
	fprintf(to, "verdict: %s\n", !strcmp(v, "regression") ? "B is worse than A (regression)" :
		!strcmp(v, "improvement") ? "B is better than A (improvement)" :
		!strcmp(v, "no-difference") ? "no difference at the 0.001 level" : v);
}

int cmd_compare(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	struct kb_strv args = KB_STRV_INIT;
	const char *bench = NULL, *target = "local", *build = NULL, *kconfig = NULL;
	double scale = 1;
	long long boots = 3, seed = 1;
	int as_json = 0, accept_new = 0, ret;
	struct kb_opt opts[] = {
		{ "bench", OPT_STRING, &bench, "NAME|FILE",
		  "benchmark with a metric: a name from configs/benchmarks/ or a JSON file" },
		{ "n", OPT_INT, &boots, "N", "boots of each commit (default 3)", 2, 1000 },
		{ "json", OPT_FLAG, &as_json, NULL, "print one JSON object" },
		KB_CTX_OPTS(&c),
		{ "target", OPT_STRING, &target, "SPEC",
		  "where to test: local (default), libvirt[:URI], ssh://[user@]host[:port], "
		  "or a machine file" },
		{ "accept-new-host-key", OPT_FLAG, &accept_new, NULL,
		  "ssh target: accept the key of a host that is not in known_hosts yet "
		  "(never a changed key) and add it there" },
		{ "build", OPT_STRING, &build, "SPEC",
		  "kernel (the default in a kernel tree with a target that boots), none, "
		  "or a shell command run before each boot" },
		{ "kconfig", OPT_STRING, &kconfig, "FILE|NAME",
		  "base kernel config (default tinyconfig)" },
		{ "scale", OPT_NUMBER, &scale, "F",
		  "shrink (F < 1) or grow the built-in benchmarks (KBISECT_SCALE, default 1)" },
		{ "seed", OPT_INT, &seed, "N", "seed of the bootstrap intervals", 0, LLONG_MAX },
		{ 0 }
	};
	struct kb_spec spec;
	struct kb_session s;
	json_t *r;
	const char *wd;
	char real[PATH_MAX];

	kb_spec_init(&spec);
	if ((ret = kb_parse_opts(&help, opts, argc, argv, &args, NULL))) {
		ret = ret == 1 ? 0 : ret;
		goto out;
	}
	if (args.n != 2) {
		ret = kb_usage_error(&help, "needs two commits, A and B");
		goto out;
	}
	if (!bench) {
		ret = kb_usage_error(&help, "needs --bench");
		goto out;
	}
	if (!(scale > 0 && scale <= 1000)) {
		ret = kb_usage_error(&help, "--scale must be above 0 (and at most 1000)");
		goto out;
	}
	spec.scale = scale;
	if (kb_bench_load(&spec.bench, bench, kb_bench_dirs()) < 0)
		goto fail;
	if (!spec.bench.has_metric) {
		kb_error(KB_EINVAL, "benchmark %s has no metric: there is nothing to compare "
			 "(add a \"metric\" to it)", spec.bench.name);
		goto fail;
	}
	spec.kind = kb_strdup("compare");
	spec.compare_boots = (int)boots;
	kb_strv_push(&spec.good_specs, args.v[0]);
	spec.bad_spec = kb_strdup(args.v[1]);
	spec.seed = (unsigned long long)seed;
	spec.kconfig = kconfig ? kb_strdup(kconfig) : NULL;
	spec.fragments = kb_fragments_dir();
	if (kb_set_target(&spec, target) < 0 ||
	    kb_repo_open(&c.repo, c.repo_opt ? c.repo_opt : ".") < 0)
		goto fail;
	if (!build) {
		git_oid b;

		if (kb_repo_resolve(c.repo, spec.bad_spec, &b) < 0)
			goto fail;
		build = strcmp(kb_spec_target(&spec, 0), "local") && kb_is_kernel_tree(c.repo, &b) ?
			"kernel" : "none";
	}
	spec.build = kb_strdup(build);
	if (strcmp(kb_spec_target(&spec, 0), "local") && strcmp(spec.build, "kernel")) {
		kb_error(KB_EINVAL, "target %s boots the kernel of each commit: it needs "
			 "--build kernel (the default in a kernel tree)", kb_spec_target(&spec, 0));
		goto fail;
	}
	wd = git_repository_workdir(c.repo);
	if (!realpath(wd ? wd : git_repository_path(c.repo), real)) {
		kb_error_errno(KB_ERROR, "cannot resolve the repository path");
		goto fail;
	}
	spec.repo = kb_strdup(real);
	if (kb_ctx_open(&c, KB_STORE_CREATE | KB_STORE_LOCK) < 0 ||
	    kb_compare_open(&s, c.store, c.statedir, &spec, c.repo) < 0)
		goto fail;
	s.progress = kb_progress_for_stderr();
	s.guest_init = kb_guest_init();
	s.accept_new_host_key = accept_new;
	s.stop = &kb_stop_requested;
	kb_install_signals();
	ret = kb_session_run(&s);
	kb_progress_done();
	if (ret < 0 || kb_session_report(&s, &r) < 0) {
		kb_session_release(&s);
		goto fail;
	}
	if (as_json) {
		kb_print_json(r);
	} else {
		print_compare(r, stdout);
	}
	ret = !strcmp(kb_str(r, "verdict"), "regression") ? KB_EXIT_CULPRIT : KB_EXIT_NO_CULPRIT;
	json_decref(r);
	kb_session_release(&s);
	goto out;
fail:
	ret = kb_fail("compare");
out:
	kb_spec_release(&spec);
	kb_strv_clear(&args);
	kb_ctx_release(&c);
	return ret;
}
