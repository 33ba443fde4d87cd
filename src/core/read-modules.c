/* The modules of a core (the files mapped with their ELF header, from
 * NT_FILE), each one's build-id from its note in the core's memory checked
 * against the file on disk, and the core's memory map in /proc/PID/maps
 * form for the unwinder and the symbolizer. */
#include "core/read.h"
#include "i18n.h"
#include "sym/sym.h"
#include "util.h"

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int core_modules_load(struct core *c, const struct core_open_opts *o, struct ps_error *e);
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
	int fd = sym_open_regular(AT_FDCWD, path);
	size_t n = 0;

	if (fd < 0) {
		*err = -fd;
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

static void id_hex(char *buf, const unsigned char *id, size_t n)
{
	buf[0] = 0;
	for (size_t i = 0; i < n && i < 64; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
}

/* A file the user named (--exe, --sysroot) must be the one the core
 * mapped: frames named from another program are silently wrong. */
static int check_given(const struct core_module *m, const char *flag, struct ps_error *e)
{
	char core_id[129], disk_id[129];

	if (m->status == CORE_MOD_MISSING)
		return ps_error_set(e, m->open_errno, _("%s %s: cannot open it (%s)"), flag, m->disk_path,
				    strerror(m->open_errno));
	if (m->status != CORE_MOD_MISMATCH)
		return 0;
	id_hex(core_id, m->id_core, m->id_core_len);
	id_hex(disk_id, m->id_disk, m->id_disk_len);
	return ps_error_set(e, EINVAL, _("%s %s is not the file the core mapped as %s: its build-id is %s, the core's is %s"),
			    flag, m->disk_path, m->path, disk_id, core_id);
}

static char *join(const char *dir, const char *sep, const char *name)
{
	size_t l = strlen(dir) + strlen(sep) + strlen(name) + 1;
	char *p = malloc(l);
	if (p)
		snprintf(p, l, "%s%s%s", dir, sep, name);
	return p;
}

/* A path made absolute from the current directory, links left as they
 * are (/proc/PID/root must stay the process's root, not become ours);
 * leading "./" dropped. */
static char *absolute(const char *p)
{
	char cwd[PATH_MAX];

	if (p[0] == '/')
		return strdup(p);
	while (p[0] == '.' && p[1] == '/')
		for (p += 2; *p == '/'; p++)
			;
	if (!getcwd(cwd, sizeof(cwd)))
		return strdup(p);
	return join(cwd, strcmp(cwd, "/") ? "/" : "", p);
}

/* A path the user gave (--exe, --sysroot), made absolute: the modules are
 * opened from elsewhere than the current directory. */
static char *given_path(const char *dir, const char *path)
{
	char *abs = absolute(dir);
	if (!abs || !path)
		return abs;
	char *p = join(abs, "", path);
	free(abs);
	return p;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

/* The directory of a file, absolute; NULL when it has none. */
static char *dir_of(const char *path)
{
	char *abs = absolute(path);
	char *slash = abs ? strrchr(abs, '/') : NULL;
	if (!slash) {
		free(abs);
		return NULL;
	}
	slash[slash == abs] = 0;
	return abs;
}

/* Check m against the file at path (taken over, may be NULL). */
static int module_try(struct core_module *m, char *path)
{
	int err = 0;

	if (!path)
		return -ENOMEM;
	free(m->disk_path);
	m->disk_path = path;
	m->id_disk_len = id_from_file(path, m->id_disk, sizeof(m->id_disk), &err);
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
	return 0;
}

/* The file at path in place of m's, if it is the one the core mapped (the
 * same build-id). Returns 1 if taken, 0, -ENOMEM. */
static int module_take(struct core_module *m, char *path)
{
	struct core_module t = *m;

	t.disk_path = NULL;
	if (module_try(&t, path) < 0)
		return -ENOMEM;
	if (t.status != CORE_MOD_OK) {
		free(t.disk_path);
		return 0;
	}
	free(m->disk_path);
	*m = t;
	return 1;
}

/* The file of module m: --exe for the program, under --sysroot, else
 * where the core says; one that is not there (or is another build) is
 * looked for by its name next to the core and next to the program. */
static int module_find(struct core *c, const struct core_open_opts *o, struct core_module *m, const char *exe_dir,
		       struct ps_error *e)
{
	int r;

	m->id_core_len = id_from_core(c, m->base, m->id_core, sizeof(m->id_core));
	if (m->is_exe && o->exe) {
		if (module_try(m, given_path(o->exe, NULL)) < 0)
			return ps_error_set(e, ENOMEM, _("out of memory"));
		return m->status == CORE_MOD_MISSING || m->status == CORE_MOD_MISMATCH ? check_given(m, "--exe", e) : 0;
	}
	if (o->sysroot && m->path[0] == '/') {
		if (module_try(m, given_path(o->sysroot, m->path)) < 0)
			return ps_error_set(e, ENOMEM, _("out of memory"));
		if (m->status == CORE_MOD_MISMATCH)
			return check_given(m, "--sysroot", e);
		/* Missing there: the host's own file, if it is the same build. */
		if (m->status != CORE_MOD_MISSING || (r = module_take(m, strdup(m->path))) > 0)
			return 0;
		if (r < 0)
			return ps_error_set(e, ENOMEM, _("out of memory"));
	} else if (m->path[0] != '/') {
		/* A name, not a path (no NT_FILE: the program's name from
		 * the core): looked for next to the core and the program. */
		free(m->disk_path);
		if (!(m->disk_path = strdup(m->path)))
			return ps_error_set(e, ENOMEM, _("out of memory"));
		m->status = CORE_MOD_MISSING;
		m->open_errno = ENOENT;
	} else if (module_try(m, strdup(m->path)) < 0) {
		return ps_error_set(e, ENOMEM, _("out of memory"));
	}
	if (m->status != CORE_MOD_MISSING && m->status != CORE_MOD_MISMATCH)
		return 0;
	char *core_dir = dir_of(c->path);
	const char *dirs[2] = { core_dir, exe_dir };
	r = 0;
	for (int k = 0; k < 2 && r == 0; k++)
		if (dirs[k] && (k == 0 || !core_dir || strcmp(dirs[0], dirs[1])))
			r = module_take(m, join(dirs[k], "/", base_name(m->path)));
	free(core_dir);
	return r < 0 ? ps_error_set(e, ENOMEM, _("out of memory")) : 0;
}

int core_modules_load(struct core *c, const struct core_open_opts *o, struct ps_error *e)
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
	/* The program first: libraries are also looked for next to it. */
	int r = exe ? module_find(c, o, exe, NULL, e) : 0;
	char *exe_dir = exe && r == 0 ? dir_of(exe->disk_path) : NULL;
	for (size_t i = 0; i < c->n_mods && r == 0; i++)
		if (&c->mods[i] != exe)
			r = module_find(c, o, &c->mods[i], exe_dir, e);
	free(exe_dir);
	if (r < 0)
		return r;
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

const char *core_module_problem(const struct core_module *m, char *buf, size_t size)
{
	const char *name = base_name(m->path);

	switch (m->status) {
	case CORE_MOD_MISMATCH:
		snprintf(buf, size, _("%s on disk is not the one that was mapped: frames in it may be wrong"), name);
		return buf;
	case CORE_MOD_MISSING:
		snprintf(buf, size, _("%s: cannot open %s (%s): frames in it are not named%s"), name, m->disk_path,
			 m->open_errno == EINVAL ? _("not a regular file") : strerror(m->open_errno), m->is_exe ? _("; give the program with --exe") : "");
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
