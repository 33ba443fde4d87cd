/* Pure parsers of a core file: ELF header, program headers, notes,
 * NT_FILE. No I/O; every count and offset is checked against the buffer. */
#include "core/read.h"
#include "i18n.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>

#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif
#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

void core_warn(struct core_info *ci, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (ci->n_warnings >= 64) /* a hostile core could make thousands */
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (array_reserve((void **)&ci->warnings, &ci->cap_warnings, ci->n_warnings, sizeof(char *), 8) < 0)
		return;
	char *s = strdup(buf);
	if (s)
		ci->warnings[ci->n_warnings++] = s;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct core_segment *x = a, *y = b;
	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

int core_elf_parse(const void *buf, size_t len, uint64_t file_size, struct core_info *ci, struct ps_error *e)
{
	Elf64_Ehdr eh;

	if (len < sizeof(eh))
		return ps_error_set(e, EINVAL, _("not a core file: only %zu bytes"), len);
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return ps_error_set(e, EINVAL, _("not a core file: no ELF header"));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
		return ps_error_set(e, EINVAL, _("not an x86-64 core: pscope reads 64-bit x86 cores only"));
	if (eh.e_type != ET_CORE)
		return ps_error_set(e, EINVAL, _("an ELF file but not a core (type %u): give the core, and the program with --exe"),
				    (unsigned)eh.e_type);
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum == PN_XNUM)
		return ps_error_set(e, EINVAL, _("not a usable core: %u program headers of %u bytes"),
				    (unsigned)eh.e_phnum, (unsigned)eh.e_phentsize);
	if (eh.e_phoff > len || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > len - eh.e_phoff)
		return ps_error_set(e, EINVAL, _("the core is cut short before the end of its program headers"));
	ci->segs = calloc(eh.e_phnum, sizeof(*ci->segs));
	if (!ci->segs)
		return ps_error_set(e, ENOMEM, _("out of memory"));
	const unsigned char *p = (const unsigned char *)buf + eh.e_phoff;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, p + (size_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE) {
			if (ci->n_notes < ARRAY_SIZE(ci->notes)) {
				ci->notes[ci->n_notes].offset = ph.p_offset;
				ci->notes[ci->n_notes].filesz = ph.p_filesz;
				ci->n_notes++;
			}
			continue;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr || ph.p_filesz > ph.p_memsz) {
			core_warn(ci, _("segment %u has impossible sizes: left out"), i);
			continue;
		}
		struct core_segment *s = &ci->segs[ci->n_segs++];
		s->vaddr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->flags = ph.p_flags;
		if (ph.p_offset >= file_size)
			s->avail = 0;
		else
			s->avail = file_size - ph.p_offset < ph.p_filesz ? file_size - ph.p_offset : ph.p_filesz;
	}
	sort_array(ci->segs, ci->n_segs, sizeof(*ci->segs), cmp_seg);
	for (size_t i = 1; i < ci->n_segs; i++)
		if (ci->segs[i].vaddr < ci->segs[i - 1].vaddr + ci->segs[i - 1].memsz) {
			core_warn(ci, _("memory segments overlap at 0x%llx: the later one is not read"),
				  (unsigned long long)ci->segs[i].vaddr);
			ci->segs[i].avail = 0;
			ci->segs[i].filesz = 0;
			ci->segs[i].memsz = 0;
		}
	if (!ci->n_notes)
		core_warn(ci, _("the core has no notes: no threads, registers or signal"));
	return 0;
}

static struct core_thread *new_thread(struct core_info *ci)
{
	if (array_reserve((void **)&ci->threads, &ci->cap_threads, ci->n_threads, sizeof(*ci->threads), 16) < 0)
		return NULL;
	struct core_thread *t = &ci->threads[ci->n_threads++];
	memset(t, 0, sizeof(*t));
	return t;
}

