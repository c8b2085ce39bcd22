#include <stdlib.h>
#include <string.h>

#include "lava.h"
#include "test.h"

static char *quoted(const char *s)
{
	struct kb_buf b = KB_BUF_INIT;

	kb_yaml_quote(&b, s);
	return kb_buf_detach(&b);
}

TEST(test_lava__yaml_quote_escapes_what_could_end_the_string)
{
	char *q = quoted("plain");

	CHECK(!strcmp(q, "\"plain\""));
	free(q);
	q = quoted("a\"b\\c\nd\te\r\x01\x7f");
	CHECK_MSG(!strcmp(q, "\"a\\\"b\\\\c\\nd\\te\\r\\x01\\x7f\""), "%s", q);
	free(q);
	/* the characters YAML 1.1 takes for line breaks */
	q = quoted("x\xc2\x85y\xe2\x80\xa8z\xe2\x80\xa9");
	CHECK_MSG(!strcmp(q, "\"x\\Ny\\Lz\\P\""), "%s", q);
	free(q);
	/* other UTF-8 stays as it is */
	q = quoted("caf\xc3\xa9 \xe2\x82\xac");
	CHECK(!strcmp(q, "\"caf\xc3\xa9 \xe2\x82\xac\""));
	free(q);
	q = quoted("");
	CHECK(!strcmp(q, "\"\""));
	free(q);
}

static const struct kb_lava_var vars[] = {
	{ "kernel_url", "http://h/k/bzImage", 0 },
	{ "job_name", "evil\"\n- boot: {method: x}\n#", 0 },
	{ "boot_timeout", NULL, 300 },
};

static int render(const char *tmpl, struct kb_buf *out)
{
	kb_buf_reset(out);
	return kb_lava_render(tmpl, "t.yaml", vars, 3, out);
}

TEST(test_lava__render_fills_in_whole_values_quoted)
{
	struct kb_buf b = KB_BUF_INIT;

	CHECK(render("job_name: {{job_name}}\nurl: {{ kernel_url }}\n"
		     "timeout:\n  seconds: {{boot_timeout}}\n- {{kernel_url}}\n"
		     "x: [{{kernel_url}}, {{boot_timeout}}]  # {{no_such}} in a comment\n",
		     &b) == 0);
	CHECK_MSG(!strcmp(b.ptr, "job_name: \"evil\\\"\\n- boot: {method: x}\\n#\"\n"
			  "url: \"http://h/k/bzImage\"\ntimeout:\n  seconds: 300\n"
			  "- \"http://h/k/bzImage\"\n"
			  "x: [\"http://h/k/bzImage\", 300]  # {{no_such}} in a comment\n"),
		  "%s", b.ptr);
	/* text without placeholders is left as it is, to the last byte */
	CHECK(render("a: '{kernel}'\nb: 1", &b) == 0 && !strcmp(b.ptr, "a: '{kernel}'\nb: 1"));
	kb_buf_release(&b);
}

TEST(test_lava__render_refuses_what_it_cannot_quote)
{
	struct kb_buf b = KB_BUF_INIT;

	CHECK(render("a: {{kernel}}\n", &b) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "t.yaml, line 1: unknown value {{kernel}} (kbisect "
		     "fills in: kernel_url, job_name, boot_timeout)"));
	/* inside other text: the quotes would not be the value's */
	CHECK(render("ok: 1\na: 'x {{kernel_url}}'\n", &b) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "line 2: {{kernel_url}} must be a whole YAML value"));
	CHECK(render("a: x{{kernel_url}}\n", &b) == KB_EINVAL);
	CHECK(render("a: {{kernel_url}}/bzImage\n", &b) == KB_EINVAL);
	CHECK(render("{{kernel_url}}: 1\n", &b) == KB_EINVAL);
	CHECK(render("a:{{kernel_url}}\n", &b) == KB_EINVAL);
	CHECK(render("a: {{kernel_url\n}}\n", &b) == KB_EINVAL);
	CHECK(strstr(kb_error_last(), "without \"}}\""));
	kb_buf_release(&b);
}

