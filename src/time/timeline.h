/* The timeline: the tracepoint tier's records of the target's threads, in
 * time order, kept in a bounded ring (the oldest dropped past the cap, and
 * counted), for `pscope time PID --timeline FILE` (src/out/trace.c writes
 * it in the Chrome trace event format). Pure: no I/O. */
#ifndef PS_TIME_TIMELINE_H
#define PS_TIME_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum tm_tl_kind {
	TM_TL_SWITCH,     /* tid switched out (a: state), b switched in */
	TM_TL_WAKEUP,     /* tid (the wakee) woken by b */
	TM_TL_SYS_ENTER,  /* tid entered system call a */
	TM_TL_SYS_EXIT,   /* tid left system call a, returning b (clamped to int32) */
	TM_TL_SAMPLE,     /* a cpu-clock sample of tid */
	TM_TL_FAULT,      /* a page fault of tid */
};

/* 24 bytes an event. */
struct tm_tlev {
	uint64_t time;    /* CLOCK_MONOTONIC ns (perf's clock) */
	int32_t tid, a, b;
	uint8_t kind;
	uint8_t pad[3];
};

#define TM_TL_CAP_DEFAULT (2u << 20) /* 2 Mi events: 48 MiB */

struct tm_timeline {
	struct tm_tlev *v;  /* ring of cap */
	size_t cap, head, n; /* head: the oldest */
	unsigned long long dropped;  /* the oldest ones overwritten past the cap */
	bool sampled;                /* the tier traced part of each second only (above its rate) */
};

/* 0 or -ENOMEM. */
int tm_tl_init(struct tm_timeline *tl, size_t cap);
void tm_tl_add(struct tm_timeline *tl, const struct tm_tlev *e);
/* The i-th event, oldest first (i < n). */
const struct tm_tlev *tm_tl_at(const struct tm_timeline *tl, size_t i);
void tm_tl_free(struct tm_timeline *tl);

/* One window's events, immutable once made and shared by reference (the
 * job keeps the last seconds' chunks, each snapshot holds references to
 * them): the TUI timeline's data. */
struct tm_tlchunk {
	int ref;                     /* atomic */
	uint64_t t0, t1;             /* the window (CLOCK_MONOTONIC ns) */
	unsigned long long dropped;  /* events of the window that did not fit the ring */
	bool sampled;
	size_t n;
	struct tm_tlev v[];
};
/* The ring's events as a chunk of [t0, t1] (one reference); the ring is
 * emptied. NULL without memory (the ring is emptied too). */
struct tm_tlchunk *tm_tlchunk_take(struct tm_timeline *tl, uint64_t t0, uint64_t t1);
struct tm_tlchunk *tm_tlchunk_get(struct tm_tlchunk *c);
void tm_tlchunk_put(struct tm_tlchunk *c);

/* What a thread does over a stretch of time, as the records show it. */
enum tm_tl_state {
	TM_TS_UNKNOWN,   /* before its first record */
	TM_TS_RUN,       /* on a CPU, in user space */
	TM_TS_SYS,       /* on a CPU, in a system call */
	TM_TS_RUNQ,      /* runnable: waiting for a CPU */
	TM_TS_BLOCK,     /* blocked; + the reason (enum tm_reason) */
	TM_TS_COUNT = TM_TS_BLOCK + 7
};

/* Marks at an instant. */
#define TM_TM_SAMPLE 1u  /* a cpu-clock sample */
#define TM_TM_WOKEN 2u   /* woken (the wakee) */
#define TM_TM_WAKER 4u   /* it woke another thread of the target */
#define TM_TM_FAULT 8u   /* a page fault */

struct tm_tl_walker {
	void *ctx;
	/* tid's stretch [a, b) in state st (sys: the system call, -1). */
	void (*stretch)(void *ctx, pid_t tid, enum tm_tl_state st, int sys, uint64_t a, uint64_t b);
	/* A mark of tid at t; other: the waker of a wakee, the wakee of a waker. */
	void (*mark)(void *ctx, pid_t tid, unsigned mark, pid_t other, uint64_t t);
};
/* Walk the chunks' events (in time order, chunk after chunk) through a
 * per-thread state machine: every stretch each thread's records show
 * whole or in part (the last one ends at the last chunk's t1), and the
 * marks. */
void tm_tl_walk(struct tm_tlchunk *const *c, size_t nc, const struct tm_tl_walker *w);

/* One cell of the grid: the time of each state in it, its marks, the
 * system call it spent most time in (-1). */
struct tm_tlcell {
	uint64_t ns[TM_TS_COUNT];
	unsigned marks;
	int sys;
	uint64_t sys_ns;
};
/* The grid of ntids rows (tids[]) by ncols cells of dt ns from t0, into
 * out[row * ncols + col] (zeroed here). With ncols 1 and dt the length of
 * an interval: each thread's breakdown of that interval. */
void tm_tl_grid(struct tm_tlchunk *const *c, size_t nc, const pid_t *tids, size_t ntids, uint64_t t0, uint64_t dt,
		int ncols, struct tm_tlcell *out);
/* The state that fills most of a cell (TM_TS_UNKNOWN when none). */
enum tm_tl_state tm_tl_cell_state(const struct tm_tlcell *cell);
/* The start of tid's next stretch after t (not at t) in a state of mask
 * (1u << state) lasting min_ns or more; its end in *end. 0: none. */
uint64_t tm_tl_next(struct tm_tlchunk *const *c, size_t nc, pid_t tid, uint64_t t, unsigned mask, uint64_t min_ns,
		    uint64_t *end);

#endif
