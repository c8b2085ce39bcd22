#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "run.h"
#include "test.h"
#include "util.h"

TEST(test_output__short_stream_kept_whole)
{
	struct kb_output o;
	struct kb_buf b = KB_BUF_INIT;

	kb_output_init(&o, 8, 4);
	kb_output_add(&o, "abcdef", 6);
	kb_output_add(&o, "ghij", 4);
	CHECK(kb_output_cut(&o) == 0);
	kb_output_render(&o, &b);
	CHECK(!strcmp(b.ptr, "abcdefghij"));
	kb_buf_reset(&b);
	kb_output_last(&o, 3, &b);
	CHECK(!strcmp(b.ptr, "hij"));
	kb_buf_release(&b);
	kb_output_release(&o);
}

TEST(test_output__head_tail_and_the_line_of_the_cut)
{
	struct kb_output o;
	struct kb_buf b = KB_BUF_INIT;
	int i;

	kb_output_init(&o, 4, 5);
	kb_output_add(&o, "head", 4);
	/* in pieces smaller and larger than the ring */
	for (i = 0; i < 10; i++)
		kb_output_add(&o, "xy", 2);
	kb_output_add(&o, "0123456789", 10);
	kb_output_add(&o, "ab", 2);
	CHECK(o.total == 36);
	CHECK(kb_output_cut(&o) == 36 - 4 - 5);
	kb_output_render(&o, &b);
	CHECK_MSG(!strcmp(b.ptr, "head\n[kbisect: 27 bytes of output cut here]\n789ab"),
		  "%s", b.ptr);
	kb_buf_reset(&b);
	kb_output_last(&o, 3, &b);
	CHECK(!strcmp(b.ptr, "9ab"));
	kb_buf_reset(&b);
	/* a head that ends a line: no empty line before the cut's */
	kb_output_release(&o);
	kb_output_init(&o, 3, 2);
	kb_output_add(&o, "ab\ncdefg\n", 9);
	kb_output_chop(&o, '\n');
	kb_output_render(&o, &b);
	CHECK_MSG(!strcmp(b.ptr, "ab\n[kbisect: 4 bytes of output cut here]\ng"), "%s", b.ptr);
	kb_buf_release(&b);
	kb_output_release(&o);
}

/* A file longer than both parts is read as its head and its tail: the
 * line of the cut is in neither, whatever the text says. */
TEST(test_output__read_and_keep_a_file)
{
	struct kb_output o;
	struct kb_buf head = KB_BUF_INIT, tail = KB_BUF_INIT, all = KB_BUF_INIT;
	char *p = kb_asprintf("%s/out", kb_test_dir()), *q = kb_asprintf("%s/kept", kb_test_dir());
	size_t i;
	struct stat st;

	kb_output_init(&o, 0, 0);
	kb_output_add(&o, "first\n", 6);
	for (i = 0; i < 300000; i++)
		kb_output_add(&o, "[kbisect: 1 bytes of output cut here]\n", 38);
	kb_output_add(&o, "value: 42\n", 10);
	CHECK(kb_output_write(&o, p) == 0);
	CHECK(stat(p, &st) == 0 && (size_t)st.st_size < KB_OUTPUT_HEAD + KB_OUTPUT_TAIL + 100);
	CHECK(kb_output_read(p, &head, &tail) == 0);
	CHECK(head.len == KB_OUTPUT_HEAD && tail.len == KB_OUTPUT_TAIL);
	CHECK(!strncmp(head.ptr, "first\n", 6));
	CHECK(tail.len > 10 && !strcmp(tail.ptr + tail.len - 10, "value: 42\n"));
	kb_buf_release(&head);
	kb_buf_release(&tail);
	/* a short file: one part */
	CHECK(kb_write_file_atomic(p, "short\n", 6, 0600) == 0);
	CHECK(kb_output_read(p, &head, &tail) == 0);
	CHECK(!strcmp(head.ptr, "short\n") && !tail.len);
	CHECK(kb_output_read(q, &head, &tail) == KB_ENOTFOUND);
	kb_error_clear();
	kb_buf_release(&head);
	/* a long file kept: head, the line, tail; the long one gone */
	kb_output_render(&o, &all);
	{
		int fd = open(p, O_WRONLY | O_TRUNC);

		for (i = 0; i < 4; i++)
			CHECK(write(fd, all.ptr, all.len) == (ssize_t)all.len);
		close(fd);
	}
	CHECK(kb_output_keep_file(p, q) == 0);
	CHECK(access(p, F_OK) != 0);
	CHECK(kb_read_file(q, &head, 0) == 0);
	CHECK(head.len < KB_OUTPUT_HEAD + KB_OUTPUT_TAIL + 100);
	{
		char *line = kb_asprintf("\n[kbisect: %zu bytes of output cut here]\n",
					 4 * all.len - KB_OUTPUT_HEAD - KB_OUTPUT_TAIL);

		CHECK_MSG(!memcmp(head.ptr + KB_OUTPUT_HEAD, line + (all.ptr[KB_OUTPUT_HEAD - 1] == '\n'),
				  strlen(line) - (all.ptr[KB_OUTPUT_HEAD - 1] == '\n')),
			  "%.60s", head.ptr + KB_OUTPUT_HEAD);
		free(line);
	}
	CHECK(!strcmp(head.ptr + head.len - 10, "value: 42\n"));
	kb_buf_release(&head);
	kb_buf_release(&all);
	kb_output_release(&o);
	free(p);
	free(q);
}

