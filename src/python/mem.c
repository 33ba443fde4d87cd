/* Memory readers for the CPython walker: a live process and a page cache
 * over any reader (see python.h). */
#include "python/python.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* The user half of the x86-64 address space (47 bits). */
#define USER_TOP 0x800000000000ull

static int live_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = *(pid_t *)arg;

	if (!len)
		return 0;
	if (len > PY_MEM_MAX_READ || addr < 4096 || addr >= USER_TOP || USER_TOP - addr < len)
		return -EFAULT;
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

void py_mem_live(struct py_mem *m, pid_t *pid)
{
	m->read = live_read;
	m->arg = pid;
}

enum { PAGE = 4096, NO_PAGE = 1 };

struct py_cache {
	struct py_mem under;
	size_t max;
	uint64_t *addr;          /* page address per slot; NO_PAGE: empty; |2: unreadable */
	unsigned char *data;
	size_t hits, misses;
};

struct py_cache *py_cache_new(const struct py_mem *under, size_t max_pages)
{
	struct py_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (max_pages < 16)
		max_pages = 16;
	c->under = *under;
	c->max = max_pages;
	c->addr = malloc(max_pages * sizeof(*c->addr));
	c->data = malloc(max_pages * PAGE);
	if (!c->addr || !c->data) {
		py_cache_free(c);
		return NULL;
	}
	py_cache_reset(c);
	return c;
}

void py_cache_reset(struct py_cache *c)
{
	for (size_t i = 0; i < c->max; i++)
		c->addr[i] = NO_PAGE;
}

/* The slot of page pg (direct mapped by page number), read on a miss.
 * NULL when that page cannot be read. */
static const unsigned char *page(struct py_cache *c, uint64_t pg)
{
	size_t slot = (size_t)((pg / PAGE) % c->max);
	unsigned char *d = c->data + slot * PAGE;

	if (c->addr[slot] == pg)
		return d;
	if (c->addr[slot] == (pg | 2))
		return NULL;
	c->misses++;
	if (c->under.read(c->under.arg, pg, d, PAGE) < 0) {
		c->addr[slot] = pg | 2;
		return NULL;
	}
	c->addr[slot] = pg;
	return d;
}

static int cache_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct py_cache *c = arg;
	unsigned char *out = buf;

	if (len > PY_MEM_MAX_READ || addr < 4096 || addr >= USER_TOP || USER_TOP - addr < len)
		return -EFAULT;
	/* Big reads bypass the cache. */
	if (len > 2 * PAGE)
		return c->under.read(c->under.arg, addr, buf, len);
	while (len) {
		uint64_t pg = addr & ~(uint64_t)(PAGE - 1);
		size_t off = (size_t)(addr - pg), n = PAGE - off < len ? PAGE - off : len;
		const unsigned char *d = page(c, pg);
		if (!d) {
			/* The page as a whole failed (e.g. the end of a mapping
			 * inside it): try the exact range. */
			if (c->under.read(c->under.arg, addr, out, n) < 0)
				return -EFAULT;
		} else {
			memcpy(out, d + off, n);
		}
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

void py_cache_mem(struct py_cache *c, struct py_mem *out)
{
	out->read = cache_read;
	out->arg = c;
}

void py_cache_free(struct py_cache *c)
{
	if (!c)
		return;
	free(c->addr);
	free(c->data);
	free(c);
}
