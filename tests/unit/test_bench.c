#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "test.h"

TEST(test_bench__parse_full)
{
	struct kb_bench b;
	const char *t = "{\"name\":\"x\",\"description\":\"d\",\"setup\":[\"mkfs\",\"mount\"],"
		"\"command\":[\"fio\",\"--name=a\"],\"metric\":{\"name\":\"lat\","
		"\"json_path\":\"jobs[0].clat\",\"direction\":\"lower\",\"unit\":\"ns\"},"
		"\"warmup\":2,\"runs_per_boot\":5,\"timeout\":60}";

	CHECK(kb_bench_parse(&b, t, "t") == 0);
	CHECK(!strcmp(b.name, "x") && b.setup.n == 2 && b.argv.n == 2);
	CHECK(!strcmp(b.argv.v[0], "fio") && b.argv.v[2] == NULL);
	CHECK(b.has_metric && b.metric.direction == KB_LOWER_IS_BETTER);
	CHECK(b.warmup == 2 && b.runs_per_boot == 5 && b.timeout == 60);
	CHECK(strstr(b.json, "\"runs_per_boot\":5"));
	kb_bench_release(&b);
}

TEST(test_bench__string_command_runs_in_sh)
{
	struct kb_bench b;

	CHECK(kb_bench_parse(&b, "{\"name\":\"x\",\"command\":\"make test\"}", "t") == 0);
	CHECK(b.argv.n == 3 && !strcmp(b.argv.v[0], "/bin/sh") &&
	      !strcmp(b.argv.v[2], "make test"));
	CHECK(!b.has_metric && b.runs_per_boot == 1);
	kb_bench_release(&b);
}

static int fails_with(const char *text, const char *needle)
{
	struct kb_bench b;
	int r = kb_bench_parse(&b, text, "f.json");

	return r == KB_EINVAL && strstr(kb_error_last(), needle) &&
	       strstr(kb_error_last(), "f.json");
}

TEST(test_bench__errors_name_the_field)
{
	CHECK(fails_with("{\"name\":\"x\"}", "'command' is missing"));
	CHECK(fails_with("{\"command\":\"x\"}", "'name' is missing"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"comand\":1}", "'comand'"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":5}", "'command'"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			 "\"regex\":\"a\",\"direction\":\"up\"}}", "metric.direction"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			 "\"direction\":\"lower\"}}", "json_path"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			 "\"regex\":\"(\",\"direction\":\"lower\"}}", "regular expression"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			 "\"regex\":\"a\",\"direction\":\"lower\",\"units\":\"s\"}}",
			 "metric.units"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"runs_per_boot\":0}",
			 "runs_per_boot"));
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"timeout\":\"5\"}", "timeout"));
	CHECK(fails_with("{\"name\":\"x\",", "line 1"));
	CHECK(fails_with("[1,2]", "JSON object"));
	CHECK(fails_with("{\"name\":\"x\",\"name\":\"y\",\"command\":\"z\"}", "duplicate"));
}

TEST(test_bench__load_by_name_and_missing)
{
	struct kb_bench b;
	char *dir = kb_asprintf("%s/benchmarks", kb_test_dir());
	char *file = kb_asprintf("%s/mine.json", dir);
	char *dirs = kb_asprintf("/nonexistent:%s", dir);

	CHECK(kb_mkdir_p(dir, 0755) == 0);
	CHECK(kb_write_file_atomic(file, "{\"name\":\"mine\",\"command\":\"true\"}", 33, 0644) == 0);
	CHECK(kb_bench_load(&b, "mine", dirs) == 0 && !strcmp(b.name, "mine"));
	kb_bench_release(&b);
	CHECK(kb_bench_load(&b, file, NULL) == 0);
	kb_bench_release(&b);
	CHECK(kb_bench_load(&b, "other", dirs) == KB_ENOTFOUND);
	CHECK(strstr(kb_error_last(), "no benchmark named 'other'"));
	CHECK(kb_bench_load(&b, "/nonexistent/x.json", NULL) == KB_ENOTFOUND);
	free(dir);
	free(file);
	free(dirs);
}