static void parse_prstatus(struct core_info *ci, const unsigned char *d, size_t n)
{
	struct elf_prstatus pr;
	size_t need = offsetof(struct elf_prstatus, pr_reg) + sizeof(pr.pr_reg);
	struct core_thread *t = new_thread(ci);

	if (!t)
		return;
	memset(&pr, 0, sizeof(pr));
	memcpy(&pr, d, n < sizeof(pr) ? n : sizeof(pr));
	t->tid = pr.pr_pid;
	t->cursig = pr.pr_cursig;
	if (n >= need) {
		memcpy(&t->regs, pr.pr_reg, sizeof(t->regs));
		t->regs_ok = true;
	}
	if (n != sizeof(pr))
		core_warn(ci, _("thread %d: NT_PRSTATUS has %zu bytes, not %zu%s"), (int)t->tid, n, sizeof(pr),
			  t->regs_ok ? "" : _(": its registers are lost"));
}

static void parse_prpsinfo(struct core_info *ci, const unsigned char *d, size_t n)
{
	struct elf_prpsinfo ps;

	if (n != sizeof(ps)) {
		core_warn(ci, _("NT_PRPSINFO has %zu bytes, not %zu: no command line"), n, sizeof(ps));
		return;
	}
	memcpy(&ps, d, sizeof(ps));
	ci->have_psinfo = true;
	ci->state = ps.pr_sname;
	ci->pid = ps.pr_pid;
	ci->ppid = ps.pr_ppid;
	ci->uid = (int)ps.pr_uid;
	ci->gid = (int)ps.pr_gid;
	copy_cstr(ci->fname, sizeof(ci->fname), ps.pr_fname, strnlen(ps.pr_fname, sizeof(ps.pr_fname)));
	copy_cstr(ci->psargs, sizeof(ci->psargs), ps.pr_psargs, strnlen(ps.pr_psargs, sizeof(ps.pr_psargs)));
	/* The kernel keeps the argument separators as spaces; a trailing one
	 * is the end of the last argument. */
	size_t l = strlen(ci->psargs);
	while (l && ci->psargs[l - 1] == ' ')
		ci->psargs[--l] = '\0';
}

static void parse_siginfo(struct core_info *ci, const unsigned char *d, size_t n)
{
	int32_t w[6];

	if (n < 24) {
		core_warn(ci, _("NT_SIGINFO has %zu bytes, too few for a signal"), n);
		return;
	}
	if (ci->sig.valid)
		return; /* the first one is the signal of the dump */
	memcpy(w, d, sizeof(w));
	ci->sig.valid = true;
	ci->sig.signo = w[0];
	ci->sig.errno_ = w[1];
	ci->sig.code = w[2];
	memcpy(&ci->sig.addr, d + 16, 8);
	ci->sig.pid = w[4];
	ci->sig.uid = w[5];
	if (ci->n_threads && ci->sig.signo)
		ci->threads[ci->n_threads - 1].crashed = true;
}

static void parse_auxv(struct core_info *ci, const unsigned char *d, size_t n)
{
	for (size_t off = 0; off + 16 <= n; off += 16) {
		uint64_t k, v;
		memcpy(&k, d + off, 8);
		memcpy(&v, d + off + 8, 8);
		if (k == AT_NULL)
			break;
		if (k == AT_ENTRY)
			ci->auxv_entry = v;
		else if (k == AT_PHDR)
			ci->auxv_phdr = v;
		else if (k == AT_PHNUM)
			ci->auxv_phnum = v;
		else if (k == AT_SYSINFO_EHDR)
			ci->auxv_vdso = v;
	}
}

