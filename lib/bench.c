#include "bench.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int field_err(const char *origin, const char *field, const char *what)
{
	return kb_error(KB_EINVAL, "benchmark %s: field '%s' %s", origin, field, what);
}

static int get_string(json_t *obj, const char *key, const char *origin,
		      int required, char **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v)
		return required ? field_err(origin, key, "is missing") : 0;
	if (!json_is_string(v))
		return field_err(origin, key, "must be a string");
	*out = kb_strdup(json_string_value(v));
	return 0;
}

static int get_int(json_t *obj, const char *key, const char *origin, int min,
		   int max, int def, int *out)
{
	json_t *v = json_object_get(obj, key);

	*out = def;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return kb_error(KB_EINVAL, "benchmark %s: field '%s' must be a whole "
				"number from %d to %d", origin, key, min, max);
	*out = (int)json_integer_value(v);
	return 0;
}

/* A string, or an array of strings, into 'out'. */
static int get_strings(json_t *obj, const char *key, const char *origin,
		       struct kb_strv *out, int *was_array)
{
	json_t *v = json_object_get(obj, key), *e;
	size_t i;

	*was_array = 0;
	if (!v)
		return 0;
	if (json_is_string(v)) {
		kb_strv_push(out, json_string_value(v));
		return 0;
	}
	if (!json_is_array(v) || !json_array_size(v))
		return field_err(origin, key, "must be a string or a non-empty array of strings");
	json_array_foreach(v, i, e) {
		if (!json_is_string(e))
			return field_err(origin, key, "must hold only strings");
		kb_strv_push(out, json_string_value(e));
	}
	*was_array = 1;
	return 0;
}

static int check_keys(json_t *obj, const char *const *allowed, const char *origin,
		      const char *where)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach(obj, key, v) {
		for (i = 0; allowed[i]; i++)
			if (!strcmp(allowed[i], key))
				break;
		if (!allowed[i])
			return kb_error(KB_EINVAL, "benchmark %s: unknown field '%s%s'",
					origin, where, key);
	}
	return 0;
}

/* A group's weight when ')' closes it; '(' and ')' nest at most this deep. */
#define REGEX_MAX_DEPTH 32
/* Copies of the parts of a metric regex that regcomp() may make. */
#define REGEX_MAX_COPIES 1000

/* A character of a bound "{m,n}" at p: past a backslash before a digit,
 * the comma or the '}', which glibc passes over there. */
static const char *bound_char(const char *p)
{
	if (p[0] == '\\' && (isdigit((unsigned char)p[1]) || p[1] == ',' || p[1] == '}'))
		return p + 1;
	return p;
}

/* The decimal number of a bound at *p, read past. */
static double read_bound(const char **p)
{
	double v = 0;

	for (;;) {
		const char *q = bound_char(*p);

		if (!isdigit((unsigned char)*q))
			return v;
		v = v * 10 + (*q - '0');
		*p = q + 1;
	}
}

/* Past a bracket expression "[...]" that starts at p; its end, or the NUL. */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			char close[3] = { p[1], ']', '\0' };
			const char *end = strstr(p + 2, close);

			if (!end)
				return p + strlen(p);
			p = end + 2;
			continue;
		}
		p++;
	}
	return *p ? p + 1 : p;
}

/*
 * What repeating 'n' times a part of 'w' copies adds: the copies, and
 * their square when the part is itself repeated or a group, for the
 * closures regcomp() makes of parts that may match nothing grow so
 * ("(){1,100}+" took 1.3 s, "()+{1,255}" 1 s, "(){1,255}+" minutes).
 */
static double repeat_cost(double w, double n)
{
	return w > 1 ? (w * n) * (w * n) : w * (n - 1);
}

/*
 * How many copies of its parts glibc's regcomp() makes of an extended
 * regex: it expands "x{m,n}" into n copies of x, and every copy of a group
 * holds copies of its own, so "((a{1,255}){1,255})" took 10 seconds and
 * 800 MB to compile.  An estimate from the bounds and the operators '*',
 * '+' and '?' (each counted as one more copy), not a parser: what is
 * not valid is left for regcomp() to refuse.  Stops at the first count
 * over REGEX_MAX_COPIES (the counts only grow from there); -1 when groups
 * nest deeper than REGEX_MAX_DEPTH.
 */
