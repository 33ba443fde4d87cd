/* The one perf_event_open layer. Everything in pscope that opens a perf
 * event, maps its ring buffer or reads its records goes through here:
 *
 *   opening   perf_open() (the only call of the syscall), an event into a
 *             shared ring (perf_open_into), the sampling event chosen
 *             with perf's fallbacks (perf_choose_sampling), tracepoints by
 *             name (tp.c); a refusal names its door (perf_refused).
 *   rings     perf_ring_map/open/close, and the ring protocol: acquire
 *             data_head, copy each record out (it may wrap), release
 *             data_tail (perf_ring_drain, perf_ring_peek); waiting on
 *             rings and on task events (POLLHUP: the task is gone).
 *   records   one pure decoder per record type (decode.c), each with a
 *             unit test and a fuzz harness, and a reader that decodes a
 *             ring's records and hands each to a consumer's callback of
 *             that type: struct perf_consumer, like perf's struct
 *             perf_tool. LOST and THROTTLE are counted by the reader.
 *
 * Samplers and tracers (src/sample/, the scheduler tracer) are consumers:
 * they choose and open their events here and keep only policy (what a
 * sample means to them). doc/architecture.md, "The perf layer". */
#ifndef PS_PERF_H
#define PS_PERF_H

#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "hmap.h"

/* ---- opening events (open.c) ---- */

/* perf_event_open(2), close-on-exec: an fd or -errno. */
int perf_open(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd);
struct perf_ring;
/* An event whose records go to ring r (PERF_EVENT_IOC_SET_OUTPUT; same
 * CPU as the ring, or any CPU for a ring of cpu -1): an fd or -errno. */
int perf_open_into(const struct perf_event_attr *a, pid_t pid, int cpu, const struct perf_ring *r);
/* The kernel's id of an event: what PERF_SAMPLE_ID/IDENTIFIER carry. */
int perf_event_id(int fd, uint64_t *id);
/* Events on pid (-1: every task of a CPU) refused with err: the sentence
 * and its door (door_refused, or door_percpu_refused for every task).
 * Returns -|err|. */
int perf_refused(struct ps_error *e, pid_t pid, int err, const char *what);

/* The sampling event, chosen as perf chooses it: hardware cycles (most
 * precise first when asked), else cpu-clock, else task-clock (a task's
 * events only); kernel samples excluded up front when
 * perf_event_paranoid >= 2 without CAP_PERFMON, or after the kernel
 * refused them; user register and stack copies dropped when the kernel
 * cannot take them. Each choice is tried on (pid, cpu) and closed. */
struct perf_sampling {
	pid_t pid;          /* a process (cpu -1), or -1: every task of cpu */
	int cpu;
	int freq;           /* Hz */
	uint64_t sample_type;
	uint64_t regs_user; /* with PERF_SAMPLE_REGS_USER|STACK_USER: the mask */
	uint32_t stack_user;/* bytes of user stack per sample */
	bool inherit;       /* children sampled from their first instruction */
	bool side_records;  /* MMAP2, COMM (exec marked), FORK/EXIT, sample_id_all */
	bool precise;       /* cycles: ask for precise_ip, lowered until accepted */
	const char *what;   /* the refusal's phrase: "sample" */
};

struct perf_choice {
	struct perf_event_attr attr; /* what was accepted (watermark 0) */
	char event[32];              /* "cycles", "cpu-clock", "task-clock" */
	char event_why[160];         /* why that event */
	bool kernel_excluded;
	char kernel_why[128];
	bool stack_dropped;          /* asked for stack copies, refused */
};
/* 0, or -errno with e naming the door. */
int perf_choose_sampling(const struct perf_sampling *rq, struct perf_choice *c, struct ps_error *e);

/* ---- ring buffers (ring.c) ---- */

struct perf_ring {
	int fd;                          /* the event whose buffer it is */
	int cpu;                         /* -1: a per-task event's own */
	struct perf_event_mmap_page *pg; /* control page: data_head, data_tail */
	unsigned char *data;             /* size bytes after it */
	uint64_t size;                   /* a power of two */
	size_t map_len;
};
#define PERF_RING_PAGES 128 /* data pages: 512 KiB, perf's default mlock budget */

/* Map event fd's buffer: max_pages data pages (a power of two), halved
 * while the perf mlock budget refuses. 0 or -errno (e: the door). */