int core_nt_file_parse(const void *buf, size_t len, struct core_info *ci)
{
	const unsigned char *d = buf;
	uint64_t count, page;

	if (len < 16) {
		core_warn(ci, _("NT_FILE has %zu bytes: no file names for the mappings"), len);
		return 0;
	}
	memcpy(&count, d, 8);
	memcpy(&page, d + 8, 8);
	if (count > (len - 16) / 24) {
		core_warn(ci, _("NT_FILE says %llu files but has room for %zu: the rest are left out"),
			  (unsigned long long)count, (len - 16) / 24);
		count = (len - 16) / 24;
	}
	if (!page || (page & (page - 1)) || page > (1ull << 30)) {
		core_warn(ci, _("NT_FILE has a page size of %llu: file offsets are not known"), (unsigned long long)page);
		page = 0;
	}
	ci->file_page = page;
	const char *names = (const char *)d + 16 + count * 24;
	size_t left = len - 16 - count * 24;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v[3];
		memcpy(v, d + 16 + i * 24, sizeof(v));
		size_t nl = strnlen(names, left);
		if (nl == left) {
			core_warn(ci, _("NT_FILE ends inside the name of file %llu of %llu: the rest are left out"),
				  (unsigned long long)i + 1, (unsigned long long)count);
			break;
		}
		if (nl >= PATH_MAX) {
			/* No path is that long: the note is forged. */
			core_warn(ci, _("NT_FILE names file %llu with %zu bytes, over the %d of a path: the rest are left out"),
				  (unsigned long long)i + 1, nl, PATH_MAX);
			break;
		}
		if (v[1] > v[0] && (!page || v[2] <= UINT64_MAX / page)) {
			if (array_reserve((void **)&ci->files, &ci->cap_files, ci->n_files, sizeof(*ci->files), 32) < 0)
				return -ENOMEM;
			struct core_file_map *f = &ci->files[ci->n_files];
			f->start = v[0];
			f->end = v[1];
			f->pgoff = v[2] * page;
			f->path = strdup(names);
			if (!f->path)
				return -ENOMEM;
			ci->n_files++;
		}
		names += nl + 1;
		left -= nl + 1;
	}
	return 0;
}

int core_notes_parse(const void *buf, size_t len, struct core_info *ci)
{
	const unsigned char *p = buf;
	size_t off = 0;

	while (off < len) {
		Elf64_Nhdr nh;
		if (len - off < sizeof(nh)) {
			core_warn(ci, _("the notes end inside a note header: %zu bytes left out"), len - off);
			break;
		}
		memcpy(&nh, p + off, sizeof(nh));
		size_t name_pad = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		size_t desc_pad = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		off += sizeof(nh);
		bool cut = false;
		if (name_pad > len - off) {
			core_warn(ci, _("a note of type 0x%x claims more bytes than the notes have: the rest is left out"),
				  (unsigned)nh.n_type);
			break;
		}
		if (nh.n_descsz > len - off - name_pad) {
			/* Cut short: what is there is still read (a thread's id
			 * and signal come before its registers). */
			core_warn(ci, _("a note of type 0x%x claims more bytes than the notes have: the rest is left out"),
				  (unsigned)nh.n_type);
			nh.n_descsz = (uint32_t)(len - off - name_pad);
			cut = true;
		}
		if (desc_pad > len - off - name_pad)
			desc_pad = len - off - name_pad; /* no padding after the last note */
		const char *name = (const char *)p + off;
		const unsigned char *desc = p + off + name_pad;
		bool core = nh.n_namesz == 5 && !memcmp(name, "CORE", 5);
		bool is_linux = nh.n_namesz == 6 && !memcmp(name, "LINUX", 6);
		off += name_pad + desc_pad;
		if (!core && !is_linux)
			continue;
		switch (nh.n_type) {
		case NT_PRSTATUS:
			if (core)
				parse_prstatus(ci, desc, nh.n_descsz);
			break;
		case NT_PRPSINFO:
			if (core)
				parse_prpsinfo(ci, desc, nh.n_descsz);
			break;
		case NT_SIGINFO:
			parse_siginfo(ci, desc, nh.n_descsz);
			break;
		case NT_AUXV:
			parse_auxv(ci, desc, nh.n_descsz);
			break;
		case NT_FILE:
			if (!ci->n_files && core_nt_file_parse(desc, nh.n_descsz, ci) < 0)
				return -ENOMEM;
			break;
		}
		if (cut)
			break;
		if (ci->n_threads > 1000000) {
			core_warn(ci, _("more than a million threads: the rest are left out"));
			break;
		}
	}
	return 0;
}

void core_info_free(struct core_info *ci)
{
	free(ci->segs);
	free(ci->threads);
	for (size_t i = 0; i < ci->n_files; i++)
		free(ci->files[i].path);
	free(ci->files);
	for (size_t i = 0; i < ci->n_warnings; i++)
		free(ci->warnings[i]);
	free(ci->warnings);
	memset(ci, 0, sizeof(*ci));
}
