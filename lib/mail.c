#include "mail.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <git2.h>

/* the trailers whose people a report goes to */
static const char *const tags[] = {
	"Signed-off-by", "Reviewed-by", "Acked-by", "Tested-by", "Reported-by",
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

/* The name of "Name <address>" as written, its quotes and escapes taken
 * off when it is a quoted-string: malloc'd, NULL when it has no address. */
static char *name_of(const char *person, const char **at, size_t *alen)
{
	struct kb_buf b = KB_BUF_INIT;
	size_t n = address(person, at), len, i;

	if (!n)
		return NULL;
	*alen = n;
	len = (size_t)(*at - 1 - person);
	while (len && person[len - 1] == ' ')
		len--;
	if (!len || person[0] != '"' || quoted_string(person) != len)
		return kb_strndup(person, len);
	for (i = 1; i + 1 < len; i++) {
		if (person[i] == '\\')
			i++;
		kb_buf_addch(&b, person[i]);
	}
	return kb_buf_detach(&b);
}

/* 'person' as the mailmap has it, or as given: malloc'd. */
static char *mapped(const git_mailmap *mm, const char *person)
{
	const char *a, *name, *email;
	size_t n;
	char *raw = mm ? name_of(person, &a, &n) : NULL, *addr, *lower, *p, *out = NULL;

	if (!raw)
		return kb_strdup(person);
	addr = kb_strndup(a, n);
	lower = kb_strdup(addr);
	for (p = lower; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	/* libgit2 compares the addresses as they are, git without case: as
	 * written, then in lower case */
	if (git_mailmap_resolve(&name, &email, mm, raw, addr) < 0 ||
	    (name == raw && email == addr &&
	     git_mailmap_resolve(&name, &email, mm, raw, lower) < 0)) {
		git_error_clear();
		name = raw;
		email = addr;
	}
	if (email == lower)
		email = addr;
	if (strcmp(name, raw) || strcmp(email, addr))
		out = *name ? kb_asprintf("%s <%s>", name, email) : kb_asprintf("<%s>", email);
	free(raw);
	free(addr);
	free(lower);
	return out ? out : kb_strdup(person);
}

static int add_mapped(struct kb_strv *out, const git_mailmap *mm, const char *person)
{
	char *p = mapped(mm, person);
	int ret = add(out, p);

	free(p);
	return ret;
}

int kb_mail_people(const char *author, const char *message, const git_mailmap *mailmap,
		   struct kb_strv *out)
{
	git_message_trailer_array tr = { 0 };
	int added = author ? add_mapped(out, mailmap, author) : 0;
	size_t k, i;

	if (git_message_trailers(&tr, message ? message : "") < 0) {
		git_error_clear();
		return added;
	}
	for (k = 0; k < tr.count; k++) {
		const char *v = tr.trailers[k].value;
		char *person;
		size_t n;

		for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
			if (!strcasecmp(tr.trailers[k].key, tags[i]))
				break;
		if (i == sizeof(tags) / sizeof(tags[0]))
			continue;
		while (isspace((unsigned char)*v))
			v++;
		n = strlen(v);
		while (n && isspace((unsigned char)v[n - 1]))
			n--;
		person = kb_strndup(v, n);
		added += add_mapped(out, mailmap, person);
		free(person);
	}
	git_message_trailer_array_free(&tr);
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

/* RFC 2047: encoded words of at most ENC_WORD characters (75 is the
 * limit; less, so that one fits on a line after "Subject: "), a line
 * folded beyond FOLD_AT characters (RFC 5322's 78). */
#define ENC_WORD 69
#define ENC_PAYLOAD (ENC_WORD - 12) /* without "=?UTF-8?Q?" and "?=" */
#define FOLD_AT 78

/* Must the word be encoded: a byte above 0x7f, or "=?" that a reader
 * would decode? */
static int needs_encoding(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || (s[i] == '=' && i + 1 < n && s[i + 1] == '?'))
			return 1;
	return 0;
}

/* The bytes of the character at 's' (a lead byte and its continuation
 * bytes; one byte when it is not UTF-8). */
static size_t char_len(const char *s, size_t n)
{
	size_t k = 1;

	if ((unsigned char)s[0] >= 0xc0)
		while (k < n && k < 4 && ((unsigned char)s[k] & 0xc0) == 0x80)
			k++;
	return k;
}

/* A byte as is in "Q" encoding: in a phrase (a display name) only the
 * characters RFC 2047 5(3) allows, in text any printable but = ? _. */
static int q_plain(unsigned char c, int phrase)
{
	if (phrase)
		return isalnum(c) || strchr("!*+-/", c);
	return c > 0x20 && c < 0x7f && !strchr("=?_", c);
}

static size_t q_len(const char *s, size_t n, int phrase)
{
	size_t len = 0, i;

	for (i = 0; i < n; i++)
		len += s[i] == ' ' || q_plain((unsigned char)s[i], phrase) ? 1 : 3;
	return len;
}

static void q_add(struct kb_buf *b, const char *s, size_t n, int phrase)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ' ')
			kb_buf_addch(b, '_');
		else if (q_plain(c, phrase))
			kb_buf_addch(b, (char)c);
		else
			kb_buf_addf(b, "=%02X", c);
	}
}

static void b_add(struct kb_buf *b, const char *s, size_t n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i < n; i += 3) {
		unsigned long v = (unsigned long)(unsigned char)s[i] << 16;

		if (i + 1 < n)
			v |= (unsigned long)(unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		kb_buf_addch(b, abc[v >> 18 & 63]);
		kb_buf_addch(b, abc[v >> 12 & 63]);
		kb_buf_addch(b, i + 1 < n ? abc[v >> 6 & 63] : '=');
		kb_buf_addch(b, i + 2 < n ? abc[v & 63] : '=');
	}
}