int perf_ring_map(struct perf_ring *r, int fd, int cpu, size_t max_pages, struct ps_error *e);
/* A ring of our own on cpu, owned by a dummy event of the calling thread:
 * it outlives every event redirected into it (perf_open_into), even a
 * target thread's. exclude_kernel as the events it will take. door_pid:
 * the target a refusal names. 0; -ENODEV (e untouched) when the CPU is
 * offline; or -errno with e naming the door. */
int perf_ring_open(struct perf_ring *r, int cpu, bool exclude_kernel, size_t max_pages, pid_t door_pid,
		   struct ps_error *e);
void perf_ring_close(struct perf_ring *r);

/* Copy len bytes from a ring of `size` bytes (a power of two) at offset
 * off, wrapping at its end. */
void perf_ring_copy(const unsigned char *data, uint64_t size, uint64_t off, void *dst, size_t len);
/* Every complete record between data_tail and data_head (acquire): fn
 * gets a contiguous, 8-aligned copy in scratch (PERF_SCRATCH bytes), then
 * data_tail is released past them. Returns the number of records. */
#define PERF_SCRATCH 65536
typedef void perf_record_fn(void *ctx, const struct perf_event_header *h);
size_t perf_ring_drain(struct perf_ring *r, unsigned char *scratch, perf_record_fn *fn, void *ctx);
/* The unread records of one type, nothing consumed (e.g. an exec's COMM
 * found before the samples of other rings are read). */
size_t perf_ring_peek(const struct perf_ring *r, uint32_t type, unsigned char *scratch, perf_record_fn *fn,
		      void *ctx);

/* ---- waiting (poll.c) ---- */

/* The rings to read (POLLIN) and the per-task events to watch: a task's
 * event hangs up (POLLHUP) once the task has exited -- that task, and with
 * inherit what it cloned, is gone. (An event with no ring, neither mapped
 * nor redirected, hangs up at once.) Each fd carries the caller's tag. */
struct perf_pollset {
	struct pollfd *fds;
	uint64_t *tags;
	unsigned n, cap;
};
void perf_pollset_clear(struct perf_pollset *p);
/* 0, or -ENOMEM (the set holds what was added before). */
int perf_pollset_add(struct perf_pollset *p, int fd, bool ring, uint64_t tag);
/* poll(2) on the set: the fds ready, 0 after timeout_ms, or -errno. */
int perf_pollset_wait(struct perf_pollset *p, int timeout_ms);
/* After a wait, from *at on: the next task event that hung up, its fd
 * and tag; false when there is none left. */
bool perf_pollset_gone(const struct perf_pollset *p, unsigned *at, int *fd, uint64_t *tag);
void perf_pollset_free(struct perf_pollset *p);

/* ---- records (decode.c): pure decoders, one per record type ---- */

/* How the records of a ring are laid out: the events' attr. */
struct perf_format {
	uint64_t sample_type;
	uint64_t regs_user;  /* sample_regs_user (with PERF_SAMPLE_REGS_USER) */
	bool sample_id_all;  /* non-sample records end with a struct perf_id */
};
void perf_format_of(const struct perf_event_attr *a, struct perf_format *f);

/* The sample_id every record ends with under sample_id_all: the fields of
 * sample_type among TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER (0 when not
 * in sample_type or the record has none). */
struct perf_id {
	uint32_t pid, tid, cpu;
	uint64_t time, id, stream_id;
};

/* PERF_RECORD_SAMPLE, as its sample_type lays it out. Pointers point into
 * the record (8-aligned in the reader's copy); absent fields are 0/NULL. */
struct perf_sample {
	uint64_t id, ip, addr, stream_id, period, weight, data_src, transaction, phys_addr, cgroup;
	uint32_t pid, tid, cpu;
	uint64_t time;
	uint64_t nr;                 /* CALLCHAIN: ips[nr], context markers included */
	const uint64_t *ips;
	uint32_t raw_size;           /* RAW: a tracepoint's fields */
	const unsigned char *raw;
	uint64_t regs_abi;           /* REGS_USER: 0 none (e.g. a kernel thread) */
	const uint64_t *regs;        /* in mask bit order */
	const unsigned char *stack;  /* STACK_USER: the copy from sp */
	uint64_t stack_size;         /* bytes really copied */
};
/* 0; -EINVAL for a record too short for its fields; -EOPNOTSUPP for a
 * sample_type with READ, BRANCH_STACK, REGS_INTR or AUX (never asked). */
