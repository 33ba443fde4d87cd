/* Small I/O helpers shared by the /proc readers and backends. */
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Read a whole file relative to dirfd into buf (NUL-terminated, at most
 * size-1 bytes). Returns bytes read or -errno. */
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size);
/* Same, growing *buf (malloc'd, *cap updated) until the file fits. */
ssize_t read_file_alloc_at(int dirfd, const char *path, char **buf, size_t *cap);
/* Read a single integer from a file such as /proc/sys/kernel/perf_event_paranoid.
 * Returns 0 and sets *out, or -errno (-ENOENT when absent). */
int read_long_file(const char *path, long *out);
/* Open /proc/PID as a directory fd (O_PATH is not enough for openat reads). */
int proc_open_pid(pid_t pid);
int proc_open_task(pid_t pid, pid_t tid);
/* Monotonic clock in nanoseconds / seconds. */
uint64_t now_ns(void);
double now_s(void);
/* Copy len bytes of a (not NUL-terminated) buffer into dst as a C string,
 * cut to size-1 bytes. Returns the length copied. For parsers that hand a
 * slice of /proc text to sscanf/strtol. */
size_t copy_cstr(char *dst, size_t size, const char *src, size_t len);
/* Copy at most size-1 bytes, always terminating. Returns strlen(dst). */
size_t strlcpy_ps(char *dst, const char *src, size_t size);
/* Make room for one more element in a growing array (*v holds n of *cap
 * elements of elem bytes; it doubles, starting at first). 0 or -ENOMEM. */
int array_reserve(void **v, size_t *cap, size_t n, size_t elem, size_t first);
/* Human size "1.5G", "340M", "12K" into buf. */
const char *human_bytes(unsigned long long bytes, char *buf, size_t size);

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
