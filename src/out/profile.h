/* The profile files pscope writes from a snapshot (svg.h, pprof.h,
 * speedscope.h): each a writer of one shape, saved through out_save. */
#ifndef PS_OUT_PROFILE_H
#define PS_OUT_PROFILE_H

#include <stdio.h>

#include "error.h"
#include "sample/sample.h"

/* Write window w (thread filter tid, 0 = all) of s to f; *total (if not
 * NULL) gets the weight written. 0 or -errno. */
typedef int (*out_profile_fn)(FILE *f, const struct samp_snapshot *s, enum samp_window w, pid_t tid,
			      unsigned long long *total);

/* write's file put in place as path (out_save: never a partial file
 * there). 0 or -errno with e filled. */
int out_profile_save(const char *path, out_profile_fn write, const struct samp_snapshot *s, enum samp_window w,
		     pid_t tid, unsigned long long *total, struct ps_error *e);

#endif