int perf_decode_sample(const struct perf_event_header *h, const struct perf_format *f, struct perf_sample *out);

/* PERF_RECORD_MMAP2. name points into the record; name_ok when it ends
 * inside it. With build_id (misc MMAP_BUILD_ID) maj, min and ino hold a
 * build id instead. */
struct perf_mmap2 {
	uint32_t pid, tid, maj, min, prot, flags;
	uint64_t start, len, pgoff, ino;
	const char *name;
	bool name_ok, build_id;
	struct perf_id id;
};
int perf_decode_mmap2(const struct perf_event_header *h, const struct perf_format *f, struct perf_mmap2 *out);

/* PERF_RECORD_COMM: a thread's new name; exec when an exec named it. */
struct perf_comm {
	uint32_t pid, tid;
	char comm[16];               /* raw, hostile; always terminated */
	bool exec;
	struct perf_id id;
};
int perf_decode_comm(const struct perf_event_header *h, const struct perf_format *f, struct perf_comm *out);

/* PERF_RECORD_FORK and PERF_RECORD_EXIT: a task born or gone (a new
 * process when pid == tid and pid != ppid). */
struct perf_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	struct perf_id id;
};
int perf_decode_task(const struct perf_event_header *h, const struct perf_format *f, struct perf_task *out);

/* PERF_RECORD_LOST: records the kernel dropped, the ring being full. */
struct perf_lost {
	uint64_t id, lost;
	struct perf_id sid;
};
int perf_decode_lost(const struct perf_event_header *h, const struct perf_format *f, struct perf_lost *out);

/* PERF_RECORD_THROTTLE / UNTHROTTLE: sampling paused (the interrupt rate
 * went past kernel.perf_event_max_sample_rate) or resumed. */
struct perf_throttle {
	uint64_t time, id, stream_id;
	bool unthrottle;
	struct perf_id sid;
};
int perf_decode_throttle(const struct perf_event_header *h, const struct perf_format *f, struct perf_throttle *out);

/* ---- tracepoints (tp.c) ---- */

/* One field of a tracepoint's format file. */
struct perf_tp_field {
	char name[48];
	char type[64];            /* "pid_t", "char[16]", "__data_loc char[]" */
	uint16_t offset, size;
	bool is_signed;
	bool data_loc;            /* a u32: length << 16 | offset of the data */
	bool array;               /* type ends in [N] (size is the whole array) */
};
#define PERF_TP_FIELDS 32

/* The parsed events/SYSTEM/NAME/format file of tracefs. */
struct perf_tp_format {
	char name[64];
	uint32_t id;
	unsigned nfields;         /* common_* fields included */
	struct perf_tp_field fields[PERF_TP_FIELDS];
};
/* Pure: the text of a format file. 0, or -EINVAL (no name, no id, a
 * field line that does not parse, more than PERF_TP_FIELDS fields). */
int perf_tp_parse(const char *buf, size_t len, struct perf_tp_format *out);
const struct perf_tp_field *perf_tp_field(const struct perf_tp_format *f, const char *name);
/* A field's value in a raw record: integers of 1, 2, 4 or 8 bytes (sign
 * extended when signed), strings (char[N] or __data_loc char[]) copied
 * and terminated. 0, or -EINVAL when the field lies outside the record. */
int perf_tp_int(const struct perf_tp_field *fld, const unsigned char *raw, size_t len, int64_t *v);
int perf_tp_str(const struct perf_tp_field *fld, const unsigned char *raw, size_t len, char *buf, size_t size);

/* The tracepoints pscope decodes by name. */
enum perf_tp_kind {
	PERF_TP_OTHER,            /* fields read with perf_tp_int/str */
	PERF_TP_SCHED_SWITCH,     /* sched:sched_switch */
	PERF_TP_SCHED_WAKEUP,     /* sched:sched_wakeup */
	PERF_TP_SCHED_WAKEUP_NEW, /* sched:sched_wakeup_new */
	PERF_TP_SYS_ENTER,        /* raw_syscalls:sys_enter */
	PERF_TP_SYS_EXIT,         /* raw_syscalls:sys_exit */
};

/* A tracepoint ready to open and decode: its format and the fields its
 * decoder reads, found by name (their offsets are this kernel's). */
