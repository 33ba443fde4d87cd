/* A list snapshot as a recorded interval, and an interval as a snapshot
 * again (its rates still to make: snap_list_rates with the one before).
 * Pure. */
#ifndef PS_RECORD_CONVERT_H
#define PS_RECORD_CONVERT_H

#include "record/format.h"
#include "source/snap.h"

/* iv from s: its strings borrowed from s (free with
 * rec_interval_borrowed_free, while s is held); the extras of the
 * processes in pids. 0 or -ENOMEM. */
int rec_interval_of(const struct snap_list *s, const pid_t *pids, size_t npids, uint64_t wall_ns,
		    struct rec_interval *iv);
void rec_interval_borrowed_free(struct rec_interval *iv);
/* A new list snapshot of iv (NULL: out of memory). */
struct snap_list *rec_snap_of(const struct rec_interval *iv, long hz, unsigned long long btime);

#endif
