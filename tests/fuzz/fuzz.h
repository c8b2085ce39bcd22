/*
 * fuzz.h - what the libFuzzer harnesses of tests/fuzz/ share.
 *
 * FUZZ_CHECK() stops the run with the broken invariant and the last error
 * message, so that libFuzzer keeps the input that broke it.
 */
#ifndef KB_FUZZ_H
#define KB_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: invariant broken: %s\n(last error: '%s')\n", \
			__FILE__, __LINE__, #cond, kb_error_last()); \
		abort(); \
	} \
} while (0)

/* The input as a C string: a copy ended by NUL (the input may hold NULs). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* A failure returned 'ret' (< 0) and said why. */
#define FUZZ_CHECK_FAILED(ret) do { \
	FUZZ_CHECK((ret) == KB_EINVAL); \
	FUZZ_CHECK(kb_error_code() == KB_EINVAL); \
	FUZZ_CHECK(*kb_error_last()); \
} while (0)

#endif
