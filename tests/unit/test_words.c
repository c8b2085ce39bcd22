#include <string.h>

#include "session.h"
#include "test.h"

TEST(test_words__quoting)
{
	struct kb_strv w = KB_STRV_INIT;

	CHECK(kb_split_words("run  'a b' \"c \\\"d\\\"\" e\\ f '' # tail", &w) == 0);
	CHECK(w.n == 5);
	CHECK(!strcmp(w.v[0], "run") && !strcmp(w.v[1], "a b") &&
	      !strcmp(w.v[2], "c \"d\"") && !strcmp(w.v[3], "e f") && !strcmp(w.v[4], ""));
	kb_strv_clear(&w);
	CHECK(kb_split_words("'$(rm -rf /)' `x` ;", &w) == 0);
	CHECK(w.n == 3 && !strcmp(w.v[0], "$(rm -rf /)") && !strcmp(w.v[1], "`x`"));
	kb_strv_clear(&w);
	CHECK(kb_split_words("bad 'open", &w) == KB_EINVAL);
	kb_strv_clear(&w);
}

TEST(test_words__quote_roundtrip)
{
	const char *samples[] = { "plain", "with space", "it's", "$(x);`y`\n\"z\"", "", NULL };
	size_t i;

	for (i = 0; samples[i]; i++) {
		struct kb_buf b = KB_BUF_INIT;
		struct kb_strv w = KB_STRV_INIT;

		kb_buf_add_quoted(&b, samples[i], KB_QUOTE_BARE);
		CHECK(kb_split_words(b.ptr, &w) == 0);
		CHECK_MSG(w.n == 1 && !strcmp(w.v[0], samples[i]), "sample %zu: %s", i, b.ptr);
		kb_strv_clear(&w);
		kb_buf_release(&b);
	}
}
