/* Perf ring buffers: mapping one (halving it while the perf mlock budget
 * refuses), a ring of our own per CPU that events are redirected into,
 * and the ring protocol: acquire-load data_head, copy each record out (it
 * may wrap at the end), release-store data_tail after the reads. */
#include "perf/perf.h"
#include "doors/doors.h"
#include "i18n.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int perf_ring_map(struct perf_ring *r, int fd, int cpu, size_t max_pages, struct ps_error *e)
{
	long page = sysconf(_SC_PAGESIZE);
	void *base = MAP_FAILED;
	size_t pages = max_pages;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	for (; pages >= 2; pages /= 2) {
		base = mmap(NULL, (pages + 1) * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base != MAP_FAILED)
			break;
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	if (base == MAP_FAILED)
		return door_perf_mmap_refused(e, errno, (pages < 2 ? 2 : pages) * (size_t)page);
	r->fd = fd;
	r->cpu = cpu;
	r->pg = base;
	r->data = (unsigned char *)base + page;
	r->map_len = (pages + 1) * (size_t)page;
	r->size = pages * (uint64_t)page;
	if (r->pg->data_size)
		r->size = r->pg->data_size;
	return 0;
}

int perf_ring_open(struct perf_ring *r, int cpu, bool exclude_kernel, size_t max_pages, pid_t door_pid,
		   struct ps_error *e)
{
	struct perf_event_attr d;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.type = PERF_TYPE_SOFTWARE;
	d.config = PERF_COUNT_SW_DUMMY;
	d.exclude_kernel = exclude_kernel;
	d.exclude_hv = 1;
	d.watermark = 1;
	/* On this thread: it never exits while we read, so the buffer
	 * outlives any target thread. */
	int fd = perf_open(&d, 0, cpu, -1);
	if (fd == -ENODEV || fd == -EINVAL || fd == -ENXIO)
		return -ENODEV; /* an offline CPU */
	if (fd < 0)
		return door_refused(e, PS_OP_SAMPLE, door_pid, -fd, _("open a perf ring buffer"));
	int rc = perf_ring_map(r, fd, cpu, max_pages, e);
	if (rc < 0)
		close(fd);
	return rc;
}

void perf_ring_close(struct perf_ring *r)
{
	if (r->pg)
		munmap(r->pg, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

void perf_ring_copy(const unsigned char *data, uint64_t size, uint64_t off, void *dst, size_t len)
{
	uint64_t at = off & (size - 1);
	size_t first = len;

	if (at + len > size)
		first = (size_t)(size - at);
	memcpy(dst, data + at, first);
	if (first < len)
		memcpy((unsigned char *)dst + first, data, len - first);
}

/* The complete records from data_tail up to head (acquired by the
 * caller): those of type (0: all) copied whole into scratch for fn; *n
 * counts the calls. */
static void walk(const struct perf_ring *r, uint64_t head, uint32_t type, unsigned char *scratch,
		     perf_record_fn *fn, void *ctx, size_t *n)
{
	uint64_t tail = r->pg->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		perf_ring_copy(r->data, r->size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break; /* corrupt or partial: never happens with a sane kernel */
		if (!type || h.type == type) {
			perf_ring_copy(r->data, r->size, tail, scratch, h.size);
			fn(ctx, (const struct perf_event_header *)scratch);
			(*n)++;
		}
		tail += h.size;
	}
}

size_t perf_ring_drain(struct perf_ring *r, unsigned char *scratch, perf_record_fn *fn, void *ctx)
{
	/* Acquire: the records below head are fully written once we see head. */
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	size_t n = 0;

	walk(r, head, 0, scratch, fn, ctx, &n);
	/* Release: the kernel may overwrite what we consumed only after our
	 * reads. Unparseable data is skipped rather than spun on. */
	__atomic_store_n(&r->pg->data_tail, head, __ATOMIC_RELEASE);
	return n;
}

size_t perf_ring_peek(const struct perf_ring *r, uint32_t type, unsigned char *scratch, perf_record_fn *fn,
		      void *ctx)
{
	size_t n = 0;

	walk(r, __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE), type, scratch, fn, ctx, &n);
	return n;
}
