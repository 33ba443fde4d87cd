/* The modules of a core (the files mapped with their ELF header, from
 * NT_FILE), each one's build-id from its note in the core's memory checked
 * against the file on disk, and the core's memory map in /proc/PID/maps
 * form for the unwinder and the symbolizer. */
#include "core/read.h"
#include "i18n.h"
#include "util.h"

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int core_modules_load(struct core *c, const struct core_open_opts *o);
void core_modules_free(struct core *c);

/* The build-id note of the ELF image whose header is at base, from the
 * core's memory only (a file fallback would check the file against itself). */
static size_t id_from_core(struct core *c, uint64_t base, unsigned char *id, size_t size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];

	if (core_read_mem(c, base, &eh, sizeof(eh), false) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 64)
		return 0;
	size_t phn = eh.e_phnum;
	if (core_read_mem(c, base + eh.e_phoff, ph, phn * sizeof(*ph), false) != phn * sizeof(*ph))
		return 0;
	uint64_t bias = 0;
	bool have = false;
	for (size_t i = 0; i < phn && !have; i++)
		if (ph[i].p_type == PT_LOAD) {
			bias = base - (ph[i].p_vaddr & ~0xfffull);
			have = true;
		}
	if (!have)
		return 0;
	for (size_t i = 0; i < phn; i++) {
		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > 4096)
			continue;
		unsigned char n[4096];
		size_t len = core_read_mem(c, bias + ph[i].p_vaddr, n, (size_t)ph[i].p_filesz, false);
		for (size_t off = 0; off + 12 <= len;) {
			Elf64_Nhdr nh;
			memcpy(&nh, n + off, sizeof(nh));
			size_t np = (nh.n_namesz + 3u) & ~3u, dp = (nh.n_descsz + 3u) & ~3u;
			off += 12;
			if (np > len - off || nh.n_descsz > len - off - np)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(n + off, "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= size) {
				memcpy(id, n + off + np, nh.n_descsz);
				return nh.n_descsz;
			}
			off += np + (dp < len - off - np ? dp : len - off - np);
		}
	}
	return 0;
}

static size_t id_from_file(const char *path, unsigned char *id, size_t size, int *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0) {
		*err = errno;
		return 0;
	}
	elf_version(EV_CURRENT);
	/* Read, not mapped: a file another user can cut short (SIGBUS). */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		const void *p;
		ssize_t l = dwelf_elf_gnu_build_id(elf, &p);
		if (l > 0 && (size_t)l <= size) {
			memcpy(id, p, (size_t)l);
			n = (size_t)l;
		}
		elf_end(elf);
	} else {
		*err = ENOEXEC;
	}
	close(fd);
	return n;
}

static int add_module(struct core *c, size_t *cap, const struct core_file_map *f)
{
	if (array_reserve((void **)&c->mods, cap, c->n_mods, sizeof(*c->mods), 16) < 0)
		return -ENOMEM;
	struct core_module *m = &c->mods[c->n_mods];
	memset(m, 0, sizeof(*m));
	m->path = strdup(f->path);
	if (!m->path)
		return -ENOMEM;
	m->base = f->start;
	m->end = f->end;
	c->n_mods++;
	return 0;
}

int core_modules_load(struct core *c, const struct core_open_opts *o)
{
	const struct core_info *ci = &c->info;
	size_t cap = 0;

	/* A module starts at the mapping of its file offset 0; the mappings
	 * of the same file right after it belong to it. */
	for (size_t i = 0; i < ci->n_files; i++) {
		const struct core_file_map *f = &ci->files[i];
		struct core_module *last = NULL;
		for (size_t k = c->n_mods; k-- > 0;)
			if (!strcmp(c->mods[k].path, f->path)) {
				last = &c->mods[k];
				break;
			}
		if (f->pgoff == 0 || !last) {
			if (add_module(c, &cap, f) < 0)
				return -ENOMEM;
		} else if (f->end > last->end) {
			last->end = f->end;
		}
	}
	/* The executable: the module holding AT_ENTRY, else the first one. */
	struct core_module *exe = c->n_mods ? &c->mods[0] : NULL;
	for (size_t i = 0; i < c->n_mods && ci->auxv_entry; i++)
		if (ci->auxv_entry >= c->mods[i].base && ci->auxv_entry < c->mods[i].end)
			exe = &c->mods[i];
	if (exe)
		exe->is_exe = true;
	for (size_t i = 0; i < c->n_mods; i++) {
		struct core_module *m = &c->mods[i];
		if (m->is_exe && o->exe)
			m->disk_path = strdup(o->exe);
		else if (o->sysroot && m->path[0] == '/') {
			size_t l = strlen(o->sysroot) + strlen(m->path) + 1;
			m->disk_path = malloc(l);
			if (m->disk_path)
				snprintf(m->disk_path, l, "%s%s", o->sysroot, m->path);
		} else {
			m->disk_path = strdup(m->path);
		}
		if (!m->disk_path)
			return -ENOMEM;
		m->id_core_len = id_from_core(c, m->base, m->id_core, sizeof(m->id_core));
		int err = 0;
		m->id_disk_len = id_from_file(m->disk_path, m->id_disk, sizeof(m->id_disk), &err);
		if (err) {
			m->status = CORE_MOD_MISSING;
			m->open_errno = err;
		} else if (!m->id_core_len || !m->id_disk_len) {
			m->status = CORE_MOD_NO_ID;
		} else if (m->id_core_len != m->id_disk_len || memcmp(m->id_core, m->id_disk, m->id_core_len)) {
			m->status = CORE_MOD_MISMATCH;
		} else {
			m->status = CORE_MOD_OK;
		}
	}
	/* [vdso] has no file: its image is in the core. */
	const struct core_segment *v = ci->auxv_vdso ? core_segment_at(c, ci->auxv_vdso) : NULL;
	if (v && v->avail == v->memsz) {
		c->vdso_start = v->vaddr;
		c->vdso_end = v->vaddr + v->memsz;
	}
	return 0;
}

