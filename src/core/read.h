/* The core reader (post-mortem): kernel, gdb (gcore) and pscope cores of
 * Linux x86-64 processes.
 *
 * Pure parsers (core_elf_parse, core_notes_parse, core_nt_file_parse) take
 * a buffer and its length and never trust a count or an offset in it: what
 * does not fit is reported as a warning and the rest is kept. core_open()
 * does the I/O: it maps the file, parses the headers and notes, and gives
 * a memory accessor over the PT_LOAD segments, with read-only file-backed
 * pages that were not dumped read from the mapped file on disk (NT_FILE).
 *
 * Everything in a core is hostile: paths, names, command line, sizes. */
#ifndef PS_CORE_READ_H
#define PS_CORE_READ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "error.h"
#include "reads.h"

struct core_thread {
	pid_t tid;
	int cursig;                    /* pr_cursig */
	struct user_regs_struct regs;
	bool regs_ok;                  /* NT_PRSTATUS was whole */
	bool crashed;                  /* the thread the signal was for (NT_SIGINFO after its NT_PRSTATUS) */
};

struct core_siginfo {
	bool valid;
	int signo, errno_, code;
	uint64_t addr;                 /* fault address (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP) */
	int pid, uid;                  /* sender (si_code <= 0) */
};

struct core_file_map {                 /* one NT_FILE entry */
	uint64_t start, end, pgoff;    /* pgoff in bytes */
	char *path;                    /* hostile */
};

struct core_segment {                  /* one PT_LOAD */
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags;                /* PF_R/PF_W/PF_X */
	uint64_t avail;                /* bytes of filesz present in the file (truncated cores) */
};

struct core_info {
	/* ELF header and program headers */
	struct core_segment *segs;     /* sorted by vaddr */
	size_t n_segs;
	struct { uint64_t offset, filesz; } notes[8]; /* PT_NOTE ranges */
	size_t n_notes;
	/* Notes */
	struct core_thread *threads;   /* in note order: the kernel puts the dumping thread first */
	size_t n_threads, cap_threads;
	struct core_siginfo sig;
	bool have_psinfo;
	char state;                    /* pr_sname */
	int pid, ppid, uid, gid;
	char fname[17];                /* hostile */
	char psargs[81];               /* hostile */
	struct core_file_map *files;
	size_t n_files, cap_files;
	uint64_t auxv_entry, auxv_phdr, auxv_vdso; /* AT_ENTRY, AT_PHDR, AT_SYSINFO_EHDR; 0 when absent */
	uint64_t auxv_phnum;           /* AT_PHNUM */
	uint64_t file_page;            /* NT_FILE page size */
	/* What did not parse: one sentence each, for the user. */
	char **warnings;
	size_t n_warnings, cap_warnings;
};

/* Parse the ELF header and program headers at the start of a core file.
 * buf holds the first len bytes of the file, file_size is its real size
 * (for truncation). 0, or -EINVAL with e set when it is not an x86-64
 * core at all. */
int core_elf_parse(const void *buf, size_t len, uint64_t file_size, struct core_info *ci, struct ps_error *e);
/* Parse the contents of one PT_NOTE segment into ci. Malformed notes end
 * the walk with a warning; what came before is kept. 0 or -ENOMEM. */
int core_notes_parse(const void *buf, size_t len, struct core_info *ci);
/* Parse an NT_FILE descriptor into ci->files. 0 or -ENOMEM (bad contents
 * are a warning). */
