#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Holes are punched in whole runs of this many bytes. */
#define PUNCH_STEP ((off_t)1 << 20)

void kb_output_init(struct kb_output *o, size_t head_max, size_t tail_max)
{
	memset(o, 0, sizeof(*o));
	o->head_max = head_max ? head_max : KB_OUTPUT_HEAD;
	o->tail_max = tail_max ? tail_max : KB_OUTPUT_TAIL;
	kb_buf_init(&o->head);
}

void kb_output_release(struct kb_output *o)
{
	kb_buf_release(&o->head);
	free(o->ring);
	o->ring = NULL;
	o->ring_len = o->ring_pos = 0;
	o->total = 0;
}

void kb_output_add(struct kb_output *o, const void *data, size_t len)
{
	const char *p = data;

	o->total += len;
	if (o->head.len < o->head_max) {
		size_t n = o->head_max - o->head.len;

		if (n > len)
			n = len;
		kb_buf_add(&o->head, p, n);
		p += n;
		len -= n;
	}
	if (!len)
		return;
	if (!o->ring)
		o->ring = kb_malloc(o->tail_max);
	if (len >= o->tail_max) {
		/* only the last tail_max bytes of it stay */
		memcpy(o->ring, p + len - o->tail_max, o->tail_max);
		o->ring_len = o->tail_max;
		o->ring_pos = 0;
		return;
	}
	while (len) {
		size_t n = o->tail_max - o->ring_pos;

		if (n > len)
			n = len;
		memcpy(o->ring + o->ring_pos, p, n);
		o->ring_pos = (o->ring_pos + n) % o->tail_max;
		o->ring_len = o->ring_len + n > o->tail_max ? o->tail_max : o->ring_len + n;
		p += n;
		len -= n;
	}
}

uint64_t kb_output_cut(const struct kb_output *o)
{
	return o->total - o->head.len - o->ring_len;
}

/* The tail in order. */
static void add_ring(const struct kb_output *o, struct kb_buf *out)
{
	size_t start = (o->ring_pos + o->tail_max - o->ring_len) % o->tail_max;
	size_t first = o->ring_len < o->tail_max - start ? o->ring_len : o->tail_max - start;

	if (!o->ring_len)
		return;
	kb_buf_add(out, o->ring + start, first);
	kb_buf_add(out, o->ring, o->ring_len - first);
}

void kb_output_render_after_head(const struct kb_output *o, struct kb_buf *out)
{
	uint64_t cut = kb_output_cut(o);

	if (cut)
		kb_buf_addf(out, "%s[kbisect: %" PRIu64 " bytes of output cut here]\n",
			    o->head.len && o->head.ptr[o->head.len - 1] != '\n' ? "\n" : "",
			    cut);
	add_ring(o, out);
}

void kb_output_render(const struct kb_output *o, struct kb_buf *out)
{
	kb_buf_add(out, o->head.ptr, o->head.len);
	kb_output_render_after_head(o, out);
}

void kb_output_last(const struct kb_output *o, size_t n, struct kb_buf *out)
{
	struct kb_buf all = KB_BUF_INIT;

	kb_output_render(o, &all);
	kb_buf_add(out, all.len > n ? all.ptr + all.len - n : all.ptr, all.len > n ? n : all.len);
	kb_buf_release(&all);
}

void kb_output_chop(struct kb_output *o, char c)
{
	if (o->ring_len) {
		size_t last = (o->ring_pos + o->tail_max - 1) % o->tail_max;

		if (o->ring[last] != c)
			return;
		o->ring_pos = last;
		o->ring_len--;
		o->total--;
	} else if (o->head.len && o->head.ptr[o->head.len - 1] == c) {
		o->head.ptr[--o->head.len] = '\0';
		o->total--;
	}
}

int kb_output_write(const struct kb_output *o, const char *path)
{
	struct kb_buf b = KB_BUF_INIT;
	int ret;

	kb_output_render(o, &b);
	ret = kb_write_file_atomic(path, b.ptr, b.len, 0600);
	kb_buf_release(&b);
	return ret;
}

