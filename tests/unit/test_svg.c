#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "test.h"

#define GOOD "1111111111111111111111111111111111111111"
#define P1 "2222222222222222222222222222222222222222"
#define P2 "3333333333333333333333333333333333333333"
#define P3 "4444444444444444444444444444444444444444"
#define BAD "5555555555555555555555555555555555555555"
#define REV "6666666666666666666666666666666666666666"

/* A step of a performance report: 'n' samples from v, a position unless
 * pos < 0. */
static json_t *step(const char *commit, const char *role, const char *decision, int pos,
		    const double *v, size_t n)
{
	json_t *s = json_pack("{s:s, s:s, s:s, s:[], s:i, s:s}", "commit", commit,
			      "role", role, "decision", decision, "samples", "boots",
			      n ? 1 : 0, "subject", "a commit");
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(json_object_get(s, "samples"), json_real(v[i]));
	if (pos >= 0)
		json_object_set_new(s, "position", json_integer(pos));
	return s;
}

static const double lo[] = { 100.2, 99.1, 101.4, 100.0, 98.7 };
static const double hi[] = { 105.3, 104.9, 106.0, 105.1, 104.2 };

/* GOOD, two probes, BAD, a skipped probe and the revert, listed in the
 * order a bisection measures them (not history order); P2 is the culprit. */
static json_t *report(const char *verdict, const char *subject)
{
	json_t *steps = json_array(), *r;

	json_array_append_new(steps, step(GOOD, "good", "good", 0, lo, 5));
	json_array_append_new(steps, step(BAD, "bad", "bad", 4, hi, 5));
	json_array_append_new(steps, step(P2, "probe", "bad", 2, hi, 5));
	json_array_append_new(steps, step(P1, "probe", "good", 1, lo, 5));
	json_array_append_new(steps, step(REV, "revert", "unknown", -1, lo, 5));
	json_array_append_new(steps, step(P3, "probe", "skip", 3, NULL, 0));
	r = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:{s:s, s:s, s:s}, s:o, s:[]}",
		      "version", 1, "mode", "performance", "verdict", verdict,
		      "good", GOOD, "bad", BAD, "range", 4, "bench", "noisy",
		      "metric", "name", "latency", "unit", "ms", "direction", "lower",
		      "steps", steps, "culprits");
	if (!strcmp(verdict, "culprit") || !strcmp(verdict, "inconclusive"))
		json_array_append_new(json_object_get(r, "culprits"), json_pack(
			"{s:s, s:s, s:f, s:s}", "commit", P2, "parent", P1,
			"delta_pct", 5.04, "subject", subject));
	if (!strcmp(verdict, "inconclusive"))
		json_object_set_new(r, "reason", json_string("the likely culprit failed "
							     "its check"));
	if (!strcmp(verdict, "no-regression"))
		json_object_set_new(r, "reason", json_string("GOOD and BAD measure the same"));
	return r;
}

/* The x of the label of a commit (by its 12-character id), -1 if none. */
static double label_x(const char *svg, const char *commit)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "id=\"commit-%.12s\" x=\"", commit);
	p = strstr(svg, key);
	return p ? strtod(p + strlen(key), NULL) : -1;
}

static int well_formed(const char *s, size_t len)
{
	return !strncmp(s, "<?xml", 5) && strstr(s, "<svg ") && len > 7 &&
		!strcmp(s + len - 7, "</svg>\n") && !strstr(s, "nan") && !strstr(s, "inf");
}

TEST(test_svg__culprit_marked_and_named)
{
	json_t *r = report("culprit", "namei: pace file creation");
	struct kb_buf b = KB_BUF_INIT;

	CHECK(kb_svg_report(r, &b) == 0);
	CHECK(well_formed(b.ptr, b.len));
	CHECK(strstr(b.ptr, "viewBox=\"0 0 900 500\""));
	CHECK(strstr(b.ptr, "<g id=\"culprit\""));
	CHECK(!strstr(b.ptr, "id=\"culprit-2\""));
	CHECK(strstr(b.ptr, "culprit <tspan font-family=\"monospace\">333333333333</tspan>"
		     "</tspan> namei: pace file creation +5.0%"));
	/* title: benchmark, metric, unit, direction, range and verdict */
	CHECK(strstr(b.ptr, ">noisy: latency (ms), lower is better</text>"));
	CHECK(strstr(b.ptr, "range 111111111111 (good) .. 555555555555 (bad), 4 commits; "
		     "verdict: <tspan font-weight=\"bold\">culprit</tspan>"));
	CHECK(strstr(b.ptr, "id=\"good-level\"") && strstr(b.ptr, "id=\"bad-level\""));
	CHECK(strstr(b.ptr, "444444444444 skipped</text>"));
	CHECK(strstr(b.ptr, "666666666666 revert</text>"));
	CHECK(strstr(b.ptr, "interquartile range"));
	/* every sample a dot, plus the legend's */
	{
		size_t n = 0;
		const char *p;

		for (p = b.ptr; (p = strstr(p, "<circle")); p++)
			n++;
		CHECK_MSG(n == 5 * 5 + 1, "%zu dots", n);
	}
	kb_buf_release(&b);
	json_decref(r);
}

