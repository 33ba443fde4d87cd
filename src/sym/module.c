/* Modules shared by every process view: one per file (build-id + path +
 * inode), each a single-module Dwfl at the file's own virtual addresses,
 * with a cache of resolved module-relative addresses. */
#include "sym/local.h"
#include "i18n.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sym_module *registry;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = sym_find_debuginfo,
	.debuginfo_path = &sym_debuginfo_path,
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

static char *make_key(Elf *elf, const char *path, uint64_t dev, uint64_t ino)
{
	const void *id = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	size_t len = (n > 0 ? (size_t)n * 2 : 1) + strlen(path) + 48;
	char *k = malloc(len), *p = k;

	if (!k)
		return NULL;
	for (ssize_t i = 0; i < n; i++)
		p += sprintf(p, "%02x", ((const unsigned char *)id)[i]);
	snprintf(p, len - (size_t)(p - k), ":%llx:%llu:%s", (unsigned long long)dev, (unsigned long long)ino, path);
	return k;
}

static void module_free(struct sym_module *m)
{
	uint64_t k, v;
	for (size_t at = 0; hmap_next(&m->cache, &at, &k, &v);)
		sym_info_free((struct sym_info *)(uintptr_t)v);
	hmap_free(&m->cache);
	free(m->syms);
	free(m->cus);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->ph);
	free(m->key);
	free(m->path);
	free(m->name);
	free(m->build_id);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static int load_phdrs(struct sym_module *m, Elf *elf)
{
	size_t n = 0;

	if (elf_getphdrnum(elf, &n) < 0)
		return -EINVAL;
	m->ph = calloc(n + 1, sizeof(*m->ph));
	if (!m->ph)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			m->ph[m->nph++] = (struct sym_phdr){ ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz };
	}
	return 0;
}

static void elf_init(void)
{
	elf_version(EV_CURRENT);
}

struct sym_module *sym_module_get(int fd, const char *path, const char *display, uint64_t dev, uint64_t ino)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	char *key;
	struct sym_module *m;

	pthread_once(&once, elf_init);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);

	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	key = make_key(elf, display, dev, ino);
	if (!key) {
		elf_end(elf);
		close(fd);
		return NULL;
	}
	pthread_mutex_lock(&registry_lock);
	for (m = registry; m; m = m->next)
		if (!strcmp(m->key, key))
			break;
	if (m) {
		m->refs++;
		pthread_mutex_unlock(&registry_lock);
		free(key);
		elf_end(elf);
		close(fd);
		return m;
	}
	m = calloc(1, sizeof(*m));
	if (m && load_phdrs(m, elf) < 0) {
		free(m->ph);
		free(m);
		m = NULL;
	}
	if (!m)
		goto fail;
	elf_end(elf);
	elf = NULL;
	pthread_mutex_init(&m->lock, NULL);
	m->key = key;
	key = NULL;
	m->dev = dev;
	m->ino = ino;
	m->path = strdup(display);
	m->name = strdup(!strncmp(display, "[vdso", 5) ? "[vdso]" : base_name(display));
	if (m->key[0] != ':') /* the key starts with the build-id */
		m->build_id = strndup(m->key, strcspn(m->key, ":"));
	sym_debug_path_init();
	m->dwfl = dwfl_begin(&callbacks);
	if (!m->path || !m->name || !m->dwfl) {
		close(fd);
		fd = -1;
		goto fail_m;
	}
	dwfl_report_begin(m->dwfl);
	/* path names the real file (for .gnu_debuglink); fd is the mapped one
	 * (consumed by libdwfl). Base 0: module addresses are file vaddrs. */
	m->mod = dwfl_report_elf(m->dwfl, m->name, path, fd, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod)
		close(fd);
	fd = -1;
	m->refs = 1;
	m->next = registry;
	registry = m;
	pthread_mutex_unlock(&registry_lock);
	return m;
fail_m:
	pthread_mutex_destroy(&m->lock);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->ph);
	free(m->key);
	free(m->path);
	free(m->name);
	free(m->build_id);
	free(m);
	m = NULL;
fail:
	pthread_mutex_unlock(&registry_lock);
	free(key);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

struct sym_module *sym_module_find(uint64_t dev, uint64_t ino, const char *display)
{
	struct sym_module *m;

	if (!ino)
		return NULL;
	pthread_mutex_lock(&registry_lock);
	for (m = registry; m; m = m->next)
		if (m->ino == ino && m->dev == dev && !strcmp(m->path, display))
			break;
	if (m)
		m->refs++;
	pthread_mutex_unlock(&registry_lock);
	return m;
}

void sym_module_put(struct sym_module *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&registry_lock);
	if (--m->refs) {
		pthread_mutex_unlock(&registry_lock);
		return;
	}
	for (struct sym_module **pp = &registry; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	pthread_mutex_unlock(&registry_lock);
	module_free(m);
}

size_t sym_module_count(void)
{
	size_t n = 0;
	pthread_mutex_lock(&registry_lock);
	for (struct sym_module *m = registry; m; m = m->next)
		n++;
	pthread_mutex_unlock(&registry_lock);
	return n;
}

