#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "stats.h"

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

static int confirmed(json_t *c)
{
	json_t *checks = json_object_get(c, "checks"), *v;
	const char *k;

	json_object_foreach(checks, k, v)
		if (!strcmp(json_string_value(v), "fail") ||
		    !strcmp(json_string_value(v), "warning"))
			return 0;
	return 1;
}

static void print_table(json_t *r, FILE *to)
{
	json_t *m = json_object_get(r, "metric"), *row;
	size_t i;

	fprintf(to, "%s%s%s%s, %s is better:\n\n", str(m, "name"),
		*str(m, "unit") ? " (" : "", str(m, "unit"), *str(m, "unit") ? ")" : "",
		str(m, "direction"));
	fprintf(to, "  %-9s %-12s %12s %9s %9s %6s\n", "", "commit", "mean", "%stddev",
		"%change", "runs");
	json_array_foreach(json_object_get(r, "table"), i, row) {
		json_t *mean = json_object_get(row, "mean"), *ch = json_object_get(row, "change_pct");
		char change[32] = "";

		if (ch && strcmp(str(row, "label"), "good"))
			snprintf(change, sizeof(change), "%+.1f%%", json_number_value(ch));
		if (!mean)
			continue;
		fprintf(to, "  %-9s %.12s %12.6g %6s%2.0f%% %9s %6lld\n", str(row, "label"),
			str(row, "commit"), json_number_value(mean), "+-",
			json_number_value(json_object_get(row, "stddev_pct")), change,
			(long long)json_integer_value(json_object_get(row, "n")));
	}
	fprintf(to, "\n");
}

static void print_checks(json_t *c, FILE *to)
{
	json_t *checks = json_object_get(c, "checks"), *ci = json_object_get(c, "delta_ci_pct");
	json_t *eci = json_object_get(c, "explained_ci");

	fprintf(to, "probability: %.3f\n", json_number_value(json_object_get(c, "probability")));
	fprintf(to, "step at the culprit: %+.1f%% (90%% interval %+.1f%% .. %+.1f%%)\n",
		json_number_value(json_object_get(c, "delta_pct")),
		json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)));
	fprintf(to, "share of the GOOD to BAD change it explains: %.0f%% (90%% interval "
		"%.0f%% .. %.0f%%)\n", 100 * json_number_value(json_object_get(c, "explained")),
		100 * json_number_value(json_array_get(eci, 0)),
		100 * json_number_value(json_array_get(eci, 1)));
	fprintf(to, "checks: parent vs culprit %s, revert on BAD %s, rebuild %s, warm-up %s\n\n",
		str(checks, "parent_vs_culprit"), str(checks, "revert"), str(checks, "rebuild"),
		str(checks, "warm_up"));
}

