#include <errno.h>
#include <getopt.h>
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

/* The value 'val' of option 'o' (named 'a' as given) into its place. */
static int set_value(const struct kb_cmd_help *h, const struct kb_opt *o, const char *a,
		     const char *val)
{
	char *end;

	if (o->type == OPT_STRING) {
		*(const char **)o->value = val;
	} else if (o->type == OPT_LIST) {
		kb_strv_push(o->value, val);
	} else if (o->type == OPT_INT) {
		long long n;

		errno = 0;
		n = strtoll(val, &end, 10);
		if (errno || end == val || *end || n < o->min || n > o->max)
			return kb_usage_error(h, "option '%s' needs a whole number from %lld "
					      "to %lld, not '%s'", a, o->min, o->max, val);
		*(long long *)o->value = n;
	} else {
		double d;

		errno = 0;
		d = strtod(val, &end);
		if (errno || end == val || *end)
			return kb_usage_error(h, "option '%s' needs a number, not '%s'", a, val);
		*(double *)o->value = d;
	}
	return 0;
}

/* An option not in the table, or a prefix of more than one: which. */
static int unknown(const struct kb_cmd_help *h, const struct kb_opt *opts, const char *word)
{
	const struct kb_opt *o;
	struct kb_buf b = KB_BUF_INIT;
	size_t len = strlen(word + 2), n = 0;
	int ret;

	if (strncmp(word, "--", 2) || !len)
		return kb_usage_error(h, "unknown option '%s'", word);
	for (o = opts; o->name; o++)
		if (strlen(o->name) > 1 && !strncmp(o->name, word + 2, len)) {
			kb_buf_addf(&b, "%s--%s", n++ ? ", " : "", o->name);
		}
	if (n > 1)
		ret = kb_usage_error(h, "option '%s' could be any of %s", word, b.ptr);
	else
		ret = kb_usage_error(h, "unknown option '%s'", word);
	kb_buf_release(&b);
	return ret;
}

int kb_parse_opts(const struct kb_cmd_help *h, const struct kb_opt *opts,
		  int argc, char **argv, struct kb_strv *args, struct kb_strv *dashdash)
{
	const struct kb_opt *o;
	struct option *lo;
	struct kb_buf shorts = KB_BUF_INIT;
	size_t n = 0, k;
	int c, ret = 0, idx;

	for (o = opts; o->name; o++)
		n++;
	lo = kb_calloc(n + 2, sizeof(*lo));
	/* '-': positional words in order, as option 1; ':': a missing value
	 * is ':', not '?' */
	kb_buf_adds(&shorts, "-:h");
	for (k = 0, o = opts; o->name; o++) {
		int has = o->type == OPT_FLAG ? no_argument : required_argument;

		if (strlen(o->name) == 1) {
			kb_buf_adds(&shorts, o->name);
			if (has == required_argument)
				kb_buf_adds(&shorts, ":");
			continue;
		}
		lo[k].name = o->name;
		lo[k].has_arg = has;
		lo[k].val = 256 + (int)(o - opts);
		k++;
	}
	lo[k].name = "help";
	lo[k].val = 'h';
	opterr = 0;
	optind = 0; /* from the start, its state reset (glibc) */
	while ((c = getopt_long(argc, argv, shorts.ptr, lo, &idx)) != -1) {
		const char *a = argv[optind - 1];

		if (c == 'h') {
			kb_print_help(h, opts, stdout);
			ret = 1;
			goto out;
		}
		if (c == 1) {
			if (!args) {
				ret = kb_usage_error(h, "unexpected argument '%s'", optarg);
				goto out;
			}
			kb_strv_push(args, optarg);
			continue;
		}
		if (c == '?' || c == ':') {
			/* what was given, without a value glued to it */
			char *word = kb_strndup(a, strcspn(a, "="));

			if (c == ':')
				ret = kb_usage_error(h, "option '%s' needs a value", word);
			else if (optopt >= 256)
				ret = kb_usage_error(h, "option '--%s' takes no value",
						     opts[optopt - 256].name);
			else if (optopt && strncmp(a, "--", 2))
				ret = kb_usage_error(h, "unknown option '-%c'", optopt);
			else
				ret = unknown(h, opts, word);
			free(word);
			goto out;
		}
		if (c >= 256) {
			o = &opts[c - 256];
			a = lo[idx].name;
		} else {
			char name[2] = { (char)c, 0 };

			for (o = opts; o->name && strcmp(o->name, name); o++)
				;
		}
		if (o->type == OPT_FLAG) {
			*(int *)o->value = 1;
			continue;
		}
		{
			char *given = c >= 256 ? kb_asprintf("--%s", o->name) :
						 kb_asprintf("-%s", o->name);

			ret = set_value(h, o, given, optarg);
			free(given);
			if (ret)
				goto out;
		}
	}
	if (optind < argc) {
		/* what follows "--" */
		if (!dashdash) {
			ret = kb_usage_error(h, "'--' is not used by this command");
			goto out;
		}
		for (; optind < argc; optind++)
			kb_strv_push(dashdash, argv[optind]);
	}
out:
	free(lo);
	kb_buf_release(&shorts);
	return ret;
}
