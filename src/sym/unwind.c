/* Offline unwinding with libunwind over stack copies: the stack dump's
 * frozen threads and the sampler's PERF_SAMPLE_STACK_USER copies.
 *
 * The address space's accessors read registers from the snapshot, stack
 * memory from the copy, and everything else (module text, .eh_frame_hdr,
 * .eh_frame, [vdso]) from the live process through a page cache. Unwind
 * tables are found per module from the ELF headers in process memory
 * (PT_GNU_EH_FRAME), which serves files and [vdso] alike, and are cached
 * per module; libunwind's dwarf_search_unwind_table does the lookup, as
 * libunwind-ptrace's _UPT_find_proc_info does, but without re-reading
 * /proc/PID/maps and the ELF file at every miss. */
#include "hmap.h"
#include "sym/unwind.h"
#include "i18n.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* Exported by libunwind (used by libunwind-ptrace), not in its headers. */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip, unw_dyn_info_t *di,
					      unw_proc_info_t *pi, int need_unwind_info, void *arg);

#define PAGE 4096ull

/* ---- live memory page cache ---- */

struct page {
	bool ok;
	unsigned char data[PAGE];
};

struct module {
	uint64_t start, end; /* the executable mapping */
	bool tried, ok;
	unw_dyn_info_t di;
	int32_t *tab;        /* no .eh_frame_hdr: the table built from .eh_frame
			      * (pairs pc, FDE relative to it), served to
			      * libunwind at a fake address (tab_at) */
	size_t ntab;
	uint64_t tab_at;
};

/* Fake addresses of built tables: above every user address; module i's
 * table at TAB_BASE + (i << 32). */
#define TAB_BASE 0xfff0000000000000ull
#define EHFRAME_MAX (256u << 20)

struct sym_unwinder {
	pid_t pid;
	sym_read_fn read;    /* instead of the live process, when set (a core) */
	void *read_arg;
	const struct proc_maps *maps;
	unw_addr_space_t as;
	struct hmap pages;   /* page address -> struct page * (read once) */
	struct module *mods;
	size_t nmods;
	struct sym_proc *view; /* finds .eh_frame where no header does */
	unsigned char *exact;  /* of the last unwind: frame i's pc is exact */
	int nexact;
	const char *end;       /* of the last unwind: why it stopped short, or NULL */
};

struct uw_ctx {
	struct sym_unwinder *u;
	const struct user_regs_struct *regs;
	const unsigned char *stack;
	uint64_t lo;
	size_t len;
	bool strict;         /* writable memory only from the copy */
	bool cut;            /* a read above the copy failed: the copy was too short */
};

static struct page *page_get(struct sym_unwinder *u, uint64_t pa)
{
	struct page *p = hmap_get_ptr(&u->pages, pa);

	if (p)
		return p;
	p = malloc(sizeof(*p));
	if (!p || hmap_put_ptr(&u->pages, pa, p) < 0) {
		free(p);
		return NULL;
	}
	if (u->read) {
		p->ok = u->read(u->read_arg, pa, p->data, PAGE) == (ssize_t)PAGE;
	} else {
		struct iovec l = { p->data, PAGE }, r = { (void *)(uintptr_t)pa, PAGE };
		p->ok = process_vm_readv(u->pid, &l, 1, &r, 1, 0) == (ssize_t)PAGE;
	}
	return p;
}