/* Read 'len' bytes at 'off' onto 'out' (fewer at the end of the file). */
static int read_at(int fd, off_t off, size_t len, struct kb_buf *out, const char *path)
{
	char tmp[65536];

	while (len) {
		ssize_t n = pread(fd, tmp, len < sizeof(tmp) ? len : sizeof(tmp), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kb_error_errno(KB_ERROR, "cannot read %s", path);
		if (n == 0)
			break;
		kb_buf_add(out, tmp, (size_t)n);
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The head and the tail of the open file 'fd'; its size in *size. */
static int read_parts(int fd, const char *path, struct kb_buf *head, struct kb_buf *tail,
		      off_t *size)
{
	struct stat st;
	int ret;

	if (fstat(fd, &st) < 0)
		return kb_error_errno(KB_ERROR, "cannot read %s", path);
	*size = st.st_size;
	if ((uint64_t)st.st_size <= (uint64_t)KB_OUTPUT_HEAD + KB_OUTPUT_TAIL)
		return read_at(fd, 0, (size_t)st.st_size, head, path);
	if ((ret = read_at(fd, 0, KB_OUTPUT_HEAD, head, path)) < 0)
		return ret;
	return read_at(fd, st.st_size - (off_t)KB_OUTPUT_TAIL, KB_OUTPUT_TAIL, tail, path);
}

int kb_output_read(const char *path, struct kb_buf *head, struct kb_buf *tail)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	off_t size;

	if (fd < 0)
		return kb_error_errno(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR,
				      "cannot open %s", path);
	ret = read_parts(fd, path, head, tail, &size);
	close(fd);
	return ret;
}

int kb_output_keep_file(const char *from, const char *to)
{
	struct kb_buf head = KB_BUF_INIT, tail = KB_BUF_INIT, b = KB_BUF_INIT;
	int fd = open(from, O_RDONLY | O_CLOEXEC), ret;
	off_t size = 0;

	if (fd < 0)
		return kb_error_errno(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR,
				      "cannot open %s", from);
	ret = read_parts(fd, from, &head, &tail, &size);
	close(fd);
	if (ret < 0)
		goto out;
	if (!tail.len) {
		if (rename(from, to) < 0)
			ret = kb_error_errno(KB_ERROR, "cannot rename %s", from);
		goto out;
	}
	kb_buf_add(&b, head.ptr, head.len);
	kb_buf_addf(&b, "%s[kbisect: %" PRIu64 " bytes of output cut here]\n",
		    head.ptr[head.len - 1] != '\n' ? "\n" : "",
		    (uint64_t)size - head.len - tail.len);
	kb_buf_add(&b, tail.ptr, tail.len);
	if ((ret = kb_write_file_atomic(to, b.ptr, b.len, 0600)) == 0)
		unlink(from);
out:
	kb_buf_release(&head);
	kb_buf_release(&tail);
	kb_buf_release(&b);
	return ret;
}

static void punch(int fd, off_t from, off_t to)
{
	if (to > from && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from,
				   to - from) < 0) {
		/* no holes on this file system: the blocks stay */
	}
}

void kb_output_punch_middle(int fd, size_t head, size_t tail, off_t *done)
{
	struct stat st;
	off_t from, to;

	if (fstat(fd, &st) < 0)
		return;
	/* whole steps only, the head and the last 'tail' bytes untouched */
	from = ((off_t)head + PUNCH_STEP - 1) / PUNCH_STEP * PUNCH_STEP;
	if (*done > from)
		from = *done;
	to = (st.st_size - (off_t)tail) / PUNCH_STEP * PUNCH_STEP;
	if (to - from < PUNCH_STEP)
		return;
	punch(fd, from, to);
	*done = to;
}

void kb_output_punch_read(int fd, off_t upto, off_t *done)
{
	off_t to = upto / PUNCH_STEP * PUNCH_STEP;

	if (to - *done < 4 * PUNCH_STEP)
		return;
	punch(fd, *done, to);
	*done = to;
}