struct perf_tp {
	char system[32];
	struct perf_tp_format fmt;
	enum perf_tp_kind kind;
	const struct perf_tp_field *f[8]; /* the kind's fields, in the order below */
};
/* Bind a parsed format (system: "sched"): the kind from the name, and
 * its fields; -EINVAL (e says which field) when one is missing or of a
 * size the decoder cannot read. */
int perf_tp_bind(struct perf_tp *tp, const char *system, const struct perf_tp_format *fmt, struct ps_error *e);

struct perf_sched_switch {
	char prev_comm[16], next_comm[16]; /* raw, hostile */
	int32_t prev_pid, prev_prio, next_pid, next_prio;
	int64_t prev_state;                /* TASK_* bits; 0 running (preempted) */
};
struct perf_sched_wakeup {                 /* sched_wakeup and sched_wakeup_new */
	char comm[16];
	int32_t pid, prio, target_cpu;
};
struct perf_sys_enter {
	int64_t id;                        /* syscall number */
	uint64_t args[6];
};
struct perf_sys_exit {
	int64_t id, ret;
};

/* One tracepoint record decoded: the sample that carried it, its kind
 * and its fields. */
struct perf_tp_event {
	const struct perf_tp *tp;
	const unsigned char *raw;
	uint32_t raw_size;
	union {
		struct perf_sched_switch sw;
		struct perf_sched_wakeup wk;
		struct perf_sys_enter enter;
		struct perf_sys_exit exit;
	};
};
/* Pure: decode raw by tp's fields. 0 or -EINVAL (too short). */
int perf_tp_decode(const struct perf_tp *tp, const unsigned char *raw, size_t len, struct perf_tp_event *out);

/* The reader: tracefs (/sys/kernel/tracing, else
 * /sys/kernel/debug/tracing; mounted at /sys/kernel/tracing when absent
 * and we may, as perf does), then events/SYSTEM/NAME/format. 0 or -errno
 * with e naming the door (tracefs is root's). */
int perf_tracefs(char *path, size_t size, struct ps_error *e);
int perf_tp_load(struct perf_tp *tp, const char *system, const char *name, struct ps_error *e);
/* The attr of tp: every event (period 1), sample_type |
 * PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER (the reader finds tp by id). */
void perf_tp_attr(const struct perf_tp *tp, uint64_t sample_type, struct perf_event_attr *a);

/* ---- consumers (reader.c) ---- */

/* One callback per record type; NULL: not wanted. A sample of a
 * tracepoint the reader knows (perf_reader_add_tp) goes to on_tracepoint,
 * others to on_sample. Pointers live during the call only. */
struct perf_consumer {
	void (*on_sample)(void *ctx, const struct perf_sample *s);
	void (*on_tracepoint)(void *ctx, const struct perf_sample *s, const struct perf_tp_event *ev);
	void (*on_mmap2)(void *ctx, const struct perf_mmap2 *m);
	void (*on_comm)(void *ctx, const struct perf_comm *c);
	void (*on_fork)(void *ctx, const struct perf_task *t);
	void (*on_exit)(void *ctx, const struct perf_task *t);
	void (*on_lost)(void *ctx, const struct perf_lost *l);
	void (*on_throttle)(void *ctx, const struct perf_throttle *t);
};

/* Decodes the records of rings whose events share one format, and gives
 * each to the consumer. */
struct perf_reader {
	const struct perf_consumer *c;
	void *ctx;
	struct perf_format fmt;
	pid_t pid;                       /* > 0: records of other processes are
					  * dropped (per-CPU events of every
					  * task keeping one process's) */
	struct hmap tps;                 /* sample id -> const struct perf_tp * */
	unsigned char *scratch;          /* PERF_SCRATCH bytes */
	unsigned long long lost, throttled, bad; /* records lost, throttles, undecodable */
};
int perf_reader_init(struct perf_reader *rd, const struct perf_consumer *c, void *ctx, const struct perf_format *f);
void perf_reader_fini(struct perf_reader *rd);
/* Samples with this id (perf_event_id) are records of tp (kept by the
 * caller). 0 or -ENOMEM. */
int perf_reader_add_tp(struct perf_reader *rd, uint64_t id, const struct perf_tp *tp);
/* One record (pure: also what the fuzz harness drives). */
void perf_reader_record(struct perf_reader *rd, const struct perf_event_header *h);
/* Drain ring r through the reader. Returns the number of records. */
size_t perf_read(struct perf_reader *rd, struct perf_ring *r);

#endif
