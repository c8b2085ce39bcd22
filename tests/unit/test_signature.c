#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "signature.h"
#include "run.h"
#include "test.h"
#include "util.h"

/* A program with a version string, as a build that stamps its commit
 * makes it: VERSION and the code's return value vary. */
static const char prog[] =
	"#include <stdio.h>\n"
	"const char version[] = \"prog 1.0-kb\" VERSION;\n"
	"int level = LEVEL;\n"
	"int main(void) { puts(version); return level * RET; }\n";

/* Compile the program with cc into 'out' ("-c" for an object file):
 * 0, or 1 when there is no compiler. */
static int compile(const char *out, const char *version, int ret, const char *extra)
{
	char *src = kb_asprintf("%s/prog.c", kb_test_dir()), *log = kb_asprintf("%s.log", out);
	char *dv = kb_asprintf("-DVERSION=\"%s\"", version), *dr = kb_asprintf("-DRET=%d", ret);
	const char *argv[] = { "cc", "-O2", "-DLEVEL=3", dv, dr, "-o", out, src, extra, NULL };
	struct kb_run_spec rs = { argv, NULL, NULL, 60 };
	struct kb_run_result res;
	int rc;

	kb_write_file_atomic(src, prog, sizeof(prog) - 1, 0644);
	rc = kb_run_simple(&rs, log, &res) == 0 && res.outcome == KB_RUN_EXITED &&
	     res.exit_status == 0 ? 0 : 1;
	kb_error_clear();
	free(src);
	free(log);
	free(dv);
	free(dr);
	return rc;
}

static char *in_dir(const char *name)
{
	return kb_asprintf("%s/%s", kb_test_dir(), name);
}

TEST(test_signature__mask)
{
	char data[] = "Linux version 6.1.0-kbabc (x) 6.1.0-kbabc; -kbabc";
	const char *mask[] = { "6.1.0-kbabc", "-kbabc", "", NULL };

	kb_signature_mask(data, strlen(data), mask);
	CHECK(!strcmp(data, "Linux version *********** (x) ***********; ******"));
	kb_signature_mask(data, strlen(data), NULL);
	CHECK(!strcmp(data, "Linux version *********** (x) ***********; ******"));
}

TEST(test_signature__programs_that_differ_in_a_version_string_only_are_equal)
{
	char *a = in_dir("a"), *b = in_dir("b"), *c = in_dir("c");
	const char *ma[] = { "0123456789ab", NULL }, *mb[] = { "ba9876543210", NULL };
	char sa[41], sb[41], sc[41], ua[41], ub[41];

	if (compile(a, "0123456789ab", 1, NULL) || compile(b, "ba9876543210", 1, NULL) ||
	    compile(c, "ba9876543210", 2, NULL))
		SKIP("no C compiler");
	CHECK(kb_elf_signature(a, ma, sa) == 0);
	CHECK(kb_elf_signature(b, mb, sb) == 0);
	CHECK(kb_elf_signature(c, mb, sc) == 0);
	CHECK(strlen(sa) == 40);
	/* the version strings masked: the same program */
	CHECK_MSG(!strcmp(sa, sb), "%s != %s", sa, sb);
	/* other code: another program */
	CHECK(strcmp(sb, sc));
	/* nothing masked: the version strings differ */
	CHECK(kb_elf_signature(a, NULL, ua) == 0);
	CHECK(kb_elf_signature(b, NULL, ub) == 0);
	CHECK(strcmp(ua, ub));
	/* the same file, the same signature */
	CHECK(kb_elf_signature(a, ma, ua) == 0);
	CHECK(!strcmp(sa, ua));
	free(a);
	free(b);
	free(c);
}

TEST(test_signature__object_files_in_code_and_in_version_strings)
{
	char *a = in_dir("a.o"), *b = in_dir("b.o"), *c = in_dir("c.o");
	const char *ma[] = { "0123456789ab", NULL }, *mb[] = { "ba9876543210", NULL };
	char sa[41], sb[41], sc[41];

	if (compile(a, "0123456789ab", 1, "-c") || compile(b, "ba9876543210", 1, "-c") ||
	    compile(c, "0123456789ab", 5, "-c"))
		SKIP("no C compiler");
	CHECK(kb_elf_signature(a, ma, sa) == 0);
	CHECK(kb_elf_signature(b, mb, sb) == 0);
	CHECK(kb_elf_signature(c, ma, sc) == 0);
	CHECK(!strcmp(sa, sb));
	CHECK(strcmp(sa, sc));
	free(a);
	free(b);
	free(c);
}

TEST(test_signature__debug_info_is_not_what_runs)
{
	char *a = in_dir("a"), *b = in_dir("b");
	char sa[41], sb[41];
	struct kb_buf fa = KB_BUF_INIT, fb = KB_BUF_INIT;

	if (compile(a, "0123456789ab", 1, NULL) || compile(b, "0123456789ab", 1, "-g"))
		SKIP("no C compiler");
	CHECK(kb_read_file(a, &fa, 0) == 0 && kb_read_file(b, &fb, 0) == 0);
	/* the files differ: debug info, a build id */
	CHECK(fa.len != fb.len || memcmp(fa.ptr, fb.ptr, fa.len));
	CHECK(kb_elf_signature(a, NULL, sa) == 0);
	CHECK(kb_elf_signature(b, NULL, sb) == 0);
	CHECK_MSG(!strcmp(sa, sb), "%s != %s", sa, sb);
	kb_buf_release(&fa);
	kb_buf_release(&fb);
	free(a);
	free(b);
}

