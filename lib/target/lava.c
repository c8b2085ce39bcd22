/* The pure parts of the lava target: see lava.h. */
#include "lava.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kb_yaml_quote(struct kb_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	kb_buf_addch(out, '"');
	for (; *p; p++) {
		switch (*p) {
		case '"': kb_buf_adds(out, "\\\""); break;
		case '\\': kb_buf_adds(out, "\\\\"); break;
		case '\n': kb_buf_adds(out, "\\n"); break;
		case '\t': kb_buf_adds(out, "\\t"); break;
		case '\r': kb_buf_adds(out, "\\r"); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				kb_buf_addf(out, "\\x%02x", *p);
			} else if (*p == 0xc2 && p[1] == 0x85) {
				/* NEL, a line break to YAML 1.1 */
				kb_buf_adds(out, "\\N");
				p++;
			} else if (*p == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
				/* the line and paragraph separators */
				kb_buf_adds(out, p[2] == 0xa8 ? "\\L" : "\\P");
				p += 2;
			} else {
				kb_buf_addch(out, (char)*p);
			}
		}
	}
	kb_buf_addch(out, '"');
}

static int line_of(const char *start, const char *at)
{
	int n = 1;

	for (; start < at; start++)
		n += *start == '\n';
	return n;
}

/* Is the placeholder at 'at' (its end at 'end') a whole YAML value? */
static int whole_value(const char *tmpl, const char *at, const char *end)
{
	const char *p = at;

	while (p > tmpl && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	if (p == tmpl || p[-1] == '\n')
		return 0;
	if (p[-1] != ':' && p[-1] != '-' && p[-1] != '[' && p[-1] != ',' && p[-1] != '{')
		return 0;
	/* "- " of a list, or "key:" with a blank after it */
	if ((p[-1] == ':' || p[-1] == '-') && p == at)
		return 0;
	if (p[-1] == '-' && p - 1 > tmpl && p[-2] != ' ' && p[-2] != '\t' && p[-2] != '\n')
		return 0;
	for (p = end; *p == ' ' || *p == '\t'; p++)
		;
	return !*p || *p == '\n' || *p == '#' || *p == ',' || *p == ']' || *p == '}' ||
	       (*p == '\r' && p[1] == '\n');
}

int kb_lava_render(const char *tmpl, const char *origin, const struct kb_lava_var *vars,
		   size_t nvars, struct kb_buf *out)
{
	const char *p = tmpl, *open;

	while ((open = strstr(p, "{{"))) {
		const char *close = strstr(open + 2, "}}"), *a, *b, *eol;
		size_t i;

		eol = open + strcspn(open, "\n");
		/* a comment's braces are left as they are */
		{
			const char *bol = open, *c;

			while (bol > tmpl && bol[-1] != '\n')
				bol--;
			c = memchr(bol, '#', (size_t)(open - bol));
			if (c && (c == bol || c[-1] == ' ' || c[-1] == '\t')) {
				kb_buf_add(out, p, (size_t)(eol - p));
				p = eol;
				continue;
			}
		}
		if (!close || close > eol)
			return kb_error(KB_EINVAL, "job template %s, line %d: \"{{\" without "
					"\"}}\" on its line", origin, line_of(tmpl, open));
		for (a = open + 2; *a == ' '; a++)
			;
		for (b = close; b > a && b[-1] == ' '; b--)
			;
		for (i = 0; i < nvars; i++)
			if (strlen(vars[i].name) == (size_t)(b - a) &&
			    !strncmp(vars[i].name, a, (size_t)(b - a)))
				break;
		if (i == nvars) {
			struct kb_buf names = KB_BUF_INIT;
			size_t k;
			int ret;

			for (k = 0; k < nvars; k++)
				kb_buf_addf(&names, "%s%s", k ? ", " : "", vars[k].name);
			ret = kb_error(KB_EINVAL, "job template %s, line %d: unknown value "
				       "{{%.*s}} (kbisect fills in: %s)", origin,
				       line_of(tmpl, open), (int)(b - a), a, names.ptr);
			kb_buf_release(&names);
			return ret;
		}
		if (!whole_value(tmpl, open, close + 2))
			return kb_error(KB_EINVAL, "job template %s, line %d: {{%s}} must be a "
					"whole YAML value (after \"key:\" or \"- \", nothing after "
					"it on its line), never a part of other text: kbisect "
					"writes it quoted", origin, line_of(tmpl, open),
					vars[i].name);
		kb_buf_add(out, p, (size_t)(open - p));
		if (vars[i].text)
			kb_yaml_quote(out, vars[i].text);
		else
			kb_buf_addf(out, "%ld", vars[i].number);
		p = close + 2;
	}
	kb_buf_adds(out, p);
	return 0;
}

void kb_lava_log_console(const char *log, size_t len, struct kb_buf *console,
			 struct kb_buf *lava)
{
	const char *p = log, *end = log + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
		json_t *o;
		json_error_t jerr;

		if (n > 2 && p[0] == '-' && p[1] == ' ' &&
		    (o = json_loadb(p + 2, n - 2, JSON_DECODE_ANY, &jerr))) {
			const char *lvl = json_string_value(json_object_get(o, "lvl"));
			json_t *msg = json_object_get(o, "msg");

			if (lvl && json_is_string(msg) &&
			    (!strcmp(lvl, "target") || !strcmp(lvl, "feedback"))) {
				const char *m = json_string_value(msg);
				size_t k, len = json_string_length(msg);

				/* LAVA puts a backslash before each quote the device
				 * printed: taken away */
				for (k = 0; k < len; k++)
					if (!(m[k] == '\\' && k + 1 < len && m[k + 1] == '"'))
						kb_buf_addch(console, m[k]);
				kb_buf_addch(console, '\n');
			} else if (lava && lvl) {
				char *m = json_is_string(msg) ? kb_strdup(json_string_value(msg)) :
					  json_dumps(msg, JSON_COMPACT);

				kb_buf_addf(lava, "%s: %s\n", lvl, m ? m : "");
				free(m);
			}
			json_decref(o);
		} else if (lava && n) {
			kb_buf_add(lava, p, n);
			kb_buf_addch(lava, '\n');
		}
		p = eol ? eol + 1 : end;
	}
	if (!console->ptr)
		kb_buf_adds(console, "");
}

