/* Internals of the symbolizer shared by its files. */
#ifndef PS_SYM_LOCAL_H
#define PS_SYM_LOCAL_H

#include "hmap.h"
#include "sym/sym.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

/* An address range of a compilation unit (DIE offset in .debug_info). */
struct sym_curange {
	uint64_t lo, hi;
	uint64_t off;
};

/* A file's symbols and DWARF, shared by every view that maps it. */
/* A code symbol of a module, for the binary search that replaces
 * libdwfl's linear dwfl_module_addrinfo. */
struct sym_msym {
	uint64_t start, size;
	const char *name;
	unsigned rank;               /* at one address: lower is preferred */
	bool alias;                  /* other symbols start there too */
};

struct sym_module {
	char *key;                   /* build-id:dev:inode:path */
	char *path;                  /* as mapped ("/usr/lib/.../libc.so.6", "[vdso]") */
	char *name;                  /* short name */
	char *build_id;              /* hex, NULL: the file has none */
	uint64_t dev, ino;           /* of the file it was loaded from (0: none) */
	Dwfl *dwfl;                  /* this module only, at its file vaddrs */
	Dwfl_Module *mod;            /* NULL when libdwfl refused the file */
	struct sym_phdr *ph;         /* PT_LOAD segments */
	size_t nph;
	pthread_mutex_t lock;        /* dwfl and the cache */
	struct hmap cache;           /* (rel_pc, activation, source) -> struct sym_info * */
	struct sym_msym *syms;       /* code symbols by address (names: libdwfl's) */
	size_t nsyms;
	bool syms_built;
	bool syms_cut;               /* more than SYM_MODULE_MAX_SYMS: the rest not read */
	int lines_ok;                /* 0 not checked, 1 line table within the cap, -1 over it */
	struct sym_curange *cus;     /* units by address, without .debug_aranges (lines.c) */
	size_t ncus;
	int cus_built;               /* 0 not yet, 1 built, -1 not needed or not possible */
	Dwarf_Die cu;                /* the unit sym_cu_find found last */
	unsigned refs;               /* under the registry lock */
	struct sym_module *next;
};

/* Find or load the module of the open ELF file fd (consumed). path: the
 * real file (debuglink lookups), display: the name the maps give. */
struct sym_module *sym_module_get(int fd, const char *path, const char *display, uint64_t dev, uint64_t ino);
void sym_module_put(struct sym_module *m);
/* The module already loaded from the file display names with that device
 * and inode (a new reference), or NULL: a process mapping the same file
 * binds it without opening the file again. */
struct sym_module *sym_module_find(uint64_t dev, uint64_t ino, const char *display);
/* Modules loaded in pscope now (tests). */
size_t sym_module_count(void);
/* DWARF lookups of a module (lines.c), with m->lock held. The unit
 * covering addr: libdwfl's (.debug_aranges), else, in a module without
 * that section (Go's), from the units' own ranges, read once. NULL when
 * none covers it. */
Dwarf_Die *sym_cu_find(struct sym_module *m, uint64_t addr, Dwarf_Addr *bias);
/* file:line of addr into s (left unset when no unit covers it: libdwfl
 * would give the nearest unit's last line), then the inlined calls there. */
void sym_cu_source(struct sym_module *m, uint64_t addr, struct sym_info *s);
/* A DIE's linkage name, else its name (both may be inherited). */
const char *sym_die_name(Dwarf_Die *die);
const struct sym_info *sym_module_lookup(struct sym_module *m, uint64_t rel_pc, bool activation, bool source);
char *sym_module_data_name(struct sym_module *m, uint64_t rel);
int sym_module_symbol(struct sym_module *m, const char *name, uint64_t *value, uint64_t *size);

void sym_info_free(struct sym_info *s);
/* The file vaddr and size of the module's allocated section `name`
 * (ehframe.c). Returns 0 or -ENOENT. */
int sym_module_section(struct sym_module *m, const char *name, uint64_t *vaddr, uint64_t *size);
/* Room for one more of the parsers' ranges: *r doubled from first when
 * n reached *cap. Returns 0 or -ENOMEM (*r left as it was). */
static inline int sym_range_room(struct sym_range **r, size_t n, size_t *cap, size_t first)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : first;
	struct sym_range *nr = realloc(*r, nc * sizeof(**r));
	if (!nr)
		return -ENOMEM;
	*r = nr;
	*cap = nc;
	return 0;
}
/* Names of a process's anonymous code (jit.c): /tmp/perf-PID.map and a
 * mapped jit-PID.dump, read again as they grow. */
struct sym_jit {
	struct sym_range *r;         /* sorted; at one start the newest last */
	size_t n;
	char **pools;
	size_t npools;
	unsigned gen;                /* changes whenever r does */
	uint64_t polled_ns;
	const char *why;             /* why the perf map was not (all) read, or NULL */
	bool map_seen;               /* the perf map as last read: */
	uint64_t map_ino, map_size, map_off;
	int64_t map_mtime;
	char tail[32];               /* the bytes before map_off */
	uint64_t dump_ino, dump_off; /* the jitdump: read up to dump_off */
	bool dump_broken;
	const char *dump_why;        /* why the jitdump was not read, or NULL */
};
#define SYM_JIT_POLL_NS 100000000ull
/* Read what was added to the perf map and the jitdump since the last poll
 * (maps: the view's, where the jitdump is found; root: their prefix). */
void sym_jit_poll(struct sym_jit *j, pid_t pid, uid_t uid, const struct proc_maps *maps, const char *root);
/* The name of the JIT code at pc, or NULL. */
const char *sym_jit_name(struct sym_jit *j, uint64_t pc);
/* Why code is not named: a refused perf map or jitdump, "not in its perf map",
 * "no perf map or jitdump". */
const char *sym_jit_why(const struct sym_jit *j);
void sym_jit_free(struct sym_jit *j);
/* libdwfl's search path of debug files (file.c): PSCOPE_DEBUG_DIR, then
 * the default; set by sym_debug_path_init before the first dwfl_begin. */
extern char *sym_debuginfo_path;
void sym_debug_path_init(void);
/* libdwfl's find_debuginfo callback (file.c): separate debug files found
 * by build-id or debug link, each read through sym_file_stable(). */
int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
		       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		       char **debuginfo_file_name);
/* strdup of a symbol name, demangled when it is a C++ name. */
char *sym_name_dup(const char *name);

#endif