static double regex_copies(const char *re)
{
	double sum[REGEX_MAX_DEPTH + 1], last[REGEX_MAX_DEPTH + 1];
	const char *p = re;
	int depth = 0;

	sum[0] = last[0] = 0;
	while (*p) {
		double w = 1;

		switch (*p) {
		case '\\':
			p += p[1] ? 2 : 1;
			break;
		case '[':
			p = skip_bracket(p);
			break;
		case '(':
			if (depth == REGEX_MAX_DEPTH)
				return -1;
			depth++;
			sum[depth] = last[depth] = 0;
			p++;
			continue;
		case ')':
			p++;
			if (!depth)
				break;
			/* an empty group is a part too: "()+++" doubles */
			w = sum[depth] > 1 ? sum[depth] : 1;
			depth--;
			break;
		case '|':
			last[depth] = 0;
			p++;
			continue;
		case '*':
		case '?':
		case '+':
			/* x+ is xx*; operators piled on one part cost as much
			 * as copies of it (tens of '?' after x{1,255}: 10 s) */
			if (!last[depth])
				last[depth] = 1;
			sum[depth] += repeat_cost(last[depth], 2);
			last[depth] *= 2;
			p++;
			if (sum[depth] > REGEX_MAX_COPIES)
				return sum[depth];
			continue;
		case '{': {
			double m, n;

			/* glibc reads "{,n}" as "{0,n}", and a backslash before a
			 * digit, the comma or the '}' of a bound as nothing
			 * ("(){1\,255}+" took minutes, "(a){\0,8202}" all the
			 * memory) */
			const char *q = bound_char(p + 1);

			if (!isdigit((unsigned char)*q) && *q != ',') {
				p++;            /* not a bound: a '{' */
				break;
			}
			p = q;
			m = n = read_bound(&p);
			p = bound_char(p);
			if (*p == ',') {
				p = bound_char(p + 1);
				n = isdigit((unsigned char)*p) ? read_bound(&p) : m + 1;
			}
			p = bound_char(p);
			if (*p == '}')
				p++;
			n = n < 1 ? 1 : n > 1e9 ? 1e9 : n;
			sum[depth] += repeat_cost(last[depth], n);
			last[depth] *= n;
			if (sum[depth] > REGEX_MAX_COPIES)
				return sum[depth];
			continue;
		}
		default:
			p++;
			break;
		}
		last[depth] = w;
		sum[depth] += w;
		if (sum[depth] > REGEX_MAX_COPIES)
			return sum[depth];
	}
	while (depth) {
		double w = sum[depth--];

		sum[depth] += w;
	}
	return sum[0];
}

/*
 * The escapes a metric regex may have: a backslash before one of the
 * characters special to a regex, or before one of glibc's word and
 * space classes and anchors.  Any other ("\\1", "\\,") is refused: glibc
 * reads some of them in ways of its own (a backreference; nothing, inside
 * a bound), which regex_copies() could not follow.  The first bad escape,
 * or NULL.
 */
static const char *bad_escape(const char *re)
{
	static const char ok[] = ".[](){}*+?|^$\\/-wWsSbB<>`'";
	const char *p;

	for (p = re; *p; p++) {
		if (*p == '[') {
			/* in a bracket expression a backslash is a character */
			p = skip_bracket(p) - 1;
			continue;
		}
		if (*p != '\\')
			continue;
		if (!p[1] || !strchr(ok, p[1]))
			return p;
		p++;
	}
	return NULL;
}

/* Milliseconds of CPU regcomp() may take on a metric regex. */
#define REGEX_MAX_CPU_MS 250

/* A regex compiled, one it refused, or one it did not finish in time. */
enum { REGEX_VALID, REGEX_INVALID, REGEX_TOO_SLOW };