void kb_lava_said_release(struct kb_lava_said *said)
{
	int i;

	for (i = 0; i < said->nruns; i++)
		kb_buf_release(&said->runs[i].output);
	free(said->runs);
	kb_buf_release(&said->setup_output);
	memset(said, 0, sizeof(*said));
}

void kb_lava_said_parse(const char *console, const char *nonce, int runs,
			struct kb_lava_said *said)
{
	char mark[48];
	size_t mlen;
	const char *p = console;
	struct kb_buf *into = NULL;

	memset(said, 0, sizeof(*said));
	said->nruns = runs > 0 ? runs : 0;
	said->runs = kb_calloc((size_t)(runs > 0 ? runs : 1), sizeof(*said->runs));
	snprintf(mark, sizeof(mark), "KBISECT-%s ", nonce);
	mlen = strlen(mark);
	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *m = NULL, *w;
		int k, st;

		/* ours only at the start of a line (a prompt may come first) */
		if (n >= mlen && !strncmp(p, mark, mlen))
			m = p;
		if (!m) {
			if (into) {
				kb_buf_add(into, p, n);
				if (p[n])
					kb_buf_addch(into, '\n');
			}
			p += n + (p[n] == '\n');
			continue;
		}
		w = m + mlen;
		{
			char line[512];

			snprintf(line, sizeof(line), "%.*s", (int)(n - mlen), w);
			line[strcspn(line, "\r")] = '\0';
			if (!strncmp(line, "IDENTITY ", 9)) {
				snprintf(said->identity, sizeof(said->identity), "%.200s", line + 9);
				into = NULL;
			} else if (sscanf(line, "SETUP-BEGIN %d", &k) == 1) {
				said->setups = k;
				kb_buf_reset(&said->setup_output);
				into = &said->setup_output;
			} else if (sscanf(line, "SETUP-END %d %d", &k, &st) == 2) {
				if (st != 0 && !said->setup_failed) {
					said->setup_failed = k;
					said->setup_status = st;
				}
				into = NULL;
			} else if (sscanf(line, "RUN-BEGIN %d", &k) == 1 && k >= 1 && k <= runs) {
				said->runs[k - 1].begun = 1;
				kb_buf_reset(&said->runs[k - 1].output);
				into = &said->runs[k - 1].output;
			} else if (sscanf(line, "RUN-END %d %d", &k, &st) == 2 && k >= 1 &&
				   k <= runs) {
				double secs = 0;

				said->runs[k - 1].ended = 1;
				said->runs[k - 1].status = st;
				if (sscanf(line, "RUN-END %*d %*d %lf", &secs) == 1 && secs >= 0)
					said->runs[k - 1].seconds = secs;
				into = NULL;
			} else if (!strcmp(line, "DONE")) {
				said->done = 1;
				into = NULL;
			}
		}
		/* the newline the guest put before our line is its own */
		p += n + (p[n] == '\n');
	}
	{
		int i;

		for (i = 0; i < said->nruns; i++) {
			struct kb_buf *o = &said->runs[i].output;

			if (said->runs[i].ended && o->len && o->ptr[o->len - 1] == '\n')
				o->ptr[--o->len] = '\0';
			if (!o->ptr)
				kb_buf_adds(o, "");
		}
		if (said->setup_output.len &&
		    said->setup_output.ptr[said->setup_output.len - 1] == '\n')
			said->setup_output.ptr[--said->setup_output.len] = '\0';
		if (!said->setup_output.ptr)
			kb_buf_adds(&said->setup_output, "");
	}
}

