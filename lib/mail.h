/*
 * mail.h - the parts of a report mail that come from a commit.
 *
 * The people a report about a commit goes to: its author and everyone in
 * the Signed-off-by, Reviewed-by, Acked-by, Tested-by and Reported-by
 * trailers of its trailer block (as git_message_trailers() finds it: the
 * last paragraph of the message, not a line of the body that looks like
 * one), each mapped through the repository's .mailmap, then each once (by
 * address, case-insensitively), in the order they appear.  A name with a
 * character that means something in an address list (, ; : ( ) [ ] @ " \)
 * is quoted, its quotes and backslashes escaped ("Doe, \"JJ\" Jane"
 * <jj@example.org>).  A value that could break a mail header or add a
 * recipient (a control character, no "<address>" at its end, an address
 * without '@' or with a blank or , ; : < > " ( ) [ ] \ in it, a name with
 * < or >) is left out.  Names stay as written (UTF-8): kb_mail_format()
 * encodes them for the header.
 */
#ifndef KB_MAIL_H
#define KB_MAIL_H

#include <git2.h>

#include "util.h"

/* Add "Name <address>" for the author (may be NULL) and each person in
 * the trailers of 'message' (a whole commit message: subject, body and
 * trailer block) to 'out', each mapped through 'mailmap' first (may be
 * NULL: none), skipping addresses already in it.  Returns how many were
 * added. */
int kb_mail_people(const char *author, const char *message, const git_mailmap *mailmap,
		   struct kb_strv *out);

/* The Subject of the report of a culprit: "[REGRESSION] SUBJECT: METRIC
 * +x.x%" ("SUBJECT" is the commit's, which names its subsystem; no
 * change when change_pct is NAN), on one
 * line: every run of blanks and control characters (a newline of a
 * subject) becomes one space.  Free it. */
char *kb_mail_subject(const char *subject, const char *metric, double change_pct);

/* A mail, as its headers are to be written. */
struct kb_mail {
	const char *from;             /* "Name <address>" */
	const char *const *to;        /* NULL-terminated */
	const char *const *cc;        /* NULL-terminated, may be NULL */
	const char *subject;          /* one line (kb_mail_subject) */
	const char *message_id;       /* "<...@...>" */
	const char *in_reply_to;      /* "<...@...>" or NULL: sets References too */
	long long date;               /* seconds since the epoch */
	const char *body;             /* text, '\n' line ends */
};

/*
 * Append the message to 'out' in RFC 5322 form (CRLF line ends, a
 * plain-text UTF-8 body; SMTP's dot-stuffing is the sender's), or, with
 * 'mbox', after an mbox "From " line ('\n' line ends, body lines that
 * start with "From " get a '>').  An address or a header that would not
 * be one line: KB_EINVAL, nothing written.
 *
 * Headers are ASCII: the words of a Subject or of a display name that
 * hold a byte above 0x7f (or look like an encoded word, "=?") are
 * written as RFC 2047 encoded words, UTF-8 in "Q" encoding ("B" when
 * most of their bytes are above 0x7f), each at most 69 characters and
 * never cutting a character in two; the words between stay as they are.
 * A display name that needs quotes (or holds a '.') is encoded whole, its
 * address never.  A line longer than 78 characters is folded (line
 * end, then the blank it was folded at) at the last blank that keeps it
 * within 78, outside a quoted name and an address: between the words of
 * a Subject or a name, between a name and its address.  To and Cc hold
 * one address a line, as "To: a,\r\n b".
 */
int kb_mail_format(const struct kb_mail *m, int mbox, struct kb_buf *out);

/* 'text' as the value of a header, encoded and folded as kb_mail_format()
 * does: 'person' 1 for one "Name <address>", 0 for unstructured text (a
 * Subject); 'col' is where it starts on its line (the length of "Name: ").
 * 'eol' ends a line before a fold. */
void kb_mail_header_value(struct kb_buf *out, const char *text, int person, size_t col,
			  const char *eol);

/* The address of "Name <address>" (malloc'd), or NULL when it has none
 * usable in a header. */
char *kb_mail_address(const char *person);
/* Is the address of 'person' in 'v' already (case-insensitively)? */
int kb_mail_listed(const struct kb_strv *v, const char *person);
/* "Name <address>" as given, or "<address>" for a bare address; NULL when
 * it is neither (or would not be one header line).  Free it. */
char *kb_mail_person(const char *text);

/* A new Message-ID, "<YYYYmmddHHMMSS.RANDOM.kbisect@DOMAIN>", with the
 * domain of the sender's address.  Free it. */
char *kb_mail_message_id(const char *from, long long now);

/*
 * Where and how mail is sent, and to whom by default: the mail config
 * file (JSON, keys as the fields) and the environment, read by the
 * command layer.  The password goes to the SMTP server and nowhere else.
 */
struct kb_mail_config {
	char *smtp;             /* smtp://host[:port] or smtps://host[:port] */
	char *user, *password;  /* both or neither */
	char *ca_file;          /* PEM file of the CAs to trust, or NULL */
	char *from;             /* "Name <address>" */
	struct kb_strv to, cc;  /* lists and people every report goes to */
	char *link;             /* Link: base for a Message-ID (lore) */
	int timeout;            /* seconds for the whole exchange */
};

void kb_mail_config_init(struct kb_mail_config *c);
void kb_mail_config_release(struct kb_mail_config *c);
/* Read a config file over 'c'.  A file holding a password must be
 * readable by its owner only: KB_EINVAL otherwise, as for a bad key. */
int kb_mail_config_read(struct kb_mail_config *c, const char *path);

/*
 * Send 'message' (RFC 5322 text as kb_mail_format() writes it) to every
 * address in 'rcpt' (NULL-terminated, "Name <address>" or bare), from
 * the address of 'from'.  smtps:// is TLS from the start; smtp:// uses
 * STARTTLS when the server offers it and insists on it before a password
 * is sent.  The URL must not hold credentials.  Errors say what to fix.
 */
int kb_smtp_send(const struct kb_mail_config *c, const char *from,
		 const char *const *rcpt, const char *message, size_t len);

#endif