/*
 * Whether regcomp() takes 'regex', tried in a child process limited to
 * REGEX_MAX_CPU_MS of CPU: glibc's compiler has cases of its own beyond
 * what regex_copies() counts (the closures of anchors in a repeated group,
 * worked out again and again), and a regex that takes minutes or crashes
 * it must not take the session with it.  The limit is on CPU time, not
 * wall time, so that a busy machine does not refuse what a quiet one
 * takes.  REGEX_VALID, REGEX_INVALID or REGEX_TOO_SLOW; KB_ERROR when
 * there was no child.
 */
static int regex_try(const char *regex)
{
	/* the last valid ones: a benchmark is parsed again by every command
	 * of its session, and its regexes need no second child */
	static char *known[2 * KB_BENCH_MAX_METRICS];
	static unsigned next;
	const size_t nknown = sizeof(known) / sizeof(known[0]);
	int status;
	pid_t pid;
	size_t i;

	for (i = 0; i < nknown; i++)
		if (known[i] && !strcmp(known[i], regex))
			return REGEX_VALID;
	pid = fork();
	if (pid < 0)
		return kb_error(KB_ERROR, "cannot try a regex: fork: %s", strerror(errno));
	if (pid == 0) {
		struct itimerval cpu = { { 0, 0 }, { 0, REGEX_MAX_CPU_MS * 1000 } };
		struct rlimit hard = { 1, 2 };  /* should SIGPROF not end it */
		sigset_t prof;
		regex_t re;

		sigemptyset(&prof);
		sigaddset(&prof, SIGPROF);
		if (signal(SIGPROF, SIG_DFL) == SIG_ERR ||
		    sigprocmask(SIG_UNBLOCK, &prof, NULL) != 0 ||
		    setrlimit(RLIMIT_CPU, &hard) != 0 ||
		    setitimer(ITIMER_PROF, &cpu, NULL) != 0)
			_exit(3);
		_exit(regcomp(&re, regex, REG_EXTENDED) ? 1 : 0);
	}
	/* waitpid() fails otherwise only where the child is gone already */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return kb_error(KB_ERROR, "cannot try a regex: waitpid: %s",
					strerror(errno));
	if (!WIFEXITED(status))
		return REGEX_TOO_SLOW;          /* killed, or crashed */
	if (WEXITSTATUS(status) == 1)
		return REGEX_INVALID;
	if (WEXITSTATUS(status) != 0)
		return kb_error(KB_ERROR, "cannot try a regex: no CPU limit for it");
	i = next++ % nknown;
	free(known[i]);
	known[i] = kb_strdup(regex);
	return REGEX_VALID;
}

int kb_regex_check(const char *regex, const char *origin, const char *field)
{
	const char *esc = bad_escape(regex);
	double copies = regex_copies(regex);
	regex_t re;
	int rc;

	if (esc)
		return kb_error(KB_EINVAL, "benchmark %s: field '%s' has the escape '\\%.1s', "
				"which a regex here may not have: a backslash goes only "
				"before a character special to a regex (\\. \\( \\[ ...) or "
				"before w, W, s, S, b, B, <, >, ` and '", origin, field, esc + 1);
	if (copies < 0)
		return kb_error(KB_EINVAL, "benchmark %s: field '%s' nests groups deeper "
				"than %d", origin, field, REGEX_MAX_DEPTH);
	if (copies > REGEX_MAX_COPIES)
		return kb_error(KB_EINVAL, "benchmark %s: field '%s' repeats too much: its "
				"bounds {m,n} make more than %d copies of its parts to match",
				origin, field, REGEX_MAX_COPIES);
	rc = regex_try(regex);
	if (rc < 0)
		return rc;
	if (rc == REGEX_TOO_SLOW)
		return kb_error(KB_EINVAL, "benchmark %s: field '%s' is a regex the C "
				"library does not compile in %d ms of CPU: write it with "
				"fewer anchors, groups, bounds and optional or repeated parts",
				origin, field, REGEX_MAX_CPU_MS);
	if (rc == REGEX_VALID)
		return 0;
	/* the child got to the end: so does this, for the message */
	rc = regcomp(&re, regex, REG_EXTENDED);
	if (rc) {
		char msg[128];

		regerror(rc, &re, msg, sizeof(msg));
		return kb_error(KB_EINVAL, "benchmark %s: field '%s' is not a valid regular "
				"expression: %s", origin, field, msg);
	}
	regfree(&re);
	return 0;
}