TEST(test_svg__culprit_band_over_the_culprit_slot)
{
	json_t *r = report("culprit", "x");
	struct kb_buf b = KB_BUF_INIT;
	static const char pre[] = "<g id=\"culprit\" class=\"culprit\"><rect x=\"";
	const char *band;
	double x, w, cx;

	CHECK(kb_svg_report(r, &b) == 0);
	cx = label_x(b.ptr, P2);
	CHECK(cx > 0);
	band = strstr(b.ptr, pre);
	CHECK(band);
	x = strtod(band + strlen(pre), NULL);
	w = strtod(strstr(band, "width=\"") + 7, NULL);
	CHECK_MSG(x < cx && cx < x + w && w > 0, "band %g+%g, label at %g", x, w, cx);
	kb_buf_release(&b);
	json_decref(r);
}

TEST(test_svg__x_follows_position_not_the_order_of_steps)
{
	json_t *r = report("culprit", "x");
	struct kb_buf b = KB_BUF_INIT;
	double g, p1, p2, p3, bad, rev;

	CHECK(kb_svg_report(r, &b) == 0);
	g = label_x(b.ptr, GOOD);
	p1 = label_x(b.ptr, P1);
	p2 = label_x(b.ptr, P2);
	p3 = label_x(b.ptr, P3);
	bad = label_x(b.ptr, BAD);
	rev = label_x(b.ptr, REV);
	CHECK_MSG(0 < g && g < p1 && p1 < p2 && p2 < p3 && p3 < bad && bad < rev,
		  "%g %g %g %g %g %g", g, p1, p2, p3, bad, rev);
	/* the revert beyond a gap: farther from BAD than BAD from its left */
	CHECK(rev - bad > bad - p3);
	kb_buf_release(&b);
	json_decref(r);
}

TEST(test_svg__two_culprits_two_marks)
{
	json_t *r = report("culprit", "first");
	struct kb_buf b = KB_BUF_INIT;

	json_object_set_new(r, "verdict", json_string("multiple"));
	json_array_append_new(json_object_get(r, "culprits"), json_pack(
		"{s:s, s:s, s:f, s:s}", "commit", BAD, "parent", P3, "delta_pct", -2.25,
		"subject", "second"));
	CHECK(kb_svg_report(r, &b) == 0);
	CHECK(strstr(b.ptr, "<g id=\"culprit\""));
	CHECK(strstr(b.ptr, "<g id=\"culprit-2\""));
	CHECK(strstr(b.ptr, "555555555555</tspan></tspan> second -2.2%") ||
	      strstr(b.ptr, "555555555555</tspan></tspan> second -2.3%"));
	kb_buf_release(&b);
	json_decref(r);
}

TEST(test_svg__no_mark_when_nobody_is_blamed)
{
	json_t *r = report("no-regression", "x");
	struct kb_buf b = KB_BUF_INIT;

	CHECK(kb_svg_report(r, &b) == 0);
	CHECK(well_formed(b.ptr, b.len));
	CHECK(!strstr(b.ptr, "id=\"culprit"));
	CHECK(strstr(b.ptr, "<tspan font-weight=\"bold\">no regression</tspan>: GOOD and BAD "
		     "measure the same</text>"));
	json_decref(r);
	kb_buf_reset(&b);

	/* a likely culprit that failed its check is not marked either */
	r = report("inconclusive", "x");
	CHECK(kb_svg_report(r, &b) == 0);
	CHECK(well_formed(b.ptr, b.len));
	CHECK(!strstr(b.ptr, "id=\"culprit"));
	CHECK(strstr(b.ptr, "inconclusive: no commit blamed</tspan>: the likely culprit "
		     "failed its check"));
	kb_buf_release(&b);
	json_decref(r);
}

