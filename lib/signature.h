/*
 * signature.h - the signature of a build: what a program or a kernel loads,
 * hashed so that two builds of the same code and data compare equal
 * although their version strings differ.
 *
 * Of an ELF file (32 or 64 bits, either byte order) the sections that are
 * loaded and have contents in the file are hashed, each with its name,
 * type, flags, address and size: code, read-only data and data.  Left out
 * are the sections not loaded (symbols, debug info, .comment), the notes
 * (a build id is a hash of the whole file, version strings included) and
 * the sections without contents (.bss).  In an object file (ET_REL) its
 * symbols and the relocations of its loaded sections count too: they say
 * what the code calls.
 *
 * Before a section is hashed, every occurrence of each string of 'mask'
 * in it is overwritten with '*': the strings that name the commit built
 * (a kernel's release, the commit's id).  Two builds whose masked strings
 * have the same length then differ only where their code or data does.
 * Longer strings go first in 'mask', before the strings they contain.
 */
#ifndef KB_SIGNATURE_H
#define KB_SIGNATURE_H

#include <stddef.h>

/* The signature of the ELF file 'path' in 'out' (40 hex digits): 0, 1
 * when the file is not an ELF file (nothing hashed), KB_EINVAL for an ELF
 * file that is damaged, or negative when it cannot be read.  'mask' is
 * NULL-terminated (NULL: nothing masked). */
int kb_elf_signature(const char *path, const char *const *mask, char out[41]);

/* The signature of any file: an ELF file as kb_elf_signature(), another
 * one its bytes, masked the same way. */
int kb_file_signature(const char *path, const char *const *mask, char out[41]);

/* Overwrite with '*' every occurrence in 'data' of each string of 'mask'
 * (NULL-terminated; empty strings are passed over). */
void kb_signature_mask(char *data, size_t len, const char *const *mask);

/* The hash of 'len' bytes as 40 hex digits (what a signature is made of). */
void kb_signature_hash(const void *data, size_t len, char out[41]);

#endif
