/* The text of a report: the verdict, the culprit and its checks, the table,
 * the bisection log, the test setup and how to reproduce it. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "json.h"
#include "metrics.h"
#include "stats.h"

/*
 * A copy of the report whose strings hold no control character: each
 * becomes a space, so that a commit subject or author, a benchmark's name
 * or description cannot move the cursor or add a line of its own.  The
 * values printed on lines of their own keep their line ends: a build or
 * boot error, a shell command, an argv word or a path (quoted, so a
 * newline stays in the word).
 */
static json_t *plain_copy(json_t *v, int keep_lines)
{
	json_t *o, *x;
	const char *k;
	size_t i;

	if (json_is_object(v)) {
		o = json_object();
		json_object_foreach(v, k, x)
			json_object_set_new(o, k, plain_copy(x, !strcmp(k, "build_error") ||
						      !strcmp(k, "boot_error") || !strcmp(k, "command") ||
						      !strcmp(k, "build") || !strcmp(k, "paths")));
		return o;
	}
	if (json_is_array(v)) {
		o = json_array();
		json_array_foreach(v, i, x)
			json_array_append_new(o, plain_copy(x, keep_lines));
		return o;
	}
	if (json_is_string(v)) {
		char *t = kb_strndup(json_string_value(v), json_string_length(v));

		for (i = 0; i < json_string_length(v); i++)
			if (((unsigned char)t[i] < 0x20 || t[i] == 0x7f) &&
			    !(keep_lines && t[i] == '\n'))
				t[i] = ' ';
		o = json_stringn(t, json_string_length(v));
		free(t);
		return o;
	}
	return json_deep_copy(v);
}

/* 'text' after 'label', each later line of it indented as far. */
static void print_lines(FILE *to, const char *label, const char *text)
{
	int indent = (int)strlen(label);

	fputs(label, to);
	do {
		int len = (int)strcspn(text, "\n");

		fprintf(to, "%.*s\n", len, text);
		text += len + (text[len] == '\n');
		if (*text)
			fprintf(to, "%*s", indent, "");
	} while (*text);
}

static void print_commit(json_t *c, FILE *to)
{
	time_t t = (time_t)json_integer_value(json_object_get(c, "date"));
	char date[64] = "";

	if (t)
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&t));
	fprintf(to, "commit %s\nAuthor: %s\nDate:   %s\n\n    %s\n\n", kb_str(c, "commit"),
		kb_str(c, "author"), date, kb_str(c, "subject"));
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

/* A value in at most 10 columns, with about 5 significant digits. */
static void fmt_value(char *buf, size_t size, double v)
{
	double a = v < 0 ? -v : v;

	if (a >= 1e10 || (a > 0 && a < 1e-3))
		snprintf(buf, size, "%.4g", v);
	else if (a >= 1e4)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.*f", a >= 1000 ? 1 : a >= 100 ? 2 : a >= 10 ? 3 : 4, v);
}

/*
 * The table of LKP reports: one column a commit (GOOD, the culprit's
 * parent, the culprit, BAD), each with the mean of its runs and their
 * relative standard deviation, and the change from GOOD between them.
 * 'table' holds the rows, 'm' the metric; 'mark' (NULL: none) is printed
 * after the metric's name on the line of the means.  Nothing is printed
 * when no row has a value; returns how many have one.
 */
