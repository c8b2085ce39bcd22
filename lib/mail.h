/*
 * mail.h - the parts of a report mail that come from a commit.
 *
 * The people a report about a commit goes to: its author and everyone in
 * its Signed-off-by, Reviewed-by, Acked-by, Tested-by and Reported-by
 * trailers, each once (by address, case-insensitively), in the order
 * they appear.  A value that could break a mail header or add a
 * recipient (a control character, no "<address>" at its end, an address
 * without '@', a name with , ; < > or ") is left out.
 */
#ifndef KB_MAIL_H
#define KB_MAIL_H

#include "util.h"

/* Add "Name <address>" for the author (may be NULL) and each person in
 * the trailers of 'message' to 'out', skipping addresses already in it.
 * Returns how many were added. */
int kb_mail_people(const char *author, const char *message, struct kb_strv *out);

/* The Subject of the report of a culprit: "[REGRESSION] SUBJECT: METRIC
 * +x.x%" ("SUBJECT" is the commit's, which names its subsystem), on one
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
 */
int kb_mail_format(const struct kb_mail *m, int mbox, struct kb_buf *out);

#endif
