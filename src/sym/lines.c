/* file:line and inlined calls of a module's code from its DWARF (local.h:
 * sym_cu_find, sym_cu_source). libdwfl finds the unit of an address
 * through .debug_aranges; Go (and other toolchains) write no such
 * section, and this libdw does not make one up, so for those the units'
 * own DW_AT_ranges / low_pc..high_pc are read once into a sorted table.
 * Compressed sections (SHF_COMPRESSED, Go's default) are libdw's to
 * inflate. */
#include "sym/local.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CU_RANGES_MAX (1u << 20)

static int cur_cmp(const void *a, const void *b)
{
	const struct sym_curange *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

static void build_cus(struct sym_module *m)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = NULL;
	size_t cap = 0;

	m->cus_built = -1;
	while ((cu = dwfl_module_nextcu(m->mod, cu, &bias))) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (m->ncus == cap) {
				size_t nc = cap ? cap * 2 : 256;
				void *v = nc <= CU_RANGES_MAX ? realloc(m->cus, nc * sizeof(*m->cus)) : NULL;
				if (!v)
					goto done;
				m->cus = v;
				cap = nc;
			}
			m->cus[m->ncus++] = (struct sym_curange){ lo + bias, hi + bias, dwarf_dieoffset(cu) };
		}
	}
done:
	sort_array(m->cus, m->ncus, sizeof(*m->cus), cur_cmp);
	if (m->ncus)
		m->cus_built = 1;
}

Dwarf_Die *sym_cu_find(struct sym_module *m, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, bias);
	Dwarf *dw;

	if (cu || m->cus_built < 0)
		return cu;
	dw = dwfl_module_getdwarf(m->mod, bias);
	if (!dw)
		return NULL;
	/* No unit from libdwfl: only a module without .debug_aranges needs
	 * the table (one with it simply has no unit there). */
	if (!m->cus_built) {
		Elf *elf = dwarf_getelf(dw);
		size_t shstrndx;
		bool aranges = false;
		if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
			for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !aranges; scn = elf_nextscn(elf, scn)) {
				GElf_Shdr sh;
				const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
				aranges = nm && (!strcmp(nm, ".debug_aranges") || !strcmp(nm, ".zdebug_aranges"));
			}
		if (aranges) {
			m->cus_built = -1;
			return NULL;
		}
		build_cus(m);
		if (m->cus_built < 0)
			return NULL;
	}
	size_t lo = 0, hi = m->ncus;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->cus[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges may nest (a unit's ranges within another's): look back a few. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++)
		if (addr >= m->cus[i].lo && addr < m->cus[i].hi)
			return dwarf_offdie(dw, m->cus[i].off, &m->cu) ? &m->cu : NULL;
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

const char *sym_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

/* Inlined calls at addr: innermost first, each with the line of its own
 * code; the named function's line is the call site of the outermost. */
static void add_inlines(Dwarf_Die *cu, Dwarf_Addr bias, uint64_t addr, struct sym_info *s)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;

	int n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n <= 0)
		return;
	/* Past the innermost inlined call, dwarf_getscopes goes on with the
	 * scopes of its abstract definition; the concrete nest of calls
	 * around it (middle, outer, the function) is its DIE's own chain. */
	if (dwarf_tag(&scopes[0]) == DW_TAG_inlined_subroutine) {
		Dwarf_Die *chain = NULL;
		int nc = dwarf_getscopes_die(&scopes[0], &chain);
		if (nc > 0) {
			free(scopes);
			scopes = chain;
			n = nc;
		}
	}
	dwarf_getsrcfiles(cu, &files, &nfiles);
	const char *file = s->file;
	int line = s->line;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		struct sym_inline *ni = realloc(s->inl, (s->n_inl + 1) * sizeof(*ni));
		if (!ni)
			break;
		s->inl = ni;
		struct sym_inline *in = &s->inl[s->n_inl++];
		const char *fn = sym_die_name(&scopes[i]);
		in->function = fn ? sym_name_dup(fn) : NULL;
		in->file = dup_or_null(file);
		in->line = line;
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;
		file = NULL;
		line = 0;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cf) == 0 && files && cf < nfiles)
			file = dwarf_filesrc(files, cf, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl) == 0)
			line = (int)cl;
	}
	if (s->n_inl) {
		char *f = dup_or_null(file);
		free(s->file);
		s->file = f;
		s->line = line;
	}
	free(scopes);
}

void sym_cu_source(struct sym_module *m, uint64_t addr, struct sym_info *s)
{
	Dwarf_Addr cb;
	Dwarf_Die *cu = sym_cu_find(m, addr, &cb);
	/* libdw answers with the nearest unit's last line where no unit
	 * covers addr (_start after main): no line there. */
	Dwarf_Line *l = cu && dwarf_haspc(cu, addr - cb) > 0 ? dwarf_getsrc_die(cu, addr - cb) : NULL;
	int line = 0;
	const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;

	if (!file)
		return;
	dwarf_lineno(l, &line);
	/* A relative name is relative to the compilation's directory. */
	Dwarf_Attribute a;
	const char *dir = file[0] != '/' ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)) : NULL;
	if (dir && dir[0] == '/') {
		if (asprintf(&s->file, "%s/%s", dir, file) < 0)
			s->file = NULL;
	} else {
		s->file = strdup(file);
	}
	s->line = line;
	/* cu may be m->cu, which the lookups below do not touch */
	add_inlines(cu, cb, addr, s);
}
