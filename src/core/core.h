/* The core writer: an ELF64 ET_CORE file of a live process, written with
 * libelf, loadable by gdb and eu-stack, while the process runs on.
 *
 * Three methods, chosen per dump (core_opts.method, `--method`):
 *   fork  stop every thread (src/freeze.h), read registers, notes and the
 *         mapping table, make the process fork itself through ptrace
 *         (core/inject.h: a clone with exit signal 0 injected into one
 *         stopped thread), copy what the child does not freeze (shared,
 *         MADV_DONTFORK and MADV_WIPEONFORK mappings), release: the pause
 *         is the page-table copy. The child is read through
 *         /proc/CHILD/mem, then killed and reaped from inside the target.
 *         The process pays a copy-on-write fault on each first write to a
 *         page while the child lives.
 *   stop  stream the memory to the file with every thread stopped (gcore's
 *         way: long pause, little memory).
 *   copy  copy the memory into RAM while stopped, write it after (short
 *         pause for small processes, memory as big as the core).
 * The default picks fork unless a check refuses it (seccomp, vfork,
 * process limits, memory headroom), then copy when it fits a memory
 * budget, else stop; the reason is reported.
 * The file is written through a bounded buffer, sparsely (zero pages
 * become holes), to an unnamed temporary file (O_TMPFILE, else
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600) in the destination directory,
 * the memory with O_DIRECT (through the page cache, with write-behind,
 * where the filesystem refuses it), fsynced and linked into place
 * without replacing anything. */
#ifndef PS_CORE_CORE_H
#define PS_CORE_CORE_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reads.h"
#include "error.h"
#include "target.h"

enum core_phase {
	CORE_PHASE_STOP, CORE_PHASE_COPY, CORE_PHASE_WRITE, CORE_PHASE_SYNC,
	CORE_PHASE_SNAPSHOT,        /* fork: stopped, forking and copying shared memory */
	CORE_PHASE_STREAM,          /* stop: writing with the process stopped */
	CORE_PHASE_READ,            /* fork: writing from the snapshot, the process runs */
};

enum core_method { CORE_METHOD_AUTO, CORE_METHOD_FORK, CORE_METHOD_STOP, CORE_METHOD_COPY };
/* "fork", "stop", "copy" ("auto"); core_method_parse returns -1 if unknown. */
const char *core_method_name(enum core_method m);
int core_method_parse(const char *s);

/* Measured on this kind of VM (a 2-core VM, 4 KiB pages, idle): the first
 * write to each page after a fork snapshot costs a copy-on-write fault of
 * about this many microseconds (tests/bench/core.sh, case 5: 2.89 us; more
 * when the host must back the new page first, or the machine is busy). */
#define CORE_COW_US_PER_PAGE 2.9

struct core_progress {
	enum core_phase phase;
	uint64_t done, total;       /* bytes of memory handled / to handle */
	double elapsed_s;           /* since the start */
	double rate;                /* bytes per second in this phase, 0 unknown */
	double eta_s;               /* -1 unknown */
};

const char *core_phase_name(enum core_phase ph);
/* "copying memory (process stopped) 512M/2.0G 1.1G/s ETA 1s" */
const char *core_progress_text(const struct core_progress *p, char *buf, size_t size);

struct core_opts {
	const char *path;           /* destination file, or an existing directory; NULL = cwd */
	bool all_mappings;          /* ignore coredump_filter and VM_DONTDUMP */
	bool force;                 /* write even if the estimate exceeds the free space */
	enum core_method method;    /* AUTO: choose */
	atomic_bool *cancel;        /* may be NULL */
	void (*progress)(void *arg, const struct core_progress *p);
	void *progress_arg;
};

/* A range recorded with p_filesz 0 because it could not be read. */
struct core_skip {
	uint64_t start, end;
	char path[256];             /* hostile */
	char reason[64];
};

struct core_estimate {
	char path[PATH_MAX];        /* destination */
	uint64_t bytes;             /* apparent file size */
	uint64_t disk_bytes;        /* expected allocated size (zero pages are holes) */
	uint64_t free_bytes;        /* available in the destination's filesystem */
	unsigned mappings;
	unsigned threads;
	enum core_method method;    /* what core_write would use now (AUTO: refused) */
	char method_why[256];       /* why not fork, a note, or why refused */
};

