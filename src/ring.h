/* The bounded queue workers post results to; the UI drains it. Readable
 * through an eventfd the UI's poll loop waits on.
 *
 * Delivery rules: RESULT and ERROR messages are never dropped (past the
 * capacity they wait in an overflow list). PROGRESS and SNAPSHOT messages
 * of the same job replace the pending one (coalesced); when the ring is full
 * a new one is dropped. Every coalesce and drop is counted. */
#ifndef PS_RING_H
#define PS_RING_H

#include <stddef.h>

#include "error.h"
#include "target.h"

enum ring_kind {
	RING_PROGRESS,   /* text + fraction; may be coalesced */
	RING_SNAPSHOT,   /* immutable payload (e.g. sampler table); may be coalesced */
	RING_RESULT,     /* final payload of a job; never dropped */
	RING_ERROR,      /* err filled; never dropped */
	RING_DONE,       /* job finished (after its RESULT/ERROR or on cancel); never dropped */
};

struct ring_msg {
	enum ring_kind kind;
	unsigned job_id;
	struct target_id target;
	void *payload;                 /* owned by the message */
	void (*payload_free)(void *);  /* NULL: free() */
	double fraction;               /* progress 0..1, or -1 unknown */
	char text[200];                /* progress line */
	struct ps_error err;           /* RING_ERROR */
};

struct ring_stats {
	unsigned long posted, delivered, coalesced, dropped, overflowed;
};

struct ring *ring_new(unsigned capacity);
/* Frees undelivered payloads. */
void ring_free(struct ring *r);
int ring_fd(const struct ring *r);
/* Copies *m (the ring owns m->payload from here on). Thread-safe. */
void ring_post(struct ring *r, const struct ring_msg *m);
/* Moves up to max messages to out, oldest first; the caller owns their
 * payloads (release with ring_msg_release). Returns the count. */
size_t ring_drain(struct ring *r, struct ring_msg *out, size_t max);
void ring_msg_release(struct ring_msg *m);
void ring_get_stats(struct ring *r, struct ring_stats *s);

#endif
