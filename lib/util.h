/*
 * util.h - errors, growable strings, allocation and small helpers shared by
 * the whole engine.
 *
 * Errors: every engine function returns an int, 0 on success and a negative
 * KB_E* code on failure.  The message that explains the failure is kept
 * aside and set in one call:
 *
 *	return kb_error(KB_ENOTFOUND, "no commit '%s' in %s", rev, path);
 *
 * The command layer reads it with kb_error_last() and prints it.  The engine
 * itself never prints to stdout and never exits.
 */
#ifndef KB_UTIL_H
#define KB_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum kb_err {
	KB_OK = 0,
	KB_ERROR = -1,      /* anything not listed below */
	KB_ENOTFOUND = -2,  /* a revision, file or session that is not there */
	KB_EINVAL = -3,     /* bad input from the user: range, file, value */
	KB_ELOCKED = -4,    /* another orchestrator holds the database */
	KB_ENOSESSION = -5, /* no active session in the database */
	KB_EINFRA = -6,     /* the harness failed: never a mark on a commit */
	KB_EABORT = -7,     /* the test asked to stop the bisection (exit >= 128) */
	KB_EVERSION = -8,   /* a file or database from a newer kbisect */
	KB_EINTR = -9,      /* interrupted by a signal */
};

/* Set the last error message and return code (printf-style). */
int kb_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append ": <strerror(errno)>" to the message. */
int kb_error_errno(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The message of the last error, "" if none. */
const char *kb_error_last(void);
/* The code of the last error, 0 if none. */
int kb_error_code(void);
void kb_error_clear(void);

/* Allocation that never returns NULL: out of memory aborts the program. */
void *kb_malloc(size_t n);
void *kb_calloc(size_t n, size_t size);
void *kb_realloc(void *p, size_t n);
char *kb_strdup(const char *s);
char *kb_strndup(const char *s, size_t n);
char *kb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array to hold at least 'need' elements of 'size' bytes. */
#define KB_ALLOC_GROW(p, need, alloc) do { \
	if ((size_t)(need) > (alloc)) { \
		size_t kb_na_ = (alloc) ? (alloc) * 2 : 16; \
		if (kb_na_ < (size_t)(need)) kb_na_ = (need); \
		(p) = kb_realloc((p), kb_na_ * sizeof(*(p))); \
		(alloc) = kb_na_; \
	} \
} while (0)

/*
 * A growable NUL-terminated string.  KB_BUF_INIT gives an empty buffer whose
 * ptr is always valid; kb_buf_release() frees it and resets it to empty.
 */
struct kb_buf {
	char *ptr;
	size_t len;
	size_t alloc;
};
extern char kb_buf_empty[];
#define KB_BUF_INIT { kb_buf_empty, 0, 0 }

void kb_buf_init(struct kb_buf *b);
void kb_buf_release(struct kb_buf *b);
/* Hand the string over to the caller (to free()); the buffer is reset. */
char *kb_buf_detach(struct kb_buf *b);
void kb_buf_grow(struct kb_buf *b, size_t extra);
void kb_buf_add(struct kb_buf *b, const void *data, size_t len);
void kb_buf_adds(struct kb_buf *b, const char *s);
void kb_buf_addch(struct kb_buf *b, char c);
void kb_buf_addf(struct kb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kb_buf_vaddf(struct kb_buf *b, const char *fmt, va_list ap);
void kb_buf_reset(struct kb_buf *b);
/*
 * Append 's' to 'b' as one word of a POSIX shell: in single quotes, a
 * quote in it as '\'', so that no byte of it is shell syntax (the empty
 * word is '').  With KB_QUOTE_BARE, a word of only letters, digits and
 * -_./:=@,+% stays bare, for text people read (the log, the values of a
 * job): still one literal word as an argument, but not to be put first in
 * a command, where it could be an assignment or a reserved word.
 */
#define KB_QUOTE_BARE 0x1u
void kb_buf_add_quoted(struct kb_buf *b, const char *s, unsigned flags);

/* Read a whole file (up to max bytes, 0 = no limit). */
int kb_read_file(const char *path, struct kb_buf *out, size_t max);
/* The same from an open file; 'name' names it in errors. */
int kb_read_fd(int fd, struct kb_buf *out, size_t max, const char *name);
/* Read at most the last 'max' bytes of a file. */
int kb_read_tail(const char *path, struct kb_buf *out, size_t max);
/* Write a file atomically: write to path.tmp, fsync, rename. */
int kb_write_file_atomic(const char *path, const void *data, size_t len, int mode);
/* mkdir -p with the given mode for the directories it creates. */
int kb_mkdir_p(const char *path, int mode);
/* rm -rf; a missing path is not an error. */
int kb_remove_tree(const char *path);

/* Wall-clock seconds since the epoch, with sub-second precision. */
double kb_now(void);
/* Short (12 hex) form of a 40-hex id, in a static buffer of the caller's. */
void kb_short_id(char out[13], const char *hex);

/* An array of strings, NULL-terminated at v[n]. */
struct kb_strv {
	char **v;
	size_t n, alloc;
};
#define KB_STRV_INIT { NULL, 0, 0 }
void kb_strv_push(struct kb_strv *s, const char *str);
void kb_strv_pushf(struct kb_strv *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kb_strv_clear(struct kb_strv *s);

#endif