TEST(test_lava__log_console_is_the_target_lines)
{
	const char *log =
		"- {\"dt\": \"2026-01-01T00:00:00\", \"lvl\": \"info\", \"msg\": \"start: 1 tmpfs\"}\n"
		"- {\"dt\": \"2026-01-01T00:00:01\", \"lvl\": \"target\", \"msg\": \"Linux version 6.1\"}\n"
		"- {\"dt\": \"2026-01-01T00:00:02\", \"lvl\": \"results\", \"msg\": {\"case\": \"x\"}}\n"
		"- {\"dt\": \"2026-01-01T00:00:03\", \"lvl\": \"feedback\", \"msg\": \"a \\\\\\\"q\\\\\\\"\"}\n"
		/* as LAVA writes what the device printed: a backslash before each quote */
		"- {\"dt\": \"2026-01-01T00:00:03\", \"lvl\": \"target\", \"msg\": \"{\\\\\\\"k\\\\\\\": \\\\\\\"\\\\\\\\\\\"x\\\\\\\\\\\"\\\\\\\"}\"}\n"
		"not a line of the log\n"
		"- {\"dt\": \"2026-01-01T00:00:04\", \"lvl\": \"target\", \"msg\": \"last\"}";
	struct kb_buf c = KB_BUF_INIT, l = KB_BUF_INIT;

	kb_lava_log_console(log, strlen(log), &c, &l);
	CHECK_MSG(!strcmp(c.ptr, "Linux version 6.1\na \"q\"\n{\"k\": \"\\\"x\\\"\"}\nlast\n"), "%s", c.ptr);
	CHECK(strstr(l.ptr, "info: start: 1 tmpfs\n"));
	CHECK(strstr(l.ptr, "results: {\"case\":\"x\"}\n"));
	CHECK(strstr(l.ptr, "not a line of the log\n"));
	kb_buf_release(&c);
	kb_buf_release(&l);
	kb_lava_log_console("", 0, &c, NULL);
	CHECK(c.ptr && !strcmp(c.ptr, ""));
	kb_buf_release(&c);
}

TEST(test_lava__said_runs_their_output_and_status)
{
	const char *console =
		"/ # sh job\n"
		"KBISECT-abc IDENTITY 6.1.0-kb123\n"
		"\n"
		"KBISECT-abc SETUP-BEGIN 1\n"
		"mke2fs done\n"
		"\n"
		"KBISECT-abc SETUP-END 1 0\n"
		"\n"
		"KBISECT-abc RUN-BEGIN 1\n"
		"{\"v\": 1}\n"
		"KBISECT-zzz RUN-END 1 9\n"
		"\n"
		"KBISECT-abc RUN-END 1 0 0.42\n"
		"<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=run-1 RESULT=pass>\n"
		"\n"
		"KBISECT-abc RUN-BEGIN 2\n"
		"out of 2\n"
		"\n"
		"KBISECT-abc RUN-END 2 3\n"
		"\n"
		"KBISECT-abc RUN-BEGIN 3\n"
		"[   12.0] Kernel panic - not syncing: x\n";
	struct kb_lava_said s;

	kb_lava_said_parse(console, "abc", 3, &s);
	CHECK(!strcmp(s.identity, "6.1.0-kb123"));
	CHECK(s.setups == 1 && !s.setup_failed);
	CHECK(!strcmp(s.setup_output.ptr, "mke2fs done\n"));
	CHECK(s.nruns == 3);
	CHECK(s.runs[0].begun && s.runs[0].ended && s.runs[0].status == 0);
	CHECK(s.runs[0].seconds == 0.42 && s.runs[1].seconds == 0);
	/* a line of another nonce is the benchmark's */
	CHECK_MSG(!strcmp(s.runs[0].output.ptr, "{\"v\": 1}\nKBISECT-zzz RUN-END 1 9\n"), "%s",
		  s.runs[0].output.ptr);
	CHECK(s.runs[1].ended && s.runs[1].status == 3);
	CHECK(!strcmp(s.runs[1].output.ptr, "out of 2\n"));
	CHECK(s.runs[2].begun && !s.runs[2].ended);
	CHECK(strstr(s.runs[2].output.ptr, "Kernel panic"));
	CHECK(!s.done);
	kb_lava_said_release(&s);

	kb_lava_said_parse("KBISECT-n IDENTITY r\n\nKBISECT-n SETUP-BEGIN 1\nno disk\n\n"
			   "KBISECT-n SETUP-END 1 1\n\nKBISECT-n DONE\n", "n", 2, &s);
	CHECK(s.setup_failed == 1 && s.setup_status == 1);
	CHECK(!strcmp(s.setup_output.ptr, "no disk\n"));
	CHECK(!s.runs[0].begun && s.done);
	kb_lava_said_release(&s);

	/* nothing said at all: the kernel never ran the job */
	kb_lava_said_parse("Linux version 6.1\n", "n", 1, &s);
	CHECK(!s.identity[0] && !s.runs[0].begun);
	kb_lava_said_release(&s);
}