/* The string at key 'key' of the object at 'field' ("metric", "metrics[2]"). */
static int get_field_string(json_t *obj, const char *field, const char *key,
			    const char *origin, int required, char **out)
{
	json_t *v = json_object_get(obj, key);
	char *name;
	int ret;

	*out = NULL;
	if (v && json_is_string(v)) {
		*out = kb_strdup(json_string_value(v));
		return 0;
	}
	if (!v && !required)
		return 0;
	name = kb_asprintf("%s.%s", field, key);
	ret = field_err(origin, name, v ? "must be a string" : "is missing");
	free(name);
	return ret;
}

static void metric_release(struct kb_metric *m)
{
	free(m->name);
	free(m->json_path);
	free(m->regex);
	free(m->unit);
	memset(m, 0, sizeof(*m));
}

/* A metric object, the primary ('field' "metric") or a secondary one
 * ("metrics[2]"), into 'out'; errors name the field. */
static int parse_one_metric(struct kb_metric *out, json_t *m, const char *origin,
			    const char *field)
{
	static const char *const keys[] = {
		"name", "json_path", "regex", "direction", "unit", NULL
	};
	char *dir = NULL, *where = kb_asprintf("%s.", field), *re_field = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(m)) {
		ret = field_err(origin, field, "must be an object");
		goto out;
	}
	if ((ret = check_keys(m, keys, origin, where)) < 0)
		goto out;
	if ((ret = get_field_string(m, field, "name", origin, 1, &out->name)) < 0 ||
	    (ret = get_field_string(m, field, "json_path", origin, 0, &out->json_path)) < 0 ||
	    (ret = get_field_string(m, field, "regex", origin, 0, &out->regex)) < 0 ||
	    (ret = get_field_string(m, field, "unit", origin, 0, &out->unit)) < 0 ||
	    (ret = get_field_string(m, field, "direction", origin, 1, &dir)) < 0)
		goto out;
	if (!strcmp(dir, "lower")) {
		out->direction = KB_LOWER_IS_BETTER;
	} else if (!strcmp(dir, "higher")) {
		out->direction = KB_HIGHER_IS_BETTER;
	} else {
		char *f = kb_asprintf("%s.direction", field);

		ret = field_err(origin, f, "must be \"lower\" or \"higher\"");
		free(f);
		goto out;
	}
	if (!out->json_path == !out->regex) {
		ret = field_err(origin, field, "needs exactly one of 'json_path' and 'regex'");
		goto out;
	}
	re_field = kb_asprintf("%s.regex", field);
	if (out->regex) {
		if ((ret = kb_regex_check(out->regex, origin, re_field)) < 0)
			goto out;
	}
	if (!out->unit)
		out->unit = kb_strdup("");
out:
	if (ret)
		metric_release(out);
	free(dir);
	free(where);
	free(re_field);
	return ret;
}

static int parse_metric(struct kb_bench *b, json_t *m, const char *origin)
{
	int ret = parse_one_metric(&b->metric, m, origin, "metric");

	if (ret == 0)
		b->has_metric = 1;
	return ret;
}

/* The secondary metrics: an array of metric objects beside 'metric',
 * each named once and not as the primary. */
