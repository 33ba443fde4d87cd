/* The one symbolizer: every view (stack dump, sampler, machine-wide view,
 * Python reader, core reader) names code addresses through it.
 *
 * Two layers:
 *  - modules, shared by every process of pscope: one per file keyed by
 *    build-id + path + inode (a stripped copy of a binary is another module
 *    than the original; libc is parsed once for all processes). A module
 *    holds the ELF symbol tables and DWARF (libdwfl, debuginfo found by
 *    build-id) and a cache of resolved addresses. Modules are reference
 *    counted and thread-safe: the stack dump and the sampler run on
 *    different worker threads.
 *  - a process view (struct sym_proc): the executable mappings of one
 *    address space, each bound to its module and load bias, and a cache
 *    by pc. A view is used by one thread at a time.
 *
 * A view is built from a live pid (it reads /proc/PID/maps, opens files
 * through /proc/PID/map_files or /proc/PID/root so deleted and replaced
 * files are the mapped ones, reads [vdso] from the process and
 * /tmp/perf-PID.map for JIT code) or from an address-space image (a core:
 * the caller gives the mappings with their file paths and a memory reader).
 *
 * Names:
 *  - a function symbol ("parse_payload", C++ demangled: "ns::f(int)");
 *  - no symbol in a known module: "libfoo.so+0x1a2b" (module-relative
 *    address), flag SYM_F_STRIPPED, its own row per address;
 *  - an anonymous executable mapping: its name in /tmp/perf-PID.map or a
 *    jitdump, else "[anon/JIT] (why)" (SYM_F_ANON);
 *  - an address in no executable mapping: "[unknown]" (SYM_F_UNKNOWN);
 *  - data symbols (objects) never name code; sym_data_name() names data.
 * Every string comes from ELF, DWARF or the target: hostile. */
#ifndef PS_SYM_SYM_H
#define PS_SYM_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reads.h"
#include "proc/maps.h"

enum sym_flags {
	SYM_F_KERNEL = 1,    /* kernel text (kallsyms) */
	SYM_F_STRIPPED = 2,  /* in a module, but no symbol covers it */
	SYM_F_DELETED = 4,   /* the module's file was deleted or replaced */
	SYM_F_ANON = 8,      /* anonymous executable memory (JIT) */
	SYM_F_UNKNOWN = 16,  /* in no executable mapping */
	SYM_F_VDSO = 32,     /* the kernel's [vdso] */
};

/* An inlined call at a pc, innermost first. */
struct sym_inline {
	char *function;
	char *file;          /* where this inlined function's code is */
	int line;
};

/* One resolved pc. Owned by the view (valid until sym_proc_free). */
struct sym_info {
	char *function;      /* symbol (demangled), "module+0x..." when stripped,
			      * "[anon/JIT]", "[unknown]"; never NULL */
	uint64_t offset;     /* pc - symbol start (0 when there is no symbol) */
	char *module;        /* short module name ("libc.so.6", "[vdso]"), NULL if none */
	char *path;          /* full path of the module file, NULL if none */
	char *file;          /* source file of the pc in the named function
			      * (after the inlined calls), or NULL */
	int line;
	struct sym_inline *inl; /* inlined calls at the pc, innermost first */
	size_t n_inl;
	uint64_t rel;        /* module-relative address (file vaddr) */
	char *build_id;      /* the module's GNU build-id in hex, or NULL */
	unsigned flags;      /* SYM_F_* */
};

/* ---- the process view ---- */
struct sym_proc;

/* Memory reader of an address space (a live process or a core's image):
 * returns the bytes read (short reads allowed) or -1. */
typedef ssize_t (*sym_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);

struct sym_image {
	pid_t pid;                    /* > 0: the live process these maps are of
				       * (files through /proc/PID, refreshes) */
	uid_t uid;                    /* its owner (/tmp/perf-PID.map trust) */
	const struct proc_maps *maps; /* the mappings (copied); paths name files */
	sym_read_fn read;             /* [vdso] and anything not in a file; may be NULL */
	void *read_arg;
	const char *root;             /* prefix for paths ("" or NULL: none) */
};

enum sym_opts {
	SYM_SOURCE = 1,      /* resolve file:line and inlined calls (DWARF) */
};

/* A view of live process pid (uid: owner, for /tmp/perf-PID.map trust).
 * Returns NULL on no memory; a process that is gone gives an empty view
 * (every pc "[unknown]"). */
