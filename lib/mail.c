#include "mail.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const tags[] = {
	"Signed-off-by:", "Reviewed-by:", "Acked-by:", "Tested-by:", "Reported-by:",
};

/* The address part of "Name <address>": its start and length, or 0. */
static size_t address(const char *person, const char **at)
{
	const char *lt = strrchr(person, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (!lt || !gt || gt[1] || gt == lt + 1)
		return 0;
	*at = lt + 1;
	return (size_t)(gt - lt - 1);
}

/* Fit for a header: printable, one "<...@...>" at the end. */
static int usable(const char *person)
{
	const char *a, *p;
	size_t n = address(person, &a);

	for (p = person; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	if (!n || !memchr(a, '@', n) || memchr(a, ' ', n))
		return 0;
	/* a name that would add a recipient or need quoting: left out */
	for (p = person; p < a - 1; p++)
		if (strchr(",;<>\"", *p))
			return 0;
	return 1;
}

static int known(const struct kb_strv *out, const char *person)
{
	const char *a, *b;
	size_t n = address(person, &a), i;

	for (i = 0; i < out->n; i++)
		if (address(out->v[i], &b) == n && !strncasecmp(a, b, n))
			return 1;
	return 0;
}

static int add(struct kb_strv *out, const char *person)
{
	if (!usable(person) || known(out, person))
		return 0;
	kb_strv_push(out, person);
	return 1;
}

int kb_mail_people(const char *author, const char *message, struct kb_strv *out)
{
	int added = author ? add(out, author) : 0;
	const char *p = message ? message : "";

	while (*p) {
		size_t len = strcspn(p, "\n"), i;

		for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
			size_t t = strlen(tags[i]);

			if (len > t && !strncasecmp(p, tags[i], t)) {
				const char *v = p + t;
				char *person;
				size_t n;

				while (v < p + len && isspace((unsigned char)*v))
					v++;
				n = (size_t)(p + len - v);
				while (n && isspace((unsigned char)v[n - 1]))
					n--;
				person = kb_strndup(v, n);
				added += add(out, person);
				free(person);
				break;
			}
		}
		p += len + (p[len] == '\n');
	}
	return added;
}

/* 'text' on one line: runs of blanks and control characters become one
 * space, none at either end. */
static void add_one_line(struct kb_buf *b, const char *text)
{
	int blank = 0;
	size_t start = b->len;

	for (; *text; text++) {
		unsigned char c = (unsigned char)*text;

		if (c < 0x20 || c == 0x7f || c == ' ') {
			blank = 1;
			continue;
		}
		if (blank && b->len > start)
			kb_buf_addch(b, ' ');
		blank = 0;
		kb_buf_addch(b, (char)c);
	}
}

char *kb_mail_subject(const char *subject, const char *metric, double change_pct)
{
	struct kb_buf b = KB_BUF_INIT;

	kb_buf_adds(&b, "[REGRESSION] ");
	add_one_line(&b, subject ? subject : "");
	kb_buf_adds(&b, ": ");
	add_one_line(&b, metric ? metric : "");
	kb_buf_addf(&b, " %+.1f%%", change_pct);
	return kb_buf_detach(&b);
}
