/* Cores without an NT_FILE note (older kernels' cores, dumpers that leave
 * it out): the mapped files from the dynamic linker's list in the core's
 * memory, as libdwfl reads it -- the program's PT_DYNAMIC (found from
 * AT_PHDR), its DT_DEBUG r_debug, the link_map chain -- and each file's
 * mappings from its PT_LOAD headers (in the core's memory, else the file). */
#include "core/read.h"
#include "sym/sym.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINKMAP_MAX 4096 /* a loop in a corrupt list ends here */
#define PHNUM_MAX 64

static bool mem(struct core *c, uint64_t addr, void *buf, size_t len)
{
	return core_read_mem(c, addr, buf, len, false) == len;
}

/* The program headers of the ELF image whose header is at base: from the
 * core's memory, else from the file at path. Returns the count or -1. */
static int image_phdrs(struct core *c, uint64_t base, const char *path, Elf64_Phdr *ph)
{
	Elf64_Ehdr eh;
	bool in_core = mem(c, base, &eh, sizeof(eh));
	int fd = -1;

	if (!in_core) {
		if (!path || path[0] != '/' || (fd = sym_open_regular(AT_FDCWD, path)) < 0)
			return -1;
		if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
			eh.e_ident[0] = 0;
	}
	int n = -1;
	if (!memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum &&
	    eh.e_phnum <= PHNUM_MAX) {
		size_t len = eh.e_phnum * sizeof(*ph);
		if (in_core ? mem(c, base + eh.e_phoff, ph, len) : pread(fd, ph, len, (off_t)eh.e_phoff) == (ssize_t)len)
			n = eh.e_phnum;
	}
	if (fd >= 0)
		close(fd);
	return n;
}

static int add_file(struct core_info *ci, uint64_t start, uint64_t end, uint64_t pgoff, const char *path)
{
	if (array_reserve((void **)&ci->files, &ci->cap_files, ci->n_files, sizeof(*ci->files), 32) < 0)
		return -ENOMEM;
	struct core_file_map *f = &ci->files[ci->n_files];
	if (!(f->path = strdup(path)))
		return -ENOMEM;
	f->start = start;
	f->end = end;
	f->pgoff = pgoff;
	ci->n_files++;
	return 0;
}

/* The mappings of an image loaded with bias, one per PT_LOAD. */
static int add_image(struct core_info *ci, const Elf64_Phdr *ph, int n, uint64_t bias, const char *path)
{
	for (int i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD || !ph[i].p_memsz)
			continue;
		uint64_t start = (bias + ph[i].p_vaddr) & ~0xfffull;
		uint64_t end = (bias + ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~0xfffull;
		int r = add_file(ci, start, end, ph[i].p_offset & ~0xfffull, path);
		if (r < 0)
			return r;
	}
	return 0;
}

static int file_cmp(const void *a, const void *b)
{
	const struct core_file_map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

int core_linkmap_files(struct core *c, const char *exe)
{
	struct core_info *ci = &c->info;
	Elf64_Phdr ph[PHNUM_MAX];
	char prog[PATH_MAX];

	if (!ci->auxv_phdr || !ci->auxv_phnum || ci->auxv_phnum > PHNUM_MAX ||
	    !mem(c, ci->auxv_phdr, ph, ci->auxv_phnum * sizeof(*ph)))
		return -ENOENT;
	int n = (int)ci->auxv_phnum;
	uint64_t bias = 0, dyn = 0;
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = ci->auxv_phdr - ph[i].p_vaddr;
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = bias + ph[i].p_vaddr;
	/* The program: --exe, else the command's first word when it is a path. */
	if (exe)
		strlcpy_ps(prog, exe, sizeof(prog));
	else {
		strlcpy_ps(prog, ci->psargs, sizeof(prog));
		prog[strcspn(prog, " ")] = 0;
		if (prog[0] != '/')
			snprintf(prog, sizeof(prog), "%s", ci->fname[0] ? ci->fname : "[exe]");
	}
	int r = add_image(ci, ph, n, bias, prog);
	uint64_t rdebug = 0;
	for (int i = 0; dyn && r == 0 && i < 512; i++) {
		Elf64_Dyn d;
		if (!mem(c, dyn + i * sizeof(d), &d, sizeof(d)) || d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_DEBUG)
			rdebug = d.d_un.d_ptr;
	}
	uint64_t lm = 0;
	if (rdebug && !mem(c, rdebug + 8, &lm, sizeof(lm))) /* r_debug.r_map */
		lm = 0;
	for (int k = 0; lm && r == 0 && k < LINKMAP_MAX; k++) {
		uint64_t l[4]; /* l_addr, l_name, l_ld, l_next */
		char path[PATH_MAX];
		if (!mem(c, lm, l, sizeof(l)))
			break;
		size_t got = l[1] ? core_read_mem(c, l[1], path, sizeof(path) - 1, false) : 0;
		path[got] = 0;
		if (got && path[0] == '/' && strnlen(path, got) < got) {
			/* The image's header is where its first PT_LOAD goes. */
			Elf64_Phdr lp[PHNUM_MAX];
			int ln = image_phdrs(c, l[0], path, lp);
			if (ln > 0)
				r = add_image(ci, lp, ln, l[0], path);
		}
		lm = l[3];
	}
	if (r < 0)
		return r;
	sort_array(ci->files, ci->n_files, sizeof(*ci->files), file_cmp);
	return rdebug ? 0 : -ENOENT;
}