PS_READS struct sym_proc *sym_proc_live(pid_t pid, uid_t uid, unsigned opts);
/* A view of an address-space image: a core, or a live process with the
 * maps read at a given moment (the stack dump's freeze). */
struct sym_proc *sym_proc_image(const struct sym_image *img, unsigned opts);
void sym_proc_free(struct sym_proc *p);

/* A new executable mapping appeared (MMAP2 record, dlopen, exec): the next
 * lookup that misses re-reads the maps (live views). anon: it was
 * anonymous, so /tmp/perf-PID.map is re-read too. */
void sym_proc_stale(struct sym_proc *p, bool anon);
/* The process exec'd: forget everything known about its mappings. */
void sym_proc_exec(struct sym_proc *p);

/* Resolve pc. activation: pc is where a thread was interrupted (frame 0);
 * otherwise pc is a return address and the call before it is named.
 * Never NULL (on no memory a static "[unknown]"). */
const struct sym_info *sym_lookup(struct sym_proc *p, uint64_t pc, bool activation);
/* Distinct pcs resolved so far. */
size_t sym_proc_count(const struct sym_proc *p);

/* The data symbol (object) covering addr: "ledger", "table+0x8"
 * (malloc'd), or NULL. Functions are never returned. */
char *sym_data_name(struct sym_proc *p, uint64_t addr);
/* Address of the symbol `name` (dynamic or static symbol table) in the
 * first module whose short name starts with module_prefix (NULL or "":
 * any module). Returns 0 or -ENOENT. */
int sym_symbol_addr(struct sym_proc *p, const char *module_prefix, const char *name, uint64_t *addr,
		    uint64_t *size);

/* The mapping holding addr (from the view's last read of the maps), or
 * NULL. */
const struct proc_map *sym_proc_map(struct sym_proc *p, uint64_t addr);
/* The view's mappings (refreshed by sym_proc_refresh for live views). */
const struct proc_maps *sym_proc_maps(const struct sym_proc *p);
/* Re-read the maps if a new mapping was reported (sym_proc_stale). Returns
 * the maps' generation: it changes whenever they were re-read. */
unsigned sym_proc_sync(struct sym_proc *p);
/* The run-time address and size of the .eh_frame section of the module
 * mapped at pc (from its section headers: for modules without
 * .eh_frame_hdr). Returns 0 or -ENOENT. */
int sym_proc_eh_frame(struct sym_proc *p, uint64_t pc, uint64_t *addr, uint64_t *size);
/* Re-read /proc/PID/maps now (live views). Returns 0 or -errno. */
int sym_proc_refresh(struct sym_proc *p);

/* ---- kernel symbols (/proc/kallsyms, shared by all views) ---- */
/* True when kernel addresses resolve to names (kallsyms readable and not
 * hidden by kptr_restrict). */
bool sym_kernel_named(void);
/* Name a kernel address: function "[kernel]" when kallsyms is closed. */
void sym_kernel(uint64_t pc, const char **function, const char **module);

/* ---- pure parsers (unit-tested) ---- */
struct sym_range {
	uint64_t start, size;
	const char *name;
	const char *module;   /* kallsyms: "[module]" or NULL */
};
/* /tmp/perf-PID.map ("START SIZE name" in hex, with or without 0x) and /proc/kallsyms ("addr
 * type name [module]", text symbols only): a sorted, malloc'd array; names
 * point into *pool (malloc'd). Return the count or -errno. */
ssize_t sym_perfmap_parse(const char *buf, size_t len, struct sym_range **out, char **pool);
/* Caps of a perf map (the target writes it): a larger file is not read,
 * entries past the cap are not parsed (a count equal to it means cut). */
#define SYM_PERFMAP_MAX_BYTES (64 << 20)
#define SYM_PERFMAP_MAX_ENTRIES (1u << 20)
/* A jitdump's records (JIT_CODE_LOAD: name, address and size of the code;
 * the rest skipped), from the file's start (at_start: its header first) or
 * from the end of the last whole record read. *used: the bytes of whole
 * records (the next read starts there). Returns the count, or -EINVAL (not
 * a jitdump of this byte order), -ENOMEM. */
ssize_t sym_jitdump_parse(const void *buf, size_t len, bool at_start, size_t *used, struct sym_range **out,
			  char **pool);
/* The FDEs of an .eh_frame section read from run-time address addr: the
 * run-time start of the code each covers and the FDE's address, sorted by
 * pc (the table .eh_frame_hdr would hold). Returns the count or -ENOMEM. */
