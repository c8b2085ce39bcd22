/*
 * fuzz_bench.c - kb_bench_parse() on any text: a benchmark file.
 *
 * A benchmark that parses has what the engine relies on: a name, a command
 * (argv ended by NULL), run counts in their ranges, a complete metric when
 * there is one, secondary metrics only beside it, each complete and named
 * apart from the others, and a stored definition (b->json) that parses again into
 * the same benchmark, as a session does when it is resumed.  A benchmark
 * that does not parse is KB_EINVAL with a message and leaves b zeroed.
 */
#include <math.h>

#include "bench.h"
#include "fuzz.h"

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_strv(const struct kb_strv *a, const struct kb_strv *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]))
			return 0;
	return 1;
}

static void check_metric(const struct kb_metric *m)
{
	FUZZ_CHECK(m->name && m->unit);
	FUZZ_CHECK(!m->json_path != !m->regex);
	FUZZ_CHECK(m->direction == KB_LOWER_IS_BETTER || m->direction == KB_HIGHER_IS_BETTER);
}

static void check_bench(const struct kb_bench *b)
{
	size_t i, j;

	FUZZ_CHECK(b->name);
	FUZZ_CHECK(b->argv.n >= 1 && b->argv.v && !b->argv.v[b->argv.n]);
	for (i = 0; i < b->argv.n; i++)
		FUZZ_CHECK(b->argv.v[i]);
	FUZZ_CHECK(!b->setup.n || !b->setup.v[b->setup.n]);
	FUZZ_CHECK(b->json && *b->json == '{');
	FUZZ_CHECK(b->warmup >= 0 && b->warmup <= 1000);
	FUZZ_CHECK(b->runs_per_boot >= 1 && b->runs_per_boot <= 100000);
	FUZZ_CHECK(b->warmup < b->runs_per_boot || !b->has_metric);
	FUZZ_CHECK(isfinite(b->timeout) && b->timeout >= 0);
	if (b->has_metric) {
		check_metric(&b->metric);
		FUZZ_CHECK(b->runs_per_boot - b->warmup >= 2);
	} else {
		FUZZ_CHECK(!b->metric.name && !b->metric.json_path && !b->metric.regex);
	}
	FUZZ_CHECK(b->has_metric || !b->nmetrics);
	FUZZ_CHECK(b->nmetrics <= KB_BENCH_MAX_METRICS);
	for (i = 0; i < b->nmetrics; i++) {
		check_metric(&b->metrics[i]);
		FUZZ_CHECK(strcmp(b->metrics[i].name, b->metric.name));
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(b->metrics[i].name, b->metrics[j].name));
	}
}

static void check_same(const struct kb_bench *a, const struct kb_bench *b)
{
	FUZZ_CHECK(same_str(a->name, b->name));
	FUZZ_CHECK(same_str(a->description, b->description));
	FUZZ_CHECK(same_strv(&a->setup, &b->setup));
	FUZZ_CHECK(same_strv(&a->argv, &b->argv));
	FUZZ_CHECK(a->has_metric == b->has_metric);
	FUZZ_CHECK(same_str(a->metric.name, b->metric.name));
	FUZZ_CHECK(same_str(a->metric.json_path, b->metric.json_path));
	FUZZ_CHECK(same_str(a->metric.regex, b->metric.regex));
	FUZZ_CHECK(same_str(a->metric.unit, b->metric.unit));
	FUZZ_CHECK(a->metric.direction == b->metric.direction);
	FUZZ_CHECK(a->nmetrics == b->nmetrics);
	for (size_t i = 0; i < a->nmetrics && i < b->nmetrics; i++) {
		FUZZ_CHECK(same_str(a->metrics[i].name, b->metrics[i].name));
		FUZZ_CHECK(same_str(a->metrics[i].json_path, b->metrics[i].json_path));
		FUZZ_CHECK(same_str(a->metrics[i].regex, b->metrics[i].regex));
		FUZZ_CHECK(same_str(a->metrics[i].unit, b->metrics[i].unit));
		FUZZ_CHECK(a->metrics[i].direction == b->metrics[i].direction);
	}
	FUZZ_CHECK(a->warmup == b->warmup && a->runs_per_boot == b->runs_per_boot);
	FUZZ_CHECK(a->timeout == b->timeout);
	FUZZ_CHECK(!strcmp(a->json, b->json));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct kb_bench b, again;
	int ret;

	ret = kb_bench_parse(&b, text, "fuzz.json");
	if (ret == 0) {
		FUZZ_CHECK(!*kb_error_last());
		check_bench(&b);
		/* the session stores b.json and parses it when it is resumed */
		ret = kb_bench_parse(&again, b.json, "(stored in the session)");
		FUZZ_CHECK(ret == 0);
		check_same(&b, &again);
		kb_bench_release(&again);
		kb_bench_release(&b);
	} else {
		FUZZ_CHECK_FAILED(ret);
		FUZZ_CHECK(strstr(kb_error_last(), "fuzz.json"));
		FUZZ_CHECK(!b.name && !b.argv.n && !b.json && !b.has_metric && !b.metrics &&
			   !b.nmetrics);
	}
	FUZZ_CHECK(!b.name && !b.json);
	kb_error_clear();
	free(text);
	return 0;
}
