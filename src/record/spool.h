/* A directory of day files (pscope record -o DIR): pscope-YYYYMMDD.rec,
 * one a local day (pscope-YYYYMMDD-N.rec when the recorder started again
 * that day: a recording is never appended to), the oldest removed for
 * --keep and --max-size. Only names of that form, regular files of
 * pscope's own user, are ever listed or removed. */
#ifndef PS_RECORD_SPOOL_H
#define PS_RECORD_SPOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "error.h"

struct rec_day {
	char name[NAME_MAX + 1];
	int day;                   /* YYYYMMDD */
	unsigned seq;              /* 1 for pscope-YYYYMMDD.rec, N for -N */
	uint64_t size;
};

/* Pure: name as a day file: 0 with *day, *seq, or -1. */
int rec_day_parse(const char *name, int *day, unsigned *seq);
/* Pure: the day file's name (seq 1: pscope-YYYYMMDD.rec). */
void rec_day_name(int day, unsigned seq, char *buf, size_t size);
/* The local day (YYYYMMDD) of wall (seconds since 1970), and the local
 * midnight that ends it. */
int rec_day_of(double wall, double *next_midnight);
/* Pure: whole days from day a to day b (b - a). */
long rec_day_diff(int a, int b);

/* The day files of dirfd owned by owner ((uid_t)-1: anyone), oldest
 * first. 0 or -errno. */
int rec_spool_list(int dirfd, uid_t owner, struct rec_day **out, size_t *n, struct ps_error *e);
/* Remove, oldest first, the day files older than keep_days days before
 * today (0: none), then while the total exceeds max_size (0: no cap)
 * the oldest, never the one named open_name. said(name, size) for each
 * removed. *total: the total kept. 0 or -errno (a file that could not be
 * removed). */
int rec_spool_prune(int dirfd, uid_t owner, const char *open_name, int today, unsigned keep_days,
		    uint64_t max_size, void (*said)(const char *name, uint64_t size, void *arg), void *arg,
		    uint64_t *total, struct ps_error *e);

#endif