void kb_print_report(json_t *r, FILE *to)
{
	const char *verdict = str(r, "verdict");
	int perf = !strcmp(str(r, "mode"), "performance");
	json_t *culprits = json_object_get(r, "culprits"), *e;
	size_t i;

	fprintf(to, "kbisect: %s bisection with '%s' on target %s%s%s%s\n", str(r, "mode"),
		str(r, "bench"), str(r, "target"), *str(r, "accel") ? " (" : "",
		!strcmp(str(r, "accel"), "kvm") ? "KVM" : !strcmp(str(r, "accel"), "tcg") ?
		"TCG, no KVM" : "", *str(r, "accel") ? ")" : "");
	fprintf(to, "range: %.12s (good) .. %.12s (bad), %lld commits; %lld runs, "
		"%lld builds\n\n", str(r, "good"), str(r, "bad"),
		(long long)json_integer_value(json_object_get(r, "range")),
		(long long)json_integer_value(json_object_get(r, "runs_total")),
		(long long)json_integer_value(json_object_get(r, "builds_total")));
	if (!strcmp(verdict, "culprit") || !strcmp(verdict, "multiple")) {
		fprintf(to, "%s\n\n", !strcmp(verdict, "multiple") ?
			"The change comes from more than one commit:" : "The first bad commit:");
		json_array_foreach(culprits, i, e) {
			print_commit(e, to);
			if (perf)
				print_checks(e, to);
			else
				fprintf(to, "probability: %.2f\n\n",
					json_number_value(json_object_get(e, "probability")));
		}
	} else if (json_object_get(r, "suspects")) {
		fprintf(to, "No single culprit: only skipped commits are left, and the "
			"first bad commit could be any of:\n\n");
		json_array_foreach(json_object_get(r, "suspects"), i, e)
			fprintf(to, "  %s %s\n", str(e, "commit"), str(e, "subject"));
		fprintf(to, "\n");
	} else if (!strcmp(verdict, "no-regression")) {
		fprintf(to, "No regression: %s. No commit is blamed.\n\n",
			*str(r, "reason") ? str(r, "reason") : "GOOD and BAD do not differ");
	} else {
		fprintf(to, "Inconclusive: %s. No commit is blamed.\n\n",
			*str(r, "reason") ? str(r, "reason") : "the bisection has no answer");
		json_array_foreach(culprits, i, e) {
			fprintf(to, "The likeliest candidate, not confirmed:\n\n");
			print_commit(e, to);
			if (perf)
				print_checks(e, to);
		}
	}
	if (perf)
		print_table(r, to);
	if (json_array_size(json_object_get(r, "warnings"))) {
		fprintf(to, "Warnings:\n");
		json_array_foreach(json_object_get(r, "warnings"), i, e)
			fprintf(to, "  %s: %s\n", str(e, "kind"), str(e, "message"));
		fprintf(to, "\n");
	}
	fprintf(to, "Bisection log:\n");
	json_array_foreach(json_object_get(r, "steps"), i, e) {
		json_t *ex = json_object_get(e, "exit_status"), *smp = json_object_get(e, "samples");

		fprintf(to, "  %-7s %.12s %s", str(e, "decision"), str(e, "commit"),
			str(e, "subject"));
		if (perf && json_array_size(smp)) {
			double v[4096];
			size_t n = 0, k;
			json_t *x;

			json_array_foreach(smp, k, x)
				if (n < 4096)
					v[n++] = json_number_value(x);
			fprintf(to, " (%s, %lld boots, %zu runs, median %.6g)", str(e, "role"),
				(long long)json_integer_value(json_object_get(e, "boots")), n,
				kb_median(v, n));
		} else if (ex) {
			fprintf(to, " (exit %lld)", (long long)json_integer_value(ex));
		} else if (*str(e, "source")) {
			fprintf(to, " (%s)", str(e, "source"));
		}
		fprintf(to, "\n");
		if (*str(e, "build_error") || *str(e, "boot_error")) {
			const char *p = *str(e, "build_error") ? str(e, "build_error") :
							       str(e, "boot_error");

			fprintf(to, "          the %s failed:\n",
				*str(e, "build_error") ? "build" : "boot");
			while (*p) {
				int len = (int)strcspn(p, "\n");

				fprintf(to, "            %.*s\n", len, p);
				p += len + (p[len] == '\n');
			}
		}
	}
	fprintf(to, "\nReproduce: kbisect log > bisect.log; kbisect replay bisect.log\n\n");
	if (!strcmp(verdict, "culprit") && json_array_size(culprits) == 1 &&
	    confirmed(json_array_get(culprits, 0)))
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
	json_t *r;

	if ((ret = kb_parse_opts(&help, opts, argc, argv, NULL, NULL)))
		return ret == 1 ? 0 : ret;
	if ((ret = kb_open_session(&c, &s, 0, 1, "report")))
		return ret;
	if (kb_session_report(&s, &r) < 0) {
		ret = kb_fail("report");
	} else {
		if (as_json)
			kb_print_json(r);
		else
			kb_print_report(r, stdout);
		ret = kb_verdict_exit(r);
		json_decref(r);
	}
	kb_session_release(&s);
	kb_ctx_release(&c);
	return ret;
}