static size_t print_levels(json_t *m, json_t *table, const char *heading, const char *mark,
			   FILE *to)
{
	json_t *row, *rows = json_array();
	size_t i, n;

	json_array_foreach(table, i, row)
		if (json_object_get(row, "mean"))
			json_array_append(rows, row);
	if (!(n = json_array_size(rows))) {
		json_decref(rows);
		return 0;
	}
	fprintf(to, "%s%s%s%s, %s is better%s\n\n", kb_str(m, "name"),
		*kb_str(m, "unit") ? " (" : "", kb_str(m, "unit"), *kb_str(m, "unit") ? ")" : "",
		kb_str(m, "direction"), heading);
	json_array_foreach(rows, i, row)
		fprintf(to, "%s%-*s", i ? " " : "", i + 1 < json_array_size(rows) ?
			(i ? 27 : 16) : 0, kb_str(row, "label"));
	fprintf(to, "\n");
	json_array_foreach(rows, i, row)
		fprintf(to, i ? " %-27.27s" : "%-16.16s", kb_str(row, "commit"));
	fprintf(to, "\n");
	json_array_foreach(rows, i, row)
		fprintf(to, i ? " ---------------------------" : "----------------");
	fprintf(to, "\n");
	json_array_foreach(rows, i, row)
		fprintf(to, i ? "     %%change         %%stddev" : "         %%stddev");
	fprintf(to, "\n");
	json_array_foreach(rows, i, row)
		fprintf(to, i ? "          |                \\" : "             \\");
	fprintf(to, "\n");
	json_array_foreach(rows, i, row) {
		char v[32], change[32];

		fmt_value(v, sizeof(v), json_number_value(json_object_get(row, "mean")));
		if (i) {
			snprintf(change, sizeof(change), "%+.1f%%",
				 json_number_value(json_object_get(row, "change_pct")));
			fprintf(to, " %10s ", change);
		}
		fprintf(to, "%10s \xc2\xb1%3.0f%%", v,
			json_number_value(json_object_get(row, "stddev_pct")));
	}
	fprintf(to, "  %s%s%s\n", kb_str(m, "name"), mark ? "  " : "", mark ? mark : "");
	json_array_foreach(rows, i, row)
		fprintf(to, "%*s%10lld      ", i ? 12 : 0, "",
			(long long)json_integer_value(json_object_get(row, "n")));
	fprintf(to, "  runs\n\n");
	json_decref(rows);
	return n;
}

static void print_table(json_t *r, FILE *to)
{
	print_levels(json_object_get(r, "metric"), json_object_get(r, "table"),
		     "; the mean of the runs of each commit, \xc2\xb1 their standard deviation:",
		     NULL, to);
}

/* The same table for each secondary metric, its last column whether it
 * moved from GOOD to BAD. */
static void print_metrics(json_t *r, FILE *to)
{
	json_t *all = json_object_get(r, "metrics"), *m;
	size_t i;

	if (!json_array_size(all))
		return;
	fprintf(to, "Secondary metrics, from the same runs (%s alone decides); moved: GOOD "
		"and BAD differ beyond the metric's noise (Welch's t test on the means of "
		"their boots, p < %g):\n\n", kb_str(json_object_get(r, "metric"), "name"),
		KB_MOVED_ALPHA);
	json_array_foreach(all, i, m) {
		char mark[96];

		if (!json_object_get(m, "p"))
			snprintf(mark, sizeof(mark), "not tested: too few values");
		else
			snprintf(mark, sizeof(mark), "%s (p = %.2g%s)",
				 json_is_true(json_object_get(m, "moved")) ? "moved" :
				 "within noise", json_number_value(json_object_get(m, "p")),
				 !strcmp(kb_str(m, "basis"), "runs") ? ", on runs" : "");
		if (!print_levels(m, json_object_get(m, "rows"), ":", mark, to))
			fprintf(to, "%s%s%s%s: no value in the output of any run\n\n",
				kb_str(m, "name"), *kb_str(m, "unit") ? " (" : "",
				kb_str(m, "unit"), *kb_str(m, "unit") ? ")" : "");
	}
}

/* "LABEL: +x% (90% interval +a% .. +b%), from N pairs" of a step 'st'
 * ("aligned", "aligned_ends"), without the line's end. */
static void print_pairs_step(const char *label, json_t *st, FILE *to)
{
	json_t *ci = json_object_get(st, "delta_ci_pct");
	json_int_t n = json_integer_value(json_object_get(st, "pairs"));

	fprintf(to, "%s: %+.1f%% (90%% interval %+.1f%% .. %+.1f%%), from %lld pair%s", label,
		json_number_value(json_object_get(st, "delta_pct")),
		json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
		(long long)n, n == 1 ? "" : "s");
}

/* The rebuild check: the step with the code aligned and what it cost, or
 * why it was not made. */
