#include "signature.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* The largest section (or other file) hashed: beyond, a build of its own
 * kind that kbisect does not know. */
#define MAX_BYTES (4ULL << 30)

void kb_signature_hash(const void *data, size_t len, char out[41])
{
	git_oid oid;

	git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB);
	git_oid_tostr(out, 41, &oid);
}

void kb_signature_mask(char *data, size_t len, const char *const *mask)
{
	size_t i;

	for (i = 0; mask && mask[i]; i++) {
		size_t n = strlen(mask[i]);
		char *p = data, *end = data + len;

		if (!n)
			continue;
		while (p < end && (p = memmem(p, (size_t)(end - p), mask[i], n))) {
			memset(p, '*', n);
			p += n;
		}
	}
}

struct elf {
	int fd;
	const char *path;
	unsigned long long size;  /* of the file */
	int is64, msb;
};

static uint64_t get(const struct elf *e, const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)p[e->msb ? bytes - 1 - i : i] << (8 * i);
	return v;
}

static int read_at(const struct elf *e, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	if (off > e->size || len > e->size - off)
		return kb_error(KB_EINVAL, "%s: a damaged ELF file (past its end)", e->path);
	while (done < len) {
		ssize_t n = pread(e->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kb_error_errno(KB_ERROR, "cannot read %s", e->path);
		if (!n)
			return kb_error(KB_EINVAL, "%s: a damaged ELF file (short)", e->path);
		done += (size_t)n;
	}
	return 0;
}

struct section {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size;
};

static int section_at(const struct elf *e, uint64_t shoff, uint64_t entsize, uint64_t i,
		      struct section *s)
{
	unsigned char h[64];
	int ret;

	if ((ret = read_at(e, h, e->is64 ? 64 : 40, shoff + i * entsize)) < 0)
		return ret;
	s->name = (uint32_t)get(e, h, 4);
	s->type = (uint32_t)get(e, h + 4, 4);
	if (e->is64) {
		s->flags = get(e, h + 8, 8);
		s->addr = get(e, h + 16, 8);
		s->offset = get(e, h + 24, 8);
		s->size = get(e, h + 32, 8);
		s->link = (uint32_t)get(e, h + 40, 4);
		s->info = (uint32_t)get(e, h + 44, 4);
	} else {
		s->flags = get(e, h + 8, 4);
		s->addr = get(e, h + 12, 4);
		s->offset = get(e, h + 16, 4);
		s->size = get(e, h + 20, 4);
		s->link = (uint32_t)get(e, h + 24, 4);
		s->info = (uint32_t)get(e, h + 28, 4);
	}
	return 0;
}

/* Is section 'i' of 'sec' one the signature holds? */
static int hashed(const struct section *sec, uint64_t n, uint64_t i, int rel)
{
	const struct section *s = &sec[i];

	if (s->type == SHT_NOBITS || s->type == SHT_NOTE || s->type == SHT_NULL)
		return 0;
	if (s->flags & SHF_ALLOC)
		return 1;
	if (!rel)
		return 0;
	/* an object file: its symbols, and the relocations of what is loaded */
	if (s->type == SHT_SYMTAB || s->type == SHT_GROUP)
		return 1;
	if (s->type == SHT_STRTAB)
		return 1;
	if (s->type == SHT_REL || s->type == SHT_RELA)
		return s->info < n && (sec[s->info].flags & SHF_ALLOC) &&
		       sec[s->info].type != SHT_NOBITS;
	return 0;
}

static int elf_manifest(struct elf *e, const char *const *mask, struct kb_buf *man)
{
	unsigned char h[64];
	uint64_t shoff, entsize, n, strndx, i;
	struct section *sec = NULL;
	char *names = NULL;
	int ret, rel;

	if (e->size < 52)
		return kb_error(KB_EINVAL, "%s: a damaged ELF file (its header)", e->path);
	memset(h, 0, sizeof(h));
	if ((ret = read_at(e, h, e->size < 64 ? (size_t)e->size : 64, 0)) < 0)
		return ret;
	if (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
		return kb_error(KB_EINVAL, "%s: an ELF file of an unknown class", e->path);
	if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
		return kb_error(KB_EINVAL, "%s: an ELF file of an unknown byte order", e->path);
	e->is64 = h[EI_CLASS] == ELFCLASS64;
	e->msb = h[EI_DATA] == ELFDATA2MSB;
	if (e->is64 && e->size < 64)
		return kb_error(KB_EINVAL, "%s: a damaged ELF file (its header)", e->path);
	rel = get(e, h + 16, 2) == ET_REL;
	shoff = e->is64 ? get(e, h + 40, 8) : get(e, h + 32, 4);
	entsize = get(e, h + (e->is64 ? 58 : 46), 2);
	n = get(e, h + (e->is64 ? 60 : 48), 2);
	strndx = get(e, h + (e->is64 ? 62 : 50), 2);
	kb_buf_addf(man, "elf%d %s type %llu\n", e->is64 ? 64 : 32, e->msb ? "msb" : "lsb",
		    (unsigned long long)get(e, h + 16, 2));
	if (!shoff)
		return 0;
	if (entsize < (uint64_t)(e->is64 ? 64 : 40))
		return kb_error(KB_EINVAL, "%s: a damaged ELF file (its section headers)",
				e->path);
	/* more sections than the header holds: the count and the index of
	 * the names are in section 0 */
	if (!n || strndx == SHN_XINDEX) {
		struct section s0;

		if ((ret = section_at(e, shoff, entsize, 0, &s0)) < 0)
			return ret;
		if (!n)
			n = s0.size;
		if (strndx == SHN_XINDEX)
			strndx = s0.link;
	}
	if (n > e->size / entsize)
		return kb_error(KB_EINVAL, "%s: a damaged ELF file (its section count)", e->path);
	sec = kb_calloc(n ? n : 1, sizeof(*sec));
	for (i = 0; i < n; i++)
		if ((ret = section_at(e, shoff, entsize, i, &sec[i])) < 0)
			goto out;
	if (strndx < n && sec[strndx].type == SHT_STRTAB && sec[strndx].size < (64 << 20)) {
		names = kb_malloc(sec[strndx].size + 1);
		if ((ret = read_at(e, names, sec[strndx].size, sec[strndx].offset)) < 0)
			goto out;
		names[sec[strndx].size] = '\0';
	}
	for (i = 0; i < n; i++) {
		const struct section *s = &sec[i];
		const char *name = names && s->name < sec[strndx].size ? names + s->name : "?";
		char hex[41];
		char *data;

		if (!hashed(sec, n, i, rel))
			continue;
		if (s->size > MAX_BYTES) {
			ret = kb_error(KB_EINVAL, "%s: section %s is larger than %llu bytes", e->path,
				       name, MAX_BYTES);
			goto out;
		}
		data = kb_malloc(s->size ? s->size : 1);
		if ((ret = read_at(e, data, s->size, s->offset)) < 0) {
			free(data);
			goto out;
		}
		kb_signature_mask(data, s->size, mask);
		kb_signature_hash(data, s->size, hex);
		free(data);
		/* a name holds no line end of the manifest's */
		kb_buf_adds(man, "section ");
		for (; *name; name++)
			kb_buf_addch(man, *name == '\n' || *name == ' ' ? '?' : *name);
		kb_buf_addf(man, " %u %llx %llx %llx %s\n", s->type, (unsigned long long)s->flags,
			    (unsigned long long)s->addr, (unsigned long long)s->size, hex);
	}
out:
	free(sec);
	free(names);
	return ret;
}

/* Open 'path' as an ELF file: 0, 1 when it is not one, or negative. */
static int elf_open(struct elf *e, const char *path)
{
	unsigned char magic[SELFMAG];
	struct stat st;

	memset(e, 0, sizeof(*e));
	e->path = path;
	e->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->fd < 0)
		return kb_error_errno(errno == ENOENT ? KB_ENOTFOUND : KB_ERROR, "cannot open %s",
				      path);
	if (fstat(e->fd, &st) < 0) {
		close(e->fd);
		return kb_error_errno(KB_ERROR, "cannot read %s", path);
	}
	e->size = (unsigned long long)st.st_size;
	if (!S_ISREG(st.st_mode) || e->size < SELFMAG || read_at(e, magic, SELFMAG, 0) < 0 ||
	    memcmp(magic, ELFMAG, SELFMAG)) {
		kb_error_clear();
		return 1;
	}
	return 0;
}

int kb_elf_signature(const char *path, const char *const *mask, char out[41])
{
	struct kb_buf man = KB_BUF_INIT;
	struct elf e;
	int ret = elf_open(&e, path);

	if (ret < 0)
		return ret;
	if (ret == 0 && (ret = elf_manifest(&e, mask, &man)) == 0)
		kb_signature_hash(man.ptr, man.len, out);
	close(e.fd);
	kb_buf_release(&man);
	return ret;
}

int kb_file_signature(const char *path, const char *const *mask, char out[41])
{
	struct kb_buf b = KB_BUF_INIT;
	int ret = kb_elf_signature(path, mask, out);

	if (ret != 1)
		return ret;
	if ((ret = kb_read_file(path, &b, MAX_BYTES)) == 0) {
		kb_signature_mask(b.ptr, b.len, mask);
		kb_signature_hash(b.ptr, b.len, out);
	}
	kb_buf_release(&b);
	return ret;
}