TEST(test_bench__extract)
{
	struct kb_bench b;
	double v = 0;

	CHECK(kb_bench_parse(&b, "{\"name\":\"j\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			     "\"json_path\":\"jobs[1].write.clat.p99\",\"direction\":\"lower\"}}",
			     "t") == 0);
	CHECK(kb_metric_extract(&b, "noise before\n{\"jobs\":[{},{\"write\":{\"clat\":"
				"{\"p99\":123.5}}}]}\ntrailer", &v) == 0 && v == 123.5);
	CHECK(kb_metric_extract(&b, "{\"jobs\":[]}", &v) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "jobs[1].write.clat.p99"));
	CHECK(kb_metric_extract(&b, "garbage \x01 output", &v) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "benchmark j") && strstr(kb_error_last(), "garbage"));
	kb_bench_release(&b);
	CHECK(kb_bench_parse(&b, "{\"name\":\"r\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			     "\"regex\":\"real ([0-9.]+)s\",\"direction\":\"lower\"}}", "t") == 0);
	CHECK(kb_metric_extract(&b, "user 1.0s\nreal 2.25s\n", &v) == 0 && v == 2.25);
	CHECK(kb_metric_extract(&b, "real NaNs", &v) == KB_EINVAL);
	CHECK(kb_metric_extract(&b, "nothing", &v) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "did not match"));
	kb_bench_release(&b);
	/* fio's percentiles are keys with dots */
	CHECK(kb_bench_parse(&b, "{\"name\":\"p\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			     "\"json_path\":\"jobs[0].write.clat_ns.percentile[\\\"99.000000\\\"]\","
			     "\"direction\":\"lower\"}}", "t") == 0);
	CHECK(kb_metric_extract(&b, "{\"jobs\":[{\"write\":{\"clat_ns\":{\"percentile\":"
				"{\"1.000000\":5,\"99.000000\":4096}}}}]}", &v) == 0 && v == 4096);
	CHECK(kb_metric_extract(&b, "{\"jobs\":[{\"write\":{\"clat_ns\":{\"percentile\":"
				"{\"99.0\":1}}}}]}", &v) == KB_EINVAL);
	kb_bench_release(&b);
}

/* A pass/fail benchmark has no metric to extract: an error, not a crash. */
TEST(test_bench__extract_without_metric)
{
	struct kb_bench b;
	double v = 0;

	CHECK(kb_bench_from_command(&b, "true") == 0 && !b.has_metric);
	CHECK(kb_metric_extract(&b, "value: 5\n{\"x\":1}", &v) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "benchmark command has no metric"));
	kb_bench_release(&b);
}

static int regex_parses(const char *regex)
{
	struct kb_bench b;
	char *t = kb_asprintf("{\"name\":\"x\",\"command\":\"y\",\"metric\":{\"name\":\"m\","
			      "\"regex\":\"%s\",\"direction\":\"lower\"}}", regex);
	int r = kb_bench_parse(&b, t, "f.json");

	free(t);
	if (!r)
		kb_bench_release(&b);
	return r;
}

/* regcomp() expands bounds: nested ones took seconds and gigabytes. */
TEST(test_bench__regex_that_repeats_too_much)
{
	char deep[80];

	CHECK(regex_parses("((a{1,255}){1,255}){1,255}") == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "benchmark f.json: field 'metric.regex' repeats too much"));
	CHECK(regex_parses("(a{1,32767})") == KB_EINVAL);
	CHECK(regex_parses("a{1,1001}") == KB_EINVAL);
	CHECK(regex_parses("(x+){600}") == KB_EINVAL);
	CHECK(regex_parses("(ab|c{1,40}){1,40}") == KB_EINVAL);
	/* found by tests/fuzz/fuzz_bench: optional parts of an optional part */
	CHECK(regex_parses("m.??????????????????????????*????????????{1,255}") == KB_EINVAL);
	/* and an empty group doubled by '+': 2 GB */
	CHECK(regex_parses("()+++++++++{1,255}") == KB_EINVAL);
	CHECK(regex_parses("(|)++++++++++++") == KB_EINVAL);
	/* and a repeat of a bound of parts that may match nothing: minutes */
	CHECK(regex_parses("~~~~~-,254~~@()+-,254~~@(){1,255}+3+944,252}") == KB_EINVAL);
	CHECK(regex_parses("(){1,100}+") == KB_EINVAL);
	CHECK(regex_parses("(a?){1,255}*") == KB_EINVAL);
	CHECK(regex_parses("(){1,31}+(){1,31}+(){1,31}+") == KB_EINVAL);
	CHECK(regex_parses("((a?){1,20}+){1,10}") == KB_EINVAL);
	CHECK(regex_parses("~~~@()+{1,255})))))))))))") == KB_EINVAL);
	CHECK(regex_parses("(){1,10}+") == 0);
	/* and a bound with no lower count */
	CHECK(regex_parses("(a{,13277})") == KB_EINVAL);
	CHECK(regex_parses("a{,9}") == 0);
	/* and a bound with a backslash before its comma or a digit, which
	 * glibc passes over */
	CHECK(regex_parses("(){1\\\\,255}+") == KB_EINVAL);
	CHECK(regex_parses("(a)){\\\\,19182})") == KB_EINVAL);
	CHECK(regex_parses("PPeP(a)){\\\\0,8202})") == KB_EINVAL);
	/* all refused for their escapes now: a backslash may go only before
	 * a special character or a class letter */
	CHECK(regex_parses("a{1\\\\,9}") == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "field 'metric.regex' has the escape '\\,'"));
	CHECK(regex_parses("(a)\\\\1") == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "escape '\\1'"));
	CHECK(regex_parses("a\\\\") == KB_EINVAL);
	CHECK(regex_parses("a\\\\n") == KB_EINVAL);
	CHECK(regex_parses("time\\\\.([0-9]+)\\\\s\\\\(\\\\w+\\\\)") == 0);
	CHECK(regex_parses("[\\\\1]x") == 0);
	memset(deep, '(', 33);
	strcpy(deep + 33, "a");
	memset(deep + 34, ')', 33);
	deep[67] = '\0';
	CHECK(regex_parses(deep) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "nests groups deeper than 32"));
	/* anchors in a repeated group, which regex_copies() counts as a few
	 * parts: glibc's compiler works out their closures again and again,
	 * about twelve times as long for each pair more (four pairs: 7 s
	 * here, five: minutes).  Tried in a child process limited in CPU. */
	CHECK(regex_parses("(\\\\b\\\\B\\\\b\\\\B\\\\b\\\\B\\\\b\\\\B\\\\b\\\\B)*") == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "field 'metric.regex' is a regex the C library does "
		     "not compile in 250 ms of CPU"));
	CHECK(regex_parses("(\\\\b\\\\B)*") == 0);
	/* what metric regexes look like */
	CHECK(regex_parses("elapsed_ms ([0-9]+)") == 0);
	CHECK(regex_parses("([[:digit:]]{1,3}[.]){3}[0-9]+") == 0);
	CHECK(regex_parses("(a{1,10}){1,3}") == 0);
	CHECK(regex_parses("([0-9]+[.]){3}[0-9]+") == 0);
	CHECK(regex_parses("[{]{1,990} x{2,}") == 0);
	CHECK(regex_parses(deep + 1) == 0);
}