static int live_read(struct sym_unwinder *u, uint64_t addr, void *buf, size_t len)
{
	unsigned char *out = buf;

	while (len) {
		uint64_t pa = addr & ~(PAGE - 1);
		size_t off = (size_t)(addr - pa), n = PAGE - off;
		if (n > len)
			n = len;
		struct page *p = page_get(u, pa);
		if (!p || !p->ok)
			return -1;
		memcpy(out, p->data + off, n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

static int ctx_read(struct uw_ctx *c, uint64_t addr, void *buf, size_t len)
{
	if (addr >= TAB_BASE) {
		size_t i = (size_t)((addr - TAB_BASE) >> 32);
		uint64_t o = (addr - TAB_BASE) & 0xffffffffull;
		if (i >= c->u->nmods || !c->u->mods[i].tab || o + len > c->u->mods[i].ntab * 8)
			return -1;
		memcpy(buf, (const unsigned char *)c->u->mods[i].tab + o, len);
		return 0;
	}
	if (c->stack && addr >= c->lo && addr - c->lo + len <= c->len) {
		memcpy(buf, c->stack + (addr - c->lo), len);
		return 0;
	}
	if (c->strict) {
		/* A sample's copy is all there is of its stack: the live one
		 * has moved on. Only read-only memory (text, .eh_frame) and
		 * a file's relocated data are the same now: the CIE of
		 * Rust and C++ code points at its personality routine
		 * through a DW.ref slot in .data, read as each FDE is. */
		const struct proc_map *m = proc_maps_find(c->u->maps, addr);
		if (!m || (m->perms[1] == 'w' && m->path[0] != '/')) {
			if (c->stack && addr >= c->lo + c->len && addr - (c->lo + c->len) < (1u << 20))
				c->cut = true;
			return -1;
		}
	}
	return live_read(c->u, addr, buf, len);
}

/* ---- unwind tables, per module ---- */

/* Bytes of the address space, read at once (not through the page cache). */
static bool bulk_read(struct sym_unwinder *u, uint64_t addr, void *buf, size_t len)
{
	if (u->read)
		return u->read(u->read_arg, addr, buf, len) == (ssize_t)len;
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(u->pid, &l, 1, &r, 1, 0) == (ssize_t)len;
}

/* No .eh_frame_hdr (gcc -static): index the module's .eh_frame as the
 * header's table would, served to libunwind at a fake address. */
static bool table_setup(struct sym_unwinder *u, struct module *m, const struct proc_map *x)
{
	uint64_t at, size;
	struct sym_fde *f = NULL;

	if (!u->view || sym_proc_eh_frame(u->view, x->start, &at, &size) < 0 || !size || size > EHFRAME_MAX)
		return false;
	unsigned char *buf = malloc(size);
	ssize_t n = buf && bulk_read(u, at, buf, size) ? sym_ehframe_index(buf, size, at, &f) : -1;
	free(buf);
	if (n <= 0 || !(m->tab = malloc((size_t)n * 8))) {
		free(f);
		return false;
	}
	for (ssize_t i = 0; i < n; i++) {
		int64_t pc = (int64_t)(f[i].pc - at), fde = (int64_t)(f[i].fde - at);
		if (pc != (int32_t)pc || fde != (int32_t)fde)
			continue; /* out of the table's reach */
		m->tab[2 * m->ntab] = (int32_t)pc;
		m->tab[2 * m->ntab + 1] = (int32_t)fde;
		m->ntab++;
	}
	free(f);
	m->tab_at = TAB_BASE + ((uint64_t)(m - u->mods) << 32);
	memset(&m->di, 0, sizeof(m->di));
	m->di.start_ip = x->start;
	m->di.end_ip = x->end;
	m->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	m->di.u.rti.segbase = at;
	m->di.u.rti.table_data = m->tab_at;
	m->di.u.rti.table_len = m->ntab * 8 / sizeof(unw_word_t);
	return m->ntab > 0;
}

/* Set up m->di from the ELF headers in process memory. */
static bool module_setup(struct sym_unwinder *u, struct uw_ctx *c, struct module *m, const struct proc_map *x)
{
	uint64_t base = x->start - x->offset;
	const struct proc_map *first = NULL;

	/* The mapping at file offset 0 of the same file holds the headers. */
	for (size_t i = 0; i < u->maps->n; i++) {
		const struct proc_map *mp = &u->maps->v[i];
		if (mp->offset == 0 && !strcmp(mp->path, x->path) && mp->start <= x->start) {
			if (!first || mp->start > first->start)
				first = mp;
		}
	}
	if (first)
		base = first->start;
	Elf64_Ehdr eh;
	if (ctx_read(c, base, &eh, sizeof(eh)) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		return false;
	Elf64_Phdr ph[256];
	if (ctx_read(c, base + eh.e_phoff, ph, eh.e_phnum * sizeof(Elf64_Phdr)) < 0)
		return false;
	uint64_t bias = 0, hdr = 0;
	bool have_load = false;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_load) {
			bias = base - (ph[i].p_vaddr & ~(PAGE - 1));
			have_load = true;
		}
	}
	for (int i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			hdr = bias + ph[i].p_vaddr;
	if (!have_load)
		return false;
	if (!hdr)
		return table_setup(u, m, x);
	unsigned char h[12];
	if (ctx_read(c, hdr, h, sizeof(h)) < 0 || h[0] != 1)
		return false;
	/* eh_frame_ptr and fde_count as 4-byte encodings, table datarel|sdata4:
	 * what every GNU toolchain emits. */
	if ((h[1] & 0x0f) != 0x03 && (h[1] & 0x0f) != 0x0b)
		return false;
	if ((h[2] & 0x0f) != 0x03 && (h[2] & 0x0f) != 0x0b)
		return false;
	if (h[3] != 0x3b)
		return false;
	uint32_t fde_count;
	memcpy(&fde_count, h + 8, 4);
	memset(&m->di, 0, sizeof(m->di));
	m->di.start_ip = x->start;
	m->di.end_ip = x->end;
	m->di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	m->di.u.rti.segbase = hdr;
	m->di.u.rti.table_data = hdr + 12;
	m->di.u.rti.table_len = (unw_word_t)fde_count * 8 / sizeof(unw_word_t);
	return fde_count > 0;
}

static struct module *module_for(struct sym_unwinder *u, struct uw_ctx *c, uint64_t ip)
{
	const struct proc_map *x = proc_maps_find(u->maps, ip);

	if (!x || x->perms[2] != 'x')
		return NULL;
	for (size_t i = 0; i < u->nmods; i++)
		if (u->mods[i].start == x->start)
			return u->mods[i].ok ? &u->mods[i] : NULL;
	struct module *nm = realloc(u->mods, (u->nmods + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	u->mods = nm;
	struct module *m = &u->mods[u->nmods++];
	memset(m, 0, sizeof(*m));
	m->start = x->start;
	m->end = x->end;
	m->tried = true;
	m->ok = module_setup(u, c, m, x);
	return m->ok ? m : NULL;
}

/* ---- accessors ---- */

static int acc_find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need, void *arg)
{
	struct uw_ctx *c = arg;
	struct module *m = module_for(c->u, c, ip);

	if (!m)
		return -UNW_ENOINFO;
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &m->di, pi, need, arg);
}

static void acc_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees the table-format info it allocated itself. */
}

static int acc_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	return -UNW_ENOINFO;
}

static int acc_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	if (write)
		return -UNW_EREADONLYREG;
	return ctx_read(arg, addr, val, sizeof(*val)) < 0 ? -UNW_EINVAL : 0;
}