static int parse_metrics(struct kb_bench *b, json_t *a, const char *origin)
{
	json_t *e;
	size_t i, j;
	int ret;

	if (!json_is_array(a))
		return field_err(origin, "metrics", "must be an array of metric objects");
	if (!b->has_metric)
		return field_err(origin, "metrics", "needs a 'metric' beside it: the primary "
				 "metric decides, the others are recorded");
	if (json_array_size(a) > KB_BENCH_MAX_METRICS)
		return kb_error(KB_EINVAL, "benchmark %s: field 'metrics' has %zu metrics; "
				"at most %d", origin, json_array_size(a), KB_BENCH_MAX_METRICS);
	b->metrics = kb_calloc(json_array_size(a) + 1, sizeof(*b->metrics));
	json_array_foreach(a, i, e) {
		char field[32];
		struct kb_metric *m = &b->metrics[i];

		snprintf(field, sizeof(field), "metrics[%zu]", i);
		if ((ret = parse_one_metric(m, e, origin, field)) < 0)
			return ret;
		b->nmetrics++;
		if (!strcmp(m->name, b->metric.name))
			return kb_error(KB_EINVAL, "benchmark %s: field '%s.name' is \"%s\", "
					"the name of the primary metric: each metric needs a "
					"name of its own", origin, field, m->name);
		for (j = 0; j < i; j++)
			if (!strcmp(m->name, b->metrics[j].name))
				return kb_error(KB_EINVAL, "benchmark %s: field '%s.name' is "
						"\"%s\", as 'metrics[%zu].name' is: each metric "
						"needs a name of its own", origin, field, m->name, j);
	}
	return 0;
}

/* "use_metric": the secondary metric of that name decides, and the
 * primary takes its place among the secondary ones. */
static int use_metric(struct kb_bench *b, const char *origin)
{
	struct kb_buf names = KB_BUF_INIT;
	struct kb_metric t;
	size_t i;
	int ret;

	if (b->has_metric && !strcmp(b->use_metric, b->metric.name))
		return 0;
	for (i = 0; i < b->nmetrics; i++)
		if (!strcmp(b->metrics[i].name, b->use_metric)) {
			t = b->metric;
			b->metric = b->metrics[i];
			b->metrics[i] = t;
			return 0;
		}
	if (!b->has_metric)
		return kb_error(KB_EINVAL, "benchmark %s has no metric, so there is no metric "
				"'%s' to bisect on: it is a pass/fail test", origin, b->use_metric);
	kb_buf_addf(&names, "%s", b->metric.name);
	for (i = 0; i < b->nmetrics; i++)
		kb_buf_addf(&names, "%s%s", i + 1 == b->nmetrics ? " and " : ", ",
			    b->metrics[i].name);
	ret = kb_error(KB_EINVAL, "benchmark %s has no metric named '%s': it has %s",
		       origin, b->use_metric, names.ptr);
	kb_buf_release(&names);
	return ret;
}

