/*
 * fuzz_metric.c - kb_metric_extract() on any benchmark output.
 *
 * The first byte picks a benchmark: one of the metrics below (those of
 * configs/benchmarks/ and the JSON-path and regex forms the tests use), a
 * pass/fail benchmark with no metric, or a JSON-path metric whose path is
 * the input's first line after that byte.  The rest of the input is the
 * output of a run.  A value extracted is finite; a failure is KB_EINVAL
 * with a message naming the benchmark; extracting twice gives the same.
 */
#include <math.h>

#include <jansson.h>

#include "bench.h"
#include "fuzz.h"

static const struct {
	const char *kind, *expr;
} metrics[] = {
	{ "json_path", "jobs[0].write.iops" },
	{ "json_path", "jobs[0].write.clat_ns.mean" },
	{ "json_path", "jobs[0].write.clat_ns.percentile[\"99.000000\"]" },
	{ "json_path", "a.b[2].c" },
	{ "json_path", "[0]" },
	{ "json_path", "x" },
	{ "regex", "elapsed_ms ([0-9]+)" },
	{ "regex", "value: ([0-9]+)" },
	{ "regex", "real ([0-9.]+)s" },
	{ "regex", "([0-9]+(\\.[0-9]+)?) ops/s" },
	{ "regex", "[-+0-9.e]+" },
	{ "regex", "(x)?([0-9.]*)" },
	{ "regex", "^$" },
	{ "json_path", "jobs[0].write.clat_ns.percentile[\"50.000000\"]" },
	{ "json_path", "jobs[0].sync.lat_ns.mean" },
	{ "json_path", "jobs[0].sync.lat_ns.percentile[\"99.000000\"]" },
	{ NULL, NULL },         /* no metric: pass/fail by exit status */
	{ "json_path", NULL },  /* the path is the input's first line */
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

/* Parse a benchmark with the metric 'kind' = 'expr' (NULL: no metric). */
static int make_bench(struct kb_bench *b, const char *kind, const char *expr)
{
	json_t *o;
	char *text;
	int ret;

	if (!kind)
		return kb_bench_from_command(b, "true");
	o = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "name", "fuzz", "command", "true",
		      "metric", "name", "m", kind, expr, "direction", "lower");
	if (!o)
		return -1;      /* a path that is not UTF-8 */
	text = json_dumps(o, JSON_COMPACT);
	ret = kb_bench_parse(b, text, "fuzz");
	free(text);
	json_decref(o);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *output, *path = NULL;
	struct kb_bench b;
	double value = NAN, again = NAN;
	size_t pick;
	int ret, ret2;

	if (!size)
		return 0;
	pick = data[0] % NMETRICS;
	text = fuzz_text(data + 1, size - 1);
	output = text;
	if (metrics[pick].kind && !metrics[pick].expr) {
		char *nl = strchr(text, '\n');

		if (!nl) {
			free(text);
			return 0;
		}
		path = kb_strndup(text, (size_t)(nl - text));
		output = nl + 1;
	}
	ret = make_bench(&b, metrics[pick].kind, path ? path : metrics[pick].expr);
	kb_error_clear();
	if (ret < 0) {
		/* only a path of the input may be refused */
		FUZZ_CHECK(path);
		goto out;
	}
	ret = kb_metric_extract(&b, output, &value);
	if (ret == 0) {
		FUZZ_CHECK(b.has_metric);
		FUZZ_CHECK(isfinite(value));
		FUZZ_CHECK(!*kb_error_last());
	} else {
		FUZZ_CHECK_FAILED(ret);
		FUZZ_CHECK(strstr(kb_error_last(), "benchmark "));
	}
	kb_error_clear();
	ret2 = kb_metric_extract(&b, output, &again);
	FUZZ_CHECK(ret2 == ret);
	FUZZ_CHECK(ret || again == value);
	kb_bench_release(&b);
out:
	kb_error_clear();
	free(path);
	free(text);
	return 0;
}
