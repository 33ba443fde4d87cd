/* The CPython reader over hostile memory (a core's or a process's): the
 * input is the whole address space, with _PyRuntime at its start. Its
 * first byte picks the version (3.9 to 3.13; 3.13 reads its
 * _Py_DebugOffsets from the input) and how the rest is mapped: at 0x10000
 * with everything else unreadable, or repeated over the whole user half
 * (every pointer the walker follows then lands in the input, so the deep
 * paths — chains, loops, code objects, line tables — are reached).
 * The thread states, frame chains, code objects, line tables, thread
 * names and the threading.Lock objects in the frames are walked as
 * `pscope stack` walks them: any answer is fine, a crash, a hang or a
 * leak is not.
 * fuzz-seeds: */
#include "fuzz.h"
#include "python/internal.h"

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
	if (addr < 4096 || addr >= 0x800000000000ull || len > PY_MEM_MAX_READ)
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
	if (size < 2)
		return 0;
	char *p = fuzz_copy(data + 1, size - 1);
	struct image im = { (const unsigned char *)p, size - 1, data[0] & 0x80 };
	struct py_mem m = { image_read, &im };
	struct py_proc *py = calloc(1, sizeof(*py));
	struct py_snapshot s = { 0 };
	struct ps_error e;
	int minor = 9 + (data[0] & 0x7f) % 5;

	py->minor = minor;
	py->runtime = BASE;
	py->tid_off = -1;
	if (minor == 13) {
		if (im.n < 8 * 80 || py_layout_from_debug(im.p, 8 * 80, 13, &py->L) < 0)
			goto out;
	} else {
		py->L = *py_layout_table(minor);
	}
	/* The types, when the image is big enough to hold them. */
	if (im.n > 0x1000) {
		py->code_type = BASE + 0x800;
		py->unicode_type = BASE + 0xc00;
	}
	if (py_snapshot_take(py, &m, NULL, &s, &e) == 0) {
		for (size_t k = 0; k < s.pool_n; k++) {
			const struct py_code *c = py_code_get(py, &m, s.pool[k].code);
			if (c)
				py_code_line(py, c, s.pool[k].lasti);
		}
		py_thread_names_load(py, &m);
		for (size_t t = 0; t < s.n; t++) {
			struct py_lock_ref refs[8];
			py_thread_name(py, s.threads[t].thread_id);
			/* The threading.Lock objects of its frames (3.11+). */
			py_lock_refs(py, &m, &s.threads[t], refs, 8);
		}
	}
out:
	py_snapshot_free(&s);
	py_proc_free(py);
	free(p);
	return 0;
}
