/* The Go goroutine walk over hostile memory (a process's): the input is
 * the address space, runtime.allgs at its start and
 * runtime.waitReasonStrings 16 bytes on, with Go 1.19's offsets of
 * runtime.g, gobuf and m; its first byte says how it is mapped: once at
 * 0x10000, everything else unreadable, or repeated over the whole user
 * half (every pointer lands in the input, so the g structures, the wait
 * reasons and the frame-pointer chains are reached). Any answer is fine;
 * a crash, a hang or a leak is not.
 * fuzz-seeds: */
#include "fuzz.h"
#include "golang/golang.h"

#include <errno.h>

#define BASE 0x10000ull

struct image {
	const unsigned char *p;
	size_t n;
	bool wrap;
};

static int image_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct image *im = arg;
	unsigned char *out = buf;

	if (!im->wrap) {
		if (addr < BASE || addr - BASE > im->n || len > im->n - (addr - BASE))
			return -EFAULT;
		memcpy(buf, im->p + (addr - BASE), len);
		return 0;
	}
	if (addr < 4096 || addr >= 0x800000000000ull || len > 65536)
		return -EFAULT;
	size_t off = (size_t)((addr - BASE) % im->n);
	while (len) {
		size_t k = im->n - off < len ? im->n - off : len;
		memcpy(out, im->p + off, k);
		out += k;
		len -= k;
		off = 0;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Go 1.19 on x86-64 (its DWARF): g.sched 56, atomicstatus 144, goid
	 * 152, waitreason 176, m 48; gobuf sp 0, pc 8, bp 48; m.procid 72. */
	static const struct go_layout L = { 56, 144, 152, 176, 48, 0, 8, 48, 72, 1 };
	struct go_list l;
	struct ps_error e;

	if (size < 2)
		return 0;
	char *p = fuzz_copy(data + 1, size - 1);
	struct image im = { (const unsigned char *)p, size - 1, data[0] & 1 };
	struct go_mem m = { image_read, &im };
	/* 256 goroutines at most: the cap's own code, at a fuzzer's pace */
	if (go_walk(&L, BASE, BASE + 16, (data[0] >> 1) * 16, 256, &m, &l, &e) == 0) {
		for (size_t i = 0; i < l.n; i++)
			go_state_name(l.g[i].status);
		go_list_free(&l);
	}
	free(p);
	return 0;
}
