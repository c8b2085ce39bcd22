/*
 * test.h - a small unit test harness.  TEST(area__case) defines a test and
 * registers it; CHECK() fails the test and returns from it; SKIP() skips
 * it.  The runner prints one TAP line per test.
 */
#ifndef KB_TEST_H
#define KB_TEST_H

#include <stdio.h>

void kb_test_register(const char *name, void (*fn)(void));
void kb_test_fail(const char *file, int line, const char *what);
void kb_test_skip(const char *why);
/* A fresh empty directory for the running test (removed if it passes). */
const char *kb_test_dir(void);

#define TEST(name) \
	static void name(void); \
	__attribute__((constructor)) static void reg_##name(void) \
	{ kb_test_register(#name, name); } \
	static void name(void)

#define CHECK(cond) do { \
	if (!(cond)) { kb_test_fail(__FILE__, __LINE__, #cond); return; } \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	if (!(cond)) { \
		char kb_m_[512]; \
		snprintf(kb_m_, sizeof(kb_m_), __VA_ARGS__); \
		kb_test_fail(__FILE__, __LINE__, kb_m_); return; \
	} \
} while (0)

#define SKIP(why) do { kb_test_skip(why); return; } while (0)

#endif