void core_modules_free(struct core *c)
{
	for (size_t i = 0; i < c->n_mods; i++) {
		free(c->mods[i].path);
		free(c->mods[i].disk_path);
	}
	free(c->mods);
	c->mods = NULL;
	c->n_mods = 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

const char *core_module_problem(const struct core_module *m, char *buf, size_t size)
{
	const char *name = base_name(m->path);

	switch (m->status) {
	case CORE_MOD_MISMATCH:
		snprintf(buf, size, _("%s on disk is not the one that was mapped: frames in it may be wrong"), name);
		return buf;
	case CORE_MOD_MISSING:
		snprintf(buf, size, _("%s: cannot open %s (%s): frames in it are not named%s"), name, m->disk_path,
			 strerror(m->open_errno), m->is_exe ? _("; give the program with --exe") : "");
		return buf;
	default:
		return NULL;
	}
}

/* A path as /proc/PID/maps shows it: a newline would end the line. */
static void put_path(char **p, size_t *len, size_t *cap, const char *path)
{
	for (const char *s = path; *s; s++) {
		if (*len + 8 >= *cap) {
			size_t nc = *cap * 2;
			char *np = realloc(*p, nc);
			if (!np)
				return;
			*p = np;
			*cap = nc;
		}
		if (*s == '\n')
			*len += (size_t)sprintf(*p + *len, "\\012");
		else
			(*p)[(*len)++] = *s;
	}
}

/* Permissions of a file mapping the core has no segment for (gcore
 * leaves read-only file mappings out): from the file's program headers. */
static uint32_t file_flags(struct core *c, size_t fi)
{
	const struct core_file_map *f = &c->info.files[fi];
	int fd = core_file_fd(c, fi);
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
		return PF_R;
	size_t n = eh.e_phnum;
	if (pread(fd, ph, n * sizeof(*ph), (off_t)eh.e_phoff) != (ssize_t)(n * sizeof(*ph)))
		return PF_R;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && f->pgoff >= (ph[i].p_offset & ~0xfffull) &&
		    f->pgoff < ph[i].p_offset + ph[i].p_filesz)
			return ph[i].p_flags;
	return PF_R;
}

static bool put_line(char **p, size_t *len, size_t *cap, uint64_t start, uint64_t end, uint32_t flags,
		     uint64_t off, const char *path)
{
	if (*len + 256 >= *cap) {
		char *np = realloc(*p, *cap * 2);
		if (!np)
			return false;
		*p = np;
		*cap *= 2;
	}
	*len += (size_t)snprintf(*p + *len, *cap - *len, "%llx-%llx %c%c%cp %08llx 00:00 0 ", (unsigned long long)start,
				 (unsigned long long)end, flags & PF_R ? 'r' : '-', flags & PF_W ? 'w' : '-',
				 flags & PF_X ? 'x' : '-', (unsigned long long)off);
	if (path)
		put_path(p, len, cap, path);
	if (*len + 2 < *cap)
		(*p)[(*len)++] = '\n';
	return true;
}

static const char *disk_path(const struct core *c, const char *path)
{
	for (size_t i = 0; i < c->n_mods; i++)
		if (!strcmp(c->mods[i].path, path))
			return c->mods[i].disk_path;
	return path;
}

char *core_maps_text(struct core *c, bool disk_paths)
{
	const struct core_info *ci = &c->info;
	size_t cap = 4096, len = 0, k = 0;
	char *p = malloc(cap);

	if (!p)
		return NULL;
	/* The segments and the file mappings without a segment, by address. */
	for (size_t i = 0; i <= ci->n_segs; i++) {
		const struct core_segment *s = i < ci->n_segs ? &ci->segs[i] : NULL;
		for (; k < ci->n_files && (!s || ci->files[k].start < s->vaddr); k++) {
			const struct core_file_map *f = &ci->files[k];
			if (core_segment_at(c, f->start))
				continue;
			if (!put_line(&p, &len, &cap, f->start, f->end, file_flags(c, k), f->pgoff,
				      disk_paths ? disk_path(c, f->path) : f->path))
				goto out;
		}
		if (!s)
			break;
		const struct core_file_map *f = NULL;
		for (size_t j = 0; j < ci->n_files && !f; j++)
			if (s->vaddr >= ci->files[j].start && s->vaddr < ci->files[j].end)
				f = &ci->files[j];
		uint64_t end = s->vaddr + s->memsz;
		if (f && f->end < end)
			end = f->end;
		const char *path = f ? (disk_paths ? disk_path(c, f->path) : f->path)
				     : c->vdso_start && s->vaddr == c->vdso_start ? "[vdso]" : NULL;
		if (!put_line(&p, &len, &cap, s->vaddr, end, s->flags, f ? f->pgoff + (s->vaddr - f->start) : 0, path))
			goto out;
	}
out:
	p[len] = '\0';
	return p;
}
