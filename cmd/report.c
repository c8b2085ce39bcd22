#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd.h"

static const struct kb_cmd_help help = {
	"report", "[--json] [options]",
	"Print the result of the session: the verdict, the culprit, the log.",
	"--json prints one object (format version 1, see kbisect(1)).\n"
	"Exit status: 0 the report names a culprit, 3 it does not, 1 an error."
};

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void print_commit(json_t *c, FILE *to)
{
	time_t t = (time_t)json_integer_value(json_object_get(c, "date"));
	char date[64] = "";

	if (t)
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	fprintf(to, "commit %s\nAuthor: %s\nDate:   %s\n\n    %s\n\n", str(c, "commit"),
		str(c, "author"), date, str(c, "subject"));
}

void kb_print_report(json_t *r, FILE *to)
{
	const char *verdict = str(r, "verdict");
	json_t *culprits = json_object_get(r, "culprits"), *e;
	size_t i;

	fprintf(to, "kbisect: %s bisection with '%s' on target %s, %lld commits in range\n\n",
		str(r, "mode"), str(r, "bench"), str(r, "target"),
		(long long)json_integer_value(json_object_get(r, "range")));
	if (!strcmp(verdict, "culprit") || !strcmp(verdict, "multiple")) {
		fprintf(to, "The first bad commit:\n\n");
		json_array_foreach(culprits, i, e) {
			print_commit(e, to);
			fprintf(to, "probability: %.2f\n\n",
				json_number_value(json_object_get(e, "probability")));
		}
	} else if (json_object_get(r, "suspects")) {
		fprintf(to, "No single culprit: only skipped commits are left, and the "
			"first bad commit could be any of:\n\n");
		json_array_foreach(json_object_get(r, "suspects"), i, e)
			fprintf(to, "  %s %s\n", str(e, "commit"), str(e, "subject"));
		fprintf(to, "\n");
	} else {
		fprintf(to, "No culprit: the verdict is %s.\n\n", verdict);
	}
	if (json_array_size(json_object_get(r, "warnings"))) {
		fprintf(to, "Warnings:\n");
		json_array_foreach(json_object_get(r, "warnings"), i, e)
			fprintf(to, "  %s: %s\n", str(e, "kind"), str(e, "message"));
		fprintf(to, "\n");
	}
	fprintf(to, "Bisection log (%lld runs):\n",
		(long long)json_integer_value(json_object_get(r, "runs_total")));
	json_array_foreach(json_object_get(r, "steps"), i, e) {
		json_t *ex = json_object_get(e, "exit_status");

		fprintf(to, "  %-4s %.12s %s", str(e, "decision"), str(e, "commit"),
			str(e, "subject"));
		if (ex)
			fprintf(to, " (exit %lld)", (long long)json_integer_value(ex));
		else
			fprintf(to, " (%s)", str(e, "source"));
		fprintf(to, "\n");
	}
	fprintf(to, "\nReproduce: kbisect log > bisect.log; kbisect replay bisect.log\n\n");
	if (!strcmp(verdict, "culprit") && json_array_size(culprits) == 1)
		fprintf(to, "#regzbot introduced: %.12s\n",
			str(json_array_get(culprits, 0), "commit"));
	else
		fprintf(to, "#regzbot introduced: %.12s..%.12s\n", str(r, "good"), str(r, "bad"));
}

int cmd_report(int argc, char **argv)
{
	struct kb_ctx c = { 0 };
	int as_json = 0, ret;
	struct kb_opt opts[] = {
		{ "json", OPT_FLAG, &as_json, NULL, "print one JSON object" },
		KB_CTX_OPTS(&c), { 0 }
	};
	struct kb_session s;
	json_t *r, *v;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if (kb_ctx_open(&c, 0) < 0 || kb_session_load(&s, c.store, c.statedir, 1) < 0) {
		ret = kb_fail("report");
		kb_ctx_release(&c);
		return ret;
	}
	if (kb_session_report(&s, &r) < 0) {
		ret = kb_fail("report");
	} else {
		if (as_json) {
			json_dumpf(r, stdout, JSON_INDENT(2));
			printf("\n");
		} else {
			kb_print_report(r, stdout);
		}
		v = json_object_get(r, "verdict");
		ret = !strcmp(json_string_value(v), "culprit") ||
		      !strcmp(json_string_value(v), "multiple") ?
			KB_EXIT_CULPRIT : KB_EXIT_NO_CULPRIT;
		json_decref(r);
	}
	kb_session_release(&s);
	kb_ctx_release(&c);
	return ret;
}
