/* Internal to the core writer: one dump in progress, shared by its parts
 *   writer.c  the sequence: estimate, choose the method, stop, release
 *   out.c     the file: temporary, sparse direct writes (else write-behind),
 *             ELF headers, fsync and link
 *   mem.c     the memory: layout, reading (live, or from the snapshot
 *             child), the staging arena of the copy method
 *   snap.c    the fork snapshot: checks, the injected clone, the reap
 *   reaper.c  the watchdog that reaps the snapshot if pscope dies */
#ifndef PS_CORE_CW_H
#define PS_CORE_CW_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"
#include "core/inject.h"
#include "core/maps.h"
#include "core/notes.h"
#include "core/reaper.h"
#include "freeze.h"
#include "out/save.h"

#define CORE_BUF ((size_t)4 << 20)    /* the bounded buffer: one read, one write */
#define EXTRA_SEGS 64                 /* room for unreadable ranges splitting mappings */

struct seg {
	uint64_t vaddr, memsz, filesz, offset;
	uint32_t flags;
};

struct extent {
	uint64_t file_off, arena_off, len;
};

struct cw {
	pid_t pid;
	const struct target_id *want;
	const struct core_opts *o;
	struct core_result *res;
	struct ps_error *e;
	uint64_t page;
	uint64_t t0;
	enum core_method method;       /* chosen */
	int rc;                        /* result of the work done while frozen */

	struct target t;
	bool have_target;
	struct freeze fz;
	bool frozen;                   /* threads stopped (stop and copy methods) */
	struct core_maps maps;
	struct core_maps pre;          /* smaps read before the stop */
	uint64_t *map_off;             /* file offset of each mapping's data */
	int pagemap_fd;

	/* The fork snapshot: memory is read from the child. */
	struct snap *snap;
	int src_fd;                    /* /proc/CHILD/mem, or -1: the target itself */

	/* Destination. */
	int dirfd, fd;
	int dfd;                       /* the same file opened O_DIRECT, or -1 */
	bool sized;                    /* extended to its final size */
	char dir[PATH_MAX], base[NAME_MAX + 1];
	struct out_file of;            /* fd's unnamed or temporary file (src/out/save.c) */
	uint64_t since_kick;           /* bytes written through the page cache since the last kick */

	/* Layout. */
	struct seg *segs;
	size_t nseg, seg_limit;
	uint64_t data_start, data_end;
	struct core_notes notes;

	/* The copy method: memory staged in RAM while stopped. */
	unsigned char *arena;
	size_t arena_len, arena_used;
	struct extent *ext;
	size_t next, ext_cap;

	unsigned char *buf[2], *hdrbuf; /* CORE_BUF bytes each, one read while the other is written; one page */
	unsigned char *bufmap;         /* their mapping */
	size_t bufmap_len;
	int cur;                       /* the buffer being read into */
	struct cw_writer *writer;      /* the thread that writes the other */
	uint64_t total, done;
	uint64_t mark_ns;              /* the end of the last pause part measured */
	uint64_t phase_t0, phase_done0, last_progress;
	enum core_phase phase;
};

/* writer.c */
void cw_progress(struct cw *c, bool force);
void cw_phase(struct cw *c, enum core_phase ph, uint64_t total);
bool cw_cancelled(struct cw *c);
/* Add the time since the last mark to that part of the pause. */
void cw_mark(struct cw *c, enum core_pause_part part);

/* plan.c */
int cw_read_smaps(struct target *t, struct core_maps *m, struct ps_error *e);
unsigned cw_read_filter(struct target *t);
unsigned cw_thread_count(struct target *t);
void cw_estimate_from(const struct core_maps *m, unsigned threads, uint64_t page, struct core_estimate *est);
/* Free bytes in dir; a read-only or unwritable dir is refused for that. */
int cw_free_space(const char *dir, uint64_t *out, struct ps_error *e);
/* The method (fork, stop or copy) into c->method and the reason into
 * c->res->method_why; an error when fork is forced and impossible. */
int cw_choose(struct cw *c, const struct core_estimate *est);
int cw_forced_fork_error(struct cw *c, const char *why);

/* out.c */
int cw_fs_error(struct ps_error *e, int err, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int cw_open_dest(struct cw *c);
int cw_make_temp(struct cw *c);
int cw_pwrite(struct cw *c, const unsigned char *buf, size_t len, uint64_t off);
/* buf at file offset off, zero-page runs left as holes; every so often
 * start writeback and wait for the previous batch (write-behind). */
int cw_emit(struct cw *c, const unsigned char *buf, size_t len, uint64_t off);
/* The same from another thread while the caller reads on: returns once
 * the previous buffer is written (its error, if any). cw_flush waits for
 * the last one and ends the thread. */
int cw_emit_async(struct cw *c, const unsigned char *buf, size_t len, uint64_t off);
int cw_flush(struct cw *c);
int cw_write_headers(struct cw *c);
int cw_finish_file(struct cw *c);

/* mem.c */
int cw_plan(struct cw *c);
/* Copy the mappings whose how is not CORE_DUMP_OMIT and for which
 * pick(c, m) is true (NULL: all) into the file or the arena. */
int cw_copy(struct cw *c, bool (*pick)(const struct cw *c, const struct core_map *m));
int cw_write_arena(struct cw *c);
void cw_arena_prepare(struct cw *c, uint64_t want);
void cw_mem_free(struct cw *c);
uint64_t cw_mem_available(void);
bool cw_target_gone(struct cw *c);

/* snap.c */
struct snap;
/* Checks before choosing fork (nothing is stopped): 0 when it may be
 * used, else -1 with why filled. */
int snap_check(struct cw *c, char *why, size_t size);
/* While frozen, on the tracer thread: fork the target. 0 with c->src_fd
 * set, or -errno (why filled) when fork could not be used and the target
 * is as it was (the caller falls back). */
int snap_fork(struct cw *c, char *why, size_t size);
/* The snapshot's bytes overwritten by the injection frames, put back. */
void snap_patch(const struct cw *c, uint64_t a, unsigned char *buf, size_t len);
bool snap_child_gone(const struct cw *c);
int snap_src_fd(const struct cw *c);       /* /proc/CHILD/mem */
int snap_pagemap_fd(const struct cw *c);   /* /proc/CHILD/pagemap */
/* Kill the child and reap it from inside the target (after the read). */
void snap_finish(struct cw *c);
void snap_free(struct cw *c);

#endif