int core_nt_file_parse(const void *buf, size_t len, struct core_info *ci);
/* Add a warning (printf-style). */
void core_warn(struct core_info *ci, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void core_info_free(struct core_info *ci);

/* A module of the core: a file mapped with its ELF header at `base`. */
enum core_mod_status {
	CORE_MOD_OK,                   /* build-ids match */
	CORE_MOD_NO_ID,                /* no build-id in the core or in the file: not checked */
	CORE_MOD_MISMATCH,             /* the file on disk is not the one mapped */
	CORE_MOD_MISSING,              /* cannot open the file */
	CORE_MOD_MEMORY,               /* no file ([vdso]): from the core's memory */
};

struct core_module {
	char *path;                    /* as recorded in NT_FILE (hostile) */
	char *disk_path;               /* what was opened (--sysroot, --exe), or NULL */
	uint64_t base, end;
	enum core_mod_status status;
	int open_errno;                /* CORE_MOD_MISSING */
	unsigned char id_core[64], id_disk[64];
	size_t id_core_len, id_disk_len;
	bool is_exe;
};

/* Which file a core is, as a target_id says which process: its path, and
 * the file that was there when it was read (device, inode, size and
 * modification time). A file replaced under the same name is another core.
 * ino 0: whatever file has that path now. */
struct core_file_id {
	char path[4096];
	unsigned long long dev, ino, size;
	long long mtime_ns;
};
/* The identity of the file at id->path now (0, or -errno: gone). */
PS_READS int core_file_id_read(struct core_file_id *id);
/* The same file (path, device, inode, size and mtime). */
bool core_file_id_equal(const struct core_file_id *a, const struct core_file_id *b);

struct core_open_opts {
	const char *exe;               /* the executable, instead of NT_FILE's path */
	const char *sysroot;           /* prefix for every file of the core */
	bool headers_only;             /* notes and segments only: no module checks */
};

struct core {
	char path[4096];
	struct core_file_id id;        /* the file opened (before any decompression) */
	int fd;                        /* the core, or the private file it was decompressed into */
	const char *compression;       /* "zstd", "xz", "lz4", or NULL */
	uint64_t packed_size;          /* the compressed file's size */
	bool packed_cut;               /* the compressed stream ends early */
	const unsigned char *map;
	uint64_t size;
	struct core_info info;
	struct core_module *mods;
	size_t n_mods;
	uint64_t vdso_start, vdso_end; /* 0 when not found */
	bool truncated;                /* some segment is cut by the end of the file */
	size_t segs_cut;               /* segments with missing bytes */
	uint64_t bytes_missing;
	int *file_fds;                 /* one per ci.files entry, -2 = not tried, -1 = failed */
};

/* Open a core; a compressed one (systemd-coredump's .zst, .xz, .lz4) is
 * decompressed first (core_unpack). */
PS_READS int core_open(const char *path, const struct core_open_opts *o, struct core **out, struct ps_error *e);
void core_close(struct core *c);
/* Read memory of the dumped process. file_fallback: also read
 * file-backed pages that are not in the core from the file on disk. Returns
 * bytes read from the start (short at the first unreadable byte). */
size_t core_read_mem(struct core *c, uint64_t addr, void *buf, size_t len, bool file_fallback);
/* No NT_FILE note: the mapped files from the dynamic linker's list in the
 * core's memory (read-linkmap.c), exe: the program's path (--exe) or NULL.
 * 0, -ENOENT (no list found: only the program, if anything), -ENOMEM. */
int core_linkmap_files(struct core *c, const char *exe);
/* The segment holding addr, or NULL. */
const struct core_segment *core_segment_at(const struct core *c, uint64_t addr);

/* Maps in /proc/PID/maps form for the core (PT_LOAD + NT_FILE), malloc'd.
 * disk_paths: each file as it is opened (--exe, --sysroot), not as the
 * core recorded it. */
char *core_maps_text(struct core *c, bool disk_paths);
/* The file on disk of ci.files[i] (--exe, --sysroot), opened once; -1 if none. */
int core_file_fd(struct core *c, size_t i);

/* Compressed cores (unpack.c): the format from the first bytes of a file,
 * its name, and the decompression of fd (the file at path, compressed
 * with k) into a private temporary file under $TMPDIR (O_TMPFILE: no
 * name, gone when closed), *out its descriptor. head: stop after that many
 * bytes (0: all). *cut: the stream ends early (what came out is kept).
 * 0, or -errno with e set: no room in $TMPDIR, damaged data, a library
 * this pscope was built without (the message says how to do it by hand). */
enum core_comp { CORE_COMP_NONE, CORE_COMP_ZSTD, CORE_COMP_XZ, CORE_COMP_LZ4 };
enum core_comp core_compression(const void *head, size_t len);
const char *core_comp_name(enum core_comp k);
int core_unpack(int fd, const char *path, enum core_comp k, uint64_t head, int *out, bool *cut, struct ps_error *e);

/* Texts for the header: "SIGSEGV", "SEGV_MAPERR" and "address not mapped
 * to object"; NULL when unknown. */
const char *core_signal_name(int signo);
const char *core_sigcode_name(int signo, int code, const char **meaning);
/* "libc.so.6 on disk is not the one that was mapped: frames in it may be
 * wrong" and the like, for modules whose status is not OK; NULL for OK. */
const char *core_module_problem(const struct core_module *m, char *buf, size_t size);
/* The signal the process died of, 0 for a snapshot (none, or the SIGSTOP
 * of a debugger writing it). */
int core_signal(const struct core *c);
/* The thread that received it (NULL when none). */
const struct core_thread *core_crashed_thread(const struct core *c);

/* Every thread's stack from the core, as `pscope stack` shows a live
 * process: the same unwinder, symbolizer, lock graph and grouping. */
struct stk_dump;
struct stk_opts;
int core_stack_dump(struct core *c, const struct stk_opts *o, struct stk_dump **out, struct ps_error *e);

/* A core read for the TUI: the core, its stacks (with file:line) and its
 * memory map in /proc/PID/maps form. */
struct core_view {
	struct core *core;
	struct stk_dump *dump;
	char *maps_text;
};
void core_view_free(struct core_view *v);
/* Read the core id names (when id->ino is set, refused with ESTALE when
 * the file at id->path is no longer that one), its stacks with progress
 * (may be NULL) until *cancel (ECANCELED). 0 or -errno with e filled. */
PS_READS int core_view_read(const struct core_file_id *id, const char *exe, const char *sysroot, atomic_bool *cancel,
			    void (*progress)(void *arg, double fraction, const char *text), void *arg,
			    struct core_view **out, struct ps_error *e);

#endif
