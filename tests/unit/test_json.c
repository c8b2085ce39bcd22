/* JSON text with short reals (lib/json.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "test.h"

static int dumps_as(json_t *o, const char *want)
{
	char *got = kb_json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	int ok = got && !strcmp(got, want);

	if (!ok)
		fprintf(stderr, "# got %s, want %s\n", got ? got : "(null)", want);
	free(got);
	json_decref(o);
	return ok;
}

TEST(test_json__reals_shortest)
{
	CHECK(dumps_as(json_pack("{s:f, s:f, s:f, s:f, s:f}", "a", 0.95, "b", 1.0, "c", 1e-7,
				 "d", -2.5e22, "e", 1.0 / 3),
		       "{\"a\":0.95,\"b\":1.0,\"c\":1e-07,\"d\":-2.5e+22,"
		       "\"e\":0.3333333333333333}"));
	/* integers, and numbers inside strings, as they are */
	CHECK(dumps_as(json_pack("[i, s, s]", -12, "0.94999999999999996", "x\"1.10000000000000009"),
		       "[-12,\"0.94999999999999996\",\"x\\\"1.10000000000000009\"]"));
}

TEST(test_json__reals_read_back)
{
	/* every real reads back as the same double, and stays a real */
	double v[] = { 0.1, 97.656, 5.543159314140134, 1e300, 4.9e-324, -0.0, 123456789.0 };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		json_t *o = json_pack("[f]", v[i]), *back;
		char *text = kb_json_dumps(o, JSON_COMPACT);

		CHECK(text);
		back = json_loads(text, 0, NULL);
		CHECK(back && json_is_real(json_array_get(back, 0)));
		CHECK(json_real_value(json_array_get(back, 0)) == v[i]);
		json_decref(back);
		json_decref(o);
		free(text);
	}
}

TEST(test_json__real_text)
{
	char b[32];

	kb_real_text(97.656, b, sizeof(b));
	CHECK(!strcmp(b, "97.656"));
	kb_real_text(3, b, sizeof(b));
	CHECK(!strcmp(b, "3"));
	kb_real_text(0.1 + 0.2, b, sizeof(b));
	CHECK(!strcmp(b, "0.30000000000000004"));
	/* written out, as on a command line: not 3e+01 */
	kb_real_text(30, b, sizeof(b));
	CHECK_MSG(!strcmp(b, "30"), "%s", b);
	kb_real_text(1500, b, sizeof(b));
	CHECK_MSG(!strcmp(b, "1500"), "%s", b);
	kb_real_text(-200, b, sizeof(b));
	CHECK_MSG(!strcmp(b, "-200"), "%s", b);
	kb_real_text(1e-5, b, sizeof(b));
	CHECK_MSG(!strcmp(b, "1e-05"), "%s", b);
	kb_real_text(1e20, b, sizeof(b));
	CHECK_MSG(!strcmp(b, "1e+20"), "%s", b);
}