int kb_bench_parse(struct kb_bench *b, const char *text, const char *origin)
{
	static const char *const keys[] = {
		"name", "description", "setup", "command", "metric", "warmup",
		"runs_per_boot", "timeout", "metrics", "flaky", "signature", "min_rate",
		"min_effect", "use_metric", NULL
	};
	json_error_t jerr;
	json_t *root, *v;
	int ret, arr;

	memset(b, 0, sizeof(*b));
	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return kb_error(KB_EINVAL, "benchmark %s: line %d column %d: %s",
				origin, jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		ret = kb_error(KB_EINVAL, "benchmark %s: must be a JSON object", origin);
		goto out;
	}
	if ((ret = check_keys(root, keys, origin, "")) < 0 ||
	    (ret = get_string(root, "name", origin, 1, &b->name)) < 0 ||
	    (ret = get_string(root, "description", origin, 0, &b->description)) < 0 ||
	    (ret = get_strings(root, "setup", origin, &b->setup, &arr)) < 0 ||
	    (ret = get_strings(root, "command", origin, &b->argv, &arr)) < 0)
		goto out;
	if (!b->argv.n) {
		ret = field_err(origin, "command", "is missing");
		goto out;
	}
	if (!arr) {
		char *cmd = kb_strdup(b->argv.v[0]);

		kb_strv_clear(&b->argv);
		kb_strv_push(&b->argv, "/bin/sh");
		kb_strv_push(&b->argv, "-c");
		kb_strv_push(&b->argv, cmd);
		free(cmd);
	}
	if ((v = json_object_get(root, "metric")) && (ret = parse_metric(b, v, origin)) < 0)
		goto out;
	if ((v = json_object_get(root, "metrics")) && (ret = parse_metrics(b, v, origin)) < 0)
		goto out;
	if ((ret = get_string(root, "use_metric", origin, 0, &b->use_metric)) < 0)
		goto out;
	if (b->use_metric && (ret = use_metric(b, origin)) < 0)
		goto out;
	if ((v = json_object_get(root, "min_effect"))) {
		if (!json_is_number(v) || !(json_number_value(v) > 0) ||
		    !(json_number_value(v) <= 1000)) {
			ret = field_err(origin, "min_effect", "must be a percent above 0 "
					"(and at most 1000)");
			goto out;
		}
		if (!b->has_metric) {
			ret = field_err(origin, "min_effect", "is for a benchmark with a metric");
			goto out;
		}
		b->min_effect = json_number_value(v);
	}
	/* a metric needs a few runs per boot to see warm-up and noise */
	if ((ret = get_int(root, "warmup", origin, 0, 1000, 0, &b->warmup)) < 0 ||
	    (ret = get_int(root, "runs_per_boot", origin, 1, 100000, b->has_metric ? 5 : 1,
			   &b->runs_per_boot)) < 0)
		goto out;
	b->runs_per_boot_set = json_object_get(root, "runs_per_boot") != NULL;
	if (b->has_metric && b->runs_per_boot - b->warmup < 2) {
		ret = kb_error(KB_EINVAL, "benchmark %s: a benchmark with a metric needs "
			       "'runs_per_boot' at least 2 more than 'warmup' (it has %d and %d)",
			       origin, b->runs_per_boot, b->warmup);
		goto out;
	}
	if ((v = json_object_get(root, "timeout"))) {
		if (!json_is_number(v) || json_number_value(v) < 0) {
			ret = field_err(origin, "timeout", "must be a number of seconds >= 0");
			goto out;
		}
		b->timeout = json_number_value(v);
	}
	if (b->warmup >= b->runs_per_boot && b->has_metric) {
		ret = kb_error(KB_EINVAL, "benchmark %s: 'warmup' (%d) must be smaller "
			       "than 'runs_per_boot' (%d)", origin, b->warmup,
			       b->runs_per_boot);
		goto out;
	}
	if ((v = json_object_get(root, "flaky"))) {
		if (!json_is_boolean(v)) {
			ret = field_err(origin, "flaky", "must be true or false");
			goto out;
		}
		b->flaky = json_is_true(v);
	}
	if ((ret = get_string(root, "signature", origin, 0, &b->signature)) < 0 ||
	    (b->signature && (ret = kb_regex_check(b->signature, origin, "signature")) < 0))
		goto out;
	if ((v = json_object_get(root, "min_rate"))) {
		if (!json_is_number(v) || !(json_number_value(v) > 0) ||
		    !(json_number_value(v) < 1)) {
			ret = field_err(origin, "min_rate", "must be a rate above 0 and below 1");
			goto out;
		}
		b->min_rate = json_number_value(v);
	}
	if ((b->flaky || b->signature) && b->has_metric) {
		ret = kb_error(KB_EINVAL, "benchmark %s: '%s' is for a test that passes or "
			       "fails, and this one has a metric", origin,
			       b->flaky ? "flaky" : "signature");
		goto out;
	}
	b->json = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
out:
	json_decref(root);
	if (ret)
		kb_bench_release(b);
	return ret;
}

/* The definition of 'b' as a JSON object to amend, or NULL (an error). */
static json_t *definition(const struct kb_bench *b)
{
	json_t *root = json_loads(b->json, 0, NULL);

	if (!root)
		kb_error(KB_ERROR, "benchmark %s: cannot read its definition", b->name);
	return root;
}

/* 'b' becomes the amended definition 'root' (taken), checked as a file
 * that says so would be. */