static void print_rebuild(json_t *c, FILE *to)
{
	json_t *rb = json_object_get(c, "rebuild"), *al = json_object_get(c, "aligned");
	double secs = json_number_value(json_object_get(rb, "build_seconds"));
	char label[96];

	if (!rb)
		return;
	if (*kb_str(rb, "why")) {
		fprintf(to, "rebuild: n/a, %s\n", kb_str(rb, "why"));
		return;
	}
	if (!al)
		return;
	snprintf(label, sizeof(label), "rebuild with %s=y", kb_str(rb, "option"));
	print_pairs_step(label, al, to);
	if (json_object_get(rb, "boots")) {
		size_t nbuilds = json_array_size(json_object_get(rb, "commits"));

		fprintf(to, "; it cost %zu builds (", nbuilds > 2 ? nbuilds : 2);
		if (secs > 0)
			fprintf(to, "%.0f s", secs);
		else
			fprintf(to, "found in the cache");
		json_int_t nb = json_integer_value(json_object_get(rb, "boots"));
		json_int_t nr = json_integer_value(json_object_get(rb, "runs"));

		fprintf(to, "), %lld boot%s, %lld run%s", (long long)nb, nb == 1 ? "" : "s",
			(long long)nr, nr == 1 ? "" : "s");
	}
	fprintf(to, "\n");
	/* a merge against its other parents, so built */
	json_t *others = json_object_get(c, "aligned_others"), *o;
	size_t i;

	json_array_foreach(others, i, o) {
		snprintf(label, sizeof(label), "rebuild against its parent %.12s",
			 kb_str(o, "parent"));
		print_pairs_step(label, o, to);
		fprintf(to, "\n");
	}
	/* GOOD and BAD so built, where the culprit's step had to stand in
	 * them too (a range too short to tell the builds' offsets by) */
	if ((al = json_object_get(c, "aligned_ends"))) {
		snprintf(label, sizeof(label), "GOOD and BAD with %s=y", kb_str(rb, "option"));
		print_pairs_step(label, al, to);
		fprintf(to, "\n");
	}
}

static void print_checks(json_t *c, FILE *to)
{
	json_t *checks = json_object_get(c, "checks"), *ci = json_object_get(c, "delta_ci_pct");
	json_t *eci = json_object_get(c, "explained_ci");

	fprintf(to, "probability: %.3f\n", json_number_value(json_object_get(c, "probability")));
	json_int_t pairs = json_integer_value(json_object_get(c, "pairs"));
	json_t *ms = json_object_get(c, "machines"), *m;
	size_t i;

	fprintf(to, "step at the culprit: %+.1f%% (90%% interval %+.1f%% .. %+.1f%%)",
		json_number_value(json_object_get(c, "delta_pct")),
		json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)));
	if (pairs)
		fprintf(to, ", from %lld pair%s of boots of the parent and the culprit measured "
			"together", (long long)pairs, pairs == 1 ? "" : "s");
	fprintf(to, "\n");
	json_array_foreach(ms, i, m)
		fprintf(to, "  on machine %lld: %+.1f%% \xc2\xb1 %.1f%%, %lld pair%s\n",
			(long long)json_integer_value(json_object_get(m, "machine")),
			json_number_value(json_object_get(m, "delta_pct")),
			json_number_value(json_object_get(m, "se_pct")),
			(long long)json_integer_value(json_object_get(m, "pairs")),
			json_integer_value(json_object_get(m, "pairs")) == 1 ? "" : "s");
	if (json_is_number(json_object_get(c, "explained")))
		fprintf(to, "share of the GOOD to BAD change it explains: %.0f%% (90%% interval "
			"%.0f%% .. %.0f%%)\n",
			100 * json_number_value(json_object_get(c, "explained")),
			100 * json_number_value(json_array_get(eci, 0)),
			100 * json_number_value(json_array_get(eci, 1)));
	else
		fprintf(to, "share of the GOOD to BAD change it explains: not measured\n");
	fprintf(to, "checks: parent vs culprit %s, revert on BAD %s, rebuild %s, ",
		kb_str(checks, "parent_vs_culprit"), kb_str(checks, "revert"),
		kb_str(checks, "rebuild"));
	/* none when nothing was built */
	if (*kb_str(checks, "no_op"))
		fprintf(to, "no-op %s, ", kb_str(checks, "no_op"));
	fprintf(to, "warm-up %s, share explained %s\n", kb_str(checks, "warm_up"),
		*kb_str(checks, "explained") ? kb_str(checks, "explained") : "n/a");
	print_rebuild(c, to);
	fprintf(to, "\n");
}

/* A word as a shell would need it, for commands shown to be copied. */
static void put_word(FILE *to, const char *w)
{
	const char *p;

	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789@%+=:,./_-") == strlen(w)) {
		fputs(w, to);
		return;
	}
	fputc('\'', to);
	for (p = w; *p; p++)
		if (*p == '\'')
			fputs("'\\''", to);
		else
			fputc(*p, to);
	fputc('\'', to);
}