/* 's' as encoded words separated by blanks (which a reader drops between
 * two of them), each word whole characters: "Q", which keeps Latin text
 * readable, or "B" when most bytes are above 0x7f (CJK, Cyrillic). */
static void encode(struct kb_buf *b, const char *s, size_t n, int phrase)
{
	size_t i, high = 0;
	int q;

	for (i = 0; i < n; i++)
		high += (unsigned char)s[i] >= 0x80;
	q = high * 2 <= n;
	i = 0;

	while (i < n) {
		size_t j = i, len = 0;

		/* as many whole characters as the word holds */
		while (j < n) {
			size_t k = char_len(s + j, n - j);
			size_t more = q ? q_len(s + j, k, phrase) : 0;

			if (q ? len + more > ENC_PAYLOAD : (j + k - i + 2) / 3 * 4 > ENC_PAYLOAD) {
				if (j == i)
					j += k; /* a character longer than a word: not UTF-8 */
				break;
			}
			len += more;
			j += k;
		}
		if (i)
			kb_buf_addch(b, ' ');
		kb_buf_adds(b, q ? "=?UTF-8?Q?" : "=?UTF-8?B?");
		if (q)
			q_add(b, s + i, j - i, phrase);
		else
			b_add(b, s + i, j - i);
		kb_buf_adds(b, "?=");
		i = j;
	}
}

/* 's' with each run of words that must be encoded as encoded words, the
 * words between as they are. */
static void encode_words(struct kb_buf *b, const char *s, size_t n, int phrase)
{
	size_t i = 0, run = n, end = 0;

	while (i < n) {
		size_t w = strcspn(s + i, " ");

		if (w > n - i)
			w = n - i;
		if (needs_encoding(s + i, w)) {
			if (run == n)
				run = i;
			end = i + w;
		} else if (run != n) {
			encode(b, s + run, end - run, phrase);
			kb_buf_add(b, s + end, i - end);
			run = n;
		}
		if (run == n)
			kb_buf_add(b, s + i, w + (i + w < n));
		i += w + (i + w < n);
	}
	if (run != n) {
		encode(b, s + run, end - run, phrase);
		kb_buf_add(b, s + end, n - end);
	}
}

/* The value of a header, on one line, ASCII: 'text' with its words that
 * need it encoded.  For a person, the display name only, encoded whole
 * when it is quoted (an encoded word cannot be in quotes). */
static char *encoded(const char *text, int person)
{
	struct kb_buf b = KB_BUF_INIT;
	const char *a;
	size_t n, len;
	char *name;

	if (!person) {
		encode_words(&b, text, strlen(text), 0);
		return kb_buf_detach(&b);
	}
	len = address(text, &a) ? (size_t)(strrchr(text, '<') - text) : 0;
	while (len && text[len - 1] == ' ')
		len--;
	if (!len || !needs_encoding(text, len))
		return kb_strdup(text);
	name = name_of(text, &a, &n);
	/* quoted, or with a '.' that only an obsolete phrase may hold */
	if (text[0] == '"' || strchr(name, '.'))
		encode(&b, name, strlen(name), 1);
	else
		encode_words(&b, name, strlen(name), 1);
	kb_buf_adds(&b, text + len);
	free(name);
	return kb_buf_detach(&b);
}

/* Append 'v' (a header value on one line, starting at column 'col'),
 * folded before a blank when the line would be longer than FOLD_AT: a
 * blank with something after it, and in a person outside the quotes. */
static void fold(struct kb_buf *b, const char *v, size_t col, int person, const char *eol)
{
	size_t n = strlen(v), i = 0, j, cur = col;
	int quoted = 0;

	while (i < n) {
		/* the next fold point after i */
		for (j = i; j < n; j++) {
			if (j > i && v[j] == ' ' && !quoted && v[j + 1] && v[j + 1] != ' ')
				break;
			if (person && quoted && v[j] == '\\' && j + 1 < n)
				j++;
			else if (person && v[j] == '"')
				quoted = !quoted;
		}
		if (i && cur + (j - i) > FOLD_AT) {
			kb_buf_adds(b, eol);
			cur = 0;
		}
		kb_buf_add(b, v + i, j - i);
		cur += j - i;
		i = j;
	}
}

void kb_mail_header_value(struct kb_buf *out, const char *text, int person, size_t col,
			  const char *eol)
{
	char *v = encoded(text, person);

	fold(out, v, col, person, eol);
	free(v);
}

static void header_list(struct kb_buf *b, const char *name, const char *const *v,
			const char *eol)
{
	size_t i;

	if (!v || !v[0])
		return;
	/* one address a line: "To: a,\r\n b\r\n" */
	kb_buf_addf(b, "%s: ", name);
	for (i = 0; v[i]; i++) {
		char *e = encoded(v[i], 1), *item = kb_asprintf("%s%s", e, v[i + 1] ? "," : "");

		if (i)
			kb_buf_addf(b, "%s ", eol);
		fold(b, item, i ? 1 : strlen(name) + 2, 1, eol);
		free(item);
		free(e);
	}
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
	kb_buf_adds(&b, "From: ");
	kb_mail_header_value(&b, m->from, 1, 6, eol);
	kb_buf_adds(&b, eol);
	header_list(&b, "To", m->to, eol);
	header_list(&b, "Cc", m->cc, eol);
	kb_buf_adds(&b, "Subject: ");
	kb_mail_header_value(&b, m->subject, 0, 9, eol);
	kb_buf_addf(&b, "%sDate: %s%sMessage-ID: %s%s", eol, date, eol, m->message_id, eol);
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