TEST(test_lava__results_cases_with_measurements)
{
	const char *page =
		"{\"count\": 4, \"next\": null, \"results\": ["
		"{\"id\": 1, \"name\": \"run-1\", \"suite\": \"1_kbisect\", \"result\": \"pass\","
		" \"measurement\": \"0.4200000000\", \"unit\": \"seconds\", \"metadata\": null},"
		"{\"id\": 2, \"name\": \"run-2\", \"suite\": \"1_kbisect\", \"result\": \"fail\","
		" \"measurement\": null, \"unit\": \"\"},"
		"{\"id\": 3, \"name\": \"job\", \"suite\": \"lava\", \"result\": \"fail\","
		" \"metadata\": \"case: job\\ndefinition: lava\\nerror_msg: 'auto-login-action timed"
		" out after 300 seconds'\\nerror_type: Infrastructure\\nresult: fail\\n\"},"
		"{\"id\": 4, \"name\": \"x\", \"suite\": 7, \"result\": \"pass\", \"measurement\": 3}]}";
	json_t *j = json_loads(page, 0, NULL);
	struct kb_lava_case *c = NULL;
	const struct kb_lava_case *f;
	size_t n = 0;

	CHECK(j && kb_lava_cases_parse(j, &c, &n) == 0 && n == 4);
	f = kb_lava_case_find(c, n, "kbisect", "run-1");
	CHECK(f && !strcmp(f->result, "pass") && f->has_measurement && f->measurement == 0.42 &&
	      !strcmp(f->unit, "seconds"));
	f = kb_lava_case_find(c, n, "kbisect", "run-2");
	CHECK(f && !strcmp(f->result, "fail") && !f->has_measurement);
	f = kb_lava_case_find(c, n, "lava", "job");
	CHECK(f && !strcmp(f->error_type, "Infrastructure"));
	CHECK(!strcmp(f->error_msg, "auto-login-action timed out after 300 seconds"));
	CHECK(kb_lava_case_find(c, n, "7", "x") && kb_lava_case_find(c, n, "7", "x")->measurement == 3);
	/* a suite that merely ends in the name is not it */
	CHECK(!kb_lava_case_find(c, n, "bisect", "run-1"));
	CHECK(!kb_lava_case_find(c, n, "kbisect", "run-3"));
	json_decref(j);
	/* the same again, appended */
	j = json_loads("[{\"name\": \"run-3\", \"suite\": \"kbisect\", \"result\": \"pass\"}]",
		       0, NULL);
	CHECK(kb_lava_cases_parse(j, &c, &n) == 0 && n == 5 &&
	      kb_lava_case_find(c, n, "kbisect", "run-3"));
	json_decref(j);
	j = json_loads("{\"results\": 3}", 0, NULL);
	CHECK(kb_lava_cases_parse(j, &c, &n) == KB_EINVAL);
	json_decref(j);
	free(c);
}

TEST(test_lava__cases_get_their_suites_names)
{
	/* LAVA's tests list names a case's suite by id; the suites list
	 * gives the names, the suite of the case not first among them */
	json_t *tests = json_loads("[{\"name\": \"run-1\", \"suite\": 8, \"result\": \"pass\"},"
				   " {\"name\": \"job\", \"suite\": 7, \"result\": \"pass\"},"
				   " {\"name\": \"odd\", \"suite\": 9, \"result\": \"pass\"},"
				   " {\"name\": \"named\", \"suite\": \"x\", \"result\": \"pass\"}]",
				   0, NULL);
	json_t *suites = json_loads("[{\"id\": 7, \"name\": \"lava\"},"
				    " {\"id\": 8, \"name\": \"1_kbisect\"},"
				    " {\"id\": 10, \"name\": \"2_other\"}]", 0, NULL);
	struct kb_lava_case *c = NULL;
	size_t n = 0;

	CHECK(tests && suites);
	kb_lava_cases_name_suites(tests, suites);
	CHECK(kb_lava_cases_parse(tests, &c, &n) == 0 && n == 4);
	CHECK(kb_lava_case_find(c, n, "kbisect", "run-1"));
	CHECK(kb_lava_case_find(c, n, "lava", "job"));
	/* a suite not in the list keeps its id; a name stays */
	CHECK(kb_lava_case_find(c, n, "9", "odd"));
	CHECK(kb_lava_case_find(c, n, "x", "named"));
	free(c);
	json_decref(tests);
	json_decref(suites);
}

TEST(test_lava__json_path_in_the_form_of_the_guest)
{
	struct kb_buf b = KB_BUF_INIT;

	CHECK(kb_lava_json_path("jobs[0].write.clat_ns.percentile[\"50.000000\"]", &b) == 0);
	CHECK_MSG(!strcmp(b.ptr, ".4:jobs[0].5:write.7:clat_ns.10:percentile.9:50.000000"),
		  "%s", b.ptr);
	kb_buf_reset(&b);
	/* a key of any bytes, dots and brackets too, is its length and itself */
	CHECK(kb_lava_json_path("[\"a.b[1]\"][12].x", &b) == 0);
	CHECK_MSG(!strcmp(b.ptr, ".6:a.b[1][12].1:x"), "%s", b.ptr);
	kb_buf_reset(&b);
	CHECK(kb_lava_json_path("a[x]", &b) == KB_EINVAL);
	CHECK(kb_lava_json_path("a[\"x", &b) == KB_EINVAL);
	kb_buf_release(&b);
}