/* GOOD (0) or BAD (1) as regzbot takes it: the tag given ("v5.15"), else
 * the short commit id. */
static const char *rev_name(json_t *r, int bad)
{
	static char buf[2][64];
	json_t *setup = json_object_get(r, "setup");
	const char *spec = bad ? kb_str(setup, "bad_spec") :
		json_string_value(json_array_get(json_object_get(setup, "good_specs"), 0));

	if (spec && spec[0] == 'v' && spec[1] >= '0' && spec[1] <= '9' && strlen(spec) < 64 &&
	    strspn(spec, "v0123456789.-rc") == strlen(spec))
		return spec;
	snprintf(buf[bad], sizeof(buf[bad]), "%.12s", kb_str(r, bad ? "bad" : "good"));
	return buf[bad];
}

/* The target, the kernel and the benchmark the numbers come from. */
/* A percent for the noise line: one decimal, two significant digits
 * below 0.1% (never "0.0%" for a noise that is there). */
struct pct_buf {
	char s[32];
};

static struct pct_buf pct_text(double v)
{
	struct pct_buf b;

	snprintf(b.s, sizeof(b.s), v > 0 && v < 0.1 ? "%.2g%%" : "%.1f%%", v);
	return b;
}

/* The noise line: run to run (within a boot) and boot to boot, as the
 * model uses them, or that the runs' was not measured. */
static void print_noise(json_t *r, FILE *to)
{
	double run = json_number_value(json_object_get(r, "noise_pct"));
	double boot = json_number_value(json_object_get(r, "boot_spread_pct"));

	if (json_is_integer(json_object_get(r, "noise_boots")) &&
	    json_integer_value(json_object_get(r, "noise_boots")) < 2)
		fprintf(to, "  noise:     run to run not measured: fewer than two boots "
			"kept two runs or more after the warm-up; %s boot to boot\n",
			pct_text(boot).s);
	else if (json_object_get(r, "noise_pct") && json_object_get(r, "boot_spread_pct"))
		fprintf(to, "  noise:     %s run to run, %s boot to boot\n",
			pct_text(run).s, pct_text(boot).s);
	else if (json_object_get(r, "noise_pct"))
		fprintf(to, "  noise:     %.1f%% run to run\n", run);
}