/* A primary metric of the shape the tests below take, then 'rest'. */
static char *with_metrics(const char *rest)
{
	return kb_asprintf("{\"name\":\"x\",\"command\":\"y\",\"metric\":{\"name\":\"p99\","
			   "\"json_path\":\"a.p99\",\"direction\":\"lower\"}%s}", rest);
}

TEST(test_bench__secondary_metrics)
{
	struct kb_bench b, again;
	char *t = with_metrics(",\"metrics\":[{\"name\":\"p50\",\"json_path\":\"a.p50\","
			       "\"direction\":\"lower\",\"unit\":\"ns\"},{\"name\":\"iops\","
			       "\"regex\":\"iops=([0-9.]+)\",\"direction\":\"higher\"}]");

	CHECK_MSG(kb_bench_parse(&b, t, "t") == 0, "%s", kb_error_last());
	free(t);
	CHECK(b.has_metric && !strcmp(b.metric.name, "p99") && b.nmetrics == 2);
	CHECK(!strcmp(b.metrics[0].name, "p50") && !strcmp(b.metrics[0].json_path, "a.p50") &&
	      !b.metrics[0].regex && !strcmp(b.metrics[0].unit, "ns") &&
	      b.metrics[0].direction == KB_LOWER_IS_BETTER);
	CHECK(!strcmp(b.metrics[1].name, "iops") && !b.metrics[1].json_path &&
	      !strcmp(b.metrics[1].regex, "iops=([0-9.]+)") && !strcmp(b.metrics[1].unit, "") &&
	      b.metrics[1].direction == KB_HIGHER_IS_BETTER);
	/* the definition stored in a session keeps them */
	CHECK(strstr(b.json, "\"metrics\":[{"));
	CHECK(kb_bench_parse(&again, b.json, "stored") == 0 && again.nmetrics == 2 &&
	      !strcmp(again.metrics[1].name, "iops"));
	kb_bench_release(&again);
	kb_bench_release(&b);
	CHECK(!b.metrics && !b.nmetrics);
	/* none is as good as no key */
	t = with_metrics(",\"metrics\":[]");
	CHECK(kb_bench_parse(&b, t, "t") == 0 && b.nmetrics == 0);
	kb_bench_release(&b);
	free(t);
}

static int metrics_fail_with(const char *rest, const char *needle)
{
	char *t = with_metrics(rest);
	int r = fails_with(t, needle);

	free(t);
	return r;
}