TEST(test_svg__strings_from_the_report_escaped)
{
	json_t *r = report("culprit", "<script>alert(1)</script>&\"'\x01]]>");
	struct kb_buf b = KB_BUF_INIT;

	json_object_set_new(r, "bench", json_string("a<b>&c"));
	json_object_set_new(json_object_get(r, "metric"), "unit", json_string("\"q\""));
	CHECK(kb_svg_report(r, &b) == 0);
	CHECK(well_formed(b.ptr, b.len));
	CHECK(!strstr(b.ptr, "<script"));
	CHECK(!strstr(b.ptr, "<b>"));
	CHECK(!strstr(b.ptr, "\x01"));
	CHECK(!strstr(b.ptr, "]]>"));
	CHECK(strstr(b.ptr, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&apos; ]]&gt;"));
	CHECK(strstr(b.ptr, "a&lt;b&gt;&amp;c: latency (&quot;q&quot;)"));
	kb_buf_release(&b);
	json_decref(r);
}

TEST(test_svg__no_metric_is_an_error_and_writes_nothing)
{
	json_t *r = report("culprit", "x");
	struct kb_buf b = KB_BUF_INIT;
	size_t i;
	json_t *s;

	kb_buf_adds(&b, "kept");
	/* a pass/fail bisection: "metric": null */
	json_object_set_new(r, "metric", json_null());
	CHECK(kb_svg_report(r, &b) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "no metric to plot"));
	CHECK(strstr(kb_error_last(), "pass/fail"));
	CHECK(!strcmp(b.ptr, "kept"));
	json_object_set_new(r, "metric", json_pack("{s:s}", "unit", "ms"));
	CHECK(kb_svg_report(r, &b) == KB_EINVAL);
	CHECK(!strcmp(b.ptr, "kept"));

	/* a metric, but nothing measured */
	json_object_set_new(r, "metric", json_pack("{s:s}", "name", "latency"));
	json_array_foreach(json_object_get(r, "steps"), i, s)
		json_object_set_new(s, "samples", json_pack("[s, n]", "12"));
	kb_error_clear();
	CHECK(kb_svg_report(r, &b) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "no metric to plot"));
	CHECK(!strcmp(b.ptr, "kept"));
	json_object_del(r, "steps");
	CHECK(kb_svg_report(r, &b) == KB_EINVAL);
	CHECK(!strcmp(b.ptr, "kept"));
	kb_buf_release(&b);
	json_decref(r);
}

TEST(test_svg__one_value_and_extreme_values_give_a_sane_axis)
{
	static const double zero[] = { 0, 0, 0 }, same[] = { 42, 42 };
	static const double huge[] = { 1.7e308, 1.7e308 }, span[] = { -1.7e308, 1.7e308 };
	static const double tiny[] = { 1e-310, 2e-310 };
	const double *sets[] = { zero, same, huge, tiny };
	size_t i, sizes[] = { 3, 2, 2, 2 };
	struct kb_buf b = KB_BUF_INIT;

	for (i = 0; i < 4; i++) {
		json_t *r = report("no-regression", "x"), *steps = json_array();
		const char *p;
		size_t ticks = 0;

		json_array_append_new(steps, step(GOOD, "good", "good", 0, sets[i], sizes[i]));
		json_array_append_new(steps, step(BAD, "bad", "bad", 4, sets[i], sizes[i]));
		json_object_set_new(r, "steps", steps);
		kb_buf_reset(&b);
		CHECK_MSG(kb_svg_report(r, &b) == 0, "set %zu", i);
		CHECK_MSG(well_formed(b.ptr, b.len), "set %zu", i);
		/* a few ticks on the y axis, not one, not hundreds */
		p = strstr(b.ptr, "<g id=\"y-axis\"");
		CHECK(p);
		for (; (p = strstr(p + 1, "<text")) && p < strstr(b.ptr, "</g>"); )
			ticks++;
		CHECK_MSG(ticks >= 3 && ticks <= 12, "set %zu: %zu ticks", i, ticks);
		json_decref(r);
	}

	/* a span a double cannot hold: an error, not a broken picture */
	{
		json_t *r = report("no-regression", "x");

		json_array_append_new(json_object_get(r, "steps"),
				      step(P1, "probe", "bad", 1, span, 2));
		kb_buf_reset(&b);
		CHECK(kb_svg_report(r, &b) == KB_EINVAL);
		CHECK(b.len == 0);
		json_decref(r);
	}
	kb_buf_release(&b);
}