static int redefine(struct kb_bench *b, json_t *root, const char *origin)
{
	struct kb_bench nb;
	char *text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
	int ret;

	json_decref(root);
	ret = kb_bench_parse(&nb, text, origin);
	free(text);
	if (ret < 0)
		return ret;
	kb_bench_release(b);
	*b = nb;
	return 0;
}

int kb_bench_set_flaky(struct kb_bench *b, int flaky, double min_rate, const char *signature,
		       const char *origin)
{
	json_t *root = definition(b);

	if (!root)
		return KB_ERROR;
	if (flaky)
		json_object_set_new(root, "flaky", json_true());
	if (min_rate > 0)
		json_object_set_new(root, "min_rate", json_real(min_rate));
	if (signature)
		json_object_set_new(root, "signature", json_string(signature));
	return redefine(b, root, origin);
}

int kb_bench_set_metric(struct kb_bench *b, const char *metric, double min_effect,
			const char *origin)
{
	json_t *root = definition(b);

	if (!root)
		return KB_ERROR;
	if (metric)
		json_object_set_new(root, "use_metric", json_string(metric));
	if (min_effect > 0)
		json_object_set_new(root, "min_effect", json_real(min_effect));
	return redefine(b, root, origin);
}

int kb_bench_load(struct kb_bench *b, const char *name, const char *dirs)
{
	struct kb_buf text = KB_BUF_INIT;
	char *path = NULL;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!strchr(name, '/') && !strstr(name, ".json")) {
		const char *d = dirs;

		while (d && *d) {
			size_t len = strcspn(d, ":");
			char *p = kb_asprintf("%.*s/%s.json", (int)len, d, name);

			if (!access(p, R_OK)) {
				path = p;
				break;
			}
			free(p);
			d += len + (d[len] == ':');
		}
		if (!path)
			return kb_error(KB_ENOTFOUND, "no benchmark named '%s' "
					"(looked in %s; give a file path to use your own)",
					name, dirs && *dirs ? dirs : "nowhere");
	} else {
		path = kb_strdup(name);
	}
	ret = kb_read_file(path, &text, 1 << 20);
	if (ret == KB_ENOTFOUND)
		ret = kb_error(KB_ENOTFOUND, "benchmark file %s does not exist", path);
	if (!ret)
		ret = kb_bench_parse(b, text.ptr, path);
	kb_buf_release(&text);
	free(path);
	return ret;
}

int kb_bench_from_command(struct kb_bench *b, const char *shell_command)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "name", "command",
			      "description", "pass/fail by exit status",
			      "command", shell_command);
	char *text = json_dumps(o, JSON_COMPACT);
	int ret = kb_bench_parse(b, text, "'--command'");

	free(text);
	json_decref(o);
	return ret;
}

void kb_bench_release(struct kb_bench *b)
{
	size_t i;

	free(b->name);
	free(b->description);
	free(b->signature);
	free(b->use_metric);
	kb_strv_clear(&b->setup);
	kb_strv_clear(&b->argv);
	metric_release(&b->metric);
	for (i = 0; i < b->nmetrics; i++)
		metric_release(&b->metrics[i]);
	free(b->metrics);
	free(b->json);
	memset(b, 0, sizeof(*b));
}

/* Walk "a.b[2].c" into a JSON document; ["x.y"] is a key with dots. */
static json_t *json_walk(json_t *root, const char *path)
{
	json_t *cur = root;
	const char *p = path;

	while (cur && *p) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (p[0] == '[' && p[1] == '"') {
			const char *end = strstr(p + 2, "\"]");
			char *key;

			if (!end)
				return NULL;
			key = kb_strndup(p + 2, (size_t)(end - p - 2));
			cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
			free(key);
			p = end + 2;
			continue;
		}
		if (*p == '[') {
			char *end;
			long idx = strtol(p + 1, &end, 10);

			if (*end != ']' || !json_is_array(cur) || idx < 0)
				return NULL;
			cur = json_array_get(cur, (size_t)idx);
			p = end + 1;
			continue;
		}
		size_t len = strcspn(p, ".[");
		char *key = kb_strndup(p, len);

		cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
		free(key);
		p += len;
	}
	return cur;
}

