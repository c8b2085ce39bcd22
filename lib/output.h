/*
 * output.h - what is kept of a stream that may be too long to keep whole:
 * a run's output, a console.  Its first KB_OUTPUT_HEAD bytes and its last
 * KB_OUTPUT_TAIL; when more came, a line between the two says how many
 * bytes were cut there:
 *
 *   HEAD
 *   [kbisect: 314572800 bytes of output cut here]
 *   TAIL
 *
 * The line starts with a newline of its own when the head does not end
 * with one.  A file of more than KB_OUTPUT_HEAD + KB_OUTPUT_TAIL bytes is
 * therefore always one that was cut (or one written whole by an older
 * kbisect): kb_output_read() takes its first and its last bytes, and never
 * needs to trust a line that a command could print too.
 */
#ifndef KB_OUTPUT_H
#define KB_OUTPUT_H

#include <stdint.h>
#include <sys/types.h>

#include "util.h"

#define KB_OUTPUT_HEAD (1u << 20)
#define KB_OUTPUT_TAIL (1u << 20)

struct kb_output {
	size_t head_max, tail_max;
	struct kb_buf head;       /* the first head_max bytes */
	char *ring;               /* the last tail_max bytes after them */
	size_t ring_len, ring_pos; /* bytes in the ring; where the next goes */
	uint64_t total;           /* every byte added */
};

/* An empty stream that keeps 'head_max' and 'tail_max' bytes (0, 0: the
 * defaults above). */
void kb_output_init(struct kb_output *o, size_t head_max, size_t tail_max);
void kb_output_release(struct kb_output *o);
void kb_output_add(struct kb_output *o, const void *data, size_t len);
/* Bytes that were cut between the head and the tail. */
uint64_t kb_output_cut(const struct kb_output *o);
/* Append the kept text to 'out': the head, then (if any) the line of the
 * cut and the tail, as in a file. */
void kb_output_render(const struct kb_output *o, struct kb_buf *out);
/* Append only what follows the head: the line of the cut and the tail. */
void kb_output_render_after_head(const struct kb_output *o, struct kb_buf *out);
/* The last 'n' bytes kept (fewer when fewer came). */
void kb_output_last(const struct kb_output *o, size_t n, struct kb_buf *out);
/* Drop the last byte kept, if any and if it is 'c' (a final newline). */
void kb_output_chop(struct kb_output *o, char c);
/* Write the kept text to 'path' (atomically, mode 0600). */
int kb_output_write(const struct kb_output *o, const char *path);

/*
 * Read a file of kept text (or any file: its first KB_OUTPUT_HEAD bytes
 * and its last KB_OUTPUT_TAIL): into 'head' the whole file when it is no
 * longer than both together, else its head, and then its tail into
 * 'tail' (left empty otherwise).  KB_ENOTFOUND when there is no file.
 */
int kb_output_read(const char *path, struct kb_buf *head, struct kb_buf *tail);

/*
 * Copy the file 'from', which may be longer than what is kept, to 'to' as
 * kept text (its head, the line of the cut, its tail), and remove 'from'.
 * A file short enough is renamed.
 */
int kb_output_keep_file(const char *from, const char *to);

/*
 * For a file another process keeps writing (a console): give back the
 * disk blocks of its middle, between the first 'head' and the last
 * 'tail' bytes, which kb_output_keep_file() cuts in the end.  *done is how
 * far it was freed (0 at first).  Best effort: a file system that cannot
 * punch holes keeps the blocks.
 */
void kb_output_punch_middle(int fd, size_t head, size_t tail, off_t *done);
/* Give back the blocks of the first 'upto' bytes of a file, read already
 * (*done as above). */
void kb_output_punch_read(int fd, off_t upto, off_t *done);

#endif