struct sym_fde {
	uint64_t pc, fde;
};
#define SYM_EHFRAME_MAX_FDES (1u << 22)
ssize_t sym_ehframe_index(const void *buf, size_t len, uint64_t addr, struct sym_fde **out);
ssize_t sym_kallsyms_parse(const char *buf, size_t len, struct sym_range **out, char **pool);
/* Binary search: the range holding pc, or NULL. Unsized (kallsyms): the
 * last symbol at or below pc. */
const struct sym_range *sym_range_find(const struct sym_range *r, size_t n, uint64_t pc, bool sized);

/* Names are capped: a symbol, a demangled name, an inlined function or a
 * perf map entry longer than SYM_NAME_MAX bytes is cut there and ends with
 * the mark "…[name cut at 1024 bytes]". Mangled names longer than
 * SYM_MANGLED_MAX are not demangled (they are kept mangled, cut). */
#define SYM_NAME_MAX 1024
/* Caps of one module's tables (the file's owner sets their sizes): code
 * symbols past SYM_MODULE_MAX_SYMS are not read (addresses only they
 * would name say so), and file:line is not looked up in a .debug_line
 * larger than SYM_LINES_MAX_BYTES (the source says so). */
#define SYM_MODULE_MAX_SYMS (1u << 22)
#define SYM_LINES_MAX_BYTES (256u << 20)
#define SYM_MANGLED_MAX 4096
/* A malloc'd copy of the len bytes at name, cut with the mark past
 * SYM_NAME_MAX. */
char *sym_name_cut(const char *name, size_t len);
/* C++ (Itanium ABI) demangling within the cap: a malloc'd demangled name
 * (cut with the mark when it would be longer), or NULL when name is not a
 * valid mangling or is longer than SYM_MANGLED_MAX. */
char *sym_demangle(const char *name);

/* ---- files another user can change (src/sym/file.c) ----
 * Every ELF file, debug file and core pscope maps goes through
 * sym_file_stable(): a file only root can change is used as it is; any
 * other is copied into a sealed memfd, so it cannot shrink (SIGBUS) or
 * change under the parsers. Larger than SYM_FILE_COPY_MAX: not read. */
#define SYM_FILE_COPY_MAX (1ull << 30)
struct stat;
/* Owned by root, not group/other-writable, not on FUSE (or one of
 * pscope's sealed copies). */
bool sym_file_trusted(int fd, const struct stat *st);
/* Consumes fd: returns an fd safe to map (fd itself, or the copy), or
 * -ESTALE (it kept changing while it was copied), -EFBIG (over the cap),
 * -EINVAL (not a regular file), -errno. */
int sym_file_stable(int fd);
/* Opens a regular file a target or a core names, as root may: looked up
 * once with O_PATH (a FIFO does not block, a device is not opened: its
 * driver never runs), checked regular, then opened from that inode
 * (read-only, non-blocking, never a controlling tty). An fd, or -EINVAL
 * (not a regular file), -errno. */
int sym_open_regular(int dirfd, const char *path);
/* The file an O_PATH fd holds, opened read-only the same way (pfd is left
 * open; its type is the caller's to have checked). An fd or -errno. */
int sym_reopen(int pfd);
/* ---- source files, for their text (src/sym/srcfile.c) ----
 * Read through sym_file_stable(), regular files only, at most
 * SYM_SRC_MAX bytes. 0 or -errno (-EFBIG: over the cap). */
#define SYM_SRC_MAX (16u << 20)
struct sym_src;
int sym_src_open(const char *path, struct sym_src **out);
/* Line `line` (from 1) without its newline, *len its bytes; NULL past the
 * end. The text is the file's: hostile, not NUL-terminated at *len. */
const char *sym_src_line(const struct sym_src *f, int line, size_t *len);
void sym_src_free(struct sym_src *f);
/* Pure: the offsets of the first max lines of text into start; their count. */
size_t sym_src_index(const char *text, size_t len, size_t *start, size_t max);
/* A short phrase for sym_file_stable's error: "the file changed while it
 * was read". */
const char *sym_file_why(int err);

/* Load bias of an ELF file mapped at map_start from file offset map_off,
 * given its program headers: the value to subtract from a run-time address
 * to get the file's virtual address. Pure; returns 0 or -ENOENT when no
 * PT_LOAD covers map_off. */
struct sym_phdr {
	uint64_t vaddr, offset, filesz, memsz;
};
int sym_load_bias(const struct sym_phdr *ph, size_t n, uint64_t map_start, uint64_t map_off, uint64_t *bias);

#endif
