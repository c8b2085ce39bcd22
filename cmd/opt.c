#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

void kb_print_help(const struct kb_cmd_help *h, const struct kb_opt *opts, FILE *to)
{
	const struct kb_opt *o;

	fprintf(to, "usage: kbisect %s %s\n\n%s\n", h->name, h->usage, h->summary);
	if (h->text)
		fprintf(to, "\n%s\n", h->text);
	fprintf(to, "\noptions:\n");
	for (o = opts; o->name; o++) {
		char left[64];

		const char *dash = strlen(o->name) == 1 ? "-" : "--";

		if (o->type == OPT_FLAG)
			snprintf(left, sizeof(left), "%s%s", dash, o->name);
		else
			snprintf(left, sizeof(left), "%s%s %s", dash, o->name, o->arg);
		fprintf(to, "  %-24s %s%s\n", left, o->help,
			o->type == OPT_LIST ? " (repeatable)" : "");
	}
	fprintf(to, "  %-24s %s\n", "--help", "show this help");
}

int kb_usage_error(const struct kb_cmd_help *h, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kbisect %s: ", h->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: kbisect %s %s\n(see 'kbisect %s --help')\n",
		h->name, h->usage, h->name);
	return KB_EXIT_USAGE;
}

static const struct kb_opt *find(const struct kb_opt *opts, const char *name, size_t len)
{
	const struct kb_opt *o;

	for (o = opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

int kb_parse_opts(const struct kb_cmd_help *h, const struct kb_opt *opts,
		  int argc, char **argv, struct kb_strv *args, struct kb_strv *dashdash)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val, *eq;
		const struct kb_opt *o;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			kb_print_help(h, opts, stdout);
			return 1;
		}
		if (!strcmp(a, "--")) {
			if (!dashdash)
				return kb_usage_error(h, "'--' is not used by this command");
			for (i++; i < argc; i++)
				kb_strv_push(dashdash, argv[i]);
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (!args)
				return kb_usage_error(h, "unexpected argument '%s'", a);
			kb_strv_push(args, a);
			continue;
		}
		if (a[1] != '-') {
			/* one-letter options: -n 5 */
			o = a[2] ? NULL : find(opts, a + 1, 1);
			eq = NULL;
		} else {
			eq = strchr(a + 2, '=');
			o = find(opts, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
			if (o && strlen(o->name) == 1)
				o = NULL;
		}
		if (!o)
			return kb_usage_error(h, "unknown option '%s'", a);
		if (o->type == OPT_FLAG) {
			if (eq)
				return kb_usage_error(h, "option '--%s' takes no value", o->name);
			*(int *)o->value = 1;
			continue;
		}
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			return kb_usage_error(h, "option '%s' needs a value (%s)", a, o->arg);
		}
		if (o->type == OPT_STRING) {
			*(const char **)o->value = val;
		} else if (o->type == OPT_LIST) {
			kb_strv_push(o->value, val);
		} else {
			char *end;
			double d;

			errno = 0;
			d = strtod(val, &end);
			if (errno || end == val || *end)
				return kb_usage_error(h, "option '%s' needs a number, not '%s'",
						      a, val);
			*(double *)o->value = d;
		}
	}
	return 0;
}