/* Where the pause went (ms), in order: stopping every thread and reading
 * its registers; the mapping table; notes and layout; the fork (snapshot
 * method: starting the watchdog, preparing the thread, the clone itself
 * — the page-table copy —, taking hold of the child, restoring the
 * thread); copying memory while stopped (what the fork does not freeze,
 * or all of it for the stop and copy methods); releasing the threads. */
enum core_pause_part {
	CORE_PAUSE_STOP, CORE_PAUSE_MAPS, CORE_PAUSE_NOTES, CORE_PAUSE_WATCHDOG, CORE_PAUSE_PREPARE,
	CORE_PAUSE_CLONE, CORE_PAUSE_CHILD, CORE_PAUSE_RESTORE, CORE_PAUSE_COPY, CORE_PAUSE_RELEASE,
	CORE_PAUSE_PARTS
};
/* "stop", "maps", ... (JSON keys) */
const char *core_pause_part_name(enum core_pause_part p);

struct core_result {
	char path[PATH_MAX];
	char exe[PATH_MAX];         /* /proc/PID/exe at the time; hostile */
	pid_t pid;
	bool root_other;            /* its files are not at their paths here (a container) */
	uint64_t bytes, disk_bytes;
	double pause_ms, wall_ms;
	unsigned threads;           /* NT_PRSTATUS notes */
	unsigned threads_missed;    /* threads that could not be stopped */
	unsigned mappings;          /* PT_LOAD segments */
	bool staged;                /* memory copied to RAM while stopped, written after */
	enum core_method method;    /* the one used */
	char method_why[256];       /* why not fork, or a note on the fork ("" if none) */
	double sync_ms;             /* the final fsync */
	double child_ms;            /* fork: how long the snapshot child lived */
	double pause_part_ms[CORE_PAUSE_PARTS];
	struct core_skip *skipped;
	size_t nskipped;
};

/* "core.<comm>.<pid>.<YYYYmmdd-HHMMSS>", comm reduced to [A-Za-z0-9._-]. */
void core_default_name(const char *comm, pid_t pid, char *buf, size_t size);

/* Split a destination (file, existing directory, or NULL for the current
 * directory) into its directory and file name. */
int core_dest_split(const char *path, const char *comm, pid_t pid, char *dir, size_t dsz, char *base, size_t bsz,
		    struct ps_error *e);

/* Resolve the destination and estimate size and free space (nothing is
 * stopped or written). want may be NULL. */
PS_READS int core_estimate(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_estimate *est,
		  struct ps_error *e);

/* Write the core. want (may be NULL) pins the identity: a reused PID is
 * refused. On any failure no file is left and the process runs on. */
int core_write(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_result *res,
	       struct ps_error *e);
void core_result_free(struct core_result *res);

/* The command that opens the core in gdb from pscope's namespace (raw:
 * holds the hostile exe and path). A process in a container (root_other)
 * has its files under /proc/PID/root while it runs, so the command reads
 * the executable and the libraries (gdb's sysroot) from there. */
const char *core_gdb_command(const struct core_result *r, char *buf, size_t size);
/* The same core in pscope: "pscope -c CORE", or for a process in a
 * container its stacks with the files read through /proc/PID/root. */
const char *core_pscope_command(const struct core_result *r, char *buf, size_t size);

/* The writer as a job on the ATTACH lane (src/core/job.c): the result is a
 * struct core_result, released with core_result_release. */
struct workers;
struct job_handler;
unsigned core_job_submit(struct workers *w, const struct target_id *id, const char *path,
			 const struct job_handler *h);
void core_result_release(void *res);
/* The estimate for a core of id (start time 0: the process with that pid
 * now) to path (NULL: the default place), read on the long lane: the
 * RING_RESULT payload is a struct core_check (free()), or a RING_ERROR. */
struct core_check {
	struct target_id id;
	char comm[64];              /* hostile */
	struct core_estimate est;
};
unsigned core_estimate_submit(struct workers *w, const struct target_id *id, const char *path,
			      const struct job_handler *h);

#endif