static void print_setup(json_t *r, FILE *to)
{
	json_t *setup = json_object_get(r, "setup"), *b = json_object_get(setup, "benchmark");
	json_t *m = json_object_get(b, "metric"), *machine = json_object_get(r, "machine"), *v;
	const char *build = kb_str(setup, "build"), *k;
	size_t i;

	if (!setup)
		return;
	fprintf(to, "Test setup:\n  target:    %s%s\n", kb_str(r, "target"),
		!strcmp(kb_str(r, "accel"), "kvm") ? " (KVM)" :
		!strcmp(kb_str(r, "accel"), "tcg") ? " (QEMU TCG, no KVM)" : "");
	json_object_foreach(machine, k, v) {
		char *text = kb_json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		/* where this machine keeps its keys and scripts says nothing of the
		 * measurement */
		if (strcmp(k, "target") && strcmp(k, "key_file") && strcmp(k, "known_hosts") &&
		    strcmp(k, "power_cycle"))
			fprintf(to, "             %s: %s\n", k, text ? text : "");
		free(text);
	}
	json_array_foreach(json_object_get(r, "lab_jobs"), i, v) {
		const char *dev = kb_str(v, "device");

		fprintf(to, "%s%.12s boot %lld: LAVA job %lld, %s%s%s, %s\n",
			i ? "             " : "  jobs:      ", kb_str(v, "commit"),
			(long long)json_integer_value(json_object_get(v, "boot")),
			(long long)json_integer_value(json_object_get(v, "id")), kb_str(v, "state"),
			*dev ? " on " : "", dev, kb_str(v, "url"));
	}
	if (!strcmp(build, "kernel"))
		fprintf(to, "  kernel:    built by kbisect: %s, then the fragments in %s for "
			"the target, olddefconfig\n", *kb_str(setup, "kconfig") ?
			kb_str(setup, "kconfig") : "tinyconfig", kb_str(setup, "fragments"));
	else if (strcmp(build, "none") && *build)
		print_lines(to, "  build:     ", build);
	if (b) {
		json_t *cmd = json_object_get(b, "command");

		fprintf(to, "  benchmark: %s%s%s\n", kb_str(b, "name"),
			*kb_str(b, "description") ? ": " : "", kb_str(b, "description"));
		if (json_is_string(cmd) && !strcmp(json_string_value(cmd), KB_MANUAL_COMMAND)) {
			fprintf(to, "  command:   none: the commits were marked by hand\n");
		} else if (json_is_string(cmd)) {
			print_lines(to, "  command:   ", json_string_value(cmd));
		} else {
			size_t i;

			fprintf(to, "  command:  ");
			json_array_foreach(cmd, i, v) {
				fputc(' ', to);
				put_word(to, json_string_value(v) ? json_string_value(v) : "");
			}
			fprintf(to, "\n");
		}
		if (m)
			fprintf(to, "  metric:    %s%s%s%s from the output's %s %s, %s is better\n",
				kb_str(m, "name"), *kb_str(m, "unit") ? " (" : "", kb_str(m, "unit"),
				*kb_str(m, "unit") ? ")" : "", *kb_str(m, "json_path") ? "JSON at" :
				"text matching", *kb_str(m, "json_path") ? kb_str(m, "json_path") :
				kb_str(m, "regex"), kb_str(m, "direction"));
		if (json_array_size(json_object_get(b, "metrics"))) {
			json_t *e;
			size_t i;

			fprintf(to, "  secondary:");
			json_array_foreach(json_object_get(b, "metrics"), i, e)
				fprintf(to, "%s %s%s%s%s", i ? "," : "", kb_str(e, "name"),
					*kb_str(e, "unit") ? " (" : "", kb_str(e, "unit"),
					*kb_str(e, "unit") ? ")" : "");
			fprintf(to, "\n");
		}
		{
			json_int_t per = json_integer_value(json_object_get(b, "runs_per_boot")),
				   warm = json_integer_value(json_object_get(r, "warmup_used"));

			json_int_t chosen = json_integer_value(json_object_get(r, "runs_per_boot"));
			const char *why = kb_str(r, "runs_per_boot_why");

			json_int_t base = json_integer_value(json_object_get(r, "runs_per_boot_base"));

			if (!per)
				per = base;
			if (chosen && chosen != per && *why)
				fprintf(to, "  runs:      %lld a boot after calibration (%lld before): %s; ",
					(long long)chosen, (long long)per, why);
			else
				fprintf(to, "  runs:      %lld a boot; ", (long long)(per ? per : 1));
			if (warm)
				fprintf(to, "the first %lld after each boot left out as warm-up\n",
					(long long)warm);
			else
				fprintf(to, "none left out as warm-up\n");
		}
		print_noise(r, to);
	}
	fprintf(to, "\n");
}

/* A flaky bisection's culprit: its probability, the failure rate, the
 * checks. */
static void print_flaky(json_t *c, FILE *to)
{
	json_t *rate = json_object_get(c, "rate"), *fa = json_object_get(c, "false_alarms");
	json_t *checks = json_object_get(c, "checks"), *rr = json_object_get(c, "revert_runs");

	fprintf(to, "probability: %.3f\n", json_number_value(json_object_get(c, "probability")));
	fprintf(to, "fails in %.0f%% of runs from it on (90%% interval %.0f%% .. %.0f%%); "
		"false alarms before it: %.1f%% of runs (at most %.1f%%)\n",
		100 * json_number_value(json_object_get(rate, "estimate")),
		100 * json_number_value(json_array_get(json_object_get(rate, "interval"), 0)),
		100 * json_number_value(json_array_get(json_object_get(rate, "interval"), 1)),
		100 * json_number_value(json_object_get(fa, "estimate")),
		100 * json_number_value(json_object_get(fa, "upper")));
	fprintf(to, "checks: fails itself %s, parent clean %s, revert on BAD %s",
		kb_str(checks, "fails_itself"), kb_str(checks, "parent_clean"),
		kb_str(checks, "revert"));
	if (rr)
		fprintf(to, " (%lld runs, %lld failed)",
			(long long)json_integer_value(json_object_get(rr, "runs")),
			(long long)json_integer_value(json_object_get(rr, "fails")));
	fprintf(to, "\n\n");
}

/* " --OPT V", V in its shortest exact form. */
static void put_real(FILE *to, const char *opt, double v)
{
	char t[40];

	kb_real_text(v, t, sizeof(t));
	fprintf(to, " %s %s", opt, t);
}

