/* The recording's format (doc/record-format.md), as pure functions: the
 * file header, the frame headers, the index and footer, and the intervals
 * inside the frames (the process table, its counters and the meters),
 * encoded against the interval before (a delta) or alone (a key). No I/O
 * here: src/record/file.c reads and writes; a fuzz harness feeds these. */
#ifndef PS_RECORD_FORMAT_H
#define PS_RECORD_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "proc/ptable.h"
#include "proc/sysinfo.h"

#define REC_MAGIC "PSCOPREC"
#define REC_VERSION 1              /* the newest this pscope writes and reads */
#define REC_HEAD_FIXED 64          /* the file header before its schema text */
#define REC_HEAD_MAX 4096
#define REC_FRAME_HEAD 40
#define REC_FOOTER 24
#define REC_INDEX_ENTRY 24
#define REC_FRAME_MAX (64u << 20)  /* no frame is bigger, packed or not */
#define REC_KEY_EVERY 60           /* a key interval at least this often */

/* The file header. */
struct rec_header {
	unsigned version, min_version; /* written by; the oldest reader that reads it */
	uint64_t start_wall_ns;    /* when the recording started */
	long hz;                   /* the recording machine's clock ticks */
	unsigned long long btime;  /* its boot time (seconds since 1970) */
	unsigned interval_ms;
	char host[65];             /* hostile */
	char schema[1024];         /* the fields, in order (rec_schema) */
	size_t len;                /* bytes on file */
};

enum rec_frame_type { REC_FRAME_KEY = 1, REC_FRAME_DELTA = 2, REC_FRAME_INDEX = 3 };

/* A frame's header; its payload follows (zstd, or raw for the index). */
struct rec_frame_head {
	enum rec_frame_type type;
	uint64_t t_ns;             /* the recorder's monotonic clock */
	uint64_t wall_ns;          /* since 1970 */
	uint32_t packed_len, raw_len, crc;
};

/* One frame as the index lists it. */
struct rec_entry {
	uint64_t wall_ns, off;     /* off: of its frame header */
	uint32_t packed_len;
	uint8_t type;
};

struct rec_footer {
	uint64_t index_off;        /* of the index frame's header */
	uint32_t count;
};

uint32_t rec_crc32(const void *p, size_t n);
const char *rec_schema(void);

/* Each encode writes exactly its size into out; each parse returns 0 or
 * -errno with e's message (say where: the caller adds the file and offset). */
size_t rec_header_encode(const struct rec_header *h, uint8_t *out, size_t size);
/* -EPROTO: not a recording (or truncated); -ENOTSUP: a newer format;
 * *need: the header's full length when len was short (-EAGAIN). */
int rec_header_parse(const uint8_t *p, size_t len, struct rec_header *h, size_t *need, struct ps_error *e);
void rec_frame_head_encode(const struct rec_frame_head *f, uint8_t out[REC_FRAME_HEAD]);
int rec_frame_head_parse(const uint8_t p[REC_FRAME_HEAD], struct rec_frame_head *f, struct ps_error *e);
void rec_footer_encode(const struct rec_footer *f, uint8_t out[REC_FOOTER]);
/* -ENOENT: no footer there (the recording was not closed). */
int rec_footer_parse(const uint8_t p[REC_FOOTER], struct rec_footer *f);
void rec_entry_encode(const struct rec_entry *en, uint8_t out[REC_INDEX_ENTRY]);
void rec_entry_parse(const uint8_t p[REC_INDEX_ENTRY], struct rec_entry *en);
/* The index of the entry at or nearest to wall_ns (n > 0): O(log n). */
size_t rec_entry_nearest(const struct rec_entry *v, size_t n, uint64_t wall_ns);

/* ---- the intervals ---- */

/* The numbers a row is recorded as, in the order of rec_schema(). */
enum {
	RF_TGID, RF_PPID, RF_START, RF_OWNER_START, RF_UID, RF_STATE, RF_FLAGS, RF_PRIO, RF_NICE, RF_NLWP,
	RF_VIRT, RF_RES, RF_SHR, RF_TICKS, RF_READ_NS, RF_CPU_NR, RF_PGRP, RF_SID, RF_TTY, RF_MAJFLT,
	RF_CMDLEN, RF_COUNT
};
/* A row's recorded extras (the --pid processes'): the counters. */
struct rec_extra {
	int io_err, oom;
	uint64_t io_ns, ctxt_ns;
	unsigned long long io_rb, io_wb, ctxt;
	char *cgroup;              /* hostile; NULL none */
	char container[40];
};
struct rec_row {
	pid_t pid;
	uint64_t f[RF_COUNT];      /* signed ones as their two's complement */
	char comm[64];             /* hostile */
	char *cmdline;             /* hostile; NULL none */
	bool has_x;
	struct rec_extra x;
};
struct rec_user {
	uid_t uid;
	char name[33];
};
/* One interval: what a list snapshot holds, as plain owned data. */
struct rec_interval {
	uint64_t t_ns, wall_ns;
	bool threads;
	struct ptable_counts counts;
	bool have_sys;
	int ncpu;
	int *cpu_id;
	struct sys_cpu_times total_t, *cpu_t;
	struct sys_meminfo mem;
	struct sys_loadavg load;
	double uptime;
	struct rec_user *users;
	size_t nusers;
	struct rec_row *rows;
	size_t n;
};
void rec_interval_free(struct rec_interval *iv);

/* A growing byte buffer. */
struct rec_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};
void rec_buf_free(struct rec_buf *b);

/* cur as a key interval (prev NULL) or as the changes since prev: 0 or
 * -ENOMEM. */
int rec_interval_encode(const struct rec_interval *prev, const struct rec_interval *cur, struct rec_buf *out);
/* The interval a payload makes on top of prev (NULL: it must be a key).
 * 0 or -EPROTO / -ENOMEM with e filled; out is left empty on error. */
int rec_interval_decode(const struct rec_interval *prev, const uint8_t *p, size_t len, bool key,
			struct rec_interval *out, struct ps_error *e);

#endif