/* A command that prints far more than is kept: the runner keeps the first
 * and the last MiB, and the file never takes more. */
TEST(test_output__runner_keeps_head_and_tail)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "echo start; yes 0123456789abcdef | head -c 50000000; "
			       "echo; echo 'value: 7'", NULL };
	struct kb_run_spec spec = { argv, NULL, NULL, 0 };
	char *dir = kb_asprintf("%s/run", kb_test_dir()), *o = kb_asprintf("%s/output", dir);
	struct kb_buf head = KB_BUF_INIT, tail = KB_BUF_INIT;
	struct kb_run_result res;
	struct stat st;
	pid_t pid;
	int found = 0;

	CHECK(kb_runner_start(dir, &spec, &pid) == 0);
	CHECK(kb_runner_wait(dir, &res, &found, NULL, NULL) == 0 && found);
	kb_runner_reap(pid);
	CHECK(res.outcome == KB_RUN_EXITED && res.exit_status == 0);
	CHECK(stat(o, &st) == 0);
	CHECK_MSG((size_t)st.st_blocks * 512 < KB_OUTPUT_HEAD + KB_OUTPUT_TAIL + 65536,
		  "%lld blocks", (long long)st.st_blocks);
	CHECK(kb_output_read(o, &head, &tail) == 0);
	CHECK(!strncmp(head.ptr, "start\n0123456789abcdef\n", 23));
	CHECK(tail.len == KB_OUTPUT_TAIL && !strcmp(tail.ptr + tail.len - 9, "value: 7\n"));
	kb_buf_release(&head);
	CHECK(kb_read_file(o, &head, 0) == 0);
	CHECK(strstr(head.ptr, "\n[kbisect: "));
	CHECK(strstr(head.ptr, " bytes of output cut here]\n"));
	kb_buf_release(&head);
	kb_buf_release(&tail);
	free(o);
	free(dir);
}

/* A console that another process writes: its middle's blocks given back
 * as it grows, its head and tail untouched, then kept as kept text. */
TEST(test_output__punch_the_middle_of_a_growing_file)
{
	char *p = kb_asprintf("%s/console", kb_test_dir()), *q = kb_asprintf("%s/kept", kb_test_dir());
	struct kb_buf head = KB_BUF_INIT, tail = KB_BUF_INIT;
	char block[65536];
	struct stat st;
	off_t done = 0, read_done = 0;
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600), i;

	CHECK(fd >= 0);
	for (i = 0; i < 160; i++) {
		memset(block, 'a' + i % 26, sizeof(block));
		CHECK(write(fd, block, sizeof(block)) == (ssize_t)sizeof(block));
		if (i % 16 == 15)
			kb_output_punch_middle(fd, KB_OUTPUT_HEAD, KB_OUTPUT_TAIL, &done);
	}
	CHECK(fsync(fd) == 0 && fstat(fd, &st) == 0);
	CHECK(st.st_size == 160 * 65536);
	if (!done || (off_t)st.st_blocks * 512 > st.st_size / 2) {
		close(fd);
		SKIP("this file system does not punch holes");
	}
	CHECK_MSG((off_t)st.st_blocks * 512 <= (off_t)(KB_OUTPUT_HEAD + 3 * KB_OUTPUT_TAIL),
		  "%lld blocks", (long long)st.st_blocks);
	/* the first and the last MiB as they were written */
	CHECK(kb_output_read(p, &head, &tail) == 0);
	CHECK(head.ptr[0] == 'a' && head.ptr[KB_OUTPUT_HEAD - 1] == 'a' + 15 % 26);
	CHECK(tail.ptr[0] == 'a' + 144 % 26 && tail.ptr[tail.len - 1] == 'a' + 159 % 26);
	kb_buf_release(&head);
	kb_buf_release(&tail);
	/* what was read gives its blocks back too */
	kb_output_punch_read(fd, 8 * 65536 * 16, &read_done);
	CHECK(read_done == 8 << 20);
	close(fd);
	CHECK(kb_output_keep_file(p, q) == 0);
	CHECK(stat(q, &st) == 0 && st.st_size < KB_OUTPUT_HEAD + KB_OUTPUT_TAIL + 100);
	free(p);
	free(q);
}
