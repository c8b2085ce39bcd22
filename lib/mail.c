#include "mail.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

/* No control character (a line end, for one): fit for one header line. */
static int one_line(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int has_any(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(set, s[i]))
			return 1;
	return 0;
}

/* The length of the quoted-string at the start of 's' ("...", with \" and
 * \\ inside), or 0 when 's' does not start with a whole one. */
static size_t quoted_string(const char *s)
{
	size_t i = 1;

	if (s[0] != '"')
		return 0;
	for (; s[i] && s[i] != '"'; i++)
		if (s[i] == '\\' && !s[++i])
			return 0;
	return s[i] == '"' ? i + 1 : 0;
}

/* Fit for a header: printable, one "<...@...>" at the end whose address
 * holds nothing that would end it or start another. */
static int usable(const char *person)
{
	const char *a, *p;
	size_t n = address(person, &a), q;

	if (!one_line(person) || !n || !memchr(a, '@', n) || has_any(a, n, " ,;:<>\"()[]\\"))
		return 0;
	/* a quoted name, then the address */
	if (person[0] == '"')
		return (q = quoted_string(person)) && person[q] == ' ' && person + q + 2 == a;
	/* a name that would add a recipient or need quoting: left out */
	for (p = person; p < a - 1; p++)
		if (strchr(",;<>\"\\", *p))
			return 0;
	return 1;
}

/* "Name <address>" with the name quoted when it holds a character that
 * means something in an address list ("Doe, Jane"), its quotes and
 * backslashes escaped; a name quoted already is kept.  NULL when it cannot
 * be written so: a '<' or '>' in the name, which could hide a second
 * address.  Free it. */
static char *quoted(const char *person)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *a;
	size_t n = address(person, &a), name, i;

	if (!n)
		return NULL;
	name = (size_t)(a - 1 - person);
	while (name && person[name - 1] == ' ')
		name--;
	if (!name || person[0] == '"' || !has_any(person, name, ",;:()[]@\"\\"))
		return kb_strdup(person);
	if (has_any(person, name, "<>"))
		return NULL;
	kb_buf_addch(&b, '"');
	for (i = 0; i < name; i++) {
		if (person[i] == '"' || person[i] == '\\')
			kb_buf_addch(&b, '\\');
		kb_buf_addch(&b, person[i]);
	}
	kb_buf_addf(&b, "\" <%.*s>", (int)n, a);
	return kb_buf_detach(&b);
}

char *kb_mail_address(const char *person)
{
	const char *a;
	size_t n;

	if (!person || !usable(person) || !(n = address(person, &a)))
		return NULL;
	return kb_strndup(a, n);
}

char *kb_mail_person(const char *text)
{
	char *q = text ? quoted(text) : NULL;

	if (!text)
		return NULL;
	if (q && usable(q))
		return q;
	free(q);
	if (*text && strchr(text, '@') && !strpbrk(text, " \t\r\n<>,;\"()[]\\")) {
		char *p = kb_asprintf("<%s>", text);

		if (usable(p))
			return p;
		free(p);
	}
	return NULL;
}

int kb_mail_listed(const struct kb_strv *out, const char *person)
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
	char *q = quoted(person);
	int ret = 0;

	if (q && usable(q) && !kb_mail_listed(out, q)) {
		kb_strv_push(out, q);
		ret = 1;
	}
	free(q);
	return ret;
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
	if (!isnan(change_pct))
		kb_buf_addf(&b, " %+.1f%%", change_pct);
	return kb_buf_detach(&b);
}

static void header_list(struct kb_buf *b, const char *name, const char *const *v,
			const char *eol)
{
	size_t i;

	if (!v || !v[0])
		return;
	/* one address a line: "To: a,\r\n b\r\n" */
	kb_buf_addf(b, "%s: ", name);
	for (i = 0; v[i]; i++)
		kb_buf_addf(b, "%s%s%s%s", v[i], v[i + 1] ? "," : "", v[i + 1] ? eol : "",
			    v[i + 1] ? " " : "");
	kb_buf_adds(b, eol);
}

int kb_mail_format(const struct kb_mail *m, int mbox, struct kb_buf *out)
{
	const char *eol = mbox ? "\n" : "\r\n";
	struct kb_buf b = KB_BUF_INIT;
	char date[64];
	time_t t = (time_t)m->date;
	struct tm tm;
	const char *p;
	size_t i;

	if (!m->from || !usable(m->from) || !m->to || !m->to[0] || !m->subject ||
	    !one_line(m->subject) || !m->message_id || !one_line(m->message_id) ||
	    !one_line(m->in_reply_to))
		return kb_error(KB_EINVAL, "a mail header would not be one line, or the "
				"mail has no sender or no recipient");
	for (i = 0; m->to[i]; i++)
		if (!usable(m->to[i]))
			return kb_error(KB_EINVAL, "not an address for To: %s", m->to[i]);
	for (i = 0; m->cc && m->cc[i]; i++)
		if (!usable(m->cc[i]))
			return kb_error(KB_EINVAL, "not an address for Cc: %s", m->cc[i]);
	gmtime_r(&t, &tm);
	if (mbox) {
		strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
		kb_buf_addf(&b, "From kbisect %s\n", date);
	}
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	kb_buf_addf(&b, "From: %s%s", m->from, eol);
	header_list(&b, "To", m->to, eol);
	header_list(&b, "Cc", m->cc, eol);
	kb_buf_addf(&b, "Subject: %s%sDate: %s%sMessage-ID: %s%s", m->subject, eol, date, eol,
		    m->message_id, eol);
	if (m->in_reply_to)
		kb_buf_addf(&b, "In-Reply-To: %s%sReferences: %s%s", m->in_reply_to, eol,
			    m->in_reply_to, eol);
	kb_buf_addf(&b, "MIME-Version: 1.0%sContent-Type: text/plain; charset=UTF-8%s"
		    "Content-Transfer-Encoding: 8bit%s%s", eol, eol, eol, eol);
	for (p = m->body ? m->body : ""; *p;) {
		size_t len = strcspn(p, "\n");

		if (len && p[len - 1] == '\r')
			len--;
		if (mbox && !strncmp(p, "From ", 5))
			kb_buf_addch(&b, '>');
		kb_buf_add(&b, p, len);
		kb_buf_adds(&b, eol);
		p += len;
		p += *p == '\r';
		p += *p == '\n';
	}
	if (mbox)
		kb_buf_addch(&b, '\n');
	kb_buf_add(out, b.ptr, b.len);
	kb_buf_release(&b);
	return 0;
}
