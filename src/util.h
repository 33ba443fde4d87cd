/* Small I/O helpers shared by the /proc readers and backends. */
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include "reads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Read a whole file relative to dirfd into buf (NUL-terminated, at most
 * size-1 bytes). Returns bytes read or -errno. */
PS_READS ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size);
/* Same, growing *buf (malloc'd, *cap updated) until the file fits. */
PS_READS ssize_t read_file_alloc_at(int dirfd, const char *path, char **buf, size_t *cap);
/* Read a single integer from a file such as /proc/sys/kernel/perf_event_paranoid.
 * Returns 0 and sets *out, or -errno (-ENOENT when absent). */
PS_READS int read_long_file(const char *path, long *out);
/* Open /proc/PID as a directory fd (O_PATH is not enough for openat reads). */
PS_READS int proc_open_pid(pid_t pid);
PS_READS int proc_open_task(pid_t pid, pid_t tid);
/* Monotonic clock in nanoseconds / seconds. */
uint64_t now_ns(void);
double now_s(void);
/* Copy len bytes of a (not NUL-terminated) buffer into dst as a C string,
 * cut to size-1 bytes. Returns the length copied. For parsers that hand a
 * slice of /proc text to sscanf/strtol. */
size_t copy_cstr(char *dst, size_t size, const char *src, size_t len);
/* Copy at most size-1 bytes, always terminating. Returns strlen(dst). */
size_t strlcpy_ps(char *dst, const char *src, size_t size);
/* s as one POSIX shell word, into out: as is when it holds only
 * characters no shell treats specially, else in single quotes (a quote
 * inside as '\''). A word that does not fit is cut (size > 0). */
const char *shell_word(const char *s, char *out, size_t size);
/* Make room for one more element in a growing array (*v holds n of *cap
 * elements of elem bytes; it doubles, starting at first). 0 or -ENOMEM. */
int array_reserve(void **v, size_t *cap, size_t n, size_t elem, size_t first);
/* qsort(v, n, size, cmp), also for an empty array whose v is NULL
 * (qsort's arguments must not be NULL even for n = 0). */
void sort_array(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* len bytes of t (a line of source text) into buf with each tab as
 * spaces to the next multiple of 8 columns, NUL-terminated, cut to fit
 * size. Returns buf. */
const char *untab(char *buf, size_t size, const char *t, size_t len);
/* Human size "1.5G", "340M", "12K" into buf. */
const char *human_bytes(unsigned long long bytes, char *buf, size_t size);
/* A size in KiB as htop's meters write it: K without decimals, then M, G...
 * with two decimals under 10, one under 100, none above ("306M", "23.5G",
 * "1.25G"). */
const char *human_kib(unsigned long long kib, char *buf, size_t size);

/* A shared library opened (dlopen) at its first use rather than linked, for
 * what most runs never need: linked, it would be mapped and relocated at
 * every start (resident memory of the process list). Define one statically
 * with its soname, the Debian package that has it, and its functions:
 *     static struct lazy_lib l = { .soname = "libz.so.1", .package = "zlib1g",
 *                                  .syms = syms, .lock = PTHREAD_MUTEX_INITIALIZER };
 * where syms lists { "name", (void **)&fn } and ends with { NULL, NULL }. */
struct lazy_sym {
	const char *name;
	void **slot;                   /* the function pointer to set */
};
struct lazy_lib {
	const char *soname, *package;
	const struct lazy_sym *syms;
	pthread_mutex_t lock;
	atomic_bool done;              /* tried: ok and why are final */
	bool ok;
	char why[200];                 /* dlerror() when not ok */
};
/* Open l (once, thread-safe) and set its functions: true when every one
 * was found; false with l->why set otherwise. Kept open for the run. */
bool lazy_lib_open(struct lazy_lib *l);

/* Test hook: with PSCOPE_TEST_PAUSE=STEP in the environment, print
 * "pscope: paused at STEP" on stderr and wait at that named step: until
 * the file PSCOPE_TEST_PAUSE_FILE exists (at most 30 s), else for
 * PSCOPE_TEST_PAUSE_MS (default 30 s). Steps: clone-ready (registers
 * set, signals blocked), clone-running (resumed into the clone, not yet
 * waited for), clone-exit, restored, read (after the release), kill-child,
 * reap-ready (the reaping thread stopped and prepared) in the core
 * writer; before-freeze (the target opened, not yet stopped) in the stack
 * dump and the core writer; sampling (the events opened) in pscope top. */
void ps_test_pause(const char *step);

#endif
