/* The core writer: an ELF64 ET_CORE file of a live process, written with
 * libelf, loadable by gdb and eu-stack, while the process runs on.
 *
 * Method: stop every thread (src/freeze.h), read registers, notes and
 * the mapping table, copy the memory to dump with process_vm_readv into a
 * staging area (or straight into the file when memory is short), release
 * the threads, then write the file sparsely (zero pages become holes) to a
 * temporary file (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600) in the destination
 * directory, fsync it and rename it into place without replacing anything. */
#ifndef PS_CORE_CORE_H
#define PS_CORE_CORE_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "target.h"

enum core_phase { CORE_PHASE_STOP, CORE_PHASE_COPY, CORE_PHASE_WRITE, CORE_PHASE_SYNC };

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
};

struct core_result {
	char path[PATH_MAX];
	char exe[PATH_MAX];         /* /proc/PID/exe at the time; hostile */
	uint64_t bytes, disk_bytes;
	double pause_ms, wall_ms;
	unsigned threads;           /* NT_PRSTATUS notes */
	unsigned threads_missed;    /* threads that could not be stopped */
	unsigned mappings;          /* PT_LOAD segments */
	bool staged;                /* memory copied to RAM while stopped, written after */
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
int core_estimate(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_estimate *est,
		  struct ps_error *e);

/* Write the core. want (may be NULL) pins the identity: a reused PID is
 * refused. On any failure no file is left and the process runs on. */
int core_write(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_result *res,
	       struct ps_error *e);
void core_result_free(struct core_result *res);

/* The writer as a job on the ATTACH lane (src/core/job.c): the result is a
 * struct core_result, released with core_result_release. */
struct workers;
struct job_handler;
unsigned core_job_submit(struct workers *w, const struct target_id *id, const char *path,
			 const struct job_handler *h);
void core_result_release(void *res);

#endif