static int acc_access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
	const struct user_regs_struct *r = ((struct uw_ctx *)arg)->regs;

	if (write)
		return -UNW_EREADONLYREG;
	switch (reg) {
	case UNW_X86_64_RAX: *val = r->rax; break;
	case UNW_X86_64_RDX: *val = r->rdx; break;
	case UNW_X86_64_RCX: *val = r->rcx; break;
	case UNW_X86_64_RBX: *val = r->rbx; break;
	case UNW_X86_64_RSI: *val = r->rsi; break;
	case UNW_X86_64_RDI: *val = r->rdi; break;
	case UNW_X86_64_RBP: *val = r->rbp; break;
	case UNW_X86_64_RSP: *val = r->rsp; break;
	case UNW_X86_64_R8: *val = r->r8; break;
	case UNW_X86_64_R9: *val = r->r9; break;
	case UNW_X86_64_R10: *val = r->r10; break;
	case UNW_X86_64_R11: *val = r->r11; break;
	case UNW_X86_64_R12: *val = r->r12; break;
	case UNW_X86_64_R13: *val = r->r13; break;
	case UNW_X86_64_R14: *val = r->r14; break;
	case UNW_X86_64_R15: *val = r->r15; break;
	case UNW_X86_64_RIP: *val = r->rip; break;
	default: return -UNW_EBADREG;
	}
	return 0;
}