TEST(test_bench__secondary_metrics_errors_name_the_field)
{
	char many[4096] = ",\"metrics\":[";
	size_t i;

	CHECK(metrics_fail_with(",\"metrics\":{}", "field 'metrics' must be an array"));
	CHECK(metrics_fail_with(",\"metrics\":[5]", "field 'metrics[0]' must be an object"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"json_path\":\"a\",\"direction\":\"lower\"}]",
				"field 'metrics[0].name' is missing"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":1,\"json_path\":\"a\","
				"\"direction\":\"lower\"}]", "field 'metrics[0].name' must be a string"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"a\",\"json_path\":\"a\","
				"\"direction\":\"lower\"},{\"name\":\"b\",\"regex\":\"(\","
				"\"direction\":\"lower\"}]",
				"field 'metrics[1].regex' is not a valid regular expression"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"a\",\"regex\":\"((a{1,255}){1,255})\","
				"\"direction\":\"lower\"}]", "field 'metrics[0].regex' repeats too much"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"a\",\"json_path\":\"a\","
				"\"direction\":\"down\"}]", "field 'metrics[0].direction' must be"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"a\",\"direction\":\"lower\"}]",
				"field 'metrics[0]' needs exactly one of 'json_path' and 'regex'"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"a\",\"json_path\":\"a\","
				"\"regex\":\"a\",\"direction\":\"lower\"}]", "exactly one"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"a\",\"json_path\":\"a\","
				"\"direction\":\"lower\",\"units\":\"s\"}]",
				"unknown field 'metrics[0].units'"));
	/* names: unique, and not the primary's */
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"p99\",\"json_path\":\"a\","
				"\"direction\":\"lower\"}]",
				"field 'metrics[0].name' is \"p99\", the name of the primary metric"));
	CHECK(metrics_fail_with(",\"metrics\":[{\"name\":\"a\",\"json_path\":\"a\","
				"\"direction\":\"lower\"},{\"name\":\"b\",\"json_path\":\"b\","
				"\"direction\":\"lower\"},{\"name\":\"a\",\"json_path\":\"c\","
				"\"direction\":\"higher\"}]",
				"field 'metrics[2].name' is \"a\", as 'metrics[0].name' is"));
	for (i = 0; i <= KB_BENCH_MAX_METRICS; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "%s{\"name\":\"m%zu\",\"json_path\":\"a\",\"direction\":\"lower\"}",
			 i ? "," : "", i);
	strcat(many, "]");
	CHECK(metrics_fail_with(many, "at most 32"));
	/* the primary metric decides: secondary ones need it */
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"metrics\":[{\"name\":\"a\","
			 "\"json_path\":\"a\",\"direction\":\"lower\"}]}",
			 "field 'metrics' needs a 'metric' beside it"));
	/* and the primary's own errors name its fields */
	CHECK(fails_with("{\"name\":\"x\",\"command\":\"y\",\"metric\":{\"regex\":\"a\","
			 "\"direction\":\"lower\"}}", "field 'metric.name' is missing"));
}

TEST(test_bench__extract_secondary)
{
	struct kb_bench b;
	char *t = with_metrics(",\"metrics\":[{\"name\":\"p50\",\"json_path\":"
			       "\"a.p50\",\"direction\":\"lower\"},{\"name\":\"iops\","
			       "\"regex\":\"iops=([0-9.]+)\",\"direction\":\"higher\"}]");
	double v = 0;

	CHECK(kb_bench_parse(&b, t, "t") == 0);
	free(t);
	CHECK(kb_metric_extract(&b, "{\"a\":{\"p99\":9,\"p50\":\"5.5\"}}", &v) == 0 && v == 9);
	CHECK(kb_metric_extract_one(&b, &b.metric, "{\"a\":{\"p99\":9}}", &v) == 0 && v == 9);
	CHECK(kb_metric_extract_one(&b, &b.metrics[0], "{\"a\":{\"p99\":9,\"p50\":\"5.5\"}}",
				    &v) == 0 && v == 5.5);
	/* a secondary metric's error names it; the primary's as before */
	CHECK(kb_metric_extract_one(&b, &b.metrics[0], "{\"a\":{\"p99\":9}}", &v) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "benchmark x: metric p50: no number at 'a.p50'"));
	CHECK(kb_metric_extract_one(&b, &b.metrics[1], "{\"a\":{}} iops=12.5", &v) == 0 &&
	      v == 12.5);
	CHECK(kb_metric_extract_one(&b, &b.metrics[1], "no rate", &v) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "benchmark x: metric iops: metric regex did not match"));
	CHECK(kb_metric_extract(&b, "{\"a\":{}}", &v) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "benchmark x: no number at 'a.p99'"));
	kb_bench_release(&b);
}
