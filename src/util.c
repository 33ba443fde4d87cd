#include "util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Read from fd into buf[0..size) until EOF or full; returns bytes or -errno. */
static ssize_t read_some(int fd, char *buf, size_t size)
{
	size_t off = 0;

	while (off < size) {
		ssize_t n = read(fd, buf + off, size - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	return (ssize_t)off;
}

ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read_some(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

ssize_t read_file_alloc_at(int dirfd, const char *path, char **buf, size_t *cap)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (!*buf || off + 1 >= *cap) {
			size_t ncap = *buf && *cap >= 4096 ? *cap * 2 : 4096;
			char *nb = realloc(*buf, ncap);
			if (!nb) {
				close(fd);
				return -ENOMEM;
			}
			*buf = nb;
			*cap = ncap;
		}
		ssize_t n = read_some(fd, *buf + off, *cap - 1 - off);
		if (n < 0) {
			close(fd);
			return n;
		}
		off += (size_t)n;
		if (off + 1 < *cap)
			break; /* short read: end of file */
	}
	(*buf)[off] = '\0';
	close(fd);
	return (ssize_t)off;
}

int read_long_file(const char *path, long *out)
{
	char buf[64];
	ssize_t n = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
	char *end;

	if (n < 0)
		return (int)n;
	errno = 0;
	*out = strtol(buf, &end, 10);
	if (end == buf || errno)
		return -EINVAL;
	return 0;
}

int proc_open_pid(pid_t pid)
{
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int proc_open_task(pid_t pid, pid_t tid)
{
	char path[48];
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double now_s(void)
{
	return (double)now_ns() / 1e9;
}

size_t copy_cstr(char *dst, size_t size, const char *src, size_t len)
{
	size_t n = len < size - 1 ? len : size - 1;

	memcpy(dst, src, n);
	dst[n] = '\0';
	return n;
}

void sort_array(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

const char *untab(char *buf, size_t size, const char *t, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 9 < size; i++) {
		if (t[i] == '\t')
			do
				buf[o++] = ' ';
			while (o % 8);
		else
			buf[o++] = t[i];
	}
	if (size)
		buf[o] = 0;
	return buf;
}

size_t strlcpy_ps(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);
	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
		return n;
	}
	return 0;
}

int array_reserve(void **v, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : first;
	void *nv = realloc(*v, nc * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

const char *human_bytes(unsigned long long bytes, char *buf, size_t size)
{
	static const char units[] = "BKMGTP";
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%lluB", bytes);
	else if (v < 10)
		snprintf(buf, size, "%.1f%c", v, units[u]);
	else
		snprintf(buf, size, "%.0f%c", v, units[u]);
	return buf;
}

const char *human_kib(unsigned long long kib, char *buf, size_t size)
{
	static const char units[] = "KMGTPE";
	unsigned long long div = 1;
	int u = 0, prec = 0;

	while (u < 5 && kib / 1024 >= div) {
		div *= 1024;
		u++;
	}
	if (u > 0)
		prec = kib / div < 10 ? 2 : kib / div < 100 ? 1 : 0;
	snprintf(buf, size, "%.*f%c", prec, (double)kib / (double)div, units[u]);
	return buf;
}

void ps_test_pause(const char *step)
{
	const char *want = getenv("PSCOPE_TEST_PAUSE");

	if (!want || strcmp(want, step))
		return;
	const char *file = getenv("PSCOPE_TEST_PAUSE_FILE");
	const char *ms = getenv("PSCOPE_TEST_PAUSE_MS");
	long t = ms ? atol(ms) : 30000;
	fprintf(stderr, "pscope: paused at %s\n", step);
	fflush(stderr);
	if (file) {
		for (int i = 0; i < 3000 && access(file, F_OK) != 0; i++) {
			struct timespec ts = { 0, 10 * 1000000L };
			nanosleep(&ts, NULL);
		}
		return;
	}
	struct timespec ts = { t / 1000, (t % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

bool lazy_lib_open(struct lazy_lib *l)
{
	if (atomic_load_explicit(&l->done, memory_order_acquire))
		return l->ok;
	pthread_mutex_lock(&l->lock);
	if (!atomic_load_explicit(&l->done, memory_order_relaxed)) {
		void *h = dlopen(l->soname, RTLD_LAZY | RTLD_LOCAL);
		const char *err = h ? NULL : dlerror();

		for (const struct lazy_sym *y = l->syms; h && y->name && !err; y++) {
			if (!(*y->slot = dlsym(h, y->name))) {
				const char *d = dlerror();
				err = d ? d : y->name;
			}
		}
		if (err) {
			snprintf(l->why, sizeof(l->why), "%s", err);
			if (h)
				dlclose(h);
		}
		l->ok = !err;
		atomic_store_explicit(&l->done, true, memory_order_release);
	}
	pthread_mutex_unlock(&l->lock);
	return l->ok;
}

const char *shell_word(const char *s, char *out, size_t size)
{
	size_t o = 0;
	bool plain = *s != '\0';

	for (const char *p = s; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || strchr("_./:@%+=,-", *p);
	if (plain) {
		strlcpy_ps(out, s, size);
		return out;
	}
#define PUT(ch) do { if (o + 1 < size) out[o++] = (ch); } while (0)
	PUT('\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			PUT('\'');
			PUT('\\');
			PUT('\'');
		}
		PUT(*p);
	}
	PUT('\'');
#undef PUT
	out[o] = '\0';
	return out;
}
