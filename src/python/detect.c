/* Finding CPython in a process: the executable or a mapped libpython3.X.so
 * that defines _PyRuntime (.dynsym, else .symtab), and its version (the
 * 3.13+ _Py_DebugOffsets cookie, else Py_Version, else the file name). */
#include "python/internal.h"
#include "i18n.h"
#include "proc/maps.h"
#include "sym/sym.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct elf_syms {
	uint64_t runtime, version, code_type, unicode_type; /* st_value, 0 if absent */
	uint64_t runtime_size;
	uint64_t first_load_vaddr;
	bool dyn;                     /* ET_DYN: add the load bias */
};

static void scan_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct elf_syms *s)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (!data)
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || (name[0] != '_' && name[0] != 'P'))
			continue;
		if (!strcmp(name, "_PyRuntime") && !s->runtime) {
			s->runtime = sym.st_value;
			s->runtime_size = sym.st_size;
		} else if (!strcmp(name, "Py_Version") && !s->version) {
			s->version = sym.st_value;
		} else if (!strcmp(name, "PyCode_Type") && !s->code_type) {
			s->code_type = sym.st_value;
		} else if (!strcmp(name, "PyUnicode_Type") && !s->unicode_type) {
			s->unicode_type = sym.st_value;
		}
	}
}

/* Read the symbols of one ELF file. 0, or -errno / -ENOEXEC. */
static int elf_read_syms(int fd, struct elf_syms *s)
{
	Elf *elf;
	GElf_Ehdr eh;
	size_t nph;

	memset(s, 0, sizeof(*s));
	elf_version(EV_CURRENT);
	/* Read (pread into private memory), not mapped: the file belongs to
	 * the target's user, who may cut it short while it is read (a
	 * mapping would raise SIGBUS; see src/sym/file.c). */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) < 0) {
		elf_end(elf);
		return -ENOEXEC;
	}
	s->dyn = eh.e_type == ET_DYN;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			s->first_load_vaddr = ph.p_vaddr - ph.p_offset;
			break;
		}
	}
	for (int pass = 0; pass < 2 && !s->runtime; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			if (sh.sh_type == (pass == 0 ? SHT_DYNSYM : SHT_SYMTAB))
				scan_symtab(elf, scn, &sh, s);
		}
	}
	elf_end(elf);
	return 0;
}

/* "python3.11", "libpython3.9.so.1.0", "python2.7" -> 3 and 11 etc. */
static bool version_from_name(const char *path, int *major, int *minor, bool *free_threaded)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(base, "lib", 3))
		base += 3;
	if (strncmp(base, "python", 6))
		return false;
	base += 6;
	int ma, mi, n = 0;
	if (sscanf(base, "%d.%d%n", &ma, &mi, &n) != 2)
		return false;
	*major = ma;
	*minor = mi;
	*free_threaded = base[n] == 't';
	return true;
}

static bool python_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strncmp(base, "python", 6) || !strncmp(base, "libpython", 9);
}

/* Open a mapped file as the process sees it: a regular file only (a FIFO
 * or a device its mount namespace put at the path is never opened,
 * sym/file.c), and the mapped one (its inode), else the mapping's own
 * file through map_files. */
static int open_one(const char *path, const struct proc_map *m)
{
	struct stat st;
	int fd = sym_open_regular(AT_FDCWD, path);

	if (fd >= 0 && (fstat(fd, &st) < 0 || (m->inode && st.st_ino != m->inode))) {
		close(fd);
		fd = -1;
	}
	return fd >= 0 ? fd : -1;
}

static int open_mapped(void *arg, const struct proc_map *m)
{
	pid_t pid = *(pid_t *)arg;
	char p[PATH_MAX + 64];
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/root%s", (int)pid, m->path);
	fd = open_one(p, m);
	if (fd >= 0)
		return fd;
	snprintf(p, sizeof(p), "/proc/%d/map_files/%llx-%llx", (int)pid, m->start, m->end);
	return open_one(p, m);
}

static int found(pid_t pid, const struct proc_maps *maps, size_t mi, const struct elf_syms *s, const struct py_mem *m,
		 struct py_proc **out, struct ps_error *e)
{
	const struct proc_map *map = &maps->v[mi];
	uint64_t bias = 0;
	int major = 0, minor = -1;
	bool ft = false, by_name;
	unsigned char dbg[8 * 80];

	if (s->dyn) {
		/* The lowest mapping of this file is its first PT_LOAD page. */
		uint64_t lo = map->start - map->offset;
		for (size_t i = 0; i < maps->n; i++)
			if (!strcmp(maps->v[i].path, map->path) && maps->v[i].inode == map->inode &&
			    maps->v[i].start - maps->v[i].offset < lo)
				lo = maps->v[i].start - maps->v[i].offset;
		bias = lo - s->first_load_vaddr;
	}
	uint64_t runtime = s->runtime + bias;
	by_name = version_from_name(map->path, &major, &minor, &ft);