void sym_info_free(struct sym_info *s)
{
	if (!s)
		return;
	free(s->function);
	free(s->module);
	free(s->path);
	free(s->file);
	free(s->build_id);
	for (size_t i = 0; i < s->n_inl; i++) {
		free(s->inl[i].function);
		free(s->inl[i].file);
	}
	free(s->inl);
	free(s);
}

char *sym_name_dup(const char *name)
{
	char *d = sym_demangle(name);
	return d ? d : sym_name_cut(name, strnlen(name, SYM_NAME_MAX + 1));
}

static bool code_symbol(const GElf_Sym *sym)
{
	int t = GELF_ST_TYPE(sym->st_info);
	return t == STT_FUNC || t == STT_GNU_IFUNC || t == STT_NOTYPE;
}

static int msym_cmp(const void *a, const void *b)
{
	const struct sym_msym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* At one address the preferred symbol last: the search walks down. */
	return (x->rank < y->rank) - (x->rank > y->rank);
}

/* The code symbols sorted by address, built at the first lookup:
 * dwfl_module_addrinfo walks every symbol on each call (~100 us on libc),
 * which a machine-wide view with thousands of new pcs cannot afford. */
static void build_syms(struct sym_module *m)
{
	m->syms_built = true;
	int n = m->mod ? dwfl_module_getsymtab(m->mod) : -1;
	if (n > 1 && (unsigned)n - 1 > SYM_MODULE_MAX_SYMS) {
		m->syms_cut = true;
		n = (int)SYM_MODULE_MAX_SYMS + 1;
	}
	if (n <= 1 || !(m->syms = malloc((size_t)n * sizeof(*m->syms))))
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, NULL, NULL);
		if (!name || !*name || !code_symbol(&sym) || shndx == SHN_UNDEF || shndx == SHN_ABS)
			continue;
		int bind = GELF_ST_BIND(sym.st_info);
		m->syms[m->nsyms++] = (struct sym_msym){
			.start = addr, .size = sym.st_size, .name = name,
			.rank = (sym.st_size ? 0 : 4) + (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2),
		};
	}
	sort_array(m->syms, m->nsyms, sizeof(*m->syms), msym_cmp);
	for (size_t i = 1; i < m->nsyms; i++)
		if (m->syms[i].start == m->syms[i - 1].start)
			m->syms[i].alias = m->syms[i - 1].alias = true;
}

/* Aliases at one address (__clone3, __GI___clone3; two versions of
 * __libc_start_main): the name libdwfl prefers, asked once per address. */
static void settle_alias(struct sym_module *m, struct sym_msym *s)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m->mod, s->start, &off, &sym, NULL, NULL, NULL);
	size_t lo = (size_t)(s - m->syms), hi = lo;

	while (lo > 0 && m->syms[lo - 1].start == s->start)
		lo--;
	while (hi + 1 < m->nsyms && m->syms[hi + 1].start == s->start)
		hi++;
	for (size_t i = lo; i <= hi; i++) {
		if (name && *name && !off && code_symbol(&sym))
			m->syms[i].name = name;
		m->syms[i].alias = false;
	}
}

/* The code symbol holding addr: a sized one that covers it, else the
 * nearest unsized one below it; NULL when none does. */
static struct sym_msym *find_sym(struct sym_module *m, uint64_t addr)
{
	if (!m->syms_built)
		build_syms(m);
	size_t lo = 0, hi = m->nsyms;
	while (lo < hi) { /* first symbol above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Unsized symbols name what follows them up to the next one: not
	 * when some were not read (one of those may be nearer). */
	struct sym_msym *near = &m->syms[lo - 1], *hit = near->size || m->syms_cut ? NULL : near;
	/* Sized symbols may nest or overlap: look a little further down. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 32; k++)
		if (m->syms[i].size && addr - m->syms[i].start < m->syms[i].size) {
			hit = &m->syms[i];
			break;
		}
	if (hit && hit->alias)
		settle_alias(m, hit);
	return hit;
}

/* Whether the module's DWARF line table is within SYM_LINES_MAX_BYTES
 * (libdw decodes a unit's whole line program at the first lookup in it). */
static bool lines_within_cap(struct sym_module *m)
{
	Dwarf_Addr bias;
	Dwarf *dw;

	if (!m->lines_ok) {
		m->lines_ok = 1;
		Elf *elf = (dw = dwfl_module_getdwarf(m->mod, &bias)) ? dwarf_getelf(dw) : NULL;
		size_t shstrndx;
		if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
			for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
				GElf_Shdr sh;
				const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
				if (nm && !strcmp(nm, ".debug_line") && sh.sh_size > SYM_LINES_MAX_BYTES)
					m->lines_ok = -1;
			}
	}
	return m->lines_ok > 0;
}

/* GCC's names for parts and clones of one function: foo.cold,
 * foo.lto_priv.0, foo.part.0, foo.isra.0, foo.constprop.0. Returns where
 * the suffix starts, or NULL; *cold: the function's cold part. */
static const char *clone_suffix(const char *name, bool *cold)
{
	static const char *const sfx[] = { ".cold", ".lto_priv.", ".part.", ".isra.", ".constprop.", ".localalias" };
	const char *dot = strchr(name, '.');

	*cold = false;
	if (!dot || dot == name)
		return NULL;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (!strncmp(dot, sfx[i], strlen(sfx[i]))) {
			*cold = i == 0;
			return dot;
		}
	return NULL;
}

/* The DWARF name of the function whose code holds addr (gdb's), for a
 * part or clone the symbol table names by its suffixed symbol: NULL
 * without DWARF there. */
static char *dwarf_function(struct sym_module *m, uint64_t addr, bool cold)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = sym_cu_find(m, addr, &bias), *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	char *out = NULL;