static void copy_str(char *dst, size_t size, json_t *v)
{
	if (json_is_string(v))
		snprintf(dst, size, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(dst, size, "%lld", (long long)json_integer_value(v));
	else
		dst[0] = '\0';
}

/* A "key: value" line of the YAML text of a case's metadata. */
static void metadata_value(const char *yaml, const char *key, char *dst, size_t size)
{
	size_t klen = strlen(key);
	const char *p = yaml;

	dst[0] = '\0';
	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			const char *v = p + klen + 1;
			size_t n;

			while (*v == ' ')
				v++;
			n = strcspn(v, "\n");
			if (n && (*v == '\'' || *v == '"') && v[n - 1] == *v && n >= 2) {
				v++;
				n -= 2;
			}
			snprintf(dst, size, "%.*s", (int)n, v);
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

int kb_lava_cases_parse(json_t *page, struct kb_lava_case **cases, size_t *n)
{
	json_t *list = json_is_array(page) ? page : json_object_get(page, "results"), *e;
	size_t i;

	if (!json_is_array(list))
		return kb_error(KB_EINVAL, "the results of the job are not a list of test cases");
	json_array_foreach(list, i, e) {
		struct kb_lava_case *c;
		json_t *m;

		if (!json_is_object(e))
			return kb_error(KB_EINVAL, "a test case of the job is not an object");
		*cases = kb_realloc(*cases, (*n + 1) * sizeof(**cases));
		c = &(*cases)[(*n)++];
		memset(c, 0, sizeof(*c));
		copy_str(c->suite, sizeof(c->suite), json_object_get(e, "suite"));
		copy_str(c->name, sizeof(c->name), json_object_get(e, "name"));
		copy_str(c->result, sizeof(c->result), json_object_get(e, "result"));
		copy_str(c->unit, sizeof(c->unit), json_object_get(e, "unit"));
		m = json_object_get(e, "measurement");
		if (json_is_number(m)) {
			c->has_measurement = 1;
			c->measurement = json_number_value(m);
		} else if (json_is_string(m) && *json_string_value(m)) {
			char *end;

			c->measurement = strtod(json_string_value(m), &end);
			c->has_measurement = !*end;
		}
		m = json_object_get(e, "metadata");
		if (json_is_string(m)) {
			metadata_value(json_string_value(m), "error_type", c->error_type,
				       sizeof(c->error_type));
			metadata_value(json_string_value(m), "error_msg", c->error_msg,
				       sizeof(c->error_msg));
		} else if (json_is_object(m)) {
			copy_str(c->error_type, sizeof(c->error_type),
				 json_object_get(m, "error_type"));
			copy_str(c->error_msg, sizeof(c->error_msg),
				 json_object_get(m, "error_msg"));
		}
	}
	return 0;
}

const struct kb_lava_case *kb_lava_case_find(const struct kb_lava_case *cases, size_t n,
					     const char *suite, const char *name)
{
	size_t i, sl = strlen(suite);

	for (i = 0; i < n; i++) {
		size_t l = strlen(cases[i].suite);

		if (strcmp(cases[i].name, name))
			continue;
		if (!strcmp(cases[i].suite, suite) ||
		    (l > sl && cases[i].suite[l - sl - 1] == '_' &&
		     !strcmp(cases[i].suite + l - sl, suite)))
			return &cases[i];
	}
	return NULL;
}

int kb_lava_json_path(const char *path, struct kb_buf *out)
{
	const char *p = path;

	while (*p) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (p[0] == '[' && p[1] == '"') {
			const char *end = strstr(p + 2, "\"]");

			if (!end)
				return kb_error(KB_EINVAL, "bad json_path '%s': [\" without \"]", path);
			kb_buf_addf(out, ".%zu:", (size_t)(end - p - 2));
			kb_buf_add(out, p + 2, (size_t)(end - p - 2));
			p = end + 2;
		} else if (*p == '[') {
			char *end;
			long idx = strtol(p + 1, &end, 10);

			if (*end != ']' || idx < 0 || end == p + 1)
				return kb_error(KB_EINVAL, "bad json_path '%s': [ without an index "
						"and ]", path);
			kb_buf_addf(out, "[%ld]", idx);
			p = end + 1;
		} else {
			size_t len = strcspn(p, ".[");

			kb_buf_addf(out, ".%zu:", len);
			kb_buf_add(out, p, len);
			p += len;
		}
	}
	if (!out->ptr)
		kb_buf_adds(out, "");
	return 0;
}

void kb_lava_cases_name_suites(json_t *tests, json_t *suites)
{
	json_t *e, *se;
	size_t i, k;

	json_array_foreach(tests, i, e) {
		json_t *s = json_object_get(e, "suite");

		if (!json_is_integer(s))
			continue;
		/* one suite has the id; setting the name frees it */
		json_array_foreach(suites, k, se)
			if (json_equal(json_object_get(se, "id"), s)) {
				json_object_set(e, "suite", json_object_get(se, "name"));
				break;
			}
	}
}