	/* 3.13+: the debug offsets cookie. */
	int rc = m->read(m->arg, runtime, dbg, sizeof(dbg));
	if (rc == -EPERM || rc == -EACCES)
		return ps_error_set(e, -rc, _("cannot read the memory of process %d: %s"), (int)pid, strerror(-rc));
	if (rc < 0)
		return ps_error_set(e, EPROTO, _("not a readable CPython: _PyRuntime at 0x%llx cannot be read (%s)"),
				    (unsigned long long)runtime, strerror(-rc));
	uint64_t hex = 0;
	if (!memcmp(dbg, "xdebugpy", 8)) {
		uint64_t fthr;
		memcpy(&hex, dbg + 8, 8);
		memcpy(&fthr, dbg + 16, 8);
		ft = fthr != 0;
	} else if (s->version) {
		uint32_t v;
		if (m->read(m->arg, s->version + bias, &v, sizeof(v)) == 0)
			hex = v;
	}
	if (hex) {
		major = (int)((hex >> 24) & 0xff);
		minor = (int)((hex >> 16) & 0xff);
	} else if (!by_name) {
		return ps_error_set(e, EPROTO, _("not a readable CPython: _PyRuntime found but no version "
				    "(no debug offsets, no Py_Version, file name not pythonX.Y)"));
	}
	if (major != 3 || minor < 9 || minor > 13)
		return ps_error_set(e, ENOTSUP, _("CPython %d.%d is not supported: native frames only"), major, minor);
	if (ft)
		return ps_error_set(e, ENOTSUP, _("CPython %d.%d free-threaded build is not supported: native frames only"),
				    major, minor);

	struct py_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	p->pid = pid;
	p->minor = minor;
	p->runtime = runtime;
	p->code_type = s->code_type ? s->code_type + bias : 0;
	p->unicode_type = s->unicode_type ? s->unicode_type + bias : 0;
	p->tid_off = -1;
	strlcpy_ps(p->module, map->path, sizeof(p->module));
	if (hex)
		snprintf(p->version, sizeof(p->version), "%d.%d.%d", major, minor, (int)((hex >> 8) & 0xff));
	else
		snprintf(p->version, sizeof(p->version), "%d.%d", major, minor);
	if (minor >= 13) {
		if (py_layout_from_debug(dbg, sizeof(dbg), minor, &p->L) < 0) {
			free(p);
			return ps_error_set(e, EPROTO, _("not a readable CPython: its _Py_DebugOffsets make no sense"));
		}
	} else {
		p->L = *py_layout_table(minor);
	}
	*out = p;
	return 0;
}

int py_detect_files(pid_t pid, const char *maps_text, size_t maps_len, const struct py_files *f,
		    const struct py_mem *m, struct py_proc **out, struct ps_error *e)
{
	struct proc_maps maps = { 0 };
	const char *last = "", *exe = f->exe ? f->exe : "";
	int rc = -ENOENT;
	int major = 0, minor = 0;
	bool ft = false, old = false;

	*out = NULL;
	if (proc_maps_parse(maps_text, maps_len, false, &maps) < 0)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	for (size_t i = 0; i < maps.n && rc == -ENOENT; i++) {
		const struct proc_map *map = &maps.v[i];
		if (map->path[0] != '/' || !strcmp(map->path, last))
			continue;
		last = map->path;
		if (strcmp(map->path, exe) && !python_name(map->path))
			continue;
		int fd = f->open(f->arg, map);
		if (fd < 0)
			continue;
		struct elf_syms s;
		int r = elf_read_syms(fd, &s);
		close(fd);
		if (r < 0)
			continue;
		if (!s.runtime) {
			/* 2.7 and 3.6 have no _PyRuntime: say what they are. */
			if (version_from_name(map->path, &major, &minor, &ft) && (major != 3 || minor < 7))
				old = true;
			continue;
		}
		rc = found(pid, &maps, i, &s, m, out, e);
	}
	proc_maps_free(&maps);
	if (rc == -ENOENT) {
		if (old)
			return ps_error_set(e, ENOTSUP, _("CPython %d.%d is not supported: native frames only"), major,
					    minor);
		return ps_error_set(e, ENOENT, _("not a CPython process (no _PyRuntime)"));
	}
	return rc;
}

int py_detect(pid_t pid, const char *maps_text, size_t maps_len, const struct py_mem *m, struct py_proc **out,
	      struct ps_error *e)
{
	char exe[PATH_MAX], link[64];

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	struct py_files f = { .exe = exe, .open = open_mapped, .arg = &pid };
	return py_detect_files(pid, maps_text, maps_len, &f, m, out, e);
}

const char *py_version(const struct py_proc *p)
{
	return p->version;
}

int py_minor(const struct py_proc *p)
{
	return p->minor;
}