static int acc_access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write, void *arg)
{
	return -UNW_EBADREG;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	return -UNW_EINVAL;
}

static int acc_get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len, unw_word_t *off,
			     void *arg)
{
	return -UNW_ENOINFO;
}

static unw_accessors_t accessors = {
	.find_proc_info = acc_find_proc_info,
	.put_unwind_info = acc_put_unwind_info,
	.get_dyn_info_list_addr = acc_get_dyn_info_list_addr,
	.access_mem = acc_access_mem,
	.access_reg = acc_access_reg,
	.access_fpreg = acc_access_fpreg,
	.resume = acc_resume,
	.get_proc_name = acc_get_proc_name,
};

struct sym_unwinder *sym_unwinder_new(pid_t pid, const struct proc_maps *maps)
{
	struct sym_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	u->maps = maps;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		return NULL;
	}
	/* Many threads share return addresses: cache the register rules by pc
	 * (per thread: the unwinder runs on one thread, no locking needed). */
	unw_set_caching_policy(u->as, UNW_CACHE_PER_THREAD);
	return u;
}

struct sym_unwinder *sym_unwinder_new_reader(const struct proc_maps *maps, sym_read_fn read, void *arg)
{
	struct sym_unwinder *u = sym_unwinder_new(0, maps);

	if (u) {
		u->read = read;
		u->read_arg = arg;
	}
	return u;
}

static void mods_free(struct sym_unwinder *u)
{
	for (size_t i = 0; i < u->nmods; i++)
		free(u->mods[i].tab);
	free(u->mods);
	u->mods = NULL;
	u->nmods = 0;
}

bool sym_unwind_exact(const struct sym_unwinder *u, int i)
{
	return i == 0 || (i > 0 && i < u->nexact && u->exact[i]);
}

void sym_unwinder_set_view(struct sym_unwinder *u, struct sym_proc *view)
{
	u->view = view;
}

void sym_unwinder_set_maps(struct sym_unwinder *u, const struct proc_maps *maps)
{
	u->maps = maps;
	mods_free(u);
	unw_flush_cache(u->as, 0, 0);
}

void sym_unwinder_free(struct sym_unwinder *u)
{
	if (!u)
		return;
	unw_destroy_addr_space(u->as);
	uint64_t k, v;
	for (size_t at = 0; hmap_next(&u->pages, &at, &k, &v);)
		free((void *)(uintptr_t)v);
	hmap_free(&u->pages);
	mods_free(u);
	free(u->exact);
	free(u);
}

/* The x86-64 rt_sigreturn trampoline (glibc's __restore_rt, musl's):
 * mov $15, %rax; syscall. */