static void quote_output(struct kb_buf *b, const char *output)
{
	size_t len = strlen(output), i;
	const char *start = len > 160 ? output + len - 160 : output;

	kb_buf_adds(b, len > 160 ? "...'" : "'");
	for (i = 0; start[i]; i++)
		kb_buf_addch(b, isprint((unsigned char)start[i]) ? start[i] : ' ');
	kb_buf_addch(b, '\'');
}

/* "benchmark NAME" or, for a secondary metric, "benchmark NAME: metric M". */
static void who(struct kb_buf *w, const struct kb_bench *b, const struct kb_metric *m)
{
	kb_buf_addf(w, "benchmark %s", b->name);
	if (m != &b->metric)
		kb_buf_addf(w, ": metric %s", m->name);
}

static int no_value(const struct kb_bench *b, const struct kb_metric *mt, const char *why,
		    const char *output)
{
	struct kb_buf m = KB_BUF_INIT, w = KB_BUF_INIT;
	int ret;

	quote_output(&m, output);
	who(&w, b, mt);
	ret = kb_error(KB_EINVAL, "%s: %s in the output %s", w.ptr, why, m.ptr);
	kb_buf_release(&m);
	kb_buf_release(&w);
	return ret;
}

static int parse_number(const char *s, size_t len, double *out)
{
	char *tmp = kb_strndup(s, len), *end;
	double v = strtod(tmp, &end);
	int ok = end != tmp && !*end && isfinite(v);

	free(tmp);
	*out = v;
	return ok;
}

int kb_metric_extract(const struct kb_bench *b, const char *output, double *value)
{
	if (!b->has_metric)
		return kb_error(KB_EINVAL, "benchmark %s has no metric: its exit status "
				"is its result", b->name);
	return kb_metric_extract_one(b, &b->metric, output, value);
}

int kb_metric_extract_one(const struct kb_bench *b, const struct kb_metric *mt,
			  const char *output, double *value)
{
	if (mt->json_path) {
		const char *start = strchr(output, '{');
		json_error_t jerr;
		json_t *root, *v;
		int ret = 0;

		if (!start)
			return no_value(b, mt, "no JSON object", output);
		root = json_loads(start, JSON_DISABLE_EOF_CHECK, &jerr);
		if (!root)
			return no_value(b, mt, "no valid JSON", output);
		v = json_walk(root, mt->json_path);
		if (v && json_is_number(v)) {
			*value = json_number_value(v);
		} else if (!(v && json_is_string(v) &&
			     parse_number(json_string_value(v), strlen(json_string_value(v)),
					  value))) {
			struct kb_buf w = KB_BUF_INIT;

			who(&w, b, mt);
			ret = kb_error(KB_EINVAL, "%s: no number at '%s' in the JSON output",
				       w.ptr, mt->json_path);
			kb_buf_release(&w);
		}
		json_decref(root);
		return ret;
	} else {
		regex_t re;
		regmatch_t m[2];
		int ok, g;

		if (regcomp(&re, mt->regex, REG_EXTENDED))
			return kb_error(KB_EINVAL, "benchmark %s: bad regex", b->name);
		ok = !regexec(&re, output, 2, m, 0);
		regfree(&re);
		if (!ok)
			return no_value(b, mt, "metric regex did not match", output);
		g = m[1].rm_so >= 0 ? 1 : 0;
		if (!parse_number(output + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so), value))
			return no_value(b, mt, "the regex matched no number", output);
		return 0;
	}
}

int kb_metric_extract_kept(const struct kb_bench *b, const struct kb_metric *m,
			   const char *head, const char *tail, double *value)
{
	int ret = m ? kb_metric_extract_one(b, m, head, value) :
		      kb_metric_extract(b, head, value);

	if (ret == 0 || !tail || !*tail || !b->has_metric)
		return ret;
	kb_error_clear();
	return m ? kb_metric_extract_one(b, m, tail, value) : kb_metric_extract(b, tail, value);
}
