/* Code objects (cached per process by address), their strings and line
 * numbers, and the kernel tid behind a pthread_t. */
#include "python/internal.h"
#include "python/decode.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_CP 1024        /* code points kept of a name or file name */
#define LINETABLE_MAX (1 << 20)  /* bytes of a line table */
#define CODES_MAX (1 << 18)      /* cached code objects before the cache is flushed */

char *py_read_unicode(const struct py_proc *p, const struct py_mem *m, uint64_t addr, size_t max)
{
	const struct py_layout *L = &p->L;
	unsigned char hdr[128];
	uint64_t type, length;
	uint32_t state;

	if (!py_ptr_ok(addr) || L->u_compact_size > sizeof(hdr) || m->read(m->arg, addr, hdr, L->u_compact_size) < 0)
		return NULL;
	memcpy(&type, hdr + 8, 8);
	if (p->unicode_type && type != p->unicode_type)
		return NULL;
	memcpy(&length, hdr + L->u_length, 8);
	memcpy(&state, hdr + L->u_state, 4);
	unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1) || length > (1u << 30))
		return NULL;
	size_t n = length < max ? (size_t)length : max;
	void *data = malloc(n * kind + 1);
	char *out = malloc(n * 4 + 1);
	if (!data || !out || (n && m->read(m->arg, addr + (ascii ? L->u_ascii_size : L->u_compact_size), data,
					   n * kind) < 0)) {
		free(data);
		free(out);
		return NULL;
	}
	py_unicode_to_utf8(data, n, kind, out, n * 4 + 1);
	free(data);
	return out;
}

static unsigned char *read_bytes(const struct py_proc *p, const struct py_mem *m, uint64_t addr, size_t *len)
{
	const struct py_layout *L = &p->L;
	int64_t size;

	*len = 0;
	if (!py_ptr_ok(addr) || m->read(m->arg, addr + L->bytes_size, &size, 8) < 0 || size < 0 || size > LINETABLE_MAX)
		return NULL;
	unsigned char *b = malloc((size_t)size + 1);
	if (!b)
		return NULL;
	for (int64_t off = 0; off < size; off += PY_MEM_MAX_READ) {
		size_t n = (size_t)(size - off) < PY_MEM_MAX_READ ? (size_t)(size - off) : PY_MEM_MAX_READ;
		if (m->read(m->arg, addr + L->bytes_sval + (uint64_t)off, b + off, n) < 0) {
			free(b);
			return NULL;
		}
	}
	*len = (size_t)size;
	return b;
}

static void codes_clear(struct py_proc *p)
{
	uint64_t k, v;

	for (size_t at = 0; hmap_next(&p->codes, &at, &k, &v);) {
		struct py_code *c = (struct py_code *)(uintptr_t)v;
		free(c->name);
		free(c->qualname);
		free(c->file);
		free(c->linetable);
		free(c);
	}
	hmap_clear(&p->codes);
}

static void read_code(struct py_proc *p, const struct py_mem *m, struct py_code *c)
{
	const struct py_layout *L = &p->L;
	unsigned char hdr[256];
	size_t span = L->co_linetable;
	uint64_t type, name, qual = 0, file, lt;
	int32_t first;

	span = span > L->co_name ? span : L->co_name;
	span = span > L->co_filename ? span : L->co_filename;
	span = span > L->co_qualname ? span : L->co_qualname;
	span += 8;
	if (span > sizeof(hdr) || m->read(m->arg, c->addr, hdr, span) < 0)
		goto bad;
	memcpy(&type, hdr + 8, 8);
	if (p->code_type && type != p->code_type)
		goto bad;
	memcpy(&name, hdr + L->co_name, 8);
	memcpy(&file, hdr + L->co_filename, 8);
	memcpy(&lt, hdr + L->co_linetable, 8);
	memcpy(&first, hdr + L->co_firstlineno, 4);
	if (L->co_qualname)
		memcpy(&qual, hdr + L->co_qualname, 8);
	c->name = py_read_unicode(p, m, name, NAME_MAX_CP);
	c->file = py_read_unicode(p, m, file, NAME_MAX_CP);
	c->qualname = qual ? py_read_unicode(p, m, qual, NAME_MAX_CP) : NULL;
	if (!c->name || !c->file)
		goto bad;
	if (!c->qualname)
		c->qualname = strdup(c->name);
	c->firstlineno = first > 0 ? first : 0;
	c->linetable = read_bytes(p, m, lt, &c->linetable_len);
	if (c->qualname)
		return;
bad:
	free(c->name);
	free(c->file);
	free(c->qualname);
	c->name = strdup("?");
	c->qualname = strdup("?");
	c->file = strdup("?");
	c->bad = true;
}

const struct py_code *py_code_get(struct py_proc *p, const struct py_mem *m, uint64_t addr)
{
	struct py_code *c = hmap_get_ptr(&p->codes, addr);

	if (c)
		return c;
	if (p->codes.n >= CODES_MAX)
		codes_clear(p);
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->addr = addr;
	read_code(p, m, c);
	if (!c->name || !c->qualname || !c->file || hmap_put_ptr(&p->codes, addr, c) < 0) {
		free(c->name);
		free(c->qualname);
		free(c->file);
		free(c->linetable);
		free(c);
		return NULL;
	}
	return c;
}

int py_code_line(const struct py_proc *p, const struct py_code *c, int32_t lasti)
{
	if (c->bad)
		return 0;
	return py_line_for(p->L.lines, c->linetable, c->linetable_len, c->firstlineno, lasti);
}

/* The tids of the process, for finding the tid field of struct pthread. */
static size_t task_tids(pid_t pid, pid_t *out, size_t max)
{
	char path[64];
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		long t = strtol(de->d_name, NULL, 10);
		if (t > 0)
			out[n++] = (pid_t)t;
	}
	closedir(d);
	return n;
}

pid_t py_pthread_tid(struct py_proc *p, const struct py_mem *m, uint64_t thread_id)
{
	enum { SPAN = 2048 };

	if (!py_ptr_ok(thread_id) || p->tid_off == -2)
		return 0;
	if (p->tid_off < 0) {
		/* glibc's struct pthread starts with its TCB (self pointers at
		 * 0 and 16); the tid follows at a fixed offset. Find it where
		 * a tid of this process sits. */
		unsigned char buf[SPAN];
		pid_t tids[4096];
		size_t nt = task_tids(p->pid, tids, 4096);
		uint64_t self0, self16;
		if (m->read(m->arg, thread_id, buf, SPAN) < 0)
			return 0;
		memcpy(&self0, buf, 8);
		memcpy(&self16, buf + 16, 8);
		if (self0 != thread_id || self16 != thread_id) {
			p->tid_off = -2;
			return 0;
		}
		for (int off = 24; off + 4 <= SPAN && p->tid_off < 0; off += 4) {
			int32_t v;
			memcpy(&v, buf + off, 4);
			for (size_t i = 0; i < nt && v > 0; i++)
				if (tids[i] == v) {
					p->tid_off = off;
					break;
				}
		}
		if (p->tid_off < 0) {
			p->tid_off = -2;
			return 0;
		}
	}
	int32_t tid;
	if (m->read(m->arg, thread_id + (uint64_t)p->tid_off, &tid, 4) < 0 || tid <= 0)
		return 0;
	return tid;
}

void py_proc_free(struct py_proc *p)
{
	if (!p)
		return;
	codes_clear(p);
	hmap_free(&p->codes);
	for (size_t i = 0; i < p->n_names; i++)
		free(p->names[i].name);
	free(p->names);
	free(p);
}
