/* Symbolization with libdwfl: function+offset, module, file:line and
 * inline frames, one lookup per distinct pc (uncached lookups cost ~100 µs
 * each; a 1000-thread dump has a few dozen distinct pcs). libdwfl keeps
 * each module's ELF and DWARF once per dump. */
#include "stack/internal.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct slot {
	uint64_t key;        /* lookup address + 1; 0 = empty */
	struct stk_sym *sym;
};

struct stk_symcache {
	Dwfl *dwfl;
	bool source;
	struct slot *slots;
	size_t n, cap;
	char *debuginfo_path;
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

struct stk_symcache *stk_symcache_new(pid_t pid, const char *maps_text, bool source)
{
	struct stk_symcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->source = source;
	c->dwfl = dwfl_begin(&callbacks);
	if (!c->dwfl) {
		free(c);
		return NULL;
	}
	dwfl_report_begin(c->dwfl);
	/* The live maps name [vdso] after the pid, so its image can be read
	 * from the process; if the process is gone, use the frozen copy. */
	if (dwfl_linux_proc_report(c->dwfl, pid) != 0 && maps_text) {
		FILE *f = fmemopen((void *)maps_text, strlen(maps_text), "r");
		if (f) {
			dwfl_linux_proc_maps_report(c->dwfl, f);
			fclose(f);
		}
	}
	dwfl_report_end(c->dwfl, NULL, NULL);
	return c;
}

/* A module whose file cannot be had keeps its name and range, no symbols. */
static int no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
		  Elf **elfp)
{
	*elfp = NULL;
	return -1;
}

static const Dwfl_Callbacks file_callbacks = {
	.find_elf = no_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

struct stk_symcache *stk_symcache_new_modules(const struct stk_module_src *m, size_t n, bool source)
{
	struct stk_symcache *c = calloc(1, sizeof(*c));

	if (!c)
		goto fail;
	c->source = source;
	c->dwfl = dwfl_begin(&file_callbacks);
	if (!c->dwfl) {
		free(c);
		c = NULL;
		goto fail;
	}
	dwfl_report_begin(c->dwfl);
	for (size_t i = 0; i < n; i++) {
		Dwfl_Module *mod = NULL;
		if (m[i].fd >= 0) {
			/* base: where its first PT_LOAD starts (the fd is taken over) */
			mod = dwfl_report_elf(c->dwfl, m[i].name, m[i].file, m[i].fd, m[i].base, false);
			if (!mod)
				close(m[i].fd);
		}
		if (!mod)
			dwfl_report_module(c->dwfl, m[i].name, m[i].base, m[i].end);
	}
	dwfl_report_end(c->dwfl, NULL, NULL);
	return c;
fail:
	for (size_t i = 0; i < n; i++)
		if (m[i].fd >= 0)
			close(m[i].fd);
	return c;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

/* Inlined calls at addr: innermost first; the outer function's line is
 * the call site of the outermost one. */
static void add_inlines(Dwfl_Module *m, uint64_t addr, struct stk_sym *s)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(m, addr, &bias);
	Dwarf_Die *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;

	if (!cu)
		return;
	int n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n <= 0)
		return;
	dwarf_getsrcfiles(cu, &files, &nfiles);
	const char *file = s->file;
	int line = s->line;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		struct stk_inline *ni = realloc(s->inl, (s->n_inl + 1) * sizeof(*ni));
		if (!ni)
			break;
		s->inl = ni;
		struct stk_inline *in = &s->inl[s->n_inl++];
		in->function = dup_or_null(die_name(&scopes[i]));
		in->file = dup_or_null(file);
		in->line = line;
		/* Where this call sits in its caller. */
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

static struct stk_sym *resolve(struct stk_symcache *c, uint64_t pc, uint64_t addr)
{
	struct stk_sym *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	Dwfl_Module *m = dwfl_addrmodule(c->dwfl, addr);
	if (!m)
		return s;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
	if (name) {
		s->function = strdup(name);
		s->offset = off + (pc - addr);
	}
	const char *mainfile = NULL;
	const char *mname = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	if (mname && !strncmp(mname, "[vdso", 5))
		s->module = strdup("[vdso]");
	else if (mname)
		s->module = strdup(base_name(mname));
	if (c->source) {
		Dwfl_Line *l = dwfl_module_getsrc(m, addr);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
		if (file) {
			s->file = strdup(file);
			s->line = line;
		}
		add_inlines(m, addr, s);
	}
	return s;
}

static size_t hash(uint64_t k, size_t cap)
{
	return (size_t)(k * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
}

static bool grow(struct stk_symcache *c)
{
	size_t nc = c->cap ? c->cap * 2 : 512;
	struct slot *ns = calloc(nc, sizeof(*ns));
	if (!ns)
		return false;
	for (size_t i = 0; i < c->cap; i++) {
		if (!c->slots[i].key)
			continue;
		size_t h = hash(c->slots[i].key, nc);
		while (ns[h].key)
			h = (h + 1) & (nc - 1);
		ns[h] = c->slots[i];
	}
	free(c->slots);
	c->slots = ns;
	c->cap = nc;
	return true;
}

const struct stk_sym *stk_symcache_lookup(struct stk_symcache *c, uint64_t pc, bool activation)
{
	static const struct stk_sym unknown;
	uint64_t addr = activation || !pc ? pc : pc - 1;
	/* The same call site looked up as frame 0 and as a return address
	 * differ by the offset shown; key on (addr, pc) through both bits. */
	uint64_t key = ((addr << 1) | (activation ? 1 : 0)) + 1;

	if (c->n * 2 >= c->cap && !grow(c))
		return &unknown;
	size_t h = hash(key, c->cap);
	while (c->slots[h].key) {
		if (c->slots[h].key == key)
			return c->slots[h].sym;
		h = (h + 1) & (c->cap - 1);
	}
	struct stk_sym *s = resolve(c, pc, addr);
	if (!s)
		return &unknown;
	c->slots[h].key = key;
	c->slots[h].sym = s;
	c->n++;
	return s;
}

char *stk_symcache_data_name(struct stk_symcache *c, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(c->dwfl, addr);
	GElf_Off off = 0;
	GElf_Sym sym;
	char buf[512];

	if (!m)
		return NULL;
	const char *name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || GELF_ST_TYPE(sym.st_info) == STT_FUNC)
		return NULL;
	if (off)
		snprintf(buf, sizeof(buf), "%s+0x%llx", name, (unsigned long long)off);
	else
		snprintf(buf, sizeof(buf), "%s", name);
	return strdup(buf);
}

size_t stk_symcache_count(const struct stk_symcache *c)
{
	return c->n;
}

static void sym_free(struct stk_sym *s)
{
	free(s->function);
	free(s->module);
	free(s->file);
	for (size_t i = 0; i < s->n_inl; i++) {
		free(s->inl[i].function);
		free(s->inl[i].file);
	}
	free(s->inl);
	free(s);
}

void stk_symcache_free(struct stk_symcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].key)
			sym_free(c->slots[i].sym);
	free(c->slots);
	dwfl_end(c->dwfl);
	free(c);
}