	for (int i = 0; i < n && !out; i++) {
		const char *fn = dwarf_tag(&scopes[i]) == DW_TAG_subprogram ? sym_die_name(&scopes[i]) : NULL;
		char *d = fn ? sym_name_dup(fn) : NULL;
		if (d && cold) {
			size_t l = strlen(d) + 64;
			if ((out = malloc(l)))
				snprintf(out, l, _("%s (cold part)"), d);
			free(d);
		} else {
			out = d;
		}
	}
	free(scopes);
	return out;
}

/* Resolve module-relative addr (the call itself: pc - 1 for a return
 * address); offsets are shown relative to pc. Called with m->lock held. */
static struct sym_info *resolve(struct sym_module *m, uint64_t rel_pc, uint64_t addr, bool source)
{
	struct sym_info *s = calloc(1, sizeof(*s));
	char buf[128];

	if (!s)
		return NULL;
	s->rel = rel_pc;
	s->module = strdup(m->name);
	s->path = strdup(m->path);
	s->build_id = m->build_id ? strdup(m->build_id) : NULL;
	if (strstr(m->path, " (deleted)"))
		s->flags |= SYM_F_DELETED;
	if (!strcmp(m->name, "[vdso]"))
		s->flags |= SYM_F_VDSO;
	const struct sym_msym *sym = find_sym(m, addr);
	bool cold;
	if (sym) {
		char *dn = clone_suffix(sym->name, &cold) && m->mod ? dwarf_function(m, addr, cold) : NULL;
		s->function = dn ? dn : sym_name_dup(sym->name);
		s->offset = addr - sym->start + (rel_pc - addr);
	} else {
		s->flags |= SYM_F_STRIPPED;
		snprintf(buf, sizeof(buf), m->syms_cut ? _("+0x%llx (over %u symbols: not all read)") : "+0x%llx",
			 (unsigned long long)rel_pc, SYM_MODULE_MAX_SYMS);
		size_t l = strlen(m->name) + strlen(buf) + 1;
		s->function = malloc(l);
		if (s->function)
			snprintf(s->function, l, "%s%s", m->name, buf);
	}
	Dwarf_Addr bias;
	if (source && m->mod && !lines_within_cap(m)) {
		s->file = strdup(_("(line table over the 256 MiB cap: not read)"));
	} else if (source && m->mod && dwfl_module_getdwarf(m->mod, &bias)) {
		sym_cu_source(m, addr, s);
	}
	if (!s->function || !s->module || !s->path) {
		sym_info_free(s);
		return NULL;
	}
	return s;
}

const struct sym_info *sym_module_lookup(struct sym_module *m, uint64_t rel_pc, bool activation, bool source)
{
	uint64_t addr = activation || !rel_pc ? rel_pc : rel_pc - 1;
	uint64_t key = (rel_pc << 2) | (activation ? 2 : 0) | (source ? 1 : 0);

	pthread_mutex_lock(&m->lock);
	struct sym_info *r = hmap_get_ptr(&m->cache, key);
	if (!r && (r = resolve(m, rel_pc, addr, source)) && hmap_put_ptr(&m->cache, key, r) < 0) {
		sym_info_free(r);
		r = NULL;
	}
	pthread_mutex_unlock(&m->lock);
	return r;
}

char *sym_module_data_name(struct sym_module *m, uint64_t rel)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	char buf[512];
	char *r = NULL;

	pthread_mutex_lock(&m->lock);
	const char *name = m->mod ? dwfl_module_addrinfo(m->mod, rel, &off, &sym, NULL, NULL, NULL) : NULL;
	if (name && GELF_ST_TYPE(sym.st_info) == STT_OBJECT && (!sym.st_size || off < sym.st_size)) {
		if (off)
			snprintf(buf, sizeof(buf), "%s+0x%llx", name, (unsigned long long)off);
		else
			snprintf(buf, sizeof(buf), "%s", name);
		r = strdup(buf);
	}
	pthread_mutex_unlock(&m->lock);
	return r;
}

int sym_module_symbol(struct sym_module *m, const char *name, uint64_t *value, uint64_t *size)
{
	int r = -ENOENT;

	pthread_mutex_lock(&m->lock);
	int n = m->mod ? dwfl_module_getsymtab(m->mod) : -1;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(m->mod, i, &sym, &a, NULL, NULL, NULL);
		if (s && sym.st_shndx != SHN_UNDEF && !strcmp(s, name)) {
			*value = a;
			if (size)
				*size = sym.st_size;
			r = 0;
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return r;
}
