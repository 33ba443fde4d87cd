/* Minimal TAP producer for the unit tests: each check is one test case. */
#ifndef PS_TAP_H
#define PS_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...)                                                              \
	do {                                                                       \
		int ok_c_ = !!(cond);                                              \
		printf("%s %d - ", ok_c_ ? "ok" : "not ok", ++tap_n);             \
		printf(__VA_ARGS__);                                               \
		printf("\n");                                                      \
		if (!ok_c_) {                                                      \
			tap_failed++;                                              \
			printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                  \
	} while (0)

#define is_int(a, b, ...)                                                          \
	do {                                                                       \
		long long is_a_ = (long long)(a), is_b_ = (long long)(b);          \
		ok(is_a_ == is_b_, __VA_ARGS__);                                   \
		if (is_a_ != is_b_)                                                \
			printf("#   got %lld, expected %lld\n", is_a_, is_b_);       \
	} while (0)

#define is_str(a, b, ...)                                                          \
	do {                                                                       \
		const char *is_a_ = (a), *is_b_ = (b);                             \
		int is_eq_ = is_a_ && is_b_ && !strcmp(is_a_, is_b_);              \
		ok(is_eq_, __VA_ARGS__);                                           \
		if (!is_eq_)                                                       \
			printf("#   got '%s', expected '%s'\n", is_a_ ? is_a_ : "(null)", is_b_ ? is_b_ : "(null)"); \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Read a fixture from tests/fixtures (srcdir-relative through $top_srcdir). */
#include <stdlib.h>
static inline size_t tap_fixture(const char *name, char *buf, size_t size)
{
	char path[4096];
	const char *top = getenv("top_srcdir");
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top ? top : ".", name);
	f = fopen(path, "rb");
	if (!f) {
		printf("Bail out! fixture %s missing\n", path);
		exit(1);
	}
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

#endif
