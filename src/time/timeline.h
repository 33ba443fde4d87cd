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

#endif