/* "  # GOOD v6.1, BAD v6.2": the revisions as given, where they are not
 * the ids the line gives, as a comment of the shell line (each quoted as
 * a word of it). */
static void print_names(json_t *setup, FILE *to)
{
	json_t *specs = json_object_get(setup, "good_specs");
	json_t *shas = json_object_get(setup, "good_shas");
	size_t i, n = json_array_size(specs);
	int any = 0;

	for (i = 0; i <= n; i++) {
		const char *spec = i < n ? json_string_value(json_array_get(specs, i)) :
					   kb_str(setup, "bad_spec");
		const char *sha = i < n ? json_string_value(json_array_get(shas, i)) :
					  kb_str(setup, "bad_sha");

		if (!spec || !sha || !strncmp(sha, spec, strlen(spec)))
			continue;
		fprintf(to, "%s%s ", any++ ? ", " : "  # ", i < n ? "GOOD" : "BAD");
		put_word(to, spec);
	}
}

/* The command that runs the same bisection again, and the replay. */
static void print_reproduce(json_t *r, FILE *to)
{
	json_t *setup = json_object_get(r, "setup"), *v;
	json_t *b = json_object_get(setup, "benchmark"), *cmd = json_object_get(b, "command");
	const char *build = kb_str(setup, "build");
	size_t i;

	fprintf(to, "How to reproduce:\n");
	if (setup) {
		json_t *shas = json_object_get(setup, "good_shas");
		int ids = json_array_size(shas) && *kb_str(setup, "bad_sha");

		fprintf(to, "  kbisect start");
		/* the revisions as the ids they were then, the names as a
		 * comment: a branch or a tag may have moved since */
		json_array_foreach(ids ? shas : json_object_get(setup, "good_specs"), i, v) {
			fputc(' ', to);
			if (ids)
				fprintf(to, "%.12s", json_string_value(v));
			else
				put_word(to, json_string_value(v));
		}
		fputc(' ', to);
		if (ids)
			fprintf(to, "%.12s", kb_str(setup, "bad_sha"));
		else
			put_word(to, kb_str(setup, "bad_spec"));
		if (!strcmp(kb_str(b, "name"), "command") && json_is_string(cmd) &&
		    !strcmp(json_string_value(cmd), KB_MANUAL_COMMAND)) {
			/* marked by hand: the marks are in the log */
			fprintf(to, " --no-run");
		} else if (!strcmp(kb_str(b, "name"), "command") && json_is_string(cmd)) {
			/* the benchmark --command made */
			fprintf(to, " --command ");
			put_word(to, json_string_value(cmd));
		} else {
			fprintf(to, " --bench ");
			put_word(to, *kb_str(setup, "bench_arg") ? kb_str(setup, "bench_arg") :
				 kb_str(b, "name"));
		}
		if (json_is_string(json_object_get(b, "use_metric"))) {
			fprintf(to, " --metric ");
			put_word(to, kb_str(b, "use_metric"));
		}
		if (json_is_number(json_object_get(b, "min_effect")))
			put_real(to, "--min-effect",
				 json_number_value(json_object_get(b, "min_effect")));
		if (json_is_true(json_object_get(b, "flaky")))
			fprintf(to, " --flaky");
		if (json_is_number(json_object_get(b, "min_rate")))
			fprintf(to, " --min-rate %g",
				json_number_value(json_object_get(b, "min_rate")));
		if (json_is_string(json_object_get(b, "signature"))) {
			fprintf(to, " --signature ");
			put_word(to, kb_str(b, "signature"));
		}
		if (json_array_size(json_object_get(setup, "target_args"))) {
			json_array_foreach(json_object_get(setup, "target_args"), i, v) {
				fprintf(to, " --target ");
				put_word(to, json_string_value(v));
			}
		} else {
			fprintf(to, " --target ");
			put_word(to, kb_str(r, "target"));
		}
		if (strcmp(build, "none") && strcmp(build, "kernel") && *build) {
			fprintf(to, " --build ");
			put_word(to, build);
		}
		if (*kb_str(setup, "kconfig")) {
			fprintf(to, " --kconfig ");
			put_word(to, kb_str(setup, "kconfig"));
		}
		if (json_is_number(json_object_get(setup, "scale")))
			put_real(to, "--scale",
				 json_number_value(json_object_get(setup, "scale")));
		if (*kb_str(setup, "boot_failure"))
			fprintf(to, " --boot-failure %s", kb_str(setup, "boot_failure"));
		if (*kb_str(setup, "rebuild_check"))
			fprintf(to, " --rebuild-check %s", kb_str(setup, "rebuild_check"));
		if (json_is_number(json_object_get(setup, "confidence")) &&
		    json_number_value(json_object_get(setup, "confidence")) != 0.95)
			put_real(to, "--confidence",
				 json_number_value(json_object_get(setup, "confidence")));
		if (json_is_true(json_object_get(setup, "first_parent")))
			fprintf(to, " --first-parent");
		if (json_array_size(json_object_get(setup, "terms")) == 2) {
			json_t *terms = json_object_get(setup, "terms");

			fprintf(to, " --term-old ");
			put_word(to, json_string_value(json_array_get(terms, 0)));
			fprintf(to, " --term-new ");
			put_word(to, json_string_value(json_array_get(terms, 1)));
		}
		if (json_is_integer(json_object_get(setup, "seed")))
			fprintf(to, " --seed %lld",
				(long long)json_integer_value(json_object_get(setup, "seed")));
		if (json_array_size(json_object_get(setup, "paths"))) {
			fprintf(to, " --");
			json_array_foreach(json_object_get(setup, "paths"), i, v) {
				fputc(' ', to);
				put_word(to, json_string_value(v));
			}
		}
		if (ids)
			print_names(setup, to);
		fprintf(to, "\n");
	}
	fprintf(to, "  or, with every sample of this session: kbisect log > bisect.log; "
		"kbisect replay bisect.log\n\n");
}

