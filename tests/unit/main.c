#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "test.h"
#include "util.h"

struct test {
	const char *name;
	void (*fn)(void);
};

static struct test tests[512];
static size_t ntests;
static int failed, skipped;
static char skip_why[256];
static char dir[4096];

void kb_test_register(const char *name, void (*fn)(void))
{
	if (ntests < sizeof(tests) / sizeof(tests[0]))
		tests[ntests++] = (struct test){ name, fn };
}

void kb_test_fail(const char *file, int line, const char *what)
{
	printf("# %s:%d: check failed: %s\n", file, line, what);
	if (*kb_error_last())
		printf("# last error: %s\n", kb_error_last());
	failed = 1;
}

void kb_test_skip(const char *why)
{
	snprintf(skip_why, sizeof(skip_why), "%s", why);
	skipped = 1;
}

const char *kb_test_dir(void)
{
	return dir;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct test *)a)->name, ((const struct test *)b)->name);
}

int main(int argc, char **argv)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	size_t i, n = 0;
	int nfail = 0;

	git_libgit2_init();
	qsort(tests, ntests, sizeof(tests[0]), by_name);
	for (i = 0; i < ntests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		n++;
		snprintf(dir, sizeof(dir), "%s/kbisect-unit-%ld-%zu", base, (long)getpid(), i);
		kb_remove_tree(dir);
		kb_mkdir_p(dir, 0700);
		failed = skipped = 0;
		kb_error_clear();
		tests[i].fn();
		if (skipped) {
			printf("ok %zu # skip %s (%s)\n", n, tests[i].name, skip_why);
		} else if (failed) {
			printf("not ok %zu - %s\n", n, tests[i].name);
			printf("# files kept in %s\n", dir);
			nfail++;
		} else {
			printf("ok %zu - %s\n", n, tests[i].name);
		}
		if (!failed)
			kb_remove_tree(dir);
		fflush(stdout);
	}
	printf("1..%zu\n", n);
	return nfail ? 1 : 0;
}
