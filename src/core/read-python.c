/* CPython frames from a core: the Python reader (src/python) over the
 * core's memory. The interpreter is found as for a live process, from the
 * core's files (NT_FILE, under --exe and --sysroot); the frame chains are
 * read from the PT_LOAD segments, with read-only file pages the core left
 * out read from the mapped files, as gdb does. */
#include "core/read-python.h"
#include "sym/sym.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int core_py_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	if (!len)
		return 0;
	if (len > PY_MEM_MAX_READ)
		return -EFAULT;
	return core_read_mem(arg, addr, buf, len, true) == len ? 0 : -EFAULT;
}

void core_py_mem(struct core *c, struct py_mem *m)
{
	m->read = core_py_read;
	m->arg = c;
}

/* The maps of the core name the files as they are opened (disk paths). */
static int open_disk(void *arg, const struct proc_map *m)
{
	(void)arg;
	int fd = sym_open_regular(AT_FDCWD, m->path);
	return fd >= 0 ? fd : -1;
}

static const char *exe_path(const struct core *c)
{
	for (size_t i = 0; i < c->n_mods; i++)
		if (c->mods[i].is_exe)
			return c->mods[i].disk_path;
	return NULL;
}

const struct stk_py_in *core_python(struct core *c, const char *maps_text, struct stk_dump *d, struct core_py *cp)
{
	struct py_files f = { .exe = exe_path(c), .open = open_disk };
	struct ps_error pe;
	uint64_t t0 = now_ns();

	memset(cp, 0, sizeof(*cp));
	ps_error_clear(&pe);
	core_py_mem(c, &cp->mem);
	int r = py_detect_files(c->info.pid, maps_text, strlen(maps_text), &f, &cp->mem, &cp->py, &pe);
	if (r == -ENOENT)
		return NULL; /* not CPython: native frames, nothing to say */
	if (cp->py)
		strlcpy_ps(d->py_version, py_version(cp->py), sizeof(d->py_version));
	if (r == 0)
		r = py_snapshot_take(cp->py, &cp->mem, NULL, &cp->snap, &pe);
	if (r < 0) {
		strlcpy_ps(d->py_error, pe.msg, sizeof(d->py_error));
		core_python_done(cp);
		return NULL;
	}
	d->py_read_ms = (double)(now_ns() - t0) / 1e6;
	cp->in = (struct stk_py_in){ cp->py, &cp->snap, &cp->mem };
	d->py = cp->py; /* the dump owns it (its code objects) */
	cp->py = NULL;
	return &cp->in;
}

void core_python_done(struct core_py *cp)
{
	py_proc_free(cp->py);
	py_snapshot_free(&cp->snap);
	cp->py = NULL;
}