/* A hand-made big-endian ELF32 file: a header, the section names, .text
 * with 'text', a note with 'note', and the section headers. */
static void put(unsigned char *p, uint32_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
}

static char *elf32_msb(const char *name, const char *text, const char *note)
{
	static const char names[] = "\0.shstrtab\0.text\0.note";
	unsigned char f[512];
	size_t tl = strlen(text), nl = strlen(note), off = 52, names_at, text_at, note_at, sh;
	unsigned char *h;
	char *path = in_dir(name);

	memset(f, 0, sizeof(f));
	memcpy(f, "\177ELF", 4);
	f[4] = 1; /* ELFCLASS32 */
	f[5] = 2; /* ELFDATA2MSB */
	f[6] = 1;
	put(f + 16, 2, 2);  /* ET_EXEC */
	put(f + 18, 8, 2);  /* EM_MIPS */
	put(f + 20, 1, 4);
	names_at = off;
	memcpy(f + off, names, sizeof(names));
	off += sizeof(names);
	text_at = off;
	memcpy(f + off, text, tl);
	off += tl;
	note_at = off;
	memcpy(f + off, note, nl);
	off += nl;
	sh = (off + 3) & ~(size_t)3;
	put(f + 32, (uint32_t)sh, 4);  /* e_shoff */
	put(f + 40, 52, 2);            /* e_ehsize */
	put(f + 46, 40, 2);            /* e_shentsize */
	put(f + 48, 4, 2);             /* e_shnum */
	put(f + 50, 1, 2);             /* e_shstrndx */
	/* 0: null; 1: .shstrtab; 2: .text; 3: .note */
	h = f + sh + 40;
	put(h, 1, 4);
	put(h + 4, 3, 4);              /* SHT_STRTAB */
	put(h + 16, (uint32_t)names_at, 4);
	put(h + 20, sizeof(names), 4);
	h += 40;
	put(h, 11, 4);
	put(h + 4, 1, 4);              /* SHT_PROGBITS */
	put(h + 8, 6, 4);              /* SHF_ALLOC | SHF_EXECINSTR */
	put(h + 12, 0x400000, 4);
	put(h + 16, (uint32_t)text_at, 4);
	put(h + 20, (uint32_t)tl, 4);
	h += 40;
	put(h, 17, 4);
	put(h + 4, 7, 4);              /* SHT_NOTE */
	put(h + 8, 2, 4);              /* SHF_ALLOC */
	put(h + 16, (uint32_t)note_at, 4);
	put(h + 20, (uint32_t)nl, 4);
	kb_write_file_atomic(path, f, sh + 4 * 40, 0644);
	return path;
}

TEST(test_signature__big_endian_32_bits_notes_left_out)
{
	char *a = elf32_msb("a", "code code", "build id 1"),
	     *b = elf32_msb("b", "code code", "build id 2"),
	     *c = elf32_msb("c", "code edoc", "build id 1");
	char sa[41], sb[41], sc[41];

	CHECK(kb_elf_signature(a, NULL, sa) == 0);
	CHECK(kb_elf_signature(b, NULL, sb) == 0);
	CHECK(kb_elf_signature(c, NULL, sc) == 0);
	CHECK(!strcmp(sa, sb));
	CHECK(strcmp(sa, sc));
	free(a);
	free(b);
	free(c);
}

TEST(test_signature__damaged_and_other_files)
{
	char *a = elf32_msb("a", "code code", "note"), *t = in_dir("t"), *x = in_dir("x");
	char *y = in_dir("y"), *none = in_dir("none");
	struct kb_buf f = KB_BUF_INIT;
	const char *mx[] = { "kb111", NULL }, *my[] = { "kb222", NULL };
	char s[41], sy[41];

	/* cut short: its section headers are past its end */
	CHECK(kb_read_file(a, &f, 0) == 0);
	CHECK(kb_write_file_atomic(t, f.ptr, f.len - 30, 0644) == 0);
	CHECK(kb_elf_signature(t, NULL, s) == KB_EINVAL);
	CHECK(kb_write_file_atomic(t, f.ptr, 20, 0644) == 0);
	CHECK(kb_elf_signature(t, NULL, s) == KB_EINVAL);
	/* a text file is no ELF file; its bytes are its signature */
	CHECK(kb_write_file_atomic(x, "level 3 kb111\n", 14, 0644) == 0);
	CHECK(kb_write_file_atomic(y, "level 3 kb222\n", 14, 0644) == 0);
	CHECK(kb_elf_signature(x, NULL, s) == 1);
	CHECK(kb_file_signature(x, mx, s) == 0);
	CHECK(kb_file_signature(y, my, sy) == 0);
	CHECK(!strcmp(s, sy));
	CHECK(kb_file_signature(y, NULL, sy) == 0);
	CHECK(strcmp(s, sy));
	CHECK(kb_elf_signature(none, NULL, s) == KB_ENOTFOUND);
	kb_buf_release(&f);
	free(a);
	free(t);
	free(x);
	free(y);
	free(none);
}
