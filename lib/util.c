#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static char err_msg[2048];
static int err_code;

static int verror(int code, const char *fmt, va_list ap, int with_errno)
{
	int saved = errno;
	size_t len;

	vsnprintf(err_msg, sizeof(err_msg), fmt, ap);
	if (with_errno) {
		len = strlen(err_msg);
		snprintf(err_msg + len, sizeof(err_msg) - len, ": %s",
			 strerror(saved));
	}
	err_code = code;
	return code;
}

int kb_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(code, fmt, ap, 0);
	va_end(ap);
	return code;
}

int kb_error_errno(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(code, fmt, ap, 1);
	va_end(ap);
	return code;
}

const char *kb_error_last(void)
{
	return err_msg;
}

int kb_error_code(void)
{
	return err_code;
}

void kb_error_clear(void)
{
	err_msg[0] = '\0';
	err_code = 0;
}

static void *oom(size_t n)
{
	fprintf(stderr, "kbisect: out of memory (%zu bytes)\n", n);
	abort();
}

void *kb_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	return p ? p : oom(n);
}

void *kb_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	return p ? p : oom(n * size);
}

void *kb_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	return q ? q : oom(n);
}

char *kb_strdup(const char *s)
{
	return kb_strndup(s, strlen(s));
}

char *kb_strndup(const char *s, size_t n)
{
	char *p = kb_malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *kb_asprintf(const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return kb_buf_detach(&b);
}

char kb_buf_empty[1];

void kb_buf_init(struct kb_buf *b)
{
	b->ptr = kb_buf_empty;
	b->len = b->alloc = 0;
}

void kb_buf_release(struct kb_buf *b)
{
	if (b->alloc)
		free(b->ptr);
	kb_buf_init(b);
}

char *kb_buf_detach(struct kb_buf *b)
{
	char *p = b->alloc ? b->ptr : kb_strdup("");

	kb_buf_init(b);
	return p;
}

void kb_buf_grow(struct kb_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->alloc)
		return;
	if (!b->alloc)
		b->ptr = NULL;
	b->alloc = b->alloc * 2 > need ? b->alloc * 2 : need + 32;
	b->ptr = kb_realloc(b->ptr, b->alloc);
	if (!b->len)
		b->ptr[0] = '\0';
}

void kb_buf_add(struct kb_buf *b, const void *data, size_t len)
{
	kb_buf_grow(b, len);
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void kb_buf_adds(struct kb_buf *b, const char *s)
{
	kb_buf_add(b, s, strlen(s));
}

void kb_buf_addch(struct kb_buf *b, char c)
{
	kb_buf_add(b, &c, 1);
}

void kb_buf_vaddf(struct kb_buf *b, const char *fmt, va_list ap)
{
	char tmp[512];
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(tmp, sizeof(tmp), fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		kb_buf_add(b, tmp, (size_t)n);
		return;
	}
	kb_buf_grow(b, (size_t)n);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void kb_buf_addf(struct kb_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void kb_buf_reset(struct kb_buf *b)
{
	b->len = 0;
	if (b->alloc)
		b->ptr[0] = '\0';
}

void kb_buf_add_quoted(struct kb_buf *b, const char *s, unsigned flags)
{
	const char *p;

	if ((flags & KB_QUOTE_BARE) && *s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "-_./:=@,+%")]) {
		kb_buf_adds(b, s);
		return;
	}
	kb_buf_addch(b, '\'');
	for (p = s; *p; p++) {
		if (*p == '\'')
			kb_buf_adds(b, "'\\''");
		else
			kb_buf_addch(b, *p);
	}
	kb_buf_addch(b, '\'');
}

int kb_read_fd(int fd, struct kb_buf *out, size_t max, const char *name)
{
	char tmp[8192];
	ssize_t n;
	int ret = 0;

	while ((n = read(fd, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = kb_error_errno(KB_ERROR, "cannot read %s", name);
			break;
		}
		if (max && out->len + (size_t)n > max) {
			ret = kb_error(KB_EINVAL, "%s is larger than %zu bytes", name, max);
			break;
		}
		kb_buf_add(out, tmp, (size_t)n);
	}
	/* the text may be a secret: leave no copy on the stack */
	explicit_bzero(tmp, sizeof(tmp));
	return ret;
}

int kb_read_file(const char *path, struct kb_buf *out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return kb_error_errno(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR,
				      "cannot open %s", path);
	ret = kb_read_fd(fd, out, max, path);
	close(fd);
	return ret;
}

int kb_read_tail(const char *path, struct kb_buf *out, size_t max)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char tmp[8192];
	ssize_t n;

	if (fd < 0)
		return kb_error_errno(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR,
				      "cannot open %s", path);
	if (fstat(fd, &st) == 0 && (size_t)st.st_size > max)
		lseek(fd, st.st_size - (off_t)max, SEEK_SET);
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		kb_buf_add(out, tmp, (size_t)n);
	close(fd);
	return 0;
}

int kb_write_file_atomic(const char *path, const void *data, size_t len, int mode)
{
	char *tmp = kb_asprintf("%s.tmp", path);
	const char *p = data;
	int fd, ret = 0;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		ret = kb_error_errno(KB_ERROR, "cannot create %s", tmp);
		goto out;
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = kb_error_errno(KB_ERROR, "cannot write %s", tmp);
			close(fd);
			goto out;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		ret = kb_error_errno(KB_ERROR, "cannot write %s", tmp);
		goto out;
	}
	if (rename(tmp, path) < 0)
		ret = kb_error_errno(KB_ERROR, "cannot rename %s", tmp);
out:
	free(tmp);
	return ret;
}

int kb_mkdir_p(const char *path, int mode)
{
	char *p = kb_strdup(path), *s;
	int ret = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			ret = kb_error_errno(KB_ERROR, "cannot create directory %s", p);
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int kb_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 :
			kb_error_errno(KB_ERROR, "cannot remove %s", path);
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0)
		return kb_error_errno(KB_ERROR, "cannot remove %s", path);
	return 0;
}

double kb_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

void kb_short_id(char out[13], const char *hex)
{
	snprintf(out, 13, "%.12s", hex);
}

void kb_strv_push(struct kb_strv *s, const char *str)
{
	KB_ALLOC_GROW(s->v, s->n + 2, s->alloc);
	s->v[s->n++] = kb_strdup(str);
	s->v[s->n] = NULL;
}

void kb_strv_pushf(struct kb_strv *s, const char *fmt, ...)
{
	struct kb_buf b = KB_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kb_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	KB_ALLOC_GROW(s->v, s->n + 2, s->alloc);
	s->v[s->n++] = kb_buf_detach(&b);
	s->v[s->n] = NULL;
}

void kb_strv_clear(struct kb_strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->alloc = 0;
}