static void print_report(json_t *r, FILE *to, const char *link)
{
	const char *verdict = kb_str(r, "verdict");
	int perf = !strcmp(kb_str(r, "mode"), "performance");
	int flaky = !strcmp(kb_str(r, "mode"), "flaky");
	json_t *culprits = json_object_get(r, "culprits"), *e;
	size_t i;

	fprintf(to, "kbisect: %s bisection with '%s' on target %s%s%s%s\n", kb_str(r, "mode"),
		kb_str(r, "bench"), kb_str(r, "target"), *kb_str(r, "accel") ? " (" : "",
		!strcmp(kb_str(r, "accel"), "kvm") ? "KVM" : !strcmp(kb_str(r, "accel"), "tcg") ?
		"TCG, no KVM" : "", *kb_str(r, "accel") ? ")" : "");
	fprintf(to, "range: %.12s (good) .. %.12s (bad), %lld commits; %lld runs, "
		"%lld builds\n\n", kb_str(r, "good"), kb_str(r, "bad"),
		(long long)json_integer_value(json_object_get(r, "range")),
		(long long)json_integer_value(json_object_get(r, "runs_total")),
		(long long)json_integer_value(json_object_get(r, "builds_total")));
	if (flaky && *kb_str(r, "failure_title"))
		fprintf(to, "the failure bisected: %s\n  (how BAD's kernel first died; other "
			"failures did not count: --signature REGEX chooses)\n\n",
			kb_str(r, "failure_title"));
	else if (flaky && *kb_str(r, "signature"))
		fprintf(to, "the failure bisected: output that matches '%s'\n\n",
			kb_str(r, "signature"));
	if (!strcmp(verdict, "culprit") || !strcmp(verdict, "multiple")) {
		json_t *terms = json_object_get(json_object_get(r, "setup"), "terms");

		if (!strcmp(verdict, "multiple"))
			fprintf(to, "The change comes from more than one commit:\n\n");
		else
			fprintf(to, "The first %s commit:\n\n",
				json_is_string(json_array_get(terms, 1)) ?
				json_string_value(json_array_get(terms, 1)) : "bad");
		json_array_foreach(culprits, i, e) {
			print_commit(e, to);
			if (perf)
				print_checks(e, to);
			else if (flaky)
				print_flaky(e, to);
			else
				fprintf(to, "probability: %.2f\n\n",
					json_number_value(json_object_get(e, "probability")));
		}
	} else if (json_object_get(r, "suspects")) {
		fprintf(to, "No single culprit: only skipped commits are left, and the "
			"first bad commit could be any of:\n\n");
		json_array_foreach(json_object_get(r, "suspects"), i, e)
			fprintf(to, "  %s %s\n", kb_str(e, "commit"), kb_str(e, "subject"));
		fprintf(to, "\n");
	} else if (!strcmp(verdict, "no-regression")) {
		fprintf(to, "No regression: %s. No commit is blamed.\n\n",
			*kb_str(r, "reason") ? kb_str(r, "reason") : "GOOD and BAD do not differ");
	} else {
		fprintf(to, "Inconclusive: %s. No commit is blamed.\n\n",
			*kb_str(r, "reason") ? kb_str(r, "reason") : "the bisection has no answer");
		json_array_foreach(culprits, i, e) {
			fprintf(to, "The likeliest candidate, not confirmed:\n\n");
			print_commit(e, to);
			if (perf)
				print_checks(e, to);
			else if (flaky)
				print_flaky(e, to);
		}
	}
	if (perf) {
		print_table(r, to);
		print_metrics(r, to);
	}
	if (json_array_size(json_object_get(r, "warnings"))) {
		fprintf(to, "Warnings:\n");
		json_array_foreach(json_object_get(r, "warnings"), i, e)
			fprintf(to, "  %s: %s\n", kb_str(e, "kind"), kb_str(e, "message"));
		fprintf(to, "\n");
	}
	fprintf(to, "Bisection log:\n");
	json_array_foreach(json_object_get(r, "steps"), i, e) {
		json_t *ex = json_object_get(e, "exit_status"), *smp = json_object_get(e, "samples");

		fprintf(to, "  %-7s %.12s %s", kb_str(e, "decision"), kb_str(e, "commit"),
			kb_str(e, "subject"));
		if (perf && json_array_size(smp)) {
			double v[4096];
			size_t n = 0, k;
			json_int_t nb = json_integer_value(json_object_get(e, "boots"));
			json_t *x;

			json_array_foreach(smp, k, x)
				if (n < 4096)
					v[n++] = json_number_value(x);
			fprintf(to, " (%s, %lld boot%s, %zu run%s, median %.6g", kb_str(e, "role"),
				(long long)nb, nb == 1 ? "" : "s", n, n == 1 ? "" : "s",
				kb_median(v, n));
			if (*kb_str(e, "same_as"))
				fprintf(to, "; the samples of %.12s, built the same",
					kb_str(e, "same_as"));
			fprintf(to, ")");
		} else if (flaky) {
			json_int_t other = json_integer_value(json_object_get(e, "other"));

			fprintf(to, " (%lld run%s, %lld failed",
				(long long)json_integer_value(json_object_get(e, "runs")),
				json_integer_value(json_object_get(e, "runs")) == 1 ? "" : "s",
				(long long)json_integer_value(json_object_get(e, "fails")));
			if (other)
				fprintf(to, ", %lld another way", (long long)other);
			fprintf(to, ")");
		} else if (ex) {
			fprintf(to, " (exit %lld)", (long long)json_integer_value(ex));
		} else if (*kb_str(e, "source")) {
			fprintf(to, " (%s)", kb_str(e, "source"));
		}
		fprintf(to, "\n");
		if (*kb_str(e, "build_error") || *kb_str(e, "boot_error")) {
			const char *p = *kb_str(e, "build_error") ? kb_str(e, "build_error") :
							       kb_str(e, "boot_error");

			fprintf(to, "          the %s failed:\n",
				*kb_str(e, "build_error") ? "build" : "boot");
			while (*p) {
				int len = (int)strcspn(p, "\n");

				fprintf(to, "            %.*s\n", len, p);
				p += len + (p[len] == '\n');
			}
		}
	}
	fprintf(to, "\n");
	print_setup(r, to);
	print_reproduce(r, to);
	if (link && *link)
		fprintf(to, "Link: %s\n", link);
	/* no regression: nothing for regzbot to track */
	if (!strcmp(verdict, "culprit") && json_array_size(culprits) == 1 &&
	    confirmed(json_array_get(culprits, 0)))
		fprintf(to, "#regzbot introduced: %.12s\n",
			kb_str(json_array_get(culprits, 0), "commit"));
	else if (strcmp(verdict, "no-regression") &&
		 !json_is_true(json_object_get(json_object_get(r, "calibration"), "too_noisy")))
		/* too noisy to tell: no regression was seen either */
		fprintf(to, "#regzbot introduced: %s..%s\n", rev_name(r, 0), rev_name(r, 1));
}

void kb_print_report(json_t *r, FILE *to, const char *link)
{
	json_t *plain = plain_copy(r, 0);

	print_report(plain, to, link);
	json_decref(plain);
}