static bool is_sigreturn(struct uw_ctx *c, uint64_t ip)
{
	static const unsigned char tramp[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	unsigned char b[9];
	return ctx_read(c, ip, b, sizeof(b)) == 0 && !memcmp(b, tramp, sizeof(b));
}

/* Frame-pointer chain from (pc, bp), for code without CFI. */
static int fp_walk(struct uw_ctx *c, uint64_t bp, uint64_t *pcs, bool *by_fp, int n, int max)
{
	for (int guard = 0; n < max && guard < 4096; guard++) {
		uint64_t fr[2];
		if (!bp || (bp & 7) || bp < c->lo || bp - c->lo + 16 > c->len)
			break;
		memcpy(fr, c->stack + (bp - c->lo), sizeof(fr));
		const struct proc_map *m = proc_maps_find(c->u->maps, fr[1]);
		if (!fr[1] || !m || m->perms[2] != 'x')
			break; /* not a return address: the chain ends */
		pcs[n] = fr[1];
		by_fp[n++] = true;
		if (fr[0] <= bp)
			break;
		bp = fr[0];
	}
	return n;
}

/* Whether code at ip is code: a return address elsewhere is garbage. */
static bool in_code(const struct sym_unwinder *u, uint64_t ip)
{
	const struct proc_map *m = proc_maps_find(u->maps, ip);
	return m && m->perms[2] == 'x';
}

int sym_unwind(struct sym_unwinder *u, const struct user_regs_struct *regs, const void *stack,
	       uint64_t stack_lo, size_t stack_len, bool strict, uint64_t *pcs, bool *by_fp, int max,
	       bool *truncated)
{
	struct uw_ctx c = { u, regs, stack, stack_lo, stack_len, strict, false };
	unw_cursor_t cur;
	int n = 0, r;
	uint64_t last_sp = 0, last_ip = 0;

	*truncated = false;
	if (max <= 0)
		return 0;
	if (u->nexact < max) {
		unsigned char *ne = realloc(u->exact, (size_t)max);
		if (ne) {
			u->exact = ne;
			u->nexact = max;
		}
	}
	if (u->exact)
		memset(u->exact, 0, (size_t)u->nexact);
	u->end = NULL;
	bool after_signal = false;
	if (unw_init_remote(&cur, u->as, &c) < 0) {
		pcs[0] = regs->rip;
		by_fp[0] = false;
		return fp_walk(&c, regs->rbp, pcs, by_fp, 1, max);
	}
	for (;;) {
		unw_word_t ip = 0, sp = 0;
		unw_get_reg(&cur, UNW_REG_IP, &ip);
		unw_get_reg(&cur, UNW_REG_SP, &sp);
		if (!ip)
			break;
		if (n > 0 && (sp < last_sp || (sp == last_sp && ip == last_ip))) {
			u->end = N_("the unwinding went back up the stack (broken CFI or a corrupt stack): stopped");
			break; /* the stack grows down: going back means garbage */
		}
		if (n > 0 && !in_code(u, ip)) {
			u->end = N_("a return address outside any code (a corrupt stack, or a guess past code without CFI): stopped");
			break;
		}
		last_sp = sp;
		last_ip = ip;
		/* A signal trampoline's pc is where its code starts, and the
		 * frame it returns to was interrupted, not calling: both are
		 * exact pcs, not return addresses. */
		bool sig = n > 0 && is_sigreturn(&c, ip);
		if ((sig || after_signal) && n < u->nexact)
			u->exact[n] = 1;
		after_signal = sig;
		pcs[n] = ip;
		by_fp[n++] = false;
		if (n == max) {
			*truncated = true;
			return n;
		}
		/* Code without CFI: libunwind would guess from frame pointers
		 * itself, unchecked; follow them here, each checked. */
		bool no_cfi = !module_for(u, &c, n > 1 ? ip - 1 : ip);
		r = no_cfi ? -1 : unw_step(&cur);
		if (r > 0)
			continue;
		if (r < 0) {
			/* No CFI here: follow the frame pointers instead. */
			unw_word_t bp = 0;
			int n0 = n;
			unw_get_reg(&cur, UNW_X86_64_RBP, &bp);
			n = fp_walk(&c, bp, pcs, by_fp, n, max);
			if (n == max)
				*truncated = true;
			if (n == n0)
				u->end = N_("no CFI for this code and no frame-pointer chain from it: its callers cannot be found");
		}
		break;
	}
	if (c.cut) {
		*truncated = true;
		u->end = N_("the stack copy ends here (--stack-copy): the callers are beyond it");
	}
	return n;
}

const char *sym_unwind_end(const struct sym_unwinder *u)
{
	return u->end;
}
